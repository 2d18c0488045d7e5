"""``/v1/games/{id}/events``: a game as it happens, pushed as Server-Sent Events.

The stream is made of these messages, each with ``id`` the version it belongs to:

- ``history``: ``{"version": v, "events": [...]}``, the history events of version ``v`` as the
  viewer may see them (the same events as ``GET /history``), one message per version, in order;
- ``view``: the viewer's view at version ``v`` (as ``GET /v1/games/{id}``), after the history
  of ``v``;
- ``reveal``: once the match is over, however it ended (finished, forfeited, abandoned),
  ``{"version": v, "reveal": {...}}`` as in the history; the stream ends after it.

On connect the stream sends the history after ``Last-Event-ID`` (or ``?after=``), if given, then
the current view; then, at each new version, that version's history and the new view. A
comment line (``: heartbeat``) comes every few seconds while nothing happens, so that proxies
keep the connection open. Waiting costs no thread: the stream waits on the process's one Redis
subscription (``service/announcements.py``).
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any, Callable, Generator, Iterator

from flask import Response, current_app, request
from marshmallow import fields, validate

from engine import registry
from engine.cards import EXAMPLE_CODES

from ..api import SEAT_TOKEN_OPTIONAL, STORE_UNAVAILABLE, Blueprint, bearer_token, header_parameter
from ..edge import check_version_bound
from ..encoding import json_bytes, json_text
from ..errors import Problem
from ..limits import client_address
from ..metrics import WAITING
from ..per_address import PerAddress
from ..schemas import RequestSchema
from ..game import Game
from ..games import Games
from ..shared import Rendered
from ..texts import FIELD_MESSAGES, FieldMessage
from .games import games
from .history import reveal, seen_events

blp = Blueprint("events", __name__, url_prefix="/v1/games", description="Follow a game as it happens")

#: an action of the first registered ruleset and a card, for the example (the service names no game)
EXAMPLE_RULESET, EXAMPLE_CARD = registry.all_rulesets()[0].id, EXAMPLE_CODES[0]
EXAMPLE_ACTION = {"version": 4, "events": [{"version": 4, "type": "action", "seat": 1, "action": {"type": "play", "card": EXAMPLE_CARD}}]}
EXAMPLE = f"""\
retry: 2000

id: 4
event: history
data: {json_text(EXAMPLE_ACTION)}

id: 4
event: view
data: {{"id":"711156e32947e1d4","ruleset":"{EXAMPLE_RULESET}","version":4,"status":"active","seat":0,"...":"..."}}

: heartbeat

"""

STREAM_DESCRIPTION = """\
A `text/event-stream`. Messages, each with `id` = the version it belongs to:

- `event: history`, data `{"version": v, "events": [HistoryEvent, ...]}`: what version `v` did,
  as the viewer may see it;
- `event: view`, data `GameView`: the viewer's view at version `v`;
- `event: reveal`, data `{"version": v, "reveal": Reveal}`: the match is over, however it ended
  (finished, forfeited, abandoned); the stream ends.

Comment lines (`: heartbeat`) keep an idle stream open. A stream ends after an hour at most
(`KOZ_STREAM_MAX_SECONDS`): reconnect with `Last-Event-ID`, as EventSource does, and nothing is
lost."""


def after_field(description: str) -> fields.Integer:
    """A version to send the history after (``-1``: all of it), within the server's cap."""
    return fields.Integer(
        validate=validate.Range(min=-1),
        metadata={"description": f"{description}; later than the server's cap on versions (`KOZ_MAX_VERSIONS`): 400"},
    )


class EventsQuerySchema(RequestSchema):
    after = after_field("Resume after this version: its history is not sent again (`-1`: the whole history)")


LAST_EVENT_ID = header_parameter(
    "Last-Event-ID",
    "The `id` of the last message received (a version): the stream resumes after it. "
    "EventSource sends it when it reconnects; it takes precedence over `after`",
    pattern="^(-1|[0-9]+)$",
)


def last_event_id() -> int | None:
    """The Last-Event-ID header as a version, None without one; anything else is a 400."""
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return None
    if not header.isascii() or not (header == "-1" or header.isdigit()) or len(header) > 18:
        raise Problem(400, "invalid_request", "last_event_id", errors={"Last-Event-ID": [FieldMessage(FIELD_MESSAGES["last_event_id"])]})
    return int(header)


def message(kind: str, version: int, data: Any) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, kind.encode("ascii"), json_bytes(data))


#: what a stream sends first, and while nothing happens (see STREAM_DESCRIPTION)
RETRY = b"retry: 2000\n\n"
HEARTBEAT = b": heartbeat\n\n"


@blp.route("/<game_id>/events", operation_id="streamEvents")
@blp.problems(STORE_UNAVAILABLE)
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, description=STREAM_DESCRIPTION, content_type="text/event-stream")
@blp.problems({400: ["invalid_request"], 401: ["invalid_token"], 404: ["unknown_game"], 429: ["too_many_streams"]})
@blp.doc(
    security=SEAT_TOKEN_OPTIONAL,
    parameters=[LAST_EVENT_ID],
    responses={
        "200": {
            "description": STREAM_DESCRIPTION + "\n\nFor example:\n\n```text\n" + EXAMPLE + "```",
            "content": {
                "text/event-stream": {
                    # no type: a generated client reads the body as the stream's text (with `type:
                    # object` openapi-python-client parsed the whole text as one object), while a
                    # checker that reads the schema as each event's (Schemathesis) finds an object
                    "schema": {"description": "Server-Sent Events; a message's `data` is a GameView, or a history or reveal"},
                    "example": EXAMPLE,
                }
            },
        }
    },
)
def get_game_events(query: dict[str, Any], game_id: str) -> Response:
    """Follow a game (Server-Sent Events).

    With a seat's token, that seat's views and the events it may see; without one, a
    spectator's. On connect: the history after `Last-Event-ID` (or `after`) if given, then the
    current view; then each new version's history and view as it is committed. Once the match
    is over: the final events, the view, the `reveal`, and the end of the stream.

    One client address may hold `KOZ_STREAMS_PER_ADDRESS` streams open at once in a web process
    (64 by default); past them, 429 `too_many_streams` until one of them ends.
    """
    resumed = last_event_id()
    after = resumed if resumed is not None else query.get("after")
    check_version_bound("Last-Event-ID" if resumed is not None else "after", after, games().settings.max_versions)
    give_back = take_stream_place()
    try:
        koz = games()
        game = koz.repository.load(game_id)
        seat = game.viewer(bearer_token())
    except BaseException:
        give_back()
        raise
    stream = HeldStream(counted(follow(koz, game, seat, after)), give_back)
    headers = {"Cache-Control": "no-cache", "Vary": "Authorization", "X-Accel-Buffering": "no"}
    return Response(stream, mimetype="text/event-stream", headers=headers)


def take_stream_place() -> Callable[[], None]:
    """A place among the client address's open streams and play connections in this process
    (``KOZ_STREAMS_PER_ADDRESS``), else 429 ``too_many_streams``; what gives it back."""
    streams: PerAddress = current_app.extensions["koz_streams"]
    address = client_address()
    if not streams.take(address):
        raise Problem(429, "too_many_streams", "too_many_streams", headers={"Retry-After": "1"})
    return partial(streams.give_back, address)


class HeldStream:
    """A stream's body that gives its address's place back when the server closes it, whether or
    not a message of it was ever sent (a generator never started runs no ``finally``)."""

    def __init__(self, stream: Generator[bytes, None, None], give_back: Callable[[], None]) -> None:
        self.stream = stream
        self.give_back: Callable[[], None] | None = give_back

    def __iter__(self) -> Iterator[bytes]:
        return self.stream

    def close(self) -> None:
        try:
            self.stream.close()
        finally:
            if self.give_back is not None:
                self.give_back()
                self.give_back = None


def counted(stream: Iterator[bytes]) -> Generator[bytes, None, None]:
    """The stream, counted among the waiting clients while it is open."""
    with WAITING.track_inprogress():
        yield from stream


def follow(koz: Games, game: Game, seat: int | None, after: int | None) -> Iterator[bytes]:
    """The messages for ``seat`` from ``game`` on: the history after ``after`` (None: none), the
    view, then the same at each new version, until the match is over. The streams that one
    announcement wakes share one rendering of each new version's messages per seat, encoded
    once: each stream's part is writing the same bytes to its socket."""
    heartbeat = koz.settings.stream_heartbeat_seconds
    ends = time.monotonic() + koz.settings.stream_max_seconds  # bounded, as proxies like; resuming loses nothing
    yield RETRY
    # one registration for the whole stream: what is announced while a message is being sent is
    # kept for the next wait, and no wait after the first needs to read the store
    with koz.announcements.waiting(game.id, game.version) as waiter:
        registered_before_read = False  # `game` was read before the registration
        game_id = game.id
        shown = messages(koz, game, seat, after)
        del game  # as a long-poll: a waiting stream holds no copy of the game (Waiting._until_passed says why)
        while True:
            text, over = shown.value
            yield text
            if over:
                return
            after = shown.version
            while True:
                timeout = min(heartbeat, max(0.0, ends - time.monotonic()))
                version = koz.waiting.wait_for_version(game_id, after, timeout, waiter if registered_before_read else None)
                registered_before_read = True  # that wait read the store after the registration
                if version != after:
                    break
                if time.monotonic() >= ends or koz.announcements.closing:
                    return  # the client resumes with Last-Event-ID (from another process when this one stops)
                yield HEARTBEAT
            if version is None:  # the game expired
                return
            rendering = partial(shared_messages, koz, game_id, seat, after, version)
            found = koz.waiting.stream_messages.get((game_id, seat, after), version, rendering)
            if found is None:  # the game expired
                return
            shown = found


def messages(koz: Games, game: Game, seat: int | None, after: int | None) -> Rendered[tuple[bytes, bool]]:
    """What a stream at ``after`` (None: none of the history) sends for ``game``: the history
    since, the view and, once the match is over, the reveal; (that text, whether it ends the stream)."""
    text = b"".join(history_messages(koz, game, seat, after)) if after is not None and after < game.version else b""
    text += message("view", game.version, game.view(seat))  # in the schema's shape: see view_response
    if game.over:
        text += message("reveal", game.version, {"version": game.version, "reveal": reveal(game)})
    return Rendered(game.version, (text, game.over))


def shared_messages(koz: Games, game_id: str, seat: int | None, after: int, version: int) -> Rendered[tuple[bytes, bool]] | None:
    """:func:`messages` at the ``version`` announced (or later), for the streams it woke; None if the game is gone."""
    game = koz.repository.load_announced(game_id, version)
    return None if game is None else messages(koz, game, seat, after)


def history_messages(koz: Games, game: Game, seat: int | None, after: int) -> Iterator[bytes]:
    for version, events in by_version(seen_events(koz, game, seat, after, game.version)).items():
        # as built, like the history: the events have the schema's shape (tests/test_schemas_mirror_engine.py)
        yield message("history", version, {"version": version, "events": events})


def by_version(events: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """History events grouped by their version, in order: one message per version."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for event in events:
        grouped.setdefault(event["version"], []).append(event)
    return grouped
