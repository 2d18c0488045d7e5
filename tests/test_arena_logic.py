"""The arena's pure parts: who is paired with whom, and how a result moves ratings."""

from __future__ import annotations

import pytest

from service.arena.pairing import ABANDON_PENALTY_SECONDS, BASE_WINDOW, WIDEN_PER_SECOND, Seek, house_due, pair, window
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
