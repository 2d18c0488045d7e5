"""The ``koz`` command: ``koz serve`` runs the service, ``koz openapi`` writes its document."""

from __future__ import annotations

import argparse
import json
import logging
import os
import select
import signal
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication
from prometheus_client import multiprocess
from redis import Redis

from engine.players import level_names

from . import bot, logs
from .arena import bot as arena_bot
from .app import create_app, game_store, redis_client
from .timeouts import run as run_timeouts
from .config import Settings
from .embedded import DataInUse, EmbeddedRedis
from .http_server import SETTINGS, SupervisingArbiter
from .lifetime import ending_with_this_thread
from .games import Games
from .verify import load_history, verify
from .worker import BLOCK_SECONDS, Worker

#: the start of the name of the folder where a ``koz serve``'s web processes count their metrics
METRICS_PREFIX = "koz-metrics-"

log = logging.getLogger("koz")

DEFAULT_OPENAPI_PATH = Path("openapi") / "openapi.json"
#: how long ``koz serve`` waits for its workers to be ready before it serves anyway
WORKER_START_SECONDS = 60.0


class Server(BaseApplication):  # type: ignore[misc]  # gunicorn has no type information
    """gunicorn, run in-process: gevent workers forked from a master that owns the app and
    supervises the embedded Redis."""

    def __init__(self, app: Flask, options: dict[str, Any]) -> None:
        self.application = app
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in {**SETTINGS, **self.options}.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        return self.application

    def run(self) -> None:
        arbiter = SupervisingArbiter(self)
        embedded = self.application.extensions.get("koz_embedded")
        arbiter.supervise = embedded.supervise if embedded is not None else None
        arbiter.run()


class WorkerProcesses:
    """``koz worker`` processes beside the web server, started again if one stops. Each is
    started by a thread of its own that lives as long as the service, and is killed by the kernel
    when that thread ends, with the service's process however it ends."""

    def __init__(self, count: int, redis_url: str) -> None:
        self.count = count
        self.environment = {**os.environ, "REDIS_URL": redis_url}
        self.processes: list[subprocess.Popen[bytes]] = []
        self.stopping = threading.Event()
        #: set for each worker once its first process is ready to take jobs
        self.ready = [threading.Event() for _ in range(count)]

    def start(self) -> None:
        for number in range(self.count):
            threading.Thread(target=self._keep_running, args=(number,), name=f"koz-worker-{number}", daemon=True).start()

    def wait_ready(self, timeout: float) -> bool:
        """Whether every worker is ready to take jobs within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        return all(ready.wait(max(0.0, deadline - time.monotonic())) for ready in self.ready)

    def _keep_running(self, number: int) -> None:
        while not self.stopping.is_set():
            ready_read, ready_write = os.pipe()
            try:
                process = subprocess.Popen(
                    [sys.executable, "-m", "service.cli", "worker", "--with-parent", "--ready-fd", str(ready_write)],
                    env=self.environment,
                    pass_fds=(ready_write,),
                    # nothing is lost: a move under way is left pending, and done again by the next worker
                    preexec_fn=ending_with_this_thread(signal.SIGKILL),
                )
            finally:
                os.close(ready_write)
            self.processes.append(process)
            if said_ready(process, ready_read):
                self.ready[number].set()
            process.wait()
            self.processes.remove(process)
            if not self.stopping.is_set():
                log.warning("koz worker %s stopped (%s); starting it again", process.pid, process.returncode)
                self.stopping.wait(1.0)

    def stop(self) -> None:
        self.stopping.set()
        for process in list(self.processes):
            process.terminate()
        for process in list(self.processes):
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def use_redis_url(args: argparse.Namespace) -> None:
    """``--redis-url`` stands for ``REDIS_URL``, here and in the workers started from here."""
    if args.redis_url:
        os.environ["REDIS_URL"] = args.redis_url


def share_metrics(args: argparse.Namespace) -> None:
    """Several web processes count into one directory (prometheus_client's multiprocess mode),
    so that ``/metrics`` from any of them tells the whole server's story. prometheus_client
    reads ``PROMETHEUS_MULTIPROC_DIR`` when it is imported: without it, ``koz serve`` makes a
    directory of its own and starts again (the same process) with it set."""
    if args.processes <= 1 or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    directory = own_metrics_folder()
    shutil.rmtree(directory, ignore_errors=True)  # a killed service's of the same process id: its counts must not add up with these
    directory.mkdir()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
    os.execv(sys.executable, [sys.executable, "-m", "service.cli", *args.argv])


def own_metrics_folder() -> Path:
    """The folder ``koz serve`` makes for its web processes' metrics, named by its process
    (which keeps its id when it starts again with the folder set); removed when it stops."""
    return Path(tempfile.gettempdir()) / f"{METRICS_PREFIX}{os.getpid()}"


def remove_metrics_of_killed_services() -> None:
    """Remove the metrics folders of services that are gone: a service killed with SIGKILL
    could not remove its own."""
    for folder in Path(tempfile.gettempdir()).glob(f"{METRICS_PREFIX}*"):
        owner = folder.name.removeprefix(METRICS_PREFIX)
        if owner.isdigit() and not process_alive(int(owner)) and folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def forget_process(_server: Any, worker: Any) -> None:
    """A web process that ended leaves its live gauges (clients waiting) out of the sums."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)


def said_ready(process: subprocess.Popen[bytes], ready_read: int) -> bool:
    """Whether ``process`` wrote that it is ready, rather than end first. (Its end is watched too:
    a web process forked meanwhile may hold the pipe's other end open.)"""
    with os.fdopen(ready_read, "rb") as ready:
        while not select.select([ready], [], [], 1.0)[0]:
            if process.poll() is not None:
                return False
        return bool(ready.read(1))


def serve(args: argparse.Namespace) -> None:
    use_redis_url(args)
    remove_metrics_of_killed_services()
    share_metrics(args)
    settings = Settings.from_env()
    service = os.getpid()
    embedded = None
    if not settings.redis_url:
        try:
            embedded = EmbeddedRedis(settings.data_dir, appendfsync=settings.redis_appendfsync, maxmemory=settings.redis_maxmemory)
        except DataInUse as error:
            raise SystemExit(f"koz serve: {error}") from None
    workers = WorkerProcesses(args.workers, embedded.url if embedded is not None else settings.redis_url or "")
    try:
        # the workers start first, and the app is made while they start: the first request must
        # not wait for a worker to come up
        workers.start()
        app = create_app(settings, embedded=embedded)
        if workers.wait_ready(WORKER_START_SECONDS):
            log.info("%d koz worker(s) ready", args.workers)
        else:
            log.warning("a koz worker is not ready after %.0f s; serving without waiting for it", WORKER_START_SECONDS)
        kind = "the Redis Cluster of node" if settings.redis_cluster else "Redis at"
        where = f"{kind} {settings.redis_url}" if settings.redis_url else f"an embedded Redis (data in {settings.data_dir}/)"
        log.info("Koz on http://%s:%s with %s and %d worker(s)", args.host, args.port, where, args.workers)
        options = {
            "bind": f"{args.host}:{args.port}", "workers": args.processes, "worker_connections": args.connections, "child_exit": forget_process,
        }
        Server(app, options).run()
    finally:
        # however gunicorn's master ends (SIGTERM and SIGINT stop the web processes first), the
        # workers stop, then the embedded Redis, once no process uses it. A web process forked
        # from the master leaves through here too: it owns none of them
        if os.getpid() == service:
            workers.stop()
            if embedded is not None:
                embedded.stop()
            if os.environ.get("PROMETHEUS_MULTIPROC_DIR") == str(own_metrics_folder()):  # not one an operator named
                shutil.rmtree(own_metrics_folder(), ignore_errors=True)


def work(args: argparse.Namespace) -> None:
    use_redis_url(args)
    settings = Settings.from_env()
    if not settings.redis_url:
        raise SystemExit("koz worker needs REDIS_URL (or --redis-url): the Redis of the service it works for")
    os.nice(settings.worker_niceness)  # background work: requests on the same machine come first
    # its reads block up to BLOCK_SECONDS for a new job: the socket waits that long more
    redis = redis_client(
        settings.redis_connect_timeout, settings.redis_timeout + BLOCK_SECONDS, url=settings.redis_url, cluster=settings.redis_cluster
    )
    games = Games(game_store(redis, settings), settings)
    stop = threading.Event()
    for stop_signal in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop_signal, lambda *_: stop.set())  # finish the move under way, then exit
    if args.with_parent:  # also where the kernel does not stop it with its parent (service.lifetime)
        threading.Thread(target=stop_with_parent, args=(os.getppid(), stop), daemon=True).start()
    # the turn clocks are checked here too: a timeout is one compare-and-set, so several workers
    # checking the same deadline apply it once
    threading.Thread(target=run_timeouts, args=(games, stop), name="koz-timeouts", daemon=True).start()
    if args.ready_fd is not None:
        os.write(args.ready_fd, b"1")
        os.close(args.ready_fd)
    Worker(games).run(stop)


def stop_with_parent(parent: int, stop: threading.Event) -> None:
    """Set ``stop`` once the process that started this one is gone, however it ended."""
    while not stop.wait(1.0):
        if os.getppid() != parent:
            log.warning("the process that started this worker stopped; stopping")
            stop.set()


def json_object(text: str) -> dict[str, Any]:
    """An option's value given as a JSON object (the server judges its fields)."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not JSON: {error}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("a JSON object is needed, as a game's options are")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def play_seat(args: argparse.Namespace) -> None:
    if args.arena is not None:
        if args.key is None or args.game_id is not None:
            sys.exit("koz bot --arena RULESET takes --key KEY, and no game or token")
        sys.exit(
            arena_bot.run(
                args.url,
                args.key,
                args.arena,
                args.level,
                args.house_after,
                args.matches,
                rated=not args.unrated,
                options=args.options,
                work=args.work,
                partner=args.partner,
                socket=args.socket,
            )
        )
    if args.game_id is None or args.token is None:
        sys.exit("koz bot takes a game and its seat's token (or --arena RULESET --key KEY)")
    sys.exit(bot.run(args.url, args.game_id, args.token, args.level, args.work, socket=args.socket))


def write_openapi(args: argparse.Namespace) -> None:
    logging.getLogger("koz.requests").setLevel(logging.WARNING)  # the document is fetched in-process, not served
    document = openapi_document()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(document)
    print(f"wrote {args.output}")


def openapi_document() -> str:
    """The OpenAPI document as committed: sorted keys, two-space indents, a final newline."""
    app = create_app(Settings(redis_url="redis://unused"), redis=Redis())  # serving the document needs no Redis
    spec = app.test_client().get("/openapi.json").get_json()
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def verify_history(args: argparse.Namespace) -> None:
    try:
        history = load_history(args.history)
    except (OSError, ValueError) as error:
        print(f"FAIL: {error}")
        sys.exit(2)
    problems = verify(history)
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        sys.exit(1)
    print("OK: the history is whole, the seed matches its commitment, and every deal and event replays from it")


def main(argv: list[str] | None = None) -> None:
    logs.configure()
    parser = argparse.ArgumentParser(prog="koz", description="Koz: trick-taking card games as a service")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser(
        "serve", help="run the HTTP service and a worker beside it (embedded Redis unless REDIS_URL is set)"
    )
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument("--processes", type=int, default=1, help="web processes (default 1)")
    serve_parser.add_argument("--connections", type=int, default=10000, help="open connections per web process (default 10000)")
    serve_parser.add_argument("--workers", type=int, default=1, help="koz worker processes beside the web server (default 1; 0 for none)")
    serve_parser.add_argument("--redis-url", help="the Redis to keep games in (as REDIS_URL; default: an embedded one)")
    serve_parser.set_defaults(run=serve)
    worker_parser = commands.add_parser(
        "worker", help="make the computer players' moves and enforce the turn clocks (needs REDIS_URL or --redis-url)"
    )
    worker_parser.add_argument("--with-parent", action="store_true", help="stop when the process that started it stops (as koz serve starts it)")
    worker_parser.add_argument("--redis-url", help="the Redis of the service it works for (as REDIS_URL)")
    worker_parser.add_argument("--ready-fd", type=int, help="write a byte to this file descriptor once ready to take jobs (as koz serve starts it)")
    worker_parser.set_defaults(run=work)
    openapi_parser = commands.add_parser("openapi", help="write the OpenAPI document")
    openapi_parser.add_argument("--output", type=Path, default=DEFAULT_OPENAPI_PATH)
    openapi_parser.set_defaults(run=write_openapi)
    verify_parser = commands.add_parser(
        "verify", help="check the history of a match that is over: whole, the seed against its commitment, every event and deal replayed"
    )
    verify_parser.add_argument(
        "history",
        help="the game's URL (http://host/v1/games/{id}: every page of its history is read), or a JSON file with every page's events",
    )
    verify_parser.set_defaults(run=verify_history)
    bot_parser = commands.add_parser(
        "bot", help="play one seat of a game on a Koz server with a computer player, or (--arena) every match an account's seeks start"
    )
    bot_parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    bot_parser.add_argument("game_id", nargs="?", help="the game (not with --arena)")
    bot_parser.add_argument("token", nargs="?", help="the seat's token (not with --arena)")
    bot_parser.add_argument("--level", choices=level_names(), help="the computer level (default: the game's standard level)")
    bot_parser.add_argument("--arena", metavar="RULESET", help="seek matches of this ruleset in the arena and play each one, until stopped")
    bot_parser.add_argument("--key", help="the account's key (with --arena)")
    bot_parser.add_argument("--house-after", type=float, help="with --arena: play Koz's house players after waiting this many seconds")
    bot_parser.add_argument("--unrated", action="store_true", help="with --arena: seek unrated matches")
    bot_parser.add_argument("--matches", type=int, help="with --arena: stop after this many matches (default: never)")
    bot_parser.add_argument(
        "--options", type=json_object, default={}, help="with --arena: the match options to seek, as a JSON object (those of POST /v1/games)"
    )
    bot_parser.add_argument("--partner", metavar="NAME", help="with --arena: sit beside this account (which seeks beside this one) as one side")
    bot_parser.add_argument(
        "--work",
        type=positive_int,
        help="think by a count of this much work a decision rather than by the clock: a decision repeats, however busy the machine",
    )
    bot_parser.add_argument(
        "--socket",
        action="store_true",
        help="play over each game's WebSocket (/v1/games/{id}/play): one connection a game, no request a move",
    )
    bot_parser.set_defaults(run=play_seat)
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    args.run(args)


if __name__ == "__main__":
    main(sys.argv[1:])
