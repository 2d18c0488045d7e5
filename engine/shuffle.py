"""Seeded randomness that anyone can reproduce from a revealed seed.

Python's ``random.shuffle`` is not guaranteed to stay the same across versions, so deals are
drawn from a small, documented generator instead: SHA-256 in counter mode over the seed and a
purpose label. Integers below ``n`` come from 64-bit words by rejection sampling, and a shuffle
is a Fisher-Yates pass from the last position down. The same seed and label give the same
sequence on every platform and in any language that has SHA-256.
"""

from __future__ import annotations

import hashlib
import struct
from functools import lru_cache
from typing import Sequence, TypeVar

T = TypeVar("T")

_WORD = 1 << 64
_FOUR_WORDS = struct.Struct(">4Q")
#: the rejection limit of below(n) for the sizes of a deck: the largest multiple of n up to 2^64
_LIMITS = [_WORD - _WORD % n if n else 0 for n in range(53)]  # a digest's 32 bytes as four big-endian 64-bit words


class SeededRandom:
    """A deterministic stream of integers for one purpose (``label``) of one seed."""

    def __init__(self, seed: str, label: str) -> None:
        self._prefix = f"koz:{seed}:{label}:".encode()
        self._counter = 0
        self._words: list[int] = []

    def _next_word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(self._prefix + str(self._counter).encode()).digest()
            self._counter += 1
            self._words.extend(reversed(_FOUR_WORDS.unpack(digest)))  # in place: shuffled holds the list
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
        words = self._words
        limits = _LIMITS if len(result) <= len(_LIMITS) else [_WORD - _WORD % n for n in range(len(result) + 1)]
        for i in range(len(result) - 1, 0, -1):
            n = i + 1
            limit = limits[n]
            while True:
                word = words.pop() if words else self._next_word()
                if word < limit:
                    break
            j = word % n
            result[i], result[j] = result[j], result[i]
        return result


def shuffled_deck(seed: str, deal_number: int, deck: Sequence[T]) -> list[T]:
    """The deck as shuffled for deal ``deal_number`` (1-based) of the match with ``seed``."""
    return SeededRandom(seed, f"deal:{deal_number}").shuffled(deck)


@lru_cache(maxsize=4096)  # every view and deal asks for it
def first_dealer(seed: str, seat_count: int) -> int:
    """The first dealer of the match with ``seed``, drawn at random from it."""
    return SeededRandom(seed, "first-dealer").below(seat_count)
