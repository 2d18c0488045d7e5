"""``/v1/arena``: seek a match, follow the account's events, read the leaderboard.

The account's events are a Server-Sent Events stream, each message with ``id`` = the event's
number (resume with ``Last-Event-ID``). Waiting costs no thread: the stream waits on the
process's one Redis subscription (``service/announcements.py``), on which each new event of the
account is announced as a game's version is.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from flask import Response, request
from marshmallow import Schema, fields, validate

from ..api import STORE_UNAVAILABLE, STORE_UNAVAILABLE_OR_FULL, Blueprint, header_parameter
from ..errors import Problem
from ..schemas import RequestSchema, StrictBoolean, StrictFloat
from ..texts import FIELD_MESSAGES, FieldMessage
from ..arena.accounts import Account
from ..arena.arena import EVENTS_PAGE, Arena, public_seek
from .accounts import ACCOUNT_KINDS, RULESET_IDS, arena
from .events import EXAMPLE_RULESET, HEARTBEAT, RETRY, HeldStream, counted, message, take_stream_place

blp = Blueprint("arena", __name__, url_prefix="/v1/arena", description="Matchmaking, the account's events and the leaderboard")

ACCOUNT_KEY: list[dict[str, list[str]]] = [{"accountKey": []}]


def account() -> Account:
    """The account of the request's key (``Authorization: Bearer <key>``)."""
    header = request.headers.get("Authorization")
    if header is None:
        return arena().accounts.authenticate(None)
    scheme, _, key = header.strip().partition(" ")
    return arena().accounts.authenticate(key.strip() if scheme.lower() == "bearer" and key.strip() else "")


class SeekCreateSchema(RequestSchema):
    ruleset = fields.String(required=True, metadata={"description": "A ruleset id from the catalog", "enum": RULESET_IDS})
    options = fields.Dict(
        keys=fields.String(),
        metadata={
            "description": "Options of the ruleset, as in `POST /v1/games`; absent ones take their default. Seeks pair only with the same options",
            "example": {},
        },
    )
    rated = StrictBoolean(
        load_default=True, metadata={"description": "Whether the match changes ratings; absent: true. Rated and unrated seeks never pair"}
    )
    house_after_seconds = StrictFloat(
        allow_none=True,
        validate=validate.Range(min=0, max=86400),
        metadata={
            "description": "After this long without a pairing, play Koz's house players of the nearest rating; absent: never (the seek expires)"
        },
    )
    partner = fields.String(
        allow_none=True,
        validate=validate.Length(min=1, max=200),
        metadata={
            "description": "In a ruleset of partnerships (`sides` in the catalog), the account to sit beside: the seek is paired "
            "once that account seeks the same beside this one, and the two play as one side; absent or null: a partner drawn at random",
            "example": None,  # what a client that fills every field from the schema sends, valid in every ruleset
        },
    )


class SeekSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The seek's id: the same account, ruleset, options and rated-ness make the same seek"})
    ruleset = fields.String(required=True, metadata={"enum": RULESET_IDS})
    options = fields.Dict(required=True, metadata={"description": "The options, every one filled in"})
    rated = fields.Boolean(required=True)
    house_after_seconds = fields.Float(required=True, allow_none=True)
    seeked_at = fields.Float(required=True, metadata={"description": "When it joined the queue (seconds of the Unix epoch)"})
    expires_at = fields.Float(required=True, metadata={"description": "When it leaves the queue unpaired (`seek_expired` on the stream)"})
    partner = fields.String(required=True, allow_none=True, metadata={"description": "The account it sits beside; null: a partner drawn"})


class SeeksSchema(Schema):
    seeks = fields.List(fields.Nested(SeekSchema), required=True)


SEEK_PROBLEMS = {
    400: [
        "invalid_request",
        "malformed_json",
        "json_too_deep",
        "number_too_large",
        "invalid_text",
        "unknown_ruleset",
        "unknown_option",
        "invalid_option",
        "no_partnerships",
        "partner_self",
        "house_account",
    ],
    401: ["missing_key", "invalid_key"],
    404: ["unknown_account"],
    409: ["too_many_arena_games"],
    429: ["rate_limited"],
}


@blp.route("/seeks", methods=["POST"], operation_id="createSeek")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
@blp.arguments(SeekCreateSchema())
@blp.response(200, SeekSchema)
@blp.alt_response(201, schema=SeekSchema, description="A new seek")
@blp.problems(SEEK_PROBLEMS)
@blp.doc(security=ACCOUNT_KEY)
def create_seek(body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Seek a match.

    Puts the account in the queue of the ruleset, its options and rated-ness. Seeks are paired
    by rating closeness, the accepted distance widening with the time waited; past
    `house_after_seconds` a seek plays Koz's house players of the nearest rating. Two accounts
    that each name the other as `partner` sit on one side; others' partners are drawn. When a match
    starts, the account's event stream says so (`match_started`) with its game, seat and seat
    token. Seeking again for the same thing is the same seek (200), also while it is being paired
    (its match then starts once); a new one answers 201. An
    account plays and seeks at most `KOZ_ARENA_GAMES_AT_ONCE` arena games at once.
    """
    seek, new = arena().seek(account(), body["ruleset"], body.get("options"), body["rated"], body.get("house_after_seconds"), body.get("partner"))
    return public_seek(seek), 201 if new else 200


@blp.route("/seeks", methods=["GET"], operation_id="listSeeks")
@blp.problems(STORE_UNAVAILABLE)
@blp.response(200, SeeksSchema)
@blp.problems({401: ["missing_key", "invalid_key"]})
@blp.doc(security=ACCOUNT_KEY)
def list_seeks() -> dict[str, Any]:
    """List the account's seeks.

    The seeks still waiting in a queue; one that was paired has left it (its match started on
    the account's stream), and one that waited past its time has expired.
    """
    return {"seeks": [public_seek(seek) for seek in arena().own_seeks(account())]}


@blp.route("/seeks", methods=["DELETE"], operation_id="deleteSeeks")
@blp.problems(STORE_UNAVAILABLE)
@blp.response(204)
@blp.problems({401: ["missing_key", "invalid_key"]})
@blp.doc(security=ACCOUNT_KEY)
def delete_seeks() -> tuple[str, int]:
    """Stop seeking.

    Every seek of the account leaves its queue; a seek paired already has its match (one whose
    match is being made as it is withdrawn has it if the game is made, and is gone if not).
    """
    arena().unseek(account())
    return "", 204


@blp.route("/seeks/<seek_id>", methods=["DELETE"], operation_id="deleteSeek")
@blp.problems(STORE_UNAVAILABLE)
@blp.response(204)
@blp.problems({401: ["missing_key", "invalid_key"]})
@blp.doc(security=ACCOUNT_KEY)
def delete_seek(seek_id: str) -> tuple[str, int]:
    """Stop one seek.

    The seek (by its id) leaves its queue; answered the same when it was paired or gone already
    (one whose match is being made as it is withdrawn has it if the game is made, and is gone if not).
    """
    arena().unseek(account(), seek_id)
    return "", 204


# --- the leaderboard ----------------------------------------------------------------------------


class LeaderboardQuerySchema(RequestSchema):
    ruleset = fields.String(required=True, validate=validate.OneOf(RULESET_IDS), metadata={"enum": RULESET_IDS})
    provisional = fields.Boolean(load_default=False, metadata={"description": "The accounts with too few rated games, listed apart; absent: false"})
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000), metadata={"description": "Entries to skip; absent: 0"})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200), metadata={"description": "Entries per page; absent: 50"})


class LeaderboardEntrySchema(Schema):
    rank = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ACCOUNT_KINDS})
    rating = fields.Float(required=True, metadata={"description": "OpenSkill's mu"})
    uncertainty = fields.Float(required=True, metadata={"description": "OpenSkill's sigma"})
    games = fields.Integer(required=True, metadata={"description": "Rated games played"})


class LeaderboardSchema(Schema):
    ruleset = fields.String(required=True, metadata={"enum": RULESET_IDS})
    provisional = fields.Boolean(required=True)
    total = fields.Integer(required=True, metadata={"description": "Entries in the whole list"})
    entries = fields.List(
        fields.Nested(LeaderboardEntrySchema), required=True, metadata={"description": "Best first, by rating minus three uncertainties"}
    )
    next_offset = fields.Integer(required=True, allow_none=True, metadata={"description": "The next page's `offset`; null on the last page"})


@blp.route("/leaderboard", operation_id="getLeaderboard")
@blp.problems(STORE_UNAVAILABLE)
@blp.arguments(LeaderboardQuerySchema(), location="query")
@blp.response(200, LeaderboardSchema)
@blp.problems({400: ["invalid_request"]})
def get_leaderboard(query: dict[str, Any]) -> dict[str, Any]:
    """The leaderboard of a ruleset.

    Public, paged, best first by the conservative rating (rating minus three uncertainties).
    Accounts with fewer than 10 rated games are listed apart (`provisional=true`).
    """
    return arena().leaderboard(query["ruleset"], query["provisional"], query["offset"], query["limit"])


# --- the account's events -----------------------------------------------------------------------

EVENTS_DESCRIPTION = """\
A `text/event-stream` of the account's events, each message with `id` = the event's number and
`event` its type, `data` the event (JSON, with `type` again):

- `match_started`: `game`, `ruleset`, `options`, `rated`, `seat`, `token` (the seat's token: play
  with the game API), `url`, `players` (the other seats: `seat`, `name`, `kind`, `rating`, `uncertainty`);
- `match_finished`: `game`, `status`, `seat`, `outcome` (`win`, `loss`, `draw`), `abandoned` (its
  clock ran out), `rating` (after), `rating_change`;
- `seek_expired`: `seek`, which waited its time unpaired;
- `challenge` (to the account challenged: `challenge`, and `challenger` with its `name`, `kind`,
  `rating`, `uncertainty`), `challenge_declined` (to the challenger), `challenge_withdrawn` (to
  the account challenged), `challenge_expired` (to both): see `POST /v1/arena/challenges`.

Comment lines (`: heartbeat`) keep an idle stream open. A stream ends after an hour at most
(`KOZ_STREAM_MAX_SECONDS`): reconnect with `Last-Event-ID` and nothing is lost."""

EVENTS_EXAMPLE = f"""\
retry: 2000

id: 1
event: match_started
data: {{"type":"match_started","game":"711156e32947e1d4","ruleset":"{EXAMPLE_RULESET}","seat":1,"token":"...",\
"url":"/v1/games/711156e32947e1d4","players":[...]}}

: heartbeat

"""

LAST_EVENT_ID = header_parameter(
    "Last-Event-ID",
    "The `id` of the last message received: the stream resumes after it (EventSource sends it when it reconnects)",
    pattern="^[0-9]+$",
)


def last_event_id() -> int:
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return 0
    if not header.isascii() or not header.isdigit() or len(header) > 18:
        raise Problem(400, "invalid_request", "last_event_id", errors={"Last-Event-ID": [FieldMessage(FIELD_MESSAGES["last_event_id"])]})
    return int(header)


@blp.route("/events", operation_id="streamArenaEvents")
@blp.problems(STORE_UNAVAILABLE)
@blp.response(200, description=EVENTS_DESCRIPTION, content_type="text/event-stream")
@blp.problems({400: ["invalid_request"], 401: ["missing_key", "invalid_key"], 429: ["too_many_streams"]})
@blp.doc(
    security=ACCOUNT_KEY,
    parameters=[LAST_EVENT_ID],
    responses={
        "200": {
            "description": EVENTS_DESCRIPTION + "\n\nFor example:\n\n```text\n" + EVENTS_EXAMPLE + "```",
            "content": {
                "text/event-stream": {
                    "schema": {"description": "Server-Sent Events; a message's `data` is one arena event"},
                    "example": EVENTS_EXAMPLE,
                }
            },
        }
    },
)
def stream_arena_events() -> Response:
    """Follow the account's arena events (Server-Sent Events).

    A bot needs only this stream and the game API: each `match_started` hands over a game, a
    seat and its token. On connect the stream sends the events after `Last-Event-ID` (all kept
    ones without it), then each new one as it happens.
    """
    after = last_event_id()
    owner = account()
    stream = HeldStream(counted(follow(arena(), owner.id, after)), take_stream_place())
    return Response(stream, mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def follow(koz_arena: Arena, account_id: str, after: int) -> Iterator[bytes]:
    settings = koz_arena.settings
    announcements = koz_arena.games.announcements
    ends = time.monotonic() + settings.stream_max_seconds
    yield RETRY
    with announcements.waiting(koz_arena.store.events_channel_id(account_id), after) as waiter:
        while True:
            # read after registering: no event falls between the read and the wait
            page = koz_arena.events_after(account_id, after)
            for number, event in page:
                yield message(event["type"], number, event)
                after = number
            if len(page) == EVENTS_PAGE:
                continue  # a backlog longer than a page: the next page now, not once something wakes the stream
            waiter.after = after
            remaining = ends - time.monotonic()
            if remaining <= 0 or announcements.closing:
                return
            before = waiter.announced
            waiter.wait(min(settings.stream_heartbeat_seconds, remaining))
            if waiter.announced == before:
                yield HEARTBEAT
