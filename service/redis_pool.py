"""The Redis connections a web process shares: a request that finds them all taken waits its
turn, for as long as Redis is answering."""

from __future__ import annotations

import time
from typing import Any

from redis import BlockingConnectionPool, ConnectionError, RedisError

#: what redis-py's blocking pool raises when no connection came free within its timeout
_NONE_CAME_FREE = "No connection available."


class StorageBusy(RedisError):
    """More requests wait for a Redis connection than a process lets wait."""


class QueueingConnectionPool(BlockingConnectionPool):
    """A pool of at most ``max_connections`` connections, and a bounded queue of requests waiting
    for one.

    Waiting for a connection is not a storage failure: 2,000 event streams opened at once took
    the 64 connections of their process in turns, and those that waited more than the Redis
    timeout (2 s) for their turn answered 503 ``storage_unavailable`` while Redis was healthy.
    Here a request keeps its place for as long as Redis answers (some connection came back
    having answered within the last ``timeout`` seconds); when none has, Redis is not
    answering, and the request fails as one that waited for Redis itself would
    (``storage_unavailable``). Past ``max_queued`` requests waiting, a new one is refused at once
    (:class:`StorageBusy`)."""

    def __init__(self, *, max_queued: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # type: ignore[no-untyped-call]  # redis-py leaves its pools untyped
        self.max_queued = max_queued
        self.queued = 0
        #: when a connection last came back having answered
        self.answered_at = time.monotonic()

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        if self.queued >= self.max_queued:
            raise StorageBusy(f"{self.queued} requests wait for a Redis connection already")
        self.queued += 1
        try:
            while True:
                try:
                    return super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]
                except ConnectionError as error:
                    if str(error) != _NONE_CAME_FREE or time.monotonic() - self.answered_at > self.timeout:
                        raise
        finally:
            self.queued -= 1

    def release(self, connection: Any) -> None:
        # a command that failed (a timeout, a lost connection) leaves its connection disconnected
        if getattr(connection, "_sock", None) is not None:
            self.answered_at = time.monotonic()
        super().release(connection)  # type: ignore[no-untyped-call]
