"""The arena's ratings tell Koz's levels apart: two accounts of each level play rated German Whist
matches (fixed seeds, a counted budget for the expert: reproducible), rated as the arena rates
them; the random accounts end below every other, each gap wider than the two uncertainties.

Played on the engine (90 matches in about 6 s) rather than over HTTP, where a match costs
seconds: tests/test_arena_bots.py shows the same rating code run by bots over HTTP. Expert and
basic are not told apart here: after 100 matches each they were 32.0 +- 2.6, 30.3 +- 2.6
against 32.8 +- 2.6, 27.6 +- 2.6 (a single deal, the expert at 200 units of work)."""

from __future__ import annotations

import random

from engine import registry
from engine.players import player
from engine.players.arena import play_match
from engine.players.base import Budget
from service.arena.ratings import Rating, rate

LEVELS = ["random", "random", "basic", "basic", "expert", "expert"]
ROUNDS = 30


def test_rated_matches_put_the_random_level_below_the_others_beyond_their_uncertainties():
    ruleset = registry.get("german-whist")
    ratings = [Rating() for _ in LEVELS]
    draw = random.Random(26)
    for round_ in range(ROUNDS):
        order = list(range(len(LEVELS)))
        draw.shuffle(order)
        for table in range(0, len(LEVELS), ruleset.seat_count):
            seats = order[table : table + ruleset.seat_count]
            players = [player(LEVELS[account], ruleset.id) for account in seats]
            record = play_match(ruleset, {}, f"levels-{round_}-{table}", players, timer=lambda: 0.0, budgets={"expert": Budget(work=30)})
            winners = set(record.result.winners)
            outcomes = ["win" if seat in winners else "loss" if winners else "draw" for seat in range(len(seats))]
            for account, rating in zip(seats, rate([ratings[account] for account in seats], ruleset.sides(), outcomes)):
                ratings[account] = rating
    assert all(rating.games == ROUNDS for rating in ratings)
    randoms = [rating for rating, level in zip(ratings, LEVELS) if level == "random"]
    others = [rating for rating, level in zip(ratings, LEVELS) if level != "random"]
    for weak in randoms:
        for strong in others:
            assert strong.mu - weak.mu > strong.sigma + weak.sigma, (strong, weak)
