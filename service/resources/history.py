"""``/v1/games/{id}/history``: what happened, as the caller may see it."""

from __future__ import annotations

import typing
from functools import cache
from typing import Any, get_args

from werkzeug.sansio.response import Response as BaseResponse
from flask import current_app
from apispec import APISpec
from marshmallow import Schema, fields, validate

from engine import registry
from engine.shapes import Dealt

from ..api import SEAT_TOKEN_OPTIONAL, STORE_UNAVAILABLE, Blueprint, bearer_token
from ..edge import check_version_bound
from ..schemas import ActionSchema, RequestSchema, cards_field
from ..shapes import schema_of
from ..game import Game
from ..games import Games
from .game_schemas import STATUS_DESCRIPTION, STATUSES
from .games import ETAG_HEADER, private, games

blp = Blueprint("history", __name__, url_prefix="/v1/games", description="The history of a game")

#: the longest page, in versions
MAX_PAGE = 1000


class ActionEventSchema(Schema):
    """A seat's applied action, as posted."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True, metadata={"enum": ["action"]})
    seat = fields.Integer(required=True)
    action = fields.Nested(ActionSchema, required=True)


class AbandonedEventSchema(Schema):
    """The match ran past the service's cap on its length and ended with no winner."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True, metadata={"enum": ["abandoned"]})
    reason = fields.String(required=True, metadata={"enum": ["too_long"]})
    deal = fields.Integer(required=True)
    max_deals = fields.Integer(required=True, metadata={"description": "The cap on deals"})
    max_versions = fields.Integer(required=True, metadata={"description": "The cap on versions"})


class SeatTakenEventSchema(Schema):
    """An open seat was taken."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True, metadata={"enum": ["seat_taken"]})
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "The name of who took the seat"})


class LeftEventSchema(Schema):
    """The seat's player left it to a computer of that level."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True, metadata={"enum": ["left"]})
    seat = fields.Integer(required=True)
    level = fields.String(required=True, metadata={"description": "The computer level playing the seat from now on"})


class RejoinedEventSchema(Schema):
    """The seat's token took the seat back."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True, metadata={"enum": ["rejoined"]})
    seat = fields.Integer(required=True)


class RematchEventSchema(Schema):
    """The next match was made."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True, metadata={"enum": ["rematch"]})
    game = fields.String(required=True, metadata={"description": "The next match's id"})


class TimeoutEventSchema(Schema):
    """The seat let its turn clock run out."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True, metadata={"enum": ["timeout"]})
    seat = fields.Integer(required=True)
    on_timeout = fields.String(
        required=True,
        metadata={
            "enum": ["computer", "forfeit"],
            "description": "`computer`: it played the seat's action, the next event; `forfeit`: the match is lost",
        },
    )
    winners = fields.List(fields.Integer(), metadata={"description": "For a forfeit: the winning seats"})


class HistoryEventSchema(Schema):
    """One event, with the version it produced; its `type` says which fields it has: the
    service's `action` and `abandoned`, and the events each ruleset declares.
    Documented as one schema per type (see :func:`document_events`)."""

    version = fields.Integer(required=True)
    type = fields.String(required=True)


@cache
def event_schema(shape: type) -> type[Schema]:
    """An engine event's schema, with the version the service numbers it by."""
    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    return type(f"{shape.__name__}Schema", (schema_of(shape),), {"version": version})


def document_events(spec: APISpec) -> None:
    """Document ``HistoryEvent`` as one schema per ``type``; a type whose fields differ between
    rulesets (``deal``, ``deal_result``) is one of each ruleset's."""
    by_type: dict[str, dict[str, type[Schema]]] = {
        "action": {"ActionEvent": ActionEventSchema},
        "abandoned": {"AbandonedEvent": AbandonedEventSchema},
        "seat_taken": {"SeatTakenEvent": SeatTakenEventSchema},
        "left": {"LeftEvent": LeftEventSchema},
        "rejoined": {"RejoinedEvent": RejoinedEventSchema},
        "rematch": {"RematchEvent": RematchEventSchema},
        "timeout": {"TimeoutEvent": TimeoutEventSchema},
    }
    for ruleset in registry.all_rulesets():
        for shape in ruleset.event_types:
            (kind,) = get_args(typing.get_type_hints(shape)["type"])
            by_type.setdefault(kind, {})[shape.__name__] = event_schema(shape)
    mapping = {}
    for kind, schemas in by_type.items():
        for name, schema in schemas.items():
            spec.components.schema(name, schema=schema)
        refs = [{"$ref": f"#/components/schemas/{name}"} for name in schemas]
        if len(refs) == 1:
            mapping[kind] = refs[0]["$ref"]
        else:
            union = "".join(part.capitalize() for part in kind.split("_")) + "Event"
            spec.components.schema(union, {"description": f"A `{kind}` event, in its ruleset's terms", "oneOf": refs})
            mapping[kind] = f"#/components/schemas/{union}"
    # no `discriminator`: `deal` and `deal_result` are each one of three schemas, which a mapping
    # cannot name (openapi-typescript warns at each and types them wrong); every member's `type`
    # is a single value, which is all a client needs to tell the events apart
    spec.components.schemas["HistoryEvent"] = {
        "description": " ".join((HistoryEventSchema.__doc__ or "").split("Documented as")[0].split()),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
    }


def dealt_schema() -> type[Schema]:
    """A deal as dealt, its stock described by every ruleset."""
    orders = "; ".join(f"{ruleset.names['en']}: {ruleset.stock_order}" for ruleset in registry.all_rulesets())
    return type("DealtSchema", (schema_of(Dealt),), {"stock": cards_field(orders, required=True)})


class RevealSchema(Schema):
    seed = fields.String(required=True)
    deals = fields.List(fields.Nested(dealt_schema()), required=True)


class HistorySchema(Schema):
    id = fields.String(required=True)
    ruleset = fields.String(required=True)
    options = fields.Dict(required=True, metadata={"description": "The game's options"})
    seed_commitment = fields.String(required=True, metadata={"description": "SHA-256 (hex) of the seed, as every view showed it from the start"})
    version = fields.Integer(required=True, metadata={"description": "The game's current version"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"description": STATUS_DESCRIPTION})
    events = fields.List(fields.Nested(HistoryEventSchema), required=True)
    next_after = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Pass as `after` for the next page; null on the last"}
    )
    reveal = fields.Nested(
        RevealSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "Once the match is over, however it ended (finished, forfeited, abandoned): the seed and every deal "
            "as dealt, to re-check the whole match (`koz verify`)"
        },
    )


class HistoryQuerySchema(RequestSchema):
    after = fields.Integer(
        load_default=-1,
        validate=validate.Range(min=-1),
        metadata={"description": "Events of versions after this one; later than the server's cap on versions (`KOZ_MAX_VERSIONS`): 400"},
    )
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=MAX_PAGE), metadata={"description": "Versions per page"})


def reveal(game: Game) -> dict[str, Any] | None:
    """The seed and every deal as dealt, once the match is over, however it ended: by its rules,
    by a forfeit or abandoned (then the last deal, unfinished, too); None while it goes on."""
    return game.ruleset.reveal(game.state, ended_early=not game.finished) if game.over else None


def seen_events(koz: Games, game: Game, seat: int | None, after: int, up_to: int) -> list[dict[str, Any]]:
    """The history events of versions ``after < version <= up_to`` as ``seat`` (None: a
    spectator) may see them, each with its version, in order: once the match is over, all of them."""
    events = []
    for version, event in koz.repository.events(game, after, up_to):
        seen = event.for_viewer(seat, revealed=game.over)
        if seen is not None:
            events.append({"version": version, **seen})
    return events


@blp.route("/<game_id>/history", operation_id="getHistory")
@blp.problems(STORE_UNAVAILABLE)
@blp.arguments(HistoryQuerySchema(), location="query")
@blp.response(200, HistorySchema, headers=ETAG_HEADER)
@blp.problems({400: ["invalid_request"], 401: ["invalid_token"], 404: ["unknown_game"], 410: ["game_unreadable"]})
@blp.doc(security=SEAT_TOKEN_OPTIONAL)
def get_history(query: dict[str, Any], game_id: str) -> BaseResponse:
    """Read a game's history.

    The ordered events, each with the version it produced, paged by version. A seat sees its
    own private events (its dealt hand, its face-down draws) and everyone's public ones; a
    spectator only public ones. Once the match is over everything is shown, with `reveal`.
    """
    check_version_bound("after", query["after"], games().settings.max_versions)
    game = games().repository.load(game_id)
    seat = game.viewer(bearer_token())
    up_to = min(query["after"] + query["limit"], game.version)
    events = seen_events(games(), game, seat, query["after"], up_to)
    history = {
        "id": game.id,
        "ruleset": game.ruleset.id,
        "options": game.options,
        "seed_commitment": game.seed_commitment,
        "version": game.version,
        "status": game.status,
        "events": events,
        "next_after": up_to if up_to < game.version else None,
        "reveal": reveal(game),
    }
    # sent as built: the events already have the schema's shape (tests/test_schemas_mirror_engine.py
    # holds every event to it), and dumping a long match through marshmallow took most of the time
    return private(current_app.json.response(history), game.version)
