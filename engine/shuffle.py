"""Seeded randomness that anyone can reproduce from a revealed seed.

Python's ``random.shuffle`` is not guaranteed to stay the same across versions, so deals are
drawn from a small, documented generator instead: SHA-256 in counter mode over the seed and a
purpose label. Integers below ``n`` come from 64-bit words by rejection sampling, and a shuffle
is a Fisher-Yates pass from the last position down. The same seed and label give the same
sequence on every platform and in any language that has SHA-256.
"""

from __future__ import annotations

import hashlib
from typing import Sequence, TypeVar

T = TypeVar("T")

_WORD = 1 << 64


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
            self._words = [int.from_bytes(digest[i : i + 8], "big") for i in range(24, -1, -8)]
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
        """A uniformly shuffled copy of ``items``."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.below(i + 1)
            result[i], result[j] = result[j], result[i]
        return result


def shuffled_deck(seed: str, deal_number: int, deck: Sequence[T]) -> list[T]:
    """The deck as shuffled for deal ``deal_number`` (1-based) of the match with ``seed``."""
    return SeededRandom(seed, f"deal:{deal_number}").shuffled(deck)


def first_dealer(seed: str, seat_count: int) -> int:
    """The first dealer of the match with ``seed``, drawn at random from it."""
    return SeededRandom(seed, "first-dealer").below(seat_count)
