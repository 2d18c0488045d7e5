"""A game that exists only for the tests: two-hand whist without a stock, in one module.

Each player is dealt 13 cards (the other 26 stay out of play), there is no trump, a player who
holds the suit led must follow it, and whoever wins more of the 13 tricks wins the match (one
deal). It has no computer strategies, so its computer seats play at the ``random`` level.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Mapping, NamedTuple, TypedDict

from engine import Play, TrickTaking
from engine.cards import STANDARD, mask_of
from engine.errors import RefusalCode, RuleError
from engine.rules import DealRecord, Event, Trick
from engine.ruleset import Match
from engine.shapes import COMMON_EVENTS, BaseView, CardCode, SuitCode, TrickView
from engine.shuffle import shuffled_deck

DECK = STANDARD
PLAYS = tuple(Play(card) for card in DECK.cards)
plays_of = DECK.selector(PLAYS)


class PlainWhistState(NamedTuple):
    match: Match
    hands: tuple[int, ...]
    trick: Trick
    won: tuple[int, ...]
    last_trick: Trick | None = None
    trump: int = -1  # none

    @property
    def trick_number(self) -> int:
        return sum(self.won) + 1


def legal_cards(hand: int, led: int) -> int:
    following = hand & DECK.suit_masks[led // 13] if led >= 0 else 0
    return following or hand


class PlainWhistDealResult(TypedDict):
    deal: Annotated[int, "The deal's number, from 1"]
    tricks: Annotated[list[int], "Tricks won by each seat"]
    winners: Annotated[list[int], "The seat with more tricks"]


class PlainWhistDealEvent(TypedDict):
    type: Literal["deal"]
    deal: int
    dealer: int


class PlainWhistDealResultEvent(PlainWhistDealResult):
    type: Literal["deal_result"]
    scores: list[int]


class PlainWhistView(BaseView):
    last_deal: PlainWhistDealResult | None
    hand: list[CardCode] | None
    hand_sizes: list[int]
    trump: Annotated[SuitCode | None, "Always null: no trump"]
    trick: TrickView
    last_trick: TrickView | None
    tricks_won: list[int]


CARD_NOT_IN_HAND = RefusalCode(
    "card_not_in_hand",
    {"en": "the card is not in the hand", "tr": "kart elde yok"},
    says={"en": "{card} is not in your hand", "tr": "{card} elinizde yok"},
)
MUST_FOLLOW_SUIT = RefusalCode(
    "must_follow_suit",
    {"en": "the suit led must be followed", "tr": "yerdeki renk oynanmalı"},
    says={"en": "follow the suit led", "tr": "yerdeki rengi oynayın"},
)


class PlainWhist(TrickTaking[PlainWhistState]):
    id = "plain-whist"
    names = {"en": "Plain Whist", "tr": "Düz Whist"}
    seat_names = ({"en": "North", "tr": "Kuzey"}, {"en": "South", "tr": "Güney"})
    options = ()
    deal_result_type = PlainWhistDealResult
    view_type = PlainWhistView
    event_types = (*COMMON_EVENTS, PlainWhistDealEvent, PlainWhistDealResultEvent)
    deck = DECK
    action_kinds = (Play,)
    refusals = (CARD_NOT_IN_HAND, MUST_FOLLOW_SUIT)

    def deal_record(self, match: Match, deal_number: int, dealer: int) -> DealRecord:
        cards = shuffled_deck(match.seed, deal_number, DECK.cards)
        return DealRecord(dealer, (tuple(cards[0:26:2]), tuple(cards[1:26:2])))

    def deal(self, match: Match) -> tuple[PlainWhistState, tuple[Event, ...]]:
        dealer = match.dealer(2)
        hands = tuple(mask_of(DECK.number[card] for card in hand) for hand in self.deal_record(match, match.deal_number, dealer).hands)
        state = PlainWhistState(match, hands, Trick(1 - dealer), (0, 0))
        return state, self.deal_events(match, hands)

    def legal_actions(self, state: PlainWhistState, seat: int) -> tuple[Play, ...]:
        if seat not in self.to_act(state):
            return ()
        cards = state.trick.cards
        return plays_of(legal_cards(state.hands[seat], cards[0] if cards else -1))

    def verify_play(self, state: PlainWhistState, seat: int, action: Play) -> RuleError | None:
        card, cards = action.card.index, state.trick.cards
        if not state.hands[seat] >> card & 1:
            return CARD_NOT_IN_HAND(card=action.card.code)
        if not legal_cards(state.hands[seat], cards[0] if cards else -1) >> card & 1:
            return MUST_FOLLOW_SUIT()
        return None

    def trick_taken(self, state: PlainWhistState, hands: tuple[int, ...], done: Trick, card: int) -> tuple[PlainWhistState, tuple[Event, ...]]:
        winner = done.winner
        assert winner is not None
        won = tuple(count + (seat == winner) for seat, count in enumerate(state.won))
        return PlainWhistState(state.match, hands, Trick(winner), won, done), ()

    def score_deal(self, state: PlainWhistState) -> tuple[PlainWhistDealResult, tuple[int, ...]]:
        won = state.won
        return {"deal": state.match.deal_number, "tricks": list(won), "winners": [0 if won[0] > won[1] else 1]}, won

    def match_winners(self, match: Match) -> list[int] | None:
        return list(match.last_deal["winners"]) if match.last_deal else None

    def own_view(self, state: PlainWhistState, seat: int | None) -> dict[str, Any]:
        return {
            "hand": DECK.codes(state.hands[seat]) if seat is not None else None,
            "hand_sizes": [hand.bit_count() for hand in state.hands],
            "trump": None,
            "trick": state.trick.to_json(2, DECK),
            "last_trick": state.last_trick.to_json(2, DECK) if state.last_trick else None,
            "tricks_won": list(state.won),
        }

    def dump_deal(self, state: PlainWhistState) -> dict[str, Any]:
        return {
            "hands": [DECK.codes(hand) for hand in state.hands],
            "trick": state.trick.dump(DECK),
            "won": list(state.won),
            "last_trick": state.last_trick.dump(DECK) if state.last_trick else None,
        }

    def load_deal(self, match: Match, doc: Mapping[str, Any]) -> PlainWhistState:
        return PlainWhistState(
            match,
            tuple(DECK.mask(hand) for hand in doc["hands"]),
            Trick.load(doc["trick"], DECK),
            tuple(doc["won"]),
            Trick.load(doc["last_trick"], DECK) if doc["last_trick"] else None,
        )
