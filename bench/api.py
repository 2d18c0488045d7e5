"""The service under load, side by side in one run: ``koz serve`` as installed, on its embedded Redis.

    python bench/api.py [--clients 8] [--seconds 10] [--waiters 2000] [--experts 20] [--url URL]
    python bench/api.py --appendfsync everysec,always   # the embedded Redis's sync policies, one after the other
    python bench/api.py --peer boardgameio [--rounds 3]  # against boardgame.io 0.50, alternating (bench/boardgameio.py)
    python bench/api.py --cluster [--level-games 2]  # one Redis beside a 3-primary Redis Cluster, in one run (bench/fleet.py)
    python bench/api.py --guards [--rounds 5]  # actions/s with the request deadline and the caps, and without, alternating
    python bench/api.py --floor [--rounds 3]  # gunicorn+gevent, +Flask, Koz's /healthz and move, boardgame.io's move (bench/floor.py)

Without ``--url`` it starts a default ``koz serve`` (one gevent web process and one worker, on the
embedded Redis, ``appendfsync always`` unless ``--appendfsync`` says otherwise; rate limits off:
this measures the stack, not the limits) on a free port with a temporary data directory, and
stops it after. The clients
are greenlets of this process (gevent), each on its own kept-alive connection. Measured, in turn:

1. ``GET /healthz`` per second with ``--clients`` clients: the trivial endpoint.
2. Actions per second with the same clients: each plays German Whist against a ``random``
   computer, posting a legal action; the answer comes after the computer's reply (made by the
   worker). The ratio to (1) is the first figure. Beside it, for reference, two requests that
   do less than an action through the same stack: a seat's view (one read of its game) and an
   action posted to a game that does not exist (one read, which finds nothing).
3. Action latency at half the peak action rate (the clients paced): p50/p99.
4. ``--waiters`` idle clients waiting, half long-polls (``?wait=30&after=v``), half event streams,
   on games between humans: (2) and (3) again, then one action in each watched game, and the
   delay from sending that action to each waiter receiving its new version.
5. ``--slow-bodies`` connections from one other address (``--attacker``, 127.0.0.2), each
   sending the headers of a ``POST`` and one byte of its body, then nothing, opened again when
   the server ends them: ``/healthz`` (paced) and actions at half load from this address
   meanwhile, p99 of each. The server cuts each such request at its deadline
   (``KOZ_REQUEST_SECONDS``) and lets the address hold ``KOZ_CONNECTIONS_PER_ADDRESS`` at once;
   the connections past that are held unread and answered 429 later (``KOZ_TURN_AWAY_SECONDS``).
   Measured once the attack has gone on for ``ATTACK_SETTLE_SECONDS`` (its first burst of
   10,000 connections accepted), for ``--attack-seconds``.
6. ``--burst`` event streams opened at once by 250 people (addresses) while Redis is healthy:
   how they were answered (all 200, none 503 ``storage_unavailable``), and ``/healthz`` meanwhile.
7. ``--experts`` games of expert computers thinking at once (on the worker): ``/healthz`` latency
   meanwhile, against its latency with nothing else going on.

Beside (1) and (2), the CPU time each process spent per request (the web process, the worker, the
embedded Redis, and this process's clients), read from ``/proc``: what bounds the ratio.

The open-file limit of this process (and so of the server it starts) is raised to its hard
limit, for the waiters' and the attacker's connections. The waiters connect from addresses of
their own (127.0.1.x), as the people they stand for would.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import gc  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

import gevent  # noqa: E402
import gevent.event  # noqa: E402
from gevent.pool import Group  # noqa: E402
from stopping import stop_on_signals  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Connection:
    """One kept-alive HTTP connection (from the loopback address ``source``)."""

    def __init__(self, url: str, timeout: float = 60, source: str | None = None) -> None:
        parts = urlsplit(url)
        self.http = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout, source_address=(source, 0) if source else None)

    def call(self, method: str, path: str, body=None, token: str | None = None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.http.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.http.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else None)

    def close(self) -> None:
        self.http.close()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


#: the action's p99 at half load that this bench holds (seconds); bench/arena.py holds the arena's
#: actions to it too
HALF_LOAD_P99_TARGET = 0.025


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f} ms"


# --- load -----------------------------------------------------------------------------------------


def request_client(
    url: str,
    until: float,
    latencies: list[float],
    method: str,
    path: str,
    body=None,
    token: str | None = None,
    expected: int = 200,
    pace: float = 0.0,
) -> None:
    """Sends one request over and over, one every ``pace`` seconds (0: at once); each must be
    answered ``expected``."""
    connection = Connection(url)
    while time.perf_counter() < until:
        started = time.perf_counter()
        status, answer = connection.call(method, path, body, token)
        latencies.append(time.perf_counter() - started)
        assert status == expected, answer
        if pace:
            gevent.sleep(max(0.0, pace - (time.perf_counter() - started)))
    connection.close()


def healthz_client(url: str, until: float, latencies: list[float], pace: float = 0.0) -> None:
    """Asks ``/healthz``, one request every ``pace`` seconds (0: at once)."""
    request_client(url, until, latencies, "GET", "/healthz", pace=pace)


def probe_healthz(url: str, until: float, latencies: list[float], unanswered: list[float]) -> None:
    """Asks ``/healthz`` every 10 ms, each time on a new connection (a new client); a request
    not answered within 10 s counts as 10 s, and is kept in ``unanswered`` (a server whose
    connections are all held answers no one)."""
    while time.perf_counter() < until:
        started = time.perf_counter()
        connection = Connection(url, timeout=10)
        try:
            status, answer = connection.call("GET", "/healthz")
            assert status == 200, answer
        except OSError:
            unanswered.append(time.perf_counter() - started)
        finally:
            connection.close()
        latencies.append(time.perf_counter() - started)
        gevent.sleep(max(0.0, 0.01 - (time.perf_counter() - started)))


def new_game_against_the_computer(connection: Connection, options: dict | None = None):
    body = {"ruleset": "german-whist", "seats": [{"name": "bench"}, {"bot": "random"}], **({"options": options} if options else {})}
    status, created = connection.call("POST", "/v1/games", body)
    assert status == 201, created
    token = created["tokens"][0]["token"]
    _, view = connection.call("GET", f"/v1/games/{created['id']}", token=token)
    return created["id"], token, view


def action_client(
    url: str, until: float, seed: int, latencies: list[float], interval: float = 0.0, spread: bool = False, game: tuple[str, str] | None = None
) -> None:
    """Plays against a random computer, one action every ``interval`` seconds (0: at once);
    ``spread``: the first action at a random moment of the first interval, not at once;
    ``game``: the first game's id and seat token, made beforehand (it is read first), else made here."""
    connection = Connection(url)
    rng = random.Random(seed)
    if game is None:
        game_id, token, view = new_game_against_the_computer(connection)
    else:
        (game_id, token), (_, view) = game, connection.call("GET", f"/v1/games/{game[0]}", token=game[1])
    next_at = time.perf_counter() + (rng.random() * interval if spread else 0.0)
    while time.perf_counter() < until:
        if view["status"] == "finished":
            game_id, token, view = new_game_against_the_computer(connection)
            continue
        if not view["legal_actions"]:  # the computer has not replied yet: wait for it
            _, view = connection.call("GET", f"/v1/games/{game_id}?wait=10&after={view['version']}", token=token)
            continue
        if interval:
            gevent.sleep(max(0.0, next_at - time.perf_counter()))
            next_at = max(next_at + interval, time.perf_counter() - interval)
        started = time.perf_counter()
        status, view = connection.call("POST", f"/v1/games/{game_id}/actions", rng.choice(view["legal_actions"]), token)
        latencies.append(time.perf_counter() - started)
        assert status == 200, view
    connection.close()


def run_clients(client, count: int, seconds: float) -> tuple[float, list[float]]:
    """Runs ``count`` clients for ``seconds``, each as ``client(number, until, latencies)``;
    (requests per second, latencies)."""
    latencies: list[float] = []
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    group = Group()
    for number in range(count):
        group.spawn(client, number, until, latencies)
    group.join(raise_error=True)
    return len(latencies) / (time.perf_counter() - started), latencies


class CpuMeter:
    """CPU time per kind of process of a ``koz serve`` started here, read from ``/proc``."""

    def __init__(self, serve_pid: int, data_dir: str) -> None:
        self.serve_pid = serve_pid
        self.data_dir = os.path.realpath(data_dir)

    def processes(self) -> dict[str, list[int]]:
        kinds: dict[str, list[int]] = {"web": [], "worker": [], "redis": [], "clients": [os.getpid()]}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            if "redis-server" in command and cwd == self.data_dir:
                kinds["redis"].append(int(entry.name))
            elif parent == self.serve_pid:
                kinds["worker" if " service.cli worker" in command else "web"].append(int(entry.name))
        return kinds

    @staticmethod
    def seconds(pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sample(self) -> dict[str, float]:
        return {kind: sum(self.seconds(pid) for pid in pids) for kind, pids in self.processes().items()}

    @staticmethod
    def per_request(before: dict[str, float], after: dict[str, float], requests: int) -> str:
        return ", ".join(f"{kind} {1000 * (after[kind] - before[kind]) / max(1, requests):.2f}" for kind in after)


def measured_run(client, count: int, seconds: float, meter: CpuMeter | None) -> tuple[float, list[float], str]:
    """:func:`run_clients`, and the CPU milliseconds per request of each kind of process (if metered)."""
    before = meter.sample() if meter else None
    rate, latencies = run_clients(client, count, seconds)
    cpu = CpuMeter.per_request(before, meter.sample(), len(latencies)) if meter and before else ""
    return rate, latencies, cpu


# --- waiters --------------------------------------------------------------------------------------


class Waiters:
    """Idle clients: half long-polls, half event streams, spread over games between humans. As
    spectators, or with ``on_seat`` each game's waiters as the one seat that is not to act (the
    people following the game on that seat's screens, waiting for the other's move)."""

    def __init__(self, url: str, count: int, games: int, on_seat: bool = False) -> None:
        self.url = url
        self.games: list[tuple[str, dict[int, str], int]] = []
        #: game id -> the token the game's waiters send (None: spectators)
        self.watcher_tokens: dict[str, str | None] = {}
        setup = Connection(url)
        for _ in range(games):
            _, created = setup.call("POST", "/v1/games", {"ruleset": "german-whist", "seats": [{"name": "north"}, {"name": "south"}]})
            tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
            self.games.append((created["id"], tokens, created["version"]))
            _, view = setup.call("GET", f"/v1/games/{created['id']}")
            waiting_seat = next(seat for seat in sorted(tokens) if seat not in view["to_act"])
            self.watcher_tokens[created["id"]] = tokens[waiting_seat] if on_seat else None
        setup.close()
        #: game id -> [receive times of the version awaited]
        self.received: dict[str, list[float]] = {game_id: [] for game_id, _, _ in self.games}
        self.ready = 0
        self.group = Group()
        for number in range(count):
            game_id, _, version = self.games[number % games]
            self.group.spawn(self.long_poll if number % 2 == 0 else self.stream, number, game_id, version)
            if number % 100 == 99:
                gevent.sleep(0.05)  # do not overflow the server's accept queue

    @staticmethod
    def address(number: int) -> str:
        """A loopback address of the waiter's own: 2,000 waiters are 2,000 people, and the service
        caps what one address holds open (KOZ_CONNECTIONS_PER_ADDRESS, KOZ_STREAMS_PER_ADDRESS)."""
        return f"127.0.1.{1 + number % 250}"

    @staticmethod
    def connected(connection: http.client.HTTPConnection) -> None:
        """Connect, again while the server's accept queue is full (a busy server, thousands connecting)."""
        for attempt in range(20):
            try:
                connection.connect()
                return
            except ConnectionRefusedError:
                if attempt == 19:
                    raise
                gevent.sleep(0.5)

    def long_poll(self, number: int, game_id: str, version: int) -> None:
        connection = Connection(self.url, timeout=120, source=self.address(number))
        self.connected(connection.http)
        self.ready += 1
        while True:
            _, view = connection.call("GET", f"/v1/games/{game_id}?wait=30&after={version}", token=self.watcher_tokens[game_id])
            if view["version"] > version:
                self.received[game_id].append(time.perf_counter())
                version = view["version"]

    def stream(self, number: int, game_id: str, version: int) -> None:
        parts = urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=None, source_address=(self.address(number), 0))
        token = self.watcher_tokens[game_id]
        self.connected(connection)
        connection.request("GET", f"/v1/games/{game_id}/events", headers={"Authorization": f"Bearer {token}"} if token else {})
        response = connection.getresponse()
        assert response.status == 200
        self.ready += 1
        while True:
            line = response.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                seen = int(line[4:])
                if seen > version:
                    self.received[game_id].append(time.perf_counter())
                    version = seen

    def wait_until_ready(self, count: int, timeout: float = 120) -> None:
        deadline = time.perf_counter() + timeout
        while self.ready < count:
            if time.perf_counter() > deadline:
                raise RuntimeError(f"only {self.ready} of {count} waiters connected")
            gevent.sleep(0.1)
        gevent.sleep(1.0)  # let the last ones reach their wait

    def deliver(self, spacing: float) -> tuple[list[float], int]:
        """One action in each watched game; the delays from sending it to each waiter's receipt,
        and how many waiters received nothing within 5 s."""
        connection = Connection(self.url)
        sent: dict[str, float] = {}
        for game_id, tokens, _ in self.games:
            _, view = connection.call("GET", f"/v1/games/{game_id}")
            seat = view["to_act"][0]
            _, mine = connection.call("GET", f"/v1/games/{game_id}", token=tokens[seat])
            sent[game_id] = time.perf_counter()
            status, _ = connection.call("POST", f"/v1/games/{game_id}/actions", mine["legal_actions"][0], tokens[seat])
            assert status == 200
            gevent.sleep(spacing)
        gevent.sleep(5.0)
        connection.close()
        delays = [at - sent[game_id] for game_id, times in self.received.items() for at in times if at >= sent[game_id]]
        return delays, self.total - len(delays)

    @property
    def total(self) -> int:
        return len(self.group)

    def close(self, block: bool = False) -> None:
        self.group.kill(block=block, timeout=30 if block else None)


def stream_burst(url: str, count: int, games: int) -> tuple[dict[str, int], list[float], list[float]]:
    """``count`` event streams opened at once (from 250 addresses, as as many people), on
    ``games`` games between people, while a probe asks ``/healthz`` on new connections: how the
    streams were answered (status and problem code), the seconds each took to be answered, and the
    probe's latencies. The streams are closed after."""
    setup = Connection(url)
    game_ids = []
    for _ in range(games):
        _, created = setup.call("POST", "/v1/games", {"ruleset": "german-whist", "seats": [{"name": "north"}, {"name": "south"}]})
        game_ids.append(created["id"])
    setup.close()
    parts = urlsplit(url)
    outcomes: dict[str, int] = {}
    answered: list[float] = []
    connections: list[http.client.HTTPConnection] = []
    opened = gevent.event.Event()

    def open_stream(number: int) -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60, source_address=(Waiters.address(number), 0))
        connections.append(connection)
        opened.wait()
        started = time.perf_counter()
        Waiters.connected(connection)
        connection.request("GET", f"/v1/games/{game_ids[number % games]}/events")
        response = connection.getresponse()
        answered.append(time.perf_counter() - started)
        outcome = str(response.status)
        if response.status != 200:
            outcome += " " + json.loads(response.read()).get("code", "")
        outcomes[outcome] = outcomes.get(outcome, 0) + 1

    group = Group()
    for number in range(count):
        group.spawn(open_stream, number)
    probe: list[float] = []
    gevent.sleep(0.5)  # every stream's greenlet waiting for the start
    opened.set()
    until = time.perf_counter() + 5.0
    prober = gevent.spawn(probe_healthz, url, until, probe, [])
    group.join(timeout=60)
    prober.join()
    group.kill(block=False)
    for connection in connections:
        connection.close()
    return outcomes, answered, probe


#: how long the slow bodies go on before the figure is measured: their first burst (10,000
#: connections opened within a second) accepted, and held or cut
ATTACK_SETTLE_SECONDS = 20.0


class SlowBodies:
    """One client address holding ``count`` connections, each sending the headers of
    ``POST /v1/games`` with ``Content-Length: 100`` and one byte of the body, then nothing. A
    connection the server answers (408 at its deadline) or turns away (429 past the address's
    cap) is opened again after ``retry`` seconds (as the 429's ``Retry-After`` asks): the
    address keeps trying to hold them all."""

    HEAD = b"POST /v1/games HTTP/1.1\r\nHost: koz\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"

    def __init__(self, url: str, count: int, source: str, retry: float = 1.0) -> None:
        parts = urlsplit(url)
        self.server = (parts.hostname, parts.port)
        self.source = source
        self.retry = retry
        self.held = 0  # connections open now, their request sent
        self.answers: dict[str, int] = {}  # how the server ended the others: status line or reset
        self.group = Group()
        for number in range(count):
            self.group.spawn(self.hold)
            if number % 500 == 499:
                gevent.sleep(0.05)  # do not overflow this host's accept queues at once

    def hold(self) -> None:
        while True:
            outcome = "connect failed"
            try:
                with socket.create_connection(self.server, timeout=None, source_address=(self.source, 0)) as connection:
                    connection.sendall(self.HEAD)
                    self.held += 1
                    try:
                        answer = connection.recv(64)
                        outcome = answer.split(b"\r\n")[0].decode("latin-1")[9:12] if answer else "closed"
                    finally:
                        self.held -= 1
            except OSError as error:
                outcome = type(error).__name__
            self.answers[outcome] = self.answers.get(outcome, 0) + 1
            gevent.sleep(self.retry)

    def close(self) -> None:
        self.group.kill(block=False)


def attack_for(url: str, count: int, source: str, seconds: float) -> None:
    """Hold slow bodies for ``seconds``, then print what was held and how the server ended the
    others, as JSON: run in a process of its own (``--attack-only``), so that the attacker's
    greenlets do not delay the measuring clients' in this one."""
    attack = SlowBodies(url, count, source)
    gevent.sleep(seconds)
    held, answers = attack.held, attack.answers
    attack.close()
    print(json.dumps({"held": held, "answers": dict(sorted(answers.items()))}), flush=True)


# --- the server -----------------------------------------------------------------------------------


def raise_open_file_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def start_service(appendfsync: str, source: str | None = None, processes: int = 1) -> tuple[subprocess.Popen, str, str]:
    """``koz serve`` on a free port and a data directory of its own; ``source``: a checkout of
    Koz whose code it runs instead of the installed one (its dependencies must be installed);
    ``processes``: its web processes."""
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
    if source is not None:  # ahead of the installed (editable) package on the path, in every process it starts
        environment["PYTHONPATH"] = os.path.realpath(source)
    process = subprocess.Popen(
        [str(koz), "serve", "--port", str(port), "--processes", str(processes)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment,
        # its workers start with ``python -m``, which looks in the current directory first
        cwd=os.path.realpath(source) if source is not None else None,
        process_group=0,  # a Ctrl-C reaches the bench alone, which stops it in its cleanup
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if Connection(url).call("GET", "/readyz")[0] == 200:
                return process, url, data
        except OSError:
            pass
        time.sleep(0.1)  # not listening yet, or not ready (503): ask again
    process.terminate()  # (it stops what it started)
    process.wait(60)
    shutil.rmtree(data, ignore_errors=True)
    raise RuntimeError("koz serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8, help="load clients (default 8)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each load phase (default 10)")
    parser.add_argument("--waiters", type=int, default=2000, help="idle waiting clients, half long-polls, half streams (default 2000)")
    parser.add_argument("--watched-games", type=int, default=100, help="games the waiters watch (default 100)")
    parser.add_argument("--experts", type=int, default=20, help="games of expert computers thinking at once (default 20)")
    parser.add_argument("--slow-bodies", type=int, default=10000, help="connections the attacker holds with slow bodies (default 10000; 0: skip)")
    parser.add_argument("--attack-seconds", type=float, help="how long to measure during the slow bodies (default: --seconds)")
    parser.add_argument("--burst", type=int, default=2000, help="event streams opened at once (default 2000; 0: skip)")
    parser.add_argument("--attacker", default="127.0.0.2", help="the loopback address the slow bodies come from (default 127.0.0.2)")
    parser.add_argument("--url", help="a running service (default: start koz serve)")
    parser.add_argument(
        "--appendfsync",
        default="always",
        help="the embedded Redis's appendfsync, or several separated by commas to compare them in one run (default: always)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="instead: CPU per request of gunicorn+gevent alone, with Flask, Koz's /healthz and move, and boardgame.io's move (bench/floor.py)",
    )
    parser.add_argument("--peer", choices=["boardgameio"], help="instead: Koz against boardgame.io, same load, alternating (bench/boardgameio.py)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="with --peer, --floor, --waking or --guards: alternating rounds of --seconds each (default 3)"
    )
    parser.add_argument(
        "--cluster", action="store_true", help="instead: the actions on one Redis and on a 3-primary Redis Cluster, in one run (bench/fleet.py)"
    )
    parser.add_argument(
        "--level-games", type=int, default=2, help="with --cluster: games of two computers per level, for the worker's CPU per move (default 2)"
    )
    parser.add_argument(
        "--waking",
        action="store_true",
        help="instead: --waiters on --watched-games games, each game's on the seat not to act, then one action per game: "
        "the delay to each waiter, over --rounds rounds (e.g. --waiters 2000 --watched-games 20)",
    )
    parser.add_argument(
        "--guards",
        action="store_true",
        help="instead: actions/s with the request deadline and the per-address caps, and without them, alternating over --rounds rounds",
    )
    parser.add_argument(
        "--baseline", metavar="DIR", help="with --peer or --waking: also run the Koz of this checkout (e.g. a git worktree), alternating"
    )
    parser.add_argument("--attack-only", action="store_true", help=argparse.SUPPRESS)  # the attacker's own process (see attack_for)
    args = parser.parse_args()
    files = raise_open_file_limit()
    if args.attack_only:
        attack_for(args.url, args.slow_bodies, args.attacker, args.seconds)
        return
    stop_on_signals()
    if args.peer:
        from boardgameio import compare

        compare(args.clients, args.seconds, args.rounds, args.baseline)
        return
    if args.floor:
        from floor import compare as floor

        floor(args.clients, args.seconds, args.rounds)
        return
    if args.waking:
        waking(args.waiters, args.watched_games, args.rounds, args.baseline)
        return
    if args.guards:
        guards(args.clients, args.seconds, args.rounds)
        return
    if args.cluster:
        import fleet

        fleet.compare(args.clients, args.seconds, args.level_games)
        return
    if args.url is not None:
        report(measure(args, args.url, files), f"the service at {args.url}")
        return
    for appendfsync in args.appendfsync.split(","):
        process, url, data = start_service(appendfsync)
        load_before = os.getloadavg()[0]
        try:
            rows = measure(args, url, files, CpuMeter(process.pid, data))
        finally:
            process.terminate()
            process.wait(60)
            shutil.rmtree(data, ignore_errors=True)
        report(
            rows,
            f"koz serve (default: 1 web process, gevent; 1 worker; embedded Redis, appendfsync {appendfsync}), {os.cpu_count()} cores, "
            f"load average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after (the machine is shared)",
        )


def waking(count: int, games: int, rounds: int, baseline: str | None) -> None:
    """Each round, for each server in turn: ``count`` waiters on ``games`` games (half long-polls,
    half streams, each game's on one seat), one action per game (50 ms apart), and the delay from
    sending it to each waiter's receipt; p50/p99 over all rounds; and the CPU the server spent
    meanwhile (the actions, the waiters' wake-ups and the long-polls asking again) per waiter woken."""
    servers = {"Koz": start_service("always")}
    if baseline:
        servers[f"Koz at {baseline}"] = start_service("always", baseline)
    delays: dict[str, list[float]] = {name: [] for name in servers}
    missed = {name: 0 for name in servers}
    #: CPU seconds of the web process and of the whole server (web, worker, Redis) while delivering
    cpu = {name: {"web": 0.0, "server": 0.0} for name in servers}
    load_before = os.getloadavg()[0]
    try:
        for number in range(rounds):
            for name, (process, url, data) in servers.items():
                waiters = Waiters(url, count, games, on_seat=True)
                waiters.wait_until_ready(count)
                meter = CpuMeter(process.pid, data)
                before = meter.sample()
                found, lost = waiters.deliver(spacing=0.05)
                after = meter.sample()
                waiters.close(block=True)
                gevent.sleep(2.0)  # the server ends the closed connections before the next server's turn
                delays[name] += found
                missed[name] += lost
                spent = {kind: after[kind] - before[kind] for kind in ("web", "worker", "redis")}
                cpu[name]["web"] += spent["web"]
                cpu[name]["server"] += sum(spent.values())
                print(
                    f"  round {number + 1}, {name}: p99 {ms(percentile(found, 0.99))}, {lost} missed, "
                    f"web CPU {1000 * spent['web'] / max(1, len(found)):.2f} ms per waiter woken",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        for process, _, data in servers.values():
            process.terminate()
            process.wait(60)
            shutil.rmtree(data, ignore_errors=True)
    print(
        f"an action in each of {games} games, {count // games} waiters each (half streams, half long-polls, on one seat), {rounds} rounds, "
        f"{os.cpu_count()} cores, load average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after (the machine is shared)"
    )
    for name, found in delays.items():
        print(
            f"{name:<40} p50 {ms(percentile(found, 0.5))}, p99 {ms(percentile(found, 0.99))}, max {ms(max(found) if found else float('nan'))}, "
            f"{missed[name]} missed (target p99 <= 100 ms); CPU per waiter woken: web {1000 * cpu[name]['web'] / max(1, len(found)):.2f} ms, "
            f"server {1000 * cpu[name]['server'] / max(1, len(found)):.2f} ms"
        )


def unguarded_copy() -> str:
    """A copy of this checkout's ``service`` package whose web processes have no request
    deadline (the body read ahead within ``KOZ_REQUEST_SECONDS``) and no cap on connections per
    address: its worker class without the mixin that does both (``WholeRequests``)."""
    root = tempfile.mkdtemp(prefix="koz-unguarded-")
    shutil.copytree(Path(__file__).resolve().parents[1] / "service", Path(root) / "service")
    server = Path(root) / "service" / "http_server.py"
    guarded = "class KozGeventWorker(WholeRequests, ProblemErrors, GeventWorker)"
    text = server.read_text()
    if guarded not in text:
        raise RuntimeError(f"{server} no longer declares {guarded!r}: say here how to take the guards out")
    server.write_text(text.replace(guarded, "class KozGeventWorker(ProblemErrors, GeventWorker)"))
    return root


def guards(clients: int, seconds: float, rounds: int) -> None:
    """Actions per second (``clients`` clients against random computers, as in the main run) on
    two services side by side: this checkout as it is, and the same without the request deadline
    and the caps on connections and streams per address (:func:`unguarded_copy`, with
    ``KOZ_STREAMS_PER_ADDRESS=0``); a round of ``seconds`` on each in turn, ``rounds`` times. The
    ratio of each round's pair (run back to back, so under about the same load from the rest of
    the machine), and the median of the ratios; beside the rates, the web process's CPU per
    action, which the rest of the machine disturbs less."""
    copy = unguarded_copy()
    servers = {"with the deadline and caps": start_service("always")}
    os.environ["KOZ_STREAMS_PER_ADDRESS"] = "0"
    try:
        servers["without them"] = start_service("always", copy)
    finally:
        del os.environ["KOZ_STREAMS_PER_ADDRESS"]
    rates: dict[str, list[float]] = {name: [] for name in servers}
    #: the web process's CPU milliseconds per action, each round
    web_cpu: dict[str, list[float]] = {name: [] for name in servers}
    load_before = os.getloadavg()[0]
    try:
        for name, (_, url, _) in servers.items():  # warm-up: the worker's first decisions, the games' first deals
            run_clients(lambda number, until, latencies: action_client(url, until, number, latencies), clients, min(seconds, 3.0))
        for number in range(rounds):
            order = list(servers.items()) if number % 2 == 0 else list(reversed(servers.items()))
            for name, (process, url, data) in order:
                meter = CpuMeter(process.pid, data)
                before = meter.sample()
                rate, latencies = run_clients(lambda number, until, latencies: action_client(url, until, number, latencies), clients, seconds)
                rates[name].append(rate)
                web_cpu[name].append(1000 * (meter.sample()["web"] - before["web"]) / max(1, len(latencies)))
            (with_, without), (cpu_with, cpu_without) = ([measured[-1] for measured in kind.values()] for kind in (rates, web_cpu))
            print(
                f"  round {number + 1}: {with_:.0f}/s with, {without:.0f}/s without: {with_ / without:.3f}; "
                f"web CPU per action {cpu_with:.2f} ms with, {cpu_without:.2f} ms without",
                file=sys.stderr,
                flush=True,
            )
    finally:
        for process, _, data in servers.values():
            process.terminate()
            process.wait(60)
            shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(copy, ignore_errors=True)
    ratios = [with_ / without for with_, without in zip(*rates.values())]
    cpu_ratios = [with_ / without for with_, without in zip(*web_cpu.values())]
    print(
        f"POST action vs computer, {clients} clients, {rounds} alternating rounds of {seconds:.0f} s, {os.cpu_count()} cores, "
        f"load average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after (the machine is shared)"
    )
    for name, measured in rates.items():
        print(
            f"{name:<28} median {percentile(measured, 0.5):.0f}/s (rounds: {', '.join(f'{rate:.0f}' for rate in measured)}); "
            f"web CPU per action median {percentile(web_cpu[name], 0.5):.2f} ms"
        )
    print(f"with / without, per round: {', '.join(f'{ratio:.3f}' for ratio in ratios)}; median {percentile(ratios, 0.5):.3f} (target: no loss, 1.0)")
    print(
        f"web CPU per action, with / without, per round: {', '.join(f'{ratio:.3f}' for ratio in cpu_ratios)}; "
        f"median {percentile(cpu_ratios, 0.5):.3f}"
    )


def report(rows: list[tuple[str, str, str]], what: str) -> None:
    width = max(len(name) for name, _, _ in rows)
    print(what)
    for name, measured, target in rows:
        print(f"{name:<{width}}  {measured}  {target}")


def reference_requests(url: str, clients: int, seconds: float, meter: CpuMeter | None) -> list[tuple[str, float, str]]:
    """What the action's ratio is up against: requests that go through the same stack as an
    action but do less, (what, per second, CPU ms per request). An action reads its game, as
    the first does, and posts a body, as the second does; then it also writes, and waits for
    the computer's reply."""
    setup = Connection(url)
    _, created = setup.call("POST", "/v1/games", {"ruleset": "german-whist", "seats": [{"name": "north"}, {"name": "south"}]})
    setup.close()
    game_id, token = created["id"], created["tokens"][0]["token"]
    requests = {
        "GET a seat's view (one read of its game, no write)": ("GET", f"/v1/games/{game_id}", None, 200),
        "POST an action to an unknown game (one read, no write)": ("POST", "/v1/games/unknown/actions", {"type": "play", "card": "AS"}, 404),
    }

    def measured(method: str, path: str, body, expected: int) -> tuple[float, str]:
        client = lambda number, until, latencies: request_client(url, until, latencies, method, path, body, token, expected)  # noqa: E731
        rate, _, cpu = measured_run(client, clients, seconds, meter)
        return rate, cpu

    return [(what, *measured(*request)) for what, request in requests.items()]


def measure(args: argparse.Namespace, url: str, files: int, meter: CpuMeter | None = None) -> list[tuple[str, str, str]]:
    """Every figure, in turn, against the service at ``url``: (what, measured, target) rows."""
    rows: list[tuple[str, str, str]] = []

    def row(what: str, measured: str, target: str = "") -> None:
        rows.append((what, measured, target))
        print(f"  {what}: {measured}  {target}", file=sys.stderr, flush=True)

    clients, seconds = args.clients, args.seconds
    healthz = lambda number, until, latencies: healthz_client(url, until, latencies)  # noqa: E731
    paced_healthz = lambda number, until, latencies: healthz_client(url, until, latencies, 0.01)  # noqa: E731
    actions = lambda number, until, latencies: action_client(url, until, number, latencies)  # noqa: E731
    healthz_rate, healthz_latencies, healthz_cpu = measured_run(healthz, clients, seconds, meter)
    row(f"GET /healthz, {clients} clients", f"{healthz_rate:.0f}/s, p99 {ms(percentile(healthz_latencies, 0.99))}")
    run_clients(actions, clients, min(seconds, 3.0))  # warm-up: the worker's first decisions, the games' first deals
    action_rate, _, action_cpu = measured_run(actions, clients, seconds, meter)
    row(f"POST action vs computer, {clients} clients", f"{action_rate:.0f}/s = {action_rate / healthz_rate:.2f}x healthz", "(target >= 0.5x)")
    if meter:
        row("CPU ms per GET /healthz", healthz_cpu)
        row("CPU ms per POST action", action_cpu)
    for what, rate, cpu in reference_requests(url, clients, min(seconds, 5.0), meter):
        row(f"{what}, {clients} clients", f"{rate:.0f}/s = {rate / healthz_rate:.2f}x healthz" + (f"; CPU ms {cpu}" if cpu else ""))
    interval = clients / (action_rate / 2)
    half = lambda number, until, latencies: action_client(url, until, number, latencies, interval)  # noqa: E731
    half_rate, half_latencies = run_clients(half, clients, seconds)
    row(
        f"POST action at half load ({half_rate:.0f}/s)",
        f"p50 {ms(percentile(half_latencies, 0.5))}, p99 {ms(percentile(half_latencies, 0.99))}",
        f"(target p99 <= {ms(HALF_LOAD_P99_TARGET)})",
    )

    waiters = Waiters(url, args.waiters, args.watched_games)
    waiters.wait_until_ready(args.waiters)
    gc.freeze()  # the waiters' connections stay: keep the collector's full passes of this client short
    long_polls, streams = args.waiters // 2 + args.waiters % 2, args.waiters // 2
    row("idle waiters connected", f"{waiters.ready} ({long_polls} long-polls, {streams} streams; open-file limit {files})")
    waited_rate, waited_latencies = run_clients(actions, clients, seconds)
    row(
        f"POST action with {args.waiters} waiters, {clients} clients",
        f"{waited_rate:.0f}/s = {waited_rate / action_rate:.2f}x without, p99 {ms(percentile(waited_latencies, 0.99))}",
        "(target >= 0.8x)",
    )
    waited_half_rate, waited_half = run_clients(half, clients, seconds)
    row(
        f"POST action with {args.waiters} waiters at half load ({waited_half_rate:.0f}/s)",
        f"p50 {ms(percentile(waited_half, 0.5))}, p99 {ms(percentile(waited_half, 0.99))}",
        "(target p99 <= 50 ms)",
    )
    delays, missed = waiters.deliver(spacing=0.05)
    row(
        f"new version to each of {waiters.total} waiters (from sending the action)",
        f"p50 {ms(percentile(delays, 0.5))}, p99 {ms(percentile(delays, 0.99))}, max {ms(max(delays) if delays else float('nan'))}, "
        f"{sum(delay > 0.1 for delay in delays) + missed} over 100 ms or missed",
        "(target: all within 100 ms)",
    )
    waiters.close()

    if args.burst:
        outcomes, answered, probe = stream_burst(url, args.burst, args.watched_games)
        row(
            f"{args.burst} event streams opened at once",
            f"answered {dict(sorted(outcomes.items()))}, p99 within {ms(percentile(answered, 0.99))}; "
            f"GET /healthz meanwhile p99 {ms(percentile(probe, 0.99))}",
            "(target: no 503 storage_unavailable)",
        )

    if args.slow_bodies:
        attack_seconds = args.attack_seconds or seconds
        attack = subprocess.Popen(
            [sys.executable, __file__, "--attack-only", "--url", url, "--slow-bodies", str(args.slow_bodies), "--attacker", args.attacker,
             "--seconds", str(ATTACK_SETTLE_SECONDS + attack_seconds)],
            stdout=subprocess.PIPE,
        )
        gevent.sleep(ATTACK_SETTLE_SECONDS)
        healthz_under_attack, paced_actions = [], []
        paced = lambda number, until, latencies: action_client(url, until, number, latencies, interval)  # noqa: E731
        both = Group()
        until = time.perf_counter() + attack_seconds
        unanswered: list[float] = []
        both.spawn(probe_healthz, url, until, healthz_under_attack, unanswered)
        for number in range(clients):
            both.spawn(paced, number, until, paced_actions)
        both.join()
        try:  # a server that held every connection may leave the attacker's own loop slow to end
            ended = json.loads(attack.communicate(timeout=ATTACK_SETTLE_SECONDS + attack_seconds + 120)[0])
            held, answers = ended["held"], ended["answers"]
        except subprocess.TimeoutExpired:
            attack.kill()
            attack.wait()
            held, answers = "unknown", {"the attacker did not report": 1}
        row(
            f"while {args.attacker} holds {args.slow_bodies} slow bodies, from {ATTACK_SETTLE_SECONDS:.0f} s on "
            f"(held at the end: {held}; ended by the server: {answers})",
            f"GET /healthz p99 {ms(percentile(healthz_under_attack, 0.99))} ({len(unanswered)} unanswered within 10 s), "
            f"POST action ({len(paced_actions) / attack_seconds:.0f}/s of {clients / interval:.0f}/s) p99 {ms(percentile(paced_actions, 0.99))}",
            "(target both p99 <= 100 ms)",
        )

    _, quiet = run_clients(paced_healthz, 4, seconds)
    setup = Connection(url)
    for _ in range(args.experts):
        status, _ = setup.call("POST", "/v1/games", {"ruleset": "german-whist", "seats": [{"bot": "expert"}, {"bot": "expert"}]})
        assert status == 201
    setup.close()
    _, busy = run_clients(paced_healthz, 4, seconds)
    row(
        f"GET /healthz p99 while {args.experts} expert games think",
        f"{ms(percentile(busy, 0.99))} (nothing else going on: {ms(percentile(quiet, 0.99))})",
        "(target <= 50 ms)",
    )
    return rows


if __name__ == "__main__":
    main()
