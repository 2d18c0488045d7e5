"""The schemas of ``/v1/games``: creating a game, a game's view (one schema per ruleset, told apart
by ``ruleset``), the long-poll's query and the lobby; and how the document shows them per ruleset."""

from __future__ import annotations

from functools import cache
from typing import Any, Callable, Mapping

from apispec import APISpec

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine import registry
from engine.players import level_names
from engine.ruleset import Ruleset

from ..edge import Name
from ..schemas import LEVEL_COMPONENT, GameOptionsSchema, RequestSchema, SeatSchema, StrictBoolean, options_component, sides_field
from ..shapes import schema_of
from ..texts import FIELD_MESSAGES, FieldMessage


STATUSES = ["waiting", "active", "finished", "forfeited", "abandoned"]
STATUS_DESCRIPTION = (
    "`waiting` while a seat is open (nobody acts until every seat is taken); "
    "`finished` when the match ended by its rules; `forfeited` when a seat let its turn clock run out "
    "under `on_timeout: \"forfeit\"` (its side lost: `winners` are the others); `abandoned` when it ran past the service's cap on a "
    "match's length (deals or versions): it ends with no winner"
)


# --- creating ----------------------------------------------------------------------------------


class Seed(fields.Field[str]):
    """A seed: any string (1 to 128 characters) or integer; integers are used as their decimal text."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValidationError(FieldMessage(FIELD_MESSAGES["seed_type"]))
        text = str(value)
        if not 1 <= len(text) <= 128:
            raise ValidationError(FieldMessage(FIELD_MESSAGES["seed_length"]))
        return text


class SeatSpecSchema(RequestSchema):
    name = Name(
        validate=validate.Length(min=1, max=40),
        allow_none=True,
        metadata={"example": "Ayşe", "description": "1 to 40 characters (after NFC normalization and trimming); no control characters"},
    )
    bot = fields.String(
        allow_none=True,
        # an unknown level is refused as unknown_level, naming the ruleset's levels
        metadata={
            "description": "A computer level (see the catalog's `levels`); absent or null for a human seat",
            "enum": level_names() + [None],
            "component": LEVEL_COMPONENT,
        },
    )
    open = StrictBoolean(
        load_default=False,
        metadata={"description": "A human seat left for someone to take with `POST /v1/games/{id}/seats/{seat}`; the game waits until it is taken"},
    )

    @validates_schema
    def one_form(self, data: dict[str, Any], **_: Any) -> None:
        """A seat is a person (``name``), a computer (``bot``) or open (``open: true``): exactly one."""
        forms = [form for form in ("name", "bot") if data.get(form) is not None] + (["open"] if data.get("open") else [])
        if forms == ["bot", "open"]:
            return  # refused with the seats as a whole (invalid_seats), as it always was
        if not forms:
            raise ValidationError(FieldMessage(FIELD_MESSAGES["seat_without_form"]))
        if len(forms) > 1:
            raise ValidationError(FieldMessage(FIELD_MESSAGES["seat_with_forms"]), field_name=forms[1])


class ClockSchema(RequestSchema):
    seconds_per_action = fields.Integer(
        strict=True,
        required=True, validate=validate.Range(min=1, max=86400), metadata={"description": "Seconds each action may take"}
    )
    bank = fields.Integer(
        strict=True,
        load_default=0,
        validate=validate.Range(min=0, max=86400),
        metadata={"description": "Seconds each seat may spend beyond `seconds_per_action`, over the whole match"},
    )
    on_timeout = fields.String(
        load_default="computer",
        validate=validate.OneOf(["computer", "forfeit"]),
        metadata={
            "description": "When a seat's deadline passes: `computer` (the basic computer plays that one action) "
            "or `forfeit` (the seat's side loses the match)"
        },
    )


class ClockViewSchema(ClockSchema):
    deadlines = fields.List(
        fields.String(allow_none=True),
        required=True,
        metadata={"description": "When each seat to act times out (ISO 8601, UTC), null for the others (one entry per seat)"},
    )
    banks = fields.List(fields.Float(), required=True, metadata={"description": "Each seat's bank left, in seconds"})


class GameCreateSchema(RequestSchema):
    ruleset = fields.String(
        required=True,
        metadata={"description": "A ruleset id from the catalog", "enum": [ruleset.id for ruleset in registry.all_rulesets()]},
    )
    options = fields.Nested(GameOptionsSchema, metadata={"description": "Options of the ruleset; absent ones take their default"})
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        # the count each ruleset takes is refused as invalid_seats, and documented per ruleset
        validate=validate.Length(min=1, max=max(ruleset.seat_count for ruleset in registry.all_rulesets())),
        metadata={
            "description": "One entry per seat in play order: a human (`{\"name\": ...}`) or a computer "
            "(`{\"bot\": \"random\"}`). Absent: the standard table against the computer."
        },
    )
    seed = Seed(
        metadata={
            "oneOf": [{"type": "string", "minLength": 1, "maxLength": 128}, {"type": "integer"}],
            "description": "A seed for a reproducible deal; absent, one is drawn from a secure source "
            "and revealed only when the match is over. A game with a seed of the client's is marked "
            "`seed_source: \"client\"` (its creator could know every hand) and is never listed in the lobby",
        }
    )
    clock = fields.Nested(ClockSchema, metadata={"description": "A turn clock for the human seats; absent: untimed"})
    private = StrictBoolean(
        load_default=False,
        metadata={"description": "Open seats are taken with a join code (one per open seat, returned once); the game is not listed in the lobby"},
    )


def _description(prop: dict[str, Any]) -> dict[str, Any]:
    return {"description": prop["description"]} if "description" in prop else {}


def document_per_ruleset(
    spec: APISpec, component: str, description: str, own: Callable[[Ruleset[Any]], dict[str, dict[str, Any]]] = lambda ruleset: {}
) -> None:
    """Document a schema that carries a game's `ruleset` and `options` as one schema per ruleset
    (the ruleset's name before the schema's), told apart by ``ruleset``, each with that
    ruleset's options: a generated client then builds and reads whole objects of one ruleset
    (with one schema of every ruleset's options, it read one game's options as the first
    ruleset's). ``own(ruleset)`` gives what a ruleset adds to each property, by property."""
    common = spec.components.schemas[component]
    mapping = {}
    for ruleset in registry.all_rulesets():
        properties = dict(common["properties"])
        properties["ruleset"] = {**_description(properties["ruleset"]), "const": ruleset.id, "type": "string"}
        properties["options"] = {**_description(properties["options"]), "$ref": f"#/components/schemas/{options_component(ruleset)}"}
        for name, additions in own(ruleset).items():
            properties[name] = {**properties[name], **additions}
        name = options_component(ruleset).removesuffix("Options") + component
        spec.components.schema(name, {**common, "properties": properties})
        mapping[ruleset.id] = f"#/components/schemas/{name}"
    spec.components.schemas[component] = {
        "description": description,
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "ruleset", "mapping": mapping},
    }


def document_rulesets_apart(spec: APISpec) -> None:
    """Every schema with a game's options, one per ruleset: the request that creates a game (with
    the ruleset's seat count: marshmallow cannot say that one field's bounds depend on another's
    value), the answer to it, the lobby's games and the history."""
    # a documentation tool samples a seat with every field set (a computer and open at once, which
    # is refused) unless the schema gives one whole seat to show
    spec.components.schemas["SeatSpec"]["example"] = {"name": "Ayşe"}
    document_per_ruleset(
        spec,
        "GameCreate",
        "A new game of one ruleset, told apart by `ruleset`",
        lambda ruleset: {"seats": {"minItems": ruleset.seat_count, "maxItems": ruleset.seat_count}},
    )
    document_per_ruleset(spec, "GameCreated", "The game created, with its tokens; its `ruleset` tells which options it has")
    document_per_ruleset(spec, "LobbyGame", "A game waiting for a player; its `ruleset` tells which options it has")
    document_per_ruleset(spec, "History", "A game's history; its `ruleset` tells which options it has")
    del spec.components.schemas["GameOptions"]  # named by none of them now


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "The seat's secret: `Authorization: Bearer <token>`"})


class JoinCodeSchema(Schema):
    seat = fields.Integer(required=True)
    code = fields.String(
        required=True,
        metadata={"description": "Pass it on with the invitation: `POST /v1/games/{id}/seats/{seat}` with `{\"code\": ...}`"},
    )


class GameCreatedSchema(Schema):
    id = fields.String(required=True)
    ruleset = fields.String(required=True)
    options = fields.Nested(GameOptionsSchema, required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"description": STATUS_DESCRIPTION})
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    tokens = fields.List(
        fields.Nested(SeatTokenSchema),
        required=True,
        metadata={"description": "The tokens of the human seats (not the open ones). Shown only here, once: keep them"},
    )
    join_codes = fields.List(
        fields.Nested(JoinCodeSchema),
        required=True,
        metadata={"description": "A private game's join codes, one per open seat (empty otherwise). Shown only here, once"},
    )
    seed_commitment = fields.String(required=True, metadata={"description": "SHA-256 (hex) of the seed"})
    seed_source = fields.String(required=True, validate=validate.OneOf(["server", "client"]))


# --- seeing ------------------------------------------------------------------------------------


class ViewFrameSchema(Schema):
    """The service's part of every view: the game, its version, its status and its seats."""

    id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "Increments with every change (an action, a seat taken or left); also the ETag"})
    seed_commitment = fields.String(
        required=True,
        metadata={"description": "SHA-256 (hex) of the seed, shown from the start; the history's `reveal` shows the seed once the match is over"},
    )
    seed_source = fields.String(
        required=True,
        validate=validate.OneOf(["server", "client", "unknown"]),
        metadata={
            "description": "`server`: drawn by the server, secret until the end; `client`: chosen by the game's creator, "
            "who could know every hand; `unknown`: a game stored before this was kept"
        },
    )
    rematch = fields.String(required=True, allow_none=True, metadata={"description": "The id of the next match, once a seat asked for one"})
    clock = fields.Nested(ClockViewSchema, required=True, allow_none=True, metadata={"description": "The turn clock; null for an untimed game"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"description": STATUS_DESCRIPTION})
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    sides = sides_field()


def view_component(ruleset: Ruleset[Any]) -> str:
    """The name of a ruleset's view in the document: its id in camel case, then ``View``."""
    return options_component(ruleset).removesuffix("Options") + "View"


@cache
def ruleset_view_schema(ruleset: Ruleset[Any]) -> type[Schema]:
    """A ruleset's view: the service's frame around the engine's typed view of that ruleset."""
    attributes: dict[str, Any] = {
        "ruleset": fields.String(required=True, validate=validate.Equal(ruleset.id), metadata={"enum": [ruleset.id]}),
        # options as the server filled them in, all of them: the ruleset's options schema
        "options": fields.Raw(required=True),  # documented as the ruleset's options (see document_views)
        **ViewFrameSchema._declared_fields,
    }
    return type(f"{view_component(ruleset)}Schema", (schema_of(ruleset.view_type),), attributes)


class GameViewSchema(Schema):
    """A game as one seat (or a spectator) may see it: its ruleset's view, told apart by
    `ruleset`. Documented as one schema per ruleset (see :func:`document_views`)."""

    ruleset = fields.String(required=True)

    @staticmethod
    def _own(view: Any) -> Schema:
        ruleset_id = view.get("ruleset") if isinstance(view, dict) else None
        if ruleset_id not in {ruleset.id for ruleset in registry.all_rulesets()}:
            raise ValidationError({"ruleset": ["Not a known ruleset."]})
        return ruleset_view_schema(registry.get(ruleset_id))()

    def _do_load(self, data: Any, *, many: bool | None = None, partial: Any = None, unknown: Any = None, postprocess: bool = True) -> Any:
        return self._own(data).load(data, partial=partial, unknown=unknown)

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        if many or (many is None and self.many):
            return [self.dump(item, many=False) for item in obj]
        return self._own(obj).dump(obj)


def document_views(spec: APISpec) -> None:
    """Document ``GameView`` as one of each ruleset's views, told apart by ``ruleset``."""
    mapping = {}
    for ruleset in registry.all_rulesets():
        spec.components.schema(view_component(ruleset), schema=ruleset_view_schema(ruleset))
        # options as the server filled them in, all of them: the ruleset's options schema
        spec.components.schemas[view_component(ruleset)]["properties"]["options"] = {
            "$ref": f"#/components/schemas/{options_component(ruleset)}"
        }
        mapping[ruleset.id] = f"#/components/schemas/{view_component(ruleset)}"
    spec.components.schemas["GameView"] = {
        "description": " ".join((GameViewSchema.__doc__ or "").split("Documented as")[0].split()),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "ruleset", "mapping": mapping},
    }


class ViewQuerySchema(RequestSchema):
    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=300),
        metadata={"description": "Long-poll: hold the answer up to this many seconds (capped by the server) until `version` passes `after`"},
    )
    after = fields.Integer(
        validate=validate.Range(min=-1),
        metadata={"description": "Long-poll: the version the client already has; later than the server's cap on versions (`KOZ_MAX_VERSIONS`): 400"},
    )


class ActionQuerySchema(RequestSchema):
    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=300),
        metadata={
            "description": "Hold the answer up to this many seconds (capped by the server) when the action leaves the seat nothing to do "
            "while the game goes on: it answers once the seat is to act again or the game is over (the action and the long-polls "
            "for the seat's next turn in one request)"
        },
    )


# --- the lobby ---------------------------------------------------------------------------------


class LobbyQuerySchema(RequestSchema):
    status = fields.String(
        load_default="waiting",
        validate=validate.OneOf(["waiting"]),
        metadata={"description": "`waiting`: games with an open seat (the only listing there is, and the default)"},
    )
    ruleset = fields.String(
        validate=validate.OneOf([ruleset.id for ruleset in registry.all_rulesets()]), metadata={"description": "Only games of this ruleset"}
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100), metadata={"description": "Games per page"})
    before = fields.Float(metadata={"description": "The `next_before` of the page before"})


class LobbyGameSchema(Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    ruleset = fields.String(required=True)
    options = fields.Nested(GameOptionsSchema, required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    open_seats = fields.List(fields.Integer(), required=True, metadata={"description": "Take one with `POST /v1/games/{id}/seats/{seat}`"})
    seed_commitment = fields.String(required=True)
    seed_source = fields.String(required=True, metadata={"description": "Always `server`: a game with a client's seed is never listed"})
    created_at = fields.String(required=True)


class LobbySchema(Schema):
    games = fields.List(fields.Nested(LobbyGameSchema), required=True)
    next_before = fields.Float(required=True, allow_none=True, metadata={"description": "Pass as `before` for the next page; null on the last"})
