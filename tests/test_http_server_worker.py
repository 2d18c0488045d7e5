"""``koz serve``'s worker, in this process: the mixins (:class:`WholeRequests`,
:class:`ProblemErrors`) on a stand-in for gunicorn's ``GeventWorker`` that records what reaches
it, and the hooks of ``KozGeventWorker``, ``post_fork`` and ``SupervisingArbiter`` with
gunicorn's own methods replaced. tests/test_serve*.py run the same code in a real ``koz serve``,
which no mutant reaches."""

from __future__ import annotations

import json
import resource
import signal
import time
from types import SimpleNamespace
from typing import Any

import gevent
import gevent.socket
import pytest
from gunicorn import util
from gunicorn.arbiter import Arbiter
from gunicorn.config import Config
from gunicorn.http import wsgi
from gunicorn.http.parser import RequestParser
from gunicorn.workers.ggevent import GeventWorker

from service import http_server
from service.http_server import (
    DatePerSecond,
    HeldRefusals,
    KozGeventWorker,
    OneWriteResponse,
    ProblemErrors,
    SupervisingArbiter,
    TimedSocket,
    WholeRequests,
    post_fork,
)
from service.per_address import PerAddress
from service.texts import DETAILS

ADDRESS = ("203.0.113.7", 50000)
ERROR_PAGE = b"HTTP/1.1 414 URI Too Long\r\nConnection: close\r\n\r\n<html>too long</html>"


class GunicornWorker:
    """What the mixins call on, in gunicorn's worker: each call recorded; its ``handle`` fails
    when asked to, its ``handle_error`` sends gunicorn's HTML page through the client it is given."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail: BaseException | None = None
        self.log = SimpleNamespace(info=lambda *args: self.calls.append(("log", *args)))

    def init_process(self) -> None:
        self.calls.append(("init_process",))

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        self.calls.append(("handle", listener, client, addr))
        if self.fail is not None:
            raise self.fail

    def handle_request(self, listener_name: str, req: Any, sock: Any, addr: Any) -> bool:
        self.calls.append(("handle_request", listener_name, req.body.read(), sock.request_began, addr))
        return True

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        self.calls.append(("handle_error", req, client.fileno(), addr, exc))  # (anything else of the client is the socket's)
        client.sendall(ERROR_PAGE)


class Worker(WholeRequests, ProblemErrors, GunicornWorker):
    pass


def worker(connections: int = 2, request_seconds: float = 5.0, held: HeldRefusals | None = None) -> Worker:
    made = Worker()
    made.connections = PerAddress(connections)
    made.held_refusals = held or HeldRefusals(0, 10)  # no hold: turned away at once
    made.request_seconds = request_seconds
    made.max_body_bytes = 1000
    return made


def answer_on(peer: Any) -> tuple[str, dict[str, Any]]:
    peer.settimeout(5)
    raw = b""
    while chunk := peer.recv(65536):
        raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), json.loads(body)


def arrived(data: bytes) -> tuple[TimedSocket, Any, Any]:
    """``data`` sent by a client: the server's end of the connection (timed), the request gunicorn
    parses off it (its body, if any, read later), and the client's end."""
    server, client = gevent.socket.socketpair()
    client.sendall(data)
    timed = TimedSocket(server)
    return timed, next(RequestParser(Config(), timed, ADDRESS)), client


# --- init_process ------------------------------------------------------------------------------


def test_a_worker_takes_its_limits_from_the_environment_before_it_runs(monkeypatch):
    for name, value in {
        "KOZ_REQUEST_SECONDS": "7",
        "KOZ_MAX_BODY_BYTES": "4096",
        "KOZ_CONNECTIONS_PER_ADDRESS": "3",
        "KOZ_TURN_AWAY_SECONDS": "0.5",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1001, 4096) if which == resource.RLIMIT_NOFILE else pytest.fail(which))
    made = Worker()
    made.init_process()
    assert (made.request_seconds, made.max_body_bytes, made.connections.cap) == (7.0, 4096, 3)
    # half the descriptors it may open (the soft limit) may be held refused
    assert (made.held_refusals.seconds, made.held_refusals.capacity) == (0.5, 500)
    assert made.calls == [("init_process",)]


# --- connections per address -------------------------------------------------------------------


def test_a_connection_within_its_addresses_cap_is_handled_with_its_bytes_timed_and_gives_its_place_back():
    made = worker(connections=1)
    client, _ = gevent.socket.socketpair()
    made.handle("listener", client, ADDRESS)
    (_, listener, handled, addr), = made.calls
    assert (listener, addr) == ("listener", ADDRESS)
    assert isinstance(handled, TimedSocket) and handled._sock is client and handled.request_began is None
    assert made.connections.take(ADDRESS[0])  # given back


def test_a_connection_whose_handling_fails_gives_its_place_back_too():
    made = worker(connections=1)
    made.fail = OSError("reset")
    with pytest.raises(OSError):
        made.handle("listener", gevent.socket.socketpair()[0], ADDRESS)
    assert made.connections.take(ADDRESS[0])


def test_a_connection_past_its_addresses_cap_is_answered_429_unread_and_never_handled():
    made = worker(connections=1)
    assert made.connections.take(ADDRESS[0])  # the one connection it may hold
    client, peer = gevent.socket.socketpair()
    made.handle("listener", client, ADDRESS)
    line, problem = answer_on(peer)
    assert (line, problem["code"]) == ("HTTP/1.1 429 Too Many Requests", "too_many_connections")
    assert made.calls == []
    made.connections.give_back(ADDRESS[0])
    assert made.connections.take(ADDRESS[0]) and not made.connections.take(ADDRESS[0])  # its refusal took no place


def test_a_connection_past_its_addresses_cap_is_held_for_its_429_while_there_is_room_to_hold_it():
    held: list[Any] = []
    holds = SimpleNamespace(hold=lambda client: held.append(client) or True)
    made = worker(connections=1, held=holds)  # type: ignore[arg-type]
    assert made.connections.take(ADDRESS[0])
    client, peer = gevent.socket.socketpair()
    made.handle("listener", client, ADDRESS)
    assert held == [client] and made.calls == []
    peer.settimeout(0.1)
    with pytest.raises(TimeoutError):
        peer.recv(1)  # not answered yet: held


def test_connections_refused_after_the_held_ones_were_answered_are_held_and_answered_too():
    refusals = HeldRefusals(seconds=0.05, capacity=10)
    for _ in range(2):  # a second round, once the first is answered and its answering is done
        client, peer = gevent.socket.socketpair()
        assert refusals.hold(client)
        assert answer_on(peer)[1]["code"] == "too_many_connections"
        gevent.sleep(0.01)
        assert refusals.answering is None and not refusals.held


def test_a_connection_from_an_address_that_is_no_host_and_port_counts_under_the_empty_address():
    made = worker(connections=1)
    assert made.connections.take("")
    client, peer = gevent.socket.socketpair()
    made.handle("listener", client, "/run/koz.sock")
    assert answer_on(peer)[1]["code"] == "too_many_connections"


# --- a request's body ----------------------------------------------------------------------------


def test_a_body_is_read_whole_before_the_app_and_the_next_request_times_from_its_own_first_byte():
    made = worker()
    timed, request, client = arrived(b"POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
    began = timed.request_began
    assert began is not None
    assert made.handle_request("listener", request, timed, ADDRESS) is True
    assert made.calls == [("handle_request", "listener", b"hello", began, ADDRESS)]
    assert timed.request_began is None


def test_a_client_that_expects_100_continue_is_told_to_send_its_body_before_the_app_runs():
    made = worker()
    timed, request, client = arrived(b"POST /x HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
    told: list[bytes] = []
    gevent.spawn_later(0.05, lambda: told.append(client.recv(100)) or client.sendall(b"hello"))  # the body once told to send it
    assert made.handle_request("listener", request, timed, ADDRESS) is True
    assert told == [b"HTTP/1.1 100 Continue\r\n\r\n"] and made.calls[0][2] == b"hello"


def test_a_request_without_a_body_goes_to_the_app_without_a_read_of_one(monkeypatch):
    made = worker()
    monkeypatch.setattr(http_server, "read_whole_body", lambda *args: pytest.fail("a body was read"))
    timed, request, _ = arrived(b"GET /x HTTP/1.1\r\n\r\n")
    assert made.handle_request("listener", request, timed, ADDRESS) is True
    assert made.calls[0][2] == b""


def test_a_body_that_does_not_arrive_within_the_request_seconds_of_its_first_byte_is_answered_408_and_closed():
    made = worker(request_seconds=0.3)
    timed, request, client = arrived(b"POST /x?lang=tr HTTP/1.1\r\nContent-Length: 5\r\n\r\nhe")  # the rest never comes
    started = time.monotonic()
    with pytest.raises(StopIteration):
        made.handle_request("listener", request, timed, ADDRESS)
    assert 0.2 < time.monotonic() - started < 5
    assert [call[0] for call in made.calls] == ["log"] and ADDRESS[0] in made.calls[0] and 0.3 in made.calls[0]
    assert timed.request_began is None
    timed.close()
    line, problem = answer_on(client)
    assert (line, problem["code"], problem["detail"]) == ("HTTP/1.1 408 Request Timeout", "request_timeout", DETAILS["request_too_slow"]["tr"])


def test_a_body_whose_first_byte_came_long_ago_has_no_time_left():
    made = worker(request_seconds=1.0)
    timed, request, client = arrived(b"POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhe")
    timed.request_began = time.monotonic() - 10  # its headers trickled in for ten seconds
    started = time.monotonic()
    with pytest.raises(StopIteration):
        made.handle_request("listener", request, timed, ADDRESS)
    assert time.monotonic() - started < 0.9  # not the second it would have had from now


# --- gunicorn's own refusals ------------------------------------------------------------------


def test_gunicorns_error_page_leaves_through_the_client_as_a_problem_in_the_language_asked():
    made = worker()
    config = Config()
    config.set("limit_request_line", 40)
    with pytest.raises(Exception) as refused:
        next(RequestParser(config, iter([b"GET /v1/games?lang=tr&" + b"a" * 60 + b" HTTP/1.1\r\n\r\n"]), ADDRESS))
    client, peer = gevent.socket.socketpair()
    made.handle_error(None, client, ADDRESS, refused.value)
    assert made.calls == [("handle_error", None, client.fileno(), ADDRESS, refused.value)]
    client.close()
    line, problem = answer_on(peer)
    assert (line, problem["code"], problem["detail"]) == ("HTTP/1.1 414 Request-URI Too Long", "uri_too_long", DETAILS["request_line_too_long"]["tr"])


def test_the_error_page_of_a_request_read_whole_is_in_the_requests_language():
    made = worker()
    request = next(RequestParser(Config(), iter([b"GET /x?lang=tr HTTP/1.1\r\n\r\n"]), ADDRESS))
    client, peer = gevent.socket.socketpair()
    failure = RuntimeError("the app failed")
    made.handle_error(request, client, ADDRESS, failure)
    assert made.calls == [("handle_error", request, client.fileno(), ADDRESS, failure)]
    client.close()
    assert answer_on(peer)[1]["detail"] == DETAILS["request_line_too_long"]["tr"]


# --- KozGeventWorker, post_fork, the arbiter -------------------------------------------------


def test_a_koz_worker_answers_with_one_write_and_a_date_made_once_a_second_then_runs(monkeypatch):
    monkeypatch.setattr(wsgi, "Response", wsgi.Response)  # put back after the test
    monkeypatch.setattr(util, "http_date", util.http_date)
    ran: list[bool] = []
    monkeypatch.setattr(WholeRequests, "init_process", lambda self: ran.append(True))
    monkeypatch.setattr(http_server, "skip_unwritten_lookups", lambda: ran.append(False))
    KozGeventWorker.__new__(KozGeventWorker).init_process()  # (gunicorn's __init__ wants a whole arbiter)
    assert wsgi.Response is OneWriteResponse and isinstance(wsgi.util.http_date, DatePerSecond)
    assert ran == [False, True]


def test_a_koz_worker_told_to_stop_wakes_every_waiting_request_after_gunicorns_own_handling(monkeypatch):
    steps: list[str] = []
    monkeypatch.setattr(GeventWorker, "handle_exit", lambda self, sig, frame: steps.append(f"gunicorn {sig}"))
    announcements = SimpleNamespace(close=lambda: steps.append("woken"))
    stopping = KozGeventWorker.__new__(KozGeventWorker)
    stopping.wsgi = SimpleNamespace(extensions={"koz": SimpleNamespace(announcements=announcements)})
    stopping.handle_exit(signal.SIGTERM, None)
    assert steps == [f"gunicorn {signal.SIGTERM}"]  # the waiters are woken out of the signal handler
    gevent.sleep(0)
    assert steps == [f"gunicorn {signal.SIGTERM}", "woken"]


def test_a_forked_web_process_ends_with_its_master_and_freezes_what_it_loaded(monkeypatch):
    steps: list[Any] = []
    monkeypatch.setattr(http_server, "end_with_parent", lambda pid, sig: steps.append((pid, sig)))
    monkeypatch.setattr(http_server, "freeze_what_was_loaded", lambda: steps.append("frozen"))
    post_fork(SimpleNamespace(pid=4242), None)
    assert steps == [(4242, signal.SIGKILL), "frozen"]


@pytest.mark.parametrize("supervised", [True, False])
def test_the_master_checks_the_embedded_redis_after_each_round_of_its_workers(monkeypatch, supervised):
    steps: list[str] = []
    monkeypatch.setattr(Arbiter, "manage_workers", lambda self: steps.append("workers"))
    master = SupervisingArbiter.__new__(SupervisingArbiter)
    if supervised:
        master.supervise = lambda: steps.append("redis")
    master.manage_workers()
    assert steps == (["workers", "redis"] if supervised else ["workers"])
