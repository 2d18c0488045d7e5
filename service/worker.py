"""The worker: computer players move here, never in a web request.

A commit that leaves a computer seat to move adds an entry naming the game to the stream
``<prefix>:computers`` (in the commit's own script). Workers read the stream as one Redis
Streams consumer group, so each entry goes to one worker; the worker loads the game, lets the
computer whose turn it is decide from its seat's information only, and commits through the same
compare-and-set as a human's action. That commit queues the next entry if another computer is to
move, so games take turns on the workers instead of one match holding one. The entries of one
read (up to :data:`BATCH`) are done together: their games read in one round trip and their moves
written in one, so that under load a worker waits for Redis (and its sync to disk) once per
batch, not once per move.

An entry is acknowledged (and deleted) only once it is done: by the script that writes its move
(so that the move and the acknowledgement reach Redis's append-only file in one sync), or, when
there was no move to write, with the worker's next read (an entry done again finds its move made). A worker that dies with entries in
hand leaves them pending in the group; another worker claims every entry pending longer than
``job_claim_seconds`` (XAUTOCLAIM) and does it. Doing an entry twice cannot apply a move twice:
the second commit finds the version moved on and writes nothing. A worker that lost Redis and
finds it again (restarted on its append-only file) takes back its own pending entries at once,
rather than leave them for a claim after ``job_claim_seconds``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

from redis.exceptions import RedisError, ResponseError

from .games import Games

log = logging.getLogger(__name__)

#: the consumer group of every worker
GROUP = "workers"
#: entries taken at once
BATCH = 16
#: how long a read waits for a new entry
BLOCK_SECONDS = 2.0
#: how often a worker that lost Redis tries again
RETRY_SECONDS = 0.5


class Worker:
    def __init__(self, games: Games, name: str | None = None, *, block_seconds: float = BLOCK_SECONDS) -> None:
        self.games = games
        self.store = games.store
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.block_ms = int(block_seconds * 1000)
        self.claim_ms = int(games.settings.job_claim_seconds * 1000)
        self._next_claim = 0.0
        #: entries done and not yet acknowledged: acknowledged with the next read
        self._done: list[bytes] = []
        #: entries this worker took and may not have done are read again before new ones
        self._taking_back = False

    def join_group(self) -> None:
        """Create the stream and its consumer group unless they exist; the entries this worker
        took before (and Redis kept, however it went away) are then done first."""
        try:
            self.store.redis.xgroup_create(self.store.jobs_key, GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise
        self._taking_back = True

    def run(self, stop: threading.Event) -> None:
        """Do entries until ``stop`` is set; a lost Redis is waited for, not fatal."""
        log.info("worker %s takes computer moves from %s", self.name, self.store.jobs_key)
        joined = False
        while not stop.is_set():
            try:
                if not joined:
                    self.join_group()
                    joined = True
                self.work(block=True)
            except RedisError as error:
                self._done = []  # left pending: done again, harmlessly, once claimed
                log.warning("worker %s: Redis unavailable (%s); trying again", self.name, type(error).__name__)
                joined = False
                stop.wait(RETRY_SECONDS)
        try:
            self._acknowledge()
        except RedisError:
            pass  # left pending: done again, harmlessly, once claimed

    def _acknowledge(self) -> None:
        if self._done:
            with self.store.redis.pipeline(transaction=False) as pipe:
                pipe.xack(self.store.jobs_key, GROUP, *self._done)
                pipe.xdel(self.store.jobs_key, *self._done)
                pipe.execute()
            self._done = []

    def work(self, block: bool = False) -> int:
        """Take entries (first this worker's own that it took before it lost Redis, then any a
        dead worker left pending too long, then new ones) and do them; how many were done.
        ``block`` waits up to ``block_seconds`` for a new entry (less than the Redis client's
        socket timeout)."""
        entries = self._take_back() if self._taking_back else []
        if not entries:
            entries = self._claim_abandoned()
        if not entries:
            entries = self._acknowledge_and_read(block)
        jobs: dict[str, list[bytes]] = {}  # a game named twice moves once
        for entry_id, fields in entries:
            game = (fields or {}).get(b"game")
            if game is None:
                self._done.append(entry_id)
            else:
                jobs.setdefault(game.decode(), []).append(entry_id)
        if jobs:
            # together: one read and one write for the batch; the write acknowledges the jobs
            # it does, and the others are acknowledged with the next read
            played = self.games.computers.play_computers(list(jobs), (GROUP, jobs))
            self._done += [entry_id for game, ids in jobs.items() if game not in played.acknowledged for entry_id in ids]
        return len(entries)

    def _acknowledge_and_read(self, block: bool, start: str = ">") -> list:
        """One round trip: acknowledge (and delete) the entries done, and read new ones (from
        ``start`` "0": this worker's own pending ones, which are done and so acknowledged before
        the next such read)."""
        with self.store.redis.pipeline(transaction=False) as pipe:
            if self._done:
                pipe.xack(self.store.jobs_key, GROUP, *self._done)
                pipe.xdel(self.store.jobs_key, *self._done)
            pipe.xreadgroup(GROUP, self.name, {self.store.jobs_key: start}, count=BATCH, block=self.block_ms if block else None)
            read = pipe.execute()[-1]
        self._done = []
        return read[0][1] if read else []

    def _take_back(self) -> list:
        entries = self._acknowledge_and_read(block=False, start="0")
        if entries:
            log.info("worker %s took back %d computer moves it had taken before it lost Redis", self.name, len(entries))
        else:
            self._taking_back = False
        return entries

    def drain(self) -> int:
        """Do entries until none is left (tests, and a worker asked to finish what is queued)."""
        self.join_group()
        done = 0
        while count := self.work():
            done += count
        return done

    def _claim_abandoned(self) -> list:
        now = time.monotonic()
        if now < self._next_claim:
            return []
        self._next_claim = now + self.claim_ms / 2000
        claimed = self.store.redis.xautoclaim(self.store.jobs_key, GROUP, self.name, min_idle_time=self.claim_ms, count=BATCH)
        entries = claimed[1]
        if entries:
            log.info("worker %s took over %d computer moves left by a stopped worker", self.name, len(entries))
        return entries


class WorkerThread:
    """A worker on a thread of this process: for the tests, where the app and the worker share
    one (fake) Redis."""

    def __init__(self, games: Games, name: str = "in-process") -> None:
        self.worker = Worker(games, name, block_seconds=0.2)
        self.worker.join_group()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.worker.run, args=(self.stop,), name="koz-worker", daemon=True)

    def __enter__(self) -> Worker:
        self.thread.start()
        return self.worker

    def __exit__(self, *exc_info) -> None:
        self.stop.set()
        self.thread.join(10)
