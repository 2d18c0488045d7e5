"""Typed actions: one frozen class per kind of move, as a client posts it.

``{"type": "play", "card": "QS"}`` is ``Play(Card.parse("QS"))``. Each ruleset says which kinds
it accepts (``Ruleset.action_kinds``) and decides, per kind, whether an action is legal and why
not (its ``verify_<kind>`` method), so its legal actions and its refusals come from one place.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, Mapping

from .cards import Card, Suit
from .errors import Refusal, RuleError


@dataclass(frozen=True, slots=True)
class Action:
    """A move. Subclasses name their ``type`` and carry its fields."""

    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"type": self.type}
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None or value is False and field.default is False:
                continue  # an optional flag left out reads as false
            doc[field.name] = value.code if isinstance(value, Card) else value.value if isinstance(value, Suit) else value
        return doc

    @staticmethod
    def from_json(doc: Mapping[str, Any]) -> "Action":
        """Parse an action object; a malformed one raises ``RuleError(code="malformed_action")``."""
        if not isinstance(doc, Mapping):
            raise _malformed("an action is a JSON object such as {\"type\": \"play\", \"card\": \"QS\"}")
        given_type = doc.get("type")
        kind = KINDS.get(given_type) if isinstance(given_type, str) else None
        if kind is None:
            raise _malformed(f"unknown action type {doc.get('type')!r}; types are {', '.join(KINDS)}")
        wanted = {field.name for field in fields(kind)}
        required = {field.name for field in fields(kind) if field.default is MISSING}
        given = set(doc) - {"type"}
        if not required <= given <= wanted:
            raise _malformed(
                f"a {kind.type!r} action takes the fields {sorted(wanted) or 'none'}, got {sorted(given) or 'none'}"
            )
        return kind(**{name: _PARSERS[name](doc[name]) for name in given})

    def __str__(self) -> str:
        return " ".join(str(value) for value in self.to_json().values())


@dataclass(frozen=True, slots=True)
class Play(Action):
    type: ClassVar[str] = "play"
    card: Card


@dataclass(frozen=True, slots=True)
class Bid(Action):
    type: ClassVar[str] = "bid"
    value: int


@dataclass(frozen=True, slots=True)
class Pass(Action):
    type: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Trump(Action):
    """Naming the trump suit."""

    type: ClassVar[str] = "trump"
    suit: Suit


@dataclass(frozen=True, slots=True)
class Exchange(Action):
    """Exchanging the trump card under the talon."""

    type: ClassVar[str] = "exchange"


@dataclass(frozen=True, slots=True)
class Close(Action):
    """Closing the talon."""

    type: ClassVar[str] = "close"


@dataclass(frozen=True, slots=True)
class Marriage(Action):
    """Announcing a marriage by leading its king or queen; ``declare`` claims 66 at once."""

    type: ClassVar[str] = "marriage"
    card: Card
    declare: bool = False


@dataclass(frozen=True, slots=True)
class Declare(Action):
    """Claiming 66."""

    type: ClassVar[str] = "declare"


#: every kind of action, by its type
KINDS: dict[str, type[Action]] = {kind.type: kind for kind in (Play, Bid, Pass, Trump, Exchange, Close, Marriage, Declare)}


def _malformed(message: str) -> RuleError:
    return RuleError("malformed_action", message, Refusal.MALFORMED)


def _card(value: Any) -> Card:
    try:
        return Card.parse(value)
    except ValueError:
        raise _malformed(f"{value!r} is not a card code such as \"QS\" or \"TD\"") from None


def _bid_value(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _malformed("a bid's value is an integer")
    return value


def _suit(value: Any) -> Suit:
    try:
        return Suit(value)
    except ValueError:
        raise _malformed(f"{value!r} is not a suit; suits are C, D, H, S") from None


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _malformed("declare is true or false")
    return value


_PARSERS = {"card": _card, "value": _bid_value, "suit": _suit, "declare": _flag}


def play(card: Card | str) -> Play:
    """A play of ``card`` (a card or its code)."""
    return Play(card if isinstance(card, Card) else Card.parse(card))
