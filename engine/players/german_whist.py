"""German Whist computer players: rules of thumb (``basic``) and search (``expert``).

``basic`` plays as a sound casual player. In phase 1 it weighs the face-up prize against what
winning the trick costs (the cheapest card that wins) and what losing brings (an unknown card,
while the opponent takes the prize), valuing cards by their phase-2 chances and trumps above
aces; it counts the cards played, so a king is a sure winner once the ace is gone. In phase 2 it
draws trumps with the top trump, cashes sure winners, follows with the lowest card that wins or
the lowest card otherwise, and ruffs when void. Under misère the aims turn round.

``expert`` searches. In phase 2 every card is known by counting (the opponent holds exactly the
cards that are neither in your hand nor played), so the rest of the deal is a two-player game of
perfect information, solved exactly by alpha-beta on tricks (transposition table keyed on the
cards' relative ranks, touching cards merged, sure-trick bounds, likely best moves first); among
the moves that keep the exact value it picks the one that leaves a fallible opponent the most
ways to give a trick away. In phase 1 it samples the cards it cannot see, the opponent's hand
and the stock order, consistently with all it knows (its hand, the cards played, the face-up
cards the opponent took, the voids the opponent showed since its last draws), plays every
candidate card out in every sample with the rules of thumb for both seats, and keeps the card
with the best total: the counted-trick margin, the deal's win or loss weighed in (above any
margin where the deal is the whole match, a target of 0: only its winner counts).

Cards are the numbers of the engine's deck (suit * 13 + rank - 2, clubs first) and sets of
cards are masks of them; the rules (legal cards, the trick's winner) are the engine's own
functions: the search runs on ints and masks only.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Callable, Iterator

from ..actions import Play
from ..cards import Card, highest, lowest, members
from ..german_whist import (
    BEATERS,
    DECK,
    PLAYS,
    Aim,
    SUIT_MASKS,
    GermanWhistSeat,
    counted_tricks,
    leader_wins,
    legal_cards,
    trick_winner,
)
from ..rules import draw_after_trick
from ..shuffle import SeededRandom
from .base import Budget, SeatInfo, Strategy

SUITS = "CDHS"
ALL_CARDS = DECK.full
#: the higher cards of each card's suit
ABOVE = DECK.above
#: the lower cards of each card's suit
BELOW = DECK.below

#: how likely a side card is to take a phase-2 trick, by the number of higher cards still out
HONOUR = (1.0, 0.6, 0.35, 0.2, 0.1)
#: how much a deal won or lost weighs against its trick margin in the expert's rollouts
WIN_WEIGHT = 2
#: the same where the deal is the whole match (a target of 0): a win outweighs any margin
DECIDING_WIN_WEIGHT = 14


# --- the rules of thumb ----------------------------------------------------------------------


def worth(card: int, unseen: int, trump: int) -> float:
    """What ``card`` is worth for phase 2, in rough tricks, to a seat that cannot see ``unseen``.

    A side card is worth its chance to take a trick; a trump, even a low one, half again as
    much as an ace: it takes a trick and stops one (valued so, basic beats the same rules with
    trumps worth 0.5 to 1 in 60% of deals, and random in 92% instead of 86%).
    """
    higher = (ABOVE[card] & unseen).bit_count()
    chance = HONOUR[higher] if higher < len(HONOUR) else 0.0
    return 1.5 + 0.5 * chance if card // 13 == trump else chance


def _average_worth(trump: int) -> float:
    """The average worth of a card seen from a deal's start (every other card still out)."""
    return sum(worth(card, ALL_CARDS & ~(1 << card), trump) for card in range(52)) / 52


#: what a card drawn unseen is worth on average, without and with a trump suit
UNKNOWN_WORTH = (_average_worth(-1), _average_worth(0))


def rule_of_thumb(hand: int, unseen: int, led: int, face_up: int, trump: int, unknown: float, aim: Aim) -> int:
    """The card a sound casual player plays.

    ``unseen`` holds the cards not in ``hand`` and not played (in phase 2, exactly the
    opponent's hand); ``led`` is the card the opponent led to this trick, or -1 when leading;
    ``face_up`` is the prize of a phase-1 trick, -1 in phase 2; ``trump`` is a suit index or -1;
    ``unknown`` is the average ``worth`` of a card this seat would draw unseen.
    """
    if face_up < 0:
        if aim.misere:
            return _shed(hand, unseen, led, trump)
        return _take(hand, unseen, led, trump)
    if led >= 0:
        legal = legal_cards(hand, led)
        winners = legal & BEATERS[trump][led]
        losers = legal & ~winners
    else:
        winners, playable = 0, unseen & ~(1 << face_up)
        for suit_mask in SUIT_MASKS:
            mine, theirs = hand & suit_mask, playable & suit_mask
            winners |= mine & ABOVE[highest(theirs)] if theirs else mine
        losers = hand & ~winners
    win, win_worth = _cheapest(winners, unseen, trump, aim.misere)
    lose, lose_worth = _cheapest(losers, unseen, trump, aim.misere)
    if win < 0 or lose < 0:
        return lose if win < 0 else win
    # the opponent gets what this seat does not: the prize and the trick count twice, the
    # card given up once
    sign = -1.0 if aim.misere else 1.0
    trick = sign if aim.count_all else 0.0
    gain_winning = 2 * (sign * worth(face_up, unseen, trump) + trick) - win_worth
    gain_losing = 2 * sign * unknown - lose_worth
    return win if gain_winning > gain_losing else lose


def _cheapest(cards: int, unseen: int, trump: int, misere: bool) -> tuple[int, float]:
    """The card of ``cards`` whose loss costs least, and what it is worth (-1 when none).

    Under misère a card's worth counts against it. Worth grows with rank within a suit, so each
    suit offers its lowest card (its highest under misère), and the least worth wins, then the
    lowest rank (the highest under misère).
    """
    best, best_key = -1, (0.0, 0)
    for suit_mask in SUIT_MASKS:
        mine = cards & suit_mask
        if mine:
            if misere:
                card = mine.bit_length() - 1
                key = (-worth(card, unseen, trump), -(card % 13))
            else:
                card = (mine & -mine).bit_length() - 1
                key = (worth(card, unseen, trump), card % 13)
            if best < 0 or key < best_key:
                best, best_key = card, key
    return best, best_key[0]


def _take(hand: int, opponent: int, led: int, trump: int) -> int:
    """Phase 2, taking tricks: draw trumps, cash sure winners, win cheaply, ruff when void."""
    trumps = SUIT_MASKS[trump] if trump >= 0 else 0
    if led >= 0:
        following = hand & SUIT_MASKS[led // 13]
        if following:
            winners = following & ABOVE[led]
            return lowest(winners) if winners else lowest(following)
        if hand & trumps and led // 13 != trump:
            return lowest(hand & trumps)
        return _low(hand & ~trumps or hand)
    opponent_trumps = opponent & trumps
    if hand & trumps and opponent_trumps and highest(hand & trumps) > highest(opponent_trumps):
        return highest(hand & trumps)
    for suit in range(4):
        mine = hand & SUIT_MASKS[suit]
        if suit == trump or not mine:
            continue
        theirs = opponent & SUIT_MASKS[suit]
        if (theirs and highest(mine) > highest(theirs)) or (not theirs and not opponent_trumps):
            return highest(mine)
    if hand & trumps and not opponent_trumps:
        return highest(hand & trumps)
    return _low(hand & ~trumps or hand)


def _shed(hand: int, opponent: int, led: int, trump: int) -> int:
    """Phase 2 under misère: duck with the highest card that loses, win with the highest."""
    trumps = SUIT_MASKS[trump] if trump >= 0 else 0
    if led >= 0:
        following = hand & SUIT_MASKS[led // 13]
        if following:
            losers = following & BELOW[led]
            return highest(losers) if losers else highest(following)
        if led // 13 == trump or not hand & trumps:
            return _high(hand)
        return _high(hand & ~trumps) if hand & ~trumps else highest(hand & trumps)
    safe = [card for card in members(hand) if ABOVE[card] & opponent]
    return min(safe, key=lambda card: card % 13) if safe else _low(hand & ~trumps or hand)


def _low(cards: int) -> int:
    """The lowest-ranked card (of the first suit among equals)."""
    best = -1
    for suit_mask in SUIT_MASKS:
        mine = cards & suit_mask
        if mine:
            card = (mine & -mine).bit_length() - 1
            if best < 0 or card % 13 < best % 13:
                best = card
    return best


def _high(cards: int) -> int:
    """The highest-ranked card (of the last suit among equals)."""
    best = -1
    for suit_mask in SUIT_MASKS:
        mine = cards & suit_mask
        if mine:
            card = mine.bit_length() - 1
            if best < 0 or card % 13 >= best % 13:
                best = card
    return best


# --- what a seat knows -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Knowledge:
    """One seat's knowledge of the deal in progress, as bitmasks."""

    hand: int
    played: int  # every card played to a trick in this deal, the current trick's included
    opponent_known: int  # face-up cards the opponent took and still holds
    opponent_size: int
    led: int  # the card the opponent led to the current trick, or -1 when this seat leads
    face_up: int  # -1 in phase 2
    trump: int  # a suit index, or -1 without trump
    #: per suit, the most cards of it the opponent's unknown cards can hold (-1: no limit)
    caps: tuple[int, ...]
    won: tuple[tuple[int, int], tuple[int, int]]  # (phase-1, phase-2) tricks: this seat's, then the opponent's
    aim: Aim
    deciding: bool  # the deal is the whole match: only its winner counts

    @property
    def unseen(self) -> int:
        """The cards this seat has not seen played and does not hold."""
        return ALL_CARDS & ~self.hand & ~self.played

    def unknown_value(self) -> float:
        """What an unknown card is worth: the average over the cards whose place is unknown."""
        pool = members(self.unseen & ~self.opponent_known & ~(1 << self.face_up if self.face_up >= 0 else 0))
        if not pool:
            return UNKNOWN_WORTH[self.trump >= 0]
        return sum(worth(card, self.unseen, self.trump) for card in pool) / len(pool)


def read_knowledge(info: SeatInfo) -> Knowledge:
    """The seat's knowledge: what its view says (in the engine's masks), and what it saw happen
    in the events of the deal."""
    seen = info.knowledge if info.knowledge is not None else GermanWhistSeat.from_view(info.view)
    seat, opponent = info.seat, 1 - info.seat
    played = opponent_takes = 0
    caps = [-1] * 4
    for event in info.events:
        kind = event["type"]
        if kind == "trick":
            cards = [(entry["seat"], Card.parse(entry["card"]).index) for entry in event["cards"]]
            led_suit = cards[0][1] // 13
            for position, (player, card) in enumerate(cards):
                played |= 1 << card
                if player != opponent:
                    continue
                if caps[card // 13] > 0 and not opponent_takes >> card & 1:
                    caps[card // 13] -= 1  # a card of a suit it showed out of, drawn since, now played
                if position and card // 13 != led_suit:
                    caps[led_suit] = 0  # shown out: only later draws can bring this suit back
        elif kind == "take" and event["seat"] == opponent:
            opponent_takes |= 1 << Card.parse(event["card"]).index
        elif kind == "draw" and event["seat"] == opponent:
            caps = [cap + 1 if cap >= 0 else cap for cap in caps]
    in_trick = seen.trick.cards
    for card in in_trick:
        played |= 1 << card
    hand = seen.hand
    assert hand is not None  # a seat's, not a spectator's
    return Knowledge(
        hand=hand,
        played=played,
        opponent_known=seen.shown[opponent],
        opponent_size=seen.hand_sizes[opponent],
        led=in_trick[0] if in_trick else -1,
        face_up=seen.face_up,
        trump=seen.trump,
        caps=tuple(caps),
        won=(seen.won[seat], seen.won[opponent]),
        aim=Aim.of(info.options),
        deciding=info.options["target"] == 0,
    )


def basic_card(knowledge: Knowledge) -> int:
    """The card the rules of thumb play from the seat's knowledge."""
    unknown = knowledge.unknown_value() if knowledge.face_up >= 0 else 0.0
    return rule_of_thumb(knowledge.hand, knowledge.unseen, knowledge.led, knowledge.face_up, knowledge.trump, unknown, knowledge.aim)


# --- phase 2: exact search -------------------------------------------------------------------


class OutOfWork(Exception):
    """The search used up its work or its time."""


@dataclass(frozen=True, slots=True)
class SuitShape:
    """What the search needs of one suit: its live cards, and those of them one seat holds."""

    pattern: int  # the held cards in relative ranks among the live ones, the live count on top
    runs: tuple[int, ...]  # the lowest rank of each run of held cards touching among the live
    held_tops: int  # how many of the top live cards are held, in sequence
    other_tops: int  # how many of the top live cards the other seat holds, in sequence
    other_count: int  # how many live cards the other seat holds


def _shape(live: int, held: int) -> SuitShape:
    """The shape of one suit, worked out rank by rank."""
    pattern, position, runs, in_run = 0, 0, [], False
    for rank in range(13):
        if live >> rank & 1:
            if held >> rank & 1:
                pattern |= 1 << position
                if not in_run:
                    runs.append(rank)
                in_run = True
            else:
                in_run = False
            position += 1
    tops = [live >> rank & 1 and held >> rank & 1 for rank in range(12, -1, -1) if live >> rank & 1]
    held_tops = tops.index(0) if 0 in tops else len(tops)
    other_tops = tops.index(1) if 1 in tops else len(tops)
    count = (live & ~held).bit_count()
    return SuitShape(pattern | 1 << (13 + position), tuple(runs), held_tops, other_tops, count)


#: suit shapes by ``live << 13 | held`` (13-bit masks), filled as searches meet them and
#: emptied when full (there are 3**13 such pairs; a few thousand deals meet some tens of thousands)
SHAPES: dict[int, SuitShape] = {}
SHAPES_LIMIT = 200_000


def shape(live: int, held: int) -> SuitShape:
    """The shape of one suit: ``live`` and ``held`` are 13-bit masks, ``held`` within ``live``."""
    key = live << 13 | held
    found = SHAPES.get(key)
    if found is None:
        if len(SHAPES) >= SHAPES_LIMIT:
            SHAPES.clear()
        found = SHAPES[key] = _shape(live, held)
    return found


def touching_choices(cards: int, live: int) -> list[int]:
    """One card of each group of ``cards`` that are equivalent: touching within ``live``."""
    choices: list[int] = []
    for suit in range(4):
        held = cards & SUIT_MASKS[suit]
        if held:
            shift = 13 * suit
            choices.extend(shift + rank for rank in shape((live >> shift) & 0x1FFF, held >> shift).runs)
    return choices


class Solver:
    """Exact search of a phase-2 position: both hands known, the rest of the deal to play.

    Values are the tricks that the seat on lead wants (won, or under misère lost) from a
    position at the start of a trick; the two seats' values add up to the tricks left. Searches
    are fail-soft alpha-beta over windows; the table keeps bounds per position, keyed on the
    cards' relative ranks (which cards were played no longer matters), with the best lead.
    """

    def __init__(self, trump: int, misere: bool, work: int, out_of_time: Callable[[], bool]) -> None:
        self.trump = trump
        self.trumps = SUIT_MASKS[trump] if trump >= 0 else 0
        self.good_win = 0 if misere else 1  # what winning a trick is worth to its leader
        self.misere = misere
        self.transpositions: dict[int, tuple[int, int, int]] = {}
        self.nodes = 0
        self.work = work
        self.out_of_time = out_of_time

    @staticmethod
    def shapes(lead: int, follow: int) -> tuple[list[SuitShape], int]:
        """The four suits' shapes seen from the leader, and the position's key in the knowledge."""
        live = lead | follow
        shapes = []
        key = 0
        for shift in (0, 13, 26, 39):
            suit_live = (live >> shift) & 0x1FFF
            found = SHAPES.get(suit_live << 13 | (lead >> shift) & 0x1FFF)
            if found is None:
                found = shape(suit_live, (lead >> shift) & 0x1FFF)
            shapes.append(found)
            key = key << 27 | found.pattern
        return shapes, key

    def best_lead(self, lead: int, follow: int) -> int:
        """The lead that last took the position over a bound, or -1."""
        entry = self.transpositions.get(self.shapes(lead, follow)[1])
        return entry[2] if entry and entry[2] >= 0 and lead >> entry[2] & 1 else -1

    def search(self, lead: int, follow: int, alpha: int, beta: int) -> int:
        """The leader's value at the start of a trick, within the window (alpha, beta)."""
        self.nodes += 1
        if self.nodes >= self.work or (not self.nodes & 255 and self.out_of_time()):
            raise OutOfWork
        n = lead.bit_count()
        trump = self.trump
        if n == 1:
            return self.good_win if leader_wins(highest(lead), highest(follow), trump) else 1 - self.good_win
        shapes, key = self.shapes(lead, follow)
        low, high, best_move = self.transpositions.get(key, (0, n, -1))
        if low >= beta:
            return low
        if high <= alpha:
            return high
        # sure bounds: a top trump always takes its trick; a leader can cash its top cards
        leader_tops = shapes[trump].held_tops if trump >= 0 else 0
        follower_tops = shapes[trump].other_tops if trump >= 0 else 0
        if self.misere:
            sure_low, sure_high = follower_tops, n - leader_tops
        else:
            ruffing = trump >= 0 and shapes[trump].other_count > leader_tops
            sure_low = leader_tops
            for suit in range(4):
                if suit != trump:
                    found = shapes[suit]
                    sure_low += min(found.held_tops, found.other_count) if ruffing else found.held_tops
            sure_high = n - follower_tops
        if sure_low > low:
            low = sure_low
        if sure_high < high:
            high = sure_high
        if low >= beta or high <= alpha or low == high:
            self.transpositions[key] = (low, high, best_move)
            return high if high <= alpha else low
        alpha, beta = max(alpha, low), min(beta, high)
        window_low, window_high = alpha, beta
        moves = self.leads(shapes)
        if best_move in moves:
            moves.remove(best_move)
            moves.insert(0, best_move)
        best, best_lead = -1, best_move
        for card in moves:
            worst = self.after_lead(card, lead ^ 1 << card, follow, alpha, beta)
            if worst > best:
                best = worst
                if best > alpha:
                    alpha, best_lead = best, card
                    if best >= beta:
                        break
        best = min(max(best, low), high)
        if best <= window_low:  # every lead failed: the best one found before stays first
            self.transpositions[key] = (low, best, best_move)
        elif best >= window_high:
            self.transpositions[key] = (best, high, best_lead)
        else:
            self.transpositions[key] = (best, best, best_lead)
        return best

    def leads(self, shapes: list[SuitShape]) -> list[int]:
        """The leader's cards worth trying, the likeliest best first: sure winners, then low
        cards of the suits the follower is short in; under misère, cards the follower can
        overtake, lowest first."""
        trump = self.trump
        if self.misere:
            exits: list[int] = []
            stuck: list[int] = []
            for suit in range(4):
                runs = shapes[suit].runs
                if runs:
                    if shapes[suit].held_tops:  # the top run: nothing of the follower's is above it
                        stuck.append(13 * suit + runs[-1])
                        runs = runs[:-1]
                    exits.extend(13 * suit + rank for rank in runs)
            exits.sort(key=lambda card: (shapes[card // 13].other_count, -(card % 13)))
            return exits + stuck
        winners: list[int] = []
        others: list[int] = []
        rest: list[int] = []
        follower_trumps = shapes[trump].other_count if trump >= 0 else 0
        for suit in range(4):
            found = shapes[suit]
            runs = found.runs
            if runs:
                if found.held_tops:
                    if suit == trump:
                        (winners if follower_trumps else rest).append(13 * suit + runs[-1])
                    elif found.other_count or not follower_trumps:
                        winners.append(13 * suit + runs[-1])
                    else:
                        rest.append(13 * suit + runs[-1])
                    runs = runs[:-1]
                (others if found.other_count else rest).extend(13 * suit + rank for rank in runs)
        others.sort(key=lambda card: (shapes[card // 13].other_count, -(card % 13)))
        winners.sort(key=lambda card: shapes[card // 13].other_count)
        return winners + others + rest

    def replies(self, card: int, lead: int, follow: int) -> list[int]:
        """The follower's cards worth trying against ``card``, the likeliest best first: the
        cheapest win, or under misère the highest card that ducks."""
        live = lead | follow | 1 << card
        suit = card // 13
        following = follow & SUIT_MASKS[suit]
        if following:
            shift = 13 * suit
            choices = [shift + rank for rank in shape((live >> shift) & 0x1FFF, following >> shift).runs]
            if self.misere:
                ducks = [reply for reply in choices if reply < card]
                return ducks[::-1] + [reply for reply in choices if reply > card][::-1]
            for index, reply in enumerate(choices):
                if reply > card:
                    if index:
                        choices.insert(0, choices.pop(index))
                    break
            return choices
        ruffs = follow & self.trumps if suit != self.trump else 0
        discards = touching_choices(follow & ~ruffs, live)
        if self.misere:
            discards.sort(key=lambda card: -(card % 13))
            return discards + touching_choices(ruffs, live)[::-1]
        discards.sort(key=lambda card: card % 13)
        return touching_choices(ruffs, live) + discards

    def after_lead(self, card: int, lead: int, follow: int, alpha: int, beta: int) -> int:
        """The leader's value once it led ``card`` (``lead`` is the rest of its hand)."""
        worst = lead.bit_count() + 2
        for reply in self.replies(card, lead, follow):
            found = self.after_trick(card, reply, lead, follow ^ 1 << reply, alpha, beta if beta < worst else worst)
            if found < worst:
                worst = found
                if worst <= alpha:
                    break
        return worst

    def after_trick(self, card: int, reply: int, lead: int, follow: int, alpha: int, beta: int) -> int:
        """The leader's value once ``reply`` followed ``card`` (hands are what is left)."""
        n = lead.bit_count()
        if leader_wins(card, reply, self.trump):
            good = self.good_win
            return good + self.search(lead, follow, alpha - good, beta - good) if n else good
        good = 1 - self.good_win
        return good + n - self.search(follow, lead, n - beta + good, n - alpha + good) if n else good

    def exact(self, probe: Callable[[int, int], int], low: int, high: int) -> int:
        """The exact value of ``probe`` (a fail-soft search over a window), by null windows."""
        while low < high:
            found = probe(low, low + 1)
            if found <= low:
                return low
            low = found
        return low


def solve_card(knowledge: Knowledge, work: int, out_of_time: Callable[[], bool], first: int) -> int:
    """The best card in phase 2, searched exactly; out of work, the best card proven so far
    (``first`` when none is)."""
    hand, opponent = knowledge.hand, knowledge.unseen
    solver = Solver(knowledge.trump, knowledge.aim.misere, work, out_of_time)
    live = hand | opponent | (1 << knowledge.led if knowledge.led >= 0 else 0)
    choices = touching_choices(legal_cards(hand, knowledge.led), live)
    choices.sort(key=lambda card: not _equivalent(card, first, hand, live))
    if len(choices) == 1:
        return choices[0]
    if knowledge.led < 0:
        return _best_lead(solver, hand, opponent, choices)
    return _best_reply(solver, knowledge.led, hand, opponent, choices)


def _best_lead(solver: Solver, hand: int, opponent: int, choices: list[int]) -> int:
    """The value of the position first; then, among the leads that reach it, the one leaving
    the opponent the largest share of replies that give a trick away: perfect play gains
    nothing from the choice, fallible play may. Out of work, the lead proven best so far."""
    best, best_share = -1, (-1, 1)
    try:
        target = solver.exact(lambda alpha, beta: solver.search(hand, opponent, alpha, beta), 0, hand.bit_count())
        found = solver.best_lead(hand, opponent)
        for card in dict.fromkeys(([found] if found >= 0 else []) + choices):
            rest = hand ^ 1 << card
            if solver.after_lead(card, rest, opponent, target - 1, target) < target:
                continue
            if best < 0:
                best = card
            replies = members(legal_cards(opponent, card))
            errors = sum(
                solver.after_trick(card, reply, rest, opponent ^ 1 << reply, target, target + 1) > target
                for reply in replies
            )
            if errors * best_share[1] > best_share[0] * len(replies):
                best, best_share = card, (errors, len(replies))
    except OutOfWork:
        found = solver.best_lead(hand, opponent)
        if best < 0 and found >= 0:
            best = found
    return best if best >= 0 else choices[0]


def _best_reply(solver: Solver, led: int, hand: int, opponent: int, choices: list[int]) -> int:
    """The opponent's value after its lead first; then, among the replies that hold it there,
    the one after which the opponent, on lead again, has the largest share of leads that give
    a trick away. Out of work, the reply proven best so far."""
    best, best_share = -1, (-1, 1)
    try:
        target = solver.exact(
            lambda alpha, beta: solver.after_lead(led, opponent, hand, alpha, beta), 0, opponent.bit_count() + 1
        )
        for card in choices:
            rest = hand ^ 1 << card
            if solver.after_trick(led, card, opponent, rest, target, target + 1) > target:
                continue
            if best < 0:
                best, best_share = card, (0, 1)
            if rest and leader_wins(led, card, solver.trump):  # the opponent leads on
                next_target = target - solver.good_win
                leads = members(opponent)
                errors = sum(
                    solver.after_lead(lead, opponent ^ 1 << lead, rest, next_target - 1, next_target) < next_target
                    for lead in leads
                )
                if errors * best_share[1] > best_share[0] * len(leads):
                    best, best_share = card, (errors, len(leads))
    except OutOfWork:
        pass
    return best if best >= 0 else choices[0]


def _equivalent(card: int, other: int, hand: int, live: int) -> bool:
    """Whether two cards of ``hand`` touch: nobody else holds a live card between them."""
    if card // 13 != other // 13:
        return False
    low, high = min(card, other), max(card, other)
    between = ABOVE[low] & BELOW[high]
    return not between & live & ~hand


# --- phase 1: sampling and rollouts ----------------------------------------------------------


class Sampler:
    """Draws the opponent's unknown cards and the stock order, uniformly among those consistent
    with the seat's knowledge: the unknown cards hold at most ``caps[suit]`` of a suit the
    opponent showed out of (as many as it drew since, less those of the suit it played since)."""

    def __init__(self, pool: int, hidden: int, caps: tuple[int, ...]) -> None:
        self.hidden = hidden
        self.pool = members(pool)
        self.by_suit = [members(pool & SUIT_MASKS[suit]) for suit in range(4)]
        limits = [len(cards) if cap < 0 else min(cap, len(cards)) for cap, cards in zip(caps, self.by_suit)]
        self.splits: list[tuple[int, ...]] = []
        self.weights: list[int] = []
        if all(limit >= min(hidden, len(cards)) for limit, cards in zip(limits, self.by_suit)):
            return  # no cap bites: a plain shuffle is uniform
        splits = list(_splits(limits, hidden))
        if not splits:
            return  # inconsistent knowledge: fall back to the plain shuffle
        weights = [_ways(split, self.by_suit) for split in splits]
        scale = max(weights)
        self.splits = splits
        self.weights = [max(1, round(weight * 2**30 / scale)) for weight in weights]

    def draw(self, rng: SeededRandom) -> tuple[int, list[int]]:
        """The opponent's unknown cards, and the face-down stock in drawing order."""
        if not self.splits:
            shuffled = rng.shuffled(self.pool)
            return sum(1 << card for card in shuffled[: self.hidden]), shuffled[self.hidden :]
        pick = rng.below(sum(self.weights))
        for split, weight in zip(self.splits, self.weights):
            if pick < weight:
                break
            pick -= weight
        hand, rest = 0, []
        for count, cards in zip(split, self.by_suit):
            shuffled = rng.shuffled(cards)
            hand |= sum(1 << card for card in shuffled[:count])
            rest += shuffled[count:]
        return hand, rng.shuffled(rest)


def _splits(limits: list[int], total: int) -> Iterator[tuple[int, ...]]:
    """Every way of writing ``total`` as a sum of counts, one per suit, within ``limits``."""
    if len(limits) == 1:
        if total <= limits[0]:
            yield (total,)
        return
    for count in range(min(limits[0], total) + 1):
        for rest in _splits(limits[1:], total - count):
            yield (count,) + rest


def _ways(split: tuple[int, ...], by_suit: list[list[int]]) -> float:
    """How many opponent hands have ``split`` cards of each suit."""
    ways = 1.0
    for count, cards in zip(split, by_suit):
        ways *= comb(len(cards), count)
    return ways


def play_out(
    hands: list[int], stock: list[int], played: int, leader: int, trick: list[int], trump: int, aim: Aim
) -> tuple[list[list[int]], int]:
    """Play the deal to its end with the rules of thumb for both seats.

    ``hands`` (changed in place) are this seat's (0) and the opponent's (1); ``stock`` is in
    drawing order, its face-up card first; ``trick`` holds the cards already in the current trick.
    Returns the tricks won per seat and phase, and the number of cards played.
    """
    won = [[0, 0], [0, 0]]
    plays, position, size = 0, 0, len(stock)
    unknown = UNKNOWN_WORTH[trump >= 0]
    pending = list(trick)
    while hands[0] or hands[1]:
        face_up = stock[position] if position < size else -1
        if pending:
            led = pending[0]
        else:
            hand = hands[leader]
            led = rule_of_thumb(hand, ALL_CARDS & ~hand & ~played, -1, face_up, trump, unknown, aim)
            hands[leader] = hand ^ 1 << led
            played |= 1 << led
            plays += 1
        if len(pending) == 2:
            reply = pending[1]
        else:
            hand = hands[1 - leader]
            reply = rule_of_thumb(hand, ALL_CARDS & ~hand & ~played, led, face_up, trump, unknown, aim)
            hands[1 - leader] = hand ^ 1 << reply
            played |= 1 << reply
            plays += 1
        pending = []
        leader = trick_winner(leader, led, reply, trump)
        if face_up >= 0:
            won[leader][0] += 1
            draw_after_trick(hands, stock, position, leader)
            position += 2
        else:
            won[leader][1] += 1
    return won, plays


def outcome(won: list[list[int]], aim: Aim, win_weight: float = WIN_WEIGHT) -> float:
    """How good a finished deal is for seat 0: the counted-trick margin (the engine's :meth:`Aim.margin`), and the win weighed in."""
    margin = aim.margin(counted_tricks(won, aim.count_all))
    return margin + win_weight * ((margin > 0) - (margin < 0))


def sample_card(knowledge: Knowledge, rng: SeededRandom, work: int, out_of_time: Callable[[], bool], first: int) -> int:
    """The best card in phase 1 by perfect-information Monte Carlo over the unseen cards."""
    # the card led is still live: a card just above it wins the trick, one just below does not
    live = ALL_CARDS & ~knowledge.played | (1 << knowledge.led if knowledge.led >= 0 else 0)
    choices = touching_choices(legal_cards(knowledge.hand, knowledge.led), live)
    if len(choices) == 1:
        return choices[0]
    choices.sort(key=lambda card: not _equivalent(card, first, knowledge.hand, live))
    face_up_bit = 1 << knowledge.face_up
    pool = knowledge.unseen & ~knowledge.opponent_known & ~face_up_bit
    hidden = knowledge.opponent_size - knowledge.opponent_known.bit_count()
    sampler = Sampler(pool, hidden, knowledge.caps)
    totals = [0.0] * len(choices)
    win_weight = DECIDING_WIN_WEIGHT if knowledge.deciding else WIN_WEIGHT
    done = 0
    while done < work and not out_of_time():
        unknown, rest = sampler.draw(rng)
        stock = [knowledge.face_up] + rest
        scores = []
        for card in choices:
            hands = [knowledge.hand ^ 1 << card, knowledge.opponent_known | unknown]
            if knowledge.led >= 0:
                trick, leader = [knowledge.led, card], 1
            else:
                trick, leader = [card], 0
            won, plays = play_out(hands, stock, knowledge.played | 1 << card, leader, trick, knowledge.trump, knowledge.aim)
            for seat in range(2):
                won[seat][0] += knowledge.won[seat][0]
                won[seat][1] += knowledge.won[seat][1]
            scores.append(outcome(won, knowledge.aim, win_weight))
            done += plays + 1
        totals = [total + score for total, score in zip(totals, scores)]
    return choices[max(range(len(choices)), key=lambda i: (totals[i], -i))]


# --- the strategy ----------------------------------------------------------------------------


class GermanWhistStrategy(Strategy):
    """Rules of thumb for ``basic``; sampling in phase 1 and exact search in phase 2 for ``expert``.

    An expert decision's ``work`` counts the cards played by its rollouts in phase 1 and the
    positions it searches in phase 2 (a position costs two to three rollout cards). The default
    keeps a phase-1 decision near 20 ms on the calibration machine and caps a phase-2 one near
    80 ms; raising it from 3000 took the expert from 66% to 74% of deals against basic.
    """

    expert_work = 15000

    def basic(self, info: SeatInfo, rng: SeededRandom) -> Play:
        return PLAYS[basic_card(read_knowledge(info))]

    def expert(self, info: SeatInfo, rng: SeededRandom, budget: Budget) -> Play:
        knowledge = read_knowledge(info)
        out_of_time = budget.deadline()
        first = basic_card(knowledge)
        work = budget.work
        assert work is not None  # the expert fills in its default
        if knowledge.face_up < 0:
            card = solve_card(knowledge, work, out_of_time, first)
        else:
            card = sample_card(knowledge, rng, work, out_of_time, first)
        return PLAYS[card]

