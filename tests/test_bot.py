"""``koz bot``: the reference bot plays a seat to the end of a match, over HTTP, as any client would."""

from __future__ import annotations

import json
import subprocess
import urllib.request

import pytest

from engine import registry
from engine.actions import Action
from service import bot as service_bot
from service.arena import bot as arena_bot
from service.bot import Answer
from service.cli import main as koz
from tests.test_serve import KOZ, Service


def call(url: str, method: str = "GET", body=None, token: str | None = None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def play_connections(url: str) -> float:
    """How many play connections (WebSockets) the server has accepted, from its metrics."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=60) as response:
        lines = response.read().decode().splitlines()
    route = 'koz_http_requests_total{method="GET",route="/v1/games/<game_id>/play",status="200"}'
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith(route))


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    service = Service(tmp_path_factory.mktemp("bot") / "koz-data")
    yield service
    service.stop()


@pytest.mark.parametrize(
    ("ruleset_id", "options", "level", "socket"),
    [
        ("german-whist", {}, "basic", False),
        ("partnership-batak", {"target": 21}, "basic", False),
        ("sixty-six", {}, "expert", False),
        ("sixty-six", {"variant": "schnapsen"}, None, False),
        ("german-whist", {}, "expert", True),
        ("partnership-batak", {"target": 21}, "basic", True),
    ],
)
def test_koz_bot_plays_its_seat_to_the_end_of_the_match(service, ruleset_id, options, level, socket):
    seats = [{"name": "P"}] + [{"bot": "basic"}] * (registry.get(ruleset_id).seat_count - 1)
    created = call(f"{service.url}/v1/games", "POST", {"ruleset": ruleset_id, "options": options, "seats": seats, "seed": f"bot-{ruleset_id}"})
    token = next(entry["token"] for entry in created["tokens"] if entry["seat"] == 0)
    # after "--": a token may begin with "-", which would otherwise be read as an option
    command = [str(KOZ), "bot"] + (["--level", level] if level else []) + (["--socket"] if socket else []) + ["--", service.url, created["id"], token]
    connections = play_connections(service.url)
    bot = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert bot.returncode == 0, bot.stderr
    assert play_connections(service.url) > connections if socket else play_connections(service.url) == connections
    game = f"{service.url}/v1/games/{created['id']}"
    assert call(game)["status"] == "finished"
    first_page = call(f"{game}/history?after=-1&limit=50", token=token)
    assert any(event["type"] == "action" and event["seat"] == 0 for event in first_page["events"])


def test_koz_bot_stops_with_the_refusal_when_its_token_is_wrong(service):
    created = call(f"{service.url}/v1/games", "POST", {"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "basic"}]})
    bot = subprocess.run([str(KOZ), "bot", service.url, created["id"], "not-a-token"], capture_output=True, text=True, timeout=60)
    assert bot.returncode == 1
    assert "invalid_token" in bot.stderr or "401" in bot.stderr


class HistoryOnly:
    """The one call a decision makes: the seat's history, empty here (the player below reads none)."""

    def request(self, method, path, body=None, headers=None):
        return Answer(200, {"events": [], "next_after": None, "version": 0}, {})


@pytest.mark.parametrize(("work", "counted"), [(300, True), (None, False)])
def test_koz_bot_thinks_by_a_count_when_given_work_and_by_the_clock_otherwise(monkeypatch, work, counted):
    budgets = []

    class Recording:
        def choose(self, info, key, budget):
            budgets.append(budget)
            return Action.from_json({"type": "pass"})

    monkeypatch.setattr(service_bot, "player", lambda level, ruleset: Recording())
    view = {"ruleset": "sixty-six", "seat": 0, "options": {}, "version": 3, "legal_actions": [{"type": "pass"}]}
    service_bot.Bot(HistoryOnly(), "g1", "expert", work).decide(view)
    (budget,) = budgets
    assert (budget.work, budget.has_timer) == ((300, False) if counted else (None, True))


def test_koz_bot_hands_its_work_to_the_arena_bot_and_refuses_work_below_one(monkeypatch, capsys):
    handed = {}
    monkeypatch.setattr(arena_bot, "run", lambda *args, **kwargs: handed.update(kwargs) or 0)
    with pytest.raises(SystemExit) as stopped:
        koz(["bot", "http://127.0.0.1:1", "--arena", "sixty-six", "--key", "k", "--work", "300"])
    assert stopped.value.code == 0 and handed["work"] == 300
    with pytest.raises(SystemExit) as refused:
        koz(["bot", "http://127.0.0.1:1", "--arena", "sixty-six", "--key", "k", "--work", "0"])
    assert refused.value.code == 2 and "must be at least 1" in capsys.readouterr().err
