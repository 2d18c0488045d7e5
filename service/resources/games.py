"""``/v1/games``: create a game, and see it as one seat or as a spectator (the schemas are in
:mod:`.game_schemas`)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from flask import Response, current_app, request, url_for
from werkzeug.sansio.response import Response as BaseResponse

from ..api import SEAT_TOKEN_OPTIONAL, SEAT_TOKEN_REQUIRED, STORE_UNAVAILABLE, STORE_UNAVAILABLE_OR_FULL, Blueprint, bearer_token, header_parameter
from ..edge import check_version_bound
from ..limits import client_address
from ..metrics import WAITING
from ..games import Games, version_matches
from ..shared import Rendered
from ..waiting import ShownView
from .game_schemas import GameCreatedSchema, GameCreateSchema, GameViewSchema, LobbySchema, LobbyQuerySchema, ViewQuerySchema

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Create games and see them")


ETAG_HEADER = {"ETag": {"description": "`W/\"<version>\"`", "schema": {"type": "string"}}}
IF_NONE_MATCH = header_parameter("If-None-Match", "An ETag from an earlier view: 304 while the version is the same")


def view_response(view: dict[str, Any]) -> BaseResponse:
    """A view as JSON with its ETag, marked private: what it shows depends on the token.

    Sent as built, not dumped through :class:`GameViewSchema`: the engine and the game build it
    in the schema's shape already (tests/test_schemas_mirror_engine.py holds every view to it),
    and the dump took more time than the rest of an action's work in the web process."""
    return private(current_app.json.response(view), view["version"])


def rendered_response(view: Rendered[ShownView]) -> BaseResponse:
    """A view already rendered as JSON (a long-poll's, shared with the others it woke), as :func:`view_response` answers it."""
    return private(Response(view.value.json, mimetype="application/json"), view.version)


def private_headers(version: int) -> dict[str, str]:
    """The headers of an answer that depends on the token: the version as a weak ETag, and private."""
    return {"ETag": f'W/"{version}"', "Vary": "Authorization", "Cache-Control": "private, no-cache"}


def private(response: BaseResponse, version: int) -> BaseResponse:
    response.headers.update(private_headers(version))
    return response


def games() -> Games:
    koz: Games = current_app.extensions["koz"]
    return koz


@blp.route("", methods=["POST"], operation_id="createGame")
@blp.problems(STORE_UNAVAILABLE_OR_FULL)
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
        429: ["rate_limited", "too_many_waiting_games"],
    }
)
def create_game(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Create a game.

    Each seat is a human (a token is issued for it, returned once, here), an open seat
    (`{"open": true}`: the game waits until someone takes it; an invitation is the game's URL
    and the seat, plus its join code in a `private` game) or a computer player of a named
    level. Without `seats`, the standard table: the ruleset's human seats (see the
    catalog) against computer players. Computer seats move at once when it is their turn; a
    game of computer seats only plays itself to the end.
    """
    game, tokens, codes = games().create(
        body["ruleset"],
        body.get("options"),
        body.get("seats"),
        body.get("seed"),
        private=body["private"],
        clock=body.get("clock"),
        address=client_address(),
    )
    created = {
        "id": game.id,
        "ruleset": game.ruleset.id,
        "options": game.options,
        "version": game.version,
        "status": game.status,
        "seats": game.seat_list(),
        "tokens": [{"seat": seat, "token": token} for seat, token in sorted(tokens.items())],
        "join_codes": [{"seat": seat, "code": code} for seat, code in sorted(codes.items())],
        "seed_commitment": game.seed_commitment,
        "seed_source": game.seed_source,
    }
    return created, 201, {"Location": url_for("games.get_game", game_id=game.id)}


@blp.route("/<game_id>", methods=["DELETE"], operation_id="withdrawGame")
@blp.problems(STORE_UNAVAILABLE)
@blp.response(204, description="Withdrawn: the game is gone, from the lobby too")
@blp.problems(
    {
        401: ["missing_token", "invalid_token"],
        403: ["not_the_creator"],
        404: ["unknown_game"],
        409: ["game_started"],
        410: ["game_unreadable"],
    }
)
@blp.doc(security=SEAT_TOKEN_REQUIRED)
def withdraw_game(game_id: str) -> Response:
    """Withdraw a waiting game.

    Its creator (the token of a seat given when the game was made) takes back the invitation
    while the game waits for players: the game is deleted and leaves the lobby; whoever took a
    seat meanwhile loses it. Once every seat is taken and the game started: 409 `game_started`
    (leave it instead).
    """
    games().withdraw(game_id, bearer_token())
    return Response(status=204)


@blp.route("/<game_id>", operation_id="getGame")
@blp.problems(STORE_UNAVAILABLE)
@blp.arguments(ViewQuerySchema(), location="query")
@blp.response(200, GameViewSchema, headers=ETAG_HEADER)
@blp.alt_response(304, description="Not Modified: the version named in If-None-Match is current", headers=ETAG_HEADER)
@blp.problems({400: ["invalid_request"], 401: ["invalid_token"], 404: ["unknown_game"], 410: ["game_unreadable"]})
@blp.doc(security=SEAT_TOKEN_OPTIONAL, parameters=[IF_NONE_MATCH])
def get_game(query: dict[str, Any], game_id: str) -> BaseResponse:
    """See a game.

    With a seat's token, that seat's view: its hand and its legal actions. Without one, the
    spectator view: public information only. Long-poll with `?wait=<seconds>&after=<version>`.
    """
    check_version_bound("after", query.get("after"), games().settings.max_versions)
    with WAITING.track_inprogress() if query["wait"] > 0 and query.get("after") is not None else nullcontext():
        shown = games().waiting.watch_view(game_id, bearer_token(), query["wait"], query.get("after"))
    condition = request.headers.get("If-None-Match")
    if condition is not None and version_matches(condition, shown.version):
        return private(Response(status=304), shown.version)
    return rendered_response(shown)


@blp.route("", methods=["GET"], operation_id="listWaitingGames")
@blp.problems(STORE_UNAVAILABLE)
@blp.arguments(LobbyQuerySchema, location="query")
@blp.response(200, LobbySchema)
@blp.problems({400: ["invalid_request", "unknown_ruleset"]})
def list_games(query: dict[str, Any]) -> dict[str, Any]:
    """Find a game to join.

    Public games with an open seat, newest first, paged: public information only. Private
    games and games whose seed was chosen by their creator are never listed.
    """
    page, next_before = games().lobby(query.get("ruleset"), query["limit"], query.get("before"))
    listed = [
        {
            "id": game.id,
            "url": url_for("games.get_game", game_id=game.id),
            "ruleset": game.ruleset.id,
            "options": game.options,
            "seats": game.seat_list(),
            "open_seats": [index for index, seat in enumerate(game.seats) if seat.open],
            "seed_commitment": game.seed_commitment,
            "seed_source": game.seed_source,
            "created_at": game.created_at,
        }
        for game in page
    ]
    return {"games": listed, "next_before": next_before}
