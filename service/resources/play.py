"""``/v1/games/{id}/play``: a seat plays over one WebSocket, its actions in and its views out.

Over HTTP a move is a request, and a client that waits for the others holds a long-poll or an
event stream besides. Here one connection carries both, as boardgame.io's clients do over
socket.io: no request per move, no second request to hear the game move on. Each action goes
through the same operation as ``POST /actions`` (the compare-and-set, idempotency keys, the
computers' replies in its commit), counted against the same rate limit; the views are the same
views. Waiting costs no thread: the connection waits on the process's one Redis subscription,
as an event stream does.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
import time
from typing import Any, Callable, Mapping

import marshmallow as ma
from flask import Response, current_app, request
from marshmallow import fields, validate
from redis.exceptions import RedisError
from simple_websocket import ConnectionClosed, Server
from werkzeug.datastructures import Headers

from ..api import SEAT_TOKEN_OPTIONAL, STORE_UNAVAILABLE, Blueprint, bearer_token, invalid_request, problem_of
from ..edge import check_json_text, check_version_bound, check_well_formed
from ..encoding import json_text
from ..errors import Problem
from ..games import Games
from ..game import Game
from ..metrics import REFUSALS, WAITING
from ..schemas import ActionSchema, RequestSchema
from ..texts import FIELD_MESSAGES, FieldMessage
from .actions import MAX_KEY_LENGTH
from .games import games
from .events import after_field, by_version, take_stream_place
from .history import reveal, seen_events

log = logging.getLogger(__name__)

blp = Blueprint("play", __name__, url_prefix="/v1/games", description="Play a game over a WebSocket")

#: the subprotocol a client asks for (``Sec-WebSocket-Protocol``), and the prefix of the one that
#: carries its seat token where it cannot send an Authorization header (a browser's WebSocket)
SUBPROTOCOL = "koz.v1"
TOKEN_SUBPROTOCOL = "koz.bearer."

#: close codes (RFC 6455): the match is over; the connection's time is up or the server stops,
#: so reconnect; the store cannot be reached, so reconnect later; a fault of the server's
CLOSE_OVER, CLOSE_GOING_AWAY, CLOSE_TRY_LATER, CLOSE_FAULT = 1000, 1001, 1013, 1011
#: why a stopping process closes its connections (by whichever of a connection's two threads sees it first)
STOPPING = "the server is stopping"
#: the statuses of a view whose match is over (``Game.status``)
ENDED = ("finished", "forfeited", "abandoned")

PROTOCOL = f"""\
A WebSocket (RFC 6455): `GET` with `Upgrade: websocket`, answered `101 Switching Protocols`.
The seat's token goes in the `Authorization` header, or, from a browser, as a subprotocol:
`Sec-WebSocket-Protocol: {SUBPROTOCOL}, {TOKEN_SUBPROTOCOL}<token>` (the server chooses `{SUBPROTOCOL}`).
Without a token the connection is a spectator's: it sees the views and may not act.

Every message is a JSON text. The server sends:

- `{{"type": "view", "view": GameView}}`: the seat's view, at once on connecting and then at each
  new version, in version order;
- `{{"type": "history", "version": v, "events": [HistoryEvent, ...]}}`, only when the connection
  asks for it with `after`: what version `v` did, as `GET /history` shows it to the seat, one
  message per version, in order; first the history after `after`, then each version's before
  the view (or the `acted` answer) that shows it, so that a client that decides from the history
  (as `koz bot` does) needs no request of its own;
- `{{"type": "acted", "id": ..., "replayed": false, "view": GameView}}`: the answer to an `act`,
  the view as `POST /actions` answers it (`replayed` as its `Idempotent-Replayed`);
- `{{"type": "problem", "id": ..., "problem": Problem}}`: an `act` refused, with the problem
  `POST /actions` answers (same `code`, `status` and texts); the connection stays open. A refusal
  that `POST /actions` answers with `Retry-After` (429 `rate_limited`, 503) carries its seconds as
  `"retry_after"`;
- `{{"type": "reveal", "version": v, "reveal": Reveal}}`: the match is over; the server then
  closes the connection (code 1000).

The client sends `{{"type": "act", "action": Action, "version": 4, "key": "...", "id": ...}}`:
`action` as posted to `POST /actions`; `version` (optional) the version the action was decided on,
as `If-Match` (412 `stale_version` if the game moved on); `key` (optional) an idempotency key, as
`Idempotency-Key`; `id` (optional, a string or an integer) is echoed in the answer. Acts are
answered in the order they are sent, each counted against the same rate limit as
`POST /actions`. A message that is not an `act` is answered with a `problem` (400
`invalid_request`, `malformed_json`, ...). A message over the body limit (`KOZ_MAX_BODY_BYTES`)
closes the connection (code 1009).
If the server cannot reach its store it closes the connection with 1013 (connect again later);
a fault of its own closes it with 1011.

The server pings every `KOZ_STREAM_HEARTBEAT_SECONDS` and closes a connection that did not answer
the last ping; it closes every connection after `KOZ_STREAM_MAX_SECONDS` and when it stops (code
1001): connect again (with `after` the last version whose history came) and the first message
is the view as it is then. A `GET` without
`Upgrade: websocket` (or with a WebSocket version other than 13) is answered 426
`upgrade_required`; one whose `Sec-WebSocket-Key` is not 16 bytes in base64, 400 `invalid_request`."""


class ActMessageSchema(RequestSchema):
    """A client's message on the play connection."""

    type = fields.String(required=True, validate=validate.OneOf(["act"]))
    action = fields.Raw(required=True, metadata={"description": "An `Action`, as posted to `POST /actions`"})
    version = fields.Integer(
        strict=True, validate=validate.Range(min=0), metadata={"description": "As `If-Match`: the version the action was decided on"}
    )
    key = fields.String(validate=validate.Length(min=1, max=MAX_KEY_LENGTH), metadata={"description": "As `Idempotency-Key`"})
    id = fields.Raw(validate=lambda value: check_echoable(value), metadata={"description": "Echoed in the answer: a string or an integer"})


def check_echoable(value: Any) -> None:
    """An ``id`` the answer may echo: a string or an integer (not a boolean) of at most ``MAX_KEY_LENGTH`` characters."""
    if not isinstance(value, (str, int)) or isinstance(value, bool) or len(str(value)) > MAX_KEY_LENGTH:
        raise ma.ValidationError(FieldMessage(FIELD_MESSAGES["echoable_id"]).format(limit=MAX_KEY_LENGTH))


class PlayQuerySchema(RequestSchema):
    after = after_field(
        "Send the history too, from the version after this one (`-1`: the whole history), and each new version's before its view"
    )


ACT_MESSAGE = ActMessageSchema()
ACTION = ActionSchema()


@blp.route("/<game_id>/play", operation_id="playGame", websocket=True)
@blp.problems(STORE_UNAVAILABLE)
@blp.arguments(PlayQuerySchema(), location="query")
@blp.response(101, description=PROTOCOL)
@blp.problems({400: ["invalid_request"], 401: ["invalid_token"], 404: ["unknown_game"], 426: ["upgrade_required"], 429: ["too_many_streams"]})
@blp.doc(security=SEAT_TOKEN_OPTIONAL)
def play_game(query: dict[str, Any], game_id: str) -> Response:
    """Play a game over a WebSocket.

    One connection for a seat's actions and the views it is shown: the actions go through the
    same rules, checks and limits as `POST /actions`, and each new view is pushed as the game moves
    on, without a request per move. Counted with the address's event streams
    (`KOZ_STREAMS_PER_ADDRESS`): past them, 429 `too_many_streams`.
    """
    check_version_bound("after", query.get("after"), games().settings.max_versions)
    check_handshake(request.headers)
    token = bearer_token() or subprotocol_token(request.headers.get("Sec-WebSocket-Protocol", ""))
    give_back = take_stream_place()
    try:
        koz = games()
        game = koz.repository.load(game_id)
        seat = game.viewer(token)
        connection = Server.accept(
            accepted_environ(request.environ),
            subprotocols=[SUBPROTOCOL],
            max_message_size=koz.settings.max_body_bytes,
            ping_interval=koz.settings.stream_heartbeat_seconds,
        )
        with WAITING.track_inprogress():
            Channel(koz, connection, game, seat, token, current_app.extensions.get("koz_action_limit"), query.get("after")).run()
    finally:
        give_back()
    return Upgraded(connection.mode)


def check_handshake(headers: Headers) -> None:
    """Refuse an upgrade no WebSocket can be accepted from (RFC 6455, 4.2.1), before it is tried:
    a version other than 13 with 426 and the version spoken, a key that is not 16 bytes in
    base64 with 400."""
    if headers.get("Sec-WebSocket-Version") != "13":
        headers_426 = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13"}
        raise Problem(426, "upgrade_required", "upgrade_required", headers=headers_426)
    try:
        key = base64.b64decode(headers.get("Sec-WebSocket-Key", ""), validate=True)
    except ValueError:
        key = b""
    if len(key) != 16:
        raise Problem(400, "invalid_request", "websocket_handshake", params={"header": "Sec-WebSocket-Key"})


def subprotocol_token(offered: str) -> str | None:
    """The seat token a browser offers as a subprotocol, None if it offers none."""
    for protocol in offered.split(","):
        protocol = protocol.strip()
        if protocol.startswith(TOKEN_SUBPROTOCOL) and len(protocol) > len(TOKEN_SUBPROTOCOL):
            return protocol[len(TOKEN_SUBPROTOCOL) :]
    return None


class WholeSends:
    """A connection whose ``send`` sends all it is given: simple-websocket sends a message with one
    ``send``, which may send only part of a view when the socket's buffer is full."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def send(self, data: bytes) -> int:
        self._sock.sendall(data)
        return len(data)


def accepted_environ(environ: Mapping[str, Any]) -> dict[str, Any]:
    """The request's environment as the connection is accepted from: the server's socket
    (gunicorn's, or Werkzeug's in tests) wrapped in :class:`WholeSends`, and no extension offered.
    Per-message compression is refused, as socket.io refuses it by default: a view is a few
    kilobytes, and compressing each would cost more CPU than the rest of its sending."""
    wrapped = dict(environ)
    wrapped.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
    for key in ("gunicorn.socket", "werkzeug.socket"):
        if key in wrapped:
            wrapped[key] = WholeSends(wrapped[key])
    return wrapped


class Upgraded(Response):
    """The answer to an upgraded request, which has been the connection: nothing more is written
    to it. gunicorn closes a connection on ``StopIteration``; Werkzeug's server drops it on an
    ``OSError``, but would read what the client sent after the close as another request, unless
    the socket is shut first."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def __call__(self, environ: Any, start_response: Callable[..., Any]) -> Any:
        if self.mode == "gunicorn":
            raise StopIteration()
        try:
            environ["werkzeug.socket"].shutdown(socket.SHUT_RDWR)
        except (KeyError, OSError):
            pass  # (not Werkzeug's, or already closed)
        raise ConnectionError("the connection was a WebSocket")


def as_problem(error: Exception) -> Problem | None:
    """The problem a refused message answers: a message that does not fit its schemas as a body
    would not, the rest as the requests' handlers answer them; None for a fault."""
    return invalid_request(error.messages) if isinstance(error, ma.ValidationError) else problem_of(error)


def echoed_id(body: Any) -> str | int | None:
    """The ``id`` a message asks to have echoed, if it is one that may be (a refused message's too)."""
    if not isinstance(body, dict):
        return None
    found = body.get("id")
    try:
        check_echoable(found)
    except ma.ValidationError:
        return None
    return found  # (checked: a string or an integer)


class Channel:
    """One play connection: a seat's acts answered in order, and each new version's view pushed
    by a follower thread (a greenlet under gevent) that waits for the game's announcements.

    An act and its answer, and each view the follower shows, take turns (``turn``): the view of a
    version an act answered with is not sent again, and no view is sent ahead of the act's answer
    that made it."""

    def __init__(
        self,
        koz: Games,
        connection: Server,
        game: Game,
        seat: int | None,
        token: str | None,
        limit: Callable[[str | None], None] | None,
        history_after: int | None = None,
    ) -> None:
        self.koz = koz
        self.connection = connection
        self.game_id = game.id
        self.seat = seat
        self.token = token
        self.limit = limit
        self.first: Game | None = game
        self.turn = threading.RLock()
        #: the version of the last view sent: a view is never sent twice, nor after a later one
        self.shown = -1
        #: the last version whose history was sent; None: the connection did not ask for the history
        self.history_after = history_after
        self.ends = time.monotonic() + koz.settings.stream_max_seconds
        self.open = True

    def run(self) -> None:
        follower = threading.Thread(target=self.follow, name=f"play {self.game_id}", daemon=True)
        follower.start()
        try:
            while self.open and self.connection.connected:
                wait = self.ends - time.monotonic()
                if self.koz.announcements.closing:
                    self.close(CLOSE_GOING_AWAY, STOPPING)
                    return
                if wait <= 0:
                    self.close(CLOSE_GOING_AWAY, "the connection's time is up")
                    return
                text = self.connection.receive(timeout=min(wait, self.koz.settings.stream_heartbeat_seconds))
                if text is not None:
                    self.answer(text)
        except ConnectionClosed:
            pass
        except Exception:  # the connection is no longer HTTP: a fault closes it rather than answer a 500
            log.exception("a play connection to game %s failed", self.game_id)
            self.close(CLOSE_FAULT, "server error")
        finally:
            self.open = False
            follower.join()

    def follow(self) -> None:
        """Show the first view, then each new version's, until the match is over or the connection
        closes; closed if the store cannot be read (the client connects again later)."""
        try:
            self._follow()
        except RedisError as error:
            log.warning("a play connection to game %s lost the store: %s", self.game_id, type(error).__name__)
            self.close(CLOSE_TRY_LATER, "storage unavailable")
        except Exception:
            log.exception("a play connection to game %s failed", self.game_id)
            self.close(CLOSE_FAULT, "server error")

    def _follow(self) -> None:
        first, self.first = self.first, None  # a waiting connection holds no copy of the game, as a long-poll
        assert first is not None
        version = first.version
        with self.koz.announcements.waiting(self.game_id, version) as waiter:
            with self.turn:
                if not self.show(first):
                    return
            del first
            read_after_registration = False  # the first view was read before the registration
            while self.open:
                heard = self.koz.waiting.wait_for_version(
                    self.game_id, version, self.koz.settings.stream_heartbeat_seconds, waiter if read_after_registration else None
                )
                read_after_registration = True
                if self.koz.announcements.closing:  # the process is stopping: the client connects to another
                    self.close(CLOSE_GOING_AWAY, STOPPING)
                    return
                if heard == version:
                    continue
                if heard is None:  # the game expired
                    self.close(CLOSE_GOING_AWAY, "the game expired")
                    return
                version = heard
                with self.turn:
                    if heard <= self.shown:  # an act's answer showed it
                        continue
                    game = self.koz.repository.load_announced(self.game_id, heard)
                    if game is None:
                        self.close(CLOSE_GOING_AWAY, "the game expired")
                        return
                    if not self.show(game):
                        return

    def show(self, game: Game) -> bool:
        """Send ``game``'s view unless one as late was sent, and once the match is over its
        reveal, and close; whether to go on. The caller holds ``turn``."""
        if game.version > self.shown:
            self.shown = game.version
            if not self.send_history(game, game.version) or not self.send({"type": "view", "view": game.view(self.seat)}):
                return False
        if not game.over:
            return True
        self.send({"type": "reveal", "version": game.version, "reveal": reveal(game)})
        self.close(CLOSE_OVER, "the match is over")
        return False

    def answer(self, text: str | bytes) -> None:
        """Apply an ``act`` message and answer it, or answer why not."""
        with self.turn:
            message_id = None
            try:
                body = self.parse(text)
                message_id = echoed_id(body)
                message = self.check(body)
                if self.limit is not None:
                    self.limit(self.token)
                view, replayed = self.koz.act(
                    self.game_id, self.token, message["action"], decided_on=message.get("version"), idempotency_key=message.get("key")
                )
            except Exception as error:
                problem = as_problem(error)
                if problem is None:
                    raise
                REFUSALS.labels(problem.code).inc()
                refused = {"type": "problem", "id": message_id, "problem": problem.to_json()}
                if "Retry-After" in problem.headers:  # what the header says over HTTP: in seconds
                    refused["retry_after"] = int(problem.headers["Retry-After"])
                self.send(refused)
                return
            self.shown = max(self.shown, view["version"])
            if self.history_after is not None and view["version"] > self.history_after:
                acted = self.koz.repository.load_announced(self.game_id, view["version"])
                if acted is not None and not self.send_history(acted, view["version"]):
                    return
            if self.send({"type": "acted", "id": message_id, "replayed": replayed, "view": view}) and view["status"] in ENDED:
                ended = self.koz.repository.load(self.game_id)
                self.show(ended)

    def send_history(self, game: Game, up_to: int) -> bool:
        """Send the history of the versions up to ``up_to`` not sent yet, if the connection asked
        for it (the caller holds ``turn``); whether the connection is still open."""
        if self.history_after is None or up_to <= self.history_after:
            return True
        for version, events in by_version(seen_events(self.koz, game, self.seat, self.history_after, up_to)).items():
            if not self.send({"type": "history", "version": version, "events": events}):
                return False
        self.history_after = up_to
        return True

    @staticmethod
    def parse(text: str | bytes) -> Any:
        """A message's JSON, checked as the edge checks a body: within the limits, well-formed text."""
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        check_json_text(data)
        try:
            body = json.loads(data)
        except ValueError:
            raise Problem(400, "malformed_json", "malformed_json") from None
        check_well_formed(body)
        return body

    @staticmethod
    def check(body: Any) -> dict[str, Any]:
        """An ``act`` message whose action has a known type, else the 400 a body like it gets."""
        message: dict[str, Any] = ACT_MESSAGE.load(body)
        try:
            ACTION.load(message["action"])
        except ma.ValidationError as error:
            raise ma.ValidationError({"action": error.messages}) from None
        return message

    def send(self, message: dict[str, Any]) -> bool:
        """Send one message (the caller holds ``turn``); whether the connection is still open."""
        try:
            self.connection.send(json_text(message))
            return True
        except (ConnectionClosed, OSError):
            self.open = False
            return False

    def close(self, code: int, reason: str) -> None:
        with self.turn:
            try:
                self.connection.close(code, reason)
            except (ConnectionClosed, OSError):
                pass
