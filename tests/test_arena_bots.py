"""Six ``koz bot --arena`` processes over HTTP play rated matches against each other: every match
is recorded once, and the stored ratings are what replaying the histories' results gives. (That
the ratings order the levels is shown on the engine, where matches cost milliseconds:
tests/test_arena_levels.py.)

The server runs in this process (a threaded WSGI server on a real redis-server, a worker beside
it) so that the matchmaker's seeds and draws are fixed; the bots are the real command."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import urllib.request

import pytest
from prometheus_client import REGISTRY
from redis import Redis

from engine import registry
from service import create_app
from service.arena.matchmaker import Matchmaker
from service.arena.ratings import replay
from service.worker import WorkerThread
from tests.conftest import make_settings, serving
from tests.test_serve import KOZ

pytestmark = [pytest.mark.redis_server, pytest.mark.slow]

LEVELS = ["random", "random", "basic", "basic", "expert", "expert"]


def call(url: str, method: str = "GET", body=None, key: str | None = None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.fixture
def served(redis_server_url):
    app = create_app(make_settings(stream_heartbeat_seconds=1.0), redis=Redis.from_url(redis_server_url))
    seeds = itertools.count()
    with serving(app) as url, WorkerThread(app.extensions["koz"]) as worker:
        worker.matchmaker = Matchmaker(app.extensions["koz_arena"], seed=lambda: f"arena-bots-{next(seeds)}", shuffle=random.Random(26))
        yield app, url
    app.extensions["koz"].announcements.stop()


def outcome_of(history: dict, seat: int) -> str:
    winners = next(event for event in reversed(history["events"]) if "winners" in event or event["type"] in ("match_end", "timeout"))
    won = winners.get("winners") or []
    return "draw" if not won else "win" if seat in won else "loss"


@pytest.mark.parametrize(("ruleset_id", "matches"), [("german-whist", 1)])
def test_bots_play_rated_matches_each_recorded_once_as_the_histories_say(served, ruleset_id, matches):
    app, url = served
    keys = [call(f"{url}/v1/accounts", "POST", {"name": f"{level}-{index}"})["key"] for index, level in enumerate(LEVELS)]
    bots = [
        subprocess.Popen(
            [str(KOZ), "bot", url, "--arena", ruleset_id, f"--key={key}", "--level", level, "--matches", str(matches), "--house-after", "3"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for key, level in zip(keys, LEVELS)
    ]
    for bot in bots:
        assert bot.wait(timeout=600) == 0, bot.stderr.read() if bot.stderr else ""
    arena = app.extensions["koz_arena"]
    results = arena.store.results(ruleset_id)
    pages = [call(f"{url}/v1/accounts/{level}-{index}") for index, level in enumerate(LEVELS)]
    # every match recorded once: each account's games are the matches it played (a bot stops
    # after its own count, and may have been paired once more meanwhile; a bot left alone
    # meets the house after 3 s, so that none waits for ever)
    for page in pages:
        played = sum(1 for result in results for seat in result["seats"] if seat["name"] == page["name"])
        assert page["games_played"] == played >= matches and page["ratings"][0]["games"] == played
    # the outcomes as the histories say, replayed in the order recorded, give the stored ratings
    for result in results:
        history = call(f"{url}/v1/games/{result['game']}/history?after=-1&limit=1000")
        for seat in result["seats"]:
            assert seat["outcome"] == outcome_of(history, seat["seat"])
    sides = {ruleset.id: ruleset.sides() for ruleset in registry.all_rulesets()}
    replayed = replay(results, sides)
    for page in pages:
        account = next(seat["account"] for result in results for seat in result["seats"] if seat["name"] == page["name"])
        assert page["ratings"][0]["rating"] == pytest.approx(replayed[(ruleset_id, account)].mu)
        assert page["ratings"][0]["uncertainty"] == pytest.approx(replayed[(ruleset_id, account)].sigma)


def play_connections() -> float:
    """The play connections (WebSockets) this process's servers accepted, from the metrics."""
    labels = {"method": "GET", "route": "/v1/games/<game_id>/play", "status": "200"}
    return REGISTRY.get_sample_value("koz_http_requests_total", labels) or 0.0


@pytest.mark.parametrize("socket", [False, True])
def test_koz_bot_seeks_the_match_options_it_is_given_and_plays_that_match(served, socket):
    app, url = served
    name = f"misere-seeker-{'socket' if socket else 'http'}"
    key = call(f"{url}/v1/accounts", "POST", {"name": name})["key"]
    options = {"misere": True, "target": 0}
    connections = play_connections()
    bot = subprocess.run(
        [str(KOZ), "bot", url, "--arena", "german-whist", f"--key={key}", "--level", "random", "--matches", "1", "--house-after", "0"]
        + ["--options", json.dumps(options)]
        + (["--socket"] if socket else []),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bot.returncode == 0, bot.stderr
    assert play_connections() > connections if socket else play_connections() == connections
    (result,) = [result for result in app.extensions["koz_arena"].store.results("german-whist") if name in str(result["seats"])]
    assert call(f"{url}/v1/games/{result['game']}")["options"] == registry.get("german-whist").parse_options(options)


def test_two_koz_bots_that_seek_beside_each_other_play_esli_batak_as_one_side(served):
    app, url = served
    names = ["left-friend", "right-friend"]
    keys = [call(f"{url}/v1/accounts", "POST", {"name": name})["key"] for name in names]
    bots = [
        subprocess.Popen(
            [str(KOZ), "bot", url, "--arena", "partnership-batak", f"--key={key}", "--level", "basic", "--matches", "1"]
            + ["--house-after", "0", "--options", '{"target": 21}', f"--partner={partner}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for key, partner in zip(keys, reversed(names))
    ]
    for bot in bots:
        assert bot.wait(timeout=600) == 0, bot.stderr.read() if bot.stderr else ""
    (result,) = app.extensions["koz_arena"].store.results("partnership-batak")
    seat_of = {seat["name"]: seat["seat"] for seat in result["seats"]}
    assert {seat_of[name] for name in names} in [set(side) for side in registry.get("partnership-batak").sides()]
    assert len({seat["outcome"] for seat in result["seats"] if seat["name"] in names}) == 1


@pytest.mark.parametrize(
    ("options", "exit_code", "said"),
    [("[1]", 2, "a JSON object is needed"), ("{target: 1}", 2, "not JSON"), ('{"target": -3}', 1, "invalid_option")],
)
def test_koz_bot_refuses_options_that_are_not_an_object_and_stops_with_the_servers_refusal_of_bad_ones(served, options, exit_code, said):
    _app, url = served
    key = call(f"{url}/v1/accounts", "POST", {"name": f"bad-options-{exit_code}-{len(options)}"})["key"]
    bot = subprocess.run(
        [str(KOZ), "bot", url, "--arena", "german-whist", f"--key={key}", "--options", options], capture_output=True, text=True, timeout=60
    )
    assert bot.returncode == exit_code
    assert said in bot.stderr
