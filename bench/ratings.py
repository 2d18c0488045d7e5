"""The arena's ratings of Koz's levels, on the engine: two accounts of each level (random, basic,
expert) play rounds of rated matches with fixed seeds, rated as the arena rates them (OpenSkill,
partners in Batak); printed: each account's rating and uncertainty, and whether each pair of
levels is told apart (every gap wider than the two uncertainties). tests/test_arena_levels.py
runs it small.

    python bench/ratings.py --ruleset german-whist --rounds 60 --work 4000 --options '{"target": 20}' --trace
    python bench/ratings.py --shares 0.85,0.95,0.99 --rounds 40 --seeds 100

``--shares`` plays no game: each two-seat match's winner is drawn from the given shares of
matches the stronger level wins (expert over basic, basic over random, expert over random; even
between accounts of one level), as ``bench/bots.py`` measures them, over ``--seeds`` seatings;
printed: how often the ratings tell each pair of levels apart after ``--rounds``. It says how
many rated matches the arena needs to order levels of a given strength, whatever they cost.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

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


#: a match's outcome for each seat ("win", "loss", "draw"), from the seated accounts and the match's name
Outcomes = Callable[[list[int], str], list[str]]
#: called after each round with its number (from 1) and the ratings then
RoundDone = Callable[[int, list[Rating]], None]


def rated_rounds(
    ruleset_id: str,
    options: dict[str, Any],
    rounds: int,
    seed: int,
    expert_work: int,
    round_done: RoundDone | None = None,
    played_matches: list[tuple[list[str], list[str]]] | None = None,
) -> list[Rating]:
    """Each account's rating after ``rounds`` rounds of matches played on the engine (:func:`seated_rounds`).
    A match past :data:`MAX_DEALS` deals ends drawn, as the service's cap ends one abandoned, without winners.
    ``played_matches``, if given, gets each match's seated levels and outcomes."""
    ruleset = registry.get(ruleset_id)
    budgets = {"expert": Budget(work=expert_work)}

    def played(seats: list[int], name: str) -> list[str]:
        players = [player(LEVELS[account], ruleset.id) for account in seats]
        record = play_match(ruleset, options, name, players, timer=lambda: 0.0, budgets=budgets, max_deals=MAX_DEALS)
        winners = set(record.result.winners)
        outcomes = ["win" if seat in winners else "loss" if winners else "draw" for seat in range(len(seats))]
        if played_matches is not None:
            played_matches.append(([LEVELS[account] for account in seats], outcomes))
        return outcomes

    return seated_rounds(ruleset.seat_count, ruleset.sides(), rounds, seed, played, round_done)


def seated_rounds(
    seat_count: int, sides: list[list[int]], rounds: int, seed: int, outcomes: Outcomes, round_done: RoundDone | None = None
) -> list[Rating]:
    """Each account's rating after ``rounds`` rounds: each round the six accounts are seated in a
    drawn order, a table of ``seat_count`` seats at a time (in Batak one table of four: two sit
    the round out, and partners are the drawn order's seats 0 and 2, 1 and 3), and each table's
    ``outcomes`` are rated as the arena rates them."""
    ratings = [Rating() for _ in LEVELS]
    draw = random.Random(seed)
    for round_ in range(rounds):
        order = list(range(len(LEVELS)))
        draw.shuffle(order)
        for table in range(0, len(LEVELS) - seat_count + 1, seat_count):
            seats = order[table : table + seat_count]
            rated = rate([ratings[account] for account in seats], sides, outcomes(seats, f"levels-{round_}-{table}"))
            for account, rating in zip(seats, rated):
                ratings[account] = rating
        if round_done is not None:
            round_done(round_ + 1, ratings)
    return ratings


def drawn_rounds(shares: tuple[float, float, float], rounds: int, seed: int) -> list[Rating]:
    """:func:`seated_rounds` at two-seat tables whose winner is drawn: the stronger level wins
    ``shares`` of its matches (expert over basic, basic over random, expert over random), and
    one of two accounts of a level half of them."""
    expert_basic, basic_random, expert_random = shares
    stronger = {("expert", "basic"): expert_basic, ("basic", "random"): basic_random, ("expert", "random"): expert_random}
    draw = random.Random(f"outcomes-{seed}")

    def drawn(seats: list[int], _name: str) -> list[str]:
        first, second = (LEVELS[account] for account in seats)
        share = 0.5 if first == second else stronger.get((first, second), 1 - stronger.get((second, first), 0.5))
        return ["win", "loss"] if draw.random() < share else ["loss", "win"]

    return seated_rounds(2, [[0], [1]], rounds, seed, drawn)


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
    parser.add_argument("--shares", help="play no game: the stronger level's shares of matches won, expert-basic,basic-random,expert-random")
    parser.add_argument("--seeds", type=int, default=100, help="with --shares: seatings drawn")
    parser.add_argument("--trace", action="store_true", help="print after each round whether each pair of levels is told apart")
    arguments = parser.parse_args()
    if arguments.shares:
        given = [float(share) for share in arguments.shares.split(",")]
        if len(given) != 3:
            parser.error("--shares takes three shares: expert-basic,basic-random,expert-random")
        shares = (given[0], given[1], given[2])
        seatings = [drawn_rounds(shares, arguments.rounds, seed) for seed in range(arguments.seeds)]
        for strong, weak in (("expert", "basic"), ("basic", "random")):
            apart = sum(told_apart(ratings, strong, weak) for ratings in seatings)
            print(f"shares {arguments.shares}, {arguments.rounds} rounds: {strong} > {weak} told apart in {apart} of {arguments.seeds} seatings")
        both = sum(told_apart(ratings, "expert", "basic") and told_apart(ratings, "basic", "random") for ratings in seatings)
        print(f"  both orderings in {both} of {arguments.seeds}")
        return
    started = time.process_time()

    def traced(round_: int, ratings: list[Rating]) -> None:
        print(
            f"  round {round_:3d}, {time.process_time() - started:6.1f} s: expert > basic {told_apart(ratings, 'expert', 'basic')}, "
            f"basic > random {told_apart(ratings, 'basic', 'random')}",
            flush=True,
        )

    played: list[tuple[list[str], list[str]]] = []
    ratings = rated_rounds(
        arguments.ruleset,
        json.loads(arguments.options),
        arguments.rounds,
        arguments.seed,
        arguments.work,
        traced if arguments.trace else None,
        played,
    )
    print(
        f"{arguments.ruleset} {arguments.options} rounds {arguments.rounds} expert work {arguments.work} seed {arguments.seed}: "
        f"{time.process_time() - started:.1f} s of CPU"
    )
    for level, rating in zip(LEVELS, ratings):
        print(f"  {level:7s} {rating.mu:6.2f} +- {rating.sigma:5.2f}  ({rating.games} matches)")
    print(f"  expert > basic: {told_apart(ratings, 'expert', 'basic')}; basic > random: {told_apart(ratings, 'basic', 'random')}")
    for strong, weak in (("expert", "basic"), ("basic", "random"), ("expert", "random")):
        # a two-seat match between the two levels; Batak's drawn partnerships mix levels, so none is counted there
        met = [dict(zip(levels, outcomes))[strong] for levels, outcomes in played if sorted(levels) == sorted([strong, weak])]
        if met:
            print(f"  {strong} beat {weak} in {met.count('win')} of {len(met)} matches")


if __name__ == "__main__":
    main()
