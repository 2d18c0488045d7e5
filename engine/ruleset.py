"""The interface every game implements, and the match bookkeeping they share.

A ruleset is a stateless object; a game's state is an immutable value that the ruleset creates
and transforms:

>>> from engine import registry
>>> from engine.actions import play
>>> whist = registry.get("german-whist")
>>> state, events = whist.new_game(whist.parse_options({}), seed="42")
>>> [event.data["type"] for event in events]
['deal', 'dealt', 'dealt']
>>> seat = whist.to_act(state)[0]
>>> action = whist.legal_actions(state, seat)[0]
>>> whist.can(state, seat, action), whist.can(state, 1 - seat, action)
(True, False)
>>> state, events = whist.apply(state, seat, action)
>>> whist.verify(state, 1 - seat, play("AS")) is None or whist.verify(state, 1 - seat, play("AS")).code in whist.catalogue
True

Legality lives in one place per kind of action: a ruleset's ``verify_<kind>`` method says
whether a seat that may act may take an action of that kind, and which rule forbids it if not.
:meth:`Ruleset.apply` accepts exactly what it allows (the members of
:meth:`Ruleset.legal_actions`, which are built from the same rule functions) and refuses
anything else with a :class:`RuleError` whose code is in the ruleset's ``catalogue``.

Events follow two conventions every ruleset keeps: each deal opens with a public ``deal`` event,
and a seat's dealt cards come as a private ``dealt`` event (``hand``, seen by that seat only).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from operator import add
from typing import Any, Callable, ClassVar, Generic, Iterable, Mapping, NamedTuple, Protocol, Sequence, TypeVar, cast

from .actions import MALFORMED_ACTION, Action, Play
from .cards import Deck
from .errors import Refusal, RefusalCode, RuleError
from .rules import INVALID_OPTION, ONLY, DealRecord, Event, MatchResult, Names, Option, Trick, event_of, public, seat_at, trick_of, turns
from .shuffle import first_dealer
from .texts import DEFAULT_LANGUAGE, LANGUAGES, render


class Match(NamedTuple):
    """The part of a state every game shares: options, seed, deal count and match totals."""

    options: Mapping[str, Any]
    seed: str
    deal_number: int  # the current deal, from 1; the last one once the match is over
    scores: tuple[int, ...]  # match totals per seat
    last_deal: Mapping[str, Any] | None = None  # the result of the last finished deal
    result: MatchResult | None = None

    @staticmethod
    def start(options: Mapping[str, Any], seed: str, seat_count: int) -> "Match":
        return Match(dict(options), seed, 1, (0,) * seat_count)

    def dealer(self, seat_count: int) -> int:
        """The dealer of the current deal: drawn from the seed, then passing round in play order."""
        return (first_dealer(self.seed, seat_count) + self.deal_number - 1) % seat_count

    def after_deal(self, points: Iterable[int], deal_result: Mapping[str, Any]) -> "Match":
        """The match with a finished deal's points added (not yet moved on to the next deal)."""
        scores = tuple(map(add, self.scores, points))
        return Match(self.options, self.seed, self.deal_number, scores, deal_result, self.result)

    def finish(self, winners: Iterable[int]) -> "Match":
        return self._replace(result=MatchResult(tuple(sorted(winners)), self.scores))

    def next_deal(self) -> "Match":
        return Match(self.options, self.seed, self.deal_number + 1, self.scores, self.last_deal, self.result)

    def to_json(self) -> dict[str, Any]:
        return {
            "options": dict(self.options),
            "seed": self.seed,
            "deal_number": self.deal_number,
            "scores": list(self.scores),
            "last_deal": self.last_deal,
            "winners": list(self.result.winners) if self.result else None,
        }

    @staticmethod
    def from_json(doc: Mapping[str, Any]) -> "Match":
        scores = tuple(doc["scores"])
        winners = doc["winners"]
        return Match(
            doc["options"],
            doc["seed"],
            doc["deal_number"],
            scores,
            doc["last_deal"],
            MatchResult(tuple(winners), scores) if winners is not None else None,
        )


UNKNOWN_OPTION = RefusalCode(
    "unknown_option",
    {"en": "the ruleset has no such option", "tr": "oyunda böyle bir seçenek yok"},
    Refusal.BAD_SETUP,
    says={
        "en": "{ruleset} has no option {option!r}; its options are: {allowed}",
        "tr": "{ruleset} oyununda {option!r} seçeneği yok; seçenekler: {allowed}",
    },
)
GAME_OVER = RefusalCode("game_over", {"en": "the match is over", "tr": "maç bitti"}, Refusal.NOT_YOUR_TURN)
UNKNOWN_SEAT = RefusalCode(
    "unknown_seat",
    {"en": "there is no such seat", "tr": "böyle bir koltuk yok"},
    Refusal.NOT_YOUR_TURN,
    says={"en": "there is no seat {seat}", "tr": "{seat} numaralı koltuk yok"},
)
NOT_YOUR_TURN = RefusalCode(
    "not_your_turn",
    {"en": "the seat may not act now", "tr": "bu koltuk şimdi oynayamaz"},
    Refusal.NOT_YOUR_TURN,
    says={"en": "it is not your turn", "tr": "sıra sizde değil"},
)
ILLEGAL_ACTION = RefusalCode(
    "illegal_action",
    {"en": "an action of a kind the ruleset does not have, or not now", "tr": "oyunda bu tür hamle yok ya da şimdi yapılamaz"},
    says={"en": "{ruleset} has {kinds} actions, not {kind!r}", "tr": "{ruleset} oyununun hamleleri {kinds}; {kind!r} değil"},
)
#: not a refusal of a seat's action: the service asks for a reveal only once the match ended
GAME_NOT_OVER = RefusalCode(
    "game_not_over",
    {"en": "the deal is revealed only once the match is over", "tr": "dağıtım ancak maç bittiğinde açıklanır"},
    Refusal.NOT_YOUR_TURN,
)

#: the refusals every ruleset may give; a ruleset may declare one of them again, its meaning as
#: the game puts it (see :meth:`RefusalCode.meaning_in_game`)
COMMON_REFUSALS: tuple[RefusalCode, ...] = (UNKNOWN_OPTION, INVALID_OPTION, MALFORMED_ACTION, GAME_OVER, UNKNOWN_SEAT, NOT_YOUR_TURN, ILLEGAL_ACTION)


class HasMatch(Protocol):
    """A game's state: a named tuple with the match among its fields."""

    @property
    def match(self) -> Match: ...


S = TypeVar("S", bound=HasMatch)
#: a ruleset's ``verify_<kind>`` and ``perform_<kind>`` methods, bound
Verify = Callable[[S, int, Any], RuleError | None]
Perform = Callable[[S, int, Any], tuple[S, tuple[Event, ...]]]


class Ruleset(ABC, Generic[S]):
    """One game's rules. Subclasses fill in the class attributes and the abstract methods."""

    id: ClassVar[str]
    names: ClassVar[Names]
    seat_names: ClassVar[tuple[Names, ...]]  # seat labels, in play order
    options: ClassVar[tuple[Option, ...]]
    #: the shape of the game's deal results (a TypedDict): the view's ``last_deal``, the ``deal_result`` event
    deal_result_type: ClassVar[type]
    #: the shape of a view (a TypedDict extending :class:`~engine.shapes.BaseView`)
    view_type: ClassVar[type]
    #: the shapes of the events the game gives, each a TypedDict with its ``type`` as a Literal
    event_types: ClassVar[tuple[type, ...]]
    #: bumped whenever the serialized form of this ruleset's state changes
    state_format: ClassVar[int] = 1
    #: the human seats of a game created without a seat list: the standard table against the
    #: computer, every other seat played by a computer player
    standard_human_seats: ClassVar[tuple[int, ...]] = (0,)
    #: the kinds of action the ruleset accepts; each has a ``verify_<type>`` and a
    #: ``perform_<type>`` method
    action_kinds: ClassVar[tuple[type[Action], ...]]
    #: the game's own refusals, each declared once (code, kind, meaning, words); with the
    #: :data:`COMMON_REFUSALS` they make its :attr:`catalogue`
    refusals: ClassVar[tuple[RefusalCode, ...]]
    #: what a revealed deal's ``stock`` holds, in what order (empty in a game without a stock)
    stock_order: ClassVar[str] = "empty"
    #: what a table shows of the game besides its options (such as Batak's open hand), per language
    table_labels: ClassVar[Mapping[str, Names]] = {}
    #: who plays with whom: the seats of each side (team), every seat in one; empty: each seat
    #: plays for itself (see :meth:`sides`)
    teams: ClassVar[tuple[tuple[int, ...], ...]] = ()

    def __init__(self) -> None:
        #: per kind of action, the methods that verify and perform it (one look-up per action)
        self._handlers: dict[type[Action], tuple[Verify[S], Perform[S]]] = {
            kind: (getattr(self, f"verify_{kind.type}"), getattr(self, f"perform_{kind.type}")) for kind in self.action_kinds
        }
        #: how many seats play (an attribute, not a property: the deal's life cycle reads it on every card)
        self.seat_count = len(self.seat_names)
        #: every refusal the ruleset may give, by code: the common ones, then its own
        self.catalogue: dict[str, RefusalCode] = {refusal.code: refusal for refusal in (*COMMON_REFUSALS, *self.refusals)}

    def sides(self) -> list[list[int]]:
        """The seats of each side, in seat order of their first seat: a team's seats together, or
        each seat alone in a game without teams. A frontend shows partners from it, and a forfeit
        loses the match for the seat's whole side."""
        return [list(team) for team in self.teams] if self.teams else [[seat] for seat in range(self.seat_count)]

    # --- creation ---------------------------------------------------------------------------

    def parse_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validated options with defaults filled in; a bad one raises ``invalid_option``."""
        known = {option.code: option for option in self.options}
        for code in raw or {}:
            if code not in known:
                details = {"option": code, "allowed": list(known)}
                raise UNKNOWN_OPTION(ruleset=dict(self.names), option=code, allowed=list(known) or "-", details=details)
        options = {code: option.check(raw[code]) if raw and code in raw else option.default for code, option in known.items()}
        self.check_option_combination(options)
        return options

    def check_option_combination(self, options: Mapping[str, Any]) -> None:
        """Refuse option values that are fine alone but not together (none by default)."""

    @abstractmethod
    def new_game(self, options: Mapping[str, Any], seed: str) -> tuple[S, tuple[Event, ...]]:
        """A new match from parsed options and a seed, with the events of its first deal."""

    def default_seat_name(self, seat: int, human: bool) -> str | None:
        """The name shown for a seat created without one (None: the seat has no name)."""
        return None

    # --- play -------------------------------------------------------------------------------

    @abstractmethod
    def to_act(self, state: S) -> tuple[int, ...]:
        """The seats that may act now (none once the match is over)."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> tuple[Action, ...]:
        """Every action ``seat`` may take now; empty when it may not act."""

    def apply(self, state: S, seat: int, action: Action) -> tuple[S, tuple[Event, ...]]:
        """The state after ``seat`` takes ``action``, and the events that caused.

        Raises :class:`RuleError`: ``game_over`` or ``not_your_turn`` (or a ruleset's own turn
        refusal) when the seat may not act, and for an action outside :meth:`legal_actions` the
        code of the rule it breaks, with the legal actions attached.
        """
        if state.match.result is not None:
            raise GAME_OVER()
        if seat not in self.to_act(state):
            if seat not in range(self.seat_count):
                raise UNKNOWN_SEAT(seat=seat)
            raise self.turn_refusal(state, seat)
        handlers = self._handlers.get(type(action))
        error: RuleError | None
        if handlers is None:
            error = self.refuse_kind(state, action)
        else:
            verify, perform = handlers
            error = verify(state, seat, action)
            if error is None:
                return perform(state, seat, action)
        error.legal_actions = self.legal_actions(state, seat)
        raise error

    def verify(self, state: S, seat: int, action: Action) -> RuleError | None:
        """None when ``seat``, which may act now, may take ``action``; else the rule it breaks."""
        handlers = self._handlers.get(type(action))
        if handlers is None:
            return self.refuse_kind(state, action)
        return handlers[0](state, seat, action)

    def can(self, state: S, seat: int, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action`` from ``seat`` now."""
        return state.match.result is None and seat in self.to_act(state) and self.verify(state, seat, action) is None

    def refuse_kind(self, state: S, action: Action) -> RuleError:
        """The refusal of an action of a kind the ruleset does not accept."""
        kinds = [repr(kind.type) for kind in self.action_kinds]
        return ILLEGAL_ACTION(ruleset=dict(self.names), kinds=kinds, kind=action.type)

    def check(self) -> None:
        """Raise ``ValueError`` if the ruleset is not fit to serve: its seats, options and
        refusal catalogue, and a new game's first moment (the opening events, a seat to act with
        legal actions, a view for every seat)."""

        def fault(message: str) -> ValueError:
            return ValueError(f"ruleset {self.id!r}: {message}")

        if not self.seat_names or not set(self.standard_human_seats) <= set(range(self.seat_count)):
            raise fault("needs seats, and standard human seats among them")
        if not self.action_kinds or not all(isinstance(refusal, RefusalCode) for refusal in self.refusals):
            raise fault("needs action kinds and its refusals declared")
        if sorted(seat for side in self.sides() for seat in side) != list(range(self.seat_count)):
            raise fault("its sides hold every seat once")
        texts = [text for refusal in self.catalogue.values() for text in refusal.texts()]
        texts += [option.names for option in self.options]
        texts += [text for option in self.options for text in (option.description, *option.labels.values())]
        texts += self.table_labels.values()
        if not all(set(LANGUAGES) <= set(text) for text in texts):
            raise fault("every refusal, message, option and label is written in every language")
        for option in self.options:
            option.check(option.default)
        state, events = self.new_game(self.parse_options({}), "check")
        kinds = [event.data["type"] for event in events]
        if kinds[:1] != ["deal"] or kinds.count("dealt") != self.seat_count:
            raise fault("a deal opens with a public deal event and one dealt event per seat")
        to_act = self.to_act(state)
        if not to_act or not all(self.legal_actions(state, seat) for seat in to_act):
            raise fault("a new game has a seat to act, with legal actions")
        for seat in (*range(self.seat_count), None):
            view = self.view(state, seat)
            if view["seat"] != seat or view["to_act"] != list(to_act):
                raise fault("a view says whose it is and who acts")

    def turn_refusal(self, state: S, seat: int) -> RuleError:
        """The refusal for a seat that may not act now."""
        return NOT_YOUR_TURN()

    # --- what a seat sees -------------------------------------------------------------------

    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """The state as ``seat`` may see it (None: a spectator), as JSON-ready data.

        Every view has ``seat``, ``status``, ``to_act``, ``legal_actions``, ``scores``,
        ``winners``, ``deal``, ``dealer`` and ``last_deal``; :meth:`own_view` adds the game's own.
        """
        match = state.match
        to_act = self.to_act(state)
        legal = self.legal_actions(state, seat) if seat is not None and seat in to_act else ()
        return {
            "seat": seat,
            "status": "finished" if match.result else "active",
            "to_act": list(to_act),
            "legal_actions": [action.to_json() for action in legal],
            "scores": self.shown_scores(state),
            "winners": list(match.result.winners) if match.result else [],
            "deal": match.deal_number,
            "dealer": match.dealer(self.seat_count),
            "last_deal": match.last_deal,
            **self.own_view(state, seat),
        }

    def shown_scores(self, state: S) -> list[int]:
        return list(state.match.scores)

    @abstractmethod
    def own_view(self, state: S, seat: int | None) -> dict[str, Any]:
        """The game's own part of a view: hands, trick, piles, counts, as ``seat`` may see them."""

    def knowledge(self, state: S, seat: int | None) -> object | None:
        """What ``seat`` knows, in the game's own masks, for its computer player (None: the game
        has none; its players read the view)."""
        return None

    def result(self, state: S) -> MatchResult | None:
        """How the match ended, or None while it goes on."""
        return state.match.result

    def reveal(self, state: S, *, ended_early: bool = False) -> dict[str, Any]:
        """Everything needed to re-check a finished match: the seed and every deal as dealt.
        ``ended_early``: the match ended before its rules end it (the service's decision: a
        forfeit, an abandonment); the deals dealt so far are revealed, the last one unfinished."""
        match = state.match
        if match.result is None and not ended_early:
            raise GAME_NOT_OVER()
        deals = []
        for number in range(1, match.deal_number + 1):
            dealer = match._replace(deal_number=number).dealer(self.seat_count)
            deals.append(self.deal_record(match, number, dealer).to_json())
        return {"seed": match.seed, "deals": deals}

    @abstractmethod
    def deal_record(self, match: Match, deal_number: int, dealer: int) -> DealRecord:
        """Deal ``deal_number`` of the match, exactly as it was dealt."""

    # --- serialization ----------------------------------------------------------------------

    def dump(self, state: S) -> dict[str, Any]:
        """A compact, versioned JSON-ready document; :meth:`load` gives the same state back."""
        return {"ruleset": self.id, "format": self.state_format, "match": state.match.to_json(), **self.dump_deal(state)}

    def load(self, doc: Mapping[str, Any]) -> S:
        if doc.get("ruleset") != self.id or doc.get("format") != self.state_format:
            raise ValueError(f"not a {self.id} state of format {self.state_format}")
        return self.load_deal(Match.from_json(doc["match"]), doc)

    @abstractmethod
    def dump_deal(self, state: S) -> dict[str, Any]:
        """The state beyond its match part, as JSON-ready data."""

    @abstractmethod
    def load_deal(self, match: Match, doc: Mapping[str, Any]) -> S:
        """The inverse of :meth:`dump_deal`."""

    # --- catalog ----------------------------------------------------------------------------

    def describe(self, language: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """The ruleset's catalog entry, its descriptions and its refusals' meanings in ``language``
        (without the computer levels, which the bots add)."""
        return {
            "id": self.id,
            "names": dict(self.names),
            "seat_count": self.seat_count,
            "seats": [{"index": i, "names": dict(names)} for i, names in enumerate(self.seat_names)],
            "sides": self.sides(),
            "options": [option.to_json(language) for option in self.options],
            "labels": [{"code": code, "names": dict(names)} for code, names in self.table_labels.items()],
            "refusals": [
                {"code": code, "kind": refusal.kind.value, "meaning": render(refusal.meaning, {}, language)}
                for code, refusal in self.catalogue.items()
            ],
        }


def replay(ruleset: Ruleset[S], options: Mapping[str, Any], seed: str, moves: Iterable[tuple[int, Action]]) -> S:
    """The state reached by applying ``moves`` (seat, action) to a new match."""
    state, _ = ruleset.new_game(options, seed)
    for seat, action in moves:
        state, _ = ruleset.apply(state, seat, action)
    return state


class DealState(HasMatch, Protocol):
    """A trick-taking game's state: a named tuple with the match, the hands (masks of the
    game's deck, in seat order) and the trick being played (None while there is none yet, as in
    an auction)."""

    @property
    def hands(self) -> tuple[int, ...]: ...

    @property
    def trick(self) -> Trick | None: ...

    @property
    def trump(self) -> int | None:
        """The trump suit (a suit number, -1 for none; None while it is not named yet)."""

    @property
    def trick_number(self) -> int: ...


D = TypeVar("D", bound=DealState)


class TrickTaking(Ruleset[D]):
    """What the trick-taking games share: the life cycle of a match of deals, read top to bottom.

    A deal opens with a public ``deal`` event and a private ``dealt`` event per seat
    (:meth:`deal_events`). Cards are led and followed in turn (:meth:`play_card`); the last card
    of a trick finishes it (:meth:`finish_trick`): its winner is the strongest card under the
    state's trump, a public ``trick`` event says so, and the game takes the trick
    (:meth:`trick_taken`: counting it, drawing from a stock). Once every hand is empty the deal
    is scored (:meth:`score_deal`, :meth:`end_deal`) and the match ends or the next deal is
    dealt. A game module holds only its own part: the deal, legality, what a trick brings,
    scoring, and its view.
    """

    #: the game's cards as numbers; states hold masks of them
    deck: ClassVar[Deck]

    def __init__(self) -> None:
        super().__init__()
        #: the seat to act, by the leader's seat plus the cards played (made once: asked twice a move)
        self._turns = tuple((seat,) for seat in turns(self.seat_count))

    # --- deal ---------------------------------------------------------------------------------

    def new_game(self, options: Mapping[str, Any], seed: str) -> tuple[D, tuple[Event, ...]]:
        return self.deal(Match.start(options, seed, self.seat_count))

    @abstractmethod
    def deal(self, match: Match) -> tuple[D, tuple[Event, ...]]:
        """The state at the start of ``match``'s current deal, and the events that open it
        (:meth:`deal_events`)."""

    def deal_events(self, match: Match, hands: Iterable[int], **details: Any) -> tuple[Event, ...]:
        """The events that open ``match``'s current deal: a public ``deal`` event (with the
        game's ``details``), then each seat's cards (masks) as a private ``dealt`` event."""
        codes = self.deck.codes
        events = [event_of(({"type": "deal", "deal": match.deal_number, "dealer": match.dealer(self.seat_count), **details}, None, None))]
        for seat, hand in enumerate(hands):
            count = hand.bit_count()
            seen = {"type": "dealt", "seat": seat, "count": count}
            events.append(event_of(({"type": "dealt", "seat": seat, "hand": codes(hand), "count": count}, ONLY[seat], seen)))
        return tuple(events)

    # --- lead and follow ----------------------------------------------------------------------

    def to_act(self, state: D) -> tuple[int, ...]:
        """The seat whose card is next (a game with other moves, or a seat playing another's
        cards, says otherwise)."""
        trick = state.trick
        if state.match.result is not None or trick is None:
            return ()
        return self._turns[trick.leader + len(trick.cards)]

    def perform_play(self, state: D, seat: int, action: Play) -> tuple[D, tuple[Event, ...]]:
        return self.play_card(state, self.deck.by_index[action.card.index])

    def play_card(self, state: D, card: int, events: tuple[Event, ...] = ()) -> tuple[D, tuple[Event, ...]]:
        """Lead or follow with ``card`` from the hand whose turn it is (after the game's
        ``events`` of the move, such as a marriage announced with the lead); the last card of
        the trick finishes it, won by the highest trump in it, else the highest card of the suit
        led (:attr:`~engine.cards.Deck.beaters`)."""
        trick = state.trick
        assert trick is not None
        seat_count = self.seat_count
        leader, cards = trick.leader, trick.cards + (card,)
        (turn,) = self._turns[leader + len(trick.cards)]
        held = list(state.hands)
        held[turn] &= ~(1 << card)
        hands = tuple(held)
        if len(cards) < seat_count:
            return self.card_played(state, hands, trick_of((leader, cards, None)), card), events
        trump = state.trump
        assert trump is not None
        return self.finish_trick(state, hands, trick_of((leader, cards, self.trick_winner(leader, cards, trump))), card, events)

    def trick_winner(self, leader: int, cards: tuple[int, ...], trump: int) -> int:
        """The seat that takes the complete trick ``cards`` led by ``leader`` (:meth:`~engine.cards.Deck.winning`);
        a game whose computer players reckon it with a function of their own gives that function here."""
        _, place = self.deck.winning(cards, trump)
        return seat_at(leader, place, self.seat_count)

    def card_played(self, state: D, hands: tuple[int, ...], trick: Trick, card: int) -> D:
        """The state once ``card`` is led or followed and the trick goes on."""
        played: D = cast(Any, state)._replace(hands=hands, trick=trick)  # every state is a named tuple
        return played

    # --- finish the trick ---------------------------------------------------------------------

    def finish_trick(
        self, state: D, hands: tuple[int, ...], done: Trick, card: int, events: tuple[Event, ...]
    ) -> tuple[D, tuple[Event, ...]]:
        """Complete the trick ``done`` (``hands`` after its last card, ``card``): its public event,
        then what taking it brings; once every hand is empty, the deal is scored."""
        trick_event = event_of((done.to_json(self.seat_count, self.deck, self.trick_heading(state)), None, None))
        state, taken = self.trick_taken(state, hands, done, card)
        if any(state.hands):
            return state, (*events, trick_event, *taken)
        result, points = self.score_deal(state)
        return self.end_deal(state, [*events, trick_event, *taken], result, points)

    def trick_heading(self, state: D) -> dict[str, Any]:
        """The start of a trick's event, from the state it was played in: its type and number,
        then what the game adds (one hook, one call per trick)."""
        return {"type": "trick", "number": state.trick_number}

    @abstractmethod
    def trick_taken(self, state: D, hands: tuple[int, ...], done: Trick, card: int) -> tuple[D, tuple[Event, ...]]:
        """The state once the trick ``done`` is taken by its winner, who leads the next (``hands``
        are those after its last card, ``card``), and the events that brings beyond the trick's."""

    # --- finish the deal, next deal, match end --------------------------------------------------

    @abstractmethod
    def score_deal(self, state: D) -> tuple[Mapping[str, Any], Sequence[int]]:
        """The result of a deal whose cards are all played (the view's ``last_deal``, the
        ``deal_result`` event), and the points it adds to each seat's total."""

    @abstractmethod
    def match_winners(self, match: Match) -> list[int] | None:
        """The winners once a finished deal's points are in ``match`` (None: play another deal)."""

    def end_deal(
        self, state: D, events: list[Event], result: Mapping[str, Any], points: Iterable[int]
    ) -> tuple[D, tuple[Event, ...]]:
        """Score a finished deal, then end the match or deal the next one.

        The next deal starts without a last trick: a card of the old deal shown in the new
        deal's view could not be told apart from a card of this deal (the trick stays in the
        history).
        """
        match = state.match.after_deal(points, result)
        events.append(event_of(({"type": "deal_result", **result, "scores": list(match.scores)}, None, None)))
        winners = self.match_winners(match)
        if winners is not None:
            match = match.finish(winners)
            events.append(public("match_result", winners=sorted(winners), scores=list(match.scores)))
            finished: D = cast(Any, state)._replace(match=match)  # every state is a named tuple
            return finished, tuple(events)
        next_state, deal_events = self.deal(match.next_deal())
        return next_state, tuple(events) + deal_events

    # --- catalog ------------------------------------------------------------------------------

    def describe(self, language: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
        return {**super().describe(language), "ranks": [rank.code for rank in reversed(self.deck.ranks)]}
