"""The action log's compact encoding: a card in one byte, every action of every game round-trips."""

from __future__ import annotations

import itertools
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
    assert list(action_log.decode(entry)) == [(2, action)]


@pytest.mark.parametrize("action", [{"type": "resign"}, {"type": "bid", "value": 300}, {"type": "marriage", "card": "KH", "declare": False}])
def test_an_action_the_table_does_not_know_is_kept_whole(action):
    log = action_log.encode(0, action) + action_log.encode(1, {"type": "play", "card": "AS"})
    assert list(action_log.decode(log)) == [(0, action), (1, {"type": "play", "card": "AS"})]


def test_a_seat_the_log_cannot_hold_is_refused():
    with pytest.raises(ValueError):
        action_log.encode(4, {"type": "pass"})


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
