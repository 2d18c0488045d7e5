"""Sixty-Six, rule by rule (RULES.md, section Sixty-Six). Hands are written as card codes.

Card points used below: A 11, 10 10, K 4, Q 3, J 2, 9 0. Trump is hearts unless a test says otherwise.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import pytest

from engine import Action, Bid, Close, Declare, Exchange, Marriage, Refusal, RuleError, registry
from engine import sixty_six as sixty_six_rules
from engine.cards import Card, Suit, cards, codes
from engine.actions import play
from engine.rules import Trick
from engine.ruleset import Match
from engine.sixty_six import DECK, SUITS, VARIANTS, Announcement, Closing, SixtySixSeat, SixtySixState, reply_wins
from sixty_six_tables import numbers, table
from support import card_codes_in, random_playout

GAME = registry.get("sixty-six")
DECLARE, CLOSE, EXCHANGE = Declare(), Close(), Exchange()


def options(**given):
    return GAME.parse_options(given)


@dataclass(frozen=True)
class Seen:
    """A state's cards as cards, for the tests to read."""

    hands: tuple[frozenset, ...]
    talon: tuple
    trump_card: Card | None
    trump: Suit
    won: tuple[frozenset, ...]
    trick_cards: tuple


def at(state: SixtySixState) -> Seen:
    return Seen(
        hands=tuple(frozenset(DECK.card_tuple(hand)) for hand in state.hands),
        talon=tuple(DECK.cards[card] for card in state.talon),
        trump_card=DECK.cards[state.trump_card] if state.trump_card is not None else None,
        trump=SUITS[state.trump],
        won=tuple(frozenset(DECK.card_tuple(cards)) for cards in state.won),
        trick_cards=tuple(DECK.cards[card] for card in state.trick.cards),
    )


def trick_winner(leader: int, lead: Card, reply: Card, trump: Suit) -> int:
    """The seat that wins a trick ``leader`` led with ``lead``, answered with ``reply``."""
    wins = reply_wins(DECK.number[lead], DECK.number[reply], SUITS.index(trump))
    return 1 - leader if wins else leader


def marriage(code: str, declare: bool = False) -> Action:
    return Marriage(Card.parse(code), declare)


def act(state, *moves):
    """Apply (seat, action) moves, a bare card code meaning the seat to act plays it."""
    events = []
    for move in moves:
        if isinstance(move, str):
            (seat,) = GAME.to_act(state)
            move = (seat, play(move))
        state, new_events = GAME.apply(state, *move)
        events.extend(new_events)
    return state, events


def refusal(state, seat, action) -> RuleError:
    with pytest.raises(RuleError) as caught:
        GAME.apply(state, seat, action)
    return caught.value


def legal(state, seat) -> list[dict]:
    return [action.to_json() for action in GAME.legal_actions(state, seat)]


def of_type(events, kind):
    return [event for event in events if event.data["type"] == kind]


def claim(won0: str, won1: str, *, claimant: int = 0, **table_values) -> dict:
    """The deal result after ``claimant``, on lead, claims 66 with these won cards."""
    state = table("JS", "QS", won=(won0, won1), leader=claimant, **table_values)
    state, _ = GAME.apply(state, claimant, DECLARE)
    return state.match.last_deal


def last_trick(won0: str, won1: str, lead: str = "AS", reply: str = "9S", **table_values) -> dict:
    """The deal result after the last trick, seat 0 leading ``lead`` and seat 1 replying."""
    state = table(lead, reply, won=(won0, won1), leader=0, **table_values)
    state, _ = act(state, lead, reply)
    return state.match.last_deal


WON_67 = "AS TS AH TH AD TD KC 9C"  # 67 points, 4 tricks
WON_33 = "AC TC KH QH JH QD"  # 33 points, 3 tricks
WON_32 = "AC TC KH QH JH JD"  # 32 points, 3 tricks


# --- deck and deal -----------------------------------------------------------------------------


def test_deck_is_24_cards_9_to_ace_and_schnapsen_drops_the_nines():
    assert len(DECK.card_tuple(VARIANTS["sixty-six"].cards)) == 24
    assert {card.code[0] for card in DECK.card_tuple(VARIANTS["sixty-six"].cards)} == set("9TJQKA")
    assert len(DECK.card_tuple(VARIANTS["schnapsen"].cards)) == 20
    assert {card.code[0] for card in DECK.card_tuple(VARIANTS["schnapsen"].cards)} == set("TJQKA")


def test_order_within_a_suit_is_ace_ten_king_queen_jack_nine():
    order = cards("9S JS QS KS TS AS")
    for low, high in zip(order, order[1:]):
        assert trick_winner(0, low, high, Suit.HEARTS) == 1
        assert trick_winner(0, high, low, Suit.HEARTS) == 0


@pytest.mark.parametrize("lead, reply", [("KS", "AS"), ("AS", "KS"), ("AS", "9H"), ("9H", "AS"), ("AS", "AD"), ("TH", "AH")])
def test_the_trick_winner_the_computer_players_reckon_is_the_rule_books(lead, reply):
    """``sixty_six.trick_winner``, which the computer players use, agrees with the rules'
    ``reply_wins`` whoever leads (hearts trump)."""
    lead_card, reply_card = numbers(f"{lead} {reply}")
    hearts = SUITS.index(Suit.HEARTS)
    for leader in (0, 1):
        expected = 1 - leader if reply_wins(lead_card, reply_card, hearts) else leader
        assert sixty_six_rules.trick_winner(leader, lead_card, reply_card, hearts) == expected


@pytest.mark.parametrize(
    "hand, lead, reply",
    [
        ("AS 9S", "KS", "AS"),  # following and winning
        ("9S QD", "KS", "9S"),  # following below the card led
        ("9H QD", "KS", "9H"),  # trumping
        ("QD 9C", "KS", "QD"),  # neither following nor trumping
        ("JH QD", "9H", "JH"),  # following a trump lead
        ("9H QD", "AH", "9H"),  # following below the highest trump
        ("QD 9C", "QS", "QD"),  # neither following nor trumping, the queen of spades led
        ("KH QD", "KS", "KH"),  # trumping with a trump whose number is not a multiple of 6
    ],
)
def test_a_reply_on_a_closed_talon_shows_exactly_the_cards_whose_holding_would_have_forbidden_it(hand, lead, reply):
    """``denied_by_reply``, what the computer players infer from a reply once the talon is closed or
    exhausted, is the rules' follower cards read backwards (hearts trump)."""
    held, (lead_card, reply_card) = DECK.mask(cards(hand)), numbers(f"{lead} {reply}")
    hearts = SUITS.index(Suit.HEARTS)
    assert sixty_six_rules.follower_cards(held, lead_card, hearts, False) >> reply_card & 1
    denied = sixty_six_rules.denied_by_reply(lead_card, reply_card, hearts)
    for other in DECK.card_tuple(VARIANTS["sixty-six"].cards):
        number = DECK.number[other]
        if held >> number & 1 or number == lead_card:
            continue
        forbidden = not sixty_six_rules.follower_cards(held | 1 << number, lead_card, hearts, False) >> reply_card & 1
        assert bool(denied >> number & 1) is forbidden, other.code


def test_card_points_total_120_in_the_deck():
    state = table("", "", won=("9S JS QS KS TS AS 9H JH QH KH TH AH", "9C JC QC KC TC AC 9D JD QD KD TD AD"))
    assert state.points(0) == 60 and state.points(1) == 60
    assert state.points(0) + state.points(1) == 120


def test_deal_gives_6_cards_each_and_the_trump_card_lies_under_an_11_card_talon():
    state, events = GAME.new_game(options(), seed="deal")
    assert [len(hand) for hand in at(state).hands] == [6, 6]
    assert len(at(state).talon) == 11 and at(state).trump_card is not None
    assert at(state).trump == at(state).trump_card.suit
    everything = at(state).hands[0] | at(state).hands[1] | set(at(state).talon) | {at(state).trump_card}
    assert everything == set(DECK.card_tuple(VARIANTS["sixty-six"].cards))
    deal = events[0].data
    assert deal == {
        "type": "deal",
        "deal": 1,
        "dealer": state.match.dealer(2),
        "trump": at(state).trump.value,
        "trump_card": at(state).trump_card.code,
        "talon_size": 11,
    }


def test_schnapsen_deals_5_cards_each_and_a_talon_of_9_plus_the_trump_card():
    state, _ = GAME.new_game(options(variant="schnapsen"), seed="deal")
    assert [len(hand) for hand in at(state).hands] == [5, 5]
    assert len(at(state).talon) == 9 and at(state).trump_card is not None
    assert not any(card.code[0] == "9" for card in at(state).hands[0] | at(state).hands[1] | set(at(state).talon))


def test_non_dealer_leads_first():
    for seed in map(str, range(20)):
        state, _ = GAME.new_game(options(), seed=seed)
        assert GAME.to_act(state) == (1 - state.match.dealer(2),)


def test_dealing_order_is_one_card_at_a_time_from_the_non_dealer_then_the_trump_card_then_the_talon():
    from engine.shuffle import shuffled_deck

    state, _ = GAME.new_game(options(), seed="order")
    dealer = state.match.dealer(2)
    shuffled = shuffled_deck("order", 1, DECK.card_tuple(VARIANTS["sixty-six"].cards))
    record = GAME.deal_record(state.match, 1, dealer)
    assert record.hands[1 - dealer] == tuple(shuffled[0:12:2])
    assert record.hands[dealer] == tuple(shuffled[1:12:2])
    assert record.trump_card == shuffled[12] == at(state).trump_card
    assert record.stock == tuple(shuffled[13:]) + (shuffled[12],)
    assert record.stock[:-1] == at(state).talon


def test_explicit_seed_deals_the_same_cards_every_time():
    first, _ = GAME.new_game(options(), seed="same")
    again, _ = GAME.new_game(options(), seed="same")
    other, _ = GAME.new_game(options(), seed="other")
    assert first == again and first.hands != other.hands


def test_each_player_sees_only_their_own_dealt_hand():
    state, events = GAME.new_game(options(), seed="hands")
    for seat, event in enumerate(of_type(events, "dealt")):
        assert event.for_viewer(seat)["hand"] == codes(sorted(at(state).hands[seat]))
        assert event.for_viewer(1 - seat) == {"type": "dealt", "seat": seat, "count": 6}
        assert event.for_viewer(None) == {"type": "dealt", "seat": seat, "count": 6}


@pytest.mark.parametrize("option_values", [{}, {"variant": "schnapsen"}])
def test_every_deal_gives_the_hands_as_recorded_trump_by_the_trump_cards_suit_the_non_dealer_on_lead_and_nothing_known(option_values):
    trump_cards = set()
    for deal_number in range(1, 7):
        match = Match.start(options(**option_values), "dealt", 2)._replace(deal_number=deal_number)
        dealer = match.dealer(2)
        state, events = GAME.deal(match)
        record = GAME.deal_record(match, deal_number, dealer)
        trump_card = DECK.number[record.trump_card]
        assert [DECK.card_tuple(hand) for hand in state.hands] == [tuple(sorted(hand)) for hand in record.hands]
        assert state.trick == Trick(1 - dealer) and GAME.to_act(state) == (1 - dealer,)
        assert state.trump_card == trump_card and at(state).trump == record.trump_card.suit
        assert events[0].data["trump"] == record.trump_card.suit.value and events[0].data["dealer"] == dealer
        assert state.shown == (0, 0)
        trump_cards.add(trump_card)
    # among them a card whose number divided by 7 is another suit than its own (checked: a shuffle may change)
    assert any(card // 6 != card // 7 for card in trump_cards)


@pytest.mark.parametrize("deal_number", [1, 2])
def test_without_a_talon_the_dealers_last_card_is_known_in_its_hand_and_nothing_else(deal_number):
    match = Match.start(options(no_talon=True), "deals", 2)._replace(deal_number=deal_number)
    dealer = match.dealer(2)
    state, _ = GAME.deal(match)
    trump_card = DECK.number[GAME.deal_record(match, deal_number, dealer).trump_card]
    assert state.shown == ((1 << trump_card, 0) if dealer == 0 else (0, 1 << trump_card))


# --- tricks ------------------------------------------------------------------------------------


def test_phase_1_follower_may_play_any_card():
    state = table("AS 9D QC", "KS 9C QD", "JC JD TD", trump_card="9H")
    state, _ = act(state, "AS")
    assert legal(state, 1) == [{"type": "play", "card": c} for c in ("9C", "QD", "KS")]


def test_higher_trump_wins_the_trick():
    assert trick_winner(0, *cards("TH AH"), Suit.HEARTS) == 1
    assert trick_winner(1, *cards("AH TH"), Suit.HEARTS) == 1


def test_a_trump_beats_any_card_of_another_suit():
    assert trick_winner(0, *cards("AS 9H"), Suit.HEARTS) == 1
    assert trick_winner(0, *cards("9H AS"), Suit.HEARTS) == 0


def test_without_trump_the_higher_card_of_the_suit_led_wins_and_another_suit_never_does():
    assert trick_winner(0, *cards("KS TS"), Suit.HEARTS) == 1
    assert trick_winner(0, *cards("9S AC"), Suit.HEARTS) == 0


def test_winner_of_a_trick_leads_the_next():
    state = table("9S QC", "AS QD", "JC JD TD", trump_card="9H")
    state, _ = act(state, "9S", "AS")
    assert GAME.to_act(state) == (1,)
    assert state.trick == Trick(1)


def test_refusals_on_a_closed_talon_name_the_suit_led_and_a_card_not_held_or_not_in_the_deck():
    state, _ = act(table("QS 9D", "AS JS 9S 9H"), "QS")  # the queen of spades: its suit is its number // 6
    assert refusal(state, 1, play("9S")).message == "you hold a higher spades card and must win the trick"
    assert refusal(state, 1, play("JS")).message == "you hold a higher spades card and must win the trick"
    assert refusal(state, 1, play("AD")).message == "Ace of Diamonds is not in your hand"
    assert refusal(state, 1, play("9H")).message == "you hold spades and must follow suit"
    assert refusal(state, 1, play("9C")).message == "9 of Clubs is not in your hand"
    assert refusal(state, 1, play("2S")).message == "2 of Spades is not in this game's deck"
    state, _ = act(table("QS 9D", "TC 9H 9C"), "QS")
    assert refusal(state, 1, play("9C")).message == "you cannot follow spades but hold trump, and must trump"
    state, _ = act(table("QS TD", "TC 9H", variant="schnapsen"), "QS")
    assert refusal(state, 1, play("9C")).message == "9 of Clubs is not in this game's deck"


def test_a_trick_event_says_the_tricks_number_and_phase():
    state = table("AS 9D", "KS 9C", "JC JD TD", trump_card="9H", won=("", "QC JC"))
    _, events = act(state, "AS", "KS")
    assert {key: events[0].data[key] for key in ("type", "number", "phase")} == {"type": "trick", "number": 2, "phase": 1}
    state = table("AS 9D", "KS 9C", "JD QD TD", trump_card="9H", won=("QC JC", "TC AC"), closing=(0, 21, 1))
    _, events = act(state, "AS", "KS")
    assert {key: events[0].data[key] for key in ("type", "number", "phase")} == {"type": "trick", "number": 3, "phase": 2}


# --- drawing -----------------------------------------------------------------------------------


def test_after_each_trick_the_winner_draws_the_top_talon_card_then_the_loser_the_next():
    state = table("AS 9D", "KS 9C", "JC JD TD", trump_card="9H")
    state, events = act(state, "AS", "KS")
    assert "JC" in codes(at(state).hands[0]) and "JD" in codes(at(state).hands[1])
    assert codes(at(state).talon) == ["TD"]
    first, second = of_type(events, "draw")
    assert first.data == {"type": "draw", "seat": 0, "card": "JC", "talon_size": 2}
    assert second.data == {"type": "draw", "seat": 1, "card": "JD", "talon_size": 1}


def test_drawn_cards_are_seen_by_the_drawer_only():
    state = table("AS 9D", "KS 9C", "JC JD TD", trump_card="9H")
    _, events = act(state, "AS", "KS")
    first, second = of_type(events, "draw")
    assert first.for_viewer(0)["card"] == "JC"
    assert first.for_viewer(1) == first.for_viewer(None) == {"type": "draw", "seat": 0, "talon_size": 2}
    assert second.for_viewer(1)["card"] == "JD"
    assert second.for_viewer(0) == {"type": "draw", "seat": 1, "talon_size": 1}


def test_with_one_face_down_card_left_the_winner_takes_it_and_the_loser_the_trump_card_in_view():
    state = table("AS 9D", "KS 9C", "TD", trump_card="9H")
    state, events = act(state, "9D", "9C")  # 9D led, 9C of another suit: seat 0 wins
    assert "TD" in codes(at(state).hands[0]) and "9H" in codes(at(state).hands[1])
    (take,) = of_type(events, "take")
    assert take.data == {"type": "take", "seat": 1, "card": "9H"} and take.seen_by is None
    assert of_type(events, "draw")[0].data["seat"] == 0
    view = GAME.view(state, 0)
    assert view["known_cards"] == [[], ["9H"]]
    assert view["trump_card"] is None and view["talon_size"] == 0 and view["phase"] == 2


@pytest.mark.parametrize(
    "hand0, hand1, shown, plays, known, loser",
    [
        ("AS 9D", "KS 9C QS", ("", "KS"), ("9D", "9C"), [[], ["9H", "KS"]], 1),  # seat 0 wins
        ("9D 9S", "AD KS", ("", "KS"), ("9D", "AD"), [["9H"], ["KS"]], 0),  # seat 1 wins
    ],
)
def test_the_loser_of_the_last_face_down_card_takes_the_trump_card_into_what_it_is_known_to_hold(hand0, hand1, shown, plays, known, loser):
    state, events = act(table(hand0, hand1, "TD", trump_card="9H", shown=shown), *plays)
    assert [event.data for event in events if event.data["type"] in ("draw", "take")] == [
        {"type": "draw", "seat": 1 - loser, "card": "TD", "talon_size": 0},
        {"type": "take", "seat": loser, "card": "9H"},
    ]
    assert GAME.view(state, None)["known_cards"] == known


def test_the_trump_card_taken_last_stays_known_until_played():
    state = table("AS 9D 9S", "KS 9C", "TD", trump_card="9H")
    state, _ = act(state, "9D", "9C")
    assert GAME.view(state, 0)["known_cards"][1] == ["9H"]
    state, _ = act(state, "TD", "9H")  # void in diamonds, seat 1 must trump
    assert GAME.view(state, 0)["known_cards"][1] == []


def test_no_one_draws_once_the_talon_is_exhausted():
    state = table("AS 9D", "KS 9C", trump="H")
    state, events = act(state, "AS", "KS")
    assert [event.data["type"] for event in events] == ["trick"]


# --- phase 2 -----------------------------------------------------------------------------------


def test_phase_2_follower_must_follow_suit_and_win_with_a_higher_card_if_able():
    state = table("QS 9D", "KS 9S TC 9H", leader=0)
    state, _ = act(state, "QS")
    assert legal(state, 1) == [{"type": "play", "card": "KS"}]
    assert refusal(state, 1, play("9S")).code == "must_win_trick"
    assert refusal(state, 1, play("TC")).code == "must_follow_suit"
    assert refusal(state, 1, play("9H")).code == "must_follow_suit"


def test_phase_2_follower_unable_to_win_plays_any_card_of_the_suit():
    state = table("AS 9D", "KS 9S 9H", leader=0)
    state, _ = act(state, "AS")
    assert legal(state, 1) == [{"type": "play", "card": "9S"}, {"type": "play", "card": "KS"}]


def test_phase_2_trump_led_must_be_followed_higher_if_able():
    state = table("QH 9D", "KH 9H AS", leader=0)
    state, _ = act(state, "QH")
    assert legal(state, 1) == [{"type": "play", "card": "KH"}]
    error = refusal(state, 1, play("9H"))
    assert error.code == "must_win_trick" and error.refusal is Refusal.ILLEGAL
    assert error.legal_actions == (play("KH"),)


def test_phase_2_follower_void_in_the_suit_led_must_trump_if_able():
    state = table("AD 9S", "TC 9H JH", leader=0)
    state, _ = act(state, "AD")
    assert legal(state, 1) == [{"type": "play", "card": "9H"}, {"type": "play", "card": "JH"}]
    assert refusal(state, 1, play("TC")).code == "must_trump"


def test_phase_2_follower_void_in_the_suit_led_and_in_trump_plays_any_card():
    state = table("AD 9S", "TC JS", leader=0)
    state, _ = act(state, "AD")
    assert legal(state, 1) == [{"type": "play", "card": "TC"}, {"type": "play", "card": "JS"}]


def test_refuses_a_card_not_in_hand():
    state = table("AD 9S", "TC JS", "9C JC TD", trump_card="9H")
    assert refusal(state, 0, play("TC")).code == "card_not_in_hand"


def test_refuses_a_move_out_of_turn_and_an_action_of_another_game():
    state = table("AD 9S", "TC JS", "9C JC TD", trump_card="9H")
    error = refusal(state, 1, play("TC"))
    assert (error.code, error.refusal) == ("not_your_turn", Refusal.NOT_YOUR_TURN)
    assert refusal(state, 0, Bid(8)).code == "illegal_action"


# --- exchanging the trump nine -----------------------------------------------------------------


def test_leader_who_won_a_trick_may_exchange_the_trump_nine_for_the_trump_card():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""))
    assert GAME.legal_actions(state, 0)[0] == EXCHANGE
    state, events = act(state, (0, EXCHANGE))
    assert codes(sorted(at(state).hands[0])) == ["KC", "AH", "AS"]
    assert at(state).trump_card == Card.parse("9H")
    assert [event.data for event in events] == [{"type": "exchange", "seat": 0, "gave": "9H", "took": "AH"}]
    assert events[0].seen_by is None
    view = GAME.view(state, 1)
    assert view["trump_card"] == "9H" and view["known_cards"] == [["AH"], []]


def test_after_an_exchange_the_same_seat_is_on_lead_with_its_remaining_options():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""))
    state, _ = act(state, (0, EXCHANGE))
    assert GAME.to_act(state) == (0,)
    assert [a["type"] for a in legal(state, 0)][:2] == ["close", "declare"]
    assert EXCHANGE not in GAME.legal_actions(state, 0)


def test_exchange_needs_a_trick_won_in_the_deal():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("", "9C 9D"))
    assert EXCHANGE not in GAME.legal_actions(state, 0)
    error = refusal(state, 0, EXCHANGE)
    assert error.code == "exchange_not_allowed" and "trick" in error.message


def test_exchange_needs_the_trump_nine():
    state = table("9S AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""))
    error = refusal(state, 0, EXCHANGE)
    assert error.code == "exchange_not_allowed" and error.params == {"wanted_card": "9H"}


def test_exchange_is_allowed_with_one_face_down_card_left():
    state = table("9H AS KC", "QS JS TC", "JC", trump_card="AH", won=("9C 9D", ""))
    assert EXCHANGE in GAME.legal_actions(state, 0)


def test_no_exchange_once_the_talon_is_closed():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""), closing=(0, 0, 0))
    assert EXCHANGE not in GAME.legal_actions(state, 0)
    assert refusal(state, 0, EXCHANGE).code == "talon_closed"


def test_no_exchange_once_the_talon_is_exhausted():
    state = table("9H AS KC", "QS JS TC", won=("9C 9D", ""))
    assert refusal(state, 0, EXCHANGE).code == "talon_exhausted"


def test_only_the_leader_may_exchange_and_only_before_leading():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", leader=1, won=("9C 9D", "JD QD"))
    state, _ = act(state, "QS")
    assert refusal(state, 0, EXCHANGE).code == "not_on_lead"


def test_trump_exchange_option_false_offers_no_exchange():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""), trump_exchange=False)
    assert EXCHANGE not in GAME.legal_actions(state, 0)
    assert refusal(state, 0, EXCHANGE).code == "exchange_not_allowed"


def test_schnapsen_exchange_is_made_with_the_trump_jack_and_needs_no_trick():
    state = table("JH AS KC", "QS JS TC", "JC QC TD", trump_card="AH", variant="schnapsen")
    state, events = act(state, (0, EXCHANGE))
    assert events[0].data == {"type": "exchange", "seat": 0, "gave": "JH", "took": "AH"}
    assert at(state).trump_card == Card.parse("JH")


def test_a_refused_exchange_says_which_condition_failed():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""), trump_exchange=False)
    assert refusal(state, 0, EXCHANGE).message == "this game is played without the trump exchange"
    state = table("9S AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""))
    assert refusal(state, 0, EXCHANGE).message == "you do not hold 9 of Hearts, the card exchanged for the trump card"
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("", "9C 9D"))
    assert refusal(state, 0, EXCHANGE).message == "you may exchange only after winning a trick in this deal"


@pytest.mark.parametrize(
    "talon_values, exchange, close, marriage",
    [
        (
            {"no_talon": True},
            "there is no talon: you may not exchange the trump card",
            "there is no talon: you may not close the talon",
            None,
        ),
        (
            {"talon": "JC QC TD", "trump_card": "AH", "closing": (1, 0, 0)},
            "the talon is closed: you may not exchange the trump card",
            "the talon is closed: you may not close the talon",
            "marriages may be announced only while the talon is open",
        ),
        (
            {},
            "the talon is exhausted: you may not exchange the trump card",
            "the talon is exhausted: you may not close the talon",
            "marriages may be announced only while the talon is open",
        ),
    ],
)
def test_a_move_the_talon_forbids_is_refused_saying_what_the_talon_is_and_the_move(talon_values, exchange, close, marriage):
    state = table("9H KS QS", "AC JC", won=("9C 9D", ""), **talon_values)
    assert refusal(state, 0, EXCHANGE).message == exchange
    assert refusal(state, 0, CLOSE).message == close
    if marriage is not None:
        assert refusal(state, 0, Marriage(Card.parse("KS"))).message == marriage


# --- closing the talon -------------------------------------------------------------------------


def test_closing_turns_the_trump_card_down_stops_drawing_and_records_the_opponents_position():
    # seat 1 won KD 9D (4) and announced the diamond marriage (20): 24 points, 1 trick
    state = table(
        "AS KC 9S", "QS JS QD", "JC QC TD", trump_card="AH", won=("9C JD", "KD 9D"),
        announced=((1, "KD"),), shown=("", "QD"),
    )
    state, events = act(state, (0, CLOSE))
    assert [event.data for event in events] == [{"type": "close", "seat": 0}]
    assert state.closing == Closing(0, 24, 1)
    view = GAME.view(state, 1)
    assert view["trump_card"] is None and view["talon_closed"] is True and view["closed_by"] == 0
    assert view["phase"] == 2 and view["talon_size"] == 3
    state, events = act(state, "AS")
    assert legal(state, 1) == [{"type": "play", "card": "JS"}, {"type": "play", "card": "QS"}]
    state, events = act(state, "JS")
    assert [event.data["type"] for event in events] == ["trick"]
    assert len(at(state).talon) == 3


def test_after_closing_the_same_seat_is_on_lead_and_may_still_declare_or_lead():
    state = table("AS KC 9S", "QS JS QD", "JC QC TD", trump_card="AH", won=("9C JD", ""))
    state, _ = act(state, (0, CLOSE))
    assert GAME.to_act(state) == (0,)
    assert [a["type"] for a in legal(state, 0)] == ["declare", "play", "play", "play"]


def test_exchange_then_close_then_lead_in_one_turn():
    state = table("9H AS KC", "QS JS TC", "JC QC TD", trump_card="AH", won=("9C 9D", ""))
    state, events = act(state, (0, EXCHANGE), (0, CLOSE), "AH")
    assert [event.data["type"] for event in events] == ["exchange", "close"]
    assert GAME.to_act(state) == (1,)


def test_the_talon_may_be_closed_at_the_first_lead():
    state = table("AS KC 9S", "QS JS QD", "JC QC TD", trump_card="AH")
    assert legal(state, 0)[0] == {"type": "close"}


def test_the_talon_may_be_closed_with_one_face_down_card_left():
    state = table("AS KC 9S", "QS JS QD", "JC", trump_card="AH")
    assert CLOSE in GAME.legal_actions(state, 0)


def test_no_closing_once_closed_or_exhausted_or_by_the_follower():
    closed = table("AS KC", "QS JS", "JC QC TD", trump_card="AH", closing=(1, 0, 0))
    assert refusal(closed, 0, CLOSE).code == "talon_closed"
    exhausted = table("AS KC", "QS JS")
    assert refusal(exhausted, 0, CLOSE).code == "talon_exhausted"
    following = table("AS KC", "QS JS", "JC QC TD", trump_card="AH", leader=1, trick="QS")
    assert refusal(following, 0, CLOSE).code == "not_on_lead"


# --- marriages ---------------------------------------------------------------------------------


def test_marriage_is_announced_while_leading_its_king_or_queen_and_both_cards_are_shown():
    state = table("KS QS 9D", "AC JC TC", "JD QD TD", trump_card="AH")
    assert [a for a in legal(state, 0) if a["type"] == "marriage"] == [
        {"type": "marriage", "card": "QS"},
        {"type": "marriage", "card": "KS"},
    ]
    state, events = act(state, (0, marriage("KS")))
    assert [event.data for event in events] == [
        {"type": "marriage", "seat": 0, "suit": "S", "value": 20, "pair": ["KS", "QS"], "card": "KS"}
    ]
    assert at(state).trick_cards == cards("KS") and "QS" in codes(at(state).hands[0])
    view = GAME.view(state, 1)
    assert view["known_cards"] == [["QS"], []]
    assert view["marriages"] == [{"seat": 0, "suit": "S", "points": 20, "pair": ["KS", "QS"], "pending": True}]


def test_trump_marriage_scores_40_and_another_20():
    state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH")
    _, events = act(state, (0, marriage("QH")))
    assert events[0].data["value"] == 40


def test_the_partner_card_stays_known_until_played():
    state = table("KS QS 9D", "AC JC TC", "JD QD TD", trump_card="AH")
    state, _ = act(state, (0, marriage("QS")), (1, play("AC")))  # QS wins; seat 0 draws JD, seat 1 QD
    assert GAME.view(state, 1)["known_cards"][0] == ["KS"]
    state, _ = act(state, "KS", "JC")
    assert GAME.view(state, 1)["known_cards"][0] == []


def test_marriage_points_are_pending_until_the_announcer_wins_a_trick():
    state = table("KS QS 9D", "AC JC TC", "JD QD TD", trump_card="AH", open_scores=True)
    state, _ = act(state, (0, marriage("KS")))
    view = GAME.view(state, 0)
    assert view["pending_marriage"] == [True, False] and view["points"] == [0, 0]
    state, _ = act(state, (1, play("JC")))  # KS wins the trick
    view = GAME.view(state, 0)
    assert view["pending_marriage"] == [False, False]
    assert view["marriages"][0]["pending"] is False
    assert view["points"] == [4 + 2 + 20, 0]


def test_marriage_points_are_lost_if_the_announcer_never_wins_a_trick():
    # seat 0 announced hearts, then lost every trick; the last trick goes to seat 1
    result = last_trick("", "AD TD KH 9C", lead="9S", reply="AS", announced=((0, "QH"),))
    assert result["points"] == [0, 11 + 10 + 4 + 11]
    assert result["marriage_points"] == [0, 0]


def test_no_marriage_after_closing_in_sixty_six():
    state = table("KS QS 9D", "AC JC TC", "JD QD TD", trump_card="AH", closing=(1, 0, 0))
    assert not [a for a in legal(state, 0) if a["type"] == "marriage"]
    assert refusal(state, 0, marriage("KS")).code == "talon_closed"


def test_no_marriage_after_the_talon_is_exhausted_in_sixty_six():
    state = table("KS QS 9D", "AC JC TC")
    assert refusal(state, 0, marriage("KS")).code == "talon_exhausted"


def test_schnapsen_marriages_may_be_announced_after_closing_or_exhaustion():
    closed = table("KS QS JD", "AC JC TC", "QD TD AD", trump_card="AH", closing=(1, 0, 0), variant="schnapsen")
    assert marriage("KS") in GAME.legal_actions(closed, 0)
    exhausted = table("KS QS JD", "AC JC TC", variant="schnapsen")
    assert marriage("QS") in GAME.legal_actions(exhausted, 0)


@pytest.mark.parametrize("variant", ["sixty-six", "schnapsen"])
def test_no_talon_marriages_may_be_announced_when_leading_in_either_variant(variant):
    state = table("KS QS JD", "AC JC TC", no_talon=True, variant=variant)
    assert marriage("KS") in GAME.legal_actions(state, 0)


def test_marriages_option_false_plays_without_marriages():
    state = table("KS QS 9D", "AC JC TC", "JD QD TD", trump_card="AH", marriages=False)
    assert not [a for a in legal(state, 0) if a["type"] == "marriage"]
    assert refusal(state, 0, marriage("KS")).code == "marriages_disabled"


def test_marriage_needs_both_the_king_and_the_queen_in_hand():
    state = table("KS 9S 9D", "AC JC QS", "JD QD TD", trump_card="AH")
    assert refusal(state, 0, marriage("KS")).code == "marriage_not_held"
    assert refusal(state, 0, marriage("AC")).code == "not_a_marriage_card"


def test_only_the_leader_announces_a_marriage():
    state = table("KS QS 9D", "JC TC 9C", "JD QD TD", trump_card="AH", leader=1, trick="AC")
    assert refusal(state, 0, marriage("KS")).code == "not_on_lead"


# --- declaring 66 ------------------------------------------------------------------------------


def test_declare_is_offered_on_lead_after_winning_the_last_trick():
    state = table("9D", "JD", won=("AS 9S", ""))
    assert {"type": "declare"} in legal(state, 0)


def test_declare_is_not_allowed_at_the_first_lead_of_a_deal():
    state = table("KS QS 9D", "AC JC TC", "JD QD TD", trump_card="AH")
    assert {"type": "declare"} not in legal(state, 0)
    assert refusal(state, 0, DECLARE).code == "declare_not_allowed"


def test_declare_is_not_allowed_in_reply():
    state = table("9D JS", "TD", won=("", "AS 9S"), leader=1, trick="JD")
    assert refusal(state, 0, DECLARE).code == "declare_not_allowed"


def test_declare_is_offered_by_timing_not_by_points_and_a_false_claim_loses():
    state = table("9D", "JD", won=("9S JS", ""))  # 2 points
    state, events = act(state, (0, DECLARE))
    assert events[0].data == {"type": "declare", "seat": 0}
    assert state.match.last_deal["reason"] == "false_claim"


def test_a_marriage_may_claim_66_beside_the_plain_marriage_once_the_announcer_has_won_a_trick():
    state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=("AS TS", ""))
    assert [a for a in legal(state, 0) if a["type"] == "marriage"] == [
        {"type": "marriage", "card": "QH"},
        {"type": "marriage", "card": "QH", "declare": True},
        {"type": "marriage", "card": "KH"},
        {"type": "marriage", "card": "KH", "declare": True},
    ]


def test_a_marriage_may_not_claim_66_before_the_announcer_has_won_a_trick():
    # seat 0 leads first, or the opponent won every trick so far
    for won in (("", ""), ("", "AS TS")):
        state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=won)
        assert marriage("KH") in GAME.legal_actions(state, 0)
        assert marriage("KH", declare=True) not in GAME.legal_actions(state, 0)
        assert refusal(state, 0, marriage("KH", declare=True)).code == "declare_not_allowed"


def without_marriage_claims(state: SixtySixState) -> SixtySixState:
    """The state under VU's Schnapsen rule that ``bench/bots.py --peer`` sets (no client can)."""
    return state._replace(match=state.match._replace(options={**state.match.options, "marriage_claims": False}))


def test_where_the_rules_have_no_claim_with_a_marriage_it_is_announced_alone_and_its_points_wait_for_a_trick():
    # 32 card points and the trump marriage 40: 72, a claim anywhere else (see the test above)
    state = without_marriage_claims(table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=("AS TS AD 9C", "9S QS")))
    assert [a for a in legal(state, 0) if a["type"] == "marriage"] == [{"type": "marriage", "card": "QH"}, {"type": "marriage", "card": "KH"}]
    refused = refusal(state, 0, marriage("KH", declare=True))
    assert refused.code == "declare_not_allowed" and "next trick" in refused.message
    state, events = act(state, (0, marriage("KH")))
    assert [event.data["type"] for event in events] == ["marriage"] and GAME.to_act(state) == (1,)


def test_a_marriage_claiming_66_is_refused_for_the_marriages_own_reasons_first():
    state = table("KS 9S 9D", "AC JC QS", "JD QD TD", trump_card="AH", won=("AH TH", ""))
    assert refusal(state, 0, marriage("KS", declare=True)).code == "marriage_not_held"


def test_a_marriage_not_held_is_told_its_suit():
    state = table("KS 9S 9D", "AC JC QS", "JD QD TD", trump_card="AH", won=("AH TH", ""))
    assert refusal(state, 0, marriage("KS")).message == "you do not hold both the king and the queen of spades"


def test_a_marriage_with_the_claim_counts_at_once_no_card_is_led_and_the_deal_ends():
    # 32 card points and the trump marriage 40: 72; seat 1 has 3 points and a trick
    state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=("AS TS AD 9C", "9S QS"))
    state, events = act(state, (0, marriage("KH", declare=True)))
    assert [event.data["type"] for event in events][:3] == ["marriage", "declare", "deal_result"]
    assert events[0].data == {"type": "marriage", "seat": 0, "suit": "H", "value": 40, "pair": ["KH", "QH"], "card": "KH"}
    result = of_type(events, "deal_result")[0].data
    assert result["points"] == [72, 3] and result["marriage_points"] == [40, 0]
    assert result["reason"] == "claim" and result["claimed_by"] == 0 and result["deemed_claim"] is False
    assert result["winners"] == [0] and result["game_points"] == [2, 0]
    assert state.match.deal_number == 2  # the next deal is dealt


def test_a_marriage_event_names_its_suit_value_and_pair_and_with_the_claim_the_claimant():
    state = table("9H KS QS AC", "AD JD TC", "JS QD TD", trump_card="AH", won=("AS TS", ""))
    _, events = act(state, (0, marriage("QS")))
    assert events[0].data == {"type": "marriage", "seat": 0, "suit": "S", "value": 20, "pair": ["KS", "QS"], "card": "QS"}
    state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=("AS TS AD 9C", "9S QS"))
    _, events = act(state, (0, marriage("QH", declare=True)))
    assert [event.data for event in events[:2]] == [
        {"type": "marriage", "seat": 0, "suit": "H", "value": 40, "pair": ["KH", "QH"], "card": "QH"},
        {"type": "declare", "seat": 0},
    ]


def test_what_a_seat_is_known_to_hold_adds_up_the_trump_card_taken_and_each_marriage_shown():
    state = table("9H KS QS AC JC", "AD JD TC", "JS QD TD", trump_card="AH", won=("AS TS", ""), shown=("JC", ""))
    state, _ = act(state, (0, EXCHANGE))
    assert GAME.view(state, 1)["known_cards"] == [["JC", "AH"], []]
    state, _ = act(state, (0, marriage("QS")))  # QS is led: KS stays known
    assert GAME.view(state, 1)["known_cards"] == [["JC", "AH", "KS"], []]


def test_a_marriage_with_the_claim_leaves_both_its_cards_known_in_hand():
    state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=("AS TS AD 9C", "9S QS"), scores=(6, 0))
    state, _ = act(state, (0, marriage("QH", declare=True)))
    assert GAME.result(state) is not None  # the match is over: the deal's last state is the one shown
    assert GAME.view(state, 1)["known_cards"] == [["QH", "KH"], []]


def test_a_false_claim_with_a_marriage_loses_the_deal():
    # 21 from AS TS plus the trump marriage 40 = 61
    state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=("AS TS", "9S JS"))
    state, _ = act(state, (0, marriage("KH", declare=True)))
    result = state.match.last_deal
    assert result["points"] == [61, 2] and result["reason"] == "false_claim"
    assert result["winners"] == [1] and result["game_points"] == [0, 2]


def test_after_a_marriage_without_the_claim_the_opponent_plays_as_after_any_lead():
    state = table("KH QH 9D", "AC JC TC", "JD QD TD", trump_card="AH", won=("AS TS AD 9C", "9S QS"))
    state, _ = act(state, (0, marriage("KH")))
    assert GAME.to_act(state) == (1,)
    assert legal(state, 0) == [] and GAME.view(state, 0)["legal_actions"] == []
    assert legal(state, 1) == [{"type": "play", "card": c} for c in ("TC", "JC", "AC")]
    assert refusal(state, 0, DECLARE).code == "not_your_turn"
    assert refusal(state, 1, DECLARE).code == "declare_not_allowed"


def test_points_are_counted_at_the_moment_of_the_claim():
    result = claim(WON_67, WON_33, announced=((0, "KD"),))
    assert result["points"] == [67 + 20, 33]
    assert result["marriage_points"] == [20, 0]


def test_a_refused_claim_says_which_condition_failed():
    state, _ = act(table("AS KC", "QS JS", won=("9C 9D", "")), "AS")
    assert refusal(state, 1, DECLARE).message == "you may claim 66 only when on lead, not in reply"
    assert refusal(table("AS KC", "QS JS"), 0, DECLARE).message == "you may not claim 66 at the first lead of a deal"
    state = table("KS QS", "AC JC", "JC QC TD", trump_card="AH", won=("", "9C 9D"))
    assert refusal(state, 0, Marriage(Card.parse("KS"), declare=True)).message == (
        "you may claim 66 with a marriage only once you have won a trick in this deal"
    )


def test_a_deal_result_names_the_deal_it_ends():
    assert claim(WON_67, WON_33, deal_number=3)["deal"] == 3


# --- scoring a claim ---------------------------------------------------------------------------


def test_correct_claim_scores_1_when_the_loser_has_33_or_more():
    result = claim(WON_67, WON_33)
    assert result["winners"] == [0] and result["game_points"] == [1, 0]
    assert result["reason"] == "claim" and result["claimed_by"] == 0 and result["deemed_claim"] is False
    assert result["points"] == [67, 33] and result["tricks"] == [4, 3]


def test_correct_claim_scores_2_when_the_loser_won_a_trick_but_has_under_33():
    assert claim(WON_67, WON_32)["game_points"] == [2, 0]


def test_correct_claim_scores_3_when_the_loser_won_no_trick():
    assert claim(WON_67, "")["game_points"] == [3, 0]


def test_the_losers_points_include_their_counted_marriages():
    # 21 card points and a 20 marriage: 41, so only 1 game point
    assert claim(WON_67, "AC TC", announced=((1, "KS"),))["game_points"] == [1, 0]


def test_false_claim_gives_the_opponent_2_even_without_a_trick():
    result = claim("AS TS", "")
    assert result["winners"] == [1] and result["game_points"] == [0, 2] and result["reason"] == "false_claim"


def test_schnapsen_false_claim_gives_the_opponent_2_or_3_if_the_opponent_won_no_trick():
    assert claim("AS TS", "", variant="schnapsen")["game_points"] == [0, 3]
    assert claim("AS TS", "AC JC", variant="schnapsen")["game_points"] == [0, 2]


# --- scoring with a closed talon ---------------------------------------------------------------


def test_closer_claiming_correctly_scores_from_the_opponents_position_at_the_end():
    # at closing seat 1 had 10 points and 1 trick; now 33 points
    result = claim(WON_67, WON_33, closing=(0, 10, 1))
    assert result["game_points"] == [1, 0]
    assert result["closed_by"] == 0 and result["at_close"] == {"points": 10, "tricks": 1}


def test_schnapsen_successful_close_counts_the_losers_points_and_tricks_at_closing():
    assert claim(WON_67, WON_33, closing=(0, 10, 1), variant="schnapsen")["game_points"] == [2, 0]
    assert claim(WON_67, WON_33, closing=(0, 0, 0), variant="schnapsen")["game_points"] == [3, 0]


@pytest.mark.parametrize("variant", ["sixty-six", "schnapsen"])
def test_closer_false_claim_gives_the_opponent_2_or_3_if_no_trick_at_closing(variant):
    assert claim("AS TS", WON_33, closing=(0, 10, 1), variant=variant)["game_points"] == [0, 2]
    result = claim("AS TS", WON_33, closing=(0, 0, 0), variant=variant)
    assert result["game_points"] == [0, 3] and result["reason"] == "false_claim"


def test_the_closers_opponent_claiming_correctly_first_scores_2():
    result = claim(WON_33, WON_67, claimant=1, closing=(0, 0, 0))
    assert result["winners"] == [1] and result["game_points"] == [0, 2] and result["reason"] == "claim"


def test_schnapsen_the_closers_opponent_claiming_first_scores_3_if_no_trick_at_closing():
    assert claim(WON_33, WON_67, claimant=1, closing=(0, 0, 0), variant="schnapsen")["game_points"] == [0, 3]
    assert claim(WON_33, WON_67, claimant=1, closing=(0, 5, 1), variant="schnapsen")["game_points"] == [0, 2]


@pytest.mark.parametrize("variant", ["sixty-six", "schnapsen"])
def test_the_closers_opponent_claiming_falsely_loses_as_any_false_claim(variant):
    result = claim(WON_33, "AS TS", claimant=1, closing=(0, 0, 0), variant=variant)
    assert result["winners"] == [0] and result["game_points"] == [2, 0] and result["reason"] == "false_claim"
    # Schnapsen's false claim: 3 when the claimant's opponent (here the closer) won no trick
    expected = [3, 0] if variant == "schnapsen" else [2, 0]
    assert claim("", "AS TS", claimant=1, closing=(0, 0, 0), variant=variant)["game_points"] == expected


@pytest.mark.parametrize("variant", ["sixty-six", "schnapsen"])
def test_closed_talon_played_out_without_the_closer_reaching_66_gives_the_opponent_2_or_3(variant):
    # the closer (seat 0) wins the last trick but stays under 66
    result = last_trick("TS AH", WON_32, closing=(0, 10, 1), variant=variant)
    assert (result["winners"], result["game_points"], result["reason"]) == ([1], [0, 2], "closer_failed")
    result = last_trick("TS AH", WON_32, closing=(0, 0, 0), variant=variant)
    assert result["game_points"] == [0, 3]


@pytest.mark.parametrize("variant, expected", [("sixty-six", [1, 0]), ("schnapsen", [2, 0])])
def test_closed_talon_last_trick_winner_with_66_is_the_closer_claiming(variant, expected):
    # 56 + AS JS 13 = 69; the opponent has 33 now but had 10 and a trick at closing
    result = last_trick("TS AH TH AD TD KC", WON_33, reply="JS", closing=(0, 10, 1), variant=variant)
    assert result["reason"] == "claim" and result["deemed_claim"] is True and result["game_points"] == expected


@pytest.mark.parametrize("variant, expected", [("sixty-six", [0, 2]), ("schnapsen", [0, 3])])
def test_closed_talon_last_trick_won_by_the_opponent_with_66_is_the_opponent_claiming_first(variant, expected):
    # the opponent had won no trick at closing
    result = last_trick(WON_32, "TS AH TH AD TD KC", lead="JS", reply="AS", closing=(0, 0, 0), variant=variant)
    assert result["winners"] == [1] and result["game_points"] == expected and result["deemed_claim"] is True


@pytest.mark.parametrize(
    "variant, closing, expected",
    [("sixty-six", (0, 10, 1), [1, 0]), ("schnapsen", (0, 10, 1), [2, 0]), ("schnapsen", (0, 0, 0), [3, 0])],
)
def test_closed_talon_played_out_the_closer_with_66_wins_as_for_a_correct_claim(variant, closing, expected):
    # the closer (seat 0) has 67 and loses the last trick; the opponent ends with 32 + 6 = 38
    result = last_trick(WON_67, WON_32, lead="JS", reply="KS", closing=closing, variant=variant)
    assert result["points"] == [67, 38] and result["winners"] == [0] and result["game_points"] == expected
    assert result["reason"] == "claim" and result["claimed_by"] == 0 and result["deemed_claim"] is True


def test_closed_talon_the_closer_with_66_is_decided_before_the_last_trick_winners_claim():
    # the opponent wins the last trick with 26 + 6 card points and its trump marriage 40: 72
    result = last_trick(WON_67, "AC TC JC QC", lead="JS", reply="KS", closing=(0, 0, 0), announced=((1, "QH"),))
    assert result["points"] == [67, 72] and result["claimed_by"] == 0
    assert result["winners"] == [0] and result["game_points"] == [1, 0]


def test_closed_talon_a_closer_with_exactly_66_when_the_opponent_wins_the_last_trick_wins_as_for_a_claim():
    # 66 exactly from the won cards; the opponent takes the last trick with AS and has 15
    result = last_trick("TS AH TH AD TD AC QC 9C", "KD 9D", lead="9S", reply="AS", closing=(0, 4, 1))
    assert (result["points"], result["reason"], result["claimed_by"], result["deemed_claim"]) == ([66, 15], "claim", 0, True)
    assert result["winners"] == [0] and result["game_points"] == [2, 0]


def test_closed_talon_gives_no_last_trick_ten():
    result = last_trick("TS AH", WON_32, closing=(0, 10, 1), exhausted_talon="last-trick-ten")
    assert result["points"][0] == 10 + 11 + 11 and result["last_trick_ten"] is None


def test_last_trick_ten_goes_to_the_second_seat_when_it_wins_the_last_trick():
    # 25 against 16 before the ten: the ten makes seat 1 the one with more points
    result = last_trick("AS TS KD 9D", "QC JC", lead="9S", reply="AS", exhausted_talon="last-trick-ten")
    assert (result["last_trick_ten"], result["points"], result["reason"], result["winners"]) == (1, [25, 26], "more_points", [1])


def test_closed_talon_played_out_without_the_second_seat_closing_reaching_66_gives_the_first_the_deal():
    result = last_trick("KD 9D", "TS AH", closing=(1, 4, 1))
    assert (result["winners"], result["game_points"], result["reason"]) == ([0], [2, 0], "closer_failed")


# --- the last trick ----------------------------------------------------------------------------

# the 22 cards other than AS and 9S, split as the last trick finds them (seat 0 then wins AS 9S)
WINNER_44 = "AH TH KH QH JH 9H TS KS"  # 44 points, 4 tricks: 55 after the last trick
OTHER_65 = "QS JS AD TD KD QD JD 9D AC TC KC QC JC 9C"  # 65 points, 7 tricks


def test_the_winner_of_the_last_trick_with_66_is_deemed_to_claim():
    result = last_trick(WON_67, "", lead="QS", reply="JS")  # 67 + 5
    assert result["reason"] == "claim" and result["deemed_claim"] is True and result["claimed_by"] == 0
    assert result["game_points"] == [3, 0]


def test_exhausted_talon_last_trick_winner_under_66_wins_the_deal_and_scores_1():
    result = last_trick(WINNER_44, OTHER_65)
    assert result["points"] == [55, 65]
    assert (result["winners"], result["game_points"], result["reason"]) == ([0], [1, 0], "last_trick")
    assert result["claimed_by"] is None and result["deemed_claim"] is False


def test_exhausted_talon_last_trick_ten_can_make_the_winners_claim():
    won = "AH TH KH QH JH TS KS JS"  # 46 + AS 11 + 10 = 67
    result = last_trick(won, "QS 9H AD TD KD QD JD 9D AC TC KC QC JC 9C", exhausted_talon="last-trick-ten")
    assert result["points"] == [67, 63] and result["last_trick_ten"] == 0
    assert result["reason"] == "claim" and result["deemed_claim"] is True and result["game_points"] == [1, 0]


def test_exhausted_talon_last_trick_ten_the_player_with_more_points_wins_as_for_a_claim():
    won = "AH TH KH QH JH 9H KS QS"  # 37 + AS 11 + 10 = 58
    result = last_trick(won, "TS JS AD TD KD QD JD 9D AC TC KC QC JC 9C", exhausted_talon="last-trick-ten")
    assert result["points"] == [58, 72]
    assert (result["winners"], result["game_points"], result["reason"]) == ([1], [0, 1], "more_points")


def test_exhausted_talon_last_trick_ten_equal_points_are_a_drawn_deal_with_no_game_points():
    state = table("AS", "9S", won=(WINNER_44, OTHER_65), exhausted_talon="last-trick-ten", scores=(3, 4))
    state, events = act(state, "AS", "9S")
    result = of_type(events, "deal_result")[0].data
    assert result["points"] == [65, 65] and result["last_trick_ten"] == 0
    assert (result["winners"], result["game_points"], result["reason"]) == ([], [0, 0], "drawn")
    assert state.match.scores == (3, 4) and GAME.result(state) is None and state.match.deal_number == 2


def test_no_talon_plays_the_last_trick_by_the_exhausted_talon_rule():
    result = last_trick(WINNER_44, OTHER_65, no_talon=True, exhausted_talon="last-trick-ten")
    assert result["reason"] == "drawn"
    assert last_trick(WINNER_44, OTHER_65, no_talon=True)["reason"] == "last_trick"


def test_the_winner_of_the_last_trick_with_exactly_66_is_deemed_to_claim():
    result = last_trick("AH TH AD TD AC JC", "KD QD")  # 55 + AS 11
    assert (result["points"], result["reason"], result["claimed_by"], result["deemed_claim"]) == ([66, 7], "claim", 0, True)
    assert result["game_points"] == [2, 0]


def test_exhausted_talon_last_trick_ten_the_first_seat_with_more_points_wins_as_for_a_claim():
    result = last_trick("KD 9D", "QC JC", exhausted_talon="last-trick-ten")  # 4 + AS 11 + 10 against 5
    assert result["points"] == [25, 5]
    assert (result["winners"], result["game_points"], result["reason"]) == ([0], [2, 0], "more_points")
    result = last_trick("KD 9D", "", exhausted_talon="last-trick-ten")  # the loser won no trick
    assert (result["winners"], result["game_points"], result["reason"]) == ([0], [3, 0], "more_points")


def test_a_drawn_deal_gives_no_game_points_in_its_outcome():
    # the outcome the computer players reckon with: 55 + 10 against 65
    outcome = sixty_six_rules.deal_outcome((55, 65), (5, 7), None, None, 0, schnapsen=False, last_trick_ten=True)
    assert (outcome.winner, outcome.reason, outcome.game_points) == (None, "drawn", 0)


def test_a_seats_points_count_only_once_it_has_won_a_trick():
    assert sixty_six_rules.counted_points(0, 20, 0) == 0
    assert sixty_six_rules.counted_points(14, 20, 1) == 34


# --- the match ---------------------------------------------------------------------------------


def test_match_ends_when_a_player_reaches_7_game_points():
    state = table("JS", "QS", won=(WON_67, WON_33), scores=(6, 5))
    state, events = act(state, (0, DECLARE))
    assert [event.data["type"] for event in events] == ["declare", "deal_result", "match_result"]
    assert of_type(events, "deal_result")[0].data["scores"] == [7, 5]
    assert GAME.result(state).winners == (0,) and GAME.result(state).scores == (7, 5)
    assert GAME.to_act(state) == ()
    assert refusal(state, 0, DECLARE).code == "game_over"


def test_under_the_target_another_deal_follows_and_the_deal_alternates():
    state = table("JS", "QS", won=(WON_67, WON_33), scores=(5, 5))._replace(last_trick=Trick(1, numbers("9S AS"), 0))
    dealer = state.match.dealer(2)
    state, events = act(state, (0, DECLARE))
    assert GAME.result(state) is None and state.match.scores == (6, 5)
    assert state.match.deal_number == 2 and state.match.dealer(2) == 1 - dealer
    assert [len(hand) for hand in at(state).hands] == [6, 6] and len(at(state).talon) == 11
    assert state.won == (0, 0) and state.marriages == () and state.closing is None
    assert GAME.view(state, 0)["last_trick"] is None  # the old deal's cards are not shown in the new one
    assert GAME.to_act(state) == (dealer,)
    assert [event.data["type"] for event in events][:4] == ["declare", "deal_result", "deal", "dealt"]


@pytest.mark.parametrize("target", [5, 9, 11])
def test_target_option_sets_the_game_points_that_win_the_match(target):
    state = table("JS", "QS", won=(WON_67, ""), scores=(target - 3, 0), target=target)
    state, _ = act(state, (0, DECLARE))
    assert GAME.result(state).winners == (0,)
    state = table("JS", "QS", won=(WON_67, ""), scores=(target - 4, 0), target=target)
    state, _ = act(state, (0, DECLARE))
    assert GAME.result(state) is None


# --- no talon ----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, size", [("sixty-six", 12), ("schnapsen", 10)])
def test_no_talon_deals_every_card_and_the_dealers_last_card_fixes_trump_in_view(variant, size):
    state, events = GAME.new_game(options(no_talon=True, variant=variant), seed="nt")
    dealer = state.match.dealer(2)
    record = GAME.deal_record(state.match, 1, dealer)
    trump_card = record.hands[dealer][-1]
    assert [len(hand) for hand in at(state).hands] == [size, size]
    assert at(state).talon == () and at(state).trump_card is None and at(state).trump == trump_card.suit
    assert record.stock == () and record.trump_card == trump_card
    assert events[0].data["trump_card"] == trump_card.code and events[0].data["talon_size"] == 0
    view = GAME.view(state, 1 - dealer)
    assert view["known_cards"][dealer] == [trump_card.code] and view["phase"] == 2


def test_no_talon_has_phase_2_rules_from_the_first_trick_and_no_exchange_or_closing():
    state = table("9H AS KC", "QS JS TC", leader=0, no_talon=True)
    assert [a["type"] for a in legal(state, 0)] == ["play"] * 3
    assert refusal(state, 0, EXCHANGE).code == "exchange_not_allowed"
    assert refusal(state, 0, CLOSE).code == "close_not_allowed"
    state, _ = act(state, "AS")
    assert legal(state, 1) == [{"type": "play", "card": "JS"}, {"type": "play", "card": "QS"}]


# --- options -----------------------------------------------------------------------------------


def test_options_default_to_the_rule_book():
    assert options() == {
        "variant": "sixty-six",
        "marriages": True,
        "trump_exchange": True,
        "open_scores": False,
        "no_talon": False,
        "exhausted_talon": "last-trick",
        "target": 7,
    }


def test_catalog_entry_names_the_game_its_two_seats_and_every_option():
    entry = GAME.describe()
    assert entry["id"] == "sixty-six" and entry["names"] == {"en": "Sixty-Six", "tr": "Altmışaltı"}
    assert entry["seat_count"] == 2
    assert [option["code"] for option in entry["options"]] == list(options())
    for option in entry["options"]:
        assert set(option["names"]) == {"en", "tr"} and option["description"]
    json.dumps(entry)


@pytest.mark.parametrize(
    "code, value",
    [
        ("variant", "skat"),
        ("marriages", "yes"),
        ("trump_exchange", 1),
        ("open_scores", None),
        ("no_talon", "no"),
        ("exhausted_talon", "ten"),
        ("target", 6),
        ("target", True),
        ("target", "7"),
    ],
)
def test_bad_option_value_is_refused_naming_the_option_and_allowed_values(code, value):
    with pytest.raises(RuleError) as caught:
        GAME.parse_options({code: value})
    error = caught.value
    assert (error.code, error.refusal) == ("invalid_option", Refusal.BAD_SETUP)
    assert error.details["option"] == code
    assert code in error.message and "allowed" in error.message


def test_schnapsen_with_last_trick_ten_is_refused_as_a_bad_option():
    with pytest.raises(RuleError) as caught:
        GAME.parse_options({"variant": "schnapsen", "exhausted_talon": "last-trick-ten"})
    error = caught.value
    assert (error.code, error.refusal) == ("invalid_option", Refusal.BAD_SETUP)
    assert error.details == {"option": "exhausted_talon", "allowed": ["last-trick"]}
    assert "exhausted_talon" in error.message and "schnapsen" in error.message and '"last-trick"' in error.message


def test_schnapsen_with_last_trick_ten_is_refused_in_words_naming_the_value_refused():
    with pytest.raises(RuleError) as caught:
        GAME.parse_options({"variant": "schnapsen", "exhausted_talon": "last-trick-ten"})
    assert caught.value.message == 'option "exhausted_talon" cannot be "last-trick-ten" with variant "schnapsen"; allowed: "last-trick"'


def test_unknown_option_is_refused():
    with pytest.raises(RuleError) as caught:
        GAME.parse_options({"jokers": True})
    assert caught.value.code == "unknown_option"


# --- what a seat sees --------------------------------------------------------------------------


def test_view_without_open_scores_shows_tricks_and_pending_marriages_but_no_points_or_won_cards():
    state = table("JS 9C", "AC QS", "JD QD TD", trump_card="AH", won=("AS TS", "KD 9D"), announced=((1, "KS"),), shown=("", "QS"))
    for seat in (0, 1):
        view = GAME.view(state, seat)
        assert view["tricks_won"] == [1, 1]
        assert view["pending_marriage"] == [False, False]
        assert view["points"] is None and view["won_cards"] is None
        assert not {"AS", "TS", "KD", "9D"} & card_codes_in(view)
    state = state._replace(won=(state.won[0], 0))
    assert GAME.view(state, 0)["pending_marriage"] == [False, True]


def test_view_with_open_scores_shows_both_players_points_and_won_cards():
    state = table("QS 9D", "AC JC", "JD QD TD", trump_card="AH", won=("AS TS", "KD 9D"), announced=((0, "KS"),), shown=("QS", ""), open_scores=True)
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view["points"] == [21 + 20, 4]
        assert view["won_cards"] == [["TS", "AS"], ["9D", "KD"]]


def test_view_with_open_scores_counts_a_trump_marriage_40_once_its_announcer_has_won_a_trick():
    state = table(
        "QH 9D", "AC QS", "JD QD TD", trump_card="AH", won=("AS TS", ""), announced=((0, "KH"), (1, "KS")), shown=("QH", "QS"), open_scores=True
    )
    assert GAME.view(state, 0)["points"] == [21 + 40, 0]


def test_view_lists_each_marriage_with_its_suit_its_points_and_its_pair():
    state = table("JS 9C", "AC KS", "JD QD TD", trump_card="AH", won=("AS TS", ""), announced=((1, "QS"), (0, "QH")), shown=("", "KS"))
    assert GAME.view(state, 0)["marriages"] == [
        {"seat": 1, "suit": "S", "points": 20, "pair": ["KS", "QS"], "pending": True},
        {"seat": 0, "suit": "H", "points": 40, "pair": ["KH", "QH"], "pending": False},
    ]


def test_view_counts_each_hand_by_itself():
    state, _ = act(table("AS 9D", "KS 9C", "JD QD TD", trump_card="AH"), "AS")
    assert GAME.view(state, None)["hand_sizes"] == [1, 2]


def test_view_shows_the_last_trick_and_no_trick_number_once_the_match_is_over():
    state, _ = act(table("AS 9D", "KS 9C", "JD QD TD", trump_card="AH"), "AS", "KS")
    assert GAME.view(state, 1)["last_trick"] == {"leader": 0, "cards": [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "KS"}], "winner": 0}
    state, _ = GAME.apply(table("JS", "QS", won=(WON_67, WON_32), leader=0, scores=(6, 0)), 0, DECLARE)
    assert GAME.result(state) is not None and GAME.view(state, 0)["trick_number"] is None


def test_view_has_every_key_and_is_json_ready():
    state = table("QS 9D", "AC JC", "JD QD TD", trump_card="AH", won=("AS TS", ""), announced=((0, "KS"),), shown=("QS", ""), trick="")
    view = GAME.view(state, 0)
    assert json.loads(json.dumps(view)) == view
    assert {
        "hand": ["9D", "QS"],
        "hand_sizes": [2, 2],
        "trump": "H",
        "trump_card": "AH",
        "talon_size": 3,
        "talon_closed": False,
        "closed_by": None,
        "phase": 1,
        "trick_number": 2,
        "trick": {"leader": 0, "cards": [], "winner": None},
        "last_trick": None,
        "tricks_won": [1, 0],
        "known_cards": [["QS"], []],
        "marriages": [{"seat": 0, "suit": "S", "points": 20, "pair": ["KS", "QS"], "pending": False}],
        "pending_marriage": [False, False],
        "points": None,
        "won_cards": None,
    }.items() <= view.items()


def test_view_never_shows_the_opponents_concealed_cards_or_the_talon():
    state = table("QS 9D KC", "AC JC KH", "JD QD TD", trump_card="AH", shown=("", "KH"))
    for seat, hidden in ((0, {"AC", "JC", "JD", "QD", "TD"}), (1, {"QS", "9D", "KC", "JD", "QD", "TD"})):
        text = json.dumps(GAME.view(state, seat))
        assert not any(f'"{code}"' in text for code in hidden)
    spectator = json.dumps(GAME.view(state, None))
    assert not any(f'"{code}"' in spectator for code in ("QS", "9D", "KC", "AC", "JC", "JD", "QD", "TD"))
    assert GAME.view(state, None)["known_cards"] == [[], ["KH"]]


def test_spectator_view_has_no_hand_and_no_legal_actions():
    state = table("QS 9D", "AC JC", "JD QD TD", trump_card="AH")
    view = GAME.view(state, None)
    assert view["hand"] is None and view["legal_actions"] == [] and view["to_act"] == [0]


def test_a_client_holding_only_the_view_reads_back_what_the_seat_knows():
    """``koz bot`` parses the view it is sent (``SixtySixSeat.from_view``) into the knowledge the
    engine gives a computer seat: for both seats and a spectator, at every step of random matches."""
    seen = set()
    for option_values in ({}, {"open_scores": True}, {"variant": "schnapsen"}, {"no_talon": True}):
        for state, *_ in random_playout(GAME, {"target": 5, **option_values}, "read back", random.Random(2)):
            for seat in (0, 1, None):
                known = GAME.knowledge(state, seat)
                assert SixtySixSeat.from_view(json.loads(json.dumps(known.to_view()))) == known
            facts = {"closed": known.closed_by is not None, "marriage": bool(known.marriages), "trump card": known.trump_card is not None}
            facts |= {"last trick": known.last_trick is not None, "over": known.trick_number is None, "won cards": known.won is not None}
            seen |= {fact for fact, holds in facts.items() if holds}
    assert seen == {"closed", "marriage", "trump card", "last trick", "over", "won cards"}


def test_a_view_written_out_in_card_codes_reads_as_the_seats_knowledge():
    view = {
        "hand": ["9D", "KC"],
        "hand_sizes": [2, 3],
        "trump": "S",
        "trump_card": None,
        "talon_size": 3,
        "talon_closed": True,
        "closed_by": 1,
        "phase": 2,
        "trick_number": 4,
        "trick": {"leader": 1, "cards": [{"seat": 1, "card": "QD"}], "winner": None},
        "last_trick": {"leader": 0, "cards": [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "TS"}], "winner": 0},
        "tricks_won": [2, 1],
        "known_cards": [["KC"], ["JS"]],
        "marriages": [{"seat": 0, "suit": "C", "points": 20, "pair": ["KC", "QC"], "pending": False}],
        "pending_marriage": [False, False],
        "points": [46, 4],
        "won_cards": [["QC", "AS", "TS", "JH"], ["9C", "KD"]],
    }
    assert SixtySixSeat.from_view(view) == SixtySixSeat(
        hand=DECK.mask(cards("9D KC")),
        hand_sizes=(2, 3),
        trump=SUITS.index(Suit("S")),
        trump_card=None,
        talon_size=3,
        closed_by=1,
        trick_number=4,
        trick=Trick(1, numbers("QD")),
        last_trick=Trick(0, numbers("AS TS"), 0),
        tricks=(2, 1),
        shown=(DECK.mask(cards("KC")), DECK.mask(cards("JS"))),
        marriages=(Announcement(0, DECK.number[Card.parse("KC")]),),
        won=(DECK.mask(cards("QC AS TS JH")), DECK.mask(cards("9C KD"))),
    )
    spectator = view | {"hand": None, "trump_card": "AH", "trump": "H", "closed_by": None, "last_trick": None, "won_cards": None}
    assert SixtySixSeat.from_view(spectator)[:5] == (None, (2, 3), SUITS.index(Suit("H")), DECK.number[Card.parse("AH")], 3)
    assert (SixtySixSeat.from_view(spectator).closed_by, SixtySixSeat.from_view(spectator).last_trick) == (None, None)
    assert SixtySixSeat.from_view(spectator).won is None


# --- reveal and serialization ------------------------------------------------------------------


def play_first_card(state):
    """Each seat to act plays its first legal card: no exchange, close, marriage or claim."""
    (seat,) = GAME.to_act(state)
    action = next(a for a in GAME.legal_actions(state, seat) if a.type == "play")
    return GAME.apply(state, seat, action)


def test_reveal_is_refused_until_the_match_is_over():
    state, _ = GAME.new_game(options(), seed="reveal")
    with pytest.raises(RuleError) as caught:
        GAME.reveal(state)
    assert caught.value.code == "game_not_over"


def test_reveal_gives_each_deal_as_dealt_with_the_talon_in_drawing_order_and_the_trump_card_last():
    state, _ = GAME.new_game(options(target=5), seed="reveal")
    dealt = list(at(state).hands)
    talon, trump_card = at(state).talon, at(state).trump_card
    received: list[str] = []
    while state.match.deal_number == 1:
        state, events = play_first_card(state)
        received += [e.data["card"] for e in events if e.data["type"] in ("draw", "take")]
    while GAME.result(state) is None:
        state, _ = play_first_card(state)
    reveal = GAME.reveal(state)
    assert reveal["seed"] == "reveal"
    first = reveal["deals"][0]
    assert sorted(first) == ["dealer", "hands", "stock", "trump_card"]
    assert [set(hand) for hand in first["hands"]] == [set(codes(hand)) for hand in dealt]
    assert first["stock"] == codes(talon) + [trump_card.code] == received
    assert first["trump_card"] == trump_card.code
    assert len(reveal["deals"]) == state.match.deal_number
    json.dumps(reveal)


def test_reveal_names_each_deals_dealer():
    state = table("AS 9D", "KS 9C", deal_number=2, seed="two deals")
    first, second = GAME.reveal(state, ended_early=True)["deals"]
    assert {first["dealer"], second["dealer"]} == {0, 1} and second["dealer"] == state.match.dealer(2)


def test_state_serializes_and_loads_back_unchanged():
    state = table(
        "9D KC", "AC JC QD", "JD 9S TD", trump_card="AH", leader=1, trick="QS", won=("AS TS", "KD 9D"),
        announced=((1, "KD"),), shown=("", "QD"), closing=(0, 4, 1), scores=(3, 2), deal_number=4,
    )
    state = state._replace(last_trick=Trick(0, numbers("AS TS"), 0))
    doc = GAME.dump(state)
    assert json.loads(json.dumps(doc)) == doc
    assert GAME.load(doc) == state


def test_a_state_without_trump_card_closing_or_last_trick_serializes_and_loads_back_unchanged():
    state = table("9D KC", "AC JC QD", trick="QS", won=("AS TS", "KD 9D"))
    assert (state.trump_card, state.closing, state.last_trick) == (None, None, None)
    assert GAME.load(GAME.dump(state)) == state
