"""Schemas shared by several resources: cards, actions, names, seats and game options.

Options are generated from the engine's option specifications, so the documentation follows the
registry; their values are validated by the engine, whose refusals name the option and its
allowed values.
"""

from __future__ import annotations

import json
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from engine import registry
from engine.actions import KINDS

CARD_PATTERN = r"^[2-9TJQKA][CDHS]$"
SUITS = ["C", "D", "H", "S"]


def card_field(**kwargs: Any) -> fields.String:
    """A card code: rank (2-9, T, J, Q, K, A) then suit (C, D, H, S), as in ``QS`` or ``TD``."""
    metadata = {"description": "A card code: rank then suit, such as `QS` or `TD`", "example": "QS"}
    metadata.update(kwargs.pop("metadata", {}))
    return fields.String(validate=validate.Regexp(CARD_PATTERN), metadata=metadata, **kwargs)


def cards_field(description: str, **kwargs: Any) -> fields.List:
    return fields.List(card_field(), metadata={"description": description}, **kwargs)


def suit_field(**kwargs: Any) -> fields.String:
    metadata = {"description": "A suit: C, D, H or S", **kwargs.pop("metadata", {})}
    return fields.String(validate=validate.OneOf(SUITS), metadata=metadata, **kwargs)


class NamesSchema(ma.Schema):
    """A display name in English and Turkish."""

    en = fields.String(required=True)
    tr = fields.String(required=True)


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false``, and nothing that merely looks like one (``"yes"``, ``1``)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class ActionSchema(ma.Schema):
    """One action. `play` and `marriage` take `card`, `bid` takes `value`, `trump` takes `suit`;
    a `marriage` may add `declare`; `pass`, `exchange`, `close` and `declare` take nothing else.
    A client may post back any member of its view's `legal_actions` verbatim."""

    type = fields.String(required=True, validate=validate.OneOf(list(KINDS)))
    card = card_field(metadata={"description": "For `play` and `marriage` (the king or queen led, or named with a claim)"})
    value = fields.Integer(metadata={"description": "For `bid`"})
    suit = suit_field()
    declare = StrictBoolean(
        metadata={
            "description": "For `marriage` (Sixty-Six): `true` announces it and claims 66 in one action; the "
            "marriage counts at once, no card is led and the deal ends. Offered beside the plain marriage "
            "once the announcer has won a trick in the deal"
        }
    )

    class Meta:
        ordered = True


class SeatSchema(ma.Schema):
    index = fields.Integer(required=True)
    label = fields.Nested(NamesSchema, required=True, metadata={"description": "The seat's label, e.g. South / Güney"})
    name = fields.String(required=True, allow_none=True)
    bot = fields.String(required=True, allow_none=True, metadata={"description": "The computer level, or null for a human"})
    human = fields.Boolean(required=True)


def _option_field(rulesets_options: list[tuple[str, Any]]) -> fields.Raw:
    """A documented, engine-validated option field, merged over the rulesets that have it."""
    types = {option.type for _, option in rulesets_options}
    metadata: dict[str, Any] = {
        "type": types.pop() if len(types) == 1 else sorted(types),
        "description": " ".join(
            f"{ruleset_id}: {option.description} Default {json.dumps(option.default)}"
            + (f", one of {json.dumps(list(option.allowed))}." if option.allowed else ".")
            for ruleset_id, option in rulesets_options
        ),
    }
    if len(rulesets_options) == 1:
        option = rulesets_options[0][1]
        metadata["default"] = option.default
        if option.allowed is not None:
            metadata["enum"] = list(option.allowed)
        for bound in ("minimum", "maximum"):
            if getattr(option, bound) is not None:
                metadata[bound] = getattr(option, bound)
    return fields.Raw(metadata=metadata)


def options_schema() -> type[ma.Schema]:
    """The options of every ruleset, each documented; which apply depends on the ruleset."""
    by_code: dict[str, list[tuple[str, Any]]] = {}
    for ruleset in registry.all_rulesets():
        for option in ruleset.options:
            by_code.setdefault(option.code, []).append((ruleset.id, option))
    attributes: dict[str, Any] = {code: _option_field(found) for code, found in by_code.items()}
    # Unknown options pass through to the engine, which refuses them naming the known ones.
    attributes["Meta"] = type("Meta", (), {"unknown": ma.INCLUDE})
    return type("GameOptionsSchema", (ma.Schema,), attributes)


GameOptionsSchema = options_schema()
