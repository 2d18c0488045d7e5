"""The flask-smorest Api and Blueprint, made to speak problem+json and to document it."""

from __future__ import annotations

import json
import logging
import threading
from http import HTTPStatus
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, TypeVar, cast

import flask_smorest
from apispec import APISpec
from flask import Flask, Request, Response, request
from flask_smorest.utils import prepare_response
from marshmallow import Schema, missing
from redis.exceptions import OutOfMemoryError, RedisError, ResponseError
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException
from werkzeug.routing import WebsocketMismatch

from engine import RuleError
from engine.texts import LANGUAGES

from .edge import MAX_REQUEST_ID_LENGTH, parsed_body
from .refusals import Refused
from .errors import PROBLEM_CONTENT_TYPE, Problem, ProblemSchema
from .redis_pool import StorageBusy
from .texts import ACCEPT_LANGUAGE, CONTENT_LANGUAGE, DETAILS, LANG, FieldMessage

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


#: a view function, as the Blueprint's decorators take and give it back
F = TypeVar("F", bound=Callable[..., Any])


#: a step of writing the API document, given the document written so far
DocumentStep = Callable[[APISpec], None]


class Api(flask_smorest.Api):  # type: ignore[misc]  # flask-smorest has no type information
    """The Api: every error, ours or the framework's, leaves as problem+json.

    The document is written when it is first read (``/openapi.json``, ``koz openapi``), not when
    the app is made: writing it is about two thirds of making an app, which a process that only
    serves games never needs. Its steps run in the order they were given, so the document is the
    same as if each were written at once."""

    ERROR_SCHEMA = ProblemSchema
    _spec: APISpec | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._unwritten: list[DocumentStep] = []
        self._writing = threading.RLock()  # a step reading the document sees it as written so far
        super().__init__(*args, **kwargs)  # (which sets the spec: None until init_app)

    @property
    def spec(self) -> APISpec:
        spec = cast(APISpec, self._spec)  # None only before init_app, as in flask-smorest
        with self._writing:
            steps, self._unwritten = self._unwritten, []
            for step in steps:
                step(spec)
        return spec

    @spec.setter
    def spec(self, spec: APISpec | None) -> None:
        self._spec = spec

    def document(self, *steps: DocumentStep) -> None:
        """Write ``steps`` into the document when it is first read, after those given before."""
        self._unwritten += steps

    def _init_spec(self, **options: Any) -> None:
        super()._init_spec(**options)
        self.ma_plugin.converter.add_attribute_function(nullable_enum_as_any_of)

    def _register_error_handlers(self) -> None:
        app: Flask = self._app
        app.register_error_handler(HTTPException, self.handle_http_exception)
        for refusal in (Problem, RuleError, Refused, RedisError):
            app.register_error_handler(refusal, self.handle_refusal)

    def handle_http_exception(self, error: HTTPException) -> Response:
        data = getattr(error, "data", None) or {}
        messages = data.get("messages")
        if isinstance(error, WebsocketMismatch) and not asks_websocket(request):
            # a plain request to a WebSocket's address (Werkzeug routes a WebSocket's apart)
            problem = Problem(426, "upgrade_required", "upgrade_required", headers={"Upgrade": "websocket", "Connection": "Upgrade"})
        elif error.code == 400 and messages == {"json": ["Invalid JSON body."]}:
            problem = Problem(400, "malformed_json", "malformed_json")
        elif error.code == 400 and messages is not None:
            problem = invalid_request(messages)  # webargs refuses a body or query that does not fit its schema
        else:
            if error.code == 500:
                log.error("unhandled error on %s %s", request.method, request.path, exc_info=getattr(error, "original_exception", error))
            code = HTTP_ERROR_CODES.get(error.code or 500, HTTPStatus(error.code or 500).phrase.lower().replace(" ", "_"))
            if error.code == 500:
                problem = Problem(500, code, "server_failed")
            else:
                detail = code if code in DETAILS else "http_error"
                problem = Problem(error.code or 500, code, detail, params={"description": error.description or ""})
        response = problem.response()
        allowed = getattr(error, "valid_methods", None)  # (a 405's)
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
        return response

    def handle_refusal(self, error: Exception) -> Response:
        problem = problem_of(error)
        assert problem is not None  # (registered for the kinds it maps)
        return problem.response()

    def register_blueprint(self, blp: flask_smorest.Blueprint, *, parameters: list[dict[str, Any]] | None = None, **options: Any) -> None:
        """flask-smorest's registration (0.47), its documentation written when the document is read."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)

        def document_blueprint(spec: APISpec) -> None:
            blp.register_views_in_doc(self, self._app, spec, name=name, parameters=parameters)
            spec.tag({"name": name, "description": blp.description})
            _add_examples(spec._paths, EXAMPLES)

        self.document(document_blueprint)

    def _register_pagination_header(self) -> None:
        """Koz pages the history by version, not with flask-smorest's pagination: no unused schema."""

    def _register_responses(self) -> None:
        """Error responses, referenced by name, as problem+json (flask-smorest's are plain JSON);
        the headers answers share."""
        for name, header in HEADER_COMPONENTS.items():
            self.spec.components.header(name, header)
        headers = {"Content-Language": CONTENT_LANGUAGE, **ANSWER_HEADERS}
        for status in HTTPStatus:
            if status >= 400:
                response = {"description": status.phrase, "schema": ProblemSchema, "headers": {**headers}}
                prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
                self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "A problem (RFC 9457)", "schema": ProblemSchema, "headers": {**headers}}
        prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)


def asks_websocket(asked: Request) -> bool:
    """Whether a request asks for a WebSocket as Werkzeug's routing reads it (``Connection: upgrade``
    and ``Upgrade: websocket``): only such a request reaches a WebSocket's route."""
    upgrade = "upgrade" in {token.strip() for token in asked.headers.get("Connection", "").lower().split(",")}
    return upgrade and asked.headers.get("Upgrade", "").lower() == "websocket"


def problem_of(error: Exception) -> Problem | None:
    """The problem a refusal is answered with, by a request or on a play connection: the service's
    own, the rules', and the store's failures; None for anything else (a fault)."""
    if isinstance(error, Problem):
        return error
    if isinstance(error, RuleError):
        return Problem.from_rule_error(error)
    if isinstance(error, Refused):
        return Problem.from_refused(error)
    if isinstance(error, RedisError):
        return storage_problem(error)
    return None


def invalid_request(messages: Any) -> Problem:
    """The 400 for a body, query or message that does not fit its schema, with marshmallow's ``messages`` per field."""
    detail, params = _describe(messages)
    return Problem(400, "invalid_request", detail, params=params, errors=_flatten(messages))


def storage_problem(error: RedisError) -> Problem:
    """The 503 for a request Redis failed, logged as what it says of the store."""
    # Redis at its maxmemory refuses writes; inside a script the refusal is a script error
    if isinstance(error, OutOfMemoryError) or (isinstance(error, ResponseError) and "OOM" in str(error)):
        log.error("storage full on %s %s", request.method, request.path)
        return Problem(503, "capacity", "store_full", headers={"Retry-After": "60"})
    if isinstance(error, StorageBusy):
        log.warning("too many requests wait for Redis on %s %s", request.method, request.path)
        return Problem(503, "busy", "storage_busy", headers={"Retry-After": "1"})
    log.error("storage unavailable on %s %s: %s", request.method, request.path, type(error).__name__)
    return Problem(503, "storage_unavailable", "store_unavailable", headers={"Retry-After": "1"})


def nullable_enum_as_any_of(converter: Any, field: Any, ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Document a nullable enum as `anyOf` the enum and null (after apispec's own conversion, which
    gives `type: [string, null]` with null among the values): generated clients then make one
    enum type and allow None, where `type: [string, null]` gave openapi-python-client one
    identical enum class per branch. A field whose metadata names an enum ``component`` refers to
    it, so that every field of that enum shares one type."""
    enum = ret.get("enum")
    if enum is None or None not in enum or not isinstance(ret.get("type"), list):
        return {}
    (kind,) = [name for name in ret.pop("type") if name != "null"]
    values = [value for value in ret.pop("enum") if value is not None]
    named = field.metadata.get("component")
    ret["anyOf"] = [{"$ref": f"#/components/schemas/{named}"} if named else {"type": kind, "enum": values}, {"type": "null"}]
    return {}


#: query strings a process keeps parsed (each a few small values); past it, it starts afresh
QUERIES_KEPT = 1024


class ArgumentsParser(FlaskParser):
    """webargs' parser, keeping what a query string parsed to. The waiters of a table each ask
    again with the same query (``?wait=30&after=<the version they were shown>``), and parsing it
    through its schema was a twentieth of a long-poll's CPU; what a query string parses to
    depends only on it and its schema, and a query that fails (400) is not kept."""

    # a body or query that does not fit its schema is a bad request, like any other malformed one
    DEFAULT_VALIDATION_STATUS = 400

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queries: dict[tuple[Schema, bytes], dict[str, Any]] = {}

    def parse(self, argmap: Any, req: Request | None = None, *, location: str | None = None, **options: Any) -> Any:
        if location != "query" or not isinstance(argmap, Schema) or options.get("validate") is not None:
            return super().parse(argmap, req, location=location, **options)
        asked = req if req is not None else request
        key = (argmap, asked.query_string)
        found = self._queries.get(key)
        if found is None:
            found = super().parse(argmap, req, location=location, **options)
            if len(self._queries) >= QUERIES_KEPT:
                self._queries.clear()
            self._queries[key] = found
        return dict(found)  # the view's own copy (a query's values are numbers, texts and flags)

    def _raw_load_json(self, req: Request) -> Any:
        # the body as the edge parsed it to check it (service/edge.py), not parsed a second time
        body = parsed_body()
        return super()._raw_load_json(req) if body is missing else body


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]  # flask-smorest has no type information
    """A Blueprint whose operations are named, say who may call them, and list their refusals.

    Its decorators are flask-smorest's, typed: each gives the view function back as it took it."""

    ARGUMENTS_PARSER = ArgumentsParser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare_doc_cbks.append(self._prepare_headers_doc)

    @staticmethod
    def _prepare_headers_doc(doc: dict[str, Any], doc_info: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The request headers an operation reads, after the parameters of its arguments."""
        doc.setdefault("parameters", []).extend(doc_info.get("koz_headers", []))
        return doc

    def arguments(self, schema: Any, **options: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().arguments(schema, **options)
        return decorator

    def response(self, status_code: int, schema: Any = None, **options: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().response(status_code, schema, **options)
        return decorator

    def alt_response(self, status_code: int, **options: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().alt_response(status_code, **options)
        return decorator

    def doc(self, **options: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().doc(**options)
        return decorator

    def route(self, rule: str, *, operation_id: str, **options: Any) -> Callable[[F], F]:
        """Register an operation under a stable ``operationId`` (generated clients name their
        methods after it). Every operation takes an ``X-Request-ID`` and a language (``Accept-Language``,
        ``lang``), and may meet the server's own refusals (414, 431); a POST's body is refused when
        it is too large or not JSON (413, 415); one that does not document a seat token needs none
        (``security: []``)."""

        def decorator(function: F) -> F:
            documented = getattr(function, "_apidoc", {}).get("manual_doc", {})
            function = self.doc(operationId=operation_id, security=documented.get("security", []))(function)
            # flask-smorest lets an operation's own `parameters` replace the query parameters it
            # documents from the arguments schema (`wait`, `after`): its headers are added after them
            # (the route's parameters are its path's, shared by every operation on it)
            vars(function)["_apidoc"]["koz_headers"] = vars(function)["_apidoc"]["manual_doc"].pop("parameters", [])
            function = self.problems(SERVER_REFUSALS)(function)
            if "POST" in options.get("methods", ()):
                function = self.problems(BODY_REFUSALS)(function)
            _document_answer_headers(vars(function)["_apidoc"])
            register = super(Blueprint, self).route(rule, parameters=[REQUEST_ID, ACCEPT_LANGUAGE, LANG], **options)
            registered: F = register(function)
            return registered

        return decorator

    def problems(self, codes: Mapping[int, Iterable[str]]) -> Callable[[F], F]:
        """Document the problem responses of an endpoint: ``{404: ["unknown_game"], ...}``; each
        status lists its codes as an enum, so a client can switch over them. The function is
        given back as it came, with only its documentation added."""

        def decorator(function: F) -> F:
            documented = function._apidoc.setdefault("koz_problems", {}) if hasattr(function, "_apidoc") else {}
            for status, status_codes in sorted(codes.items()):
                # a status documented already (the server's own 429 beside the operation's) lists both
                status_codes = [*documented.get(status, []), *(code for code in status_codes if code not in documented.get(status, []))]
                responses = function._apidoc.get("response", {}).get("responses", {}) if hasattr(function, "_apidoc") else {}
                responses.pop(status, None)
                listed = ", ".join(f"`{code}`" for code in status_codes)
                documented_by = self.alt_response(
                    status,
                    schema={
                        "allOf": [
                            ProblemSchema,
                            {"type": "object", "properties": {"code": {"type": "string", "enum": status_codes}}},
                        ]
                    },
                    content_type=PROBLEM_CONTENT_TYPE,
                    description=f"{HTTPStatus(status).phrase}: problem with code {listed}",
                    headers={"Content-Language": CONTENT_LANGUAGE, **PROBLEM_HEADERS.get(status, {})},
                )(function)
                # only the documentation is taken: alt_response's wrapper does nothing but call the
                # function, and a dozen of them nested (one per status) were passed on every request
                vars(function)["_apidoc"] = vars(documented_by)["_apidoc"]
                vars(function)["_apidoc"].setdefault("koz_problems", {})[status] = status_codes
            return function

        return decorator


#: seconds to wait, on every 429 and 503 that says when to come back
RETRY_AFTER = {
    "description": "Seconds to wait before trying again (on every 429 and 503 but `storage_failed`, which waiting will not mend)",
    "schema": {"type": "integer", "minimum": 1},
}
#: the headers that come with the problems of some statuses, as a client reads them
PROBLEM_HEADERS: Mapping[int, Mapping[str, Any]] = {
    401: {
        "WWW-Authenticate": {
            "description": 'How to authenticate (RFC 6750): `Bearer`, or `Bearer error="invalid_token"` when the token or key sent was refused',
            "schema": {"type": "string"},
        }
    },
    426: {"Upgrade": {"description": "`websocket`: the protocol to ask for (RFC 9110)", "schema": {"type": "string"}}},
    429: {"Retry-After": RETRY_AFTER},
    503: {"Retry-After": RETRY_AFTER},
}

#: the headers many answers carry, as components each answer refers to by name
HEADER_COMPONENTS: Mapping[str, Any] = {
    "X-Request-ID": {"description": "The request's id, as the logs give it: the one it sent if sane, else a new one", "schema": {"type": "string"}},
    # the IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers) of an operation the service limits
    "RateLimit-Limit": {"description": "Requests the limit allows in its window", "schema": {"type": "integer", "minimum": 1}},
    "RateLimit-Remaining": {"description": "Requests left in the window", "schema": {"type": "integer", "minimum": 0}},
    "RateLimit-Reset": {"description": "Seconds until the window starts again", "schema": {"type": "integer", "minimum": 0}},
    "RateLimit-Policy": {"description": "The limit and its window in seconds: `<limit>;w=<seconds>`", "schema": {"type": "string"}},
}
#: the headers of every answer, each named by its component
ANSWER_HEADERS = {"X-Request-ID": "X-Request-ID"}
RATE_LIMIT_HEADERS = {name: name for name in HEADER_COMPONENTS if name.startswith("RateLimit-")}


def _document_answer_headers(documentation: dict[str, Any]) -> None:
    """Document the headers every answer of an operation carries, and a limited one's RateLimit
    headers on every answer given once its request was counted: all but the server's own refusals and
    a body refused unread (a 429 may be the server's too, but is the limit's own as well)."""
    limited = "rate_limited" in documentation["koz_problems"].get(429, [])
    uncounted = {*SERVER_REFUSALS, *BODY_REFUSALS} - {429}
    answers = [(status, answer) for status, responses in documentation["response"]["responses"].items() for answer in responses]
    answers += documentation["manual_doc"].get("responses", {}).items()  # (written whole by the operation: a stream's)
    for status, answer in answers:
        telling = limited and int(status) not in uncounted
        answer["headers"] = {**(answer.get("headers") or {}), **ANSWER_HEADERS, **(RATE_LIMIT_HEADERS if telling else {})}


#: a request and answers of each operation, by status, captured from a real run (tests/capture_examples.py)
EXAMPLES: dict[str, dict[str, Any]] = json.loads((Path(__file__).parent / "examples.json").read_text())


def _add_examples(paths: dict[str, Any], examples: Mapping[str, dict[str, Any]]) -> None:
    """Show each operation's captured request and answers as the examples of its media types,
    and the HTTP server's own refusals (captured under ``*``) on every operation."""
    server_refusals = examples["*"]["responses"]  # (documented on every operation)
    for operations in paths.values():
        for operation in operations.values():
            if not isinstance(operation, dict):  # (the path's own parameters)
                continue
            captured = examples[operation["operationId"]]
            if "request" in captured:
                for media in operation["requestBody"]["content"].values():
                    media["example"] = captured["request"]
            for status, body in server_refusals.items():
                for media in operation["responses"][status]["content"].values():
                    media["example"] = body
            for status, body in captured["responses"].items():  # a captured answer is documented
                for media in operation["responses"][status]["content"].values():
                    media["example"] = body


#: where the operations' arguments are read from (webargs nests its messages under the location)
ARGUMENT_LOCATIONS = frozenset({"json", "query"})


def _flatten(messages: Any) -> dict[str, object]:
    """webargs nests messages by location (``{"json": {...}}``); clients want the fields."""
    if isinstance(messages, dict) and set(messages) <= ARGUMENT_LOCATIONS:
        flat: dict[str, object] = {}
        for location_messages in messages.values():
            flat.update(location_messages if isinstance(location_messages, dict) else {"_schema": location_messages})
        return flat
    return messages if isinstance(messages, dict) else {"_schema": messages}


def _describe(messages: Any) -> tuple[str, dict[str, object]]:
    """The detail of an invalid request: its first field and that field's first message."""
    fields = _flatten(messages)
    first = next(iter(fields.items()), None)
    if first is None:
        return "invalid_request", {}
    name, problem = first
    while isinstance(problem, (list, dict)) and problem:
        problem = problem[0] if isinstance(problem, list) else next(iter(problem.values()))
    where = {"en": "the request", "tr": "istek"} if name == "_schema" else {"en": f"'{name}'", "tr": f"'{name}'"}
    said = problem.texts if isinstance(problem, FieldMessage) else {language: str(problem) for language in LANGUAGES}
    params = {"field": where, "problem": said, "others": len(fields) - 1}
    return ("invalid_fields" if len(fields) > 1 else "invalid_field"), params


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
            "bearer",
            headers={"WWW-Authenticate": 'Bearer error="invalid_request"'},
        )
    return token.strip()


def header_parameter(name: str, description: str, **schema: Any) -> dict[str, Any]:
    """The OpenAPI description of an optional request header."""
    return {"in": "header", "name": name, "required": False, "schema": {"type": "string", **schema}, "description": description}


#: echoed on every answer and written in its log line, to find one request again
REQUEST_ID = header_parameter(
    "X-Request-ID",
    f"An id for this request, echoed in the answer and the logs: visible ASCII, at most {MAX_REQUEST_ID_LENGTH} characters;"
    " any other value is replaced by a new id, as an absent one is",
)

#: what `koz serve` (gunicorn) itself refuses on any operation, before the app sees the request
#: (the codes of ``service.http_server.SERVER_REFUSALS``, which needs the server extra)
SERVER_REFUSALS = {408: ["request_timeout"], 414: ["uri_too_long"], 429: ["too_many_connections"], 431: ["headers_too_large"]}
#: a POST's body refused before it is read: too large, or not JSON (:mod:`service.edge`)
BODY_REFUSALS = {413: ["payload_too_large"], 415: ["unsupported_media_type"]}
#: the 503s of an operation that uses the store (:func:`storage_problem`): it is down, or this
#: process's requests wait for it past their queue; and of one that writes, Redis at its memory
#: limit refusing the write (deletions it still makes)
STORE_UNAVAILABLE = {503: ["storage_unavailable", "busy"]}
STORE_UNAVAILABLE_OR_FULL = {503: ["storage_unavailable", "busy", "capacity"]}

#: how an endpoint that takes a seat token documents it: optional for reads, a spectator without
SEAT_TOKEN_OPTIONAL: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
SEAT_TOKEN_REQUIRED: list[dict[str, list[str]]] = [{"seatToken": []}]
