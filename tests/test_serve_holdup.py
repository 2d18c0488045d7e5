"""``koz serve`` against slow and hostile clients, over real sockets: a request's whole-request
deadline, the caps on what one client address holds open, malformed chunked bodies, and a burst
of event streams while Redis is healthy.

The "attacker" connects from another loopback address (127.0.0.2: on Linux all of 127/8 is the
loopback), so that the server tells it apart from the client that must still be answered."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import gevent
import pytest

from service.http_server import HeldRefusals
from tests.api import SocketClient
from tests.test_serve import Service
from tests.test_serve_faults import raw_request

pytestmark = [pytest.mark.redis_server, pytest.mark.slow]

ATTACKER = "127.0.0.2"
NO_LIMITS = {"KOZ_RATE_LIMIT_CREATE": "", "KOZ_RATE_LIMIT_ACTIONS": ""}
CAPS = {
    "KOZ_REQUEST_SECONDS": "1.5",
    "KOZ_STREAM_HEARTBEAT_SECONDS": "0.5",  # a closed stream is noticed at its next heartbeat
    "KOZ_CONNECTIONS_PER_ADDRESS": "6",
    "KOZ_STREAMS_PER_ADDRESS": "2",
    "KOZ_TURN_AWAY_SECONDS": "1",
    "KOZ_MAX_WAITING_GAMES_PER_ADDRESS": "1000",  # the chunked bodies' tests invite someone fifteen times
    **NO_LIMITS,
}
SLOW_HEAD = b"POST /v1/games HTTP/1.1\r\nHost: koz\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"


#: connections a web process serves at once: few, so that a test sees them all taken
POOL = 40


@pytest.fixture(scope="module")
def capped(tmp_path_factory):
    service = Service(tmp_path_factory.mktemp("holdup") / "koz-data", "--connections", str(POOL), **CAPS)
    yield service
    service.stop()


def connect(service: Service, source: str = "127.0.0.1", timeout: float = 10) -> socket.socket:
    return socket.create_connection(("127.0.0.1", service.port), timeout=timeout, source_address=(source, 0))


def read_answer(connection: socket.socket) -> tuple[int, dict]:
    """The status and JSON body of the one answer on a connection the server closes after it."""
    answer = b""
    while chunk := connection.recv(65536):
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def healthz_seconds(service: Service) -> float:
    started = time.monotonic()
    api = SocketClient(service.url)
    assert api.request("GET", "/healthz").status == 200
    api.close()
    return time.monotonic() - started


def test_a_body_that_stops_coming_is_answered_408_at_the_deadline(capped):
    with connect(capped) as connection:
        started = time.monotonic()
        connection.sendall(SLOW_HEAD)
        status, problem = read_answer(connection)
    assert (status, problem["code"]) == (408, "request_timeout")
    assert 1.3 < time.monotonic() - started < 3.0


def test_a_body_trickled_a_byte_at_a_time_is_cut_at_the_deadline_too(capped):
    with connect(capped) as connection:
        started = time.monotonic()
        connection.sendall(SLOW_HEAD)
        answered = threading.Event()

        def trickle():
            for _ in range(30):
                if answered.wait(0.2):
                    return
                try:
                    connection.sendall(b" ")
                except OSError:
                    return

        trickler = threading.Thread(target=trickle)
        trickler.start()
        status, problem = read_answer(connection)
        answered.set()
        trickler.join()
    assert (status, problem["code"]) == (408, "request_timeout")
    assert time.monotonic() - started < 3.0


def test_the_deadline_counts_from_the_first_byte_not_from_an_idle_kept_alive_connection(capped):
    api = SocketClient(capped.url)
    assert api.request("GET", "/healthz").status == 200
    time.sleep(1.0)  # idle, within gunicorn's keep-alive time
    body = {"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "random"}]}
    assert api.request("POST", "/v1/games", json_body=body).status == 201
    api.close()


def test_one_address_holding_its_cap_of_slow_connections_is_turned_away_and_others_are_answered(capped):
    """Past its cap, an address's connections are answered 429 after being held unread for
    KOZ_TURN_AWAY_SECONDS: turned away at once, the attacker's connections came straight back and
    kept the listen queue full. Held, they take none of the process's POOL connections: more of
    them than that, and another address is still answered at once."""
    held = [connect(capped, ATTACKER) for _ in range(6)]
    for connection in held:
        connection.sendall(SLOW_HEAD)
    time.sleep(0.3)  # every one of them accepted and waiting for its body
    past_the_cap = []
    try:
        started = time.monotonic()
        for _ in range(POOL + 10):
            connection = connect(capped, ATTACKER)
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: koz\r\n\r\n")
            past_the_cap.append(connection)
        assert healthz_seconds(capped) < 0.5  # another address is answered at once
        answers = []
        for connection in past_the_cap:
            answers.append(read_answer(connection))
            assert time.monotonic() - started > 0.9, "answered before its hold ended"
        assert {(status, problem["code"]) for status, problem in answers} == {(429, "too_many_connections")}
    finally:
        for connection in held + past_the_cap:
            connection.close()
    time.sleep(0.3)
    with connect(capped, ATTACKER) as again:  # its connections closed, the address is served again
        again.sendall(b"GET /healthz HTTP/1.1\r\nHost: koz\r\nConnection: close\r\n\r\n")
        assert read_answer(again)[0] == 200


def test_refused_connections_are_answered_spread_out_and_past_the_capacity_or_with_no_hold_at_once():
    refusals = HeldRefusals(seconds=0.2, capacity=2)
    first, first_peer = socket.socketpair()
    second, second_peer = socket.socketpair()
    assert refusals.hold(first) and refusals.hold(second)
    assert not refusals.hold(socket.socketpair()[0])  # its caller answers it at once
    assert not HeldRefusals(seconds=0, capacity=10).hold(socket.socketpair()[0])
    first_peer.settimeout(0)
    second_peer.settimeout(0)
    gevent.sleep(0.25)
    with pytest.raises(BlockingIOError):
        second_peer.recv(64)  # came with the first, due 0.2 / 2 s after it
    gevent.sleep(0.2)
    for peer in (first_peer, second_peer):
        assert peer.recv(64).startswith(b"HTTP/1.1 429 Too Many Requests")


def stream_status(service: Service, game_id: str, source: str) -> tuple[int, socket.socket]:
    connection = connect(service, source)
    connection.sendall(f"GET /v1/games/{game_id}/events HTTP/1.1\r\nHost: koz\r\n\r\n".encode())
    head = b""
    while b"\r\n" not in head:
        head += connection.recv(1)
    return int(head.split()[1]), connection


def test_one_address_may_hold_a_bounded_number_of_event_streams(capped):
    api = SocketClient(capped.url)
    game_id = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).body["id"]
    api.close()
    opened = [stream_status(capped, game_id, ATTACKER) for _ in range(2)]
    try:
        assert [status for status, _ in opened] == [200, 200]
        status, refused = stream_status(capped, game_id, ATTACKER)
        refused.close()
        assert status == 429
        answer = raw_request(capped, f"GET /v1/games/{game_id}/events HTTP/1.1\r\nHost: koz\r\nConnection: close\r\n\r\n".encode(), source=ATTACKER)
        assert (answer[0], answer[2]["code"], answer[1]["Retry-After"]) == (429, "too_many_streams", "1")
        status, other = stream_status(capped, game_id, "127.0.0.1")  # another address still may
        other.close()
        assert status == 200
    finally:
        for _, connection in opened:
            connection.close()
    deadline = time.monotonic() + 5
    while True:  # the server notices the closed streams at their next heartbeat or message at the latest
        status, connection = stream_status(capped, game_id, ATTACKER)
        connection.close()
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status == 200


MALFORMED_CHUNKED = {
    "a chunk size that is no number": b"ZZ\r\n{}\r\n0\r\n\r\n",
    "a chunk shorter than its size": b"5\r\n{}\r\n0\r\n\r\n",
    "a chunk without its CRLF": b"2\r\n{}0\r\n\r\n",
}


@pytest.mark.parametrize("body", MALFORMED_CHUNKED.values(), ids=MALFORMED_CHUNKED.keys())
@pytest.mark.parametrize("path", ["/v1/games", "/v1/games/{id}/actions", "/v1/games/{id}/leave", "/v1/games/{id}/seats/1", "/v1/games/{id}/rematch"])
def test_a_malformed_chunked_body_answers_400_on_every_post_endpoint(capped, path, body):
    api = SocketClient(capped.url)
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"open": True}]).body
    api.close()
    target = path.replace("{id}", created["id"]).encode()
    head = b"POST " + target + b" HTTP/1.1\r\nHost: koz\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
    token = b"Authorization: Bearer " + created["tokens"][0]["token"].encode() + b"\r\n"
    status, headers, problem = raw_request(capped, head + token + b"\r\n" + body)
    assert (status, problem["code"], headers["Content-Type"]) == (400, "malformed_request", "application/problem+json")


BURST = 600
QUICK_REDIS = {"KOZ_REDIS_TIMEOUT": "0.3", "KOZ_REDIS_CONNECT_TIMEOUT": "0.3", "KOZ_CONNECTIONS_PER_ADDRESS": "0", "KOZ_STREAMS_PER_ADDRESS": "0"}


def test_a_burst_of_event_streams_waits_for_redis_connections_and_a_stalled_redis_still_answers_503(tmp_path):
    """600 streams opened at once need far more than the process's 64 Redis connections for
    longer than the Redis timeout: each waits its turn and is answered 200, as Redis is healthy.
    A Redis that does not answer is still 503 storage_unavailable, promptly."""
    service = Service(tmp_path / "koz-data", **QUICK_REDIS, **NO_LIMITS)
    try:
        api = SocketClient(service.url)
        game_id = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).body["id"]
        request = f"GET /v1/games/{game_id}/events HTTP/1.1\r\nHost: koz\r\n\r\n".encode()
        streams = [connect(service, timeout=30) for _ in range(BURST)]
        for connection in streams:
            connection.sendall(request)
        statuses = []
        for connection in streams:
            head = b""
            while b"\r\n" not in head:
                head += connection.recv(1)
            statuses.append(int(head.split()[1]))
            connection.close()
        assert statuses.count(200) == BURST, {status: statuses.count(status) for status in set(statuses)}

        api.close()
        api = SocketClient(service.url)  # the first one idled past gunicorn's keep-alive meanwhile
        os.kill(service.redis_pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            stalled = api.view(game_id)
            assert (stalled.status, stalled.code) == (503, "storage_unavailable")
            assert time.monotonic() - started < 2.0
        finally:
            os.kill(service.redis_pid, signal.SIGCONT)
        api.close()
    finally:
        service.stop()
