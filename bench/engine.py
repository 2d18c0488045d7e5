"""Random full-deal playouts per second of the engine, per game and variant.

    python bench/engine.py [--seconds 5] [--peer] [--baseline DIR]

Each playout deals a new match and plays uniformly random legal actions until its first deal is
over, through the public interface (legal_actions, apply); nothing is serialized.

``--peer`` also runs the VU schnapsen platform (RandBot against RandBot, one game = one deal) in
rounds interleaved with Koz's Schnapsen rounds, so that both see the same machine load, and
prints the ratio of Koz's deals/s to the peer's games/s. The peer runs under ``--peer-python``
(``make bench`` installs it in ``.venv-peer``: its pinned dependencies cannot share Koz's).

``--baseline DIR`` runs another Koz checkout's engine (say a git worktree of the commit before a
change) in the same process, in rounds interleaved with this one's (each side first in every other
round) on the same deals, both timed by the process's CPU time, and prints its deals/s and the
ratio: a change's cost, both sides under the same machine load.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import registry  # noqa: E402

VARIANTS = [
    ("german-whist", "default", {}),
    ("sixty-six", "sixty-six", {"variant": "sixty-six"}),
    ("sixty-six", "schnapsen", {"variant": "schnapsen"}),
    ("partnership-batak", "default", {}),
]
ROUND_SECONDS = 0.25  # short rounds: Koz and the peer see the same load, on a shared machine too


def playout(ruleset, options, seed: str, rng: random.Random) -> int:
    """Play the first deal of a new match; the number of actions it took."""
    state, _ = ruleset.new_game(options, seed)
    actions = 0
    while True:
        seat = rng.choice(ruleset.to_act(state))
        state, events = ruleset.apply(state, seat, rng.choice(ruleset.legal_actions(state, seat)))
        actions += 1
        if any(event.data["type"] == "deal_result" for event in events):
            return actions


class Koz:
    """Playouts of one variant, run a round at a time."""

    def __init__(self, ruleset_id: str, raw_options: dict, games: Any = registry, clock: Callable[[], float] = time.perf_counter) -> None:
        self.ruleset = games.get(ruleset_id)
        self.clock = clock
        self.options = self.ruleset.parse_options(raw_options)
        self.rng = random.Random(0)
        self.deals = self.actions = 0
        self.elapsed = 0.0

    def round(self, seconds: float) -> None:
        clock = self.clock
        started = clock()
        while (elapsed := clock() - started) < seconds:
            self.actions += playout(self.ruleset, self.options, f"bench-{self.deals}", self.rng)
            self.deals += 1
        self.elapsed += elapsed


def baseline_registry(directory: str) -> Any:
    """The registry of another checkout's engine, imported under another package name (its
    imports are relative), as ``bench/bots.py --baseline`` does."""
    home = Path(tempfile.mkdtemp(prefix="koz-baseline-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)  # its modules may be imported until then
    (home / "baseline_engine").symlink_to(Path(directory).resolve() / "engine")
    sys.path.insert(0, str(home))
    return importlib.import_module("baseline_engine").registry


class Peer:
    """The schnapsen platform in its own interpreter, run a round at a time."""

    def __init__(self, python: str) -> None:
        script = str(ROOT / "bench" / "schnapsen_peer.py")
        self.process = subprocess.Popen([python, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.games = 0
        self.elapsed = 0.0

    def round(self, seconds: float) -> None:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(f"{seconds}\n")
        self.process.stdin.flush()
        games, elapsed = self.process.stdout.readline().split()
        self.games += int(games)
        self.elapsed += float(elapsed)

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time spent on each variant (and on the peer)")
    parser.add_argument("--peer", action="store_true", help="also run the schnapsen platform, interleaved")
    parser.add_argument("--peer-python", default=str(ROOT / ".venv-peer" / "bin" / "python"))
    parser.add_argument("--baseline", help="another Koz checkout whose engine runs interleaved, for the ratio")
    args = parser.parse_args()
    baseline = baseline_registry(args.baseline) if args.baseline else None
    peer = Peer(args.peer_python) if args.peer else None
    if peer:
        peer.round(0.2)  # warm-up: imports and first games
        peer.games, peer.elapsed = 0, 0.0
    rounds = max(1, round(args.seconds / ROUND_SECONDS))
    print(f"{'game':18} {'variant':10} {'deals/s':>10} {'actions/s':>10}")
    for ruleset_id, label, raw_options in VARIANTS:
        if baseline is None:
            koz, old = Koz(ruleset_id, raw_options), None
        else:
            # both in this process: its CPU time, and each side first in every other round
            koz, old = Koz(ruleset_id, raw_options, clock=time.process_time), Koz(ruleset_id, raw_options, baseline, time.process_time)
        with_peer = peer is not None and label == "schnapsen"
        for number in range(rounds):
            if old is not None and number % 2:
                old.round(args.seconds / rounds)
            koz.round(args.seconds / rounds)
            if old is not None and not number % 2:
                old.round(args.seconds / rounds)
            if with_peer:
                peer.round(args.seconds / rounds)
        rate = koz.deals / koz.elapsed
        print(f"{ruleset_id:18} {label:10} {rate:10.0f} {koz.actions / koz.elapsed:10.0f}", flush=True)
        if old is not None:
            old_rate = old.deals / old.elapsed
            print(f"{'  baseline':18} {label:10} {old_rate:10.0f} {old.actions / old.elapsed:10.0f}  (ratio {rate / old_rate:.3f})", flush=True)
        if with_peer:
            peer_rate = peer.games / peer.elapsed
            print(f"{'VU schnapsen':18} {'RandBot':10} {peer_rate:10.0f}  (games/s, interleaved with the row above)")
            print(f"{'ratio':18} {'':10} {rate / peer_rate:10.2f}  (Koz Schnapsen deals/s / peer games/s)", flush=True)
    if peer:
        peer.close()


if __name__ == "__main__":
    main()
