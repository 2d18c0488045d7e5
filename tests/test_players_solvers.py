"""The experts' exact searches agree with brute force (every legal card tried, no pruning, no
table) on small positions drawn at random."""

from __future__ import annotations

import random

import pytest

from engine.batak import SEATS, TRICKS, beats, legal_mask, trump_played
from engine.cards import STANDARD, cards, members
from engine.german_whist import legal_cards, leader_wins
from engine.players.batak import Solver as BatakSolver
from engine.players.german_whist import Solver as WhistSolver
from engine.players.sixty_six import Position, deal_value
from engine.players.sixty_six import Solver as Solver66
from engine.players.sixty_six import DealRules as SixtySixRules
from engine.rules import seat_at
from engine.sixty_six import CLAIM, KING, POINTS, QUEEN, Closing, follower_cards, marriage_value, partner, trick_winner


def never() -> bool:
    return False


def dealt_cards(rng: random.Random, count: int, suits: int) -> list[int]:
    """``count`` cards drawn at random from ``suits`` suits drawn at random (four: the whole deck)."""
    chosen = range(4) if suits == 4 else rng.sample(range(4), suits)
    return rng.sample([card for card in range(52) if card // 13 in chosen], count)


# --- Partnership Batak's last tricks ------------------------------------------------------------


def batak_brute(hands: list[int], leader: int, size: int, led: int, win: int, winner: int, may: bool, trump: int, team: int) -> int:
    """The declaring team's tricks from here, by trying every legal card."""
    seat = seat_at(leader, size, SEATS)
    values = []
    for card in members(legal_mask(hands[seat], led, win, trump, may)):
        hands[seat] ^= 1 << card
        if led < 0:
            state = (card // 13, card, seat)
        elif beats(card, win, trump):
            state = (led, card, seat)
        else:
            state = (led, win, winner)
        now_may = may or trump_played(1 << card, trump)
        if size + 1 < SEATS:
            value = batak_brute(hands, leader, size + 1, *state, now_may, trump, team)
        else:
            gained = int(state[2] % 2 == team)
            rest = any(hands)
            value = gained + (batak_brute(hands, state[2], 0, -1, -1, -1, now_may, trump, team) if rest else 0)
        hands[seat] ^= 1 << card
        values.append(value)
    return max(values) if seat % 2 == team else min(values)


def random_batak_position(rng: random.Random, tricks: int, suits: int = 4):
    """Four hands of ``tricks`` cards of ``suits`` suits drawn at random (a few cards played to the
    trick in progress), trump and roles."""
    cards = dealt_cards(rng, 4 * tricks, suits)
    hands = [sum(1 << card for card in cards[seat::4]) for seat in range(SEATS)]
    trump, declarer, leader = rng.randrange(4), rng.randrange(4), rng.randrange(4)
    broken, free = rng.random() < 0.5, rng.random() < 0.2
    trick: list[int] = []
    win = winner = led = -1
    for size in range(rng.randrange(4)):
        seat = seat_at(leader, size, SEATS)
        card = rng.choice(members(legal_mask(hands[seat], led, win, trump, broken or free or trump_played(sum(1 << c for c in trick), trump))))
        hands[seat] ^= 1 << card
        if led < 0:
            led, win, winner = card // 13, card, seat
        elif beats(card, win, trump):
            win, winner = card, seat
        trick.append(card)
    return hands, leader, trick, trump, declarer, broken, free, (led, win, winner)


# with two suits only, more cards lie between a hand's cards of a suit (they are not alike)
@pytest.mark.parametrize(("tricks", "suits"), [(1, 4), (2, 4), (3, 4), (3, 2)])
def test_batak_solver_agrees_with_brute_force(tricks, suits):
    rng = random.Random(tricks if suits == 4 else f"{tricks} of {suits} suits")
    # at three tricks, whether trump may be led changes the value in one position of twenty
    for _ in range(60 if tricks < 3 else 300):
        hands, leader, trick, trump, declarer, broken, free, (led, win, winner) = random_batak_position(rng, tricks, suits)
        solver = BatakSolver(trump, declarer, free, 10**9, never)
        found = solver.tricks(hands, leader, trick, broken)
        may = broken or free or trump_played(sum(1 << card for card in trick), trump)
        expected = batak_brute(list(hands), leader, len(trick), led, win, winner, may, trump, declarer % 2)
        assert found == expected, (hands, leader, trick, trump, declarer, broken, free)
        assert 0 <= found <= TRICKS


def test_batak_solver_leads_trump_before_it_is_broken_only_under_the_option():
    # East declares hearts: leading AH draws South's 9H, and 3S then falls to West's 7S; made to
    # lead 3S, East sees South ruff it with 9H, and AH takes only the last trick
    south, east, north, west = (STANDARD.mask(cards(hand)) for hand in ("9D 9H", "AH 3S", "TC 5S", "JC 7S"))
    hands, hearts, east_seat = [south, east, north, west], 2, 1
    assert BatakSolver(hearts, east_seat, True, 10**9, never).tricks(hands, east_seat, (), False) == 2
    assert BatakSolver(hearts, east_seat, False, 10**9, never).tricks(hands, east_seat, (), False) == 1
    assert BatakSolver(hearts, east_seat, False, 10**9, never).tricks(hands, east_seat, (), True) == 2  # broken


# --- German Whist's second phase ----------------------------------------------------------------


def whist_brute(lead: int, follow: int, trump: int, misere: bool) -> int:
    """The tricks the seat on lead wants (won, or under misère lost) from a trick's start."""
    if not lead:
        return 0
    best = -1
    for card in members(lead):
        worst = 99
        for reply in members(legal_cards(follow, card)):
            rest_lead, rest_follow = lead ^ 1 << card, follow ^ 1 << reply
            n = rest_lead.bit_count()
            if leader_wins(card, reply, trump):
                good = 0 if misere else 1
                value = good + whist_brute(rest_lead, rest_follow, trump, misere)
            else:
                good = 1 if misere else 0
                value = good + n - whist_brute(rest_follow, rest_lead, trump, misere)
            worst = min(worst, value)
        best = max(best, worst)
    return best


# with fewer suits dealt, more positions share a suit's shape: the table's keys are tried harder
@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize(("tricks", "suits"), [(2, 4), (3, 4), (4, 4), (5, 2), (5, 1)])
def test_german_whist_solver_agrees_with_brute_force(tricks, suits, misere):
    rng = random.Random(f"{tricks}-{misere}" if suits == 4 else f"{tricks}-{misere}-{suits} suits")
    for _ in range(40):
        cards = dealt_cards(rng, 2 * tricks, suits)
        lead, follow = sum(1 << card for card in cards[:tricks]), sum(1 << card for card in cards[tricks:])
        trump = rng.randrange(-1, 4)
        solver = WhistSolver(trump, misere, 10**9, never)
        found = solver.exact(lambda alpha, beta: solver.search(lead, follow, alpha, beta), 0, tricks)
        assert found == whist_brute(lead, follow, trump, misere), (lead, follow, trump)


# --- Sixty-Six with the talon closed or exhausted -----------------------------------------------


def sixty_six_brute(table, closing, hands, won, marriage, tricks, leader) -> int:
    """Game points for seat 0 from a lead, both seats claiming as soon as they count 66 and
    announcing every marriage they lead (the solver's rules of the game), trying every card."""

    def end(won, marriage, tricks, claimant, last):
        points = (won[0] + marriage[0] if tricks[0] else 0, won[1] + marriage[1] if tricks[1] else 0)
        return deal_value(table, closing, points, tricks, claimant, last)

    if tricks[leader] and won[leader] + marriage[leader] >= CLAIM:
        return end(won, marriage, tricks, leader, leader)
    values = []
    for lead in members(hands[leader]):
        announced = list(marriage)
        if table.late_marriages and lead % 6 in (QUEEN, KING) and hands[leader] >> partner(lead) & 1:
            announced[leader] += marriage_value(lead, table.trump)
            if tricks[leader] and won[leader] + announced[leader] >= CLAIM:
                values.append(end(won, announced, tricks, leader, leader))
                continue
        replies = []
        for reply in members(follower_cards(hands[1 - leader], lead, table.trump, False)):
            winner = trick_winner(leader, lead, reply, table.trump)
            after = list(hands)
            after[leader] ^= 1 << lead
            after[1 - leader] ^= 1 << reply
            gained, counted = list(won), list(tricks)
            gained[winner] += POINTS[lead] + POINTS[reply]
            counted[winner] += 1
            if not after[winner]:
                replies.append(end(gained, announced, counted, None, winner))
            else:
                replies.append(sixty_six_brute(table, closing, after, gained, announced, counted, winner))
        values.append(max(replies) if leader == 1 else min(replies))
    return max(values) if leader == 0 else min(values)


@pytest.mark.parametrize("schnapsen", [False, True])
@pytest.mark.parametrize("cards", [2, 3, 4])
def test_sixty_six_solver_agrees_with_brute_force(cards, schnapsen):
    rng = random.Random(f"{cards}-{schnapsen}")
    deck = [card for card in range(24) if not schnapsen or card % 6 != 0]
    for _ in range(40):
        dealt = rng.sample(deck, 2 * cards)
        hands = [sum(1 << card for card in dealt[:cards]), sum(1 << card for card in dealt[cards:])]
        table = SixtySixRules(trump=rng.randrange(4), schnapsen=schnapsen)
        tricks = [rng.randrange(3), rng.randrange(3)]
        won = [rng.randrange(0, 50) if tricks[seat] else 0 for seat in range(2)]
        marriage = [rng.choice([0, 0, 20, 40]) for _ in range(2)]
        closing = rng.choice([None, Closing(rng.randrange(2), rng.randrange(40), rng.randrange(3))])
        leader = rng.randrange(2)
        position = Position(table, hands, (), closing, won, marriage, tricks, leader)
        found = Solver66(table, closing, [10**9], never).value(position, cards)
        assert found == sixty_six_brute(table, closing, hands, won, marriage, tricks, leader), (hands, table, won, marriage, tricks, closing, leader)
