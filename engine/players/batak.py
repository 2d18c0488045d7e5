"""Partnership Batak computer players: rules of thumb (``basic``) and sampled playouts (``expert``).

Cards are bits of an int: bit ``13 * suit + rank - 2``, the engine's Batak deck (clubs,
diamonds, hearts, spades; two to ace), so a hand is a mask, a suit of it is ``hand &
SUIT_MASK[suit]`` and a higher card of the same suit is a higher bit. The rules of card play
(legal cards, the card winning a trick) are the engine's own functions.

``basic`` bids from the tricks its hand should take (aces, guarded kings, trump length,
shortness) plus what a partner brings on average, names its longest and strongest suit, and
plays cards by rules of thumb (:func:`pick_card`): win as cheaply as possible, never overtake
the partner without need, discard low side cards and keep trumps, draw the opponents' trumps
while they have any, lead from strength.

``expert`` decides by perfect-information sampling: it deals the cards it cannot see at random,
consistently with everything the seat knows (its hand, the open hand, the cards played, the
voids and the missing higher cards that the must-follow, must-beat and must-trump rules
revealed, and the auction), plays each sampled deal out with the ``basic`` card play after each
candidate action, and takes the action with the best average deal score for its team (Batak
scoring, with the two-trick rule and sweeps). In the last four tricks each sampled deal is
searched exactly instead (:class:`Solver`: alpha-beta on masks with a table of positions). Its
``work`` counts the cards those playouts play and the positions searched, so that a decision
late in a deal, whose playouts are short, looks at more deals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..actions import Action, Play
from ..batak import (
    ABOVE,
    BEATERS,
    BIDS,
    DECK,
    MAX_BID,
    PASS,
    PLAYS,
    RANKS,
    SEATS,
    SUITS,
    TRICKS,
    TRUMPS,
    Auction,
    BatakSeat,
    beats,
    broken_after,
    chooser,
    deal_points,
    denied_by_card,
    legal_mask,
    match_winning_team,
    trump_may_be_led,
    partner_of,
    trump_played,
    winning,
)
from ..batak import SUIT_MASKS as SUIT_MASK
from ..cards import Card, highest, lowest, mask_of, members
from ..rules import seat_at
from ..shuffle import SeededRandom
from .base import Budget, SeatInfo, Strategy

ACE, KING, QUEEN = 12, 11, 10  # rank offsets within a suit
ALL_CARDS = DECK.full
FULL_SUIT = (1 << RANKS) - 1


# --- rule-of-thumb card play -------------------------------------------------------------------


def pick_card(
    hand: int,
    legal: int,
    trick_size: int,
    win: int,
    winner: int,
    seat: int,
    partner_hand: int,
    unplayed: int,
    trump: int,
    declaring: bool,
) -> int:
    """The card a sound casual player picks, from what the seat may know.

    ``partner_hand`` is the partner's hand when it is known (declarer and dummy see each other),
    else 0; ``unplayed`` is every card not yet played (the seat's own among them); ``win`` and
    ``winner`` are the card winning the trick so far and its seat (ignored on a lead).
    """
    if not legal & (legal - 1):
        return lowest(legal)
    others = unplayed & ~hand
    if trick_size == 0:
        return _lead(legal, partner_hand, others, trump, declaring)
    beating = BEATERS[trump][win]
    if winner == partner_of(seat):
        # Partner is winning: never overtake without need (the rules may force it).
        return _cheapest(legal & ~beating or legal, others, trump)
    winning = legal & beating
    if not winning:
        return _cheapest(legal, others, trump)
    if trick_size < SEATS - 1:
        # Players still to come may beat a cheap winner: win with the lowest sure one if any.
        for card in members(winning):
            if not ABOVE[card] & others:
                return card
    return lowest(winning)


def _lead(legal: int, partner_hand: int, others: int, trump: int, declaring: bool) -> int:
    """The declaring side draws trumps; then a sure winner is cashed, else a low card led."""
    trump_mask = SUIT_MASK[trump]
    trumps = legal & trump_mask
    if declaring and trumps and others & ~partner_hand & trump_mask:
        # Draw the opponents' trumps while they hold any: with the top trump, or low towards it.
        top = highest(trumps)
        if not ABOVE[top] & others:
            return top
        if not ABOVE[top] & others & ~partner_hand:
            return lowest(trumps)
    side = legal & ~trump_mask
    best, best_outstanding = -1, -1
    longest, longest_length = 0, 0
    for suit_mask in SUIT_MASK:
        held = side & suit_mask
        if held:
            top = highest(held)
            if not ABOVE[top] & others:
                # Cash a sure winner, in the suit the others hold most of (least likely ruffed).
                outstanding = (others & suit_mask).bit_count()
                if outstanding > best_outstanding:
                    best, best_outstanding = top, outstanding
            length = held.bit_count()
            if length > longest_length:
                longest, longest_length = held, length
    if best >= 0:
        return best
    if side:
        return lowest(longest)  # low from the longest side suit
    top = highest(trumps)
    return top if not ABOVE[top] & others else lowest(trumps)


def _cheapest(cards: int, others: int, trump: int) -> int:
    """The card worth least: a side card before a trump, a card another hand can beat before a
    sure winner, a low rank before a high one."""
    pool = cards & ~SUIT_MASK[trump] or cards
    best, best_key = -1, 2 * RANKS
    for suit_mask in SUIT_MASK:
        held = pool & suit_mask
        if held:
            low = lowest(held)  # the suit's cheapest: if another hand beats any card of it, it beats this
            key = low % RANKS + (0 if ABOVE[low] & others else RANKS)
            if key < best_key:
                best, best_key = low, key
    return best


def play_out(
    hands: Sequence[int],
    leader: int,
    trick: Sequence[int],
    trump: int,
    broken: bool,
    free_trump_lead: bool,
    declarer: int,
) -> int:
    """The tricks the declaring team takes from the trick in progress on, every seat playing
    :func:`pick_card`.

    ``hands`` are the four hands, ``trick`` the cards already in the trick ``leader`` led (all
    four of them when it is complete), ``broken`` whether trump was broken before it.
    """
    hands = list(hands)
    team = declarer % 2
    unplayed = hands[0] | hands[1] | hands[2] | hands[3]
    taken = 0
    size = len(trick)
    win, winner = winning(leader, trick, trump)
    led = trick[0] // RANKS if trick else -1
    # A trump in this trick breaks trump for the next lead: nothing else in this trick depends on it.
    may_lead = trump_may_be_led(broken_after(broken, mask_of(trick), trump), free_trump_lead)
    while True:
        while size < SEATS:
            seat = seat_at(leader, size, SEATS)
            hand = hands[seat]
            legal = legal_mask(hand, led, win, trump, may_lead)
            if legal & (legal - 1):
                # declarer and dummy see each other's hand (the declarer chooses both cards)
                partner_hand = hands[partner_of(seat)] if chooser(seat, declarer) == declarer else 0
                card = pick_card(hand, legal, size, win, winner, seat, partner_hand, unplayed, trump, seat % 2 == team)
            else:
                card = legal.bit_length() - 1
            bit = 1 << card
            hands[seat] = hand ^ bit
            unplayed ^= bit
            if led < 0:
                win, winner, led = card, seat, card // RANKS
            elif beats(card, win, trump):
                win, winner = card, seat
            if trump_played(bit, trump):
                may_lead = True
            size += 1
        if winner % 2 == team:
            taken += 1
        if not unplayed:
            return taken
        leader, size, led = winner, 0, -1


# --- rule-of-thumb bidding ---------------------------------------------------------------------

#: tricks from a void, a singleton and a doubleton in a side suit, holding three trumps or more
SHORTNESS = (1.0, 0.5, 0.25)
#: a declaring team's tricks ≈ TEAM_BASE + TEAM_SLOPE × (declarer's + partner's hand_tricks),
#: fitted on basic playouts of random deals
TEAM_BASE, TEAM_SLOPE = 2.1, 0.8
#: the hand_tricks of a partner: unknown yet, who passed, who bid
PARTNER_UNKNOWN, PARTNER_PASSED, PARTNER_BID = 3.3, 2.8, 5.5
#: the tricks a team should expect above a bid before making it: a failed bid costs the bid and
#: hands the defenders their tricks (measured, basic against basic: 2.5 to 3.5 play best)
BID_MARGIN = 2.5


def _honour_tricks(held: int) -> float:
    """The tricks of one suit's honours (``held``: the suit's 13 bits): an ace, a guarded king, a
    queen with two guards."""
    length = held.bit_count()
    ace, king, queen = held >> ACE & 1, held >> KING & 1, held >> QUEEN & 1
    tricks = float(ace)
    if king and length >= 2:
        tricks += 1.0 if ace else 0.5
    if queen and length >= 3:
        tricks += 0.5 if ace or king else 0.25
    return tricks


#: the honour tricks of every holding of one suit
HONOURS = tuple(_honour_tricks(held) for held in range(1 << RANKS))


def hand_tricks(hand: int, trump: int) -> float:
    """The tricks a hand should take with ``trump``: honours, trumps beyond three, and short side
    suits to ruff in."""
    trumps = (hand & SUIT_MASK[trump]).bit_count()
    tricks = 0.0
    for suit in range(4):
        held = hand >> (RANKS * suit) & FULL_SUIT
        tricks += HONOURS[held]
        length = held.bit_count()
        if suit == trump:
            tricks += max(0, length - 3)
        elif trumps >= 3 and length < len(SHORTNESS):
            tricks += SHORTNESS[length]
    return tricks


def basic_trump(hand: int) -> int:
    """The longest suit; of equal lengths, the one with the better honours."""
    return max(
        range(4), key=lambda suit: ((hand & SUIT_MASK[suit]).bit_count(), HONOURS[hand >> (RANKS * suit) & FULL_SUIT])
    )


def hand_strength(hand: int) -> float:
    """The tricks a hand should take with the trump it would choose."""
    return hand_tricks(hand, basic_trump(hand))


def bid_threshold(auction: Auction, seat: int) -> float:
    """The hand_strength from which the rules of thumb bid now (the lowest bid allowed): enough
    for the team to expect the bid and a margin. A partner holding the high bid is left to play
    it (the threshold is infinite)."""
    partner = partner_of(seat)
    if auction.high_bidder == partner:
        return math.inf
    partner_calls = [bid for caller, bid in auction.calls if caller == partner]
    if not partner_calls:
        partner_tricks = PARTNER_UNKNOWN
    else:
        partner_tricks = PARTNER_BID if any(bid is not None for bid in partner_calls) else PARTNER_PASSED
    return (auction.lowest_bid() + BID_MARGIN - TEAM_BASE) / TEAM_SLOPE - partner_tricks


def basic_call(hand: int, auction: Auction, seat: int) -> int | None:
    """The lowest bid allowed when the hand is strong enough, else None (pass)."""
    return auction.lowest_bid() if hand_strength(hand) >= bid_threshold(auction, seat) else None


# --- what a deal is worth ----------------------------------------------------------------------

#: what winning the match is worth, in deal points (a deal's points minus the other team's)
MATCH_WIN = 40


@dataclass(frozen=True, slots=True)
class Standing:
    """A team's match total, the other team's, and the target: what a deal is played for."""

    ours: int
    theirs: int
    target: int

    def value(self, contract: int, declaring_tricks: int, declaring: bool) -> int:
        """What a finished deal is worth to the team: ``MATCH_WIN`` when it wins the match (a bid
        of 13 made, or the target reached ahead), minus that when it loses it, else the team's
        points minus the other team's."""
        declaring_points, defending_points = deal_points(contract, declaring_tricks)
        ours, theirs = (declaring_points, defending_points) if declaring else (defending_points, declaring_points)
        totals = (self.ours + ours, self.theirs + theirs)
        winner = match_winning_team(totals, contract, declaring_tricks >= contract, 0 if declaring else 1, self.target)
        if winner is None:
            return ours - theirs
        return MATCH_WIN if winner == 0 else -MATCH_WIN


# --- what a seat knows -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows of the deal in progress, as card masks: read from its view and events."""

    seat: int
    #: the seat whose card is to be played: the dummy in its turn, else the seat itself
    actor: int
    #: per seat, its cards this seat sees: its own hand, the open hand; 0 for a concealed hand
    known: tuple[int, ...]
    sizes: tuple[int, ...]
    #: per seat, cards it cannot hold: its plays showed a void or no higher card
    excluded: tuple[int, ...]
    #: per seat, the cards it played this deal
    played: tuple[int, ...]
    auction: Auction
    declarer: int | None
    contract: int | None
    trump: int | None
    leader: int | None
    trick: tuple[int, ...]
    #: trump was broken before the trick in progress
    broken: bool
    free_trump_lead: bool
    declaring_tricks: int
    standing: Standing

    @property
    def unplayed(self) -> int:
        """Every card still in a hand."""
        played = 0
        for cards in self.played:
            played |= cards
        return ALL_CARDS & ~played

    @property
    def concealed(self) -> int:
        """The cards in hands this seat cannot see."""
        seen = 0
        for cards in self.known:
            seen |= cards
        return self.unplayed & ~seen

    @staticmethod
    def of(info: SeatInfo) -> "Knowledge":
        """The seat's knowledge: what its view says (in the engine's masks), and what its plays
        showed of each hand in the events of the deal."""
        seen = info.knowledge if info.knowledge is not None else BatakSeat.from_view(info.view)
        assert seen.hand is not None  # a seat's, not a spectator's
        known = [0] * SEATS
        known[info.seat] = seen.hand
        dummy = seen.dummy
        if seen.open_hand is not None and dummy is not None:
            known[dummy] = seen.open_hand
        trump = seen.trump
        free_trump_lead = bool(info.options["trump_lead_before_broken"])
        tricks = [_trick_cards(event) for event in info.events if event["type"] == "trick"]
        leader: int | None = None
        trick: tuple[int, ...] = ()
        if seen.trick is not None:
            leader, trick = seen.trick.leader, seen.trick.cards
            if trick:
                tricks.append((leader, trick))
        excluded = [0] * SEATS
        played = [0] * SEATS
        broken = False  # before each trick of the deal in turn
        if trump is not None:  # cards are played only once trump is named
            for trick_leader, cards in tricks:
                _learn_from_trick(trick_leader, cards, trump, trump_may_be_led(broken, free_trump_lead), excluded, played)
                broken = broken_after(broken, mask_of(cards), trump)
        declarer = seen.declarer
        scores = info.view["scores"]
        return Knowledge(
            seat=info.seat,
            actor=seen.turn if seen.turn is not None else info.seat,
            known=tuple(known),
            sizes=seen.hand_sizes,
            excluded=tuple(excluded),
            played=tuple(played),
            auction=seen.auction,
            declarer=declarer,
            contract=seen.contract,
            trump=trump,
            leader=leader,
            trick=trick,
            broken=seen.trump_broken,
            free_trump_lead=free_trump_lead,
            declaring_tricks=seen.team_tricks(declarer % 2) if declarer is not None else 0,
            standing=Standing(scores[info.seat], scores[(info.seat + 1) % SEATS], info.options["target"]),
        )


def _trick_cards(trick: Mapping[str, Any]) -> tuple[int, tuple[int, ...]]:
    return trick["leader"], tuple(Card.parse(play["card"]).index for play in trick["cards"])


def _learn_from_trick(
    leader: int, cards: Sequence[int], trump: int, may_lead_trump: bool, excluded: list[int], played: list[int]
) -> None:
    """Record who played what, and what the rules say each player could not hold."""
    led, win = cards[0] // RANKS, -1
    for offset, card in enumerate(cards):
        seat = seat_at(leader, offset, SEATS)
        played[seat] |= 1 << card
        excluded[seat] |= denied_by_card(card, led if offset else -1, win, trump, may_lead_trump)
        if offset == 0 or beats(card, win, trump):
            win = card


# --- sampling the concealed hands --------------------------------------------------------------

#: deals drawn for each one kept: the one the auction and the trump choice explain best is kept
CONSISTENCY_TRIES = 6
#: dealings tried before the card exclusions are given up on (they can always be met, so this
#: only bounds an unlucky order of dealing)
DEAL_TRIES = 20
WORD = (1 << 64) - 1


class DealSampler:
    """Random deals consistent with what one seat knows.

    Each concealed card goes to a seat whose plays did not rule it out, and each hand gets its
    size. Of ``CONSISTENCY_TRIES`` such deals, the first whose concealed hands explain the
    auction and the trump choice (as the rules of thumb would have called and chosen holding
    them) is kept, else the one that explains most. The random numbers come from an xorshift64*
    stream seeded by ``rng``: the SHA-256 stream is too slow for hundreds of deals a decision.
    """

    def __init__(self, knowledge: Knowledge, rng: SeededRandom) -> None:
        self.known = knowledge.known
        self.played = knowledge.played
        self.sizes = knowledge.sizes
        self.seats = [seat for seat in range(SEATS) if not knowledge.known[seat] and knowledge.sizes[seat]]
        #: cards any concealed seat may hold, and the others with the seats that may hold them
        self.free: list[int] = []
        self.bound: list[tuple[list[int], int]] = []
        for card in members(knowledge.concealed):
            choices = [seat for seat in self.seats if not knowledge.excluded[seat] >> card & 1]
            # (No seat at all cannot happen in a real deal: the plays it was read from were legal.)
            if len(choices) == len(self.seats) or not choices:
                self.free.append(card)
            else:
                self.bound.append((choices, card))
        self.bound.sort(key=lambda entry: len(entry[0]))  # the most constrained first
        #: (seat, bid_threshold, whether it bid) for each call of a concealed seat
        self.calls: list[tuple[int, float, bool]] = []
        auction = Auction(knowledge.auction.opener)
        for seat, bid in knowledge.auction.calls:
            if seat in self.seats:
                self.calls.append((seat, bid_threshold(auction, seat), bid is not None))
            auction = auction.after(seat, bid)
        declarer, trump = knowledge.declarer, knowledge.trump
        #: a concealed declarer and its trump: the rules of thumb name their longest suit
        self.trump_choice = (declarer, trump) if declarer in self.seats and trump is not None else None
        self.state = rng.below(WORD) + 1

    def sample(self) -> list[int]:
        """Four hands: a random deal consistent with the seat's knowledge."""
        best: list[int] = []
        best_discord = math.inf
        for _ in range(CONSISTENCY_TRIES):
            hands = self.deal()
            found = self.discord(hands)
            if found < best_discord:
                best, best_discord = hands, found
                if not found:
                    break
        return best

    def deal(self) -> list[int]:
        """Four hands, the concealed cards dealt at random within what the plays ruled out."""
        for _ in range(DEAL_TRIES):
            hands = self._deal(self.bound, self.free)
            if hands is not None:
                return hands
        hands = self._deal([], self.free + [card for _, card in self.bound])
        assert hands is not None
        return hands

    def _randoms(self, count: int) -> list[int]:
        """``count`` random 48-bit numbers, from the xorshift64* stream."""
        x = self.state
        numbers = []
        for _ in range(count):
            x ^= x >> 12
            x ^= (x << 25) & WORD
            x ^= x >> 27
            numbers.append((x * 0x2545F4914F6CDD1D & WORD) >> 16)
        self.state = x
        return numbers

    def _deal(self, bound: list[tuple[list[int], int]], free: list[int]) -> list[int] | None:
        hands = list(self.known)
        room = list(self.sizes)
        randoms = self._randoms(len(bound) + len(free))
        for (choices, card), draw in zip(bound, randoms):
            open_seats = [seat for seat in choices if room[seat]]
            if not open_seats:
                return None
            draw %= sum(room[seat] for seat in open_seats)
            for seat in open_seats:
                draw -= room[seat]
                if draw < 0:
                    break
            hands[seat] |= 1 << card
            room[seat] -= 1
        # The free cards, shuffled (Fisher-Yates), fill the room left in turn.
        free = list(free)
        for i, draw in zip(range(len(free) - 1, 0, -1), randoms[len(bound) :]):
            j = draw % (i + 1)
            free[i], free[j] = free[j], free[i]
        start = 0
        for seat in self.seats:
            for card in free[start : start + room[seat]]:
                hands[seat] |= 1 << card
            start += room[seat]
        return hands

    def discord(self, hands: Sequence[int]) -> int:
        """How many calls and trump choices of the concealed seats the rules of thumb would not have
        made holding ``hands`` (with the cards they have played since)."""
        if not self.calls and self.trump_choice is None:
            return 0
        dealt = [hand | played for hand, played in zip(hands, self.played)]
        strength = {seat: hand_strength(dealt[seat]) for seat in self.seats}
        count = sum(1 for seat, threshold, bid in self.calls if (strength[seat] >= threshold) != bid)
        if self.trump_choice is not None:
            declarer, trump = self.trump_choice
            lengths = [(dealt[declarer] & mask).bit_count() for mask in SUIT_MASK]
            count += lengths[trump] < max(lengths)
        return count


# --- the strategy ------------------------------------------------------------------------------


def finish_auction(hands: Sequence[int], auction: Auction) -> tuple[int, int]:
    """The declarer and contract when every seat calls by the rules of thumb from here on."""
    while auction.is_open:
        seat = auction.to_bid
        auction = auction.after(seat, basic_call(hands[seat], auction, seat))
    return auction.outcome()


def distinct_cards(legal: int, hand: int, unplayed: int) -> list[int]:
    """The legal cards that differ in effect: of cards in sequence (nothing another hand holds
    between them), only the lowest."""
    others = unplayed & ~hand
    chosen: list[int] = []
    previous = -1
    for card in members(legal):
        if previous < 0 or card // RANKS != previous // RANKS or others & ABOVE[previous] & ~ABOVE[card - 1]:
            chosen.append(card)
        previous = card
    return chosen


# --- exact search of the last tricks ------------------------------------------------------------


class OutOfWork(Exception):
    """The search used up its work or its time."""


class Solver:
    """Exact search of a deal's last tricks with every hand known: the tricks the declaring team
    takes from the trick in progress on, both teams playing their best.

    Alpha-beta over the cards (the declarer chooses the dummy's: a team is one side), with the
    lowest of cards in sequence standing for all of them (:func:`distinct_cards`), and bounds
    remembered per position at the start of a trick (the hands, the leader, whether trump may be
    led). A team's deal value only grows with its tricks, so the best play for tricks is the best
    for the deal's value too. ``work`` bounds the positions searched (with ``deadline``, looked at
    every 512): past either, :class:`OutOfWork`.
    """

    def __init__(self, trump: int, declarer: int, free_trump_lead: bool, work: int, deadline: Callable[[], bool]) -> None:
        self.trump = trump
        self.team = declarer % 2
        self.free_trump_lead = free_trump_lead
        self.work = work
        self.deadline = deadline
        self.nodes = 0
        self.memo: dict[tuple[int, int, int, int, int, bool], tuple[int, int]] = {}

    def tricks(self, hands: Sequence[int], leader: int, trick: Sequence[int], broken: bool) -> int:
        """The declaring team's tricks from the trick ``leader`` led (``trick``: its cards so far)
        on, trump broken before it or not."""
        trump = self.trump
        win, winner = winning(leader, trick, trump)
        led = trick[0] // RANKS if trick else -1
        may_lead = trump_may_be_led(broken_after(broken, mask_of(trick), trump), self.free_trump_lead)
        return self._card(list(hands), leader, len(trick), led, win, winner, may_lead, -1, TRICKS + 1)

    def _start(self, hands: list[int], leader: int, may_lead_trump: bool, alpha: int, beta: int) -> int:
        """The declaring team's tricks from a trick's start, within the window (alpha, beta)."""
        self.nodes += 1
        if self.nodes >= self.work or (not self.nodes & 511 and self.deadline()):
            raise OutOfWork
        key = (hands[0], hands[1], hands[2], hands[3], leader, may_lead_trump)
        low, high = self.memo.get(key, (0, hands[leader].bit_count()))
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        found = self._card(hands, leader, 0, -1, -1, -1, may_lead_trump, max(alpha, low), min(beta, high))
        if found <= max(alpha, low):
            self.memo[key] = (low, found)
        elif found >= min(beta, high):
            self.memo[key] = (found, high)
        else:
            self.memo[key] = (found, found)
        return found

    def _card(
        self, hands: list[int], leader: int, size: int, led: int, win: int, winner: int, may_lead_trump: bool, alpha: int, beta: int
    ) -> int:
        """The declaring team's tricks once the trick's next card (its ``size``-th) is played."""
        trump = self.trump
        seat = seat_at(leader, size, SEATS)
        hand = hands[seat]
        unplayed = hands[0] | hands[1] | hands[2] | hands[3]
        maximizing = seat % 2 == self.team
        best = -1 if maximizing else TRICKS + 1
        for card in distinct_cards(legal_mask(hand, led, win, trump, may_lead_trump), hand, unplayed):
            bit = 1 << card
            if led < 0:
                next_led, next_win, next_winner = card // RANKS, card, seat
            elif beats(card, win, trump):
                next_led, next_win, next_winner = led, card, seat
            else:
                next_led, next_win, next_winner = led, win, winner
            hands[seat] = hand ^ bit
            may = may_lead_trump or trump_played(bit, trump)
            if size + 1 < SEATS:
                value = self._card(hands, leader, size + 1, next_led, next_win, next_winner, may, alpha, beta)
            else:
                gained = 1 if next_winner % 2 == self.team else 0
                if unplayed == bit:
                    value = gained
                else:
                    value = gained + self._start(hands, next_winner, may, alpha - gained, beta - gained)
            hands[seat] = hand
            if maximizing:
                if value > best:
                    best = value
                    alpha = max(alpha, best)
            elif value < best:
                best = value
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best


class BatakStrategy(Strategy):
    """Partnership Batak: bids, trump and cards by rules of thumb, or by sampled playouts.

    ``work`` for the expert counts the cards played in its playouts, per decision.
    """

    expert_work = 8000

    def basic(self, info: SeatInfo, rng: SeededRandom) -> Action:
        knowledge = Knowledge.of(info)
        hand = knowledge.known[knowledge.seat]
        if knowledge.declarer is None:
            return _call_action(basic_call(hand, knowledge.auction, knowledge.seat))
        if knowledge.trump is None:
            return TRUMPS[basic_trump(hand)]
        return _play_action(_basic_card(knowledge, _legal_cards(info)))

    def expert(self, info: SeatInfo, rng: SeededRandom, budget: Budget) -> Action:
        knowledge = Knowledge.of(info)
        deadline = budget.deadline()
        work = budget.work
        assert work is not None  # the expert fills in its default
        if knowledge.declarer is None:
            return _call_action(_expert_call(knowledge, rng, work, deadline))
        if knowledge.trump is None:
            return TRUMPS[_expert_trump(knowledge, rng, work, deadline)]
        return _play_action(_expert_card(knowledge, _legal_cards(info), rng, work, deadline))


def _call_action(bid: int | None) -> Action:
    return PASS if bid is None else BIDS[bid]


def _play_action(card: int) -> Action:
    return PLAYS[card]


def _legal_cards(info: SeatInfo) -> int:
    return DECK.mask([action.card for action in info.legal_actions() if isinstance(action, Play)])


def _basic_card(knowledge: Knowledge, legal: int) -> int:
    assert knowledge.trump is not None and knowledge.declarer is not None and knowledge.leader is not None
    actor = knowledge.actor
    win, winner = winning(knowledge.leader, knowledge.trick, knowledge.trump)
    return pick_card(
        knowledge.known[actor],
        legal,
        len(knowledge.trick),
        win,
        winner,
        actor,
        knowledge.known[partner_of(actor)],  # declarer and dummy see each other; a defender's partner is 0
        knowledge.unplayed,
        knowledge.trump,
        actor % 2 == knowledge.declarer % 2,
    )


def _best(values: Sequence[float]) -> int:
    """The index of the highest value; the first of equal ones."""
    return max(range(len(values)), key=lambda index: (values[index], -index))


#: deals sampled for one decision at most: beyond this, more deals hardly change it
MAX_SAMPLES = 120
#: with this many cards or fewer left to play (the trick in progress's included), each sampled
#: deal is searched exactly (:class:`Solver`) instead of played out by the rules of thumb; a
#: searched position counts one of ``work``, as a card played out does
SOLVED_CARDS = 16


def _search(
    knowledge: Knowledge,
    rng: SeededRandom,
    work: int,
    deadline: Callable[[], bool],
    options: int,
    score: Callable[[list[int], list[float]], int],
) -> list[float]:
    """Each option's total value over sampled deals.

    ``score`` adds one deal's value of every option to the totals and returns the cards its
    playouts played: ``work`` counts those cards, so that a decision late in a deal, with short
    playouts, looks at more deals. At least one deal is sampled, whatever the deadline.
    """
    totals = [0.0] * options
    sampler = DealSampler(knowledge, rng)
    spent = 0
    for _ in range(MAX_SAMPLES):
        spent += score(sampler.sample(), totals)
        if spent >= work or deadline():
            break
    return totals


#: the hand_strength from which a bid of 13 is worth simulating
SWEEP_HAND = 9.0


def _expert_call(knowledge: Knowledge, rng: SeededRandom, work: int, deadline: Callable[[], bool]) -> int | None:
    """Pass or the lowest bid (or 13, for a hand that might sweep), whichever scores best when
    the sampled deals are bid out and played by the rules of thumb."""
    seat, auction, standing = knowledge.seat, knowledge.auction, knowledge.standing
    lowest = auction.lowest_bid()
    calls: list[int | None] = [None, lowest]
    if lowest < MAX_BID and hand_strength(knowledge.known[seat]) >= SWEEP_HAND:
        calls.append(MAX_BID)

    def score(hands: list[int], totals: list[float]) -> int:
        tricks: dict[tuple[int, int], int] = {}  # by declarer and trump: calls share playouts
        for index, call in enumerate(calls):
            declarer, contract = finish_auction(hands, auction.after(seat, call))
            trump = basic_trump(hands[declarer])
            if (declarer, trump) not in tricks:
                free_trump_lead = knowledge.free_trump_lead
                tricks[declarer, trump] = play_out(hands, declarer, (), trump, False, free_trump_lead, declarer)
            totals[index] += standing.value(contract, tricks[declarer, trump], declarer % 2 == seat % 2)
        return len(tricks) * SEATS * TRICKS

    return calls[_best(_search(knowledge, rng, work, deadline, len(calls), score))]


def _expert_trump(knowledge: Knowledge, rng: SeededRandom, work: int, deadline: Callable[[], bool]) -> int:
    """The suit that scores best over sampled deals played out by the rules of thumb."""
    seat, contract, standing = knowledge.seat, knowledge.contract, knowledge.standing
    assert contract is not None

    def score(hands: list[int], totals: list[float]) -> int:
        for suit in range(len(SUITS)):
            tricks = play_out(hands, seat, (), suit, False, knowledge.free_trump_lead, seat)
            totals[suit] += standing.value(contract, tricks, True)
        return len(SUITS) * SEATS * TRICKS

    return _best(_search(knowledge, rng, work, deadline, len(SUITS), score))


def _expert_card(
    knowledge: Knowledge, legal: int, rng: SeededRandom, work: int, deadline: Callable[[], bool]
) -> int:
    """The card that scores best over sampled deals played out by the rules of thumb after it."""
    trump, declarer, contract, leader = knowledge.trump, knowledge.declarer, knowledge.contract, knowledge.leader
    assert trump is not None and declarer is not None and contract is not None and leader is not None
    actor = knowledge.actor
    candidates = distinct_cards(legal, knowledge.known[actor], knowledge.unplayed)
    basic = _basic_card(knowledge, legal)
    # The rule-of-thumb card heads the list, so that it wins ties (its group's lowest stands for it).
    first = max(card for card in candidates if card // RANKS == basic // RANKS and card <= basic)
    candidates.remove(first)
    candidates.insert(0, first)
    if len(candidates) == 1:
        return first
    declaring = knowledge.seat % 2 == declarer % 2
    cards_left = knowledge.unplayed.bit_count()
    standing = knowledge.standing
    solver = Solver(trump, declarer, knowledge.free_trump_lead, work, deadline) if cards_left <= SOLVED_CARDS else None

    def solved(hands: list[int], totals: list[float]) -> int | None:
        """Each candidate's value in a sampled deal by exact search; None out of work."""
        assert solver is not None
        before, found = solver.nodes, []
        try:
            for card in candidates:
                hands[actor] ^= 1 << card
                try:
                    found.append(solver.tricks(hands, leader, knowledge.trick + (card,), knowledge.broken))
                finally:
                    hands[actor] ^= 1 << card
        except OutOfWork:
            return None
        for index, tricks in enumerate(found):
            totals[index] += standing.value(contract, knowledge.declaring_tricks + tricks, declaring)
        return solver.nodes - before

    def score(hands: list[int], totals: list[float]) -> int:
        if solver is not None:
            spent = solved(hands, totals)
            if spent is not None:
                return spent
        for index, card in enumerate(candidates):
            hands[actor] ^= 1 << card
            tricks = play_out(
                hands, leader, knowledge.trick + (card,), trump, knowledge.broken, knowledge.free_trump_lead, declarer
            )
            hands[actor] ^= 1 << card
            totals[index] += standing.value(contract, knowledge.declaring_tricks + tricks, declaring)
        return len(candidates) * cards_left

    return candidates[_best(_search(knowledge, rng, work, deadline, len(candidates), score))]

