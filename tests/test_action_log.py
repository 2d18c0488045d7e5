"""The action log's compact encoding: a card in one byte, every action of every game round-trips."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from engine import registry
from engine import action_log
from tests.support import random_playout

RULESETS = [ruleset.id for ruleset in registry.all_rulesets()]


def test_a_played_card_takes_one_byte_with_its_seat():
    assert action_log.encode(1, {"type": "play", "card": "QS"}) == bytes([1 << 6 | action_log.CARDS.index("QS")])
    assert list(action_log.decode(action_log.encode(3, {"type": "play", "card": "2C"}))) == [(3, {"type": "play", "card": "2C"})]


@pytest.mark.parametrize(
    "action, size",
    [
        ({"type": "pass"}, 1),
        ({"type": "exchange"}, 1),
        ({"type": "close"}, 1),
        ({"type": "declare"}, 1),
        ({"type": "trump", "suit": "H"}, 2),
        ({"type": "bid", "value": 9}, 2),
        ({"type": "marriage", "card": "KH"}, 2),
        ({"type": "marriage", "card": "QD", "declare": True}, 2),
    ],
)
def test_every_kind_of_action_takes_at_most_two_bytes(action, size):
    entry = action_log.encode(2, action)
    assert len(entry) == size
    # the entry after it is read from where it ends
    assert list(action_log.decode(entry + action_log.encode(1, action))) == [(2, action), (1, action)]


@pytest.mark.parametrize("value, size", [(0, 2), (255, 2), (256, 2 + len('{"type":"bid","value":256}'))])
def test_a_bid_takes_two_bytes_when_its_value_fits_in_one(value, size):
    entry = action_log.encode(0, {"type": "bid", "value": value})
    assert len(entry) == size
    assert list(action_log.decode(entry)) == [(0, {"type": "bid", "value": value})]


def test_an_action_kept_whole_is_its_compact_json_of_at_most_255_bytes():
    longest = {"type": "resign", "why": "x" * (255 - len('{"type":"resign","why":""}'))}
    entry = action_log.encode(1, longest)
    assert entry[1:] == bytes([255]) + json.dumps(longest, separators=(",", ":")).encode()
    assert list(action_log.decode(entry)) == [(1, longest)]
    with pytest.raises(ValueError, match="at most 255 bytes"):
        action_log.encode(1, {**longest, "why": longest["why"] + "x"})


@pytest.mark.parametrize(
    "action",
    [
        {"type": "resign"},
        {"type": "resign", "suit": "H"},
        {"type": "trump", "suit": "N"},
        {"type": "bid", "value": 300},
        {"type": "marriage", "card": "KH", "declare": False},
    ],
)
def test_an_action_the_table_does_not_know_is_kept_whole(action):
    log = action_log.encode(0, action) + action_log.encode(1, {"type": "play", "card": "AS"})
    assert list(action_log.decode(log)) == [(0, action), (1, {"type": "play", "card": "AS"})]


def test_a_seat_the_log_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="holds seats 0 to 3, not 4"):
        action_log.encode(4, {"type": "pass"})


@pytest.mark.parametrize("op", [60, 61, 62])
def test_an_operation_the_table_does_not_have_is_an_error_not_an_action(op):
    with pytest.raises(ValueError, match=f"unknown operation {op} in the action log"):
        list(action_log.decode(bytes([op])))


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_action_of_a_random_match_round_trips(ruleset_id):
    ruleset = registry.get(ruleset_id)
    moves = [
        (seat, action.to_json())
        for _, seat, action, _ in itertools.islice(random_playout(ruleset, {}, "log", random.Random(7)), 1, 400)
    ]
    log = b"".join(action_log.encode(seat, action) for seat, action in moves)
    assert list(action_log.decode(log)) == moves
    assert len(log) < 1.2 * len(moves)
