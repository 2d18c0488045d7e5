"""The arena's exactly-once rating updates with worker processes on a real redis-server.

A worker process is killed (SIGKILL) right after it recorded a result, before it told the
accounts and dropped the match (``tests/dying_worker.py`` makes the moment exact); another
worker process settles what is left, and a finish retried by hand changes nothing: every
account's games count is the games it played, and replaying every result in order gives the
stored ratings."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from redis import Redis

from engine import registry
from service import create_app
from service.arena.matchmaker import Matchmaker
from service.arena.ratings import replay
from tests.conftest import make_settings
from tests.test_arena_api import account, events, forfeit

pytestmark = pytest.mark.redis_server

DYING_WORKER = Path(__file__).with_name("dying_worker.py")
RULESET = "german-whist"


def test_a_worker_killed_mid_update_another_worker_and_a_retried_finish_rate_every_match_once(redis_server_url, tmp_path):
    prefix = f"test-{uuid.uuid4().hex[:8]}"
    app = create_app(make_settings(key_prefix=prefix), redis=Redis.from_url(redis_server_url))
    client, arena, koz = app.test_client(), app.extensions["koz_arena"], app.extensions["koz"]
    names = ["Ada", "Bora", "Cem", "Duru"]
    keys = dict(zip(names, (account(client, name) for name in names)))
    played: Counter[str] = Counter()
    for draw in range(2):  # two rounds of two matches, each ended by a forfeit
        for key in keys.values():
            client.post("/v1/arena/seeks", json={"ruleset": RULESET}, headers={"Authorization": f"Bearer {key}"})
        assert Matchmaker(arena, shuffle=random.Random(draw)).pair(registry.get(RULESET)) == 2  # (pairs, settles nothing)
        for game in {events(app, key)[-1]["game"] for key in keys.values()}:
            forfeit(app, game)
    matches = arena.store.matches_started_before(RULESET, float("inf"))
    for match in matches.values():
        played.update(seat["name"] for seat in match["seats"])
    assert len(matches) == 4 and set(played.values()) == {2}

    go = tmp_path / "go"
    environment = {**os.environ, "KOZ_KEY_PREFIX": prefix, "KOZ_WORKER_NICENESS": "0"}
    environment.pop("REDIS_URL", None)

    def worker(hook: str) -> subprocess.Popen:
        log = open(tmp_path / f"{hook[:5]}.log", "w")
        command = [sys.executable, str(DYING_WORKER), "worker", "--redis-url", redis_server_url]
        return subprocess.Popen(command, env={**environment, "KOZ_TEST_WORKER": hook}, stdout=log, stderr=subprocess.STDOUT)

    dying, survivor = worker("dies"), worker(f"waits:{go}")  # both start at once; the survivor's passes wait
    try:
        assert dying.wait(60) == -9, (tmp_path / "dies.log").read_text()
        # killed mid-update: one result and its ratings written, its match still listed and its end still news
        assert len(arena.store.results(RULESET)) == 1
        assert len(arena.store.matches_started_before(RULESET, float("inf"))) == 4 and len(koz.store.ended_arena_games(10)) == 4
        go.touch()
        deadline = time.monotonic() + 60
        while arena.store.matches_started_before(RULESET, float("inf")) or koz.store.ended_arena_games(10):
            assert survivor.poll() is None and time.monotonic() < deadline, (tmp_path / "waits.log").read_text()
            time.sleep(0.1)
    finally:
        survivor.terminate()
        survivor.wait(20)

    game_id, match = next(iter(matches.items()))  # a finish retried: recorded before, so nothing changes
    view = koz.repository.load(game_id).view(None)
    Matchmaker(arena).finish(registry.get(RULESET), game_id, match, {"status": view["status"], "winners": view["winners"], "forfeit": None})

    results = arena.store.results(RULESET)
    assert sorted(result["game"] for result in results) == sorted(matches)
    replayed = replay(results, {RULESET: registry.get(RULESET).sides()})
    for name, key in keys.items():
        page = client.get(f"/v1/accounts/{name}").get_json()
        assert page["games_played"] == played[name] and page["ratings"][0]["games"] == played[name]
        account_id = arena.accounts.authenticate(key).id
        assert arena.ratings.of(RULESET, account_id) == replayed[(RULESET, account_id)]
        finished = [event for event in events(app, key) if event["type"] == "match_finished"]
        assert {event["game"] for event in finished} == {game for game, match in matches.items() if name in {seat["name"] for seat in match["seats"]}}
    app.extensions["koz"].announcements.stop()
