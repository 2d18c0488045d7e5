"""Seeded randomness that anyone can reproduce from a revealed seed.

Python's ``random.shuffle`` is not guaranteed to stay the same across versions, so deals are
drawn from a small, documented generator instead: SHA-256 in counter mode over the seed and a
purpose label. Integers below ``n`` come from 64-bit words by rejection sampling, and a shuffle
is a Fisher-Yates pass from the last position down. The same seed and label give the same
sequence on every platform and in any language that has SHA-256.
"""

from __future__ import annotations

import struct
from functools import lru_cache
from hashlib import sha256
from operator import mod
from typing import Sequence, TypeVar

T = TypeVar("T")

_WORD = 1 << 64
#: the 32 bytes of each of ``count`` digests as four big-endian 64-bit words, by ``count``
_DIGEST_WORDS = [struct.Struct(f">{4 * count}Q") for count in range(17)]
#: the rejection limit of below(n) for the sizes of a deck: the largest multiple of n up to 2^64
_LIMITS = [_WORD - _WORD % n if n else 0 for n in range(53)]
#: the counters of a stream's first digests, as the bytes hashed after its prefix
_COUNTERS = tuple(str(counter).encode() for counter in range(len(_DIGEST_WORDS)))


class SeededRandom:
    """A deterministic stream of integers for one purpose (``label``) of one seed."""

    def __init__(self, seed: str, label: str) -> None:
        self._prefix = f"koz:{seed}:{label}:".encode()
        self._counter = 0
        self._words: list[int] = []

    def _digest_words(self, count: int = 1) -> tuple[int, ...]:
        """The words of the next ``count`` digests (four each), in order."""
        first, prefix = self._counter, self._prefix
        self._counter += count
        digests = b"".join([sha256(prefix + str(counter).encode()).digest() for counter in range(first, first + count)])
        layout = _DIGEST_WORDS[count] if count < len(_DIGEST_WORDS) else struct.Struct(f">{4 * count}Q")
        return layout.unpack(digests)

    def _next_word(self) -> int:
        if not self._words:
            self._words = list(reversed(self._digest_words()))
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _WORD - _WORD % n
        while True:
            word = self._next_word()
            if word < limit:
                return word % n

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy of ``items``: :meth:`below` for each position, inlined
        (every deal is shuffled this way, so it runs often)."""
        result = list(items)
        size = len(result)
        limits = _LIMITS if size < len(_LIMITS) else [_WORD - _WORD % n if n else 0 for n in range(size + 1)]
        # the words this shuffle takes, in order: one per position but for a rejected word, which
        # is as likely as 2^-58, so they are drawn up front and the unused ones put back
        words = self._words[::-1]
        if len(words) < size - 1:  # the digests it takes, at once
            words.extend(self._digest_words((size - 1 - len(words) + 3) // 4))
        if size > 1 and max(words[: size - 1]) < _WORD - size:
            # no word rejected: every limit for a position up to ``size`` is above 2^64 - size
            self._words = words[size - 1 :][::-1]
            return _swap_down(result, words)
        taken = 0
        for i in range(size - 1, 0, -1):
            n = i + 1
            word = words[taken]
            taken += 1
            while word >= limits[n]:  # rejected: one more word, keeping one for each position left
                if len(words) - taken < i:
                    words.extend(self._digest_words())
                word = words[taken]
                taken += 1
            j = word % n
            result[i], result[j] = result[j], result[i]
        self._words = words[taken:][::-1]
        return result


def _swap_down(result: list[T], words: Sequence[int]) -> list[T]:
    """The Fisher-Yates pass over ``result`` from the last position down, each position's draw
    the next of ``words``, none of them rejected."""
    size = len(result)
    # position i (from the last down) swaps with the draw below i + 1: its word modulo i + 1
    for i, j in zip(range(size - 1, 0, -1), map(mod, words, range(size, 1, -1))):
        result[i], result[j] = result[j], result[i]
    return result


def shuffled_deck(seed: str, deal_number: int, deck: Sequence[T]) -> list[T]:
    """The deck as shuffled for deal ``deal_number`` (1-based) of the match with ``seed``:
    ``SeededRandom(seed, f"deal:{deal_number}").shuffled(deck)``."""
    size = len(deck)
    count = (size + 2) // 4  # the digests that give a word for each of the size - 1 positions
    if 1 < size and count < len(_DIGEST_WORDS):
        # every deal is shuffled from a fresh stream: its words drawn here at once, without the stream
        prefix = f"koz:{seed}:deal:{deal_number}:".encode()
        words = _DIGEST_WORDS[count].unpack(b"".join([sha256(prefix + counter).digest() for counter in _COUNTERS[:count]]))
        if max(words[: size - 1]) < _WORD - size:  # no word rejected, as in SeededRandom.shuffled
            return _swap_down(list(deck), words)
    return SeededRandom(seed, f"deal:{deal_number}").shuffled(deck)


@lru_cache(maxsize=4096)  # every view and deal asks for it
def first_dealer(seed: str, seat_count: int) -> int:
    """The first dealer of the match with ``seed``, drawn at random from it:
    ``SeededRandom(seed, "first-dealer").below(seat_count)``."""
    if 0 < seat_count < len(_LIMITS):  # every table here: the stream's first word, read at once
        word = int.from_bytes(sha256(f"koz:{seed}:first-dealer:0".encode()).digest()[:8], "big")
        if word < _LIMITS[seat_count]:
            return word % seat_count
    return SeededRandom(seed, "first-dealer").below(seat_count)
