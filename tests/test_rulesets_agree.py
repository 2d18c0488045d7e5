"""Every ruleset, whatever its rules: the legal actions are exactly the actions its rules allow,
and every refusal names a code from the ruleset's catalogue. Checked along the first deal of
random matches, for every seat and every kind of action, in every registered ruleset and in the
test-only game (``tests/plain_whist.py``), the template of a new one."""

from __future__ import annotations

import random

import pytest

from engine import Action, Bid, Close, Declare, Exchange, Marriage, Pass, Play, RuleError, Trump, registry
from engine.cards import FULL_DECK, Suit
from plain_whist import PlainWhist
from support import random_playout

#: every action a client could post, of every kind
CANDIDATES: list[Action] = [
    *(Play(card) for card in FULL_DECK),
    *(Marriage(card) for card in FULL_DECK if card.code[0] in "QKA"),
    *(Bid(value) for value in (7, 8, 9, 13, 14)),
    *(Trump(suit) for suit in Suit),
    Pass(),
    Exchange(),
    Close(),
    Declare(),
]

OPTIONS = {
    "german-whist": [{}, {"no_trump": True, "target": 20}],
    "sixty-six": [{}, {"variant": "schnapsen"}, {"no_talon": True, "target": 5}],
    "partnership-batak": [{}, {"trump_lead_before_broken": True, "target": 21}],
    PlainWhist.id: [{}],
}


@pytest.fixture(scope="module", autouse=True)
def test_only_game():
    registry.register(PlainWhist())
    yield
    registry.unregister(PlainWhist.id)


def test_every_registered_ruleset_is_checked():
    assert {ruleset.id for ruleset in registry.all_rulesets()} == set(OPTIONS)


@pytest.mark.parametrize("ruleset_id,options", [(rid, options) for rid, choices in OPTIONS.items() for options in choices])
def test_the_legal_actions_are_exactly_what_the_rules_allow_and_every_refusal_is_catalogued(ruleset_id, options):
    ruleset = registry.get(ruleset_id)
    catalogue = ruleset.catalogue
    rng = random.Random(ruleset_id)
    for state, _, _, events in random_playout(ruleset, options, f"agree-{ruleset_id}", rng):
        if any(event.data["type"] == "deal_result" for event in events):
            break  # one deal is enough: the next ones are dealt the same way
        for seat in range(ruleset.seat_count):
            legal = set(ruleset.legal_actions(state, seat))
            for action in CANDIDATES:
                assert ruleset.can(state, seat, action) == (action in legal), (seat, action)
                if action in legal:
                    continue
                with pytest.raises(RuleError) as refused:
                    ruleset.apply(state, seat, action)
                assert refused.value.code in catalogue, refused.value.code
                assert catalogue[refused.value.code].kind is refused.value.refusal, refused.value.code
