"""An action's fields, looked up once per kind: each kind reads and writes its own fields, and a
malformed action is refused naming the fields of the kind it claims to be."""

from __future__ import annotations

import pytest

from engine import RuleError
from engine.actions import KINDS, Action

EXAMPLES = [
    {"type": "play", "card": "QS"},
    {"type": "bid", "value": 7},
    {"type": "pass"},
    {"type": "trump", "suit": "H"},
    {"type": "exchange"},
    {"type": "close"},
    {"type": "marriage", "card": "KH"},
    {"type": "marriage", "card": "QC", "declare": True},
    {"type": "declare"},
]


def test_every_kind_is_read_and_written_with_its_own_fields():
    assert {example["type"] for example in EXAMPLES} == set(KINDS)
    for _ in range(2):  # the second time from what was looked up the first
        for example in EXAMPLES:
            action = Action.from_json(example)
            assert type(action) is KINDS[example["type"]] and action.to_json() == example


@pytest.mark.parametrize(
    "doc, case, wanted",
    [
        ({"type": "play", "card": "QS", "suit": "H"}, "unknown_fields", ["card"]),
        ({"type": "marriage", "card": "KH", "value": 3}, "unknown_fields", ["card", "declare"]),
        ({"type": "pass", "card": "QS"}, "no_fields", None),
        ({"type": "trump"}, "missing_fields", None),
    ],
)
def test_a_malformed_action_is_refused_naming_its_kinds_fields(doc, case, wanted):
    Action.from_json({"type": "trump", "suit": "S"})  # another kind looked up first
    with pytest.raises(RuleError) as refused:
        Action.from_json(doc)
    assert refused.value.code == "malformed_action"
    params = refused.value.params
    if wanted is not None:
        assert params["wanted"] == wanted
    if case == "missing_fields":
        assert params["missing"] == ["suit"]


@pytest.mark.parametrize(
    "doc, says",
    [
        (["play"], 'an action is a JSON object such as {"type": "play", "card": "QS"}'),
        ({"type": "resign"}, "unknown action type 'resign'; types are play, bid, pass, trump, exchange, close, marriage, declare"),
        ({"type": ["play"]}, "unknown action type ['play']; types are play, bid, pass, trump, exchange, close, marriage, declare"),
        ({"card": "QS"}, "unknown action type None; types are play, bid, pass, trump, exchange, close, marriage, declare"),
        ({"type": "trump"}, "a 'trump' action needs suit"),
        ({"type": "play", "card": "QS", "suit": "H"}, "a 'play' action has no field suit; its fields are card"),
        ({"type": "pass", "card": "QS"}, 'a \'pass\' action has no field but "type"; got card'),
        ({"type": "play", "card": "QX"}, "'QX' is not a card code such as \"QS\" or \"TD\""),
        ({"type": "bid", "value": "7"}, "a bid's value is an integer"),
        ({"type": "bid", "value": True}, "a bid's value is an integer"),
        ({"type": "trump", "suit": "X"}, "'X' is not a suit; suits are C, D, H, S"),
        ({"type": "marriage", "card": "KH", "declare": 1}, "declare is true or false"),
    ],
)
def test_a_malformed_action_is_refused_in_words_that_say_what_is_wrong_with_it(doc, says):
    with pytest.raises(RuleError) as refused:
        Action.from_json(doc)
    assert (refused.value.code, refused.value.refusal.value) == ("malformed_action", "malformed")
    assert refused.value.message == str(refused.value) == says
