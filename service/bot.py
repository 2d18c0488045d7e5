"""``koz bot URL GAME_ID TOKEN``: the reference bot, the worked example of a client.

It plays one seat of a game on any Koz server, over HTTP, through the public API only: it reads
the seat's view (long-polling ``?wait=&after=`` while others move), reads the history it may see
for the current deal, lets one of Koz's own computer players decide from exactly that (a
:class:`SeatInfo`, as a computer seat on the server gets), and posts the action with
``If-Match`` (the version it decided on) and an ``Idempotency-Key`` (so a retry after a lost
answer never acts twice). A 409 or 412 means the game moved on: it reads again. A 5xx, a 429 or
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


@dataclass
class Answer:
    status: int
    body: Any
    headers: Mapping[str, str]


class Unrecoverable(Exception):
    """The server refused in a way a retry cannot fix (a bad token, an unknown game)."""


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
        backoff = FIRST_BACKOFF_SECONDS
        for attempt in range(1, ATTEMPTS + 1):
            request = urllib.request.Request(self.url + path, data=data, method=method, headers=all_headers)
            try:
                with urllib.request.urlopen(request, timeout=LONG_POLL_SECONDS + 30) as response:
                    return Answer(response.status, json.loads(response.read() or b"null"), dict(response.headers))
            except urllib.error.HTTPError as error:
                answer = Answer(error.code, _json_or_none(error.read()), dict(error.headers))
                if error.code != 429 and error.code < 500:
                    return answer
                wait = _retry_after(answer.headers, backoff)
                log.info("%s %s answered %s; retrying in %.1fs", method, path, error.code, wait)
            except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
                wait = backoff
                log.info("%s %s failed (%s); retrying in %.1fs", method, path, error, wait)
            if attempt == ATTEMPTS:
                break
            self.sleep(wait)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
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


class Bot:
    """One seat of one game, played by a computer player of ``level``, each decision thinking by
    the clock, as the server's computers do, or by a count of ``work`` (the same view and seed give
    the same decision however busy the machine is)."""

    def __init__(self, http: KozHttp, game_id: str, level: str | None = None, work: int | None = None) -> None:
        self.http = http
        self.game = f"/v1/games/{urllib.parse.quote(game_id, safe='')}"
        self.game_id = game_id
        self.level = level
        self.work = work
        self.events: list[dict[str, Any]] = []  # the history this seat saw, in order
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

    def decide(self, view: dict[str, Any]) -> Action:
        level = self.level or standard_level(view["ruleset"])
        info = SeatInfo(view["ruleset"], view["seat"], view["options"], view, self.deal_events())
        budget = Budget(timer=time.perf_counter) if self.work is None else Budget(work=self.work)
        return player(level, view["ruleset"]).choose(info, f"{self.game_id}:{view['version']}:{view['seat']}", budget)

    def deal_events(self) -> tuple[dict[str, Any], ...]:
        """The current deal's events as this seat saw them, from its ``deal`` event on."""
        while True:
            page = self._expect_ok(self.http.request("GET", f"{self.game}/history?after={self.history_after}"))
            self.events += [{key: value for key, value in event.items() if key != "version"} for event in page["events"]]
            if page["next_after"] is None:
                self.history_after = page["version"]
                break
            self.history_after = page["next_after"]
        deals = [index for index, event in enumerate(self.events) if event["type"] == "deal"]
        return tuple(self.events[deals[-1] :] if deals else self.events)

    def act(self, view: dict[str, Any], action: Action) -> dict[str, Any]:
        """Post ``action`` as decided on ``view``; the new view, or a fresh one when the game had
        moved on (409, 412) and the decision must be taken again."""
        # one key per decision: the client's own retries inside `request` replay, never re-apply
        headers = {"If-Match": f'W/"{view["version"]}"', "Idempotency-Key": str(uuid.uuid4())}
        answer = self.http.request("POST", f"{self.game}/actions", action.to_json(), headers)
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


def run(url: str, game_id: str, token: str, level: str | None, work: int | None = None) -> int:
    """``koz bot``: play the seat to the end of the match; 0 when it ended, 1 when refused."""
    try:
        Bot(KozHttp(url, token), game_id, level, work).play()
    except Unrecoverable as error:
        log.error("stopped: %s", error)
        return 1
    return 0
