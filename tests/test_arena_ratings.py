"""A match's result recorded once, with the ratings it moves (``Ratings.record``), on a store of each kind."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from service.arena.ratings import ESTABLISHED_GAMES, Rating, Ratings, Seat, rate, replay
from service.arena.store import ArenaStore

WHIST, BATAK = "german-whist", "partnership-batak"
TWO_SIDES, PARTNERSHIPS = [[0], [1]], [[0, 2], [1, 3]]
SIDES = {WHIST: TWO_SIDES, BATAK: PARTNERSHIPS}


def shown(rating: Rating) -> dict[str, float]:
    return {"rating": rating.mu, "uncertainty": rating.sigma}


NEW = shown(Rating())


@pytest.fixture
def ratings(backend) -> Ratings:
    return Ratings(ArenaStore(backend, f"test-{uuid.uuid4().hex[:8]}"))


def whist_match(game: str, winner: str, loser: str) -> tuple[Any, ...]:
    return WHIST, game, [Seat(winner, winner, "bot", "win"), Seat(loser, loser, "bot", "loss")], TWO_SIDES, True, {}


class AnotherWorkerFirst:
    """The store, on which another worker records a match of ``matches`` after each of the first
    ``times`` reads of the ratings: between this worker's read and its write."""

    def __init__(self, store: ArenaStore, matches: list[tuple[Any, ...]]) -> None:
        self.store, self.matches = store, matches

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def ratings(self, ruleset: str, accounts: list[str]) -> list[str | None]:
        read = self.store.ratings(ruleset, accounts)
        if self.matches:
            Ratings(self.store).record(*self.matches.pop(0))
        return read


def test_a_recorded_result_keeps_each_seats_name_kind_outcome_and_rating_before_and_after(ratings):
    seats = [Seat("id-a", "Ayşe", "bot", "win"), Seat("id-b", "Bora", "person", "loss")]
    result = ratings.record(WHIST, "g1", seats, TWO_SIDES, True, {"status": "finished"})
    a, b = rate([Rating(), Rating()], TWO_SIDES, ["win", "loss"])
    assert result == {
        "game": "g1",
        "ruleset": WHIST,
        "rated": True,
        "status": "finished",
        "seats": [
            {"seat": 0, "account": "id-a", "name": "Ayşe", "kind": "bot", "outcome": "win", "before": NEW, "after": shown(a)},
            {"seat": 1, "account": "id-b", "name": "Bora", "kind": "person", "outcome": "loss", "before": NEW, "after": shown(b)},
        ],
    }
    assert ratings.store.results(WHIST) == [result] and (ratings.of(WHIST, "id-a"), ratings.of(WHIST, "id-b")) == (a, b)


def test_a_rated_match_lists_its_players_with_name_kind_and_rating_among_the_provisional_until_they_are_established(ratings):
    seats = [Seat("id-a", "Ayşe", "bot", "win"), Seat("id-b", "Bora", "person", "loss")]
    ratings.record(WHIST, "g1", seats, TWO_SIDES, True, {})
    a, b = rate([Rating(), Rating()], TWO_SIDES, ["win", "loss"])
    listed = [(entry["name"], entry["kind"], entry["mu"], entry["sigma"], entry["games"]) for entry in ratings.store.board(WHIST, True, 0, 10)[0]]
    assert listed == [("Ayşe", "bot", a.mu, a.sigma, 1), ("Bora", "person", b.mu, b.sigma, 1)]
    assert ratings.store.board(WHIST, False, 0, 10) == ([], 0)
    for number in range(2, ESTABLISHED_GAMES + 1):
        ratings.record(WHIST, f"g{number}", seats, TWO_SIDES, True, {})
    assert [entry["name"] for entry in ratings.store.board(WHIST, False, 0, 10)[0]] == ["Ayşe", "Bora"]
    assert ratings.store.board(WHIST, True, 0, 10) == ([], 0)


def test_a_match_recorded_again_changes_nothing_and_answers_the_first_record(ratings):
    first = ratings.record(*whist_match("g1", "a", "b"))
    rated = ratings.of(WHIST, "a")
    assert ratings.record(*whist_match("g1", "a", "b")) == first
    assert ratings.of(WHIST, "a") == rated and ratings.store.played(WHIST, "a") == 1 and len(ratings.store.results(WHIST)) == 1


def test_a_draw_counts_as_a_draw_on_both_ratings(ratings):
    ratings.record(WHIST, "g1", [Seat("a", "a", "bot", "draw"), Seat("b", "b", "bot", "draw")], TWO_SIDES, True, {})
    for account in ("a", "b"):
        rating = ratings.of(WHIST, account)
        assert rating is not None and (rating.games, rating.wins, rating.losses, rating.draws) == (1, 0, 0, 1)


def test_an_unrated_match_is_recorded_and_counted_as_played_but_moves_no_rating(ratings):
    match = whist_match("g1", "a", "b")
    result = ratings.record(*match[:4], False, {})
    assert result["rated"] is False and [(seat["before"], seat["after"]) for seat in result["seats"]] == [(NEW, NEW), (NEW, NEW)]
    assert ratings.of(WHIST, "a") is None and ratings.store.played(WHIST, "a") == 1
    assert ratings.store.board(WHIST, True, 0, 10) == ([], 0) and ratings.store.board(WHIST, False, 0, 10) == ([], 0)


def test_the_house_playing_itself_is_not_rated_by_that_match_and_everyone_else_is(ratings):
    house = [Seat("house", "koz-basic", "house", outcome) for outcome in ("loss", "win")]
    seats = [Seat("a", "a", "bot", "win"), *house, Seat("b", "b", "bot", "loss")]  # a and the house's second seat are partners
    ratings.record(BATAK, "g1", seats, PARTNERSHIPS, True, {})
    a, _, _, b = rate([Rating()] * 4, PARTNERSHIPS, [seat.outcome for seat in seats])
    assert (ratings.of(BATAK, "a"), ratings.of(BATAK, "b"), ratings.of(BATAK, "house")) == (a, b, None)
    assert ratings.store.played(BATAK, "house") == 1
    assert replay(ratings.store.results(BATAK), SIDES) == {(BATAK, "a"): a, (BATAK, "b"): b}


def test_a_rating_that_changed_since_it_was_read_is_read_and_rated_again(ratings):
    store = ratings.store
    Ratings(AnotherWorkerFirst(store, [whist_match("g0", "a", "c")])).record(*whist_match("g1", "b", "a"))  # type: ignore[arg-type]
    assert [result["game"] for result in store.results(WHIST)] == ["g0", "g1"]
    replayed = replay(store.results(WHIST), SIDES)
    assert {account: ratings.of(WHIST, account) for account in "abc"} == {account: replayed[(WHIST, account)] for account in "abc"}
    assert ratings.of(WHIST, "a").games == 2  # type: ignore[union-attr]


def test_a_result_whose_ratings_keep_changing_fails_aloud_naming_its_game(ratings):
    others = [whist_match(f"other-{number}", "a", f"c{number}") for number in range(30)]
    with pytest.raises(RuntimeError, match="g1"):
        Ratings(AnotherWorkerFirst(ratings.store, others)).record(*whist_match("g1", "b", "a"))  # type: ignore[arg-type]
    assert "g1" not in [result["game"] for result in ratings.store.results(WHIST)]
