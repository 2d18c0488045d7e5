"""Actions per second through the whole HTTP stack: ``koz serve`` on its embedded Redis.

    python bench/api.py [--clients 8] [--seconds 20] [--url http://127.0.0.1:8000]
    python bench/api.py --appendfsync everysec,always   # the embedded Redis's sync policies side by side

Without ``--url`` it starts ``koz serve`` on a free port with a temporary data directory (the
embedded default: gunicorn, one worker with 16 threads, a real redis-server) and stops it after.
Each client thread plays German Whist games between two human seats over one kept-alive
connection: it reads the seat's view, posts a random legal action, and starts a new game when one
ends. Printed: actions per second, and the latency of the action requests (p50/p95/max). The
service is started with its rate limits off: this measures the stack, not the limits.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Connection:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.http = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)

    def call(self, method: str, path: str, body=None, token: str | None = None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.http.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.http.getresponse()
        return response.status, json.loads(response.read())


def client(url: str, stop: float, seed: int, latencies: list[float]) -> None:
    connection = Connection(url)
    rng = random.Random(seed)
    while time.perf_counter() < stop:
        _, created = connection.call("POST", "/v1/games", {"ruleset": "german-whist", "seats": [{}, {}]})
        tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
        path = f"/v1/games/{created['id']}"
        _, view = connection.call("GET", path)
        while view["status"] == "active" and time.perf_counter() < stop:
            seat = view["to_act"][0]
            _, mine = connection.call("GET", path, token=tokens[seat])
            started = time.perf_counter()
            status, view = connection.call("POST", path + "/actions", rng.choice(mine["legal_actions"]), tokens[seat])
            latencies.append(time.perf_counter() - started)
            assert status == 200, view


def start_service(appendfsync: str) -> tuple[subprocess.Popen, str, str]:
    data = tempfile.mkdtemp(prefix="koz-bench-")
    port = free_port()
    koz = Path(sys.executable).with_name("koz")
    environment = {
        **os.environ,
        "KOZ_DATA_DIR": data,
        "KOZ_REDIS_APPENDFSYNC": appendfsync,
        "KOZ_RATE_LIMIT_CREATE": "",
        "KOZ_RATE_LIMIT_ACTIONS": "",
    }
    environment.pop("REDIS_URL", None)
    process = subprocess.Popen([str(koz), "serve", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if Connection(url).call("GET", "/readyz")[0] == 200:
                return process, url, data
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("koz serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--url", help="a running service (default: start koz serve)")
    parser.add_argument(
        "--appendfsync",
        default="always",
        help="the embedded Redis's appendfsync, or several separated by commas to compare them in one run (default: always)",
    )
    args = parser.parse_args()
    if args.url is not None:
        run(args, args.url)
        return
    for appendfsync in args.appendfsync.split(","):
        print(f"appendfsync {appendfsync}:")
        process, url, data = start_service(appendfsync)
        try:
            run(args, url)
        finally:
            process.terminate()
            process.wait(30)
            shutil.rmtree(data, ignore_errors=True)


def run(args: argparse.Namespace, url: str) -> None:
    latencies: list[float] = []
    stop = time.perf_counter() + args.seconds
    threads = [threading.Thread(target=client, args=(url, stop, seed, latencies)) for seed in range(args.clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    pick = lambda fraction: 1000 * latencies[min(len(latencies) - 1, int(fraction * len(latencies)))]  # noqa: E731
    print(f"{len(latencies)} actions in {elapsed:.1f} s with {args.clients} clients: {len(latencies) / elapsed:.0f} actions/s")
    print(f"action latency ms: p50 {pick(0.5):.1f}, p95 {pick(0.95):.1f}, max {1000 * latencies[-1]:.1f}")


if __name__ == "__main__":
    main()
