"""Typed actions: one frozen class per kind of move, as a client posts it.

``{"type": "play", "card": "QS"}`` is ``Play(Card.parse("QS"))``. Each ruleset says which kinds
it accepts (``Ruleset.action_kinds``) and decides, per kind, whether an action is legal and why
not (its ``verify_<kind>`` method), so its legal actions and its refusals come from one place.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, ClassVar, Mapping

from .cards import Card, Suit
from .errors import Refusal, RefusalCode


@dataclass(frozen=True, slots=True)
class Action:
    """A move. Subclasses name their ``type`` and carry its fields."""

    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"type": self.type}
        for spec in _specs(type(self))[0]:
            value = getattr(self, spec.name)
            if value is None or value is False and spec.default is False:
                continue  # an optional flag left out reads as false
            doc[spec.name] = value.code if isinstance(value, Card) else value.value if isinstance(value, Suit) else value
        return doc

    @staticmethod
    def from_json(doc: Mapping[str, Any]) -> "Action":
        """Parse an action object; a malformed one raises ``RuleError(code="malformed_action")``."""
        if not isinstance(doc, Mapping):
            raise MALFORMED_ACTION("not_an_object")
        given_type = doc.get("type")
        kind = KINDS.get(given_type) if isinstance(given_type, str) else None
        if kind is None:
            raise MALFORMED_ACTION("unknown_type", type=repr(doc.get("type")), types=list(KINDS))
        _, wanted, required = _specs(kind)
        given = set(doc) - {"type"}
        if not required <= given:
            raise MALFORMED_ACTION("missing_fields", type=kind.type, missing=sorted(required - given))
        if not given <= wanted:
            if not wanted:
                raise MALFORMED_ACTION("no_fields", type=kind.type, extra=sorted(given))
            raise MALFORMED_ACTION("unknown_fields", type=kind.type, extra=sorted(given - wanted), wanted=sorted(wanted))
        return kind(**{name: _PARSERS[name](doc[name]) for name in given})

    def __str__(self) -> str:
        return " ".join(str(value) for value in self.to_json().values())


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Playing a card to the trick: one of the seat's legal plays (following suit, and in
    Sixty-Six's closed or exhausted talon winning or trumping where it must), from its own hand
    or, for Batak's declarer, from the dummy's open hand."""

    type: ClassVar[str] = "play"
    card: Card = field(metadata={"description": "The card played"})


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """A bid in Batak's auction: the number of tricks the bidder's team undertakes to take, above
    the highest bid so far. The auction's winner names trump and declares; a declaring team that
    takes fewer tricks than its bid scores minus the bid."""

    type: ClassVar[str] = "bid"
    value: int = field(metadata={"description": "The number of tricks bid"})


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Passing in Batak's auction: no (further) bid from this seat; when every other seat has
    passed, the highest bidder declares. It costs nothing."""

    type: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Trump(Action):
    """Naming the trump suit: the declarer does it once the auction is over; the dummy's hand is
    then shown to all."""

    type: ClassVar[str] = "trump"
    suit: Suit = field(metadata={"description": "The suit named trump"})


@dataclass(frozen=True, slots=True)
class Exchange(Action):
    """Sixty-Six: the leader swaps the trump nine in hand (the jack in Schnapsen) for the face-up
    trump card under the talon, before leading, while the talon is open (in Sixty-Six, after
    winning a trick in the deal). It costs nothing."""

    type: ClassVar[str] = "exchange"


@dataclass(frozen=True, slots=True)
class Close(Action):
    """Sixty-Six: the leader closes the talon before leading: no one draws again, and from this
    trick on a follower must follow suit and win or trump where able. A closer who then does not
    reach 66 (or claims falsely) loses the deal: the opponent scores 2 game points, or 3 if the
    opponent had won no trick when the talon was closed."""

    type: ClassVar[str] = "close"


@dataclass(frozen=True, slots=True)
class Marriage(Action):
    """Sixty-Six: announcing a marriage (king and queen of one suit in hand) by leading one of
    them: 40 points in trump, 20 otherwise, counted once the announcer has won a trick in the
    deal. With ``declare`` it also claims 66 at once (the marriage counts, no card is led, the
    deal ends), and a false claim costs as ``declare``'s does."""

    type: ClassVar[str] = "marriage"
    card: Card = field(metadata={"description": "The king or queen led (or, with `declare`, named)"})
    declare: bool = field(
        default=False,
        metadata={"description": "`true` announces the marriage and claims 66 in one action: it counts at once, no card is led"},
    )


@dataclass(frozen=True, slots=True)
class Declare(Action):
    """Sixty-Six: claiming to have 66 points or more, on lead after winning the last trick; the
    deal ends at once. A correct claim wins the deal (1 game point; 2 if the opponent won a trick
    but has under 33 points; 3 if the opponent won no trick); a false claim loses it: the opponent scores 2
    game points (in Schnapsen 3 if the claimant's opponent had won no trick)."""

    type: ClassVar[str] = "declare"


_Specs = tuple[tuple[Field[Any], ...], frozenset[str], frozenset[str]]
_SPECS: dict[type, _Specs] = {}


def _specs(kind: type[Action]) -> _Specs:
    """A kind's fields, the names of all of them and of the required ones, looked up once per
    kind: dataclasses' ``fields`` builds its tuple anew on each call, and every action read or
    written asked for it."""
    found = _SPECS.get(kind)
    if found is None:
        specs = fields(kind)
        found = _SPECS[kind] = (specs, frozenset(spec.name for spec in specs), frozenset(spec.name for spec in specs if spec.default is MISSING))
    return found


#: every kind of action, by its type
KINDS: dict[str, type[Action]] = {kind.type: kind for kind in (Play, Bid, Pass, Trump, Exchange, Close, Marriage, Declare)}


#: why an action object is malformed: one code, its words by what is wrong
MALFORMED_ACTION = RefusalCode(
    "malformed_action",
    {"en": "the action is not a well-formed action object", "tr": "hamle, geçerli bir hamle nesnesi değil"},
    Refusal.MALFORMED,
    cases={
        "not_an_object": {
            "en": 'an action is a JSON object such as {{"type": "play", "card": "QS"}}',
            "tr": 'hamle, {{"type": "play", "card": "QS"}} gibi bir JSON nesnesidir',
        },
        "unknown_type": {"en": "unknown action type {type}; types are {types}", "tr": "{type} diye bir hamle türü yok; türler: {types}"},
        "missing_fields": {"en": "a {type!r} action needs {missing}", "tr": "{type!r} hamlesinde eksik alan: {missing}"},
        "unknown_fields": {
            "en": "a {type!r} action has no field {extra}; its fields are {wanted}",
            "tr": "{type!r} hamlesinde {extra} alanı olmaz; alanları: {wanted}",
        },
        "no_fields": {
            "en": 'a {type!r} action has no field but "type"; got {extra}',
            "tr": '{type!r} hamlesinde "type" dışında alan olmaz; gelen: {extra}',
        },
        "not_a_card": {
            "en": '{value} is not a card code such as "QS" or "TD"',
            "tr": '{value} bir kart kodu değil ("QS", "TD" gibi olmalı)',
        },
        "bid_not_integer": {"en": "a bid's value is an integer", "tr": "ihalenin değeri bir tam sayıdır"},
        "not_a_suit": {"en": "{value} is not a suit; suits are C, D, H, S", "tr": "{value} bir renk değil; renkler: C, D, H, S"},
        "declare_not_boolean": {"en": "declare is true or false", "tr": "declare alanı true ya da false olur"},
    },
)


def _card(value: Any) -> Card:
    try:
        return Card.parse(value)
    except ValueError:
        raise MALFORMED_ACTION("not_a_card", value=repr(value)) from None


def _bid_value(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MALFORMED_ACTION("bid_not_integer")
    return value


def _suit(value: Any) -> Suit:
    try:
        return Suit(value)
    except ValueError:
        raise MALFORMED_ACTION("not_a_suit", value=repr(value)) from None


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise MALFORMED_ACTION("declare_not_boolean")
    return value


_PARSERS = {"card": _card, "value": _bid_value, "suit": _suit, "declare": _flag}


def play(card: Card | str) -> Play:
    """A play of ``card`` (a card or its code)."""
    return Play(card if isinstance(card, Card) else Card.parse(card))
