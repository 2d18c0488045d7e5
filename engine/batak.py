"""Partnership Batak (Eşli Batak): four players in two teams, an auction, trump, an open hand.

The rules are those of the Partnership Batak section of the rule book. Seats in play order are
South, East, North, West (0..3); North–South (seats 0 and 2) is team 0, East–West (1 and 3) is
team 1, so a seat's team is ``seat % 2`` and its partner ``(seat + 2) % 4``.

A deal has three phases, told apart by the state:

- the auction (``declarer`` is None): from the seat after the dealer, each seat in the auction
  bids 8..13 above the last bid or passes (and is out for the deal);
- naming trump (``trump`` is None): the declarer names one of the four suits; the dummy's hand
  then turns face up;
- card play (``trick`` is set): 13 tricks, the declarer leading the first and choosing the
  dummy's cards in the dummy's turn.

Events (``type`` and fields; every one is public except ``dealt``):

- ``deal``: ``deal``, ``dealer``, ``first_bidder``: a new deal was dealt.
- ``dealt``: ``seat``, ``hand``, ``count``: a seat's 13 cards; seen whole by that seat only,
  others see ``seat`` and ``count``.
- ``contract``: ``declarer``, ``dummy``, ``contract``, ``all_passed``: the auction is over.
- ``trump``: ``seat``, ``suit``: the declarer named trump.
- ``open_hand``: ``seat``, ``hand``: the dummy's hand, face up from now on.
- ``trick``: ``number``, ``leader``, ``cards`` ([{``seat``, ``card``}]), ``winner``: a trick is
  complete.
- ``deal_result``: the deal result (see :meth:`PartnershipBatak.score_deal`) and ``scores``.
- ``match_result``: ``winners``, ``scores``.

Cards are numbers of :data:`~engine.cards.STANDARD` and hands are masks of them. The rules of
card play are :func:`legal_mask`, :func:`beats` and :func:`winning`, the scoring
:func:`deal_points` and the match's end :func:`match_winning_team`; the computer players call
them too. Leading, following and finishing a trick, and the deal's events, are
:class:`~engine.ruleset.TrickTaking`'s; this module says what a trick brings and how a deal scores.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal, Mapping, NamedTuple, Sequence, TypedDict

from .actions import Action, Bid, Pass, Play, Trump
from .cards import STANDARD, Suit, mask_of
from .errors import Refusal, RefusalCode, RuleError
from .rules import NEW_TRICKS, DealRecord, Event, Option, Trick, public, replace_at, seat_at, turns
from .ruleset import ILLEGAL_ACTION, Match, TrickTaking
from .shapes import COMMON_EVENTS, BaseView, CardCode, NamesObject, SuitCode, TrickView
from .shuffle import shuffled_deck

SEATS = 4
TRICKS = 13  # cards per hand, and tricks per deal
MIN_BID, MAX_BID = 8, 13
ALL_PASSED_CONTRACT = 7  # the contract of the seat after the dealer when all four pass
TEAMS = ((0, 2), (1, 3))  # North–South, East–West

DECK = STANDARD
RANKS = 13
SUIT_MASKS = DECK.suit_masks
ABOVE = DECK.above
BEATERS = DECK.beaters
SUITS = tuple(Suit)

# Every action this game can offer, built once: legal_actions runs on every move.
PLAYS = tuple(Play(card) for card in DECK.cards)
plays_of = DECK.selector(PLAYS)
BIDS = {value: Bid(value) for value in range(MIN_BID, MAX_BID + 1)}
PASS = Pass()
TRUMPS = tuple(Trump(suit) for suit in Suit)
TURNS = turns(SEATS)


@dataclass(frozen=True, slots=True)
class Auction:
    """The bidding of one deal: the seat that opens it and every call in order.

    A call is ``(seat, bid)``, with ``bid`` None for a pass.
    """

    opener: int  # the seat after the dealer
    calls: tuple[tuple[int, int | None], ...] = ()

    def _last_bid(self) -> tuple[int, int] | None:
        """The highest bid so far as ``(seat, bid)``: bids only rise, so it is the last one."""
        for seat, bid in reversed(self.calls):
            if bid is not None:
                return seat, bid
        return None

    @property
    def high_bid(self) -> int | None:
        last = self._last_bid()
        return None if last is None else last[1]

    @property
    def high_bidder(self) -> int | None:
        last = self._last_bid()
        return None if last is None else last[0]

    @property
    def passed(self) -> frozenset[int]:
        """The seats out of the auction."""
        return frozenset(seat for seat, bid in self.calls if bid is None)

    @property
    def is_open(self) -> bool:
        """Whether more calls are due: not after a 13, four passes, or when only the high bidder is left."""
        high, passed = self.high_bid, len(self.passed)
        if high is None:
            return passed < SEATS
        return high < MAX_BID and passed < SEATS - 1

    @property
    def to_bid(self) -> int:
        """The seat to call next (only while the auction is open): the next one still in it."""
        passed = self.passed
        seat = (self.calls[-1][0] + 1) % SEATS if self.calls else self.opener
        while seat in passed:
            seat = (seat + 1) % SEATS
        return seat

    def lowest_bid(self) -> int:
        """The lowest bid allowed now."""
        high = self.high_bid
        return MIN_BID if high is None else high + 1

    def outcome(self) -> tuple[int, int]:
        """The declarer and the contract of a closed auction."""
        return self._last_bid() or (self.opener, ALL_PASSED_CONTRACT)

    def after(self, seat: int, bid: int | None) -> "Auction":
        return replace(self, calls=self.calls + ((seat, bid),))

    def to_json(self) -> dict[str, Any]:
        return {
            "bids": [{"seat": seat, "bid": bid} for seat, bid in self.calls],
            "high_bid": self.high_bid,
            "high_bidder": self.high_bidder,
            "passed": sorted(self.passed),
            "open": self.is_open,
        }


class BatakDealResult(TypedDict):
    """How a deal of Partnership Batak ended (it names no winners: the match totals decide)."""

    deal: Annotated[int, "The deal's number, from 1"]
    declarer: Annotated[int, "The declarer"]
    dummy: Annotated[int, "The declarer's partner, whose hand was open"]
    contract: Annotated[int, "The winning bid (7 when all passed)"]
    trump: Annotated[SuitCode, "The trump named"]
    tricks: Annotated[list[int], "Tricks won (one entry per seat, in seat order)"]
    team_tricks: Annotated[list[int], "Tricks of North-South and of East-West"]
    made: Annotated[bool, "The declaring team took at least its bid"]
    sweep: Annotated[int | None, "The team (0 North-South, 1 East-West) that took all 13 tricks"]
    points: Annotated[list[int], "What the deal added to each score; partners score the same (one entry per seat, in seat order)"]
    team_points: Annotated[list[int], "Points of North-South and of East-West"]


class BidShown(TypedDict):
    seat: int
    bid: Annotated[int | None, "null for a pass"]


class AuctionShown(TypedDict):
    bids: Annotated[list[BidShown], "Every call, in order"]
    high_bid: int | None
    high_bidder: int | None
    passed: Annotated[list[int], "Seats out of the auction"]
    open: Annotated[bool, "The auction is still going on"]


class OpenHand(TypedDict):
    seat: int
    label: Annotated[NamesObject, "The seat's label, shown with the open hand"]
    cards: list[CardCode]


class BatakDealEvent(TypedDict):
    """A deal of Partnership Batak begins."""

    type: Literal["deal"]
    deal: Annotated[int, "The deal's number, from 1"]
    dealer: int
    first_bidder: Annotated[int, "The seat that opens the auction"]


class ContractEvent(TypedDict):
    """The auction is over."""

    type: Literal["contract"]
    declarer: int
    dummy: Annotated[int, "The declarer's partner, whose hand the declarer plays"]
    contract: Annotated[int, "The winning bid (7 when all passed)"]
    all_passed: bool


class TrumpEvent(TypedDict):
    """The declarer named trump."""

    type: Literal["trump"]
    seat: int
    suit: SuitCode


class OpenHandEvent(TypedDict):
    """The dummy's hand, face up from now on."""

    type: Literal["open_hand"]
    seat: int
    hand: list[CardCode]


class BatakDealResultEvent(BatakDealResult):
    """A deal of Partnership Batak ended."""

    type: Literal["deal_result"]
    scores: Annotated[list[int], "Match totals after the deal (one entry per seat, in seat order)"]


class BatakView(BaseView):
    """A game of Partnership Batak as one seat (or a spectator) sees it."""

    last_deal: Annotated[BatakDealResult | None, "How the last finished deal ended; null before"]
    hand: Annotated[list[CardCode] | None, "The viewer's cards; null for a spectator"]
    hand_sizes: Annotated[list[int], "Cards in each hand (one entry per seat, in seat order)"]
    teams: Annotated[list[list[int]], "The teams, [[0, 2], [1, 3]] (North-South, East-West)"]
    auction: Annotated[AuctionShown, "The auction of this deal"]
    declarer: Annotated[int | None, "The declarer, once the auction is over"]
    dummy: Annotated[int | None, "The declarer's partner, whose hand the declarer plays"]
    contract: Annotated[int | None, "The winning bid (7 when all passed)"]
    role: Annotated[
        Literal["declarer", "dummy", "defender"] | None,
        "The viewer's role once the auction is over; the dummy acts in nothing this deal",
    ]
    trump: Annotated[SuitCode | None, "The trump suit, once named"]
    trump_broken: Annotated[bool, "A trump was played to an earlier trick"]
    open_hand: Annotated[OpenHand | None, "The dummy's hand, face up once trump is named"]
    turn: Annotated[int | None, "The seat whose card is next (the dummy's, in its turn, while `to_act` is the declarer)"]
    trick_number: Annotated[int | None, "The trick being played, from 1"]
    trick: Annotated[TrickView | None, "The trick on the table; null before trump is named"]
    last_trick: Annotated[TrickView | None, "The last finished trick"]
    tricks_won: Annotated[list[int], "Tricks won this deal (one entry per seat, in seat order)"]
    team_tricks: Annotated[list[int], "Tricks of North-South and of East-West this deal"]


class BatakState(NamedTuple):
    match: Match
    hands: tuple[int, ...]  # masks
    auction: Auction
    declarer: int | None = None  # set when the auction closes
    contract: int | None = None  # the winning bid, or 7 when all passed
    trump: int | None = None  # suit number
    trick: Trick | None = None  # the trick being played; None until trump is named
    won: tuple[int, ...] = (0,) * SEATS  # tricks won per seat this deal
    trump_broken: bool = False  # a trump was played to an earlier, completed trick
    last_trick: Trick | None = None

    @property
    def dummy(self) -> int | None:
        return None if self.declarer is None else partner_of(self.declarer)

    @property
    def turn(self) -> int | None:
        """The seat whose card is to be played next, or None outside card play."""
        if self.trick is None or self.match.result is not None:
            return None
        return TURNS[self.trick.leader + len(self.trick.cards)]

    @property
    def trick_number(self) -> int:
        return sum(self.won) + 1


def partner_of(seat: int) -> int:
    """A seat's partner (the dummy, when the seat is the declarer)."""
    return (seat + 2) % SEATS


def first_bidder(dealer: int) -> int:
    """The seat that opens the auction (and leads the first card): the one after the dealer."""
    return (dealer + 1) % SEATS


def chooser(turn: int, declarer: int) -> int:
    """The seat that chooses the card of ``turn``: the declarer in the dummy's turn."""
    return declarer if turn == partner_of(declarer) else turn


# chooser by declarer and turn, read on every move
CHOOSERS = tuple(tuple(chooser(turn, declarer) for turn in range(SEATS)) for declarer in range(SEATS))


def trump_played(cards: int, trump: int) -> bool:
    """Whether a trump is among ``cards`` (a mask): a trick with one breaks trump."""
    return bool(cards & SUIT_MASKS[trump])


def broken_after(broken: bool, cards: int, trump: int) -> bool:
    """Whether trump is broken once a trick of ``cards`` (a mask) is played: it was before,
    or a trump is among them (:func:`trump_played`)."""
    return broken or trump_played(cards, trump)


def trump_may_be_led(broken: bool, free_trump_lead: bool) -> bool:
    """Whether a trump may be led (rule 1, :func:`legal_mask`): trump is broken, or the
    ``trump_lead_before_broken`` option lifts the restriction."""
    return broken or free_trump_lead


def beats(card: int, win: int, trump: int) -> bool:
    """Whether ``card`` takes the trick from ``win``, the card winning it so far
    (:attr:`~engine.cards.Deck.beaters`)."""
    return bool(BEATERS[trump][win] >> card & 1)


def winning(leader: int, trick: Sequence[int], trump: int) -> tuple[int, int]:
    """The card winning a trick so far and its seat; (-1, -1) before the lead."""
    win, place = DECK.winning(trick, trump)
    return win, seat_at(leader, place, SEATS) if place >= 0 else -1


def legal_mask(hand: int, led: int, win: int, trump: int, may_lead_trump: bool) -> int:
    """The cards of ``hand`` that may be played (rules 1-4) to a trick whose suit led is ``led``
    and whose winning card so far is ``win``; ``led`` is -1 for a lead.

    ``may_lead_trump``: trump is broken, or the option lifts the restriction on leading it.
    """
    if led < 0:
        return hand if may_lead_trump else hand & ~SUIT_MASKS[trump] or hand  # only trumps: lead one
    following = hand & SUIT_MASKS[led]
    if following:
        if win // RANKS != led:  # the trick is trumped: any card of the suit led
            return following
        return following & ABOVE[win] or following
    trumps = hand & SUIT_MASKS[trump]
    if trumps:
        if win // RANKS == trump:
            return trumps & ABOVE[win] or trumps
        return trumps
    return hand


def denied_by_card(card: int, led: int, win: int, trump: int, may_lead_trump: bool) -> int:
    """The cards a seat shows it does not hold by playing ``card``, which :func:`legal_mask`
    allowed it (same arguments): only trumps held when trump is led before it may be; no card
    of the suit led that beats ``win`` when it follows below it; no card of the suit led when it
    does not follow, and no trump when it does not trump (none beating a winning trump when it
    trumps below it)."""
    suit = card // RANKS
    if led < 0:
        return DECK.full & ~SUIT_MASKS[trump] if suit == trump and not may_lead_trump else 0
    if suit == led:
        return ABOVE[win] if win // RANKS == led and card < win else 0
    if suit != trump:
        return SUIT_MASKS[led] | SUIT_MASKS[trump]
    return SUIT_MASKS[led] | (ABOVE[win] if win // RANKS == trump and card < win else 0)


def deal_points(contract: int, declaring_tricks: int) -> tuple[int, int]:
    """The points of the declaring team and of the defending team for a finished deal."""
    defending_tricks = TRICKS - declaring_tricks
    # A sweep replaces both lines below, whatever the bid.
    if declaring_tricks == TRICKS:
        return TRICKS, -TRICKS
    if defending_tricks == TRICKS:
        return -TRICKS, TRICKS
    declaring = declaring_tricks if declaring_tricks >= contract else -contract
    defending = defending_tricks if defending_tricks >= 2 else -contract
    return declaring, defending


def match_winning_team(totals: tuple[int, int], contract: int, made: bool, declaring_team: int, target: int) -> int | None:
    """The team that wins the match once a deal's points are in the teams' ``totals``: the
    declaring team at once with a made bid of 13, else the higher total once one reaches the
    target; None: another deal."""
    if contract == MAX_BID and made:
        return declaring_team
    if max(totals) >= target and totals[0] != totals[1]:
        return 0 if totals[0] > totals[1] else 1
    return None


NOT_IN_AUCTION = RefusalCode(
    "not_in_auction",
    {"en": "the seat passed and is out of the auction for this deal", "tr": "pas geçen koltuk bu elin ihalesinden çıkmıştır"},
    Refusal.NOT_YOUR_TURN,
    says={"en": "you passed and are out of the auction for this deal", "tr": "pas geçtiniz; bu elin ihalesinden çıktınız"},
)
DUMMY_CANNOT_ACT = RefusalCode(
    "dummy_cannot_act",
    {"en": "the dummy's cards are played by the declarer", "tr": "açık elin kartlarını ihaleci oynar"},
    Refusal.NOT_YOUR_TURN,
    says={
        "en": "you are the dummy: your hand is played by the declarer in this deal",
        "tr": "bu elde eliniz açık: kartlarınızı ortağınız ihaleci oynar",
    },
)
NOT_DECLARER = RefusalCode(
    "not_declarer",
    {"en": "only the declarer names trump", "tr": "kozu yalnızca ihaleci söyler"},
    Refusal.NOT_YOUR_TURN,
)
AUCTION_IN_PROGRESS = RefusalCode(
    "auction_in_progress",
    {"en": "the auction is not over: bid or pass", "tr": "ihale bitmedi: söyleyin ya da pas geçin"},
)
AUCTION_OVER = RefusalCode(
    "auction_over",
    {"en": "the auction is over: no more bids or passes", "tr": "ihale bitti: artık söylenemez, pas geçilemez"},
    says={"en": "the auction is over", "tr": "ihale bitti"},
)
BID_OUT_OF_RANGE = RefusalCode(
    "bid_out_of_range",
    {"en": "a bid is a number from 8 to 13", "tr": "ihale 8 ile 13 arasında bir sayıdır"},
    says={"en": "a bid is a number from {minimum} to {maximum}", "tr": "ihale {minimum} ile {maximum} arasında bir sayıdır"},
)
BID_TOO_LOW = RefusalCode(
    "bid_too_low",
    {"en": "a bid must be higher than the highest bid so far", "tr": "ihale şimdiye dek söylenenlerin en yükseğinden büyük olmalı"},
    says={
        "en": "a bid must be higher than {high_bid}, the highest bid so far",
        "tr": "ihale, şimdiye dek söylenen en yüksek ihaleden ({high_bid}) büyük olmalı",
    },
)
TRUMP_NOT_NAMED = RefusalCode(
    "trump_not_named",
    {"en": "the declarer names trump before the first card is played", "tr": "ilk kart oynanmadan önce ihaleci kozu söyler"},
)
TRUMP_ALREADY_NAMED = RefusalCode(
    "trump_already_named",
    {"en": "trump is named once", "tr": "koz bir kez söylenir"},
    says={"en": "trump is {trump_suit} already", "tr": "koz zaten söylendi: {trump_suit}"},
)
SEAT_NAMES = (
    {"en": "South", "tr": "Güney"},
    {"en": "East", "tr": "Doğu"},
    {"en": "North", "tr": "Kuzey"},
    {"en": "West", "tr": "Batı"},
)


class BatakSeat(NamedTuple):
    """What one seat (None: a spectator) knows of the game, in masks: what its view says
    (:meth:`to_view`) and what its computer player reads."""

    seat: int | None
    hand: int | None  # None for a spectator
    hand_sizes: tuple[int, ...]
    auction: Auction
    declarer: int | None
    contract: int | None
    trump: int | None  # suit number, once named
    trump_broken: bool
    open_hand: int | None  # the dummy's cards, face up once trump is named
    turn: int | None  # the seat whose card is next (the dummy's own seat in its turn)
    trick_number: int | None  # None outside card play
    trick: Trick | None
    last_trick: Trick | None
    won: tuple[int, ...]  # tricks won per seat this deal

    @property
    def dummy(self) -> int | None:
        return None if self.declarer is None else partner_of(self.declarer)

    def team_tricks(self, team: int) -> int:
        """The tricks of North-South (0) or East-West (1) this deal."""
        return self.won[team] + self.won[team + 2]

    def to_view(self) -> dict[str, Any]:
        """The game's part of the seat's view (:class:`BatakView`)."""
        seat, declarer, dummy, won = self.seat, self.declarer, self.dummy, self.won
        if seat is None or declarer is None:
            role = None
        else:
            role = "declarer" if seat == declarer else "dummy" if seat == dummy else "defender"
        return {
            "hand": DECK.codes(self.hand) if self.hand is not None else None,
            "hand_sizes": list(self.hand_sizes),
            "teams": [list(team) for team in TEAMS],
            "auction": self.auction.to_json(),
            "declarer": declarer,
            "dummy": dummy,
            "contract": self.contract,
            "role": role,
            "trump": SUITS[self.trump].value if self.trump is not None else None,
            "trump_broken": self.trump_broken,
            "open_hand": (
                {"seat": dummy, "label": dict(SEAT_NAMES[dummy]), "cards": DECK.codes(self.open_hand)}
                if self.open_hand is not None and dummy is not None
                else None
            ),
            "turn": self.turn,
            "trick_number": self.trick_number,
            "trick": self.trick.to_json(SEATS, DECK) if self.trick else None,
            "last_trick": self.last_trick.to_json(SEATS, DECK) if self.last_trick else None,
            "tricks_won": list(won),
            "team_tricks": [won[0] + won[2], won[1] + won[3]],
        }

    @staticmethod
    def from_view(view: Mapping[str, Any]) -> "BatakSeat":
        """The inverse of :meth:`to_view` (with the view's ``seat`` and ``dealer``): for a client
        that holds only the view (``koz bot``)."""
        open_hand = view["open_hand"]
        return BatakSeat(
            seat=view["seat"],
            hand=DECK.mask(view["hand"]) if view["hand"] is not None else None,
            hand_sizes=tuple(view["hand_sizes"]),
            auction=Auction(first_bidder(view["dealer"]), tuple((call["seat"], call["bid"]) for call in view["auction"]["bids"])),
            declarer=view["declarer"],
            contract=view["contract"],
            trump=SUITS.index(Suit(view["trump"])) if view["trump"] is not None else None,
            trump_broken=view["trump_broken"],
            open_hand=DECK.mask(open_hand["cards"]) if open_hand is not None else None,
            turn=view["turn"],
            trick_number=view["trick_number"],
            trick=Trick.from_json(view["trick"], DECK) if view["trick"] else None,
            last_trick=Trick.from_json(view["last_trick"], DECK) if view["last_trick"] else None,
            won=tuple(view["tricks_won"]),
        )


CARD_NOT_IN_HAND = RefusalCode(
    "card_not_in_hand",
    {"en": "the card is not in the hand to play from", "tr": "kart, oynanacak elde yok"},
    cases={
        "own_hand": {"en": "{card} is not in your hand", "tr": "{card} elinizde yok"},
        "open_hand": {"en": "{card} is not in the open hand of {seat}", "tr": "{card}, {seat} koltuğunun açık elinde yok"},
    },
)
TRUMP_NOT_BROKEN = RefusalCode(
    "trump_not_broken",
    {
        "en": "trump may not be led before it is broken, unless only trumps are held",
        "tr": "koz çakılmadan kozla çıkılmaz; elde yalnızca koz varsa çıkılır",
    },
    says={
        "en": "{trump_suit} may not be led before trump is broken, unless only trumps are held",
        "tr": "koz ({trump_suit}) çakılmadan kozla çıkılmaz; elde yalnızca koz varsa çıkılır",
    },
)
MUST_FOLLOW_SUIT = RefusalCode(
    "must_follow_suit",
    {"en": "a seat holding the suit led must follow it", "tr": "yerdeki renkten kartı olan o rengi oynamalı"},
    says={"en": "{led_suit} was led and must be followed", "tr": "yerde {led_suit} var: bu rengi oynamalısınız"},
)
MUST_BEAT = RefusalCode(
    "must_beat",
    {
        "en": "a seat following must beat the highest card of the suit led if it can",
        "tr": "rengi oynayan, yapabiliyorsa yerdeki rengin en büyük kartını geçmeli",
    },
    says={
        "en": "you hold {led_suit} higher than every one in the trick and must play one",
        "tr": "elinizde yerdekilerin hepsinden büyük bir {led_suit} var: onu oynamalısınız",
    },
)
MUST_TRUMP = RefusalCode(
    "must_trump",
    {"en": "a seat void in the suit led must trump", "tr": "yerdeki renkten kartı olmayan koz çakmalı"},
    says={"en": "void in {led_suit}, a trump ({trump_suit}) must be played", "tr": "elinizde {led_suit} yok: koz ({trump_suit}) çakmalısınız"},
)
MUST_OVERTRUMP = RefusalCode(
    "must_overtrump",
    {"en": "a seat trumping must beat the highest trump in the trick if it can", "tr": "koz çakan, yapabiliyorsa yerdeki en büyük kozu geçmeli"},
    says={"en": "a trump higher than every trump in the trick must be played", "tr": "yerdeki bütün kozlardan büyük bir koz oynamalısınız"},
)


class PartnershipBatak(TrickTaking[BatakState]):
    deal_result_type = BatakDealResult
    view_type = BatakView
    event_types = (*COMMON_EVENTS, BatakDealEvent, ContractEvent, TrumpEvent, OpenHandEvent, BatakDealResultEvent)
    id = "partnership-batak"
    teams = TEAMS
    names = {"en": "Partnership Batak", "tr": "Eşli Batak"}
    seat_names = SEAT_NAMES
    deck = DECK
    action_kinds = (Bid, Pass, Trump, Play)
    refusals = (
        ILLEGAL_ACTION.meaning_in_game({"en": "an action of a kind this phase does not have", "tr": "bu aşamada bu tür hamle yapılmaz"}),
        NOT_IN_AUCTION,
        DUMMY_CANNOT_ACT,
        NOT_DECLARER,
        AUCTION_IN_PROGRESS,
        AUCTION_OVER,
        BID_OUT_OF_RANGE,
        BID_TOO_LOW,
        TRUMP_NOT_NAMED,
        TRUMP_ALREADY_NAMED,
        CARD_NOT_IN_HAND,
        TRUMP_NOT_BROKEN,
        MUST_FOLLOW_SUIT,
        MUST_BEAT,
        MUST_TRUMP,
        MUST_OVERTRUMP,
    )
    #: what a table shows beside the options, per language
    table_labels = {"open_hand": {"en": "Open hand", "tr": "Açık el"}}
    options = (
        Option(
            "target",
            "integer",
            31,
            {"en": "Target score", "tr": "Bitiş puanı"},
            {
                "en": "Deals are played until a team's total reaches the target; the higher total wins and "
                "equal totals play another deal.",
                "tr": "Bir takımın toplamı hedefe ulaşana dek el oynanır; yüksek toplam kazanır, toplamlar "
                "eşitse bir el daha oynanır.",
            },
            allowed=(21, 31, 51),
            labels={
                21: {"en": "21 (Quick)", "tr": "21 (Hızlı)"},
                31: {"en": "31 (Normal)", "tr": "31 (Normal)"},
                51: {"en": "51 (Long)", "tr": "51 (Uzun)"},
            },
        ),
        Option(
            "trump_lead_before_broken",
            "boolean",
            False,
            {"en": "Trump may be led before it is broken", "tr": "Koz çakılmadan koz çıkılabilir"},
            {
                "en": "A trump may be led even before a trump has been played to an earlier trick.",
                "tr": "Önceki lövelerde koz oynanmamış olsa da kozla çıkılabilir.",
            },
        ),
    )
    #: the table against the computer: one human at South, partner and opponents played by bots
    standard_human_seats = (0,)

    def default_seat_name(self, seat: int, human: bool) -> str | None:
        """``Sen`` ("you") for the human at South, as the source table names an empty name."""
        return "Sen" if seat == 0 and human else None

    # --- creation ---------------------------------------------------------------------------

    @staticmethod
    def _dealt(match: Match, deal_number: int, dealer: int) -> list[tuple[int, ...]]:
        """Cards go one at a time round the table, from the seat after the dealer; no stock."""
        cards = shuffled_deck(match.seed, deal_number, range(52))
        first = (dealer + 1) % SEATS
        hands: list[tuple[int, ...]] = [()] * SEATS
        for offset in range(SEATS):
            hands[(first + offset) % SEATS] = tuple(cards[offset::SEATS])
        return hands

    def deal_record(self, match: Match, deal_number: int, dealer: int) -> DealRecord:
        card = DECK.cards
        return DealRecord(dealer, tuple(tuple(card[n] for n in hand) for hand in self._dealt(match, deal_number, dealer)))

    def deal(self, match: Match) -> tuple[BatakState, tuple[Event, ...]]:
        dealer = match.dealer(SEATS)
        opener = first_bidder(dealer)
        hands = tuple(mask_of(hand) for hand in self._dealt(match, match.deal_number, dealer))
        state = BatakState(match=match, hands=hands, auction=Auction(opener))
        return state, self.deal_events(match, hands, first_bidder=opener)

    # --- play -------------------------------------------------------------------------------

    def to_act(self, state: BatakState) -> tuple[int, ...]:
        if state.match.result is not None:
            return ()
        trick, declarer = state.trick, state.declarer
        if trick is not None and declarer is not None:
            return (CHOOSERS[declarer][TURNS[trick.leader + len(trick.cards)]],)
        if declarer is None:
            return (state.auction.to_bid,)
        return (declarer,)

    def legal_actions(self, state: BatakState, seat: int) -> tuple[Action, ...]:
        trick = state.trick
        if trick is not None and state.match.result is None:  # card play: the common case, first
            turn = TURNS[trick.leader + len(trick.cards)]
            if state.declarer is None or seat != CHOOSERS[state.declarer][turn]:
                return ()
            return plays_of(self._legal_mask(state, turn))
        if seat not in self.to_act(state):
            return ()
        if state.declarer is None:
            return tuple(BIDS[value] for value in range(state.auction.lowest_bid(), MAX_BID + 1)) + (PASS,)
        return TRUMPS

    def _legal_mask(self, state: BatakState, turn: int) -> int:
        """The legal cards of ``turn``, the seat whose card is next."""
        trick, trump = state.trick, state.trump
        assert trick is not None and trump is not None
        if not trick.cards:
            free_trump_lead = state.match.options["trump_lead_before_broken"]
            return legal_mask(state.hands[turn], -1, -1, trump, trump_may_be_led(state.trump_broken, free_trump_lead))
        win, _ = winning(trick.leader, trick.cards, trump)
        return legal_mask(state.hands[turn], trick.cards[0] // RANKS, win, trump, False)  # leads only are restricted

    def turn_refusal(self, state: BatakState, seat: int) -> RuleError:
        if state.declarer is None:
            if seat in state.auction.passed:
                return NOT_IN_AUCTION()
        elif seat == state.dummy:
            return DUMMY_CANNOT_ACT()
        elif state.trump is None:
            return NOT_DECLARER()
        return super().turn_refusal(state, seat)

    def refuse_kind(self, state: BatakState, action: Action) -> RuleError:
        if state.declarer is None:
            return AUCTION_IN_PROGRESS()
        return super().refuse_kind(state, action)

    def verify_bid(self, state: BatakState, seat: int, action: Bid) -> RuleError | None:
        if state.declarer is not None:
            return AUCTION_OVER()
        if not MIN_BID <= action.value <= MAX_BID:
            return BID_OUT_OF_RANGE(minimum=MIN_BID, maximum=MAX_BID)
        if action.value < state.auction.lowest_bid():
            return BID_TOO_LOW(high_bid=state.auction.high_bid)
        return None

    def verify_pass(self, state: BatakState, seat: int, action: Pass) -> RuleError | None:
        if state.declarer is not None:
            return AUCTION_OVER()
        return None

    def verify_trump(self, state: BatakState, seat: int, action: Trump) -> RuleError | None:
        if state.declarer is None:
            return AUCTION_IN_PROGRESS()
        if state.trump is not None:
            return TRUMP_ALREADY_NAMED(trump_suit=SUITS[state.trump].value)
        return None

    def verify_play(self, state: BatakState, seat: int, action: Play) -> RuleError | None:
        """The rule a card outside the legal ones breaks (checked in the order of rules 1-4)."""
        if state.declarer is None:
            return AUCTION_IN_PROGRESS()
        if state.trump is None or state.trick is None or state.turn is None:
            return TRUMP_NOT_NAMED()
        card = action.card.index
        turn, trick = state.turn, state.trick
        hand = state.hands[turn]
        if not hand >> card & 1:
            if turn == seat:
                return CARD_NOT_IN_HAND("own_hand", card=action.card.code)
            return CARD_NOT_IN_HAND("open_hand", card=action.card.code, seat=dict(self.seat_names[turn]))
        if self._legal_mask(state, turn) >> card & 1:
            return None
        trump = SUITS[state.trump].value
        if not trick.cards:
            return TRUMP_NOT_BROKEN(trump_suit=trump)
        led = trick.cards[0] // RANKS
        led_suit = SUITS[led].value
        if hand & SUIT_MASKS[led]:
            if card // RANKS != led:
                return MUST_FOLLOW_SUIT(led_suit=led_suit)
            return MUST_BEAT(led_suit=led_suit)
        if card // RANKS != state.trump:
            return MUST_TRUMP(led_suit=led_suit, trump_suit=trump)
        return MUST_OVERTRUMP()

    def perform_bid(self, state: BatakState, seat: int, action: Bid) -> tuple[BatakState, tuple[Event, ...]]:
        return self._call(state, seat, action.value)

    def perform_pass(self, state: BatakState, seat: int, action: Pass) -> tuple[BatakState, tuple[Event, ...]]:
        return self._call(state, seat, None)

    def _call(self, state: BatakState, seat: int, bid: int | None) -> tuple[BatakState, tuple[Event, ...]]:
        auction = state.auction.after(seat, bid)
        if auction.is_open:
            return state._replace(auction=auction), ()
        declarer, contract = auction.outcome()
        state = state._replace(auction=auction, declarer=declarer, contract=contract)
        event = public(
            "contract",
            declarer=declarer,
            dummy=state.dummy,
            contract=contract,
            all_passed=auction.high_bid is None,
        )
        return state, (event,)

    def perform_trump(self, state: BatakState, seat: int, action: Trump) -> tuple[BatakState, tuple[Event, ...]]:
        declarer, dummy = state.declarer, state.dummy
        assert declarer is not None and dummy is not None
        state = state._replace(trump=SUITS.index(action.suit), trick=NEW_TRICKS[declarer])
        events = (
            public("trump", seat=declarer, suit=action.suit.value),
            public("open_hand", seat=dummy, hand=DECK.codes(state.hands[dummy])),
        )
        return state, events

    def card_played(self, state: BatakState, hands: tuple[int, ...], trick: Trick, card: int) -> BatakState:
        return BatakState(
            state.match, hands, state.auction, state.declarer, state.contract, state.trump, trick, state.won, state.trump_broken,
            state.last_trick,
        )

    def trick_taken(self, state: BatakState, hands: tuple[int, ...], done: Trick, card: int) -> tuple[BatakState, tuple[Event, ...]]:
        """The winner counts a trick; a trump in it breaks trump."""
        trump = state.trump
        assert trump is not None and done.winner is not None
        won = replace_at(state.won, done.winner, state.won[done.winner] + 1)
        broken = broken_after(state.trump_broken, mask_of(done.cards), trump)
        return BatakState(
            state.match, hands, state.auction, state.declarer, state.contract, trump, NEW_TRICKS[done.winner], won, broken, done
        ), ()

    def score_deal(self, state: BatakState) -> tuple[BatakDealResult, list[int]]:
        """The deal result (``Match.last_deal`` and the ``deal_result`` event) has the keys
        ``deal``, ``declarer``, ``dummy``, ``contract``, ``trump`` (suit code), ``tricks`` (per
        seat), ``team_tricks`` ([North–South, East–West]), ``made`` (the declaring team took at
        least the contract), ``sweep`` (the team, 0 or 1, that took all 13 tricks, else None),
        ``points`` (per seat; partners score the same) and ``team_points``.
        """
        assert state.declarer is not None and state.dummy is not None and state.contract is not None and state.trump is not None
        declaring = state.declarer % 2
        team_tricks = [state.won[0] + state.won[2], state.won[1] + state.won[3]]
        declaring_points, defending_points = deal_points(state.contract, team_tricks[declaring])
        team_points = [declaring_points, defending_points] if declaring == 0 else [defending_points, declaring_points]
        points = [team_points[seat % 2] for seat in range(SEATS)]
        result: BatakDealResult = {
            "deal": state.match.deal_number,
            "declarer": state.declarer,
            "dummy": state.dummy,
            "contract": state.contract,
            "trump": SUITS[state.trump].value,
            "tricks": list(state.won),
            "team_tricks": team_tricks,
            "made": team_tricks[declaring] >= state.contract,
            "sweep": team_tricks.index(TRICKS) if TRICKS in team_tricks else None,
            "points": points,
            "team_points": team_points,
        }
        return result, points

    def match_winners(self, match: Match) -> list[int] | None:
        """A made bid of 13 ends the match at once; else the higher total once one reaches the target."""
        last = match.last_deal
        assert last is not None
        totals = (match.scores[0], match.scores[1])
        team = match_winning_team(totals, last["contract"], last["made"], last["declarer"] % 2, match.options["target"])
        return None if team is None else list(TEAMS[team])

    # --- views ------------------------------------------------------------------------------

    def own_view(self, state: BatakState, seat: int | None) -> dict[str, Any]:
        """The Batak part of a view (:class:`BatakView` says each key); the dummy's cards are
        shown only once trump is named."""
        return self.knowledge(state, seat).to_view()

    def knowledge(self, state: BatakState, seat: int | None) -> "BatakSeat":
        hands, declarer, trick = state.hands, state.declarer, state.trick
        return BatakSeat(  # by position: a view is built from it on every read
            seat,
            hands[seat] if seat is not None else None,
            (hands[0].bit_count(), hands[1].bit_count(), hands[2].bit_count(), hands[3].bit_count()),
            state.auction,
            declarer,
            state.contract,
            state.trump,
            state.trump_broken,
            hands[partner_of(declarer)] if state.trump is not None and declarer is not None else None,
            state.turn,
            state.trick_number if trick is not None and state.match.result is None else None,
            trick,
            state.last_trick,
            state.won,
        )

    # --- serialization ----------------------------------------------------------------------

    def dump_deal(self, state: BatakState) -> dict[str, Any]:
        """The deal; the auction's opener, declarer and contract follow from the dealer and calls."""
        return {
            "hands": [DECK.codes(hand) for hand in state.hands],
            "calls": [[seat, bid] for seat, bid in state.auction.calls],
            "trump": SUITS[state.trump].value if state.trump is not None else None,
            "trick": state.trick.dump(DECK) if state.trick else None,
            "won": list(state.won),
            "trump_broken": state.trump_broken,
            "last_trick": state.last_trick.dump(DECK) if state.last_trick else None,
        }

    def load_deal(self, match: Match, doc: Mapping[str, Any]) -> BatakState:
        auction = Auction(first_bidder(match.dealer(SEATS)), tuple((seat, bid) for seat, bid in doc["calls"]))
        declarer, contract = (None, None) if auction.is_open else auction.outcome()
        return BatakState(
            match=match,
            hands=tuple(DECK.mask(hand) for hand in doc["hands"]),
            auction=auction,
            declarer=declarer,
            contract=contract,
            trump=SUITS.index(Suit(doc["trump"])) if doc["trump"] else None,
            trick=Trick.load(doc["trick"], DECK) if doc["trick"] else None,
            won=tuple(doc["won"]),
            trump_broken=doc["trump_broken"],
            last_trick=Trick.load(doc["last_trick"], DECK) if doc["last_trick"] else None,
        )
