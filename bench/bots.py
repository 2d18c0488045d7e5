"""Computer levels against each other, in every game: win shares and decision times.

    python bench/bots.py                      # every game, the three pairings
    python bench/bots.py --games sixty-six --pairings expert-basic --matches 100 --jobs 2

For each game and pairing "A-B", matches are played with A and B swapping seats every match (in
Batak, A plays North-South in even matches and East-West in odd ones), each seat deciding from
its own information only. Printed per pairing: A's share of the deals won (deals with a winner)
and of the matches, each with a 95% Wilson interval, and the decision time p50/p95/max of each
level in milliseconds. German Whist matches are single deals (target 0); Sixty-Six plays to 7 and
Batak to 31.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import registry  # noqa: E402
from engine.players import BasicPlayer, ExpertPlayer, RandomPlayer, play_match  # noqa: E402

LEVELS = {chosen.level: chosen for chosen in (RandomPlayer(), BasicPlayer(), ExpertPlayer())}

GAMES = {
    "german-whist": {"target": 0},
    "sixty-six": {},
    "partnership-batak": {},
}
PAIRINGS = ["expert-random", "expert-basic", "basic-random"]


def sides(ruleset_id: str, match_number: int) -> list[int]:
    """Which side (0: A, 1: B) plays each seat in this match: sides swap every match."""
    seat_count = registry.get(ruleset_id).seat_count
    return [(seat + match_number) % 2 for seat in range(seat_count)]


def deal_winner_side(ruleset_id: str, result: dict, seat_sides: list[int]) -> int | None:
    """The side that won a deal: its winners' side, or in Batak the team that scored more."""
    if ruleset_id == "partnership-batak":
        north_south, east_west = result["team_points"]
        if north_south == east_west:
            return None
        return seat_sides[0] if north_south > east_west else seat_sides[1]
    return seat_sides[result["winners"][0]] if result["winners"] else None


def play_one(job: tuple[str, str, int]) -> dict:
    ruleset_id, pairing, number = job
    levels = pairing.split("-")
    seat_sides = sides(ruleset_id, number)
    players = [LEVELS[levels[side]] for side in seat_sides]
    record = play_match(
        registry.get(ruleset_id), GAMES[ruleset_id], f"bench-{pairing}-{number}", players, clock=time.perf_counter
    )
    deals = [deal_winner_side(ruleset_id, result, seat_sides) for result in record.deal_results]
    winners = {seat_sides[seat] for seat in record.result.winners}
    return {
        "deals": deals,
        "match": winners.pop() if len(winners) == 1 else None,
        "times": [(decision.level, decision.seconds) for decision in record.decisions],
    }


def wilson(wins: int, total: int) -> tuple[float, float, float]:
    """The share and its 95% Wilson score interval."""
    if total == 0:
        return math.nan, math.nan, math.nan
    z = 1.959964
    share = wins / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    spread = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return share, centre - spread, centre + spread


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else math.nan


def share_text(wins: int, total: int) -> str:
    share, low, high = wilson(wins, total)
    return f"{100 * share:5.1f}% [{100 * low:5.1f}, {100 * high:5.1f}] of {total}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--pairings", default=",".join(PAIRINGS))
    parser.add_argument("--matches", type=int, default=100, help="matches per game and pairing")
    parser.add_argument("--jobs", type=int, default=1, help="processes (decision times are cleanest with 1)")
    args = parser.parse_args()

    print(f"{'game':18} {'pairing':14} {'A wins deals':32} {'A wins matches':32} decision ms p50/p95/max")
    for ruleset_id in args.games.split(","):
        for pairing in args.pairings.split(","):
            jobs = [(ruleset_id, pairing, number) for number in range(args.matches)]
            started = time.perf_counter()
            if args.jobs > 1:
                with ProcessPoolExecutor(args.jobs) as pool:
                    outcomes = list(pool.map(play_one, jobs))
            else:
                outcomes = [play_one(job) for job in jobs]
            deals = [side for outcome in outcomes for side in outcome["deals"] if side is not None]
            matches = [outcome["match"] for outcome in outcomes if outcome["match"] is not None]
            timing = []
            for level in dict.fromkeys(pairing.split("-")):
                seconds = [s for outcome in outcomes for lvl, s in outcome["times"] if lvl == level]
                timing.append(
                    f"{level} {1000 * percentile(seconds, 0.5):.1f}/{1000 * percentile(seconds, 0.95):.1f}/{1000 * max(seconds):.1f}"
                )
            print(
                f"{ruleset_id:18} {pairing:14} {share_text(deals.count(0), len(deals)):32} "
                f"{share_text(matches.count(0), len(matches)):32} {'; '.join(timing)}"
                f"  ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
