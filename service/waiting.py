"""Requests that wait for a game to move on: long-polls, event streams, and an action's answer
that waits for the computers' replies. Each waits on the process's one subscription to the
announcements (:mod:`service.announcements`), never on a thread or a loop of reads of its own.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from .announcements import Waiter
from .encoding import json_bytes
from .shared import Rendered, SharedRenders
from .tokens import authenticated_seat

if TYPE_CHECKING:
    from .game import Game
    from .repository import Repository

#: games whose seats' token hashes a process keeps (the latest version of each)
SEATINGS_KEPT = 4096


def after_computers(repository: Repository, game: Game, replies: Waiter) -> Game:
    """The game once the computers have replied, if they do within the reply wait (and a human
    is there to answer), else as committed: a simple client sees the replies at once, and no
    request waits long for the computers' thinking. ``replies`` was waiting on the game since
    before ``game`` was committed."""
    if not game.has_human:
        return game
    deadline = time.monotonic() + repository.settings.reply_wait_seconds
    while game.computer_to_act() is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        if replies.announced is None or replies.announced <= game.version:
            replies.wait(remaining)
            if replies.announced is None or replies.announced <= game.version:
                # a wake-up left over from a reply already followed, or the wait's end: wait on
                # (the store may hold a reply whose announcement is still on its way, and reading
                # the game for it is what following the replies saves)
                if not replies.renewed():
                    continue
                # the subscription was renewed: what was announced meanwhile is lost, the store says
                if (repository.store.version(game.id) or 0) <= game.version:
                    continue
        change = replies.changes.pop(game.version, None)
        if change is None or not game.follow(*change):
            game = repository.load(game.id)
        replies.after = game.version
    return game


def nothing_to_do(view: dict[str, Any]) -> bool:
    """Whether the seat of ``view`` has no action to take while the game goes on: what an action
    asked to wait for the seat's next turn waits past."""
    return view["status"] == "active" and not view["legal_actions"]


@dataclass(frozen=True)
class ShownView:
    """A seat's view as a long-poll answers it (JSON), and whether it leaves the seat nothing to
    do (what a waiting action waits past, known without reading the JSON back)."""

    json: bytes
    nothing_to_do: bool


def shown_view(game: Game, seat: int | None) -> Rendered[ShownView]:
    """``seat``'s view of ``game`` (None: a spectator's) as a long-poll answers it."""
    view = game.view(seat)
    return Rendered(game.version, ShownView(json_bytes(view), nothing_to_do(view)))


class Waiting:
    """Long-polls and event streams: a game read once it passes a version."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        #: what the requests woken by one announcement send alike: a long-poll's view (JSON) by
        #: (game, seat); a stream's messages (the text, whether it ends the stream) by (game, seat, after)
        self.views: SharedRenders[ShownView] = SharedRenders()
        self.stream_messages: SharedRenders[tuple[bytes, bool]] = SharedRenders()
        #: the seats' token hashes of a game at a version, by game: what a long-poll asking again
        #: after the version it was just shown needs to know whose it is before it waits, without
        #: reading and building the whole game (a table's long-polls all ask again at once)
        self._seatings: OrderedDict[str, tuple[int, tuple[str | None, ...]]] = OrderedDict()
        self._seatings_lock = threading.Lock()  # held only for dictionary updates
        #: the seats (None: a spectator) long-polling each game here, and how many of each
        self._waiting_seats: dict[str, Counter[int | None]] = {}
        repository.on_written.append(self._render_for_waiters)
        #: how long the subscription's word on a game's version is taken for the store's: a game
        #: expires unannounced, no sooner than the shortest time to live after its last commit
        settings = repository.settings
        self.heard_trusted_seconds = min(settings.game_ttl_seconds, settings.finished_game_ttl_seconds, settings.waiting_game_ttl_seconds) / 2

    def remember_seating(self, game: Game) -> None:
        """Keep ``game``'s seats' token hashes at its version, for the long-polls that wait on it next."""
        hashes = tuple(seat.token_hash for seat in game.seats)
        with self._seatings_lock:
            known = self._seatings.get(game.id)
            if known is None or known[0] <= game.version:
                self._seatings[game.id] = (game.version, hashes)
                self._seatings.move_to_end(game.id)
            while len(self._seatings) > SEATINGS_KEPT:
                self._seatings.popitem(last=False)  # the least recently kept first

    def _seating(self, game_id: str, version: int) -> tuple[str | None, ...] | None:
        with self._seatings_lock:
            known = self._seatings.get(game_id)
        return known[1] if known is not None and known[0] == version else None

    def watch_view(self, game_id: str, token: str | None, wait: float, after: int | None) -> Rendered[ShownView]:
        """The caller's view, as JSON, once the game's version passes ``after`` or ``wait`` ends.
        The long-polls that one announcement wakes share one rendering of each seat's view."""
        game, seat, announced = self._until_passed(game_id, token, wait, after)
        if game is None:
            assert announced is not None
            shared = self.views.get((game_id, seat), announced, lambda: self._render_view(game_id, seat, announced))
            if shared is not None:
                return shared
            game = self.repository.load(game_id)  # gone since the announcement: 404
        return shown_view(game, seat)

    def watch_turn(self, game_id: str, token: str, wait: float, after: int) -> Rendered[ShownView]:
        """The seat's view, as JSON, once a version after ``after`` has the seat to act or the game
        over, or when ``wait`` ends (the game as it then is): an action's answer that spares a bot
        the long-polls of the other seats' moves. Each version passed is a long-poll's, shared alike."""
        deadline = time.monotonic() + min(wait, self.repository.settings.max_wait_seconds)
        while True:
            shown = self.watch_view(game_id, token, deadline - time.monotonic(), after)
            if shown.version <= after or time.monotonic() >= deadline:
                return shown
            if not shown.value.nothing_to_do:
                return shown
            after = shown.version

    def _render_view(self, game_id: str, seat: int | None, version: int) -> Rendered[ShownView] | None:
        game = self.repository.load_announced(game_id, version)
        if game is None:
            return None
        self.remember_seating(game)  # the long-polls it answers ask again after this version
        return shown_view(game, seat)

    def _until_passed(self, game_id: str, token: str | None, wait: float, after: int | None) -> tuple[Game | None, int | None, int | None]:
        """Wait until the game's version passes ``after`` or ``wait`` ends: (the game, the caller's
        seat, None) when the game was read at hand, or (None, the seat, the version announced)
        when an announcement woke the request (the game is then read by whoever renders it)."""
        repository = self.repository
        if after is None or wait <= 0:
            game = repository.load(game_id)
            return game, game.viewer(token), None
        with repository.announcements.waiting(game_id, after) as waiter:
            # read after registering: no announcement is missed. At the version the caller has,
            # only whose token it is matters: the seats' hashes at that version, if known here
            # (none for a spectator), spare reading and building the whole game, and the store
            # is asked only its version; not even that when the process's subscription last heard
            # of the game at that version (a table's long-polls asking again after each move).
            # Seats unknown there, the version alone would not do: the whole game is read at once
            hashes = () if token is None else self._seating(game_id, after)
            stored_version = None if hashes is None else self._heard_version(game_id)
            if hashes is not None and stored_version != after:
                stored_version = repository.store.version(game_id)
            if hashes is None or stored_version is None or stored_version > after:
                game = repository.load(game_id)
                self.remember_seating(game)
                seat = game.viewer(token)
                if game.version > after:
                    return game, seat, None
                # a waiting request holds no copy of the game: thousands wait at once, and each of the
                # collector's full passes walks everything they hold, stalling them all meanwhile
                del game
            else:
                seat = None if token is None else authenticated_seat(token, hashes)
            with self._waiting_as(game_id, seat):
                version = self.wait_for_version(game_id, after, min(wait, repository.settings.max_wait_seconds), waiter)
        if version is None or version <= after:
            return repository.load(game_id), seat, None
        return None, seat, version

    @contextmanager
    def _waiting_as(self, game_id: str, seat: int | None) -> Iterator[None]:
        with self._seatings_lock:
            self._waiting_seats.setdefault(game_id, Counter())[seat] += 1
        try:
            yield
        finally:
            with self._seatings_lock:
                seats = self._waiting_seats[game_id]
                seats[seat] -= 1
                if not seats[seat]:
                    del seats[seat]
                    if not seats:
                        del self._waiting_seats[game_id]

    def _render_for_waiters(self, game: Game) -> None:
        """The views of ``game``, just committed here, for the seats long-polling it here: offered
        before they are woken, they are not read back from the store nor built again."""
        with self._seatings_lock:
            seats = list(self._waiting_seats.get(game.id, ()))
        for seat in seats:
            self.views.offer((game.id, seat), shown_view(game, seat))

    def _heard_version(self, game_id: str) -> int | None:
        """The game's version as the process's subscription last heard it, if it is up and heard
        it lately enough to rule out an expiry since; else None. Taken for the store's by a
        registered waiter: a commit whose announcement is on its way, or a subscription renewed
        since (announcements lost), wakes the waiter, which then reads what it must."""
        heard = self.repository.announcements.heard(game_id)
        return heard[0] if heard is not None and heard[1] < self.heard_trusted_seconds else None

    def wait_for_version(self, game_id: str, after: int, timeout: float, waiter: Waiter | None = None) -> int | None:
        """The game's version once it passes ``after``, or when ``timeout`` seconds have passed
        (None if the game is gone). Waits on the process's one subscription. ``waiter``: one
        registered on the game since before the caller read it at ``after`` (an event stream
        keeps one), so that the store need not be read again to know that nothing was missed."""
        if waiter is None:
            with self.repository.announcements.waiting(game_id, after) as registered:
                return self._wait(registered, game_id, after, timeout, self.repository.store.version(game_id))
        waiter.after = after
        return self._wait(waiter, game_id, after, timeout, waiter.newer_than(after))

    def _wait(self, waiter: Waiter, game_id: str, after: int, timeout: float, version: int | None) -> int | None:
        deadline = time.monotonic() + timeout
        while version is not None and version <= after:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.repository.announcements.closing:
                break
            waiter.wait(remaining)
            if waiter.newer_than(after) > after:
                version = waiter.newer_than(after)
            elif waiter.renewed():
                # the subscription was renewed: what was announced meanwhile is lost, the store says
                version = self.repository.store.version(game_id)
            # else the wait ended with nothing announced: the version stands, unread (a thousand
            # streams' heartbeats, due at once, would otherwise each read the store)
        return version
