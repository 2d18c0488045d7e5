"""``/v1/rulesets``: the catalog a frontend builds its "new game" form from."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from engine import Refusal, Ruleset, registry
from engine.cards import Card, Rank, Suit
from engine.players import level_names, player

from ..api import Blueprint
from ..errors import REFUSAL_STATUS
from ..schemas import NamesSchema, sides_field
from ..texts import CONTENT_LANGUAGE, language

blp = Blueprint("rulesets", __name__, url_prefix="/v1/rulesets", description="The games Koz hosts, with their options")


class OptionSchema(Schema):
    code = fields.String(required=True, metadata={"description": "The option's name in `options`"})
    type = fields.String(required=True, metadata={"enum": ["boolean", "integer", "string"]})
    default = fields.Raw(required=True, metadata={"type": ["boolean", "integer", "string"]})
    names = fields.Nested(NamesSchema, required=True)
    description = fields.String(required=True, metadata={"description": "What the option does, in the language of `Content-Language`"})
    labels = fields.List(
        fields.Nested(lambda: ValueLabelSchema()),
        required=True,
        metadata={"description": "What a table shows for allowed values, in every language (a boolean's: for true)"},
    )
    allowed = fields.List(
        fields.Raw(metadata={"type": ["boolean", "integer", "string"]}),
        metadata={"description": "The allowed values, when they are a short list"},
    )
    minimum = fields.Integer()
    maximum = fields.Integer()


class ValueLabelSchema(Schema):
    value = fields.Raw(required=True, metadata={"type": ["boolean", "integer", "string"]})
    names = fields.Nested(NamesSchema, required=True)


class TableLabelSchema(Schema):
    code = fields.String(required=True)
    names = fields.Nested(NamesSchema, required=True)


class SeatLabelSchema(Schema):
    index = fields.Integer(required=True)
    names = fields.Nested(NamesSchema, required=True)


class LevelSchema(Schema):
    level = fields.String(required=True)
    names = fields.Nested(NamesSchema, required=True)


class RefusalSchema(Schema):
    code = fields.String(required=True, metadata={"description": "The problem's `code`"})
    kind = fields.String(
        required=True,
        metadata={
            "enum": [kind.value for kind in Refusal],
            "description": "`bad_setup`: a new game's options; `malformed`: not an action at all; "
            "`not_your_turn`: the seat may not act now; `illegal`: the seat may act, but not this action"
        },
    )
    status = fields.Integer(required=True, metadata={"description": "The HTTP status of an answer refused with this code"})
    meaning = fields.String(required=True, metadata={"description": "What the code means in this game, in the language of `Content-Language`"})


class RulesetSchema(Schema):
    id = fields.String(required=True)
    names = fields.Nested(NamesSchema, required=True)
    seat_count = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatLabelSchema), required=True, metadata={"description": "Seats in play order"})
    sides = sides_field()
    options = fields.List(fields.Nested(OptionSchema), required=True)
    ranks = fields.List(
        fields.String(validate=validate.OneOf([rank.code for rank in Rank])),
        metadata={"description": "The ranks of the game's cards, strongest first (a table sorts a hand by them)"},
    )
    labels = fields.List(
        fields.Nested(TableLabelSchema),
        required=True,
        metadata={"description": "What a table of this game shows besides its options (such as `open_hand`), in every language"},
    )
    standard_human_seats = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "The human seats of a game created without `seats`; the others are computer players"},
    )
    levels = fields.List(
        fields.Nested(LevelSchema),
        required=True,
        metadata={"description": "The ruleset's computer levels, weakest first (`random` only for a game without computer strategies)"},
    )
    refusals = fields.List(
        fields.Nested(RefusalSchema),
        required=True,
        metadata={
            "description": "Every refusal the game's rules may give (a problem's `code`, its kind and status, what it means in "
            "this game): the rule an illegal action breaks is one of them"
        },
    )


class CardNameSchema(Schema):
    code = fields.String(required=True)
    names = fields.Nested(NamesSchema, required=True)


class CatalogSchema(Schema):
    rulesets = fields.List(fields.Nested(RulesetSchema), required=True)
    suits = fields.List(fields.Nested(CardNameSchema), required=True, metadata={"description": "Suit codes and names"})
    ranks = fields.List(fields.Nested(CardNameSchema), required=True, metadata={"description": "Rank codes and names"})
    cards = fields.List(
        fields.Nested(CardNameSchema),
        required=True,
        metadata={"description": "Every card's code and names (the Turkish one in the possessive)"},
    )


def catalog() -> dict[str, Any]:
    return {
        "rulesets": [catalog_entry(ruleset) for ruleset in registry.all_rulesets()],
        "suits": [{"code": suit.value, "names": suit.names} for suit in Suit],
        "ranks": [{"code": rank.code, "names": rank.names} for rank in Rank],
        "cards": [{"code": Card(rank, suit).code, "names": Card(rank, suit).names()} for suit in Suit for rank in Rank],
    }


def catalog_entry(ruleset: Ruleset[Any]) -> dict[str, Any]:
    """A ruleset as the engine describes it, with its computer levels, its standard table, and the
    HTTP status each of its refusals is answered with."""
    described = ruleset.describe(language())
    return {
        **described,
        "refusals": [{**refusal, "status": REFUSAL_STATUS[Refusal(refusal["kind"])]} for refusal in described["refusals"]],
        "standard_human_seats": list(ruleset.standard_human_seats),
        "levels": [{"level": level, "names": dict(player(level).names)} for level in level_names(ruleset.id)],
    }


@blp.route("", operation_id="listRulesets")
@blp.response(200, CatalogSchema, headers={"Content-Language": CONTENT_LANGUAGE})
def list_rulesets() -> dict[str, Any]:
    """The catalog of rulesets.

    Each ruleset with its names in English and Turkish, its seats in play order, its options
    (type, default, allowed values and their labels in English and Turkish, a description in
    the language asked for by `Accept-Language`), the computer levels and the refusals its rules
    may answer (each code with its status and its meaning in that language); also the names of
    suits, ranks and cards.
    """
    return catalog()
