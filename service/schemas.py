"""Schemas shared by several resources: cards, actions, names, seats and game options.

Options are generated from the engine's option specifications, so the documentation follows the
registry; their values are validated by the engine, whose refusals name the option and its
allowed values.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import typing
from dataclasses import MISSING
from typing import Any, Mapping

import marshmallow as ma
from apispec import APISpec
from marshmallow import fields, validate

from engine import registry
from engine.actions import KINDS, Action
from engine.cards import CARD_PATTERN, EXAMPLE_CODES, Card, Suit
from engine.players import level_names

from .texts import TURKISH_FIELD_MESSAGES, FieldMessage

SUITS = [suit.value for suit in Suit]


class RequestSchema(ma.Schema):
    """A schema of what a client sends: each message its fields, their validators and the schema
    itself may give is a :class:`~service.texts.FieldMessage`, marshmallow's English with its
    Turkish, so a problem can list them in the language of the request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        defaults = ma.Schema._default_error_messages
        self.error_messages = {
            key: _spoken(message, f"Schema.{key}") if message == defaults.get(key) else message
            for key, message in self.error_messages.items()
        }

    def on_bind_field(self, field_name: str, field_obj: fields.Field[Any]) -> None:
        _speak(field_obj)


def _speak(field: fields.Field[Any]) -> None:
    """Give a field (a copy bound to one schema), its validators and its inner fields their
    messages in every language; a message marshmallow has no Turkish for here fails loudly."""
    field.error_messages = {key: _field_message(type(field), key, message) for key, message in field.error_messages.items()}
    field.validators = [_spoken_validator(validator) for validator in field.validators]
    for inner in (getattr(field, "inner", None), getattr(field, "key_field", None), getattr(field, "value_field", None)):
        if isinstance(inner, fields.Field):
            _speak(inner)


def _spoken(english: str, key: str) -> FieldMessage:
    return FieldMessage({"en": english, "tr": TURKISH_FIELD_MESSAGES[key]})


def _field_message(field_class: type, key: str, message: Any) -> Any:
    """A field's message by its key, in every language, found under the class that defines it
    (the message stays as it is when it is already spoken, or not marshmallow's)."""
    owner: Any = next(owner for owner in field_class.__mro__ if key in vars(owner).get("default_error_messages", {}))
    if isinstance(message, FieldMessage) or message != owner.default_error_messages[key]:
        return message
    return _spoken(message, f"{owner.__name__}.{key}")


#: the attributes holding each validator's messages, by the validator class that defines them
VALIDATOR_MESSAGES: dict[type, tuple[str, ...]] = {
    validate.Range: ("message_min", "message_max", "message_all"),
    validate.Length: ("message_min", "message_max", "message_all", "message_equal"),
    validate.OneOf: ("error",),
    validate.Equal: ("error",),
    validate.Regexp: ("error",),
}


def _spoken_validator(validator: Any) -> Any:
    """A copy of a marshmallow validator whose messages are spoken (a function validator raises
    its own messages, and so does a validator given an ``error`` of its own)."""
    if not isinstance(validator, validate.Validator):
        return validator
    owner: Any = next((owner for owner in type(validator).__mro__ if owner in VALIDATOR_MESSAGES), None)
    if owner is None:
        raise TypeError(f"no Turkish messages for the validator {validator!r}")
    if isinstance(validator, validate.Range) and not (validator.min_inclusive and validator.max_inclusive):
        raise TypeError(f"the Turkish messages of a Range say its bounds are included: {validator!r}")
    if validator.error not in (None, getattr(owner, "default_message", None)):
        return validator
    spoken = copy.copy(validator)
    for attribute in VALIDATOR_MESSAGES[owner]:
        setattr(spoken, attribute, _spoken(getattr(validator, attribute), f"{owner.__name__}.{attribute}"))
    return spoken


def card_field(**kwargs: Any) -> fields.String:
    """A card code: rank then suit, as the engine writes it (:data:`engine.cards.CARD_PATTERN`)."""
    first, second = EXAMPLE_CODES
    metadata = {"description": f"A card code: rank then suit, such as `{first}` or `{second}`", "example": first}
    metadata.update(kwargs.pop("metadata", {}))
    return fields.String(validate=validate.Regexp(CARD_PATTERN), metadata=metadata, **kwargs)


def cards_field(description: str, **kwargs: Any) -> fields.List[Any]:
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


class StrictFloat(fields.Float):
    """A JSON number, and nothing that merely looks like one (``"5"``, ``true``)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


def _action_field(name: str, annotation: Any, required: bool, description: str) -> fields.Field[Any]:
    """The field of an action's attribute, from its type in the engine's action class."""
    kwargs: dict[str, Any] = {"required": required, "metadata": {"description": description}}
    if annotation is Card:
        return card_field(**kwargs)
    if annotation is Suit:
        return suit_field(**kwargs)
    if annotation is bool:
        return StrictBoolean(**kwargs)
    if annotation is int:  # a JSON integer: not 8.9 read as 8, nor "8"
        return fields.Integer(strict=True, **kwargs)
    raise TypeError(f"no schema field for the action field {name!r} of type {annotation!r}")


def _kind_schema(kind: type[Action]) -> type[ma.Schema]:
    """The schema of one kind of action, generated from its engine class: each field typed, the
    ones without a default required, nothing else accepted."""
    hints = typing.get_type_hints(kind)
    attributes: dict[str, Any] = {
        "type": fields.String(required=True, validate=validate.Equal(kind.type), metadata={"enum": [kind.type]}),
        **{
            spec.name: _action_field(spec.name, hints[spec.name], spec.default is MISSING, spec.metadata.get("description", ""))
            for spec in dataclasses.fields(kind)
        },
        "Meta": type("Meta", (), {"ordered": True, "unknown": ma.RAISE}),
    }
    schema = type(f"{kind.__name__}ActionSchema", (RequestSchema,), attributes)
    schema.__doc__ = kind.__doc__
    return schema


#: the schema of each kind of action, by its type
ACTION_SCHEMAS: dict[str, type[ma.Schema]] = {kind_type: _kind_schema(kind) for kind_type, kind in KINDS.items()}
#: ... and one instance of each, to load and dump actions with
KIND_SCHEMAS: dict[str, ma.Schema] = {kind_type: schema() for kind_type, schema in ACTION_SCHEMAS.items()}


class ActionSchema(RequestSchema):
    """One action: an object whose `type` says which fields it takes. A client may post back any
    member of its view's `legal_actions` verbatim. Documented as one schema per type (see
    :func:`document_actions`), and loaded and dumped by the schema of its type."""

    type = fields.String(required=True, validate=validate.OneOf(list(KINDS)))

    def _kind(self, data: Any) -> ma.Schema:
        """The schema of the action's type, refusing what is no action with the messages its
        ``type`` field gives."""
        if not isinstance(data, Mapping):
            raise ma.ValidationError([self.error_messages["type"]])
        try:
            kind = self.fields["type"].deserialize(data.get("type", ma.missing))
        except ma.ValidationError as error:
            raise ma.ValidationError({"type": error.messages}) from error
        return KIND_SCHEMAS[str(kind)]

    def _do_load(self, data: Any, *, many: bool | None = None, partial: Any = None, unknown: Any = None, postprocess: bool = True) -> Any:
        if many or (many is None and self.many):
            if not isinstance(data, list):
                raise ma.ValidationError([self.error_messages["type"]])
            return [self._do_load(item, many=False, partial=partial, unknown=unknown, postprocess=postprocess) for item in data]
        # a missing or an extra field goes on to the engine, which refuses it as `malformed_action`
        return self._kind(data).load(data, partial=True, unknown=ma.INCLUDE)

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        if many or (many is None and self.many):
            return [self.dump(item, many=False) for item in obj]
        return self._kind(obj).dump(obj)


def document_actions(spec: APISpec) -> None:
    """Document ``Action`` as one schema per type, told apart by ``type``: each kind with the
    fields it requires, so a generated client cannot build ``{"type": "bid"}`` without a value."""
    mapping = {}
    for kind_type, schema in ACTION_SCHEMAS.items():
        name = schema.__name__.removesuffix("Schema")
        spec.components.schema(name, schema=schema)
        # what the action does and what it may cost, from the engine's own words
        spec.components.schemas[name]["description"] = " ".join((schema.__doc__ or "").split())
        mapping[kind_type] = f"#/components/schemas/{name}"
    spec.components.schemas["Action"] = {
        "description": " ".join((ActionSchema.__doc__ or "").split("Documented as")[0].split()),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


#: the document's enum of computer levels, which every field naming a level refers to


def sides_field() -> fields.List[Any]:
    """Who plays with whom, as the ruleset says: a frontend reads partners here, not from a game's own fields."""
    return fields.List(
        fields.List(fields.Integer()),
        required=True,
        metadata={
            "description": "The seats of each side (team), every seat in one: `[[0, 2], [1, 3]]` for two partnerships, "
            "`[[0], [1]]` when each seat plays for itself"
        },
    )


LEVEL_COMPONENT = "LevelName"


def document_levels(spec: APISpec) -> None:
    """Document the computer levels as one enum, so that a generated client has one type of them."""
    spec.components.schema(
        LEVEL_COMPONENT,
        {"type": "string", "enum": level_names(), "description": "A computer level; the catalog lists each ruleset's, weakest first"},
    )


class SeatSchema(ma.Schema):
    index = fields.Integer(required=True)
    label = fields.Nested(NamesSchema, required=True, metadata={"description": "The seat's label, e.g. South / Güney"})
    name = fields.String(required=True, allow_none=True)
    bot = fields.String(required=True, allow_none=True, metadata={"description": "The computer level, or null for a human"})
    human = fields.Boolean(required=True, metadata={"description": "Played by a person now (false for a computer, and for a seat that left)"})
    open = fields.Boolean(required=True, metadata={"description": "Waiting for someone to take it"})
    left = fields.Boolean(required=True, metadata={"description": "Its player left it to the computer `bot`; the seat's token can take it back"})


def _option_property(option: Any) -> dict[str, Any]:
    """One option as JSON Schema: typed and bounded, with no ``default`` (the server fills in an
    absent option, so a generated client need not send one)."""
    prop: dict[str, Any] = {
        "type": option.type,
        "description": f"{option.description['en']} Absent: {json.dumps(option.default)}.",
    }
    if option.allowed is not None:
        prop["enum"] = list(option.allowed)
    for bound in ("minimum", "maximum"):
        if getattr(option, bound) is not None:
            prop[bound] = getattr(option, bound)
    return prop


def options_component(ruleset: Any) -> str:
    """The name of a ruleset's options in the document: its id in camel case, then ``Options``."""
    return "".join(part.capitalize() for part in ruleset.id.replace("_", "-").split("-")) + "Options"


def options_schema() -> type[ma.Schema]:
    """Every ruleset's options, for loading: each passes through to the engine, which validates
    it and refuses an unknown one naming the known ones. Documented per ruleset (see
    :func:`document_options`)."""
    codes = {option.code for ruleset in registry.all_rulesets() for option in ruleset.options}
    attributes: dict[str, Any] = {code: fields.Raw() for code in sorted(codes)}
    attributes["Meta"] = type("Meta", (), {"unknown": ma.INCLUDE})
    return type("GameOptionsSchema", (RequestSchema,), attributes)


GameOptionsSchema = options_schema()


def document_options(spec: APISpec) -> None:
    """Document each ruleset's options as its own schema (every schema with options names its
    ruleset's, see ``document_rulesets_apart``), in place of the loader's ``GameOptions``."""
    for ruleset in registry.all_rulesets():
        name = options_component(ruleset)
        spec.components.schema(
            name,
            {
                "type": "object",
                "description": f"The options of {ruleset.id}; an absent one takes the value the catalog lists as its default",
                "properties": {option.code: _option_property(option) for option in ruleset.options},
                "additionalProperties": False,
            },
        )


def document_request_defaults(spec: APISpec) -> None:
    """Say a request field's default in its description ("Absent: false."), not as `default`:
    the server fills it in, while generated clients resend a documented default
    (openapi-python-client) or make the field required (openapi-typescript), as with options."""
    schemas = spec.components.schemas
    pending = [operation["requestBody"] for operations in spec._paths.values() for operation in operations.values() if "requestBody" in operation]
    reached: set[str] = set()
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] not in reached:
                reached.add(ref.rsplit("/", 1)[1])
                pending.append(schemas[ref.rsplit("/", 1)[1]])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    for name in sorted(reached):
        for prop in schemas[name].get("properties", {}).values():
            if "default" in prop:
                default = prop.pop("default")
                if default is not None:  # an absent nullable field is null: its description says what that means
                    prop["description"] = f"{prop['description'].rstrip('.')}. Absent: {json.dumps(default)}."
