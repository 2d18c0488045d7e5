"""Partnership Batak, rule by rule (RULES.md, section Partnership Batak). Hands are written as card codes.

Seats: 0 South, 1 East, 2 North, 3 West; teams North–South (0, 2) and East–West (1, 3).
"""

from __future__ import annotations


import itertools
import json
import random

import pytest

from engine import Action, Bid, Close, Pass, Refusal, RuleError, Trump, batak, registry
from engine.batak import DECK, SUITS, Auction, BatakState
from engine.cards import FULL_DECK, Card, Suit, cards, codes
from engine.actions import play
from engine.rules import Trick
from engine.ruleset import Match
from engine.shuffle import first_dealer, shuffled_deck
from support import card_codes_in, random_playout

BATAK = registry.get("partnership-batak")
SOUTH, EAST, NORTH, WEST = range(4)


def options(**given):
    return BATAK.parse_options(given)


def seed_for_dealer(dealer: int) -> str:
    """A seed whose first dealer is ``dealer``."""
    return next(seed for seed in (f"table-{i}" for i in range(100)) if first_dealer(seed, 4) == dealer)


def won_auction(opener: int, declarer: int, contract: int) -> Auction:
    """A closed auction won by ``declarer`` at ``contract``: everyone else passes (all pass for 7)."""
    if contract == 7:
        assert declarer == opener, "an all-pass contract belongs to the seat after the dealer"
        return Auction(opener, tuple(((opener + i) % 4, None) for i in range(4)))
    calls = []
    for i in range(4):
        seat = (opener + i) % 4
        calls.append((seat, contract if seat == declarer else None))
        if seat == declarer and contract == 13:
            break
    return Auction(opener, tuple(calls))


def table(
    south: str,
    east: str,
    north: str,
    west: str,
    *,
    declarer: int = SOUTH,
    contract: int = 8,
    trump: str | None = "H",
    leader: int | None = None,
    trick: str = "",
    won=(0, 0, 0, 0),
    trump_broken: bool = False,
    scores=(0, 0, 0, 0),
    **option_values,
) -> BatakState:
    """A Batak state after the auction (with trump named unless ``trump`` is None), as card codes.

    The dealer is the seat before the declarer, so an all-pass contract of 7 fits too.
    """
    dealer = (declarer - 1) % 4
    match = Match.start(options(**option_values), seed_for_dealer(dealer), 4)._replace(scores=tuple(scores))
    return BatakState(
        match=match,
        hands=tuple(DECK.mask(cards(hand)) for hand in (south, east, north, west)),
        auction=won_auction(declarer, declarer, contract),
        declarer=declarer,
        contract=contract,
        trump=SUITS.index(Suit(trump)) if trump else None,
        trick=Trick(declarer if leader is None else leader, tuple(DECK.number[card] for card in cards(trick))) if trump else None,
        won=tuple(won),
        trump_broken=trump_broken,
    )


def bidding(dealer: int = WEST, **option_values) -> BatakState:
    """A new deal in its auction, dealt by ``dealer`` (South opens the bidding by default)."""
    state, _ = BATAK.new_game(options(**option_values), seed_for_dealer(dealer))
    return state


def bid(value: int) -> Action:
    return Bid(value)


PASS = Pass()


def trump(suit: str) -> Action:
    return Trump(Suit(suit))


def cards_held(state) -> tuple[frozenset, ...]:
    """Each seat's cards."""
    return tuple(frozenset(DECK.card_tuple(hand)) for hand in state.hands)


def calls(state, *actions: Action):
    """Make calls in turn order; returns the final state and all events."""
    events = []
    for action in actions:
        (seat,) = BATAK.to_act(state)
        state, new_events = BATAK.apply(state, seat, action)
        events.extend(new_events)
    return state, events


def play_cards(state, *plays: str):
    """Play cards in turn order (the declarer plays the dummy's); returns the final state and all events."""
    events = []
    for code in plays:
        (seat,) = BATAK.to_act(state)
        state, new_events = BATAK.apply(state, seat, play(code))
        events.extend(new_events)
    return state, events


def legal(state, seat=None) -> list[str]:
    (to_act,) = BATAK.to_act(state)
    return [action.card.code for action in BATAK.legal_actions(state, to_act if seat is None else seat)]


def refusal(state, seat, action) -> RuleError:
    with pytest.raises(RuleError) as caught:
        BATAK.apply(state, seat, action)
    return caught.value


# --- players, seats, deal ----------------------------------------------------------------------


def test_four_seats_in_play_order_south_east_north_west():
    assert BATAK.id == "partnership-batak"
    assert BATAK.names == {"en": "Partnership Batak", "tr": "Eşli Batak"}
    assert [names["en"] for names in BATAK.seat_names] == ["South", "East", "North", "West"]
    assert [names["tr"] for names in BATAK.seat_names] == ["Güney", "Doğu", "Kuzey", "Batı"]


def test_teams_are_north_south_and_east_west():
    view = BATAK.view(bidding(), None)
    assert view["teams"] == [[SOUTH, NORTH], [EAST, WEST]]


def test_deal_gives_13_cards_each_one_at_a_time_from_the_seat_after_the_dealer():
    state = bidding(dealer=EAST)
    deck = shuffled_deck(state.match.seed, 1, FULL_DECK)
    assert [len(hand) for hand in cards_held(state)] == [13, 13, 13, 13]
    assert frozenset().union(*cards_held(state)) == frozenset(FULL_DECK)
    assert set(deck[0::4]) == cards_held(state)[NORTH]  # the seat after East
    assert set(deck[1::4]) == cards_held(state)[WEST]
    assert set(deck[3::4]) == cards_held(state)[EAST]  # the dealer gets the last card


def test_deal_event_and_each_hand_seen_only_by_its_seat():
    state, events = BATAK.new_game(options(), seed_for_dealer(NORTH))
    assert events[0].data == {"type": "deal", "deal": 1, "dealer": NORTH, "first_bidder": WEST}
    hands = events[1:]
    for seat, event in enumerate(hands):
        cards_dealt = codes(sorted(cards_held(state)[seat]))
        assert event.for_viewer(seat) == {"type": "dealt", "seat": seat, "hand": cards_dealt, "count": 13}
        assert event.for_viewer((seat + 1) % 4) == {"type": "dealt", "seat": seat, "count": 13}
        assert event.for_viewer(None) == {"type": "dealt", "seat": seat, "count": 13}


def test_explicit_seed_deals_the_same_cards_every_time():
    assert BATAK.new_game(options(), "same") == BATAK.new_game(options(), "same")
    assert BATAK.new_game(options(), "same")[0].hands != BATAK.new_game(options(), "other")[0].hands


def test_first_dealer_is_drawn_from_the_seed_and_the_deal_passes_in_play_order():
    assert {bidding(dealer).match.dealer(4) for dealer in range(4)} == {0, 1, 2, 3}
    state = table("AS", "2S", "3S", "4S", won=(3, 3, 3, 3))
    dealer = state.match.dealer(4)
    state, _ = play_cards(state, "AS", "2S", "3S", "4S")
    assert state.match.deal_number == 2 and state.match.dealer(4) == (dealer + 1) % 4


def test_every_deal_has_13_tricks():
    state, _ = calls(bidding(), PASS, PASS, PASS, PASS, trump("S"))
    tricks = []
    while state.match.deal_number == 1:
        (seat,) = BATAK.to_act(state)
        state, events = BATAK.apply(state, seat, BATAK.legal_actions(state, seat)[0])
        tricks += [event.data["number"] for event in events if event.data["type"] == "trick"]
    assert tricks == list(range(1, 14))
    assert sum(state.match.last_deal["tricks"]) == 13


# --- bidding -----------------------------------------------------------------------------------


def test_bidding_starts_at_the_seat_after_the_dealer():
    for dealer in range(4):
        state = bidding(dealer)
        assert BATAK.to_act(state) == ((dealer + 1) % 4,)
        assert BATAK.view(state, None)["auction"]["open"] is True


def test_bidding_goes_round_in_play_order():
    state = bidding(dealer=NORTH)  # West opens
    seen = []
    for action in (bid(8), bid(9), bid(10), bid(11), bid(12)):
        seen.append(BATAK.to_act(state)[0])
        state, _ = calls(state, action)
    assert seen == [WEST, SOUTH, EAST, NORTH, WEST]


def test_a_bid_is_a_number_from_8_to_13_or_a_pass():
    state = bidding()
    assert BATAK.legal_actions(state, SOUTH) == tuple(bid(value) for value in range(8, 14)) + (PASS,)
    for value in (7, 14, 0):
        error = refusal(state, SOUTH, bid(value))
        assert (error.code, error.refusal) == ("bid_out_of_range", Refusal.ILLEGAL)
        assert error.legal_actions == BATAK.legal_actions(state, SOUTH)


def test_a_bid_must_be_higher_than_the_highest_bid_so_far():
    state, _ = calls(bidding(), bid(10))
    assert BATAK.legal_actions(state, EAST) == (bid(11), bid(12), bid(13), PASS)
    for value in (8, 10):
        assert refusal(state, EAST, bid(value)).code == "bid_too_low"


def test_a_refused_bid_is_told_the_range_or_the_highest_bid_so_far():
    state, _ = calls(bidding(), bid(9))
    assert refusal(state, EAST, bid(14)).message == "a bid is a number from 8 to 13"
    assert refusal(state, EAST, bid(9)).message == "a bid must be higher than 9, the highest bid so far"


def test_a_player_who_passed_is_out_of_the_auction_for_the_deal():
    state, _ = calls(bidding(), PASS, bid(8), bid(9), bid(10))  # South passed; East, North, West bid
    assert BATAK.to_act(state) == (EAST,)  # South is skipped
    error = refusal(state, SOUTH, bid(11))
    assert (error.code, error.refusal) == ("not_in_auction", Refusal.NOT_YOUR_TURN)
    assert BATAK.legal_actions(state, SOUTH) == ()
    assert BATAK.view(state, SOUTH)["auction"]["passed"] == [SOUTH]


def test_the_auction_ends_when_only_the_highest_bidder_is_left():
    state, events = calls(bidding(), bid(8), bid(9), PASS, PASS, PASS)  # South, North, West pass
    assert state.declarer == EAST and state.contract == 9
    assert events[-1].data == {"type": "contract", "declarer": EAST, "dummy": WEST, "contract": 9, "all_passed": False}
    assert events[-1].seen_by is None
    assert BATAK.view(state, None)["auction"] == {
        "bids": [
            {"seat": SOUTH, "bid": 8},
            {"seat": EAST, "bid": 9},
            {"seat": NORTH, "bid": None},
            {"seat": WEST, "bid": None},
            {"seat": SOUTH, "bid": None},
        ],
        "high_bid": 9,
        "high_bidder": EAST,
        "passed": [SOUTH, NORTH, WEST],
        "open": False,
    }


def test_the_last_seat_after_three_passes_may_still_bid_or_pass():
    state, _ = calls(bidding(), PASS, PASS, PASS)
    assert BATAK.to_act(state) == (WEST,)
    assert BATAK.legal_actions(state, WEST) == tuple(bid(value) for value in range(8, 14)) + (PASS,)
    state, _ = calls(state, bid(8))
    assert (state.declarer, state.contract) == (WEST, 8)


def test_the_auction_ends_at_once_on_a_bid_of_13():
    state, events = calls(bidding(), bid(8), bid(13))
    assert (state.declarer, state.contract) == (EAST, 13)
    assert BATAK.to_act(state) == (EAST,)
    assert [event.data["type"] for event in events] == ["contract"]


def test_all_four_passing_makes_the_seat_after_the_dealer_declarer_at_7():
    state, events = calls(bidding(dealer=SOUTH), PASS, PASS, PASS, PASS)
    assert (state.declarer, state.contract) == (EAST, 7)
    assert events[-1].data == {"type": "contract", "declarer": EAST, "dummy": WEST, "contract": 7, "all_passed": True}
    assert BATAK.view(state, None)["contract"] == 7


def test_bids_and_passes_are_refused_once_the_auction_is_over():
    state, _ = calls(bidding(), bid(8), PASS, PASS, PASS)
    assert refusal(state, SOUTH, bid(9)).code == "auction_over"
    assert refusal(state, SOUTH, PASS).code == "auction_over"


def test_no_card_or_trump_during_the_auction():
    state = bidding()
    card = next(iter(cards_held(state)[SOUTH]))
    assert refusal(state, SOUTH, play(card)).code == "auction_in_progress"
    assert refusal(state, SOUTH, trump("S")).code == "auction_in_progress"


def test_an_action_batak_does_not_have_is_refused_as_the_auction_during_it_and_as_not_batak_after():
    assert refusal(bidding(), SOUTH, Close()).code == "auction_in_progress"
    error = refusal(table("AS", "2S", "3S", "4S"), SOUTH, Close())
    assert (error.code, error.params["kind"]) == ("illegal_action", "close")


# --- declarer and trump ------------------------------------------------------------------------


def test_declarer_names_any_of_the_four_suits_and_no_no_trump():
    state = table("AS", "2S", "3S", "4S", trump=None)
    assert BATAK.to_act(state) == (SOUTH,)
    assert BATAK.legal_actions(state, SOUTH) == tuple(trump(suit) for suit in "CDHS")


def test_only_the_declarer_names_trump():
    state = table("AS", "2S", "3S", "4S", trump=None)
    error = refusal(state, EAST, trump("S"))
    assert (error.code, error.refusal) == ("not_declarer", Refusal.NOT_YOUR_TURN)
    assert refusal(state, NORTH, trump("S")).code == "dummy_cannot_act"


def test_naming_trump_is_public():
    state = table("AS", "2S", "3S", "4S", trump=None)
    state, events = BATAK.apply(state, SOUTH, trump("D"))
    assert events[0].data == {"type": "trump", "seat": SOUTH, "suit": "D"} and events[0].seen_by is None
    assert state.trump == SUITS.index(Suit.DIAMONDS) and BATAK.view(state, EAST)["trump"] == "D"


def test_trump_is_named_once():
    state = table("AS", "2S", "3S", "4S")
    assert refusal(state, SOUTH, trump("S")).code == "trump_already_named"


def test_naming_trump_again_is_told_the_trump_already_named():
    assert refusal(table("AS", "2S", "3S", "4S", trump="S"), SOUTH, trump("H")).message == "trump is spades already"


def test_no_card_is_played_before_trump_is_named():
    state = table("AS", "2S", "3S", "4S", trump=None)
    assert refusal(state, SOUTH, play("AS")).code == "trump_not_named"


def test_declarer_leads_the_first_trick_from_their_own_hand():
    state = table("AS 2C", "2S 3C", "3S 4C", "4S 5C", declarer=EAST, trump=None)
    state, _ = BATAK.apply(state, EAST, trump("H"))
    assert BATAK.to_act(state) == (EAST,)
    assert BATAK.view(state, EAST)["turn"] == EAST
    assert legal(state) == ["3C", "2S"]


# --- the open hand (dummy) ---------------------------------------------------------------------


def test_the_declarers_partner_is_the_dummy():
    for declarer in range(4):
        assert table("AS", "2S", "3S", "4S", declarer=declarer).dummy == (declarer + 2) % 4


def test_the_dummys_hand_is_concealed_until_trump_is_named():
    state = table("AS KS", "2S 3D", "QH JD", "4S 5D", trump=None)
    for seat in (None, SOUTH, EAST, WEST):
        view = BATAK.view(state, seat)
        assert view["open_hand"] is None
        assert not {"QH", "JD"} & card_codes_in(view)


def test_the_dummys_hand_is_face_up_to_all_once_trump_is_named():
    state = table("AS KS", "2S 3D", "QH JD", "4S 5D", trump=None)
    state, events = BATAK.apply(state, SOUTH, trump("C"))
    assert events[1].data == {"type": "open_hand", "seat": NORTH, "hand": ["JD", "QH"]}
    assert events[1].seen_by is None
    for seat in (None, SOUTH, EAST, NORTH, WEST):
        assert BATAK.view(state, seat)["open_hand"] == {"seat": NORTH, "label": {"en": "North", "tr": "Kuzey"}, "cards": ["JD", "QH"]}
    state, _ = play_cards(state, "AS", "2S", "QH")
    assert BATAK.view(state, EAST)["open_hand"]["cards"] == ["JD"]


# South led AS, East played 2S: North's (the dummy's) turn.
DUMMYS_TURN = dict(south="KS", east="3D", north="QS QH", west="4S 5D", leader=SOUTH, trick="AS 2S")


def test_the_declarer_chooses_the_dummys_card_in_the_dummys_turn():
    state = table(**DUMMYS_TURN)
    assert BATAK.to_act(state) == (SOUTH,)
    assert legal(state, SOUTH) == ["QS"]
    view = BATAK.view(state, SOUTH)
    assert view["turn"] == NORTH and view["legal_actions"] == [{"type": "play", "card": "QS"}]
    state, _ = BATAK.apply(state, SOUTH, play("QS"))
    assert codes(cards_held(state)[NORTH]) == ["QH"]
    assert codes(cards_held(state)[SOUTH]) == ["KS"]
    assert BATAK.to_act(state) == (WEST,)


def test_the_declarers_refusals_in_the_dummys_turn_name_the_open_hand():
    state = table(**DUMMYS_TURN)
    error = refusal(state, SOUTH, play("KS"))  # South's own card, but it is North's turn
    assert error.code == "card_not_in_hand" and "open hand of North" in error.message
    assert refusal(state, SOUTH, play("QH")).code == "must_follow_suit"


def test_the_dummy_makes_no_move_of_their_own():
    state = table(**DUMMYS_TURN)
    assert BATAK.legal_actions(state, NORTH) == ()
    error = refusal(state, NORTH, play("QS"))
    assert (error.code, error.refusal) == ("dummy_cannot_act", Refusal.NOT_YOUR_TURN)
    view = BATAK.view(state, NORTH)
    assert view["role"] == "dummy" and view["legal_actions"] == [] and view["to_act"] == [SOUTH]
    # ...and not in anyone else's turn either
    state = table("KS", "2S 3D", "QS QH", "4S 5D", leader=SOUTH, trick="AS")
    assert refusal(state, NORTH, play("QS")).code == "dummy_cannot_act"


def test_a_defender_out_of_turn_is_told_it_is_not_their_turn():
    state = table(**DUMMYS_TURN)
    assert refusal(state, WEST, play("4S")).code == "not_your_turn"


def test_view_role_names_declarer_dummy_and_defenders():
    state = table("AS", "2S", "3S", "4S", declarer=WEST)
    roles = [BATAK.view(state, seat)["role"] for seat in range(4)]
    assert roles == ["defender", "dummy", "defender", "declarer"]
    assert BATAK.view(state, None)["role"] is None
    assert BATAK.view(bidding(), SOUTH)["role"] is None


# --- legal cards -------------------------------------------------------------------------------


def test_rule_1_the_leader_may_lead_any_card_but_trump():
    state = table("AS 2C 3H KH", "2S", "3S", "4S", trump="H")
    assert legal(state) == ["2C", "AS"]


def test_rule_1_trump_may_not_be_led_while_unbroken():
    state = table("AS 2C 3H KH", "2S", "3S", "4S", trump="H")
    error = refusal(state, SOUTH, play("KH"))
    assert (error.code, error.refusal) == ("trump_not_broken", Refusal.ILLEGAL)
    assert set(error.legal_actions) == {play("2C"), play("AS")}


def test_rule_1_a_leader_holding_only_trumps_may_lead_trump():
    state = table("3H KH", "2S", "3S", "4S", trump="H")
    assert legal(state) == ["3H", "KH"]


def test_rule_1_trump_is_broken_once_played_to_an_earlier_trick():
    # West ruffs South's spade lead and wins; leading next, West may now lead trump.
    state = table("AS 2C 3C", "2S 4C 5C", "3S 6C 7C", "5H 2H 6D", won=(0, 0, 0, 10), leader=WEST)
    assert legal(state) == ["6D"]  # unbroken: no trump lead
    state = state._replace(trick=Trick(SOUTH))
    state, _ = play_cards(state, "AS", "2S", "3S", "5H")
    assert state.trump_broken and BATAK.view(state, None)["trump_broken"] is True
    assert BATAK.to_act(state) == (WEST,)
    assert legal(state) == ["6D", "2H"]


def test_rule_1_a_trump_in_the_trick_being_played_does_not_break_trump_until_it_is_complete():
    state = table("AS 2C", "5H 3C", "3S 4C", "4S 6D", won=(0, 0, 0, 11))
    state, _ = play_cards(state, "AS", "5H")
    assert BATAK.view(state, None)["trump_broken"] is False
    state, _ = play_cards(state, "3S", "4S")
    assert BATAK.view(state, None)["trump_broken"] is True


def test_trump_is_broken_by_a_trump_lead_too():
    state = table("3H 2C", "4H 3C", "5H 4C", "6H 5C", won=(3, 3, 3, 2), trump_lead_before_broken=True)
    state, _ = play_cards(state, "3H", "4H", "5H", "6H")
    assert state.trump_broken


def test_option_trump_lead_before_broken_lifts_the_restriction():
    state = table("AS 2C 3H KH", "2S", "3S", "4S", trump="H", trump_lead_before_broken=True)
    assert legal(state) == ["2C", "3H", "KH", "AS"]


def test_rule_2_a_follower_holding_the_led_suit_must_follow_it():
    state = table("2D", "2S 3C AD", "3S", "4S", leader=SOUTH, trick="9S")
    assert BATAK.to_act(state) == (EAST,)
    assert legal(state) == ["2S"]
    error = refusal(state, EAST, play("AD"))
    assert (error.code, error.refusal) == ("must_follow_suit", Refusal.ILLEGAL)


def test_rule_2_a_follower_must_beat_every_card_of_the_led_suit_in_the_trick_when_able():
    state = table("2D", "2S JS KS 3C", "3S", "4S", leader=SOUTH, trick="9S")
    assert legal(state) == ["JS", "KS"]
    assert refusal(state, EAST, play("2S")).code == "must_beat"


def test_rule_2_beating_means_beating_the_highest_card_of_the_led_suit_so_far():
    state = table("2D", "3D", "5S", "4S TS AS", leader=SOUTH, trick="9S QS KS")
    assert legal(state) == ["AS"]
    assert refusal(state, WEST, play("TS")).code == "must_beat"


def test_rule_2_a_follower_who_cannot_beat_may_play_any_card_of_the_led_suit():
    state = table("2D", "2S 5S 3C", "3S", "4S", leader=SOUTH, trick="AS")
    assert legal(state) == ["2S", "5S"]


def test_rule_2_when_the_trick_is_trumped_any_card_of_the_led_suit_may_be_played():
    state = table("2D", "3D", "2S KS 3C", "4S", leader=SOUTH, trick="9S 2H")
    assert legal(state) == ["2S", "KS"]


def test_rule_2_after_a_trump_lead_a_follower_must_beat_the_highest_trump():
    state = table("2D", "2H QH 3C", "3S", "4S", leader=SOUTH, trick="9H", trump_broken=True)
    assert legal(state) == ["QH"]
    assert refusal(state, EAST, play("2H")).code == "must_beat"


def test_rule_3_a_follower_void_in_the_led_suit_must_trump():
    state = table("2D", "2H QH 3C", "3S", "4S", leader=SOUTH, trick="9S")
    assert legal(state) == ["2H", "QH"]
    error = refusal(state, EAST, play("3C"))
    assert (error.code, error.refusal) == ("must_trump", Refusal.ILLEGAL)


def test_rule_3_a_follower_void_in_the_led_suit_must_overtrump_when_able():
    state = table("2D", "3D", "2H QH 3C", "4S", declarer=EAST, leader=SOUTH, trick="9S 5H")
    assert legal(state) == ["QH"]
    assert refusal(state, NORTH, play("2H")).code == "must_overtrump"


def test_rule_3_a_follower_who_cannot_overtrump_may_play_any_trump():
    state = table("2D", "3D", "2H 5H 3C", "4S", leader=SOUTH, trick="9S KH")
    assert legal(state) == ["2H", "5H"]


def test_rule_4_a_follower_void_in_the_led_suit_and_in_trump_may_play_any_card():
    state = table("2D", "2C AD", "3S", "4S", leader=SOUTH, trick="9S")
    assert legal(state) == ["2C", "AD"]


def test_refusals_of_a_card_name_it_the_trump_and_the_suit_led():
    assert refusal(table("AS 2C", "2S", "3S", "4S"), SOUTH, play("KD")).message == "King of Diamonds is not in your hand"
    assert refusal(table(**DUMMYS_TURN), SOUTH, play("KS")).message == "King of Spades is not in the open hand of North"
    led_by_south = table("AH 2C", "2S", "3S", "4S")
    assert refusal(led_by_south, SOUTH, play("AH")).message == "hearts may not be led before trump is broken, unless only trumps are held"
    clubs_led = table("2D 3C", "AS 2C", "3S", "4S", leader=SOUTH, trick="9C")
    assert refusal(clubs_led, EAST, play("AS")).message == "clubs was led and must be followed"
    void_in_clubs = table("2D 3C", "AH 2S", "3S", "4S", leader=SOUTH, trick="9C")
    assert refusal(void_in_clubs, EAST, play("2S")).message == "void in clubs, a trump (hearts) must be played"
    holding_higher_clubs = table("2D 3C", "2C KC", "3S", "4S", leader=SOUTH, trick="9C")
    assert refusal(holding_higher_clubs, EAST, play("2C")).message == "you hold clubs higher than every one in the trick and must play one"
    trumped_by_south = table("2D 3C", "3H KH 2S", "3S", "4S", leader=WEST, trick="9C 5H")
    assert refusal(trumped_by_south, EAST, play("3H")).code == "must_overtrump"  # a trump, though not the suit's lowest card


def test_the_card_winning_a_trick_so_far_and_its_seat_as_the_players_reckon_them():
    hearts = SUITS.index(Suit.HEARTS)

    def winning(leader, trick):
        win, seat = batak.winning(leader, tuple(DECK.number[card] for card in cards(trick)), hearts)
        return (DECK.cards[win].code if win >= 0 else None), seat

    assert winning(SOUTH, "") == (None, -1)
    assert winning(WEST, "9C") == ("9C", WEST)
    assert winning(WEST, "9C 5H") == ("5H", SOUTH)
    assert winning(NORTH, "9C KC 2S") == ("KC", WEST)


def test_a_card_not_in_hand_is_refused():
    state = table("AS 2C", "2S", "3S", "4S")
    error = refusal(state, SOUTH, play("KD"))
    assert error.code == "card_not_in_hand" and "your hand" in error.message


def test_highest_trump_wins_the_trick():
    state = table("AS", "2H", "3H", "KS", won=(3, 3, 3, 3))
    state, events = play_cards(state, "AS", "2H", "3H", "KS")
    assert events[0].data["winner"] == NORTH


def test_highest_card_of_the_suit_led_wins_without_trump_and_another_suit_never_wins():
    state = table("9S", "AC", "KS", "QS", won=(3, 3, 3, 3))
    state, events = play_cards(state, "9S", "AC", "KS", "QS")
    assert events[0].data == {
        "type": "trick",
        "number": 13,
        "leader": SOUTH,
        "cards": [
            {"seat": SOUTH, "card": "9S"},
            {"seat": EAST, "card": "AC"},
            {"seat": NORTH, "card": "KS"},
            {"seat": WEST, "card": "QS"},
        ],
        "winner": NORTH,
    }


@pytest.mark.parametrize(
    "card, win, beats",
    [("AS", "KS", True), ("QS", "KS", False), ("2H", "AS", True), ("AD", "KS", False), ("3H", "2H", True), ("2H", "3H", False)],
)
def test_a_higher_card_of_the_suit_or_a_trump_over_another_suit_takes_the_trick_as_the_players_reckon_it(card, win, beats):
    """``beats``, which the computer players use, with hearts trump."""
    card_number, win_number = (DECK.number[c] for c in cards(f"{card} {win}"))
    assert batak.beats(card_number, win_number, SUITS.index(Suit.HEARTS)) is beats


@pytest.mark.parametrize(
    "hand, trick, played, may_lead_trump",
    [
        ("AH 5H", "", "5H", False),  # a lead of trump before it is broken, holding only trumps
        ("AH 5H 3C", "", "5H", True),  # trump broken: nothing shown
        ("3C 5H", "", "3C", False),
        ("2S 9D", "KS", "2S", False),  # following below the winning card
        ("AS 2S", "KS", "AS", False),  # following above it
        ("9D 3C", "KS", "9D", False),  # neither following nor trumping
        ("5H 3C", "KS", "5H", False),  # trumping
        ("5H 3C", "KS 9H", "5H", False),  # trumping below the winning trump
        ("JH 3C", "KS 9H", "JH", False),  # overtrumping
        ("2S 3C", "KS 9H", "2S", False),  # following a trumped trick
        ("2C 3D", "KC 9H", "2C", False),  # following a trumped trick below the trump (clubs: suit 0)
        ("2C 9D", "KC", "2C", False),  # following below the winning card, clubs led
    ],
)
def test_a_card_played_shows_exactly_the_cards_whose_holding_would_have_made_it_illegal(hand, trick, played, may_lead_trump):
    """``denied_by_card``, what the computer players infer from a card, is the rules' legal cards
    read backwards (hearts trump): a card not held is denied when holding it would have forbidden
    the card played."""
    trump_suit = SUITS.index(Suit.HEARTS)
    held, card = DECK.mask(cards(hand)), DECK.number[Card.parse(played)]
    trick_cards = [DECK.number[c] for c in cards(trick)]
    led = trick_cards[0] // 13 if trick_cards else -1
    win = batak.winning(0, trick_cards, trump_suit)[0] if trick_cards else -1
    assert batak.legal_mask(held, led, win, trump_suit, may_lead_trump) >> card & 1
    denied = batak.denied_by_card(card, led, win, trump_suit, may_lead_trump)
    for other in range(52):
        if held >> other & 1 or other in trick_cards:
            continue
        forbidden = not batak.legal_mask(held | 1 << other, led, win, trump_suit, may_lead_trump) >> card & 1
        assert bool(denied >> other & 1) is forbidden, DECK.cards[other].code


def test_the_winner_of_a_trick_leads_the_next():
    state = table("9S 2C", "AS 3C", "KS 4C", "QS 5C")
    state, _ = play_cards(state, "9S", "AS", "KS", "QS")
    assert BATAK.to_act(state) == (EAST,)
    view = BATAK.view(state, None)
    assert view["tricks_won"] == [0, 1, 0, 0] and view["team_tricks"] == [0, 1]
    assert view["last_trick"]["winner"] == EAST and view["trick"] == {"leader": EAST, "cards": [], "winner": None}
    assert view["trick_number"] == 2


def test_view_counts_each_hand_by_itself_as_a_trick_goes_round():
    state = table("9S 2C", "AS 3C", "KS 4C", "QS 5C")
    sizes = []
    for code in ("9S", "AS", "KS"):
        state, _ = play_cards(state, code)
        sizes.append(BATAK.view(state, None)["hand_sizes"])
    assert sizes == [[1, 2, 2, 2], [1, 1, 2, 2], [1, 1, 1, 2]]


def test_what_a_seat_knows_counts_each_teams_tricks_as_its_two_seats_tricks():
    seen = BATAK.knowledge(table("9S", "AS", "KS", "QS", won=(1, 2, 3, 4)), SOUTH)
    assert (seen.team_tricks(0), seen.team_tricks(1)) == (1 + 3, 2 + 4)


def test_the_last_trick_stays_shown_while_the_next_is_played():
    state = table("9S 2C", "AS 3C", "KS 4C", "QS 5C")
    state, _ = play_cards(state, "9S", "AS", "KS", "QS", "3C")
    view = BATAK.view(state, SOUTH)
    assert [play["card"] for play in view["last_trick"]["cards"]] == ["9S", "AS", "KS", "QS"]
    assert view["last_trick"]["winner"] == EAST and [play["card"] for play in view["trick"]["cards"]] == ["3C"]


# --- scoring -----------------------------------------------------------------------------------


def finish_deal(won, *, winner: int, declarer: int = SOUTH, contract: int = 8, scores=(0, 0, 0, 0), **option_values):
    """Play the last trick of a deal, won by ``winner``, from ``won`` tricks so far."""
    hands = ["2S", "3S", "4S", "5S"]
    hands[winner] = "AS"
    state = table(*hands, declarer=declarer, contract=contract, leader=winner, won=won, scores=scores, **option_values)
    state, events = play_cards(state, *(hands[(winner + i) % 4] for i in range(4)))
    return state.match.last_deal, state, events


def test_the_declaring_teams_tricks_are_the_declarers_plus_the_dummys():
    deal, _, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, declarer=SOUTH, contract=9)
    assert deal["tricks"] == [6, 1, 3, 3] and deal["team_tricks"] == [9, 4]
    assert deal["made"] is True


def test_declaring_team_that_takes_at_least_the_bid_scores_the_tricks_it_took():
    deal, state, _ = finish_deal((6, 1, 4, 1), winner=EAST, declarer=NORTH, contract=9)
    assert deal["team_tricks"] == [10, 3]
    assert deal["points"] == [10, 3, 10, 3] and deal["team_points"] == [10, 3]
    assert state.match.scores == (10, 3, 10, 3)


def test_declaring_team_that_takes_fewer_than_the_bid_scores_minus_the_bid():
    deal, _, _ = finish_deal((3, 2, 4, 3), winner=EAST, declarer=SOUTH, contract=10)
    assert deal["team_tricks"] == [7, 6] and deal["made"] is False
    assert deal["team_points"] == [-10, 6]


def test_defenders_with_2_or_more_tricks_score_the_tricks_they_took():
    deal, _, _ = finish_deal((1, 5, 0, 6), winner=SOUTH, declarer=EAST, contract=11)
    assert deal["team_tricks"] == [2, 11]
    assert deal["team_points"] == [2, 11]
    assert deal["points"] == [2, 11, 2, 11]


def test_defenders_with_0_or_1_tricks_score_minus_the_bid():
    deal, _, _ = finish_deal((0, 6, 0, 6), winner=SOUTH, declarer=EAST, contract=10)
    assert deal["team_tricks"] == [1, 12]
    assert deal["team_points"] == [-10, 12]
    # Defenders with 0 tricks: the declarers took all 13, and the sweep line replaces this one.
    deal, _, _ = finish_deal((0, 6, 0, 6), winner=WEST, declarer=EAST, contract=10)
    assert deal["team_tricks"] == [0, 13] and deal["team_points"] == [-13, 13]


def test_all_passed_contract_of_7_is_scored_like_a_bid_of_7():
    deal, _, _ = finish_deal((4, 3, 2, 3), winner=EAST, declarer=SOUTH, contract=7)
    assert deal["contract"] == 7 and deal["team_tricks"] == [6, 7]
    assert deal["team_points"] == [-7, 7]


def test_a_declaring_team_that_takes_all_13_tricks_scores_13_and_the_defenders_minus_13():
    deal, state, _ = finish_deal((8, 0, 4, 0), winner=NORTH, declarer=SOUTH, contract=8)
    assert deal["sweep"] == 0 and deal["made"] is True
    assert deal["team_points"] == [13, -13]
    assert state.match.result is None  # only a bid of 13 made ends the match


def test_a_defending_team_that_takes_all_13_tricks_scores_13_and_the_declarers_minus_13():
    deal, _, _ = finish_deal((0, 6, 0, 6), winner=WEST, declarer=SOUTH, contract=12)
    assert deal["sweep"] == 1 and deal["made"] is False
    assert deal["team_points"] == [-13, 13]
    assert deal["points"] == [-13, 13, -13, 13]


def test_a_bid_of_13_made_scores_13_and_ends_the_match_at_once_for_the_declaring_team():
    deal, state, events = finish_deal((0, 6, 0, 6), winner=EAST, declarer=WEST, contract=13, scores=(20, -5, 20, -5))
    assert deal["team_points"] == [-13, 13]
    assert state.match.scores == (7, 8, 7, 8)  # far below the target of 31
    assert BATAK.result(state).winners == (EAST, WEST)
    assert [event.data["type"] for event in events] == ["trick", "deal_result", "match_result"]
    assert events[-1].data == {"type": "match_result", "winners": [EAST, WEST], "scores": [7, 8, 7, 8]}
    assert BATAK.to_act(state) == ()


def test_a_bid_of_13_failed_scores_minus_13_and_defenders_with_one_trick_minus_13_too():
    # The literal reading: the defenders took only 1 trick, so they score minus the bid as well.
    deal, state, _ = finish_deal((0, 6, 0, 6), winner=SOUTH, declarer=EAST, contract=13)
    assert deal["team_tricks"] == [1, 12] and deal["made"] is False
    assert deal["team_points"] == [-13, -13]
    assert BATAK.result(state) is None


def test_deal_result_is_public_and_json_ready():
    deal, state, events = finish_deal((5, 1, 3, 3), winner=SOUTH, declarer=SOUTH, contract=9)
    assert deal == {
        "deal": 1,
        "declarer": SOUTH,
        "dummy": NORTH,
        "contract": 9,
        "trump": "H",
        "tricks": [6, 1, 3, 3],
        "team_tricks": [9, 4],
        "made": True,
        "sweep": None,
        "points": [9, 4, 9, 4],
        "team_points": [9, 4],
    }
    result = next(event for event in events if event.data["type"] == "deal_result")
    assert result.seen_by is None and result.data == {"type": "deal_result", **deal, "scores": [9, 4, 9, 4]}
    assert BATAK.view(state, EAST)["last_deal"] == deal


def test_partners_always_show_the_same_total():
    _, state, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(4, -9, 4, -9))
    assert BATAK.view(state, None)["scores"] == [13, -5, 13, -5]


# --- match -------------------------------------------------------------------------------------


def test_the_match_goes_on_to_another_deal_below_the_target():
    deal, state, events = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(10, 10, 10, 10))
    assert state.match.scores == (19, 14, 19, 14)
    assert BATAK.result(state) is None and state.match.deal_number == 2
    assert [len(hand) for hand in cards_held(state)] == [13] * 4
    assert state.declarer is None and state.trump is None and state.won == (0, 0, 0, 0)
    assert [event.data["type"] for event in events][:3] == ["trick", "deal_result", "deal"]
    assert BATAK.view(state, None)["last_trick"] is None  # its cards are in the new, concealed hands


def test_a_team_reaching_the_target_wins_and_both_its_seats_are_winners():
    deal, state, events = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(25, 10, 25, 10))
    assert state.match.scores == (34, 14, 34, 14)
    assert BATAK.result(state).winners == (SOUTH, NORTH)
    assert events[-1].data["type"] == "match_result"
    assert BATAK.view(state, SOUTH)["winners"] == [SOUTH, NORTH]


def test_when_both_teams_reach_the_target_the_higher_total_wins():
    deal, state, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(28, 30, 28, 30))  # +9 / +4
    assert state.match.scores == (37, 34, 37, 34)
    assert BATAK.result(state).winners == (SOUTH, NORTH)
    deal, state, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(20, 30, 20, 30))
    assert state.match.scores == (29, 34, 29, 34)
    assert BATAK.result(state).winners == (EAST, WEST)


def test_equal_totals_at_the_target_play_another_deal():
    deal, state, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(22, 27, 22, 27))  # +9 / +4
    assert state.match.scores == (31, 31, 31, 31)
    assert BATAK.result(state) is None and state.match.deal_number == 2


@pytest.mark.parametrize("target, wins", [(21, True), (51, False)])
def test_the_target_option_decides_when_the_match_ends(target, wins):
    _, state, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(12, 0, 12, 0), target=target)
    assert (BATAK.result(state) is not None) is wins


def test_no_move_after_the_match_is_over():
    _, state, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(25, 0, 25, 0))
    assert refusal(state, SOUTH, PASS).code == "game_over"
    view = BATAK.view(state, SOUTH)
    assert view["status"] == "finished" and view["turn"] is None and view["trick_number"] is None


# --- options -----------------------------------------------------------------------------------


def test_options_default_to_the_rule_book():
    assert options() == {"target": 31, "trump_lead_before_broken": False}


@pytest.mark.parametrize("target", [21, 31, 51])
def test_target_may_be_21_31_or_51(target):
    assert options(target=target)["target"] == target


@pytest.mark.parametrize(
    "code, value",
    [("target", 0), ("target", 30), ("target", 41), ("target", "31"), ("target", True), ("trump_lead_before_broken", 1)],
)
def test_bad_option_value_is_refused_naming_the_option_and_allowed_values(code, value):
    with pytest.raises(RuleError) as caught:
        options(**{code: value})
    error = caught.value
    assert (error.code, error.refusal) == ("invalid_option", Refusal.BAD_SETUP)
    assert error.details["option"] == code and code in error.message
    if code == "target":
        assert error.details["allowed"] == [21, 31, 51]


def test_unknown_option_is_refused_naming_the_known_ones():
    with pytest.raises(RuleError) as caught:
        options(no_trump=True)
    assert caught.value.code == "unknown_option"
    assert caught.value.details["allowed"] == ["target", "trump_lead_before_broken"]


def test_catalog_entry():
    entry = BATAK.describe()
    assert entry["id"] == "partnership-batak" and entry["seat_count"] == 4
    assert entry["seats"][1] == {"index": 1, "names": {"en": "East", "tr": "Doğu"}}
    target = next(option for option in entry["options"] if option["code"] == "target")
    assert target["default"] == 31 and target["allowed"] == [21, 31, 51]


# --- the table against the computer ------------------------------------------------------------


def test_the_standard_table_is_one_human_at_south():
    assert BATAK.standard_human_seats == (SOUTH,)


def test_an_empty_name_is_shown_as_sen_for_the_south_human_seat_only():
    assert BATAK.default_seat_name(SOUTH, human=True) == "Sen"
    assert BATAK.default_seat_name(SOUTH, human=False) is None
    assert BATAK.default_seat_name(NORTH, human=True) is None


# --- what a seat sees --------------------------------------------------------------------------


def test_view_has_exactly_the_documented_keys():
    view = BATAK.view(table("AS", "2S", "3S", "4S"), SOUTH)
    assert set(view) == {
        # every ruleset
        "seat", "status", "to_act", "legal_actions", "scores", "winners", "deal", "dealer", "last_deal",
        # Batak
        "hand", "hand_sizes", "teams", "auction", "declarer", "dummy", "contract", "role", "trump",
        "trump_broken", "open_hand", "turn", "trick_number", "trick", "last_trick", "tricks_won", "team_tricks",
    }  # fmt: skip


def test_view_during_the_auction():
    state, _ = calls(bidding(), bid(9))
    view = BATAK.view(state, EAST)
    assert view["hand"] == codes(sorted(cards_held(state)[EAST]))
    assert view["hand_sizes"] == [13, 13, 13, 13]
    assert view["legal_actions"] == [{"type": "bid", "value": v} for v in (10, 11, 12, 13)] + [{"type": "pass"}]
    unset = ("declarer", "dummy", "contract", "role", "trump", "open_hand", "turn", "trick_number", "trick", "last_trick")
    for key in unset:
        assert view[key] is None, key
    assert view["auction"]["high_bid"] == 9 and view["auction"]["open"] is True


def test_view_counts_each_teams_tricks_as_its_two_seats_tricks():
    view = BATAK.view(table("AS", "2S", "3S", "4S", won=(1, 2, 4, 5)), SOUTH)
    assert (view["tricks_won"], view["team_tricks"]) == ([1, 2, 4, 5], [5, 7])


def test_a_seat_sees_its_own_hand_and_never_a_defenders_or_the_concealed_dummys_cards():
    state, _ = calls(bidding(), bid(8), PASS, PASS, PASS)
    for seat in range(4):
        shown = card_codes_in(BATAK.view(state, seat))
        for other in range(4):
            if other != seat:
                assert not shown & set(codes(cards_held(state)[other])), (seat, other)


def test_spectator_view_has_no_hand_and_no_legal_actions():
    view = BATAK.view(table("AS", "2S", "3S", "4S"), None)
    assert view["hand"] is None and view["legal_actions"] == [] and view["seat"] is None
    assert view["to_act"] == [SOUTH]


def test_reveal_is_refused_until_the_match_is_over():
    with pytest.raises(RuleError):
        BATAK.reveal(bidding())


def test_reveal_gives_the_seed_and_each_deal_as_dealt_with_an_empty_stock_and_no_trump_card():
    state, _ = BATAK.new_game(options(), "reveal")
    dealt = [set(codes(hand)) for hand in cards_held(state)]
    state, _ = calls(state, *([bid(8)] + [PASS] * 3))
    state, _ = calls(state, trump("S"))
    while BATAK.result(state) is None and state.match.deal_number == 1:
        (seat,) = BATAK.to_act(state)
        state, _ = BATAK.apply(state, seat, BATAK.legal_actions(state, seat)[0])
    state = state._replace(match=state.match.finish((0, 2)))  # end the match here, in deal 2
    reveal = BATAK.reveal(state)
    assert reveal["seed"] == "reveal"
    first, second = reveal["deals"]
    assert first["dealer"] == BATAK.new_game(options(), "reveal")[0].match.dealer(4)
    assert second["dealer"] == (first["dealer"] + 1) % 4
    assert [set(hand) for hand in first["hands"]] == dealt
    assert [set(hand) for hand in second["hands"]] == [set(codes(hand)) for hand in cards_held(state)]
    for deal in reveal["deals"]:
        assert deal["stock"] == [] and deal["trump_card"] is None


# --- serialization -----------------------------------------------------------------------------


def test_state_serializes_and_loads_back_unchanged_in_every_phase():
    auction, _ = calls(bidding(), bid(9), PASS)
    naming = table("AS KS", "2S 3D", "QH JD", "4S 5D", declarer=EAST, contract=11, trump=None)
    playing = table(**DUMMYS_TURN, trump_broken=True, scores=(3, 8, 3, 8))
    all_passed = table("AS", "2S", "3S", "4S", declarer=WEST, contract=7, target=51)
    _, finished, _ = finish_deal((5, 1, 3, 3), winner=SOUTH, scores=(25, 0, 25, 0))
    thirteen = table("AS", "2S", "3S", "4S", declarer=NORTH, contract=13)
    for state in (auction, naming, playing, all_passed, finished, thirteen):
        assert BATAK.load(BATAK.dump(state)) == state


def test_a_client_holding_only_the_view_reads_back_what_the_seat_knows():
    """``koz bot`` parses the view it is sent (``BatakSeat.from_view``) into the knowledge the
    engine gives a computer seat: for every seat and a spectator, through a random deal and the next one's auction."""
    seen = set()
    for state, *_ in itertools.islice(random_playout(BATAK, {}, "read back", random.Random(2)), 64):
        for seat in (*range(BATAK.seat_count), None):
            known = BATAK.knowledge(state, seat)
            assert batak.BatakSeat.from_view(json.loads(json.dumps(BATAK.view(state, seat)))) == known
        facts = {"auction": known.trump is None and known.declarer is None, "open hand": known.open_hand is not None}
        facts |= {"last trick": known.last_trick is not None, "second deal": bool(known.auction.calls) and state.match.deal_number == 2}
        seen |= {fact for fact, holds in facts.items() if holds}
    assert seen == {"auction", "open hand", "last trick", "second deal"}
