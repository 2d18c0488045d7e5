"""``/v1/games/{id}/history``: what happened, as the caller may see it."""

from __future__ import annotations

from typing import Any

from flask import current_app
from marshmallow import Schema, fields, validate

from ..api import SEAT_TOKEN_OPTIONAL, Blueprint, bearer_token
from ..schemas import ActionSchema, card_field, cards_field, suit_field
from .games import STATUS_DESCRIPTION, STATUSES, AtCloseSchema, TrickCardSchema, private, tables

blp = Blueprint("history", __name__, url_prefix="/v1/games", description="The history of a game")

#: the longest page, in versions
MAX_PAGE = 1000


class HistoryEventSchema(Schema):
    """One event. `version` and `type` are always present; the other fields depend on the type.

    `action`: a seat's applied action, `{"seat": s, "action": {...}}` as posted. Every ruleset:
    `deal` (a deal begins), `dealt` (`hand` only for its seat), `trick`, `deal_result`,
    `match_result`. German Whist: `take`, `draw` (`card` only for the drawer), `turn_up`.
    Sixty-Six: `exchange`, `close`, `marriage`, `draw` (`card` only for the drawer), `take` (the
    trump card), `declare`. Batak: `contract` (the auction's outcome), `trump`, `open_hand` (the
    dummy's `hand`, public once trump is named). The service adds `abandoned` (`reason`, `deal`,
    `max_deals`, `max_versions`): the match ran past its cap on length and ended with no winner."""

    version = fields.Integer(required=True, metadata={"description": "The version this event produced"})
    type = fields.String(required=True)
    seat = fields.Integer()
    action = fields.Nested(ActionSchema)
    deal = fields.Integer()
    dealer = fields.Integer()
    trump = suit_field(allow_none=True)
    face_up = card_field(allow_none=True)
    stock_size = fields.Integer()
    hand = cards_field("The cards dealt to the seat (only for that seat until the match is over)")
    count = fields.Integer()
    number = fields.Integer(metadata={"description": "The trick's number in the deal, from 1"})
    phase = fields.Integer()
    leader = fields.Integer()
    cards = fields.List(fields.Nested(TrickCardSchema), metadata={"description": "A trick's cards in play order"})
    winner = fields.Integer(allow_none=True)
    card = card_field()
    trump_card = card_field(allow_none=True)
    talon_size = fields.Integer()
    gave = card_field(metadata={"description": "Sixty-Six exchange: the card put under the talon"})
    took = card_field(metadata={"description": "Sixty-Six exchange: the trump card taken"})
    suit = suit_field()
    pair = fields.List(card_field(), metadata={"description": "Sixty-Six marriage: the king and the queen"})
    value = fields.Integer(metadata={"description": "Sixty-Six marriage: 20, or 40 in trump"})
    tricks = fields.List(fields.Integer())
    tricks_by_phase = fields.List(fields.List(fields.Integer()))
    points = fields.List(fields.Integer())
    winners = fields.List(fields.Integer())
    scores = fields.List(fields.Integer())
    game_points = fields.List(fields.Integer())
    reason = fields.String()
    claimed_by = fields.Integer(allow_none=True)
    deemed_claim = fields.Boolean()
    marriage_points = fields.List(fields.Integer())
    last_trick_ten = fields.Integer(allow_none=True)
    closed_by = fields.Integer(allow_none=True)
    at_close = fields.Nested(AtCloseSchema, allow_none=True)
    first_bidder = fields.Integer()
    declarer = fields.Integer()
    dummy = fields.Integer()
    contract = fields.Integer()
    all_passed = fields.Boolean()
    team_tricks = fields.List(fields.Integer())
    made = fields.Boolean()
    sweep = fields.Integer(allow_none=True)
    team_points = fields.List(fields.Integer())
    max_deals = fields.Integer(metadata={"description": "abandoned: the cap on deals"})
    max_versions = fields.Integer(metadata={"description": "abandoned: the cap on versions"})


class DealtSchema(Schema):
    dealer = fields.Integer(required=True)
    hands = fields.List(fields.List(card_field()), required=True, metadata={"description": "Each seat's hand as dealt"})
    stock = cards_field(
        "German Whist: the stock in drawing order (stock[0] the first face-up card, then the loser's "
        "face-down card and the next face-up card in turn); Sixty-Six: the talon in drawing order, "
        "the face-up trump card last; Batak: empty",
        required=True,
    )
    trump_card = card_field(required=True, allow_none=True)


class RevealSchema(Schema):
    seed = fields.String(required=True)
    deals = fields.List(fields.Nested(DealtSchema), required=True)


class HistorySchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The game's current version"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"description": STATUS_DESCRIPTION})
    events = fields.List(fields.Nested(HistoryEventSchema), required=True)
    next_after = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Pass as `after` for the next page; null on the last"}
    )
    reveal = fields.Nested(
        RevealSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Once the match is over: the seed and every deal as dealt, to re-check the whole match"},
    )


class HistoryQuerySchema(Schema):
    after = fields.Integer(load_default=-1, validate=validate.Range(min=-1), metadata={"description": "Events of versions after this one"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=MAX_PAGE), metadata={"description": "Versions per page"})


@blp.route("/<game_id>/history", operation_id="getHistory")
@blp.arguments(HistoryQuerySchema(), location="query")
@blp.response(200, HistorySchema)
@blp.problems({400: ["invalid_request"], 401: ["invalid_token"], 404: ["unknown_game"], 410: ["game_unreadable"]})
@blp.doc(security=SEAT_TOKEN_OPTIONAL)
def get_history(query: dict[str, Any], game_id: str):
    """Read a game's history.

    The ordered events, each with the version it produced, paged by version. A seat sees its
    own private events (its dealt hand, its face-down draws) and everyone's public ones; a
    spectator only public ones. Once the match is over everything is shown, with `reveal`.
    """
    table, seat = tables().watch(game_id, bearer_token(), 0, None)
    up_to = min(query["after"] + query["limit"], table.version)
    finished = table.finished  # an abandoned match is not revealed: its deal goes on, unfinished
    events = []
    for version, event in tables().events(table, query["after"], up_to):
        seen = event.for_viewer(seat, revealed=finished)
        if seen is not None:
            events.append({"version": version, **seen})
    history = {
        "id": table.id,
        "version": table.version,
        "status": table.status,
        "events": events,
        "next_after": up_to if up_to < table.version else None,
        "reveal": table.ruleset.reveal(table.state) if finished else None,
    }
    # sent as built: the events already have the schema's shape (tests/test_schemas_mirror_engine.py
    # holds every event to it), and dumping a long match through marshmallow took most of the time
    return private(current_app.json.response(history), table.version)
