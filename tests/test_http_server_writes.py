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


def answered(response_class: type, method: str, status: str, headers: list[tuple[str, str]], body: Iterable[bytes]) -> tuple[list[bytes], int]:
    """The writes by which ``response_class`` answers an HTTP/1.1 request, as gunicorn's worker
    drives it, and the body's bytes it counts as sent (which gunicorn's log reads)."""
    request = SimpleNamespace(version=(1, 1), method=method, should_close=lambda: False)
    sock = RecordingSocket()
    response = response_class(request, sock, Config())
    response.start_response(status, headers)
    for item in body:
        response.write(item)
    response.close()
    return sock.writes, response.sent


def answer(response_class: type, method: str, status: str, headers: list[tuple[str, str]], body: Iterable[bytes]) -> list[bytes]:
    return answered(response_class, method, status, headers, body)[0]


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
def test_every_answer_leaves_as_the_same_bytes_as_gunicorns_own_and_counts_them_alike(method, status, headers, body):
    (ours, our_count), (theirs, their_count) = (answered(kind, method, status, headers, body) for kind in (OneWriteResponse, wsgi.Response))
    assert (b"".join(ours), our_count) == (b"".join(theirs), their_count)


def test_an_answer_whose_body_comes_whole_leaves_in_one_write_where_gunicorn_makes_two():
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(VIEW)))]
    assert len(answer(wsgi.Response, "POST", "200 OK", headers, [VIEW])) == 2
    (write,) = answer(OneWriteResponse, "POST", "200 OK", headers, [VIEW])
    assert write.startswith(b"HTTP/1.1 200 OK\r\n") and write.endswith(b"\r\n\r\n" + VIEW)


def test_the_date_header_formatted_once_a_second_is_gunicorns_at_every_moment():
    from email.utils import formatdate

    from service.http_server import DatePerSecond

    def gunicorns(moment: float) -> str:  # gunicorn's util.http_date (patched out in this file)
        return formatdate(moment, localtime=False, usegmt=True)

    now = [0.0]
    date = DatePerSecond(clock=lambda: now[0])
    start = 1796200000.0  # 2026-12-02
    for moment in [start, start + 0.0004, start + 0.9999, start + 1, start + 1.5, start, start + 86399.999, start + 86400.25, start + 3.001]:
        now[0] = moment
        assert date() == gunicorns(moment)
    assert date(start + 7.5) == gunicorns(start + 7.5)  # a moment asked for, not the clock's


def test_a_web_process_answers_in_one_write_with_the_date_formatted_once_a_second_and_logs_without_lookups(monkeypatch):
    import logging

    from service.http_server import DatePerSecond, KozGeventWorker

    for switch in ("_srcfile", "logThreads", "logProcesses", "logMultiprocessing"):
        monkeypatch.setattr(logging, switch, getattr(logging, switch))

    monkeypatch.setattr(wsgi, "Response", wsgi.Response)
    monkeypatch.setattr(wsgi.util, "http_date", wsgi.util.http_date)
    monkeypatch.setattr(KozGeventWorker.__mro__[1], "init_process", lambda worker: None)  # (WholeRequests: no server started)
    KozGeventWorker.init_process(object.__new__(KozGeventWorker))
    assert wsgi.Response is OneWriteResponse and isinstance(wsgi.util.http_date, DatePerSecond)
    assert logging._srcfile is None and not (logging.logThreads or logging.logProcesses or logging.logMultiprocessing)
