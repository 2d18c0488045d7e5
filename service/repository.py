"""Where games are read and committed: load, change, commit, as one compare-and-set each.

:class:`Repository` reads a game from the store into a :class:`~service.game.Game` (handing it the
time of the request and the cap on a match's length), applies a change to it and commits what
changed in one compare-and-set, retrying when another request moved first. It keeps the
process's read caches (the versions announced, the action logs) and the stored format of a game
(its setup, written once, and its snapshot).
"""

from __future__ import annotations

import bisect
import json
import threading
import time
from collections import OrderedDict
from dataclasses import asdict
from typing import Any, Callable, Mapping, Sequence, TypeVar, cast

import orjson
from redis.exceptions import ResponseError

from engine import Action, Event, RuleError, Ruleset, registry

from .announcements import Announcements, Committed
from .config import Settings
from .refusals import Refused
from .game import DealBase, Game, SeatRecord, check_presentable
from .replay import ReplayCache
from .shared import Rendered, SharedRenders
from .store import Commit, GameStore, Legacy, Prepared, Stored, unpack
from .waiting import after_computers

T = TypeVar("T")

#: how often a change is retried when other requests keep changing the game first
MAX_ATTEMPTS = 8
#: games whose last announced version a process keeps, for the requests waiting on them
ANNOUNCED_KEPT = 1024
#: new games are refused once Redis uses this share of its ``maxmemory``: the rest is kept for
#: the games already running, which Redis would refuse to write to once it is full
CREATION_MEMORY_SHARE = 0.9
#: seconds a reading of Redis's memory use is trusted for
MEMORY_READING_SECONDS = 1.0


# --- the stored format ---------------------------------------------------------------------


def game_from_stored(game_id: str, stored: Stored, *, now: float, length_cap: tuple[int, int] | None, state: Any = None) -> Game:
    """``state``: the engine's state the snapshot holds, when the caller has it loaded already."""
    setup, snapshot = stored.setup, stored.snapshot
    ruleset = registry.get(setup["ruleset"])
    return Game(
        game_id,
        ruleset,
        setup["options"],
        [SeatRecord(**seat) for seat in setup["seats"]],
        ruleset.load(snapshot["state"]) if state is None else state,
        seed=setup["seed"],
        version=stored.version,
        stored_version=stored.version,
        created_at=setup["created_at"],
        log_length=snapshot["log_length"],
        deal_base=DealBase(**snapshot["deal_base"]) if snapshot.get("deal_base") else None,
        abandonment=snapshot.get("abandoned"),
        seat_events=snapshot.get("seats"),
        seed_source=setup.get("seed_source", "unknown"),
        clock=setup.get("clock"),
        turn=snapshot.get("turn"),
        salt=setup.get("salt"),
        host=setup.get("host"),
        arena=setup.get("arena", False),
        now=now,
        length_cap=length_cap,
    )


def setup_of(game: Game) -> dict[str, Any]:
    """What a game is made of besides its actions; written once, when it is created."""
    return {
        "ruleset": game.ruleset.id,
        "options": game.options,
        "seats": [seat.to_json() for seat in game.initial_seats],
        "seed": game.seed,
        "seed_source": game.seed_source,
        "created_at": game.created_at,
        **({"clock": game.clock} if game.clock else {}),
        **({"salt": game.salt} if game.salt else {}),
        **({"host": game.host} if game.host else {}),
        **({"arena": True} if game.arena else {}),
    }


def snapshot_of(game: Game) -> dict[str, Any]:
    """The state now, and what the next request needs beside it; once the match is over, only
    the final state, how it ended and the clocks' banks as they were left (the log keeps the rest)."""
    snapshot: dict[str, Any] = {"state": game.ruleset.dump(game.state), "log_length": game.log_length}
    if game.abandonment is not None:
        snapshot["abandoned"] = game.abandonment
    if game.seat_events:
        snapshot["seats"] = game.seat_events
    if game.turn is not None:
        snapshot["turn"] = game.turn
    if not game.over:
        snapshot["deal_base"] = game.deal_base.to_json() if game.deal_base else None
    return snapshot


def upgrade(game_id: str, legacy: Legacy, history: Sequence[tuple[int, Mapping[str, Any]]], *, now: float) -> Game:
    """A game stored before the action log, rebuilt from its actions: replayed from its seed,
    it must come out as stored, else it is refused (the rules changed since it was played)."""
    record = legacy.record
    ruleset = registry.get(record["ruleset"])
    seats = [SeatRecord(**seat) for seat in record["seats"]]
    game = Game.new(game_id, ruleset, record["options"], seats, record["seed"], now=now, length_cap=None, created_at=record["created_at"])
    unreadable = Refused(
        "game_unreadable",
        "game_unreadable",
        params={"game": repr(game_id)},
    )
    try:
        for version, entry in history:
            if entry["data"]["type"] == "action":
                game.act(entry["data"]["seat"], Action.from_json(entry["data"]["action"]))
            elif entry["data"]["type"] == "abandoned":  # the service's word, not the engine's
                game.abandonment = {"version": version, "event": entry["data"]}
    except RuleError:
        raise unreadable from None
    if game.version != legacy.version or json.loads(json.dumps(ruleset.dump(game.state))) != record["state"]:
        raise unreadable
    return game


def _action_version(number: int, own: Sequence[int]) -> int:
    """The version of the ``number``-th action, when the versions ``own`` (sorted) went to the service's events."""
    version = number
    for taken in own:
        if taken <= version:
            version += 1
    return version


def log_key(game: Game) -> tuple[str, str]:
    """What names a game's log among the copies a process keeps: its id and setup (an id may come
    back as another game)."""
    return (game.id, f"{game.seed}@{game.created_at}")


class Repository:
    """Every game read and every change committed, as one compare-and-set on the store."""

    def __init__(self, store: GameStore, settings: Settings, timer: Callable[[], float] = time.time) -> None:
        self.store = store
        self.settings = settings
        #: the time now, in seconds of the epoch: what turn clocks are read against (tests inject one)
        self.timer = timer
        self.announcements = Announcements(store)
        #: the last version read after an announcement, per game (insertion order: oldest first)
        self._announced: OrderedDict[str, Stored] = OrderedDict()
        #: the last action log read or written, per game (:func:`log_key`), as a rendering whose
        #: version is its length
        self._logs: SharedRenders[bytes] = SharedRenders(ANNOUNCED_KEPT)
        #: the reads of the store under way after an announcement, per game
        self._reading: dict[str, threading.Event] = {}
        self._memory_read_at = float("-inf")
        self._memory_share = 0.0
        self.replays = ReplayCache(settings.replays_kept)
        #: called with each change this process commits, once written and before the requests
        #: waiting on the game here are woken: what they will want of it may be made at hand
        self.on_written: list[Callable[[Game], None]] = []

    @property
    def length_cap(self) -> tuple[int, int]:
        """The cap on a match's length, (deals, versions): a match past it ends abandoned."""
        return (self.settings.max_deals, self.settings.max_versions)

    def from_stored(self, game_id: str, stored: Stored, state: Any = None) -> Game:
        """The game as stored, as this request sees it (now, and under the length cap);
        ``state``: its engine state, when already loaded."""
        return game_from_stored(game_id, stored, now=self.timer(), length_cap=self.length_cap, state=state)

    def new_game(
        self,
        ruleset: Ruleset[Any],
        options: dict[str, Any],
        records: list[SeatRecord],
        seed: str,
        seed_source: str,
        clock: Mapping[str, Any] | None,
        game_id: str | None = None,
        host: str | None = None,
        arena: bool = False,
    ) -> Game:
        """A new game (not stored yet), under ``game_id`` or a fresh id."""
        return Game.new(
            game_id or self.store.new_game_id(), ruleset, options, [SeatRecord(**asdict(seat)) for seat in records], seed, seed_source,
            clock=dict(clock) if clock else None, now=self.timer(), length_cap=self.length_cap, host=host, arena=arena,
        )

    def load_announced(self, game_id: str, version: int) -> Game | None:
        """The game at ``version`` or later, for the requests an announcement of ``version``
        woke: they share one read of the store (a spectator's stream, a table's long-polls), so
        that a commit costs one read per process, not one per waiter. None if the game is gone."""
        for _ in range(2):
            stored = self._announced.get(game_id)
            if stored is not None and stored.version >= version:
                return self.from_stored(game_id, stored)
            reading = self._reading.get(game_id)
            if reading is None:
                break
            reading.wait(5.0)  # another request is reading it
        reading = self._reading[game_id] = threading.Event()
        try:
            loaded = self.store.load(game_id)
            if loaded is None:
                return None
            if not isinstance(loaded, Stored):  # a game stored in the old layout: upgraded as it is read
                return self.load(game_id)
            stored = loaded
            self._announced[game_id] = stored
            while len(self._announced) > ANNOUNCED_KEPT:
                self._announced.popitem(last=False)  # the oldest first
        finally:
            self._reading.pop(game_id, None)
            reading.set()
        return self.from_stored(game_id, stored)

    def memory_share(self, *, fresh: bool = False) -> float:
        """The share of its memory limit Redis uses (0 without a limit), read at most once a
        second, or now when ``fresh``."""
        now = time.monotonic()
        if fresh or now - self._memory_read_at > MEMORY_READING_SECONDS:
            try:
                memory = cast(dict[str, Any], self.store.redis.info("memory"))
            except ResponseError:  # a Redis that does not offer INFO (some managed ones rename it)
                memory = {}
            limit = int(memory.get("maxmemory") or 0)
            self._memory_share = int(memory["used_memory"]) / limit if limit > 0 else 0.0
            self._memory_read_at = now
        return self._memory_share

    def refuse_creation_when_full(self, *, fresh: bool = False) -> None:
        """A 503 ``capacity`` when Redis is nearly at its memory limit (``fresh``: as :meth:`memory_share`)."""
        if self.memory_share(fresh=fresh) >= CREATION_MEMORY_SHARE:
            raise Refused("capacity", "nearly_full")

    def refuse_when_full(self) -> None:
        """A 503 ``capacity`` when Redis is at its memory limit, refusing writes: asked before a
        change that deletes and then writes, which such a Redis would let half through (it still
        deletes). Read now: such changes are few, and a second is long enough to fill Redis."""
        if self.memory_share(fresh=True) >= 1:
            raise Refused("capacity", "store_full")

    def load(self, game_id: str) -> Game:
        """The game as stored (a game of the old layout upgraded on the way)."""
        for _ in range(MAX_ATTEMPTS):
            stored = self.store.load(game_id)
            if stored is None:
                raise Refused("unknown_game", "unknown_game", params={"game": repr(game_id)})
            if isinstance(stored, Stored):
                return self.from_stored(game_id, stored)
            game = upgrade(game_id, stored, self.store.legacy_history(game_id), now=self.timer())
            if self.store.replace_legacy(game_id, stored.version, setup_of(game), snapshot_of(game), bytes(game.appended)):
                game.committed()
                game.length_cap = self.length_cap  # from now on: the replay of what was played before is not capped
                return game
        raise Refused("storage_unavailable", "read_failed")

    def load_to_change(self, game_id: str) -> tuple[Game, bool]:
        """The game to change, and whether it is this process's copy rather than the store's: as
        this process last committed it, while its subscription heard nothing else of the game
        (a table's next move mostly comes to the process that answered the last one), else as
        stored. The copy may have been passed by a commit whose announcement is on its way: a
        change of it fails the compare-and-set, and a refusal of it must be asked of the store."""
        committed = self.announcements.last_committed(game_id)
        if committed is None:
            return self.load(game_id), False
        stored = Stored(committed.version, orjson.loads(committed.setup), unpack(committed.snapshot))
        return self.from_stored(game_id, stored, committed.state), True

    def ttl(self, game: Game) -> int:
        """How long the game is kept: finished (or abandoned) games go sooner."""
        if game.over:
            return min(self.settings.finished_game_ttl_seconds, self.settings.game_ttl_seconds)
        if game.waiting:  # an invitation nobody takes costs little, for a short while
            return min(self.settings.waiting_game_ttl_seconds, self.settings.game_ttl_seconds)
        return self.settings.game_ttl_seconds

    def commit(self, game: Game, expected_version: int | None, idempotency: tuple[int, str, dict[str, Any]] | None = None) -> Commit:
        """Store what changed in ``game`` since ``expected_version`` (None: it is a new game) in
        one compare-and-set: the new actions' log entries and the snapshot, and the job of a
        computer move when a computer is to act."""
        write = self.prepare(game, expected_version, idempotency)
        if expected_version is None:
            commit = self.store.commit(write)
        else:
            committed = Committed(expected_version, game.version, orjson.dumps(setup_of(game)), write.snapshot, game.state)
            self.announcements.expect_commit(game.id, committed)
            written = False
            try:
                commit = self.store.commit(write)
                written = commit.written
                if written:
                    self._append_to_log_copy(game)
                    for offer in self.on_written:
                        offer(game)
            finally:  # (the requests waiting on the game here are woken now, if its announcement came first)
                self.announcements.settled(game.id, committed, written)
        return commit

    def _append_to_log_copy(self, game: Game) -> None:
        """After ``game``'s commit: the process's copy of its log, if it is the log as it was
        before (its length says so: the log only grows), with what the commit appended; so the
        history of a move made here is replayed without reading the log back."""
        key, appended = log_key(game), bytes(game.appended)
        kept = self._logs.latest(key)
        if appended and kept is not None and kept.version == game.log_length - len(appended):
            self._logs.offer(key, Rendered(game.log_length, kept.value + appended))

    def prepare(self, game: Game, expected_version: int | None, idempotency: tuple[int, str, dict[str, Any]] | None = None) -> Prepared:
        """The write of what changed in ``game`` since ``expected_version`` (None: a new game)."""
        setup = setup_of(game) if expected_version is None else None
        game.start_turn()
        return self.store.prepare(
            game.id, expected_version, game.version, snapshot_of(game), bytes(game.appended),
            setup=setup, idempotency=idempotency, ttl_seconds=self.ttl(game), computer_due=game.computer_to_act() is not None,
            arena_ended=game.arena and game.over, deadline=game.deadline(),
        )

    def store_new_games(self, games: list[Game]) -> list[bool]:
        """Store new games together, in one round trip (each write atomic by itself, with its
        clock); whether each was written (not: its id was taken meanwhile)."""
        commits = self.store.commit_all([self.prepare(game, None) for game in games])
        for game, commit in zip(games, commits):
            if commit.written:
                game.committed()
        return [commit.written for commit in commits]

    def commit_and_follow(
        self, game: Game, expected_version: int | None, idempotency: tuple[int, str, dict[str, Any]] | None = None
    ) -> tuple[Commit, Game]:
        """:meth:`commit`, and once written the game as the computers' replies left it if they
        come within the reply wait (a simple client sees them at once), else as committed."""
        with self.announcements.waiting(game.id, game.version) as replies:  # before the commit: no reply is missed
            commit = self.commit(game, expected_version, idempotency)
            if commit.written:
                game.committed()
                game = after_computers(self, game, replies)
        return commit, game

    def store_new(self, make: Callable[[str | None], Game], game_id: str | None = None) -> Game:
        """Store the game ``make(game_id)`` gives (None: a fresh id, as every attempt after the
        first), as the computers' replies left it."""
        for _ in range(MAX_ATTEMPTS):
            game = make(game_id)
            game_id = None  # (taken: another attempt draws another)
            check_presentable(game)
            commit, game = self.commit_and_follow(game, None)
            if commit.written:
                return game
        raise Refused("storage_unavailable", "store_failed")

    def change(self, game_id: str, change: Callable[[Game], T]) -> tuple[Game, T]:
        """Apply ``change(game)`` (which may refuse: :class:`Refused`) in one compare-and-set, retried
        when another request moved first; (game, what ``change`` returned). The game is as the
        computers' replies left it if they come within the reply wait."""
        for _ in range(MAX_ATTEMPTS):
            game = self.load(game_id)
            start = game.version
            outcome = change(game)
            if game.version == start:  # nothing to write (asked again: answered as it stands)
                return game, outcome
            commit, game = self.commit_and_follow(game, start)
            if commit.written:
                return game, outcome
            if commit.missing:
                raise Refused("unknown_game", "unknown_game", params={"game": repr(game_id)})
        raise Refused("busy", "busy")

    def events(self, game: Game, after: int, up_to: int) -> list[tuple[int, Event]]:
        """The history events of versions ``after < version <= up_to``, in order, derived by
        replaying the game's log (and the service's word that the match was abandoned)."""
        cache_key = log_key(game)

        def read_since() -> Rendered[bytes]:
            # the log only grows (APPEND): what is read is what came since the copy kept
            kept = self._logs.latest(cache_key)
            known = kept.value if kept is not None else b""
            log = known + self.store.log(game.id, len(known))
            return Rendered(len(log), log)

        # read once per process and length, however many streams of the game ask for it at once
        shared = self._logs.get(cache_key, game.log_length, read_since)
        assert shared is not None  # read_since always reads
        log = shared.value
        # the replay numbers the actions 1, 2, ...; the service's own events take versions between
        own = [stored["version"] for stored in game.seat_events]

        def counted(version: int) -> int:  # the actions up to a version
            return version - bisect.bisect_right(own, version)

        replayed = self.replays.events(cache_key, game.ruleset, game.options, game.seed, log, counted(after), counted(up_to))
        events = [(_action_version(number, own), event) for number, event in replayed]
        events += [(stored["version"], Event(stored["event"])) for stored in game.seat_events if after < stored["version"] <= up_to]
        if game.abandonment is not None and after < game.abandonment["version"] <= up_to:
            events.append((game.abandonment["version"], Event(game.abandonment["event"])))
        return sorted(events, key=lambda entry: entry[0])  # stable: a version's events keep their order
