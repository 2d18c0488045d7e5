"""``/v1/accounts``: take an account (its key answered once) and read any account's public page."""

from __future__ import annotations

from typing import Any

from flask import current_app, url_for
from marshmallow import Schema, fields, validate

from engine import registry

from ..api import STORE_UNAVAILABLE, STORE_UNAVAILABLE_OR_FULL, Blueprint
from ..edge import Name
from ..schemas import RequestSchema
from ..arena.accounts import KINDS
from ..arena.arena import Arena

blp = Blueprint("accounts", __name__, url_prefix="/v1/accounts", description="Accounts of the arena: bots and people")

RULESET_IDS = [ruleset.id for ruleset in registry.all_rulesets()]
ACCOUNT_KINDS = [*KINDS, "house"]


def arena() -> Arena:
    koz_arena: Arena = current_app.extensions["koz_arena"]
    return koz_arena


class AccountCreateSchema(RequestSchema):
    name = Name(
        required=True,
        validate=validate.Length(min=1, max=40),
        metadata={
            "example": "KozBot",
            "description": "1 to 40 characters (after NFC normalization and trimming), no control characters, as a seat's name; "
            "unique whatever its case and Unicode form (`koz-` names are Koz's own)",
        },
    )
    kind = fields.String(
        load_default="bot",
        validate=validate.OneOf(KINDS),
        metadata={"description": "`bot` (a program) or `person` (someone at the web table); absent: `bot`", "enum": list(KINDS)},
    )


class AccountSchema(Schema):
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ACCOUNT_KINDS, "description": "`bot`, `person`, or `house` (Koz's own computer level)"})
    created = fields.String(required=True, metadata={"description": "When it was made (ISO 8601, UTC)"})


class AccountCreatedSchema(AccountSchema):
    key = fields.String(
        required=True,
        metadata={
            "description": "The account's secret (`Authorization: Bearer <key>` on arena calls), shown only here, once; Koz keeps only its hash"
        },
    )


class RatingSchema(Schema):
    ruleset = fields.String(required=True, metadata={"enum": RULESET_IDS})
    rating = fields.Float(required=True, metadata={"description": "OpenSkill's mu: the skill it shows"})
    uncertainty = fields.Float(required=True, metadata={"description": "OpenSkill's sigma: how unsure the rating still is"})
    games = fields.Integer(required=True, metadata={"description": "Rated games played"})
    wins = fields.Integer(required=True)
    losses = fields.Integer(required=True)
    draws = fields.Integer(required=True)
    provisional = fields.Boolean(required=True, metadata={"description": "Too few rated games to stand on the leaderboard yet"})


class RecentGameSchema(Schema):
    game = fields.String(required=True, metadata={"description": "The game's id"})
    ruleset = fields.String(required=True, metadata={"enum": RULESET_IDS})
    rated = fields.Boolean(required=True)
    finished_at = fields.Float(required=True, metadata={"description": "When its result was recorded (seconds of the Unix epoch)"})
    status = fields.String(required=True, metadata={"description": "How the match ended: `finished`, `forfeited` or `abandoned`"})
    seat = fields.Integer(required=True)
    outcome = fields.String(required=True, metadata={"enum": ["win", "loss", "draw"]})
    rating_change = fields.Float(required=True, metadata={"description": "What the match changed of the rating (0 when unrated)"})
    opponents = fields.List(fields.String(), required=True, metadata={"description": "The other seats' accounts (a partner included)"})
    history = fields.String(required=True, metadata={"description": "The game's history: every deal revealed, to check the match"})


class AccountPageSchema(AccountSchema):
    ratings = fields.List(fields.Nested(RatingSchema), required=True, metadata={"description": "One per ruleset it played rated"})
    games_played = fields.Integer(required=True, metadata={"description": "Arena games played to their end, rated or not"})
    recent_games = fields.List(fields.Nested(RecentGameSchema), required=True, metadata={"description": "The last games, newest first"})


@blp.route("", methods=["POST"], operation_id="createAccount")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.arguments(AccountCreateSchema())
@blp.response(201, AccountCreatedSchema, headers={"Location": {"description": "The account's page", "schema": {"type": "string"}}})
@blp.problems(
    {
        400: ["invalid_request", "malformed_json", "json_too_deep", "number_too_large", "invalid_text"],
        409: ["name_taken"],
        429: ["rate_limited"],
    }
)
def create_account(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Take an account.

    The name is unique whatever its case and Unicode form. The answer carries the account's
    key, once: Koz keeps only its hash. The key authenticates the arena's calls (seeks,
    challenges, the account's events); each game is then played with the seat token the
    arena hands over, as any game is. Accounts made per client address are rate-limited.
    """
    account, key = arena().accounts.create(body["name"], body["kind"])
    return {**account.to_json(), "key": key}, 201, {"Location": url_for("accounts.get_account", name=account.name)}


@blp.route("/<name>", operation_id="getAccount")
@blp.problems(STORE_UNAVAILABLE)
@blp.response(200, AccountPageSchema)
@blp.problems({404: ["unknown_account"]})
def get_account(name: str) -> dict[str, Any]:
    """See an account.

    Public: its kind, when it was made, its rating per ruleset with the uncertainty, the games
    it played and its last games, with their results and links to their histories.
    """
    return arena().page(name)
