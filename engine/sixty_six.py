"""Sixty-Six (Altmışaltı) and its Schnapsen variant: two players, a talon to draw from, 66 to claim.

The rules are those of the Sixty-Six section of the rule book. A deal: 6 cards each (5 in
Schnapsen), the next card face up under the talon fixes trump and is drawn last. While the talon
is open the follower plays any card and both players draw after each trick, winner first; once
it is exhausted or closed the follower must follow suit, win if able, else trump. The leader
may exchange the trump nine (jack), close the talon, announce a marriage with the lead, and
claim 66 (``declare``), on its own or together with a marriage; a claim, or the last trick, ends
the deal. Exactly one seat may act at any moment.

The state keeps only what cannot be derived: tricks won are ``len(won) // 2`` and a marriage is
pending while its announcer has won nothing.

Events (public unless said otherwise; card fields are codes such as ``"QS"``):

- ``deal``: ``deal``, ``dealer``, ``trump`` (suit letter), ``trump_card`` (the card under the
  talon; with ``no_talon`` the dealer's last card, which stays in their hand), ``talon_size``
  (face-down cards).
- ``dealt`` (private to ``seat``): ``seat``, ``hand``, ``count``; others see ``seat`` and ``count``.
- ``exchange``: ``seat``, ``gave`` (the nine or jack now under the talon), ``took`` (the old
  trump card, now known in that hand).
- ``close``: ``seat``.
- ``marriage``: ``seat``, ``suit``, ``value`` (20 or 40), ``pair`` (king, queen), ``card``
  (the one led, or named with a claim; the other is now known in that hand). A marriage that
  claims 66 is followed by ``declare`` and the deal's result, with no card led.
- ``trick``: ``number``, ``phase`` (1 talon open, 2 otherwise), ``leader``, ``cards``
  (``[{"seat", "card"}]`` in play order), ``winner``.
- ``draw`` (private to ``seat``): ``seat``, ``card``, ``talon_size`` (left after it); others see
  ``seat`` and ``talon_size``.
- ``take``: ``seat``, ``card``: the loser of the trick that took the last face-down card takes
  the trump card, in view.
- ``declare``: ``seat``: a claim of 66, judged in the ``deal_result`` that follows.
- ``deal_result``: the keys of :func:`deal_result` plus ``scores`` (match totals after it).
- ``match_result``: ``winners``, ``scores``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from .cards import Card, Rank, Suit, codes, deck
from .rules import (
    Action,
    DealRecord,
    Event,
    Option,
    RuleError,
    Trick,
    bad_option,
    deal_opened,
    illegal,
    play,
    private,
    public,
    replace_at,
)
from .ruleset import Match, Ruleset
from .shuffle import shuffled_deck

SEATS = 2
CLAIM = 66  # a claim is correct with this many points or more
HALF = 33  # a loser with fewer points (but a trick won) gives away 2 game points
LAST_TRICK_TEN = 10

#: Order within a suit, low to high: 9 J Q K 10 A.
STRENGTH = {Rank.NINE: 0, Rank.JACK: 1, Rank.QUEEN: 2, Rank.KING: 3, Rank.TEN: 4, Rank.ACE: 5}
CARD_POINTS = {Rank.NINE: 0, Rank.JACK: 2, Rank.QUEEN: 3, Rank.KING: 4, Rank.TEN: 10, Rank.ACE: 11}

EXCHANGE = Action("exchange")
CLOSE = Action("close")
DECLARE = Action("declare")


@dataclass(frozen=True, slots=True)
class Variant:
    """What the ``variant`` option fixes: the deck, the hand size and the card exchanged for trump."""

    deck: tuple[Card, ...]
    hand_size: int
    exchange_rank: Rank


VARIANTS = {
    "sixty-six": Variant(deck(STRENGTH), 6, Rank.NINE),
    "schnapsen": Variant(deck(rank for rank in STRENGTH if rank != Rank.NINE), 5, Rank.JACK),
}

# Actions are immutable: legal_actions hands out these instead of building new ones every call.
PLAYS = {card: play(card) for card in VARIANTS["sixty-six"].deck}
MARRIAGES = {card: Action("marriage", card=card) for card in PLAYS if card.rank in (Rank.KING, Rank.QUEEN)}
#: a marriage announced together with a claim of 66
MARRIAGE_CLAIMS = {card: replace(action, declare=True) for card, action in MARRIAGES.items()}


@dataclass(frozen=True, slots=True)
class Marriage:
    """An announced marriage: the announcer and the king or queen they led with it."""

    seat: int
    card: Card

    @property
    def cards(self) -> tuple[Card, Card]:
        """The king and the queen."""
        return Card(Rank.KING, self.card.suit), Card(Rank.QUEEN, self.card.suit)

    def points(self, trump: Suit) -> int:
        return 40 if self.card.suit == trump else 20


@dataclass(frozen=True, slots=True)
class Closing:
    """Who closed the talon, and their opponent's points and tricks at that moment."""

    seat: int
    points: int
    tricks: int


@dataclass(frozen=True, slots=True)
class SixtySixState:
    """A match of Sixty-Six, in the middle of its current deal."""

    match: Match
    hands: tuple[frozenset[Card], ...]
    talon: tuple[Card, ...]  # the face-down cards, in drawing order
    trump_card: Card | None  # the card under the talon; None once taken, or with no talon
    trump: Suit
    trick: Trick  # the trick being played
    won: tuple[frozenset[Card], ...]  # per seat: the cards of the tricks won this deal
    marriages: tuple[Marriage, ...]  # announced this deal, in order
    shown: tuple[frozenset[Card], ...]  # per seat: cards in hand that both players know
    closing: Closing | None = None
    last_trick: Trick | None = None

    @property
    def talon_open(self) -> bool:
        """At least one face-down card left and not closed: phase 1."""
        return bool(self.talon) and self.closing is None

    @property
    def phase(self) -> int:
        return 1 if self.talon_open else 2

    @property
    def tricks(self) -> tuple[int, ...]:
        """Tricks won this deal, per seat."""
        return tuple(len(cards) // SEATS for cards in self.won)

    @property
    def trick_number(self) -> int:
        return sum(self.tricks) + 1

    def points(self, seat: int) -> int:
        """Card points won plus counted marriages (a marriage counts once its announcer won a trick)."""
        if not self.won[seat]:
            return 0
        cards = sum(CARD_POINTS[card.rank] for card in self.won[seat])
        return cards + self.marriage_points(seat)

    def marriage_points(self, seat: int) -> int:
        """The seat's counted marriage points: 0 while they are pending."""
        if not self.won[seat]:
            return 0
        return sum(marriage.points(self.trump) for marriage in self.marriages if marriage.seat == seat)


def trick_winner(trick: Trick, trump: Suit) -> int:
    """The seat that wins a complete trick: the higher trump, else the higher card of the suit led."""
    lead, reply = trick.cards
    if reply.suit == lead.suit:
        beats = STRENGTH[reply.rank] > STRENGTH[lead.rank]
    else:
        beats = reply.suit == trump
    return (trick.leader + int(beats)) % SEATS


def claim_game_points(loser_points: int, loser_tricks: int) -> int:
    """Game points for a won deal: 3 if the loser won no trick, 2 under 33 points, else 1."""
    if loser_tricks == 0:
        return 3
    return 2 if loser_points < HALF else 1


def deal_result(state: SixtySixState, claimant: int | None) -> dict[str, Any]:
    """The result of a deal that ends now: by ``claimant``'s claim, or (None) with all tricks played.

    Keys: ``deal``; ``winners`` (the winning seat, or empty for a drawn deal); ``game_points``
    per seat; ``reason`` (``claim``, ``false_claim``, ``closer_failed``, ``last_trick``,
    ``more_points``, ``drawn``); ``claimed_by`` (the seat that claimed, or was deemed to, else
    null); ``deemed_claim`` (all tricks played: on a closed talon the closer with 66 or more is
    deemed to claim, else the last trick's winner with 66 or more); ``points`` per seat (cards,
    counted marriages and the last-trick 10); ``marriage_points`` per seat (counted); ``last_trick_ten`` (the seat given the 10, or
    null); ``tricks`` per seat; ``closed_by`` and ``at_close`` (the closer's opponent's
    ``points`` and ``tricks`` when the talon was closed), both null without a close.
    """
    options = state.match.options
    schnapsen = options["variant"] == "schnapsen"
    closing = state.closing
    tricks = state.tricks
    last_winner = state.trick.leader  # once all tricks are played, the last one's winner is on lead
    played_out = claimant is None
    ten = last_winner if played_out and closing is None and options["exhausted_talon"] == "last-trick-ten" else None
    points = [state.points(seat) + (LAST_TRICK_TEN if seat == ten else 0) for seat in range(SEATS)]
    if played_out and closing is not None and points[closing.seat] >= CLAIM:
        claimant = closing.seat  # seed 004: the penalty is for a closer who fails to reach 66
    elif played_out and points[last_winner] >= CLAIM:
        claimant = last_winner
    deemed = played_out and claimant is not None

    winner: int | None
    if claimant is not None and points[claimant] >= CLAIM:
        winner, reason = claimant, "claim"
        if closing is not None and closing.seat != claimant:
            # the closer's opponent claimed first
            gained = 3 if schnapsen and closing.tricks == 0 else 2
        elif closing is not None and schnapsen:
            gained = claim_game_points(closing.points, closing.tricks)
        else:
            gained = claim_game_points(points[1 - claimant], tricks[1 - claimant])
    elif claimant is not None:
        winner, reason = 1 - claimant, "false_claim"
        if closing is not None and closing.seat == claimant:
            gained = 3 if closing.tricks == 0 else 2
        else:
            gained = 3 if schnapsen and tricks[winner] == 0 else 2
    elif closing is not None:
        winner, reason = 1 - closing.seat, "closer_failed"
        gained = 3 if closing.tricks == 0 else 2
    elif ten is None:
        winner, reason, gained = last_winner, "last_trick", 1
    elif points[0] == points[1]:
        winner, reason, gained = None, "drawn", 0
    else:
        winner, reason = (0 if points[0] > points[1] else 1), "more_points"
        gained = claim_game_points(points[1 - winner], tricks[1 - winner])

    return {
        "deal": state.match.deal_number,
        "winners": [winner] if winner is not None else [],
        "game_points": [gained if seat == winner else 0 for seat in range(SEATS)],
        "reason": reason,
        "claimed_by": claimant,
        "deemed_claim": deemed,
        "points": points,
        "marriage_points": [state.marriage_points(seat) for seat in range(SEATS)],
        "last_trick_ten": ten,
        "tricks": list(tricks),
        "closed_by": closing.seat if closing else None,
        "at_close": {"points": closing.points, "tricks": closing.tricks} if closing else None,
    }


EXHAUSTED_TALON = Option(
    "exhausted_talon",
    "string",
    "last-trick",
    {"en": "Exhausted talon", "tr": "Talon bitince"},
    "When the last trick is played on a talon that ran out and no one claimed: last-trick, its "
    "winner wins the deal and scores 1; last-trick-ten, its winner adds 10 points, the player with "
    "more points wins as for a claim and equal points are a drawn deal. Schnapsen allows only last-trick.",
    allowed=("last-trick", "last-trick-ten"),
)


class SixtySix(Ruleset[SixtySixState]):
    id = "sixty-six"
    names = {"en": "Sixty-Six", "tr": "Altmışaltı"}
    seat_names = ({"en": "Player 1", "tr": "1. Oyuncu"}, {"en": "Player 2", "tr": "2. Oyuncu"})
    options = (
        Option(
            "variant",
            "string",
            "sixty-six",
            {"en": "Variant", "tr": "Varyant"},
            "sixty-six: 24 cards, 6 each; schnapsen: 20 cards (no nines), 5 each, exchange with the "
            "trump jack without a trick won, marriages after closing too, stiffer penalties.",
            allowed=tuple(VARIANTS),
        ),
        Option(
            "marriages",
            "boolean",
            True,
            {"en": "Marriages", "tr": "Evlilik"},
            "A king and queen of one suit announced with the lead score 20, or 40 in trump; false "
            "plays without marriages.",
        ),
        Option(
            "trump_exchange",
            "boolean",
            True,
            {"en": "Trump exchange", "tr": "Koz değişimi"},
            "While the talon is open, the leader holding the trump nine (jack in Schnapsen) may swap "
            "it for the face-up trump card.",
        ),
        Option(
            "open_scores",
            "boolean",
            False,
            {"en": "Open scores", "tr": "Açık puan takibi"},
            "Each view shows both players' points and won cards; otherwise only the tricks won and "
            "whether marriage points are pending.",
        ),
        Option(
            "no_talon",
            "boolean",
            False,
            {"en": "No talon (practice)", "tr": "Talonsuz pratik"},
            "All cards are dealt; the dealer's last card is shown and fixes trump; phase-2 rules from "
            "the first trick, no exchange or closing; marriages when leading.",
        ),
        EXHAUSTED_TALON,
        Option(
            "target",
            "integer",
            7,
            {"en": "Target score", "tr": "Hedef puan"},
            "The first player to reach this many game points wins the match.",
            allowed=(5, 7, 9, 11),
        ),
    )

    # --- creation ---------------------------------------------------------------------------

    def check_option_combination(self, options: Mapping[str, Any]) -> None:
        if options["variant"] == "schnapsen" and options["exhausted_talon"] != "last-trick":
            allowed = replace(EXHAUSTED_TALON, allowed=("last-trick",))
            raise bad_option(
                allowed,
                f'option "exhausted_talon" cannot be "{options["exhausted_talon"]}" with variant '
                f'"schnapsen"; allowed: {allowed.allowed_text()}',
            )

    def new_game(self, options: Mapping[str, Any], seed: str) -> tuple[SixtySixState, tuple[Event, ...]]:
        return self._deal(Match.start(options, seed, SEATS))

    def deal_record(self, match: Match, deal_number: int, dealer: int) -> DealRecord:
        """Cards go one at a time, from the non-dealer; then the trump card; the rest is the talon.

        ``stock`` is the talon in drawing order with the trump card last. With ``no_talon`` all
        cards are dealt this way, the last one (the dealer's) is the trump card and the stock is empty.
        """
        options = match.options
        variant = VARIANTS[options["variant"]]
        cards = shuffled_deck(match.seed, deal_number, variant.deck)
        size = len(cards) // SEATS if options["no_talon"] else variant.hand_size
        hands: list[tuple[Card, ...]] = [(), ()]
        hands[1 - dealer], hands[dealer] = tuple(cards[0 : 2 * size : 2]), tuple(cards[1 : 2 * size : 2])
        if options["no_talon"]:
            return DealRecord(dealer, tuple(hands), (), hands[dealer][-1])
        trump_card = cards[2 * size]
        return DealRecord(dealer, tuple(hands), tuple(cards[2 * size + 1 :]) + (trump_card,), trump_card)

    def _deal(self, match: Match) -> tuple[SixtySixState, tuple[Event, ...]]:
        dealer = match.dealer(SEATS)
        record = self.deal_record(match, match.deal_number, dealer)
        trump_card = record.trump_card
        assert trump_card is not None
        no_talon = match.options["no_talon"]
        shown: list[frozenset[Card]] = [frozenset(), frozenset()]
        if no_talon:
            shown[dealer] = frozenset({trump_card})
        state = SixtySixState(
            match=match,
            hands=tuple(frozenset(hand) for hand in record.hands),
            talon=record.stock[:-1],
            trump_card=None if no_talon else trump_card,
            trump=trump_card.suit,
            trick=Trick(leader=1 - dealer),
            won=(frozenset(), frozenset()),
            marriages=(),
            shown=tuple(shown),
        )
        events = deal_opened(
            match.deal_number,
            dealer,
            record.hands,
            trump=trump_card.suit.value,
            trump_card=trump_card.code,
            talon_size=len(state.talon),
        )
        return state, tuple(events)

    # --- play -------------------------------------------------------------------------------

    def to_act(self, state: SixtySixState) -> tuple[int, ...]:
        if state.match.result is not None:
            return ()
        return ((state.trick.leader + len(state.trick.cards)) % SEATS,)

    def legal_actions(self, state: SixtySixState, seat: int) -> tuple[Action, ...]:
        if seat not in self.to_act(state):
            return ()
        if state.trick.cards:
            return tuple(PLAYS[card] for card in sorted(self._legal_cards(state, seat)))
        actions: list[Action] = []
        if state.talon_open:
            if self._may_exchange(state, seat):
                actions.append(EXCHANGE)
            actions.append(CLOSE)
        if state.won[0] or state.won[1]:
            actions.append(DECLARE)  # the leader won the last trick
        hand = state.hands[seat]
        ordered = sorted(hand)
        if self._marriage_time(state):
            for card in ordered:
                if card in MARRIAGES and _partner(card) in hand:
                    actions.append(MARRIAGES[card])
                    if state.won[seat]:  # the claim goes with the announcement, once a trick is won
                        actions.append(MARRIAGE_CLAIMS[card])
        actions.extend(PLAYS[card] for card in ordered)
        return tuple(actions)

    def _legal_cards(self, state: SixtySixState, seat: int) -> frozenset[Card]:
        """The follower's legal cards: any in phase 1; follow, win if able, else trump in phase 2."""
        hand = state.hands[seat]
        if state.talon_open:
            return hand
        lead = state.trick.cards[0]
        following = frozenset(card for card in hand if card.suit == lead.suit)
        if following:
            higher = frozenset(card for card in following if STRENGTH[card.rank] > STRENGTH[lead.rank])
            return higher or following
        trumps = frozenset(card for card in hand if card.suit == state.trump)
        return trumps or hand

    def _may_exchange(self, state: SixtySixState, seat: int) -> bool:
        options = state.match.options
        if not options["trump_exchange"]:
            return False
        if Card(VARIANTS[options["variant"]].exchange_rank, state.trump) not in state.hands[seat]:
            return False
        return options["variant"] == "schnapsen" or bool(state.won[seat])

    def _marriage_time(self, state: SixtySixState) -> bool:
        """Whether marriages may be announced now (given a leader on lead)."""
        options = state.match.options
        return options["marriages"] and (state.talon_open or options["variant"] == "schnapsen" or options["no_talon"])

    def explain_illegal(self, state: SixtySixState, seat: int, action: Action) -> RuleError:
        options = state.match.options
        trick = state.trick
        leading = not trick.cards
        if action.type == "declare":
            if trick.cards:
                return illegal("declare_not_allowed", "you may claim 66 only when on lead, not in reply")
            return illegal("declare_not_allowed", "you may not claim 66 at the first lead of a deal")
        if action.type == "play":
            return self._explain_card(state, seat, action.card)
        if action.type not in ("exchange", "close", "marriage"):
            return illegal("illegal_action", f"Sixty-Six has no {action.type!r} actions")
        if action.type == "marriage" and not options["marriages"]:
            return illegal("marriages_disabled", "this game is played without marriages")
        if action.type == "exchange" and not options["trump_exchange"]:
            return illegal("exchange_not_allowed", "this game is played without the trump exchange")
        if not leading:
            return illegal("not_on_lead", f"only the leader may {_verb(action)}, before leading a card")
        if action.type == "marriage":
            plain = replace(action, declare=False)
            if action.declare and plain in self.legal_actions(state, seat):
                return illegal("declare_not_allowed", "you may claim 66 with a marriage only once you have won a trick in this deal")
            return self._explain_marriage(state, seat, action.card)
        if options["no_talon"]:
            return illegal(f"{action.type}_not_allowed", f"there is no talon: you may not {_verb(action)}")
        if state.closing is not None:
            return illegal("talon_closed", f"the talon is closed: you may not {_verb(action)}")
        if not state.talon:
            return illegal("talon_exhausted", f"the talon is exhausted: you may not {_verb(action)}")
        wanted = Card(VARIANTS[options["variant"]].exchange_rank, state.trump)
        if wanted not in state.hands[seat]:
            return illegal("exchange_not_allowed", f"you do not hold {wanted}, the card exchanged for the trump card")
        return illegal("exchange_not_allowed", "you may exchange only after winning a trick in this deal")

    def _explain_card(self, state: SixtySixState, seat: int, card: Card | None) -> RuleError:
        hand = state.hands[seat]
        if card not in hand:
            return illegal("card_not_in_hand", f"{card} is not in your hand")
        lead = state.trick.cards[0]
        suit = lead.suit.names["en"].lower()
        if card.suit != lead.suit and any(held.suit == lead.suit for held in hand):
            return illegal("must_follow_suit", f"you hold {suit} and must follow suit")
        if card.suit == lead.suit:
            return illegal("must_win_trick", f"you hold a higher {suit} card and must win the trick")
        return illegal("must_trump", f"you cannot follow {suit} but hold trump, and must trump")

    def _explain_marriage(self, state: SixtySixState, seat: int, card: Card | None) -> RuleError:
        if card is None or card.rank not in (Rank.KING, Rank.QUEEN):
            return illegal("not_a_marriage_card", "a marriage is announced by leading its king or queen")
        if not {card, _partner(card)} <= state.hands[seat]:
            return illegal("marriage_not_held", f"you do not hold both the king and the queen of {card.suit.names['en'].lower()}")
        # held, on lead and allowed by the options: only the talon's state forbids it
        if state.closing is not None:
            return illegal("talon_closed", "marriages may be announced only while the talon is open")
        return illegal("talon_exhausted", "marriages may be announced only while the talon is open")

    def perform(self, state: SixtySixState, seat: int, action: Action) -> tuple[SixtySixState, tuple[Event, ...]]:
        kind, card = action.type, action.card
        if kind == "play":
            assert card is not None
            return self._play(state, seat, card, ())
        if kind == "marriage":
            assert card is not None
            return self._marry(state, seat, card, action.declare)
        if kind == "exchange":
            return self._exchange(state, seat)
        if kind == "close":
            opponent = 1 - seat
            closing = Closing(seat, state.points(opponent), state.tricks[opponent])
            return replace(state, closing=closing), (public("close", seat=seat),)
        return self._finish_deal(state, [public("declare", seat=seat)], claimant=seat)

    def _exchange(self, state: SixtySixState, seat: int) -> tuple[SixtySixState, tuple[Event, ...]]:
        given = Card(VARIANTS[state.match.options["variant"]].exchange_rank, state.trump)
        taken = state.trump_card
        assert taken is not None
        state = replace(
            state,
            hands=replace_at(state.hands, seat, state.hands[seat] - {given} | {taken}),
            shown=replace_at(state.shown, seat, state.shown[seat] | {taken}),
            trump_card=given,
        )
        return state, (public("exchange", seat=seat, gave=given.code, took=taken.code),)

    def _marry(self, state: SixtySixState, seat: int, card: Card, declare: bool) -> tuple[SixtySixState, tuple[Event, ...]]:
        """Announce the marriage of ``card``, then lead it, or (``declare``) claim 66 with it instead."""
        marriage = Marriage(seat, card)
        state = replace(
            state,
            marriages=state.marriages + (marriage,),
            shown=replace_at(state.shown, seat, state.shown[seat] | set(marriage.cards)),  # the card led leaves them
        )
        event = public(
            "marriage",
            seat=seat,
            suit=card.suit.value,
            value=marriage.points(state.trump),
            pair=codes(marriage.cards),
            card=card.code,
        )
        if declare:
            return self._finish_deal(state, [event, public("declare", seat=seat)], claimant=seat)
        return self._play(state, seat, card, (event,))

    def _play(
        self, state: SixtySixState, seat: int, card: Card, events: tuple[Event, ...]
    ) -> tuple[SixtySixState, tuple[Event, ...]]:
        hands = replace_at(state.hands, seat, state.hands[seat] - {card})
        shown = replace_at(state.shown, seat, state.shown[seat] - {card})
        trick = replace(state.trick, cards=state.trick.cards + (card,))
        state = replace(state, hands=hands, shown=shown, trick=trick)
        if len(trick.cards) < SEATS:
            return state, events
        return self._finish_trick(state)

    def _finish_trick(self, state: SixtySixState) -> tuple[SixtySixState, tuple[Event, ...]]:
        winner = trick_winner(state.trick, state.trump)
        loser = 1 - winner
        done = replace(state.trick, winner=winner)
        won = replace_at(state.won, winner, state.won[winner] | set(done.cards))
        events: list[Event] = [public("trick", number=state.trick_number, phase=state.phase, **done.to_json(SEATS))]
        hands, shown = list(state.hands), list(state.shown)
        talon, trump_card = state.talon, state.trump_card
        if state.talon_open:
            hands[winner] = hands[winner] | {talon[0]}
            events.append(private(winner, "draw", ["card"], seat=winner, card=talon[0].code, talon_size=len(talon) - 1))
            if len(talon) > 1:
                hands[loser] = hands[loser] | {talon[1]}
                events.append(private(loser, "draw", ["card"], seat=loser, card=talon[1].code, talon_size=len(talon) - 2))
                talon = talon[2:]
            else:
                # the last face-down card went to the winner: the loser takes the trump card, in view
                assert trump_card is not None
                hands[loser] = hands[loser] | {trump_card}
                shown[loser] = shown[loser] | {trump_card}
                events.append(public("take", seat=loser, card=trump_card.code))
                talon, trump_card = (), None
        state = replace(
            state,
            hands=tuple(hands),
            shown=tuple(shown),
            talon=talon,
            trump_card=trump_card,
            won=won,
            trick=Trick(leader=winner),
            last_trick=done,
        )
        if state.hands[winner]:
            return state, tuple(events)
        return self._finish_deal(state, events, claimant=None)

    def _finish_deal(
        self, state: SixtySixState, events: list[Event], claimant: int | None
    ) -> tuple[SixtySixState, tuple[Event, ...]]:
        result = deal_result(state, claimant)
        match = state.match.after_deal(result["game_points"], result)
        events.append(public("deal_result", **result, scores=list(match.scores)))
        reached = [seat for seat, total in enumerate(match.scores) if total >= match.options["target"]]
        if reached:  # only one seat scores in a deal, so at most one reaches the target
            match = match.finish(reached)
            events.append(public("match_result", winners=reached, scores=list(match.scores)))
            return replace(state, match=match), tuple(events)
        # the next deal starts without a last trick: a card of the old deal shown in the new
        # deal's view could not be told apart from a card of this deal
        next_state, deal_events = self._deal(match.next_deal())
        return next_state, tuple(events) + deal_events

    # --- views ------------------------------------------------------------------------------

    def table_view(self, state: SixtySixState, seat: int | None) -> dict[str, Any]:
        """The deal as ``seat`` may see it. Keys (JSON types):

        ``hand`` (list of codes; null for a spectator), ``hand_sizes`` (list of int), ``trump``
        (suit letter), ``trump_card`` (code of the face-up card under the talon; null once taken,
        when closed, or without a talon), ``talon_size`` (int, face-down cards), ``talon_closed``
        (bool), ``closed_by`` (seat or null), ``phase`` (1 or 2), ``trick_number`` (int; null
        once the match is over), ``trick`` and ``last_trick`` (``{"leader", "cards": [{"seat",
        "card"}], "winner"}``; ``last_trick`` null before the deal's first trick is complete),
        ``tricks_won`` (list of int), ``known_cards`` (per seat, the codes in that hand both
        players know: a trump card taken, a marriage partner, the no-talon trump card),
        ``marriages`` (list of ``{"seat", "suit", "points", "pair", "pending"}``),
        ``pending_marriage`` (per seat, bool: marriage points waiting for a trick won),
        ``points`` and ``won_cards`` (per seat int / list of codes with ``open_scores``, else null).
        """
        open_scores = state.match.options["open_scores"]
        closing = state.closing
        return {
            "hand": codes(sorted(state.hands[seat])) if seat is not None else None,
            "hand_sizes": [len(hand) for hand in state.hands],
            "trump": state.trump.value,
            "trump_card": state.trump_card.code if state.trump_card and closing is None else None,
            "talon_size": len(state.talon),
            "talon_closed": closing is not None,
            "closed_by": closing.seat if closing else None,
            "phase": state.phase,
            "trick_number": state.trick_number if state.match.result is None else None,
            "trick": state.trick.to_json(SEATS),
            "last_trick": state.last_trick.to_json(SEATS) if state.last_trick else None,
            "tricks_won": list(state.tricks),
            "known_cards": [codes(sorted(cards)) for cards in state.shown],
            "marriages": [
                {
                    "seat": marriage.seat,
                    "suit": marriage.card.suit.value,
                    "points": marriage.points(state.trump),
                    "pair": codes(marriage.cards),
                    "pending": not state.won[marriage.seat],
                }
                for marriage in state.marriages
            ],
            "pending_marriage": [
                not state.won[held] and any(marriage.seat == held for marriage in state.marriages)
                for held in range(SEATS)
            ],
            "points": [state.points(held) for held in range(SEATS)] if open_scores else None,
            "won_cards": [codes(sorted(cards)) for cards in state.won] if open_scores else None,
        }

    # --- serialization ----------------------------------------------------------------------

    def dump_deal(self, state: SixtySixState) -> dict[str, Any]:
        closing = state.closing
        return {
            "hands": [codes(sorted(hand)) for hand in state.hands],
            "talon": codes(state.talon),
            "trump_card": state.trump_card.code if state.trump_card else None,
            "trump": state.trump.value,
            "trick": state.trick.dump(),
            "won": [codes(sorted(cards)) for cards in state.won],
            "marriages": [[marriage.seat, marriage.card.code] for marriage in state.marriages],
            "shown": [codes(sorted(cards)) for cards in state.shown],
            "closing": [closing.seat, closing.points, closing.tricks] if closing else None,
            "last_trick": state.last_trick.dump() if state.last_trick else None,
        }

    def load_deal(self, match: Match, doc: Mapping[str, Any]) -> SixtySixState:
        return SixtySixState(
            match=match,
            hands=tuple(frozenset(map(Card.parse, hand)) for hand in doc["hands"]),
            talon=tuple(map(Card.parse, doc["talon"])),
            trump_card=Card.parse(doc["trump_card"]) if doc["trump_card"] else None,
            trump=Suit(doc["trump"]),
            trick=Trick.load(doc["trick"]),
            won=tuple(frozenset(map(Card.parse, cards)) for cards in doc["won"]),
            marriages=tuple(Marriage(seat, Card.parse(code)) for seat, code in doc["marriages"]),
            shown=tuple(frozenset(map(Card.parse, cards)) for cards in doc["shown"]),
            closing=Closing(*doc["closing"]) if doc["closing"] else None,
            last_trick=Trick.load(doc["last_trick"]),
        )


def _partner(card: Card) -> Card:
    """The other card of a king's or queen's marriage."""
    return Card(Rank.QUEEN if card.rank == Rank.KING else Rank.KING, card.suit)


def _verb(action: Action) -> str:
    return {"exchange": "exchange the trump card", "close": "close the talon", "marriage": "announce a marriage"}[action.type]
