"""``/v1/games/{id}/hint``: what the expert would do in the caller's seat."""

from __future__ import annotations

from marshmallow import Schema, fields

from engine.players import strongest_level

from ..api import SEAT_TOKEN_REQUIRED, Blueprint, bearer_token
from ..errors import TURN_REFUSAL_CODES
from ..schemas import ActionSchema
from .games import private_headers, tables

blp = Blueprint("hints", __name__, url_prefix="/v1/games", description="Ask the computer for advice")


class HintSchema(Schema):
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={"description": "The version the hint was worked out for"})
    level = fields.String(required=True, metadata={"description": "The computer level that decided"})
    action = fields.Nested(ActionSchema, required=True, metadata={"description": "One of the seat's legal actions, to post as it is"})


@blp.route("/<game_id>/hint", operation_id="getHint")
@blp.response(200, HintSchema)
@blp.problems(
    {
        401: ["missing_token", "invalid_token"],
        404: ["unknown_game"],
        410: ["game_unreadable"],
        409: [*TURN_REFUSAL_CODES, "seat_left"],
    }
)
@blp.doc(security=SEAT_TOKEN_REQUIRED)
def get_hint(game_id: str):
    """Ask for a hint.

    The choice of the strongest computer player the game has (the expert, in a game with
    computer strategies) for the caller's seat, decided from that seat's information only (its
    view and the history it has seen), within the same time bounds as a computer seat's move.
    Only for a seat that may act now.
    """
    table, seat, action = tables().hint(game_id, bearer_token())
    hint = {"seat": seat, "version": table.version, "level": strongest_level(table.ruleset.id), "action": action.to_json()}
    return hint, 200, private_headers(table.version)
