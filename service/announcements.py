"""New versions as they are committed: one Redis subscription per process, fanned out in-process.

Every commit publishes the game's new version (with the actions it appended to the log) on that
game's channel. A process subscribes once,
to the pattern of every game's channel, and wakes the requests waiting on that game: a long-poll
or an event stream waits on an in-process event and holds no thread and no Redis connection of
its own. Under ``koz serve`` (gevent) the listener and the waiting requests are greenlets; under
a threaded server or the tests, threads.

What the subscription hears also vouches for the games this process committed last: a copy of
each is kept, and taken for the store's by the process's next change of the game while nothing
else of it was heard (:meth:`Announcements.last_committed`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from redis.exceptions import RedisError

from .store import GameStore

log = logging.getLogger(__name__)

#: games whose latest announced version a process keeps (the most recently announced)
HEARD_KEPT = 16384
#: games a process keeps as it last committed them (the most recently committed)
COMMITTED_KEPT = 4096


def parse_announcement(data: bytes) -> tuple[int, tuple[int, bytes] | None]:
    """A commit's announcement (``<version> <version written over> <log entries>``, see the
    store's commit script): the new version, and (the version written over, the entries
    appended); None for a new game."""
    version, _, rest = data.partition(b" ")
    over, _, entries = rest.partition(b" ")
    return int(version), (int(over), entries) if over and over != b"new" else None


class Waiter:
    """One waiting request: woken when its game passes the version it has."""

    def __init__(self, after: int) -> None:
        self.after = after
        #: the highest version announced since the waiter began, if any
        self.announced: int | None = None
        #: the changes announced: version written over -> (new version, the log entries appended)
        self.changes: dict[int, tuple[int, bytes]] = {}
        #: the subscription was renewed (or the process is closing) since the last :meth:`renewed`:
        #: announcements may have been missed, and only the store can tell
        self._renewed = False
        self._event = threading.Event()  # looked up now: gevent's when the process is patched

    def wait(self, timeout: float) -> None:
        """Until an announcement passes ``after`` (or the subscription was renewed), or ``timeout``.
        A wake-up is a reason to look, not the answer: the caller reads what was announced, and the
        store when the subscription was renewed (:meth:`renewed`)."""
        self._event.wait(timeout)
        self._event.clear()

    def renewed(self) -> bool:
        """Whether the subscription was renewed since this was last asked (asking resets it)."""
        renewed, self._renewed = self._renewed, False
        return renewed

    def newer_than(self, version: int) -> int:
        """The highest version announced since the waiter began, if it passes ``version``; else ``version``."""
        return self.announced if self.announced is not None and self.announced > version else version

    def _wake(self, version: int | None, change: tuple[int, bytes] | None = None) -> None:
        if version is None:
            self._renewed = True
        else:
            self.announced = max(version, self.announced or version)
            if change is not None:
                # only the changes past what the waiter has may still be asked for: a stream
                # that waits on one game for a whole match keeps a few, not all
                self.changes = {over: known for over, known in self.changes.items() if over >= self.after}
                self.changes[change[0]] = (version, change[1])
        self._event.set()


@dataclass(eq=False)
class Committed:
    """A game as this process commits it: the version written over and the new one, the setup
    (JSON) and the snapshot (packed) as stored. Trusted once the commit is ``written`` and its
    own announcement ``heard``: until then a commit of another process may have come first."""

    over: int
    version: int
    setup: bytes
    snapshot: bytes
    #: the engine's state as committed (immutable, and what the snapshot holds dumped): the next
    #: change made here starts from it instead of loading the snapshot's again
    state: Any = None
    written: bool = False
    heard: bool = False
    #: its announcement, heard before the commit's answer: the waiters it wakes are held until
    #: the commit is settled, so that they find what the committing request offers them once written
    held: tuple[int, tuple[int, bytes] | None] | None = None


class Announcements:
    """The process's subscription to every game's channel, and the requests waiting on it."""

    def __init__(self, store: GameStore, *, retry_seconds: float = 1.0, idle_seconds: float = 30.0) -> None:
        self.store = store
        self.retry_seconds = retry_seconds
        #: the subscription ends after this long without waiters or announcements
        self.idle_seconds = idle_seconds
        self._waiters: dict[str, set[Waiter]] = {}
        # held only for dictionary updates, never across I/O: safe between greenlets too
        self._lock = threading.Lock()
        self._listening_in: int | None = None  # the process whose listener runs (none survives a fork)
        #: the subscription that is up (confirmed), with its process, and what it heard since: the
        #: latest version announced of each game, and when (by :attr:`clock`)
        self._subscription: tuple[int, Any] | None = None
        self._heard: OrderedDict[str, tuple[int, float]] = OrderedDict()
        #: the games this process committed last, while the subscription hears nothing else of them
        self._committed: OrderedDict[str, Committed] = OrderedDict()
        self.clock = time.monotonic
        self._stopped = False
        #: the process is stopping: no request waits any more (see :meth:`close`)
        self.closing = False

    @contextmanager
    def waiting(self, game_id: str, after: int) -> Iterator[Waiter]:
        """A waiter for ``game_id``, registered before the caller reads the store, so that no
        announcement falls between that read and the wait."""
        waiter = Waiter(after)
        pid = os.getpid()
        with self._lock:
            self._waiters.setdefault(game_id, set()).add(waiter)
            start = self._listening_in != pid
            self._listening_in = pid
        if start:
            threading.Thread(target=self._run, name="koz-announcements", daemon=True).start()
        if self.closing:
            waiter._wake(None)
        try:
            yield waiter
        finally:
            with self._lock:
                waiters = self._waiters.get(game_id)
                if waiters is not None:
                    waiters.discard(waiter)
                    if not waiters:
                        del self._waiters[game_id]

    def heard(self, game_id: str) -> tuple[int, float] | None:
        """The latest version of ``game_id`` announced since the subscription last came up here,
        and how many seconds ago; None if it is not up or heard nothing of the game. Asked by a
        registered waiter, it is the stored version but for a commit whose announcement is still
        on its way (it wakes the waiter), a subscription lost and not yet renewed (the renewal
        wakes the waiter), or the game's expiry since (never announced: the caller weighs the age)."""
        with self._lock:
            up = self._subscription is not None and self._subscription[0] == os.getpid()
            known = self._heard.get(game_id) if up else None
        return None if known is None else (known[0], self.clock() - known[1])

    def expect_commit(self, game_id: str, committed: Committed) -> None:
        """Keep what this process is about to commit of ``game_id``, for its next change here
        (made before the commit: its announcement may be heard before the commit's answer). Trusted
        once it is :meth:`settled` as written and the subscription hears its announcement;
        forgotten when the subscription hears any other of the game first or since (another
        process's move, the game withdrawn, a new game under its id) or is lost."""
        with self._lock:
            if self._subscription is None or self._subscription[0] != os.getpid():
                return  # nothing heard here could confirm it, or tell that it was passed
            self._committed[game_id] = committed
            self._committed.move_to_end(game_id)
            if len(self._committed) > COMMITTED_KEPT:
                self._committed.popitem(last=False)

    def settled(self, game_id: str, committed: Committed, written: bool) -> None:
        """The commit expected by :meth:`expect_commit` was ``written``, or not (then another
        process's commit of the same versions may have been heard as its announcement); the
        waiters its announcement would have woken meanwhile are woken now."""
        with self._lock:
            if self._committed.get(game_id) is committed:
                if written:
                    committed.written = True
                else:
                    del self._committed[game_id]
            held, committed.held = committed.held, None
            waiters = [] if held is None else [waiter for waiter in self._waiters.get(game_id, ()) if waiter.after < held[0]]
        if held is not None:
            for waiter in waiters:
                waiter._wake(*held)

    def last_committed(self, game_id: str) -> Committed | None:
        """The game as this process last committed it, if the subscription heard that commit's
        announcement and nothing of the game since: the store's, but for a commit whose
        announcement is still on its way (a compare-and-set over it fails)."""
        with self._lock:
            up = self._subscription is not None and self._subscription[0] == os.getpid()
            committed = self._committed.get(game_id) if up else None
        return committed if committed is not None and committed.written and committed.heard else None

    @property
    def waiting_count(self) -> int:
        with self._lock:
            return sum(len(waiters) for waiters in self._waiters.values())

    def stop(self) -> None:
        """End the subscription (within two seconds); for the tests, which make many apps."""
        self._stopped = True

    def close(self) -> None:
        """Wake every waiting request, and from now on let none wait: the process is stopping
        (SIGTERM), and a long-poll answers with the game as it is rather than be cut unanswered."""
        self.closing = True
        self._wake_all()

    def _run(self) -> None:
        while not self._stopped:
            pubsub = self.store.redis.pubsub()
            try:
                pubsub.psubscribe(self.store.channel_pattern)
                idle_since = time.monotonic()
                while not self._stopped:
                    message = pubsub.get_message(timeout=2.0)  # within the client's socket timeout
                    if message is not None and message["type"] == "psubscribe":
                        # (re)subscribed: whatever was announced before, the waiters re-read;
                        # what was heard before may have been passed by what was missed since
                        self._hearing(pubsub)
                        self._wake_all()
                    elif message is not None:
                        self._announce(message)
                        idle_since = time.monotonic()
                    elif time.monotonic() - idle_since > self.idle_seconds and self._no_waiters_left():
                        return  # the next waiter subscribes again
            except (RedisError, OSError) as error:
                if self._no_waiters_left():
                    return  # nobody to wake: the next waiter subscribes again
                log.warning("announcements: subscription lost (%s); subscribing again", type(error).__name__)
                time.sleep(self.retry_seconds)
            finally:
                self._not_hearing(pubsub)  # announcements may be missed from now on
                try:
                    pubsub.close()
                except (RedisError, OSError):
                    pass

    def _hearing(self, pubsub: Any) -> None:
        """``pubsub``'s subscription came up (again): what was heard before may have been passed
        by what was missed since, and is forgotten."""
        with self._lock:
            self._subscription = (os.getpid(), pubsub)
            self._heard.clear()
            self._committed.clear()

    def _not_hearing(self, pubsub: Any) -> None:
        """``pubsub``'s subscription ends: what it heard is no longer kept up to date (a listener
        started since, with a subscription of its own, keeps its own)."""
        with self._lock:
            if self._subscription is not None and self._subscription[1] is pubsub:
                self._subscription = None
                self._heard.clear()
                self._committed.clear()

    def _no_waiters_left(self) -> bool:
        """True (and the listener marked as gone) when nobody waits, under the lock that a new
        waiter takes to register: a waiter either finds the listener gone or is heard by it."""
        with self._lock:
            if self._waiters:
                return False
            self._listening_in = None
            return True

    def _announce(self, message: dict[str, Any]) -> None:
        channel = message["channel"]
        game_id = self.store.game_of_channel(channel.decode() if isinstance(channel, bytes) else channel)
        if game_id is None:
            return
        try:
            version, change = parse_announcement(message["data"])
        except (TypeError, ValueError):
            return
        heard_at = self.clock()
        with self._lock:
            # heard and the waiters taken together: a waiter registered since finds it heard
            self._heard[game_id] = (version, heard_at)
            self._heard.move_to_end(game_id)
            if len(self._heard) > HEARD_KEPT:
                self._heard.popitem(last=False)
            committed = self._committed.get(game_id)
            if committed is not None:
                if not committed.heard and change is not None and (change[0], version) == (committed.over, committed.version):
                    committed.heard = True
                    if not committed.written:  # its answer is on its way: the commit wakes the waiters once settled
                        committed.held = (version, change)
                        return
                else:  # passed by a commit not made here, or not this game any more
                    del self._committed[game_id]
            waiters = [waiter for waiter in self._waiters.get(game_id, ()) if waiter.after < version]
        for waiter in waiters:
            waiter._wake(version, change)

    def _wake_all(self) -> None:
        with self._lock:
            waiters = [waiter for waiters in self._waiters.values() for waiter in waiters]
        for waiter in waiters:
            waiter._wake(None)
