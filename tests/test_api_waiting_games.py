"""Waiting games cost little: their creator may withdraw them, they expire sooner than a game
under way, and one client address may keep only so many waiting at once."""

from __future__ import annotations

import pytest

from tests.api import FlaskClient


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
