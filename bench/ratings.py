"""The arena's ratings of Koz's levels, on the engine: two accounts of each level (random, basic,
expert) play rounds of rated matches with fixed seeds, rated as the arena rates them (OpenSkill,
partners in Batak); printed: each account's rating and uncertainty, and whether each pair of
levels is told apart (every gap wider than the two uncertainties). tests/test_arena_levels.py
runs it small.

    python bench/ratings.py --ruleset german-whist --rounds 60 --work 4000 --options '{"target": 20}'
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import registry
from engine.players import player
from engine.players.arena import play_match
from engine.players.base import Budget
from service.arena.ratings import Rating, rate

LEVELS = ["random", "random", "basic", "basic", "expert", "expert"]
#: the service ends a match past KOZ_MAX_DEALS (100) abandoned and the arena rates it a draw; a
#: Batak match of two random partners against two basic ones can go on for ever (both sides fail
#: their contracts, one ran past 280 deals): cut such a match shorter, to stay cheap
MAX_DEALS = 30


def rated_rounds(ruleset_id: str, options: dict[str, Any], rounds: int, seed: int, expert_work: int) -> list[Rating]:
    """Each account's rating after ``rounds`` rounds: each round the six accounts are seated in a
    drawn order, a table of the ruleset's seats at a time (in Batak one table of four: two sit
    the round out, and partners are the drawn order's seats 0 and 2, 1 and 3). A match past
    :data:`MAX_DEALS` deals ends drawn, as the service's cap ends one abandoned, without winners."""
    ruleset = registry.get(ruleset_id)
    ratings = [Rating() for _ in LEVELS]
    draw = random.Random(seed)
    for round_ in range(rounds):
        order = list(range(len(LEVELS)))
        draw.shuffle(order)
        for table in range(0, len(LEVELS) - ruleset.seat_count + 1, ruleset.seat_count):
            seats = order[table : table + ruleset.seat_count]
            players = [player(LEVELS[account], ruleset.id) for account in seats]
            budgets = {"expert": Budget(work=expert_work)}
            record = play_match(ruleset, options, f"levels-{round_}-{table}", players, timer=lambda: 0.0, budgets=budgets, max_deals=MAX_DEALS)
            winners = set(record.result.winners)
            outcomes = ["win" if seat in winners else "loss" if winners else "draw" for seat in range(len(seats))]
            for account, rating in zip(seats, rate([ratings[account] for account in seats], ruleset.sides(), outcomes)):
                ratings[account] = rating
    return ratings


def told_apart(ratings: list[Rating], strong: str, weak: str) -> bool:
    """Whether every account of level ``strong`` is above every one of ``weak`` by more than the two uncertainties."""
    return all(
        high.mu - low.mu > high.sigma + low.sigma
        for high, high_level in zip(ratings, LEVELS)
        for low, low_level in zip(ratings, LEVELS)
        if high_level == strong and low_level == weak
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="german-whist")
    parser.add_argument("--options", default="{}", help="the match's options, as JSON")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--work", type=int, default=30, help="each expert decision's counted budget")
    parser.add_argument("--seed", type=int, default=26)
    arguments = parser.parse_args()
    started = time.process_time()
    ratings = rated_rounds(arguments.ruleset, json.loads(arguments.options), arguments.rounds, arguments.seed, arguments.work)
    print(
        f"{arguments.ruleset} {arguments.options} rounds {arguments.rounds} expert work {arguments.work} seed {arguments.seed}: "
        f"{time.process_time() - started:.1f} s of CPU"
    )
    for level, rating in zip(LEVELS, ratings):
        print(f"  {level:7s} {rating.mu:6.2f} +- {rating.sigma:5.2f}  ({rating.games} matches)")
    print(f"  expert > basic: {told_apart(ratings, 'expert', 'basic')}; basic > random: {told_apart(ratings, 'basic', 'random')}")


if __name__ == "__main__":
    main()
