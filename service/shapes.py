"""Marshmallow schemas generated from the engine's typed shapes (:mod:`engine.shapes`), so that
what the engine hands out is declared once and the OpenAPI document follows it."""

from __future__ import annotations

import types
import typing
from functools import cache
from typing import Annotated, Any, Literal, NotRequired, Union, get_args, get_origin, is_typeddict

import marshmallow as ma
from marshmallow import fields, validate

from engine.shapes import Code

from .schemas import ActionSchema, NamesSchema, StrictBoolean, card_field, suit_field


@cache
def schema_of(shape: type) -> type[ma.Schema]:
    """The schema of a TypedDict: each key typed and described, the required ones required,
    nothing else allowed. Documented under the TypedDict's name."""
    hints = typing.get_type_hints(shape, include_extras=True)
    # ``NotRequired[...]`` read from the hint: with postponed annotations ``__required_keys__`` misses it
    attributes: dict[str, Any] = {
        name: field_of(get_args(hint)[0], required=False) if get_origin(hint) is NotRequired else field_of(hint, required=True)
        for name, hint in hints.items()
    }
    attributes["Meta"] = type("Meta", (), {"ordered": True})
    schema = type(f"{shape.__name__}Schema", (ma.Schema,), attributes)
    schema.__doc__ = shape.__doc__
    return schema


def field_of(hint: Any, description: str | None = None, code: str | None = None, **kwargs: Any) -> fields.Field[Any]:
    """The field of one annotation: ``int``, ``bool``, ``str``, a code, ``Literal[...]``, a list,
    a TypedDict, or any of them ``| None``; ``Annotated`` adds its description or code."""
    while get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, str):
                description = description or extra
            elif isinstance(extra, Code):
                code = extra.kind
    if get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint):
        (hint,) = [arg for arg in get_args(hint) if arg is not type(None)]
        return field_of(hint, description, code, allow_none=True, **kwargs)
    metadata = {"description": description} if description else {}
    if code == "card":
        return card_field(metadata=metadata, **kwargs)
    if code == "suit":
        return suit_field(metadata=metadata, **kwargs)
    if code in NESTED:
        return fields.Nested(NESTED[code], metadata=metadata, **kwargs)
    if get_origin(hint) is list:
        return fields.List(field_of(get_args(hint)[0]), metadata=metadata, **kwargs)
    if get_origin(hint) is Literal:
        return fields.String(validate=validate.OneOf(get_args(hint)), metadata=metadata, **kwargs)
    if is_typeddict(hint):
        return fields.Nested(schema_of(hint), metadata=metadata, **kwargs)
    simple: dict[Any, type[fields.Field[Any]]] = {bool: StrictBoolean, int: fields.Integer, str: fields.String}
    if hint in simple:
        return simple[hint](metadata=metadata, **kwargs)
    raise TypeError(f"no schema field for {hint!r}")


#: the service's own schemas of the engine's coded objects
NESTED: dict[str, type[ma.Schema]] = {"action": ActionSchema, "names": NamesSchema}
