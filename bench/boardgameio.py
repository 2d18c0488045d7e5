"""``bench/api.py --peer boardgameio``: Koz against boardgame.io 0.50, the same load, alternating, in one run.

The load, for each server: ``--clients`` people, each in a game of German Whist of its own against
a ``random`` computer, each playing a legal card as soon as it is to act, a new game when one ends.
One sample is a person's move until the client holds the authoritative state with the person to
act again (or the game over): for Koz over HTTP, the ``POST`` of the action and, if the computer's
reply did not come with its answer, the long-poll that brings it; for Koz over its WebSocket
(``/v1/games/{id}/play``, a row of its own), the action's message and the views it brings on;
for boardgame.io, the move over its
socket.io connection and the state update the server sends back (``bench/peer_boardgameio/``:
the game, its server with in-memory or FlatFile storage, and the driver, run under Node.js).

The servers run side by side for the whole run; each round gives each of them ``--seconds`` in
turn, so a shared machine's load falls on all alike. CPU per move is every process of each
server (Koz: web, worker, Redis; boardgame.io: its one Node process), read from ``/proc``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Callable

import gevent
import websocket

from api import Connection, CpuMeter, free_port, ms, percentile, run_clients, start_service

PEER = Path(__file__).resolve().parent / "peer_boardgameio"
#: the row of Koz played over its WebSocket, as boardgame.io's clients play over socket.io
SOCKET = "Koz, koz serve, WebSocket (always)"


def process_seconds(pid: int) -> float:
    return CpuMeter.seconds(pid)


class BoardgameioServer:
    """boardgame.io's server, with ``storage`` 'memory' or 'flatfile', on a free port."""

    def __init__(self, storage: str) -> None:
        if not (PEER / "node_modules" / "boardgame.io").is_dir():
            raise SystemExit(f"boardgame.io is not installed: npm ci --prefix {PEER} (make bench does it)")
        self.storage = storage
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data = tempfile.mkdtemp(prefix="koz-bench-bgio-")
        command = ["node", "server.js", str(self.port), storage, self.data]
        # production: the server logs nothing per move, as a deployed one would
        environment = {**os.environ, "NODE_ENV": "production"}
        self.process = subprocess.Popen(command, cwd=PEER, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
        assert self.process.stdout is not None
        if not self.process.stdout.readline().startswith(b"ready"):
            raise RuntimeError(f"the boardgame.io server ({storage}) did not start")

    def round(self, clients: int, seconds: float, seed: int) -> tuple[int, float, list[float], dict[str, float]]:
        """One round of load: (moves, seconds, latencies in seconds, CPU seconds by process)."""
        before = process_seconds(self.process.pid)
        finished = subprocess.run(
            ["node", "driver.js", self.url, str(clients), str(seconds), str(seed)], cwd=PEER, capture_output=True, check=True, timeout=seconds + 120
        )
        cpu = process_seconds(self.process.pid) - before
        result = json.loads(finished.stdout)
        return result["moves"], result["seconds"], [latency / 1000 for latency in result["latencies_ms"]], {"node": cpu}

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        shutil.rmtree(self.data, ignore_errors=True)


def new_game(connection: Connection) -> tuple[str, str, dict]:
    status, created = connection.call("POST", "/v1/games", {"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "random"}]})
    assert status == 201, created
    token = created["tokens"][0]["token"]
    _, view = connection.call("GET", f"/v1/games/{created['id']}", token=token)
    return created["id"], token, view


def person_client(url: str, until: float, seed: int, latencies: list[float], interval: float = 0.0) -> None:
    """One person against Koz's random computer; a sample per move, until the person is to act
    again; a move every ``interval`` seconds (0: as soon as the person is to act)."""
    connection = Connection(url)
    rng = random.Random(seed)
    game_id, token, view = new_game(connection)
    next_at = time.perf_counter()
    while time.perf_counter() < until:
        if view["status"] != "active":
            game_id, token, view = new_game(connection)
            continue
        if not view["legal_actions"]:  # the computer leads the new game: not a sample
            _, view = connection.call("GET", f"/v1/games/{game_id}?wait=10&after={view['version']}", token=token)
            continue
        if interval:
            gevent.sleep(max(0.0, next_at - time.perf_counter()))
            next_at = max(next_at + interval, time.perf_counter() - interval)
        started = time.perf_counter()
        status, view = connection.call("POST", f"/v1/games/{game_id}/actions", rng.choice(view["legal_actions"]), token)
        assert status == 200, view
        while view["status"] == "active" and not view["legal_actions"]:  # the reply came after the answer
            _, view = connection.call("GET", f"/v1/games/{game_id}?wait=10&after={view['version']}", token=token)
        latencies.append(time.perf_counter() - started)
    connection.close()


def socket_client(url: str, until: float, seed: int, latencies: list[float], interval: float = 0.0) -> None:
    """:func:`person_client` over Koz's WebSocket (``/v1/games/{id}/play``), as boardgame.io's
    driver plays over socket.io: the game made over HTTP, then each move a message, and the views
    (the answer, and the computer's reply if it came later) pushed on the same connection."""
    connection = Connection(url)
    rng = random.Random(seed)
    while time.perf_counter() < until:
        game_id, token, _ = new_game(connection)
        play = websocket.create_connection(
            url.replace("http", "ws", 1) + f"/v1/games/{game_id}/play", header={"Authorization": f"Bearer {token}"}, timeout=10
        )
        try:
            view = json.loads(play.recv())["view"]
            next_at = time.perf_counter()
            while time.perf_counter() < until and view["status"] == "active":
                while not view["legal_actions"]:  # the computer leads the new game: not a sample
                    view = json.loads(play.recv())["view"]
                if interval:
                    gevent.sleep(max(0.0, next_at - time.perf_counter()))
                    next_at = max(next_at + interval, time.perf_counter() - interval)
                started = time.perf_counter()
                play.send(json.dumps({"type": "act", "action": rng.choice(view["legal_actions"])}))
                answer = json.loads(play.recv())
                assert answer["type"] == "acted", answer
                view = answer["view"]
                while view["status"] == "active" and not view["legal_actions"]:  # the reply came after the answer
                    view = json.loads(play.recv())["view"]
                latencies.append(time.perf_counter() - started)
        finally:
            play.close()
    connection.close()


class KozServer:
    """``koz serve`` as shipped (embedded Redis, ``appendfsync always``); ``source``: the code of
    another checkout instead (see :func:`api.start_service`); ``client``: how the people play
    (:func:`person_client` over HTTP, :func:`socket_client` over the WebSocket)."""

    def __init__(self, source: str | None = None, client: Callable[..., None] | None = None) -> None:
        self.process, self.url, self.data = start_service("always", source)
        self.meter = CpuMeter(self.process.pid, self.data)
        self.client = client or person_client

    def round(self, clients: int, seconds: float, seed: int, interval: float = 0.0) -> tuple[int, float, list[float], dict[str, float]]:
        before = self.meter.sample()
        started = time.perf_counter()
        _, latencies = run_clients(
            lambda number, until, found: self.client(self.url, until, seed * 1000 + number, found, interval), clients, seconds
        )
        elapsed = time.perf_counter() - started
        after = self.meter.sample()
        return len(latencies), elapsed, latencies, {kind: after[kind] - before[kind] for kind in ("web", "worker", "redis")}

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(60)
        shutil.rmtree(self.data, ignore_errors=True)


def compare(clients: int, seconds: float, rounds: int, baseline: str | None = None) -> None:
    """``baseline``: a checkout of Koz run beside the installed one (the same load, alternating)."""
    starts: dict[str, Callable[[], BoardgameioServer | KozServer]] = {
        "boardgame.io, in-memory": lambda: BoardgameioServer("memory"),
        "boardgame.io, FlatFile": lambda: BoardgameioServer("flatfile"),
        "Koz, koz serve (appendfsync always)": KozServer,
        SOCKET: lambda: KozServer(client=socket_client),
    }
    if baseline:
        starts[f"Koz at {baseline}"] = lambda: KozServer(baseline)
    servers: dict[str, BoardgameioServer | KozServer] = {}
    try:
        for name, start in starts.items():
            servers[name] = start()
    except BaseException:  # one that fails to start stops those started before it: none is left running
        for server in servers.values():
            server.close()
        raise
    moves = {name: 0 for name in servers}
    elapsed = {name: 0.0 for name in servers}
    latencies: dict[str, list[float]] = {name: [] for name in servers}
    cpu: dict[str, dict[str, float]] = {name: {} for name in servers}
    rates: dict[str, list[float]] = {name: [] for name in servers}
    load_before = os.getloadavg()[0]
    try:
        for server in servers.values():
            server.round(clients, min(2.0, seconds), 0)  # warm-up: first games, first decisions, JIT
        for number in range(rounds):
            for name, server in servers.items():
                count, spent, found, used = server.round(clients, seconds, number + 1)
                moves[name] += count
                elapsed[name] += spent
                latencies[name] += found
                rates[name].append(count / spent)
                for kind, value in used.items():
                    cpu[name][kind] = cpu[name].get(kind, 0.0) + value
                print(f"  round {number + 1}, {name}: {count / spent:.0f} moves/s", flush=True)
        # then each Koz paced at half the slower one's rate, alternating: the latency people feel
        kozes = {name: server for name, server in servers.items() if isinstance(server, KozServer)}
        half = min(moves[name] / elapsed[name] for name in kozes) / 2
        half_latencies: dict[str, list[float]] = {name: [] for name in kozes}
        for number in range(rounds):
            for name, koz_server in kozes.items():
                half_latencies[name] += koz_server.round(clients, seconds, 100 + number, interval=clients / half)[2]
    finally:
        for server in servers.values():
            server.close()
    print(
        f"German Whist against a random computer, {clients} clients, {rounds} alternating rounds of {seconds:.0f} s, "
        f"{os.cpu_count()} cores, load average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after (the machine is shared)"
    )
    for name in servers:
        per_move = {kind: 1000 * value / max(1, moves[name]) for kind, value in cpu[name].items()}
        print(
            f"{name:<38} {moves[name] / elapsed[name]:6.0f} moves/s (rounds: {', '.join(f'{rate:.0f}' for rate in rates[name])}), "
            f"p50 {ms(percentile(latencies[name], 0.5))}, p99 {ms(percentile(latencies[name], 0.99))}, "
            f"CPU per move {sum(per_move.values()):.2f} ms ({', '.join(f'{kind} {value:.2f}' for kind, value in per_move.items())})"
        )
    koz, peer = "Koz, koz serve (appendfsync always)", "boardgame.io, in-memory"
    koz_rate, peer_rate = moves[koz] / elapsed[koz], moves[peer] / elapsed[peer]
    koz_cpu, peer_cpu = sum(cpu[koz].values()) / max(1, moves[koz]), sum(cpu[peer].values()) / max(1, moves[peer])
    print(f"Koz / boardgame.io in-memory: moves/s {koz_rate / peer_rate:.2f} (target >= 1.0), CPU per move {koz_cpu / peer_cpu:.2f} (target <= 1.0)")
    socket_rate, socket_cpu = moves[SOCKET] / elapsed[SOCKET], sum(cpu[SOCKET].values()) / max(1, moves[SOCKET])
    print(f"Koz over its WebSocket / boardgame.io in-memory: moves/s {socket_rate / peer_rate:.2f}, CPU per move {socket_cpu / peer_cpu:.2f}")
    medians = f"Koz {median(rates[koz]):.0f}/s, over its WebSocket {median(rates[SOCKET]):.0f}/s, boardgame.io in-memory {median(rates[peer]):.0f}/s"
    print(f"median round: {medians}")
    for name in kozes:
        found = half_latencies[name]
        print(f"{name} at {half:.0f} moves/s (half the slower Koz's rate): p50 {ms(percentile(found, 0.5))}, p99 {ms(percentile(found, 0.99))}")
    if baseline:
        old = f"Koz at {baseline}"
        old_rate, old_cpu = moves[old] / elapsed[old], sum(cpu[old].values()) / max(1, moves[old])
        print(f"Koz at {baseline} / boardgame.io in-memory: moves/s {old_rate / peer_rate:.2f}, CPU per move {old_cpu / peer_cpu:.2f}")
        print(f"Koz / Koz at {baseline}: moves/s {koz_rate / old_rate:.2f}, CPU per move {koz_cpu / old_cpu:.2f}")
