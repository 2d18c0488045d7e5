"""``bench/arena_levels.py`` runs for many minutes with six bots and a ``koz serve`` of its own;
stopped part-way, from a terminal (SIGINT to its process group) or by a supervisor (SIGTERM to it
alone, as ``kill`` sends it, or twice, as ``timeout`` does), it takes down everything it started
and the data folder it made. So do ``bench/arena.py``, which runs a crowd of bots the same way, ``bench/api.py``, whose
load runs against servers of its own, and ``bench/store.py``, which measures a checkout in a process
of its own against a redis-server it started."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.test_serve import alive
from tests.test_serve_lifetime import children, wait_until

pytestmark = [pytest.mark.redis_server, pytest.mark.slow]

BENCH = Path(__file__).resolve().parent.parent / "bench" / "arena_levels.py"
ARENA_BENCH = BENCH.with_name("arena.py")
API_BENCH = BENCH.with_name("api.py")
STORE_BENCH = BENCH.with_name("store.py")


def started_by(run: subprocess.Popen, folder: Path) -> list[int]:
    """The run's descendants, and the embedded redis-server (detached from them), whose
    socket is in ``folder``."""
    redis = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(folder) in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    redis.append(int(entry.name))
            except OSError:
                continue
    return sorted({*children(run.pid), *redis} - {run.pid})


def stop_twice(run: subprocess.Popen) -> None:
    """SIGTERM, and again while the run stops its bots and server: as ``timeout`` signals a
    command, once to it and once to its process group."""
    run.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    run.send_signal(signal.SIGTERM)


@pytest.fixture
def short_folder():
    """A temporary folder of a short path: the embedded redis-server's socket goes below it, and
    a Unix socket's path has at most 107 bytes (pytest's own folders under xdist are longer)."""
    folder = Path(tempfile.mkdtemp(prefix="koz-stop-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def assert_stopped_cleanly(
    folder: Path, arguments: list[str], running, at_least: int, stop, status: int, progress_on_stderr: bool = False
) -> None:
    """Runs the bench with ``arguments`` until its first line of output (of progress, with
    ``progress_on_stderr``) shows it ``running`` (with ``at_least`` processes started), stops it
    with ``stop``: it ends with ``status``, and nothing it started is left, process or data folder."""
    rest = folder / "rest-of-output"
    run = subprocess.Popen(
        [sys.executable, *arguments],
        stdout=rest.open("w") if progress_on_stderr else subprocess.PIPE,
        stderr=subprocess.PIPE if progress_on_stderr else rest.open("w"),
        text=True,
        env={**os.environ, "TMPDIR": str(folder)},
        start_new_session=True,  # SIGINT is not ignored in it, as in a background job
    )
    try:
        watched = run.stderr if progress_on_stderr else run.stdout
        assert watched is not None
        assert running(watched.readline()), rest.read_text()
        started = started_by(run, folder)
        assert len(started) >= at_least, started
        stop(run)
        assert run.wait(60) == status, rest.read_text() + watched.read()  # its traceback, if it failed
        wait_until(lambda: not any(alive(pid) for pid in started), 30, "the bench left processes running")
        assert not list(folder.glob("koz-bench-*"))
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()


@pytest.mark.parametrize(
    ("stop", "status"),
    [
        (lambda run: run.send_signal(signal.SIGTERM), 128 + signal.SIGTERM),
        (lambda run: os.killpg(run.pid, signal.SIGINT), 128 + signal.SIGINT),
        (stop_twice, 128 + signal.SIGTERM),
    ],
    ids=["sigterm-to-the-bench", "sigint-to-its-group", "sigterm-again-while-it-stops"],
)
def test_a_bench_stopped_while_its_bots_play_leaves_no_process_and_no_data_folder(short_folder, stop, status):
    # the first standing: the six bots are seeking (they, koz serve and its redis-server at least)
    arguments = [str(BENCH), "--matches", "50", "--trace", "0.5"]
    assert_stopped_cleanly(short_folder, arguments, lambda line: " s, " in line, 8, stop, status)


#: the six bots' logs of four matches, as `koz bot --arena` writes them (one JSON line each), in the bench's order of its bots
BOT_LOGS = {
    "random-1": [],
    "basic-3": [],
    "expert-4": [
        "match g1 started: seat 0 against ['basic-2']", "match g1: win, rating +1.20",
        "match g2 started: seat 1 against ['koz-expert']", "match g2: loss, rating -0.80",
        "match g3 started: seat 0 against ['expert-5']", "match g3: win, rating +0.10",
    ],
    "expert-5": ["match g3 started: seat 1 against ['expert-4']", "match g3: loss, rating -0.10"],
    "basic-2": [
        "match g1 started: seat 1 against ['expert-4']", "match g1: loss, rating -1.20",
        "match g4 started: seat 0 against ['random-0']", "match g4: draw, rating +0.00",
    ],
    "random-0": ["match g4 started: seat 1 against ['basic-2']", "match g4: draw, rating +0.00", "not a JSON line"],
}
TALLY = """
import io, json, sys
sys.path.insert(0, "bench")
import arena_levels
logs = json.loads(sys.argv[1])
names = [f"{level}-{number}" for number, level in enumerate(arena_levels.LEVELS)]
files = [io.StringIO("".join(json.dumps({"message": m}) + "\\n" if m.startswith("match") else m + "\\n" for m in logs[name])) for name in names]
print(json.dumps(arena_levels.pairings(files, names)))
"""


def test_the_levels_bench_counts_the_matches_each_pair_of_levels_met_and_how_the_stronger_fared():
    run = subprocess.run(
        [sys.executable, "-c", TALLY, json.dumps(BOT_LOGS)], cwd=BENCH.parent.parent, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    # [matches, won, lost, drawn] of the strongest bot level, between levels; the house is the house
    assert json.loads(run.stdout) == {
        "basic - expert": [1, 1, 0, 0],
        "expert - house": [1, 0, 1, 0],
        "expert - expert": [1, 0, 0, 0],
        "basic - random": [1, 0, 0, 1],
    }


def test_the_arena_crowd_bench_stopped_while_it_measures_leaves_no_process_and_no_data_folder(short_folder):
    # warmed up: the seeks are measured (koz serve and its redis-server at least)
    arguments = [str(ARENA_BENCH), "--accounts", "20", "--matches", "10", "--seconds", "30"]
    sigterm = lambda run: run.send_signal(signal.SIGTERM)  # noqa: E731
    assert_stopped_cleanly(short_folder, arguments, lambda line: line.startswith("this checkout"), 2, sigterm, 128 + signal.SIGTERM)


def test_the_load_bench_stopped_while_it_measures_leaves_no_process_and_no_data_folder(short_folder):
    # the first figure is out: the actions are measured next (koz serve and its redis-server at least)
    arguments = [str(API_BENCH), "--seconds", "2"]
    sigterm = lambda run: run.send_signal(signal.SIGTERM)  # noqa: E731
    started = lambda line: line.startswith("  GET /healthz")  # noqa: E731
    assert_stopped_cleanly(short_folder, arguments, started, 2, sigterm, 128 + signal.SIGTERM, progress_on_stderr=True)


def test_the_store_bench_stopped_while_it_measures_leaves_no_process_and_no_data_folder(short_folder):
    # a checkout is being measured (its process and the redis-server)
    sigterm = lambda run: run.send_signal(signal.SIGTERM)  # noqa: E731
    started = lambda line: line.startswith("measuring ")  # noqa: E731
    assert_stopped_cleanly(short_folder, [str(STORE_BENCH)], started, 2, sigterm, 128 + signal.SIGTERM, progress_on_stderr=True)


@pytest.mark.parametrize("bots", ["http", "wait"])
def test_the_arena_crowd_bench_measures_each_move_until_the_seat_to_act_next_holds_it(short_folder, bots):
    arguments = ["--accounts", "3", "--house-after", "0.2", "--matches", "2", "--clients", "2", "--seconds", "1", "--bots", bots]
    rounds = 2 if bots == "wait" else 1
    arguments += ["--rounds", str(rounds)]
    run = subprocess.run(
        [sys.executable, str(ARENA_BENCH), *arguments], capture_output=True, text=True, env={**os.environ, "TMPDIR": str(short_folder)}, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert any(line.startswith("  2 arena games at once, 4 bots over " + bots) for line in lines), run.stdout
    # the reference's action also paced as the bots are, one client a bot, and the moves' p99 against both
    assert any(line.startswith("  the same action paced as the arena's bots (") and ", 4 clients, " in line for line in lines), run.stdout
    moves = [line for line in lines if line.startswith("    a move until the seat to act next holds it: p50 ")]
    assert len(moves) == rounds, run.stdout
    # against the p99 bench/api.py holds at half load, and as ratios to the two measured beside it
    held = re.compile(
        r".*, p99 (\d+\.\d) ms: against the p99 bench/api.py holds at half load \(target <= 25.0 ms\) (ok|MISSED); "
        r"\d+\.\d\dx the half-load p99 measured above; \d+\.\d\dx the same action's paced as the bots$"
    )
    verdicts = [held.match(line) for line in moves]
    assert all(verdicts), run.stdout
    assert all((float(v[1]) <= 25) == (v[2] == "ok") for v in verdicts), run.stdout
    # over several rounds, each server's median p99, in how many rounds the target held, and the ratios (one round prints none)
    summary = re.compile(
        r"this checkout, over 2 rounds: a move's p99 median \d+\.\d ms \((\d+\.\d) ms-(\d+\.\d) ms\), within the target \(<= 25.0 ms\) "
        r"in ([012]) of 2; against the half-load p99 median .*; against the same action's paced as the bots median "
    )
    medians = [summary.match(line) for line in lines if line.startswith("this checkout, over ")]
    assert len(medians) == (rounds > 1) and all(medians), run.stdout
    for median in medians:
        assert int(median[3]) == sum(float(v[1]) <= 25 for v in verdicts), run.stdout
        assert sorted(float(p99) for p99 in median.group(1, 2)) == sorted(float(v[1]) for v in verdicts), run.stdout
    # a waiting action's answer comes with the other bot's move: it is no latency of the action's
    assert any(line.startswith("    action (request until its answer): p50 ") for line in lines) == (bots == "http"), run.stdout
    assert not list(short_folder.glob("koz-bench-*"))
