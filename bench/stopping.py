"""How a long benchmark stops: through its cleanup, whatever signal a terminal or a supervisor sends.

Its own module, without imports of its own, so that every bench can take it: ``bench/store.py``
keeps this folder off ``sys.path`` once it has it (the folder's ``engine.py`` would hide the
engine package), and ``bench/api.py`` patches the standard library with gevent first.
"""

from __future__ import annotations

import signal
import sys


def stop_on_signals() -> None:
    """SIGINT or SIGTERM stop the run through its cleanup (its clients, the servers it started and
    their data folders), even when it was started in the background, where SIGINT comes ignored. Once
    stopping, it ignores them: a second one (``timeout`` sends its signal to the run and to its
    process group, a second Ctrl-C) would break the cleanup off half-way."""

    def stop(number: int, _frame: object) -> None:
        for each in (signal.SIGINT, signal.SIGTERM):
            signal.signal(each, signal.SIG_IGN)
        sys.exit(128 + number)

    for each in (signal.SIGINT, signal.SIGTERM):
        signal.signal(each, stop)
