"""Matches between computer players, outside the service: for tests and the bots benchmark.

Each seat's information is kept the way the service keeps it: the seat's view, and the events
of the current deal as that seat saw them. The engine has no clock, so the caller passes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..actions import Action
from ..rules import Event, MatchResult
from ..ruleset import Ruleset
from .base import Budget, Player, SeatInfo


def asking_order(to_act: Sequence[int], last_actor: int | None) -> list[int]:
    """The order in which seats that may act in one moment are asked.

    The seat that acted last comes first (a claim right after its own announcement is its to
    make), then the others in turn.
    """
    first = [last_actor] if last_actor is not None and last_actor in to_act else []
    return first + [seat for seat in to_act if seat != last_actor]


class SeatLogs:
    """Each seat's events of the current deal, as that seat saw them."""

    def __init__(self, seat_count: int) -> None:
        self.logs: list[list[Mapping[str, Any]]] = [[] for _ in range(seat_count)]

    def record(self, events: Iterable[Event]) -> None:
        for event in events:
            if event.data["type"] == "deal":  # a new deal: what came before is another deal's
                for log in self.logs:
                    log.clear()
            for seat, log in enumerate(self.logs):
                seen = event.for_viewer(seat)
                if seen is not None:
                    log.append(seen)

    def info(self, ruleset: Ruleset, options: Mapping[str, Any], state: Any, seat: int, may_decline: bool = False) -> SeatInfo:
        return SeatInfo(ruleset.id, seat, options, ruleset.view(state, seat), tuple(self.logs[seat]), may_decline)


@dataclass
class Decision:
    seat: int
    level: str
    seconds: float


@dataclass
class MatchRecord:
    result: MatchResult
    deal_results: list[Mapping[str, Any]] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)


def play_match(
    ruleset: Ruleset,
    options: Mapping[str, Any],
    seed: str,
    players: Sequence[Player],
    *,
    clock: Callable[[], float],
    budgets: Mapping[str, Budget] | None = None,
) -> MatchRecord:
    """Play a whole match, ``players[seat]`` deciding for each seat from its own information."""
    options = ruleset.parse_options(options)
    state, events = ruleset.new_game(options, seed)
    logs = SeatLogs(ruleset.seat_count)
    logs.record(events)
    record = MatchRecord(result=MatchResult((), ()))
    last_actor: int | None = None
    version = 0
    while ruleset.result(state) is None:
        order = asking_order(ruleset.to_act(state), last_actor)
        for position, seat in enumerate(order):
            chosen = players[seat]
            given = (budgets or {}).get(chosen.level, Budget())
            budget = Budget(given.work, given.ceiling, clock)
            info = logs.info(ruleset, options, state, seat, may_decline=position < len(order) - 1)
            started = clock()
            action: Action | None = chosen.choose(info, f"{seed}:{version}:{seat}", budget)
            record.decisions.append(Decision(seat, chosen.level, clock() - started))
            if action is not None:
                break
        else:
            raise AssertionError("every seat declined to act")
        state, events = ruleset.apply(state, seat, action)
        logs.record(events)
        record.deal_results += [event.data for event in events if event.data["type"] == "deal_result"]
        last_actor = seat
        version += 1
    record.result = ruleset.result(state) or record.result
    return record
