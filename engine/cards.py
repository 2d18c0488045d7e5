"""Playing cards: suits, ranks, cards and their text codes; cards as numbers and sets as masks.

A card's code is its rank then its suit: ``AS`` (ace of spades), ``TD`` (ten of diamonds),
``9H``, ``QC``. Every card is interned, so ``Card.parse("QS") is Card.parse("QS")``.

Rules and computer players work on one representation: a :class:`Deck` numbers a game's cards
suit by suit (clubs, diamonds, hearts, spades), from the weakest to the strongest of each suit
in that game, and a set of cards is an int whose set bits are their numbers. Within a suit a
higher number is a stronger card, so "the cards that beat this one" is a mask
(:attr:`Deck.above`). :data:`STANDARD` numbers the 52 cards two to ace, as ``Card.index``.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Any, Callable, Iterable, Sequence, TypeVar

T = TypeVar("T")


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
#: a rank's name as the possessed noun of a Turkish card name: "Maça Kızı", "Karo Onlusu"
TURKISH_POSSESSIVE = {
    Rank.TWO: "İkilisi",
    Rank.THREE: "Üçlüsü",
    Rank.FOUR: "Dörtlüsü",
    Rank.FIVE: "Beşlisi",
    Rank.SIX: "Altılısı",
    Rank.SEVEN: "Yedilisi",
    Rank.EIGHT: "Sekizlisi",
    Rank.NINE: "Dokuzlusu",
    Rank.TEN: "Onlusu",
    Rank.JACK: "Valesi",
    Rank.QUEEN: "Kızı",
    Rank.KING: "Papazı",
    Rank.ACE: "Ası",
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

    def __reduce__(self) -> tuple[Any, tuple[str]]:
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
        """Display names, e.g. ``{"en": "Queen of Spades", "tr": "Maça Kızı"}`` (Turkish names a
        card in the possessive: the suit's queen)."""
        return {"en": f"{self.rank.names['en']} of {self.suit.names['en']}", "tr": f"{self.suit.names['tr']} {TURKISH_POSSESSIVE[self.rank]}"}

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

#: what a card code looks like, for schemas that check one before the engine does
CARD_PATTERN = f"^[{''.join(RANK_CODES[rank] for rank in Rank)}][{''.join(suit.value for suit in Suit)}]$"

#: two codes that show what a card code looks like, for documentation
EXAMPLE_CODES = ("QS", "TD")

#: The 52 cards, clubs first, each suit from two to ace.
FULL_DECK: tuple[Card, ...] = tuple(_CARDS.values())


def cards(codes: str | Iterable[str]) -> tuple[Card, ...]:
    """Cards from codes: ``cards("AS KH 9C")`` or ``cards(["AS", "KH"])``."""
    if isinstance(codes, str):
        codes = codes.split()
    return tuple(Card.parse(code) for code in codes)


def codes(items: Iterable[Card]) -> list[str]:
    """The codes of cards, in order."""
    return [card.code for card in items]


# --- cards as numbers, sets of cards as bit masks ----------------------------------------------


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


class Deck:
    """A game's cards as numbers: ``suit * suit_size + strength``, strength 0 the weakest."""

    def __init__(self, ranks: Sequence[Rank]) -> None:
        """``ranks``: the ranks of the game's cards, weakest first."""
        self.ranks = tuple(ranks)
        self.suit_size = size = len(self.ranks)
        self.cards: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in self.ranks)
        self.number: dict[Card, int] = {card: number for number, card in enumerate(self.cards)}
        #: the number of each card by ``Card.index``, -1 for a card not in the deck (faster than
        #: ``number``, whose keys hash in Python)
        self.by_index = tuple(self.number.get(card, -1) for card in FULL_DECK)
        self.codes_table = tuple(card.code for card in self.cards)
        self.suit_masks = tuple(((1 << size) - 1) << (size * suit) for suit in range(4))
        self.full = (1 << len(self.cards)) - 1
        #: the stronger cards of each card's suit
        self.above = tuple(self.suit_masks[card // size] & -(2 << card) for card in range(len(self.cards)))
        #: the weaker cards of each card's suit
        self.below = tuple(self.suit_masks[card // size] & ((1 << card) - 1) for card in range(len(self.cards)))
        #: the trick-taking rule of every game here: ``beaters[trump][card]`` are the cards that
        #: take a trick from ``card`` (its winning card so far), a stronger card of its suit or,
        #: when it is not a trump, any trump; ``trump`` is a suit number, -1 for none
        self.beaters: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.above[card] | (self.suit_masks[trump] if trump >= 0 and card // size != trump else 0) for card in range(len(self.cards)))
            for trump in (0, 1, 2, 3, -1)
        )
        # the canonical order of Card (rank by rank, two to ace) may differ from strength order
        canonical = sorted(range(len(self.cards)), key=lambda number: self.cards[number].index)
        self._numbered_canonically = canonical == list(range(len(self.cards)))
        # otherwise (a short suit ranked its own way): each suit's card patterns in canonical order
        self._suit_orders: tuple[tuple[tuple[int, ...], ...], ...] = ()
        if not self._numbered_canonically:
            self._suit_orders = tuple(
                tuple(
                    tuple(n for n in canonical if n // size == suit and pattern >> (n - size * suit) & 1)
                    for pattern in range(1 << size)
                )
                for suit in range(4)
            )
        self._codes_of = self.selector(self.codes_table)

    def winning(self, cards: Sequence[int], trump: int) -> tuple[int, int]:
        """The card winning a trick of ``cards`` (in play order) so far, and its place in the
        trick; (-1, -1) before the lead."""
        if not cards:
            return -1, -1
        beaters = self.beaters[trump]
        if len(cards) == 2:  # the trick of a two-hand game: one comparison, on every trick
            return (cards[1], 1) if beaters[cards[0]] >> cards[1] & 1 else (cards[0], 0)
        win, place = cards[0], 0
        for offset in range(1, len(cards)):
            if beaters[win] >> cards[offset] & 1:
                win, place = cards[offset], offset
        return win, place

    def suit(self, card: int) -> int:
        """The suit number (0 clubs .. 3 spades) of a card number."""
        return card // self.suit_size

    def mask(self, cards: Iterable[Card | str]) -> int:
        """The mask of some cards, given as cards or codes."""
        number = self.number
        return mask_of(number[card if isinstance(card, Card) else Card.parse(card)] for card in cards)

    def ordered(self, mask: int) -> list[int] | tuple[int, ...]:
        """The card numbers of a mask, in the canonical card order (suit by suit, two to ace)."""
        if self._numbered_canonically:
            return members(mask)
        size, full = self.suit_size, (1 << self.suit_size) - 1
        orders = self._suit_orders
        return (
            orders[0][mask & full]
            + orders[1][mask >> size & full]
            + orders[2][mask >> 2 * size & full]
            + orders[3][mask >> 3 * size & full]
        )

    def selector(self, items: Sequence[T]) -> "Callable[[int], tuple[T, ...]]":
        """A function from a mask to the items of its cards (``items[number]``) in the canonical
        card order, each part's pattern remembered once seen (legal actions are built this way on
        every move). A part is a suit, or two suits of a short deck: fewer look-ups per mask."""
        width = 2 * self.suit_size if self.suit_size <= 6 else self.suit_size
        full = (1 << width) - 1
        parts: list[dict[int, tuple[T, ...]]] = [{} for _ in range(4 * self.suit_size // width)]
        ordered = self.ordered

        def remember(mask: int) -> None:
            for place, part in enumerate(parts):
                pattern = mask >> width * place & full
                if pattern not in part:
                    part[pattern] = tuple(items[n] for n in ordered(pattern << width * place))

        if len(parts) == 2:
            low, high = parts

            def select_by_halves(mask: int) -> tuple[T, ...]:
                try:
                    return low[mask & full] + high[mask >> width & full]
                except KeyError:  # a pattern not seen yet
                    remember(mask)
                    return select_by_halves(mask)

            return select_by_halves
        clubs, diamonds, hearts, spades = parts

        def select(mask: int) -> tuple[T, ...]:
            try:
                return clubs[mask & full] + diamonds[mask >> width & full] + hearts[mask >> 2 * width & full] + spades[mask >> 3 * width & full]
            except KeyError:  # a pattern not seen yet
                remember(mask)
                return select(mask)

        return select

    def card_tuple(self, mask: int) -> tuple[Card, ...]:
        """The cards of a mask, in the canonical card order."""
        cards = self.cards
        return tuple(cards[number] for number in self.ordered(mask))

    def codes(self, mask: int) -> list[str]:
        """The codes of a mask's cards, in the canonical card order."""
        return list(self._codes_of(mask))

    def code(self, card: int) -> str:
        return self.codes_table[card]


#: The 52 cards numbered two to ace in each suit: the number of a card is its ``Card.index``.
STANDARD = Deck(tuple(Rank))
