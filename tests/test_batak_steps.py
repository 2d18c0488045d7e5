"""Partnership Batak's step functions on masks, one rule each: the ruleset applies them and so do
the computer players' playouts and search (engine/players/batak.py), so each rule is written once.
Hands are written as card codes; trump is hearts."""

from __future__ import annotations

from engine import registry
from engine.actions import play
from engine.batak import DECK, SUITS, beats, broken_after, chooser, deal_points, legal_mask, partner_of, trump_may_be_led, trump_played, winning
from engine.cards import Suit, cards
from engine.players.batak import Solver, play_out
from test_batak import table

BATAK = registry.get("partnership-batak")
HEARTS = SUITS.index(Suit.HEARTS)


def mask(codes: str) -> int:
    return DECK.mask(cards(codes))


def numbers(codes: str) -> tuple[int, ...]:
    return tuple(DECK.number[card] for card in cards(codes))


def test_a_trick_with_a_trump_breaks_trump():
    assert trump_played(mask("AS 2H KS QS"), HEARTS)
    assert not trump_played(mask("AS 2D KS QS"), HEARTS)
    assert broken_after(False, mask("AS 2H KS QS"), HEARTS)
    assert not broken_after(False, mask("AS 2D KS QS"), HEARTS)
    assert broken_after(True, mask("AS 2D KS QS"), HEARTS)  # once broken, broken for the deal


def test_trump_may_be_led_once_broken_or_when_the_option_allows_it():
    assert trump_may_be_led(True, False)
    assert trump_may_be_led(False, True)
    assert not trump_may_be_led(False, False)


def test_a_lead_is_a_side_card_until_trump_may_be_led_unless_only_trumps_are_held():
    assert legal_mask(mask("AH 2S"), -1, -1, HEARTS, trump_may_be_led(False, False)) == mask("2S")
    assert legal_mask(mask("AH 2S"), -1, -1, HEARTS, trump_may_be_led(True, False)) == mask("AH 2S")
    assert legal_mask(mask("AH 2H"), -1, -1, HEARTS, trump_may_be_led(False, False)) == mask("AH 2H")


def test_the_ruleset_breaks_trump_with_a_trick_that_holds_one_and_then_allows_a_trump_lead():
    state = table("AS AH", "KS 3C", "QS 4C", "2H 5C", leader=0)
    assert BATAK.legal_actions(state, 0) == (play("AS"),)
    for seat, code in ((0, "AS"), (1, "KS"), (0, "QS"), (3, "2H")):  # the declarer plays the dummy's card
        state, _ = BATAK.apply(state, seat, play(code))
    assert state.trump_broken and state.trick.leader == 3
    assert play("5C") in BATAK.legal_actions(state, 3)
    untrumped = table("AS AH", "KS 3C", "QS 4C", "JS 5C", leader=0)
    for seat, code in ((0, "AS"), (1, "KS"), (0, "QS"), (3, "JS")):
        untrumped, _ = BATAK.apply(untrumped, seat, play(code))
    assert not untrumped.trump_broken
    assert BATAK.legal_actions(untrumped, 0) == (play("AH"),)  # only trumps left: one is led


def test_the_playouts_and_the_search_may_lead_trump_when_the_ruleset_allows_it():
    """South (declarer) holds KH 9S. Before trump is broken it must lead the spade, which West
    trumps, and the declaring team takes 1 trick; once trump may be led, KH first draws the
    trumps and North's QS then takes the spade trick too: 2."""
    hands = [mask("KH 9S"), mask("QH 4S"), mask("5H QS"), mask("AC 8H")]
    for broken, free_trump_lead, tricks in ((False, False, 1), (True, False, 2), (False, True, 2)):
        assert Solver(HEARTS, 0, free_trump_lead, 10_000, lambda: False).tricks(hands, 0, (), broken) == tricks
        assert play_out(hands, 0, (), HEARTS, broken, free_trump_lead, 0) == tricks


def test_partners_sit_opposite_and_the_declarer_chooses_the_dummys_cards():
    assert [partner_of(seat) for seat in range(4)] == [2, 3, 0, 1]
    assert chooser(2, 0) == 0  # the dummy's turn: the declarer chooses
    assert chooser(1, 0) == 1
    assert chooser(0, 0) == 0


def test_the_card_winning_so_far_is_the_highest_trump_else_the_highest_of_the_suit_led():
    spades = numbers("5S KS 2H AS")
    assert winning(1, spades[:2], HEARTS) == (spades[1], 2)
    assert winning(1, spades, HEARTS) == (spades[2], 3)  # the two of trumps beats every spade, the ace after it too
    assert beats(spades[3], spades[1], HEARTS) and not beats(spades[3], spades[2], HEARTS)


def test_a_deal_scores_the_tricks_made_or_minus_the_bid_and_a_sweep_13():
    assert deal_points(8, 9) == (9, 4)
    assert deal_points(8, 7) == (-8, 6)
    assert deal_points(8, 12) == (12, -8)  # the defenders took fewer than 2
    assert deal_points(8, 13) == (13, -13)
    assert deal_points(8, 0) == (-13, 13)
