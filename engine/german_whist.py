"""German Whist (Alman Whisti): two players, 52 cards, a stock to draw from, then 13 tricks.

The rules are those of the German Whist section of the rule book. A deal: 13 cards each, the
other 26 form the stock with its top card face up (its suit is trump). In phase 1 (tricks 1-13)
the trick's winner takes the face-up card, the loser the next card face down, and the next card
is turned up; in phase 2 (tricks 14-26) the hands are played out. Only phase-2 tricks count,
unless ``count_all_tricks``.

Cards are numbers of :data:`~engine.cards.STANDARD` and hands are masks of them. The rules are
the functions :func:`legal_cards`, :func:`leader_wins`, :func:`counted_tricks` and
:func:`deal_scores`, and the draw after a trick :func:`~engine.rules.draw_after_trick`; the
computer players call them too. Leading, following and finishing a trick, and the deal's events,
are :class:`~engine.ruleset.TrickTaking`'s; this module says what a trick brings and how a deal scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Mapping, NamedTuple, Sequence, TypedDict

from .actions import Play
from .cards import STANDARD, Card, Suit, mask_of
from .errors import RefusalCode, RuleError
from .rules import NEW_TRICKS, DealRecord, Event, Option, Trick, draw_after_trick, private, public
from .ruleset import ILLEGAL_ACTION, Match, TrickTaking
from .shapes import COMMON_EVENTS, BaseView, CardCode, DrawEvent, SuitCode, TakeEvent, TrickView
from .shuffle import shuffled_deck

SEATS = 2
HAND_SIZE = 13
DECK = STANDARD
SUIT_MASKS = DECK.suit_masks
BEATERS = DECK.beaters
NO_TRUMP = -1
SUITS = tuple(Suit)

# Every action this game can offer, built once: legal_actions runs on every move.
PLAYS = tuple(Play(card) for card in DECK.cards)
plays_of = DECK.selector(PLAYS)


def legal_cards(hand: int, led: int) -> int:
    """The cards of ``hand`` that may be played to a trick whose lead is ``led`` (-1: leading):
    a card of the suit led if the hand holds one, else any."""
    if led >= 0:
        following = hand & SUIT_MASKS[led // 13]
        if following:
            return following
    return hand


def leader_wins(lead: int, reply: int, trump: int) -> bool:
    """Whether the card led takes the trick from the reply (:attr:`~engine.cards.Deck.beaters`;
    ``trump`` is a suit number, or -1 without trump)."""
    return not BEATERS[trump][lead] >> reply & 1


def trick_winner(leader: int, lead: int, reply: int, trump: int) -> int:
    """The seat that takes a trick ``leader`` led with ``lead`` (:func:`leader_wins`): it leads the next."""
    return leader if leader_wins(lead, reply, trump) else 1 - leader


class GermanWhistDealResult(TypedDict):
    """How a deal of German Whist ended."""

    deal: Annotated[int, "The deal's number, from 1"]
    tricks: Annotated[list[int], "Counted tricks won (one entry per seat, in seat order)"]
    tricks_by_phase: Annotated[list[list[int]], "Tricks won in phase 1 and in phase 2 (one entry per seat, in seat order)"]
    points: Annotated[list[int], "What the deal added to each score (one entry per seat, in seat order)"]
    winners: Annotated[list[int], "The seats that won the deal; empty for a tie"]


class GermanWhistDealEvent(TypedDict):
    """A deal of German Whist begins."""

    type: Literal["deal"]
    deal: Annotated[int, "The deal's number, from 1"]
    dealer: int
    trump: Annotated[SuitCode | None, "The trump suit; null when playing without trump"]
    face_up: Annotated[CardCode, "The first face-up stock card"]
    stock_size: Annotated[int, "Cards in the stock"]


class TurnUpEvent(TypedDict):
    """The next stock card was turned face up."""

    type: Literal["turn_up"]
    card: CardCode
    stock_size: Annotated[int, "Cards left in the stock"]


class GermanWhistDealResultEvent(GermanWhistDealResult):
    """A deal of German Whist ended."""

    type: Literal["deal_result"]
    scores: Annotated[list[int], "Match totals after the deal (one entry per seat, in seat order)"]


class GermanWhistView(BaseView):
    """A game of German Whist as one seat (or a spectator) sees it."""

    last_deal: Annotated[GermanWhistDealResult | None, "How the last finished deal ended; null before"]
    hand: Annotated[list[CardCode] | None, "The viewer's cards; null for a spectator"]
    hand_sizes: Annotated[list[int], "Cards in each hand (one entry per seat, in seat order)"]
    trump: Annotated[SuitCode | None, "The trump suit; null when playing without trump"]
    face_up: Annotated[CardCode | None, "The face-up stock card, the prize of the trick"]
    stock_size: Annotated[int, "Cards left in the stock"]
    phase: Annotated[int, "1 while drawing from the stock, then 2"]
    trick_number: Annotated[int | None, "The trick being played, from 1; null once the match is over"]
    trick: Annotated[TrickView, "The trick on the table"]
    last_trick: Annotated[TrickView | None, "The last finished trick"]
    tricks_won: Annotated[list[int], "Tricks won this deal (one entry per seat, in seat order)"]
    tricks_by_phase: Annotated[list[list[int]], "Tricks won in phase 1 and in phase 2 (one entry per seat, in seat order)"]
    known_cards: Annotated[
        list[list[CardCode]], "Cards publicly known to be in each hand (taken face up), until played (one entry per seat, in seat order)"
    ]


class GermanWhistState(NamedTuple):
    match: Match
    hands: tuple[int, ...]  # masks
    stock: tuple[int, ...]  # what is left, in drawing order; stock[0] is face up in phase 1
    trump: int  # suit number, or NO_TRUMP
    trick: Trick  # the trick being played
    won: tuple[tuple[int, int], ...]  # per seat: (phase-1 tricks, phase-2 tricks) this deal
    shown: tuple[int, ...]  # per seat: face-up stock cards taken and still held
    last_trick: Trick | None = None

    @property
    def phase(self) -> int:
        return 1 if self.stock else 2

    @property
    def trick_number(self) -> int:
        return sum(sum(seat) for seat in self.won) + 1


def counted_tricks(won: Sequence[Sequence[int]], count_all_tricks: bool) -> list[int]:
    """The tricks that count for each seat, from its (phase-1, phase-2) tricks won."""
    return [phase1 * count_all_tricks + phase2 for phase1, phase2 in won]


@dataclass(frozen=True, slots=True)
class Aim:
    """What a deal's tricks are worth under the options: the fewest win under ``misere``; phase-1
    tricks count only with ``count_all_tricks``. The ruleset scores a deal by it and the
    computer players' rollouts value one by it."""

    misere: bool = False
    count_all: bool = False

    @staticmethod
    def of(options: Mapping[str, Any]) -> "Aim":
        return Aim(bool(options.get("misere", False)), bool(options.get("count_all_tricks", False)))

    def margin(self, counted: Sequence[int]) -> int:
        """Seat 0's lead over seat 1 in counted tricks, turned round under misère: the deal's
        winner is seat 0 when it is positive, seat 1 when negative."""
        margin = counted[0] - counted[1]
        return -margin if self.misere else margin


def deal_scores(won: tuple[tuple[int, int], ...], options: Mapping[str, Any]) -> tuple[list[int], list[int], list[int]]:
    """The counted tricks, the points and the winners of a finished deal under ``options``."""
    aim = Aim.of(options)
    counted = counted_tricks(won, aim.count_all)
    base = sum(counted) // 2  # 6 of 13, or 13 of 26: the "over" line
    margin = aim.margin(counted)
    winners = [0] if margin > 0 else [1] if margin < 0 else []
    if options["scoring"] == "tricks":
        points = list(counted)
    else:
        points = [max(0, count - base) for count in counted]
    if aim.misere:
        points.reverse()
    return counted, points, winners


class GermanWhistSeat(NamedTuple):
    """What one seat (None: a spectator) knows of the game, in masks: what its view says
    (:meth:`to_view`) and what its computer player reads."""

    hand: int | None  # None for a spectator
    hand_sizes: tuple[int, ...]
    trump: int  # suit number, or NO_TRUMP
    face_up: int  # the face-up stock card, -1 in phase 2
    stock_size: int
    trick_number: int | None  # None once the match is over
    trick: Trick
    last_trick: Trick | None
    won: tuple[tuple[int, int], ...]  # per seat: (phase-1 tricks, phase-2 tricks) this deal
    shown: tuple[int, ...]  # per seat: face-up stock cards taken and still held

    def to_view(self) -> dict[str, Any]:
        """The game's part of the seat's view (:class:`GermanWhistView`)."""
        return {
            "hand": DECK.codes(self.hand) if self.hand is not None else None,
            "hand_sizes": list(self.hand_sizes),
            "trump": SUITS[self.trump].value if self.trump != NO_TRUMP else None,
            "face_up": DECK.code(self.face_up) if self.face_up >= 0 else None,
            "stock_size": self.stock_size,
            "phase": 1 if self.stock_size else 2,
            "trick_number": self.trick_number,
            "trick": self.trick.to_json(SEATS, DECK),
            "last_trick": self.last_trick.to_json(SEATS, DECK) if self.last_trick else None,
            "tricks_won": [sum(seat_won) for seat_won in self.won],
            "tricks_by_phase": [list(seat_won) for seat_won in self.won],
            "known_cards": [DECK.codes(cards) for cards in self.shown],
        }

    @staticmethod
    def from_view(view: Mapping[str, Any]) -> "GermanWhistSeat":
        """The inverse of :meth:`to_view`: for a client that holds only the view (``koz bot``)."""
        return GermanWhistSeat(
            hand=DECK.mask(view["hand"]) if view["hand"] is not None else None,
            hand_sizes=tuple(view["hand_sizes"]),
            trump=SUITS.index(Suit(view["trump"])) if view["trump"] else NO_TRUMP,
            face_up=DECK.number[Card.parse(view["face_up"])] if view["face_up"] else -1,
            stock_size=view["stock_size"],
            trick_number=view["trick_number"],
            trick=Trick.from_json(view["trick"], DECK),
            last_trick=Trick.from_json(view["last_trick"], DECK) if view["last_trick"] else None,
            won=tuple((phase1, phase2) for phase1, phase2 in view["tricks_by_phase"]),
            shown=tuple(DECK.mask(cards) for cards in view["known_cards"]),
        )


CARD_NOT_IN_HAND = RefusalCode(
    "card_not_in_hand",
    {"en": "the card is not in the player's hand", "tr": "kart oyuncunun elinde yok"},
    says={"en": "{card} is not in your hand", "tr": "{card} elinizde yok"},
)
MUST_FOLLOW_SUIT = RefusalCode(
    "must_follow_suit",
    {"en": "a player holding the suit led must follow it", "tr": "yerdeki renkten kartı olan o rengi oynamalı"},
    says={"en": "you hold {led_suit} and must follow suit", "tr": "elinizde {led_suit} var: yerdeki rengi oynamalısınız"},
)


class GermanWhist(TrickTaking[GermanWhistState]):
    deal_result_type = GermanWhistDealResult
    view_type = GermanWhistView
    event_types = (*COMMON_EVENTS, GermanWhistDealEvent, TakeEvent, DrawEvent, TurnUpEvent, GermanWhistDealResultEvent)
    id = "german-whist"
    names = {"en": "German Whist", "tr": "Alman Whisti"}
    seat_names = ({"en": "Player 1", "tr": "1. Oyuncu"}, {"en": "Player 2", "tr": "2. Oyuncu"})
    deck = DECK
    stock_order = (
        "the stock in drawing order (stock[0] the first face-up card, then the loser's face-down card and the next face-up card in turn)"
    )
    action_kinds = (Play,)
    refusals = (
        ILLEGAL_ACTION.meaning_in_game({"en": "German Whist has only play actions", "tr": "Alman Whist'te yalnızca kart oynanır"}),
        CARD_NOT_IN_HAND,
        MUST_FOLLOW_SUIT,
    )
    options = (
        Option(
            "scoring",
            "string",
            "tricks",
            {"en": "Scoring", "tr": "Puanlama"},
            {
                "en": "tricks: each player scores the counted tricks they won; over-six: only the deal's winner "
                "scores, the tricks won above 6 (above 13 when all tricks count).",
                "tr": "Alınan löve: her oyuncu aldığı sayılan löveler kadar puan alır; 6 üstü fark: yalnızca eli "
                "kazanan, 6'nın (bütün löveler sayılırsa 13'ün) üstünde aldığı löveler kadar puan alır.",
            },
            allowed=("tricks", "over-six"),
            labels={
                "tricks": {"en": "Tricks won", "tr": "Alınan löve"},
                "over-six": {"en": "Over six", "tr": "6 üstü fark"},
            },
        ),
        Option(
            "count_all_tricks",
            "boolean",
            False,
            {"en": "Count all 26 tricks", "tr": "26 lövenin hepsi sayılır"},
            {
                "en": "Phase-1 tricks count too; a 13-13 deal is then a tie.",
                "tr": "İlk aşamanın löveleri de sayılır; 13-13 biten el berabere olur.",
            },
        ),
        Option(
            "no_trump",
            "boolean",
            False,
            {"en": "No trump", "tr": "Kozsuz"},
            {
                "en": "No trump suit; the face-up card only shows what the trick's winner gets.",
                "tr": "Koz rengi yok; açık kart yalnızca löveyi alanın ne kazanacağını gösterir.",
            },
        ),
        Option(
            "misere",
            "boolean",
            False,
            {"en": "Misère (fewest tricks win)", "tr": "Misère (az löve alan kazanır)"},
            {
                "en": "Fewest tricks win: the player with fewer counted tricks wins the deal, and the two scores are swapped.",
                "tr": "Az löve alan kazanır: sayılan lövelerden daha azını alan oyuncu eli kazanır, iki oyuncunun puanları yer değiştirir.",
            },
        ),
        Option(
            "target",
            "integer",
            0,
            {"en": "Target score", "tr": "Hedef puan"},
            {
                "en": "0 plays a single deal; otherwise deals are played until a total reaches the target, "
                "the higher total winning and equal totals playing another deal.",
                "tr": "0 tek el oynatır; yoksa toplamlardan biri hedefe ulaşana dek el oynanır, yüksek toplam "
                "kazanır, toplamlar eşitse bir el daha oynanır.",
            },
            minimum=0,
            maximum=1000,
        ),
    )

    # --- creation ---------------------------------------------------------------------------

    @staticmethod
    def _dealt(match: Match, deal_number: int, dealer: int) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
        """Cards go one at a time, from the non-dealer; the rest is the stock in drawing order."""
        cards = shuffled_deck(match.seed, deal_number, range(52))
        hands: list[tuple[int, ...]] = [(), ()]
        hands[1 - dealer], hands[dealer] = tuple(cards[0 : 2 * HAND_SIZE : 2]), tuple(cards[1 : 2 * HAND_SIZE : 2])
        return hands, tuple(cards[2 * HAND_SIZE :])

    def deal_record(self, match: Match, deal_number: int, dealer: int) -> DealRecord:
        hands, stock = self._dealt(match, deal_number, dealer)
        card = DECK.cards
        return DealRecord(dealer, tuple(tuple(card[n] for n in hand) for hand in hands), tuple(card[n] for n in stock), card[stock[0]])

    def deal(self, match: Match) -> tuple[GermanWhistState, tuple[Event, ...]]:
        dealer = match.dealer(SEATS)
        dealt, stock = self._dealt(match, match.deal_number, dealer)
        hands = tuple(mask_of(hand) for hand in dealt)
        face_up = DECK.cards[stock[0]]
        trump = NO_TRUMP if match.options["no_trump"] else SUITS.index(face_up.suit)
        state = GermanWhistState(match, hands, stock, trump, NEW_TRICKS[1 - dealer], ((0, 0), (0, 0)), (0, 0))
        events = self.deal_events(match, hands, trump=face_up.suit.value if trump != NO_TRUMP else None, face_up=face_up.code, stock_size=len(stock))
        return state, events

    # --- play -------------------------------------------------------------------------------

    def legal_actions(self, state: GermanWhistState, seat: int) -> tuple[Play, ...]:
        trick = state.trick
        cards = trick.cards
        if (seat,) != self.to_act(state):  # the game over, or another seat's turn
            return ()
        return plays_of(legal_cards(state.hands[seat], cards[0] if cards else -1))

    def verify_play(self, state: GermanWhistState, seat: int, action: Play) -> RuleError | None:
        card = action.card.index
        hand = state.hands[seat]
        if not hand >> card & 1:
            return CARD_NOT_IN_HAND(card=action.card.code)
        cards = state.trick.cards
        if legal_cards(hand, cards[0] if cards else -1) >> card & 1:
            return None
        return MUST_FOLLOW_SUIT(led_suit=SUITS[cards[0] // 13].value)

    def trick_winner(self, leader: int, cards: tuple[int, ...], trump: int) -> int:
        lead, reply = cards
        return trick_winner(leader, lead, reply, trump)

    def trick_heading(self, state: GermanWhistState) -> dict[str, Any]:
        return {"type": "trick", "number": state.trick_number, "phase": state.phase}

    def card_played(self, state: GermanWhistState, hands: tuple[int, ...], trick: Trick, card: int) -> GermanWhistState:
        shown = (state.shown[0] & ~(1 << card), state.shown[1] & ~(1 << card))
        return GermanWhistState(state.match, hands, state.stock, state.trump, trick, state.won, shown, state.last_trick)

    def trick_taken(
        self, state: GermanWhistState, hands: tuple[int, ...], done: Trick, card: int
    ) -> tuple[GermanWhistState, tuple[Event, ...]]:
        """The winner scores a trick of the phase; in phase 1 it takes the face-up card, the
        loser draws the next one face down, and the next is turned up."""
        winner = done.winner
        assert winner is not None
        loser = 1 - winner
        scored = state.won[winner]
        scored = (scored[0] + 1, scored[1]) if state.stock else (scored[0], scored[1] + 1)
        won = (scored, state.won[1]) if winner == 0 else (state.won[0], scored)
        shown = (state.shown[0] & ~(1 << card), state.shown[1] & ~(1 << card))
        stock = state.stock
        events: tuple[Event, ...] = ()
        if stock:
            new_hands = list(hands)
            taken, drawn = draw_after_trick(new_hands, stock, 0, winner)
            stock = stock[2:]
            hands = tuple(new_hands)
            shown = (shown[0] | 1 << taken, shown[1]) if winner == 0 else (shown[0], shown[1] | 1 << taken)
            events = (
                public("take", seat=winner, card=DECK.codes_table[taken]),
                private(loser, "draw", ["card"], seat=loser, card=DECK.codes_table[drawn]),
            )
            if stock:
                events += (public("turn_up", card=DECK.codes_table[stock[0]], stock_size=len(stock)),)
        return GermanWhistState(state.match, hands, stock, state.trump, NEW_TRICKS[winner], won, shown, done), events

    def score_deal(self, state: GermanWhistState) -> tuple[GermanWhistDealResult, list[int]]:
        counted, points, winners = deal_scores(state.won, state.match.options)
        result: GermanWhistDealResult = {
            "deal": state.match.deal_number,
            "tricks": counted,
            "tricks_by_phase": [list(seat) for seat in state.won],
            "points": points,
            "winners": winners,
        }
        return result, points

    def match_winners(self, match: Match) -> list[int] | None:
        """A single deal without a target; else the one highest total once it reaches the target."""
        target = match.options["target"]
        best = max(match.scores)
        leaders = [seat for seat, total in enumerate(match.scores) if total == best]
        if target == 0 or (best >= target and len(leaders) == 1):
            return leaders if len(leaders) == 1 else []
        return None

    # --- views ------------------------------------------------------------------------------

    def own_view(self, state: GermanWhistState, seat: int | None) -> dict[str, Any]:
        return self.knowledge(state, seat).to_view()

    def knowledge(self, state: GermanWhistState, seat: int | None) -> "GermanWhistSeat":
        stock, hands = state.stock, state.hands
        return GermanWhistSeat(  # by position: a view is built from it on every read
            hands[seat] if seat is not None else None,
            (hands[0].bit_count(), hands[1].bit_count()),
            state.trump,
            stock[0] if stock else -1,
            len(stock),
            state.trick_number if state.match.result is None else None,
            state.trick,
            state.last_trick,
            state.won,
            state.shown,
        )

    # --- serialization ----------------------------------------------------------------------

    def dump_deal(self, state: GermanWhistState) -> dict[str, Any]:
        return {
            "hands": [DECK.codes(hand) for hand in state.hands],
            "stock": [DECK.code(card) for card in state.stock],
            "trump": SUITS[state.trump].value if state.trump != NO_TRUMP else None,
            "trick": state.trick.dump(DECK),
            "won": [list(seat) for seat in state.won],
            "shown": [DECK.codes(cards) for cards in state.shown],
            "last_trick": state.last_trick.dump(DECK) if state.last_trick else None,
        }

    def load_deal(self, match: Match, doc: Mapping[str, Any]) -> GermanWhistState:
        return GermanWhistState(
            match=match,
            hands=tuple(DECK.mask(hand) for hand in doc["hands"]),
            stock=tuple(DECK.number[Card.parse(code)] for code in doc["stock"]),
            trump=SUITS.index(Suit(doc["trump"])) if doc["trump"] else NO_TRUMP,
            trick=Trick.load(doc["trick"], DECK),
            won=tuple((phase1, phase2) for phase1, phase2 in doc["won"]),
            shown=tuple(DECK.mask(cards) for cards in doc["shown"]),
            last_trick=Trick.load(doc["last_trick"], DECK) if doc["last_trick"] else None,
        )
