"""``/v1/arena/challenges``: challenge an account by name; the other accepts or declines.

Every call is the account's (its key); the other side hears each step on its event stream
(``GET /v1/arena/events``). The rules are :mod:`service.arena.challenges`'.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from ..api import STORE_UNAVAILABLE, STORE_UNAVAILABLE_OR_FULL, Blueprint
from ..arena.challenges import Challenges, public_challenge
from ..arena.matchmaker import Matchmaker
from ..edge import Name
from ..schemas import RequestSchema, StrictBoolean
from .accounts import RULESET_IDS, arena
from .arena import ACCOUNT_KEY, account

blp = Blueprint("challenges", __name__, url_prefix="/v1/arena/challenges", description="Challenges by name, for bots that want to play a friend")


def challenges() -> Challenges:
    return Challenges(arena(), Matchmaker(arena()))


class ChallengeCreateSchema(RequestSchema):
    to = Name(
        required=True,
        validate=validate.Length(min=1, max=40),
        metadata={"example": "Ayşe", "description": "The account challenged, by name (any case and Unicode form)"},
    )
    ruleset = fields.String(required=True, metadata={"description": "A ruleset id from the catalog", "enum": RULESET_IDS})
    options = fields.Dict(
        keys=fields.String(),
        metadata={"description": "Options of the ruleset, as in `POST /v1/games`; absent ones take their default", "example": {}},
    )
    rated = StrictBoolean(load_default=True, metadata={"description": "Whether the match changes ratings; absent: true"})


class ChallengeSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The challenge's id"})
    from_ = fields.String(required=True, data_key="from", metadata={"description": "The challenger's name"})
    to = fields.String(required=True, metadata={"description": "The challenged account's name"})
    ruleset = fields.String(required=True, metadata={"enum": RULESET_IDS})
    options = fields.Dict(required=True, metadata={"description": "The options, every one filled in"})
    rated = fields.Boolean(required=True)
    created_at = fields.Float(required=True, metadata={"description": "When it was made (seconds of the Unix epoch)"})
    expires_at = fields.Float(required=True, metadata={"description": "When it ends unanswered (`challenge_expired` on both streams)"})


class AcceptedChallengeSchema(ChallengeSchema):
    game = fields.String(
        required=True, metadata={"description": "The game's id; each side's seat and seat token come as `match_started` on its stream"}
    )


class ChallengesSchema(Schema):
    challenges = fields.List(fields.Nested(ChallengeSchema), required=True, metadata={"description": "Made and received, oldest first"})


def challenge_json(challenge: dict[str, Any]) -> dict[str, Any]:
    """A challenge with ``from`` where the schema names it ``from_`` (``from`` is Python's)."""
    shown = public_challenge(challenge)
    shown["from_"] = shown.pop("from")
    return shown


KEY_PROBLEMS = {401: ["missing_key", "invalid_key"], 404: ["unknown_challenge"]}


@blp.route("", methods=["POST"], operation_id="createChallenge")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.arguments(ChallengeCreateSchema())
@blp.response(201, ChallengeSchema)
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
            "challenge_self",
            "house_account",
        ],
        401: ["missing_key", "invalid_key"],
        404: ["unknown_account"],
        409: ["too_many_arena_games"],
        429: ["rate_limited"],
    }
)
@blp.doc(security=ACCOUNT_KEY)
def create_challenge(body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Challenge an account by name.

    The challenged account hears `challenge` on its event stream and accepts
    (`POST /v1/arena/challenges/{challenge_id}/accept`) or declines; the challenger hears
    `challenge_declined`, or `challenge_expired` when no answer came within
    `KOZ_ARENA_SEEK_SECONDS`, and may withdraw it (`DELETE`). An open challenge counts among
    the challenger's arena games at once. Koz's own players are met by seeking, not challenged.
    Challenges made per account are rate-limited.
    """
    made = challenges().create(account(), body["to"], body["ruleset"], body.get("options"), body["rated"])
    return challenge_json(made), 201


@blp.route("", methods=["GET"], operation_id="listChallenges")
@blp.problems(STORE_UNAVAILABLE)
@blp.response(200, ChallengesSchema)
@blp.problems({401: ["missing_key", "invalid_key"]})
@blp.doc(security=ACCOUNT_KEY)
def list_challenges() -> dict[str, Any]:
    """List the account's challenges.

    The open challenges the account made and those made to it, until each is answered, withdrawn or expires.
    """
    return {"challenges": [challenge_json(challenge) for challenge in challenges().involving(account())]}


@blp.route("/<challenge_id>/accept", methods=["POST"], operation_id="acceptChallenge")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.response(200, AcceptedChallengeSchema)
@blp.problems({**KEY_PROBLEMS, 409: ["too_many_arena_games", "challenge_being_accepted"]})
@blp.doc(security=ACCOUNT_KEY)
def accept_challenge(challenge_id: str) -> dict[str, Any]:
    """Accept a challenge made to this account.

    Its game starts at once, as a pairing of seeks does: both accounts hear `match_started`
    with their seat and seat token. The accepted match counts among the account's arena games
    at once (409 `too_many_arena_games` at the cap: the challenge stays open). An accept retried
    while the first is still under way (its answer lost, or its process gone) is answered 409
    `challenge_being_accepted`: the match starts on both streams, or, if its game was not made,
    the challenge is open again in about a minute; once the match is told, the challenge is unknown.
    """
    challenge, game = challenges().accept(challenge_id, account())
    return {**challenge_json(challenge), "game": game}


@blp.route("/<challenge_id>/decline", methods=["POST"], operation_id="declineChallenge")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.response(204)
@blp.problems(KEY_PROBLEMS)
@blp.doc(security=ACCOUNT_KEY)
def decline_challenge(challenge_id: str) -> tuple[str, int]:
    """Decline a challenge.

    A challenge made to this account is dropped; the challenger hears `challenge_declined` on its stream.
    """
    challenges().decline(challenge_id, account())
    return "", 204


@blp.route("/<challenge_id>", methods=["DELETE"], operation_id="deleteChallenge")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.response(204)
@blp.problems(KEY_PROBLEMS)
@blp.doc(security=ACCOUNT_KEY)
def delete_challenge(challenge_id: str) -> tuple[str, int]:
    """Withdraw a challenge.

    A challenge this account made is dropped; the challenged account hears `challenge_withdrawn` on its stream.
    """
    challenges().withdraw(challenge_id, account())
    return "", 204
