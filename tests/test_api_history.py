"""History: ordered, versioned, filtered per reader, paged, and fully revealed at the end."""

from __future__ import annotations

import json

import jsonschema_rs
import pytest

from engine import registry
from engine import Action
from engine.ruleset import replay
import service.replay as service_replay
from service import create_app
from service.config import Settings
from service.store import GameStore
from service.cli import openapi_document
from tests.api import FlaskClient
from tests.conftest import make_settings

DOCUMENT = json.loads(openapi_document())

TWO_HUMANS = [{"name": "Ayşe"}, {"name": "Bora"}]


@pytest.fixture
def app(any_app):
    """The app on fakeredis and on a real redis-server: every test here runs on both."""
    return any_app


@pytest.fixture
def api(client):
    return FlaskClient(client)


def play_tricks(api, game_id, tokens, tricks):
    for _ in range(2 * tricks):
        (seat,) = api.view(game_id).body["to_act"]
        api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat])


@pytest.fixture
def game(api):
    answer = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="history")
    tokens = {entry["seat"]: entry["token"] for entry in answer.body["tokens"]}
    play_tricks(api, answer.body["id"], tokens, 3)
    return answer.body["id"], tokens


def test_applied_actions_appear_with_their_version_as_posted(api, game):
    game_id, tokens = game
    actions = [event for event in api.history(game_id).body["events"] if event["type"] == "action"]
    assert [event["version"] for event in actions] == list(range(1, 7))
    assert all(set(event) == {"version", "type", "seat", "action"} for event in actions)
    assert actions[0]["action"]["type"] == "play"


def test_events_are_ordered_by_version(api, game):
    game_id, _ = game
    versions = [event["version"] for event in api.history(game_id).body["events"]]
    assert versions == sorted(versions) and versions[0] == 0


def test_seat_sees_its_own_dealt_hand_and_face_down_draws_only(api, game):
    game_id, tokens = game
    for seat in (0, 1):
        events = api.history(game_id, tokens[seat]).body["events"]
        private = [event for event in events if event["type"] in ("dealt", "draw")]
        # both hands dealt, and after three tricks of phase 1 three face-down draws (by each trick's loser)
        assert sorted(event["seat"] for event in private if event["type"] == "dealt") == [0, 1]
        assert len([event for event in private if event["type"] == "draw"]) == 3
        for event in private:
            assert ("hand" in event or "card" in event) == (event["seat"] == seat), event


def test_spectator_sees_no_private_card(api, game):
    game_id, _ = game
    events = api.history(game_id).body["events"]
    dealt = [event for event in events if event["type"] == "dealt"]
    draws = [event for event in events if event["type"] == "draw"]
    assert len(dealt) == 2 and len(draws) == 3
    for event in dealt:
        assert "hand" not in event and event["count"] == 13
    for event in draws:
        assert "card" not in event


def test_history_is_paged_by_version(api, game):
    game_id, _ = game
    first = api.history(game_id, query="?limit=2").body
    assert {event["version"] for event in first["events"]} == {0, 1} and first["next_after"] == 1
    second = api.history(game_id, query=f"?after={first['next_after']}&limit=100").body
    assert min(event["version"] for event in second["events"]) == 2 and second["next_after"] is None
    whole = api.history(game_id).body["events"]
    assert first["events"] + second["events"] == whole


def test_history_after_any_version_is_the_whole_history_past_it_with_the_services_own_events_in_place(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}], seed="history").body
    game_id = created["id"]
    taken = api.request("POST", f"/v1/games/{game_id}/seats/1", json_body={"name": "Bora"}).body
    tokens = {0: created["tokens"][0]["token"], 1: taken["token"]}
    play_tricks(api, game_id, tokens, 2)
    whole = api.history(game_id).body["events"]
    assert [event["type"] for event in whole if event["version"] == 1] == ["seat_taken"]  # between the deal and the actions
    for after in range(whole[-1]["version"] + 1):
        assert api.history(game_id, query=f"?after={after}").body["events"] == [event for event in whole if event["version"] > after]


def test_history_after_the_version_a_match_was_abandoned_at_has_its_abandonment_once(backend):
    api = FlaskClient(create_app(make_settings(max_versions=3), redis=backend).test_client())
    created = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="history").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    for _ in range(3):
        (seat,) = api.view(created["id"]).body["to_act"]
        api.act(created["id"], api.view(created["id"], tokens[seat]).body["legal_actions"][0], tokens[seat])
    assert api.view(created["id"]).body["status"] == "abandoned"
    whole = api.history(created["id"]).body["events"]
    assert [(event["version"], event["type"]) for event in whole[-2:]] == [(3, "action"), (3, "abandoned")]
    assert [event["type"] for event in api.history(created["id"], query="?after=2").body["events"]][-1] == "abandoned"
    assert api.history(created["id"], query="?after=3").body["events"] == []


def test_history_reveals_nothing_before_the_end(api, game):
    game_id, tokens = game
    body = api.history(game_id, tokens[0]).body
    assert body["reveal"] is None and body["status"] == "active"


def test_finished_match_reveals_everything_and_replaying_the_history_reproduces_it(api):
    created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}], options={"target": 15}).body
    game_id = created["id"]
    api.finished_view(game_id)
    body = api.whole_history(game_id)
    reveal = body["reveal"]
    assert reveal["seed"] and len(reveal["deals"]) == max(e["deal"] for e in body["events"] if e["type"] == "deal")
    assert reveal["deals"] and all(len(deal["hands"]) == 2 and len(deal["stock"]) == 26 for deal in reveal["deals"])
    dealt = [e for e in body["events"] if e["type"] == "dealt"]
    assert len(dealt) == 2 * len(reveal["deals"])
    assert all("hand" in event for event in dealt)  # private events are shown whole once it is over
    whist = registry.get("german-whist")
    moves = [(e["seat"], Action.from_json(e["action"])) for e in body["events"] if e["type"] == "action"]
    final = replay(whist, created["options"], reveal["seed"], moves)
    view = api.view(game_id).body
    assert whist.result(final).scores == tuple(view["scores"])
    assert list(whist.result(final).winners) == view["winners"]


def test_reveal_stock_is_in_drawing_order(api):
    created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}]).body
    api.finished_view(created["id"])
    body = api.whole_history(created["id"])
    drawn = [e["card"] for e in body["events"] if e["type"] in ("take", "draw")]
    assert body["reveal"]["deals"][0]["stock"] == drawn


@pytest.mark.parametrize("query", ["?after=-2", "?limit=0", "?limit=5000", "?after=x"])
def test_bad_paging_is_400(api, game, query):
    game_id, _ = game
    answer = api.history(game_id, query=query)
    assert (answer.status, answer.code) == (400, "invalid_request")


@pytest.mark.parametrize("ruleset", ["german-whist", "sixty-six"])
def test_a_finished_history_is_sent_exactly_as_its_schema_declares(api, ruleset):
    created = api.create(ruleset=ruleset, seats=[{"bot": "random"}, {"bot": "random"}]).body
    api.finished_view(created["id"])  # the worker plays it to the end
    body = api.whole_history(created["id"])
    assert body["status"] == "finished" and body["reveal"]
    history = jsonschema_rs.Draft202012Validator({"$ref": "#/components/schemas/History", "components": DOCUMENT["components"]})
    assert [error.message for error in history.iter_errors(body)] == []


def play_one(api, game_id, tokens):
    (seat,) = api.view(game_id).body["to_act"]
    assert api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat]).status == 200


def following_many_games(fake_redis, monkeypatch, replays_kept: int, moved_elsewhere: bool = False) -> tuple[int, list[int], list[int]]:
    """20 German Whist games of two people, followed by one process keeping ``replays_kept``
    replays: each game's history read after its first action, then twice after its second (made
    on another process, if ``moved_elsewhere``); (the actions the later reads replayed, the log
    offsets the store was asked from on them, each game's log length after its first action)."""
    settings = make_settings(replays_kept=replays_kept)
    app = create_app(settings, redis=fake_redis)
    api = FlaskClient(app.test_client())
    elsewhere = create_app(settings, redis=fake_redis)
    games = []
    for number in range(20):
        answer = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed=f"following-{number}")
        games.append((answer.body["id"], {entry["seat"]: entry["token"] for entry in answer.body["tokens"]}))
    for game_id, tokens in games:
        play_one(api, game_id, tokens)
        assert api.history(game_id).status == 200
    store = app.extensions["koz"].repository.store
    first_lengths = [len(store.log(game_id)) for game_id, _ in games]
    replayed, offsets = [], []
    counting = service_replay.apply_logged

    def apply_counted(*args):
        for applied in counting(*args):
            replayed.append(1)
            yield applied

    stored_log = GameStore.log

    def log_read(store, game_id, start=0):
        offsets.append(start)
        return stored_log(store, game_id, start)

    monkeypatch.setattr(service_replay, "apply_logged", apply_counted)
    monkeypatch.setattr(GameStore, "log", log_read)
    for game_id, tokens in games:
        play_one(FlaskClient(elsewhere.test_client()) if moved_elsewhere else api, game_id, tokens)
        assert {event["version"] for event in api.history(game_id, query="?after=1").body["events"]} == {2}
        assert api.history(game_id, query="?after=1").status == 200  # read again: nothing new to read or replay
    for each in (app, elsewhere):
        each.extensions["koz"].announcements.stop()
    return len(replayed), offsets, first_lengths


def test_a_process_following_many_games_replays_only_the_actions_since_in_each(fake_redis, monkeypatch):
    replayed, _, _ = following_many_games(fake_redis, monkeypatch, replays_kept=256)
    assert replayed == 20


def test_past_the_replays_kept_a_history_is_replayed_from_the_start(fake_redis, monkeypatch):
    replayed, _, _ = following_many_games(fake_redis, monkeypatch, replays_kept=4)
    assert replayed == 2 * 20


def test_the_history_of_a_move_committed_by_the_process_is_replayed_without_reading_the_log(fake_redis, monkeypatch):
    replayed, offsets, _ = following_many_games(fake_redis, monkeypatch, replays_kept=256)
    assert offsets == [] and replayed == 20


def test_a_history_read_asks_the_store_only_for_the_log_appended_since_the_last(fake_redis, monkeypatch):
    replayed, offsets, first_lengths = following_many_games(fake_redis, monkeypatch, replays_kept=256, moved_elsewhere=True)
    assert offsets == first_lengths  # once a game, from where the last read ended; not at all on the read again
    assert replayed == 20


def test_the_replays_kept_are_a_setting():
    assert Settings.from_env({"KOZ_REPLAYS_KEPT": "1000"}).replays_kept == 1000
    assert Settings.from_env({}).replays_kept == 256
