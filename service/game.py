"""One game as the service keeps it: the aggregate that every change goes through.

A :class:`Game` is one game read from the store: its setup (ruleset, options, seats, seed), a
snapshot of its state, and the changes a request makes to it (new actions, in the log's compact
encoding). It knows its seats, its status, its turn clock and how a seat acts; it does no I/O:
the repository (:mod:`service.repository`) reads it and commits it, and hands it whatever else it
needs (the time of the request, the cap on a match's length). The engine decides everything
about the game; this module only calls its interface.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Sequence

from engine import Action, Event, RuleError, Ruleset, action_log
from engine.players import player, standard_level

from .refusals import Refused
from .metrics import ACTIONS
from .replay import action_event
from .tokens import authenticated_seat, new_token, seat_of, token_hash



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


@dataclass
class DealBase:
    """Where the current deal can be replayed from: the log offset of the action that dealt it,
    and the state before that action (None: the first deal, which a new game deals)."""

    offset: int
    state: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """As the snapshot keeps it: the state shared, not copied (asdict's deep copy of a whole
        state was 3-5% of a move's web CPU in a match of several deals), for it is packed at once."""
        return {"offset": self.offset, "state": self.state}


class Game:
    """One game: what the store keeps of it, and the changes made since it was read."""

    def __init__(
        self,
        game_id: str,
        ruleset: Ruleset[Any],
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
        salt: str | None = None,
        host: str | None = None,
        arena: bool = False,
        now: float,
        length_cap: tuple[int, int] | None,
        deal_events: list[Event] | None = None,
    ) -> None:
        self.id = game_id
        self.ruleset = ruleset
        self.options = options
        #: the seats as created (the setup), and as they are now, after the seat events
        self.initial_seats = [replace(seat) for seat in seats]  # copies (asdict's deep copy took 6 times as long)
        self.seats = seats
        self.seed_source = seed_source
        #: a random secret of the game, in its setup only: what a seat's token taken with an
        #: Idempotency-Key is derived with beside the key (None: a game stored before it was kept)
        self.salt = salt
        #: a hash of the address that created the game while it waits for players (its count
        #: of waiting games is kept under it); None for a game that never waited
        self.host = host
        #: an arena match: the commit that ends it records so in the game's slot (:mod:`.due`),
        #: where the arena's pass finds the matches to settle
        self.arena = arena
        #: the turn clock, as created: ``seconds_per_action``, ``bank``, ``on_timeout``; None: untimed
        self.clock = clock
        #: the timed turn now: ``{"seat", "version", "since", "banks"}`` while a human is to act
        #: (``since`` in seconds of the epoch; ``banks``: each seat's bank left), else
        #: ``{"seat": None, "banks"}``
        self.turn = turn
        #: the time of this request (the repository's clock, which tests inject)
        self.now = now
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
        self.length_cap = length_cap
        #: the log entries of the actions taken since the game was read
        self.appended = bytearray()
        #: the current deal's events, once known (a new game's, or replayed for a computer)
        self.deal_events = deal_events

    @classmethod
    def new(
        cls,
        game_id: str,
        ruleset: Ruleset[Any],
        options: dict[str, Any],
        seats: list[SeatRecord],
        seed: str,
        seed_source: str = "server",
        *,
        clock: dict[str, Any] | None = None,
        now: float,
        length_cap: tuple[int, int] | None,
        created_at: str | None = None,
        host: str | None = None,
        arena: bool = False,
    ) -> "Game":
        state, events = ruleset.new_game(options, seed)
        game = cls(
            game_id, ruleset, options, seats, state, seed=seed, deal_base=DealBase(0, None), seed_source=seed_source,
            clock=clock, now=now, length_cap=length_cap, created_at=created_at, deal_events=[], salt=secrets.token_hex(16), host=host,
            arena=arena,
        )
        game._record(events)
        return game

    def committed(self) -> None:
        """Note that everything up to the current version is in the store."""
        for seat, _ in action_log.decode(bytes(self.appended)):
            ACTIONS.labels(self.ruleset.id, "human" if self.seats[seat].bot is None else "computer").inc()
        self.stored_version = self.version
        self.appended = bytearray()

    def follow(self, version: int, entries: bytes) -> bool:
        """Apply what another process committed over this game's version (its log ``entries``,
        as announced), reaching ``version`` as stored, without reading the game again: the engine
        is deterministic. False if it does not come out at ``version``; the game is then
        unusable and is read again."""
        if self.appended or self.stored_version != self.version or self.clock is not None:
            return False  # (a turn clock restarts at the writer's time, which the entries do not tell)
        try:
            for seat, action in action_log.decode(entries):
                self.act(seat, Action.from_json(action))
        except (RuleError, Refused, ValueError, KeyError, IndexError, TypeError):  # entries this game cannot follow
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
        return authenticated_seat(token, [seat.token_hash for seat in self.seats])

    def acting_seat(self, token: str) -> int:
        """The seat of a bearer token that means to act (or ask for a hint): a 401 for a token of
        no seat here, a 409 ``seat_left`` while a computer plays the seat it left."""
        seat = self.authenticate(token)
        if self.seats[seat].bot is not None:
            raise Refused("seat_left", "seat_left_acting", params={"seat": seat})
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
            "sides": self.ruleset.sides(),
        }
        if self.abandoned:
            view.update(status="abandoned", to_act=[], legal_actions=[], winners=[])
        elif (forfeit := self.forfeit) is not None:
            view.update(status="forfeited", to_act=[], legal_actions=[], winners=forfeit["winners"])
        elif self.waiting:
            view.update(status="waiting", to_act=[], legal_actions=[])
        elif seat is not None and self.seats[seat].bot is not None:
            view.update(legal_actions=[])  # a computer plays the seat it left, until it takes it back
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

    @property
    def deadline_passed(self) -> bool:
        """Whether the seat to act let its deadline pass, its timeout not yet applied."""
        deadline = self.deadline()
        return deadline is not None and deadline <= self.now

    def start_turn(self) -> None:
        """Start the clock of a human seat that has just come to act (each action is a turn of
        its own); it does not run while a computer acts or the game waits."""
        if self.clock is None:
            return
        banks = self._banks()
        to_act = [] if self.over or self.waiting else self.ruleset.to_act(self.state)
        if not to_act or self.seats[to_act[0]].bot is not None:
            self.turn = {"seat": None, "banks": banks}
        elif self.turn is None or self.turn["seat"] != to_act[0] or self.turn["version"] != self.version:
            self.turn = {"seat": to_act[0], "version": self.version, "since": self.now, "banks": banks}

    def _spend_bank(self, seat: int) -> None:
        """What an action took past ``seconds_per_action`` comes off the seat's bank."""
        if self.clock is None or self.turn is None or self.turn["seat"] != seat:
            return
        overtime = max(0.0, self.now - self.turn["since"] - self.clock["seconds_per_action"])
        self.turn["banks"][seat] = max(0.0, self.turn["banks"][seat] - overtime)

    def time_out(self) -> int | None:
        """The seat to act let its deadline pass: the game's ``on_timeout`` decides. The seat a
        computer must now act for (once), or None when the seat forfeited the match."""
        assert self.clock is not None and self.turn is not None
        seat = self.turn["seat"]
        self.turn["banks"][seat] = 0.0
        if self.clock["on_timeout"] == "forfeit":
            winners = sorted(other for side in self.ruleset.sides() if seat not in side for other in side)
            self.seat_event({"type": "timeout", "seat": seat, "on_timeout": "forfeit", "winners": winners})
            return None
        self.seat_event({"type": "timeout", "seat": seat, "on_timeout": "computer"})
        return int(seat)

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

    def take_seat(self, seat: int, name: str | None, code: str | None, token: str | None = None) -> str:
        """Take an open seat (with its join code if it has one); its new token. ``token``: the
        token to give it, derived from what the caller holds, so that asking again answers the
        same: a seat already taken with that very token is answered as it is, changing nothing."""
        record = self._seat(seat)
        if token is not None and record.token_hash is not None and seat_of(token, [record.token_hash]) == 0:
            return token
        if not record.open:
            created = self.initial_seats[seat]
            why = "seat_not_open" if created.open else "computer_seat_never_open" if created.bot else "human_seat_never_open"
            raise Refused("seat_taken", why, params={"seat": seat})
        if record.code_hash is not None and code is None:
            raise Refused("invalid_join_code", "join_code_missing", params={"seat": seat})
        if record.code_hash is not None and seat_of(code or "", [record.code_hash]) != 0:
            raise Refused("invalid_join_code", "join_code_wrong", params={"seat": seat})
        token = token or new_token()
        name = name or self.ruleset.default_seat_name(seat, human=True)
        self.seat_event({"type": "seat_taken", "seat": seat, "name": name}, token_hash(token))
        return token

    def leave(self, seat: int, level: str | None) -> None:
        """Hand ``seat`` to a computer of ``level`` (None: the ruleset's standard one) for the rest
        of the match (its token may take it back)."""
        if self.over:
            raise Refused("game_over", "game_over")
        if self.seats[seat].bot is not None:
            raise Refused("seat_left", "seat_left", params={"seat": seat})
        level = level or standard_level(self.ruleset.id)
        player(level, self.ruleset.id)  # refuses a level the ruleset does not have
        self.seat_event({"type": "left", "seat": seat, "level": level})

    def rejoin(self, seat: int) -> None:
        """The seat's token takes back a seat it left to a computer."""
        if self.over:
            raise Refused("game_over", "game_over")
        if self.seats[seat].bot is None:
            raise Refused("seat_taken", "seat_played_by_token", params={"seat": seat})
        self.seat_event({"type": "rejoined", "seat": seat})

    def _seat(self, seat: int) -> SeatRecord:
        if not 0 <= seat < len(self.seats):
            raise Refused("unknown_seat", "unknown_seat", params={"last": len(self.seats) - 1})
        return self.seats[seat]

    # --- changes ----------------------------------------------------------------------------

    def act(self, seat: int, action: Action) -> None:
        """Apply one action through the engine (a refusal raises and changes nothing)."""
        if self.abandoned:
            raise Refused("game_over", "abandoned")
        if self.waiting:
            raise Refused("waiting_for_players", "waiting_for_players")
        if self.forfeit is not None:
            raise Refused("game_over", "forfeited")
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
                self.deal_events = []
            if self.deal_events is not None:
                self.deal_events.append(event)

    def computer_to_act(self) -> int | None:
        """The seat to act now if a computer plays it, else None (one seat acts at a time)."""
        if self.over or self.waiting:
            return None
        to_act = self.ruleset.to_act(self.state)
        return to_act[0] if to_act and self.seats[to_act[0]].bot is not None else None

    @property
    def has_human(self) -> bool:
        return any(seat.bot is None for seat in self.seats)


def check_presentable(game: Game) -> None:
    """A new game is stored only if every seat's view of it can be sent: a game that could not
    be shown would answer errors for as long as it lives."""
    try:
        for seat in [None, *range(len(game.seats))]:
            json.dumps(game.view(seat), ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as error:  # UnicodeEncodeError is a ValueError
        raise Refused("invalid_request", "not_shown") from error
