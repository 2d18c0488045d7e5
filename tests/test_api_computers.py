"""Computer players over HTTP: whole games of computers, a human against computers, and hints."""

from __future__ import annotations

import random
import threading

import pytest

from engine import registry
from engine.players import STANDARD_LEVEL
from service import create_app
from service.repository import snapshot_of
from service.store import GameStore
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import make_settings
from tests.test_api_events import subscription_up

RULESETS = [ruleset.id for ruleset in registry.all_rulesets()]
#: short matches, so that a test plays whole ones
SHORT = {"german-whist": {}, "sixty-six": {"target": 5}, "partnership-batak": {"target": 21}}


@pytest.fixture
def api(backend):
    """On fakeredis and on a real redis-server: every test here runs on both. A human's action
    waits for the computers' replies as long as a slow machine may need (not 2 s), so that its
    answer follows them."""
    app = create_app(make_settings(reply_wait_seconds=60), redis=backend)
    with WorkerThread(app.extensions["koz"]):
        yield FlaskClient(app.test_client())


def human_at_0(api, ruleset_id: str, level: str, seed: str):
    seat_count = registry.get(ruleset_id).seat_count
    seats = [{"name": "Ayşe"}] + [{"bot": level}] * (seat_count - 1)
    created = api.create(ruleset=ruleset_id, seats=seats, options=SHORT[ruleset_id], seed=seed).body
    return created["id"], created["tokens"][0]["token"]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_game_of_computers_only_plays_itself_to_the_end(api, ruleset_id):
    seat_count = registry.get(ruleset_id).seat_count
    seats = [{"bot": ("expert", "basic")[seat % 2]} for seat in range(seat_count)]
    created = api.create(ruleset=ruleset_id, seats=seats, options=SHORT[ruleset_id], seed="computers").body
    view = api.finished_view(created["id"])  # the worker plays; long-polls follow
    assert view["status"] == "finished" and view["winners"]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_an_answer_after_the_computers_replies_follows_their_moves_as_stored(backend, ruleset_id, monkeypatch):
    """The answer applies the replies announced with each commit instead of reading the game
    again; it must be the view the store gives, every time, through deals (and to the end of a
    short match). (Every reply made by the worker here: none in the request.) The process's
    subscription is up first: a commit made before it comes up may be missed, and the answer then
    rightly reads the game for the replies it did not hear."""
    app = create_app(make_settings(reply_wait_seconds=60, replies_in_request=0), redis=backend)
    subscription_up(app.extensions["koz"])
    with WorkerThread(app.extensions["koz"]):
        follows_the_replies(FlaskClient(app.test_client()), ruleset_id, monkeypatch)


def follows_the_replies(api, ruleset_id, monkeypatch):
    game_id, token = human_at_0(api, ruleset_id, "random", "follow")
    reads: list[str] = []  # by the requests, not by the worker's thread
    original = GameStore.load

    def load(store, game):
        if threading.current_thread().name != "koz-worker":
            reads.append(game)
        return original(store, game)

    monkeypatch.setattr(GameStore, "load", load)
    rng = random.Random(ruleset_id)
    for _ in range(150):
        view = api.view(game_id, token).body
        if view["status"] == "finished":
            break
        reads.clear()
        answer = api.act(game_id, rng.choice(view["legal_actions"]), token).body
        # before the action at most (not even that when the process's copy of the last reply, made by
        # its worker thread, was heard since); the replies were followed, not read
        assert reads in ([], [game_id])
        assert answer == api.view(game_id, token).body
    assert view["deal"] > 1 or view["status"] == "finished"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_human_against_computers_plays_a_whole_match(api, ruleset_id):
    game_id, token = human_at_0(api, ruleset_id, "basic", "human")
    rng = random.Random(ruleset_id)
    for _ in range(2000):
        view = api.view(game_id, token).body
        if view["status"] == "finished":
            break
        assert view["legal_actions"], "the computers left the human waiting"
        legal = view["legal_actions"]
        action = {"type": "pass"} if {"type": "pass"} in legal and rng.random() < 0.5 else rng.choice(legal)
        assert api.act(game_id, action, token).status == 200
    assert view["status"] == "finished"


def in_the_second_deal(backend):
    """A Sixty-Six match against the basic computer played into its second deal: (the app's Koz, the game)."""
    app = create_app(make_settings(reply_wait_seconds=60), redis=backend)
    koz = app.extensions["koz"]
    api = FlaskClient(app.test_client())
    with WorkerThread(koz):
        game_id, token = human_at_0(api, "sixty-six", "basic", "second deal")
        rng = random.Random(2)
        view = api.view(game_id, token).body
        while view["deal"] < 2:
            view = api.act(game_id, rng.choice(view["legal_actions"]), token).body
    return koz, koz.repository.load(game_id)


def test_a_computer_looking_back_at_the_deal_replays_only_the_deal_under_way(backend, monkeypatch):
    koz, game = in_the_second_deal(backend)
    assert game.deal_base is not None and game.deal_base.offset > 0  # where the second deal's actions begin
    read_from = []
    log = koz.store.log
    monkeypatch.setattr(koz.store, "log", lambda log_id, start=0: read_from.append(start) or log(log_id, start))
    seen = koz.computers.events_seen_by(game, 1)
    assert read_from == [game.deal_base.offset] and seen[0]["type"] == "deal" and seen[0]["deal"] == 2


def test_a_snapshot_keeps_the_deals_base_state_as_it_is_not_a_copy(backend):
    """It is packed at once: a deep copy of a whole state at every commit of a match's later deals was waste."""
    _, game = in_the_second_deal(backend)
    assert game.deal_base is not None and game.deal_base.state is not None
    kept = snapshot_of(game)["deal_base"]
    assert kept == {"offset": game.deal_base.offset, "state": game.deal_base.state} and kept["state"] is game.deal_base.state


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_hint_is_a_legal_action_of_the_seat_and_can_be_posted_as_it_is(api, ruleset_id):
    game_id, token = human_at_0(api, ruleset_id, "random", "hint")
    for _ in range(12):
        view = api.view(game_id, token).body
        if view["status"] == "finished":
            break
        hint = api.request("GET", f"/v1/games/{game_id}/hint", token=token)
        assert hint.status == 200 and hint.body["seat"] == 0 and hint.body["level"] == "expert"
        assert hint.body["version"] == view["version"]
        assert hint.body["action"] in view["legal_actions"]
        assert (hint.headers["Vary"], hint.headers["Cache-Control"]) == ("Authorization", "private, no-cache")
        assert hint.headers["ETag"] == f'W/"{view["version"]}"'
        assert api.act(game_id, hint.body["action"], token).status == 200


def test_a_computer_decides_from_a_seed_of_its_game_version_and_seat_within_the_configured_time(fake_redis, monkeypatch):
    """The same game, version and seat decide alike wherever the move is made (a worker, a
    request's reply, a hint); another game, version or seat draws afresh. The thinking time and
    its ceiling are the service's settings, measured by a real clock."""
    app = create_app(make_settings(bot_expert_seconds=0.07, bot_decision_ceiling=0.3), redis=fake_redis)
    koz = app.extensions["koz"]
    api = FlaskClient(app.test_client())
    game_id, _ = human_at_0(api, "german-whist", "expert", "decision-seed")
    game = koz.repository.load(game_id)
    asked = []

    class Recorder:
        reads_events = False
        reads_view = True

        def choose(self, info, seed, budget):
            asked.append((info.seat, seed, budget))
            return info.legal_actions()[0]

    monkeypatch.setattr("service.computers.player", lambda level, ruleset_id: Recorder())
    koz.computers.decide(game, 1, "expert")
    ((seat, seed, budget),) = asked
    assert (seat, seed) == (1, f"{game.seed}:{game.version}:1")
    assert (budget.seconds, budget.ceiling, budget.has_timer) == (0.07, 0.3, True)


@pytest.mark.parametrize("level", ["random", "basic"])
def test_a_computer_reply_in_a_request_builds_the_whole_view_only_for_a_level_that_reads_it(fake_redis, monkeypatch, level):
    app = create_app(make_settings(), redis=fake_redis)
    api = FlaskClient(app.test_client())
    game_id, token = human_at_0(api, "german-whist", level, "view-for-a-reply")
    view = api.view(game_id, token).body
    ruleset, viewed = registry.get("german-whist"), []
    whole_view = ruleset.view
    monkeypatch.setattr(ruleset, "view", lambda state, seat: viewed.append(seat) or whole_view(state, seat))
    answer = api.act(game_id, view["legal_actions"][0], token)
    assert answer.status == 200 and answer.body["version"] > view["version"] + 1  # the computer replied in the request
    assert (1 in viewed) == (level != "random")


def test_a_hint_is_refused_to_a_seat_that_may_not_act(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "A"}, {"name": "B"}], seed="hint-turn").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    (acting,) = api.view(created["id"]).body["to_act"]
    answer = api.request("GET", f"/v1/games/{created['id']}/hint", token=tokens[1 - acting])
    assert (answer.status, answer.code) == (409, "not_your_turn")


def test_a_hint_to_a_seat_that_passed_in_the_auction_says_it_is_out_of_the_auction(api):
    """The refusal is the rules' own for that seat at that moment, as an action's would be."""
    created = api.create(ruleset="partnership-batak", seats=[{"name": name} for name in "ABCD"], seed="hint-auction").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    (bidder,) = api.view(created["id"]).body["to_act"]
    assert {"type": "pass"} in api.view(created["id"], tokens[bidder]).body["legal_actions"]
    assert api.act(created["id"], {"type": "pass"}, tokens[bidder]).status == 200
    answer = api.request("GET", f"/v1/games/{created['id']}/hint", token=tokens[bidder])
    assert (answer.status, answer.code) == (409, "not_in_auction")


def test_a_hint_needs_a_seat_token(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "A"}, {"name": "B"}]).body
    answer = api.request("GET", f"/v1/games/{created['id']}/hint")
    assert (answer.status, answer.code) == (401, "missing_token")


def test_the_standard_table_plays_against_the_standard_level(api):
    created = api.create(ruleset="partnership-batak").body
    assert [seat["bot"] for seat in created["seats"]] == [None, STANDARD_LEVEL, STANDARD_LEVEL, STANDARD_LEVEL]


def test_every_level_is_in_the_catalog(api):
    catalog = api.request("GET", "/v1/rulesets").body
    for entry in catalog["rulesets"]:
        assert [level["level"] for level in entry["levels"]] == ["random", "basic", "expert"]
