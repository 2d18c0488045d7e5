"""Processes that end with the process that started them, however it ended: a SIGKILL, the OOM
killer or a crash included, when it has no chance to stop anything itself.

On Linux the kernel does it: a child asks (``prctl(PR_SET_PDEATHSIG)``) for a signal when its
parent ends. The parent is the *thread* that forked the child, so ``koz serve`` starts its
children from threads that live as long as the service (its main thread, and one thread per
worker process). Elsewhere nothing is set, and a worker still watches its parent itself
(``koz worker --with-parent``).
"""

from __future__ import annotations

import ctypes
import os
from typing import Callable

#: prctl's option "send me this signal when my parent ends" (linux/prctl.h)
PR_SET_PDEATHSIG = 1


def _find_prctl() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return None


# looked up once, before any fork: a child just forked only calls it
_prctl = _find_prctl()


def end_with_parent(parent: int, signal_number: int) -> None:
    """In a process just forked from ``parent``: have the kernel send this process
    ``signal_number`` when its parent ends, and send it now if the parent ended already (between
    the fork and this call)."""
    if _prctl is None:
        return
    if _prctl(PR_SET_PDEATHSIG, signal_number, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os.kill(os.getpid(), signal_number)


def ending_with_this_thread(signal_number: int) -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen`: the child is sent ``signal_number`` when
    the calling thread (or its whole process) ends."""
    parent = os.getpid()
    return lambda: end_with_parent(parent, signal_number)
