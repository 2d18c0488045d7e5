"""German Whist invariants over random matches under random options (hypothesis).

Public knowledge is rebuilt here from the public events alone (the face-up cards taken), not
from the engine's own bookkeeping, so the leak checks do not trust what they check.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import registry
from engine.cards import FULL_DECK
from engine import Action
from engine.german_whist import DECK
from engine.ruleset import replay
from tests.support import card_codes_in, random_playout

WHIST = registry.get("german-whist")

options = st.fixed_dictionaries(
    {
        "scoring": st.sampled_from(["tricks", "over-six"]),
        "count_all_tricks": st.booleans(),
        "no_trump": st.booleans(),
        "misere": st.booleans(),
        "target": st.sampled_from([0, 0, 10, 25]),
    }
)
matches = st.tuples(options, st.text(min_size=1, max_size=12), st.integers(0, 2**32))


def playout(chosen, seed, rng_seed):
    return random_playout(WHIST, chosen, seed, random.Random(rng_seed))


@settings(max_examples=40)
@given(matches)
def test_no_card_is_lost_or_duplicated(match):
    played_this_deal: list[str] = []
    for state, _, _, events in playout(*match):
        for event in events:
            if event.data["type"] == "deal":
                played_this_deal = []
            if event.data["type"] == "trick":
                played_this_deal += [entry["card"] for entry in event.data["cards"]]
        if WHIST.result(state) is not None:
            break
        everywhere = [code for hand in state.hands for code in DECK.codes(hand)] + [DECK.code(c) for c in state.stock]
        everywhere += played_this_deal + [DECK.code(c) for c in state.trick.cards]
        assert sorted(everywhere) == sorted(card.code for card in FULL_DECK)


def hidden_from(state, taken_face_up) -> dict:
    """Per viewer (None: a spectator), the cards it may not see in ``state``."""
    hands = [set(DECK.codes(hand)) for hand in state.hands]
    face_down = {DECK.code(card) for card in state.stock[1:]}
    return {
        viewer: face_down.union(*(hands[other] - taken_face_up[other] for other in (0, 1) if other != viewer))
        for viewer in (None, 0, 1)
    }


def assert_events_hide(events, hidden):
    for event in events:
        for viewer, cards in hidden.items():
            seen = event.for_viewer(viewer)
            if seen is not None:
                assert not card_codes_in(seen) & cards, (viewer, seen)


@settings(max_examples=40)
@given(matches)
def test_no_seat_ever_sees_a_concealed_card(match):
    taken_face_up: list[set[str]] = [set(), set()]
    hidden_before = None
    for state, seat, action, events in playout(*match):
        # the events of an action that ends a deal belong to the old deal up to the "deal" event
        cut = next((i for i, event in enumerate(events) if event.data["type"] == "deal"), len(events))
        for event in events[:cut]:
            if event.data["type"] == "take":
                taken_face_up[event.data["seat"]].add(event.data["card"])
        deal_ended = 0 < cut < len(events)
        if deal_ended:  # judged against the old deal: only the card just played became public
            assert_events_hide(events[:cut], {viewer: cards - {action.card.code} for viewer, cards in hidden_before.items()})
            taken_face_up = [set(), set()]
        for event in events[cut:]:
            if event.data["type"] == "take":
                taken_face_up[event.data["seat"]].add(event.data["card"])
        hidden = hidden_from(state, taken_face_up)
        assert_events_hide(events if not deal_ended else events[cut:], hidden)
        for viewer, cards in hidden.items():
            assert not card_codes_in(WHIST.view(state, viewer)) & cards
        hidden_before = hidden


@settings(max_examples=40)
@given(matches)
def test_serialization_round_trips(match):
    for state, *_ in playout(*match):
        assert WHIST.load(WHIST.dump(state)) == state


@settings(max_examples=25)
@given(matches)
def test_replaying_the_revealed_history_reproduces_the_final_state(match):
    chosen, seed, rng_seed = match
    moves = []
    for state, seat, action, _ in playout(chosen, seed, rng_seed):
        if action is not None:
            moves.append((seat, Action.from_json(action.to_json())))
    reveal = WHIST.reveal(state)
    assert replay(WHIST, WHIST.parse_options(chosen), reveal["seed"], moves) == state
    assert len(reveal["deals"]) == state.match.deal_number


@settings(max_examples=40)
@given(matches)
def test_every_seat_to_act_has_a_legal_action_and_a_deal_has_26_tricks(match):
    tricks = 0
    for state, _, _, events in playout(*match):
        for seat in WHIST.to_act(state):
            assert WHIST.legal_actions(state, seat)
        for event in events:
            if event.data["type"] == "trick":
                tricks += 1
            if event.data["type"] == "deal_result":
                assert tricks == 26
                tricks = 0
