"""gunicorn as Koz runs it: its settings in one place, its own refusals as problem+json, and a
master that supervises the embedded Redis.

``koz serve`` applies :data:`SETTINGS`; the image runs ``gunicorn -c python:service.gunicorn_conf``,
which holds the same.
"""

from __future__ import annotations

import gc
import io
import json
import re
import resource
import secrets
import signal
import time
import traceback
from collections import deque
from email.utils import formatdate
from http import HTTPStatus
from typing import Any, Callable
from urllib.parse import parse_qs

import gevent
import gevent.socket
from gunicorn.arbiter import Arbiter
from gunicorn.glogging import Logger
from gunicorn.http.body import Body, LengthReader
from gunicorn.http import wsgi
from gunicorn.http.message import Request
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from .config import Settings
from .errors import PROBLEM_CONTENT_TYPE, Problem
from .lifetime import end_with_parent
from .logs import LOGGING, skip_unwritten_lookups
from .per_address import PerAddress
from .texts import choose_language

#: the stable code of each refusal gunicorn answers itself, before the app sees the request, and
#: the name of its detail (``texts.DETAILS``)
SERVER_REFUSALS = {
    400: ("malformed_request", "not_http"),
    403: ("forbidden", "request_forbidden"),
    408: ("request_timeout", "request_too_slow"),
    414: ("uri_too_long", "request_line_too_long"),
    417: ("expectation_failed", "expect_unmet"),
    429: ("too_many_connections", "too_many_connections"),
    431: ("headers_too_large", "headers_too_large"),
    500: ("internal_error", "server_failed"),
    501: ("not_implemented", "transfer_coding_unsupported"),
}


class ProblemSocket:
    """A client socket through which gunicorn's HTML error pages leave as problem+json, in the
    language the request asked for."""

    def __init__(self, sock: Any, language: str) -> None:
        self._sock = sock
        self._language = language

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def sendall(self, data: bytes) -> None:
        self._sock.sendall(problem_page(data, self._language))


def problem_page(page: bytes, language: str) -> bytes:
    """gunicorn's error page (``HTTP/1.1 414 URI Too Long`` and HTML) as a problem+json answer."""
    match = re.match(rb"HTTP/1\.[01] (\d{3})", page)
    return refusal(int(match.group(1)) if match else 500, language)


def refusal(status: int, language: str, headers: str = "") -> bytes:
    """The whole answer, closing the connection, by which the server itself refuses a request."""
    code, detail = SERVER_REFUSALS.get(status, ("bad_request", "request_refused"))
    body = json.dumps(Problem(status, code, detail).to_json(language)).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nConnection: close\r\nContent-Type: {PROBLEM_CONTENT_TYPE}\r\n"
        f"Content-Language: {language}\r\nContent-Length: {len(body)}\r\nX-Request-ID: {secrets.token_hex(16)}\r\n{headers}\r\n"
    )
    return head.encode("latin-1") + body


def refused_language(request: Request | None, error: BaseException) -> str:
    """The language of a request gunicorn refused, from what it had read of it when it did: the
    ``lang`` of its request line, else the ``Accept-Language`` among the headers it had parsed,
    else English (as for a request too broken to say).

    A request refused while it was parsed is not handed over, so what was read of it is found in
    the frames of the parser that raised: the request itself (``self``), the headers parsed so far
    (``headers`` in ``parse_headers``) and, for a request line over the limit, the bytes of it
    read (``buf`` in ``read_line``)."""
    query = request.query if request is not None else None
    headers: list[tuple[str, str]] = request.headers if request is not None else []
    for frame, _ in traceback.walk_tb(error.__traceback__):
        scope = frame.f_locals
        parsed = scope.get("self")
        if not isinstance(parsed, Request):
            continue
        query, headers = parsed.query, parsed.headers or headers
        if frame.f_code.co_name == "parse_headers":
            headers = scope.get("headers", headers)
        elif frame.f_code.co_name == "read_line":
            query = _whole_parameters(bytes(scope["buf"][: scope["limit"] or None]))
    accepted = ", ".join(value for name, value in headers if name == "ACCEPT-LANGUAGE")
    lang = parse_qs(query or "").get("lang", [None])[0]
    return choose_language(lang, parse_accept_header(accepted, LanguageAccept))


def _whole_parameters(line: bytes) -> str:
    """The query of a request line read in part, as far as its parameters were read whole: each
    ended by ``&`` or by the space after the target."""
    target, ended, _ = line.partition(b" ")[2].partition(b" ")
    query = target.partition(b"?")[2].decode("latin-1")
    return query if ended else query.rpartition("&")[0]


class ProblemErrors:
    """A worker mixin: what gunicorn refuses itself (request line or headers too long, bytes
    that are not HTTP) is answered as problem+json, like everything the app answers, and in the
    language the request asked for as far as gunicorn read it."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        super().handle_error(req, ProblemSocket(client, refused_language(req, exc)), addr, exc)  # type: ignore[misc]  # the worker it is mixed into


class TimedSocket:
    """A client connection that notes when the bytes of its current request began to arrive."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        #: when the first bytes of the request being read arrived (None: none yet)
        self.request_began: float | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def recv(self, size: int, *flags: int) -> bytes:
        data: bytes = self._sock.recv(size, *flags)
        if self.request_began is None and data:
            self.request_began = time.monotonic()
        return data


class RequestTooSlow(Exception):
    """A request's body did not arrive within the request deadline."""


class WholeRequests:
    """A worker mixin: a request reaches the app only once it has arrived whole, and within a
    deadline; one client address holds a bounded number of connections.

    gunicorn cuts a request whose headers take longer than its keep-alive time, but lets the app
    read the body for as long as the client trickles it: thousands of connections each sending a
    byte now and then held a process's every connection, and no one else was answered. Here the
    body is read before the app runs, within ``KOZ_REQUEST_SECONDS`` of the request's first byte
    (past it: 408 and the connection closed), and a body that is not well-formed chunked coding
    is refused like any other malformed request (400), where the app would have failed reading
    it. A body over the app's limit is read up to the limit: the app refuses it (413) and the
    connection closes. A connection past ``KOZ_CONNECTIONS_PER_ADDRESS`` of its address is
    answered 429 and closed before a byte of it is read: after ``KOZ_TURN_AWAY_SECONDS`` held
    unread (:class:`HeldRefusals`), or at once when too many are held already."""

    def init_process(self) -> None:
        settings = Settings.from_env()
        self.request_seconds = settings.request_seconds
        self.max_body_bytes = settings.max_body_bytes
        self.connections = PerAddress(settings.connections_per_address)
        self.held_refusals = HeldRefusals(settings.turn_away_seconds, resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 2)
        super().init_process()  # type: ignore[misc]  # the worker it is mixed into; runs the worker

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        address = addr[0] if isinstance(addr, tuple) else ""
        if not self.connections.take(address):
            if not self.held_refusals.hold(client):
                turn_away(client)
            return
        try:
            super().handle(listener, TimedSocket(client), addr)  # type: ignore[misc]  # the worker it is mixed into
        finally:
            self.connections.give_back(address)

    def handle_request(self, listener_name: str, req: Any, sock: Any, addr: Any) -> bool:
        try:
            if not (isinstance(req.body.reader, LengthReader) and req.body.reader.length == 0):
                began = sock.request_began or time.monotonic()
                with gevent.Timeout(max(0.0, began + self.request_seconds - time.monotonic()), RequestTooSlow):
                    read_whole_body(req, sock, self.max_body_bytes)
            handled: bool = super().handle_request(listener_name, req, sock, addr)  # type: ignore[misc]  # the worker it is mixed into
            return handled
        except RequestTooSlow as error:
            log = self.log  # type: ignore[attr-defined]  # the worker's log
            log.info("request from %s cut: its body did not arrive within %s s", address_of(addr), self.request_seconds)
            sock.sendall(refusal(408, refused_language(req, error)))
            raise StopIteration() from None  # gunicorn closes the connection
        finally:
            sock.request_began = None  # the next request's time starts with its own first byte


def read_whole_body(req: Request, sock: Any, limit: int) -> None:
    """Read the request's body off the connection now, up to one byte over ``limit``, and hand
    it to the app from memory; a body over the limit closes the connection after the answer."""
    if req._expected_100_continue:  # gunicorn says it only when the app starts: the body comes now
        sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        req._expected_100_continue = False
    data = req.body.read(limit + 1)
    if len(data) > limit:
        req.must_close = True  # the rest of it is never read: the connection cannot go on
    req.body = Body(io.BytesIO(data))


class HeldRefusals:
    """Connections past their address's cap, held open and unread for ``seconds`` before their
    429, at most ``capacity`` of them at once.

    Closed at once, each refused connection came straight back: one address reopening 10,000
    connections a second (each a second after its 429, as ``Retry-After`` asks) kept the listen
    queue full, and a new client's connection was dropped by the kernel and retried seconds later.
    Held, the same address reopens them ``seconds`` later at the earliest, and no faster than
    ``capacity`` per ``seconds``: thousands that came at once are answered spread out, so they do
    not all come back at once. Each held connection costs a descriptor and no greenlet: it is
    taken from the greenlet that accepted it (which gevent closes its socket after), so it does
    not fill the connection pool."""

    def __init__(self, seconds: float, capacity: int) -> None:
        self.seconds = seconds
        self.capacity = capacity if seconds > 0 else 0
        #: (when to answer, the connection), in the order they came, so in the order they are due
        self.held: deque[tuple[float, Any]] = deque()
        self.last_due = 0.0
        self.answering: gevent.Greenlet | None = None

    def hold(self, client: Any) -> bool:
        """Hold ``client`` for its delayed answer, unless as many as the capacity are held already."""
        if len(self.held) >= self.capacity:
            return False
        self.last_due = max(time.monotonic() + self.seconds, self.last_due + self.seconds / self.capacity)
        self.held.append((self.last_due, gevent.socket.socket(fileno=client.detach())))
        if self.answering is None:
            self.answering = gevent.spawn(self.answer_when_due)
        return True

    def answer_when_due(self) -> None:
        try:
            while self.held:
                due, client = self.held[0]
                if due > time.monotonic():
                    gevent.sleep(due - time.monotonic())
                    continue
                self.held.popleft()
                turn_away(client)
        finally:
            self.answering = None


def turn_away(client: Any) -> None:
    """Answer 429 on a connection without reading its request, and close it."""
    try:
        client.settimeout(0)
        client.recv(65536)  # what already arrived, so that closing does not reset the connection
    except OSError:
        pass
    try:
        client.settimeout(1.0)
        client.sendall(refusal(429, "en", "Retry-After: 1\r\n"))
    except OSError:
        pass
    finally:
        client.close()


def address_of(addr: Any) -> str:
    return addr[0] if isinstance(addr, tuple) else str(addr)


class OneWriteResponse(wsgi.Response):  # type: ignore[misc]  # gunicorn has no type information
    """gunicorn's response, which sends an answer's head and its body in one write when the body
    comes whole (every answer but a stream): gunicorn sends them apart, and the second send (a
    system call, and on loopback a wake-up of the client) is spared on every request."""

    headers_sent: bool  # (gunicorn's, set by its __init__)

    def write(self, arg: bytes) -> None:
        whole = (
            not self.headers_sent
            and isinstance(arg, bytes)
            and arg
            and not self.chunked
            and getattr(self, "_omits_body", None) is False  # (gunicorn 27: a HEAD, 204 or 304 sends no body)
            and (self.response_length is None or len(arg) <= self.response_length)
        )
        if not whole:
            super().write(arg)
            return
        head = self.default_headers()
        head.extend(f"{name}: {value}\r\n" for name, value in self.headers)
        self.headers_sent = True
        self.sent += len(arg)
        self.sock.sendall(("".join(head) + "\r\n").encode("latin-1") + arg)


class DatePerSecond:
    """gunicorn's ``Date`` header (its ``util.http_date``), formatted once a second rather than
    for every answer (email.utils' formatting, about 1% of a move's CPU in the web process): the
    header counts whole seconds, so every answer within one second carries the same text."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        #: (the second, its header text) of the last answer
        self._second: tuple[int, str] = (-1, "")

    def __call__(self, timestamp: float | None = None) -> str:
        if timestamp is not None:
            return formatdate(timestamp, usegmt=True)
        now = int(self.clock())
        second, text = self._second
        if second != now:
            text = formatdate(now, usegmt=True)
            self._second = (now, text)  # one assignment: a greenlet reads either pair whole
        return text


class KozGeventWorker(WholeRequests, ProblemErrors, GeventWorker):  # type: ignore[misc]  # gunicorn has no type information
    """gevent workers: a request is a greenlet, so a long-poll or an event stream waiting for a
    move holds no thread, and one process keeps thousands of them open."""

    def init_process(self) -> None:
        wsgi.Response = OneWriteResponse  # what gunicorn's HTTP/1 requests are answered with, in this process
        wsgi.util.http_date = DatePerSecond()
        skip_unwritten_lookups()
        super().init_process()

    def handle_exit(self, sig: int, frame: Any) -> None:
        """SIGTERM: stop, and first answer the requests that wait for a move (a long-poll with
        the game as it is; an event stream ends, and is resumed with Last-Event-ID), rather than
        cut them unanswered at the graceful timeout."""
        super().handle_exit(sig, frame)
        gevent.spawn(self.wsgi.extensions["koz"].announcements.close)  # out of the signal handler: it takes a lock


class SurvivorFreezer:
    """A collector callback for a web process that holds thousands of waiting requests: what
    survives a full pass is frozen, so that the next full passes skip it.

    A full pass walks every waiting request's objects and stalls them all meanwhile (about
    100 ms with 2,000 waiters on a 2-core host), and a stalled waiter hears of a move late.
    Every ``refresh_seconds`` the frozen objects are let back in, so that the cycles left among
    them (by requests that have ended since) are freed by the next pass: memory stays bounded,
    and the long pass comes that rarely."""

    def __init__(self, refresh_seconds: float, timer: Callable[[], float] = time.monotonic) -> None:
        self.refresh_seconds = refresh_seconds
        self.timer = timer
        self.refreshed = timer()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        now = self.timer()
        if now - self.refreshed >= self.refresh_seconds:
            gc.unfreeze()
            self.refreshed = now
        else:
            gc.freeze()


#: how often the collector's full pass walks every object of a web process again
FULL_PASS_SECONDS = 300.0


def post_fork(server: Any, _worker: Any) -> None:
    # a web process ends with its master, however the master ends: nothing it holds is lost (the
    # games are in Redis), and one left behind would go on serving the port
    end_with_parent(server.pid, signal.SIGKILL)
    freeze_what_was_loaded()


def freeze_what_was_loaded() -> None:
    # what the app loaded before the fork lives as long as the process: keep it out of the
    # collector's full passes, which would otherwise stall thousands of waiting requests at times
    gc.freeze()
    gc.callbacks.append(SurvivorFreezer(FULL_PASS_SECONDS))


class AppLoggedRequests(Logger):  # type: ignore[misc]  # gunicorn has no type information
    """gunicorn's logger without its access log: the app logs each request itself, with its
    request id (:mod:`service.logs`). With a logging configuration given, gunicorn builds every
    request's access-log fields (about 3% of a web process's CPU under load), only for its
    ``gunicorn.access`` logger to drop them."""

    def _compute_access_log_enabled(self) -> bool:
        return False


SETTINGS: dict[str, Any] = {
    "worker_class": "service.http_server.KozGeventWorker",
    "worker_connections": 10000,
    # requests think for no computer; a worker's loop blocked this long is restarted
    "timeout": 30,
    # event streams never end by themselves: on a stop, the requests under way get 5 s
    "graceful_timeout": 5,
    "post_fork": post_fork,
    # gunicorn's own limits; beyond them it answers 414 or 431 (as problem+json, above)
    "limit_request_line": 4094,
    "limit_request_fields": 100,
    "limit_request_field_size": 8190,
    # every request is logged by the app as one JSON line with its request id
    "accesslog": None,
    "logger_class": "service.http_server.AppLoggedRequests",
    "logconfig_dict": LOGGING,
    # one control socket per user would clash between two services on one machine
    "control_socket_disable": True,
}


class SupervisingArbiter(Arbiter):  # type: ignore[misc]  # gunicorn has no type information
    """gunicorn's master, also checking about once a second (between its own rounds of worker
    management) that the embedded Redis is alive."""

    supervise: Callable[[], None] | None = None

    def manage_workers(self) -> None:
        super().manage_workers()
        if self.supervise is not None:
            self.supervise()
