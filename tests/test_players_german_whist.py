"""German Whist computer players: the basic rules of thumb, the expert's search, and what every
level must keep (legal cards under every option, determinism, the ceiling). Hands are card codes."""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import replace

import pytest

from engine import registry
from engine.cards import FULL_DECK, Suit, cards
from engine.german_whist import NO_TRUMP, PLAYS, SUITS, GermanWhistState
from engine.players import BasicPlayer, Budget, ExpertPlayer, RandomPlayer, SeatInfo, SeatLogs, play_match
from engine.players import german_whist as gw
from engine.cards import STANDARD, members
from engine.rules import Trick
from engine.ruleset import Match

WHIST = registry.get("german-whist")
deck_mask = STANDARD.mask
BASIC, EXPERT = BasicPlayer(), ExpertPlayer()
SMALL = Budget(work=300, ceiling=5.0, timer=time.perf_counter)


def position(
    hand: str,
    opponent: str,
    face_up: str | None = None,
    *,
    played: str = "",
    trick: str = "",
    trump: str | None = "H",
    **option_values,
) -> SeatInfo:
    """Seat 0's information in the middle of a deal; a non-empty ``trick`` is the opponent's lead.

    With a ``face_up`` card it is phase 1: the ``played`` cards are gone and every other card
    lies in the stock under the face-up one. Without, it is phase 2: every card in no hand and
    not in the trick was played. Played cards went two by two in tricks that seat 0 led and won.
    """
    options = WHIST.parse_options(option_values)
    in_hands = set(cards(hand)) | set(cards(opponent)) | set(cards(trick))
    if face_up:
        gone = set(cards(played))
        stock = cards(face_up) + tuple(card for card in FULL_DECK if card not in in_hands | gone | set(cards(face_up)))
    else:
        stock = ()
    gone_in_order = [card for card in FULL_DECK if card not in in_hands and card not in stock]
    tricks = len(gone_in_order) // 2
    state = GermanWhistState(
        match=Match.start(options, "test", 2),
        hands=(deck_mask(cards(hand)), deck_mask(cards(opponent))),
        stock=tuple(card.index for card in stock),
        trump=SUITS.index(Suit(trump)) if trump else NO_TRUMP,
        trick=Trick(1 if trick else 0, tuple(card.index for card in cards(trick))),
        won=((min(tricks, 13), max(0, tricks - 13)), (0, 0)),
        shown=(0, 0),
    )
    events = [{"type": "deal", "trump": trump}] + [
        {"type": "trick", "cards": [{"seat": 0, "card": first.code}, {"seat": 1, "card": second.code}], "winner": 0}
        for first, second in zip(gone_in_order[::2], gone_in_order[1::2])
    ]
    return SeatInfo("german-whist", 0, options, WHIST.view(state, 0), tuple(events))


def basic(info: SeatInfo) -> str:
    return BASIC.choose(info, "test").card.code


def expert(info: SeatInfo, work: int = 2000) -> str:
    return EXPERT.choose(info, "test", Budget(work=work, ceiling=5.0, timer=time.perf_counter)).card.code


def decision_points(options: dict, seed: str, every: int = 1):
    """SeatInfo of the seat to act along a deal played by random players."""
    options = WHIST.parse_options(options)
    state, events = WHIST.new_game(options, seed)
    logs = SeatLogs(2)
    logs.record(events)
    chooser = RandomPlayer()
    for version in itertools.count():
        if WHIST.result(state) is not None:
            return
        (seat,) = WHIST.to_act(state)
        info = logs.info(WHIST, options, state, seat)
        if version % every == 0:
            yield info
        state, events = WHIST.apply(state, seat, chooser.choose(info, f"{seed}:{version}"))
        logs.record(events)


# --- basic: phase 1 ----------------------------------------------------------------------------


def test_basic_wins_a_valuable_face_up_card_with_the_lowest_card_that_wins():
    assert basic(position("3C 9C KC 4D", "5D 6D 7D", "AH", trick="8C")) == "9C"


def test_basic_throws_its_lowest_card_for_a_worthless_face_up_card():
    assert basic(position("3C 9C KC 4D", "5D 6D 7D", "2S", trick="8C")) == "3C"
    # the two of clubs is card 0 of the deck: face up, it is a prize like any other
    assert basic(position("3D 9D KD 4S", "5H 6H 7H", "2C", trick="8D")) == "3D"


def test_basic_keeps_its_trumps_rather_than_ruff_for_a_worthless_face_up_card():
    assert basic(position("2H 9H 4D 8D", "5D 6D 7D", "2S", trick="8C")) == "4D"


def test_basic_ruffs_with_its_lowest_trump_for_a_trump_face_up_card():
    assert basic(position("2H 9H 4D 8D", "5D 6D 7D", "KH", trick="8C")) == "2H"


def test_basic_keeps_its_trumps_rather_than_ruff_for_a_side_ace():
    assert basic(position("2H 9H 4D 8D", "5D 6D 7D", "AS", trick="8C")) == "4D"


def test_basic_leads_a_sure_winner_for_a_valuable_face_up_card():
    assert basic(position("AC 3D 7S 4H", "5D 6D 7D 2C", "AH")) == "AC"


def test_basic_leads_its_lowest_card_for_a_worthless_face_up_card():
    assert basic(position("AC 3D 7S 4H", "5D 6D 7D 2C", "2S")) == "3D"
    assert basic(position("AC 2C 3D 7S", "5D 6D 7D 4C", "2S")) == "2C"  # card 0 is a card to lead


@pytest.mark.parametrize("face_up", ["3C", "2C"])
def test_basic_gives_up_a_low_trump_for_an_unknown_card_rather_than_spend_a_sure_winner_on_a_worthless_face_up_card(face_up):
    # 3S is sure (every other spade is played) and worth a trick; 5H is worth more, but losing
    # it brings an unknown card, likely a trump: what losing brings is weighed with any face-up card
    assert basic(position("3S 5H", "4D 5D", face_up, played="2S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")) == "5H"


def test_basic_counts_trumps_out_a_king_is_a_sure_winner_once_the_ace_is_played():
    assert basic(position("KH 3D 7S", "5D 6D 7D", "QH", played="AH 2H")) == "KH"
    assert basic(position("KH 3D 7S", "5D 6D 7D", "QH")) == "3D"


# --- basic: phase 2 ----------------------------------------------------------------------------


def test_basic_follows_with_the_lowest_card_that_wins():
    assert basic(position("3S 9S KS 4D", "5D 6D 7D", trick="8S")) == "9S"


def test_basic_follows_with_the_lowest_card_when_it_cannot_win():
    assert basic(position("3S 9S KS 4D", "5D 6D 7D", trick="AS")) == "3S"


def test_basic_ruffs_with_its_lowest_trump_when_void():
    assert basic(position("5H QH 4D", "5D 6D", trick="8S")) == "5H"
    assert basic(position("5C QC 4D", "5D 6D", trick="8S", trump="C")) == "5C"  # clubs are suit 0


def test_basic_discards_its_lowest_card_when_it_can_neither_follow_nor_ruff():
    assert basic(position("QC 4D 9D", "5D 6D", trick="8S")) == "4D"


def test_basic_draws_trumps_with_the_top_trump():
    assert basic(position("AH 3H AS 4D", "5H 6D 7D 8C")) == "AH"
    assert basic(position("AC 3C AS 4D", "5C 6D 7D 8H", trump="C")) == "AC"


def test_basic_cashes_a_sure_winner():
    assert basic(position("AS 4D 3C", "5S 6D 7C")) == "AS"


def test_basic_without_a_sure_winner_leads_its_lowest_card():
    assert basic(position("9S 4D 3H", "AS AD 7H")) == "4D"


def test_basic_without_trump_fears_no_ruff():
    assert basic(position("AS 4D", "5H 6D")) == "4D"  # the opponent would ruff the ace
    assert basic(position("AS 4D", "5H 6D", trump=None, no_trump=True)) == "AS"


def test_basic_under_misere_ducks_with_the_highest_card_that_loses():
    assert basic(position("3S 9S KS 4D", "5D 6D 7D", trick="TS", misere=True)) == "9S"


def test_basic_under_misere_wins_with_its_highest_card_when_it_must():
    assert basic(position("JS KS 4D", "5D 6D", trick="TS", misere=True)) == "KS"


def test_basic_under_misere_discards_its_highest_card_rather_than_ruff():
    assert basic(position("2H KC 4D", "5D 6D", trick="8S", misere=True)) == "KC"
    assert basic(position("KC 5H 4D", "5D 6D", trick="8S", trump="C", misere=True)) == "5H"  # clubs: suit 0


# --- expert ------------------------------------------------------------------------------------


def test_expert_solves_the_ending_leading_the_loser_while_the_ace_still_guards():
    # AD first lets the opponent keep its trump for the spade: one trick; QS first wins two
    info = position("8D AD QS", "7D QD 7H")
    assert basic(info) == "AD"
    assert expert(info) == "QS"


def test_expert_discards_the_loser_and_keeps_the_guard_of_its_king():
    # throwing 9D bares the king under the ace: no trick; throwing QS keeps one
    info = position("9D KD QS", "JD AD", trick="KC")
    assert basic(info) == "9D"
    assert expert(info) == "QS"


def test_expert_under_misere_unloads_the_king_while_a_club_is_sure_to_go_under():
    # 8C first is overtaken and the king must win later; KC first keeps 8C to duck the last club
    info = position("8C KC AS", "9C TC 9D", misere=True)
    assert basic(info) == "8C"
    assert expert(info) == "KC"


def test_expert_in_a_lost_ending_leaves_the_opponent_the_most_ways_to_err():
    # every lead loses all three tricks to perfect play; after KD, two replies of three give it away
    info = position("TC KD TH", "AC 9H AH")
    assert basic(info) == "TC"
    assert expert(info) == "KD"
    # either lead takes one trick of two against perfect play; after 2C (card 0, a trump here) the
    # opponent may throw KH
    assert expert(position("2C 3H", "6D KH", trump="C")) == "2C"


def test_expert_following_in_a_lost_ending_leaves_the_opponent_a_lead_that_gives_a_trick_away():
    # ruffing with QH, or throwing JS or 6C, all lose two tricks to perfect play; after 6C goes,
    # the opponent on lead again gives one back if it leads 7H (QH wins it, then JS)
    assert expert(position("QH JS 6C", "9C 7H", trick="5D")) == "6C"
    # ruffing with 6H, or throwing 9C or 2C (card 0), all lose two tricks of three; after 2C goes,
    # a lead of 4C gives one back (9C wins it, then 6H)
    assert expert(position("2C 9C 6H", "4C QC", trick="AD")) == "2C"


@pytest.mark.parametrize(("hand", "opponent", "trump"), [("2C KD 4H 5H", "3H QH 7S QS", "S"), ("2C 5C 6C 8C 9D AD", "TC JC 6D TD 9S JS", "D")])
def test_expert_out_of_work_in_phase_2_leads_what_its_search_proved_best_so_far(hand, opponent, trump):
    # 40 positions do not finish the search; the lead it had proven best is the full search's lead
    info = position(hand, opponent, trump=trump)
    assert expert(info, work=40) == expert(info, work=100_000) == "2C"


def test_expert_wins_the_trump_ace_when_it_can():
    assert expert(position("3C 9C 4D 2S 5S", "5D 6D 7D 8D", "AH", trick="8C")) == "9C"


def test_expert_wins_the_trump_ace_with_the_card_just_above_the_one_led():
    # 7C and 9C touch once 8C is gone, but while 8C lies in the trick only 9C wins it
    assert expert(position("7C 9C 4D 2S 5S", "5D 6D 7D 8D", "AH", trick="8C")) == "9C"


def test_expert_wins_the_two_of_trumps_face_up_as_any_phase_1_prize():
    # the two of clubs is card 0: a face-up card, not the -1 that marks phase 2
    assert expert(position("9D 3D 4S 5S 6S", "5H 6H 7H 8H", "2C", trick="8D", trump="C")) == "9D"


def test_expert_in_phase_2_wins_with_the_card_just_above_the_one_led():
    # 9C takes the trick and 7C the next, clubs being gone from the other hand; 7C takes nothing
    assert expert(position("7C 9C 2D", "3D 4D", trick="8C")) == "9C"


def test_expert_where_the_deal_is_the_whole_match_plays_for_the_win_not_the_margin():
    # a phase-1 lead of a random deal: with margins counting (a target of 5) the expert keeps AD
    # and leads QD; where only the deal's winner counts it leads AD (both picks as at 200,000 work)
    info = next(itertools.islice(decision_points({}, "g", every=2), 12, None))
    assert info.options["target"] == 0 and info.view["face_up"]
    assert expert(info, work=15000) == "AD"
    assert expert(replace(info, options={**info.options, "target": 5}), work=15000) == "QD"


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("trump", [None, "C", "H"])  # clubs: suit 0
def test_exact_search_agrees_with_plain_minimax_on_small_endings(misere, trump):
    rng = random.Random(f"{misere}{trump}")
    trump_index = gw.SUITS.index(trump) if trump else -1
    for _ in range(40):
        dealt = rng.sample(range(52), 8)
        lead, follow = sum(1 << card for card in dealt[:4]), sum(1 << card for card in dealt[4:])
        solver = gw.Solver(trump_index, misere, 10**6, lambda: False)
        found = solver.exact(lambda alpha, beta: solver.search(lead, follow, alpha, beta), 0, 4)
        assert found == minimax(lead, follow, trump_index, misere)


def minimax(lead: int, follow: int, trump: int, misere: bool) -> int:
    """The tricks the leader wants (won, or lost under misère), trying every card."""
    if not lead:
        return 0
    best = 0
    for card in members(lead):
        following = follow & gw.SUIT_MASKS[card // 13]
        worst = lead.bit_count()
        for reply in members(following or follow):
            rest_lead, rest_follow = lead ^ 1 << card, follow ^ 1 << reply
            if gw.leader_wins(card, reply, trump):
                value = (not misere) + minimax(rest_lead, rest_follow, trump, misere)
            else:
                value = misere + rest_lead.bit_count() - minimax(rest_follow, rest_lead, trump, misere)
            worst = min(worst, value)
        best = max(best, worst)
    return best


# --- what the expert samples -------------------------------------------------------------------


def test_a_void_shown_caps_the_suit_by_the_cards_drawn_since():
    info = position("2C 3C", "4D 5D", "6D 7D")
    events = (
        {"type": "trick", "cards": [{"seat": 0, "card": "AC"}, {"seat": 1, "card": "2S"}], "winner": 0},
        {"type": "take", "seat": 0, "card": "KS"},
        {"type": "draw", "seat": 1},
        {"type": "trick", "cards": [{"seat": 1, "card": "3S"}, {"seat": 0, "card": "4S"}], "winner": 0},
        {"type": "draw", "seat": 1},
        {"type": "trick", "cards": [{"seat": 1, "card": "QC"}, {"seat": 0, "card": "5S"}], "winner": 0},
    )
    table = gw.read_knowledge(replace(info, events=events))
    assert table.caps == (1, -1, -1, -1)  # two drawn since clubs ran out, one club (QC) played
    discard = {"type": "trick", "cards": [{"seat": 0, "card": "2D"}, {"seat": 1, "card": "5C"}], "winner": 0}
    table = gw.read_knowledge(replace(info, events=events + (discard,)))
    assert table.caps == (0, 0, -1, -1)  # the other club drawn went on a diamond it was out of


def test_a_face_up_card_the_opponent_took_and_plays_leaves_its_cap_as_it_was():
    def trick(first: int, first_card: str, second_card: str, winner: int) -> dict:
        cards = [{"seat": first, "card": first_card}, {"seat": 1 - first, "card": second_card}]
        return {"type": "trick", "cards": cards, "winner": winner}

    events = (
        trick(0, "AH", "2S", 0),  # out of hearts
        {"type": "take", "seat": 0, "card": "KS"},
        {"type": "draw", "seat": 1},
        trick(0, "2D", "AD", 1),
        {"type": "take", "seat": 1, "card": "QH"},  # a heart, in sight
        {"type": "draw", "seat": 0},
        trick(1, "3D", "4D", 1),
        {"type": "take", "seat": 1, "card": "JD"},
        {"type": "draw", "seat": 0},
        trick(1, "QH", "KH", 0),
        {"type": "take", "seat": 0, "card": "QS"},
        {"type": "draw", "seat": 1},
        trick(0, "5H", "2H", 0),  # one of the two cards drawn unseen since was a heart
    )
    info = position("2C 3C", "4D 5D", "6D 7D")
    assert gw.read_knowledge(replace(info, events=events)).caps == (-1, -1, 1, -1)


def knowing(hand: str, unplaced: str, face_up: str, opponent_known: str, trump: int) -> gw.Knowledge:
    """Phase-1 knowledge in which every card but those named was played."""
    named = deck_mask(f"{hand} {unplaced} {face_up} {opponent_known}".split())
    return gw.Knowledge(
        hand=deck_mask(hand.split()), played=deck_mask(card.code for card in FULL_DECK) & ~named,
        opponent_known=deck_mask(opponent_known.split()), opponent_size=2, led=-1, face_up=cards(face_up)[0].index,
        trump=trump, caps=(-1, -1, -1, -1), won=((0, 0), (0, 0)), aim=gw.Aim(), deciding=True,
    )  # fmt: skip


def test_an_unknown_card_is_worth_the_average_of_the_cards_whose_place_is_unknown():
    # AH a top trump (2), AS a top side card (1); KS face up and QD seen taken are not unknown
    assert knowing("2C 3C", "AH AS", "KS", "QD", trump=2).unknown_value() == 1.5
    assert knowing("3C 4C", "AH AS", "2C", "QD", trump=2).unknown_value() == 1.5  # 2C face up is card 0
    # with no card unknown, a card drawn unseen is worth the average from a deal's start
    assert knowing("2C 3C", "", "KS", "QD", trump=0).unknown_value() == gw.UNKNOWN_WORTH[True]


def test_two_cards_are_alike_when_no_live_card_of_another_hand_lies_between_them():
    seven, nine, seven_of_diamonds = (card.index for card in cards("7C 9C 7D"))
    hand = deck_mask("7C 9C 7D".split())
    live = deck_mask(card.code for card in FULL_DECK)
    assert gw._equivalent(seven, nine, hand, live & ~deck_mask(["8C"]))
    assert not gw._equivalent(seven, nine, hand, live)
    assert not gw._equivalent(seven, seven_of_diamonds, hand, live)


@pytest.mark.parametrize("clubs_cap", [1, 0])  # 0: out of clubs, none drawn since
def test_samples_never_place_a_card_the_seat_knows_elsewhere_and_keep_the_caps(clubs_cap):
    rng = gw.SeededRandom("test", "sampler")
    pool = deck_mask("2C 3C 4C 5C 6C 2D 3D 4D 5D 6D".split())
    sampler = gw.Sampler(pool, hidden=4, caps=(clubs_cap, -1, -1, -1))
    for _ in range(200):
        hand, stock = sampler.draw(rng)
        assert hand.bit_count() == 4 and len(stock) == 6
        assert hand | deck_mask(FULL_DECK[card].code for card in stock) == pool
        assert (hand & gw.SUIT_MASKS[0]).bit_count() <= clubs_cap


def test_samples_are_uniform_when_no_cap_bites():
    rng = gw.SeededRandom("test", "uniform")
    pool = deck_mask("2C 3C 4C 5C".split())
    sampler = gw.Sampler(pool, hidden=2, caps=(-1, -1, -1, -1))
    counts: dict[int, int] = {}
    for _ in range(1200):
        hand, _ = sampler.draw(rng)
        counts[hand] = counts.get(hand, 0) + 1
    assert len(counts) == 6 and min(counts.values()) > 150


def test_samples_are_uniform_over_the_hands_the_caps_allow():
    # at most one club and one diamond: 13 hands of two cards, drawn alike
    rng = gw.SeededRandom("test", "capped")
    sampler = gw.Sampler(deck_mask("2C 3C 2D 3D 2H 3H".split()), hidden=2, caps=(1, 1, -1, -1))
    counts: dict[int, int] = {}
    for _ in range(2600):
        hand, _ = sampler.draw(rng)
        counts[hand] = counts.get(hand, 0) + 1
    assert len(counts) == 13 and min(counts.values()) > 140 and max(counts.values()) < 260


# --- the expert's rollouts ---------------------------------------------------------------------


def engine_play_out(options: dict, seed: str, first_cards: int) -> tuple[GermanWhistState, list[list[int]], int]:
    """A deal played through the engine by the rules of thumb as a rollout plays them (each seat
    counting as unseen every card neither in its hand nor played, an unknown card worth the
    average): the state after ``first_cards`` cards, and the tricks each seat then won in each
    phase, and the cards played, from there to the end."""
    options = WHIST.parse_options(options)
    aim = gw.Aim.of(options)
    state, _ = WHIST.new_game(options, seed)
    unknown = gw.UNKNOWN_WORTH[state.trump >= 0]
    start, won, plays = state, [[0, 0], [0, 0]], 0
    while True:
        if plays == first_cards:
            start, won = state, [[0, 0], [0, 0]]
        (seat,) = WHIST.to_act(state)
        hand = state.hands[seat]
        played = gw.ALL_CARDS & ~state.hands[0] & ~state.hands[1] & ~sum(1 << card for card in state.stock)
        led = state.trick.cards[0] if state.trick.cards else -1
        face_up = state.stock[0] if state.stock else -1
        card = gw.rule_of_thumb(hand, gw.ALL_CARDS & ~hand & ~played, led, face_up, state.trump, unknown, aim)
        state, events = WHIST.apply(state, seat, PLAYS[card])
        plays += 1
        for event in events:
            if event.data["type"] == "trick":
                won[event.data["winner"]][event.data["phase"] - 1] += 1
        if any(event.data["type"] == "deal_result" for event in events):
            return start, won, plays - first_cards


def test_a_rollout_that_ends_level_counts_neither_as_won_nor_as_lost():
    counting_all = gw.Aim(count_all=True)
    assert gw.outcome([[6, 7], [7, 6]], counting_all) == 0
    assert gw.outcome([[7, 7], [6, 6]], counting_all) == 2 + gw.WIN_WEIGHT
    assert gw.outcome([[6, 6], [7, 7]], counting_all) == -2 - gw.WIN_WEIGHT


@pytest.mark.parametrize("options", [{}, {"no_trump": True}, {"misere": True}, {"count_all_tricks": True}], ids=str)
@pytest.mark.parametrize("first_cards", [0, 7, 30])
def test_a_rollout_plays_the_deal_on_as_the_engine_does_by_the_rules_of_thumb(options, first_cards):
    for number in range(12):
        start, expected_won, expected_plays = engine_play_out(options, f"rollout-{number}", first_cards)
        played = gw.ALL_CARDS & ~start.hands[0] & ~start.hands[1] & ~sum(1 << card for card in start.stock)
        leader = start.trick.leader
        trick = list(start.trick.cards)
        hands = [start.hands[0], start.hands[1]]
        won, plays = gw.play_out(hands, list(start.stock), played, leader, trick, start.trump, gw.Aim.of(WHIST.parse_options(options)))
        assert (won, plays, hands) == (expected_won, expected_plays, [0, 0]), number


# --- every level: legality, determinism, the ceiling ----------------------------------------


OPTION_SETS = [
    {"no_trump": no_trump, "misere": misere, "count_all_tricks": count_all, "scoring": scoring}
    for no_trump, misere, count_all, scoring in itertools.product([False, True], [False, True], [False, True], ["tricks", "over-six"])
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda options: "-".join(f"{k}={v}" for k, v in options.items()))
def test_mixed_levels_play_only_legal_cards_under_every_option(options):
    # the arena applies every action through the rules, so an illegal card would raise
    for number, players in enumerate([(EXPERT, BASIC), (BASIC, RandomPlayer()), (RandomPlayer(), EXPERT)]):
        record = play_match(
            WHIST, options, f"legal-{number}", players, timer=time.perf_counter, budgets={"expert": Budget(work=60, ceiling=5.0)}
        )
        assert record.result is not None and len(record.deal_results) == 1


def test_the_same_information_seed_and_budget_give_the_same_action():
    for info in decision_points({}, "same", every=5):
        for chosen in (BASIC, EXPERT):
            assert chosen.choose(info, "seed", SMALL) == chosen.choose(info, "seed", SMALL)


def test_a_decision_past_its_ceiling_still_returns_a_legal_action_at_once():
    ticks = itertools.count(step=10.0)  # every look at the clock finds ten more seconds gone
    jumping = Budget(work=100_000, ceiling=0.5, timer=lambda: next(ticks))
    for info in decision_points({}, "ceiling", every=3):
        started = time.perf_counter()
        action = EXPERT.choose(info, "ceiling", jumping)
        assert time.perf_counter() - started < 0.5
        assert action in info.legal_actions()
