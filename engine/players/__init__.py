"""Computer players. A player is given one seat's information, never the state.

:class:`SeatInfo` is what a seat may know: its view (``Ruleset.view``) and the events of the
current deal as that seat saw them (``Event.for_viewer``). Since a player receives nothing else,
it cannot use a concealed card: fair play holds by construction.
"""

from __future__ import annotations

from .base import STANDARD_LEVEL, Player, SeatInfo, level_names, player

__all__ = ["STANDARD_LEVEL", "Player", "SeatInfo", "level_names", "player"]
