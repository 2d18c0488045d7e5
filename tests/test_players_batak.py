"""Partnership Batak computer players: the rules of thumb, the sampled search, legality, budgets.

Seats: 0 South, 1 East, 2 North, 3 West; teams North–South (0, 2) and East–West (1, 3). Hands are
written as card codes.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from engine import Action, Bid, Pass, Trump, registry
from engine.batak import SUITS, Auction, BatakState
from engine.cards import FULL_DECK, Suit, cards, members
from engine.players import BasicPlayer, Budget, ExpertPlayer, RandomPlayer, SeatInfo, SeatLogs, play_match
from engine.players.batak import (
    MATCH_WIN,
    DealSampler,
    Knowledge,
    Standing,
    distinct_cards,
    hand_strength,
    play_out,
)
from engine.cards import STANDARD
from engine.rules import Trick
from engine.ruleset import Match
from engine.shuffle import SeededRandom, first_dealer

BATAK = registry.get("partnership-batak")
deck_mask = STANDARD.mask
SOUTH, EAST, NORTH, WEST = range(4)
BASIC, EXPERT = BasicPlayer(), ExpertPlayer()
SMALL = Budget(work=2000)  # about forty playouts: enough for clear decisions, fast in tests


def seed_for_dealer(dealer: int) -> str:
    return next(seed for seed in (f"table-{i}" for i in range(100)) if first_dealer(seed, 4) == dealer)


def match(dealer: int = WEST, **option_values) -> Match:
    return Match.start(BATAK.parse_options(option_values), seed_for_dealer(dealer), 4)


def deal_rest(south: str) -> tuple[int, ...]:
    """South's hand, and the other cards dealt in order to East, North and West (as masks)."""
    mine = frozenset(cards(south))
    rest = [card for card in FULL_DECK if card not in mine]
    return tuple(deck_mask(hand) for hand in (mine, rest[0::3], rest[1::3], rest[2::3]))


def bidding(south: str, *calls: tuple[int, int | None], dealer: int = WEST) -> BatakState:
    """A deal in its auction (South opens by default) after ``calls`` (seat, bid or None); the
    cards South does not hold are dealt to the others in order."""
    return BatakState(match=match(dealer), hands=deal_rest(south), auction=Auction((dealer + 1) % 4, tuple(calls)))


def naming_trump(south: str) -> BatakState:
    """South won the auction with 8 and names trump; the other cards are dealt in order."""
    calls = tuple((seat, 8 if seat == SOUTH else None) for seat in range(4))
    return BatakState(match=match(WEST), hands=deal_rest(south), auction=Auction(SOUTH, calls), declarer=SOUTH, contract=8)


def playing(
    south: str,
    east: str,
    north: str,
    west: str,
    *,
    declarer: int = SOUTH,
    contract: int = 8,
    trump: str = "S",
    leader: int | None = None,
    trick: str = "",
    won=(0, 0, 0, 0),
    trump_broken: bool = False,
    **option_values,
) -> BatakState:
    """A deal in its card play, after an auction ``declarer`` won alone."""
    calls = tuple(((declarer + i) % 4, contract if i == 0 else None) for i in range(4))
    return BatakState(
        match=match((declarer - 1) % 4, **option_values),
        hands=tuple(deck_mask(cards(hand)) for hand in (south, east, north, west)),
        auction=Auction(declarer, calls),
        declarer=declarer,
        contract=contract,
        trump=SUITS.index(Suit(trump)),
        trick=Trick(declarer if leader is None else leader, tuple(card.index for card in cards(trick))),
        won=tuple(won),
        trump_broken=trump_broken,
    )


def trick_event(number: int, leader: int, codes: str) -> dict:
    played = codes.split()
    return {
        "type": "trick",
        "number": number,
        "leader": leader,
        "cards": [{"seat": (leader + i) % 4, "card": code} for i, code in enumerate(played)],
        "winner": None,  # not read by the players: they replay the trick
    }


def seat_info(state: BatakState, seat: int | None = None, tricks: tuple[dict, ...] = ()) -> SeatInfo:
    """What the seat to act (or ``seat``) knows in ``state``, the deal's earlier tricks given."""
    if seat is None:
        (seat,) = BATAK.to_act(state)
    return SeatInfo(BATAK.id, seat, state.match.options, BATAK.view(state, seat), tricks)


def endgame(
    south: str, east: str, north: str, west: str, *, trump: str, contract: int, declarer: int = SOUTH, leader: int = SOUTH
) -> SeatInfo:
    """``leader`` to lead the rest of a deal ``declarer`` declared, as that seat sees it. The other cards
    went in earlier tricks of one suit each, played upwards (so they show no void and no missing
    higher card), each won by its last card, which leads the next."""
    left = frozenset(cards(" ".join((south, east, north, west))))
    gone = [[card.code for card in FULL_DECK if card.suit is suit and card not in left] for suit in Suit]
    assert all(len(codes) % 4 == 0 for codes in gone), "the helper needs whole tricks of each suit"
    tricks, won, to_lead = [], [0] * 4, (leader + sum(map(len, gone)) // 4) % 4
    for codes in gone:
        for start in range(0, len(codes), 4):
            tricks.append(trick_event(len(tricks) + 1, to_lead, " ".join(codes[start : start + 4])))
            to_lead = (to_lead + 3) % 4
            won[to_lead] += 1
    assert to_lead == leader
    state = playing(
        south,
        east,
        north,
        west,
        declarer=declarer,
        contract=contract,
        trump=trump,
        leader=leader,
        won=won,
        trump_broken=True,
        trump_lead_before_broken=True,
    )
    return seat_info(state, leader, tuple(tricks))


def card(action: Action) -> str:
    assert action.card is not None
    return action.card.code


# --- basic: bidding and trump ------------------------------------------------------------------


def test_basic_bids_the_lowest_bid_allowed_with_a_strong_hand():
    state = bidding("AS KS QS JS 9S 5S AH KH AD 7D 4C 3C 2C", (WEST, 8), dealer=SOUTH)
    assert BASIC.choose(seat_info(state, SOUTH), "s") == Bid(9)


def test_basic_passes_a_weak_hand():
    state = bidding("9S 5S 2S 8H 7H 3H 9D 7D 4D 8C 6C 3C 2C")
    assert BASIC.choose(seat_info(state), "s") == Pass()


def test_basic_leaves_the_high_bid_to_its_partner():
    strong = "AS KS QS JS 9S 5S AH KH AD 7D 4C 3C 2C"
    state = bidding(strong, (NORTH, 8), (WEST, None), dealer=EAST)
    assert BASIC.choose(seat_info(state, SOUTH), "s") == Pass()


def test_basic_names_its_longest_suit_trump():
    state = naming_trump("AS KS AH 9D 8D 6D 5D 3D 2D KC QC JC 2C")
    assert BASIC.choose(seat_info(state), "s") == Trump(Suit.DIAMONDS)


def test_basic_names_the_suit_with_better_honours_of_two_as_long():
    state = naming_trump("AH QH 7H 5H 2H 9D 8D 6D 5D 3D AS KC 2C")
    assert BASIC.choose(seat_info(state), "s") == Trump(Suit.HEARTS)


# --- basic: card play --------------------------------------------------------------------------


def test_basic_follows_with_the_lowest_card_that_wins():
    # East leads, North and West follow low; South, last, must beat the nine and does so cheaply.
    state = playing("AH KH TH 2C", "3C 5C 6C", "4C 5D 6D", "8C 7D 8D", declarer=EAST, leader=EAST, trick="9H 4H 7H")
    assert card(BASIC.choose(seat_info(state), "s")) == "TH"


def test_basic_plays_its_lowest_card_when_it_cannot_win():
    # West ruffed: any heart may follow, and none wins.
    state = playing("KH 5H 2C", "3C 5C", "4C 5D", "8C 7D", declarer=EAST, leader=EAST, trick="9H 4H 2S")
    assert card(BASIC.choose(seat_info(state), "s")) == "5H"


def test_basic_third_in_hand_wins_with_its_lowest_sure_winner():
    # North led, West beat it; East, still to play, holds the king: the jack would not hold.
    state = playing("AH JH 2C", "KH 3C 4C", "5C 6C", "7C 8C", leader=NORTH, trick="9H TH")
    assert card(BASIC.choose(seat_info(state), "s")) == "AH"


def test_basic_throws_a_card_others_can_beat_before_a_sure_winner_even_a_lower_one():
    # Void in clubs and in trump: the two of diamonds is the last diamond (three tricks took the
    # others), the nine of hearts is beaten by every heart left.
    state = playing("2D 9H", "TH", "JH", "QH", declarer=EAST, leader=EAST, trick="3C 4C 5C")
    diamonds = [trick_event(number, EAST, codes) for number, codes in enumerate(["3D 4D 5D 6D", "7D 8D 9D TD", "JD QD KD AD"], 1)]
    assert card(BASIC.choose(seat_info(state, SOUTH, tuple(diamonds)), "s")) == "9H"


def test_basic_discards_its_cheapest_side_card_under_its_partners_winner():
    # Void in hearts and in trump: South keeps its ace of clubs and throws the two of diamonds.
    state = playing("AC 7C 2D", "3C 5C", "4C 5D", "8C 7D", declarer=EAST, leader=EAST, trick="9H AH 7H")
    assert card(BASIC.choose(seat_info(state), "s")) == "2D"


def test_basic_draws_trumps_with_its_top_trump():
    state = playing("AS 5S KH 2D", "9S 3H 4D 5C", "3S 7H 8D 6C", "JS 2H 6D 7C", trump_broken=True)
    assert card(BASIC.choose(seat_info(state), "s")) == "AS"


def test_basic_declarer_leads_low_towards_its_partners_top_trumps():
    # East's trump is lower than North's ace and king: South leads its two towards them.
    info = endgame("5S 2S KH 2D", "4S 3H 4D 5C", "AS KS 8D 9D", "JH 2H 6D QH", trump="S", contract=8)
    assert card(BASIC.choose(info, "s")) == "2S"


def test_basic_cashes_its_sure_winner_in_the_suit_the_others_hold_most_of():
    # The others hold four diamonds and no heart: AD is the less likely to be ruffed.
    info = endgame("AH AD 2C", "5D 6D 3C", "7D 4C 5C", "8D 6C 2S", trump="S", contract=8)
    assert card(BASIC.choose(info, "s")) == "AD"


def test_basic_cashes_the_two_of_clubs_when_it_is_the_last_club():
    info = endgame("2C 5H 4H 3D", "KH QH 6D 7D", "AH JH 8D 9D", "TH 9H 8H AS", trump="S", contract=8, declarer=EAST)
    assert card(BASIC.choose(info, "s")) == "2C"


@pytest.mark.parametrize(("south", "west", "lead"), [("AS 5S 2S", "9C TC JC", "AS"), ("KS 5S 2S", "AS TC JC", "2S")])
def test_basic_defender_with_only_trumps_leads_the_top_one_when_sure_else_the_lowest(south, west, lead):
    state = playing(south, "3C 4C 5C", "6C 7C 8C", west, declarer=EAST, leader=SOUTH, trump_broken=True)
    assert card(BASIC.choose(seat_info(state), "s")) == lead


def test_basic_stops_drawing_trumps_once_the_opponents_have_none_and_cashes_a_winner():
    # The ace is the last spade: the opponents have no trump left.
    info = endgame("AS AH 2D", "QH 5D 2C", "KH 3D 4D", "JH TH 6D", trump="S", contract=8)
    assert card(BASIC.choose(info, "s")) == "AH"


def test_basic_defender_leads_from_strength():
    state = playing("KH 3H 4D 6C", "5S 9H 2D 5C", "3S 7H 8D 8C", "AC 7C 3D 2H", declarer=SOUTH, leader=WEST, trump="S")
    assert card(BASIC.choose(seat_info(state), "s")) == "AC"


def test_basic_declarer_plays_the_dummys_cards_in_its_turn():
    # North, second to a diamond, must beat it: with the ace, sure to win, rather than the eight.
    state = playing("AS 5S KH 2D", "3H 5C 7C", "AD 8D 3S 6C", "JS 2H 6D 9C", leader=EAST, trick="4D")
    info = seat_info(state)
    assert info.seat == SOUTH and info.view["turn"] == NORTH
    assert card(BASIC.choose(info, "s")) == "AD"


def engine_play_out(options: dict, seed: str, first_cards: int) -> tuple[BatakState, int]:
    """A deal played through the engine by four basic players, which pick their cards as a
    rollout does: the state once ``first_cards`` cards are played, and the tricks the declaring
    side takes from there on."""
    options = BATAK.parse_options(options)
    state, events = BATAK.new_game(options, seed)
    logs = SeatLogs(4)
    logs.record(events)
    start, taken_before = None, 0
    while True:
        if state.trick is not None and 52 - sum(hand.bit_count() for hand in state.hands) == first_cards:
            start, taken_before = state, state.won[state.declarer] + state.won[state.dummy]
        (seat,) = BATAK.to_act(state)
        state, events = BATAK.apply(state, seat, BASIC.choose(logs.info(BATAK, options, state, seat), seed))
        logs.record(events)
        for event in events:
            if event.data["type"] == "deal_result":
                assert start is not None
                return start, event.data["team_tricks"][start.declarer % 2] - taken_before


@pytest.mark.parametrize("options", [{}, {"trump_lead_before_broken": True}], ids=str)
@pytest.mark.parametrize("first_cards", [0, 5, 30])
def test_a_rollout_plays_the_deal_on_as_the_engine_does_by_the_rules_of_thumb(options, first_cards):
    for number in range(12):
        start, expected = engine_play_out(options, f"rollout-{number}", first_cards)
        assert start.trick is not None and start.trump is not None and start.declarer is not None
        free_trump_lead = BATAK.parse_options(options)["trump_lead_before_broken"]
        taken = play_out(start.hands, start.trick.leader, start.trick.cards, start.trump, start.trump_broken, free_trump_lead, start.declarer)
        assert taken == expected, number


# --- expert ------------------------------------------------------------------------------------


def test_expert_bids_13_with_a_hand_that_takes_every_trick():
    state = bidding("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S")
    assert EXPERT.choose(seat_info(state), "s", SMALL) == Bid(13)
    assert BASIC.choose(seat_info(state), "s") == Bid(8)


def test_expert_passes_a_hand_without_a_trick():
    state = bidding("9S 5S 2S 8H 7H 3H 9D 7D 4D 8C 6C 3C 2C")
    assert EXPERT.choose(seat_info(state), "s", SMALL) == Pass()


def test_expert_names_solid_trumps_over_ones_with_better_honours():
    state = naming_trump("AH KH 4H 3H 2H QS JS TS 9S 8S AD KD AC")
    assert EXPERT.choose(seat_info(state), "s", Budget(work=12000)) == Trump(Suit.SPADES)
    assert BASIC.choose(seat_info(state), "s") == Trump(Suit.HEARTS)


def test_expert_cashes_its_last_trump_before_its_partners_winner_can_force_a_ruff():
    # North–South have five tricks and need all three left. Leading the club first, North wins
    # and leads its heart, which South, void, must ruff with the five before losing the spade;
    # the five first, then the club to North, makes all three.
    info = endgame("8C 5D TS", "4C QC KS", "KC 8H 3S", "JC 2S 5S", trump="D", contract=8)
    assert info.view["team_tricks"] == [5, 5]
    assert card(EXPERT.choose(info, "s", SMALL)) == "5D"
    assert card(BASIC.choose(info, "s")) == "8C"


def test_expert_searches_the_last_tricks_exactly_where_the_rules_of_thumb_would_waste_a_trump():
    # North–South need two of three tricks, clubs trump. Basic's QC makes North overtake with KC,
    # as the rules force it to: two trumps on one trick. Led first, a spade is never worse, and
    # takes all three in 12 of the 20 ways East and West may hold their six cards.
    info = endgame("QC 3S JS", "JC TH 7S", "KC 8D 9S", "2C TC 4S", trump="C", contract=7)
    assert card(BASIC.choose(info, "s")) == "QC"
    assert card(EXPERT.choose(info, "s", SMALL)) in ("3S", "JS")


def test_expert_among_cards_of_equal_value_plays_the_rule_of_thumb_card():
    # three aces and nobody else with a spade: every lead takes the three tricks
    info = endgame("AS AH AD", "KH QH KD", "JH TH QD", "JD TD 2C", trump="S", contract=8)
    assert card(BASIC.choose(info, "s")) == card(EXPERT.choose(info, "s", SMALL)) == "AD"


def test_expert_mid_deal_defends_alike_whichever_seat_declared():
    # West, defending, leads with seven cards a hand left: too many to search, so the deals it
    # samples are played out. Turned round, each seat declaring in turn with the same hands in the
    # same places beside it, the table is the same to the defender: so is its lead
    hands = ["6C QC JD AD 3H 6H 8H", "4C 7C 9C TC 9D QD 4H", "8D KD 7H JH QH KH TS", "2C 5C KC 4D 6D 7D 9H"]
    for turn in range(4):
        turned = hands[-turn:] + hands[:-turn]  # seat (i + turn) % 4 holds hands[i]
        info = endgame(*turned, trump="C", contract=9, declarer=turn, leader=(WEST + turn) % 4)
        assert card(EXPERT.choose(info, "s", SMALL)) == "2C", turn
    assert card(BASIC.choose(info, "s")) == "4D"


def test_a_deal_is_worth_its_points_minus_the_other_teams():
    standing = Standing(ours=0, theirs=0, target=31)
    assert standing.value(contract=8, declaring_tricks=9, declaring=True) == 9 - 4
    assert standing.value(contract=8, declaring_tricks=7, declaring=False) == 6 + 8  # the bid failed
    assert standing.value(contract=8, declaring_tricks=12, declaring=False) == -8 - 12  # one trick: minus the bid


def test_a_deal_that_decides_the_match_is_worth_the_match():
    # Defending at 28 to 10, three tricks reach the target: the match, worth more than any points.
    standing = Standing(ours=28, theirs=10, target=31)
    assert standing.value(contract=8, declaring_tricks=10, declaring=False) == MATCH_WIN
    assert standing.value(contract=8, declaring_tricks=11, declaring=False) == 2 - 11
    assert Standing(ours=0, theirs=0, target=31).value(contract=13, declaring_tricks=13, declaring=False) == -MATCH_WIN
    # Defending at 10 to 28, the declarers' nine points take them past the target: the match lost.
    assert Standing(ours=10, theirs=28, target=31).value(contract=8, declaring_tricks=9, declaring=False) == -MATCH_WIN


# --- what a seat knows, and the sampled deals -------------------------------------------------


def suit_mask(suit: str) -> int:
    return deck_mask([card for card in FULL_DECK if card.suit is Suit(suit)])


def sampler_after_first_trick(south: str, east: str, north: str, west: str, trick: str) -> DealSampler:
    """South's sampler once the first trick, which South led, is over."""
    state = playing(south, east, north, west, leader=SOUTH)
    return DealSampler(Knowledge.of(seat_info(state, SOUTH, (trick_event(1, SOUTH, trick),))), SeededRandom("t", "t"))


def test_a_seat_knows_whether_the_table_lets_trump_be_led_before_it_is_broken():
    for lifted in (False, True):
        state = playing("AS 5S 2S", "3C 4C 5C", "6C 7C 8C", "9C TC JC", trump_lead_before_broken=lifted)
        assert Knowledge.of(seat_info(state, SOUTH)).free_trump_lead is lifted


def east_out_of_hearts() -> DealSampler:
    """South's sampler once East threw a club on South's heart: no heart, and no trump either,
    or it would have ruffed."""
    return sampler_after_first_trick(
        "AH KH QH JH TH 2S 3S 4S 5S 6S 7S 8S",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "3H 4H 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
        "QD KD AD 2H 7H 8H 9S TS JS QS KS AS",
        "9H 2C 5H 6H",
    )


def test_sampled_deals_respect_the_voids_a_discard_shows():
    sampler = east_out_of_hearts()
    hearts_and_spades = suit_mask("H") | suit_mask("S")
    for _ in range(20):
        hands = sampler.sample()
        assert not hands[EAST] & hearts_and_spades
        assert hands[WEST] & hearts_and_spades == deck_mask(cards("2H 7H 8H 9S TS JS QS KS AS"))


def test_sampled_deals_respect_the_higher_cards_a_low_follow_shows_missing():
    # West followed low under East's king, so it holds no heart above it: the ace is East's.
    sampler = sampler_after_first_trick(
        "QH JH TH 2S 3S 4S 5S 6S 7S 8S 9S TS",
        "AH 2H 2C 3C 4C 5C 6C 7C 8C 9C TC JC",
        "3H 4H 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
        "7H 8H QC KC AC QD KD AD JS QS KS AS",
        "9H KH 5H 6H",
    )
    ace = deck_mask(cards("AH"))
    assert all(sampler.sample()[EAST] & ace for _ in range(20))


def test_sampled_deals_give_each_free_card_to_a_seat_in_proportion_to_its_room():
    # West's nine hearts and spades are placed (East showed none); East has room for twelve of
    # the fifteen cards left, West for three: each of them goes to East four times in five
    sampler = east_out_of_hearts()
    deals = 2000
    to_east = Counter(card for _ in range(deals) for card in members(sampler.deal()[EAST]))
    free = deck_mask(cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC QD KD AD"))
    assert set(to_east) == set(members(free))
    assert all(abs(to_east[card] / deals - 0.8) < 0.05 for card in members(free))


def test_sampled_deals_favour_a_declarer_long_in_the_trump_it_named():
    def declarer_hearts(trump: str) -> float:
        # East declared and named trump; South, defending, sees North's hand and West's, the dummy
        state = playing(
            "9S 5S 2S 8H 7H 3H 9D 7D 4D 8C 6C 3C 2C",
            "AS KS QS JS TS AH KH QH JH AD KD AC KC",
            "8S 7S 6S 4S 3S 6H 5H 4H 2H QD JD QC JC",
            "TH 9H TD 8D 6D 5D 3D 2D TC 9C 7C 5C 4C",
            declarer=EAST,
            trump=trump,
            leader=EAST,
        )
        sampler = DealSampler(Knowledge.of(seat_info(state, SOUTH)), SeededRandom("t", "t"))
        return sum((sampler.sample()[EAST] & suit_mask("H")).bit_count() for _ in range(30)) / 30

    assert declarer_hearts("H") > declarer_hearts("S") + 0.5


def test_sampled_deals_favour_hands_that_explain_the_auction():
    def north_strength(north_call: int | None) -> float:
        state = bidding("9S 5S 2S 8H 7H 3H 9D 7D 4D 8C 6C 3C 2C", (NORTH, north_call), (WEST, None), dealer=EAST)
        sampler = DealSampler(Knowledge.of(seat_info(state, SOUTH)), SeededRandom("t", "t"))
        return sum(hand_strength(sampler.sample()[NORTH]) for _ in range(30)) / 30

    assert north_strength(8) > north_strength(None) + 1


def test_cards_in_sequence_are_one_choice():
    # With the jack played, the king and queen do the same; the ten is out, so the nine differs.
    hand = deck_mask(cards("KH QH 9H 2C"))
    unplayed = hand | deck_mask(cards("AH TH 8H 5C"))
    assert distinct_cards(deck_mask(cards("KH QH 9H")), hand, unplayed) == [card.index for card in cards("9H QH")]
    # with the ten and the jack played too, the nine does what the queen does
    assert distinct_cards(hand, hand, hand | deck_mask(cards("AH 8H 5C"))) == [card.index for card in cards("2C 9H")]
    # the two of clubs is card 0 of the deck: the three beside it is one choice with it
    hand = deck_mask(cards("2C 3C 5C"))
    assert distinct_cards(hand, hand, hand | deck_mask(cards("4C"))) == [card.index for card in cards("2C 5C")]


# --- every level, every option: legal, deterministic, within its budget ------------------------


@pytest.mark.parametrize("target", [21, 51])
@pytest.mark.parametrize("free_trump_lead", [False, True])
def test_every_level_plays_only_legal_actions(target, free_trump_lead):
    # The arena applies every action through the engine, which refuses an illegal one.
    tiny = {"expert": Budget(work=300)}  # one sampled deal a decision
    options = {"target": target, "trump_lead_before_broken": free_trump_lead}
    seatings = list(itertools.permutations([EXPERT, BASIC, RandomPlayer(), EXPERT]))
    for number, seats in enumerate(seatings[::6]):
        record = play_match(BATAK, options, f"legal-{target}-{number}", list(seats), timer=lambda: 0.0, budgets=tiny)
        assert record.result.winners


def mid_deal_info() -> SeatInfo:
    """An East seat's information a few tricks into a deal."""
    state, events = BATAK.new_game(BATAK.parse_options({}), "mid")
    log = [event.for_viewer(EAST) for event in events]
    for _ in range(30):
        (seat,) = BATAK.to_act(state)
        state, events = BATAK.apply(state, seat, BATAK.legal_actions(state, seat)[-1])
        log += [event.for_viewer(EAST) for event in events]
    while BATAK.to_act(state) != (EAST,):
        (seat,) = BATAK.to_act(state)
        state, events = BATAK.apply(state, seat, BATAK.legal_actions(state, seat)[0])
        log += [event.for_viewer(EAST) for event in events]
    return SeatInfo(BATAK.id, EAST, state.match.options, BATAK.view(state, EAST), tuple(log))


def test_the_same_information_seed_and_budget_give_the_same_decision():
    info = mid_deal_info()
    assert len(info.legal_actions()) > 1
    chosen = {EXPERT.choose(info, "same", SMALL) for _ in range(3)}
    assert len(chosen) == 1 and chosen <= set(info.legal_actions())


def test_the_expert_stops_at_its_ceiling_with_a_legal_decision():
    ticks = Counter()

    def clock() -> float:  # every reading is ten seconds after the one before
        ticks["readings"] += 1
        return 10.0 * ticks["readings"]

    endless = Budget(work=10**9, ceiling=0.5, timer=clock)
    for info in (
        seat_info(bidding("AS KS QS JS 9S 5S AH KH AD 7D 4C 3C 2C")),
        seat_info(naming_trump("AS KS QS JS 9S 5S AH KH AD 7D 4C 3C 2C")),
        mid_deal_info(),
    ):
        ticks.clear()
        assert EXPERT.choose(info, "s", endless) in info.legal_actions()
        assert ticks["readings"] <= 2  # the start, and one look after the first sampled deal
