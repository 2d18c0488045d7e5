"""``koz worker`` with a test hook that makes the moment of a crash exact. Run as
``python tests/dying_worker.py worker --redis-url URL`` with ``KOZ_TEST_WORKER`` set to:

- ``dies``: the worker kills itself (SIGKILL) right after the arena's first recorded result: the
  result and its ratings are written, the accounts not yet told, the match not yet dropped;
- ``waits:<path>``: the worker makes no arena pass until the file ``<path>`` exists (it starts
  beside a dying one, and takes over only once that one is dead).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from service.arena.matchmaker import Matchmaker  # noqa: E402
from service.arena.store import ArenaStore  # noqa: E402
from service.cli import main  # noqa: E402

_record = ArenaStore.record
_take_turn = Matchmaker.take_turn


def record_then_die(self: ArenaStore, *args: Any, **kwargs: Any) -> tuple[int, str]:
    outcome, text = _record(self, *args, **kwargs)
    if outcome == 1:  # this call wrote the result: die before anything after it
        os.kill(os.getpid(), signal.SIGKILL)
    return outcome, text


def take_turn_once_told(self: Matchmaker, worker: str, seconds: float) -> bool:
    return os.path.exists(os.environ["KOZ_TEST_WORKER"].removeprefix("waits:")) and _take_turn(self, worker, seconds)


if __name__ == "__main__":
    # only when run as the worker: pytest imports this module too (doctests)
    if os.environ["KOZ_TEST_WORKER"] == "dies":
        ArenaStore.record = record_then_die  # type: ignore[method-assign]
    else:
        Matchmaker.take_turn = take_turn_once_told  # type: ignore[method-assign]
    main(sys.argv[1:])
