"""Random full-deal playouts per second of the engine, per game and variant.

    python bench/engine.py [--seconds 5]

Each playout deals a new match and plays uniformly random legal actions until its first deal is
over, through the public interface (legal_actions, apply); nothing is serialized.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import registry  # noqa: E402

VARIANTS = [
    ("german-whist", "default", {}),
    ("sixty-six", "sixty-six", {"variant": "sixty-six"}),
    ("sixty-six", "schnapsen", {"variant": "schnapsen"}),
    ("partnership-batak", "default", {}),
]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time spent on each variant")
    args = parser.parse_args()
    print(f"{'game':18} {'variant':10} {'deals/s':>10} {'actions/s':>10}")
    for ruleset_id, label, raw_options in VARIANTS:
        ruleset = registry.get(ruleset_id)
        options = ruleset.parse_options(raw_options)
        rng = random.Random(0)
        deals = actions = 0
        started = time.perf_counter()
        while (elapsed := time.perf_counter() - started) < args.seconds:
            actions += playout(ruleset, options, f"bench-{deals}", rng)
            deals += 1
        print(f"{ruleset_id:18} {label:10} {deals / elapsed:10.0f} {actions / elapsed:10.0f}", flush=True)


if __name__ == "__main__":
    main()
