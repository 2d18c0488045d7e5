"""The computer-player interface and the registry of levels."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from ..rules import Action, Refusal, RuleError
from ..shuffle import SeededRandom


@dataclass(frozen=True)
class SeatInfo:
    """Everything one seat may know: what a computer player decides from."""

    ruleset: str
    seat: int
    view: Mapping[str, Any]
    #: the events of the current deal, from its ``deal`` event on, as this seat saw them
    events: tuple[Mapping[str, Any], ...] = ()

    def legal_actions(self) -> list[Action]:
        return [Action.from_json(action) for action in self.view["legal_actions"]]


class Player(ABC):
    """A computer player of one level."""

    level: ClassVar[str]
    names: ClassVar[Mapping[str, str]]

    @abstractmethod
    def choose(self, info: SeatInfo, seed: str) -> Action:
        """One of ``info``'s legal actions. The same info and seed give the same action."""


class RandomPlayer(Player):
    """Picks uniformly among the legal actions: for testing, and for a gentle first game."""

    level = "random"
    names = {"en": "Random", "tr": "Rastgele"}

    def choose(self, info: SeatInfo, seed: str) -> Action:
        legal = info.legal_actions()
        return legal[SeededRandom(seed, "random-player").below(len(legal))]


_LEVELS: dict[str, Player] = {player.level: player for player in (RandomPlayer(),)}

#: the level of the computer seats of a standard table (a game created without a seat list)
STANDARD_LEVEL = "random"


def level_names() -> list[str]:
    """The computer levels, weakest first."""
    return list(_LEVELS)


def player(level: str) -> Player:
    """The player of ``level``; raises ``RuleError(code="unknown_level")`` for any other."""
    try:
        return _LEVELS[level]
    except (KeyError, TypeError):
        raise RuleError(
            "unknown_level",
            f"there is no computer level {level!r}; levels are: {', '.join(_LEVELS)}",
            Refusal.BAD_SETUP,
            details={"allowed": list(_LEVELS)},
        ) from None
