"""The vocabulary shared by every ruleset: actions, events, options, results and the one error.

Every decision the engine refuses is a :class:`RuleError` carrying a stable ``code`` (such as
``must_follow_suit``) and a :class:`Refusal` kind that says what sort of refusal it is; the
service maps the kind to an HTTP status in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Mapping, overload

from .cards import Card, Suit

#: Display names of a thing in English and Turkish: ``{"en": ..., "tr": ...}``.
Names = Mapping[str, str]


class Refusal(str, Enum):
    """What kind of refusal a :class:`RuleError` is."""

    BAD_SETUP = "bad_setup"  # a new game's ruleset, options or seats are not valid
    MALFORMED = "malformed"  # the action object is not a well-formed action
    NOT_YOUR_TURN = "not_your_turn"  # the seat may not act now (includes a finished match)
    ILLEGAL = "illegal"  # the seat may act, but not this action


class RuleError(Exception):
    """A refused option or action, with a stable machine-readable ``code``.

    ``legal_actions`` is set when a seat that may act asked for an illegal action: it lists what
    the seat may do instead. ``details`` holds further machine-readable facts (for a bad option:
    the option and its allowed values). Nothing in a RuleError reveals a concealed card.
    """

    def __init__(
        self,
        code: str,
        message: str,
        refusal: Refusal,
        *,
        legal_actions: Iterable["Action"] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.refusal = refusal
        self.legal_actions = tuple(legal_actions) if legal_actions is not None else None
        self.details = dict(details or {})


def illegal(code: str, message: str) -> RuleError:
    """An illegal-action refusal; the ruleset's legal actions are attached by ``Ruleset.apply``."""
    return RuleError(code, message, Refusal.ILLEGAL)


# --- actions ---------------------------------------------------------------------------------

#: Every action type and the fields it carries.
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "play": ("card",),
    "bid": ("value",),
    "pass": (),
    "trump": ("suit",),
    "exchange": (),
    "close": (),
    "marriage": ("card",),
    "declare": (),
}
#: Fields an action type may carry or leave out: a marriage may claim 66 with it (``declare``).
OPTIONAL_ACTION_FIELDS: dict[str, tuple[str, ...]] = {"marriage": ("declare",)}


@dataclass(frozen=True, slots=True)
class Action:
    """One move, as a client posts it: ``{"type": "play", "card": "QS"}``."""

    type: str
    card: Card | None = None
    value: int | None = None
    suit: Suit | None = None
    declare: bool = False  # a marriage that claims 66 with its announcement

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"type": self.type}
        if self.card is not None:
            doc["card"] = self.card.code
        if self.value is not None:
            doc["value"] = self.value
        if self.suit is not None:
            doc["suit"] = self.suit.value
        if self.declare:
            doc["declare"] = True
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Action":
        """Parse an action object; a malformed one raises ``RuleError(code="malformed_action")``."""

        def malformed(message: str) -> RuleError:
            return RuleError("malformed_action", message, Refusal.MALFORMED)

        if not isinstance(doc, Mapping):
            raise malformed("an action is a JSON object such as {\"type\": \"play\", \"card\": \"QS\"}")
        kind = doc.get("type")
        if kind not in ACTION_FIELDS:
            raise malformed(f"unknown action type {kind!r}; types are {', '.join(ACTION_FIELDS)}")
        wanted = set(ACTION_FIELDS[kind])
        optional = set(OPTIONAL_ACTION_FIELDS.get(kind, ()))
        given = set(doc) - {"type"}
        if not wanted <= given <= wanted | optional:
            fields = f"the fields {sorted(wanted) or 'none'}" + (f", optionally {sorted(optional)}" if optional else "")
            raise malformed(f"a {kind!r} action takes exactly {fields}, got {sorted(given) or 'none'}")
        values: dict[str, Any] = {}
        if "card" in wanted:
            try:
                values["card"] = Card.parse(doc["card"])
            except ValueError:
                raise malformed(f"{doc['card']!r} is not a card code such as \"QS\" or \"TD\"") from None
        if "value" in wanted:
            value = doc["value"]
            if not isinstance(value, int) or isinstance(value, bool):
                raise malformed("a bid's value is an integer")
            values["value"] = value
        if "suit" in wanted:
            try:
                values["suit"] = Suit(doc["suit"])
            except ValueError:
                raise malformed(f"{doc['suit']!r} is not a suit; suits are C, D, H, S") from None
        if "declare" in given:
            if not isinstance(doc["declare"], bool):
                raise malformed("a marriage's declare is true (claim 66 with it) or false")
            values["declare"] = doc["declare"]
        return cls(kind, **values)

    def __str__(self) -> str:
        parts = (self.type, self.card, self.value, self.suit and self.suit.value, self.declare and "declare")
        return " ".join(str(part) for part in parts if part)


def play(card: Card | str) -> Action:
    return Action("play", card=card if isinstance(card, Card) else Card.parse(card))


# --- events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, with who may see it.

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


def private(viewer: int, kind: str, hidden: Iterable[str], **data: Any) -> Event:
    """An event that ``viewer`` sees whole and others see without the fields in ``hidden``."""
    full = {"type": kind, **data}
    hidden = set(hidden)
    return Event(full, frozenset({viewer}), {key: value for key, value in full.items() if key not in hidden})


def deal_opened(deal: int, dealer: int, hands: Iterable[Iterable[Card]], **details: Any) -> list[Event]:
    """The events that open a deal, by the convention every ruleset keeps: a public ``deal``
    event (with the ruleset's ``details``), then each seat's cards as a private ``dealt`` event."""
    events = [public("deal", deal=deal, dealer=dealer, **details)]
    for seat, hand in enumerate(hands):
        cards = sorted(hand)
        events.append(private(seat, "dealt", ["hand"], seat=seat, hand=[card.code for card in cards], count=len(cards)))
    return events


# --- options ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One option of a ruleset, as the catalog lists it and creation validates it."""

    code: str
    type: str  # "boolean", "integer" or "string"
    default: Any
    names: Names
    description: str
    allowed: tuple[Any, ...] | None = None  # the allowed values, when they are a short list
    minimum: int | None = None
    maximum: int | None = None

    def allowed_text(self) -> str:
        if self.allowed is not None:
            return ", ".join(_show(value) for value in self.allowed)
        if self.type == "integer":
            return f"an integer from {self.minimum} to {self.maximum}"
        return "true or false"

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
            raise bad_option(self, f"option {self.code!r} cannot be {_show(value)}; allowed: {self.allowed_text()}")
        return value

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "code": self.code,
            "type": self.type,
            "default": self.default,
            "names": dict(self.names),
            "description": self.description,
        }
        if self.allowed is not None:
            doc["allowed"] = list(self.allowed)
        if self.minimum is not None:
            doc["minimum"] = self.minimum
        if self.maximum is not None:
            doc["maximum"] = self.maximum
        return doc


def bad_option(option: Option, message: str) -> RuleError:
    details: dict[str, Any] = {"option": option.code}
    if option.allowed is not None:
        details["allowed"] = list(option.allowed)
    else:
        details["allowed"] = option.allowed_text()
    return RuleError("invalid_option", message, Refusal.BAD_SETUP, details=details)


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

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "hands": [[card.code for card in hand] for hand in self.hands],
            "stock": [card.code for card in self.stock],
            "trump_card": self.trump_card.code if self.trump_card else None,
        }


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: the seat that led it and its cards in play order, with the winner once complete."""

    leader: int
    cards: tuple[Card, ...] = ()
    winner: int | None = None

    def to_json(self, seat_count: int) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "cards": [
                {"seat": (self.leader + i) % seat_count, "card": card.code} for i, card in enumerate(self.cards)
            ],
            "winner": self.winner,
        }

    def dump(self) -> list[Any]:
        """Compact form for a serialized state: ``[leader, [codes], winner]``."""
        return [self.leader, [card.code for card in self.cards], self.winner]

    @overload
    @staticmethod
    def load(doc: None) -> None: ...

    @overload
    @staticmethod
    def load(doc: list[Any]) -> "Trick": ...

    @staticmethod
    def load(doc: list[Any] | None) -> "Trick | None":
        """The inverse of :meth:`dump`; None for None (no trick)."""
        if doc is None:
            return None
        leader, cards, winner = doc
        return Trick(leader, tuple(Card.parse(code) for code in cards), winner)


def replace_at(items: tuple, index: int, value: Any) -> tuple:
    """A copy of ``items`` with ``items[index]`` replaced by ``value``."""
    return items[:index] + (value,) + items[index + 1 :]
