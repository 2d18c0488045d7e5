"""A match between computer players outside the service (``engine.players.arena.play_match``): what
the tests of the levels and the bots benchmark build on. Each seat decides from what the service
would give it (its view, its knowledge, its own events of the deal), seeded as the service seeds
its computers, timed by the caller's clock."""

from __future__ import annotations

import itertools
from typing import Any

from engine import registry
from engine.players import Budget, RandomPlayer, SeatInfo, play_match
from engine.actions import Action
from engine.rules import MatchResult

GERMAN_WHIST = registry.get("german-whist")
SIXTY_SIX = registry.get("sixty-six")


class RecordingPlayer(RandomPlayer):
    """The random level, keeping what it was asked each time."""

    def __init__(self, asked: list[tuple[SeatInfo, str, Budget]]) -> None:
        self.asked = asked

    def choose(self, info: SeatInfo, seed: str, budget: Budget | None = None) -> Action:
        assert budget is not None
        self.asked.append((info, seed, budget))
        return super().choose(info, seed, budget)


def recorded_match(ruleset: Any, options: dict[str, Any], seed: str, **settings: Any):
    asked: list[tuple[SeatInfo, str, Budget]] = []
    states: list[tuple[Any, int]] = []
    players = [RecordingPlayer(asked) for _ in range(ruleset.seat_count)]
    record = play_match(
        ruleset, options, seed, players, before_decision=lambda state, seat: states.append((state, seat)), **{"timer": lambda: 0.0, **settings}
    )
    return record, asked, states


def test_each_seat_decides_from_its_own_view_and_knowledge_of_the_state_it_is_asked_in():
    _, asked, states = recorded_match(GERMAN_WHIST, {}, "own-view", max_deals=1)
    assert len(asked) == len(states) == 52  # a deal: 26 tricks of two cards
    for (info, _, _), (state, seat) in zip(asked, states):
        assert GERMAN_WHIST.to_act(state) == (seat,)
        assert (info.ruleset, info.seat) == ("german-whist", seat)
        assert info.view == GERMAN_WHIST.view(state, seat)
        assert info.knowledge == GERMAN_WHIST.knowledge(state, seat)


def test_a_seat_s_events_are_the_deal_s_as_that_seat_saw_them_its_own_hand_shown_and_the_other_s_hidden():
    _, asked, _ = recorded_match(GERMAN_WHIST, {}, "own-events", max_deals=1)
    first, _, _ = asked[0]
    deal, *dealt = first.events[:3]
    assert deal["type"] == "deal"
    own = next(event for event in dealt if event["seat"] == first.seat)
    other = next(event for event in dealt if event["seat"] != first.seat)
    assert own["hand"] == first.view["hand"]
    assert "hand" not in other and other["count"] == 13
    last, _, _ = asked[-1]  # the deal's last card: its draws all made, each seat's hidden from the other
    draws = [event for event in last.events if event["type"] == "draw"]
    assert len(draws) == 13 and all(("card" in draw) == (draw["seat"] == last.seat) for draw in draws)


def test_a_seat_s_events_begin_at_the_current_deal():
    record, asked, _ = recorded_match(SIXTY_SIX, {"target": 5}, "options")
    assert len(record.deal_results) == 2
    assert all(info.events[0]["type"] == "deal" for info, _, _ in asked)
    assert asked[-1][0].events[0]["deal"] == 2
    assert {sum(event["type"] == "deal" for event in info.events) for info, _, _ in asked} == {1}


def test_a_decision_is_seeded_by_the_match_s_seed_the_game_s_version_and_the_seat_as_the_service_seeds_its_computers():
    _, asked, states = recorded_match(GERMAN_WHIST, {}, "seeded", max_deals=1)
    assert [seed for _, seed, _ in asked] == [f"seeded:{version}:{seat}" for version, (_, seat) in enumerate(states)]


def test_a_match_is_played_and_shown_to_the_players_under_its_options():
    record, asked, _ = recorded_match(SIXTY_SIX, {"target": 5}, "options")
    options = SIXTY_SIX.parse_options({"target": 5})
    assert options != SIXTY_SIX.parse_options({}) and all(info.options == options for info, _, _ in asked)
    assert record.result.scores == (0, 5) and len(record.deal_results) == 2  # to 5, where the default is 7


def test_each_decision_is_timed_by_the_caller_s_timer_which_the_player_is_given_too():
    ticks = itertools.count()
    timer = lambda: next(ticks) * 0.25  # noqa: E731 (a clock that moves a quarter second each reading)
    record, asked, _ = recorded_match(GERMAN_WHIST, {}, "timed", timer=timer, budgets={"random": Budget(work=7)}, max_deals=1)
    assert all(budget.timer is timer and budget.work == 7 for _, _, budget in asked)
    assert [(decision.seat, decision.level) for decision in record.decisions] == [(info.seat, "random") for info, _, _ in asked]
    assert all(decision.seconds == 0.25 for decision in record.decisions)


def test_a_match_past_its_deal_cap_ends_without_a_winner_or_totals():
    batak = registry.get("partnership-batak")
    players = [RandomPlayer() for _ in range(batak.seat_count)]
    record = play_match(batak, {"target": 51}, "capped", players, timer=lambda: 0.0, max_deals=2)
    assert len(record.deal_results) == 2 and record.result == MatchResult(winners=(), scores=())
