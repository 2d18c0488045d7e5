"""Games as the service handles them: load, change through the engine, commit atomically.

A :class:`Table` is one game read from the store: its setup (ruleset, options, seats, seed), a
snapshot of its state, and the changes a request makes to it (new actions, in the log's compact
encoding). :class:`Tables` wraps every change in one compare-and-set on the store, retrying when
another request moved first. The engine decides everything about the game; this module only
calls its interface.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Sequence, cast

from redis.exceptions import RedisError, ResponseError

from engine import Action, Event, RuleError, Ruleset, registry
from engine.players import Budget, SeatInfo, player, standard_level, strongest_level

from . import action_log
from .announcements import Announcements, Waiter
from .config import Settings
from .errors import Problem
from .metrics import ACTIONS, DECISION_SECONDS
from .offload import off_the_loop
from .replay import ReplayCache, action_event, apply_logged
from .store import Commit, GameStore, Legacy, Stored
from .tokens import new_token, seat_of, token_hash

log = logging.getLogger(__name__)

#: a worker's batch of computer moves is written once its thinking has taken this long, so that
#: an expert's long decision does not hold up the quick moves decided before it
BATCH_THINKING_SECONDS = 0.02
#: how often a change is retried when other requests keep changing the game first
MAX_ATTEMPTS = 8
#: games whose last announced version a process keeps, for the requests waiting on them
ANNOUNCED_KEPT = 1024
#: new games are refused once Redis uses this share of its ``maxmemory``: the rest is kept for
#: the games already running, which Redis would refuse to write to once it is full
CREATION_MEMORY_SHARE = 0.9
#: seconds a reading of Redis's memory use is trusted for
MEMORY_READING_SECONDS = 1.0


@dataclass
class SeatRecord:
    name: str | None
    bot: str | None
    token_hash: str | None


@dataclass
class DealBase:
    """Where the current deal can be replayed from: the log offset of the action that dealt it,
    and the state before that action (None: the first deal, which a new game deals)."""

    offset: int
    state: dict[str, Any] | None


class Table:
    """One game: what the store keeps of it, and the changes made since it was read."""

    def __init__(
        self,
        game_id: str,
        ruleset: Ruleset,
        options: dict[str, Any],
        seats: list[SeatRecord],
        state: Any,
        *,
        seed: str,
        version: int = 0,
        stored_version: int | None = None,
        created_at: str | None = None,
        log_length: int = 0,
        deal_base: DealBase | None = None,
        abandonment: dict[str, Any] | None = None,
    ) -> None:
        self.id = game_id
        self.ruleset = ruleset
        self.options = options
        self.seats = seats
        self.state = state
        self.seed = seed
        self.version = version
        self.stored_version = stored_version
        self.created_at = created_at or datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        #: the length of the action log in bytes, with the actions not yet stored
        self.log_length = log_length
        self.deal_base = deal_base
        #: the match ran past its length cap and ended with no winner (the service's decision,
        #: not a rule of the game: the engine's state stays as it was, and a replay of the log
        #: does not produce it): ``{"version": v, "event": {...}}``, the history event that says so
        self.abandonment = abandonment
        #: the cap on the match's length: (deals, versions); None for none
        self.length_cap: tuple[int, int] | None = None
        #: the log entries of the actions taken since the game was read
        self.appended = bytearray()
        self._deal_events: list[Event] | None = None

    @classmethod
    def from_stored(cls, game_id: str, stored: Stored) -> "Table":
        setup, snapshot = stored.setup, stored.snapshot
        ruleset = registry.get(setup["ruleset"])
        return cls(
            game_id,
            ruleset,
            setup["options"],
            [SeatRecord(**seat) for seat in setup["seats"]],
            ruleset.load(snapshot["state"]),
            seed=setup["seed"],
            version=stored.version,
            stored_version=stored.version,
            created_at=setup["created_at"],
            log_length=snapshot["log_length"],
            deal_base=DealBase(**snapshot["deal_base"]) if snapshot.get("deal_base") else None,
            abandonment=snapshot.get("abandoned"),
        )

    @classmethod
    def new(cls, game_id: str, ruleset: Ruleset, options: dict[str, Any], seats: list[SeatRecord], seed: str) -> "Table":
        state, events = ruleset.new_game(options, seed)
        table = cls(game_id, ruleset, options, seats, state, seed=seed, deal_base=DealBase(0, None))
        table._deal_events = []
        table._record(events)
        return table

    def setup(self) -> dict[str, Any]:
        """What a game is made of besides its actions; written once, when it is created."""
        return {
            "ruleset": self.ruleset.id,
            "options": self.options,
            "seats": [asdict(seat) for seat in self.seats],
            "seed": self.seed,
            "created_at": self.created_at,
        }

    def snapshot(self) -> dict[str, Any]:
        """The state now, and what the next request needs beside it; once the match is over,
        only the final state and how it ended (the log keeps the rest)."""
        snapshot: dict[str, Any] = {"state": self.ruleset.dump(self.state), "log_length": self.log_length}
        if self.abandonment is not None:
            snapshot["abandoned"] = self.abandonment
        if not self.over:
            snapshot["deal_base"] = asdict(self.deal_base) if self.deal_base else None
        return snapshot

    def committed(self) -> None:
        """Note that everything up to the current version is in the store."""
        for seat, _ in action_log.decode(bytes(self.appended)):
            ACTIONS.labels(self.ruleset.id, "human" if self.seats[seat].bot is None else "computer").inc()
        self.stored_version = self.version
        self.appended = bytearray()

    def follow(self, version: int, entries: bytes) -> bool:
        """Apply what another process committed over this table's version (its log ``entries``,
        as announced), reaching ``version`` as stored, without reading the game again: the engine
        is deterministic. False if it does not come out at ``version``; the table is then
        unusable and is read again."""
        if self.appended or self.stored_version != self.version:
            return False
        try:
            for seat, action in action_log.decode(entries):
                self.act(seat, Action.from_json(action))
        except (RuleError, Problem, ValueError, KeyError, IndexError, TypeError):  # entries this table cannot follow
            return False
        if self.version != version:
            return False
        self.stored_version, self.appended = version, bytearray()
        return True

    # --- who is asking ----------------------------------------------------------------------

    def viewer(self, token: str | None) -> int | None:
        """The seat of a bearer token, or None without one (a spectator). A bad token is a 401."""
        return None if token is None else self.authenticate(token)

    def authenticate(self, token: str) -> int:
        """The seat of a bearer token; a token of no seat here is a 401."""
        seat = seat_of(token, [seat.token_hash for seat in self.seats])
        if seat is None:
            raise Problem(
                401,
                "invalid_token",
                "the token does not belong to a seat of this game",
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        return seat

    # --- what a seat sees -------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """The match ended by its rules."""
        return self.ruleset.result(self.state) is not None

    @property
    def abandoned(self) -> bool:
        return self.abandonment is not None

    @property
    def over(self) -> bool:
        """The match ended, by its rules or abandoned."""
        return self.abandoned or self.finished

    @property
    def status(self) -> str:
        return "abandoned" if self.abandoned else "finished" if self.finished else "active"

    def view(self, seat: int | None) -> dict[str, Any]:
        view = {
            "id": self.id,
            "ruleset": self.ruleset.id,
            "options": self.options,
            "version": self.version,
            "seats": self.seat_list(),
            **self.ruleset.view(self.state, seat),
        }
        if self.abandoned:
            view.update(status="abandoned", to_act=[], legal_actions=[], winners=[])
        return view

    def seat_list(self) -> list[dict[str, Any]]:
        return [
            {
                "index": index,
                "label": dict(self.ruleset.seat_names[index]),
                "name": seat.name,
                "bot": seat.bot,
                "human": seat.bot is None,
            }
            for index, seat in enumerate(self.seats)
        ]

    # --- changes ----------------------------------------------------------------------------

    def act(self, seat: int, action: Action) -> None:
        """Apply one action through the engine (a refusal raises and changes nothing)."""
        if self.abandoned:
            raise Problem(409, "game_over", "the match was abandoned: it ran longer than this service allows")
        before = self.state
        state, events = self.ruleset.apply(before, seat, action)
        entry = action_log.encode(seat, action.to_json())
        if any(event.data["type"] == "deal" for event in events):
            self.deal_base = DealBase(self.log_length, self.ruleset.dump(before))
        self.state = state
        self.version += 1
        self.appended += entry
        self.log_length += len(entry)
        self._record((action_event(seat, action),) + events)
        new_deals = [event.data["deal"] for event in events if event.data["type"] == "deal"]
        self._abandon_if_too_long(new_deals[-1] if new_deals else None)

    def _abandon_if_too_long(self, new_deal: int | None) -> None:
        """End a match that runs past the cap (``new_deal``: the deal the action began, if any): it
        ends abandoned, with no winner, said in the history."""
        if self.length_cap is None or self.finished:
            return
        max_deals, max_versions = self.length_cap
        if (new_deal is not None and new_deal > max_deals) or self.version >= max_versions:
            deal = new_deal if new_deal is not None else self.ruleset.view(self.state, None)["deal"]
            event = {"type": "abandoned", "reason": "too_long", "deal": deal, "max_deals": max_deals, "max_versions": max_versions}
            self.abandonment = {"version": self.version, "event": event}
            self._record([Event(event)])

    def _record(self, events: Sequence[Event]) -> None:
        for event in events:
            if event.data["type"] == "deal":  # every ruleset opens a deal with a "deal" event
                self._deal_events = []
            if self._deal_events is not None:
                self._deal_events.append(event)

    def computer_to_act(self) -> int | None:
        """The seat to act now if a computer plays it, else None (one seat acts at a time)."""
        if self.abandoned:
            return None
        to_act = self.ruleset.to_act(self.state)
        return to_act[0] if to_act and self.seats[to_act[0]].bot is not None else None

    @property
    def has_human(self) -> bool:
        return any(seat.bot is None for seat in self.seats)

    def decide(self, store: GameStore, settings: Settings, seat: int, level: str) -> Action:
        """What a computer player of ``level`` would do for ``seat``, from that seat's information only."""
        return self.decision(store, settings, seat, level)()

    def decision(self, store: GameStore, settings: Settings, seat: int, level: str) -> Callable[[], Action]:
        """:meth:`decide` in two steps: this call reads what the seat knows (from the store);
        calling its answer thinks, with no I/O, within the decision ceiling."""
        view = self.ruleset.view(self.state, seat)
        chooser = player(level, self.ruleset.id)
        events = self._events_seen_by(store, seat) if chooser.reads_events else ()
        info = SeatInfo(self.ruleset.id, seat, self.options, view, events)
        budget = Budget(ceiling=settings.bot_decision_ceiling, clock=time.perf_counter)
        seed = f"{self.seed}:{self.version}:{seat}"
        timer = DECISION_SECONDS.labels(self.ruleset.id, level)

        def think() -> Action:
            with timer.time():
                return chooser.choose(info, seed, budget)

        return think

    def _events_seen_by(self, store: GameStore, seat: int) -> tuple[Mapping[str, Any], ...]:
        if self._deal_events is None:
            self._deal_events = self._replay_deal(store)
        seen = (event.for_viewer(seat) for event in self._deal_events)
        return tuple(event for event in seen if event is not None)

    def _replay_deal(self, store: GameStore) -> list[Event]:
        """The current deal's events, replayed from the deal's base: one deal's work, however
        long the match."""
        base = self.deal_base
        assert base is not None  # only a match that is over has none, and no one decides in it
        stored_length = self.log_length - len(self.appended)
        log = store.log(self.id, base.offset)[: stored_length - base.offset] + bytes(self.appended)
        if base.state is None:
            state, opening = self.ruleset.new_game(self.options, self.seed)
            events = list(opening)
        else:
            state, events = self.ruleset.load(base.state), []
        for state, caused in apply_logged(self.ruleset, state, log):
            events += caused
        starts = [index for index, event in enumerate(events) if event.data["type"] == "deal"]
        return events[starts[-1] :]


@dataclass
class Played:
    """What a batch of computer moves did: the games whose move was committed, and those whose
    jobs their write acknowledged."""

    written: set[str]
    acknowledged: set[str]


def upgrade(game_id: str, legacy: Legacy, history: Sequence[tuple[int, Mapping[str, Any]]]) -> Table:
    """A game stored before the action log, rebuilt from its actions: replayed from its seed,
    it must come out as stored, else it is refused (the rules changed since it was played)."""
    record = legacy.record
    ruleset = registry.get(record["ruleset"])
    seats = [SeatRecord(**seat) for seat in record["seats"]]
    table = Table.new(game_id, ruleset, record["options"], seats, record["seed"])
    table.created_at = record["created_at"]
    unreadable = Problem(
        410,
        "game_unreadable",
        f"game {game_id!r} was stored by an earlier version of Koz and does not replay under the current rules",
    )
    try:
        for version, entry in history:
            if entry["data"]["type"] == "action":
                table.act(entry["data"]["seat"], Action.from_json(entry["data"]["action"]))
            elif entry["data"]["type"] == "abandoned":  # the service's word, not the engine's
                table.abandonment = {"version": version, "event": entry["data"]}
    except RuleError:
        raise unreadable from None
    if table.version != legacy.version or json.loads(json.dumps(ruleset.dump(table.state))) != record["state"]:
        raise unreadable
    return table


def require_token(token: str | None) -> str:
    if token is None:
        raise Problem(
            401,
            "missing_token",
            "this needs the seat's token: Authorization: Bearer <token>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return token


def _check_presentable(table: Table) -> None:
    """A new game is stored only if every seat's view of it can be sent: a game that could not
    be shown would answer errors for as long as it lives."""
    try:
        for seat in [None, *range(len(table.seats))]:
            json.dumps(table.view(seat), ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as error:  # UnicodeEncodeError is a ValueError
        raise Problem(400, "invalid_request", "the new game could not be shown; nothing was stored") from error


def _fingerprint(seat: int, action: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps([seat, action], sort_keys=True).encode()).hexdigest()


def version_matches(header: str, version: int) -> bool:
    """Whether an If-Match / If-None-Match value names ``version`` (weak comparison)."""
    for tag in header.split(","):
        tag = tag.strip()
        if tag == "*":
            return True
        if tag.startswith("W/"):
            tag = tag[2:]
        if tag.strip('"') == str(version):
            return True
    return False


class Tables:
    """Every change to a game goes through here, as one compare-and-set on the store.

    Computer players never think in a web request: a commit that leaves a computer to move
    queues a job in the same transaction, and a worker (``service/worker.py``) makes the move
    through :meth:`play_computer`. Reads never write.
    """

    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.announcements = Announcements(store)
        #: the last version read after an announcement, per game (insertion order: oldest first)
        self._announced: OrderedDict[str, Stored] = OrderedDict()
        #: the last action log read, per game (and setup: an id may come back as another game)
        self._logs: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        #: the reads of the store under way after an announcement, per game
        self._reading: dict[str, threading.Event] = {}
        self._memory_read_at = float("-inf")
        self._memory_full = False
        self.replays = ReplayCache()

    def load_announced(self, game_id: str, version: int) -> Table | None:
        """The game at ``version`` or later, for the requests an announcement of ``version``
        woke: they share one read of the store (a spectator's stream, a table's long-polls), so
        that a commit costs one read per process, not one per waiter. None if the game is gone."""
        for _ in range(2):
            stored = self._announced.get(game_id)
            if stored is not None and stored.version >= version:
                return Table.from_stored(game_id, stored)
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
                return self._read(game_id)
            stored = loaded
            self._announced[game_id] = stored
            while len(self._announced) > ANNOUNCED_KEPT:
                self._announced.popitem(last=False)  # the oldest first
        finally:
            self._reading.pop(game_id, None)
            reading.set()
        return Table.from_stored(game_id, stored)

    def refuse_creation_when_full(self) -> None:
        """A 503 ``capacity`` when Redis is nearly at its memory limit (read at most once a second)."""
        now = time.monotonic()
        if now - self._memory_read_at > MEMORY_READING_SECONDS:
            try:
                memory = cast(dict[str, Any], self.store.redis.info("memory"))
            except ResponseError:  # a Redis that does not offer INFO (some managed ones rename it)
                memory = {}
            limit = int(memory.get("maxmemory") or 0)
            self._memory_full = limit > 0 and int(memory["used_memory"]) >= limit * CREATION_MEMORY_SHARE
            self._memory_read_at = now
        if self._memory_full:
            raise Problem(503, "capacity", "no new games for now: the game store is nearly full", headers={"Retry-After": "60"})

    def load(self, game_id: str) -> Table:
        table = self._read(game_id)
        table.length_cap = (self.settings.max_deals, self.settings.max_versions)
        return table

    def _read(self, game_id: str) -> Table:
        for _ in range(MAX_ATTEMPTS):
            stored = self.store.load(game_id)
            if stored is None:
                raise Problem(404, "unknown_game", f"there is no game {game_id!r} (it may have expired)")
            if isinstance(stored, Stored):
                return Table.from_stored(game_id, stored)
            table = upgrade(game_id, stored, self.store.legacy_history(game_id))
            if self.store.replace_legacy(game_id, stored.version, table.setup(), table.snapshot(), bytes(table.appended)):
                table.committed()
                return table
        raise Problem(503, "storage_unavailable", "could not read the game; try again")

    def ttl(self, table: Table) -> int:
        """How long the game is kept: finished (or abandoned) games go sooner."""
        if table.over:
            return min(self.settings.finished_game_ttl_seconds, self.settings.game_ttl_seconds)
        return self.settings.game_ttl_seconds

    def commit(
        self,
        table: Table,
        expected_version: int | None,
        idempotency: tuple[int, str, dict[str, Any]] | None = None,
        schedule: bool = False,
    ) -> Commit:
        """Store what changed in ``table`` since ``expected_version`` (None: it is a new game) in
        one compare-and-set: the new actions' log entries and the snapshot; ``schedule`` queues
        a computer move with it."""
        setup = table.setup() if expected_version is None else None
        return self.store.commit(
            table.id, expected_version, table.version, table.snapshot(), bytes(table.appended),
            setup=setup, idempotency=idempotency, ttl_seconds=self.ttl(table), schedule=schedule,
        )

    def events(self, table: Table, after: int, up_to: int) -> list[tuple[int, Event]]:
        """The history events of versions ``after < version <= up_to``, in order, derived by
        replaying the game's log (and the service's word that the match was abandoned)."""
        cache_key = (table.id, f"{table.seed}@{table.created_at}")
        log = self._logs.get(cache_key)
        if log is None or len(log) < table.log_length:
            # read once per process and version, however many streams of the game ask for it
            log = self._logs[cache_key] = self.store.log(table.id)
            while len(self._logs) > ANNOUNCED_KEPT:
                self._logs.popitem(last=False)  # the oldest first
        events = self.replays.events(cache_key, table.ruleset, table.options, table.seed, log, after, up_to)
        if table.abandonment is not None and after < table.abandonment["version"] <= up_to:
            events.append((table.abandonment["version"], Event(table.abandonment["event"])))
        return events

    def create(
        self, ruleset_id: str, options: Mapping[str, Any] | None, seats: list[Mapping[str, Any]] | None, seed: str | None
    ) -> tuple[Table, dict[int, str]]:
        """A new game and the tokens of its human seats (returned once, never stored)."""
        self.refuse_creation_when_full()
        ruleset = registry.get(ruleset_id)
        parsed = ruleset.parse_options(options)
        if seats is None:
            computer = {"bot": standard_level(ruleset.id)}
            seats = [{} if index in ruleset.standard_human_seats else computer for index in range(ruleset.seat_count)]
        if len(seats) != ruleset.seat_count:
            raise Problem(
                400,
                "invalid_seats",
                f"{ruleset.id} has {ruleset.seat_count} seats, but {len(seats)} were given",
                allowed=f"a list of {ruleset.seat_count} seats",
            )
        tokens: dict[int, str] = {}
        records = []
        for index, seat in enumerate(seats):
            level = seat.get("bot")
            if level is not None:
                player(level, ruleset.id)  # refuses a level the ruleset does not have
            else:
                tokens[index] = new_token()
            name = seat.get("name") or ruleset.default_seat_name(index, human=level is None)
            records.append(SeatRecord(name, level, token_hash(tokens[index]) if index in tokens else None))
        for _ in range(MAX_ATTEMPTS):
            table = Table.new(secrets.token_hex(8), ruleset, parsed, records, seed or secrets.token_hex(16))
            table.length_cap = (self.settings.max_deals, self.settings.max_versions)
            _check_presentable(table)
            schedule = table.computer_to_act() is not None
            with self.announcements.waiting(table.id, table.version) as replies:  # before the commit: no reply is missed
                if self.commit(table, None, schedule=schedule).written:
                    table.committed()
                    return (self._after_computers(table, replies) if schedule else table), tokens
        raise Problem(503, "storage_unavailable", "could not store the new game; try again")

    def act(
        self,
        game_id: str,
        token: str | None,
        action_json: Mapping[str, Any],
        *,
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Apply a seat's action and the computer moves it brings on; the seat's new view.

        Returns (view, replayed): ``replayed`` is True when an earlier request with the same
        idempotency key had already applied it.
        """
        token = require_token(token)
        for _ in range(MAX_ATTEMPTS):
            table = self.load(game_id)
            seat = table.authenticate(token)
            action = Action.from_json(action_json)
            fingerprint = _fingerprint(seat, action.to_json())
            if idempotency_key is not None:
                earlier = self.store.idempotent_answer(game_id, seat, idempotency_key)
                if earlier is not None:
                    return self._replay(earlier, fingerprint), True
            if if_match is not None and not version_matches(if_match, table.version):
                raise Problem(
                    412,
                    "stale_version",
                    f"the game is at version {table.version}, not the one in If-Match",
                    current_version=table.version,
                )
            start = table.version
            table.act(seat, action)
            schedule = table.computer_to_act() is not None
            # the committed view: the answer when no computer replies, and a retry's answer
            view = table.view(seat) if idempotency_key or not schedule else None
            answer = (seat, idempotency_key, {"fingerprint": fingerprint, "view": view}) if idempotency_key else None
            with self.announcements.waiting(game_id, table.version) as replies:  # before the commit: no reply is missed
                commit = self.commit(table, start, idempotency=answer, schedule=schedule)
                if commit.written:
                    table.committed()
                    if schedule:
                        return self._after_computers(table, replies).view(seat), False
                    assert view is not None  # computed above whenever no computer replies
                    return view, False
            if commit.earlier_answer is not None:
                return self._replay(commit.earlier_answer, fingerprint), True
            if commit.missing:
                raise Problem(404, "unknown_game", f"there is no game {game_id!r} (it may have expired)")
            if if_match is not None:
                raise Problem(
                    412,
                    "stale_version",
                    f"the game moved on to version {commit.version} meanwhile",
                    current_version=commit.version,
                )
        raise Problem(409, "busy", "the game kept changing while this action was applied; try again")

    @staticmethod
    def _replay(earlier: Mapping[str, Any], fingerprint: str) -> dict[str, Any]:
        if earlier["fingerprint"] != fingerprint:
            raise Problem(
                422,
                "idempotency_key_reused",
                "this Idempotency-Key was used for a different action; use a new key for a new action",
            )
        return earlier["view"]

    def _after_computers(self, table: Table, replies: Waiter) -> Table:
        """The game once the computers have replied, if they do within the reply wait (and a
        human is there to answer), else as committed: a simple client sees the replies at once,
        and no request waits long for the computers' thinking. ``replies`` was waiting on the
        game since before ``table`` was committed."""
        if not table.has_human:
            return table
        deadline = time.monotonic() + self.settings.reply_wait_seconds
        while table.computer_to_act() is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if replies.announced is None or replies.announced <= table.version:
                replies.wait(remaining)
                if replies.announced is None or replies.announced <= table.version:
                    # the wait ended, or the subscription was renewed: the store says
                    if (self.store.version(table.id) or 0) <= table.version:
                        continue
            change = replies.changes.pop(table.version, None)
            if change is None or not table.follow(*change):
                table = self.load(table.id)
            replies.after = table.version
        return table

    def play_computer(self, game_id: str) -> bool:
        """Make the move of the computer seat whose turn it is, if any (a worker's job); whether
        a move was committed. Another worker making the same move first makes this one's commit
        fail: a move is never applied twice."""
        return game_id in self.play_computers([game_id]).written

    def play_computers(self, game_ids: Sequence[str], jobs: tuple[str, Mapping[str, list[bytes]]] | None = None) -> Played:
        """:meth:`play_computer` for several games (a worker's batch of jobs): read in one round
        trip, decided one after the other, written together (one round trip, and one sync of
        Redis's append-only file for them all). A game whose move cannot be made is logged and
        skipped: it would fail on every worker. ``jobs``: (the workers' group, the queue's entries
        of each game), acknowledged by the writes where the store can."""
        moves: list[tuple[Table, int]] = []
        played = Played(set(), set())
        thinking_since = time.monotonic()
        for game_id, stored in zip(game_ids, self.store.load_many(list(game_ids))):
            try:
                move = self._computer_move(game_id, stored)
            except RedisError:
                raise  # the batch is left pending: this worker or another does it again
            except Exception:
                log.exception("the computer move in game %s failed", game_id)
                continue
            if move is not None:
                moves.append(move)
            if moves and time.monotonic() - thinking_since > BATCH_THINKING_SECONDS:
                # long thinking (experts) does not hold up the moves decided before it
                self._commit_moves(moves, jobs, played)
                moves, thinking_since = [], time.monotonic()
        self._commit_moves(moves, jobs, played)
        return played

    def _computer_move(self, game_id: str, stored: Stored | Legacy | None) -> tuple[Table, int] | None:
        """The game with its computer's move applied, and the version it was read at; None if
        no computer is to move (or the game is gone)."""
        if stored is None:
            return None
        table = Table.from_stored(game_id, stored) if isinstance(stored, Stored) else self._read(game_id)
        table.length_cap = (self.settings.max_deals, self.settings.max_versions)
        seat = table.computer_to_act()
        if seat is None:
            return None
        level = table.seats[seat].bot
        assert level is not None  # computer_to_act names only computer seats
        action = table.decide(self.store, self.settings, seat, level)
        start = table.version
        table.act(seat, action)
        return table, start

    def _commit_moves(self, moves: list[tuple[Table, int]], jobs: tuple[str, Mapping[str, list[bytes]]] | None, played: Played) -> None:
        writes = [
            self.store.prepare(
                table.id, start, table.version, table.snapshot(), bytes(table.appended),
                ttl_seconds=self.ttl(table), schedule=table.computer_to_act() is not None,
                done=(jobs[0], list(jobs[1].get(table.id, []))) if jobs else None,
            )
            for table, start in moves
        ]
        for (table, _), write, commit in zip(moves, writes, self.store.commit_all(writes) if writes else []):
            if write.acknowledged:
                played.acknowledged.add(table.id)
            if commit.written:
                table.committed()
                played.written.add(table.id)

    def hint(self, game_id: str, token: str | None) -> tuple[Table, int, Action]:
        """The expert's suggestion for the caller's seat, decided from that seat's information.
        The thinking runs off the request loop, so that other requests go on meanwhile."""
        table = self.load(game_id)
        seat = table.authenticate(require_token(token))
        if table.over:
            raise Problem(409, "game_over", "the match is over")
        if seat not in table.ruleset.to_act(table.state):
            raise table.ruleset.turn_refusal(table.state, seat)
        return table, seat, off_the_loop(table.decision(self.store, self.settings, seat, strongest_level(table.ruleset.id)))

    def watch(self, game_id: str, token: str | None, wait: float, after: int | None) -> tuple[Table, int | None]:
        """The game and the caller's seat, once its version passes ``after`` or ``wait`` ends."""
        if after is None or wait <= 0:
            table = self.load(game_id)
            return table, table.viewer(token)
        with self.announcements.waiting(game_id, after) as waiter:
            table = self.load(game_id)  # read after registering: no announcement is missed
            seat = table.viewer(token)
            if table.version > after:
                return table, seat
            version = self.wait_for_version(game_id, after, min(wait, self.settings.max_wait_seconds), waiter)
        if version is None or version == table.version:
            return table, seat
        return (self.load_announced(game_id, version) or table), seat

    def wait_for_version(self, game_id: str, after: int, timeout: float, waiter: Waiter | None = None) -> int | None:
        """The game's version once it passes ``after``, or when ``timeout`` seconds have passed
        (None if the game is gone). Waits on the process's one subscription. ``waiter``: one
        registered on the game since before the caller read it at ``after`` (an event stream
        keeps one), so that the store need not be read again to know that nothing was missed."""
        if waiter is None:
            with self.announcements.waiting(game_id, after) as registered:
                return self._wait(registered, game_id, after, timeout, self.store.version(game_id))
        waiter.after = after
        return self._wait(waiter, game_id, after, timeout, waiter.newer_than(after))

    def _wait(self, waiter: Waiter, game_id: str, after: int, timeout: float, version: int | None) -> int | None:
        deadline = time.monotonic() + timeout
        while version is not None and version <= after:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            waiter.wait(remaining)
            # nothing newer announced: the wait ended, or the subscription was renewed, and the store says
            version = waiter.newer_than(after) if waiter.newer_than(after) > after else self.store.version(game_id)
        return version
