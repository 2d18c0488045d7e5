"""The reference bots' client side, in this process: how ``koz bot`` retries, keeps one
idempotency key per decision, follows a game it cannot act in, reads its deal's history, and how
``koz bot --arena`` reads its event stream, seeks and plays what the stream starts; how
``koz bot --socket`` plays the same seat over the play connection (scripted frames, and the app).

tests/test_bot.py and tests/test_arena_bots.py run the real commands against a real server; the
server here answers from a script, so that each answer a client must cope with (a 503, a 429 with
``Retry-After``, a hang-up, a 409) comes exactly when the test says, and what the client sent is
recorded."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

import fakeredis
import pytest
import websocket

from engine.actions import Action
from engine.players import standard_level
from service import bot as service_bot
from service.arena import bot as arena_bot
from service import create_app
from service.bot import ATTEMPTS, Bot, KozHttp, SocketBot, Unrecoverable
from service.worker import WorkerThread
from tests.conftest import make_settings, serving

#: one scripted answer: writes the response to the request it is handed
Reply = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Asked:
    method: str
    path: str
    headers: Message
    body: Any


class Scripted(ThreadingHTTPServer):
    """Answers each request with the next reply of its script for the request's path, and records
    what it was asked. A path's replies are given in order; different paths' replies may be taken
    in any order (a bot plays a game on one thread while it reads its stream on another)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[tuple[str, Reply]] = []
        self.asked: list[Asked] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}"

    def answer(self, *replies: Reply, on: str = "/") -> None:
        """Answer the next requests whose path starts with ``on`` with ``replies``."""
        self.script += [(on, one) for one in replies]

    def take(self, path: str) -> Reply:
        index = next(index for index, (on, _) in enumerate(self.script) if path.startswith(on))
        return self.script.pop(index)[1]


class _Handler(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        server: Scripted = self.server  # type: ignore[assignment]
        with server.lock:
            # the path as sent: http.server folds a leading "//" into "/"
            server.asked.append(Asked(self.command, self.requestline.split()[1], self.headers, body))
            reply = server.take(self.path)
        reply(self)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


def reply(status: int, body: Any = None, headers: dict[str, str] | None = None, raw: bytes | None = None) -> Reply:
    def write(handler: BaseHTTPRequestHandler) -> None:
        payload = raw if raw is not None else b"" if body is None else json.dumps(body).encode()
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    return write


def hang_up(handler: BaseHTTPRequestHandler) -> None:
    """Close the connection without an answer."""
    handler.close_connection = True


def stream(*blocks: str) -> Reply:
    """An event stream of these blocks (``id:``/``data:`` lines, comments), then its end."""

    def write(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        for block in blocks:
            handler.wfile.write(block.encode())
        handler.close_connection = True

    return write


def event(number: int, data: dict[str, Any]) -> str:
    return f"id: {number}\ndata: {json.dumps(data)}\n\n"


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    server = Scripted()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    thread.join(10)
    server.server_close()
    assert not server.script, "the client asked less than the script expected"


def view(version: int, status: str = "playing", legal: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"version": version, "status": status, "legal_actions": legal or [], "scores": [0, 0], "ruleset": "german-whist"}


# --- KozHttp: retries ------------------------------------------------------------------------


def test_a_server_that_keeps_failing_is_tried_with_doubling_backoff_up_to_its_cap_then_given_up(scripted):
    scripted.answer(*[reply(503)] * ATTEMPTS)
    slept: list[float] = []
    with pytest.raises(Unrecoverable, match=f"GET /x still failing after {ATTEMPTS} attempts"):
        KozHttp(scripted.url, "t", sleep=slept.append).request("GET", "/x")
    assert len(scripted.asked) == ATTEMPTS
    assert slept == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]


def test_every_server_error_is_tried_again_from_500_on(scripted):
    scripted.answer(reply(500), reply(200, {"ok": True}))
    slept: list[float] = []
    assert KozHttp(scripted.url, "t", sleep=slept.append).request("GET", "/x").status == 200
    assert slept == [0.2]


def test_retry_after_is_followed_up_to_the_backoff_cap_and_a_date_falls_back_to_the_backoff(scripted):
    scripted.answer(
        reply(429, {"code": "rate_limited"}, {"Retry-After": "1"}),
        reply(503, None, {"Retry-After": "30"}),
        reply(502, None, {"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}),
        reply(200, {"ok": True}),
    )
    slept: list[float] = []
    answer = KozHttp(scripted.url, "t", sleep=slept.append).request("GET", "/x")
    assert (answer.status, answer.body) == (200, {"ok": True})
    assert slept == [1.0, 5.0, 0.8]


def test_a_hang_up_is_tried_again(scripted):
    scripted.answer(hang_up, reply(200, {"ok": True}))
    slept: list[float] = []
    answer = KozHttp(scripted.url, "t", sleep=slept.append).request("GET", "/x")
    assert (answer.status, slept) == (200, [0.2])


def test_a_server_that_is_not_there_is_tried_every_attempt_then_given_up(scripted):
    url = scripted.url
    scripted.shutdown()
    scripted.server_close()
    slept: list[float] = []
    with pytest.raises(Unrecoverable):
        KozHttp(url, "t", sleep=slept.append).request("GET", "/x")
    assert len(slept) == ATTEMPTS - 1


@pytest.mark.parametrize(
    ("status", "raw", "body"), [(404, b'{"code": "game_not_found"}', {"code": "game_not_found"}), (400, b"<html>", None), (409, b"", None)]
)
def test_a_refusal_is_answered_at_once_without_a_retry_and_its_body_read_when_it_is_json(scripted, status, raw, body):
    scripted.answer(reply(status, raw=raw))
    slept: list[float] = []
    answer = KozHttp(scripted.url, "t", sleep=slept.append).request("GET", "/x")
    assert (answer.status, answer.body, slept) == (status, body, [])


def test_every_call_carries_the_token_and_asks_for_json_and_only_a_body_is_sent_as_json(scripted):
    scripted.answer(reply(200), reply(201, {"id": "g"}, {"ETag": 'W/"1"'}))
    http = KozHttp(scripted.url + "/", "tok")
    empty = http.request("GET", "/v1/games/g")
    created = http.request("POST", "/v1/games", {"ruleset": "sixty-six"}, {"Idempotency-Key": "k"})
    got, posted = scripted.asked
    assert (got.path, got.headers["Authorization"], got.headers["Accept"], got.headers["Content-Type"], got.body) == (
        "/v1/games/g",
        "Bearer tok",
        "application/json",
        None,
        None,
    )
    assert (posted.headers["Content-Type"], posted.headers["Idempotency-Key"], posted.body) == ("application/json", "k", {"ruleset": "sixty-six"})
    assert (empty.status, empty.body) == (200, None)
    assert (created.status, created.body, created.headers["ETag"]) == (201, {"id": "g"}, 'W/"1"')


# --- Bot: acting, following, reading the deal ------------------------------------------------


def test_a_decision_is_posted_with_the_version_it_was_taken_on_waiting_for_the_next_turn_and_its_retries_keep_its_idempotency_key(scripted):
    scripted.answer(reply(503), reply(200, view(8)), reply(200, view(9)))
    bot = Bot(KozHttp(scripted.url, "tok", sleep=lambda seconds: None), "g/1")
    play = Action.from_json({"type": "play", "card": "AS"})
    assert bot.act(view(7), play) == view(8)
    assert bot.act(view(8), play) == view(9)
    first, retried, second = scripted.asked
    assert [asked.path for asked in scripted.asked] == ["/v1/games/g%2F1/actions?wait=20"] * 3
    assert (first.headers["If-Match"], second.headers["If-Match"]) == ('W/"7"', 'W/"8"')
    assert first.body == retried.body == play.to_json()
    assert first.headers["Idempotency-Key"] == retried.headers["Idempotency-Key"] != second.headers["Idempotency-Key"]


@pytest.mark.parametrize("status", [409, 412])
def test_a_decision_the_game_moved_past_reads_the_game_again(scripted, status):
    scripted.answer(reply(status, {"code": "version_conflict"}), reply(200, view(9)))
    bot = Bot(KozHttp(scripted.url, "tok"), "g1")
    assert bot.act(view(7), Action.from_json({"type": "pass"})) == view(9)
    assert [(asked.method, asked.path) for asked in scripted.asked] == [("POST", "/v1/games/g1/actions?wait=20"), ("GET", "/v1/games/g1")]


def test_a_refused_decision_stops_the_bot_with_the_servers_code_and_detail(scripted):
    scripted.answer(reply(400, {"code": "illegal_action", "detail": "Follow suit."}))
    bot = Bot(KozHttp(scripted.url, "tok"), "g1")
    with pytest.raises(Unrecoverable, match="400 illegal_action: Follow suit."):
        bot.act(view(7), Action.from_json({"type": "pass"}))


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b'{"code": "unknown_game", "detail": "No such game."}', "404 unknown_game: No such game."),
        (b'{"title": "Gone"}', "404 : {'title': 'Gone'}"),
        (b"<html>", "404 : None"),
    ],
)
def test_a_refusal_stops_the_bot_with_its_code_and_detail_or_with_what_the_server_said(scripted, raw, said):
    scripted.answer(reply(404, raw=raw))
    with pytest.raises(Unrecoverable) as stopped:
        Bot(KozHttp(scripted.url, "tok"), "g1").read_view(after=None)
    assert str(stopped.value) == said


class Recording:
    """A computer player that records what it was asked and passes."""

    def __init__(self, asked: list[tuple[Any, ...]], level: str, ruleset: str) -> None:
        self.asked, self.level, self.ruleset = asked, level, ruleset

    def choose(self, info, key, budget):
        self.asked.append((self.level, self.ruleset, info, key, budget))
        return Action.from_json({"type": "pass"})


@pytest.mark.parametrize(("level", "work"), [("basic", 300), (None, None)])
def test_the_bot_decides_at_its_level_or_the_tables_on_its_deals_events_keyed_by_game_version_and_seat(scripted, monkeypatch, level, work):
    asked: list[tuple[Any, ...]] = []
    monkeypatch.setattr(service_bot, "player", lambda level, ruleset: Recording(asked, level, ruleset))
    deal = [{"type": "deal", "version": 0, "deal": 1}, {"type": "action", "version": 1, "seat": 1}]
    scripted.answer(reply(200, {"events": deal, "next_after": None, "version": 1}))
    pending = {**view(1, legal=[{"type": "pass"}]), "ruleset": "sixty-six", "seat": 0, "options": {"variant": "schnapsen"}}
    Bot(KozHttp(scripted.url, "tok"), "g1", level, work).decide(pending)
    ((decided_level, ruleset, info, key, budget),) = asked
    assert (decided_level, ruleset, key) == (level or standard_level("sixty-six"), "sixty-six", "g1:1:0")
    assert (info.ruleset, info.seat, info.options, info.view, info.events) == (
        "sixty-six",
        0,
        {"variant": "schnapsen"},
        pending,
        ({"type": "deal", "deal": 1}, {"type": "action", "seat": 1}),
    )
    assert (budget.work, budget.timer) == ((work, budget.timer) if work else (None, time.perf_counter))


def test_koz_bot_plays_at_the_level_and_work_it_is_given(scripted, monkeypatch):
    asked: list[tuple[Any, ...]] = []
    monkeypatch.setattr(service_bot, "player", lambda level, ruleset: Recording(asked, level, ruleset))
    scripted.answer(
        reply(200, {**view(1, legal=[{"type": "pass"}]), "seat": 1, "options": {}}),
        reply(200, {"events": [], "next_after": None, "version": 1}),
        reply(200, view(2, "finished")),
    )
    assert service_bot.run(scripted.url, "g1", "tok", "random", work=7) == 0
    ((level, _, _, _, budget),) = asked
    assert (level, budget.work) == ("random", 7)


def test_a_seat_with_nothing_to_do_waits_on_the_version_it_saw_until_the_match_is_over(scripted):
    scripted.answer(reply(200, view(3)), reply(200, view(5)), reply(200, view(6, "finished")))
    last = Bot(KozHttp(scripted.url, "tok"), "g1").play()
    assert last == view(6, "finished")
    assert [asked.path for asked in scripted.asked] == ["/v1/games/g1", "/v1/games/g1?wait=20&after=3", "/v1/games/g1?wait=20&after=5"]


@pytest.mark.parametrize("over", ["finished", "abandoned"])
def test_a_match_already_over_is_left_at_once(scripted, over):
    scripted.answer(reply(200, view(4, over, [{"type": "pass"}])))
    assert Bot(KozHttp(scripted.url, "tok"), "g1").play()["status"] == over
    assert len(scripted.asked) == 1


def test_the_bot_reads_its_history_page_by_page_from_where_it_stopped_and_decides_on_the_current_deal_only(scripted):
    deal_one = [{"type": "deal", "version": 0, "deal": 1}, {"type": "action", "version": 1, "seat": 0}]
    deal_two = [{"type": "deal", "version": 2, "deal": 2}, {"type": "action", "version": 3, "seat": 1}]
    scripted.answer(
        reply(200, {"events": deal_one, "next_after": 1, "version": 3}),
        reply(200, {"events": deal_two[:1], "next_after": 2, "version": 3}),
        reply(200, {"events": deal_two[1:], "next_after": None, "version": 3}),
        reply(200, {"events": [], "next_after": None, "version": 3}),
    )
    bot = Bot(KozHttp(scripted.url, "tok"), "g1")
    current = bot.deal_events()
    assert current == ({"type": "deal", "deal": 2}, {"type": "action", "seat": 1})
    assert bot.deal_events() == current
    assert [asked.path for asked in scripted.asked] == [f"/v1/games/g1/history?after={after}" for after in (-1, 1, 2, 3)]


def test_a_history_without_a_deal_event_is_read_whole(scripted):
    scripted.answer(reply(200, {"events": [{"type": "action", "version": 0}], "next_after": None, "version": 0}))
    assert Bot(KozHttp(scripted.url, "tok"), "g1").deal_events() == ({"type": "action"},)


def test_the_bot_plays_a_whole_deal_against_the_service_and_stops_at_a_wrong_token(app):
    client = app.test_client()
    created = client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "basic"}], "seed": "client-side"}).json
    token = next(entry["token"] for entry in created["tokens"] if entry["seat"] == 0)
    with serving(app) as url:
        assert service_bot.run(url, created["id"], "not-a-token", "basic") == 1
        assert service_bot.run(url, created["id"], token, "basic", work=200) == 0
    assert client.get(f"/v1/games/{created['id']}").json["status"] == "finished"


# --- ArenaBot: the event stream, seeking, playing --------------------------------------------


def test_the_arena_bot_reads_its_stream_event_by_event_remembers_the_last_id_and_skips_comments(scripted):
    scripted.answer(stream(": keep-alive\n\n", event(4, {"type": "seek_expired"}), "data: {\"type\": \"x\"}\n\n", event(6, {"type": "y"})))
    bot = arena_bot.ArenaBot(scripted.url + "/", "key", "german-whist")
    assert bot.seek_body == {"ruleset": "german-whist", "options": {}, "rated": True}
    bot.last_event = 3
    seen = []
    for data in bot.events():
        seen.append((data["type"], bot.last_event))
    assert seen == [("seek_expired", 4), ("x", 4), ("y", 6)]
    (asked,) = scripted.asked
    assert (asked.path, asked.headers["Last-Event-ID"], asked.headers["Authorization"], asked.headers["Accept"]) == (
        "/v1/arena/events",
        "3",
        "Bearer key",
        "text/event-stream",
    )


def test_the_arena_bot_seeks_plays_what_its_stream_starts_with_the_seat_token_and_seeks_again_until_its_matches_are_played(scripted):
    started = {"type": "match_started", "game": "g1", "seat": 0, "token": "seat-token", "players": [{"name": "A"}, {"name": "B"}]}
    finished = {"type": "match_finished", "game": "g1", "outcome": "win", "rating_change": 1.5}
    scripted.answer(reply(201, {"id": "s"}), reply(200, {"id": "s"}), reply(201, {"id": "s"}), on="/v1/arena/seeks")
    # the first stream ends after one event: the bot reads it again from there
    streams = [stream(event(1, started)), stream(event(2, finished), event(3, {"type": "seek_expired"})), stream(event(4, finished))]
    scripted.answer(*streams, on="/v1/arena/events")
    scripted.answer(reply(200, view(9, "finished")), on="/v1/games/")
    bot = arena_bot.ArenaBot(
        scripted.url, "key", "german-whist", "basic", options={"target": 10}, rated=False, house_after=2.5, matches=2, partner="Ayşe"
    )
    bot.run()
    asked = [(entry.method, entry.path.split("?")[0]) for entry in scripted.asked]
    seeks = [entry for entry in scripted.asked if entry.path == "/v1/arena/seeks"]
    game = next(entry for entry in scripted.asked if entry.path.startswith("/v1/games/"))
    resumed = [entry.headers["Last-Event-ID"] for entry in scripted.asked if entry.path == "/v1/arena/events"]
    assert sorted(asked) == sorted([("POST", "/v1/arena/seeks")] * 3 + [("GET", "/v1/arena/events")] * 3 + [("GET", "/v1/games/g1")])
    body = {"ruleset": "german-whist", "options": {"target": 10}, "rated": False, "house_after_seconds": 2.5, "partner": "Ayşe"}
    assert [seek.body for seek in seeks] == [body] * 3
    assert all(seek.headers["Authorization"] == "Bearer key" for seek in seeks)
    assert game.headers["Authorization"] == "Bearer seat-token"
    assert (resumed, bot.finished) == (["0", "1", "3"], 2)


def test_the_arena_bot_with_no_options_seeks_the_defaults_rated_and_names_no_wait_or_partner(scripted, caplog):
    scripted.answer(reply(400, {"code": "unknown_ruleset", "detail": "No such game."}))
    with caplog.at_level("ERROR", logger="koz.bot"):
        assert arena_bot.run(scripted.url, "key", "go-fish", None, None, 1) == 1
    (seek,) = scripted.asked
    assert seek.body == {"ruleset": "go-fish", "options": {}, "rated": True}
    assert "stopped: 400 unknown_ruleset: No such game." in caplog.text


def test_a_refused_seek_without_a_problem_body_stops_the_arena_bot_with_its_status(scripted, caplog):
    scripted.answer(reply(403, raw=b"<html>"))
    with caplog.at_level("ERROR", logger="koz.bot"):
        assert arena_bot.run(scripted.url, "key", "sixty-six", None, None, 1) == 1
    assert caplog.records[-1].getMessage() == "stopped: 403 : "


@pytest.mark.parametrize("socket", [False, True])
def test_koz_bot_arena_seeks_what_it_is_told_and_plays_its_games_at_its_level_and_work(scripted, monkeypatch, socket):
    played: list[tuple[Any, ...]] = []

    class Playing:
        def __init__(self, url, token, game_id, level, work, socket):
            played.append((url, token, game_id, level, work, socket))

        def play(self):
            return view(3, "finished")

    monkeypatch.setattr(arena_bot, "seat", Playing)
    started = {"type": "match_started", "game": "g3", "seat": 0, "token": "seat-token", "players": []}
    finished = {"type": "match_finished", "game": "g3", "outcome": "draw", "rating_change": 0.0}
    scripted.answer(reply(201, {}), on="/v1/arena/seeks")
    scripted.answer(stream(event(1, started), event(2, finished)), on="/v1/arena/events")
    told = {"rated": False, "options": {"target": 5}, "work": 40, "partner": "Ayşe", "socket": socket}
    assert arena_bot.run(scripted.url + "/", "key", "sixty-six", "basic", 1.5, 1, **told) == 0
    assert played == [(scripted.url, "seat-token", "g3", "basic", 40, socket)]
    seek = scripted.asked[0]
    assert (seek.path, seek.headers["Authorization"]) == ("/v1/arena/seeks", "Bearer key")
    assert seek.body == {"ruleset": "sixty-six", "options": {"target": 5}, "rated": False, "house_after_seconds": 1.5, "partner": "Ayşe"}


def test_the_arena_bot_stops_at_its_last_match_and_leaves_what_the_stream_says_after_it(scripted):
    finished = {"type": "match_finished", "game": "g1", "outcome": "win", "rating_change": 1.0}
    later = {"type": "match_started", "game": "g9", "seat": 0, "token": "t", "players": []}
    scripted.answer(reply(201, {}), on="/v1/arena/seeks")
    scripted.answer(stream(event(1, finished), event(2, later)), on="/v1/arena/events")
    bot = arena_bot.ArenaBot(scripted.url, "key", "sixty-six", matches=1)
    bot.run()
    assert (bot.finished, bot.players, bot.last_event) == (1, [], 1)


def test_the_arena_bot_reads_a_broken_stream_again_after_a_pause(scripted, monkeypatch):
    paused: list[float] = []
    monkeypatch.setattr(arena_bot.time, "sleep", paused.append)
    finished = {"type": "match_finished", "game": "g1", "outcome": "loss", "rating_change": -1.0}
    scripted.answer(reply(200, {"id": "s"}), hang_up, stream(event(7, finished)))
    assert arena_bot.run(scripted.url, "key", "sixty-six", None, None, 1) == 0
    assert paused == [arena_bot.RECONNECT_SECONDS]
    assert [entry.path for entry in scripted.asked] == ["/v1/arena/seeks", "/v1/arena/events", "/v1/arena/events"]


def test_a_game_the_arena_bot_cannot_play_is_logged_and_the_bot_goes_on(scripted, caplog):
    started = {"type": "match_started", "game": "g2", "seat": 1, "token": "t", "players": []}
    finished = {"type": "match_finished", "game": "g2", "outcome": "loss", "rating_change": -2.0}
    scripted.answer(reply(201, {}), on="/v1/arena/seeks")
    scripted.answer(stream(event(1, started)), stream(event(2, finished)), on="/v1/arena/events")
    scripted.answer(reply(401, {"code": "invalid_token", "detail": "No."}), on="/v1/games/")
    with caplog.at_level("ERROR", logger="koz.bot"):
        assert arena_bot.run(scripted.url, "key", "sixty-six", None, None, 1) == 0
    assert "game g2 stopped: 401 invalid_token: No." in caplog.text


# --- SocketBot: the same seat over the play connection ----------------------------------------


class Frames:
    """A play connection that hands out scripted messages (then a close) and records what is sent,
    and after how many of the frames (``sent_after``)."""

    def __init__(self, *messages: dict[str, Any] | tuple[int, bytes], close: int | None = 1000) -> None:
        self.frames = [message if isinstance(message, tuple) else (websocket.ABNF.OPCODE_TEXT, json.dumps(message).encode()) for message in messages]
        self.frames.append((websocket.ABNF.OPCODE_CLOSE, b"" if close is None else close.to_bytes(2, "big") + b"bye"))
        self.read = 0
        self.sent: list[dict[str, Any]] = []
        self.sent_after: list[int] = []

    def recv_data(self, control_frame: bool = False) -> tuple[int, bytes]:
        assert control_frame
        self.read += 1
        return self.frames.pop(0)

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))
        self.sent_after.append(self.read)

    def close(self) -> None:
        self.closed = True


def pass_view(version: int, legal: bool = True, status: str = "active") -> dict[str, Any]:
    return {**view(version, status, [{"type": "pass"}] if legal else []), "ruleset": "sixty-six", "seat": 0, "options": {}, "scores": [0, 0]}


def socket_bot(monkeypatch, asked: list[tuple[Any, ...]], sleeps: list[float] | None = None) -> SocketBot:
    monkeypatch.setattr(service_bot, "player", lambda level, ruleset: Recording(asked, level, ruleset))
    return SocketBot("http://127.0.0.1:1", "tok", "g1", "basic", 5, sleep=(sleeps if sleeps is not None else []).append)


def test_the_socket_bot_acts_once_a_version_on_the_deals_history_with_the_version_and_a_new_key(monkeypatch):
    asked: list[tuple[Any, ...]] = []
    bot = socket_bot(monkeypatch, asked)
    deal = [{"type": "deal", "version": 3, "deal": 2}]
    connection = Frames(
        {"type": "history", "version": 3, "events": deal},
        {"type": "view", "view": pass_view(3)},
        {"type": "acted", "id": None, "replayed": False, "view": pass_view(4, legal=False)},
        {"type": "view", "view": pass_view(5)},
        {"type": "acted", "id": None, "replayed": False, "view": pass_view(6, status="finished")},
    )
    assert bot.follow(connection) == 1000  # type: ignore[arg-type]
    passed = {"type": "pass"}
    assert [(sent["type"], sent["action"], sent["version"]) for sent in connection.sent] == [("act", passed, 3), ("act", passed, 5)]
    assert len({sent["key"] for sent in connection.sent}) == 2
    dealt = ({"type": "deal", "deal": 2},)
    assert [(info.events, key) for _, _, info, key, _ in asked] == [(dealt, "g1:3:0"), (dealt, "g1:5:0")]
    assert (bot.history_after, bot.view["version"]) == (3, 6)


def test_a_view_pushed_while_an_act_waits_for_its_answer_is_decided_on_after_the_answer(monkeypatch):
    bot = socket_bot(monkeypatch, [])
    connection = Frames(
        {"type": "view", "view": pass_view(3)},
        {"type": "view", "view": pass_view(4)},  # the other seat moved first: the act at 3 will be refused
        {"type": "problem", "id": None, "problem": {"status": 412, "code": "stale_version"}},
        {"type": "acted", "id": None, "replayed": False, "view": pass_view(5, status="finished")},
    )
    assert bot.follow(connection) == 1000  # type: ignore[arg-type]
    assert [sent["version"] for sent in connection.sent] == [3, 4] and connection.sent_after == [1, 3]


def test_a_ping_is_passed_over_and_a_close_without_a_code_is_read_as_1005(monkeypatch):
    bot = socket_bot(monkeypatch, [])
    connection = Frames({"type": "view", "view": pass_view(3, legal=False)}, (websocket.ABNF.OPCODE_PING, b""), close=None)
    assert bot.follow(connection) == 1005 and connection.read == 3  # type: ignore[arg-type]


@pytest.mark.parametrize("socket", [False, True])
def test_koz_bot_plays_over_the_transport_asked_at_its_level_and_work(monkeypatch, socket):
    player = service_bot.seat("http://127.0.0.1:1", "tok", "g1", "expert", 30, socket)
    assert (type(player), player.game_id, player.level, player.work) == ((SocketBot if socket else Bot), "g1", "expert", 30)
    assert player.token == "tok" if isinstance(player, SocketBot) else player.http.token == "tok"
    played = []
    monkeypatch.setattr(service_bot, "seat", lambda *args: played.append(args) or Bot(KozHttp("http://x", "t"), "g"))
    monkeypatch.setattr(Bot, "play", lambda self: view(3, "finished"))
    assert service_bot.run("http://127.0.0.1:1", "g1", "tok", "basic", 7, socket=socket) == 0
    assert played == [("http://127.0.0.1:1", "tok", "g1", "basic", 7, socket)]


@pytest.mark.parametrize("status", [409, 412])
def test_an_act_the_game_moved_past_is_decided_again_on_the_view_it_moved_on_to(monkeypatch, status):
    asked: list[tuple[Any, ...]] = []
    bot = socket_bot(monkeypatch, asked)
    connection = Frames(
        {"type": "view", "view": pass_view(3)},
        {"type": "problem", "id": None, "problem": {"status": status, "code": "stale_version"}},
        {"type": "view", "view": pass_view(4)},
        close=1001,
    )
    assert bot.follow(connection) == 1001  # type: ignore[arg-type]
    assert [sent["version"] for sent in connection.sent] == [3, 4]


@pytest.mark.parametrize(
    ("status", "retry_after", "pause"),
    [
        (429, None, service_bot.FIRST_BACKOFF_SECONDS),
        (429, 2, 2),
        (500, None, service_bot.FIRST_BACKOFF_SECONDS),
        (503, 60, service_bot.MAX_BACKOFF_SECONDS),
    ],
)
def test_an_act_refused_for_the_moment_is_decided_again_on_the_same_view_after_the_pause_asked(monkeypatch, status, retry_after, pause):
    asked: list[tuple[Any, ...]] = []
    sleeps: list[float] = []
    bot = socket_bot(monkeypatch, asked, sleeps)
    refused = {"type": "problem", "id": None, "problem": {"status": status, "code": "x"}}
    if retry_after is not None:
        refused["retry_after"] = retry_after
    connection = Frames({"type": "view", "view": pass_view(3)}, refused, close=1001)
    bot.follow(connection)  # type: ignore[arg-type]
    assert [sent["version"] for sent in connection.sent] == [3, 3] and sleeps == [pause]


@pytest.mark.parametrize(
    ("problem", "said"),
    [
        ({"status": 422, "code": "illegal_action", "detail": "that card is not in your hand"}, "422 illegal_action: that card is not in your hand"),
        ({"status": 499}, "499 : "),
    ],
)
def test_an_act_refused_for_good_stops_the_socket_bot_with_the_servers_code_and_detail(monkeypatch, problem, said):
    bot = socket_bot(monkeypatch, [])
    with pytest.raises(Unrecoverable) as stopped:
        bot.follow(Frames({"type": "view", "view": pass_view(3)}, {"type": "problem", "id": None, "problem": problem}))  # type: ignore[arg-type]
    assert str(stopped.value) == said


def test_the_socket_bot_gives_up_on_a_server_that_is_not_there_after_its_attempts_with_doubling_backoff():
    sleeps: list[float] = []
    with pytest.raises(Unrecoverable, match=f"failed {ATTEMPTS} times"):
        SocketBot("http://127.0.0.1:1", "tok", "g1", sleep=sleeps.append).play()
    assert sleeps == [min(service_bot.FIRST_BACKOFF_SECONDS * 2**number, service_bot.MAX_BACKOFF_SECONDS) for number in range(ATTEMPTS - 1)]


@pytest.mark.parametrize(("ruleset_id", "seats"), [("german-whist", 2), ("sixty-six", 2), ("partnership-batak", 4)])
def test_the_socket_bot_plays_to_the_end_deciding_on_what_the_http_bot_reads_across_connections_the_server_ends(ruleset_id, seats):
    app = create_app(make_settings(stream_max_seconds=0.3), redis=fakeredis.FakeRedis())
    with WorkerThread(app.extensions["koz"]), serving(app) as url:
        client = app.test_client()
        players = [{"name": "P"}] + [{"bot": "basic"}] * (seats - 1)
        created = client.post("/v1/games", json={"ruleset": ruleset_id, "seats": players, "seed": "sock"}).json
        token = created["tokens"][0]["token"]
        bot = SocketBot(url, token, created["id"], "basic", 50)
        decided, connections = [], []
        decide, connect_and_follow = bot.decide, bot.connect_and_follow

        def checked(view: dict[str, Any]) -> Action:
            # nothing moves while the seat decides: the history over HTTP is the one the socket brought
            assert view == client.get(f"/v1/games/{created['id']}", headers={"Authorization": f"Bearer {token}"}).json
            assert bot.deal_events() == Bot(KozHttp(url, token), created["id"]).deal_events()
            decided.append((view["version"], decide(view)))
            return decided[-1][1]

        def counted() -> int | None:
            connections.append(bot.heard)
            return connect_and_follow()

        bot.decide, bot.connect_and_follow = checked, counted  # type: ignore[method-assign]
        last = bot.play()
        assert last["status"] == "finished" and last == client.get(f"/v1/games/{created['id']}", headers={"Authorization": f"Bearer {token}"}).json
        # an act the server had not read when it ended the connection is decided again, the same
        assert len(connections) > 1 and decided and len(dict(decided)) == len(set(decided))
    app.extensions["koz"].announcements.stop()


def test_koz_bot_over_the_socket_stops_at_a_wrong_token_with_the_servers_refusal(app, caplog):
    created = app.test_client().post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "basic"}]}).json
    with serving(app) as url:
        assert service_bot.run(url, created["id"], "not-a-token", "basic", socket=True) == 1
    assert "401 invalid_token" in caplog.text


def test_a_play_connection_silent_past_its_limit_is_taken_for_lost_and_made_again():
    # no ping for a minute, and the other seat (a person) never moves: the connection says nothing
    app = create_app(make_settings(stream_heartbeat_seconds=60), redis=fakeredis.FakeRedis())
    with serving(app) as url:
        client = app.test_client()
        created = client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "P"}, {"name": "Q"}], "seed": "quiet"}).json
        (waiting,) = [entry for entry in created["tokens"] if entry["seat"] not in client.get(f"/v1/games/{created['id']}").json["to_act"]]
        bot = SocketBot(url, waiting["token"], created["id"], silence_seconds=0.5)
        started = time.monotonic()
        assert bot.connect_and_follow() is None and bot.view is not None and bot.view["version"] == 0  # the first view, then silence
        assert time.monotonic() - started < 10
    app.extensions["koz"].announcements.stop()


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_play_connection_refused_for_the_moment_is_tried_again(scripted, status):
    scripted.answer(reply(status, {"status": status, "code": "busy"}))
    bot = SocketBot(scripted.url, "tok", "g1")
    assert bot.connect_and_follow() is None
    (asked,) = scripted.asked
    assert (asked.path, asked.headers["Authorization"], asked.headers["Upgrade"]) == ("/v1/games/g1/play?after=-1", "Bearer tok", "websocket")


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (reply(404, {"status": 404, "code": "unknown_game", "detail": "there is no game 'g1'"}), "404 unknown_game: there is no game 'g1'"),
        (reply(403, raw=b"<html>no</html>"), "403 : <html>no</html>"),
    ],
)
def test_a_play_connection_refused_for_good_stops_the_bot_with_what_the_server_said(scripted, answer, said):
    scripted.answer(answer)
    with pytest.raises(Unrecoverable) as stopped:
        SocketBot(scripted.url, "tok", "g1").connect_and_follow()
    assert str(stopped.value) == said


@pytest.mark.parametrize(("code", "stops"), [(1001, False), (1011, False), (1013, False), (1009, True), (1002, True)])
def test_a_close_that_asks_to_come_back_is_answered_by_connecting_again_and_one_for_good_stops_the_bot(monkeypatch, code, stops):
    connection = Frames({"type": "view", "view": pass_view(3, legal=False)}, close=code)
    monkeypatch.setattr(service_bot.websocket, "create_connection", lambda *args, **kwargs: connection)
    bot = SocketBot("http://127.0.0.1:1", "tok", "g1")
    if stops:
        with pytest.raises(Unrecoverable, match=f"^the server closed the play connection: {code}$"):
            bot.connect_and_follow()
    else:
        assert bot.connect_and_follow() == code
    assert connection.closed
