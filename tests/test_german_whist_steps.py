"""German Whist's step functions on masks, one rule each: the ruleset applies them and so do the
computer players' rollouts (engine/players/german_whist.py), so each rule is written once.
Hands are written as card codes."""

from __future__ import annotations

import pytest

from engine import registry
from engine.actions import play
from engine.cards import Suit, cards
from engine.german_whist import DECK, NO_TRUMP, SUITS, Aim, counted_tricks, deal_scores, legal_cards, trick_winner
from engine.players.german_whist import outcome
from engine.rules import draw_after_trick
from test_german_whist import table

WHIST = registry.get("german-whist")


def number(code: str) -> int:
    return DECK.number[cards(code)[0]]


def mask(codes: str) -> int:
    return DECK.mask(cards(codes))


def test_the_aim_reads_misere_and_count_all_tricks_from_the_options():
    assert Aim.of(WHIST.parse_options({})) == Aim()
    assert Aim.of(WHIST.parse_options({"misere": True, "count_all_tricks": True})) == Aim(misere=True, count_all=True)


@pytest.mark.parametrize("aim, counted, margin", [(Aim(), (8, 5), 3), (Aim(), (5, 8), -3), (Aim(misere=True), (8, 5), -3), (Aim(), (6, 6), 0)])
def test_the_margin_is_seat_0s_lead_in_counted_tricks_turned_round_under_misere(aim, counted, margin):
    assert aim.margin(counted) == margin


@pytest.mark.parametrize(
    "option_values, won, winners",
    [({}, ((3, 8), (10, 5)), [0]), ({"misere": True}, ((3, 8), (10, 5)), [1]), ({}, ((3, 6), (10, 6)), [])],
)
def test_the_deal_goes_to_the_seat_the_margin_favours(option_values, won, winners):
    _, _, found = deal_scores(won, WHIST.parse_options(option_values))
    assert found == winners


def test_the_rollouts_value_a_deal_by_the_same_margin():
    """A won deal is worth its margin plus the win's weight, a lost one as much below 0."""
    assert outcome([[3, 8], [10, 5]], Aim()) == 3 + 2
    assert outcome([[3, 8], [10, 5]], Aim(misere=True)) == -3 - 2
    assert outcome([[3, 6], [10, 6]], Aim()) == 0
    assert outcome([[3, 6], [10, 6]], Aim(count_all=True)) == 9 - 16 - 2


def test_the_follower_must_follow_suit_when_able_and_the_leader_plays_any_card():
    assert legal_cards(mask("AS 2S KH"), number("5S")) == mask("AS 2S")
    assert legal_cards(mask("KH 2D"), number("5S")) == mask("KH 2D")
    assert legal_cards(mask("AS 2S KH"), -1) == mask("AS 2S KH")


def test_the_winner_takes_the_face_up_card_and_the_loser_draws_the_next():
    hands = [mask("2C"), mask("3C")]
    assert draw_after_trick(hands, (number("AS"), number("KD"), number("QH")), 0, 1) == (number("AS"), number("KD"))
    assert hands == [mask("2C KD"), mask("3C AS")]


@pytest.mark.parametrize("lead, reply, trump, winner", [("AS", "KS", "H", 1), ("KS", "AS", "H", 0), ("AS", "2H", "H", 0), ("AS", "2H", None, 1)])
def test_the_ruleset_takes_the_trick_with_the_rollouts_trick_winner(lead, reply, trump, winner):
    """A trick led by seat 1 goes where :func:`trick_winner` says, in the trick event too."""
    trump_suit = SUITS.index(Suit(trump)) if trump else NO_TRUMP
    lead_card, reply_card = number(lead), number(reply)
    assert WHIST.trick_winner(1, (lead_card, reply_card), trump_suit) == trick_winner(1, lead_card, reply_card, trump_suit) == winner
    state = table(f"{reply} 7C", f"{lead} 7D", leader=1, trump=trump)
    state, _ = WHIST.apply(state, 1, play(lead))
    state, events = WHIST.apply(state, 0, play(reply))
    (trick,) = [event.data for event in events if event.data["type"] == "trick"]
    assert trick["winner"] == winner


def test_phase_1_tricks_count_only_with_count_all_tricks():
    assert counted_tricks(((4, 8), (9, 5)), False) == [8, 5]
    assert counted_tricks(((4, 8), (9, 5)), True) == [12, 14]
