"""The typed shapes of what the engine hands out: TypedDicts whose fields carry their JSON type
and their description (``Annotated[int, "The declarer"]``), so that each shape is written once
and the service generates its schemas and its OpenAPI document from it.

A card code is :data:`CardCode` and a suit code :data:`SuitCode`: strings the schemas check
against the engine's own codes.
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple, TypedDict


class Code(NamedTuple):
    """Marks a string as a code of the engine's: ``"card"`` or ``"suit"``."""

    kind: str


CardCode = Annotated[str, Code("card")]
SuitCode = Annotated[str, Code("suit")]
#: an action object, as ``Action.to_json`` gives it
ActionObject = Annotated[dict[str, Any], Code("action")]
#: display names: ``{"en": ..., "tr": ...}``
NamesObject = Annotated[dict[str, str], Code("names")]


class TrickCard(TypedDict):
    seat: int
    card: CardCode


class TrickView(TypedDict):
    """A trick: who led it, its cards in play order, and its winner once complete."""

    leader: int
    cards: Annotated[list[TrickCard], "In play order"]
    winner: int | None


class BaseView(TypedDict):
    """What every view has; each ruleset's view adds its own table (and its ``last_deal``)."""

    seat: Annotated[int | None, "The viewer's seat; null for a spectator"]
    status: Annotated[str, "`active` while the match goes on"]
    to_act: Annotated[list[int], "The seat that may act now (one at a time; none once the match is over)"]
    legal_actions: Annotated[list[ActionObject], "Exactly what the viewer may post now; empty when it must wait"]
    scores: Annotated[list[int], "Match totals (one entry per seat, in seat order)"]
    winners: Annotated[list[int], "The winning seats once finished; empty before (and for a drawn match)"]
    deal: Annotated[int, "The current deal, from 1"]
    dealer: int
