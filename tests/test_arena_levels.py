"""The arena's ratings tell Koz's levels apart: two accounts of each level play rated matches
(fixed seeds, a counted budget for the expert: reproducible), rated as the arena rates them;
the random accounts end below every other, each gap wider than the two uncertainties, in German
Whist, Sixty-Six and Eşli Batak (partners drawn at random).

Played on the engine rather than over HTTP, where a match costs seconds:
tests/test_arena_bots.py shows the same rating code run by bots over HTTP.

Expert and basic are not told apart here, at a cost a test can afford: the expert decides at a
small counted budget (30 units of work), far below its calibrated one (German Whist 15,000,
Sixty-Six 16,000, Batak 8,000) or its default time. At its default time it is stronger: in German
Whist single deals it won 74.0% [67.5, 79.6] of 200 against basic (``bench/bots.py --games
german-whist --pairings expert-basic --matches 200``, 552 s). At small budgets it is not: German
Whist after 100 single-deal matches each at 200 units, 32.0 +- 2.6 and 30.3 +- 2.6 against 32.8 +-
2.6 and 27.6 +- 2.6; Sixty-Six to 5, 30 rounds at 4,000 units (47 s of CPU): 39.5 +- 4.8 and
39.1 +- 4.9 against 32.4 +- 4.7 and 25.1 +- 4.8 (the uncertainties, about 4.8 after 30 matches,
ask for a gap of nearly 10). German Whist matches of several deals (``{"target": 20}``) at 4,000
units do tell them apart after 60 rounds, in 125 s of CPU: ``bench/ratings.py``, figures in the
README ("How much a match tells")."""

from __future__ import annotations

import pytest

from bench.ratings import LEVELS, drawn_rounds, rated_rounds, told_apart
from engine import registry
from engine.players import player
from engine.players.arena import play_match
from service.arena.ratings import Rating


def assert_random_below_the_others(ratings: list[Rating]) -> None:
    randoms = [rating for rating, level in zip(ratings, LEVELS) if level == "random"]
    others = [rating for rating, level in zip(ratings, LEVELS) if level != "random"]
    for weak in randoms:
        for strong in others:
            assert strong.mu - weak.mu > strong.sigma + weak.sigma, (strong, weak)


def test_rated_matches_put_the_random_level_below_the_others_beyond_their_uncertainties():
    ratings = rated_rounds("german-whist", {}, rounds=30, seed=26, expert_work=30)
    assert all(rating.games == 30 for rating in ratings)
    assert_random_below_the_others(ratings)


@pytest.mark.parametrize(
    ("ruleset_id", "options", "rounds"),
    [("sixty-six", {"target": 5}, 20), ("partnership-batak", {"target": 21}, 30)],
)
def test_sixty_six_and_batak_ratings_put_the_random_level_below_the_others(ruleset_id, options, rounds):
    ratings = rated_rounds(ruleset_id, options, rounds, seed=26, expert_work=30)
    assert (
        sum(rating.games for rating in ratings) == rounds * (len(LEVELS) // registry.get(ruleset_id).seat_count) * registry.get(ruleset_id).seat_count
    )
    assert_random_below_the_others(ratings)


def test_a_match_past_its_deal_cap_ends_without_a_winner():
    ruleset = registry.get("partnership-batak")
    players = [player("random", ruleset.id) for _ in range(ruleset.seat_count)]
    record = play_match(ruleset, {"target": 51}, "capped", players, timer=lambda: 0.0, max_deals=2)
    assert len(record.deal_results) == 2 and record.result.winners == ()


def test_drawn_matches_tell_apart_levels_whose_stronger_always_wins_and_never_levels_that_are_even():
    always = drawn_rounds((1.0, 1.0, 1.0), rounds=30, seed=1)
    assert told_apart(always, "expert", "basic") and told_apart(always, "basic", "random")
    assert all(rating.games == 30 for rating in always)
    even = drawn_rounds((0.5, 0.5, 0.5), rounds=30, seed=1)
    assert not told_apart(even, "expert", "basic") and not told_apart(even, "basic", "random")
