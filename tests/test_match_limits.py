"""A cap on a match's length (deals and versions): a match past it ends abandoned, with no
winner, in the view and the history (which then reveals it, as any match that is over);
finished games expire sooner than idle running ones."""

from __future__ import annotations

import pytest

from service import create_app
from tests.api import FlaskClient
from tests.conftest import drain, make_settings


def api_with(fake_redis, **settings) -> FlaskClient:
    return FlaskClient(create_app(make_settings(**settings), redis=fake_redis).test_client())


def computers_move(api: FlaskClient) -> None:
    """Every computer move due, made by a worker."""
    drain(api.test_client.application)


@pytest.mark.parametrize("max_deals", [1, 2])
def test_a_match_of_computers_past_the_cap_on_deals_ends_abandoned_with_no_winner(fake_redis, max_deals):
    api = api_with(fake_redis, max_deals=max_deals)
    created = api.create(ruleset="partnership-batak", seats=[{"bot": "random"}] * 4, seed="long", options={"target": 51})
    assert created.status == 201
    computers_move(api)
    view = api.view(created.body["id"]).body
    assert view["status"] == "abandoned" and view["winners"] == [] and view["to_act"] == [] and view["legal_actions"] == []
    history = api.whole_history(created.body["id"])
    assert history["status"] == "abandoned" and len(history["reveal"]["deals"]) == max_deals + 1  # over: revealed, as a finished match
    last = {key: value for key, value in history["events"][-1].items() if key != "version"}
    max_versions = api.test_client.application.extensions["koz"].settings.max_versions
    assert last == {"type": "abandoned", "reason": "too_long", "deal": max_deals + 1, "max_deals": max_deals, "max_versions": max_versions}


def test_a_match_past_the_cap_on_versions_ends_abandoned_and_refuses_further_actions(fake_redis):
    api = api_with(fake_redis, max_versions=3)
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}], seed="long").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    for _ in range(3):
        seat = api.view(created["id"]).body["to_act"][0]
        action = api.view(created["id"], tokens[seat]).body["legal_actions"][0]
        assert api.act(created["id"], action, tokens[seat]).status == 200
    for token in tokens.values():  # (whichever seat was to act)
        view = api.view(created["id"], token).body
        assert (view["status"], view["version"], view["to_act"], view["legal_actions"], view["winners"]) == ("abandoned", 3, [], [], [])
    refused = api.act(created["id"], {"type": "play", "card": "AS"}, tokens[0])
    assert (refused.status, refused.code) == (409, "game_over")
    assert api.request("GET", f"/v1/games/{created['id']}/hint", token=tokens[0]).code == "game_over"
    last = {key: value for key, value in api.whole_history(created["id"])["events"][-1].items() if key != "version"}
    max_deals = api.test_client.application.extensions["koz"].settings.max_deals
    assert last == {"type": "abandoned", "reason": "too_long", "deal": 1, "max_deals": max_deals, "max_versions": 3}


def test_the_hidden_cards_of_an_abandoned_match_are_shown_once_it_is_over(fake_redis):
    api = api_with(fake_redis, max_versions=2)
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed="hidden").body
    token = created["tokens"][0]["token"]
    computers_move(api)
    while api.view(created["id"]).body["status"] == "active":
        action = api.view(created["id"], token).body["legal_actions"][0]
        api.act(created["id"], action, token)
        computers_move(api)
    dealt = [event for event in api.whole_history(created["id"])["events"] if event["type"] == "dealt"]
    assert dealt and all("hand" in event for event in dealt)


def expiry(fake_redis, game_id: str) -> int:
    return next(fake_redis.ttl(key) for key in fake_redis.keys(f"*{{{game_id}}}:game"))


def test_a_finished_game_expires_sooner_than_a_running_one(fake_redis):
    api = api_with(fake_redis, game_ttl_seconds=7 * 86400, finished_game_ttl_seconds=3600)
    running = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}]).body
    finished = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}]).body
    computers_move(api)
    assert api.view(finished["id"]).body["status"] == "finished"
    assert 6 * 86400 < expiry(fake_redis, running["id"]) <= 7 * 86400
    assert expiry(fake_redis, finished["id"]) <= 3600


@pytest.mark.parametrize("variable, value", [("KOZ_MAX_DEALS", "5"), ("KOZ_MAX_VERSIONS", "99"), ("KOZ_FINISHED_GAME_TTL_SECONDS", "60")])
def test_the_caps_are_read_from_the_environment(variable, value):
    from service.config import Settings

    settings = Settings.from_env({variable: value})
    field = {"KOZ_MAX_DEALS": "max_deals", "KOZ_MAX_VERSIONS": "max_versions", "KOZ_FINISHED_GAME_TTL_SECONDS": "finished_game_ttl_seconds"}[variable]
    assert getattr(settings, field) == int(value)
