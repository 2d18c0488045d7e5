"""``/v1/games/{id}/seats``, ``leave`` and ``rematch``: people sitting down at a game, getting up, and playing again."""

from __future__ import annotations

from typing import Any

from werkzeug.sansio.response import Response as BaseResponse
from flask import url_for
from marshmallow import Schema, fields, validate

from engine.players import level_names

from ..api import SEAT_TOKEN_OPTIONAL, SEAT_TOKEN_REQUIRED, STORE_UNAVAILABLE_OR_FULL, Blueprint, bearer_token, header_parameter
from ..edge import Name
from ..game import Game
from ..schemas import LEVEL_COMPONENT, RequestSchema
from .actions import MAX_KEY_LENGTH, idempotency_key
from .game_schemas import GameViewSchema
from .games import ETAG_HEADER, games, view_response

blp = Blueprint("seats", __name__, url_prefix="/v1/games", description="Take a seat, leave it, play again")

TAKE_SEAT_KEY = header_parameter(
    "Idempotency-Key",
    "Asking again with the same key answers the same seat and token (use a random key: whoever sends it again gets the token)",
    minLength=1,
    maxLength=MAX_KEY_LENGTH,
)


class TakeSeatSchema(RequestSchema):
    name = Name(validate=validate.Length(min=1, max=40), allow_none=True, metadata={"example": "Bora", "description": "The name shown at the table"})
    code = fields.String(validate=validate.Length(max=100), metadata={"description": "The seat's join code, in a private game"})


class SeatTakenSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The game's id"})
    seat = fields.Integer(required=True)
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The seat's secret (`Authorization: Bearer <token>`), shown only here, once; null when a token took back its own seat"
        },
    )
    view = fields.Nested(GameViewSchema, required=True, metadata={"description": "The game as the seat sees it now"})


class LeaveSchema(RequestSchema):
    level = fields.String(
        load_default=None,
        validate=validate.OneOf(level_names()),
        metadata={
            "description": "The computer level that plays the seat from now on (one of the ruleset's); absent: its standard level",
            "component": LEVEL_COMPONENT,
        },
    )


def seat_taken(game: Game, seat: int, token: str | None) -> dict[str, Any]:
    return {"id": game.id, "seat": seat, "token": token, "view": game.view(seat)}


@blp.route("/<game_id>/seats/<int(signed=True):seat>", methods=["POST"], operation_id="takeSeat")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.arguments(TakeSeatSchema, required=False)
@blp.response(200, SeatTakenSchema)
@blp.problems(
    {
        400: ["invalid_request", "malformed_json", "json_too_deep", "number_too_large", "invalid_text"],
        401: ["invalid_token"],
        403: ["invalid_join_code", "not_your_seat"],
        404: ["unknown_game", "unknown_seat", "not_found"],
        409: ["seat_taken", "game_over"],
        429: ["rate_limited"],
    }
)
@blp.doc(security=SEAT_TOKEN_OPTIONAL, parameters=[TAKE_SEAT_KEY])
def take_seat(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """Take a seat.

    Without a token: take an open seat (with its `code` in a private game) and receive its
    token, once. Of two people taking the same seat at once, one gets it and the other 409
    `seat_taken`. With an `Idempotency-Key`, asking again with the same key answers the same
    seat and token (a lost answer does not lose the seat; use a random key: whoever sends it
    again gets the token). With the seat's own token: take back a seat it left to a computer,
    while the match runs.
    """
    game, seat, token = games().take_seat(game_id, seat, bearer_token(), body.get("name"), body.get("code"), idempotency_key())
    return seat_taken(game, seat, token)


@blp.route("/<game_id>/leave", methods=["POST"], operation_id="leaveGame")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.arguments(LeaveSchema, required=False)
@blp.response(200, GameViewSchema, headers=ETAG_HEADER)
@blp.problems(
    {
        400: ["invalid_request", "malformed_json", "json_too_deep", "number_too_large", "invalid_text", "unknown_level"],
        401: ["missing_token", "invalid_token"],
        404: ["unknown_game"],
        409: ["seat_left", "game_over"],
        429: ["rate_limited"],
    }
)
@blp.doc(security=SEAT_TOKEN_REQUIRED)
def leave(body: dict[str, Any], game_id: str) -> BaseResponse:
    """Leave a game.

    A computer of `level` plays the caller's seat for the rest of the match (the history says
    so); the seat's token can take it back with `POST /v1/games/{id}/seats/{seat}`. A turn's
    deadline that has passed is applied first, as a worker would: after a forfeit the leave
    answers 409 `game_over`.
    """
    token = bearer_token()
    game = games().leave(game_id, token, body.get("level"))
    assert token is not None  # (leaving refuses a request without one)
    return view_response(game.view(game.authenticate(token)))


@blp.route("/<game_id>/rematch", methods=["POST"], operation_id="makeRematch")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.response(201, SeatTakenSchema, headers={"Location": {"description": "The new game's URL", "schema": {"type": "string"}}})
@blp.problems(
    {
        401: ["missing_token", "invalid_token"],
        404: ["unknown_game"],
        409: ["game_not_finished", "seat_taken"],
        429: ["rate_limited"],
    }
)
@blp.doc(security=SEAT_TOKEN_REQUIRED)
def rematch(game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Play again.

    After the match, any seat's token makes the next match (or joins the one another seat
    made): the same seats, options and computer levels, the first dealer moved on one seat.
    Each caller gets its seat's new token; asking again (a lost answer, a double click, with or
    without an `Idempotency-Key`) answers the same seat and token. The new game waits until
    every human seat has asked. The finished game's view links to it (`rematch`).
    """
    game, seat, token = games().rematch(game_id, bearer_token())
    return seat_taken(game, seat, token), 201, {"Location": url_for("games.get_game", game_id=game.id)}
