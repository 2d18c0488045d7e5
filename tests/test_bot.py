"""``koz bot``: the reference bot plays a seat to the end of a match, over HTTP, as any client would."""

from __future__ import annotations

import json
import subprocess
import urllib.request

import pytest

from engine import registry
from tests.test_serve import KOZ, Service


def call(url: str, method: str = "GET", body=None, token: str | None = None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    service = Service(tmp_path_factory.mktemp("bot") / "koz-data")
    yield service
    service.stop()


@pytest.mark.parametrize(
    ("ruleset_id", "options", "level"),
    [
        ("german-whist", {}, "basic"),
        ("partnership-batak", {"target": 21}, "basic"),
        ("sixty-six", {}, "expert"),
        ("sixty-six", {"variant": "schnapsen"}, None),
    ],
)
def test_koz_bot_plays_its_seat_to_the_end_of_the_match(service, ruleset_id, options, level):
    seats = [{"name": "P"}] + [{"bot": "basic"}] * (registry.get(ruleset_id).seat_count - 1)
    created = call(f"{service.url}/v1/games", "POST", {"ruleset": ruleset_id, "options": options, "seats": seats, "seed": f"bot-{ruleset_id}"})
    token = next(entry["token"] for entry in created["tokens"] if entry["seat"] == 0)
    # after "--": a token may begin with "-", which would otherwise be read as an option
    command = [str(KOZ), "bot"] + (["--level", level] if level else []) + ["--", service.url, created["id"], token]
    bot = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert bot.returncode == 0, bot.stderr
    game = f"{service.url}/v1/games/{created['id']}"
    assert call(game)["status"] == "finished"
    first_page = call(f"{game}/history?after=-1&limit=50", token=token)
    assert any(event["type"] == "action" and event["seat"] == 0 for event in first_page["events"])


def test_koz_bot_stops_with_the_refusal_when_its_token_is_wrong(service):
    created = call(f"{service.url}/v1/games", "POST", {"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "basic"}]})
    bot = subprocess.run([str(KOZ), "bot", service.url, created["id"], "not-a-token"], capture_output=True, text=True, timeout=60)
    assert bot.returncode == 1
    assert "invalid_token" in bot.stderr or "401" in bot.stderr
