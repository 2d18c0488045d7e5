"""gunicorn as Koz runs it: its settings in one place, its own refusals as problem+json, and a
master that supervises the embedded Redis.

``koz serve`` applies :data:`SETTINGS`; the image runs ``gunicorn -c python:service.gunicorn_conf``,
which holds the same.
"""

from __future__ import annotations

import gc
import json
import re
import secrets
from http import HTTPStatus
from typing import Any, Callable

from gunicorn.arbiter import Arbiter
from gunicorn.workers.ggevent import GeventWorker

from .logs import LOGGING

#: the stable code of each refusal gunicorn answers itself, before the app sees the request
SERVER_REFUSALS = {
    400: ("malformed_request", "the request is not well-formed HTTP"),
    403: ("forbidden", "the request is forbidden"),
    414: ("uri_too_long", "the request line is longer than the server accepts"),
    417: ("expectation_failed", "the server cannot meet the Expect header"),
    431: ("headers_too_large", "a header, or the headers together, are larger than the server accepts"),
    500: ("internal_error", "the server failed to answer this request"),
    501: ("not_implemented", "the server does not support this transfer coding"),
}


class ProblemSocket:
    """A client socket through which gunicorn's HTML error pages leave as problem+json."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def sendall(self, data: bytes) -> None:
        self._sock.sendall(problem_page(data))


def problem_page(page: bytes) -> bytes:
    """gunicorn's error page (``HTTP/1.1 414 URI Too Long`` and HTML) as a problem+json answer."""
    match = re.match(rb"HTTP/1\.[01] (\d{3})", page)
    status = int(match.group(1)) if match else 500
    code, detail = SERVER_REFUSALS.get(status, ("bad_request", "the request is not acceptable"))
    phrase = HTTPStatus(status).phrase
    body = json.dumps(
        {"type": f"urn:koz:problem:{code}", "title": phrase, "status": status, "code": code, "detail": detail, "instance": None}
    ).encode()
    head = (
        f"HTTP/1.1 {status} {phrase}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Language: en\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-ID: {secrets.token_hex(16)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class ProblemErrors:
    """A worker mixin: what gunicorn refuses itself (request line or headers too long, bytes
    that are not HTTP) is answered as problem+json, like everything the app answers."""

    def handle_error(self, req, client, addr, exc):
        super().handle_error(req, ProblemSocket(client), addr, exc)


class KozGeventWorker(ProblemErrors, GeventWorker):
    """gevent workers: a request is a greenlet, so a long-poll or an event stream waiting for a
    move holds no thread, and one process keeps thousands of them open."""


def post_fork(_server, _worker) -> None:
    # what the app loaded before the fork lives as long as the process: keep it out of the
    # collector's full passes, which would otherwise stall thousands of waiting requests at times
    gc.freeze()


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
    "logconfig_dict": LOGGING,
    # one control socket per user would clash between two services on one machine
    "control_socket_disable": True,
}


class SupervisingArbiter(Arbiter):
    """gunicorn's master, also checking about once a second (between its own rounds of worker
    management) that the embedded Redis is alive."""

    supervise: Callable[[], None] | None = None

    def manage_workers(self) -> None:
        super().manage_workers()
        if self.supervise is not None:
            self.supervise()
