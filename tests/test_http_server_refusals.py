"""What ``koz serve``'s gunicorn answers by itself, in this process: its refusals as problem+json
in the language the request asked for as far as it was read, a body read whole before the app,
and a connection turned away. tests/test_serve_faults.py and tests/test_serve_holdup.py send
the same requests to a real ``koz serve``; the pieces are tested here where mutants reach them,
on requests gunicorn's own parser reads."""

from __future__ import annotations

import json
import re
import socket
from typing import Any

import pytest
from gunicorn.config import Config
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser

from service.errors import PROBLEM_CONTENT_TYPE
from service.http_server import (
    SERVER_REFUSALS,
    TimedSocket,
    _whole_parameters,
    address_of,
    problem_page,
    read_whole_body,
    refusal,
    refused_language,
    turn_away,
)
from service.texts import DETAILS


def parsed(data: bytes, line_limit: int = 80, field_limit: int = 60) -> Request:
    """The request gunicorn reads from ``data`` (raising as gunicorn does when it refuses it)."""
    config = Config()
    config.set("limit_request_line", line_limit)
    config.set("limit_request_field_size", field_limit)
    return next(RequestParser(config, iter([data]), ("127.0.0.1", 1)))


def refused(data: bytes) -> BaseException:
    with pytest.raises(Exception) as error:
        parsed(data)
    return error.value


def answer(raw: bytes) -> tuple[str, dict[str, str], dict[str, Any]]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    assert int(headers["Content-Length"]) == len(body)
    return status, headers, json.loads(body)


# --- the refusals' answers -------------------------------------------------------------------


@pytest.mark.parametrize("status", sorted(SERVER_REFUSALS))
@pytest.mark.parametrize("language", ["en", "tr"])
def test_each_refusal_of_the_server_is_a_whole_problem_answer_that_closes_the_connection(status, language):
    code, detail = SERVER_REFUSALS[status]
    line, headers, problem = answer(refusal(status, language))
    assert re.fullmatch(rf"HTTP/1\.1 {status} [A-Z][A-Za-z -]+", line)
    assert (headers["Connection"], headers["Content-Type"], headers["Content-Language"]) == ("close", PROBLEM_CONTENT_TYPE, language)
    assert re.fullmatch("[0-9a-f]{32}", headers["X-Request-ID"])
    assert (problem["status"], problem["code"], problem["detail"]) == (status, code, DETAILS[detail][language])


def test_a_refusal_the_table_does_not_name_is_a_bad_request_and_extra_headers_come_before_the_body():
    line, headers, problem = answer(refusal(402, "en", "Retry-After: 1\r\n"))
    assert (line, headers["Retry-After"]) == ("HTTP/1.1 402 Payment Required", "1")
    assert (problem["code"], problem["detail"]) == ("bad_request", DETAILS["request_refused"]["en"])
    assert refusal(400, "en").count(b"X-Request-ID") == 1 and refusal(400, "en") != refusal(400, "en")


@pytest.mark.parametrize(
    ("page", "status"),
    [
        (b"HTTP/1.1 414 URI Too Long\r\nConnection: close\r\n\r\n<html>too long</html>", 414),
        (b"HTTP/1.0 431 Request Header Fields Too Large\r\n\r\n", 431),
        (b"<html>a page without a status line</html>", 500),
    ],
)
def test_gunicorns_error_page_leaves_as_the_problem_of_its_status(page, status):
    line, headers, problem = answer(problem_page(page, "tr"))
    assert (line.split()[1], headers["Content-Language"], problem["status"]) == (str(status), "tr", status)


# --- the language of a refused request -------------------------------------------------------


def test_a_request_line_over_the_limit_is_answered_in_the_lang_it_gave_before_the_limit():
    assert refused_language(None, refused(b"GET /v1/games?lang=tr&" + b"a" * 100 + b" HTTP/1.1\r\n\r\n")) == "tr"


def test_a_lang_cut_by_the_limit_is_not_read_and_the_answer_is_english():
    assert refused_language(None, refused(b"GET /v1/games/" + b"a" * 100 + b"?lang=tr HTTP/1.1\r\n\r\n")) == "en"
    assert refused_language(None, refused(b"GET /v1/games?x=" + b"a" * 70 + b"&lang=tr HTTP/1.1\r\n\r\n")) == "en"


def test_headers_over_the_limit_are_answered_in_the_accept_language_parsed_before_them_and_lang_wins():
    padding = b"X-Pad: " + b"p" * 100 + b"\r\n\r\n"
    assert refused_language(None, refused(b"GET /x HTTP/1.1\r\nAccept-Language: tr\r\n" + padding)) == "tr"
    assert refused_language(None, refused(b"GET /x?lang=tr HTTP/1.1\r\nAccept-Language: en\r\n" + padding)) == "tr"
    assert refused_language(None, refused(b"GET /x HTTP/1.1\r\n" + padding)) == "en"


def test_a_request_refused_for_a_header_after_its_accept_language_is_answered_in_it():
    assert refused_language(None, refused(b"POST /x HTTP/1.1\r\nAccept-Language: tr\r\nTransfer-Encoding: gzip\r\n\r\n")) == "tr"


def test_the_accept_language_of_a_refused_request_is_one_list_over_its_headers_read_by_language_range():
    padding = b"X-Pad: " + b"p" * 100 + b"\r\n\r\n"
    assert refused_language(None, refused(b"GET /x HTTP/1.1\r\nAccept-Language: fr\r\nAccept-Language: tr;q=0.9\r\n" + padding)) == "tr"
    assert refused_language(None, refused(b"GET /x HTTP/1.1\r\nAccept-Language: tr-TR\r\n" + padding)) == "tr"


def test_bytes_that_are_not_http_are_answered_in_english():
    assert refused_language(None, refused(b"NOT HTTP\r\n\r\n")) == "en"


def test_a_request_read_whole_is_answered_in_its_own_language():
    request = parsed(b"POST /x?lang=tr HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    assert refused_language(request, TimeoutError()) == "tr"
    request = parsed(b"POST /x HTTP/1.1\r\nAccept-Language: fr, tr;q=0.5\r\nContent-Length: 0\r\n\r\n")
    assert refused_language(request, TimeoutError()) == "tr"


@pytest.mark.parametrize(
    ("line", "query"),
    [
        (b"GET /x?lang=tr&wait=5 HTTP/1.1", "lang=tr&wait=5"),
        (b"GET /x?lang=tr&wait=5", "lang=tr"),
        (b"GET /x?lang=tr", ""),
        (b"GET /x HTTP/1.1", ""),
        (b"GET /x", ""),
    ],
)
def test_only_the_parameters_of_a_request_line_read_whole_count(line, query):
    assert _whole_parameters(line) == query


# --- the body, read whole before the app -----------------------------------------------------


class Written:
    """A client connection that keeps what the server writes to it."""

    def __init__(self) -> None:
        self.written = b""

    def sendall(self, data: bytes) -> None:
        self.written += data


def test_a_body_is_read_whole_and_handed_over_from_memory():
    request = parsed(b"POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
    client = Written()
    read_whole_body(request, client, limit=5)
    assert (request.body.read(), request.must_close, client.written) == (b"hello", False, b"")


def test_a_body_over_the_limit_is_read_one_byte_past_it_and_closes_the_connection():
    request = parsed(b"POST /x HTTP/1.1\r\nContent-Length: 9\r\n\r\nhello, you")
    read_whole_body(request, Written(), limit=4)
    assert (request.body.read(), request.must_close) == (b"hello", True)


def test_a_client_that_expects_100_continue_is_told_to_send_its_body_before_it_is_read():
    request = parsed(b"POST /x HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nok")
    client = Written()
    read_whole_body(request, client, limit=10)
    assert (client.written, request._expected_100_continue, request.body.read()) == (b"HTTP/1.1 100 Continue\r\n\r\n", False, b"ok")


def test_a_request_begins_with_its_first_byte_not_with_a_read_that_found_none():
    class Arriving:
        def __init__(self) -> None:
            self.parts = [b"", b"GET", b" /x"]

        def recv(self, size: int, *flags: int) -> bytes:
            return self.parts.pop(0)

    client = TimedSocket(Arriving())
    assert (client.recv(10), client.request_began) == (b"", None)
    assert client.recv(10) == b"GET"
    began = client.request_began
    assert began is not None
    client.recv(10)
    assert client.request_began == began


# --- turned away -----------------------------------------------------------------------------


def test_a_connection_turned_away_reads_what_came_answers_429_and_closes():
    server_end, client_end = socket.socketpair()
    client_end.sendall(b"GET /healthz HTTP/1.1\r\n\r\n")
    turn_away(server_end)
    client_end.settimeout(5)
    received = b""
    while chunk := client_end.recv(65536):
        received += chunk
    line, headers, problem = answer(received)
    assert (line, headers["Retry-After"], problem["code"]) == ("HTTP/1.1 429 Too Many Requests", "1", "too_many_connections")
    assert server_end.fileno() == -1


def test_a_connection_gone_before_it_is_turned_away_is_closed_quietly():
    server_end, client_end = socket.socketpair()
    client_end.close()
    turn_away(server_end)
    assert server_end.fileno() == -1


@pytest.mark.parametrize(("addr", "said"), [(("10.0.0.7", 5123), "10.0.0.7"), ("/run/koz.sock", "/run/koz.sock")])
def test_a_client_is_named_by_its_address_alone(addr, said):
    assert address_of(addr) == said
