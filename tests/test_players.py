"""Every computer level, in every game: fair play, determinism, legality, bounded time.

Fair play holds by construction: a player is handed a seat's information (its view and the
events it saw), never the state. These tests show it: deals that differ only in cards a seat
cannot see give that seat identical information, hence the same decision; and what the service
hands its computer seats never contains a card concealed from them.
"""

from __future__ import annotations

import itertools
import random
import time

import fakeredis
import pytest

from engine import Action, Pass, RuleError, registry
from engine.players import Budget, SeatInfo, SeatLogs, level_names, player, standard_level, strongest_level
from engine.players import base as players_base
from engine.players.base import Player, RandomPlayer, Strategy
from service import create_app, timeouts
from tests.api import FlaskClient
from tests.conftest import drain, make_settings
from tests.support import card_codes_in, concealed_cards, swap_hidden_cards

RULESETS = [ruleset.id for ruleset in registry.all_rulesets()]
LEVELS = level_names()
SMALL = Budget(work=4, ceiling=5.0, timer=time.perf_counter)


def decision_points(ruleset_id: str, options: dict, seed: str, limit: int = 120):
    """(state, SeatInfo of a seat that may act) along a match played by random players."""
    ruleset = registry.get(ruleset_id)
    options = ruleset.parse_options(options)
    state, events = ruleset.new_game(options, seed)
    logs = SeatLogs(ruleset.seat_count)
    logs.record(events)
    rng = random.Random(seed)
    for _ in range(limit):
        if ruleset.result(state) is not None:
            return
        (seat,) = ruleset.to_act(state)
        yield state, logs.info(ruleset, options, state, seat)
        legal = ruleset.legal_actions(state, seat)
        passes = [action for action in legal if action.type == "pass"]
        action = passes[0] if passes and rng.random() < 0.8 else rng.choice(legal)
        state, events = ruleset.apply(state, seat, action)
        logs.record(events)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_deals_that_differ_only_in_hidden_cards_give_the_same_information_and_decision(ruleset_id):
    ruleset = registry.get(ruleset_id)
    rng = random.Random(ruleset_id)
    checked = 0
    for number in range(3):
        for state, info in itertools.islice(decision_points(ruleset_id, {}, f"fair-{number}"), 0, None, 7):
            other = swap_hidden_cards(ruleset_id, state, info.seat, rng)
            if other is None:
                continue
            assert other != state
            other_info = SeatInfo(info.ruleset, info.seat, info.options, ruleset.view(other, info.seat), info.events)
            assert other_info == info
            for level in LEVELS:
                chosen = player(level)
                seed = f"fair-{checked}"
                assert chosen.choose(info, seed, SMALL) == chosen.choose(other_info, seed, SMALL)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_level_that_reads_no_events_decides_the_same_without_them(ruleset_id):
    """The service leaves the events out for such a level: they must not change its choice."""
    quick = [level for level in level_names(ruleset_id) if not player(level).reads_events]
    assert "random" in quick
    for level in quick:
        for number, (_, info) in enumerate(decision_points(ruleset_id, {}, f"no-events-{level}")):
            assert info.events
            bare = SeatInfo(info.ruleset, info.seat, info.options, info.view)
            assert player(level).choose(info, f"s{number}", SMALL) == player(level).choose(bare, f"s{number}", SMALL)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_level_that_reads_no_view_decides_the_same_from_its_legal_actions_alone(ruleset_id):
    """The service hands such a level a view of only its legal actions: the rest must not change its choice."""
    quick = [level for level in level_names(ruleset_id) if not player(level).reads_view]
    assert "random" in quick
    for level in quick:
        for number, (_, info) in enumerate(decision_points(ruleset_id, {}, f"no-view-{level}")):
            bare = SeatInfo(info.ruleset, info.seat, info.options, {"legal_actions": info.view["legal_actions"]})
            assert player(level).choose(info, f"s{number}", SMALL) == player(level).choose(bare, f"s{number}", SMALL)


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("level", LEVELS)
def test_the_same_information_seed_and_budget_give_the_same_action(ruleset_id, level):
    chosen = player(level)
    for state, info in itertools.islice(decision_points(ruleset_id, {}, f"same-{level}"), 0, 60, 6):
        assert chosen.choose(info, "seed", SMALL) == chosen.choose(info, "seed", SMALL)


def test_every_game_here_has_every_level_basic_its_standard_and_expert_its_strongest():
    for ruleset_id in RULESETS:
        assert level_names(ruleset_id) == ["random", "basic", "expert"]
        assert (standard_level(ruleset_id), strongest_level(ruleset_id)) == ("basic", "expert")


def test_a_game_without_a_strategy_is_played_by_the_random_level_alone():
    assert level_names("plain-whist") == ["random"]
    assert (standard_level("plain-whist"), strongest_level("plain-whist")) == ("random", "random")


@pytest.mark.parametrize(
    "level, ruleset_id, says, allowed",
    [
        ("grandmaster", None, "there is no computer level 'grandmaster'; levels are: random, basic, expert", ["random", "basic", "expert"]),
        (5, "german-whist", "there is no computer level 5; levels are: random, basic, expert", ["random", "basic", "expert"]),
        ("basic", "plain-whist", "there is no computer level 'basic'; levels are: random", ["random"]),
    ],
)
def test_an_unknown_level_is_refused_naming_it_and_the_levels_there_are(level, ruleset_id, says, allowed):
    with pytest.raises(RuleError) as refused:
        player(level, ruleset_id)
    assert (refused.value.code, refused.value.message, refused.value.details) == ("unknown_level", says, {"allowed": allowed})


def test_an_unknown_ruleset_is_refused_naming_it_and_the_rulesets_there_are():
    with pytest.raises(RuleError) as refused:
        registry.get("chess")
    allowed = [ruleset.id for ruleset in registry.all_rulesets()]
    assert refused.value.code == "unknown_ruleset" and refused.value.details == {"allowed": allowed}
    assert refused.value.message == f"there is no ruleset 'chess'; rulesets are: {', '.join(allowed)}"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_random_players_choice_is_drawn_from_the_seed(ruleset_id):
    info = next(info for _, info in decision_points(ruleset_id, {}, "draws") if len(info.view["legal_actions"]) >= 5)
    choices = [RandomPlayer().choose(info, f"seed-{number}") for number in range(20)]
    assert len({str(choice) for choice in choices}) > 1


class DrawingStrategy(Strategy):
    """A strategy that records the first draw of the stream it is handed, and the budget."""

    expert_work = 9

    def __init__(self) -> None:
        self.seen: list[tuple[int, Budget]] = []

    def basic(self, info, rng):
        raise AssertionError("only the expert is asked")

    def expert(self, info, rng, budget):
        self.seen.append((rng.below(1 << 62), budget))
        return info.legal_actions()[0]


def test_the_experts_samples_are_drawn_from_the_seed_and_a_decision_without_a_budget_counts_the_calibrated_work(monkeypatch):
    spy = DrawingStrategy()
    monkeypatch.setitem(players_base._STRATEGIES, "german-whist", spy)
    info = next(info for _, info in decision_points("german-whist", {}, "draws"))
    for seed in ("one", "two", "one"):
        player("expert").choose(info, seed)
    (first, budget), (second, _), (again, _) = spy.seen
    assert first == again != second
    assert budget.work == DrawingStrategy.expert_work


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_chooses_only_legal_actions(ruleset_id, level):
    chosen = player(level)
    for number in range(3):
        for state, info in decision_points(ruleset_id, {}, f"legal-{level}-{number}", limit=200):
            assert chosen.choose(info, f"legal-{number}", SMALL) in info.legal_actions()


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("level", LEVELS)
def test_a_decision_past_its_ceiling_still_returns_a_legal_action_at_once(ruleset_id, level):
    ticks = itertools.count(step=10.0)  # every look at the clock finds ten more seconds gone
    jumping = Budget(work=10_000, ceiling=0.5, timer=lambda: next(ticks))
    chosen = player(level)
    for state, info in itertools.islice(decision_points(ruleset_id, {}, f"ceiling-{level}"), 0, 40, 8):
        started = time.perf_counter()
        action = chosen.choose(info, "ceiling", jumping)
        assert time.perf_counter() - started < 2.0
        assert action in info.legal_actions()


class Spy(Player):
    """A player that records what it is given and plays at random (passing more often than not:
    uniformly random Batak bids rarely make, and such a match may never end)."""

    level = "random"
    names = RandomPlayer.names
    seen: list[SeatInfo] = []

    def choose(self, info, seed, budget=None):
        Spy.seen.append(info)
        if {"type": "pass"} in info.view["legal_actions"] and random.Random(seed).random() < 0.8:
            return Pass()
        return RandomPlayer().choose(info, seed, budget)


SHORT_MATCH = {"german-whist": {}, "sixty-six": {"target": 5}, "partnership-batak": {"target": 21}}


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("computer_by", ["creation", "leaving", "timeout"])
def test_the_service_hands_a_computer_seat_only_what_that_seat_may_see(ruleset_id, computer_by, monkeypatch):
    """Whether a seat was a computer's from the start, its player left it to one, or let its
    turn clock run out."""
    monkeypatch.setattr("service.computers.player", lambda level, ruleset_id=None: Spy())
    Spy.seen = []
    # no worker runs beside: the requests answer at once, and drain() makes the computer moves
    app = create_app(make_settings(reply_wait_seconds=0), redis=fakeredis.FakeRedis())
    api = FlaskClient(app.test_client())
    ruleset = registry.get(ruleset_id)
    seat = {"bot": "random"} if computer_by == "creation" else {"name": "P"}
    timed = {"clock": {"seconds_per_action": 1}} if computer_by == "timeout" else {}
    created = api.create(ruleset=ruleset_id, seats=[seat] * ruleset.seat_count, options=SHORT_MATCH[ruleset_id], seed="spy", **timed)
    if computer_by == "leaving":
        for entry in created.body["tokens"]:
            api.request("POST", f"/v1/games/{created.body['id']}/leave", json_body={"level": "random"}, token=entry["token"])
    if computer_by == "timeout":  # every deadline passes, and the clock check plays each action
        tables, moments = app.extensions["koz"], itertools.count(start=1_800_000_000, step=2)
        tables.timer = lambda: float(next(moments))
        while timeouts.enforce(tables):
            pass
    drain(app)  # the worker makes every computer move
    assert api.view(created.body["id"]).body["status"] == "finished"
    history = api.whole_history(created.body["id"])
    # replay the match to know, at each decision, what the deciding seat could not see
    state = ruleset.new_game(ruleset.parse_options(created.body["options"]), history["reveal"]["seed"])[0]
    decisions = iter(Spy.seen)
    for event in history["events"]:
        if event["type"] != "action":
            continue
        info = next(decisions)
        assert info.seat == event["seat"]
        hidden = concealed_cards(ruleset_id, state, info.seat)
        assert not card_codes_in(info.view) & hidden
        assert not card_codes_in(list(info.events)) & hidden
        state = ruleset.apply(state, event["seat"], Action.from_json(event["action"]))[0]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_seats_log_shows_it_its_own_hand_dealt_and_no_card_hidden_from_it(ruleset_id):
    points = decision_points(ruleset_id, {}, "logs")
    _, first = next(points)  # nothing played yet: the hand is the hand dealt
    (dealt,) = [event for event in first.events if event["type"] == "dealt" and event["seat"] == first.seat]
    assert sorted(dealt["hand"]) == sorted(first.view["hand"])
    for state, info in itertools.islice(points, 0, 40, 5):
        assert not card_codes_in(info.events) & concealed_cards(ruleset_id, state, info.seat)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_seats_knowledge_is_what_its_view_says(ruleset_id):
    """The engine hands a computer seat its knowledge in masks; a client holding only the view
    (``koz bot``) reads back the same."""
    ruleset = registry.get(ruleset_id)
    checked = 0
    for state, info in itertools.islice(decision_points(ruleset_id, {}, "knowledge"), 0, None, 3):
        known = ruleset.knowledge(state, info.seat)
        if known is None:
            return
        assert info.knowledge == known
        assert type(known).from_view(info.view) == known
        assert type(known).from_view(ruleset.view(state, None)) == ruleset.knowledge(state, None)
        checked += 1
    assert checked >= 10
