"""German Whist, rule by rule (RULES.md, section German Whist). Hands are written as card codes."""

from __future__ import annotations


import json
import random

import pytest

from engine import Bid, Refusal, RuleError, german_whist, registry
from engine.cards import FULL_DECK, Suit, cards, codes
from engine.german_whist import DECK, NO_TRUMP, SUITS, GermanWhistState
from engine.actions import play
from engine.rules import Trick
from engine.ruleset import Match
from support import random_playout

WHIST = registry.get("german-whist")


def options(**given):
    return WHIST.parse_options(given)


def table(
    hand0: str,
    hand1: str,
    stock: str = "",
    *,
    leader: int = 0,
    trick: str = "",
    trump: str | None = "H",
    won=((0, 0), (0, 0)),
    scores=(0, 0),
    deal_number: int = 1,
    seed: str = "test",
    **option_values,
) -> GermanWhistState:
    """A German Whist state in the middle of a deal, written out as card codes."""
    match = Match.start(options(**option_values), seed, 2)._replace(scores=tuple(scores), deal_number=deal_number)
    return GermanWhistState(
        match=match,
        hands=(DECK.mask(cards(hand0)), DECK.mask(cards(hand1))),
        stock=tuple(DECK.number[card] for card in cards(stock)),
        trump=SUITS.index(Suit(trump)) if trump else NO_TRUMP,
        trick=Trick(leader, tuple(DECK.number[card] for card in cards(trick))),
        won=won,
        shown=(0, 0),
    )


def hands(state) -> tuple[frozenset, ...]:
    """Each seat's cards."""
    return tuple(frozenset(DECK.card_tuple(hand)) for hand in state.hands)


def stock_of(state) -> tuple:
    """The stock's cards in drawing order."""
    return tuple(DECK.cards[card] for card in state.stock)


def play_cards(state, *plays: str):
    """Play cards in turn order; returns the final state and all events."""
    events = []
    for code in plays:
        (seat,) = WHIST.to_act(state)
        state, new_events = WHIST.apply(state, seat, play(code))
        events.extend(new_events)
    return state, events


def refusal(state, seat, action) -> RuleError:
    with pytest.raises(RuleError) as caught:
        WHIST.apply(state, seat, action)
    return caught.value


# --- deal --------------------------------------------------------------------------------------


def test_deal_gives_13_cards_each_and_26_to_the_stock():
    state, _ = WHIST.new_game(options(), seed="deal")
    assert [len(hand) for hand in hands(state)] == [13, 13]
    assert len(stock_of(state)) == 26
    assert hands(state)[0] | hands(state)[1] | set(stock_of(state)) == set(FULL_DECK)


def test_top_stock_card_is_face_up_and_its_suit_is_trump():
    state, events = WHIST.new_game(options(), seed="trump")
    view = WHIST.view(state, 0)
    assert view["face_up"] == stock_of(state)[0].code
    assert view["trump"] == stock_of(state)[0].suit.value
    assert events[0].data["face_up"] == stock_of(state)[0].code


def test_non_dealer_leads_the_first_trick():
    for seed in map(str, range(20)):
        state, _ = WHIST.new_game(options(), seed=seed)
        dealer = state.match.dealer(2)
        assert WHIST.to_act(state) == (1 - dealer,)


def test_explicit_seed_deals_the_same_cards_every_time():
    first, _ = WHIST.new_game(options(), seed="same")
    again, _ = WHIST.new_game(options(), seed="same")
    other, _ = WHIST.new_game(options(), seed="other")
    assert first == again
    assert first.hands != other.hands


def test_first_dealer_is_drawn_from_the_seed():
    dealers = {WHIST.new_game(options(), seed=str(seed))[0].match.dealer(2) for seed in range(30)}
    assert dealers == {0, 1}


def test_the_deal_event_announces_the_trump_the_face_up_card_and_the_stock_size():
    state, events = WHIST.new_game(options(), seed="announce")
    face_up = stock_of(state)[0]
    assert events[0].data["trump"] == face_up.suit.value
    assert (events[0].data["face_up"], events[0].data["stock_size"]) == (face_up.code, 26)


def test_the_first_trick_is_shown_led_by_the_non_dealer_and_no_card_is_known_yet():
    for seed in ("a", "b", "c", "d"):
        state, _ = WHIST.new_game(options(), seed=seed)
        view = WHIST.view(state, None)
        assert view["trick"] == {"leader": 1 - state.match.dealer(2), "cards": [], "winner": None}
        assert view["known_cards"] == [[], []]


def test_each_deal_is_shuffled_anew_and_revealed_with_its_dealer():
    state = table("AS", "3S", deal_number=2, seed="two deals")
    first, second = WHIST.reveal(state, ended_early=True)["deals"]
    assert first["hands"] != second["hands"] and first["stock"] != second["stock"]
    assert {first["dealer"], second["dealer"]} == {0, 1}
    assert second["dealer"] == state.match.dealer(2)


# --- tricks ------------------------------------------------------------------------------------


def test_leader_may_play_any_card():
    state = table("AS 2H 3C", "KS 4D 5C", leader=0)
    assert codes(a.card for a in WHIST.legal_actions(state, 0)) == ["3C", "2H", "AS"]


def test_follower_must_follow_suit_when_able():
    state = table("AS 2H", "KS 4D 5S", leader=0, trick="")
    state, _ = play_cards(state, "AS")
    assert [a.card.code for a in WHIST.legal_actions(state, 1)] == ["5S", "KS"]
    error = refusal(state, 1, play("4D"))
    assert error.code == "must_follow_suit"
    assert error.refusal is Refusal.ILLEGAL
    assert set(error.legal_actions) == {play("5S"), play("KS")}


def test_refusals_name_the_card_not_in_hand_and_the_suit_led():
    state, _ = play_cards(table("2S 2H", "KS 4D 5S", leader=0), "2S")  # the lowest card of its suit: the suit is its number // 13
    assert refusal(state, 1, play("4D")).message == "you hold spades and must follow suit"
    assert refusal(state, 1, play("AH")).message == "Ace of Hearts is not in your hand"


def test_follower_void_in_the_led_suit_may_play_any_card():
    state = table("AS 2H", "4D 5C", leader=0)
    state, _ = play_cards(state, "AS")
    assert {a.card.code for a in WHIST.legal_actions(state, 1)} == {"4D", "5C"}


def test_highest_trump_wins_the_trick():
    state = table("AS 3D", "2H 4D", trump="H", won=((13, 0), (0, 0)))
    state, events = play_cards(state, "AS", "2H")
    assert events[0].data["winner"] == 1


def test_highest_card_of_the_suit_led_wins_without_trump():
    state = table("9S 3D", "KS 4D", trump="H", won=((13, 0), (0, 0)))
    state, events = play_cards(state, "9S", "KS")
    assert events[0].data["winner"] == 1


def test_card_of_another_suit_never_wins_without_trump():
    state = table("2S 3D", "AC 4D", trump="H", won=((13, 0), (0, 0)))
    state, events = play_cards(state, "2S", "AC")
    assert events[0].data["winner"] == 0


@pytest.mark.parametrize(
    "lead, reply, trump, leader_wins",
    [
        ("AS", "2H", "H", False),
        ("9S", "KS", "H", False),
        ("KS", "9S", "H", True),
        ("2S", "AC", "H", True),
        ("2H", "AH", None, False),
        ("2S", "AC", None, True),
    ],
)
def test_the_trick_winner_the_computer_players_reckon_is_the_rule_books(lead, reply, trump, leader_wins):
    """The highest trump wins, else the highest card of the suit led: as the engine's players
    reckon it (``leader_wins``, ``trick_winner``), whoever leads."""
    trump_suit = SUITS.index(Suit(trump)) if trump else NO_TRUMP
    lead_card, reply_card = (DECK.number[card] for card in cards(f"{lead} {reply}"))
    assert german_whist.leader_wins(lead_card, reply_card, trump_suit) is leader_wins
    for leader in (0, 1):
        assert german_whist.trick_winner(leader, lead_card, reply_card, trump_suit) == (leader if leader_wins else 1 - leader)


def test_winner_of_a_trick_leads_the_next():
    state = table("2S 3D", "AS 4D", trump="H", won=((13, 0), (0, 0)))
    state, _ = play_cards(state, "2S", "AS")
    assert WHIST.to_act(state) == (1,)


def test_refuses_a_card_not_in_hand():
    state = table("2S 3D", "AS 4D")
    assert refusal(state, 0, play("AS")).code == "card_not_in_hand"


def test_refuses_a_move_out_of_turn():
    state = table("2S 3D", "AS 4D", leader=0)
    error = refusal(state, 1, play("AS"))
    assert (error.code, error.refusal) == ("not_your_turn", Refusal.NOT_YOUR_TURN)


def test_refuses_an_action_that_is_not_a_card_play():
    state = table("2S 3D", "AS 4D")
    assert refusal(state, 0, Bid(8)).code == "illegal_action"


def test_a_trick_event_says_the_tricks_number_and_phase():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump="C", won=((2, 0), (9, 0)))
    _, events = play_cards(state, "AS", "3S")
    assert {key: events[0].data[key] for key in ("type", "number", "phase")} == {"type": "trick", "number": 12, "phase": 1}
    state = table("AS 2D", "3S 4D", trump="C", won=((7, 5), (6, 6)))
    _, events = play_cards(state, "AS", "3S")
    assert {key: events[0].data[key] for key in ("type", "number", "phase")} == {"type": "trick", "number": 25, "phase": 2}


# --- phase 1: drawing --------------------------------------------------------------------------


def test_phase_1_winner_takes_the_face_up_card_loser_draws_the_next_face_down():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump="C")
    state, events = play_cards(state, "AS", "3S")
    assert "KC" in codes(hands(state)[0]) and "7H" in codes(hands(state)[1])
    take, draw = (e for e in events if e.data["type"] in ("take", "draw"))
    assert take.data == {"type": "take", "seat": 0, "card": "KC"} and take.seen_by is None
    assert draw.data == {"type": "draw", "seat": 1, "card": "7H"}
    assert draw.for_viewer(1) == draw.data
    assert draw.for_viewer(0) == {"type": "draw", "seat": 1}
    assert draw.for_viewer(None) == {"type": "draw", "seat": 1}


def test_phase_1_the_loser_draws_face_down_whichever_seat_wins():
    state = table("2S 2D", "AS 4D", "KC 7H QD 8C", trump="C")
    state, events = play_cards(state, "2S", "AS")  # seat 1 wins: seat 0 draws
    assert "KC" in codes(hands(state)[1]) and "7H" in codes(hands(state)[0])
    (draw,) = (e for e in events if e.data["type"] == "draw")
    assert draw.data == {"type": "draw", "seat": 0, "card": "7H"}
    assert (draw.for_viewer(0), draw.for_viewer(1)) == (draw.data, {"type": "draw", "seat": 0})


def test_phase_1_next_stock_card_is_turned_face_up():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump="C")
    state, events = play_cards(state, "AS", "3S")
    assert WHIST.view(state, 1)["face_up"] == "QD"
    assert any(e.data == {"type": "turn_up", "card": "QD", "stock_size": 2} for e in events)


def test_the_decks_first_card_face_up_is_shown_like_any_other():
    # the two of clubs is the deck's card number 0
    for seat in (0, 1, None):
        assert WHIST.view(table("AS 2D", "3S 4D", "2C 7H", trump="C"), seat)["face_up"] == "2C"


def test_face_up_card_taken_is_known_to_both_until_played():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump="C")
    state, _ = play_cards(state, "AS", "3S")
    assert WHIST.view(state, 1)["known_cards"] == [["KC"], []]
    state, _ = play_cards(state, "KC", "4D")  # KC is played; seat 0 wins again and takes QD
    assert WHIST.view(state, 1)["known_cards"] == [["QD"], []]


def test_each_face_up_card_taken_is_known_in_the_hand_of_the_seat_that_took_it():
    state = table("QH 2D 6D", "KH 4D 5D", "AC 7S 9C 8S", trump="C")._replace(shown=(DECK.mask(cards("QH")), DECK.mask(cards("KH"))))
    state, _ = play_cards(state, "2D", "4D")  # seat 1 wins and takes AC
    assert WHIST.view(state, 0)["known_cards"] == [["QH"], ["AC", "KH"]]
    state, _ = play_cards(state, "5D", "6D")  # seat 0 wins and takes 9C
    assert WHIST.view(state, 0)["known_cards"] == [["9C", "QH"], ["AC", "KH"]]


@pytest.mark.parametrize("leader", [0, 1])
def test_a_known_card_stops_being_known_once_played_as_lead_or_reply(leader):
    known = (DECK.mask(cards("QC")), DECK.mask(cards("KC")))
    state = table("QC 3H", "KC 4H", trump="C", leader=leader, won=((13, 0), (0, 11)))._replace(shown=known)
    state, _ = play_cards(state, "QC" if leader == 0 else "KC")
    assert WHIST.view(state, None)["known_cards"] == ([[], ["KC"]] if leader == 0 else [["QC"], []])
    state, _ = play_cards(state, "KC" if leader == 0 else "QC")
    assert WHIST.view(state, None)["known_cards"] == [[], []]


def test_trick_13_loser_takes_the_last_stock_card_and_nothing_is_turned():
    state = table("AS", "3S", "KC 7H", trump="C", won=((6, 0), (6, 0)))
    state, events = play_cards(state, "AS", "3S")
    assert codes(hands(state)[0]) == ["KC"] and codes(hands(state)[1]) == ["7H"]
    assert not any(e.data["type"] == "turn_up" for e in events)
    assert WHIST.view(state, 0)["face_up"] is None and state.phase == 2


def test_phase_1_tricks_do_not_count_by_default():
    state = table("AS", "3S", trump="C", won=((12, 7), (1, 5)))
    state, events = play_cards(state, "AS", "3S")
    assert state.match.last_deal["tricks"] == [8, 5]


# --- phase 2 -----------------------------------------------------------------------------------


def test_phase_2_has_no_drawing_and_13_cards_each():
    state, _ = WHIST.new_game(options(), seed="phase2")
    while stock_of(state):
        (seat,) = WHIST.to_act(state)
        state, _ = WHIST.apply(state, seat, WHIST.legal_actions(state, seat)[0])
    assert [len(hand) for hand in hands(state)] == [13, 13]
    assert state.trick_number == 14
    (seat,) = WHIST.to_act(state)
    state, events = WHIST.apply(state, seat, WHIST.legal_actions(state, seat)[0])
    (seat,) = WHIST.to_act(state)
    state, events = WHIST.apply(state, seat, WHIST.legal_actions(state, seat)[0])
    assert [e.data["type"] for e in events] == ["trick"]
    assert sorted(len(hand) for hand in hands(state)) == [12, 12]


def test_deal_ends_after_trick_26():
    state = table("AS", "3S", trump="C", won=((7, 6), (6, 6)))
    assert state.trick_number == 26
    state, events = play_cards(state, "AS", "3S")
    assert [e.data["type"] for e in events] == ["trick", "deal_result", "match_result"]


# --- scoring -----------------------------------------------------------------------------------


def last_trick_to_seat_0(won, **option_values):
    """Finish a deal whose last trick seat 0 wins; returns the deal result and the state."""
    state = table("AS", "3S", trump="C", won=won, **option_values)
    state, _ = play_cards(state, "AS", "3S")
    return state.match.last_deal, state


def test_scoring_tricks_each_player_scores_the_phase_2_tricks_won():
    deal, state = last_trick_to_seat_0(((6, 7), (7, 5)))
    assert deal["tricks"] == [8, 5]
    assert deal["points"] == [8, 5]
    assert deal["winners"] == [0]


def test_scoring_over_six_only_the_winner_scores_tricks_above_six():
    deal, _ = last_trick_to_seat_0(((6, 7), (7, 5)), scoring="over-six")
    assert deal["points"] == [2, 0]
    assert deal["winners"] == [0]


def test_count_all_tricks_counts_phase_1_tricks_too():
    deal, _ = last_trick_to_seat_0(((8, 7), (5, 5)), count_all_tricks=True)
    assert deal["tricks"] == [16, 10]
    assert deal["points"] == [16, 10]


def test_count_all_tricks_13_to_13_is_a_tie():
    deal, state = last_trick_to_seat_0(((5, 7), (8, 5)), count_all_tricks=True)
    assert deal["tricks"] == [13, 13]
    assert deal["winners"] == []
    assert WHIST.result(state).winners == ()


def test_count_all_tricks_over_six_scores_tricks_above_13_and_a_tie_nothing():
    deal, _ = last_trick_to_seat_0(((8, 7), (5, 5)), count_all_tricks=True, scoring="over-six")
    assert deal["points"] == [3, 0]
    deal, _ = last_trick_to_seat_0(((5, 7), (8, 5)), count_all_tricks=True, scoring="over-six")
    assert deal["points"] == [0, 0]


def test_no_trump_has_no_trump_suit_and_the_suit_led_wins():
    state = table("2S 3D", "AC 4D", trump=None, won=((13, 0), (0, 0)), no_trump=True)
    state, events = play_cards(state, "2S", "AC")
    assert events[0].data["winner"] == 0
    assert WHIST.view(state, 0)["trump"] is None


def test_no_trump_option_deals_without_trump_but_still_turns_a_card_up():
    state, events = WHIST.new_game(options(no_trump=True), seed="nt")
    assert state.trump == NO_TRUMP and events[0].data["trump"] is None
    assert WHIST.view(state, 0)["face_up"] == stock_of(state)[0].code


def test_misere_fewer_tricks_win_and_tricks_scores_are_swapped():
    deal, _ = last_trick_to_seat_0(((6, 4), (7, 8)), misere=True)
    assert deal["tricks"] == [5, 8]
    assert deal["points"] == [8, 5]
    assert deal["winners"] == [0]


def test_misere_over_six_scores_are_swapped():
    deal, _ = last_trick_to_seat_0(((6, 4), (7, 8)), misere=True, scoring="over-six")
    assert deal["points"] == [2, 0]
    assert deal["winners"] == [0]


def test_a_deal_result_names_the_deal_and_the_tricks_won_in_each_phase():
    deal, _ = last_trick_to_seat_0(((6, 7), (7, 5)), deal_number=3, target=50)
    assert deal["deal"] == 3
    assert deal["tricks_by_phase"] == [[6, 8], [7, 5]]


# --- match -------------------------------------------------------------------------------------


def test_target_0_is_a_single_deal():
    deal, state = last_trick_to_seat_0(((6, 7), (7, 5)))
    assert WHIST.result(state).winners == (0,)
    assert WHIST.to_act(state) == ()


def test_target_plays_deals_until_a_total_reaches_it_and_the_deal_alternates():
    state = table("AS", "3S", trump="C", won=((6, 7), (7, 5)), target=20, scores=(5, 3))
    dealer = state.match.dealer(2)
    state, events = play_cards(state, "AS", "3S")
    assert WHIST.result(state) is None
    assert state.match.scores == (13, 8)
    assert state.match.deal_number == 2 and state.match.dealer(2) == 1 - dealer
    assert [len(hand) for hand in hands(state)] == [13, 13]
    assert WHIST.to_act(state) == (dealer,)
    assert [e.data["type"] for e in events][:4] == ["trick", "deal_result", "deal", "dealt"]
    assert state.last_trick is None  # the finished deal is summed up in last_deal


def test_target_reached_higher_total_wins():
    deal, state = last_trick_to_seat_0(((6, 7), (7, 5)), target=20, scores=(15, 14))
    assert WHIST.result(state).winners == (0,)
    assert WHIST.result(state).scores == (23, 19)


def test_a_deal_won_by_a_single_trick_is_won_by_either_seat():
    # phase-2 tricks count: 7 against 6
    assert german_whist.deal_scores(((6, 7), (7, 6)), options())[2] == [0]
    assert german_whist.deal_scores(((7, 6), (6, 7)), options())[2] == [1]


def test_target_reached_exactly_wins():
    deal, state = last_trick_to_seat_0(((6, 7), (7, 5)), target=20, scores=(12, 14))
    assert WHIST.result(state).scores == (20, 19)
    assert WHIST.result(state).winners == (0,)


def test_target_reached_by_both_the_higher_total_wins():
    deal, state = last_trick_to_seat_0(((6, 7), (7, 5)), target=20, scores=(12, 16))
    assert WHIST.result(state).scores == (20, 21)
    assert WHIST.result(state).winners == (1,)


def test_target_reached_with_equal_totals_plays_another_deal():
    deal, state = last_trick_to_seat_0(((6, 7), (7, 5)), target=20, scores=(12, 15))
    assert state.match.scores == (20, 20)
    assert WHIST.result(state) is None
    assert state.match.deal_number == 2


def test_no_move_after_the_match_is_over():
    _, state = last_trick_to_seat_0(((6, 7), (7, 5)))
    error = refusal(state, 0, play("AS"))
    assert error.code == "game_over"


# --- options -----------------------------------------------------------------------------------


def test_options_default_to_the_rule_book():
    assert options() == {
        "scoring": "tricks",
        "count_all_tricks": False,
        "no_trump": False,
        "misere": False,
        "target": 0,
    }


def test_unknown_option_is_refused_naming_the_known_ones():
    with pytest.raises(RuleError) as caught:
        WHIST.parse_options({"jokers": True})
    assert caught.value.code == "unknown_option"
    assert caught.value.details["option"] == "jokers"
    assert "scoring" in caught.value.details["allowed"]


@pytest.mark.parametrize(
    "code, value",
    [("scoring", "points"), ("count_all_tricks", "yes"), ("misere", 1), ("target", -1), ("target", True), ("target", 2.5)],
)
def test_bad_option_value_is_refused_naming_the_option_and_allowed_values(code, value):
    with pytest.raises(RuleError) as caught:
        WHIST.parse_options({code: value})
    error = caught.value
    assert (error.code, error.refusal) == ("invalid_option", Refusal.BAD_SETUP)
    assert error.details["option"] == code
    assert code in error.message and "allowed" in error.message


# --- what a seat sees --------------------------------------------------------------------------


def test_view_shows_own_hand_but_not_the_other_hand_or_the_face_down_stock():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump="C")
    view = WHIST.view(state, 0)
    assert view["hand"] == ["2D", "AS"]
    assert view["hand_sizes"] == [2, 2]
    assert view["face_up"] == "KC" and view["stock_size"] == 4
    shown = str(view)
    assert not any(code in shown for code in ("3S", "4D", "7H", "QD", "8C"))


def test_view_counts_each_hand_by_itself_and_says_phase_2_once_the_stock_is_gone():
    state, _ = play_cards(table("AS 2D 5H", "3S 4D", trump="C"), "AS")
    view = WHIST.view(state, None)
    assert view["hand_sizes"] == [2, 2] and view["phase"] == 2
    state = table("AS 2D 5H", "3S 4D", trump="C")
    assert WHIST.view(state, 1)["hand_sizes"] == [3, 2]


def test_spectator_view_has_no_hand_and_no_legal_actions():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump="C")
    view = WHIST.view(state, None)
    assert view["hand"] is None and view["legal_actions"] == [] and view["seat"] is None
    assert view["to_act"] == [0]


def test_view_lists_legal_actions_only_for_the_seat_to_act():
    state = table("AS 2D", "3S 4D", leader=0)
    assert WHIST.view(state, 0)["legal_actions"] == [{"type": "play", "card": "2D"}, {"type": "play", "card": "AS"}]
    assert WHIST.view(state, 1)["legal_actions"] == []


def test_the_view_shows_the_trick_the_last_trick_the_phase_and_the_tricks_won_in_each():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump="C", won=((3, 0), (2, 0)))
    state, _ = play_cards(state, "AS", "3S", "2D")
    view = WHIST.view(state, 1)
    assert (view["phase"], view["trick_number"]) == (1, 7)
    assert view["trick"] == {"leader": 0, "cards": [{"seat": 0, "card": "2D"}], "winner": None}
    assert view["last_trick"] == {"leader": 0, "cards": [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "3S"}], "winner": 0}
    assert (view["tricks_won"], view["tricks_by_phase"]) == ([4, 2], [[4, 0], [2, 0]])


def test_the_view_of_a_finished_match_has_no_trick_number():
    _, state = last_trick_to_seat_0(((6, 7), (7, 5)))
    assert WHIST.view(state, 0)["trick_number"] is None


def test_the_view_says_active_while_the_match_goes_on_and_finished_once_it_is_over_for_every_viewer():
    state = table("AS", "3S", trump="C", won=((6, 7), (7, 5)))
    assert [WHIST.view(state, seat)["status"] for seat in (0, 1, None)] == ["active"] * 3
    state, _ = play_cards(state, "AS", "3S")
    assert [WHIST.view(state, seat)["status"] for seat in (0, 1, None)] == ["finished"] * 3


def test_reveal_is_refused_until_the_match_is_over():
    state, _ = WHIST.new_game(options(), seed="reveal")
    with pytest.raises(RuleError):
        WHIST.reveal(state)


def test_reveal_gives_the_seed_and_each_deal_as_dealt_with_the_stock_in_drawing_order():
    state, events = WHIST.new_game(options(), seed="reveal")
    dealt = [set(hands(state)[0]), set(hands(state)[1])]
    stock = stock_of(state)
    taken_or_drawn = []
    while WHIST.result(state) is None:
        (seat,) = WHIST.to_act(state)
        state, events = WHIST.apply(state, seat, WHIST.legal_actions(state, seat)[0])
        taken_or_drawn += [e.data["card"] for e in events if e.data["type"] in ("take", "draw")]
    reveal = WHIST.reveal(state)
    assert reveal["seed"] == "reveal"
    (deal,) = reveal["deals"]
    assert [set(hand) for hand in deal["hands"]] == [set(codes(hand)) for hand in dealt]
    assert deal["stock"] == codes(stock) == taken_or_drawn
    assert deal["trump_card"] == stock[0].code


def test_state_serializes_and_loads_back_unchanged():
    state = table("AS", "3S 4D", "KC 7H QD 8C", trump="C", trick="2D", target=30, scores=(4, 9))
    assert WHIST.load(WHIST.dump(state)) == state


def test_state_without_trump_after_a_trick_serializes_and_loads_back_unchanged():
    state = table("AS 2D", "3S 4D", "KC 7H QD 8C", trump=None, no_trump=True)
    state, _ = play_cards(state, "AS", "3S")
    assert state.last_trick is not None and state.trump == NO_TRUMP
    assert WHIST.load(WHIST.dump(state)) == state


def test_a_client_holding_only_the_view_reads_back_what_the_seat_knows():
    """``koz bot`` parses the view it is sent (``GermanWhistSeat.from_view``) into the knowledge the
    engine gives a computer seat: for every seat and a spectator, at every step of random matches."""
    seen = set()
    for option_values in ({}, {"no_trump": True}):
        for state, *_ in random_playout(WHIST, {"target": 5, **option_values}, "read back", random.Random(2)):
            for seat in (*range(WHIST.seat_count), None):
                known = WHIST.knowledge(state, seat)
                assert german_whist.GermanWhistSeat.from_view(json.loads(json.dumps(WHIST.view(state, seat)))) == known
            facts = {"face up": known.face_up >= 0, "phase 2": known.face_up < 0 and known.trick_number is not None}
            facts |= {"last trick": known.last_trick is not None, "over": known.trick_number is None, "no trump": known.trump == NO_TRUMP}
            seen |= {fact for fact, holds in facts.items() if holds}
    assert seen == {"face up", "phase 2", "last trick", "over", "no trump"}
