"""The web process's answers on the wire: one write for an answer whose body comes whole, and
exactly the bytes gunicorn's own response would have sent, for every kind of answer."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Iterable

import pytest
from gunicorn.config import Config
from gunicorn.http import wsgi

from service.http_server import OneWriteResponse


class RecordingSocket:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.writes.append(bytes(data))


def answer(response_class: type, method: str, status: str, headers: list[tuple[str, str]], body: Iterable[bytes]) -> list[bytes]:
    """The writes by which ``response_class`` answers an HTTP/1.1 request, as gunicorn's worker drives it."""
    request = SimpleNamespace(version=(1, 1), method=method, should_close=lambda: False)
    sock = RecordingSocket()
    response = response_class(request, sock, Config())
    response.start_response(status, headers)
    for item in body:
        response.write(item)
    response.close()
    return sock.writes


@pytest.fixture(autouse=True)
def fixed_date(monkeypatch):
    monkeypatch.setattr(wsgi.util, "http_date", lambda *_: "Wed, 02 Dec 2026 05:00:00 GMT")


VIEW = b'{"version":3}'


@pytest.mark.parametrize(
    "method, status, headers, body",
    [
        ("POST", "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(VIEW)))], [VIEW]),
        ("GET", "404 NOT FOUND", [("Content-Type", "application/problem+json"), ("Content-Length", "2")], [b"{}"]),
        # a stream: no length, chunked, its first chunk empty and the next ones later
        ("GET", "200 OK", [("Content-Type", "text/event-stream")], [b"", b": hi\n\n", b"data: 1\n\n"]),
        # no body allowed or none given
        ("HEAD", "200 OK", [("Content-Length", str(len(VIEW)))], [VIEW]),
        ("GET", "304 NOT MODIFIED", [("ETag", 'W/"3"')], [b""]),
        ("POST", "200 OK", [("Content-Length", "0")], []),
        # a body longer than its Content-Length is cut at it, as gunicorn does
        ("GET", "200 OK", [("Content-Length", "2")], [b"{}  "]),
    ],
)
def test_every_answer_leaves_as_the_same_bytes_as_gunicorns_own(method, status, headers, body):
    assert b"".join(answer(OneWriteResponse, method, status, headers, body)) == b"".join(
        answer(wsgi.Response, method, status, headers, body)
    )


def test_an_answer_whose_body_comes_whole_leaves_in_one_write_where_gunicorn_makes_two():
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(VIEW)))]
    assert len(answer(wsgi.Response, "POST", "200 OK", headers, [VIEW])) == 2
    (write,) = answer(OneWriteResponse, "POST", "200 OK", headers, [VIEW])
    assert write.startswith(b"HTTP/1.1 200 OK\r\n") and write.endswith(b"\r\n\r\n" + VIEW)
