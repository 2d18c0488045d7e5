"""A Redis Cluster client through the loss of a primary: its slot map read again at a steady
pace, once for every command that failed meanwhile, and a command on the lost primary's slots
held until the failover (within the Redis timeout) rather than failed at once; a node a command
timed out on (a machine cut off the network answers nothing) sent no other until the map names
another primary, and asked last for the map.

redis-py's cluster client (7.4) reads the slot map again (``CLUSTER SLOTS``) after every command
that failed on a lost or moved node, and drops the pooled connections of the node it read the map
from. Its own guard against reads made at once is a native lock, which does not keep the requests
of a gevent process (greenlets of one thread) apart. While a primary was lost, one web process
with 60 games in play made about 450 reads in 6 s and opened 440 connections, and its requests on
every node, not only the lost one's, took 1-2 s. Its retries come one right after the other: a
request that failed just before the failover answered 503, and its client tried again only after
a pause of its own; and a request held by retrying at once (tried first) kept a web process busy
with refused connections, so that its reads of the map took up to a second.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, TypeVar, cast

from redis.cluster import NodesManager, RedisCluster
from redis.exceptions import ClusterDownError, ConnectionError, MaxConnectionsError, SlotNotCoveredError, TimeoutError

from .metrics import SLOT_MAP_READS, InstrumentedRedisCluster

#: seconds between the beginnings of two reads of the slot map by one process, at least
READ_PACE_SECONDS = 0.1

Answer = TypeVar("Answer")


class SlotMapReads:
    """Takes the place of a cluster client's ``nodes_manager.initialize``: one read at a time in a
    process, on a lock of the process's kind (gevent's once the process is patched), at most one
    per ``READ_PACE_SECONDS``; a command that failed is answered by a read that began after its
    failure, either one it makes or one it waits for. A read keeps the pooled connections: it only
    asks for the map."""

    def __init__(self, nodes: NodesManager, pace_seconds: float = READ_PACE_SECONDS) -> None:
        self._nodes = nodes
        self._read = nodes.initialize
        self.pace_seconds = pace_seconds
        #: reads begun, and how many of them had ended when the last one ended
        self.begun = 0
        self.ended = 0
        self._last_began = -pace_seconds
        self._lock_of: tuple[int, Any] | None = None
        self.primaries = self._primaries()
        #: nodes a command timed out on: when, and the primaries of the map then
        self._silent: dict[str, tuple[float, tuple[str, ...]]] = {}

    @classmethod
    def install(cls, client: RedisCluster) -> "SlotMapReads":
        reads = cls(client.nodes_manager)
        client.nodes_manager.initialize = reads  # type: ignore[method-assign, assignment]  # every caller of the client's reads
        return reads

    def _primaries(self) -> tuple[str, ...]:
        """The primaries of the map as last read: a failover replaces one."""
        return tuple(sorted(node.name for node in self._nodes.get_nodes_by_server_type("primary")))

    def _lock(self) -> Any:
        # made in the process that uses it (not the master a web process forks from), after gevent
        # patched it: ``threading.Lock`` is looked up now
        if self._lock_of is None or self._lock_of[0] != os.getpid():
            self._lock_of = (os.getpid(), threading.Lock())
        return self._lock_of[1]

    def __call__(self, additional_startup_nodes_info: list[tuple[str, int]] | None = None, **_: Any) -> None:
        needed = self.begun + 1  # a read under way may have begun before this command failed
        with self._lock():
            if self.ended >= needed:
                return  # a read that began after the failure ended while this one waited
            time.sleep(max(0.0, self._last_began + self.pace_seconds - time.monotonic()))
            self.begun += 1
            self._last_began = time.monotonic()
            SLOT_MAP_READS.inc()
            for name in list(self._silent):
                # asked last: a map read waits out the whole timeout on a node that answers nothing
                self._nodes.move_node_to_end_of_cached_nodes(name)
            try:
                self._read(additional_startup_nodes_info, disconnect_startup_nodes_pools=False)
            finally:
                self.ended = self.begun
                self.primaries = self._primaries()

    def went_silent(self, name: str) -> None:
        """A command sent to node ``name`` timed out: it may be a machine cut off the network, whose
        port takes commands and answers none until its replica takes over."""
        self._silent[name] = (time.monotonic(), self.primaries)

    def wait_while_silent(self, name: str, silent_seconds: float) -> bool:
        """Before a command goes to node ``name``: if a command timed out on it less than
        ``silent_seconds`` ago and the map has not changed since, wait (reading the map at the
        pace) until it changes or that time is over. True if the map changed: the command is to
        be sent where the new map says, not to ``name``."""
        silent = self._silent.get(name)
        if silent is None:
            return False
        since, primaries = silent
        if time.monotonic() - since >= silent_seconds or self.primaries != primaries:
            self._silent.pop(name, None)  # (a worker's threads may both find it over)
            return False
        self.wait_for_change(primaries, since + silent_seconds)
        return self.primaries != primaries

    def wait_for_change(self, primaries: tuple[str, ...], deadline: float) -> None:
        """Until the map's primaries are no longer ``primaries`` (or ``deadline``): one read at a
        time goes to the cluster, and nothing else."""
        while self.primaries == primaries and time.monotonic() < deadline:
            self()


class FailoverRedisCluster(InstrumentedRedisCluster):
    """A cluster client whose command refused by a lost node (or by a cluster that is down) is
    held while ``failover_seconds`` have not passed since it began: tried again once after a fresh
    read of the slot map, then only once a read finds the primaries changed, so that it is answered
    as soon as the failover is done. A command that timed out is not tried again (its node is
    there but slow, and the write may have been made), nor one sent to nodes named by the caller."""

    failover_seconds = 0.0
    #: installed once the client is made (its making runs commands already)
    slot_map: SlotMapReads | None = None

    @classmethod
    def connect(cls, url: str, failover_seconds: float, **options: Any) -> "FailoverRedisCluster":
        client = cast(FailoverRedisCluster, cls.from_url(url, **options))
        client.failover_seconds = failover_seconds
        client.slot_map = SlotMapReads.install(client)
        return client

    def held(self, command: Callable[[], Answer]) -> Answer:
        """``command()``, held through a failover as this client's own commands are."""
        slot_map = self.slot_map
        if slot_map is None:
            return command()
        deadline = time.monotonic() + self.failover_seconds
        tries = 0
        while True:
            primaries = slot_map.primaries
            tries += 1
            try:
                return command()
            except MaxConnectionsError:
                raise
            except (ConnectionError, ClusterDownError, SlotNotCoveredError):
                if time.monotonic() >= deadline:
                    raise
                if tries == 1:
                    slot_map()  # a fresh map (a command that failed has asked for it already)
                else:
                    slot_map.wait_for_change(primaries, deadline)

    def execute_command(self, *args: Any, **options: Any) -> Any:
        if "target_nodes" in options:
            return super().execute_command(*args, **options)
        return self.held(lambda: super(FailoverRedisCluster, self).execute_command(*args, **options))

    def _execute_command(self, target_node: Any, *args: Any, **options: Any) -> Any:
        """One try of a command on ``target_node``, as redis-py makes up to its retries. A node a
        command just timed out on is not sent another until the map names a new primary or
        ``failover_seconds`` have passed: a command to a stopped machine waits out the whole
        timeout, and the map read after the first one, just before the election, still names it."""
        slot_map = self.slot_map
        if slot_map is not None and slot_map.wait_while_silent(target_node.name, self.failover_seconds):
            raise ConnectionError(f"{target_node.name} stopped answering, and the slot map has changed since")  # tried again where the map says
        try:
            return super()._execute_command(target_node, *args, **options)  # type: ignore[no-untyped-call]  # redis-py's is untyped
        except TimeoutError:
            if slot_map is not None:
                slot_map.went_silent(target_node.name)
            raise
