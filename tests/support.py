"""Helpers shared by the tests: random playouts, a leak detector for JSON documents, the README's examples,
the committed OpenAPI document's operations."""

from __future__ import annotations

import importlib.util
import json
import random
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, Mapping

from engine import Event, Ruleset, registry
from engine.cards import FULL_DECK, members

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
        elif isinstance(item, dict) or isinstance(item, Mapping):  # dict first: typing's Mapping check is slow
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def random_playout(
    ruleset: Ruleset, options: Mapping[str, Any], seed: str, rng: random.Random
) -> Iterator[tuple[Any, int | None, Any, tuple[Event, ...]]]:
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
    deck = registry.get("german-whist").deck
    hidden = {deck.code(card) for card in state.stock[1:]}  # the face-down stock; stock[0] is face up
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden |= set(deck.codes(hand & ~state.shown[other]))
    return hidden


def _sixty_six_concealed(state: Any, seat: int | None) -> set[str]:
    deck = registry.get("sixty-six").deck
    hidden = {deck.code(card) for card in state.talon}  # the face-down talon (the trump card is public)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden |= set(deck.codes(hand & ~state.shown[other]))
    return hidden


def _batak_concealed(state: Any, seat: int | None) -> set[str]:
    deck = registry.get("partnership-batak").deck
    open_hand = state.dummy if state.trump is not None else None  # face up once trump is named
    return {code for other, hand in enumerate(state.hands) if other not in (seat, open_hand) for code in deck.codes(hand)}


CONCEALED = {
    "german-whist": _german_whist_concealed,
    "sixty-six": _sixty_six_concealed,
    "partnership-batak": _batak_concealed,
}


def swap_hidden_cards(ruleset_id: str, state: Any, seat: int, rng: random.Random) -> Any | None:
    """Another state that differs from ``state`` only in cards ``seat`` cannot see: two concealed
    cards in different places trade places. None when there are no two such places."""
    return SWAPS[ruleset_id](state, seat, rng)


def _swap(first: int, second: int, rng: random.Random) -> tuple[int, int, int, int] | None:
    """Take a card (a bit) out of each of two masks."""
    if not first or not second:
        return None
    one, other = 1 << rng.choice(members(first)), 1 << rng.choice(members(second))
    return first & ~one, second & ~other, one, other


def _swap_with_pile(state: Any, seat: int, rng: random.Random, pile_name: str, face_down: slice) -> Any | None:
    """Swap a concealed card of the opponent's hand with a face-down card of a pile (stock, talon)."""
    opponent = 1 - seat
    pile = list(getattr(state, pile_name))
    concealed = state.hands[opponent] & ~state.shown[opponent]
    positions = list(range(len(pile)))[face_down]
    if not concealed or not positions:
        return None
    card, position = rng.choice(members(concealed)), rng.choice(positions)
    hands = list(state.hands)
    hands[opponent] = hands[opponent] & ~(1 << card) | 1 << pile[position]
    pile[position] = card
    return state._replace(hands=tuple(hands), **{pile_name: tuple(pile)})


def _swap_batak(state: Any, seat: int, rng: random.Random) -> Any | None:
    open_hand = state.dummy if state.trump is not None else None
    hidden = [other for other in range(4) if other not in (seat, open_hand) and state.hands[other]]
    if len(hidden) < 2:
        return None
    first, second = rng.sample(hidden, 2)
    swapped = _swap(state.hands[first], state.hands[second], rng)
    if swapped is None:
        return None
    rest_first, rest_second, one, other = swapped
    hands = list(state.hands)
    hands[first], hands[second] = rest_first | other, rest_second | one
    return state._replace(hands=tuple(hands))


SWAPS = {
    "german-whist": lambda state, seat, rng: _swap_with_pile(state, seat, rng, "stock", slice(1, None)),
    "sixty-six": lambda state, seat, rng: _swap_with_pile(state, seat, rng, "talon", slice(None)),
    "partnership-batak": _swap_batak,
}


README = Path(__file__).resolve().parent.parent / "README.md"
#: the address the README's examples talk to; a test puts its own server's in its place
README_SERVER = "http://127.0.0.1:8000"


def readme_example(language: str) -> str:
    """The README's one code block in ``language`` (``python``, ``ts``), as written there."""
    (block,) = re.findall(rf"^```{language}\n(.*?)^```$", README.read_text(), flags=re.MULTILINE | re.DOTALL)
    return block


def expire(redis: Any, game_id: str) -> None:
    """The game gone from the store, as Redis expires one kept past its time."""
    for key in redis.scan_iter(f"*{{{game_id}}}*"):
        redis.delete(key)


def load_bench(script: str) -> ModuleType:
    """A script of ``bench/`` (not a package) loaded as a module, to test its parts."""
    spec = importlib.util.spec_from_file_location(f"bench_{Path(script).stem}", Path(__file__).resolve().parent.parent / "bench" / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: the committed OpenAPI document
DOCUMENT: dict[str, Any] = json.loads((Path(__file__).resolve().parent.parent / "openapi" / "openapi.json").read_text())


def documented_operations() -> dict[str, dict[str, Any]]:
    """The committed document's operations, by operationId."""
    return {
        operation["operationId"]: operation
        for operations in DOCUMENT["paths"].values()
        for method, operation in operations.items()
        if method != "parameters"
    }
