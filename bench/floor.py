"""``bench/api.py --floor``: what this stack costs per request before Koz does anything, beside a
whole boardgame.io move, on one host, in one run.

Servers, side by side for the whole run, each given ``--seconds`` of load in turn per round:

- gunicorn with its gevent worker, serving a bare WSGI application (``bench/floor_apps.py:bare``,
  a fixed JSON body): the server alone;
- the same with gunicorn's ``gevent_pywsgi`` worker (gevent's own HTTP server, ``gevent.pywsgi``,
  under gunicorn's master): what another server of gevent's model costs;
- the same with a Flask application of one trivial JSON route (``floor_apps:flask_app``);
- ``koz serve`` as shipped: ``GET /healthz`` (Koz's whole request path, no store), and a human's
  move against a ``random`` computer (the load of ``--peer boardgameio``);
- boardgame.io 0.50 with in-memory storage: a whole move (``bench/boardgameio.py``).

The load is ``--clients`` clients, each on its own kept-alive connection, asking as fast as
answered. CPU per request is every process of each server (gunicorn's master and worker; Koz's
web process, worker and Redis; boardgame.io's Node process), read from ``/proc``. If a trivial
request through gunicorn, gevent and Flask already costs about what boardgame.io spends on a
whole move, no trimming of Koz's own work brings a move under it with this stack.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Callable, Protocol

from api import Connection, CpuMeter, free_port, ms, percentile, request_client, run_clients
from boardgameio import BoardgameioServer, KozServer

BENCH = Path(__file__).resolve().parent


class Server(Protocol):
    def round(self, clients: int, seconds: float, seed: int) -> tuple[int, float, list[float], dict[str, float]]: ...

    def close(self) -> None: ...


class GunicornServer:
    """gunicorn with one gevent worker (``worker``: gunicorn's worker class) serving ``application``
    (a ``floor_apps`` attribute)."""

    def __init__(self, application: str, worker: str = "gevent") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        gunicorn = Path(sys.executable).with_name("gunicorn")
        command = [str(gunicorn), "-k", worker, "-w", "1", "--worker-connections", "10000", "-b", f"127.0.0.1:{self.port}"]
        command.append(f"floor_apps:{application}")
        self.process = subprocess.Popen(command, cwd=BENCH, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            try:
                if Connection(self.url).call("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        self.close()
        raise RuntimeError(f"gunicorn ({application}) did not start")

    def seconds(self) -> float:
        """CPU seconds of the master and its workers."""
        pids = [self.process.pid]
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == self.process.pid:
                        pids.append(int(entry.name))
                except OSError:
                    continue
        return sum(CpuMeter.seconds(pid) for pid in pids)

    def round(self, clients: int, seconds: float, seed: int) -> tuple[int, float, list[float], dict[str, float]]:
        before = self.seconds()
        started = time.perf_counter()
        _, latencies = run_clients(lambda number, until, found: request_client(self.url, until, found, "GET", "/healthz"), clients, seconds)
        return len(latencies), time.perf_counter() - started, latencies, {"gunicorn": self.seconds() - before}

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(30)


class KozHealthz(KozServer):
    """``koz serve`` as shipped, asked ``GET /healthz``."""

    def round(self, clients: int, seconds: float, seed: int, interval: float = 0.0) -> tuple[int, float, list[float], dict[str, float]]:
        before = self.meter.sample()
        started = time.perf_counter()
        _, latencies = run_clients(lambda number, until, found: request_client(self.url, until, found, "GET", "/healthz"), clients, seconds)
        elapsed = time.perf_counter() - started
        after = self.meter.sample()
        return len(latencies), elapsed, latencies, {kind: after[kind] - before[kind] for kind in ("web", "worker", "redis")}


def compare(clients: int, seconds: float, rounds: int) -> None:
    starts: dict[str, Callable[[], Server]] = {
        "gunicorn + gevent, bare WSGI: GET": lambda: GunicornServer("bare"),
        "gunicorn + gevent.pywsgi, bare WSGI: GET": lambda: GunicornServer("bare", "gevent_pywsgi"),
        "gunicorn + gevent + Flask, one JSON route: GET": lambda: GunicornServer("flask_app"),
        "koz serve: GET /healthz": KozHealthz,
        "koz serve: a human move (vs random)": KozServer,
        "boardgame.io, in-memory: a whole move": lambda: BoardgameioServer("memory"),
    }
    servers: dict[str, Server] = {}
    results: dict[str, list[tuple[int, float, list[float], dict[str, float]]]] = {name: [] for name in starts}
    load_before = os.getloadavg()[0]
    try:
        for name, start in starts.items():
            servers[name] = start()
        for number in range(rounds):
            for name, server in servers.items():
                results[name].append(server.round(clients, seconds, number))
                print(f"  round {number + 1}: {name}", file=sys.stderr, flush=True)
    finally:
        for server in servers.values():
            server.close()
    print(
        f"{clients} clients, {rounds} rounds of {seconds:.0f} s each, alternating; {os.cpu_count()} cores, "
        f"load average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after (the machine is shared)"
    )
    cpu_per: dict[str, float] = {}
    for name, found in results.items():
        count = sum(requests for requests, _, _, _ in found)
        per_second = median(requests / elapsed for requests, elapsed, _, _ in found)
        latencies = [latency for _, _, round_latencies, _ in found for latency in round_latencies]
        kinds = found[0][3].keys()
        by_kind = {kind: 1000 * sum(cpu[kind] for _, _, _, cpu in found) / max(1, count) for kind in kinds}
        cpu_per[name] = sum(by_kind.values())
        shares = ", ".join(f"{kind} {value:.2f}" for kind, value in by_kind.items())
        print(
            f"{name:<48} {per_second:7.0f}/s  p50 {ms(percentile(latencies, 0.5))}, p99 {ms(percentile(latencies, 0.99))}  "
            f"CPU {cpu_per[name]:.2f} ms per request ({shares})"
        )
    peer = cpu_per["boardgame.io, in-memory: a whole move"]
    print("CPU per request / boardgame.io's CPU per whole move:")
    for name, cpu in cpu_per.items():
        print(f"  {name:<48} {cpu / peer:.2f}")
