"""The worker: computer players move here, never in a web request.

A commit that leaves a computer seat to move records the game as due in its slot's due set, in
the commit's own script (see ``service/store.py``): on one Redis and on a Redis Cluster alike,
no game can be left with a computer to act and nothing saying so, whatever happens to the
process that committed. The same script publishes the game's id on its computer channel.

Workers hear those ids (one pattern subscription each) and claim the games: a claim moves the
game's score past a lease of ``job_claim_seconds``, so that one worker at a time makes its move,
and a worker that stops holding it lets it fall due again. The worker loads the game, lets the
computer whose turn it is decide from its seat's information only, and commits through the same
compare-and-set as a human's action; that commit records the next computer move if one is due
(or drops the entry), so games take turns on the workers instead of one match holding one. The
games of one round (up to :data:`BATCH`) are done together: read in one round trip and written
in one, so that under load a worker waits for Redis (and its sync to disk) once per round.

An announcement may be missed (a worker starting, a subscription lost, a node failing over), and
a lease may end: every :data:`SWEEP_SECONDS` one worker of the fleet (the first to take that
period's turn) also sweeps the due sets of the slots new games live in, and a share of all the
others, in one round trip per node. A worker that lost Redis with games claimed plays them as soon
as Redis answers again, rather than leave them for the end of their lease. Doing a move twice
cannot apply it twice: the second commit finds the version moved on and writes nothing.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from typing import Any

from redis.exceptions import RedisError

from .arena.arena import Arena
from .arena.matchmaker import PASS_SECONDS, Matchmaker
from .due import DUE_SLOT_COUNT, DUE_SPACING, SLOTS
from .games import Games

log = logging.getLogger(__name__)

#: games claimed at once
BATCH = 16
#: how long a worker waits for an announcement before it looks again
BLOCK_SECONDS = 2.0
#: how often a worker that lost Redis tries again
RETRY_SECONDS = 0.5
#: how often a worker sweeps the due sets for moves it was not told of
SWEEP_SECONDS = 1.0
#: the slots of other games a sweep looks at besides the slots of new games: all are seen once
#: every SLOTS / OTHER_SLOTS_PER_SWEEP sweeps
OTHER_SLOTS_PER_SWEEP = 64


class Worker:
    def __init__(
        self, games: Games, name: str | None = None, *, block_seconds: float = BLOCK_SECONDS, sweep_seconds: float = SWEEP_SECONDS
    ) -> None:
        self.games = games
        self.store = games.store
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.block_seconds = block_seconds
        self.sweep_seconds = sweep_seconds
        self.lease_seconds = games.settings.job_claim_seconds
        self._next_sweep = 0.0
        self._sweeps = 0
        #: the arena's pairing and settling, a pass every PASS_SECONDS by one worker of the fleet
        #: (sooner when a seek reaches its house_after)
        self.matchmaker = Matchmaker(Arena(games))
        self._next_arena = 0.0
        self._subscription: Any = None
        #: games claimed and not yet played: taken back at once, not at the end of their lease,
        #: if Redis went away meanwhile
        self._held: list[str] = []

    def run(self, stop: threading.Event) -> None:
        """Make computer moves until ``stop`` is set; a lost Redis is waited for, not fatal."""
        log.info("worker %s takes computer moves as they fall due", self.name)
        while not stop.is_set():
            try:
                self.work(block=True)
            except RedisError as error:
                # what it holds is played as soon as Redis answers again (or by another worker
                # once its lease ends, if this one stops)
                log.warning("worker %s: Redis unavailable (%s); trying again", self.name, type(error).__name__)
                self._unsubscribe()
                stop.wait(RETRY_SECONDS)
        self._unsubscribe()

    def work(self, block: bool = False) -> int:
        """Claim the games announced as due (waiting up to ``block_seconds`` for one when
        ``block``), and those a sweep finds when one is due; make their moves. How many games
        were claimed."""
        self._held += self.store.claim(self._announced(block), self.lease_seconds)
        if time.monotonic() >= self._next_sweep:
            self._held += self.sweep()
        if time.monotonic() >= self._next_arena:
            if self.matchmaker.take_turn(self.name, PASS_SECONDS):
                self._next_arena = time.monotonic() + PASS_SECONDS
                try:
                    self.matchmaker.run_pass()
                except RedisError:
                    raise
                except Exception:  # a pass that failed is made again by the next one: the moves go on
                    log.exception("worker %s: the arena's pass failed", self.name)
                self._pass_when_house_due()
            else:
                # another's turn: try again when it ends, which a pass for a seek's house_after may
                # have brought forward (by this worker too, its key's expiry a hair after this moment)
                self._next_arena = time.monotonic() + self.matchmaker.turn_left(PASS_SECONDS)
        return self._play()

    def _pass_when_house_due(self) -> None:
        """Make the next pass when a seek the last one left unpaired reaches its ``house_after``,
        if that comes before the period ends: it meets the house then, not up to a period later."""
        due = self.matchmaker.house_due
        if due is None:
            return
        delay = due - self.matchmaker.arena.timer()
        if delay < self._next_arena - time.monotonic():
            self._next_arena = time.monotonic() + max(0.0, delay)
            self.matchmaker.end_turn_at(due)

    def _play(self) -> int:
        """Make the moves of the games held; how many."""
        held = list(dict.fromkeys(self._held))  # a game claimed twice moves once
        if held:
            played = self.games.computers.play_computers(held)
            for game_id, version in played.idle.items():
                self.store.settle(game_id, version)
        self._held = []
        return len(held)

    def sweep(self, *, shared: bool = True) -> list[str]:
        """Claim the due moves in the slots of new games and in the next share of the others.
        ``shared``: only if no other worker swept in the last ``sweep_seconds`` (one sweep a
        period for the whole fleet, however many workers)."""
        self._next_sweep = time.monotonic() + self.sweep_seconds
        if shared and not self.store.take_sweep(self.name, self.sweep_seconds):
            return []
        start = self._sweeps * OTHER_SLOTS_PER_SWEEP % SLOTS
        self._sweeps += 1
        others = [slot for slot in range(start, start + OTHER_SLOTS_PER_SWEEP) if slot % DUE_SPACING]
        slots = [index * DUE_SPACING for index in range(DUE_SLOT_COUNT)] + others
        return self.store.claim_due(self.store.due_slots(slots, time.time()), self.lease_seconds, BATCH)

    def _announced(self, block: bool) -> list[str]:
        """The games announced as due since the last look (up to :data:`BATCH`)."""
        if self._subscription is None:
            self._subscription = self.store.redis.pubsub()
            self._subscription.psubscribe(self.store.computer_channel_pattern)
        timeout = max(0.0, min(self.block_seconds, self._next_sweep - time.monotonic(), self._next_arena - time.monotonic())) if block else 0.0
        games: list[str] = []
        while len(games) < BATCH:
            message = self._subscription.get_message(timeout=timeout if not games else 0.0)
            if message is None:
                break
            if message["type"] == "psubscribe":
                self._next_sweep = timeout = 0.0  # (re)subscribed: what was announced before is swept now
            elif message["type"] == "pmessage":
                data = message["data"]
                games.append(data.decode() if isinstance(data, bytes) else data)
        return games

    def _unsubscribe(self) -> None:
        if self._subscription is not None:
            try:
                self._subscription.close()
            except (RedisError, OSError):
                pass
            self._subscription = None

    def drain(self) -> int:
        """Make computer moves, and the arena's passes, until no move is due in the slots of new
        games and a pass finds nothing to do (tests); how many games were played (or found idle)."""
        done = 0
        while True:
            self._held += self.sweep(shared=False)
            if not self._held and not self.matchmaker.run_pass():
                return done
            while self._held:
                playing = list(dict.fromkeys(self._held))
                done += self._play()
                # the games whose computer is still due move on, without sweeping every slot again
                self._held += self.store.claim(playing, self.lease_seconds)


class WorkerThread:
    """A worker on a thread of this process: for the tests, where the app and the worker share
    one (fake) Redis."""

    def __init__(self, games: Games, name: str = "in-process") -> None:
        # announcements reach a thread of this process: the sweep, a net for a lost one, is
        # rare (on fakeredis a sweep of every due set costs more than most tests do)
        self.worker = Worker(games, name, block_seconds=0.2, sweep_seconds=SWEEP_SECONDS * 5)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.worker.run, args=(self.stop,), name="koz-worker", daemon=True)

    def __enter__(self) -> Worker:
        self.thread.start()
        return self.worker

    def __exit__(self, *exc_info: object) -> None:
        self.stop.set()
        self.thread.join(10)
