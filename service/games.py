"""What a request can do to games: create, take and leave seats, rematch, act, list the lobby.

:class:`Games` is the service's one entry to the games: each operation reads a game through the
:class:`~service.repository.Repository`, changes it through the :class:`~service.game.Game`
aggregate and commits it in one compare-and-set. An expert computer never thinks in a web request:
a commit that leaves a computer to move records it as due in the same script, and a worker makes
the move through :class:`~service.computers.Computers`; the computers that decide without
searching reply to a person's action (or open a new game) within its request, in its commit.
Reads never write.
"""

from __future__ import annotations

import functools
import hashlib
import json
import secrets
import time
from typing import Any, Callable, Mapping

from engine import Action, RuleError, registry
from engine.players import player, standard_level
from engine.ruleset import Ruleset
from engine.shuffle import first_dealer
from engine.texts import Said

from .computers import Computers
from .config import Settings
from .refusals import Refused
from .game import Game, SeatRecord, check_presentable
from .repository import MAX_ATTEMPTS, Repository
from .store import GameStore, Stored
from .tokens import derived_token, new_token, require_token, token_hash
from .waiting import Waiting


def new_join_code() -> str:
    """The code that takes an open seat of a private game: 96 random bits, short enough to pass on."""
    return secrets.token_urlsafe(12)


def next_dealer_seed(game: Game) -> str:
    """A fresh seed whose first dealer is the seat after the finished match's first dealer:
    drawn until one fits (a few draws; the seed stays secret and random)."""
    wanted = (first_dealer(game.seed, len(game.seats)) + 1) % len(game.seats)
    while True:
        seed = secrets.token_hex(16)
        if first_dealer(seed, len(game.seats)) == wanted:
            return seed


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


class Games:
    """The games of one store: the repository, the computers and the waits, and the operations
    of the API on them."""

    def __init__(self, store: GameStore, settings: Settings, timer: Callable[[], float] = time.time) -> None:
        self.repository = Repository(store, settings, timer)
        self.computers = Computers(self.repository)
        self.waiting = Waiting(self.repository)
        self.store = store
        self.settings = settings
        self.announcements = self.repository.announcements

    @property
    def timer(self) -> Callable[[], float]:
        """The time now, in seconds of the epoch: what turn clocks are read against (tests inject one)."""
        return self.repository.timer

    @timer.setter
    def timer(self, timer: Callable[[], float]) -> None:
        self.repository.timer = timer

    def create(
        self,
        ruleset_id: str,
        options: Mapping[str, Any] | None,
        seats: list[Mapping[str, Any]] | None,
        seed: str | None,
        *,
        private: bool = False,
        clock: Mapping[str, Any] | None = None,
        address: str | None = None,
    ) -> tuple[Game, dict[int, str], dict[int, str]]:
        """A new game, the tokens of its human seats and the join codes of its open seats (a
        private game's); both returned once, never stored. A game with an open seat counts among
        the waiting games of the client ``address`` (at most ``max_waiting_games_per_address``)."""
        self.repository.refuse_creation_when_full()
        ruleset = registry.get(ruleset_id)
        parsed = ruleset.parse_options(options)
        if seats is None:
            computer = {"bot": standard_level(ruleset.id)}
            seats = [{} if index in ruleset.standard_human_seats else computer for index in range(ruleset.seat_count)]
        records, tokens, codes = self._seat_records(ruleset, seats, private, lambda _: new_token())
        source = "client" if seed else "server"
        chosen = seed or secrets.token_hex(16)
        game_id = self.store.new_game_id()
        host = self._reserve_waiting(address, game_id) if codes else None
        try:
            game = self.repository.store_new(
                lambda new_id: self._with_replies(self.repository.new_game(ruleset, parsed, records, chosen, source, clock, new_id, host)),
                game_id,
            )
        except BaseException:
            if host is not None:
                self.store.release_waiting(host, game_id)
            raise
        if codes and not private and seed is None:
            self.store.list_waiting(ruleset.id, game.id)
        return game, tokens, {index: code for index, code in codes.items() if code}

    def refuse_creation_when_full(self) -> None:
        """A 503 ``capacity`` when the store is nearly full, as creating a game is refused then:
        asked by the arena before it takes out what a game is made of (seeks, a challenge), which a
        full store might not take back; read now, not as a second ago."""
        self.repository.refuse_creation_when_full(fresh=True)

    def refuse_when_full(self) -> None:
        """A 503 ``capacity`` when the store refuses writes: asked by the arena before it takes
        out what it then tells someone of (a challenge declined, withdrawn or expired)."""
        self.repository.refuse_when_full()

    def create_arena_games(
        self,
        ruleset_id: str,
        games: list[tuple[Mapping[str, Any] | None, list[Mapping[str, Any]], str | None]],
        clock: Mapping[str, Any],
        token_for: Callable[[str, int], str],
    ) -> list[Game]:
        """Arena games, each ``(options, seats, seed)`` with no open seat, made together and
        stored in one round trip (the pairings of one pass of the arena); the token of each
        person's seat is ``token_for(game id, seat)``."""
        self.repository.refuse_creation_when_full()
        ruleset = registry.get(ruleset_id)
        made: dict[int, Game] = {}
        for _ in range(MAX_ATTEMPTS):
            built = []
            for index, (options, seats, seed) in enumerate(games):
                if index in made:
                    continue
                game_id = self.store.new_game_id()
                records, _, _ = self._seat_records(ruleset, seats, False, functools.partial(token_for, game_id))
                new = self.repository.new_game(
                    ruleset, ruleset.parse_options(options), records, seed or secrets.token_hex(16), "client" if seed else "server",
                    clock, game_id, arena=True,
                )
                check_presentable(new)
                built.append((index, self._with_replies(new)))
            for (index, game), written in zip(built, self.repository.store_new_games([game for _, game in built])):
                if written:  # (not: its id was taken meanwhile; made again under another)
                    made[index] = game
            if len(made) == len(games):
                return [made[index] for index in range(len(games))]
        raise Refused("storage_unavailable", "store_failed")

    def _seat_records(
        self, ruleset: Ruleset[Any], seats: list[Mapping[str, Any]], private: bool, token_for: Callable[[int], str]
    ) -> tuple[list[SeatRecord], dict[int, str], dict[int, str]]:
        """The seats of a new game as stored, the tokens of its persons' seats (``token_for(seat)``)
        and the join codes of its open seats ("" for a public game's)."""
        if len(seats) != ruleset.seat_count:
            raise Refused(
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
                raise Refused("invalid_seats", "open_and_computer", params={"seat": index})
            if level is not None:
                player(level, ruleset.id)  # refuses a level the ruleset does not have
            elif seat.get("open"):
                codes[index] = new_join_code() if private else ""
            else:
                tokens[index] = token_for(index)
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
        return records, tokens, codes

    def _with_replies(self, game: Game) -> Game:
        """``game`` after the moves its quick computers make at once (a computer that leads)."""
        self.computers.reply_in_request(game)
        return game

    def _reserve_waiting(self, address: str | None, game_id: str) -> str | None:
        """Count a new waiting game among its address's (the host under which they are counted),
        or a 429 when the address keeps as many waiting as it may."""
        if address is None:
            return None
        host = hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        ttl = min(self.settings.waiting_game_ttl_seconds, self.settings.game_ttl_seconds)
        cap = self.settings.max_waiting_games_per_address
        if not self.store.reserve_waiting(host, game_id, self.timer() + ttl, cap, ttl):
            raise Refused("too_many_waiting_games", "too_many_waiting_games", params={"cap": cap})
        return host

    def take_seat(
        self, game_id: str, seat: int, token: str | None, name: str | None, code: str | None, idempotency_key: str | None = None
    ) -> tuple[Game, int, str | None]:
        """Take an open seat (its new token), or with the seat's own token take back a seat it
        left (no new token); (game, seat, token). With an ``idempotency_key``, the token is
        derived from it: asking again with the same key answers the same seat and token."""

        def take(game: Game) -> str | None:
            if token is not None:
                if game.authenticate(token) != seat:
                    raise Refused("not_your_seat", "not_your_seat", params={"seat": seat})
                game.rejoin(seat)
                return None
            given = None
            if idempotency_key is not None and game.salt is not None:
                given = derived_token(idempotency_key, "seat", game.id, str(seat), game.salt)
            return game.take_seat(seat, name, code, given)

        self._apply_a_passed_deadline(game_id)
        game, new = self.repository.change(game_id, take)
        if not game.waiting:
            self.stopped_waiting(game)
        return game, seat, new

    def stopped_waiting(self, game: Game) -> None:
        """A game that no longer waits for players leaves the lobby and its address's count."""
        self.store.unlist_waiting(game.ruleset.id, game.id)
        if game.host is not None:
            self.store.release_waiting(game.host, game.id)

    def withdraw(self, game_id: str, token: str | None) -> None:
        """Delete a game that waits for players, at its creator's request (the token of a seat
        given at creation): it leaves the lobby, and every request about it answers 404."""
        token = require_token(token)
        for _ in range(MAX_ATTEMPTS):
            game = self.repository.load(game_id)
            seat = game.authenticate(token)
            if game.initial_seats[seat].token_hash is None:
                raise Refused("not_the_creator", "not_the_creator", params={"seat": seat})
            if not game.waiting:
                raise Refused("game_started", "game_started")
            commit = self.store.withdraw(game_id, game.version)
            if commit.missing:
                raise Refused("unknown_game", "unknown_game", params={"game": repr(game_id)})
            if commit.written:
                self.stopped_waiting(game)
                return
        raise Refused("busy", "busy")

    def leave(self, game_id: str, token: str | None, level: str | None) -> Game:
        token = require_token(token)
        self._apply_a_passed_deadline(game_id)
        return self.repository.change(game_id, lambda game: game.leave(game.authenticate(token), level))[0]

    def _apply_a_passed_deadline(self, game_id: str) -> None:
        """Before a seat changes hands, the timeout of a deadline that passed with no worker to
        apply it comes first, as it does before a late action: a seat that let its forfeit
        deadline pass cannot leave its match to a computer instead."""
        game = self.repository.load(game_id)
        if game.deadline_passed:
            self.time_out(game)

    def lobby(self, ruleset_id: str | None, limit: int, before: float | None) -> tuple[list[Game], float | None]:
        """Public games with open seats, newest first: (a page, the cursor of the next page or None).

        Entries of games that filled up or expired (their last request did not get to unlist
        them) are dropped on the way."""
        ruleset = registry.get(ruleset_id).id if ruleset_id else None
        page: list[Game] = []
        cursor = before
        while len(page) < limit:
            entries = self.store.waiting(ruleset, limit - len(page), cursor)
            for game_id, created in entries:
                stored = self.store.load(game_id)
                game = self.repository.from_stored(game_id, stored) if isinstance(stored, Stored) else None
                if game is not None and game.waiting:
                    page.append(game)
                else:
                    self.store.unlist_waiting(game.ruleset.id if game is not None else ruleset, game_id)
                cursor = created
            if len(entries) < limit:
                return page, None
        return page, cursor

    def rematch(self, game_id: str, token: str | None) -> tuple[Game, int, str]:
        """The next match of a finished one (made by the first seat that asks): same seats,
        options and levels, the first dealer moved on. Each human seat takes its place with its
        old token and gets a new one; (the new game, the seat, its new token)."""
        token = require_token(token)
        old = self.repository.load(game_id)
        seat = old.authenticate(token)
        if not (old.finished or old.forfeit is not None):
            raise Refused("game_not_finished", "rematch_too_soon")
        if old.rematch is None:
            self.repository.refuse_creation_when_full()  # (a new game, as any other)
            # a human seat is kept for its token, open until that token asks (a seat that left to
            # a computer included); a computer seat stays the same computer
            records = [
                SeatRecord(record.name, None, None, open=True, code_hash=record.token_hash)
                if record.token_hash is not None
                else SeatRecord(record.name, record.bot, None)
                for record in old.seats
            ]
            seed = next_dealer_seed(old)
            made = self.repository.store_new(
                lambda new_id: self.repository.new_game(old.ruleset, old.options, records, seed, "server", old.clock, new_id)
            )

            def link(game: Game) -> None:
                if game.rematch is None:  # two seats asking at once: the first link stands, the other's new game is never used
                    game.seat_event({"type": "rematch", "game": made.id})

            old, _ = self.repository.change(game_id, link)
        rematch_id = old.rematch
        assert rematch_id is not None
        # the new token is derived from the old one: asking again answers the same
        given = derived_token(token, "rematch", rematch_id, str(seat))
        game, new_token_ = self.repository.change(rematch_id, lambda game: game.take_seat(seat, old.seats[seat].name, token, given))
        return game, seat, new_token_

    def act(
        self,
        game_id: str,
        token: str | None,
        action_json: Mapping[str, Any],
        *,
        if_match: str | None = None,
        decided_on: int | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Apply a seat's action and the computer moves it brings on; the seat's new view.
        ``if_match`` (a request's header) or ``decided_on`` (a play connection's message's
        version): the version the action was decided on, refused 412 if the game moved past it.

        Returns (view, replayed): ``replayed`` is True when an earlier request with the same
        idempotency key had already applied it.
        """
        token = require_token(token)
        copy_allowed = True
        for _ in range(MAX_ATTEMPTS):
            if copy_allowed:
                game, copy = self.repository.load_to_change(game_id)
            else:
                game, copy = self.repository.load(game_id), False
            # any attempt after this one reads the store: the copy was passed, or refused
            copy_allowed = False
            try:
                seat = game.acting_seat(token)
                action = Action.from_json(action_json)
                fingerprint = _fingerprint(seat, action.to_json())
                if idempotency_key is not None:
                    earlier = self.store.idempotent_answer(game_id, seat, idempotency_key)
                    if earlier is not None:
                        return self._replay(earlier, fingerprint), True
                if (if_match is not None and not version_matches(if_match, game.version)) or decided_on not in (None, game.version):
                    raise Refused(
                        "stale_version",
                        "stale_version" if if_match is not None else "stale_message_version",
                        params={"version": game.version},
                        current_version=game.version,
                    )
            except Refused:
                if copy:  # a refusal is the store's word: the copy may be behind it
                    continue
                raise
            if game.deadline_passed:
                # the clock's turn came first: its timeout is applied, in one compare-and-set as
                # a worker would; the late seat's action is refused, another seat's tried anew
                late = game.turn["seat"] if game.turn else None
                if self.time_out(game) and late == seat:
                    raise Refused("deadline_passed", "deadline_passed", params={"seat": seat})
                continue
            start = game.version
            try:
                game.act(seat, action)
            except (Refused, RuleError):
                if copy:
                    continue
                raise
            self.computers.reply_in_request(game)
            game.start_turn()  # before the answer is rendered: it shows the clock of the seat now to act
            replied = game.computer_to_act() is not None
            # the committed view: the answer when no computer replies, and a retry's answer
            view = game.view(seat) if idempotency_key or not replied else None
            answer = (seat, idempotency_key, {"fingerprint": fingerprint, "view": view}) if idempotency_key else None
            commit, after = self.repository.commit_and_follow(game, start, answer)
            if commit.written:
                # the seat's next long-poll asks after the version answered here: it need not read the whole game
                self.waiting.remember_seating(after)
                if replied:
                    return after.view(seat), False
                assert view is not None  # computed above whenever no computer replies
                return view, False
            if commit.earlier_answer is not None:
                return self._replay(commit.earlier_answer, fingerprint), True
            if commit.missing:
                raise Refused("unknown_game", "unknown_game", params={"game": repr(game_id)})
            if if_match is not None or decided_on is not None:
                raise Refused(
                    "stale_version",
                    "moved_on",
                    params={"version": commit.version},
                    current_version=commit.version,
                )
        raise Refused("busy", "busy")

    def time_out(self, game: Game) -> bool:
        """Apply the timeout of ``game``'s seat to act, whose deadline has passed, and commit it;
        whether it was written (another request may have moved first)."""
        start = game.version
        self.computers.time_out(game)
        if not self.repository.commit(game, start).written:
            return False
        game.committed()
        if game.deadline() is None:
            self.store.unschedule_clock(game.id, game.now)
        return True

    @staticmethod
    def _replay(earlier: Mapping[str, Any], fingerprint: str) -> dict[str, Any]:
        if earlier["fingerprint"] != fingerprint:
            raise Refused(
                "idempotency_key_reused",
                "idempotency_key_reused",
            )
        view: dict[str, Any] = earlier["view"]
        return view
