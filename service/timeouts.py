"""Turn clocks enforced with no request coming: a check the worker runs on a schedule.

Every change of a timed game schedules the deadline of its seat to act in one sorted set of the
store, in the change's own compare-and-set (on a cluster, just after it: :meth:`GameStore.prepare`).
:func:`enforce` takes the games whose deadline has passed and times each out through
:func:`expire` (one compare-and-set, so an action that arrives first wins). :func:`run` calls it
every ``interval`` seconds until stopped, on a thread of each worker process (``koz worker``, and
the worker that ``koz serve`` starts), never in a web request.
"""

from __future__ import annotations

import logging
import threading

from .refusals import Refused
from .games import Games
from .repository import MAX_ATTEMPTS

log = logging.getLogger("koz.timeouts")

#: seconds between two checks: how late a timeout may be applied, at most
CHECK_INTERVAL = 0.5


def expire(games: Games, game_id: str) -> bool:
    """Enforce the clock of a game whose deadline is scheduled as due: if the seat to act has
    let it pass, the game's ``on_timeout`` acts (one compare-and-set; an action that came first
    wins, and the clock restarts). Whether a timeout was applied."""
    repository, store = games.repository, games.store
    for _ in range(MAX_ATTEMPTS):
        try:
            game = repository.load(game_id)
        except Refused as refused:
            if refused.code not in ("unknown_game", "game_unreadable"):
                raise
            store.unschedule_clock(game_id, repository.timer())
            return False
        deadline = game.deadline()
        if deadline is None or deadline > game.now:
            if deadline is None:
                store.unschedule_clock(game_id, game.now)
            else:
                store.schedule_clock(game_id, deadline)
            return False
        if games.time_out(game):
            return True
    return False


def enforce(games: Games) -> int:
    """Time out every game whose deadline has passed; how many timeouts were applied."""
    applied = 0
    for game_id in games.store.due_clocks(games.timer()):
        try:
            applied += expire(games, game_id)
        except Refused as refused:  # the game kept changing, or the store is unavailable: next round
            log.warning("clock of game %s not enforced: %s", game_id, refused.code)
    return applied


def run(games: Games, stop: threading.Event, interval: float = CHECK_INTERVAL) -> None:
    """Enforce the clocks every ``interval`` seconds until ``stop`` is set."""
    while not stop.wait(interval):
        try:
            enforce(games)
        except Exception:  # a Redis outage must not end the loop: the next round retries
            log.exception("enforcing the turn clocks failed")
