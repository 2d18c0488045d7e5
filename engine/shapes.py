"""The typed shapes of what the engine hands out: TypedDicts whose fields carry their JSON type
and their description (``Annotated[int, "The declarer"]``), so that each shape is written once
and the service generates its schemas and its OpenAPI document from it.

A card code is :data:`CardCode` and a suit code :data:`SuitCode`: strings the schemas check
against the engine's own codes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NamedTuple, NotRequired, TypedDict


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


class Dealt(TypedDict):
    """One deal exactly as dealt, in the reveal at the end of a match."""

    dealer: int
    hands: Annotated[list[list[CardCode]], "Each seat's hand as dealt"]
    stock: Annotated[list[CardCode], "The cards not dealt, in drawing order (each ruleset's ``stock_order`` says how)"]
    trump_card: CardCode | None


# --- the events every trick-taking game gives (each game's own are in its module) ------------


class DealtEvent(TypedDict):
    """A hand was dealt to a seat."""

    type: Literal["dealt"]
    seat: int
    count: Annotated[int, "Cards dealt"]
    hand: NotRequired[Annotated[list[CardCode], "The cards dealt: only for that seat until the match is over"]]


class TrickEvent(TypedDict):
    """A trick was completed."""

    type: Literal["trick"]
    number: Annotated[int, "The trick's number in the deal, from 1"]
    leader: int
    cards: Annotated[list[TrickCard], "In play order"]
    winner: int | None
    phase: NotRequired[Annotated[int, "The phase the trick was played in, in a game with a stock or talon"]]


class TakeEvent(TypedDict):
    """A seat took a face-up card into its hand."""

    type: Literal["take"]
    seat: int
    card: CardCode


class DrawEvent(TypedDict):
    """A seat drew a face-down card."""

    type: Literal["draw"]
    seat: int
    card: NotRequired[Annotated[CardCode, "Only for the drawer until the match is over"]]
    talon_size: NotRequired[Annotated[int, "Face-down cards left in the talon, in a game with a talon"]]


class MatchResultEvent(TypedDict):
    """The match is over."""

    type: Literal["match_result"]
    winners: Annotated[list[int], "The winning seats; empty for a drawn match"]
    scores: Annotated[list[int], "Match totals (one entry per seat, in seat order)"]


#: the events :class:`~engine.ruleset.TrickTaking` gives for every game
COMMON_EVENTS: tuple[type, ...] = (DealtEvent, TrickEvent, MatchResultEvent)
