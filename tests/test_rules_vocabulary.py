"""The vocabulary every ruleset shares (``engine/rules.py``), one rule each: who sees an event, how
an option is checked and described, how a trick and a deal are written down. Cards as codes."""

from __future__ import annotations

import json

import pytest

from engine import Refusal, RuleError, registry
from engine.cards import Card, cards
from engine.german_whist import DECK
from engine.rules import DealRecord, Event, Trick, bad_option, draw_after_trick, private, public, replace_at, seat_at

WHIST_OPTIONS = {option.code: option for option in registry.get("german-whist").options}
BATAK_OPTIONS = {option.code: option for option in registry.get("partnership-batak").options}


def numbers(codes: str) -> tuple[int, ...]:
    return tuple(DECK.number[card] for card in cards(codes))


# --- events ------------------------------------------------------------------------------------


def test_a_private_event_is_seen_whole_by_its_seat_and_without_its_hidden_fields_by_the_others():
    event = private(1, "draw", ["card"], seat=1, card="7H")
    assert event.for_viewer(1) == {"type": "draw", "seat": 1, "card": "7H"}
    assert event.for_viewer(0) == event.for_viewer(None) == {"type": "draw", "seat": 1}
    assert event.for_viewer(0, revealed=True) == event.data
    assert public("turn_up", card="QD").for_viewer(None) == {"type": "turn_up", "card": "QD"}


def test_an_event_written_down_and_read_back_keeps_who_sees_it():
    assert public("take", seat=0, card="KC").to_json() == {"data": {"type": "take", "seat": 0, "card": "KC"}}
    assert private(1, "draw", ["card"], seat=1, card="7H").to_json() == {
        "data": {"type": "draw", "seat": 1, "card": "7H"},
        "seen_by": [1],
        "others_see": {"type": "draw", "seat": 1},
    }
    assert Event({"type": "hint"}, frozenset({2, 0})).to_json() == {"data": {"type": "hint"}, "seen_by": [0, 2], "others_see": None}
    for event in (public("take", seat=0, card="KC"), private(1, "draw", ["card"], seat=1, card="7H"), Event({"type": "hint"}, frozenset({2, 0}))):
        doc = json.loads(json.dumps(event.to_json()))
        assert Event.from_json(doc) == event


# --- options -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, value",
    [
        (WHIST_OPTIONS["target"], 0),
        (WHIST_OPTIONS["target"], 1000),
        (WHIST_OPTIONS["scoring"], "over-six"),
        (WHIST_OPTIONS["no_trump"], True),
        (BATAK_OPTIONS["target"], 51),
    ],
)
def test_an_option_accepts_a_value_of_its_type_among_its_allowed_ones_and_within_its_range(option, value):
    assert option.check(value) == value


@pytest.mark.parametrize(
    "option, value, shown",
    [
        (WHIST_OPTIONS["target"], 1001, "1001"),
        (WHIST_OPTIONS["target"], -1, "-1"),
        (WHIST_OPTIONS["target"], False, "false"),
        (WHIST_OPTIONS["target"], True, "true"),
        (WHIST_OPTIONS["target"], "5", '"5"'),
        (WHIST_OPTIONS["scoring"], "points", '"points"'),
        (WHIST_OPTIONS["scoring"], 3, "3"),
        (WHIST_OPTIONS["no_trump"], 1, "1"),
        (WHIST_OPTIONS["no_trump"], "true", '"true"'),
        (BATAK_OPTIONS["target"], 41, "41"),
    ],
)
def test_an_option_refuses_another_type_a_value_not_allowed_or_out_of_range_showing_the_value_as_json(option, value, shown):
    with pytest.raises(RuleError) as caught:
        option.check(value)
    error = caught.value
    assert (error.code, error.refusal, error.details["option"]) == ("invalid_option", Refusal.BAD_SETUP, option.code)
    assert error.message == f"option {option.code!r} cannot be {shown}; allowed: {option.allowed_text()}"


def test_an_option_says_what_it_allows_in_each_language():
    scoring, no_trump, target = WHIST_OPTIONS["scoring"], WHIST_OPTIONS["no_trump"], WHIST_OPTIONS["target"]
    assert scoring.allowed_text() == '"tricks", "over-six"' and BATAK_OPTIONS["target"].allowed_text() == "21, 31, 51"
    assert no_trump.allowed_text("tr") == "true, false"
    assert (target.allowed_text(), target.allowed_text("tr")) == ("an integer from 0 to 1000", "0 ile 1000 arasında bir tam sayı")
    assert bad_option(scoring, '"x"').details == {"option": "scoring", "allowed": ["tricks", "over-six"]}
    in_words = {"en": "an integer from 0 to 1000", "tr": "0 ile 1000 arasında bir tam sayı"}
    assert bad_option(target, "-1").details == {"option": "target", "allowed": in_words}
    assert bad_option(target, "-1").message_in("tr").endswith(in_words["tr"])


def test_a_refused_combination_of_options_gives_its_own_text_and_still_names_the_option():
    error = bad_option(WHIST_OPTIONS["scoring"], '"over-six"', {"en": "not with {other}", "tr": "{other} ile olmaz"}, other="misere")
    assert (error.code, error.message, error.message_in("tr")) == ("invalid_option", "not with misere", "misere ile olmaz")
    assert error.details == {"option": "scoring", "allowed": ["tricks", "over-six"]}


def test_an_option_is_described_with_its_labels_and_only_the_limits_it_has():
    assert WHIST_OPTIONS["scoring"].to_json("tr") == {
        "code": "scoring",
        "type": "string",
        "default": "tricks",
        "names": {"en": "Scoring", "tr": "Puanlama"},
        "description": WHIST_OPTIONS["scoring"].description["tr"],
        "labels": [
            {"value": "tricks", "names": {"en": "Tricks won", "tr": "Alınan löve"}},
            {"value": "over-six", "names": {"en": "Over six", "tr": "6 üstü fark"}},
        ],
        "allowed": ["tricks", "over-six"],
    }
    target = WHIST_OPTIONS["target"].to_json()
    assert (target["minimum"], target["maximum"], target["description"]) == (0, 1000, WHIST_OPTIONS["target"].description["en"])
    assert "allowed" not in target
    assert set(WHIST_OPTIONS["no_trump"].to_json()) == {"code", "type", "default", "names", "description", "labels"}


# --- deals and tricks --------------------------------------------------------------------------


def test_a_deal_record_is_written_in_card_codes_with_no_trump_card_when_there_is_none():
    record = DealRecord(1, (tuple(cards("AS 2D")), tuple(cards("2H"))), tuple(cards("KC 7H")), Card.parse("KC"))
    assert record.to_json() == {"dealer": 1, "hands": [["AS", "2D"], ["2H"]], "stock": ["KC", "7H"], "trump_card": "KC"}
    assert DealRecord(3, (tuple(cards("AS")),)).to_json() == {"dealer": 3, "hands": [["AS"]], "stock": [], "trump_card": None}


def test_a_trick_goes_round_in_seat_order_from_its_leader():
    assert [seat_at(3, place, 4) for place in range(4)] == [3, 0, 1, 2]
    trick = Trick(3, numbers("2S 5S AS"))
    assert trick.to_json(4, DECK) == {
        "leader": 3,
        "cards": [{"seat": 3, "card": "2S"}, {"seat": 0, "card": "5S"}, {"seat": 1, "card": "AS"}],
        "winner": None,
    }


def test_a_trick_event_is_its_heading_then_the_trick():
    heading = {"type": "trick", "number": 5}
    assert Trick(1, numbers("2S 5S"), 0).to_json(2, DECK, heading) is heading
    assert heading == {"type": "trick", "number": 5, "leader": 1, "cards": [{"seat": 1, "card": "2S"}, {"seat": 0, "card": "5S"}], "winner": 0}
    assert list(heading)[:2] == ["type", "number"]


def test_a_trick_written_down_compactly_reads_back_the_same():
    trick = Trick(1, numbers("2S 5S"), 0)
    assert trick.dump(DECK) == [1, ["2S", "5S"], 0]
    assert Trick.load(trick.dump(DECK), DECK) == trick
    assert Trick.load([2, [], None], DECK) == Trick(2)


def test_after_a_trick_the_winner_takes_the_stock_card_at_hand_and_the_loser_the_next():
    hands = [DECK.mask(cards("AS")), DECK.mask(cards("2D"))]
    assert draw_after_trick(hands, numbers("KC 7H QD 8C"), 2, 1) == numbers("QD 8C")
    assert hands == [DECK.mask(cards("AS 8C")), DECK.mask(cards("2D QD"))]


def test_replacing_one_seats_count_leaves_the_others():
    assert replace_at((4, 1, 2, 3), 2, 9) == (4, 1, 9, 3)
    assert replace_at((4, 1), 0, 0) == (0, 1)
