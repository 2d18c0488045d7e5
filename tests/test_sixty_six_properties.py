"""Sixty-Six properties over random seeds, random play and every valid combination of options.

Hidden information is checked against a concealed set computed here, from the state and the
public events alone: the opponent's hand minus the cards made public (by an exchange, the last
draw, a marriage or the no-talon trump card), plus the face-down talon.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any, Iterator

from hypothesis import given, settings, strategies as st

from engine import Action, Event, Marriage, Play, registry, replay
from engine.cards import Card
from engine.sixty_six import DECK, VARIANTS, Announcement, SixtySixState
from support import card_codes_in

GAME = registry.get("sixty-six")

ALL_OPTIONS = [
    options
    for options in (
        dict(zip(("variant", "marriages", "trump_exchange", "open_scores", "no_talon", "exhausted_talon", "target"), values))
        for values in itertools.product(
            ("sixty-six", "schnapsen"), (True, False), (True, False), (True, False), (True, False),
            ("last-trick", "last-trick-ten"), (5, 7, 9, 11),
        )
    )
    if not (options["variant"] == "schnapsen" and options["exhausted_talon"] == "last-trick-ten")
]

#: How the random players claim (alone or with a marriage): uniformly like any other action,
#: never, or exactly at 66.
CLAIMING = ("random", "never", "at-66")


def points_claimed(state: SixtySixState, seat: int, action: Action) -> int | None:
    """The points ``action`` would claim with, or None if it is no claim."""
    if action.type == "declare":
        return state.points(seat)
    if isinstance(action, Marriage) and action.declare:
        return state.points(seat) + Announcement(seat, DECK.number[action.card]).points(state.trump)
    return None


def choose(state: SixtySixState, rng: random.Random, claiming: str) -> tuple[int, Action]:
    (seat,) = GAME.to_act(state)
    actions = GAME.legal_actions(state, seat)
    if claiming != "random":
        claims = {action: points_claimed(state, seat, action) for action in actions}
        if claiming == "at-66":
            for action, points in claims.items():
                if points is not None and points >= 66:
                    return seat, action
        actions = tuple(action for action in actions if claims[action] is None) or actions
    return seat, rng.choice(actions)


def playout(options: dict[str, Any], seed: str, rng: random.Random, claiming: str) -> Iterator[tuple[Any, ...]]:
    """A whole match; yields (state before, seat, action, state after, events), the first with no action."""
    state, events = GAME.new_game(GAME.parse_options(options), seed)
    yield None, None, None, state, events
    while GAME.result(state) is None:
        seat, action = choose(state, rng, claiming)
        after, events = GAME.apply(state, seat, action)
        yield state, seat, action, after, events
        state = after


def deal_cards(state: SixtySixState) -> list[Card]:
    """Every card of the deal wherever it is: hands, talon, trump card, won piles and the trick."""
    masks = (*state.hands, *state.won)
    numbers = [*state.talon, *state.trick.cards] + ([state.trump_card] if state.trump_card is not None else [])
    return [card for mask in masks for card in DECK.card_tuple(mask)] + [DECK.cards[card] for card in numbers]


def concealed(state: SixtySixState, known: list[set[Card]], viewer: int | None) -> set[str]:
    """The card codes ``viewer`` may not see: others' hands minus public cards, and the talon."""
    hidden = {DECK.code(card) for card in state.talon}
    for seat in range(2):
        if seat != viewer:
            hidden |= {card.code for card in set(DECK.card_tuple(state.hands[seat])) - known[seat]}
    return hidden


def learn(known: list[set[Card]], event: Event) -> None:
    """Update the publicly known cards in hand from one public event."""
    data = event.data
    if event.seen_by is not None:
        return
    kind = data["type"]
    if kind == "deal":
        known[0].clear()
        known[1].clear()
        if data["talon_size"] == 0:  # no talon: the dealer's last card is shown
            known[data["dealer"]].add(Card.parse(data["trump_card"]))
    elif kind in ("take", "exchange"):
        known[data["seat"]].add(Card.parse(data["card"] if kind == "take" else data["took"]))
    elif kind == "marriage":
        known[data["seat"]] |= {Card.parse(code) for code in data["pair"]}  # the card led leaves the hand


def check_events(events, known, before: SixtySixState | None, action: Action | None, after: SixtySixState) -> None:
    """No event shows a seat a card concealed from it when the event happened."""
    # the events of an action that ends a deal come before the next deal's; the state after it
    # is the next deal, so they are checked against the state before, less the card just played
    old_deal = before is not None and any(event.data["type"] == "deal" for event in events)
    played = {action.card.code} if isinstance(action, (Play, Marriage)) else set()
    for event in events:
        if event.data["type"] == "deal":
            old_deal = False
        learn(known, event)
        if old_deal:
            hidden = {viewer: concealed(before, known, viewer) - played for viewer in (0, 1, None)}
        else:
            hidden = {viewer: concealed(after, known, viewer) for viewer in (0, 1, None)}
        for viewer in (0, 1, None):
            seen = event.for_viewer(viewer)
            assert not card_codes_in(seen) & hidden[viewer], (viewer, event)


@settings(max_examples=150, deadline=None)
@given(options=st.sampled_from(ALL_OPTIONS), seed=st.text(max_size=6), rng_seed=st.integers(0, 2**32), claiming=st.sampled_from(CLAIMING))
def test_random_matches_keep_every_invariant(options, seed, rng_seed, claiming):
    rng = random.Random(rng_seed)
    full_deck = Counter(DECK.card_tuple(VARIANTS[options["variant"]].cards))
    known: list[set[Card]] = [set(), set()]
    moves, hands_dealt = [], []
    state = None
    for before, seat, action, state, events in playout(options, seed, rng, claiming):
        if action is not None:
            moves.append((seat, action))
        hands_dealt += [event.data["hand"] for event in events if event.data["type"] == "dealt"]
        check_events(events, known, before, action, state)

        # no card lost or duplicated
        assert Counter(deal_cards(state)) == full_deck
        # the cards known from public events are exactly those the state marks as shown
        assert [DECK.mask(known[s] & set(DECK.card_tuple(state.hands[s]))) for s in range(2)] == list(state.shown)
        # no view shows a concealed card
        for viewer in (0, 1, None):
            assert not card_codes_in(GAME.view(state, viewer)) & concealed(state, known, viewer)
        # exactly one seat may act while the match goes on, and it has something to do
        to_act = GAME.to_act(state)
        assert len(to_act) == (0 if GAME.result(state) else 1)
        for acting in to_act:
            assert GAME.legal_actions(state, acting)
        # serialization round trip
        assert GAME.load(GAME.dump(state)) == state
        # a deal played out fully holds the deck's 120 card points (and the 10 where it applies)
        for event in events:
            result = event.data
            if result["type"] == "deal_result" and sum(result["tricks"]) == len(full_deck) // 2:
                bonus = 10 if result["last_trick_ten"] is not None else 0
                assert sum(result["points"]) - sum(result["marriage_points"]) - bonus == 120

    assert replay(GAME, GAME.parse_options(options), seed, moves) == state
    check_reveal(state, options, hands_dealt)


def check_reveal(state: SixtySixState, options: dict[str, Any], hands_dealt: list[list[str]]) -> None:
    """A finished match reveals every deal as dealt, consistent with the hands each seat was given."""
    variant = VARIANTS[options["variant"]]
    deck_codes = sorted(DECK.codes(variant.cards))
    reveal = GAME.reveal(state)
    assert reveal["seed"] == state.match.seed
    assert len(reveal["deals"]) == state.match.deal_number == len(hands_dealt) // 2
    for number, deal in enumerate(reveal["deals"]):
        hands, stock, trump_card = deal["hands"], deal["stock"], deal["trump_card"]
        assert [sorted(hand) for hand in hands] == [sorted(cards) for cards in hands_dealt[2 * number : 2 * number + 2]]
        assert sorted(hands[0] + hands[1] + stock) == deck_codes
        if options["no_talon"]:
            assert stock == [] and trump_card == hands[deal["dealer"]][-1]
        else:
            assert len(hands[0]) == len(hands[1]) == variant.hand_size
            assert stock[-1] == trump_card


@settings(max_examples=40, deadline=None)
@given(options=st.sampled_from(ALL_OPTIONS), seed=st.text(max_size=6))
def test_new_game_is_valid_for_every_option_combination(options, seed):
    state, events = GAME.new_game(GAME.parse_options(options), seed)
    size = VARIANTS[options["variant"]].cards.bit_count() // 2 if options["no_talon"] else VARIANTS[options["variant"]].hand_size
    assert [hand.bit_count() for hand in state.hands] == [size, size]
    assert GAME.to_act(state) == (1 - state.match.dealer(2),)
    assert [event.data["type"] for event in events] == ["deal", "dealt", "dealt"]
