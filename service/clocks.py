"""Turn clocks enforced with no request coming: a check the worker runs on a schedule.

Every change of a timed game schedules the deadline of its seat to act in one sorted set of the
store (:meth:`GameStore.schedule_clock`). :func:`enforce` takes the games whose deadline has
passed and times each out through :meth:`Tables.expire` (one compare-and-set, so an action that
arrives first wins). :func:`run` calls it every ``interval`` seconds until stopped: a process
beside the service runs it (``koz clocks``), never a thread of a web request.
"""

from __future__ import annotations

import logging
import threading

from .errors import Problem
from .tables import Tables

log = logging.getLogger("koz.clocks")

#: seconds between two checks: how late a timeout may be applied, at most
CHECK_INTERVAL = 0.5


def enforce(tables: Tables) -> int:
    """Time out every game whose deadline has passed; how many timeouts were applied."""
    applied = 0
    for game_id in tables.store.due_clocks(tables.clock()):
        try:
            applied += tables.expire(game_id)
        except Problem as problem:  # the game kept changing, or the store is unavailable: next round
            log.warning("clock of game %s not enforced: %s", game_id, problem.code)
    return applied


def run(tables: Tables, stop: threading.Event, interval: float = CHECK_INTERVAL) -> None:
    """Enforce the clocks every ``interval`` seconds until ``stop`` is set."""
    while not stop.wait(interval):
        try:
            enforce(tables)
        except Exception:  # a Redis outage must not end the loop: the next round retries
            log.exception("enforcing the turn clocks failed")
