"""The arena's ratings of Koz's levels, on the engine: two accounts of each level (random, basic,
expert) play rounds of rated matches with fixed seeds, rated as the arena rates them (OpenSkill,
partners in Batak); printed: each account's rating and uncertainty, and whether each pair of
levels is told apart (every gap wider than the two uncertainties). tests/test_arena_levels.py
runs it small.

    python bench/ratings.py --ruleset german-whist --rounds 60 --work 4000 --options '{"target": 20}' --trace [--jobs 2]
    python bench/ratings.py --shares 0.85,0.95,0.99 --rounds 40 --seeds 100
    python bench/ratings.py --ruleset partnership-batak --strengths 2.0,3.1 --rounds 250 --seeds 100

A played run is deterministic for its seed and the expert's counted budget: the same ratings on
any machine, and with ``--jobs`` (matches played in processes, rated in order). Its seatings for
fewer rounds are the first rounds of a longer run's, so ``--trace`` says what every shorter run
would end with. It also prints how often each side beat each other, by the levels seated (in
Batak, partnerships of mixed levels), and the strengths that best explain the winners (a side
winning with the logistic of its levels' summed strengths less the other's).

``--shares`` plays no game: each two-seat match's winner is drawn from the given shares of
matches the stronger level wins (expert over basic, basic over random, expert over random; even
between accounts of one level), as ``bench/bots.py`` measures them, over ``--seeds`` seatings;
printed: how often the ratings tell each pair of levels apart after ``--rounds``. It says how
many rated matches the arena needs to order levels of a given strength, whatever they cost.
``--strengths`` does the same from strengths as a played run fits them, seated as ``--ruleset``
seats: in Batak, four of the six at one table a round, partners drawn. With ``--matchmaker
SECONDS`` they are seated instead as the service's matchmaker pairs seeks (its own ``pair``: by
rating closeness, the window widening with the wait; no house), each match lasting about SECONDS,
and ``--rounds`` is each account's matches: what ``bench/arena_levels.py`` needs over HTTP.
Figures (seed 26, the players of 73f01b0; CPU is the matches' process time, the same on any
host up to its speed; the README's "How much a match tells" says more):

- German Whist, ``--options '{"target": 20}' --work 4000 --rounds 60``: ordered, about 125 s
  (tests/test_arena_levels.py runs it).
- Sixty-Six, ``--ruleset sixty-six --options '{"target": 5}' --work 16000 --rounds 30 --trace
  --jobs 2``: ordered, 132 s: random 5.0 +- 5.4 and 7.2 +- 5.1, basic 25.5 +- 4.8 and 27.3 +-
  4.8, expert 42.8 +- 5.0 and 41.3 +- 5.0 (the expert 4.2 clear of basic, basic 8.4 of random).
  First ordered after 23 rounds (94 s); to 90 rounds (398 s) on and off, not after 82-90; the
  expert beat basic in 54 of 67 (81%, 2.96 s a match). To 7 (4.15 s a match, 78%): first after
  39 rounds (235 s). At 8,000 units (1.42 s a match, 77%): only after round 44 of 50.
  ``--shares 0.81,0.99,0.99``: 25 of 100 seatings ordered after 30 rounds, 53 after 60, 71
  after 90. Seed 27 (``--seed 27 --rounds 60``, 281 s): ordered only after rounds 54-60, the
  expert beating basic in 35 of 51; at both seeds' 75%, ``--shares 0.75,0.99,0.99``: 7 of 100
  after 30 rounds, 21 after 60, 39 after 90.
- Eşli Batak, ``--ruleset partnership-batak --options '{"target": 21}' --work 8000 --rounds 250
  --trace --jobs 2``: 637 s, basic above random from round 16, the expert never above basic
  (35.6 +- 2.9 and 36.9 +- 3.1 against 33.5 +- 2.9 and 34.9 +- 3.1). A side with a random
  partner beat one without in 1 of 167 matches; ``--sides expert+expert,basic+basic``: 20 of 20
  (18 of 20 at 16,000 units), ``--sides expert+random,basic+random``: 7 won, 4 lost, 9 drawn of 20
  (8, 4 and 8 at 16,000 units; 2, 2 and 16 in matches to 51, where expert pairs still won 20 of 20).
  ``--strengths 4.16,5.00`` (as fitted): 39 of 100 seatings ordered after 500 rounds (21 min of
  CPU), 57 after 1,000.
- Paired by the matchmaker (``--matchmaker``, seeds 0-99): Sixty-Six at 81% (``--strengths
  4.6,6.05 --matchmaker 30``), both orderings in 74 of 100 after 60 matches each, 97 after 90;
  at 75% (``4.6,5.7``), 51 and 85. Eşli Batak (``--strengths 4.16,5.00 --matchmaker 45``): 10
  after 60, 37 after 90, 39 after 120, 58 after 180.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import registry
from engine.players import player
from engine.players.arena import play_match
from engine.players.base import Budget
from service.arena.matchmaker import PASS_SECONDS
from service.arena.pairing import Seek, pair
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


#: one played match: its seated levels, each seat's outcome, and the CPU seconds it took to play
Played = tuple[list[str], list[str], float]


def played_match(ruleset_id: str, options: dict[str, Any], expert_work: int, levels: list[str], name: str) -> Played:
    """One match on the engine between players of ``levels`` (a seat each), the expert at
    ``expert_work`` units a decision. A match past :data:`MAX_DEALS` deals ends drawn, as the
    service's cap ends one abandoned, without winners."""
    started = time.process_time()
    ruleset = registry.get(ruleset_id)
    players = [player(level, ruleset.id) for level in levels]
    budgets = {"expert": Budget(work=expert_work)}
    record = play_match(ruleset, options, name, players, timer=lambda: 0.0, budgets=budgets, max_deals=MAX_DEALS)
    winners = set(record.result.winners)
    outcomes = ["win" if seat in winners else "loss" if winners else "draw" for seat in range(len(levels))]
    return levels, outcomes, time.process_time() - started


def _played_match(arguments: tuple[str, dict[str, Any], int, list[str], str]) -> Played:
    return played_match(*arguments)


def rated_rounds(
    ruleset_id: str,
    options: dict[str, Any],
    rounds: int,
    seed: int,
    expert_work: int,
    round_done: RoundDone | None = None,
    played_matches: list[Played] | None = None,
    jobs: int = 1,
) -> list[Rating]:
    """Each account's rating after ``rounds`` rounds of matches played on the engine (:func:`seated_rounds`).
    ``played_matches``, if given, gets each match as it is rated. With ``jobs`` above 1 the
    matches are played in that many processes: the seating does not depend on the outcomes and a
    match's play only on its seats and name, so they are rated in the same order, to the same ratings."""
    ruleset = registry.get(ruleset_id)
    tables = [
        (ruleset.id, options, expert_work, [LEVELS[account] for account in seats], name)
        for round_tables in seatings(ruleset.seat_count, rounds, seed)
        for seats, name in round_tables
    ]
    with contextlib.ExitStack() as stack:
        if jobs > 1:
            pool = stack.enter_context(multiprocessing.Pool(jobs))
            results = pool.imap(_played_match, tables)  # in order, as each one ends
        else:
            results = map(_played_match, tables)

        def next_played(seats: list[int], name: str) -> list[str]:
            levels, outcomes, seconds = next(results)
            assert levels == [LEVELS[account] for account in seats]
            if played_matches is not None:
                played_matches.append((levels, outcomes, seconds))
            return outcomes

        return seated_rounds(ruleset.seat_count, ruleset.sides(), rounds, seed, next_played, round_done)


def sides_matches(
    ruleset_id: str, options: dict[str, Any], expert_work: int, sides_levels: list[str], matches: int, seed: int, jobs: int
) -> list[Played]:
    """``matches`` matches between two sides of the given levels (``"expert+random"``: a side's
    levels, seated in its seats in order), the sides' seats swapped every other match."""
    sides = registry.get(ruleset_id).sides()
    tables = []
    for match in range(matches):
        levels = [""] * sum(len(side) for side in sides)
        for side, side_levels in zip(sides, sides_levels[::-1] if match % 2 else sides_levels):
            for seat, level in zip(side, side_levels.split("+"), strict=True):
                levels[seat] = level
        tables.append((ruleset_id, options, expert_work, levels, f"sides-{seed}-{match}"))
    if jobs == 1:
        return [_played_match(table) for table in tables]
    with multiprocessing.Pool(jobs) as pool:
        return pool.map(_played_match, tables)


def seatings(seat_count: int, rounds: int, seed: int) -> list[list[tuple[list[int], str]]]:
    """Each round's tables, each a match's seated accounts and name: each round the six accounts
    are seated in a drawn order, a table of ``seat_count`` seats at a time (in Batak one table of
    four: two sit the round out, and partners are the drawn order's seats 0 and 2, 1 and 3)."""
    draw = random.Random(seed)
    drawn = []
    for round_ in range(rounds):
        order = list(range(len(LEVELS)))
        draw.shuffle(order)
        drawn.append(
            [(order[table : table + seat_count], f"levels-{round_}-{table}") for table in range(0, len(LEVELS) - seat_count + 1, seat_count)]
        )
    return drawn


def seated_rounds(
    seat_count: int, sides: list[list[int]], rounds: int, seed: int, outcomes: Outcomes, round_done: RoundDone | None = None
) -> list[Rating]:
    """Each account's rating after ``rounds`` rounds seated by :func:`seatings`, each table's
    ``outcomes`` rated as the arena rates them."""
    ratings = [Rating() for _ in LEVELS]
    for round_, tables in enumerate(seatings(seat_count, rounds, seed)):
        for seats, name in tables:
            rated = rate([ratings[account] for account in seats], sides, outcomes(seats, name))
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


def strength_rounds(strengths: tuple[float, float], seat_count: int, sides: list[list[int]], rounds: int, seed: int) -> list[Rating]:
    """:func:`seated_rounds` whose winner is drawn: a side wins with the logistic of its levels'
    summed strengths less the other side's, ``strengths`` being basic's and expert's (random's is
    0), as :func:`fitted_strengths` finds them. With partners, a side of mixed levels is as strong
    as its levels together."""
    return seated_rounds(seat_count, sides, rounds, seed, strength_outcomes(strengths, seat_count, sides, random.Random(f"strengths-{seed}")))


def strength_outcomes(strengths: tuple[float, float], seat_count: int, sides: list[list[int]], draw: random.Random) -> Outcomes:
    """Outcomes drawn as :func:`strength_rounds` draws them."""
    strength = {"random": 0.0, "basic": strengths[0], "expert": strengths[1]}

    def drawn(seats: list[int], _name: str) -> list[str]:
        first, second = (sum(strength[LEVELS[seats[seat]]] for seat in side) for side in sides)
        first_won = draw.random() < 1 / (1 + math.exp(second - first))
        outcomes = [""] * seat_count
        for index, side in enumerate(sides):
            for seat in side:
                outcomes[seat] = "win" if first_won == (index == 0) else "loss"
        return outcomes

    return drawn


def matchmade(
    strengths: tuple[float, float], seat_count: int, sides: list[list[int]], matches: int, seed: int, match_seconds: float
) -> tuple[list[Rating], Counter[str]]:
    """Each account's rating once it played ``matches`` matches (as ``bench/arena_levels.py``'s
    bots stop), seated as the service's matchmaker seats seeks (:func:`service.arena.pairing.pair`,
    a pass every :data:`PASS_SECONDS`: by rating closeness, the window widening with the wait; no
    house), seats and so partners drawn, winners drawn as :func:`strength_rounds` draws them; each
    match lasting ``match_seconds``, from half to one and a half times, drawn. With how many matches
    met each set of levels. It ends when too few are left seeking to fill a table."""
    draw = random.Random(f"matchmaker-{seed}")
    outcomes = strength_outcomes(strengths, seat_count, sides, draw)
    ratings = [Rating() for _ in LEVELS]
    seeking = {account: 0.0 for account in range(len(LEVELS))}
    playing: list[tuple[float, list[int]]] = []
    met: Counter[str] = Counter()
    now = 0.0
    while playing or len(seeking) >= seat_count:
        for table in [table for table in playing if table[0] <= now]:
            playing.remove(table)
            seats = table[1]
            for account, rating in zip(seats, rate([ratings[account] for account in seats], sides, outcomes(seats, ""))):
                ratings[account] = rating
                if rating.games < matches:
                    seeking[account] = now
        seeks = [Seek(str(account), str(account), "", ratings[account].mu, since) for account, since in seeking.items()]
        for pairing in pair(seeks, seat_count, now, {}):
            seats = [int(seek.account) for seek in pairing.seeks]
            draw.shuffle(seats)
            for account in seats:
                del seeking[account]
            playing.append((now + match_seconds * draw.uniform(0.5, 1.5), seats))
            met[" - ".join(sorted(LEVELS[account] for account in seats))] += 1
        now += PASS_SECONDS
    return ratings, met


#: the spread of the prior on a strength in :func:`fitted_strengths`: it keeps a strength finite
#: where a level never lost (basic against random) and barely moves one that did
PRIOR_SPREAD = 3.0


def fitted_strengths(played: list[Played], sides: list[list[int]]) -> tuple[tuple[float, float], tuple[float, float], float]:
    """Basic's and expert's strengths (random's is 0) that best explain the played matches' winners,
    a side winning with the logistic of its levels' summed strengths less the other's (a logistic
    regression, drawn matches left out, with a normal prior of spread :data:`PRIOR_SPREAD`); with
    each strength's standard error, and that of expert's less basic's."""
    rows = []
    for levels, outcomes, _ in played:
        if outcomes[sides[0][0]] == "draw":
            continue
        first, second = ([levels[seat] for seat in side] for side in sides)
        features = (first.count("basic") - second.count("basic"), first.count("expert") - second.count("expert"))
        rows.append((features, outcomes[sides[0][0]] == "win"))
    basic = expert = 0.0
    for _ in range(50):  # Newton's method: the log-likelihood is concave
        gradient = [-basic / PRIOR_SPREAD**2, -expert / PRIOR_SPREAD**2]
        curvature = [[1 / PRIOR_SPREAD**2, 0.0], [0.0, 1 / PRIOR_SPREAD**2]]  # minus the Hessian
        for (x_basic, x_expert), won in rows:
            chance = 1 / (1 + math.exp(-(basic * x_basic + expert * x_expert)))
            gradient[0] += (won - chance) * x_basic
            gradient[1] += (won - chance) * x_expert
            weight = chance * (1 - chance)
            curvature[0][0] += weight * x_basic * x_basic
            curvature[0][1] += weight * x_basic * x_expert
            curvature[1][1] += weight * x_expert * x_expert
        curvature[1][0] = curvature[0][1]
        determinant = curvature[0][0] * curvature[1][1] - curvature[0][1] ** 2
        covariance = [
            [curvature[1][1] / determinant, -curvature[0][1] / determinant],
            [-curvature[1][0] / determinant, curvature[0][0] / determinant],
        ]
        basic += covariance[0][0] * gradient[0] + covariance[0][1] * gradient[1]
        expert += covariance[1][0] * gradient[0] + covariance[1][1] * gradient[1]
    gap_error = math.sqrt(covariance[0][0] + covariance[1][1] - 2 * covariance[0][1])
    return (basic, expert), (math.sqrt(covariance[0][0]), math.sqrt(covariance[1][1])), gap_error


def told_apart(ratings: list[Rating], strong: str, weak: str) -> bool:
    """Whether every account of level ``strong`` is above every one of ``weak`` by more than the two uncertainties."""
    return apart_by(ratings, strong, weak) > 0


def apart_by(ratings: list[Rating], strong: str, weak: str) -> float:
    """By how much the closest accounts of level ``strong`` and ``weak`` are further apart than their two
    uncertainties (below 0: not told apart)."""
    return min(
        high.mu - low.mu - high.sigma - low.sigma
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
    parser.add_argument(
        "--strengths",
        help="play no game: basic's and expert's strengths (random's 0) as a played run fits them; a side wins with the logistic of its summed "
        "strengths less the other's, seated as --ruleset seats",
    )
    parser.add_argument("--seeds", type=int, default=100, help="with --shares or --strengths: seatings drawn")
    parser.add_argument(
        "--matchmaker",
        type=float,
        metavar="SECONDS",
        help="with --strengths: seat as the service's matchmaker pairs seeks (by rating closeness, no house), a match lasting about SECONDS; "
        "--rounds is then each account's matches",
    )
    parser.add_argument("--jobs", type=int, default=1, help="matches played at once, each in its own process (the same ratings)")
    parser.add_argument(
        "--sides",
        help="rate nothing: play --matches between two sides of the given levels, e.g. expert+expert,basic+basic, seats swapped every other match",
    )
    parser.add_argument("--matches", type=int, default=20, help="with --sides: matches played")
    parser.add_argument("--trace", action="store_true", help="print after each round whether each pair of levels is told apart")
    arguments = parser.parse_args()
    if arguments.sides:
        ruleset = registry.get(arguments.ruleset)
        sides_played = sides_matches(
            ruleset.id, json.loads(arguments.options), arguments.work, arguments.sides.split(","), arguments.matches, arguments.seed, arguments.jobs
        )
        for (first, second), (wins, losses, draws, seconds) in met_sides(sides_played, ruleset.sides()).items():
            print(
                f"{ruleset.id} {arguments.options} expert work {arguments.work} seed {arguments.seed}: {first} against {second}: "
                f"won {wins}, lost {losses}, drawn {draws} ({seconds / (wins + losses + draws):.2f} s of CPU a match)"
            )
        return
    if arguments.strengths:
        basic, expert = (float(strength) for strength in arguments.strengths.split(","))
        seated = registry.get(arguments.ruleset)
        if arguments.matchmaker:
            made = [
                matchmade((basic, expert), seated.seat_count, seated.sides(), arguments.rounds, seed, arguments.matchmaker)
                for seed in range(arguments.seeds)
            ]
            what = f"{seated.id}, strengths {arguments.strengths}, paired by the matchmaker, {arguments.rounds} matches each"
            print_told_apart(what, [ratings for ratings, _ in made], arguments.seeds)
            met = sum((tables for _, tables in made), Counter())
            each = ", ".join(f"{levels} {count / arguments.seeds:.1f}" for levels, count in sorted(met.items()))
            print(f"  matches by the levels they met, a run: {each}")
            return
        seatings_rated = [
            strength_rounds((basic, expert), seated.seat_count, seated.sides(), arguments.rounds, seed) for seed in range(arguments.seeds)
        ]
        print_told_apart(f"{seated.id}, strengths {arguments.strengths}, {arguments.rounds} rounds", seatings_rated, arguments.seeds)
        return
    if arguments.shares:
        given = [float(share) for share in arguments.shares.split(",")]
        if len(given) != 3:
            parser.error("--shares takes three shares: expert-basic,basic-random,expert-random")
        shares = (given[0], given[1], given[2])
        seatings_rated = [drawn_rounds(shares, arguments.rounds, seed) for seed in range(arguments.seeds)]
        print_told_apart(f"shares {arguments.shares}, {arguments.rounds} rounds", seatings_rated, arguments.seeds)
        return
    played: list[Played] = []
    started = time.monotonic()

    def traced(round_: int, ratings: list[Rating]) -> None:
        print(
            f"  round {round_:3d}, {sum(seconds for _, _, seconds in played):6.1f} s: "
            f"expert > basic {told_apart(ratings, 'expert', 'basic')} ({apart_by(ratings, 'expert', 'basic'):+.2f}), "
            f"basic > random {told_apart(ratings, 'basic', 'random')} ({apart_by(ratings, 'basic', 'random'):+.2f})",
            flush=True,
        )

    ruleset = registry.get(arguments.ruleset)
    ratings = rated_rounds(
        ruleset.id,
        json.loads(arguments.options),
        arguments.rounds,
        arguments.seed,
        arguments.work,
        traced if arguments.trace else None,
        played,
        arguments.jobs,
    )
    print(
        f"{arguments.ruleset} {arguments.options} rounds {arguments.rounds} expert work {arguments.work} seed {arguments.seed}: "
        f"{sum(seconds for _, _, seconds in played):.1f} s of CPU in matches ({time.monotonic() - started:.0f} s of wall time, {arguments.jobs} jobs)"
    )
    for level, rating in zip(LEVELS, ratings):
        print(f"  {level:7s} {rating.mu:6.2f} +- {rating.sigma:5.2f}  ({rating.games} matches)")
    print(f"  expert > basic: {told_apart(ratings, 'expert', 'basic')}; basic > random: {told_apart(ratings, 'basic', 'random')}")
    met = met_sides(played, ruleset.sides())
    for (first, second), (wins, losses, draws, seconds) in sorted(met.items(), key=lambda item: (strength_order(item[0]), item[0])):
        cost = f"{seconds / (wins + losses + draws):.2f} s of CPU a match"
        if first == second:
            print(f"  {first} against {second}: {wins + losses + draws} matches, {draws} drawn ({cost})")
        else:
            print(f"  {first} against {second}: won {wins}, lost {losses}, drawn {draws} ({cost})")
    (basic, expert), (basic_error, expert_error), gap_error = fitted_strengths(played, ruleset.sides())
    print(
        f"  strengths fitted to the winners (random 0): basic {basic:.2f} +- {basic_error:.2f}, expert {expert:.2f} +- {expert_error:.2f}, "
        f"expert less basic {expert - basic:.2f} +- {gap_error:.2f} (drawn: --strengths {basic:.2f},{expert:.2f})"
    )


def print_told_apart(what: str, seatings_rated: list[list[Rating]], seeds: int) -> None:
    for strong, weak in (("expert", "basic"), ("basic", "random")):
        apart = sum(told_apart(ratings, strong, weak) for ratings in seatings_rated)
        print(f"{what}: {strong} > {weak} told apart in {apart} of {seeds} seatings")
    both = sum(told_apart(ratings, "expert", "basic") and told_apart(ratings, "basic", "random") for ratings in seatings_rated)
    print(f"  both orderings in {both} of {seeds}")


def met_sides(played: list[Played], sides: list[list[int]]) -> dict[tuple[str, str], tuple[int, int, int, float]]:
    """How often each side met each other, by its levels (``"basic+expert"`` in Batak): the
    stronger-looking side's wins, losses and draws, and the CPU those matches took."""
    met: dict[tuple[str, str], tuple[int, int, int, float]] = {}
    for levels, outcomes, seconds in played:
        (first, first_outcome), (second, second_outcome) = sorted(
            (("+".join(sorted(levels[seat] for seat in side)), outcomes[side[0]]) for side in sides),
            key=lambda named: (strength_order((named[0],)), named[0]),
        )
        wins, losses, draws, spent = met.get((first, second), (0, 0, 0, 0.0))
        won, lost, drawn = first_outcome == "win", second_outcome == "win", first_outcome == "draw"
        met[(first, second)] = (wins + won, losses + lost, draws + drawn, spent + seconds)
    return met


def strength_order(names: tuple[str, ...]) -> tuple[int, ...]:
    """Sorts sides strongest first: by each side's levels (expert 0, basic 1, random 2) summed."""
    rank = {"expert": 0, "basic": 1, "random": 2}
    return tuple(sum(rank[level] for level in name.split("+")) for name in names)


if __name__ == "__main__":
    main()
