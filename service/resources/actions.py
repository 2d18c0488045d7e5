"""``/v1/games/{id}/actions``: a seat acts."""

from __future__ import annotations

from typing import Any

from werkzeug.sansio.response import Response as BaseResponse
from flask import request

from ..api import SEAT_TOKEN_REQUIRED, STORE_UNAVAILABLE_OR_FULL, Blueprint, bearer_token, header_parameter
from ..edge import check_if_match
from ..errors import ILLEGAL_ACTION_CODES, TURN_REFUSAL_CODES, Problem
from ..schemas import ActionSchema
from ..tokens import require_token
from ..texts import FIELD_MESSAGES, FieldMessage
from ..metrics import WAITING
from ..waiting import nothing_to_do
from .game_schemas import ActionQuerySchema, GameViewSchema
from .games import ETAG_HEADER, games, rendered_response, view_response

blp = Blueprint("actions", __name__, url_prefix="/v1/games", description="Act in a game")

MAX_KEY_LENGTH = 200
IF_MATCH = header_parameter(
    "If-Match",
    "The version the action was decided on (`W/\"<version>\"` or `\"<version>\"`): 412 if the game has moved on",
)
IDEMPOTENCY_KEY = header_parameter(
    "Idempotency-Key",
    "A retry with the same key returns the first answer and applies nothing twice",
    minLength=1,
    maxLength=MAX_KEY_LENGTH,
)


def idempotency_key() -> str | None:
    """The request's Idempotency-Key, if it sent one (1 to ``MAX_KEY_LENGTH`` characters, else a 400)."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise Problem(
            400,
            "invalid_request",
            "idempotency_key_length",
            params={"limit": MAX_KEY_LENGTH},
            errors={"Idempotency-Key": [FieldMessage(FIELD_MESSAGES["idempotency_key_length"]).format(limit=MAX_KEY_LENGTH)]},
        )
    return key


@blp.route("/<game_id>/actions", methods=["POST"], operation_id="postAction")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.arguments(ActionSchema())
@blp.arguments(ActionQuerySchema(), location="query")
@blp.response(
    200,
    GameViewSchema,
    headers={**ETAG_HEADER, "Idempotent-Replayed": {"description": "`true` when this answers a retry", "schema": {"type": "string"}}},
)
@blp.problems(
    {
        400: ["invalid_request", "malformed_json", "malformed_action", "json_too_deep", "number_too_large", "invalid_text"],
        401: ["missing_token", "invalid_token"],
        404: ["unknown_game"],
        409: [*TURN_REFUSAL_CODES, "waiting_for_players", "seat_left", "deadline_passed"],
        410: ["game_unreadable"],
        412: ["stale_version"],
        422: ["idempotency_key_reused", *ILLEGAL_ACTION_CODES],
        429: ["rate_limited"],
    }
)
@blp.doc(security=SEAT_TOKEN_REQUIRED, parameters=[IF_MATCH, IDEMPOTENCY_KEY])
def post_action(action: dict[str, Any], query: dict[str, Any], game_id: str) -> BaseResponse:
    """Act as a seat.

    Post one action object (an `Action`, told apart by its `type`); any member of the view's
    `legal_actions` may be posted verbatim. The answer is the seat's new view: after the
    computers' replies when they come within `KOZ_REPLY_WAIT_SECONDS` (2 s by default), else
    the view as committed, and the replies arrive on the event stream or a long-poll (a
    client never assumes the answer is final: its `to_act` says who acts next). An illegal
    action answers 422 with the rule it breaks (`code`) and the legal actions; acting out of
    turn answers 409 `not_your_turn`. A seat that left to a computer answers 409 `seat_left`
    until its token takes it back. An action that comes after the seat's turn-clock deadline
    applies the timeout instead (the history shows it) and answers 409 `deadline_passed`.
    With `?wait=<seconds>`, an action that leaves the seat nothing to do (others are to act,
    the game goes on) answers once the seat is to act again or the game is over, or when the
    wait ends (the game as it then is): a bot's move and its long-polls for its next turn in
    one request.
    """
    key = idempotency_key()
    token = require_token(bearer_token())
    if_match = check_if_match(request.headers.get("If-Match"))
    view, replayed = games().act(game_id, token, action, if_match=if_match, idempotency_key=key)
    if query["wait"] > 0 and nothing_to_do(view):
        with WAITING.track_inprogress():
            response = rendered_response(games().waiting.watch_turn(game_id, token, query["wait"], view["version"]))
    else:
        response = view_response(view)
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response
