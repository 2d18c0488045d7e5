"""The flask-smorest Api and Blueprint, made to speak problem+json and to document it."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Iterable, Mapping

import flask_smorest
from flask import Flask, request
from flask_smorest.utils import prepare_response
from redis.exceptions import OutOfMemoryError, RedisError, ResponseError
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from engine import RuleError

from .errors import PROBLEM_CONTENT_TYPE, Problem, ProblemSchema

log = logging.getLogger(__name__)

#: the code of each HTTP error raised by Flask, Werkzeug or webargs rather than by Koz itself
HTTP_ERROR_CODES = {
    400: "malformed_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
}


class Api(flask_smorest.Api):
    """The Api: every error, ours or the framework's, leaves as problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _register_error_handlers(self) -> None:
        app: Flask = self._app
        app.register_error_handler(HTTPException, self.handle_http_exception)
        app.register_error_handler(Problem, Problem.response)
        app.register_error_handler(RuleError, lambda error: Problem.from_rule_error(error).response())
        app.register_error_handler(RedisError, self.handle_storage_error)

    def handle_http_exception(self, error: HTTPException):
        data = getattr(error, "data", None) or {}
        messages = data.get("messages") or data.get("errors")
        if error.code == 400 and messages == {"json": ["Invalid JSON body."]}:
            problem = Problem(400, "malformed_json", "the request body is not valid JSON")
        elif error.code == 400 and messages is not None:
            # webargs refuses a body or query that does not fit its schema
            problem = Problem(400, "invalid_request", _describe(messages), errors=_flatten(messages))
        else:
            if error.code == 500:
                log.error("unhandled error on %s %s", request.method, request.path, exc_info=getattr(error, "original_exception", error))
            code = HTTP_ERROR_CODES.get(error.code or 500, HTTPStatus(error.code or 500).phrase.lower().replace(" ", "_"))
            detail = error.description or "" if error.code != 500 else "the server failed to answer this request"
            problem = Problem(error.code or 500, code, detail)
        response = problem.response()
        allowed = getattr(error, "valid_methods", None)
        if error.code == 405 and allowed:
            response.headers["Allow"] = ", ".join(allowed)
        return response

    def handle_storage_error(self, error: RedisError):
        # Redis at its maxmemory refuses writes; inside a script the refusal is a script error
        if isinstance(error, OutOfMemoryError) or (isinstance(error, ResponseError) and "OOM" in str(error)):
            log.error("storage full on %s %s", request.method, request.path)
            return Problem(503, "capacity", "the game store is full; try again later", headers={"Retry-After": "60"}).response()
        log.error("storage unavailable on %s %s: %s", request.method, request.path, type(error).__name__)
        return Problem(503, "storage_unavailable", "the game store is unavailable; try again shortly", headers={"Retry-After": "1"}).response()

    def _register_responses(self) -> None:
        """Error responses, referenced by name, as problem+json (flask-smorest's are plain JSON)."""
        for status in HTTPStatus:
            if status >= 400:
                response = {"description": status.phrase, "schema": ProblemSchema}
                prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
                self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "A problem (RFC 9457)", "schema": ProblemSchema}
        prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)


class ArgumentsParser(FlaskParser):
    # a body or query that does not fit its schema is a bad request, like any other malformed one
    DEFAULT_VALIDATION_STATUS = 400


class Blueprint(flask_smorest.Blueprint):
    """A Blueprint that can document, per endpoint, the problem codes each status may carry."""

    ARGUMENTS_PARSER = ArgumentsParser()

    def problems(self, codes: Mapping[int, Iterable[str]]):
        """Document the problem responses of an endpoint: ``{404: ["unknown_game"], ...}``."""

        def decorator(function):
            for status, status_codes in sorted(codes.items()):
                listed = ", ".join(f"`{code}`" for code in status_codes)
                function = self.alt_response(
                    status,
                    schema=ProblemSchema,
                    content_type=PROBLEM_CONTENT_TYPE,
                    description=f"{HTTPStatus(status).phrase}: problem with code {listed}",
                )(function)
            return function

        return decorator


def _flatten(messages) -> dict[str, object]:
    """webargs nests messages by location (``{"json": {...}}``); clients want the fields."""
    if isinstance(messages, dict) and set(messages) <= {"json", "query", "headers", "form", "files", "view_args"}:
        flat: dict[str, object] = {}
        for location_messages in messages.values():
            flat.update(location_messages if isinstance(location_messages, dict) else {"_schema": location_messages})
        return flat
    return messages if isinstance(messages, dict) else {"_schema": messages}


def _describe(messages) -> str:
    fields = _flatten(messages)
    first = next(iter(fields.items()), None)
    if first is None:
        return "the request is not valid"
    name, problem = first
    while isinstance(problem, (list, dict)) and problem:
        problem = problem[0] if isinstance(problem, list) else next(iter(problem.values()))
    where = "the request" if name == "_schema" else f"'{name}'"
    more = f" (and {len(fields) - 1} more)" if len(fields) > 1 else ""
    return f"{where}: {problem}{more}"


def bearer_token() -> str | None:
    """The bearer token of the request, None when there is no Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(
            401,
            "invalid_token",
            "the Authorization header must be 'Bearer <seat token>'",
            headers={"WWW-Authenticate": 'Bearer error="invalid_request"'},
        )
    return token.strip()


def header_parameter(name: str, description: str, **schema) -> dict:
    """The OpenAPI description of an optional request header."""
    return {"in": "header", "name": name, "required": False, "schema": {"type": "string", **schema}, "description": description}


#: how an endpoint that takes a seat token documents it: optional for reads, a spectator without
SEAT_TOKEN_OPTIONAL: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
SEAT_TOKEN_REQUIRED: list[dict[str, list[str]]] = [{"seatToken": []}]
