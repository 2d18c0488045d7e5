"""CPU-bound work in a request (the expert's hint) runs off a gevent process's event loop."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from service.offload import off_the_loop

ROOT = Path(__file__).resolve().parent.parent

#: in a process patched as koz serve's is: where the work ran, and whether other greenlets ran meanwhile
PATCHED = """
from gevent import monkey
monkey.patch_all()
import gevent
from service.offload import off_the_loop

native_ident = monkey.get_original("_thread", "get_ident")
ticks = []
ticker = gevent.spawn(lambda: [ticks.append(gevent.sleep(0.001)) for _ in range(10_000)])
gevent.sleep(0)

def work():
    ticks_before = len(ticks)
    sum(i * i for i in range(3_000_000))  # some 0.2 s of CPU, no I/O
    return native_ident(), len(ticks) - ticks_before

ran_in, ticks_meanwhile = off_the_loop(work)
print(ran_in != native_ident(), ticks_meanwhile > 0)
"""


def test_in_a_gevent_process_the_work_runs_in_another_thread_while_the_loop_serves_the_other_greenlets():
    run = subprocess.run([sys.executable, "-c", PATCHED], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True"], run.stdout


def test_in_a_threaded_server_the_work_runs_in_the_requests_own_thread_and_its_answer_is_returned():
    ran_in = []
    assert off_the_loop(lambda: ran_in.append(threading.get_ident()) or "decided") == "decided"
    assert ran_in == [threading.get_ident()]
