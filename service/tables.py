"""Games as the service handles them: load, change through the engine, commit atomically.

A :class:`Table` is one game read from the store: its setup (ruleset, options, seats, seed), a
snapshot of its state, and the changes a request makes to it (new actions, in the log's compact
encoding). :class:`Tables` wraps every change in one compare-and-set on the store, retrying when
another request moved first. The engine decides everything about the game; this module only
calls its interface.
"""

from __future__ import annotations

import bisect
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

from engine import Action, Event, RuleError, Ruleset, action_log, registry
from engine.players import Budget, SeatInfo, level_names, player, standard_level, strongest_level
from engine.shuffle import first_dealer
from engine.texts import Said

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
    #: waiting for someone to take it (with ``POST /v1/games/{id}/seats/{seat}``)
    open: bool = False
    #: the hash of what taking an open seat requires: a private game's join code, or for a
    #: rematch the seat's token in the match before; None: nothing
    code_hash: str | None = None

    def to_json(self) -> dict[str, Any]:
        """As the setup keeps it: the fields every seat has, the others only when set."""
        record: dict[str, Any] = {"name": self.name, "bot": self.bot, "token_hash": self.token_hash}
        if self.open:
            record.update(open=True, code_hash=self.code_hash)
        return record


#: history events the service adds beside the engine's (stored in the snapshot, each with the
#: version it produced): a seat taken, left to a computer, taken back, a rematch made
SEAT_EVENTS = ("seat_taken", "left", "rejoined", "rematch", "timeout")
#: the level that plays a timed-out seat's one action under ``on_timeout: "computer"``
TIMEOUT_LEVEL = "basic"


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
        seat_events: list[dict[str, Any]] | None = None,
        seed_source: str = "server",
        clock: dict[str, Any] | None = None,
        turn: dict[str, Any] | None = None,
    ) -> None:
        self.id = game_id
        self.ruleset = ruleset
        self.options = options
        #: the seats as created (the setup), and as they are now, after the seat events
        self.initial_seats = [SeatRecord(**asdict(seat)) for seat in seats]
        self.seats = seats
        self.seed_source = seed_source
        #: the turn clock, as created: ``seconds_per_action``, ``bank``, ``on_timeout``; None: untimed
        self.clock = clock
        #: the timed turn now: ``{"seat", "version", "since", "banks"}`` (``since`` in seconds of
        #: the epoch; ``banks``: each seat's bank left; ``seat`` None while no human is to act)
        self.turn = turn
        #: the time of this request, set by :class:`Tables` (from its clock, injectable)
        self.now = time.time()
        #: the service's own events, in the stored form ``{"version": v, "event": {...}}`` (a
        #: taken seat's also ``"token_hash"``); each is a version of its own
        self.seat_events: list[dict[str, Any]] = []
        for stored in seat_events or []:
            self._apply_seat_event(stored)
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
            seat_events=snapshot.get("seats"),
            seed_source=setup.get("seed_source", "unknown"),
            clock=setup.get("clock"),
            turn=snapshot.get("turn"),
        )

    @classmethod
    def new(cls, game_id: str, ruleset: Ruleset, options: dict[str, Any], seats: list[SeatRecord], seed: str, seed_source: str = "server") -> "Table":
        state, events = ruleset.new_game(options, seed)
        table = cls(game_id, ruleset, options, seats, state, seed=seed, deal_base=DealBase(0, None), seed_source=seed_source)
        table._deal_events = []
        table._record(events)
        return table

    def setup(self) -> dict[str, Any]:
        """What a game is made of besides its actions; written once, when it is created."""
        return {
            "ruleset": self.ruleset.id,
            "options": self.options,
            "seats": [seat.to_json() for seat in self.initial_seats],
            "seed": self.seed,
            "seed_source": self.seed_source,
            "created_at": self.created_at,
            **({"clock": self.clock} if self.clock else {}),
        }

    def snapshot(self) -> dict[str, Any]:
        """The state now, and what the next request needs beside it; once the match is over,
        only the final state and how it ended (the log keeps the rest)."""
        snapshot: dict[str, Any] = {"state": self.ruleset.dump(self.state), "log_length": self.log_length}
        if self.abandonment is not None:
            snapshot["abandoned"] = self.abandonment
        if self.seat_events:
            snapshot["seats"] = self.seat_events
        if self.turn is not None and not self.over:
            snapshot["turn"] = self.turn
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
        if self.appended or self.stored_version != self.version or self.clock is not None:
            return False  # (a turn clock restarts at the writer's time, which the entries do not tell)
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
                "invalid_token",
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
    def forfeit(self) -> dict[str, Any] | None:
        """The timeout event that ended the match by forfeit, if one did."""
        return next((stored["event"] for stored in self.seat_events if stored["event"].get("on_timeout") == "forfeit"), None)

    @property
    def over(self) -> bool:
        """The match ended, by its rules, by a forfeit or abandoned."""
        return self.abandoned or self.finished or self.forfeit is not None

    @property
    def waiting(self) -> bool:
        """Some seat is still open: nobody acts until every seat is taken."""
        return any(seat.open for seat in self.seats)

    @property
    def status(self) -> str:
        if self.abandoned:
            return "abandoned"
        if self.forfeit is not None:
            return "forfeited"
        if self.finished:
            return "finished"
        return "waiting" if self.waiting else "active"

    @property
    def seed_commitment(self) -> str:
        """SHA-256 of the seed, shown from the start: the seed revealed at the end must match it."""
        return hashlib.sha256(self.seed.encode("utf-8")).hexdigest()

    @property
    def rematch(self) -> str | None:
        """The id of the next match, once one was made."""
        made = [stored["event"]["game"] for stored in self.seat_events if stored["event"]["type"] == "rematch"]
        return made[-1] if made else None

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
        elif (forfeit := self.forfeit) is not None:
            view.update(status="forfeited", to_act=[], legal_actions=[], winners=forfeit["winners"])
        elif self.waiting:
            view.update(status="waiting", to_act=[], legal_actions=[])
        view.update(seed_commitment=self.seed_commitment, seed_source=self.seed_source, rematch=self.rematch, clock=self.clock_view())
        return view

    # --- the turn clock ---------------------------------------------------------------------

    def clock_view(self) -> dict[str, Any] | None:
        if self.clock is None:
            return None
        deadline = self.deadline()
        deadlines: list[str | None] = [None] * len(self.seats)
        if deadline is not None and self.turn is not None:
            moment = datetime.fromtimestamp(deadline, timezone.utc).isoformat(timespec="milliseconds")
            deadlines[self.turn["seat"]] = moment.replace("+00:00", "Z")
        return {**self.clock, "deadlines": deadlines, "banks": self._banks()}

    def _banks(self) -> list[float]:
        if self.clock is None:
            return []
        return list(self.turn["banks"]) if self.turn is not None else [float(self.clock["bank"])] * len(self.seats)

    def deadline(self) -> float | None:
        """When the seat to act times out (seconds of the epoch); None when no clock runs."""
        if self.clock is None or self.turn is None or self.turn["seat"] is None or self.over:
            return None
        return float(self.turn["since"] + self.clock["seconds_per_action"] + self.turn["banks"][self.turn["seat"]])

    def start_turn(self) -> None:
        """Start the clock of a human seat that has just come to act (each action is a turn of
        its own); it does not run while a computer acts or the game waits."""
        if self.clock is None:
            return
        banks = self._banks()
        to_act = [] if self.over or self.waiting else self.ruleset.to_act(self.state)
        if not to_act or self.seats[to_act[0]].bot is not None:
            self.turn = {"seat": None, "version": self.version, "since": self.now, "banks": banks}
        elif self.turn is None or self.turn["seat"] != to_act[0] or self.turn["version"] != self.version:
            self.turn = {"seat": to_act[0], "version": self.version, "since": self.now, "banks": banks}

    def _spend_bank(self, seat: int) -> None:
        """What an action took past ``seconds_per_action`` comes off the seat's bank."""
        if self.clock is None or self.turn is None or self.turn["seat"] != seat:
            return
        overtime = max(0.0, self.now - self.turn["since"] - self.clock["seconds_per_action"])
        self.turn["banks"][seat] = max(0.0, self.turn["banks"][seat] - overtime)

    def time_out(self, store: GameStore, settings: Settings) -> None:
        """The seat to act let its deadline pass: the table's ``on_timeout`` decides."""
        assert self.clock is not None and self.turn is not None
        seat = self.turn["seat"]
        self.turn["banks"][seat] = 0.0
        if self.clock["on_timeout"] == "forfeit":
            view = self.ruleset.view(self.state, None)
            sides = view.get("teams") or [[index] for index in range(len(self.seats))]
            winners = sorted(other for side in sides if seat not in side for other in side)
            self.seat_event({"type": "timeout", "seat": seat, "on_timeout": "forfeit", "winners": winners})
            return
        self.seat_event({"type": "timeout", "seat": seat, "on_timeout": "computer"})
        level = TIMEOUT_LEVEL if TIMEOUT_LEVEL in level_names(self.ruleset.id) else standard_level(self.ruleset.id)
        self.act(seat, self.decide(store, settings, seat, level))

    def seat_list(self) -> list[dict[str, Any]]:
        return [
            {
                "index": index,
                "label": dict(self.ruleset.seat_names[index]),
                "name": seat.name,
                "bot": seat.bot,
                "human": seat.bot is None,
                "open": seat.open,
                "left": seat.bot is not None and seat.token_hash is not None,
            }
            for index, seat in enumerate(self.seats)
        ]

    # --- seats ------------------------------------------------------------------------------

    def _apply_seat_event(self, stored: dict[str, Any]) -> None:
        event = stored["event"]
        if event["type"] != "rematch":
            seat = self.seats[event["seat"]]
            if event["type"] == "seat_taken":
                seat.name, seat.token_hash, seat.open = event["name"], stored["token_hash"], False
            elif event["type"] == "left":
                seat.bot = event["level"]
            elif event["type"] == "rejoined":
                seat.bot = None
        self.seat_events.append(stored)

    def seat_event(self, event: dict[str, Any], token_hash: str | None = None) -> None:
        """Record one of the service's events (a version of its own) and what it changes."""
        self.version += 1
        stored: dict[str, Any] = {"version": self.version, "event": event}
        if token_hash is not None:
            stored["token_hash"] = token_hash
        self._apply_seat_event(stored)

    def take_seat(self, seat: int, name: str | None, code: str | None) -> str:
        """Take an open seat (with its join code if it has one); its new token."""
        record = self._seat(seat)
        if not record.open:
            created = self.initial_seats[seat]
            why = "seat_not_open" if created.open else "computer_seat_never_open" if created.bot else "human_seat_never_open"
            raise Problem(409, "seat_taken", why, params={"seat": seat})
        if record.code_hash is not None and code is None:
            raise Problem(403, "invalid_join_code", "join_code_missing", params={"seat": seat})
        if record.code_hash is not None and seat_of(code or "", [record.code_hash]) != 0:
            raise Problem(403, "invalid_join_code", "join_code_wrong", params={"seat": seat})
        token = new_token()
        name = name or self.ruleset.default_seat_name(seat, human=True)
        self.seat_event({"type": "seat_taken", "seat": seat, "name": name}, token_hash(token))
        return token

    def leave(self, seat: int, level: str | None) -> None:
        """Hand ``seat`` to a computer of ``level`` (None: the ruleset's standard one) for the rest
        of the match (its token may take it back)."""
        if self.over:
            raise Problem(409, "game_over", "game_over")
        if self.seats[seat].bot is not None:
            raise Problem(409, "seat_left", "seat_left", params={"seat": seat})
        level = level or standard_level(self.ruleset.id)
        player(level, self.ruleset.id)  # refuses a level the ruleset does not have
        self.seat_event({"type": "left", "seat": seat, "level": level})

    def rejoin(self, seat: int) -> None:
        """The seat's token takes back a seat it left to a computer."""
        if self.over:
            raise Problem(409, "game_over", "game_over")
        if self.seats[seat].bot is None:
            raise Problem(409, "seat_taken", "seat_played_by_token", params={"seat": seat})
        self.seat_event({"type": "rejoined", "seat": seat})

    def _seat(self, seat: int) -> SeatRecord:
        if not 0 <= seat < len(self.seats):
            raise Problem(404, "unknown_seat", "unknown_seat", params={"last": len(self.seats) - 1})
        return self.seats[seat]

    # --- changes ----------------------------------------------------------------------------

    def act(self, seat: int, action: Action) -> None:
        """Apply one action through the engine (a refusal raises and changes nothing)."""
        if self.abandoned:
            raise Problem(409, "game_over", "abandoned")
        if self.waiting:
            raise Problem(409, "waiting_for_players", "waiting_for_players")
        if self.forfeit is not None:
            raise Problem(409, "game_over", "forfeited")
        before = self.state
        state, events = self.ruleset.apply(before, seat, action)
        self._spend_bank(seat)
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
        if self.over or self.waiting:
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
        budget = Budget(seconds=settings.bot_expert_seconds, ceiling=settings.bot_decision_ceiling, clock=time.perf_counter)
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
    """What a batch of computer moves did: the games whose move was committed, and those found
    with no computer move to make, by the version they were read at (None: gone)."""

    written: set[str]
    idle: dict[str, int | None]


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
        "game_unreadable",
        params={"game": repr(game_id)},
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


def _action_version(number: int, own: Sequence[int]) -> int:
    """The version of the ``number``-th action, when the versions ``own`` (sorted) went to the service's events."""
    version = number
    for taken in own:
        if taken <= version:
            version += 1
    return version


def new_join_code() -> str:
    """The code that takes an open seat of a private game: 96 random bits, short enough to pass on."""
    return secrets.token_urlsafe(12)


def next_dealer_seed(table: Table) -> str:
    """A fresh seed whose first dealer is the seat after the finished match's first dealer:
    drawn until one fits (a few draws; the seed stays secret and random)."""
    wanted = (first_dealer(table.seed, len(table.seats)) + 1) % len(table.seats)
    while True:
        seed = secrets.token_hex(16)
        if first_dealer(seed, len(table.seats)) == wanted:
            return seed


def require_token(token: str | None) -> str:
    if token is None:
        raise Problem(
            401,
            "missing_token",
            "missing_token",
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
        raise Problem(400, "invalid_request", "not_shown") from error


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
    records it as due in the same script, and a worker (``service/worker.py``) makes the move
    through :meth:`play_computers`. Reads never write.
    """

    def __init__(self, store: GameStore, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.settings = settings
        #: the time now, in seconds of the epoch: what turn clocks are read against (tests inject one)
        self.clock = clock
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
            raise Problem(503, "capacity", "nearly_full", headers={"Retry-After": "60"})

    def load(self, game_id: str) -> Table:
        table = self._read(game_id)
        table.length_cap = (self.settings.max_deals, self.settings.max_versions)
        table.now = self.clock()
        return table

    def _read(self, game_id: str) -> Table:
        for _ in range(MAX_ATTEMPTS):
            stored = self.store.load(game_id)
            if stored is None:
                raise Problem(404, "unknown_game", "unknown_game", params={"game": repr(game_id)})
            if isinstance(stored, Stored):
                return Table.from_stored(game_id, stored)
            table = upgrade(game_id, stored, self.store.legacy_history(game_id))
            if self.store.replace_legacy(game_id, stored.version, table.setup(), table.snapshot(), bytes(table.appended)):
                table.committed()
                return table
        raise Problem(503, "storage_unavailable", "read_failed")

    def ttl(self, table: Table) -> int:
        """How long the game is kept: finished (or abandoned) games go sooner."""
        if table.over:
            return min(self.settings.finished_game_ttl_seconds, self.settings.game_ttl_seconds)
        return self.settings.game_ttl_seconds

    def commit(self, table: Table, expected_version: int | None, idempotency: tuple[int, str, dict[str, Any]] | None = None) -> Commit:
        """Store what changed in ``table`` since ``expected_version`` (None: it is a new game) in
        one compare-and-set: the new actions' log entries and the snapshot, and the job of a
        computer move when a computer is to act."""
        setup = table.setup() if expected_version is None else None
        table.start_turn()
        commit = self.store.commit(
            self.store.prepare(
                table.id, expected_version, table.version, table.snapshot(), bytes(table.appended),
                setup=setup, idempotency=idempotency, ttl_seconds=self.ttl(table), computer_due=table.computer_to_act() is not None,
            )
        )
        deadline = table.deadline()
        if commit.written and deadline is not None:
            # beside the compare-and-set, not in it (another slot on a cluster): a deadline the
            # process did not get to schedule is caught by the next change of the game
            self.store.schedule_clock(table.id, deadline)
        return commit

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
        # the replay numbers the actions 1, 2, ...; the service's own events take versions between
        own = [stored["version"] for stored in table.seat_events]
        counted = lambda version: version - bisect.bisect_right(own, version)  # noqa: E731 (actions up to a version)
        replayed = self.replays.events(cache_key, table.ruleset, table.options, table.seed, log, counted(after), counted(up_to))
        events = [(_action_version(number, own), event) for number, event in replayed]
        events += [(stored["version"], Event(stored["event"])) for stored in table.seat_events if after < stored["version"] <= up_to]
        if table.abandonment is not None and after < table.abandonment["version"] <= up_to:
            events.append((table.abandonment["version"], Event(table.abandonment["event"])))
        return sorted(events, key=lambda entry: entry[0])  # stable: a version's events keep their order

    def create(
        self,
        ruleset_id: str,
        options: Mapping[str, Any] | None,
        seats: list[Mapping[str, Any]] | None,
        seed: str | None,
        *,
        private: bool = False,
        clock: Mapping[str, Any] | None = None,
    ) -> tuple[Table, dict[int, str], dict[int, str]]:
        """A new game, the tokens of its human seats and the join codes of its open seats (a
        private game's); both returned once, never stored."""
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
                "invalid_seats",
                params={"ruleset": dict(ruleset.names), "seat_count": ruleset.seat_count, "given": len(seats)},
                allowed=Said({"en": f"a list of {ruleset.seat_count} seats", "tr": f"{ruleset.seat_count} koltukluk bir liste"}),
            )
        tokens: dict[int, str] = {}
        codes: dict[int, str] = {}
        records = []
        for index, seat in enumerate(seats):
            level = seat.get("bot")
            if level is not None and seat.get("open"):
                raise Problem(400, "invalid_seats", "open_and_computer", params={"seat": index})
            if level is not None:
                player(level, ruleset.id)  # refuses a level the ruleset does not have
            elif seat.get("open"):
                codes[index] = new_join_code() if private else ""
            else:
                tokens[index] = new_token()
            name = seat.get("name") or (None if seat.get("open") else ruleset.default_seat_name(index, human=level is None))
            records.append(
                SeatRecord(
                    name,
                    level,
                    token_hash(tokens[index]) if index in tokens else None,
                    open=index in codes,
                    code_hash=token_hash(codes[index]) if codes.get(index) else None,
                )
            )
        table = self._store_new(ruleset, parsed, records, seed or secrets.token_hex(16), "client" if seed else "server", clock)
        if codes and not private and seed is None:
            self.store.list_waiting(ruleset.id, table.id)
        return table, tokens, {index: code for index, code in codes.items() if code}

    def _store_new(
        self, ruleset: Ruleset, options: dict[str, Any], records: list[SeatRecord], seed: str, seed_source: str, clock: Mapping[str, Any] | None
    ) -> Table:
        for _ in range(MAX_ATTEMPTS):
            table = Table.new(self.store.new_game_id(), ruleset, options, [SeatRecord(**asdict(seat)) for seat in records], seed, seed_source)
            table.clock = dict(clock) if clock else None
            table.now = self.clock()
            table.length_cap = (self.settings.max_deals, self.settings.max_versions)
            _check_presentable(table)
            commit, table = self._commit_and_follow(table, None)
            if commit.written:
                return table
        raise Problem(503, "storage_unavailable", "store_failed")

    def change(self, game_id: str, change) -> tuple[Table, Any]:
        """Apply ``change(table)`` (which may raise a Problem) in one compare-and-set, retried
        when another request moved first; (table, what ``change`` returned). The table is as the
        computers' replies left it if they come within the reply wait."""
        for _ in range(MAX_ATTEMPTS):
            table = self.load(game_id)
            start = table.version
            outcome = change(table)
            commit, table = self._commit_and_follow(table, start)
            if commit.written:
                return table, outcome
            if commit.missing:
                raise Problem(404, "unknown_game", "unknown_game", params={"game": repr(game_id)})
        raise Problem(409, "busy", "busy")

    def take_seat(self, game_id: str, seat: int, token: str | None, name: str | None, code: str | None) -> tuple[Table, int, str | None]:
        """Take an open seat (its new token), or with the seat's own token take back a seat it
        left (no new token); (table, seat, token)."""

        def take(table: Table) -> str | None:
            if token is not None:
                if table.authenticate(token) != seat:
                    raise Problem(403, "not_your_seat", "not_your_seat", params={"seat": seat})
                table.rejoin(seat)
                return None
            return table.take_seat(seat, name, code)

        table, new = self.change(game_id, take)
        if not table.waiting:
            self.store.unlist_waiting(table.ruleset.id, table.id)
        return table, seat, new

    def withdraw(self, game_id: str, token: str | None) -> None:
        """Delete a game that waits for players, at its creator's request (the token of a seat
        given at creation): it leaves the lobby, and every request about it answers 404."""
        token = require_token(token)
        for _ in range(MAX_ATTEMPTS):
            table = self.load(game_id)
            seat = table.authenticate(token)
            if table.initial_seats[seat].token_hash is None:
                raise Problem(403, "not_the_creator", "not_the_creator", params={"seat": seat})
            if not table.waiting:
                raise Problem(409, "game_started", "game_started")
            commit = self.store.withdraw(game_id, table.version)
            if commit.missing:
                raise Problem(404, "unknown_game", "unknown_game", params={"game": repr(game_id)})
            if commit.written:
                self.store.unlist_waiting(table.ruleset.id, game_id)
                return
        raise Problem(409, "busy", "busy")

    def leave(self, game_id: str, token: str | None, level: str | None) -> Table:
        token = require_token(token)
        return self.change(game_id, lambda table: table.leave(table.authenticate(token), level))[0]

    def lobby(self, ruleset_id: str | None, limit: int, before: float | None) -> tuple[list[Table], float | None]:
        """Public games with open seats, newest first: (a page, the cursor of the next page or None).

        Entries of games that filled up or expired (their last request did not get to unlist
        them) are dropped on the way."""
        ruleset = registry.get(ruleset_id).id if ruleset_id else None
        page: list[Table] = []
        cursor = before
        while len(page) < limit:
            entries = self.store.waiting(ruleset, limit - len(page), cursor)
            for game_id, created in entries:
                stored = self.store.load(game_id)
                table = Table.from_stored(game_id, stored) if isinstance(stored, Stored) else None
                if table is not None and table.waiting:
                    page.append(table)
                else:
                    self.store.unlist_waiting(table.ruleset.id if table is not None else ruleset, game_id)
                cursor = created
            if len(entries) < limit:
                return page, None
        return page, cursor

    def rematch(self, game_id: str, token: str | None) -> tuple[Table, int, str]:
        """The next match of a finished one (made by the first seat that asks): same seats,
        options and levels, the first dealer moved on. Each human seat takes its place with its
        old token and gets a new one; (the new game, the seat, its new token)."""
        token = require_token(token)
        old = self.load(game_id)
        seat = old.authenticate(token)
        if not (old.finished or old.forfeit is not None):
            raise Problem(409, "game_not_finished", "rematch_too_soon")
        if old.rematch is None:
            # a human seat is kept for its token, open until that token asks (a seat that left to
            # a computer included); a computer seat stays the same computer
            records = [
                SeatRecord(record.name, None, None, open=True, code_hash=record.token_hash)
                if record.token_hash is not None
                else SeatRecord(record.name, record.bot, None)
                for record in old.seats
            ]
            made = self._store_new(old.ruleset, old.options, records, next_dealer_seed(old), "server", old.clock)
            # two seats asking at once: the first link stands, the other's new game is never used
            old, _ = self.change(game_id, lambda table: table.rematch or table.seat_event({"type": "rematch", "game": made.id}))
        rematch_id = old.rematch
        assert rematch_id is not None
        table, new_token_ = self.change(rematch_id, lambda table: table.take_seat(seat, old.seats[seat].name, token))
        return table, seat, new_token_

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
                    "stale_version",
                    params={"version": table.version},
                    current_version=table.version,
                )
            start = table.version
            table.act(seat, action)
            replied = table.computer_to_act() is not None
            # the committed view: the answer when no computer replies, and a retry's answer
            view = table.view(seat) if idempotency_key or not replied else None
            answer = (seat, idempotency_key, {"fingerprint": fingerprint, "view": view}) if idempotency_key else None
            commit, after = self._commit_and_follow(table, start, answer)
            if commit.written:
                if replied:
                    return after.view(seat), False
                assert view is not None  # computed above whenever no computer replies
                return view, False
            if commit.earlier_answer is not None:
                return self._replay(commit.earlier_answer, fingerprint), True
            if commit.missing:
                raise Problem(404, "unknown_game", "unknown_game", params={"game": repr(game_id)})
            if if_match is not None:
                raise Problem(
                    412,
                    "stale_version",
                    "moved_on",
                    params={"version": commit.version},
                    current_version=commit.version,
                )
        raise Problem(409, "busy", "busy")

    @staticmethod
    def _replay(earlier: Mapping[str, Any], fingerprint: str) -> dict[str, Any]:
        if earlier["fingerprint"] != fingerprint:
            raise Problem(
                422,
                "idempotency_key_reused",
                "idempotency_key_reused",
            )
        return earlier["view"]

    def expire(self, game_id: str) -> bool:
        """Enforce the clock of a game whose deadline is scheduled as due: if the seat to act has
        let it pass, the table's ``on_timeout`` acts (one compare-and-set; an action that came
        first wins, and the clock restarts). Whether a timeout was applied."""
        for _ in range(MAX_ATTEMPTS):
            try:
                table = self.load(game_id)
            except Problem as problem:
                if problem.status not in (404, 410):
                    raise
                self.store.unschedule_clock(game_id, self.clock())
                return False
            deadline = table.deadline()
            if deadline is None or deadline > table.now:
                if deadline is None:
                    self.store.unschedule_clock(game_id, table.now)
                else:
                    self.store.schedule_clock(game_id, deadline)
                return False
            start = table.version
            table.time_out(self.store, self.settings)
            if self.commit(table, start).written:
                table.committed()
                if table.deadline() is None:
                    self.store.unschedule_clock(game_id, table.now)
                return True
        return False

    def _commit_and_follow(
        self, table: Table, expected_version: int | None, idempotency: tuple[int, str, dict[str, Any]] | None = None
    ) -> tuple[Commit, Table]:
        """:meth:`commit`, and once written the game as the computers' replies left it if they
        come within the reply wait (a simple client sees them at once), else as committed."""
        with self.announcements.waiting(table.id, table.version) as replies:  # before the commit: no reply is missed
            commit = self.commit(table, expected_version, idempotency)
            if commit.written:
                table.committed()
                table = self._after_computers(table, replies)
        return commit, table

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

    def play_computers(self, game_ids: Sequence[str]) -> Played:
        """:meth:`play_computer` for several games (a worker's batch of jobs): read in one round
        trip, decided one after the other, written together (one round trip, and one sync of
        Redis's append-only file for them all). A game whose move cannot be made is logged and
        skipped (as idle): it would fail on every worker."""
        moves: list[tuple[Table, int]] = []
        played = Played(set(), {})
        thinking_since = time.monotonic()
        for game_id, stored in zip(game_ids, self.store.load_many(list(game_ids))):
            try:
                move = self._computer_move(game_id, stored)
            except RedisError:
                raise  # the batch stays claimed: it falls due again when the lease ends
            except Exception:
                log.exception("the computer move in game %s failed", game_id)
                move = None
            if move is not None:
                moves.append(move)
            else:
                played.idle[game_id] = stored.version if stored is not None else None
            if moves and time.monotonic() - thinking_since > BATCH_THINKING_SECONDS:
                # long thinking (experts) does not hold up the moves decided before it
                self._commit_moves(moves, played)
                moves, thinking_since = [], time.monotonic()
        self._commit_moves(moves, played)
        return played

    def _computer_move(self, game_id: str, stored: Stored | Legacy | None) -> tuple[Table, int] | None:
        """The game with its computer's move applied, and the version it was read at; None if
        no computer is to move (or the game is gone)."""
        if stored is None:
            return None
        table = Table.from_stored(game_id, stored) if isinstance(stored, Stored) else self._read(game_id)
        table.length_cap = (self.settings.max_deals, self.settings.max_versions)  # as load sets them
        table.now = self.clock()
        seat = table.computer_to_act()
        if seat is None:
            return None
        level = table.seats[seat].bot
        assert level is not None  # computer_to_act names only computer seats
        action = table.decide(self.store, self.settings, seat, level)
        start = table.version
        table.act(seat, action)
        return table, start

    def _commit_moves(self, moves: list[tuple[Table, int]], played: Played) -> None:
        """:meth:`commit` for the moves of a batch, in one round trip."""
        writes = []
        for table, start in moves:
            table.start_turn()
            writes.append(
                self.store.prepare(
                    table.id, start, table.version, table.snapshot(), bytes(table.appended),
                    ttl_seconds=self.ttl(table), computer_due=table.computer_to_act() is not None,
                )
            )
        for (table, _), commit in zip(moves, self.store.commit_all(writes) if writes else []):
            if commit.written:
                table.committed()
                played.written.add(table.id)
                deadline = table.deadline()
                if deadline is not None:  # beside the compare-and-set, as in commit
                    self.store.schedule_clock(table.id, deadline)

    def hint(self, game_id: str, token: str | None) -> tuple[Table, int, Action]:
        """The expert's suggestion for the caller's seat, decided from that seat's information.
        The thinking runs off the request loop, so that other requests go on meanwhile."""
        table = self.load(game_id)
        seat = table.authenticate(require_token(token))
        if table.over:
            raise Problem(409, "game_over", "game_over")
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
            # a waiting request holds no copy of the game: thousands wait at once, and each of the
            # collector's full passes walks everything they hold, stalling them all meanwhile
            del table
            version = self.wait_for_version(game_id, after, min(wait, self.settings.max_wait_seconds), waiter)
        if version is None or version <= after:
            return self.load(game_id), seat
        return (self.load_announced(game_id, version) or self.load(game_id)), seat

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
            if remaining <= 0 or self.announcements.closing:
                break
            waiter.wait(remaining)
            # nothing newer announced: the wait ended, or the subscription was renewed, and the store says
            version = waiter.newer_than(after) if waiter.newer_than(after) > after else self.store.version(game_id)
        return version
