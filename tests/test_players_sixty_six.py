"""The Sixty-Six computer players: the basic rules of thumb one by one, the expert's search, and
both levels legal, deterministic and within their budget under every option.

Hands are written as card codes; trump is hearts unless a test says otherwise. Card points:
A 11, 10 10, K 4, Q 3, J 2, 9 0.
"""

from __future__ import annotations

import itertools
import random
from random import Random
import time
from dataclasses import replace
from typing import Sequence

import pytest

from engine import Action, Close, Declare, Exchange, Marriage, registry
from engine.cards import Card, Suit, cards
from engine.players import BasicPlayer, Budget, ExpertPlayer, RandomPlayer, SeatInfo, SeatLogs, play_match
from engine.cards import members
from engine.players.sixty_six import (
    DealRules,
    Position,
    Solver,
    Solvers,
    cheapest,
    consistent_deals,
    deal_value,
    every_deal,
    finish,
    placed,
    play_out,
    read,
    sample,
    utilities,
)
from engine.actions import play
from engine.shuffle import SeededRandom
from engine.sixty_six import DECK, SUITS, VARIANTS, Closing, SixtySixState
from sixty_six_tables import numbers, table

GAME = registry.get("sixty-six")
CARDS = DECK.cards
DECLARE, CLOSE, EXCHANGE = Declare(), Close(), Exchange()
SMALL = Budget(work=300)

ALL_OPTIONS = [
    options
    for options in (
        dict(zip(("variant", "marriages", "trump_exchange", "open_scores", "no_talon", "exhausted_talon"), values))
        for values in itertools.product(
            ("sixty-six", "schnapsen"), (True, False), (True, False), (True, False), (True, False), ("last-trick", "last-trick-ten")
        )
    )
    if not (options["variant"] == "schnapsen" and options["exhausted_talon"] == "last-trick-ten")
]


def whole(state: SixtySixState) -> SixtySixState:
    """The state, checked to place every card of the deck once: the expert samples the rest."""
    placed = [*members(state.hands[0]), *members(state.hands[1]), *state.talon, *members(state.won[0])]
    placed += [*members(state.won[1]), *state.trick.cards] + ([state.trump_card] if state.trump_card is not None else [])
    assert sorted(placed) == members(VARIANTS[state.match.options["variant"]].cards)
    return state


def trick_event(leader: int, lead: str, reply: str, winner: int, phase: int = 1) -> dict:
    entries = [{"seat": leader, "card": lead}, {"seat": 1 - leader, "card": reply}]
    return {"type": "trick", "number": 0, "phase": phase, "leader": leader, "cards": entries, "winner": winner}


def seat_info(state: SixtySixState, seat: int, *, played: tuple[dict, ...] = ()) -> SeatInfo:
    """What ``seat`` knows of ``state``: its view, and events for the cards won (in pairs, as
    phase-1 tricks, unless they are in the ``played`` trick events that follow), the marriages
    and a close."""
    trump = SUITS[state.trump]
    dealt = CARDS[state.trump_card] if state.trump_card is not None else Card.parse("J" + trump.value)
    events: list[dict] = [{"type": "deal", "trump": trump.value, "trump_card": dealt.code}]
    if state.trump_card is None:
        events.append({"type": "take", "seat": 1, "card": dealt.code})
    in_played = {entry["card"] for event in played for entry in event["cards"]}
    for winner, pile in enumerate(state.won):
        ordered = sorted(card for card in DECK.card_tuple(pile) if card.code not in in_played)
        events += [trick_event(winner, lead.code, reply.code, winner) for lead, reply in zip(ordered[::2], ordered[1::2])]
    events += [
        {"type": "marriage", "seat": m.seat, "value": m.points(state.trump), "card": DECK.code(m.card)} for m in state.marriages
    ]
    if state.closing:
        events.append({"type": "close", "seat": state.closing.seat})
    return SeatInfo("sixty-six", seat, state.match.options, GAME.view(state, seat), (*events, *played))


def basic(state: SixtySixState, seat: int = 0, **given) -> Action:
    return BasicPlayer().choose(seat_info(state, seat, **given), "seed")


def expert(state: SixtySixState, seat: int = 0, **given) -> Action:
    return ExpertPlayer().choose(seat_info(state, seat, **given), "seed", Budget(work=3000))


# --- what a seat knows --------------------------------------------------------------------------


def test_a_seat_counts_points_from_the_tricks_and_marriages_it_saw():
    state = table("9C", "9D", "JC QC", trump_card="AH", won=("AS TS", "KD JD"), announced=((0, "QS"),), open_scores=False)
    knowledge = read(seat_info(state, 0))
    assert GAME.view(state, 0)["points"] is None
    assert (knowledge.points(0), knowledge.points(1)) == (11 + 10 + 20, 4 + 2)


def test_a_marriage_counts_only_once_its_announcer_won_a_trick():
    state = table("9C", "9D", "JC QC", trump_card="AH", won=("", "AS TS"), announced=((0, "QH"),))
    assert read(seat_info(state, 0)).points(0) == 0


def test_phase_2_failures_to_follow_to_win_and_to_trump_bar_cards_from_the_opponent():
    state = table("AC 9C", "TC KC", "JC QC", closing=(0, 0, 0), trump_card="AH")
    played = (
        trick_event(0, "9S", "KD", 0, phase=2),  # no spade, no trump
        trick_event(0, "QD", "JD", 0, phase=2),  # no diamond above the queen
    )
    barred = {CARDS[card].code for card in members(read(seat_info(state, 0, played=played)).barred)}
    assert {"JS", "QS", "KS", "TS", "AS", "9H", "JH", "QH", "KH", "TH", "TD", "AD"} == barred


def test_the_unseen_cards_are_the_opponents_hidden_cards_and_the_talon_and_bars_are_sound():
    rng = random.Random(5)
    for number, options in enumerate(ALL_OPTIONS[::3]):
        state, events = GAME.new_game(GAME.parse_options({**options, "target": 5}), f"know{number}")
        logs = SeatLogs(2)
        logs.record(events)
        while GAME.result(state) is None:
            for seat in range(2):
                knowledge = read(logs.info(GAME, state.match.options, state, seat))
                opponent = state.hands[1 - seat]
                hidden = set(members(opponent & ~state.shown[1 - seat])) | set(state.talon)
                assert set(members(knowledge.unseen)) == hidden
                assert not set(members(opponent)) & set(members(knowledge.barred))
                assert (knowledge.points(0), knowledge.points(1)) == (state.points(0), state.points(1))
            seat = rng.choice(GAME.to_act(state))
            state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
            logs.record(events)


def test_deal_value_gives_a_closed_deal_played_out_to_the_closer_who_reached_66():
    rules = DealRules(0)
    # seat 0 closed and has 67; seat 1 won the last trick and has 38 (72 with a marriage)
    assert deal_value(rules, Closing(0, 10, 1), (67, 38), (4, 4), None, 1) == 1
    assert deal_value(rules, Closing(0, 10, 1), (67, 72), (4, 4), None, 1) == 1
    assert deal_value(rules, Closing(0, 10, 1), (65, 38), (4, 4), None, 1) == -2


def test_a_marriage_that_makes_66_ends_the_deal_in_search_only_where_the_rules_let_it_come_with_a_claim():
    # Schnapsen, hearts trump, talon exhausted: seat 0 has won 30 points, seat 1 20; seat 0
    # leads the king of hearts announcing the trump marriage (40): 70
    def value(marriage_claims: bool) -> float:
        rules = DealRules(SUITS.index(Suit.HEARTS), schnapsen=True, marriage_claims=marriage_claims)
        hands = [DECK.mask(cards("KH QH JS")), DECK.mask(cards("AH TS AS"))]
        position = Position(rules, hands, (), None, [30, 20], [0, 0], [1, 1], 0)
        return Solver(rules, None, [10**6], lambda: False).value_of_lead(position, DECK.number[Card.parse("KH")], True, 3)

    assert value(marriage_claims=True) == 2  # claimed at once: seat 1 under 33
    # VU's rule: the ace of hearts takes the king (seat 1: 35), and seat 0 only counts its 70 on
    # winning the last trick with its queen of hearts, seat 1 then past 33
    assert value(marriage_claims=False) == 1


def test_a_deal_played_out_ends_at_a_marriage_that_makes_66_only_where_the_rules_let_it_come_with_a_claim():
    for marriage_claims in (True, False):
        rules = DealRules(SUITS.index(Suit.HEARTS), schnapsen=True, marriage_claims=marriage_claims)
        hands = [DECK.mask(cards("KH QH JS")), DECK.mask(cards("AH TS AS"))]
        position = Position(rules, hands, (), None, [30, 20], [0, 0], [1, 1], 0)
        assert position.announce(DECK.number[Card.parse("KH")]) is marriage_claims and position.points(0) == 70


def test_a_deal_played_out_ends_with_a_claim_as_soon_as_the_leader_counts_66():
    # at exactly 66, with the other side at 20 (no schneider escaped): two game points at once;
    # played on, the other side would take both tricks and 23 points
    rules = DealRules(SUITS.index(Suit.HEARTS))
    position = Position(rules, [DECK.mask(cards("9S JS")), DECK.mask(cards("AS TS"))], (), None, [66, 20], [0, 0], [1, 1], 0)
    assert play_out(position, [10**9]) == 2


def test_deal_value_scores_every_ending_as_the_engine_does():
    rng = random.Random(7)
    checked = 0
    for number, options in enumerate(ALL_OPTIONS):
        rules = DealRules(0, schnapsen=options["variant"] == "schnapsen", last_trick_ten=options["exhausted_talon"] == "last-trick-ten")
        state, _ = GAME.new_game(GAME.parse_options({**options, "target": 5}), f"value{number}")
        last_winner = None
        while GAME.result(state) is None:
            seat = rng.choice(GAME.to_act(state))
            state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
            for event in (event.data for event in events):
                if event["type"] == "trick":
                    last_winner = event["winner"]
                elif event["type"] == "deal_result":
                    ten = event["last_trick_ten"]
                    points = tuple(scored - (10 if held == ten else 0) for held, scored in enumerate(event["points"]))
                    closing = Closing(event["closed_by"], **event["at_close"]) if event["closed_by"] is not None else None
                    claimant = None if event["deemed_claim"] else event["claimed_by"]
                    value = deal_value(rules, closing, points, tuple(event["tricks"]), claimant, last_winner)
                    assert value == event["game_points"][0] - event["game_points"][1], event
                    checked += 1
    assert checked > 100


# --- basic: rules of thumb ----------------------------------------------------------------------


def test_basic_follows_with_the_lowest_card_of_the_suit_that_wins():
    state = table("TS AS 9H JC QD 9D", "9C", "JD QC", trump_card="AH", leader=1, trick="KS")
    assert basic(state) == play("TS")


def test_basic_trumps_a_led_ten_with_its_lowest_trump():
    state = table("JH AH 9C JD QC KD", "9S", "JS QS", trump_card="TH", leader=1, trick="TS")
    assert basic(state) == play("JH")


def test_basic_keeps_its_trumps_and_throws_its_cheapest_card_on_a_low_lead():
    state = table("AH JH TC JD 9C AD", "9S", "JS QS", trump_card="TH", leader=1, trick="9S")
    assert basic(state) == play("9C")


def test_basic_does_not_break_a_marriage_to_win_a_low_trick():
    state = table("KS QS 9C AH JD TC", "9S", "JS TS", trump_card="TH", leader=1, trick="9S")
    assert basic(state) == play("9C")


def test_basic_throws_the_card_least_worth_keeping():
    def thrown(choices: str, hand: str, outstanding: str) -> str:
        masks = (DECK.mask(cards(codes)) for codes in (choices, hand, outstanding))
        return DECK.code(cheapest(*masks, DealRules(SUITS.index(Suit.CLUBS))))

    # a ten is kept, above an ace of another suit, while its own ace is out; once that is not, its points decide
    assert thrown("TD AS", "TD AS", "AD") == "AS"
    assert thrown("TD AS", "TD AS", "") == "TD"
    # a king is kept beside its queen, above a king whose queen may still come
    assert thrown("KH KS", "KH QH KS", "QS") == "KS"


def test_basic_follows_in_phase_2_with_the_lowest_card_that_wins():
    state = table("AS KS 9H", "JC TC", leader=1, trick="QS")
    assert basic(state) == play("KS")


def test_basic_counts_trumps_out_leading_its_top_trump_while_the_opponent_may_hold_one():
    state = table("AH 9H AS 9C", "TH KS QC JC")
    assert basic(state) == play("AH")


def test_basic_cashes_its_master_card_once_the_opponent_has_no_trump():
    state = table("AS 9H 9C JD", "TS KC QC JC", won=("TH AH KH QH", "JH 9D"))
    assert basic(state) == play("AS")


def test_basic_claims_as_soon_as_its_count_reaches_66():
    won = ("AS TS AC TC KS QS 9S JS", "9D JD")  # 51, and a marriage of 20
    state = table("JC", "9C", "QC KC", trump_card="AH", won=won, announced=((0, "QS"),))
    assert basic(state) == DECLARE


def test_basic_does_not_claim_short_of_66():
    state = table("JC", "9C", "QC KC", trump_card="AH", won=("AS TS AC TC KS 9S", "9D JD"))
    assert basic(state) != DECLARE


def test_basic_claims_with_its_marriage_when_it_counts_66_with_it_and_else_announces_it_plainly():
    # 49 won and the diamond marriage 20: 69; with 21 won, 41
    reaching = table("KD QD 9C", "9S", "JC QC", trump_card="AH", won=("AS TS AC TC KS QS", "9D JD"))
    short = table("KD QD 9C", "9S", "JC QC", trump_card="AH", won=("AS TS", "9D JD"))
    assert basic(reaching) == Marriage(Card.parse("QD"), declare=True)
    assert basic(short) == Marriage(Card.parse("QD"))


def test_basic_announces_a_marriage_leading_the_queen_and_the_trump_marriage_first():
    state = table("KS QS KH QH 9C JD", "9S", "JS TS", trump_card="TH", won=("AC TC", ""))
    assert basic(state) == Marriage(Card.parse("QH"))


def test_basic_exchanges_the_trump_nine():
    state = table("9H 9C JD QC KD AS", "9S", "JS TS", trump_card="TH", won=("AC TC", ""))
    assert basic(state) == EXCHANGE


def test_basic_closes_when_its_points_and_sure_tricks_make_66():
    # 32 won; the top three trumps win 25 and three cards of the opponent's
    state = table("AH TH KH 9C JD 9S", "JS", "QS KS AD", trump_card="JH", won=("AS TS AC 9D", "QC KC"))
    assert basic(state) == CLOSE


def test_basic_does_not_close_a_weak_hand():
    state = table("JH QS KH 9C JD 9S", "JS", "KS AD", trump_card="TH", won=("AS TS AC 9D", "QC KC"))
    assert basic(state) != CLOSE


# --- expert: search -----------------------------------------------------------------------------


def outcome(state: SixtySixState, seat: int, actor: int, action: Action) -> int:
    """The game points ``seat`` makes (negative: the opponent's) once ``actor`` takes ``action``,
    with perfect play by both after it."""
    after, events = GAME.apply(state, actor, action)
    results = [event.data for event in events if event.data["type"] == "deal_result"]
    if results:
        return results[0]["game_points"][seat] - results[0]["game_points"][1 - seat]
    return best_game_points(after, seat)


def best_game_points(state: SixtySixState, seat: int) -> int:
    """The game points ``seat`` makes from here with perfect play by both, trying every legal
    action on the engine."""
    (actor,) = GAME.to_act(state)
    outcomes = [outcome(state, seat, actor, action) for action in GAME.legal_actions(state, actor)]
    return max(outcomes) if actor == seat else min(outcomes)


def exhausted_positions(variant: str, count: int) -> list[tuple[SixtySixState, SeatInfo]]:
    """Positions of random play with the talon exhausted, three or four cards in hand and a
    choice to make, with the information of the seat to act."""
    found, rng = [], random.Random(11)
    for number in itertools.count():
        state, events = GAME.new_game(GAME.parse_options({"variant": variant, "target": 11}), f"endgame{number}")
        logs = SeatLogs(2)
        logs.record(events)
        while state.match.deal_number == 1:
            (seat,) = GAME.to_act(state)
            legal = GAME.legal_actions(state, seat)
            if not state.talon and state.hands[seat].bit_count() in (3, 4) and len(legal) > 1:
                found.append((state, logs.info(GAME, state.match.options, state, seat)))
                if len(found) == count:
                    return found
                break
            state, events = GAME.apply(state, seat, rng.choice(legal))
            logs.record(events)
    raise AssertionError("unreachable")


@pytest.mark.parametrize("variant", ["sixty-six", "schnapsen"])
def test_expert_plays_an_exhausted_talon_perfectly(variant):
    for state, info in exhausted_positions(variant, 12):
        chosen = ExpertPlayer().choose(info, "seed", Budget(work=3000))
        assert outcome(state, info.seat, info.seat, chosen) == best_game_points(state, info.seat), (state, chosen)


def test_expert_keeps_its_master_ten_to_win_the_last_trick_where_the_rules_of_thumb_cash_it():
    # 40 to 50, trump spades: cashing the ten lets the opponent trump in and keep the lead to
    # the last trick; leading the queen first, the ten wins the club back and the last trick
    won = ("TD AD 9H KH 9S TS JS QS", "JC QC AC 9D JD KD TH QH AH KS")
    state = whole(table("TC QD JH", "9C KC AS", trump="S", won=won))
    assert basic(state) == play("TC")
    assert expert(state) in (play("QD"), play("JH"))


def test_expert_leads_to_the_talons_last_trick_against_the_best_reply_not_the_basic_one():
    # Schnapsen, trump diamonds, one card face down: five of the six unseen cards (AC AS QC JS QD
    # KD) are the opponent's, who needs 13 more points. The basic reply throws a low card to the
    # heart king, which the opponent's best reply trumps, to take the trick and draw the last card;
    # the trump ace cannot be taken. The expert weighs each lead against the opponent's best reply.
    won = ("", "TH JC TS TD QS AH KS QH")
    state = whole(table("TC KC KH AD JH", "QC AC JS QD AS", "KD", trump_card="JD", trump="D", won=won, variant="schnapsen"))
    assert expert(state) == play("AD")


def test_expert_closes_a_hand_that_carries_the_deal():
    hands = ("AH TH KH AS TS 9C", "JS QS KS 9D JD QD")
    state = whole(table(*hands, "9H QH JC KC KD TD AD", trump_card="JH", won=("AC TC", "9S QC")))
    assert expert(state) == CLOSE


def test_near_the_target_every_deal_won_is_worth_the_match():
    knowledge = read(seat_info(table("9C", "9D", "JC QC", trump_card="AH"), 0))
    close_to_it = utilities(replace(knowledge, scores=(6, 0)))
    assert close_to_it[3 + 1] == close_to_it[3 + 3] == 1.0
    assert close_to_it[3 - 3] < close_to_it[3 - 1] < close_to_it[3 + 1]
    level = utilities(knowledge)
    assert list(level) == sorted(set(level))  # far from it, every game point counts


@pytest.mark.parametrize("level", [BasicPlayer(), ExpertPlayer()], ids=["basic", "expert"])
def test_both_levels_exchange_the_trump_jack_in_schnapsen_before_winning_a_trick(level):
    hands = ("JH QC KD AS TS", "QS KS AD TD QD")
    talon = "KH QH TH JC KC TC AC JS JD"
    state = whole(table(*hands, talon, trump_card="AH", variant="schnapsen"))
    assert level.choose(seat_info(state, 0), "seed", SMALL) == EXCHANGE


@pytest.mark.parametrize("level", [BasicPlayer(), ExpertPlayer()], ids=["basic", "expert"])
def test_both_levels_claim_with_their_marriage_when_it_makes_66_and_never_short_of_it(level):
    hands = ("KD QD 9C JH 9H JD", "9S JS QS KS JC QC")
    reaching = whole(table(*hands, "QH KH TH TD AD", trump_card="AH", won=("AS TS AC TC KC 9D", "")))  # 46 + 20
    short = whole(table(*hands, "QH KH TH TD AD", trump_card="AH", won=("AS TS", "AC TC KC 9D")))  # 21 + 20
    chosen = level.choose(seat_info(reaching, 0), "seed", SMALL)
    assert chosen.type == "marriage" and chosen.declare
    chosen = level.choose(seat_info(short, 0), "seed", SMALL)
    assert chosen != DECLARE and not (isinstance(chosen, Marriage) and chosen.declare)


def test_after_a_marriage_without_the_claim_both_levels_reply_with_a_card():
    hands = ("KD 9C JD 9H JH", "9S JS QS KS JC QC")
    talon = "QH KH TH KC TC AC 9D TD AD"
    state = whole(table(*hands, talon, trump_card="AH", trick="QD", won=("AS TS", ""), announced=((0, "QD"),), shown=("KD", "")))
    info = seat_info(state, 1)
    for level in (BasicPlayer(), ExpertPlayer()):
        assert level.choose(info, "seed", SMALL) in info.legal_actions()


# --- expert: the deals it plays out ------------------------------------------------------------


class Recorded(Position):
    """A sampled deal that keeps the tricks played on it, as (lead, reply) codes."""

    def trick(self, lead: int, reply: int) -> bool:
        self.played.append((DECK.code(lead), DECK.code(reply)))
        return super().trick(lead, reply)


def open_deal(talon: str) -> Recorded:
    """Schnapsen, trump hearts, seat 0 to lead with the talon open: ``talon`` face down, the
    heart jack face up under it."""
    rules = DealRules(trump=SUITS.index(Suit.HEARTS), schnapsen=True)
    hands = [DECK.mask(cards("AS QC JC KD JD")), DECK.mask(cards("TS AC TC QD AD"))]
    deal = Recorded(rules, hands, (*numbers(talon), DECK.number[Card.parse("JH")]), None, [0, 0], [0, 0], [0, 0], 0)
    deal.played = []
    return deal


def copied(deal: Recorded) -> Recorded:
    twin = Recorded(deal.rules, deal.hands[:], deal.talon, deal.closing, deal.won[:], deal.marriage[:], deal.tricks[:], deal.leader)
    twin.played = []
    return twin


class NeverAtRandom(Random):
    def randrange(self, *bounds: int) -> int:  # type: ignore[override]
        return 1


class AlwaysTheHighestCard(Random):
    def randrange(self, *bounds: int) -> int:  # type: ignore[override]
        return 0

    def choice(self, seq: Sequence[int]) -> int:  # type: ignore[override]
        return max(seq)


def test_a_deal_played_out_without_random_moves_follows_the_rules_of_thumb():
    deal, by_the_rules = open_deal("KS QS AH"), open_deal("KS QS AH")
    assert play_out(deal, [10**6], NeverAtRandom()) == play_out(by_the_rules, [10**6])
    assert deal.played == by_the_rules.played and len(deal.played) == 7


def test_a_random_move_while_the_talon_is_open_is_the_card_drawn_and_the_rules_of_thumb_play_on_once_it_is_empty():
    # one card face down: the first trick empties the talon, both its cards drawn at random
    # (the highest numbers: the spade ace and ten); the rest follows the rules of thumb
    deal = open_deal("KS")
    play_out(deal, [10**6], AlwaysTheHighestCard())
    assert deal.played[0] == ("AS", "TS")
    after_the_first_trick = copied(open_deal("KS"))
    after_the_first_trick.trick(DECK.number[Card.parse("AS")], DECK.number[Card.parse("TS")])
    after_the_first_trick.played = []
    play_out(after_the_first_trick, [10**6])
    assert deal.played[1:] == after_the_first_trick.played


def test_every_candidate_of_a_sample_meets_the_same_random_moves():
    solvers = Solvers([10**6], lambda: False, seed=7)
    first, second = open_deal("KS QS AH"), open_deal("KS QS AH")
    assert finish(first, [10**6], solvers) == finish(second, [10**6], solvers)
    assert first.played == second.played
    by_the_rules = open_deal("KS QS AH")
    play_out(by_the_rules, [10**6])
    assert first.played != by_the_rules.played  # the seed draws random moves


def test_near_the_talons_end_a_deal_played_out_is_searched_once_its_talon_is_gone():
    # one card face down: the rules of thumb play the trick that empties the talon, then the
    # search plays the rest exactly, where the rules of thumb would let seat 0 win the deal
    searched = open_deal("KS")
    solvers = Solvers([10**6], lambda: False, seed=7, search_played_out=True)
    value = play_out(searched, [10**6], NeverAtRandom(), solvers)
    assert searched.played == [("JC", "TC")]
    after_the_first_trick = copied(open_deal("KS"))
    after_the_first_trick.trick(DECK.number[Card.parse("JC")], DECK.number[Card.parse("TC")])
    exact = Solver(after_the_first_trick.rules, None, [10**6], lambda: False).value(after_the_first_trick, 5)  # five tricks to play
    assert value == exact == -1
    assert play_out(open_deal("KS"), [10**6], NeverAtRandom()) == 1


def engine_deal(options: dict, seed: str, tricks: int) -> tuple[tuple[SixtySixState, SeatInfo] | None, int]:
    """A deal played through the engine by two basic players: the state and the information of
    the seat to lead once ``tricks`` tricks are played (None if the deal ended first), and the
    game points the deal gave seat 0, less those it gave seat 1."""
    options = GAME.parse_options(options)
    state, events = GAME.new_game(options, seed)
    logs = SeatLogs(2)
    logs.record(events)
    start, basic = None, BasicPlayer()
    while True:
        (seat,) = GAME.to_act(state)
        info = logs.info(GAME, options, state, seat)
        if start is None and not state.trick.cards and sum(state.tricks) == tricks:
            start = (state, info)
        state, events = GAME.apply(state, seat, basic.choose(info, seed))
        logs.record(events)
        for event in events:
            if event.data["type"] == "deal_result":
                points = event.data["game_points"]
                return start, points[0] - points[1]


@pytest.mark.parametrize("tricks", [0, 2, 4])
def test_a_rollout_plays_the_deal_on_as_the_engine_does_by_the_rules_of_thumb(tricks):
    # under every option set, from a deal's start and from a later lead: the same exchanges,
    # closes, marriages, claims and cards as two basic players, and the same game points
    for options in ALL_OPTIONS:
        for number in range(6):
            start, expected = engine_deal(options, f"rollout-{number}", tricks)
            if start is None:
                continue
            state, info = start
            position = placed(read(info), state.hands[1 - info.seat], state.talon)
            assert play_out(position, [10**9]) == expected, (options, number)


# --- both levels: legal, deterministic, within budget --------------------------------------------

OPEN = table("AH TH 9C JD QS KD", "9S JS QC KC TC AC", "JC QD KS AS TS QH KH", trump_card="JH", won=("AD TD", "9D 9H"))


def test_every_level_plays_only_legal_actions_under_every_option():
    levels = [RandomPlayer(), BasicPlayer(), ExpertPlayer()]
    for number, options in enumerate(ALL_OPTIONS):
        players = [levels[number % 3], levels[(number + 1) % 3]] if number % 4 else [ExpertPlayer(), ExpertPlayer()]
        record = play_match(
            GAME, {**options, "target": 5}, f"legal{number}", players, timer=time.perf_counter, budgets={"expert": SMALL}
        )
        assert record.result.winners


def test_without_events_the_card_under_the_talon_is_read_from_the_view():
    info = replace(seat_info(whole(OPEN), 0), events=())
    assert CARDS[read(info).face_up].code == "JH"
    assert ExpertPlayer().choose(info, "seed", SMALL) in info.legal_actions()


def test_the_same_information_seed_and_budget_give_the_same_action():
    info = seat_info(whole(OPEN), 0)
    for level in (BasicPlayer(), ExpertPlayer()):
        assert len({level.choose(info, "same", Budget(work=1500)) for _ in range(3)}) == 1


@pytest.mark.parametrize(
    "state",
    [
        OPEN,
        OPEN._replace(closing=Closing(0, 0, 1)),
        table("9C TC JC QC KC AC TD KD AD 9H JH QH", "9D JD QD 9S TS JS QS KS AS TH KH AH", no_talon=True),
    ],
    ids=["talon-open", "talon-closed", "no-talon"],
)
def test_past_the_ceiling_the_expert_returns_a_legal_action_at_once(state):
    ticks = itertools.count(0, 10)  # every reading of the clock is ten seconds later
    info = seat_info(whole(state), 0)
    started = time.perf_counter()
    chosen = ExpertPlayer().choose(info, "seed", Budget(work=10**9, ceiling=0.5, timer=lambda: next(ticks)))
    assert time.perf_counter() - started < 0.5
    assert chosen in info.legal_actions()


def test_a_sample_of_the_hidden_cards_keeps_to_what_the_seat_knows():
    # in phase 2 the opponent showed no spade and no trump: its hand comes from clubs and diamonds
    won = ("AD TD 9S JD JS QD QS KD", "")
    state = whole(table("AH TH 9C", "QC KC TC", "KS TS AS 9H JH KH JC AC 9D", trump_card="QH", won=won, closing=(0, 0, 0)))
    played = tuple(trick_event(0, lead, reply, 0, phase=2) for lead, reply in (("9S", "JD"), ("JS", "QD"), ("QS", "KD")))
    knowledge = read(seat_info(state, 0, played=played))
    rng = SeededRandom("seed", "test")
    for _ in range(20):
        opponent = {CARDS[card].code for card in members(sample(knowledge, rng).hands[1])}
        assert len(opponent) == 3 and opponent <= {"QC", "KC", "TC", "JC", "AC", "9D"}


def test_where_the_consistent_deals_are_few_the_expert_weighs_each_once():
    # Schnapsen with one card face down: the opponent holds five of the six unseen cards, the
    # sixth is the talon's, drawn before the face-up jack; six deals in all
    won = ("", "TH JC TS TD QS AH KS QH")
    state = whole(table("TC KC KH AD JH", "QC AC JS QD AS", "KD", trump_card="JD", trump="D", won=won, variant="schnapsen"))
    knowledge = read(seat_info(state, 0))
    deals = [(dealt.hands[1], dealt.talon) for dealt in every_deal(knowledge)]
    assert consistent_deals(knowledge) == len(set(deals)) == len(deals) == 6
    rng = SeededRandom("seed", "test")
    assert {(dealt.hands[1], dealt.talon) for dealt in (sample(knowledge, rng) for _ in range(60))} == set(deals)
    # with the talon closed, only the opponent's hand is placed: three of the six unseen cards
    won = ("AD TD 9S JD JS QD QS KD 9H JH KH JC AC 9D", "")
    closed = read(seat_info(whole(table("AH TH 9C", "QC KC TC", "KS TS AS", trump_card="QH", won=won, closing=(0, 0, 0))), 0))
    assert consistent_deals(closed) == len({dealt.hands[1] for dealt in every_deal(closed)}) == 20
