"""The peer of ``bench/engine.py --peer``: the VU schnapsen platform, RandBot against RandBot.

Run by the interpreter that has the ``schnapsen`` package (its pinned dependencies cannot share
Koz's environment). It reads a number of seconds per line on stdin, plays whole games (one game
is one deal) for that long and answers ``games seconds`` on stdout, so that the caller can
interleave it with its own rounds.
"""

from __future__ import annotations

import random
import sys
import time

from schnapsen.bots.rand import RandBot
from schnapsen.game import SchnapsenGamePlayEngine


def main() -> None:
    engine = SchnapsenGamePlayEngine()
    rng = random.Random(0)
    for line in sys.stdin:
        seconds = float(line)
        games = 0
        started = time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            engine.play_game(RandBot(rng), RandBot(rng), rng)
            games += 1
        print(games, elapsed, flush=True)


if __name__ == "__main__":
    main()
