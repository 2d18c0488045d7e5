"""Sets of cards as integer bit masks, the representation every search strategy plays on.

A card is a small number (its bit); a set of cards is the sum of their bits. German Whist and
Batak number the 52-card deck by ``Card.index``; Sixty-Six numbers its 24 cards itself.
"""

from __future__ import annotations

from typing import Iterable

from ..cards import Card


def lowest(cards: int) -> int:
    """The lowest-numbered card of a non-empty mask."""
    return (cards & -cards).bit_length() - 1


def highest(cards: int) -> int:
    """The highest-numbered card of a non-empty mask (-1 for none)."""
    return cards.bit_length() - 1


def members(cards: int) -> list[int]:
    """The cards of a mask, lowest number first."""
    found = []
    while cards:
        low = cards & -cards
        found.append(low.bit_length() - 1)
        cards ^= low
    return found


def mask_of(numbers: Iterable[int]) -> int:
    """The mask of some card numbers."""
    mask = 0
    for number in numbers:
        mask |= 1 << number
    return mask


def deck_mask(cards: Iterable[Card | str]) -> int:
    """The mask of some cards of the 52-card deck, given as cards or codes, by ``Card.index``."""
    return mask_of(card.index if isinstance(card, Card) else Card.parse(card).index for card in cards)
