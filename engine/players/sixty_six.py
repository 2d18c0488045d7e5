"""Sixty-Six and Schnapsen players: rules of thumb (``basic``) and search over the hidden cards (``expert``).

Both levels first read the seat's information into a :class:`Knowledge`: the hand, the cards
played, the cards known to be in the opponent's hand, the card under the talon, each side's
points (counted from the ``trick`` and ``marriage`` events, as a player keeps count at the
table), and the cards the opponent cannot hold because it failed to follow, to win or to trump
in phase 2.

``basic`` plays as a casual player would: it wins a trick with the lowest card that wins when
the trick is worth it, throws its cheapest card otherwise, keeps its trumps, pulls the
opponent's trumps in phase 2 while it holds the top one, announces marriages, exchanges the
trump nine (jack), closes when its points and sure tricks come to 66, and claims as soon as it
counts 66, on lead or with the marriage it announces.

``expert`` decides by perfect-information Monte Carlo. Each sample deals the unseen cards into
the opponent's hand and the talon, consistently with the knowledge. Once the talon is closed or
exhausted (and from the start without a talon) each candidate is valued by an alpha-beta search
of the rest of the deal; with an exhausted talon there is a single consistent sample, so the
search is exact (without a talon, more than 8 tricks to play are searched a trick deeper at a
time while the budget lasts). While the talon is open a candidate is played (a lead answered by
the opponent's basic reply, or in the trick that empties the talon by its best reply), then the
sampled deal is searched if the trick emptied the talon, else played out by both sides
following the basic rules but for one move in two, a random card, while the talon is open (the
same random moves for every candidate of a sample), and searched once its talon is gone if the
decision had at most three face-down cards; closing is valued by the search. Where the
deals consistent with the seat's knowledge are no more than the samples a decision may take (the
last face-down card's place, an opponent's hand after a close late in the deal), each is weighed
once instead.
Claiming at 66 and exchanging are never worse than not, so they need no search. Values are game
points of the deal turned into the chance of winning the match, so that near the target a safe
deal is worth more than a big one. ``work`` counts searched positions: a node of the alpha-beta
search counts one, a trick of a played-out deal three (it takes about as long).

In search a card is a number of the engine's deck, ``6 * suit + strength`` (strength 0 to 5 for
9 J Q K 10 A, so a higher card of a suit has a higher number), and a set of cards is a bitmask
of those ints; the rules of the deal (:class:`~engine.sixty_six.DealRules`, built by the engine
from the options: the deck, the exchanged card, when the exchange and marriages are allowed),
legality, the trick's winner, the exchange, the draw and the deal's outcome are the engine's own
functions, which the ruleset applies too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, permutations
from math import comb, factorial
from random import Random
from typing import Callable, Iterator

from ..actions import Action, Marriage, Play
from ..cards import Card, highest, lowest, mask_of, members
from ..rules import draw_after_trick
from ..shuffle import SeededRandom
from ..sixty_six import CLOSE, DECLARE, EXCHANGE, MARRIAGES, PLAYS, SixtySixSeat
from ..sixty_six_core import (
    ABOVE,
    BEATERS,
    ACE,
    CLAIM,
    DECK,
    KING,
    POINTS,
    QUEEN,
    TEN,
    Closing,
    DealRules,
    counted_points,
    denied_by_reply,
    exchanged,
    follower_cards,
    marriage_cards,
    partner,
    points_of,
    trick_winner,
)
from .base import Budget, SeatInfo, Strategy

ID = DECK.number
def card_of(action: Action) -> int:
    """The card of a play or a marriage, as an int."""
    card = getattr(action, "card")
    return ID[card]


# --- what a seat knows -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows of the deal in play, in the compact form of search."""

    rules: DealRules
    seat: int
    hand: int
    #: cards both players know to be in the opponent's hand
    opponent_known: int
    #: cards in the opponent's hand or the face-down talon: the seat cannot tell which
    unseen: int
    #: unseen cards the opponent cannot hold (it failed to follow, win or trump in phase 2)
    barred: int
    opponent_size: int
    talon: int  # face-down cards
    face_up: int | None  # the trump card under the talon; None once taken, and without a talon
    closing: Closing | None
    won: tuple[int, int]  # card points of the tricks won
    marriage: tuple[int, int]  # announced marriage points
    tricks: tuple[int, int]
    lead: int | None  # the card the opponent led to the trick in play
    scores: tuple[int, int]
    target: int

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def talon_open(self) -> bool:
        return self.talon > 0 and self.closing is None

    def points(self, seat: int) -> int:
        """Counted points: cards won, and marriages once a trick is won."""
        return counted_points(self.won[seat], self.marriage[seat], self.tricks[seat])

    @property
    def outstanding(self) -> int:
        """The cards not in the seat's hand and not yet played."""
        return self.unseen | self.opponent_known | (1 << self.face_up if self.face_up is not None else 0)


def read(info: SeatInfo) -> Knowledge:
    """The seat's knowledge: what its view says (in the engine's masks), and what it saw happen
    in the events of the deal."""
    options, seat = info.options, info.seat
    seen = info.knowledge if info.knowledge is not None else SixtySixSeat.from_view(info.view)
    rules = DealRules.of(options, seen.trump)
    won, marriage, tricks = [0, 0], [0, 0], [0, 0]
    played = barred = 0
    face_up: int | None = None
    closing: Closing | None = None
    for event in info.events:
        kind = event["type"]
        if kind == "deal":
            face_up = None if rules.no_talon else ID[Card.parse(event["trump_card"])]
        elif kind == "exchange":
            face_up = ID[Card.parse(event["gave"])]
        elif kind == "take":
            face_up = None
        elif kind == "marriage":
            marriage[event["seat"]] += event["value"]
        elif kind == "close":
            closing = Closing.by(event["seat"], lambda each: counted_points(won[each], marriage[each], tricks[each]), tricks)
        elif kind == "trick":
            first, second = event["cards"]
            lead, reply = ID[Card.parse(first["card"])], ID[Card.parse(second["card"])]
            played |= 1 << lead | 1 << reply
            won[event["winner"]] += POINTS[lead] + POINTS[reply]
            tricks[event["winner"]] += 1
            if event["phase"] == 2 and second["seat"] != seat:
                barred |= denied_by_reply(lead, reply, rules.trump)
    if seen.trump_card is not None:  # in view while the talon is open; the events tell it once closed
        face_up = seen.trump_card
    leader, in_trick = seen.trick.leader, seen.trick.cards
    played |= mask_of(in_trick)
    hand = seen.hand
    assert hand is not None  # a seat's, not a spectator's
    opponent_known = seen.shown[1 - seat]
    under = 1 << face_up if face_up is not None else 0
    unseen = rules.deck & ~(hand | played | opponent_known | under)
    return Knowledge(
        rules=rules,
        seat=seat,
        hand=hand,
        opponent_known=opponent_known,
        unseen=unseen,
        barred=barred & unseen,
        opponent_size=seen.hand_sizes[1 - seat],
        talon=seen.talon_size,
        face_up=face_up,
        closing=closing,
        won=(won[0], won[1]),
        marriage=(marriage[0], marriage[1]),
        tricks=(tricks[0], tricks[1]),
        lead=in_trick[0] if in_trick and leader != seat else None,
        scores=(info.view["scores"][0], info.view["scores"][1]),
        target=options["target"],
    )


def deal_value(
    rules: DealRules, closing: Closing | None, points: tuple[int, int], tricks: tuple[int, int], claimant: int | None, last_winner: int
) -> int:
    """The game points of a deal that ends now, for seat 0 (negative when seat 1 wins them).

    ``points`` are counted points without the last-trick 10; ``claimant`` is None when the last
    trick has been played, whose winner is ``last_winner`` (then the closer with 66 or more is
    deemed to claim, else that winner with 66 or more): the engine's :func:`deal_outcome`.
    """
    outcome = rules.outcome(points, tricks, closing, claimant, last_winner)
    if outcome.winner is None:
        return 0
    return outcome.game_points if outcome.winner == 0 else -outcome.game_points


class Position:
    """A deal with every card placed (a sample of the hidden cards): for playing it out."""

    __slots__ = ("rules", "hands", "talon", "drawn", "stock", "closing", "won", "marriage", "tricks", "leader")

    def __init__(
        self,
        rules: DealRules,
        hands: list[int],
        talon: tuple[int, ...],
        closing: Closing | None,
        won: list[int],
        marriage: list[int],
        tricks: list[int],
        leader: int,
        drawn: int = 0,
        stock: int | None = None,
    ) -> None:
        self.rules = rules
        self.hands = hands
        self.talon = talon  # in drawing order, the face-up trump card last
        self.drawn = drawn
        self.stock = mask_of(talon[drawn:]) if stock is None else stock  # the cards still to draw
        self.closing = closing
        self.won = won
        self.marriage = marriage
        self.tricks = tricks
        self.leader = leader

    def copy(self) -> "Position":
        """An independent copy, to play on."""
        return Position(
            self.rules,
            self.hands[:],
            self.talon,
            self.closing,
            self.won[:],
            self.marriage[:],
            self.tricks[:],
            self.leader,
            self.drawn,
            self.stock,
        )

    @property
    def talon_open(self) -> bool:
        return self.drawn < len(self.talon) and self.closing is None

    def points(self, seat: int) -> int:
        """Counted points: cards won, and marriages once a trick is won."""
        return counted_points(self.won[seat], self.marriage[seat], self.tricks[seat])

    def outstanding(self, seat: int) -> int:
        """The cards ``seat`` has not seen played: the other hand and the talon."""
        return self.hands[1 - seat] | self.stock

    def may_exchange(self, seat: int) -> bool:
        """Whether ``seat``, on lead, may exchange the trump nine (jack) for the trump card."""
        return self.rules.may_exchange(self.talon_open, self.hands[seat], self.tricks[seat] > 0)

    def exchange(self, seat: int) -> None:
        """``seat`` exchanges the trump nine (jack) for the trump card."""
        given, face_up = self.rules.swap_card, self.talon[-1]
        self.hands[seat] = exchanged(self.hands[seat], given, face_up)
        self.stock = exchanged(self.stock, face_up, given)
        self.talon = self.talon[:-1] + (given,)

    def close(self, seat: int) -> None:
        """``seat`` closes the talon."""
        self.closing = Closing.by(seat, self.points, self.tricks)

    def marriable(self, seat: int) -> int:
        """The kings and queens ``seat`` may lead announcing a marriage now."""
        if not self.rules.marriage_time(self.talon_open):
            return 0
        return marriage_cards(self.hands[seat])

    def announce(self, card: int) -> bool:
        """The leader announces the marriage of ``card``; True when it makes a claim of 66 right
        (where the rules let a claim come with a marriage)."""
        seat = self.leader
        self.marriage[seat] += self.rules.marriage_points(card)
        return self.rules.marriage_claim_allowed(self.tricks[seat] > 0) and self.points(seat) >= CLAIM

    def trick(self, lead: int, reply: int) -> bool:
        """Play a trick (the lead still in the leader's hand); True when the deal is played out."""
        leader, hands = self.leader, self.hands
        hands[leader] ^= 1 << lead
        hands[1 - leader] ^= 1 << reply
        winner = trick_winner(leader, lead, reply, self.rules.trump)
        self.won[winner] += POINTS[lead] + POINTS[reply]
        self.tricks[winner] += 1
        if self.talon_open:
            taken, drawn = draw_after_trick(hands, self.talon, self.drawn, winner)
            self.stock ^= 1 << taken | 1 << drawn
            self.drawn += 2
        self.leader = winner
        return not hands[winner]

    def value(self, claimant: int | None) -> int:
        """Game points for seat 0 of the deal ending now (a claim, or the last trick played)."""
        points, tricks = (self.points(0), self.points(1)), (self.tricks[0], self.tricks[1])
        return deal_value(self.rules, self.closing, points, tricks, claimant, self.leader)


def sample(knowledge: Knowledge, rng: SeededRandom) -> Position:
    """A deal consistent with the knowledge, before the trick in play: the unseen cards dealt to
    the opponent and the talon, and a card the opponent led put back in its hand."""
    pool = members(knowledge.unseen & ~knowledge.barred)
    wanted = knowledge.opponent_size - knowledge.opponent_known.bit_count()
    for picked in range(wanted):  # a partial Fisher-Yates shuffle
        chosen = picked + rng.below(len(pool) - picked)
        pool[picked], pool[chosen] = pool[chosen], pool[picked]
    opponent = knowledge.opponent_known | mask_of(pool[:wanted])
    talon: tuple[int, ...] = ()
    if knowledge.talon_open:
        talon = tuple(rng.shuffled(members(knowledge.unseen & ~opponent)))
    return placed(knowledge, opponent, talon)


def consistent_deals(knowledge: Knowledge) -> int:
    """How many deals are consistent with the knowledge: the opponent's hands times the orders
    of the face-down talon (while it is open)."""
    pool = (knowledge.unseen & ~knowledge.barred).bit_count()
    orders = factorial(knowledge.talon) if knowledge.talon_open else 1
    return comb(pool, knowledge.opponent_size - knowledge.opponent_known.bit_count()) * orders


def every_deal(knowledge: Knowledge) -> Iterator[Position]:
    """Each deal consistent with the knowledge once (as :func:`sample` places them): where they
    are few, weighing them all is exact and costs fewer searches than sampling them."""
    wanted = knowledge.opponent_size - knowledge.opponent_known.bit_count()
    for hidden in combinations(members(knowledge.unseen & ~knowledge.barred), wanted):
        opponent = knowledge.opponent_known | mask_of(hidden)
        orders = permutations(members(knowledge.unseen & ~opponent)) if knowledge.talon_open else [()]
        for talon in orders:
            yield placed(knowledge, opponent, talon)


def placed(knowledge: Knowledge, opponent: int, talon: tuple[int, ...]) -> Position:
    """The deal of the opponent's hand ``opponent`` and the face-down ``talon`` (in drawing order)."""
    if knowledge.talon_open:
        assert knowledge.face_up is not None
        talon += (knowledge.face_up,)
    hands = [0, 0]
    hands[knowledge.seat] = knowledge.hand
    hands[knowledge.opponent] = opponent if knowledge.lead is None else opponent | 1 << knowledge.lead
    return Position(
        knowledge.rules,
        hands,
        talon,
        knowledge.closing,
        list(knowledge.won),
        list(knowledge.marriage),
        list(knowledge.tricks),
        knowledge.seat if knowledge.lead is None else knowledge.opponent,
    )


# --- rules of thumb ---------------------------------------------------------------------------


#: Per trump suit, what a card is worth keeping before its circumstances: its points, its
#: strength, and a premium for a trump.
_KEEP = tuple(tuple(4 * POINTS[card] + card % 6 + (60 if card // 6 == trump else 0) for card in range(24)) for trump in range(4))


def cheapest(cards: int, hand: int, outstanding: int, rules: DealRules) -> int:
    """The card least worth keeping: the fewest points, not a trump, not a ten whose ace is out,
    not half of a marriage held (or that may still come)."""
    keep, trump = _KEEP[rules.trump], rules.trump
    best, least = -1, 1 << 30
    while cards:
        low = cards & -cards
        cards ^= low
        card = low.bit_length() - 1
        value = keep[card]
        strength = card % 6
        if strength == TEN:
            if card // 6 != trump and outstanding & ABOVE[card]:
                value += 20
        elif strength == QUEEN or strength == KING:
            other = partner(card)
            if hand >> other & 1:
                value += 24
            elif outstanding >> other & 1:
                value += 6
        if value < least:
            best, least = card, value
    return best


def masters(cards: int, outstanding: int) -> int:
    """The cards that no outstanding card of their suit beats."""
    return mask_of(card for card in members(cards) if not outstanding & ABOVE[card])


def basic_reply(hand: int, legal: int, lead: int, outstanding: int, rules: DealRules, talon_open: bool) -> int:
    """Follow with the lowest card that wins when the trick is worth it, else the cheapest card."""
    trump, suit = rules.trump, lead // 6
    winners = legal & BEATERS[trump][lead]
    if not talon_open:
        # whoever can win must, with cards of one suit: the lowest winner, else the cheapest card
        return lowest(winners) if winners else cheapest(legal, hand, outstanding, rules)
    worth = POINTS[lead] >= POINTS[TEN]  # a ten or an ace
    if suit != trump and winners & ABOVE[lead]:
        card = lowest(winners & ABOVE[lead])  # winning in suit spends no trump
        if worth or not (card % 6 in (QUEEN, KING) and hand >> partner(card) & 1):
            return card
    if worth and winners:
        return cheapest(winners, hand, outstanding, rules)
    return cheapest(legal, hand, outstanding, rules)


def basic_lead(hand: int, marriable: int, outstanding: int, rules: DealRules, talon_open: bool) -> tuple[int, bool]:
    """The card to lead, and whether to announce a marriage with it: a marriage (the trump one
    first); with the talon closed or exhausted, the top trump while the opponent may hold a
    trump, else the master card worth most; otherwise the cheapest card."""
    if marriable:
        queens = [card for card in members(marriable) if card % 6 == QUEEN]
        # the trump marriage first; lead the queen, the cheaper half
        return max(queens, key=lambda card: card // 6 == rules.trump), True
    if not talon_open:
        trumps = rules.trumps
        mine = masters(hand, outstanding)
        if outstanding & trumps and mine & trumps:
            return highest(mine & trumps), False  # draw the opponent's trumps with the top one
        if mine:
            return max(members(mine), key=POINTS.__getitem__), False
    return cheapest(hand, hand, outstanding, rules), False


def sure_points(hand: int, outstanding: int, rules: DealRules) -> int:
    """Points a hand can count on in phase 2: its top trumps in sequence, its master side cards
    once it can draw the opponent's trumps, each winning a card of the opponent's too."""
    trumps = rules.trumps
    mine, theirs = hand & trumps, outstanding & trumps
    top = 0
    for card in range(6 * rules.trump + ACE, 6 * rules.trump - 1, -1):
        if theirs >> card & 1:
            break
        top |= mine & 1 << card
    sure = top
    if (theirs & ~top).bit_count() <= (mine & ~top).bit_count():
        sure |= masters(hand & ~trumps, outstanding)
    return points_of(sure) + 4 * sure.bit_count()


def basic_closes(hand: int, marriable: int, outstanding: int, rules: DealRules, points: int, tricks: int) -> bool:
    """Close when the points won and the sure points of the hand come to 66, but not with a
    marriage to announce that closing would lose."""
    if marriable and not rules.late_marriages:
        return False
    return tricks > 0 and points + sure_points(hand, outstanding, rules) >= CLAIM


#: A trick played out by the rules of thumb takes about as long as three nodes of the search.
TRICK_WORK = 3
#: While the talon is open, one move in this many of a played-out deal is a random card: a
#: played-out deal that follows the rules of thumb alone meets only the opponent who plays
#: by them (measured against VU's RdeepBot in issue 28's note).
RANDOM_MOVE_IN = 2


def random_card(chance: Random | None, cards: int) -> int | None:
    """One of ``cards`` drawn by ``chance`` for the next move of a deal played out, one time in
    :data:`RANDOM_MOVE_IN`; None (always, without ``chance``): the rules of thumb decide it."""
    if chance is None or chance.randrange(RANDOM_MOVE_IN):
        return None
    return chance.choice(members(cards))


#: A deal played out from a decision with at most this many cards face down is searched once
#: its talon is exhausted or closed: its phase 2 is then a trick or two away, and the search
#: plays it as well as either side could. Sooner, searching every deal played out costs too
#: many samples (measured against VU's RdeepBot in issue 28's note).
SEARCH_PLAYED_OUT_FROM_TALON = 3


def play_out(position: Position, work: list[int], chance: Random | None = None, solvers: Solvers | None = None) -> float:
    """Finish a deal with both sides playing the basic rules, but for the moves ``chance``
    makes random while the talon is open (none without it), and, given ``solvers``, searching
    the rest once the talon is exhausted or closed; the game points for seat 0.

    ``work`` is a one-element counter, decreased per trick by what a trick costs.
    """
    rules = position.rules
    while True:
        seat = position.leader
        if position.tricks[seat] and position.points(seat) >= CLAIM:
            return position.value(seat)
        if solvers is not None and not position.talon_open:
            return solvers.rest(position)
        if position.may_exchange(seat):
            position.exchange(seat)
        hand, outstanding, marriable = position.hands[seat], position.outstanding(seat), position.marriable(seat)
        if position.talon_open and basic_closes(hand, marriable, outstanding, rules, position.points(seat), position.tricks[seat]):
            position.close(seat)
            marriable = position.marriable(seat)
        talon_open = position.talon_open
        chance_now = chance if talon_open else None
        drawn = random_card(chance_now, hand)
        if drawn is not None:
            lead, married = drawn, bool(marriable >> drawn & 1)  # announcing is never worse
        else:
            lead, married = basic_lead(hand, marriable, outstanding, rules, talon_open)
        if married and position.announce(lead):
            return position.value(seat)
        other = position.hands[1 - seat]
        legal = follower_cards(other, lead, rules.trump, talon_open)
        reply = random_card(chance_now, legal)
        if reply is None:
            reply = basic_reply(other, legal, lead, position.outstanding(1 - seat) & ~(1 << lead), rules, talon_open)
        work[0] -= TRICK_WORK
        if position.trick(lead, reply):
            return position.value(None)


# --- exact search once the talon is closed or exhausted ---------------------------------------


class Spent(Exception):
    """The work or the time of a decision ran out in the middle of a search."""


class Solver:
    """Alpha-beta search of a deal in phase 2, every card placed: values are game points for seat 0.

    The leader claims as soon as it counts 66 (claiming later never scores more), with the
    marriage that makes it if need be (where the rules let a claim come with a marriage), and
    announces a marriage whenever it leads one of its cards (announcing never scores less).
    Searches deeper than ``depth`` tricks end in an estimate from the points; positions are
    remembered with their bounds.
    """

    def __init__(self, rules: DealRules, closing: Closing | None, work: list[int], expired: Callable[[], bool]) -> None:
        self.rules = rules
        self.closing = closing
        self.work = work
        self.expired = expired
        self.trumps = rules.trumps
        self.late_marriages = rules.late_marriages
        self.memo: dict[tuple[int, ...], tuple[float, float]] = {}
        # leads are tried high cards first, a trump before the other suits of its rank: good
        # moves first cut the search most
        self.order = sorted(range(24), key=lambda card: (-(card % 6), card // 6 != rules.trump))

    def value(self, position: Position, depth: int, alpha: float = -9.0, beta: float = 9.0) -> float:
        """The value of a position, its leader to lead, searching ``depth`` tricks deep: exact
        between ``alpha`` and ``beta``, else a bound beyond the one it passes."""
        (h0, h1), (w0, w1), (m0, m1), (t0, t1) = position.hands, position.won, position.marriage, position.tricks
        return self.lead(h0, h1, w0, w1, m0, m1, t0, t1, position.leader, alpha, beta, depth)

    def value_of_lead(self, position: Position, card: int, married: bool, depth: int) -> float:
        """The value of a position once its leader leads ``card`` (announcing its marriage)."""
        (h0, h1), (w0, w1), (m0, m1), (t0, t1) = position.hands, position.won, position.marriage, position.tricks
        return self.reply(h0, h1, w0, w1, m0, m1, t0, t1, position.leader, card, married, -9.0, 9.0, depth)

    def _end(self, won: tuple[int, int], marriage: tuple[int, int], tricks: tuple[int, int], claimant: int | None, last: int) -> int:
        points = (won[0] + marriage[0] if tricks[0] else 0, won[1] + marriage[1] if tricks[1] else 0)
        return deal_value(self.rules, self.closing, points, tricks, claimant, last)

    def lead(
        self, h0: int, h1: int, w0: int, w1: int, m0: int, m1: int, t0: int, t1: int, leader: int, alpha: float, beta: float, depth: int
    ) -> float:
        """The value with ``leader`` to lead (and it won the last trick, if any)."""
        work = self.work
        work[0] -= 1
        if work[0] & 511 == 0 and (work[0] <= 0 or self.expired()):
            raise Spent
        if leader == 0:
            if t0 and w0 + m0 >= CLAIM:
                return self._end((w0, w1), (m0, m1), (t0, t1), 0, 0)
        elif t1 and w1 + m1 >= CLAIM:
            return self._end((w0, w1), (m0, m1), (t0, t1), 1, 1)
        if depth == 0:
            own = (w0 + m0 if t0 else 0) - (w1 + m1 if t1 else 0)
            return max(-2.0, min(2.0, own / 30))
        key = (h0, h1, w0, w1, m0, m1, t0 > 0, t1 > 0, leader)
        low, high = self.memo.get(key, (-9.0, 9.0))
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        a, b = max(alpha, low), min(beta, high)
        hand = h0 if leader == 0 else h1
        best = -9.0 if leader == 0 else 9.0
        for card in self.order:
            if not hand >> card & 1:
                continue
            married = self.late_marriages and card % 6 in (QUEEN, KING) and bool(hand >> partner(card) & 1)
            if leader == 0:
                value = self.reply(h0, h1, w0, w1, m0, m1, t0, t1, 0, card, married, max(a, best), b, depth)
                if value > best:
                    best = value
                    if best >= b:
                        break
            else:
                value = self.reply(h0, h1, w0, w1, m0, m1, t0, t1, 1, card, married, a, min(b, best), depth)
                if value < best:
                    best = value
                    if best <= a:
                        break
        if best <= a:
            self.memo[key] = (low, best)
        elif best >= b:
            self.memo[key] = (best, high)
        else:
            self.memo[key] = (best, best)
        return best

    def reply(
        self,
        h0: int,
        h1: int,
        w0: int,
        w1: int,
        m0: int,
        m1: int,
        t0: int,
        t1: int,
        leader: int,
        lead: int,
        married: bool,
        alpha: float,
        beta: float,
        depth: int,
    ) -> float:
        """The value once ``leader`` has led ``lead`` (announcing its marriage): the follower's best reply."""
        if married:
            if leader == 0:
                m0 += self.rules.marriage_points(lead)
                if self.rules.marriage_claim_allowed(t0 > 0) and w0 + m0 >= CLAIM:
                    return self._end((w0, w1), (m0, m1), (t0, t1), 0, 0)
            else:
                m1 += self.rules.marriage_points(lead)
                if self.rules.marriage_claim_allowed(t1 > 0) and w1 + m1 >= CLAIM:
                    return self._end((w0, w1), (m0, m1), (t0, t1), 1, 1)
        trump, lead_bit = self.rules.trump, 1 << lead
        if leader == 0:
            h0 ^= lead_bit
            follower_hand = h1
        else:
            h1 ^= lead_bit
            follower_hand = h0
        legal = follower_cards(follower_hand, lead, trump, False)
        maximizing = leader == 1  # the follower is seat 0
        best = -9.0 if maximizing else 9.0
        last = not (h0 if leader == 0 else h1)
        gained = POINTS[lead]
        while legal:
            low_bit = legal & -legal
            legal ^= low_bit
            card = low_bit.bit_length() - 1
            points = gained + POINTS[card]
            winner = trick_winner(leader, lead, card, trump)
            n0, n1 = (h0, h1 ^ low_bit) if leader == 0 else (h0 ^ low_bit, h1)
            n_w0, n_w1, n_t0, n_t1 = (w0 + points, w1, t0 + 1, t1) if winner == 0 else (w0, w1 + points, t0, t1 + 1)
            if last:
                value: float = self._end((n_w0, n_w1), (m0, m1), (n_t0, n_t1), None, winner)
            elif maximizing:
                value = self.lead(n0, n1, n_w0, n_w1, m0, m1, n_t0, n_t1, winner, max(alpha, best), beta, depth - 1)
            else:
                value = self.lead(n0, n1, n_w0, n_w1, m0, m1, n_t0, n_t1, winner, alpha, min(beta, best), depth - 1)
            if maximizing:
                if value > best:
                    best = value
                    if best >= beta:
                        break
            elif value < best:
                best = value
                if best <= alpha:
                    break
        return best


# --- what a deal is worth in the match --------------------------------------------------------

#: How often a deal scores 1, 2 or 3 game points, for the chance of winning a match.
DEAL_POINTS = ((1, 0.5), (2, 0.3), (3, 0.2))


@cache
def match_chance(need: int, other_need: int) -> float:
    """The chance of winning a match when ``need`` game points are still needed against the
    opponent's ``other_need``, if each deal is as likely won by either side."""
    if need <= 0:
        return 1.0
    if other_need <= 0:
        return 0.0
    return sum(
        share * (match_chance(need - gained, other_need) + match_chance(need, other_need - gained)) / 2
        for gained, share in DEAL_POINTS
    )


def utilities(knowledge: Knowledge) -> tuple[float, ...]:
    """The match chance after this deal, for the deal's game points from -3 to 3 (seat's view)."""
    need = knowledge.target - knowledge.scores[knowledge.seat]
    other_need = knowledge.target - knowledge.scores[knowledge.opponent]
    return tuple(match_chance(need - max(gained, 0), other_need + min(gained, 0)) for gained in range(-3, 4))


def utility(chances: tuple[float, ...], value: float) -> float:
    """The match chance of a deal value, between whole game points by interpolation."""
    low = min(5, max(0, int(value // 1) + 3))
    return chances[low] + (chances[low + 1] - chances[low]) * (value + 3 - low)


# --- the expert's search ----------------------------------------------------------------------

#: Searches of phase 2 with more tricks to play than this deepen a trick at a time.
EXACT_TRICKS = 8
#: At most this many sampled deals per decision (few decisions reach it).
MAX_SAMPLES = 200


@dataclass(frozen=True, slots=True)
class Candidate:
    """A decision to weigh: closing, or a card led (announcing a marriage) or played in reply."""

    action: Action
    card: int | None = None
    married: bool = False


def candidates(knowledge: Knowledge, legal: list[Action]) -> list[Candidate]:
    """The legal decisions worth weighing (claims and exchanges are decided without search): a
    king or queen led without announcing its marriage is left out when it may be announced."""
    found = []
    announced = {action.card for action in legal if isinstance(action, Marriage)}
    for action in legal:
        if isinstance(action, Play) and action.card not in announced:
            found.append(Candidate(action, card_of(action)))
        elif isinstance(action, Marriage) and not action.declare:  # a claim is decided without search
            found.append(Candidate(action, card_of(action), married=True))
        elif action.type == "close":
            found.append(Candidate(action))
    return found


class Solvers:
    """The searches of one sampled deal, one per closing (its positions' values depend on it):
    the candidates' and the replies' searches share the positions they meet. Its deals played
    out meet the same random moves (drawn from ``seed``), so that candidates differ by their
    own merit, and are searched once their talon is gone when ``search_played_out``."""

    def __init__(self, work: list[int], expired: Callable[[], bool], seed: int, search_played_out: bool = False) -> None:
        self.work = work
        self.expired = expired
        self.seed = seed
        self.search_played_out = search_played_out
        self.by_closing: dict[Closing | None, Solver] = {}

    def chance(self) -> Random:
        """The random moves of a deal played out, the same for every deal this sample plays out."""
        return Random(self.seed)

    def rest(self, position: Position, alpha: float = -9.0, beta: float = 9.0) -> float:
        """The searched value for seat 0 of the rest of a deal whose talon is closed or exhausted,
        to its end (exact within ``alpha`` and ``beta``, a bound beyond them)."""
        return self.of(position).value(position, position.hands[position.leader].bit_count(), alpha, beta)

    def of(self, position: Position) -> Solver:
        solver = self.by_closing.get(position.closing)
        if solver is None:
            solver = self.by_closing[position.closing] = Solver(position.rules, position.closing, self.work, self.expired)
        return solver


def finish(position: Position, work: list[int], solvers: Solvers, alpha: float = -9.0, beta: float = 9.0) -> float:
    """The value for seat 0 of a deal after a trick: searched once the talon is closed or
    exhausted (exact within ``alpha`` and ``beta``, a bound beyond them), else played out
    (:func:`play_out`, with the sample's random moves, searched once its talon is gone if the
    solvers say so)."""
    if position.talon_open:
        return play_out(position, work, solvers.chance(), solvers if solvers.search_played_out else None)
    return solvers.rest(position, alpha, beta)


def phase_one_value(position: Position, knowledge: Knowledge, candidate: Candidate, work: list[int], solvers: Solvers) -> float:
    """The value for seat 0 of a candidate in a sampled deal whose talon is open."""
    seat, rules = knowledge.seat, knowledge.rules
    if candidate.card is None:  # closing
        position.close(seat)
        return finish(position, work, solvers)
    card = candidate.card
    if knowledge.lead is not None:
        over = position.trick(knowledge.lead, card)
    else:
        if candidate.married and position.announce(card):
            return position.value(seat)
        if knowledge.talon == 1:  # the trick empties the talon: each reply's deal can be searched to its end
            return searched_reply_value(position, card, work, solvers)
        other = position.hands[1 - seat]
        reply = basic_reply(other, other, card, position.outstanding(1 - seat) & ~(1 << card), rules, True)
        over = position.trick(card, reply)
    return position.value(None) if over else finish(position, work, solvers)


def searched_reply_value(position: Position, lead: int, work: list[int], solvers: Solvers) -> float:
    """The value for seat 0 once the leader leads ``lead`` with the talon open, the opponent
    answering with the reply worst for the leader (of the sampled deal, each valued by
    :func:`finish`) instead of its basic one."""
    leader = position.leader
    best = 9.0 if leader == 0 else -9.0
    for reply in members(position.hands[1 - leader]):
        trial = position.copy()
        if trial.trick(lead, reply):
            value: float = trial.value(None)
        else:  # only a reply better for the opponent than the best so far needs its exact value
            value = finish(trial, work, solvers, -9.0, best) if leader == 0 else finish(trial, work, solvers, best, 9.0)
        best = min(best, value) if leader == 0 else max(best, value)
    return best


def phase_two_value(position: Position, knowledge: Knowledge, candidate: Candidate, solver: Solver, depth: int) -> float:
    """The searched value for seat 0 of a candidate in a sampled deal whose talon is closed or exhausted."""
    card = candidate.card
    assert card is not None
    if knowledge.lead is None:
        return solver.value_of_lead(position, card, candidate.married, depth)
    if position.trick(knowledge.lead, card):
        return position.value(None)
    return solver.value(position, depth - 1)


def weigh(
    knowledge: Knowledge, options: list[Candidate], rng: SeededRandom, depth: int, samples: int, work: list[int], expired: Callable[[], bool]
) -> list[float] | None:
    """The match chances of the candidates summed over up to ``samples`` sampled deals, or over
    every consistent deal where there are no more (in a random order: the work or the time may
    end first), as many as the work and the time allow; None if not one deal could be searched."""
    seat, chances = knowledge.seat, utilities(knowledge)
    totals: list[float] | None = None
    few = consistent_deals(knowledge) <= samples
    deals = rng.shuffled(list(every_deal(knowledge))) if few else (sample(knowledge, rng) for _ in range(samples))
    near_the_end = knowledge.talon <= SEARCH_PLAYED_OUT_FROM_TALON
    for dealt in deals:
        try:
            if knowledge.talon_open:
                solvers = Solvers(work, expired, rng.below(1 << 32), near_the_end)
                values = [phase_one_value(dealt.copy(), knowledge, option, work, solvers) for option in options]
            else:
                solver = Solver(knowledge.rules, knowledge.closing, work, expired)
                values = [phase_two_value(dealt.copy(), knowledge, option, solver, depth) for option in options]
        except Spent:
            break
        totals = totals or [0.0] * len(options)
        for number, value in enumerate(values):
            totals[number] += utility(chances, value if seat == 0 else -value)
        if work[0] <= 0 or expired():
            break
    return totals


def search(knowledge: Knowledge, options: list[Candidate], rng: SeededRandom, budget: Budget) -> Candidate | None:
    """The candidate of the best average match chance over sampled deals; None if not one deal
    could be searched within the budget."""
    assert budget.work is not None  # the expert fills in its default
    work, expired = [budget.work], budget.deadline()
    tricks = knowledge.hand.bit_count()  # to play, the one in play included
    if knowledge.talon:
        totals = weigh(knowledge, options, rng, tricks, MAX_SAMPLES, work, expired)
        return options[max(range(len(options)), key=totals.__getitem__)] if totals else None
    # with no face-down card left the unseen cards are the opponent's: one deal to search, to the
    # end, or a trick deeper at a time while the budget lasts when that is too far
    best = None
    for depth in range(1, tricks + 1) if tricks > EXACT_TRICKS else [tricks]:
        totals = weigh(knowledge, options, rng, depth, 1, work, expired)
        if totals is None:
            break
        best = options[max(range(len(options)), key=totals.__getitem__)]
        if work[0] <= 0 or expired():
            break
    return best


# --- the strategy -----------------------------------------------------------------------------


def claim(knowledge: Knowledge, legal: list[Action]) -> Action | None:
    """The claim both levels make alike, on counting 66: on lead, or with a marriage whose points
    make it (announced and claimed in one action); None when no claim is right."""
    points = knowledge.points(knowledge.seat)
    if DECLARE in legal and points >= CLAIM:
        return DECLARE
    for action in legal:
        if isinstance(action, Marriage) and action.declare and points + knowledge.rules.marriage_points(card_of(action)) >= CLAIM:
            return action
    return None


def basic_action(knowledge: Knowledge, legal: list[Action]) -> Action:
    """The basic rules' decision when on lead or in reply (claims aside)."""
    rules, hand, outstanding = knowledge.rules, knowledge.hand, knowledge.outstanding
    cards = mask_of(card_of(action) for action in legal if action.type == "play")
    if knowledge.lead is not None:
        return PLAYS[basic_reply(hand, cards, knowledge.lead, outstanding, rules, knowledge.talon_open)]
    if EXCHANGE in legal:
        return EXCHANGE
    marriable = mask_of(card_of(action) for action in legal if action.type == "marriage")
    points, tricks = knowledge.points(knowledge.seat), knowledge.tricks[knowledge.seat]
    if CLOSE in legal and basic_closes(hand, marriable, outstanding, rules, points, tricks):
        return CLOSE
    card, married = basic_lead(hand, marriable, outstanding, rules, knowledge.talon_open)
    return MARRIAGES[card] if married else PLAYS[card]


class SixtySixStrategy(Strategy):
    """Sixty-Six and Schnapsen: see the module's description."""

    expert_work = 16000

    def basic(self, info: SeatInfo, rng: SeededRandom) -> Action:
        legal = info.legal_actions()
        knowledge = read(info)
        return claim(knowledge, legal) or basic_action(knowledge, legal)

    def expert(self, info: SeatInfo, rng: SeededRandom, budget: Budget) -> Action:
        legal = info.legal_actions()
        knowledge = read(info)
        claimed = claim(knowledge, legal)
        if claimed is not None:
            return claimed
        if EXCHANGE in legal:
            return EXCHANGE  # a higher trump for the lowest, never worse
        options = candidates(knowledge, legal)
        if len(options) == 1:
            return options[0].action
        chosen = search(knowledge, options, rng, budget)
        return chosen.action if chosen is not None else basic_action(knowledge, legal)

