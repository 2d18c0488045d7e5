"""Computer players. A player is given one seat's information, never the state.

:class:`SeatInfo` is what a seat may know: its view (``Ruleset.view``) and the events of the
current deal as that seat saw them (``Event.for_viewer``). Since a player receives nothing else,
it cannot use a concealed card: fair play holds by construction.

Levels: ``random`` (uniform among legal actions), ``basic`` (rules of thumb) and ``expert``
(search over the hidden cards); ``basic`` and ``expert`` play each game through its
:class:`Strategy`, registered with the game (``engine.registry.register``); a game without
one has the ``random`` level only.
"""

from __future__ import annotations

from .arena import SeatLogs, play_match
from .base import (
    STANDARD_LEVEL,
    BasicPlayer,
    Budget,
    ExpertPlayer,
    Player,
    RandomPlayer,
    SeatInfo,
    Strategy,
    level_names,
    player,
    standard_level,
    strongest_level,
    register_strategy,
    strategy,
)

__all__ = [
    "STANDARD_LEVEL",
    "BasicPlayer",
    "Budget",
    "ExpertPlayer",
    "Player",
    "RandomPlayer",
    "SeatInfo",
    "SeatLogs",
    "Strategy",
    "level_names",
    "play_match",
    "player",
    "standard_level",
    "strongest_level",
    "register_strategy",
    "strategy",
]
