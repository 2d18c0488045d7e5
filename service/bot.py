"""``koz bot URL GAME_ID TOKEN``: the reference bot, the worked example of a client.

It plays one seat of a game on any Koz server, over HTTP, through the public API only: it reads
the seat's view (long-polling ``?wait=&after=`` while others move), reads the history it may see
for the current deal, lets one of Koz's own computer players decide from exactly that (a
:class:`SeatInfo`, as a computer seat on the server gets), and posts the action with
``If-Match`` (the version it decided on) and an ``Idempotency-Key`` (so a retry after a lost
answer never acts twice), asking the answer to wait for its next turn (``?wait=``: the
long-polls after its move spared). A 409 or 412 means the game moved on: it reads again. A 5xx, a 429 or
a broken connection is retried with backoff. It stops when the match is over.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import websocket

from engine.actions import Action
from engine.players import Budget, SeatInfo, player, standard_level

log = logging.getLogger("koz.bot")

#: how long one long-poll may hold (the server caps it too)
LONG_POLL_SECONDS = 20
#: how many times one request is tried when the server or the network fails
ATTEMPTS = 8
FIRST_BACKOFF_SECONDS = 0.2
MAX_BACKOFF_SECONDS = 5.0
OVER = ("finished", "abandoned")
#: close codes (RFC 6455): the match is over; connect again; none given; the connection refused something a retry cannot fix
CLOSE_OVER, CLOSE_GOING_AWAY, CLOSE_NO_CODE = 1000, 1001, 1005
REFUSED_FOR_GOOD = (1002, 1003, 1007, 1009)
#: how long a play connection may bring nothing, not even the server's ping, before it is taken
#: for lost (a network that drops it silently) and made again
SILENCE_SECONDS = LONG_POLL_SECONDS + 30


@dataclass
class Answer:
    status: int
    body: Any
    headers: Mapping[str, str]


class Unrecoverable(Exception):
    """The server refused in a way a retry cannot fix (a bad token, an unknown game)."""


class Backoff:
    """The pauses between attempts after failures in a row: doubling from
    :data:`FIRST_BACKOFF_SECONDS` up to :data:`MAX_BACKOFF_SECONDS`, at most :data:`ATTEMPTS`
    attempts."""

    def __init__(self, sleep: Callable[[float], None]) -> None:
        self.sleep = sleep
        self.reset()

    def reset(self) -> None:
        """An attempt succeeded: the next failure starts afresh."""
        self.seconds, self.failures = FIRST_BACKOFF_SECONDS, 0

    def failed(self) -> bool:
        """One more failure in a row; whether another attempt may be made."""
        self.failures += 1
        return self.failures < ATTEMPTS

    def pause(self, asked: float | None = None) -> None:
        """Wait before the next attempt: ``asked`` (the server's Retry-After) or the backoff's own."""
        self.sleep(self.seconds if asked is None else asked)
        self.seconds = min(self.seconds * 2, MAX_BACKOFF_SECONDS)


class KozHttp:
    """The few HTTP calls a seat needs, retried with backoff on 5xx, 429 and network failures."""

    def __init__(self, url: str, token: str, sleep: Callable[[float], None] = time.sleep) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.sleep = sleep

    def request(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None) -> Answer:
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json", **(headers or {})}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        backoff = Backoff(self.sleep)
        while True:
            request = urllib.request.Request(self.url + path, data=data, method=method, headers=all_headers)
            try:
                with urllib.request.urlopen(request, timeout=LONG_POLL_SECONDS + 30) as response:
                    return Answer(response.status, json.loads(response.read() or b"null"), dict(response.headers))
            except urllib.error.HTTPError as error:
                answer = Answer(error.code, _json_or_none(error.read()), dict(error.headers))
                if error.code != 429 and error.code < 500:
                    return answer
                wait = _retry_after(answer.headers, backoff.seconds)
                log.info("%s %s answered %s; retrying in %.1fs", method, path, error.code, wait)
            except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
                wait = backoff.seconds
                log.info("%s %s failed (%s); retrying in %.1fs", method, path, error, wait)
            if not backoff.failed():
                break
            backoff.pause(wait)
        raise Unrecoverable(f"{method} {path} still failing after {ATTEMPTS} attempts")


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _retry_after(headers: Mapping[str, str], backoff: float) -> float:
    try:
        return min(float(headers.get("Retry-After", backoff)), MAX_BACKOFF_SECONDS)
    except ValueError:
        return backoff


class Seat:
    """One seat of one game, played by a computer player of ``level`` from what the seat saw (its
    view and the current deal's history, a :class:`SeatInfo` as a computer seat on the server
    gets), each decision thinking by the clock, as the server's computers do, or by a count of
    ``work`` (the same view and seed give the same decision however busy the machine is)."""

    def __init__(self, game_id: str, level: str | None = None, work: int | None = None) -> None:
        self.game_id = game_id
        self.level = level
        self.work = work
        self.events: list[dict[str, Any]] = []  # the history this seat saw, in order

    def saw(self, events: list[dict[str, Any]]) -> None:
        self.events += [{key: value for key, value in event.items() if key != "version"} for event in events]

    def decide(self, view: dict[str, Any]) -> Action:
        level = self.level or standard_level(view["ruleset"])
        info = SeatInfo(view["ruleset"], view["seat"], view["options"], view, self.deal_events())
        budget = Budget(timer=time.perf_counter) if self.work is None else Budget(work=self.work)
        return player(level, view["ruleset"]).choose(info, f"{self.game_id}:{view['version']}:{view['seat']}", budget)

    def deal_events(self) -> tuple[dict[str, Any], ...]:
        """The current deal's events as this seat saw them, from its ``deal`` event on."""
        deals = [index for index, event in enumerate(self.events) if event["type"] == "deal"]
        return tuple(self.events[deals[-1] :] if deals else self.events)


class Bot(Seat):
    """A seat played over HTTP: long-polls for its turn, reads the history it has not read
    before each decision, and posts its actions."""

    def __init__(self, http: KozHttp, game_id: str, level: str | None = None, work: int | None = None) -> None:
        super().__init__(game_id, level, work)
        self.http = http
        self.game = f"/v1/games/{urllib.parse.quote(game_id, safe='')}"
        self.history_after = -1

    def play(self) -> dict[str, Any]:
        """Play until the match is over; returns the last view."""
        view = self.read_view(after=None)
        while view["status"] not in OVER:
            if not view["legal_actions"]:
                view = self.read_view(after=view["version"])
                continue
            view = self.act(view, self.decide(view))
        log.info("match over (%s): scores %s, winners %s", view["status"], view["scores"], view.get("winners"))
        return view

    def read_view(self, after: int | None) -> dict[str, Any]:
        """The seat's view; with ``after``, held by the server until the version passes it."""
        query = "" if after is None else f"?wait={LONG_POLL_SECONDS}&after={after}"
        return self._expect_ok(self.http.request("GET", self.game + query))

    def deal_events(self) -> tuple[dict[str, Any], ...]:
        while True:
            page = self._expect_ok(self.http.request("GET", f"{self.game}/history?after={self.history_after}"))
            self.saw(page["events"])
            if page["next_after"] is None:
                self.history_after = page["version"]
                break
            self.history_after = page["next_after"]
        return super().deal_events()

    def act(self, view: dict[str, Any], action: Action) -> dict[str, Any]:
        """Post ``action`` as decided on ``view``; the new view, or a fresh one when the game had
        moved on (409, 412) and the decision must be taken again."""
        # one key per decision: the client's own retries inside `request` replay, never re-apply
        headers = {"If-Match": f'W/"{view["version"]}"', "Idempotency-Key": str(uuid.uuid4())}
        answer = self.http.request("POST", f"{self.game}/actions?wait={LONG_POLL_SECONDS}", action.to_json(), headers)
        if answer.status in (409, 412):
            log.info("%s: %s; reading the game again", answer.status, (answer.body or {}).get("code"))
            return self.read_view(after=None)
        return self._expect_ok(answer)

    @staticmethod
    def _expect_ok(answer: Answer) -> dict[str, Any]:
        if answer.status != 200:
            problem = answer.body if isinstance(answer.body, dict) else {}
            raise Unrecoverable(f"{answer.status} {problem.get('code', '')}: {problem.get('detail', answer.body)}")
        body: dict[str, Any] = answer.body
        return body


class SocketBot(Seat):
    """A seat played over its play connection (``/v1/games/{id}/play?after=``): the views, the
    history and the answers to its acts come on one WebSocket, each act a message; no request per
    move. The connection is made again, asking for the history after the last version that came
    (nothing is read twice or missed), when the server closes it to be made again (its time is up
    or it stops: 1001; it lost its store: 1013; a fault: 1011) or the network fails, with backoff.
    An act left unanswered then is decided again on the view the new connection shows: one that
    was applied shows in it, one that was not is refused if it reaches the server after all, as
    it was decided on a version the game moved past."""

    def __init__(
        self,
        url: str,
        token: str,
        game_id: str,
        level: str | None = None,
        work: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        silence_seconds: float = SILENCE_SECONDS,
    ) -> None:
        super().__init__(game_id, level, work)
        base = url.rstrip("/").replace("http", "ws", 1)
        self.address = f"{base}/v1/games/{urllib.parse.quote(game_id, safe='')}/play"
        self.token = token
        self.sleep = sleep
        self.silence_seconds = silence_seconds
        self.history_after = -1
        self.view: dict[str, Any] | None = None
        #: the version of the view last decided on, and whether that act waits for its answer
        self.decided_on: int | None = None
        self.waiting = False
        #: how many messages came, over all connections
        self.heard = 0

    def play(self) -> dict[str, Any]:
        """Play until the match is over; returns the last view."""
        backoff = Backoff(self.sleep)
        while True:
            heard = self.heard
            code = self.connect_and_follow()
            if code == CLOSE_OVER and self.view is not None:
                log.info("match over (%s): scores %s, winners %s", self.view["status"], self.view["scores"], self.view.get("winners"))
                return self.view
            self.decided_on, self.waiting = None, False
            if self.heard > heard:  # that connection played: the next one starts afresh
                backoff.reset()
                if code == CLOSE_GOING_AWAY:
                    continue  # made again at once: its time was up, or that server stops
            elif not backoff.failed():
                raise Unrecoverable(f"the play connection failed {ATTEMPTS} times in a row")
            backoff.pause()

    def connect_and_follow(self) -> int | None:
        """One connection, followed until the server closes it: its close code; None if it could
        not be made or broke. A refusal no retry can fix (a bad token, an unknown game) raises."""
        try:
            connection = websocket.create_connection(
                f"{self.address}?after={self.history_after}", header={"Authorization": f"Bearer {self.token}"}, timeout=self.silence_seconds
            )
        except websocket.WebSocketBadStatusException as refused:
            if refused.status_code != 429 and refused.status_code < 500:
                problem = _json_or_none(refused.resp_body or b"")
                said = problem if isinstance(problem, dict) else {}
                body = (refused.resp_body or b"").decode("utf-8", "replace")
                raise Unrecoverable(f"{refused.status_code} {said.get('code', '')}: {said.get('detail', body)}") from None
            log.info("the play connection was refused (%s); trying again", refused.status_code)
            return None
        except (OSError, websocket.WebSocketException) as error:
            log.info("the play connection failed (%s); trying again", error)
            return None
        try:
            code = self.follow(connection)
        except (OSError, websocket.WebSocketException) as error:
            log.info("the play connection broke (%s); connecting again", error)
            return None
        finally:
            connection.close()
        if code in REFUSED_FOR_GOOD:
            raise Unrecoverable(f"the server closed the play connection: {code}")
        return code

    def follow(self, connection: websocket.WebSocket) -> int | None:
        """Read, decide and act on one connection until the server closes it: its close code."""
        while True:
            opcode, data = connection.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                return int.from_bytes(data[:2], "big") if len(data) >= 2 else CLOSE_NO_CODE
            if opcode not in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
                continue  # a ping (the library answers it) or a pong
            message = json.loads(data)
            self.heard += 1
            kind = message["type"]
            if kind == "history":
                self.saw(message["events"])
                self.history_after = message["version"]
            elif kind in ("view", "acted"):
                self.waiting = self.waiting and kind != "acted"
                if self.view is None or message["view"]["version"] >= self.view["version"]:
                    self.view = message["view"]
            elif kind == "problem":
                self.waiting = False
                self.refused(message["problem"], message.get("retry_after"))
            view = self.view
            if not self.waiting and view is not None and view["legal_actions"] and view["status"] not in OVER and view["version"] != self.decided_on:
                self.decided_on, self.waiting = view["version"], True
                action = self.decide(view)
                connection.send(json.dumps({"type": "act", "action": action.to_json(), "version": view["version"], "key": str(uuid.uuid4())}))

    def refused(self, problem: dict[str, Any], retry_after: float | None = None) -> None:
        """An act refused: decided again on the view the game moved on to (409, 412: pushed, if
        not already here), or on the same one after a pause (429, 5xx: the ``retry_after`` the
        server asks, up to the backoff's cap); any other refusal stops the bot."""
        status = problem.get("status")
        if status in (409, 412):
            log.info("%s: %s; deciding on the view the game moved on to", status, problem.get("code"))
        elif status == 429 or (isinstance(status, int) and status >= 500):
            pause = FIRST_BACKOFF_SECONDS if retry_after is None else min(retry_after, MAX_BACKOFF_SECONDS)
            log.info("%s: %s; deciding again in %.1fs", status, problem.get("code"), pause)
            self.sleep(pause)
            self.decided_on = None
        else:
            raise Unrecoverable(f"{status} {problem.get('code', '')}: {problem.get('detail', '')}")


def run(url: str, game_id: str, token: str, level: str | None, work: int | None = None, socket: bool = False) -> int:
    """``koz bot``: play the seat to the end of the match (over HTTP, or over its WebSocket);
    0 when it ended, 1 when refused."""
    try:
        seat(url, token, game_id, level, work, socket).play()
    except Unrecoverable as error:
        log.error("stopped: %s", error)
        return 1
    return 0


def seat(url: str, token: str, game_id: str, level: str | None, work: int | None, socket: bool) -> Bot | SocketBot:
    """The seat's player: over the game's WebSocket, or over HTTP."""
    return SocketBot(url, token, game_id, level, work) if socket else Bot(KozHttp(url, token), game_id, level, work)
