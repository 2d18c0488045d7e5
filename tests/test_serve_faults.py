"""``koz serve`` under faults, as an operator would meet them: its embedded redis-server killed and
stalled during concurrent play, a server that cannot come back, and requests gunicorn refuses
before the app sees them."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import threading
import time
import uuid
from http import HTTPStatus
from pathlib import Path

import pytest
from redis import Redis, RedisError
from redis.backoff import NoBackoff
from redis.retry import Retry

from service import texts
from service.http_server import SERVER_REFUSALS
from service.due import game_slot, slot_tag

from tests.api import SocketClient
from tests.test_serve import Service

pytestmark = [pytest.mark.redis_server, pytest.mark.slow]

FAST_FAULTS = {"KOZ_REDIS_TIMEOUT": "0.5", "KOZ_REDIS_CONNECT_TIMEOUT": "0.5", "KOZ_RATE_LIMIT_CREATE": "", "KOZ_RATE_LIMIT_ACTIONS": ""}


class Game:
    """One game a player played: what was acknowledged at each version, and how many keys it posted."""

    def __init__(self, game_id: str) -> None:
        self.id = game_id
        self.acknowledged: dict[int, tuple[int, dict]] = {}  # version -> (seat, action)
        self.keys = 0


class Player(threading.Thread):
    """Plays two-human German Whist games as both seats, one after the other, posting each action
    with an Idempotency-Key and retrying it with the same key until it is acknowledged (200)."""

    def __init__(self, url: str, seed: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.seed, self.stop = url, seed, stop
        self.games: list[Game] = []
        self.unexpected: list[tuple[int, object]] = []
        self.answered_at: list[float] = []  # when each answer that was not a 503 came
        self.unavailable_at: list[float] = []  # when each 503 came

    def call(self, api_call):
        """An answer that is not a 503: retried, over a new connection when the old one broke."""
        while not self.stop.is_set():
            try:
                answer = api_call(self.api)
            except OSError:
                self.api = SocketClient(self.url)
                time.sleep(0.05)
                continue
            if answer.status == 503 and answer.code == "storage_unavailable":
                self.unavailable_at.append(time.monotonic())
                time.sleep(0.05)
                continue
            if answer.status not in (200, 201):
                self.unexpected.append((answer.status, answer.body))
            self.answered_at.append(time.monotonic())
            return answer
        return None

    def run(self) -> None:
        self.api = SocketClient(self.url)
        rng = random.Random(self.seed)
        while not self.stop.is_set():
            self.play(rng)

    def play(self, rng: random.Random) -> None:
        seats = [{"name": "P"}, {"name": "P"}]
        created = self.call(lambda api: api.create(ruleset="german-whist", seats=seats, seed=f"{self.seed}-{len(self.games)}"))
        if created is None or created.status != 201:
            return
        game = Game(created.body["id"])
        self.games.append(game)
        tokens = {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
        while not self.stop.is_set():
            spectator = self.call(lambda api: api.view(game.id))
            if spectator is None or spectator.body["status"] != "active":
                return
            seat = spectator.body["to_act"][0]
            view = self.call(lambda api: api.view(game.id, tokens[seat]))
            if view is None:
                return
            action = rng.choice(view.body["legal_actions"])
            key = uuid.uuid4().hex
            game.keys += 1
            acted = self.call(lambda api: api.act(game.id, action, tokens[seat], **{"Idempotency-Key": key}))
            if acted is None:
                return  # stopped before an answer: this last key's outcome is unknown
            if acted.status == 200:
                game.acknowledged[acted.body["version"]] = (seat, action)
            time.sleep(0.01)


def answered_after(players: list[Player], moment: float, times: str = "answered_at") -> bool:
    return any(when > moment for player in players for when in getattr(player, times))


def wait_for(condition, what: str, seconds: float = 60) -> None:
    """Wait until ``condition()`` holds; a generous deadline, so that only a service that does not
    recover fails, not a slow machine."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds} s"
        time.sleep(0.05)


def test_koz_serve_survives_its_redis_killed_and_stalled_during_play_losing_and_doubling_nothing(tmp_path):
    service = Service(tmp_path / "koz-data", **FAST_FAULTS)
    stop = threading.Event()
    players = [Player(service.url, f"faults-{n}", stop) for n in range(4)]
    try:
        for player in players:
            player.start()
        wait_for(lambda: all(len(player.answered_at) >= 5 for player in players), "the players did not get going")
        killed_pid = service.redis_pid
        os.kill(killed_pid, signal.SIGKILL)
        killed_at = time.monotonic()
        wait_for(lambda: service.redis_pid not in (killed_pid, None), "the embedded redis-server was not restarted")
        wait_for(lambda: answered_after(players, killed_at), "no request succeeded after the kill")
        stalled_pid = service.redis_pid
        os.kill(stalled_pid, signal.SIGSTOP)
        stalled_at = time.monotonic()
        try:  # a stalled Redis is answered 503 (a timeout), not a hang
            wait_for(lambda: answered_after(players, stalled_at, "unavailable_at"), "no 503 while Redis was stalled")
        finally:
            os.kill(stalled_pid, signal.SIGCONT)
        resumed_at = time.monotonic()
        wait_for(lambda: answered_after(players, resumed_at), "no request succeeded after the stall")
    finally:
        stop.set()
        for player in players:
            player.join(30)
    try:
        api = SocketClient(service.url)
        assert api.request("GET", "/healthz").status == 200
        for player in players:
            assert player.unexpected == []
            for game in player.games:
                events = api.whole_history(game.id)["events"]
                applied = {event["version"]: (event["seat"], event["action"]) for event in events if event["type"] == "action"}
                assert len(applied) == sum(1 for event in events if event["type"] == "action")
                # every acknowledged action is there, at its version
                assert {version: applied.get(version) for version in game.acknowledged} == game.acknowledged
                # and nothing else: each key was retried until acknowledged (all but perhaps the
                # last, cut off by the end of the test), so none was applied twice
                assert len(game.acknowledged) <= len(applied) <= game.keys
                assert game.keys - len(game.acknowledged) <= 1
        api.close()
    finally:
        assert service.stop() == 0


def test_healthz_fails_when_the_embedded_redis_died_and_cannot_be_restarted(tmp_path):
    data_dir = tmp_path / "koz-data"
    service = Service(data_dir, **FAST_FAULTS)
    try:
        api = SocketClient(service.url)
        assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).status == 201
        assert api.request("GET", "/healthz").status == 200
        # spoilt before the kill, not after: the service restarts a dead server within a fraction of
        # a second, and a test held up between the two (a loaded machine) wrote its garbage after a
        # restart had read the file, behind the running server's back (seen once in a clean-clone run)
        (data_dir / "koz.aof").write_bytes(b"this is no append-only file\r\n")  # the next server will refuse it
        os.kill(service.redis_pid, signal.SIGKILL)
        wait_for(lambda: api.request("GET", "/healthz").status != 200, "/healthz did not notice", seconds=120)
        health = api.request("GET", "/healthz")
        assert (health.status, health.code) == (503, "storage_failed")
        api.close()
    finally:
        service.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    service = Service(tmp_path_factory.mktemp("edge") / "koz-data", **FAST_FAULTS)
    yield service
    service.stop()


def test_the_tests_client_opens_a_connection_afresh_once_the_server_may_have_closed_it(served):
    # gunicorn closes a connection idle for 2 s; a request sent on it then was lost unanswered
    # (RemoteDisconnected), which failed a test that waited between two requests on a loaded machine
    api = SocketClient(served.url)
    assert api.request("GET", "/healthz").status == 200
    time.sleep(2.5)
    assert api.request("GET", "/healthz").status == 200
    api.close()


def raw_request(service: Service, data: bytes, source: str = "127.0.0.1") -> tuple[int, dict[str, str], dict]:
    """Send bytes as they are (from the loopback address ``source``); the status, headers and JSON
    body of the answer."""
    with socket.create_connection(("127.0.0.1", service.port), timeout=10, source_address=(source, 0)) as connection:
        connection.sendall(data)
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer) < answer.index(b"\r\n\r\n") + 4 + content_length(answer):
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


def content_length(answer: bytes) -> int:
    for line in answer.split(b"\r\n\r\n")[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 0


@pytest.mark.parametrize(
    "data, status, code",
    [
        (b"GET /v1/games/" + b"a" * 10_000 + b" HTTP/1.1\r\nHost: koz\r\n\r\n", 414, "uri_too_long"),
        (b"GET /healthz HTTP/1.1\r\nHost: koz\r\nX-Padding: " + b"p" * 9_000 + b"\r\n\r\n", 431, "headers_too_large"),
        (b"GET /v1/games/\xff\xfe HTTP/1.1\r\nHost: koz\r\n\r\n", 400, "malformed_request"),
    ],
    ids=["10 KB request line", "9 KB header", "raw 0xFF bytes in the path"],
)
def test_what_the_http_server_refuses_itself_is_answered_as_problem_json(served, data, status, code):
    answered, headers, body = raw_request(served, data)
    assert (answered, body["code"], body["status"]) == (status, code, status)
    assert headers["Content-Type"] == "application/problem+json"
    assert headers["X-Request-ID"]


LONG = b"a" * 5_000
HUGE_HEADER = b"X-Padding: " + b"p" * 9_000 + b"\r\n"
MANY_HEADERS = b"".join(b"X-Field-%d: %d\r\n" % (number, number) for number in range(120))


@pytest.mark.parametrize(
    "data, status, language",
    [
        (b"GET /v1/games?lang=tr&pad=" + LONG + b" HTTP/1.1\r\nHost: koz\r\n\r\n", 414, "tr"),
        (b"GET /v1/games?pad=" + LONG + b"&lang=tr HTTP/1.1\r\nHost: koz\r\n\r\n", 414, "en"),
        (b"GET /v1/games?pad=" + LONG + b" HTTP/1.1\r\nAccept-Language: tr\r\n\r\n", 414, "en"),
        (b"GET /healthz?lang=tr HTTP/1.1\r\nHost: koz\r\n" + HUGE_HEADER + b"\r\n", 431, "tr"),
        (b"GET /healthz HTTP/1.1\r\nAccept-Language: tr-TR,tr;q=0.9,en;q=0.5\r\n" + HUGE_HEADER + b"\r\n", 431, "tr"),
        (b"GET /healthz HTTP/1.1\r\n" + HUGE_HEADER + b"Accept-Language: tr\r\n\r\n", 431, "en"),
        (b"GET /healthz HTTP/1.1\r\nAccept-Language: tr\r\n" + MANY_HEADERS + b"\r\n", 431, "tr"),
        (b"GET /healthz?lang=tr HTTP/1.1\r\nAccept-Language: en\r\n" + HUGE_HEADER + b"\r\n", 431, "tr"),
        (b"GET /healthz?lang=de HTTP/1.1\r\nAccept-Language: tr\r\n" + HUGE_HEADER + b"\r\n", 431, "tr"),
        (b"GET /healthz HTTP/1.1\r\nAccept-Language: de, en;q=0.5\r\n" + HUGE_HEADER + b"\r\n", 431, "en"),
        (b"GET /healthz HTTP/1.1\r\nAccept-Language: tr\r\nthis is no header\r\n\r\n", 400, "tr"),
        (b"GET /healthz?lang=tr HTTP/9.9\r\nHost: koz\r\n\r\n", 400, "tr"),
        (b"GET /v1/games/\xff\xfe?lang=tr HTTP/1.1\r\nAccept-Language: tr\r\n\r\n", 400, "en"),
    ],
    ids=[
        "414, lang=tr read before the limit",
        "414, lang=tr beyond the limit",
        "414, Accept-Language never parsed",
        "431, lang=tr",
        "431, Accept-Language tr parsed before the large header",
        "431, Accept-Language after the large header",
        "431, Accept-Language among too many fields",
        "431, lang wins over Accept-Language",
        "431, a lang Koz does not speak is ignored",
        "431, an Accept-Language without tr",
        "400, a line that is no header after Accept-Language tr",
        "400, an HTTP version after lang=tr",
        "400, a request line too broken to say",
    ],
)
def test_what_the_http_server_refuses_itself_is_answered_in_the_language_asked_as_far_as_it_read(served, data, status, language):
    answered, headers, body = raw_request(served, data)
    assert (answered, headers["Content-Language"]) == (status, language)
    code, detail = SERVER_REFUSALS[status]
    assert body["code"] == code and body["detail"] == texts.DETAILS[detail][language]
    assert body["title"] == (texts.TURKISH_TITLES[status] if language == "tr" else HTTPStatus(status).phrase)


def chunked(body: bytes, size: int = 4000) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size]) for i in range(0, len(body), size)) + b"0\r\n\r\n"


def test_a_chunked_body_over_the_limit_answers_413(served):
    body = json.dumps({"ruleset": "german-whist", "seed": "x" * 20_000}).encode()
    head = b"POST /v1/games HTTP/1.1\r\nHost: koz\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    answered, headers, problem = raw_request(served, head + chunked(body))
    assert (answered, problem["code"]) == (413, "payload_too_large")


def test_a_chunked_body_within_the_limit_is_read_whole(served):
    body = json.dumps({"ruleset": "german-whist", "seats": [{"name": "x" * 40}, {"name": "P"}]}).encode()
    head = b"POST /v1/games HTTP/1.1\r\nHost: koz\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    answered, _, created = raw_request(served, head + chunked(body, size=7))
    assert answered == 201 and created["seats"][0]["name"] == "x" * 40


def test_every_log_line_of_koz_serve_is_json_and_each_request_line_has_its_request_id(served):
    api = SocketClient(served.url)
    api.request("GET", "/healthz", headers={"X-Request-ID": "operator-trace-1"})
    api.close()

    def requests() -> list[dict]:
        lines = [json.loads(line) for line in Path(served.log).read_text().splitlines() if line.strip()]
        return [line for line in lines if line["message"] == "request"]

    wait_for(lambda: any(line["request_id"] == "operator-trace-1" for line in requests()), "the request's log line was not written")
    requests = requests()
    assert any(line["request_id"] == "operator-trace-1" and line["route"] == "/healthz" for line in requests)
    assert all(line["request_id"] for line in requests)


def test_a_worker_that_finds_redis_again_does_its_own_pending_computer_move_at_once(tmp_path):
    # a claim by another worker cannot explain a move within the minute; an expert thinks long
    # enough for the worker to be caught holding its claim
    settings = {**FAST_FAULTS, "KOZ_REPLY_WAIT_SECONDS": "0", "KOZ_JOB_CLAIM_SECONDS": "60", "KOZ_BOT_EXPERT_SECONDS": "0.4"}
    with Service(tmp_path / "koz-data", **settings) as service:
        worker = service.worker_pids()[0]
        try:
            moved_after = computer_move_after_redis_is_back(service, worker)
        finally:
            os.kill(worker, signal.SIGCONT)
        assert service.stop() == 0
    assert moved_after < 5
    print(f"the computer moved {moved_after:.2f} s after Redis answered again")


def computer_move_after_redis_is_back(service: Service, worker: int) -> float:
    """Seconds from Redis answering again to the computer's move, when the worker had claimed
    the move and lost Redis before it could write it."""
    # this client sees Redis answer again at once: no retries of its own
    redis = Redis(unix_socket_path=str(service.redis_socket), socket_timeout=5, retry=Retry(NoBackoff(), 0))
    api = SocketClient(service.url)
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "expert"}], seed="pending").body
    game, token = created["id"], created["tokens"][0]["token"]
    due = f"koz:{{{slot_tag(game_slot(game))}}}:due"

    def turn() -> dict:
        """The human's view once it is the human's turn (the computer has moved)."""
        deadline = time.monotonic() + 30
        while (view := api.view(game, token).body)["to_act"] != [0]:
            assert time.monotonic() < deadline, "the computer did not move"
            time.sleep(0.05)
        return view

    def claimed() -> bool:
        """The worker holds the game's move: its claim moved the score past the lease."""
        score = redis.zscore(due, game)
        return score is not None and score > time.time() + 30

    # the worker claims the computer's reply and, stopped while it thinks, cannot make it
    for _ in range(40):
        view = turn()
        if view["trick"]["cards"]:  # the human follows: no reply is due from the computer
            api.act(game, view["legal_actions"][0], token)
            continue
        acted = api.act(game, view["legal_actions"][0], token).body
        deadline = time.monotonic() + 10
        while not claimed() and redis.zscore(due, game) is not None and time.monotonic() < deadline:
            time.sleep(0.001)
        if claimed():
            os.kill(worker, signal.SIGSTOP)
            if claimed() and api.view(game).body["version"] == acted["version"]:
                break
            os.kill(worker, signal.SIGCONT)  # it made the move before it stopped: again
    else:
        pytest.fail("the worker was never caught holding a move")
    # Redis is killed, and not restarted (the master is stopped) until the worker has failed to
    # write the move: it lost Redis with the move claimed
    os.kill(service.process.pid, signal.SIGSTOP)
    try:
        os.kill(service.redis_pid, signal.SIGKILL)
        os.kill(worker, signal.SIGCONT)
        deadline = time.monotonic() + 30
        while "Redis unavailable" not in service.log.read_text():
            assert time.monotonic() < deadline, "the worker did not lose Redis"
            time.sleep(0.05)
    finally:
        os.kill(service.process.pid, signal.SIGCONT)
    deadline = time.monotonic() + 30
    while True:
        try:
            redis.ping()
            break
        except RedisError:
            assert time.monotonic() < deadline, "the embedded redis-server was not restarted"
            time.sleep(0.01)
    answered_again = time.monotonic()
    while (view := api.view(game, token)).status != 200 or view.body["version"] <= acted["version"]:
        assert time.monotonic() - answered_again < 10, "the computer's move waited for a claim"
        time.sleep(0.01)
    api.close()
    redis.close()
    return time.monotonic() - answered_again
