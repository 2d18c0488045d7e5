"""A cluster client's slot-map reads (:mod:`service.slot_map`): the commands that fail while a
read is under way share the next one, in threads and in a gevent process alike, and a read keeps
the pooled connections; a node a command timed out on gets no other until the map changes or
the client's failover time has passed."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import gevent
import gevent.thread
import pytest

from service.slot_map import SlotMapReads


class Nodes:
    """What a slot-map read uses of redis-py's nodes manager: its primaries, by name."""

    primaries: list[SimpleNamespace] = []
    #: the nodes moved to the end of the ones a read asks, in order
    asked_last: list[str] = []

    def move_node_to_end_of_cached_nodes(self, name: str) -> None:
        self.asked_last = [*self.asked_last, name]

    def get_nodes_by_server_type(self, server_type: str) -> list[SimpleNamespace]:
        assert server_type == "primary"
        return self.primaries


class SlowNodes(Nodes):
    """A nodes manager whose read of the slot map lasts until ``release`` is set."""

    def __init__(self) -> None:
        self.reads: list[dict] = []
        self.reading = threading.Event()
        self.release = threading.Event()

    def initialize(self, additional_startup_nodes_info=None, disconnect_startup_nodes_pools=True) -> None:
        self.reads.append({"additional": additional_startup_nodes_info, "disconnect": disconnect_startup_nodes_pools})
        self.reading.set()
        assert self.release.wait(10)


def test_the_commands_that_fail_during_a_read_share_the_next_one_and_no_read_drops_connections():
    nodes = SlowNodes()
    reads = SlotMapReads(nodes)  # type: ignore[arg-type]  # what it uses of a nodes manager
    first = threading.Thread(target=reads)
    first.start()
    assert nodes.reading.wait(10)
    # twenty commands fail while that read is under way: it may have begun before they failed
    waiting = [threading.Thread(target=reads) for _ in range(20)]
    for thread in waiting:
        thread.start()
    nodes.release.set()
    for thread in [first, *waiting]:
        thread.join(10)
    assert len(nodes.reads) == 2
    assert all(read["disconnect"] is False for read in nodes.reads)
    reads([("127.0.0.1", 7001)])  # a failure after every read ended reads again, with what it was given
    assert len(nodes.reads) == 3 and nodes.reads[-1]["additional"] == [("127.0.0.1", 7001)]


class GreenNodes(Nodes):
    """A nodes manager whose read of the slot map waits for Redis as a gevent request does."""

    def __init__(self) -> None:
        self.reads = 0

    def initialize(self, additional_startup_nodes_info=None, disconnect_startup_nodes_pools=True) -> None:
        self.reads += 1
        gevent.sleep(0.02)  # the other requests of the process run meanwhile


def test_in_a_gevent_process_the_requests_wait_for_one_read_without_freezing_the_process(monkeypatch):
    """A web process's requests are greenlets of one thread: a native lock would not keep them
    apart (redis-py's own does not), or would freeze them all while one holds it. The lock is
    ``threading.Lock`` as the process has it: gevent's once gevent patched it."""
    monkeypatch.setattr("service.slot_map.threading", SimpleNamespace(Lock=gevent.thread.allocate_lock))
    nodes = GreenNodes()
    reads = SlotMapReads(nodes)  # type: ignore[arg-type]
    first = gevent.spawn(reads)
    while not nodes.reads:  # its read under way (where gevent patched time, its pause yields first)
        gevent.sleep(0.001)
    # 49 requests fail while that read is under way: it may have begun before they failed
    gevent.joinall([first, *(gevent.spawn(reads) for _ in range(49))], timeout=10, raise_error=True)
    assert nodes.reads == 2  # the first greenlet's read, and one for the 49 that waited for it


def test_a_forked_process_takes_a_lock_of_its_own(monkeypatch):
    reads = SlotMapReads(SlowNodes())  # type: ignore[arg-type]
    parents = reads._lock()
    assert reads._lock() is parents
    monkeypatch.setattr("service.slot_map.os.getpid", lambda: -1)  # as in a web process forked from the master
    assert reads._lock() is not parents


class FailingOverNodes(Nodes):
    """A nodes manager whose map names a new primary for the lost one's slots from its
    ``failover_after``-th read on."""

    def __init__(self, failover_after: int) -> None:
        self.reads = 0
        self.failover_after = failover_after
        self.primaries = [SimpleNamespace(name=name) for name in ("a:1", "b:2", "lost:3")]

    def initialize(self, additional_startup_nodes_info=None, disconnect_startup_nodes_pools=True) -> None:
        self.reads += 1
        if self.reads >= self.failover_after:
            self.primaries = [SimpleNamespace(name=name) for name in ("a:1", "b:2", "replica:4")]


def test_a_node_a_command_timed_out_on_gets_none_until_the_map_names_another_primary():
    nodes = FailingOverNodes(failover_after=3)
    reads = SlotMapReads(nodes, pace_seconds=0.01)  # type: ignore[arg-type]
    assert reads.wait_while_silent("lost:3", 5.0) is False  # nothing timed out on it: sent at once
    reads.went_silent("lost:3")
    assert reads.wait_while_silent("a:1", 5.0) is False  # the other nodes are not held back
    assert nodes.reads == 0
    # the next command for the lost node waits for the map that names its replica, and is then
    # to be sent where that map says
    assert reads.wait_while_silent("lost:3", 5.0) is True
    assert nodes.asked_last[:3] == ["lost:3"] * 3  # each of those reads asked it last
    assert nodes.reads == 3 and reads.primaries == ("a:1", "b:2", "replica:4")
    assert reads.wait_while_silent("lost:3", 5.0) is False  # forgotten once the map moved on


def test_a_node_that_timed_out_and_was_not_replaced_gets_commands_again_after_the_failover_time():
    nodes = FailingOverNodes(failover_after=10**9)  # a node slow for a moment: no failover
    reads = SlotMapReads(nodes, pace_seconds=0.01)  # type: ignore[arg-type]
    reads.went_silent("lost:3")
    assert reads.wait_while_silent("lost:3", 0.1) is False
    waited = nodes.reads
    assert waited >= 2  # it read the map meanwhile, and the time is over
    assert reads.wait_while_silent("lost:3", 0.1) is False and nodes.reads == waited  # now sent at once


class Clock:
    """A stand-in for the module's ``time``: sleeping moves it on, and each sleep is recorded."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_reads_of_the_map_begin_at_most_one_a_pace_apart_and_the_first_at_once(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("service.slot_map.time", clock)
    nodes = FailingOverNodes(failover_after=10**9)
    reads = SlotMapReads(nodes, pace_seconds=0.1)  # type: ignore[arg-type]
    reads()
    reads()  # right after: waits out the pace from the first read's beginning
    clock.now += 0.04
    reads()  # 0.04 s after the second began: waits the 0.06 s left
    clock.now += 0.5
    reads()  # long after: at once
    assert nodes.reads == 4 and reads.begun == reads.ended == 4
    assert clock.slept == pytest.approx([0.0, 0.1, 0.06, 0.0])
