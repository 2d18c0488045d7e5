"""Sixty-Six (Altmışaltı) and its Schnapsen variant: two players, a talon to draw from, 66 to claim.

The rules are those of the Sixty-Six section of the rule book. A deal: 6 cards each (5 in
Schnapsen), the next card face up under the talon fixes trump and is drawn last. While the talon
is open the follower plays any card and both players draw after each trick, winner first; once
it is exhausted or closed the follower must follow suit, win if able, else trump. The leader
may exchange the trump nine (jack), close the talon, announce a marriage with the lead, and
claim 66 (``declare``), on its own or together with a marriage; a claim, or the last trick, ends
the deal. Exactly one seat may act at any moment.

The state keeps only what cannot be derived: tricks won are half the cards won and a marriage
is pending while its announcer has won nothing.

Cards are numbers of :data:`~engine.sixty_six_core.DECK` and sets of cards are masks of them.
The rules on masks are :mod:`engine.sixty_six_core`'s step functions (who may follow with what,
who takes a trick, the exchange, marriages, points, the deal's outcome, and :class:`DealRules`:
what the options decide for a deal), with the draw after a trick
:func:`~engine.rules.draw_after_trick`; the computer players' rollouts call the same functions.
Leading, following and finishing a trick, and the deal's events, are
:class:`~engine.ruleset.TrickTaking`'s; this module says what a trick brings, how a deal scores,
what each move's refusal says, and what each seat sees.

Events (public unless said otherwise; card fields are codes such as ``"QS"``):

- ``deal``: ``deal``, ``dealer``, ``trump`` (suit letter), ``trump_card`` (the card under the
  talon; with ``no_talon`` the dealer's last card, which stays in their hand), ``talon_size``
  (face-down cards).
- ``dealt`` (private to ``seat``): ``seat``, ``hand``, ``count``; others see ``seat`` and ``count``.
- ``exchange``: ``seat``, ``gave`` (the nine or jack now under the talon), ``took`` (the old
  trump card, now known in that hand).
- ``close``: ``seat``.
- ``marriage``: ``seat``, ``suit``, ``value`` (20 or 40), ``pair`` (king, queen), ``card``
  (the one led, or named with a claim; the other is now known in that hand). A marriage that
  claims 66 is followed by ``declare`` and the deal's result, with no card led.
- ``trick``: ``number``, ``phase`` (1 talon open, 2 otherwise), ``leader``, ``cards``
  (``[{"seat", "card"}]`` in play order), ``winner``.
- ``draw`` (private to ``seat``): ``seat``, ``card``, ``talon_size`` (left after it); others see
  ``seat`` and ``talon_size``.
- ``take``: ``seat``, ``card``: the loser of the trick that took the last face-down card takes
  the trump card, in view.
- ``declare``: ``seat``: a claim of 66, judged in the ``deal_result`` that follows.
- ``deal_result``: the keys of :func:`deal_result` plus ``scores`` (match totals after it).
- ``match_result``: ``winners``, ``scores``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from itertools import chain
from typing import Annotated, Any, Literal, Mapping, NamedTuple, TypedDict

from .actions import Action, Close, Declare, Exchange, Marriage, Play
from .cards import Card, Suit, mask_of
from .errors import RefusalCode, RuleError
from .rules import INVALID_OPTION, NEW_TRICKS, ONLY, DealRecord, Event, Option, Trick, bad_option, draw_after_trick, event_of, public
from .ruleset import ILLEGAL_ACTION, Match, TrickTaking
from .shapes import COMMON_EVENTS, BaseView, CardCode, DrawEvent, SuitCode, TakeEvent, TrickView
from .shuffle import shuffled_deck
from .sixty_six_core import (
    BY_INDEX,
    DECK,
    KING,
    QUEEN,
    SEATS,
    SUIT_MASKS,
    SUITS,
    VARIANTS,
    Announcement,
    Closing,
    DealEnd,
    DealRules,
    counted_points,
    exchanged,
    follower_cards,
    marriage_cards,
    partner,
    points_of,
    trick_winner,
)
# the rest of the core, read here by the rules' tests and the players' (re-exported)
from .sixty_six_core import CLAIM as CLAIM
from .sixty_six_core import POINTS as POINTS
from .sixty_six_core import deal_outcome as deal_outcome
from .sixty_six_core import denied_by_reply as denied_by_reply
from .sixty_six_core import marriage_value as marriage_value
from .sixty_six_core import reply_wins as reply_wins
from .texts import Text

EXCHANGE = Exchange()
CLOSE = Close()
DECLARE = Declare()
# Actions are immutable: legal_actions hands out these instead of building new ones every call.
PLAYS = tuple(Play(card) for card in DECK.cards)
MARRIAGES = {card: Marriage(DECK.cards[card]) for card in range(24) if card % 6 in (QUEEN, KING)}
#: a marriage announced together with a claim of 66
MARRIAGE_CLAIMS = {card: Marriage(DECK.cards[card], declare=True) for card in MARRIAGES}
plays_of = DECK.selector(PLAYS)
# a marriage is announced with a king or a queen: only their entries are ever selected
marriages_of = DECK.selector([(MARRIAGES[card],) if card in MARRIAGES else () for card in range(24)])
marriages_and_claims_of = DECK.selector(
    [(MARRIAGES[card], MARRIAGE_CLAIMS[card]) if card in MARRIAGES else () for card in range(24)]
)


class TalonAtClose(TypedDict):
    """The closer's opponent's points and tricks when the talon was closed."""

    points: int
    tricks: int


class SixtySixDealResult(TypedDict):
    """How a deal of Sixty-Six ended."""

    deal: Annotated[int, "The deal's number, from 1"]
    winners: Annotated[list[int], "The seat that won the deal; empty for a drawn deal"]
    game_points: Annotated[list[int], "Game points the deal added to each score (one entry per seat, in seat order)"]
    reason: Annotated[DealEnd, "How the deal ended"]
    claimed_by: Annotated[int | None, "The seat that claimed 66, or was deemed to"]
    deemed_claim: Annotated[
        bool,
        "All tricks were played and the claim is deemed: the closer's, with 66 or more on a closed talon, else the last "
        "trick's winner's",
    ]
    points: Annotated[list[int], "Each player's points in the deal: cards, counted marriages, the last-trick 10"]
    marriage_points: Annotated[list[int], "Counted marriage points (one entry per seat, in seat order)"]
    last_trick_ten: Annotated[int | None, "The seat given 10 for the last trick"]
    tricks: Annotated[list[int], "Tricks won (one entry per seat, in seat order)"]
    closed_by: Annotated[int | None, "The seat that closed the talon"]
    at_close: Annotated[TalonAtClose | None, "The closer's opponent's points and tricks when the talon was closed"]


class MarriageShown(TypedDict):
    seat: int
    suit: SuitCode
    points: Annotated[int, "20, or 40 in trump"]
    pair: Annotated[list[CardCode], "The king and the queen"]
    pending: Annotated[bool, "Not counted until the announcer wins a trick"]


class SixtySixDealEvent(TypedDict):
    """A deal of Sixty-Six begins."""

    type: Literal["deal"]
    deal: Annotated[int, "The deal's number, from 1"]
    dealer: int
    trump: Annotated[SuitCode, "The trump suit"]
    trump_card: Annotated[CardCode | None, "The face-up trump card under the talon; null without a talon"]
    talon_size: Annotated[int, "Face-down cards in the talon"]


class ExchangeEvent(TypedDict):
    """A seat exchanged the trump card under the talon."""

    type: Literal["exchange"]
    seat: int
    gave: Annotated[CardCode, "The card put under the talon"]
    took: Annotated[CardCode, "The trump card taken"]


class CloseEvent(TypedDict):
    """A seat closed the talon."""

    type: Literal["close"]
    seat: int


class MarriageEvent(TypedDict):
    """A seat announced a marriage."""

    type: Literal["marriage"]
    seat: int
    card: Annotated[CardCode, "The king or queen led or named"]
    suit: SuitCode
    pair: Annotated[list[CardCode], "The king and the queen"]
    value: Annotated[int, "20, or 40 in trump"]


class DeclareEvent(TypedDict):
    """A seat claimed 66."""

    type: Literal["declare"]
    seat: int


class SixtySixDealResultEvent(SixtySixDealResult):
    """A deal of Sixty-Six ended."""

    type: Literal["deal_result"]
    scores: Annotated[list[int], "Match totals after the deal (one entry per seat, in seat order)"]


class SixtySixView(BaseView):
    """A game of Sixty-Six as one seat (or a spectator) sees it."""

    last_deal: Annotated[SixtySixDealResult | None, "How the last finished deal ended; null before"]
    hand: Annotated[list[CardCode] | None, "The viewer's cards; null for a spectator"]
    hand_sizes: Annotated[list[int], "Cards in each hand (one entry per seat, in seat order)"]
    trump: Annotated[SuitCode, "The trump suit"]
    trump_card: Annotated[
        CardCode | None, "The face-up trump card under the talon; null once taken, when closed, or without a talon"
    ]
    talon_size: Annotated[int, "Face-down cards left in the talon"]
    talon_closed: Annotated[bool, "The talon has been closed"]
    closed_by: Annotated[int | None, "The seat that closed the talon"]
    phase: Annotated[int, "1 while drawing from the talon, then 2"]
    trick_number: Annotated[int | None, "The trick being played, from 1; null once the match is over"]
    trick: Annotated[TrickView, "The trick on the table"]
    last_trick: Annotated[TrickView | None, "The last finished trick"]
    tricks_won: Annotated[list[int], "Tricks won this deal (one entry per seat, in seat order)"]
    known_cards: Annotated[
        list[list[CardCode]],
        "Cards both players know to be in each hand (a trump card taken, a marriage partner) (one entry per seat, in seat order)",
    ]
    marriages: Annotated[list[MarriageShown], "Marriages announced this deal"]
    pending_marriage: Annotated[list[bool], "Marriage points waiting for a trick won (one entry per seat, in seat order)"]
    points: Annotated[list[int] | None, "Points so far (cards and counted marriages); null unless `open_scores`"]
    won_cards: Annotated[list[list[CardCode]] | None, "The cards of the tricks won; null unless `open_scores`"]


class SixtySixState(NamedTuple):
    """A match of Sixty-Six, in the middle of its current deal."""

    match: Match
    hands: tuple[int, ...]  # masks
    talon: tuple[int, ...]  # the face-down cards, in drawing order
    trump_card: int | None  # the card under the talon; None once taken, or with no talon
    trump: int  # suit number
    trick: Trick  # the trick being played
    won: tuple[int, ...]  # per seat: the cards of the tricks won this deal
    marriages: tuple[Announcement, ...]  # announced this deal, in order
    shown: tuple[int, ...]  # per seat: cards in hand that both players know
    closing: Closing | None = None
    last_trick: Trick | None = None

    @property
    def talon_open(self) -> bool:
        """At least one face-down card left and not closed: phase 1."""
        return bool(self.talon) and self.closing is None

    @property
    def phase(self) -> int:
        return 1 if self.talon and self.closing is None else 2

    @property
    def tricks(self) -> tuple[int, ...]:
        """Tricks won this deal, per seat."""
        return (self.won[0].bit_count() // SEATS, self.won[1].bit_count() // SEATS)

    @property
    def trick_number(self) -> int:
        return (self.won[0].bit_count() + self.won[1].bit_count()) // SEATS + 1

    def points(self, seat: int) -> int:
        """Card points won plus counted marriages (a marriage counts once its announcer won a trick)."""
        won = self.won[seat]
        return counted_points(points_of(won), self.marriage_points(seat), won.bit_count() // SEATS)

    def marriage_points(self, seat: int) -> int:
        """The seat's counted marriage points: 0 while they are pending."""
        if not self.won[seat] or not self.marriages:  # most deals have none: no generator to sum
            return 0
        return sum(marriage.points(self.trump) for marriage in self.marriages if marriage.seat == seat)


#: ``SixtySixState(*fields)`` from all eleven fields, as :data:`~engine.rules.trick_of` (two states a trick)
state_of = partial(tuple.__new__, SixtySixState)


def deal_result(state: SixtySixState, claimant: int | None) -> SixtySixDealResult:
    """The result of a deal that ends now: by ``claimant``'s claim, or (None) with all tricks played.

    Keys: ``deal``; ``winners`` (the winning seat, or empty for a drawn deal); ``game_points``
    per seat; ``reason`` (``claim``, ``false_claim``, ``closer_failed``, ``last_trick``,
    ``more_points``, ``drawn``); ``claimed_by`` (the seat that claimed, or was deemed to, else
    null); ``deemed_claim`` (all tricks played: on a closed talon the closer with 66 or more is
    deemed to claim, else the last trick's winner with 66 or more); ``points`` per seat (cards, counted marriages and the last-trick
    10); ``marriage_points`` per seat (counted); ``last_trick_ten`` (the seat given the 10, or
    null); ``tricks`` per seat; ``closed_by`` and ``at_close`` (the closer's opponent's
    ``points`` and ``tricks`` when the talon was closed), both null without a close.
    """
    closing = state.closing
    tricks = state.tricks
    outcome = DealRules.of(state.match.options, state.trump).outcome(
        (state.points(0), state.points(1)),
        (tricks[0], tricks[1]),
        closing,
        claimant,
        state.trick.leader,  # once all tricks are played, the last one's winner is on lead
    )
    winner = outcome.winner
    return {
        "deal": state.match.deal_number,
        "winners": [winner] if winner is not None else [],
        "game_points": [0, 0] if winner is None else [outcome.game_points, 0] if winner == 0 else [0, outcome.game_points],
        "reason": outcome.reason,
        "claimed_by": outcome.claimant,
        "deemed_claim": outcome.deemed,
        "points": list(outcome.points),
        "marriage_points": [state.marriage_points(0), state.marriage_points(1)],
        "last_trick_ten": outcome.ten,
        "tricks": list(tricks),
        "closed_by": closing.seat if closing else None,
        "at_close": {"points": closing.points, "tricks": closing.tricks} if closing else None,
    }


EXHAUSTED_TALON = Option(
    "exhausted_talon",
    "string",
    "last-trick",
    {"en": "Exhausted talon", "tr": "Talon bitince"},
    {
        "en": "When the last trick is played on a talon that ran out and no one claimed: last-trick, its "
        "winner wins the deal and scores 1; last-trick-ten, its winner adds 10 points, the player with "
        "more points wins as for a claim and equal points are a drawn deal. Schnapsen allows only last-trick.",
        "tr": "Talon bitmiş, kimse 66 ilan etmemişken son löve oynanınca: son löveyi alan kazanır seçilirse "
        "son löveyi alan eli kazanır ve 1 puan alır; son löveye 10 puan seçilirse son löveyi alan 10 sayı "
        "ekler, sayısı çok olan ilan etmiş gibi kazanır, sayılar eşitse el berabere biter. Schnapsen'de "
        "yalnızca ilki seçilebilir.",
    },
    allowed=("last-trick", "last-trick-ten"),
    labels={
        "last-trick": {"en": "Last trick wins", "tr": "Son löveyi alan kazanır"},
        "last-trick-ten": {"en": "Last trick scores 10", "tr": "Son löveye 10 puan"},
    },
)


#: the leader's moves beside a lead, as the refusals name them: the thing moved and the verb
#: (Turkish puts the thing first and the verb last, English the other way round)
LEADERS_MOVES: Mapping[type[Action], Mapping[str, Text]] = {
    Exchange: {"thing": {"en": "the trump card", "tr": "koz kartını"}, "verb": {"en": "exchange", "tr": "değiştirebilir"}},
    Close: {"thing": {"en": "the talon", "tr": "talonu"}, "verb": {"en": "close", "tr": "kapatabilir"}},
    Marriage: {"thing": {"en": "a marriage", "tr": "evliliği"}, "verb": {"en": "announce", "tr": "ilan edebilir"}},
}
#: the state of the talon that forbids an exchange or a close
TALON_STATES: Mapping[str, Text] = {
    "none": {"en": "there is no talon", "tr": "talon yok"},
    "closed": {"en": "the talon is closed", "tr": "talon kapalı"},
    "exhausted": {"en": "the talon is exhausted", "tr": "talon bitti"},
}
#: an exchange or a close that the talon's state forbids, as a refused seat reads it
TALON_FORBIDS: Text = {"en": "{talon}: you may not {move}", "tr": "{talon}: {move}"}
#: what the talon forbids: in English the deed, in Turkish that it cannot be done
FORBIDDEN_MOVES: Mapping[type[Action], Text] = {
    Exchange: {"en": "exchange the trump card", "tr": "koz kartı değiştirilemez"},
    Close: {"en": "close the talon", "tr": "kapatılamaz"},
}
#: closing a closed talon (said in Turkish as "already closed")
CLOSED_ALREADY: Text = {"en": "the talon is closed: you may not close the talon", "tr": "talon zaten kapalı"}
MARRIAGE_TALON_CLOSED: Text = {"en": "marriages may be announced only while the talon is open", "tr": "evlilik yalnızca talon açıkken ilan edilir"}

class SixtySixSeat(NamedTuple):
    """What one seat (None: a spectator) knows of the game, in masks: what its view says
    (:meth:`to_view`) and what its computer player reads."""

    hand: int | None  # None for a spectator
    hand_sizes: tuple[int, ...]
    trump: int  # suit number
    trump_card: int | None  # the face-up card under the talon; None once taken, when closed, or without a talon
    talon_size: int  # face-down cards
    closed_by: int | None
    trick_number: int | None  # None once the match is over
    trick: Trick
    last_trick: Trick | None
    tricks: tuple[int, ...]  # per seat: tricks won this deal
    shown: tuple[int, ...]  # per seat: cards in hand that both players know
    marriages: tuple[Announcement, ...]  # announced this deal, in order, each by its king (the view names no card led)
    won: tuple[int, ...] | None  # per seat: the cards of the tricks won, with ``open_scores`` only

    def to_view(self) -> dict[str, Any]:
        """The game's part of the seat's view (:class:`SixtySixView`)."""
        trump, tricks, won = self.trump, self.tricks, self.won
        return {
            "hand": DECK.codes(self.hand) if self.hand is not None else None,
            "hand_sizes": list(self.hand_sizes),
            "trump": SUITS[trump].value,
            "trump_card": DECK.code(self.trump_card) if self.trump_card is not None else None,
            "talon_size": self.talon_size,
            "talon_closed": self.closed_by is not None,
            "closed_by": self.closed_by,
            "phase": 1 if self.talon_size and self.closed_by is None else 2,
            "trick_number": self.trick_number,
            "trick": self.trick.to_json(SEATS, DECK),
            "last_trick": self.last_trick.to_json(SEATS, DECK) if self.last_trick else None,
            "tricks_won": list(tricks),
            "known_cards": [DECK.codes(cards) for cards in self.shown],
            "marriages": [
                {
                    "seat": marriage.seat,
                    "suit": SUITS[marriage.card // 6].value,
                    "points": marriage.points(trump),
                    "pair": [DECK.code(card) for card in marriage.cards],
                    "pending": not tricks[marriage.seat],
                }
                for marriage in self.marriages
            ],
            "pending_marriage": [not tricks[held] and any(marriage.seat == held for marriage in self.marriages) for held in range(SEATS)],
            "points": [self.points(held) for held in range(SEATS)] if won is not None else None,
            "won_cards": [DECK.codes(cards) for cards in won] if won is not None else None,
        }

    def points(self, seat: int) -> int:
        """Card points won plus counted marriages (``open_scores`` only: else the cards won are not known)."""
        assert self.won is not None
        marriages = sum(marriage.points(self.trump) for marriage in self.marriages if marriage.seat == seat) if self.tricks[seat] else 0
        return counted_points(points_of(self.won[seat]), marriages, self.tricks[seat])

    @staticmethod
    def from_view(view: Mapping[str, Any]) -> "SixtySixSeat":
        """The inverse of :meth:`to_view`: for a client that holds only the view (``koz bot``)."""
        number = DECK.number
        won = view["won_cards"]
        return SixtySixSeat(
            hand=DECK.mask(view["hand"]) if view["hand"] is not None else None,
            hand_sizes=tuple(view["hand_sizes"]),
            trump=SUITS.index(Suit(view["trump"])),
            trump_card=number[Card.parse(view["trump_card"])] if view["trump_card"] else None,
            talon_size=view["talon_size"],
            closed_by=view["closed_by"],
            trick_number=view["trick_number"],
            trick=Trick.from_json(view["trick"], DECK),
            last_trick=Trick.from_json(view["last_trick"], DECK) if view["last_trick"] else None,
            tricks=tuple(view["tricks_won"]),
            shown=tuple(DECK.mask(cards) for cards in view["known_cards"]),
            marriages=tuple(
                Announcement(marriage["seat"], number[Card.parse(marriage["pair"][0])]) for marriage in view["marriages"]
            ),
            won=tuple(DECK.mask(cards) for cards in won) if won is not None else None,
        )


CARD_NOT_IN_HAND = RefusalCode(
    "card_not_in_hand",
    {"en": "the card is not in the player's hand", "tr": "kart oyuncunun elinde yok"},
    says={"en": "{card} is not in your hand", "tr": "{card} elinizde yok"},
    cases={"not_in_deck": {"en": "{card} is not in this game's deck", "tr": "{card} bu oyunun destesinde yok"}},
)
MUST_FOLLOW_SUIT = RefusalCode(
    "must_follow_suit",
    {
        "en": "with the talon closed or exhausted, the follower must follow suit",
        "tr": "talon kapalıyken ya da bitmişken ikinci oynayan yerdeki rengi oynamalı",
    },
    says={"en": "you hold {led_suit} and must follow suit", "tr": "elinizde {led_suit} var: yerdeki rengi oynamalısınız"},
)
MUST_WIN_TRICK = RefusalCode(
    "must_win_trick",
    {
        "en": "with the talon closed or exhausted, the follower must win the trick if able",
        "tr": "talon kapalıyken ya da bitmişken ikinci oynayan, yapabiliyorsa löveyi almalı",
    },
    says={"en": "you hold a higher {led_suit} card and must win the trick", "tr": "elinizde daha büyük bir {led_suit} var: löveyi almalısınız"},
)
MUST_TRUMP = RefusalCode(
    "must_trump",
    {
        "en": "with the talon closed or exhausted, a follower who cannot follow must trump",
        "tr": "talon kapalıyken ya da bitmişken yerdeki renkten kartı olmayan koz çakmalı",
    },
    says={"en": "you cannot follow {led_suit} but hold trump, and must trump", "tr": "elinizde {led_suit} yok ama koz var: koz çakmalısınız"},
)
DECLARE_NOT_ALLOWED = RefusalCode(
    "declare_not_allowed",
    {
        "en": "66 is claimed only on lead, not at the first lead of a deal, and with a marriage only once a trick is won",
        "tr": "66 yalnızca ilk oynayan sıradayken ilan edilir; elin ilk lövesinde edilmez; evlilikle ancak bir löve alındıktan sonra edilir",
    },
    cases={
        "in_reply": {
            "en": "you may claim 66 only when on lead, not in reply",
            "tr": "66'yı yalnızca ilk oynayan olarak ilan edebilirsiniz, karşılık verirken edemezsiniz",
        },
        "at_first_lead": {"en": "you may not claim 66 at the first lead of a deal", "tr": "elin ilk lövesinde 66 ilan edemezsiniz"},
        "before_trick": {
            "en": "you may claim 66 with a marriage only once you have won a trick in this deal",
            "tr": "evlilikle 66'yı ancak bu elde bir löve aldıktan sonra ilan edebilirsiniz",
        },
        "with_marriage": {
            "en": "in this game 66 is not claimed with a marriage: claim it on lead after your next trick won",
            "tr": "bu oyunda 66 evlilikle ilan edilmez: bir sonraki aldığınız lövenin ardından sıradayken ilan edin",
        },
    },
)
MARRIAGES_DISABLED = RefusalCode(
    "marriages_disabled",
    {"en": "the game is played without marriages", "tr": "oyun evliliksiz oynanıyor"},
    says={"en": "this game is played without marriages", "tr": "bu oyun evliliksiz oynanıyor"},
)
NOT_ON_LEAD = RefusalCode(
    "not_on_lead",
    {
        "en": "only the leader may exchange, close or announce a marriage, before leading",
        "tr": "koz değişimini, kapatmayı ve evlilik ilanını yalnızca ilk oynayan, kart oynamadan önce yapar",
    },
    says={"en": "only the leader may {verb} {thing}, before leading a card", "tr": "{thing} yalnızca ilk oynayan, kart oynamadan önce {verb}"},
)
NOT_A_MARRIAGE_CARD = RefusalCode(
    "not_a_marriage_card", {"en": "a marriage is announced by leading its king or queen", "tr": "evlilik, papazı ya da kızı oynanarak ilan edilir"}
)
MARRIAGE_NOT_HELD = RefusalCode(
    "marriage_not_held",
    {"en": "a marriage needs both the king and the queen", "tr": "evlilik için aynı rengin papazı ve kızı gerekir"},
    says={"en": "you do not hold both the king and the queen of {marriage_suit}", "tr": "elinizde {marriage_suit} papazı ile kızı birlikte yok"},
)
TALON_CLOSED = RefusalCode(
    "talon_closed",
    {"en": "the talon is closed", "tr": "talon kapalı"},
    cases={"move": TALON_FORBIDS, "close": CLOSED_ALREADY, "marriage": MARRIAGE_TALON_CLOSED},
)
TALON_EXHAUSTED = RefusalCode(
    "talon_exhausted", {"en": "the talon is exhausted", "tr": "talon bitti"}, cases={"move": TALON_FORBIDS, "marriage": MARRIAGE_TALON_CLOSED}
)
EXCHANGE_NOT_ALLOWED = RefusalCode(
    "exchange_not_allowed",
    {
        "en": "the trump card may be exchanged only by the leader holding the trump nine (jack), "
        "after winning a trick (in Schnapsen at any time), while the talon is open",
        "tr": "koz kartını yalnızca koz 9'lusu (valesi) elinde olan ilk oynayan, talon açıkken ve bir "
        "löve aldıktan sonra (Schnapsen'de her zaman) değiştirebilir",
    },
    cases={
        "disabled": {"en": "this game is played without the trump exchange", "tr": "bu oyun koz değişimi olmadan oynanıyor"},
        "no_talon": TALON_FORBIDS,
        "card_not_held": {
            "en": "you do not hold {wanted_card}, the card exchanged for the trump card",
            "tr": "koz kartıyla değiştirilen kart ({wanted_card}) elinizde yok",
        },
        "before_trick": {
            "en": "you may exchange only after winning a trick in this deal",
            "tr": "koz kartını ancak bu elde bir löve aldıktan sonra değiştirebilirsiniz",
        },
    },
)
CLOSE_NOT_ALLOWED = RefusalCode(
    "close_not_allowed", {"en": "there is no talon to close", "tr": "kapatılacak talon yok"}, cases={"no_talon": TALON_FORBIDS}
)
SIXTY_SIX_INVALID_OPTION = INVALID_OPTION.meaning_in_game(
    {"en": "an option value not allowed (alone or with the others)", "tr": "seçeneğin bu değeri alınamaz (tek başına ya da ötekilerle birlikte)"}
)
SCHNAPSEN_LAST_TRICK: Text = {
    "en": 'option "exhausted_talon" cannot be "{value}" with variant "schnapsen"; allowed: "last-trick"',
    "tr": '"schnapsen" varyantında "exhausted_talon" seçeneği "{value}" olamaz; olabilecek: "last-trick"',
}
#: the refusal of an exchange or a close when there is no talon, by the move's kind
NO_TALON: Mapping[type[Action], RefusalCode] = {Exchange: EXCHANGE_NOT_ALLOWED, Close: CLOSE_NOT_ALLOWED}


class SixtySix(TrickTaking[SixtySixState]):
    deal_result_type = SixtySixDealResult
    view_type = SixtySixView
    event_types = (
        *COMMON_EVENTS,
        SixtySixDealEvent,
        TakeEvent,
        DrawEvent,
        ExchangeEvent,
        CloseEvent,
        MarriageEvent,
        DeclareEvent,
        SixtySixDealResultEvent,
    )
    id = "sixty-six"
    names = {"en": "Sixty-Six", "tr": "Altmışaltı"}
    seat_names = ({"en": "Player 1", "tr": "1. Oyuncu"}, {"en": "Player 2", "tr": "2. Oyuncu"})
    deck = DECK
    stock_order = "the talon in drawing order, the face-up trump card last"
    action_kinds = (Play, Marriage, Exchange, Close, Declare)
    refusals = (
        ILLEGAL_ACTION.meaning_in_game({"en": "Sixty-Six has no actions of this kind", "tr": "Altmışaltı'da bu tür hamle yok"}),
        CARD_NOT_IN_HAND,
        MUST_FOLLOW_SUIT,
        MUST_WIN_TRICK,
        MUST_TRUMP,
        DECLARE_NOT_ALLOWED,
        MARRIAGES_DISABLED,
        NOT_ON_LEAD,
        NOT_A_MARRIAGE_CARD,
        MARRIAGE_NOT_HELD,
        TALON_CLOSED,
        TALON_EXHAUSTED,
        EXCHANGE_NOT_ALLOWED,
        CLOSE_NOT_ALLOWED,
        SIXTY_SIX_INVALID_OPTION,
    )
    options = (
        Option(
            "variant",
            "string",
            "sixty-six",
            {"en": "Variant", "tr": "Varyant"},
            {
                "en": "sixty-six: 24 cards, 6 each; schnapsen: 20 cards (no nines), 5 each, exchange with the "
                "trump jack without a trick won, marriages after closing too, stiffer penalties.",
                "tr": "Altmışaltı: 24 kart, kişi başı 6; Schnapsen: 20 kart (dokuzlular yok), kişi başı 5, löve "
                "almadan koz valesiyle değişim, kapattıktan sonra da evlilik, ağır cezalar.",
            },
            allowed=tuple(VARIANTS),
            labels={
                "sixty-six": {"en": "Sixty-Six (24 cards)", "tr": "Altmışaltı (24 kart)"},
                "schnapsen": {"en": "Schnapsen (20 cards)", "tr": "Schnapsen (20 kart)"},
            },
        ),
        Option(
            "marriages",
            "boolean",
            True,
            {"en": "Marriages", "tr": "Evlilik"},
            {
                "en": "A king and queen of one suit announced with the lead score 20, or 40 in trump; false "
                "plays without marriages.",
                "tr": "Aynı rengin papazı ile kızı, biri oynanırken ilan edilince 20, kozda 40 sayı kazandırır; "
                "seçilmezse evliliksiz oynanır.",
            },
        ),
        Option(
            "trump_exchange",
            "boolean",
            True,
            {"en": "Trump exchange", "tr": "Koz değişimi"},
            {
                "en": "While the talon is open, the leader holding the trump nine (jack in Schnapsen) may swap "
                "it for the face-up trump card.",
                "tr": "Talon açıkken koz 9'lusu (Schnapsen'de valesi) elinde olan ilk oynayan, onu açık koz "
                "kartıyla değiştirebilir.",
            },
        ),
        Option(
            "open_scores",
            "boolean",
            False,
            {"en": "Open scores", "tr": "Açık puan takibi"},
            {
                "en": "Each view shows both players' points and won cards; otherwise only the tricks won and "
                "whether marriage points are pending.",
                "tr": "Masada iki oyuncunun sayıları ve aldığı kartlar görünür; seçilmezse yalnızca alınan löveler "
                "ve bekleyen evlilik sayısı olup olmadığı görünür.",
            },
        ),
        Option(
            "no_talon",
            "boolean",
            False,
            {"en": "No talon (practice)", "tr": "Talonsuz pratik"},
            {
                "en": "All cards are dealt; the dealer's last card is shown and fixes trump; phase-2 rules from "
                "the first trick, no exchange or closing; marriages when leading.",
                "tr": "Bütün kartlar dağıtılır; dağıtanın son kartı gösterilir ve kozu belirler; ilk löveden "
                "başlayarak ikinci aşamanın kuralları geçer, değişim ve kapatma yok; evlilik ilk oynarken.",
            },
        ),
        EXHAUSTED_TALON,
        Option(
            "target",
            "integer",
            7,
            {"en": "Target score", "tr": "Hedef puan"},
            {
                "en": "The first player to reach this many game points wins the match.",
                "tr": "Bu kadar oyun puanına ilk ulaşan maçı kazanır.",
            },
            allowed=(5, 7, 9, 11),
        ),
    )

    # --- creation ---------------------------------------------------------------------------

    def check_option_combination(self, options: Mapping[str, Any]) -> None:
        if options["variant"] == "schnapsen" and options["exhausted_talon"] != "last-trick":
            allowed = replace(EXHAUSTED_TALON, allowed=("last-trick",))
            raise bad_option(allowed, options["exhausted_talon"], SCHNAPSEN_LAST_TRICK, value=options["exhausted_talon"])

    @staticmethod
    def _dealt(match: Match, deal_number: int, dealer: int) -> tuple[list[list[int]], list[int], int]:
        """Cards go one at a time, from the non-dealer; then the trump card; the rest is the talon.

        Gives the hands, the talon in drawing order and the trump card. With ``no_talon`` all
        cards are dealt this way, the last one (the dealer's) is the trump card and the talon is
        empty.
        """
        options = match.options
        variant = VARIANTS[options["variant"]]
        cards = shuffled_deck(match.seed, deal_number, variant.order)
        size = len(cards) // SEATS if options["no_talon"] else variant.hand_size
        first, second = cards[0 : 2 * size : 2], cards[1 : 2 * size : 2]  # the non-dealer's, the dealer's
        hands = [second, first] if dealer == 0 else [first, second]
        if options["no_talon"]:
            return hands, [], second[-1]
        return hands, cards[2 * size + 1 :], cards[2 * size]

    def deal_record(self, match: Match, deal_number: int, dealer: int) -> DealRecord:
        hands, talon, trump_card = self._dealt(match, deal_number, dealer)
        card = DECK.cards
        dealt = tuple(tuple(card[n] for n in hand) for hand in hands)
        stock = () if match.options["no_talon"] else (*talon, trump_card)
        return DealRecord(dealer, dealt, tuple(card[n] for n in stock), card[trump_card])

    def deal(self, match: Match) -> tuple[SixtySixState, tuple[Event, ...]]:
        dealer = match.dealer(SEATS)
        dealt, talon, trump_card = self._dealt(match, match.deal_number, dealer)
        no_talon = match.options["no_talon"]
        hands = (mask_of(dealt[0]), mask_of(dealt[1]))
        shown = (0, 0)
        if no_talon:  # the trump card stays in the dealer's hand, in view
            shown = (1 << trump_card, 0) if dealer == 0 else (0, 1 << trump_card)
        under_talon = None if no_talon else trump_card
        state = SixtySixState(match, hands, tuple(talon), under_talon, trump_card // 6, NEW_TRICKS[1 - dealer], (0, 0), (), shown)
        events = self.deal_events(match, hands, trump=SUITS[trump_card // 6].value, trump_card=DECK.code(trump_card), talon_size=len(talon))
        return state, events

    # --- play -------------------------------------------------------------------------------

    def legal_actions(self, state: SixtySixState, seat: int) -> tuple[Action, ...]:
        trick = state.trick
        if (seat,) != self.to_act(state):  # the game over, or another seat's turn
            return ()
        if trick.cards:
            return plays_of(follower_cards(state.hands[seat], trick.cards[0], state.trump, state.talon_open))
        hand, rules = state.hands[seat], self.deal_rules(state)
        talon_open = bool(state.talon) and state.closing is None
        actions: tuple[Action, ...] = ()
        if talon_open:
            actions = (EXCHANGE, CLOSE) if rules.may_exchange(True, hand, bool(state.won[seat])) else (CLOSE,)
        if state.won[0] or state.won[1]:
            actions += (DECLARE,)  # the leader won the last trick
        pairs = marriage_cards(hand)
        if pairs and rules.marriage_time(talon_open):
            # the claim goes with the announcement, once a trick is won
            marriages = marriages_and_claims_of if rules.marriage_claim_allowed(bool(state.won[seat])) else marriages_of
            actions += tuple(chain.from_iterable(marriages(pairs)))
        return actions + plays_of(hand)

    @staticmethod
    def deal_rules(state: SixtySixState) -> DealRules:
        """The rules of the deal in play (the computer players' rollouts apply the same)."""
        return DealRules.of(state.match.options, state.trump)

    def _may_exchange(self, state: SixtySixState, seat: int) -> bool:
        """Whether ``seat`` on lead may exchange now."""
        return self.deal_rules(state).may_exchange(state.talon_open, state.hands[seat], bool(state.won[seat]))

    def verify_declare(self, state: SixtySixState, seat: int, action: Declare) -> RuleError | None:
        trick = state.trick
        if trick.cards:
            return DECLARE_NOT_ALLOWED("in_reply")
        if not trick.cards and not (state.won[0] or state.won[1]):
            return DECLARE_NOT_ALLOWED("at_first_lead")
        return None

    def _leader_move(self, state: SixtySixState, action: Action) -> RuleError | None:
        """What forbids the leader's moves other than a card and a claim, before its kind's own rules."""
        options = state.match.options
        if isinstance(action, Marriage) and not options["marriages"]:
            return MARRIAGES_DISABLED()
        if isinstance(action, Exchange) and not options["trump_exchange"]:
            return EXCHANGE_NOT_ALLOWED("disabled")
        if state.trick.cards:
            return NOT_ON_LEAD(**LEADERS_MOVES[type(action)])
        return None

    def _talon_move(self, state: SixtySixState, action: Action) -> RuleError | None:
        """What forbids an exchange or a close: no talon, a closed or an exhausted one."""
        move = FORBIDDEN_MOVES[type(action)]
        if state.match.options["no_talon"]:
            return NO_TALON[type(action)]("no_talon", talon=TALON_STATES["none"], move=move)
        if state.closing is not None:
            if isinstance(action, Close):
                return TALON_CLOSED("close")
            return TALON_CLOSED("move", talon=TALON_STATES["closed"], move=move)
        if not state.talon:
            return TALON_EXHAUSTED("move", talon=TALON_STATES["exhausted"], move=move)
        return None

    def verify_close(self, state: SixtySixState, seat: int, action: Close) -> RuleError | None:
        return self._leader_move(state, action) or self._talon_move(state, action)

    def verify_exchange(self, state: SixtySixState, seat: int, action: Exchange) -> RuleError | None:
        refused = self._leader_move(state, action) or self._talon_move(state, action)
        if refused is not None or self._may_exchange(state, seat):
            return refused
        swap_card = self.deal_rules(state).swap_card
        if not state.hands[seat] >> swap_card & 1:
            wanted = DECK.cards[swap_card]  # the trump nine (jack): no hidden card
            return EXCHANGE_NOT_ALLOWED("card_not_held", wanted_card=str(wanted))
        return EXCHANGE_NOT_ALLOWED("before_trick")

    def verify_marriage(self, state: SixtySixState, seat: int, action: Marriage) -> RuleError | None:
        refused = self._leader_move(state, action)
        if refused is not None:
            return refused
        card = DECK.number.get(action.card)
        if card is None or card % 6 not in (KING, QUEEN):
            return NOT_A_MARRIAGE_CARD()
        if not marriage_cards(state.hands[seat]) >> card & 1:
            return MARRIAGE_NOT_HELD(marriage_suit=action.card.suit.value)
        rules = self.deal_rules(state)
        if rules.marriage_time(state.talon_open):
            if action.declare and not state.won[seat]:
                return DECLARE_NOT_ALLOWED("before_trick")
            if action.declare and not rules.marriage_claims:
                return DECLARE_NOT_ALLOWED("with_marriage")
            return None
        # held, on lead and allowed by the options: only the talon's state forbids it
        if state.closing is not None:
            return TALON_CLOSED("marriage")
        return TALON_EXHAUSTED("marriage")

    def verify_play(self, state: SixtySixState, seat: int, action: Play) -> RuleError | None:
        trick = state.trick
        card = BY_INDEX[action.card.index]
        hand = state.hands[seat]
        if card < 0 or not hand >> card & 1:
            in_deck = card >= 0 and self.deal_rules(state).deck >> card & 1
            return CARD_NOT_IN_HAND(None if in_deck else "not_in_deck", card=action.card.code)
        if not trick.cards or follower_cards(hand, trick.cards[0], state.trump, state.talon_open) >> card & 1:
            return None
        lead = trick.cards[0]
        suit = SUITS[lead // 6].value
        if card // 6 != lead // 6 and hand & SUIT_MASKS[lead // 6]:
            return MUST_FOLLOW_SUIT(led_suit=suit)
        if card // 6 == lead // 6:
            return MUST_WIN_TRICK(led_suit=suit)
        return MUST_TRUMP(led_suit=suit)

    def perform_declare(self, state: SixtySixState, seat: int, action: Declare) -> tuple[SixtySixState, tuple[Event, ...]]:
        return self._claim(state, [public("declare", seat=seat)], seat)

    def perform_close(self, state: SixtySixState, seat: int, action: Close) -> tuple[SixtySixState, tuple[Event, ...]]:
        closing = Closing.by(seat, state.points, state.tricks)
        return state._replace(closing=closing), (public("close", seat=seat),)

    def perform_exchange(self, state: SixtySixState, seat: int, action: Exchange) -> tuple[SixtySixState, tuple[Event, ...]]:
        given = self.deal_rules(state).swap_card
        taken = state.trump_card
        assert taken is not None
        hands, shown = list(state.hands), list(state.shown)
        hands[seat] = exchanged(hands[seat], given, taken)
        shown[seat] |= 1 << taken
        state = state._replace(hands=tuple(hands), shown=tuple(shown), trump_card=given)
        return state, (public("exchange", seat=seat, gave=DECK.code(given), took=DECK.code(taken)),)

    def perform_marriage(self, state: SixtySixState, seat: int, action: Marriage) -> tuple[SixtySixState, tuple[Event, ...]]:
        card = DECK.number[action.card]
        marriage = Announcement(seat, card)
        shown = list(state.shown)
        shown[seat] |= 1 << card | 1 << partner(card)  # the card led leaves them
        state = state._replace(marriages=state.marriages + (marriage,), shown=tuple(shown))
        event = public(
            "marriage",
            seat=seat,
            suit=SUITS[card // 6].value,
            value=marriage.points(state.trump),
            pair=[DECK.code(held) for held in marriage.cards],
            card=DECK.code(card),
        )
        if action.declare:
            return self._claim(state, [event, public("declare", seat=seat)], seat)
        return self.play_card(state, card, (event,))

    def trick_winner(self, leader: int, cards: tuple[int, ...], trump: int) -> int:
        lead, reply = cards
        return trick_winner(leader, lead, reply, trump)

    def trick_heading(self, state: SixtySixState) -> dict[str, Any]:
        return {"type": "trick", "number": state.trick_number, "phase": state.phase}

    def card_played(self, state: SixtySixState, hands: tuple[int, ...], trick: Trick, card: int) -> SixtySixState:
        gone = ~(1 << card)
        shown = (state.shown[0] & gone, state.shown[1] & gone)
        return state_of(
            (state.match, hands, state.talon, state.trump_card, state.trump, trick, state.won, state.marriages, shown, state.closing,
             state.last_trick)
        )

    def trick_taken(
        self, state: SixtySixState, hands_after: tuple[int, ...], done: Trick, card: int
    ) -> tuple[SixtySixState, tuple[Event, ...]]:
        """The winner takes the trick's cards; while the talon is open it draws, then the loser
        (the last face-down card drawn, the loser takes the trump card)."""
        winner = done.winner
        assert winner is not None
        loser = 1 - winner
        lead, reply = done.cards
        taken_cards = 1 << lead | 1 << reply
        won = (state.won[0] | taken_cards, state.won[1]) if winner == 0 else (state.won[0], state.won[1] | taken_cards)
        talon, trump_card = state.talon, state.trump_card
        gone = ~(1 << card)
        shown = (state.shown[0] & gone, state.shown[1] & gone)
        events: tuple[Event, ...] = ()
        if talon and state.closing is None:  # the talon is open
            codes = DECK.codes_table
            hands = list(hands_after)
            if len(talon) > 1:
                taken, drawn = draw_after_trick(hands, talon, 0, winner)
                events = (_draw(winner, codes[taken], len(talon) - 1), _draw(loser, codes[drawn], len(talon) - 2))
                talon = talon[2:]
            else:
                # the last face-down card goes to the winner: the loser takes the trump card, in view
                assert trump_card is not None
                taken, drawn = draw_after_trick(hands, (talon[0], trump_card), 0, winner)
                shown = (shown[0], shown[1] | 1 << drawn) if loser else (shown[0] | 1 << drawn, shown[1])
                events = (_draw(winner, codes[taken], 0), public("take", seat=loser, card=codes[drawn]))
                talon, trump_card = (), None
            hands_after = (hands[0], hands[1])
        state = state_of(
            (state.match, hands_after, talon, trump_card, state.trump, NEW_TRICKS[winner], won, state.marriages, shown, state.closing, done)
        )
        return state, events

    def score_deal(self, state: SixtySixState) -> tuple[SixtySixDealResult, list[int]]:
        """All tricks played: the closer with 66 or more is deemed to claim, else the last
        trick's winner with 66 or more (:func:`deal_result`)."""
        result = deal_result(state, None)
        return result, result["game_points"]

    def _claim(self, state: SixtySixState, events: list[Event], claimant: int) -> tuple[SixtySixState, tuple[Event, ...]]:
        """``claimant`` claims 66: the deal ends now, judged by the claim."""
        result = deal_result(state, claimant)
        return self.end_deal(state, events, result, result["game_points"])

    def match_winners(self, match: Match) -> list[int] | None:
        """The first to the target; only one seat scores in a deal, so at most one reaches it."""
        reached = [seat for seat, total in enumerate(match.scores) if total >= match.options["target"]]
        return reached or None

    # --- views ------------------------------------------------------------------------------

    def own_view(self, state: SixtySixState, seat: int | None) -> dict[str, Any]:
        """The deal as ``seat`` may see it (:class:`SixtySixView` says each key)."""
        return self.knowledge(state, seat).to_view()

    def knowledge(self, state: SixtySixState, seat: int | None) -> "SixtySixSeat":
        closing, hands, marriages = state.closing, state.hands, state.marriages
        return SixtySixSeat(  # by position: a view is built from it on every read
            hands[seat] if seat is not None else None,
            (hands[0].bit_count(), hands[1].bit_count()),
            state.trump,
            state.trump_card if closing is None else None,
            len(state.talon),
            closing.seat if closing else None,
            state.trick_number if state.match.result is None else None,
            state.trick,
            state.last_trick,
            state.tricks,
            state.shown,
            tuple(Announcement(marriage.seat, marriage.cards[0]) for marriage in marriages) if marriages else (),
            state.won if state.match.options["open_scores"] else None,
        )

    # --- serialization ----------------------------------------------------------------------

    def dump_deal(self, state: SixtySixState) -> dict[str, Any]:
        closing = state.closing
        return {
            "hands": [DECK.codes(hand) for hand in state.hands],
            "talon": [DECK.code(card) for card in state.talon],
            "trump_card": DECK.code(state.trump_card) if state.trump_card is not None else None,
            "trump": SUITS[state.trump].value,
            "trick": state.trick.dump(DECK),
            "won": [DECK.codes(cards) for cards in state.won],
            "marriages": [[marriage.seat, DECK.code(marriage.card)] for marriage in state.marriages],
            "shown": [DECK.codes(cards) for cards in state.shown],
            "closing": [closing.seat, closing.points, closing.tricks] if closing else None,
            "last_trick": state.last_trick.dump(DECK) if state.last_trick else None,
        }

    def load_deal(self, match: Match, doc: Mapping[str, Any]) -> SixtySixState:
        return SixtySixState(
            match=match,
            hands=tuple(DECK.mask(hand) for hand in doc["hands"]),
            talon=tuple(DECK.number[Card.parse(code)] for code in doc["talon"]),
            trump_card=DECK.number[Card.parse(doc["trump_card"])] if doc["trump_card"] else None,
            trump=SUITS.index(Suit(doc["trump"])),
            trick=Trick.load(doc["trick"], DECK),
            won=tuple(DECK.mask(cards) for cards in doc["won"]),
            marriages=tuple(Announcement(seat, DECK.number[Card.parse(code)]) for seat, code in doc["marriages"]),
            shown=tuple(DECK.mask(cards) for cards in doc["shown"]),
            closing=Closing(*doc["closing"]) if doc["closing"] else None,
            last_trick=Trick.load(doc["last_trick"], DECK) if doc["last_trick"] else None,
        )


def _draw(seat: int, card: str, talon_size: int) -> Event:
    """The private event of a card drawn from the talon: others see that a card was drawn."""
    return event_of(
        ({"type": "draw", "seat": seat, "card": card, "talon_size": talon_size}, ONLY[seat], {"type": "draw", "seat": seat, "talon_size": talon_size})
    )

