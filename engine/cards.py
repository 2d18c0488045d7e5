"""Playing cards: suits, ranks, cards and their text codes.

A card's code is its rank then its suit: ``AS`` (ace of spades), ``TD`` (ten of diamonds),
``9H``, ``QC``. Every card is interned, so ``Card.parse("QS") is Card.parse("QS")``.
The order of ranks is a game's business: each ruleset ranks cards its own way.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Iterable


class Suit(str, Enum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def names(self) -> dict[str, str]:
        return SUIT_NAMES[self]


class Rank(IntEnum):
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def code(self) -> str:
        return RANK_CODES[self]

    @property
    def names(self) -> dict[str, str]:
        return RANK_NAMES[self]


RANK_CODES = {
    **{Rank(n): str(n) for n in range(2, 10)},
    Rank.TEN: "T",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}
RANK_NAMES = {
    **{Rank(n): {"en": str(n), "tr": str(n)} for n in range(2, 11)},
    Rank.JACK: {"en": "Jack", "tr": "Vale"},
    Rank.QUEEN: {"en": "Queen", "tr": "Kız"},
    Rank.KING: {"en": "King", "tr": "Papaz"},
    Rank.ACE: {"en": "Ace", "tr": "As"},
}
SUIT_NAMES = {
    Suit.CLUBS: {"en": "Clubs", "tr": "Sinek"},
    Suit.DIAMONDS: {"en": "Diamonds", "tr": "Karo"},
    Suit.HEARTS: {"en": "Hearts", "tr": "Kupa"},
    Suit.SPADES: {"en": "Spades", "tr": "Maça"},
}


class Card:
    """One card. Immutable and interned: there is exactly one object per card."""

    __slots__ = ("rank", "suit", "code", "index")
    rank: Rank
    suit: Suit
    code: str
    index: int

    def __new__(cls, rank: Rank, suit: Suit) -> "Card":
        return _CARDS[(Rank(rank), Suit(suit))]

    @classmethod
    def _make(cls, rank: Rank, suit: Suit, index: int) -> "Card":
        card = object.__new__(cls)
        for name, value in (("rank", rank), ("suit", suit), ("code", RANK_CODES[rank] + suit.value), ("index", index)):
            object.__setattr__(card, name, value)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self):
        return (Card.parse, (self.code,))

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        return self.code

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index

    def names(self) -> dict[str, str]:
        """Display names, e.g. ``{"en": "Queen of Spades", "tr": "Maça Kız"}``."""
        rank, suit = self.rank.names, self.suit.names
        return {"en": f"{rank['en']} of {suit['en']}", "tr": f"{suit['tr']} {rank['tr']}"}

    @staticmethod
    def parse(code: str) -> "Card":
        """The card with this code; raises ``ValueError`` for anything else."""
        try:
            return _BY_CODE[code]
        except (KeyError, TypeError):
            raise ValueError(f"not a card code: {code!r}") from None


_CARDS: dict[tuple[Rank, Suit], Card] = {}
for _suit in Suit:
    for _rank in Rank:
        _CARDS[(_rank, _suit)] = Card._make(_rank, _suit, len(_CARDS))
_BY_CODE = {card.code: card for card in _CARDS.values()}

#: The 52 cards, clubs first, each suit from two to ace.
FULL_DECK: tuple[Card, ...] = tuple(_CARDS.values())


def deck(ranks: Iterable[Rank]) -> tuple[Card, ...]:
    """The cards of the given ranks in every suit, in the canonical order."""
    wanted = set(ranks)
    return tuple(card for card in FULL_DECK if card.rank in wanted)


def cards(codes: str | Iterable[str]) -> tuple[Card, ...]:
    """Cards from codes: ``cards("AS KH 9C")`` or ``cards(["AS", "KH"])``."""
    if isinstance(codes, str):
        codes = codes.split()
    return tuple(Card.parse(code) for code in codes)


def codes(items: Iterable[Card]) -> list[str]:
    """The codes of cards, in order."""
    return [card.code for card in items]
