"""The edge: what a request may carry before any of it goes deeper.

A JSON body is checked before it is parsed (nesting depth, digits per number: Python's parser
recurses per level and refuses integers of more than 4,300 digits with an error of its own),
then every text in it must be well-formed Unicode (JSON may carry lone surrogates such as
``"\\ud800"``, which no UTF-8 answer can hold). Headers Koz reads are checked here too. Each
refusal is a 4xx problem, raised before anything is read from or written to the store.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from typing import Any, Mapping

from flask import Flask, Response, g, request
from marshmallow import ValidationError, fields, missing
from webargs.core import parse_json
from werkzeug.exceptions import RequestEntityTooLarge

from .errors import Problem
from .texts import FIELD_MESSAGES, FieldMessage

#: the deepest nesting a body may have; Koz's bodies need 3
MAX_JSON_DEPTH = 16
#: digits (and sign, point, exponent) of one JSON number; a 64-bit integer has 20
MAX_NUMBER_LENGTH = 24
#: a request id taken from X-Request-ID: visible ASCII, at most this long; else one is made
MAX_REQUEST_ID_LENGTH = 128

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(rb"[][{}]")
_NUMBER = re.compile(rb"-?[0-9][0-9.eE+-]*")
_REQUEST_ID = re.compile(r"^[!-~]{1,%d}$" % MAX_REQUEST_ID_LENGTH)
_ENTITY_TAG = r'(?:W/)?"[!#-~\x80-\xff]*"'
_IF_MATCH = re.compile(rf"^\s*(?:\*|{_ENTITY_TAG}(?:\s*,\s*{_ENTITY_TAG})*)\s*$")


def check_json_text(data: bytes) -> None:
    """Refuse a body nested too deeply or with an over-long number, before it is parsed."""
    skeleton = _STRING.sub(b'""', data)
    depth = 0
    for bracket in _BRACKET.findall(skeleton):
        depth += 1 if bracket in b"[{" else -1
        if depth > MAX_JSON_DEPTH:
            raise Problem(400, "json_too_deep", "json_too_deep", params={"limit": MAX_JSON_DEPTH})
    if any(len(number) > MAX_NUMBER_LENGTH for number in _NUMBER.findall(skeleton)):
        raise Problem(400, "number_too_large", "number_too_large", params={"limit": MAX_NUMBER_LENGTH})


def check_well_formed(value: Any) -> None:
    """Refuse any text (key or value) that is not well-formed Unicode: a lone surrogate."""
    if isinstance(value, str):
        if not _is_well_formed(value):
            raise Problem(400, "invalid_text", "invalid_text")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_well_formed(key)
            check_well_formed(item)
    elif isinstance(value, list):
        for item in value:
            check_well_formed(item)


def _is_well_formed(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_body() -> None:
    """Before the route parses it: a JSON body within the size, depth and number limits, and
    every text in it well-formed."""
    if request.method != "POST" or not request.is_json:
        return
    data = request.get_data(cache=True)
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(data) >= limit and request.environ["wsgi.input"].read(1):
        # a chunked body has no Content-Length to refuse it by: it is read up to the limit, and
        # refused if there is more
        raise RequestEntityTooLarge()
    if not data.strip():
        return
    check_json_text(data)
    try:
        body = parse_json(data)  # as the route's parser reads it, which takes it from here
    except ValueError:
        return  # the route's parser answers malformed_json
    check_well_formed(body)
    g.json_body = body


def parsed_body() -> Any:
    """The request's JSON body as :func:`check_body` parsed it, else ``missing`` (not parsed there)."""
    return g.get("json_body", missing)


def check_if_match(header: str | None) -> str | None:
    """An If-Match header as RFC 9110 spells it (``*`` or a list of entity tags), else a 400."""
    if header is not None and not _IF_MATCH.match(header):
        raise Problem(
            400,
            "invalid_request",
            "if_match",
            errors={"If-Match": [FieldMessage(FIELD_MESSAGES["if_match"])]},
        )
    return header


def check_version_bound(name: str, version: int | None, cap: int) -> None:
    """Refuse a version asked for (``after``, ``Last-Event-ID``) that no game can reach: a match
    ends, abandoned, at the server's cap on versions (``KOZ_MAX_VERSIONS``). Waiting for it would
    hold the request to no purpose; paging from it could never find anything."""
    if version is not None and version > cap:
        raise Problem(
            400,
            "invalid_request",
            "version_beyond",
            params={"field": name, "limit": cap},
            errors={name: [FieldMessage(FIELD_MESSAGES["version_beyond"]).format(limit=cap)]},
        )


def request_id() -> str:
    """This request's id: the client's X-Request-ID when it is sane, else a new one."""
    if "request_id" not in g:
        offered = request.headers.get("X-Request-ID", "")
        g.request_id = offered if _REQUEST_ID.match(offered) else secrets.token_hex(16)
    chosen: str = g.request_id
    return chosen


def install(app: Flask) -> None:
    app.before_request(check_body)

    @app.after_request
    def return_the_request_id(response: Response) -> Response:
        response.headers["X-Request-ID"] = request_id()
        return response


#: control, format (such as bidirectional overrides), private-use and unassigned characters
_NOT_IN_NAMES = {"Cc", "Cf", "Co", "Cn"}
#: format characters that names need: joiners within Persian and Indic words and emoji
_JOINERS = {"\u200c", "\u200d"}


class Name(fields.String):
    """A person's name: NFC-normalized, trimmed, without control characters."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        if not _is_well_formed(text):
            raise ValidationError(FieldMessage(FIELD_MESSAGES["name_not_unicode"]))
        text = unicodedata.normalize("NFC", text).strip()
        if any(unicodedata.category(char) in _NOT_IN_NAMES and char not in _JOINERS for char in text):
            raise ValidationError(FieldMessage(FIELD_MESSAGES["name_characters"]))
        return text
