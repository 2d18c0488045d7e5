"""The seeded shuffle is the documented one: a Fisher-Yates pass from the last position down,
each position drawn with ``below``, so that a revealed seed reproduces every deal. The reference
here is written from the module's documentation alone (SHA-256 in counter mode over the seed and
a purpose label, 64-bit big-endian words, rejection sampling), as a player checking a deal in
another language would write it."""

import itertools
from hashlib import sha256
from types import SimpleNamespace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine import shuffle
from engine.shuffle import SeededRandom, first_dealer, shuffled_deck

TOP_WORD = (1 << 64) - 1


def documented_words(seed: str, label: str, first_counter: int = 0):
    """The stream's words: the digests of ``koz:<seed>:<label>:<counter>``, four words each."""
    for counter in itertools.count(first_counter):
        digest = sha256(f"koz:{seed}:{label}:{counter}".encode()).digest()
        yield from (int.from_bytes(digest[at : at + 8], "big") for at in range(0, 32, 8))


def documented_below(words, n: int) -> int:
    """A draw below ``n``: the first word under the largest multiple of ``n`` up to 2^64, modulo ``n``."""
    limit = (1 << 64) - (1 << 64) % n
    return next(word for word in words if word < limit) % n


def documented_shuffle(words, items: list[int]) -> list[int]:
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = documented_below(words, i + 1)
        result[i], result[j] = result[j], result[i]
    return result


@given(seed=st.text(max_size=8), sizes=st.lists(st.integers(0, 100), min_size=1, max_size=4), between=st.integers(1, 100))
@example(seed="", sizes=[66, 69, 70], between=1)  # the first sizes whose words take more than 16 digests
def test_a_shuffle_draws_the_same_words_as_the_documented_fisher_yates_and_leaves_the_stream_where_it_would(seed, sizes, between):
    stream, reference = SeededRandom(seed, "t"), documented_words(seed, "t")
    for size in sizes:
        assert stream.shuffled(range(size)) == documented_shuffle(reference, list(range(size)))
        assert stream.below(between) == documented_below(reference, between)


@given(seed=st.text(max_size=8), size=st.integers(2, 100))
def test_a_word_too_large_for_the_position_is_rejected_and_the_next_one_drawn(seed, size):
    stream = SeededRandom(seed, "t")
    stream._words = [TOP_WORD]  # the next word: at or above every position's limit
    reference = itertools.chain([TOP_WORD], documented_words(seed, "t"))
    assert stream.shuffled(range(size)) == documented_shuffle(reference, list(range(size)))
    assert stream.below(7) == documented_below(reference, 7)


@given(seed=st.text(max_size=8), deal_number=st.integers(1, 200), size=st.integers(0, 100))
@example(seed="", deal_number=1, size=66)  # the first size whose words take more than 16 digests
@example(seed="", deal_number=1, size=69)
@example(seed="", deal_number=1, size=70)
def test_a_deal_is_the_documented_shuffle_of_a_fresh_stream_for_the_deal(seed, deal_number, size):
    assert shuffled_deck(seed, deal_number, range(size)) == documented_shuffle(documented_words(seed, f"deal:{deal_number}"), list(range(size)))


@pytest.mark.parametrize("n", [0, -1])
def test_a_draw_below_nothing_is_refused(n):
    with pytest.raises(ValueError, match="n must be positive"):
        SeededRandom("seed", "t").below(n)


def rejected_first_digest(seed: str, label: str):
    return itertools.chain([TOP_WORD] * 4, documented_words(seed, label, first_counter=1))


@pytest.fixture
def first_words_rejected(monkeypatch):
    """Every stream's first digest gives words at the top of the range: each one is rejected."""
    real = shuffle.sha256

    def first_digest_all_ones(data: bytes):
        return SimpleNamespace(digest=lambda: b"\xff" * 32) if data.endswith(b":0") else real(data)

    monkeypatch.setattr(shuffle, "sha256", first_digest_all_ones)


@pytest.mark.parametrize("size", [2, 5, 20, 24, 52])
def test_a_deal_whose_first_words_are_rejected_is_still_the_documented_shuffle(first_words_rejected, size):
    assert shuffle.shuffled_deck("seed", 3, range(size)) == documented_shuffle(rejected_first_digest("seed", "deal:3"), list(range(size)))


@given(seed=st.text(max_size=8), seat_count=st.integers(1, 8))
def test_the_first_dealer_is_the_first_draw_of_the_seeds_first_dealer_stream(seed, seat_count):
    assert first_dealer.__wrapped__(seed, seat_count) == documented_below(documented_words(seed, "first-dealer"), seat_count)


@pytest.mark.parametrize("seat_count", [3, 5, 7])  # (2^64 - 1 is below the limit of a power of two)
def test_a_first_dealer_whose_first_word_is_rejected_is_the_streams_next_draw(first_words_rejected, seat_count):
    assert first_dealer.__wrapped__("seed", seat_count) == documented_below(rejected_first_digest("seed", "first-dealer"), seat_count)
