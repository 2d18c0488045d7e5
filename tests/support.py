"""Helpers shared by the tests: random playouts and a leak detector for JSON documents."""

from __future__ import annotations

import random
from typing import Any, Iterator, Mapping

from engine import Event, Ruleset
from engine.cards import FULL_DECK

CARD_CODES = frozenset(card.code for card in FULL_DECK)


def card_codes_in(document: Any) -> set[str]:
    """Every card code that appears anywhere in a JSON-like document (keys and values)."""
    found: set[str] = set()
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in CARD_CODES:
                found.add(item)
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def random_playout(ruleset: Ruleset, options: Mapping[str, Any], seed: str, rng: random.Random) -> Iterator[tuple[Any, int | None, Any, tuple[Event, ...]]]:
    """Play a whole match with uniformly random legal actions.

    Yields ``(state, seat, action, events)`` for the new game (seat and action None) and after
    every action.
    """
    state, events = ruleset.new_game(ruleset.parse_options(options), seed)
    yield state, None, None, events
    while ruleset.result(state) is None:
        seat = rng.choice(ruleset.to_act(state))
        action = rng.choice(ruleset.legal_actions(state, seat))
        state, events = ruleset.apply(state, seat, action)
        yield state, seat, action, events


def concealed_cards(ruleset_id: str, state: Any, seat: int | None) -> set[str]:
    """The cards ``seat`` (None: a spectator) may not see now, worked out from the state's own
    fields rather than from the engine's views: what the leak checks compare views against."""
    return CONCEALED[ruleset_id](state, seat)


def _german_whist_concealed(state: Any, seat: int | None) -> set[str]:
    hidden = {card.code for card in state.stock[1:]}  # the face-down stock; stock[0] is face up
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden |= {card.code for card in hand - state.shown[other]}
    return hidden


def _sixty_six_concealed(state: Any, seat: int | None) -> set[str]:
    hidden = {card.code for card in state.talon}  # the face-down talon (the trump card is public)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden |= {card.code for card in hand - state.shown[other]}
    return hidden


def _batak_concealed(state: Any, seat: int | None) -> set[str]:
    open_hand = state.dummy if state.trump is not None else None  # face up once trump is named
    return {card.code for other, hand in enumerate(state.hands) if other not in (seat, open_hand) for card in hand}


CONCEALED = {
    "german-whist": _german_whist_concealed,
    "sixty-six": _sixty_six_concealed,
    "partnership-batak": _batak_concealed,
}
