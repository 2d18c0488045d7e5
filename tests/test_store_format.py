"""What the store keeps of a game: its setup, a compact action log and a snapshot; a finished
match only its setup, log and final state. Reads do not grow with the match."""

from __future__ import annotations

import pytest

from engine import action_log
from service.store import GameStore, unpack
from tests.api import FlaskClient


@pytest.fixture
def api(any_app):
    return FlaskClient(any_app.test_client())


def keys_of(backend, game_id):
    return {key.decode().rsplit(":", 1)[1]: key for key in backend.scan_iter(match=f"*{{{game_id}}}*")}


def test_a_game_is_its_setup_its_actions_one_byte_each_and_a_snapshot(api, backend):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "random"}], seed="format").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    for _ in range(6):
        view = api.view(created["id"], tokens[0]).body
        api.act(created["id"], view["legal_actions"][0], tokens[0])
    keys = keys_of(backend, created["id"])
    assert set(keys) == {"game", "log"}
    assert set(backend.hkeys(keys["game"])) == {b"version", b"setup", b"snapshot"}
    log = backend.get(keys["log"])
    actions = [event for event in api.whole_history(created["id"])["events"] if event["type"] == "action"]
    assert len(log) == len(actions) == api.view(created["id"]).body["version"]
    assert list(action_log.decode(log)) == [(event["seat"], event["action"]) for event in actions]


def test_a_finished_match_keeps_only_its_setup_log_and_final_state(api, backend):
    created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}], options={"target": 15}).body
    api.finished_view(created["id"])  # the worker plays it to the end
    game = keys_of(backend, created["id"])["game"]
    snapshot = unpack(backend.hget(game, "snapshot"))
    assert set(snapshot) == {"state", "log_length"}
    assert snapshot["log_length"] == len(backend.get(keys_of(backend, created["id"])["log"]))
    body = api.whole_history(created["id"])
    assert body["status"] == "finished" and body["reveal"] is not None


def test_a_computer_in_a_later_deal_reads_only_that_deals_log(any_app, api, monkeypatch):
    # a basic player reads the deal's events (a random one is handed none)
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "basic"}], options={"target": 30}).body
    token = created["tokens"][0]["token"]
    reads: list[int] = []
    original = GameStore.log
    monkeypatch.setattr(GameStore, "log", lambda store, game_id, start=0: reads.append(start) or original(store, game_id, start))
    # on to deal 2, where the human leads: the computer must answer the next action
    while (view := api.view(created["id"], token).body)["deal"] < 2 or view["trick"]["cards"]:
        api.act(created["id"], view["legal_actions"][0], token)
    reads.clear()
    api.act(created["id"], view["legal_actions"][0], token)
    assert reads and min(reads) == 51  # from the first deal's last action, which dealt the second


def test_the_current_deal_replayed_from_its_base_is_the_deal_of_the_whole_replay(any_app, api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "random"}], options={"target": 30}).body
    token = created["tokens"][0]["token"]
    while (view := api.view(created["id"], token).body)["deal"] < 2 or view["trick_number"] < 5:
        api.act(created["id"], view["legal_actions"][0], token)
    games = any_app.extensions["koz"]
    game = games.repository.load(created["id"])
    whole = [event for _, event in games.repository.events(game, -1, game.version)]
    deal = whole[max(index for index, event in enumerate(whole) if event.data["type"] == "deal") :]
    for seat in (0, 1):
        expected = tuple(seen for seen in (event.for_viewer(seat) for event in deal) if seen is not None)
        assert games.computers.events_seen_by(game, seat) == expected  # what a computer in that seat is given
