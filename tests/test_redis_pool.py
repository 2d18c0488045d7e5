"""A web process's Redis connections, on a real redis-server: a request that finds them all taken
waits its turn for as long as Redis answers, fails as Redis's own failure once Redis has not
answered for the timeout, and past the queue's length is refused at once (503 busy)."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from redis import ConnectionError

from service import app as service_app
from service import create_app
from service.redis_pool import QueueingConnectionPool, StorageBusy
from tests.api import FlaskClient
from tests.conftest import make_settings


def pool(url: str, *, connections: int, queued: int, timeout: float) -> QueueingConnectionPool:
    return QueueingConnectionPool.from_url(url, max_connections=connections, max_queued=queued, timeout=timeout)


def held(connections: QueueingConnectionPool, seconds: float) -> None:
    """One request's use of a connection: a command answered, then the connection kept a while."""
    connection = connections.get_connection()
    try:
        connection.send_command("PING")
        assert connection.read_response() in (b"PONG", "PONG")
        time.sleep(seconds)
    finally:
        connections.release(connection)


def test_requests_that_find_every_connection_taken_wait_their_turn_past_the_timeout_while_redis_answers(redis_server_url):
    # ten requests on two connections, each held 0.2 s: most wait far longer than the 0.5 s
    # timeout in all, while a connection comes back having answered every 0.1 s
    connections = pool(redis_server_url, connections=2, queued=100, timeout=0.5)
    failures: list[BaseException] = []

    def request() -> None:
        try:
            for _ in range(2):
                held(connections, 0.2)
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    started = time.monotonic()
    threads = [threading.Thread(target=request) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failures == []
    assert time.monotonic() - started >= 10 * 2 * 0.2 / 2
    assert connections.queued == 0
    connections.disconnect()


def test_a_request_waiting_while_redis_has_not_answered_for_the_timeout_fails_as_storage_unavailable(redis_server_url):
    connections = pool(redis_server_url, connections=1, queued=100, timeout=0.3)
    holder = connections.get_connection()  # taken, and nothing comes back
    answers: list[BaseException | object] = []

    def waiting_request() -> None:
        try:
            answers.append(connections.get_connection())
        except ConnectionError as error:
            answers.append(error)

    started = time.monotonic()
    waiting = threading.Thread(target=waiting_request, daemon=True)  # one that waited on for ever would be left behind
    waiting.start()
    waiting.join(5)
    assert 0.25 <= time.monotonic() - started < 5
    assert len(answers) == 1 and isinstance(answers[0], ConnectionError) and "No connection available" in str(answers[0])
    assert connections.queued == 0
    connections.release(holder)
    connections.disconnect()


def test_a_connection_that_comes_back_broken_does_not_count_as_redis_answering(redis_server_url):
    connections = pool(redis_server_url, connections=1, queued=100, timeout=0.3)
    connection = connections.get_connection()
    connection.send_command("PING")
    connection.read_response()
    connection.disconnect()  # as a command that timed out leaves it
    before = connections.answered_at
    time.sleep(0.01)
    connections.release(connection)
    assert connections.answered_at == before
    connection = connections.get_connection()
    connection.send_command("PING")
    connection.read_response()
    connections.release(connection)
    assert connections.answered_at > before
    connections.disconnect()


def test_past_the_queue_a_request_is_refused_at_once(redis_server_url):
    connections = pool(redis_server_url, connections=1, queued=1, timeout=2.0)
    holder = connections.get_connection()
    waiting = threading.Thread(target=held, args=(connections, 0))
    waiting.start()
    while connections.queued < 1:
        time.sleep(0.005)
    started = time.monotonic()
    with pytest.raises(StorageBusy, match="1 requests wait for a Redis connection already"):
        connections.get_connection()
    assert time.monotonic() - started < 0.5
    assert connections.queued == 1  # the refused one never counted
    connections.release(holder)
    waiting.join(10)
    assert connections.queued == 0
    connections.disconnect()


def test_a_request_refused_for_the_queue_answers_503_busy_storage_busy(redis_server_url, monkeypatch):
    monkeypatch.setattr(service_app, "MAX_QUEUED", 0)
    app = create_app(make_settings(redis_url=redis_server_url))
    api = FlaskClient(app.test_client())
    answer = api.request("POST", "/v1/games", json_body={"ruleset": "german-whist"})
    assert (answer.status, answer.code, answer.body["type"], answer.headers["Retry-After"]) == (503, "busy", "urn:koz:problem:busy", "1")
    assert answer.headers["Content-Type"] == "application/problem+json"


class DroppingServer:
    """A TCP server that reads what a client sends, then closes the connection without answering:
    a Redis lost while a command was under way (it may have been applied)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.connections = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.listener.getsockname()[1]}"

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            with connection:
                connection.recv(65536)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.listener.close()


def test_the_service_s_redis_client_never_sends_a_command_again_by_itself():
    """A write whose connection was lost may have been applied: only the caller, with its version
    check and idempotency key, may try it again, so the client the service makes must not."""
    server = DroppingServer()
    try:
        client = service_app.redis_client(1.0, 1.0, url=server.url)
        with pytest.raises(ConnectionError):
            client.set("game", "moved")
        assert server.connections == 1
    finally:
        server.stop()


def test_the_service_s_redis_client_shares_its_connections_and_waits_for_redis_as_long_as_its_timeout():
    client = service_app.redis_client(0.25, 1.5, url="redis://127.0.0.1:1")
    connections = client.connection_pool
    assert (connections.max_connections, connections.max_queued) == (service_app.MAX_CONNECTIONS, service_app.MAX_QUEUED)
    assert connections.timeout == 1.5
    options = connections.connection_kwargs
    assert (options["socket_connect_timeout"], options["socket_timeout"]) == (0.25, 1.5)
