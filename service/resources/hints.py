"""``/v1/games/{id}/hint``: what the expert would do in the caller's seat."""

from __future__ import annotations

import threading
from typing import Any

from flask import current_app
from marshmallow import Schema, fields

from engine.players import strongest_level

from ..api import SEAT_TOKEN_REQUIRED, STORE_UNAVAILABLE_OR_FULL, Blueprint, bearer_token
from ..errors import TURN_REFUSAL_CODES, Problem
from ..schemas import ActionSchema
from .games import ETAG_HEADER, private_headers, games

blp = Blueprint("hints", __name__, url_prefix="/v1/games", description="Ask the computer for advice")

#: how long a hint waits for its turn when the process works out as many as it may at once
HINT_QUEUE_SECONDS = 1.0


class HintsAtOnce:
    """How many hints a web process works out at once: each takes a native thread and up to a
    computer's decision time of CPU, which the process's other requests need too.

    The semaphore is made on first use, in the process that serves: one made before gevent
    patched the process (``koz serve`` creates the app before it forks) would block the whole
    process while a hint waits for its turn."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._turns: threading.BoundedSemaphore | None = None

    @property
    def turns(self) -> threading.BoundedSemaphore:
        if self._turns is None:
            self._turns = threading.BoundedSemaphore(self.count)
        return self._turns


class HintSchema(Schema):
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={"description": "The version the hint was worked out for"})
    level = fields.String(required=True, metadata={"description": "The computer level that decided"})
    action = fields.Nested(ActionSchema, required=True, metadata={"description": "One of the seat's legal actions, to post as it is"})


@blp.route("/<game_id>/hint", operation_id="getHint")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.response(200, HintSchema, headers=ETAG_HEADER)
@blp.problems(
    {
        401: ["missing_token", "invalid_token"],
        404: ["unknown_game"],
        410: ["game_unreadable"],
        409: [*TURN_REFUSAL_CODES, "seat_left"],
        429: ["rate_limited"],
    }
)
@blp.doc(security=SEAT_TOKEN_REQUIRED)
def get_hint(game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Ask for a hint.

    The choice of the strongest computer player the game has (the expert, in a game with
    computer strategies) for the caller's seat, decided from that seat's information only (its
    view and the history it has seen), within the same time bounds as a computer seat's move.
    Only for a seat that may act now. Hints are limited per seat token (`KOZ_RATE_LIMIT_HINTS`,
    30 a minute by default: 429 `rate_limited`), and a web process works out a few at once
    (`KOZ_HINTS_AT_ONCE`): a hint that finds no turn within a second answers 503 `busy`.
    """
    turns = current_app.extensions["koz_hints"].turns
    if not turns.acquire(timeout=HINT_QUEUE_SECONDS):
        raise Problem(503, "busy", "hints_busy", headers={"Retry-After": "1"})
    try:
        game, seat, action = games().computers.hint(game_id, bearer_token())
    finally:
        turns.release()
    hint = {"seat": seat, "version": game.version, "level": strongest_level(game.ruleset.id), "action": action.to_json()}
    return hint, 200, private_headers(game.version)
