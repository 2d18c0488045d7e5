"""The arena's pure parts: who is paired with whom, and how a result moves ratings."""

from __future__ import annotations

import random

import pytest

from service.arena.pairing import ABANDON_PENALTY_SECONDS, BASE_WINDOW, WIDEN_PER_SECOND, Seek, house_due, pair, seat, window
from service.arena.ratings import Rating, rate, replay

HOUSE = {"random": 10.0, "basic": 25.0, "expert": 35.0}


def seek(name: str, rating: float, at: float = 0.0, group: str = "g", **more) -> Seek:
    return Seek(f"seek-{name}", name, group, rating, at, **more)


def test_two_seeks_within_the_window_are_paired():
    (pairing,) = pair([seek("a", 25.0), seek("b", 25.0 + BASE_WINDOW)], 2, now=0.0, house_ratings=HOUSE)
    assert {member.account for member in pairing.seeks} == {"a", "b"} and pairing.house == ()


def test_the_window_widens_with_the_time_waited():
    far = 25.0 + BASE_WINDOW + 10 * WIDEN_PER_SECOND
    seeks = [seek("a", 25.0), seek("b", far)]
    assert pair(seeks, 2, now=9.0, house_ratings=HOUSE) == []
    assert len(pair(seeks, 2, now=10.0, house_ratings=HOUSE)) == 1
    assert window(10.0) == BASE_WINDOW + 10 * WIDEN_PER_SECOND


def test_the_nearest_rating_is_chosen_among_those_in_the_window():
    seeks = [seek("a", 25.0, at=-5), seek("far", 27.5), seek("near", 25.5)]
    (pairing,) = pair(seeks, 2, now=0.0, house_ratings=HOUSE)
    assert [member.account for member in pairing.seeks] == ["a", "near"]


def test_every_table_that_can_be_made_is_made_in_one_pass():
    seeks = [seek(name, 25.0, at=-number) for number, name in enumerate("abcdef")]
    pairings = pair(seeks, 2, now=0.0, house_ratings={})
    assert [[member.account for member in pairing.seeks] for pairing in pairings] == [["f", "e"], ["d", "c"], ["b", "a"]]


def test_a_seek_just_made_accepts_only_ratings_within_the_base_window():
    beyond = 25.0 + BASE_WINDOW + 0.4
    assert pair([seek("a", 25.0), seek("b", beyond)], 2, now=0.5, house_ratings={}) == []  # 0.5 s widened it by 0.25
    assert len(pair([seek("a", 25.0), seek("b", beyond)], 2, now=0.8, house_ratings={})) == 1


def test_the_nearest_rating_is_chosen_whether_above_or_below():
    seeks = [seek("a", 25.0, at=-5), seek("below", 23.0), seek("above", 26.0)]
    (pairing,) = pair(seeks, 2, now=0.0, house_ratings={})
    assert [member.account for member in pairing.seeks] == ["a", "above"]


def test_seeks_of_other_options_or_rated_ness_never_pair_and_an_account_never_meets_itself():
    assert pair([seek("a", 25.0), seek("b", 25.0, group="other")], 2, now=0.0, house_ratings={}) == []
    assert pair([Seek("one", "a", "g", 25.0, 0.0), Seek("two", "a", "g", 25.0, 0.0)], 2, now=0.0, house_ratings={}) == []


def test_a_seek_waits_for_people_until_its_house_after_then_meets_the_house_player_of_nearest_rating():
    lone = seek("a", 33.0, house_after=5.0)
    assert pair([lone], 2, now=4.9, house_ratings=HOUSE) == []
    (pairing,) = pair([lone], 2, now=5.0, house_ratings=HOUSE)
    assert pairing.house == ("expert",)
    assert pair([seek("b", 33.0)], 2, now=1000.0, house_ratings=HOUSE) == []  # no house_after: never the house


def test_four_seats_take_the_seeks_there_are_and_fill_the_rest_with_the_house():
    seeks = [seek("a", 24.0, house_after=1.0), seek("b", 25.0)]
    (pairing,) = pair(seeks, 4, now=1.0, house_ratings=HOUSE)
    assert len(pairing.seeks) == 2 and pairing.house == ("basic", "basic")


def test_an_account_that_abandoned_is_matched_after_the_others():
    seeks = [seek("quitter", 25.0, at=0.0, abandoned=True), seek("b", 25.0, at=1.0), seek("c", 25.0, at=2.0)]
    (pairing,) = pair(seeks, 2, now=3.0, house_ratings={})
    assert {member.account for member in pairing.seeks} == {"b", "c"}
    lone = seek("quitter", 25.0, at=0.0, abandoned=True, house_after=1.0)
    assert pair([lone], 2, now=1.0 + ABANDON_PENALTY_SECONDS - 0.1, house_ratings=HOUSE) == []
    assert len(pair([lone], 2, now=1.0 + ABANDON_PENALTY_SECONDS, house_ratings=HOUSE)) == 1


def test_the_house_is_due_when_the_first_seek_left_unpaired_reaches_its_house_after():
    seeks = [
        seek("paired", 25.0, at=0.0, house_after=0.5),
        seek("partner", 25.0, at=0.0),
        seek("other-game", 25.0, at=1.0, group="other", house_after=2.0),
        seek("quitter", 25.0, at=0.0, group="third", abandoned=True, house_after=1.0),
        seek("never", 25.0, at=0.0, group="fourth"),
    ]
    pairings = pair(seeks, 2, now=0.2, house_ratings=HOUSE)
    assert [member.account for pairing in pairings for member in pairing.seeks] == ["paired", "partner"]
    assert house_due(seeks, pairings, now=0.2) == 3.0  # not the paired seek's 0.5
    assert house_due(seeks, pairings, now=3.0) == 1.0 + ABANDON_PENALTY_SECONDS  # only what is still to come
    assert house_due(seeks[-1:], [], now=0.0) is None


BATAK_SIDES = [[0, 2], [1, 3]]


def test_two_accounts_that_name_each_other_as_partners_are_paired_together_with_two_others():
    seeks = [seek("a", 25.0, partner="b"), seek("b", 25.0, partner="a"), seek("c", 25.0), seek("d", 25.0)]
    (pairing,) = pair(seeks, 4, now=0.0, house_ratings=HOUSE)
    assert sorted(member.account for member in pairing.seeks) == ["a", "b", "c", "d"] and pairing.house == ()


def test_a_pairing_names_its_partnerships_and_no_one_else_as_partners():
    seeks = [seek("a", 25.0, partner="b"), seek("b", 25.0, partner="a"), seek("c", 25.0), seek("d", 25.0)]
    (pairing,) = pair(seeks, 4, now=0.0, house_ratings=HOUSE)
    assert [sorted(side) for side in pairing.partners] == [["a", "b"]]
    (alone,) = pair([seek("c", 25.0), seek("d", 25.0)], 2, now=0.0, house_ratings=HOUSE)
    assert alone.partners == ()


def test_partners_never_join_a_table_with_one_seat_left():
    seeks = [
        seek("a", 25.0, at=-10),
        seek("b", 25.1),
        seek("c", 25.2),
        seek("d", 25.3, partner="e"),
        seek("e", 25.3, partner="d"),
        seek("f", 26.0),
    ]
    (pairing, *rest) = pair(seeks, 4, now=0.0, house_ratings={})
    assert [member.account for member in pairing.seeks] == ["a", "b", "c", "f"] and rest == []


def test_an_account_seeking_alone_and_beside_a_partner_takes_one_seat_of_a_table():
    seeks = [
        Seek("z-alone", "z", "g", 25.0, -10.0),
        seek("b", 25.0),
        Seek("z-beside-y", "z", "g", 25.1, 0.0, partner="y"),
        seek("y", 25.1, partner="z"),
        seek("c", 26.0),
        seek("d", 26.0),
    ]
    pairings = pair(seeks, 4, now=0.0, house_ratings={})
    assert [[member.account for member in pairing.seeks] for pairing in pairings] == [["z", "b", "c", "d"]]


def test_a_seek_whose_partner_does_not_seek_beside_it_waits_and_never_meets_the_house_alone():
    seeks = [seek("a", 25.0, partner="b", house_after=0.0), seek("b", 25.0), seek("c", 25.0), seek("d", 25.0), seek("e", 25.0)]
    pairings = pair(seeks, 4, now=100.0, house_ratings=HOUSE)
    assert [sorted(member.account for member in pairing.seeks) for pairing in pairings] == [["b", "c", "d", "e"]]
    assert pair([seek("a", 25.0, partner="b", house_after=0.0)], 4, now=100.0, house_ratings=HOUSE) == []
    assert house_due([seek("a", 25.0, partner="b", house_after=1.0)], [], now=0.0) is None


def test_partners_count_as_waiting_from_the_later_of_them_and_meet_the_house_as_one_side():
    partners = [seek("a", 24.0, at=0.0, partner="b", house_after=2.0), seek("b", 26.0, at=1.0, partner="a", house_after=1.0)]
    assert pair(partners, 4, now=2.9, house_ratings=HOUSE) == []
    assert house_due(partners, [], now=0.0) == 3.0  # b came at 1.0, and the longer house_after is a's 2.0
    (pairing,) = pair(partners, 4, now=3.0, house_ratings=HOUSE)
    assert {member.account for member in pairing.seeks} == {"a", "b"} and pairing.house == ("basic", "basic")  # their mean: 25


def test_partners_are_as_near_to_others_as_their_mean_rating():
    partners = [seek("a", 20.0, partner="b"), seek("b", 30.0, partner="a")]
    near, far = [seek("c", 25.0), seek("d", 25.0)], [seek("c", 20.0), seek("d", 20.0)]
    assert len(pair(partners + near, 4, now=0.0, house_ratings={})) == 1
    assert pair(partners + far, 4, now=0.0, house_ratings={}) == []  # 5 from their mean: outside the window at once


def test_a_partnership_sits_on_one_side_and_the_others_are_drawn_on_the_other():
    sides_seen = set()
    for draw in range(40):
        seated = seat([["A", "B"], ["C"], ["D"]], BATAK_SIDES, random.Random(draw))
        side_of_a = next(side for side in BATAK_SIDES if seated.index("A") in side)
        assert {seated[index] for index in side_of_a} == {"A", "B"} and sorted(seated) == ["A", "B", "C", "D"]
        sides_seen.add((tuple(side_of_a), seated.index("A"), seated.index("C")))
    assert len(sides_seen) == 8  # either side, either seat of it, and either seat left for C


def test_two_partnerships_sit_on_the_two_sides():
    for draw in range(10):
        seated = seat([["A", "B"], ["C", "D"]], BATAK_SIDES, random.Random(draw))
        assert {frozenset(seated[index] for index in side) for side in BATAK_SIDES} == {frozenset("AB"), frozenset("CD")}


def test_players_without_partners_are_seated_as_one_shuffle_draws_them():
    for draw in range(5):
        expected = ["A", "B", "C", "D"]
        random.Random(draw).shuffle(expected)
        assert seat([["A"], ["B"], ["C"], ["D"]], BATAK_SIDES, random.Random(draw)) == expected


def test_a_win_raises_the_winner_lowers_the_loser_and_narrows_both_uncertainties():
    winner, loser = rate([Rating(), Rating()], [[0], [1]], ["win", "loss"])
    assert winner.mu > Rating().mu > loser.mu
    assert winner.sigma < Rating().sigma and loser.sigma < Rating().sigma
    assert (winner.games, winner.wins, loser.losses) == (1, 1, 1)


def test_partners_share_their_sides_result():
    after = rate([Rating(), Rating(), Rating(), Rating()], [[0, 2], [1, 3]], ["win", "loss", "win", "loss"])
    assert after[0].mu == after[2].mu > Rating().mu > after[1].mu == after[3].mu


def test_a_draw_between_equals_moves_no_rating():
    first, second = rate([Rating(), Rating()], [[0], [1]], ["draw", "draw"])
    assert first.mu == pytest.approx(Rating().mu) and second.draws == 1


def test_a_rating_moves_from_where_it_was_an_upset_more_than_an_expected_win():
    strong, weak = Rating(mu=40.0, sigma=2.0), Rating(mu=10.0, sigma=2.0)
    expected_winner, expected_loser = rate([strong, weak], [[0], [1]], ["win", "loss"])
    upset_loser, upset_winner = rate([strong, weak], [[0], [1]], ["loss", "win"])
    assert 40.0 < expected_winner.mu < 40.0 + (upset_winner.mu - 10.0) and 10.0 > expected_loser.mu > 10.0 - (40.0 - upset_loser.mu)
    # each uncertainty stays near what it was (OpenSkill lets it grow a little with each game), not a new account's
    assert all(rating.sigma == pytest.approx(2.0, abs=0.05) for rating in (expected_winner, expected_loser, upset_winner, upset_loser))


def test_an_established_rating_moves_less_than_a_new_one_in_the_same_match():
    established, new = rate([Rating(sigma=2.0), Rating()], [[0], [1]], ["win", "loss"])
    assert 0 < established.mu - Rating().mu < Rating().mu - new.mu


def test_replaying_results_in_order_rates_as_rating_them_one_by_one():
    sides = {"r": [[0], [1]]}
    results = [
        {"ruleset": "r", "rated": True, "seats": [{"account": "a", "outcome": "win"}, {"account": "b", "outcome": "loss"}]},
        {"ruleset": "r", "rated": False, "seats": [{"account": "a", "outcome": "loss"}, {"account": "b", "outcome": "win"}]},
        {"ruleset": "r", "rated": True, "seats": [{"account": "b", "outcome": "win"}, {"account": "a", "outcome": "loss"}]},
    ]
    a, b = rate([Rating(), Rating()], [[0], [1]], ["win", "loss"])
    b, a = rate([b, a], [[0], [1]], ["win", "loss"])
    assert replay(results, sides) == {("r", "a"): a, ("r", "b"): b}


def test_replaying_leaves_the_house_unrated_where_it_played_itself():
    sides = {"batak": [[0, 2], [1, 3]]}
    seats = [("a", "win"), ("house", "loss"), ("house", "win"), ("b", "loss")]
    results = [{"ruleset": "batak", "rated": True, "seats": [{"account": name, "outcome": outcome} for name, outcome in seats]}]
    a, _, _, b = rate([Rating()] * 4, sides["batak"], [outcome for _, outcome in seats])
    assert replay(results, sides) == {("batak", "a"): a, ("batak", "b"): b}


def test_every_script_of_the_arena_touches_keys_of_one_hash_slot():
    """A Redis Cluster runs a script only on keys of one slot: an account's keys share its tag,
    a ruleset's arena keys share theirs."""
    from redis.cluster import key_slot

    from service.arena.store import ArenaStore

    store = ArenaStore.__new__(ArenaStore)
    store.prefix = "koz"
    account = "0123456789abcdef01234567"
    account_keys = [store.account_key(account, name) for name in ("account", "engaged", "seq", "events")]
    channel = f"koz:{{{store.events_channel_id(account)}}}:versions"
    assert len({key_slot(key.encode()) for key in [*account_keys, channel]}) == 1
    names = ("seeks", "seek", "ratings", "board", "provisional", "rated", "results", "played")
    arena_keys = [store.arena_key("german-whist", name) for name in names]
    arena_keys += [store.arena_key("german-whist", f"recent:{account}")]
    assert len({key_slot(key.encode()) for key in arena_keys}) == 1
