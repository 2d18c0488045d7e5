"""German Whist (Alman Whisti): two players, 52 cards, a stock to draw from, then 13 tricks.

The rules are those of the German Whist section of the rule book. A deal: 13 cards each, the
other 26 form the stock with its top card face up (its suit is trump). In phase 1 (tricks 1-13)
the trick's winner takes the face-up card, the loser the next card face down, and the next card
is turned up; in phase 2 (tricks 14-26) the hands are played out. Only phase-2 tricks count,
unless ``count_all_tricks``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from .cards import FULL_DECK, Card, Suit, codes
from .rules import Action, DealRecord, Event, Option, RuleError, Trick, deal_opened, illegal, play, private, public, replace_at
from .ruleset import Match, Ruleset
from .shuffle import shuffled_deck

SEATS = 2
HAND_SIZE = 13


@dataclass(frozen=True, slots=True)
class GermanWhistState:
    match: Match
    hands: tuple[frozenset[Card], ...]
    stock: tuple[Card, ...]  # what is left, in drawing order; stock[0] is face up in phase 1
    trump: Suit | None
    trick: Trick  # the trick being played
    won: tuple[tuple[int, int], ...]  # per seat: (phase-1 tricks, phase-2 tricks) this deal
    shown: tuple[frozenset[Card], ...]  # per seat: face-up stock cards taken and still held
    last_trick: Trick | None = None

    @property
    def phase(self) -> int:
        return 1 if self.stock else 2

    @property
    def trick_number(self) -> int:
        return sum(sum(seat) for seat in self.won) + 1


def trick_winner(trick: Trick, trump: Suit | None) -> int:
    """The seat that wins a complete trick: the highest trump, else the highest of the suit led."""
    led = trick.cards[0].suit

    def strength(card: Card) -> int:
        if card.suit == trump:
            return 100 + card.rank
        return card.rank if card.suit == led else 0

    best = max(range(len(trick.cards)), key=lambda i: strength(trick.cards[i]))
    return (trick.leader + best) % SEATS


def deal_scores(won: tuple[tuple[int, int], ...], options: Mapping[str, Any]) -> tuple[list[int], list[int], list[int]]:
    """The counted tricks, the points and the winners of a finished deal under ``options``."""
    counted = [phase1 * options["count_all_tricks"] + phase2 for phase1, phase2 in won]
    base = sum(counted) // 2  # 6 of 13, or 13 of 26: the "over" line
    if counted[0] == counted[1]:
        winners: list[int] = []
    else:
        more = 0 if counted[0] > counted[1] else 1
        winners = [1 - more] if options["misere"] else [more]
    if options["scoring"] == "tricks":
        points = list(counted)
    else:
        points = [max(0, count - base) for count in counted]
    if options["misere"]:
        points.reverse()
    return counted, points, winners


class GermanWhist(Ruleset[GermanWhistState]):
    id = "german-whist"
    names = {"en": "German Whist", "tr": "Alman Whisti"}
    seat_names = ({"en": "Player 1", "tr": "1. Oyuncu"}, {"en": "Player 2", "tr": "2. Oyuncu"})
    options = (
        Option(
            "scoring",
            "string",
            "tricks",
            {"en": "Scoring", "tr": "Puanlama"},
            "tricks: each player scores the counted tricks they won; over-six: only the deal's winner "
            "scores, the tricks won above 6 (above 13 when all tricks count).",
            allowed=("tricks", "over-six"),
        ),
        Option(
            "count_all_tricks",
            "boolean",
            False,
            {"en": "Count all 26 tricks", "tr": "26 el sayılır"},
            "Phase-1 tricks count too; a 13-13 deal is then a tie.",
        ),
        Option(
            "no_trump",
            "boolean",
            False,
            {"en": "No trump", "tr": "Kozsuz"},
            "No trump suit; the face-up card only shows what the trick's winner gets.",
        ),
        Option(
            "misere",
            "boolean",
            False,
            {"en": "Misère (fewest tricks win)", "tr": "Düşük el"},
            "The player with fewer counted tricks wins the deal, and the two scores are swapped.",
        ),
        Option(
            "target",
            "integer",
            0,
            {"en": "Target score", "tr": "Hedef puan"},
            "0 plays a single deal; otherwise deals are played until a total reaches the target, "
            "the higher total winning and equal totals playing another deal.",
            minimum=0,
            maximum=1000,
        ),
    )

    # --- creation ---------------------------------------------------------------------------

    def new_game(self, options: Mapping[str, Any], seed: str) -> tuple[GermanWhistState, tuple[Event, ...]]:
        return self._deal(Match.start(options, seed, SEATS))

    def deal_record(self, match: Match, deal_number: int, dealer: int) -> DealRecord:
        """Cards go one at a time, from the non-dealer; the rest is the stock in drawing order."""
        cards = shuffled_deck(match.seed, deal_number, FULL_DECK)
        first = 1 - dealer
        hands: list[tuple[Card, ...]] = [(), ()]
        hands[first], hands[dealer] = tuple(cards[0 : 2 * HAND_SIZE : 2]), tuple(cards[1 : 2 * HAND_SIZE : 2])
        stock = tuple(cards[2 * HAND_SIZE :])
        return DealRecord(dealer, tuple(hands), stock, stock[0])

    def _deal(self, match: Match) -> tuple[GermanWhistState, tuple[Event, ...]]:
        dealer = match.dealer(SEATS)
        record = self.deal_record(match, match.deal_number, dealer)
        face_up = record.stock[0]
        trump = None if match.options["no_trump"] else face_up.suit
        state = GermanWhistState(
            match=match,
            hands=tuple(frozenset(hand) for hand in record.hands),
            stock=record.stock,
            trump=trump,
            trick=Trick(leader=1 - dealer),
            won=((0, 0), (0, 0)),
            shown=(frozenset(), frozenset()),
        )
        events = deal_opened(
            match.deal_number,
            dealer,
            record.hands,
            trump=trump.value if trump else None,
            face_up=face_up.code,
            stock_size=len(record.stock),
        )
        return state, tuple(events)

    # --- play -------------------------------------------------------------------------------

    def to_act(self, state: GermanWhistState) -> tuple[int, ...]:
        if state.match.result is not None:
            return ()
        return ((state.trick.leader + len(state.trick.cards)) % SEATS,)

    def legal_actions(self, state: GermanWhistState, seat: int) -> tuple[Action, ...]:
        if seat not in self.to_act(state):
            return ()
        return tuple(play(card) for card in sorted(self._legal_cards(state, seat)))

    def _legal_cards(self, state: GermanWhistState, seat: int) -> frozenset[Card]:
        hand = state.hands[seat]
        if state.trick.cards:
            led = state.trick.cards[0].suit
            following = frozenset(card for card in hand if card.suit == led)
            if following:
                return following
        return hand

    def explain_illegal(self, state: GermanWhistState, seat: int, action: Action) -> RuleError:
        if action.type != "play":
            return illegal("illegal_action", f"German Whist has only 'play' actions, not {action.type!r}")
        if action.card not in state.hands[seat]:
            return illegal("card_not_in_hand", f"{action.card} is not in your hand")
        led = state.trick.cards[0].suit
        return illegal("must_follow_suit", f"you hold {Suit(led).names['en'].lower()} and must follow suit")

    def perform(self, state: GermanWhistState, seat: int, action: Action) -> tuple[GermanWhistState, tuple[Event, ...]]:
        card = action.card
        assert card is not None
        hands = replace_at(state.hands, seat, state.hands[seat] - {card})
        shown = replace_at(state.shown, seat, state.shown[seat] - {card})
        trick = replace(state.trick, cards=state.trick.cards + (card,))
        state = replace(state, hands=hands, shown=shown, trick=trick)
        if len(trick.cards) < SEATS:
            return state, ()
        return self._finish_trick(state)

    def _finish_trick(self, state: GermanWhistState) -> tuple[GermanWhistState, tuple[Event, ...]]:
        winner = trick_winner(state.trick, state.trump)
        loser = 1 - winner
        done = replace(state.trick, winner=winner)
        phase = state.phase
        won = replace_at(state.won, winner, _bump(state.won[winner], phase - 1))
        events: list[Event] = [
            public("trick", number=state.trick_number, phase=phase, **done.to_json(SEATS)),
        ]
        hands, shown, stock = list(state.hands), list(state.shown), state.stock
        if stock:
            taken, drawn, stock = stock[0], stock[1], stock[2:]
            hands[winner] = hands[winner] | {taken}
            shown[winner] = shown[winner] | {taken}
            hands[loser] = hands[loser] | {drawn}
            events.append(public("take", seat=winner, card=taken.code))
            events.append(private(loser, "draw", ["card"], seat=loser, card=drawn.code))
            if stock:
                events.append(public("turn_up", card=stock[0].code, stock_size=len(stock)))
        state = replace(
            state,
            hands=tuple(hands),
            shown=tuple(shown),
            stock=stock,
            won=won,
            trick=Trick(leader=winner),
            last_trick=done,
        )
        if any(state.hands):
            return state, tuple(events)
        return self._finish_deal(state, events)

    def _finish_deal(self, state: GermanWhistState, events: list[Event]) -> tuple[GermanWhistState, tuple[Event, ...]]:
        match = state.match
        counted, points, winners = deal_scores(state.won, match.options)
        result = {
            "deal": match.deal_number,
            "tricks": counted,
            "tricks_by_phase": [list(seat) for seat in state.won],
            "points": points,
            "winners": winners,
        }
        match = match.after_deal(points, result)
        events.append(public("deal_result", **result, scores=list(match.scores)))
        target = match.options["target"]
        best = max(match.scores)
        leaders = [seat for seat, total in enumerate(match.scores) if total == best]
        if target == 0 or (best >= target and len(leaders) == 1):
            winners = leaders if len(leaders) == 1 else []
            match = match.finish(winners)
            events.append(public("match_result", winners=winners, scores=list(match.scores)))
            return replace(state, match=match), tuple(events)
        next_state, deal_events = self._deal(match.next_deal())
        return next_state, tuple(events) + deal_events

    # --- views ------------------------------------------------------------------------------

    def table_view(self, state: GermanWhistState, seat: int | None) -> dict[str, Any]:
        return {
            "hand": codes(sorted(state.hands[seat])) if seat is not None else None,
            "hand_sizes": [len(hand) for hand in state.hands],
            "trump": state.trump.value if state.trump else None,
            "face_up": state.stock[0].code if state.stock else None,
            "stock_size": len(state.stock),
            "phase": state.phase,
            "trick_number": state.trick_number if state.match.result is None else None,
            "trick": state.trick.to_json(SEATS),
            "last_trick": state.last_trick.to_json(SEATS) if state.last_trick else None,
            "tricks_won": [sum(seat_won) for seat_won in state.won],
            "tricks_by_phase": [list(seat_won) for seat_won in state.won],
            "known_cards": [codes(sorted(cards)) for cards in state.shown],
        }

    # --- serialization ----------------------------------------------------------------------

    def dump_deal(self, state: GermanWhistState) -> dict[str, Any]:
        return {
            "hands": [codes(sorted(hand)) for hand in state.hands],
            "stock": codes(state.stock),
            "trump": state.trump.value if state.trump else None,
            "trick": state.trick.dump(),
            "won": [list(seat) for seat in state.won],
            "shown": [codes(sorted(cards)) for cards in state.shown],
            "last_trick": state.last_trick.dump() if state.last_trick else None,
        }

    def load_deal(self, match: Match, doc: Mapping[str, Any]) -> GermanWhistState:
        return GermanWhistState(
            match=match,
            hands=tuple(frozenset(map(Card.parse, hand)) for hand in doc["hands"]),
            stock=tuple(map(Card.parse, doc["stock"])),
            trump=Suit(doc["trump"]) if doc["trump"] else None,
            trick=Trick.load(doc["trick"]),
            won=tuple((phase1, phase2) for phase1, phase2 in doc["won"]),
            shown=tuple(frozenset(map(Card.parse, cards)) for cards in doc["shown"]),
            last_trick=Trick.load(doc["last_trick"]),
        )


def _bump(counts: tuple[int, int], index: int) -> tuple[int, int]:
    return replace_at(counts, index, counts[index] + 1)
