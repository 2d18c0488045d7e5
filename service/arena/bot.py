"""``koz bot URL --arena RULESET --key KEY [--level L]``: the reference bot in the arena.

It seeks a match, follows the account's event stream (``GET /v1/arena/events``, resumed with
``Last-Event-ID`` whenever it ends or breaks), plays every game the stream starts with today's
``koz bot`` (:class:`service.bot.Bot`, or with ``socket`` :class:`service.bot.SocketBot`: the seat
token the stream hands over, the game API only),
and seeks again when a match finishes or a seek expires, until stopped (or ``matches`` played).
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Iterator

from ..bot import KozHttp, Unrecoverable, seat

log = logging.getLogger("koz.bot")

#: how long the bot waits before reading its stream again after it broke
RECONNECT_SECONDS = 1.0


class ArenaBot:
    def __init__(
        self,
        url: str,
        key: str,
        ruleset: str,
        level: str | None = None,
        *,
        options: dict[str, Any] | None = None,
        rated: bool = True,
        house_after: float | None = None,
        matches: int | None = None,
        work: int | None = None,
        partner: str | None = None,
        socket: bool = False,
    ) -> None:
        self.http = KozHttp(url, key)
        self.url = url.rstrip("/")
        self.key = key
        self.seek_body: dict[str, Any] = {"ruleset": ruleset, "options": options or {}, "rated": rated}
        if house_after is not None:
            self.seek_body["house_after_seconds"] = house_after
        if partner is not None:
            self.seek_body["partner"] = partner
        self.level = level
        self.work = work
        self.socket = socket
        self.matches = matches
        self.finished = 0
        self.last_event = 0
        self.players: list[threading.Thread] = []

    def seek(self) -> None:
        answer = self.http.request("POST", "/v1/arena/seeks", self.seek_body)
        if answer.status not in (200, 201):
            raise Unrecoverable(f"{answer.status} {(answer.body or {}).get('code', '')}: {(answer.body or {}).get('detail', '')}")

    def run(self) -> None:
        """Seek, play what the stream starts, seek again; until ``matches`` finished (None: forever)."""
        self.seek()
        while self.matches is None or self.finished < self.matches:
            try:
                for event in self.events():
                    self.handle(event)
                    if self.matches is not None and self.finished >= self.matches:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as error:
                log.info("arena stream broke (%s); reading it again", error)
                time.sleep(RECONNECT_SECONDS)
        for player in self.players:
            player.join()

    def handle(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "match_started":
            log.info("match %s started: seat %s against %s", event["game"], event["seat"], [player["name"] for player in event["players"]])
            player = threading.Thread(target=self.play, args=(event["game"], event["token"]), daemon=True)
            player.start()
            self.players.append(player)
        elif kind == "match_finished":
            self.finished += 1
            log.info("match %s: %s, rating %+.2f", event["game"], event["outcome"], event["rating_change"])
            if self.matches is None or self.finished < self.matches:
                self.seek()
        elif kind == "seek_expired":
            self.seek()

    def play(self, game_id: str, token: str) -> None:
        try:
            seat(self.url, token, game_id, self.level, self.work, self.socket).play()
        except Unrecoverable as error:
            log.error("game %s stopped: %s", game_id, error)

    def events(self) -> Iterator[dict[str, Any]]:
        """The account's events after the last one seen, until the stream ends."""
        headers = {"Authorization": f"Bearer {self.key}", "Accept": "text/event-stream", "Last-Event-ID": str(self.last_event)}
        request = urllib.request.Request(f"{self.url}/v1/arena/events", headers=headers)
        with urllib.request.urlopen(request, timeout=60) as stream:
            number, data = None, None
            for raw in stream:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("id: "):
                    number = int(line[4:])
                elif line.startswith("data: "):
                    data = line[6:]
                elif line == "" and data is not None:
                    if number is not None:
                        self.last_event = number
                    yield json.loads(data)
                    number, data = None, None


def run(
    url: str,
    key: str,
    ruleset: str,
    level: str | None,
    house_after: float | None,
    matches: int | None,
    rated: bool = True,
    options: dict[str, Any] | None = None,
    work: int | None = None,
    partner: str | None = None,
    socket: bool = False,
) -> int:
    """``koz bot --arena``: 0 when stopped after its matches, 1 when refused."""
    try:
        ArenaBot(
            url,
            key,
            ruleset,
            level,
            options=options,
            house_after=house_after,
            matches=matches,
            rated=rated,
            work=work,
            partner=partner,
            socket=socket,
        ).run()
    except Unrecoverable as error:
        log.error("stopped: %s", error)
        return 1
    return 0
