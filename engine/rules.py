"""The vocabulary shared by every ruleset: events, options, results, tricks and deal records.

Actions are in :mod:`engine.actions`; every refusal is a :class:`~engine.errors.RuleError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from .cards import Card, Deck
from .errors import Refusal, RefusalCode, RuleError
from .shapes import Dealt
from .texts import DEFAULT_LANGUAGE, LANGUAGES, Said, Text, render

#: Display names of a thing in English and Turkish: ``{"en": ..., "tr": ...}``.
Names = Mapping[str, str]


# --- events ----------------------------------------------------------------------------------


class Event(NamedTuple):
    """Something that happened, with who may see it (a named tuple: a random playout makes
    several per trick).

    ``data`` is the full event. A public event has ``seen_by`` None. A private one is seen whole
    only by the seats in ``seen_by``; everyone else sees ``others_see`` (a redacted copy), or
    nothing when that is None. Once the match is over every event is seen whole by everyone.
    """

    data: Mapping[str, Any]
    seen_by: frozenset[int] | None = None
    others_see: Mapping[str, Any] | None = None

    def for_viewer(self, seat: int | None, revealed: bool = False) -> Mapping[str, Any] | None:
        """The event as ``seat`` (None: a spectator) may see it, or None when it is hidden."""
        if revealed or self.seen_by is None or (seat is not None and seat in self.seen_by):
            return self.data
        return self.others_see

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"data": dict(self.data)}
        if self.seen_by is not None:
            doc["seen_by"] = sorted(self.seen_by)
            doc["others_see"] = dict(self.others_see) if self.others_see is not None else None
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Event":
        seen_by = doc.get("seen_by")
        return cls(doc["data"], frozenset(seen_by) if seen_by is not None else None, doc.get("others_see"))


def public(kind: str, **data: Any) -> Event:
    return Event({"type": kind, **data})


#: the ``seen_by`` of an event private to each seat
ONLY = tuple(frozenset({seat}) for seat in range(8))


def private(viewer: int, kind: str, hidden: Iterable[str], **data: Any) -> Event:
    """An event that ``viewer`` sees whole and others see without the fields in ``hidden``."""
    full = {"type": kind, **data}
    others = full.copy()
    for key in hidden:
        del others[key]
    return Event(full, ONLY[viewer], others)


# --- options ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One option of a ruleset, as the catalog lists it and creation validates it."""

    code: str
    type: str  # "boolean", "integer" or "string"
    default: Any
    names: Names
    description: Text
    allowed: tuple[Any, ...] | None = None  # the allowed values, when they are a short list
    minimum: int | None = None
    maximum: int | None = None
    #: what a table shows for each allowed value (booleans: for true), per language
    labels: Mapping[Any, Names] = field(default_factory=dict)

    def allowed_text(self, language: str = DEFAULT_LANGUAGE) -> str:
        if self.allowed is not None:
            return ", ".join(_show(value) for value in self.allowed)
        if self.type == "integer":
            return render(INTEGER_RANGE, {"minimum": self.minimum, "maximum": self.maximum}, language)
        return "true, false"

    def check(self, value: Any) -> Any:
        """``value`` if it is allowed, else ``RuleError(code="invalid_option")``."""
        ok = {
            "boolean": isinstance(value, bool),
            "integer": isinstance(value, int) and not isinstance(value, bool),
            "string": isinstance(value, str),
        }[self.type]
        if ok and self.allowed is not None:
            ok = value in self.allowed
        if ok and self.type == "integer":
            ok = (self.minimum is None or value >= self.minimum) and (self.maximum is None or value <= self.maximum)
        if not ok:
            raise bad_option(self, _show(value))
        return value

    def to_json(self, language: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "code": self.code,
            "type": self.type,
            "default": self.default,
            "names": dict(self.names),
            "description": render(self.description, {}, language),
            "labels": [{"value": value, "names": dict(names)} for value, names in self.labels.items()],
        }
        if self.allowed is not None:
            doc["allowed"] = list(self.allowed)
        if self.minimum is not None:
            doc["minimum"] = self.minimum
        if self.maximum is not None:
            doc["maximum"] = self.maximum
        return doc


#: how an option's allowed integers are said
INTEGER_RANGE: Text = {"en": "an integer from {minimum} to {maximum}", "tr": "{minimum} ile {maximum} arasında bir tam sayı"}

INVALID_OPTION = RefusalCode(
    "invalid_option",
    {"en": "an option value that is not allowed", "tr": "seçeneğin bu değeri alınamaz"},
    Refusal.BAD_SETUP,
    says={"en": "option {option!r} cannot be {value}; allowed: {allowed}", "tr": "{option!r} seçeneği {value} olamaz; olabilecekler: {allowed}"},
)


def bad_option(option: Option, shown: str, text: Text | None = None, **params: Any) -> RuleError:
    """The ``invalid_option`` refusal of ``option`` set to a value (``shown`` as JSON); a ruleset
    that refuses a combination of options gives its own ``text`` and ``params``."""
    details: dict[str, Any] = {"option": option.code}
    if option.allowed is not None:
        details["allowed"] = list(option.allowed)
    else:
        details["allowed"] = Said({language: option.allowed_text(language) for language in LANGUAGES})
    if text is None:
        allowed = {language: option.allowed_text(language) for language in LANGUAGES}
        return INVALID_OPTION(option=option.code, value=shown, allowed=allowed, details=details)
    return RuleError(INVALID_OPTION.code, text, INVALID_OPTION.kind, params=params, details=details)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


# --- results ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a finished match ended: the winning seats (empty for a drawn match) and the totals."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One deal exactly as dealt, for the reveal at the end of a match."""

    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...] = ()
    trump_card: Card | None = None

    def to_json(self) -> Dealt:
        return {
            "dealer": self.dealer,
            "hands": [[card.code for card in hand] for hand in self.hands],
            "stock": [card.code for card in self.stock],
            "trump_card": self.trump_card.code if self.trump_card else None,
        }


def seat_at(leader: int, place: int, seat_count: int) -> int:
    """The seat that plays a trick's card at ``place`` (0: the lead), the trick led by ``leader``:
    play goes round in seat order. With ``place`` the number of cards played, the seat whose
    card is next."""
    return (leader + place) % seat_count


def turns(seat_count: int) -> tuple[int, ...]:
    """:func:`seat_at` for every leader and number of cards played, indexed by their sum: the seat
    whose card is next, looked up on every move instead of worked out."""
    return tuple(seat_at(0, place, seat_count) for place in range(2 * seat_count))


class Trick(NamedTuple):
    """A trick: the seat that led it and its cards (numbers of the game's deck) in play order,
    with the winner once complete."""

    leader: int
    cards: tuple[int, ...] = ()
    winner: int | None = None

    def to_json(self, seat_count: int, deck: Deck, doc: dict[str, Any] | None = None) -> dict[str, Any]:
        """``{"leader", "cards": [{"seat", "card"}], "winner"}``; added to ``doc`` when given (a
        trick event's heading, which comes first)."""
        codes, seat, cards = deck.codes_table, self.leader, []
        for card in self.cards:  # a loop, not a comprehension: every trick event is built here
            cards.append({"seat": seat, "card": codes[card]})
            seat = seat + 1 if seat + 1 < seat_count else 0
        if doc is None:
            return {"leader": self.leader, "cards": cards, "winner": self.winner}
        doc["leader"], doc["cards"], doc["winner"] = self.leader, cards, self.winner
        return doc

    @staticmethod
    def from_json(doc: Mapping[str, Any], deck: Deck) -> "Trick":
        """The inverse of :meth:`to_json`."""
        return Trick(doc["leader"], tuple(deck.number[Card.parse(entry["card"])] for entry in doc["cards"]), doc["winner"])

    def dump(self, deck: Deck) -> list[Any]:
        """Compact form for a serialized state: ``[leader, [codes], winner]``."""
        return [self.leader, [deck.codes_table[card] for card in self.cards], self.winner]

    @staticmethod
    def load(doc: list[Any], deck: Deck) -> "Trick":
        """The inverse of :meth:`dump`."""
        leader, cards, winner = doc
        return Trick(leader, tuple(deck.number[Card.parse(code)] for code in cards), winner)


# A named tuple's own constructor is a Python function that takes keywords and defaults; the life
# cycle makes events and tricks on every card, from all their fields, with tuple's constructor.
#: ``Event(*fields)`` for ``fields`` = (data, seen_by, others_see)
event_of = partial(tuple.__new__, Event)
#: ``Trick(*fields)`` for ``fields`` = (leader, cards, winner)
trick_of = partial(tuple.__new__, Trick)
#: the trick before its lead, by its leader (immutable, so shared)
NEW_TRICKS = tuple(Trick(seat) for seat in range(8))


def draw_after_trick(hands: list[int], stock: Sequence[int], at: int, winner: int) -> tuple[int, int]:
    """The draw after a trick of a two-hand game with a stock: the trick's winner takes
    ``stock[at]``, the loser ``stock[at + 1]`` (``hands``, masks, change in place). Returns the
    two cards, the winner's first."""
    taken, drawn = stock[at], stock[at + 1]
    hands[winner] |= 1 << taken
    hands[1 - winner] |= 1 << drawn
    return taken, drawn


def replace_at(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """A copy of ``items`` with ``items[index]`` replaced by ``value``."""
    return items[:index] + (value,) + items[index + 1 :]
