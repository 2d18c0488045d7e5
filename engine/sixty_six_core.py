"""Sixty-Six's rules on numbers and masks: the step functions that the ruleset
(:mod:`engine.sixty_six`) and the computer players' rollouts (:mod:`engine.players.sixty_six`)
both call, so that each rule is written once.

Cards are numbers of :data:`DECK` (``6 * suit + strength``, strength 0 to 5 for 9 J Q K 10 A,
so a higher card of a suit has a higher number) and sets of cards are masks of them. Nothing
here builds an event or reads a state: a step takes masks and numbers and gives masks, numbers
or a verdict, fast enough for the rollouts' inner loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, NamedTuple, Sequence

from .cards import Deck, Rank, Suit

SEATS = 2
CLAIM = 66  # a claim is correct with this many points or more
HALF = 33  # a loser with fewer points (but a trick won) gives away 2 game points
LAST_TRICK_TEN = 10

#: The 24 cards, each suit from the weakest to the strongest: 9 J Q K 10 A.
DECK = Deck((Rank.NINE, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE))
NINE, JACK, QUEEN, KING, TEN, ACE = range(6)
SUIT_MASKS = DECK.suit_masks
BY_INDEX = DECK.by_index
ABOVE = DECK.above
BEATERS = DECK.beaters
NINES = 1 | 1 << 6 | 1 << 12 | 1 << 18
QUEENS = NINES << QUEEN
SUITS = tuple(Suit)
CARD_POINTS = (0, 2, 3, 4, 10, 11)  # by strength
POINTS = tuple(CARD_POINTS[card % 6] for card in range(24))
_CHUNK_POINTS = tuple(sum(CARD_POINTS[bit] for bit in range(6) if pattern >> bit & 1) for pattern in range(64))


@dataclass(frozen=True, slots=True)
class Variant:
    """What the ``variant`` option fixes: the deck, the hand size and the card exchanged for trump."""

    cards: int  # mask
    hand_size: int
    exchange_strength: int
    #: the cards in the canonical order: the order of the deck before it is shuffled
    order: tuple[int, ...]


VARIANTS = {
    "sixty-six": Variant(DECK.full, 6, NINE, tuple(DECK.ordered(DECK.full))),
    "schnapsen": Variant(DECK.full & ~NINES, 5, JACK, tuple(DECK.ordered(DECK.full & ~NINES))),
}


# --- the rules, on numbers and masks ---------------------------------------------------------


def points_of(cards: int) -> int:
    """The card points of a set of cards."""
    return _CHUNK_POINTS[cards & 63] + _CHUNK_POINTS[cards >> 6 & 63] + _CHUNK_POINTS[cards >> 12 & 63] + _CHUNK_POINTS[cards >> 18]


def follower_cards(hand: int, lead: int, trump: int, talon_open: bool) -> int:
    """The follower's legal cards: any while the talon is open; else follow suit and win if
    able, else trump, else any."""
    if talon_open:
        return hand
    same = hand & SUIT_MASKS[lead // 6]
    if same:
        return same & ABOVE[lead] or same
    return hand & SUIT_MASKS[trump] or hand


def reply_wins(lead: int, reply: int, trump: int) -> bool:
    """Whether the reply takes the trick (:attr:`~engine.cards.Deck.beaters`): a higher card of
    the suit led, or a trump to a side suit."""
    return bool(BEATERS[trump][lead] >> reply & 1)


def denied_by_reply(lead: int, reply: int, trump: int) -> int:
    """The cards a follower shows it does not hold by replying ``reply`` to ``lead`` once the
    talon is closed or exhausted (:func:`follower_cards`): the suit led if it did not follow, and
    trumps too if it did not trump; the cards that would have won if it followed without winning."""
    if reply // 6 != lead // 6:
        return SUIT_MASKS[lead // 6] | (SUIT_MASKS[trump] if reply // 6 != trump else 0)
    return 0 if reply > lead else ABOVE[lead]


def counted_points(card_points: int, marriage_points: int, tricks: int) -> int:
    """A seat's points in a deal: its cards' and its marriages', counted once it has won a trick."""
    return card_points + marriage_points if tricks else 0


def marriage_cards(hand: int) -> int:
    """The kings and queens of ``hand`` whose partner it holds too."""
    pairs = hand & hand >> 1 & QUEENS
    return pairs | pairs << 1


def exchanged(hand: int, given: int, trump_card: int) -> int:
    """The leader's hand once it gives ``given`` (:attr:`DealRules.swap_card`) for the trump card."""
    return hand & ~(1 << given) | 1 << trump_card


def trick_winner(leader: int, lead: int, reply: int, trump: int) -> int:
    """The seat that takes a trick ``leader`` led with ``lead`` (:func:`reply_wins`)."""
    return 1 - leader if BEATERS[trump][lead] >> reply & 1 else leader


def partner(card: int) -> int:
    """The other card of a king's or queen's marriage."""
    return card + 1 if card % 6 == QUEEN else card - 1


def marriage_value(card: int, trump: int) -> int:
    return 40 if card // 6 == trump else 20


def claim_game_points(loser_points: int, loser_tricks: int) -> int:
    """Game points for a won deal: 3 if the loser won no trick, 2 under 33 points, else 1."""
    if loser_tricks == 0:
        return 3
    return 2 if loser_points < HALF else 1


@dataclass(frozen=True, slots=True)
class Closing:
    """Who closed the talon, and their opponent's points and tricks at that moment."""

    seat: int
    points: int
    tricks: int

    @staticmethod
    def by(seat: int, points: Callable[[int], int], tricks: Sequence[int]) -> "Closing":
        """``seat`` closes when each seat has ``points(seat)`` and ``tricks[seat]``: its
        opponent's are kept."""
        return Closing(seat, points(1 - seat), tricks[1 - seat])


#: how a deal ends
DealEnd = Literal["claim", "false_claim", "closer_failed", "last_trick", "more_points", "drawn"]


class Outcome(NamedTuple):
    """How a deal that ends now is decided."""

    winner: int | None
    game_points: int
    reason: DealEnd
    claimant: int | None  # the seat that claimed, or was deemed to
    deemed: bool
    points: tuple[int, int]  # counted points, the last-trick 10 included
    ten: int | None  # the seat given the last-trick 10


def deal_outcome(
    points: tuple[int, int],
    tricks: tuple[int, int],
    closing: Closing | None,
    claimant: int | None,
    last_winner: int,
    schnapsen: bool,
    last_trick_ten: bool,
) -> Outcome:
    """The outcome of a deal that ends now: by ``claimant``'s claim, or (None) with all tricks
    played, the last won by ``last_winner``: then the closer with 66 or more is deemed to claim,
    else the last trick's winner with 66 or more. ``points`` are counted points (cards and counted
    marriages) without the last-trick 10."""
    played_out = claimant is None
    ten = last_winner if played_out and closing is None and last_trick_ten else None
    scored = (points[0] + (LAST_TRICK_TEN if ten == 0 else 0), points[1] + (LAST_TRICK_TEN if ten == 1 else 0))
    if played_out and closing is not None and scored[closing.seat] >= CLAIM:
        claimant = closing.seat  # seed 004: the penalty is for a closer who fails to reach 66
    elif played_out and scored[last_winner] >= CLAIM:
        claimant = last_winner
    deemed = played_out and claimant is not None

    winner: int | None
    reason: DealEnd
    if claimant is not None and scored[claimant] >= CLAIM:
        winner, reason = claimant, "claim"
        if closing is not None and closing.seat != claimant:
            # the closer's opponent claimed first
            gained = 3 if schnapsen and closing.tricks == 0 else 2
        elif closing is not None and schnapsen:
            gained = claim_game_points(closing.points, closing.tricks)
        else:
            gained = claim_game_points(scored[1 - claimant], tricks[1 - claimant])
    elif claimant is not None:
        winner, reason = 1 - claimant, "false_claim"
        if closing is not None and closing.seat == claimant:
            gained = 3 if closing.tricks == 0 else 2
        else:
            gained = 3 if schnapsen and tricks[winner] == 0 else 2
    elif closing is not None:
        winner, reason = 1 - closing.seat, "closer_failed"
        gained = 3 if closing.tricks == 0 else 2
    elif ten is None:
        winner, reason, gained = last_winner, "last_trick", 1
    elif scored[0] == scored[1]:
        winner, reason, gained = None, "drawn", 0
    else:
        winner, reason = (0 if scored[0] > scored[1] else 1), "more_points"
        gained = claim_game_points(scored[1 - winner], tricks[1 - winner])
    return Outcome(winner, gained, reason, claimant, deemed, scored, ten)


@dataclass(frozen=True, slots=True)
class DealRules:
    """The rules of the deal in play, as both the ruleset and the computer players' rollouts
    apply them: the options that matter to play, and the trump suit (:meth:`of`)."""

    trump: int
    schnapsen: bool = False
    marriages: bool = True
    exchange: bool = True
    no_talon: bool = False
    last_trick_ten: bool = False
    #: whether a claim of 66 may come with a marriage (always in Koz's rules; VU's Schnapsen has no
    #: such claim, and ``bench/bots.py --peer`` sets the options' ``marriage_claims``, which no
    #: client can, so that neither its engine nor its player counts on one)
    marriage_claims: bool = True
    #: the cards of the variant (mask)
    deck: int = field(init=False, compare=False, repr=False)
    #: the card exchanged for the trump card: the trump nine (jack in Schnapsen)
    swap_card: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # worked out once: the ruleset asks on every lead, the rollouts on every trick
        variant = VARIANTS[self.variant]
        object.__setattr__(self, "deck", variant.cards)
        object.__setattr__(self, "swap_card", 6 * self.trump + variant.exchange_strength)

    @staticmethod
    def of(options: Mapping[str, Any], trump: int) -> "DealRules":
        """The rules a match's ``options`` set for a deal whose trump suit is ``trump`` (one
        record per combination, made once: the ruleset asks on every lead)."""
        key = (
            options["variant"], options["marriages"], options["trump_exchange"], options["no_talon"], options["exhausted_talon"],
            options.get("marriage_claims", True), trump,
        )  # fmt: skip
        rules = _DEAL_RULES.get(key)
        if rules is None:
            variant, marriages, exchange, no_talon, exhausted_talon, marriage_claims, _ = key
            rules = DealRules(trump, variant == "schnapsen", marriages, exchange, no_talon, exhausted_talon == "last-trick-ten", marriage_claims)
            _DEAL_RULES[key] = rules
        return rules

    @property
    def trumps(self) -> int:
        return SUIT_MASKS[self.trump]

    @property
    def variant(self) -> str:
        return "schnapsen" if self.schnapsen else "sixty-six"

    def marriage_time(self, talon_open: bool) -> bool:
        """Whether the leader may announce a marriage now: while the talon is open, and in
        Schnapsen and without a talon at any lead (if the game has marriages)."""
        return self.marriages and (talon_open or self.schnapsen or self.no_talon)

    @property
    def late_marriages(self) -> bool:
        """Marriages may be announced with the talon closed or exhausted too."""
        return self.marriage_time(False)

    def may_exchange(self, talon_open: bool, hand: int, won_a_trick: bool) -> bool:
        """Whether the leader holding ``hand`` may exchange the :attr:`swap_card` for the trump
        card: while the talon is open, holding it, and (but in Schnapsen) after winning a trick
        (if the game has the exchange)."""
        return self.exchange and talon_open and bool(hand >> self.swap_card & 1) and (self.schnapsen or won_a_trick)

    def marriage_claim_allowed(self, won_a_trick: bool) -> bool:
        """Whether a leader may claim 66 with the marriage it announces: once it has won a trick
        in the deal, where the rules have such claims."""
        return self.marriage_claims and won_a_trick

    def marriage_points(self, card: int) -> int:
        """What the marriage of a king or queen scores."""
        return marriage_value(card, self.trump)

    def outcome(
        self, points: tuple[int, int], tricks: tuple[int, int], closing: Closing | None, claimant: int | None, last_winner: int
    ) -> Outcome:
        """How a deal that ends now is decided under these rules (:func:`deal_outcome`)."""
        return deal_outcome(points, tricks, closing, claimant, last_winner, self.schnapsen, self.last_trick_ten)


#: the rules of each combination of options and trump met so far (a few dozen at most)
_DEAL_RULES: dict[tuple[Any, ...], DealRules] = {}


@dataclass(frozen=True, slots=True)
class Announcement:
    """An announced marriage: the announcer and the king or queen (a card number) they led with it."""

    seat: int
    card: int

    @property
    def cards(self) -> tuple[int, int]:
        """The king and the queen."""
        queen = self.card - (self.card % 6 == KING)
        return queen + 1, queen

    def points(self, trump: int) -> int:
        return marriage_value(self.card, trump)
