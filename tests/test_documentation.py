"""What a person reads agrees with what the service does: the OpenAPI document describes every
action and shows an example of every refusal, it and the README say the same of when an action
answers, and the README's table lists every setting the code reads. Also: a version asked for
that no game can reach is a bad request."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.actions import KINDS
from tests.api import FlaskClient

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text())
README = (ROOT / "README.md").read_text()


def operations():
    for path, methods in DOCUMENT["paths"].items():
        for method, operation in methods.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield f"{method.upper()} {path}", operation


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_action_kind_says_what_it_does(kind):
    (name,) = [name for name, ref in DOCUMENT["components"]["schemas"]["Action"]["discriminator"]["mapping"].items() if name == kind]
    component = DOCUMENT["components"]["schemas"]["Action"]["discriminator"]["mapping"][name].rsplit("/", 1)[1]
    description = DOCUMENT["components"]["schemas"][component].get("description", "")
    assert len(description.split()) >= 12, (kind, description)


@pytest.mark.parametrize("kind", ["declare", "close", "marriage"])
def test_the_actions_that_claim_say_what_a_false_claim_costs(kind):
    component = DOCUMENT["components"]["schemas"]["Action"]["discriminator"]["mapping"][kind].rsplit("/", 1)[1]
    description = DOCUMENT["components"]["schemas"][component]["description"]
    assert "false claim" in description or "claims falsely" in description, description
    assert kind == "marriage" or "game points" in description


def test_every_error_response_of_every_operation_has_an_example():
    missing = [
        (name, status)
        for name, operation in operations()
        for status, response in operation["responses"].items()
        if status[0] in "45" and not all("example" in media for media in response.get("content", {}).values())
    ]
    assert not missing


def test_the_document_and_the_readme_say_the_same_of_when_an_action_answers():
    said = " ".join(DOCUMENT["paths"]["/v1/games/{game_id}/actions"]["post"]["description"].split())
    readme = " ".join(README.split())
    for text in (said, readme):
        said_so = r"after the computers' replies when they come within `KOZ_REPLY_WAIT_SECONDS` \(2 s[^)]*\), else (with )?the view as committed"
        assert re.search(said_so, text)


def test_every_setting_the_code_reads_is_in_the_readme_table():
    read = set(re.findall(r'"((?:KOZ|REDIS)_[A-Z_]+)"', (ROOT / "service" / "config.py").read_text()))
    table = {name for row in README.splitlines() if row.startswith("| `") for name in re.findall(r"`((?:KOZ|REDIS)_[A-Z_]+)`", row.split("|")[1])}
    assert read and read <= table, sorted(read - table)


@pytest.fixture
def game(client):
    created = client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "Ayşe"}, {"name": "Bora"}]}).get_json()
    return created["id"]


@pytest.mark.parametrize(
    "path, headers, field",
    [
        ("/v1/games/{id}?wait=1&after=10001", {}, "after"),
        ("/v1/games/{id}/history?after=10001", {}, "after"),
        ("/v1/games/{id}/history?after=99999999999999999999999", {}, "after"),
        ("/v1/games/{id}/events?after=10001", {}, "after"),
        ("/v1/games/{id}/events", {"Last-Event-ID": "10001"}, "Last-Event-ID"),
        ("/v1/games/{id}/history?limit=1001", {}, "limit"),
    ],
)
def test_a_version_or_page_beyond_any_version_is_a_bad_request(client, game, path, headers, field):
    answer = FlaskClient(client).request("GET", path.replace("{id}", game), headers=headers)
    assert (answer.status, answer.code) == (400, "invalid_request")
    assert field in answer.body["errors"]


def test_the_last_version_a_match_can_reach_may_still_be_asked_for(client, game):
    assert FlaskClient(client).request("GET", f"/v1/games/{game}/history?after=10000").status == 200
