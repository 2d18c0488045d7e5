"""Sixty-Six's step functions on masks, one rule each: the ruleset applies them and so do the
computer players' rollouts (engine/players/sixty_six.py), so each rule is written once.
Hands are written as card codes; trump is hearts unless a test says otherwise."""

from __future__ import annotations

import pytest

from engine import registry
from engine.actions import play
from engine.cards import Suit, cards
from engine.sixty_six_core import (
    DECK,
    SUITS,
    Announcement,
    Closing,
    DealRules,
    claim_game_points,
    counted_points,
    deal_outcome,
    exchanged,
    marriage_cards,
    partner,
    points_of,
    trick_winner,
)
from sixty_six_tables import numbers, table

GAME = registry.get("sixty-six")
HEARTS = SUITS.index(Suit.HEARTS)


def rules(trump: str = "H", **option_values) -> DealRules:
    return DealRules.of(GAME.parse_options(option_values), SUITS.index(Suit(trump)))


def mask(codes: str) -> int:
    return DECK.mask(cards(codes))


def test_the_deal_rules_read_the_options_that_matter_to_play():
    assert rules() == DealRules(HEARTS)
    assert rules(variant="schnapsen") == DealRules(HEARTS, schnapsen=True)
    assert rules(marriages=False, trump_exchange=False) == DealRules(HEARTS, marriages=False, exchange=False)
    assert rules(no_talon=True, exhausted_talon="last-trick-ten") == DealRules(HEARTS, no_talon=True, last_trick_ten=True)
    assert rules("S").trump == SUITS.index(Suit.SPADES)


def test_the_deal_rules_are_made_once_per_combination():
    assert rules() is rules()


def test_the_deck_is_the_variants():
    assert rules().deck == DECK.full
    assert rules(variant="schnapsen").deck == DECK.full & ~mask("9C 9D 9H 9S")


def test_the_swap_card_is_the_trump_nine_and_in_schnapsen_the_trump_jack():
    assert DECK.cards[rules().swap_card].code == "9H"
    assert DECK.cards[rules("S").swap_card].code == "9S"
    assert DECK.cards[rules(variant="schnapsen").swap_card].code == "JH"


def test_exchanging_gives_the_swap_card_for_the_trump_card():
    assert exchanged(mask("9H AS KC"), DECK.number[cards("9H")[0]], DECK.number[cards("AH")[0]]) == mask("AH AS KC")


@pytest.mark.parametrize(
    "talon_open, hand, won_a_trick, option_values, may",
    [
        (True, "9H AS", True, {}, True),
        (False, "9H AS", True, {}, False),  # closed or exhausted talon
        (True, "AS KS", True, {}, False),  # the nine not held
        (True, "9H AS", False, {}, False),  # no trick won yet
        (True, "JH AS", False, {"variant": "schnapsen"}, True),  # Schnapsen: before any trick
        (True, "9H AS", True, {"trump_exchange": False}, False),
    ],
)
def test_the_leader_may_exchange_while_the_talon_is_open_holding_the_swap_card_after_a_trick(
    talon_open, hand, won_a_trick, option_values, may
):
    assert rules(**option_values).may_exchange(talon_open, mask(hand), won_a_trick) is may


@pytest.mark.parametrize(
    "option_values, while_open, late",
    [
        ({}, True, False),
        ({"variant": "schnapsen"}, True, True),
        ({"no_talon": True}, True, True),
        ({"marriages": False}, False, False),
    ],
)
def test_marriages_are_announced_while_the_talon_is_open_and_later_in_schnapsen_or_without_a_talon(option_values, while_open, late):
    deal_rules = rules(**option_values)
    assert deal_rules.marriage_time(True) is while_open
    assert deal_rules.marriage_time(False) is late
    assert deal_rules.late_marriages is late


def test_a_marriage_scores_40_in_trump_and_20_otherwise():
    assert rules().marriage_points(DECK.number[cards("QH")[0]]) == 40
    assert rules().marriage_points(DECK.number[cards("KS")[0]]) == 20


def test_the_outcome_is_the_deal_outcome_under_the_options():
    closing = Closing(0, 10, 1)
    assert rules().outcome((60, 50), (3, 3), closing, None, 1) == deal_outcome((60, 50), (3, 3), closing, None, 1, False, False)
    # with the last-trick ten, 50 + 10 points played out beat 55, under 66
    ten = rules(exhausted_talon="last-trick-ten").outcome((50, 55), (3, 3), None, None, 0)
    assert (ten.winner, ten.reason, ten.points) == (0, "more_points", (60, 55))


@pytest.mark.parametrize("lead, reply, trump, winner", [("AS", "TS", "H", 1), ("TS", "AS", "H", 0), ("AS", "9H", "H", 0), ("AS", "AD", "H", 1)])
def test_the_ruleset_takes_the_trick_with_the_rollouts_trick_winner(lead, reply, trump, winner):
    """A trick led by seat 1 goes where :func:`trick_winner` says, in the trick event too."""
    lead_card, reply_card = numbers(f"{lead} {reply}")
    trump_suit = SUITS.index(Suit(trump))
    assert GAME.trick_winner(1, (lead_card, reply_card), trump_suit) == trick_winner(1, lead_card, reply_card, trump_suit) == winner
    state = table(f"{reply} KC", f"{lead} KD", trump=trump, leader=1)
    state, _ = GAME.apply(state, 1, play(lead))
    state, events = GAME.apply(state, 0, play(reply))
    (trick,) = [event.data for event in events if event.data["type"] == "trick"]
    assert trick["winner"] == winner


def test_card_points_are_ace_11_ten_10_king_4_queen_3_jack_2_nine_0():
    assert points_of(mask("AS TS KS QS JS 9S")) == 30
    assert points_of(mask("AC AD AH AS")) == 44
    assert points_of(0) == 0


def test_a_marriage_is_a_king_and_queen_of_one_suit_held_together():
    assert marriage_cards(mask("KH QH KS JS QD")) == mask("KH QH")
    assert marriage_cards(mask("KS QD")) == 0
    assert partner(DECK.number[cards("QS")[0]]) == DECK.number[cards("KS")[0]]
    assert partner(DECK.number[cards("KS")[0]]) == DECK.number[cards("QS")[0]]
    assert Announcement(0, DECK.number[cards("QS")[0]]).cards == tuple(numbers("KS QS"))


def test_points_count_only_once_a_trick_is_won():
    assert counted_points(20, 40, 0) == 0
    assert counted_points(20, 40, 1) == 60


@pytest.mark.parametrize("loser_points, loser_tricks, game_points", [(40, 2, 1), (33, 1, 1), (32, 1, 2), (0, 0, 3)])
def test_a_won_deal_scores_3_against_no_trick_2_under_33_else_1(loser_points, loser_tricks, game_points):
    assert claim_game_points(loser_points, loser_tricks) == game_points


def test_closing_keeps_the_opponents_points_and_tricks_of_that_moment():
    assert Closing.by(0, lambda seat: (25, 40)[seat], (2, 3)) == Closing(0, 40, 3)
    assert Closing.by(1, lambda seat: (25, 40)[seat], (2, 3)) == Closing(1, 25, 2)
