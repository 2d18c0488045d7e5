"""Waiting games cost little: their creator may withdraw them, they expire sooner than a game
under way, and one client address may keep only so many waiting at once."""

from __future__ import annotations

import threading
import time

import pytest

from service import create_app
from service.config import Settings
from tests.api import FlaskClient
from tests.conftest import drain, make_settings


@pytest.fixture
def api(app):
    return FlaskClient(app.test_client())


def invite(api, **extra):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}], **extra)
    assert created.status == 201, created.body
    return created.body["id"], created.body["tokens"][0]["token"]


def withdraw(api, game_id, token=None):
    return api.request("DELETE", f"/v1/games/{game_id}", token=token)


def listed(api) -> list[str]:
    return [game["id"] for game in api.request("GET", "/v1/games?status=waiting").body["games"]]


# --- withdrawing an invitation -------------------------------------------------------------------


def test_the_creator_withdraws_a_waiting_game_and_it_is_gone_from_the_lobby(api):
    game_id, token = invite(api)
    assert game_id in listed(api)
    answer = withdraw(api, game_id, token)
    assert (answer.status, answer.body) == (204, None)
    assert game_id not in listed(api)
    assert api.view(game_id).code == "unknown_game"
    assert api.request("POST", f"/v1/games/{game_id}/seats/1", json_body={}).code == "unknown_game"
    assert withdraw(api, game_id, token).code == "unknown_game"


def test_a_long_poll_on_a_withdrawn_game_hears_at_once_that_it_is_gone(app, api):
    game_id, token = invite(api)
    version = api.view(game_id).body["version"]
    answers = []
    poll = threading.Thread(target=lambda: answers.append(api.request("GET", f"/v1/games/{game_id}?wait=30&after={version}")))
    poll.start()
    announcements = app.extensions["koz"].announcements
    deadline = time.monotonic() + 30
    while announcements.waiting_count < 1:  # the long-poll waits: withdrawing now must wake it
        assert time.monotonic() < deadline, "the long-poll never waited"
        time.sleep(0.01)
    assert withdraw(api, game_id, token).status == 204
    poll.join(15)  # long before its 30 s wait ends: the withdrawal is announced to its waiters
    assert [(answer.status, answer.code) for answer in answers] == [(404, "unknown_game")]
    assert game_id in answers[0].body["detail"]  # the problem names the game it did not find


def test_a_private_waiting_game_is_withdrawn_too(api):
    game_id, token = invite(api, private=True)
    assert withdraw(api, game_id, token).status == 204
    assert api.view(game_id).status == 404


def test_a_game_that_started_is_not_withdrawn(api):
    game_id, token = invite(api)
    assert api.request("POST", f"/v1/games/{game_id}/seats/1", json_body={"name": "Bora"}).status == 200
    answer = withdraw(api, game_id, token)
    assert (answer.status, answer.code) == (409, "game_started")
    assert api.view(game_id).body["status"] == "active"


def test_only_the_creator_withdraws_a_game(api):
    created = api.create(ruleset="partnership-batak", seats=[{"name": "Ayşe"}, {"open": True}, {"bot": "basic"}, {"open": True}]).body
    taken = api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={"name": "Bora"}).body
    answer = withdraw(api, created["id"], taken["token"])
    assert (answer.status, answer.code) == (403, "not_the_creator")
    assert withdraw(api, created["id"]).code == "missing_token"
    assert withdraw(api, created["id"], "not-a-token").code == "invalid_token"
    assert api.view(created["id"]).body["status"] == "waiting"
    assert withdraw(api, created["id"], created["tokens"][0]["token"]).status == 204


def test_withdrawing_is_allowed_from_other_origins(api):
    answer = api.test_client.options("/v1/games/x", headers={"Origin": "https://cards.example", "Access-Control-Request-Method": "DELETE"})
    assert "DELETE" in answer.headers["Access-Control-Allow-Methods"]


# --- what a waiting game costs ------------------------------------------------------------------


def api_with(fake_redis, **settings) -> FlaskClient:
    return FlaskClient(create_app(make_settings(**settings), redis=fake_redis).test_client())


def expiry(fake_redis, game_id: str) -> int:
    return next(fake_redis.ttl(key) for key in fake_redis.keys(f"*{{{game_id}}}:game"))


def test_one_address_keeps_only_so_many_games_waiting_at_once(fake_redis):
    api = api_with(fake_redis, max_waiting_games_per_address=2)
    first, first_token = invite(api)
    second, _ = invite(api, private=True)  # a private waiting game counts too
    refused = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}])
    assert (refused.status, refused.code, refused.headers["Retry-After"]) == (429, "too_many_waiting_games", "60")
    assert len(listed(api)) == 1
    # a game that does not wait is not capped, and another address has its own count
    assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}]).status == 201
    invitation = {"ruleset": "german-whist", "seats": [{"name": "P"}, {"open": True}]}
    other = api.test_client.post("/v1/games", json=invitation, environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert other.status_code == 201
    # a game withdrawn, or that starts, frees its place
    assert withdraw(api, first, first_token).status == 204
    third, _ = invite(api)
    assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"open": True}]).code == "too_many_waiting_games"
    assert api.request("POST", f"/v1/games/{third}/seats/1", json_body={}).status == 200
    assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"open": True}]).status == 201


def test_the_cap_on_waiting_games_is_a_setting_and_zero_lifts_it(fake_redis):
    api = api_with(fake_redis, max_waiting_games_per_address=0)
    for _ in range(12):
        invite(api)
    assert Settings.from_env({"KOZ_MAX_WAITING_GAMES_PER_ADDRESS": "3"}).max_waiting_games_per_address == 3
    assert Settings().max_waiting_games_per_address == 10


def test_a_waiting_game_expires_sooner_than_a_game_under_way(fake_redis):
    api = api_with(fake_redis, game_ttl_seconds=7 * 86400, waiting_game_ttl_seconds=3600)
    game_id, _ = invite(api)
    assert 3500 < expiry(fake_redis, game_id) <= 3600
    assert api.request("POST", f"/v1/games/{game_id}/seats/1", json_body={}).status == 200
    assert expiry(fake_redis, game_id) > 6 * 86400
    assert Settings().waiting_game_ttl_seconds == 86400
    assert Settings.from_env({"KOZ_WAITING_GAME_TTL_SECONDS": "600"}).waiting_game_ttl_seconds == 600


def test_a_computer_first_to_act_waits_with_the_game_until_its_open_seat_is_taken(fake_redis, caplog):
    app = create_app(make_settings(reply_wait_seconds=0), redis=fake_redis)  # no worker here: moves are drained
    api = FlaskClient(app.test_client())
    for seed in map(str, range(20)):  # a deal where the computer is first to act: its opponent deals
        created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"open": True}], seed=seed)
        if api.view(created.body["id"]).body["dealer"] == 1:
            break
    game_id = created.body["id"]
    assert api.view(game_id).body["dealer"] == 1, "no seed put the computer first"
    assert drain(app) == 0  # no move is due while the seat is open: the worker finds nothing to play
    assert api.view(game_id).body["version"] == created.body["version"]
    assert [record for record in caplog.records if record.levelname == "ERROR"] == []
    taken = api.request("POST", f"/v1/games/{game_id}/seats/1", json_body={"name": "Bora"})
    assert taken.status == 200
    drain(app)
    assert api.view(game_id).body["to_act"] == [1]  # the computer led once the seat was taken
    app.extensions["koz"].announcements.stop()
