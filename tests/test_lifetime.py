"""A process started by Koz ends with the one that started it: the kernel is asked to signal it
when its parent ends, and a parent that ended before the asking is noticed at once. Each case
runs in a child Python, since the request applies to the process that makes it."""

from __future__ import annotations

import errno
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from service import lifetime
from tests.test_serve_lifetime import wait_until

pytestmark = pytest.mark.skipif(lifetime._prctl is None, reason="prctl(PR_SET_PDEATHSIG) is Linux's")


def python(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def test_a_child_whose_parent_ended_before_it_asked_is_signalled_at_once():
    # a parent id that is not its parent: as if the parent ended between the fork and the request
    child = python(
        """
        import os, signal, time
        from service.lifetime import end_with_parent
        end_with_parent(os.getppid() + 1_000_000, signal.SIGTERM)
        time.sleep(30)
        """
    )
    try:
        assert child.wait(20) == -signal.SIGTERM
    finally:
        child.kill()


def test_a_child_whose_parent_lives_goes_on_and_is_signalled_when_the_parent_ends():
    # the child starts a grandchild that asks to end with it, then the child ends
    child = python(
        """
        import os, signal, subprocess, sys
        from service.lifetime import ending_with_this_thread
        grandchild = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(30)"], preexec_fn=ending_with_this_thread(signal.SIGKILL)
        )
        print(grandchild.pid, flush=True)
        sys.stdin.readline()
        os._exit(0)
        """
    )
    grandchild = int(child.stdout.readline())
    time.sleep(0.3)
    assert _alive(grandchild)  # its parent lives
    child.stdin.write("end\n")
    child.stdin.flush()
    assert child.wait(20) == 0
    wait_until(lambda: not _alive(grandchild), 10, "the grandchild outlived its parent")


def test_a_request_the_kernel_refuses_is_an_error_not_ignored():
    with pytest.raises(OSError) as refused:
        lifetime.end_with_parent(0, 1000)  # no such signal: the kernel refuses, and nothing is set
    assert refused.value.errno == errno.EINVAL


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: its parent is gone, so init reaps it soon)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
