"""The typed shapes of what the engine hands out: TypedDicts whose fields carry their JSON type
and their description (``Annotated[int, "The declarer"]``), so that each shape is written once
and the service generates its schemas and its OpenAPI document from it.

A card code is :data:`CardCode` and a suit code :data:`SuitCode`: strings the schemas check
against the engine's own codes.
"""

from __future__ import annotations

from typing import Annotated, NamedTuple


class Code(NamedTuple):
    """Marks a string as a code of the engine's: ``"card"`` or ``"suit"``."""

    kind: str


CardCode = Annotated[str, Code("card")]
SuitCode = Annotated[str, Code("suit")]
