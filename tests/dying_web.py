"""``koz`` whose web process kills itself (SIGKILL) right after the first commit that leaves a
computer to act: the test hook that makes the moment of a crash exact. Run as
``python tests/dying_web.py serve --port P --workers 0``."""

from __future__ import annotations

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from service import store  # noqa: E402
from service.cli import main  # noqa: E402

#: the index in a commit's arguments of its "a computer is due" flag (see store.COMMIT_SCRIPT)
COMPUTER_DUE = 9
_commit_all = store.GameStore.commit_all


def commit_all_then_die(self: store.GameStore, writes: list[store.Prepared]) -> list[store.Commit]:
    commits = _commit_all(self, writes)
    if any(commit.written and write.args[COMPUTER_DUE] == "1" for write, commit in zip(writes, commits)):
        os.kill(os.getpid(), signal.SIGKILL)  # between the commit and anything after it
    return commits


if __name__ == "__main__":
    # only when run as the web process: pytest imports this module too (doctests)
    store.GameStore.commit_all = commit_all_then_die  # type: ignore[method-assign]
    main(sys.argv[1:])
