"""A game registered from outside Koz's own modules: it is checked, listed in the catalog with
the ``random`` level only, and plays whole matches over HTTP, with no change to the service."""

from __future__ import annotations

import pytest

from engine import registry
from plain_whist import PlainWhist
from tests.api import FlaskClient


@pytest.fixture
def api(client):
    return FlaskClient(client)


@pytest.fixture
def plain_whist():
    registry.register(PlainWhist())
    yield
    registry.unregister("plain-whist")


def test_a_registered_game_passes_the_start_check_and_the_catalog_offers_it_the_random_level_only(plain_whist, api):
    registry.check_all()
    catalog = api.request("GET", "/v1/rulesets").body
    (entry,) = [ruleset for ruleset in catalog["rulesets"] if ruleset["id"] == "plain-whist"]
    assert [level["level"] for level in entry["levels"]] == ["random"]
    assert entry["seat_count"] == 2 and entry["options"] == []


def test_a_registered_game_plays_whole_matches_over_http_at_the_standard_table_and_with_a_hint(plain_whist, api):
    for number in range(3):
        created = api.create(ruleset="plain-whist", seed=f"own-{number}")
        assert created.status == 201, created.body
        assert [seat["bot"] for seat in created.body["seats"]] == [None, "random"]
        game, token = created.body["id"], created.body["tokens"][0]["token"]
        view = api.view(game, token).body
        while view["status"] == "active":
            hint = api.request("GET", f"/v1/games/{game}/hint", token=token).body
            assert hint["level"] == "random" and hint["action"] in view["legal_actions"]
            acted = api.act(game, view["legal_actions"][-1], token)
            assert acted.status == 200, acted.body
            view = acted.body
        assert sum(view["tricks_won"]) == 13 and len(view["winners"]) == 1
        assert api.whole_history(game, token)["reveal"]["seed"] == f"own-{number}"


def test_a_level_the_game_does_not_have_is_refused(plain_whist, api):
    refused = api.create(ruleset="plain-whist", seats=[{"name": "A"}, {"bot": "expert"}])
    assert (refused.status, refused.code) == (400, "unknown_level")
