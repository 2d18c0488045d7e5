"""``/v1/games``: create a game, and see it as one seat or as a spectator."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from flask import Response, current_app, request, url_for
from marshmallow import Schema, ValidationError, fields, validate
from werkzeug.sansio.response import Response as BaseResponse

from engine import registry
from engine.players import level_names

from ..api import SEAT_TOKEN_OPTIONAL, Blueprint, bearer_token, header_parameter
from ..edge import Name
from ..metrics import WAITING
from ..schemas import ActionSchema, GameOptionsSchema, NamesSchema, SeatSchema, card_field, cards_field, suit_field
from ..tables import version_matches

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Create games and see them")

STATUSES = ["active", "finished", "abandoned"]
STATUS_DESCRIPTION = (
    "`finished` when the match ended by its rules; `abandoned` when it ran past the service's cap on a "
    "match's length (deals or versions): it ends with no winner"
)


# --- creating ----------------------------------------------------------------------------------


class Seed(fields.Field):
    """A seed: any string (1 to 128 characters) or integer; integers are used as their decimal text."""

    def _deserialize(self, value: Any, attr, data, **kwargs) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValidationError("a seed is a string or an integer")
        text = str(value)
        if not 1 <= len(text) <= 128:
            raise ValidationError("a seed has 1 to 128 characters")
        return text


class SeatSpecSchema(Schema):
    name = Name(
        validate=validate.Length(min=1, max=40),
        allow_none=True,
        metadata={"example": "Ayşe", "description": "1 to 40 characters (after NFC normalization and trimming); no control characters"},
    )
    bot = fields.String(
        allow_none=True,
        metadata={"description": "A computer level (see the catalog's `levels`); absent or null for a human seat", "enum": level_names() + [None]},
    )


class GameCreateSchema(Schema):
    ruleset = fields.String(
        required=True,
        metadata={"description": "A ruleset id from the catalog", "enum": [ruleset.id for ruleset in registry.all_rulesets()]},
    )
    options = fields.Nested(GameOptionsSchema, metadata={"description": "Options of the ruleset; absent ones take their default"})
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        # the count each ruleset takes is refused as invalid_seats, and documented per ruleset
        validate=validate.Length(min=1, max=max(ruleset.seat_count for ruleset in registry.all_rulesets())),
        metadata={
            "description": "One entry per seat in play order: a human (`{\"name\": ...}`) or a computer "
            "(`{\"bot\": \"random\"}`). Absent: the standard table against the computer."
        },
    )
    seed = Seed(
        metadata={
            "oneOf": [{"type": "string", "minLength": 1, "maxLength": 128}, {"type": "integer"}],
            "description": "A seed for a reproducible deal; absent, one is drawn from a secure source "
            "and revealed only when the match is over",
        }
    )


def document_seat_counts(spec) -> None:
    """Say in the document how many seats each ruleset takes (marshmallow cannot say that one
    field's bounds depend on another's value; JSON Schema can, with one branch per ruleset)."""
    spec.components.schemas["GameCreate"]["oneOf"] = [
        {"properties": {"ruleset": {"const": ruleset.id}, "seats": {"minItems": ruleset.seat_count, "maxItems": ruleset.seat_count}}}
        for ruleset in registry.all_rulesets()
    ]


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "The seat's secret: `Authorization: Bearer <token>`"})


class GameCreatedSchema(Schema):
    id = fields.String(required=True)
    ruleset = fields.String(required=True)
    options = fields.Nested(GameOptionsSchema, required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"description": STATUS_DESCRIPTION})
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    tokens = fields.List(
        fields.Nested(SeatTokenSchema),
        required=True,
        metadata={"description": "The tokens of the human seats. Shown only here, once: keep them"},
    )


# --- seeing ------------------------------------------------------------------------------------


class TrickCardSchema(Schema):
    seat = fields.Integer(required=True)
    card = card_field(required=True)


class TrickSchema(Schema):
    leader = fields.Integer(required=True)
    cards = fields.List(fields.Nested(TrickCardSchema), required=True, metadata={"description": "In play order"})
    winner = fields.Integer(required=True, allow_none=True)


def _per_seat(field: fields.Field, description: str, **kwargs: Any) -> fields.List:
    return fields.List(field, metadata={"description": description + " (one entry per seat, in seat order)"}, **kwargs)


class AtCloseSchema(Schema):
    points = fields.Integer(required=True)
    tricks = fields.Integer(required=True)


class DealResultSchema(Schema):
    """How the last finished deal ended. `deal` is always present; the other fields depend on the
    ruleset."""

    deal = fields.Integer(required=True)
    winners = fields.List(
        fields.Integer(), metadata={"description": "German Whist, Sixty-Six: the seats that won the deal; empty for a tie (Batak has none)"}
    )
    points = _per_seat(
        fields.Integer(),
        "German Whist: what the deal added to each score. Sixty-Six: each player's points in the deal "
        "(cards, counted marriages, the last-trick 10)",
    )
    tricks = _per_seat(fields.Integer(), "Tricks won (German Whist: counted tricks)")
    tricks_by_phase = _per_seat(fields.List(fields.Integer()), "German Whist: tricks won in phase 1 and in phase 2")
    game_points = _per_seat(fields.Integer(), "Sixty-Six: game points the deal added to each score")
    reason = fields.String(
        metadata={
            "description": "Sixty-Six: how the deal ended",
            "enum": ["claim", "false_claim", "closer_failed", "last_trick", "more_points", "drawn"],
        }
    )
    claimed_by = fields.Integer(allow_none=True, metadata={"description": "Sixty-Six: the seat that claimed 66, or was deemed to"})
    deemed_claim = fields.Boolean(
        metadata={
            "description": "Sixty-Six: all tricks were played and the claim is deemed: the closer's, with 66 or more "
            "on a closed talon, else the last trick's winner's"
        }
    )
    marriage_points = _per_seat(fields.Integer(), "Sixty-Six: counted marriage points")
    last_trick_ten = fields.Integer(allow_none=True, metadata={"description": "Sixty-Six: the seat given 10 for the last trick"})
    closed_by = fields.Integer(allow_none=True, metadata={"description": "Sixty-Six: the seat that closed the talon"})
    at_close = fields.Nested(
        AtCloseSchema,
        allow_none=True,
        metadata={"description": "Sixty-Six: the closer's opponent's points and tricks when the talon was closed"},
    )
    declarer = fields.Integer(metadata={"description": "Batak: the declarer"})
    dummy = fields.Integer(metadata={"description": "Batak: the declarer's partner, whose hand was open"})
    contract = fields.Integer(metadata={"description": "Batak: the winning bid (7 when all passed)"})
    trump = suit_field(metadata={"description": "Batak: the trump named"})
    team_tricks = fields.List(fields.Integer(), metadata={"description": "Batak: tricks of North-South and of East-West"})
    made = fields.Boolean(metadata={"description": "Batak: the declaring team took at least its bid"})
    sweep = fields.Integer(allow_none=True, metadata={"description": "Batak: the team (0 North-South, 1 East-West) that took all 13 tricks"})
    team_points = fields.List(fields.Integer(), metadata={"description": "Batak: points of North-South and of East-West"})


class BidSchema(Schema):
    seat = fields.Integer(required=True)
    bid = fields.Integer(required=True, allow_none=True, metadata={"description": "null for a pass"})


class AuctionSchema(Schema):
    bids = fields.List(fields.Nested(BidSchema), required=True, metadata={"description": "Every call, in order"})
    high_bid = fields.Integer(required=True, allow_none=True)
    high_bidder = fields.Integer(required=True, allow_none=True)
    passed = fields.List(fields.Integer(), required=True, metadata={"description": "Seats out of the auction"})
    open = fields.Boolean(required=True, metadata={"description": "The auction is still going on"})


class OpenHandSchema(Schema):
    seat = fields.Integer(required=True)
    label = fields.Nested(NamesSchema, required=True, metadata={"description": "The seat's label, shown with the open hand"})
    cards = fields.List(card_field(), required=True)


class MarriageSchema(Schema):
    seat = fields.Integer(required=True)
    suit = suit_field(required=True)
    points = fields.Integer(required=True, metadata={"description": "20, or 40 in trump"})
    pair = fields.List(card_field(), required=True, metadata={"description": "The king and the queen"})
    pending = fields.Boolean(required=True, metadata={"description": "Not counted until the announcer wins a trick"})


class GameViewSchema(Schema):
    """A game as one seat (or a spectator) may see it. Fields a ruleset does not use are absent."""

    id = fields.String(required=True)
    ruleset = fields.String(required=True)
    options = fields.Nested(GameOptionsSchema, required=True)
    version = fields.Integer(required=True, metadata={"description": "Increments with every applied action; also the ETag"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"description": STATUS_DESCRIPTION})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "The viewer's seat; null for a spectator"})
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    to_act = fields.List(
        fields.Integer(), required=True, metadata={"description": "The seat that may act now (one at a time; none once the match is over)"}
    )
    legal_actions = fields.List(
        fields.Nested(ActionSchema),
        required=True,
        metadata={"description": "Exactly what the viewer may post now; empty when it must wait"},
    )
    scores = _per_seat(fields.Integer(), "Match totals", required=True)
    winners = fields.List(
        fields.Integer(), required=True, metadata={"description": "The winning seats once finished; empty before (and for a drawn match)"}
    )
    deal = fields.Integer(required=True, metadata={"description": "The current deal, from 1"})
    dealer = fields.Integer(required=True)
    last_deal = fields.Nested(DealResultSchema, required=True, allow_none=True)
    hand = cards_field("The viewer's cards; null for a spectator", required=True, allow_none=True)
    hand_sizes = _per_seat(fields.Integer(), "Cards in each hand", required=True)
    trump = suit_field(required=True, allow_none=True)
    trick = fields.Nested(
        TrickSchema, required=True, allow_none=True, metadata={"description": "The trick on the table (Batak: null before trump is named)"}
    )
    last_trick = fields.Nested(TrickSchema, required=True, allow_none=True, metadata={"description": "The last finished trick"})
    tricks_won = _per_seat(fields.Integer(), "Tricks won this deal", required=True)
    known_cards = _per_seat(
        fields.List(card_field()),
        "Cards publicly known to be in each hand (taken face up, shown), until played",
    )
    # German Whist
    face_up = card_field(allow_none=True, metadata={"description": "German Whist: the face-up stock card, the prize of the trick"})
    stock_size = fields.Integer(metadata={"description": "German Whist: cards left in the stock"})
    phase = fields.Integer(metadata={"description": "1 while drawing from the stock or talon, then 2"})
    trick_number = fields.Integer(allow_none=True, metadata={"description": "The trick being played, from 1"})
    tricks_by_phase = _per_seat(fields.List(fields.Integer()), "German Whist: tricks won in phase 1 and in phase 2")
    # Sixty-Six
    trump_card = card_field(
        allow_none=True,
        metadata={"description": "Sixty-Six: the face-up trump card under the talon; null once taken, when closed, or without a talon"},
    )
    talon_size = fields.Integer(metadata={"description": "Sixty-Six: face-down cards left in the talon"})
    talon_closed = fields.Boolean(metadata={"description": "Sixty-Six: the talon has been closed"})
    closed_by = fields.Integer(allow_none=True, metadata={"description": "Sixty-Six: the seat that closed the talon"})
    marriages = fields.List(fields.Nested(MarriageSchema), metadata={"description": "Sixty-Six: marriages announced this deal"})
    pending_marriage = _per_seat(fields.Boolean(), "Sixty-Six: marriage points waiting for a trick won")
    points = _per_seat(
        fields.Integer(),
        "Sixty-Six: points so far (cards and counted marriages); null unless `open_scores`",
        allow_none=True,
    )
    won_cards = _per_seat(fields.List(card_field()), "Sixty-Six: the cards of the tricks won; null unless `open_scores`", allow_none=True)
    # Partnership Batak
    teams = fields.List(fields.List(fields.Integer()), metadata={"description": "Batak: the teams, [[0, 2], [1, 3]] (North-South, East-West)"})
    auction = fields.Nested(AuctionSchema, metadata={"description": "Batak: the auction of this deal"})
    declarer = fields.Integer(allow_none=True, metadata={"description": "Batak: the declarer, once the auction is over"})
    dummy = fields.Integer(allow_none=True, metadata={"description": "Batak: the declarer's partner, whose hand the declarer plays"})
    contract = fields.Integer(allow_none=True, metadata={"description": "Batak: the winning bid (7 when all passed)"})
    role = fields.String(
        allow_none=True,
        validate=validate.OneOf(["declarer", "dummy", "defender"]),
        metadata={"description": "Batak: the viewer's role once the auction is over; the dummy acts in nothing this deal"},
    )
    trump_broken = fields.Boolean(metadata={"description": "Batak: a trump was played to an earlier trick"})
    open_hand = fields.Nested(OpenHandSchema, allow_none=True, metadata={"description": "Batak: the dummy's hand, face up once trump is named"})
    turn = fields.Integer(
        allow_none=True,
        metadata={"description": "Batak: the seat whose card is next (the dummy's, in its turn, while `to_act` is the declarer)"},
    )
    team_tricks = fields.List(fields.Integer(), metadata={"description": "Batak: tricks of North-South and of East-West this deal"})


class ViewQuerySchema(Schema):
    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=300),
        metadata={"description": "Long-poll: hold the answer up to this many seconds (capped by the server) until `version` passes `after`"},
    )
    after = fields.Integer(
        validate=validate.Range(min=-1),
        metadata={"description": "Long-poll: the version the client already has"},
    )


ETAG_HEADER = {"ETag": {"description": "`W/\"<version>\"`", "schema": {"type": "string"}}}
IF_NONE_MATCH = header_parameter("If-None-Match", "An ETag from an earlier view: 304 while the version is the same")


def view_response(view: dict[str, Any]) -> BaseResponse:
    """A view as JSON with its ETag, marked private: what it shows depends on the token.

    Sent as built, not dumped through :class:`GameViewSchema`: the engine and the table build it
    in the schema's shape already (tests/test_schemas_mirror_engine.py holds every view to it),
    and the dump took more time than the rest of an action's work in the web process."""
    return private(current_app.json.response(view), view["version"])


def private_headers(version: int) -> dict[str, str]:
    """The headers of an answer that depends on the token: the version as a weak ETag, and private."""
    return {"ETag": f'W/"{version}"', "Vary": "Authorization", "Cache-Control": "private, no-cache"}


def private(response: BaseResponse, version: int) -> BaseResponse:
    response.headers.update(private_headers(version))
    return response


def tables():
    return current_app.extensions["koz"]


@blp.route("", methods=["POST"], operation_id="createGame")
@blp.arguments(GameCreateSchema())
@blp.response(201, GameCreatedSchema, headers={"Location": {"description": "The game's URL", "schema": {"type": "string"}}})
@blp.problems(
    {
        400: [
            "invalid_request",
            "malformed_json",
            "json_too_deep",
            "number_too_large",
            "invalid_text",
            "unknown_ruleset",
            "unknown_option",
            "invalid_option",
            "invalid_seats",
            "unknown_level",
        ],
        429: ["rate_limited"],
        503: ["capacity", "storage_unavailable"],
    }
)
def create_game(body: dict[str, Any]):
    """Create a game.

    Each seat is a human (a token is issued for it, returned once, here) or a computer player
    of a named level. Without `seats`, the standard table: the ruleset's human seats (see the
    catalog) against computer players. Computer seats move at once when it is their turn; a
    game of computer seats only plays itself to the end.
    """
    table, tokens = tables().create(body["ruleset"], body.get("options"), body.get("seats"), body.get("seed"))
    created = {
        "id": table.id,
        "ruleset": table.ruleset.id,
        "options": table.options,
        "version": table.version,
        "status": table.status,
        "seats": table.seat_list(),
        "tokens": [{"seat": seat, "token": token} for seat, token in sorted(tokens.items())],
    }
    return created, 201, {"Location": url_for("games.get_game", game_id=table.id)}


@blp.route("/<game_id>", operation_id="getGame")
@blp.arguments(ViewQuerySchema(), location="query")
@blp.response(200, GameViewSchema, headers=ETAG_HEADER)
@blp.alt_response(304, description="Not Modified: the version named in If-None-Match is current")
@blp.problems({400: ["invalid_request"], 401: ["invalid_token"], 404: ["unknown_game"], 410: ["game_unreadable"]})
@blp.doc(security=SEAT_TOKEN_OPTIONAL, parameters=[IF_NONE_MATCH])
def get_game(query: dict[str, Any], game_id: str):
    """See a game.

    With a seat's token, that seat's view: its hand and its legal actions. Without one, the
    spectator view: public information only. Long-poll with `?wait=<seconds>&after=<version>`.
    """
    with WAITING.track_inprogress() if query["wait"] > 0 and query.get("after") is not None else nullcontext():
        table, seat = tables().watch(game_id, bearer_token(), query["wait"], query.get("after"))
    condition = request.headers.get("If-None-Match")
    if condition is not None and version_matches(condition, table.version):
        return private(Response(status=304), table.version)
    return view_response(table.view(seat))
