"""The computer-player interface, decision budgets, and the registry of levels and strategies."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Mapping

from ..actions import Action
from ..errors import Refusal, RefusalCode
from ..shuffle import SeededRandom


@dataclass(frozen=True)
class SeatInfo:
    """Everything one seat may know: what a computer player decides from."""

    ruleset: str
    seat: int
    #: the game's options (public: every seat knows what game it plays)
    options: Mapping[str, Any]
    view: Mapping[str, Any]
    #: the events of the current deal, from its ``deal`` event on, as this seat saw them
    events: tuple[Mapping[str, Any], ...] = ()
    #: what the view says, in the game's masks, straight from the engine (``Ruleset.knowledge``);
    #: None for a client that holds only the view (``koz bot``): a strategy then reads it back
    knowledge: Any = field(default=None, compare=False)

    def legal_actions(self) -> list[Action]:
        return [Action.from_json(action) for action in self.view["legal_actions"]]


def _no_timer() -> float:
    return 0.0


@dataclass(frozen=True)
class Budget:
    """How long or how much one decision may think.

    By time (the service's way): a searching level thinks for ``seconds`` (None: the
    level's own :attr:`Player.think_seconds`), and never past ``ceiling``, both measured by
    ``timer`` (supplied by the caller: the engine reads no time of its own), so a faster machine
    or engine searches more and a busy one less. By a count, reproducibly (tests): ``work`` is
    the deterministic budget (samples, iterations or searched positions, as a strategy counts
    them), and the same info, seed and work give the same decision; ``ceiling`` still bounds it.
    Without a timer (the default one never moves) a decision is counted too, at the strategy's
    calibrated work.
    """

    work: int | None = None
    seconds: float | None = None  # None: the level's default
    ceiling: float = 0.5  # leaves room to finish the step under way well within a second
    timer: Callable[[], float] = field(default=_no_timer, compare=False)

    @property
    def has_timer(self) -> bool:
        return self.timer is not _no_timer

    def deadline(self) -> Callable[[], bool]:
        """A check that turns true once ``ceiling`` seconds have passed since this call."""
        timer = self.timer
        ends = timer() + self.ceiling
        return lambda: timer() >= ends


#: the work of a decision that thinks by time: more than any decision does in its time
BY_TIME = 1 << 40


class Player(ABC):
    """A computer player of one level."""

    level: ClassVar[str]
    names: ClassVar[Mapping[str, str]]
    #: how long a decision of this level thinks by default, in seconds (0: it does not search)
    think_seconds: ClassVar[float] = 0.0
    #: whether :meth:`choose` reads ``info.events``: a caller may leave them out when it does not
    #: (replaying a deal to find them is most of the cost of a quick decision)
    reads_events: ClassVar[bool] = True
    #: whether :meth:`choose` reads more of ``info`` than its view's legal actions: a caller may
    #: hand one that does not a view of only those, and no knowledge (building the whole view was
    #: most of what was left of a random reply's cost)
    reads_view: ClassVar[bool] = True

    @abstractmethod
    def choose(self, info: SeatInfo, seed: str, budget: Budget | None = None) -> Action:
        """One of ``info``'s legal actions; the same info, seed and budget give the same action."""


class Strategy(ABC):
    """How one game is played by the ``basic`` and ``expert`` levels."""

    #: the work of an expert decision counted without a timer (about its time on the calibration machine)
    expert_work: ClassVar[int] = 1

    @abstractmethod
    def basic(self, info: SeatInfo, rng: SeededRandom) -> Action:
        """A rule-of-thumb decision."""

    @abstractmethod
    def expert(self, info: SeatInfo, rng: SeededRandom, budget: Budget) -> Action:
        """A decision by search over the hidden cards, within ``budget``."""


_STRATEGIES: dict[str, Strategy] = {}


def register_strategy(ruleset_id: str, strategy: Strategy) -> None:
    _STRATEGIES[ruleset_id] = strategy


def unregister_strategy(ruleset_id: str) -> None:
    _STRATEGIES.pop(ruleset_id, None)


def strategy(ruleset_id: str) -> Strategy:
    return _STRATEGIES[ruleset_id]


class RandomPlayer(Player):
    """Picks uniformly among the legal actions: for testing, and for a gentle first game."""

    level = "random"
    names = {"en": "Random", "tr": "Rastgele"}
    reads_events = False
    reads_view = False

    def choose(self, info: SeatInfo, seed: str, budget: Budget | None = None) -> Action:
        legal = info.view["legal_actions"]
        # only the chosen one is read: reading all thirteen was most of a random reply's cost
        return Action.from_json(legal[SeededRandom(seed, "random-player").below(len(legal))])


class BasicPlayer(Player):
    """Sound rule-of-thumb play, as a casual player would recognise it."""

    level = "basic"
    names = {"en": "Basic", "tr": "Orta"}

    def choose(self, info: SeatInfo, seed: str, budget: Budget | None = None) -> Action:
        return strategy(info.ruleset).basic(info, SeededRandom(seed, "basic-player"))


class ExpertPlayer(Player):
    """Decisions by search over the cards the seat cannot see."""

    level = "expert"
    names = {"en": "Expert", "tr": "Usta"}
    #: a mean decision near RdeepBot(32, 6)'s on the same machine (bench/bots.py --peer), and a
    #: 95th percentile within 100 ms
    think_seconds = 0.05

    def choose(self, info: SeatInfo, seed: str, budget: Budget | None = None) -> Action:
        chosen = strategy(info.ruleset)
        return chosen.expert(info, SeededRandom(seed, "expert-player"), self.resolve(budget or Budget(), chosen))

    def resolve(self, budget: Budget, chosen: Strategy) -> Budget:
        """The budget a strategy searches to: a count (``work``, or the calibrated one without a
        timer), or by time, work unbounded and the thinking time as its ceiling."""
        if budget.work is not None:
            return budget
        if not budget.has_timer:
            return replace(budget, work=chosen.expert_work)
        seconds = self.think_seconds if budget.seconds is None else budget.seconds
        return replace(budget, work=BY_TIME, ceiling=min(seconds, budget.ceiling))


_LEVELS: dict[str, Player] = {player.level: player for player in (RandomPlayer(), BasicPlayer(), ExpertPlayer())}

#: the level of the computer seats of a standard table (a game created without a seat list)
STANDARD_LEVEL = "basic"


def level_names(ruleset_id: str | None = None) -> list[str]:
    """The computer levels, weakest first: of every ruleset, or of ``ruleset_id``, which has
    ``random`` always, and ``basic`` and ``expert`` where a strategy for it is registered."""
    if ruleset_id is None or ruleset_id in _STRATEGIES:
        return list(_LEVELS)
    return [RandomPlayer.level]


def standard_level(ruleset_id: str) -> str:
    """The level of the computer seats of the ruleset's standard table."""
    return STANDARD_LEVEL if STANDARD_LEVEL in level_names(ruleset_id) else RandomPlayer.level


def strongest_level(ruleset_id: str) -> str:
    """The strongest level the ruleset has: the one a hint asks."""
    return level_names(ruleset_id)[-1]


UNKNOWN_LEVEL = RefusalCode(
    "unknown_level",
    {"en": "there is no such computer level", "tr": "böyle bir bilgisayar seviyesi yok"},
    Refusal.BAD_SETUP,
    says={"en": "there is no computer level {level}; levels are: {allowed}", "tr": "{level} diye bir bilgisayar seviyesi yok; seviyeler: {allowed}"},
)


def player(level: str, ruleset_id: str | None = None) -> Player:
    """The player of ``level`` (for ``ruleset_id``, one of its levels); raises
    ``RuleError(code="unknown_level")`` for any other."""
    allowed = level_names(ruleset_id)
    if not isinstance(level, str) or level not in allowed:
        raise UNKNOWN_LEVEL(level=repr(level), allowed=allowed, details={"allowed": allowed})
    return _LEVELS[level]
