"""The seeded shuffle is the documented one: a Fisher-Yates pass from the last position down,
each position drawn with ``below``, so that a revealed seed reproduces every deal."""

from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import shuffle
from engine.shuffle import SeededRandom, first_dealer, shuffled_deck


def documented_shuffle(stream: SeededRandom, items: list[int]) -> list[int]:
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = stream.below(i + 1)
        result[i], result[j] = result[j], result[i]
    return result


@given(seed=st.text(max_size=8), sizes=st.lists(st.integers(0, 60), min_size=1, max_size=4), between=st.integers(1, 100))
def test_a_shuffle_draws_the_same_words_as_the_documented_fisher_yates_and_leaves_the_stream_where_it_would(seed, sizes, between):
    fast, reference = SeededRandom(seed, "t"), SeededRandom(seed, "t")
    for size in sizes:
        assert fast.shuffled(range(size)) == documented_shuffle(reference, list(range(size)))
        assert fast.below(between) == reference.below(between)


@given(seed=st.text(max_size=8), size=st.integers(2, 60))
def test_a_word_too_large_for_the_position_is_rejected_and_the_next_one_drawn(seed, size):
    fast, reference = SeededRandom(seed, "t"), SeededRandom(seed, "t")
    for stream in (fast, reference):
        stream._words = [(1 << 64) - 1]  # the next word: at or above every position's limit
    assert fast.shuffled(range(size)) == documented_shuffle(reference, list(range(size)))
    assert fast.below(7) == reference.below(7)


@given(seed=st.text(max_size=8), deal_number=st.integers(1, 200), size=st.integers(0, 60))
def test_a_deal_is_the_documented_shuffle_of_a_fresh_stream_for_the_deal(seed, deal_number, size):
    reference = SeededRandom(seed, f"deal:{deal_number}")
    assert shuffled_deck(seed, deal_number, range(size)) == documented_shuffle(reference, list(range(size)))


@pytest.fixture
def first_words_rejected(monkeypatch):
    """Every stream's first digest gives words at the top of the range: each one is rejected."""
    real = shuffle.sha256

    def first_digest_all_ones(data: bytes):
        return SimpleNamespace(digest=lambda: b"\xff" * 32) if data.endswith(b":0") else real(data)

    monkeypatch.setattr(shuffle, "sha256", first_digest_all_ones)


@pytest.mark.parametrize("size", [2, 5, 20, 24, 52])
def test_a_deal_whose_first_words_are_rejected_is_still_the_documented_shuffle(first_words_rejected, size):
    reference = SeededRandom("seed", "deal:3")
    assert shuffle.shuffled_deck("seed", 3, range(size)) == documented_shuffle(reference, list(range(size)))


@given(seed=st.text(max_size=8), seat_count=st.integers(1, 8))
def test_the_first_dealer_is_the_first_draw_of_the_seeds_first_dealer_stream(seed, seat_count):
    assert first_dealer.__wrapped__(seed, seat_count) == SeededRandom(seed, "first-dealer").below(seat_count)


@pytest.mark.parametrize("seat_count", [3, 5, 7])  # (2^64 - 1 is below the limit of a power of two)
def test_a_first_dealer_whose_first_word_is_rejected_is_the_streams_next_draw(first_words_rejected, seat_count):
    assert first_dealer.__wrapped__("seed", seat_count) == SeededRandom("seed", "first-dealer").below(seat_count)
