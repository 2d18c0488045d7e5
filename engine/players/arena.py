"""Matches between computer players, outside the service: for tests and the bots benchmark.

Each seat's information is kept the way the service keeps it: the seat's view, and the events
of the current deal as that seat saw them. The engine reads no time, so the caller passes a timer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..rules import Event, MatchResult
from ..ruleset import Ruleset
from .base import Budget, Player, SeatInfo


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

    def info(self, ruleset: Ruleset[Any], options: Mapping[str, Any], state: Any, seat: int) -> SeatInfo:
        return SeatInfo(ruleset.id, seat, options, ruleset.view(state, seat), tuple(self.logs[seat]), ruleset.knowledge(state, seat))


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
    ruleset: Ruleset[Any],
    options: Mapping[str, Any],
    seed: str,
    players: Sequence[Player],
    *,
    timer: Callable[[], float],
    budgets: Mapping[str, Budget] | None = None,
    max_deals: int | None = None,
    before_decision: Callable[[Any, int], None] | None = None,
) -> MatchRecord:
    """Play a whole match, ``players[seat]`` deciding for each seat from its own information;
    past ``max_deals`` deals it ends without a winner, as the service ends a match past its cap
    (some never end: two random Batak partners against two basic ones, each side failing its
    contracts). ``before_decision(state, seat)``, when given, is told of each decision before it
    is asked for (a bench's diagnostics: the players still decide from their seats' information)."""
    options = ruleset.parse_options(options)
    state, events = ruleset.new_game(options, seed)
    logs = SeatLogs(ruleset.seat_count)
    logs.record(events)
    record = MatchRecord(result=MatchResult((), ()))
    version = 0
    while ruleset.result(state) is None and (max_deals is None or len(record.deal_results) < max_deals):
        (seat,) = ruleset.to_act(state)
        chosen = players[seat]
        given = (budgets or {}).get(chosen.level, Budget())
        budget = replace(given, timer=timer)
        if before_decision is not None:
            before_decision(state, seat)
        started = timer()
        action = chosen.choose(logs.info(ruleset, options, state, seat), f"{seed}:{version}:{seat}", budget)
        record.decisions.append(Decision(seat, chosen.level, timer() - started))
        state, events = ruleset.apply(state, seat, action)
        logs.record(events)
        record.deal_results += [event.data for event in events if event.data["type"] == "deal_result"]
        version += 1
    record.result = ruleset.result(state) or record.result
    return record
