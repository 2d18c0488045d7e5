"""Problem details (RFC 9457): every refused request answers ``application/problem+json``.

A problem carries a stable machine-readable ``code``; its ``type`` is ``urn:koz:problem:<code>``.
The engine's refusals (:class:`engine.RuleError`, by kind) and the service's own
(:class:`~service.refusals.Refused`, by code) map to statuses here and nowhere else.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, Mapping

import marshmallow as ma
from flask import Response, g, has_request_context, json, request

from engine import Refusal, RuleError, registry
from engine.texts import Said, Text, render

from . import texts
from .metrics import REFUSALS
from .refusals import Refused
from .texts import DETAILS, TURKISH_TITLES, language

PROBLEM_CONTENT_TYPE = "application/problem+json"

#: the HTTP status of each kind of engine refusal
REFUSAL_STATUS = {
    Refusal.BAD_SETUP: 400,
    Refusal.MALFORMED: 400,
    Refusal.NOT_YOUR_TURN: 409,
    Refusal.ILLEGAL: 422,
}

#: the HTTP status of each code the service's own refusals (:class:`Refused`) carry
STATUS_OF: dict[str, int] = {
    "invalid_request": 400,
    "invalid_seats": 400,
    "challenge_self": 400,
    "house_account": 400,
    "partner_self": 400,
    "no_partnerships": 400,
    "invalid_token": 401,
    "invalid_key": 401,
    "missing_key": 401,
    "missing_token": 401,
    "invalid_join_code": 403,
    "not_the_creator": 403,
    "not_your_seat": 403,
    "unknown_game": 404,
    "unknown_seat": 404,
    "unknown_account": 404,
    "unknown_challenge": 404,
    "name_taken": 409,
    "too_many_arena_games": 409,
    "challenge_being_accepted": 409,
    "deadline_passed": 409,
    "game_not_finished": 409,
    "game_over": 409,
    "game_started": 409,
    "seat_left": 409,
    "seat_taken": 409,
    "waiting_for_players": 409,
    "game_unreadable": 410,
    "stale_version": 412,
    "idempotency_key_reused": 422,
    "too_many_waiting_games": 429,
    "busy": 503,
    "capacity": 503,
    "storage_unavailable": 503,
}
#: the headers that go with some of those codes: how to authenticate, when to come back
HEADERS_OF: dict[str, dict[str, str]] = {
    "invalid_token": {"WWW-Authenticate": 'Bearer error="invalid_token"'},
    "missing_token": {"WWW-Authenticate": "Bearer"},
    "invalid_key": {"WWW-Authenticate": 'Bearer error="invalid_token"'},
    "missing_key": {"WWW-Authenticate": "Bearer"},
    "too_many_waiting_games": {"Retry-After": "60"},
    "capacity": {"Retry-After": "60"},
    "busy": {"Retry-After": "1"},
}

#: the rule an illegal action breaks, and why a seat may not act: the codes of the registered
#: rulesets' catalogues, for the operations that document them
ILLEGAL_ACTION_CODES = registry.refusal_codes(Refusal.ILLEGAL)
TURN_REFUSAL_CODES = ["not_your_turn", "game_over", *registry.refusal_codes(Refusal.NOT_YOUR_TURN)]


class Problem(Exception):
    """A refused request: status, stable code, a sentence saying why, and optional extras.

    The sentence is ``detail``, the name of one of the service's texts (:data:`texts.DETAILS`)
    or a text itself (an engine refusal's), with its ``params``; it is rendered in the
    request's language when the problem is answered. The code never depends on the language.
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str | Text,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ):
        self.text = DETAILS[detail] if isinstance(detail, str) else detail
        self.params = dict(params or {})
        super().__init__(self.detail_in("en"))
        self.status = status
        self.code = code
        self.headers = dict(headers or {})
        self.extra = extra

    @classmethod
    def from_rule_error(cls, error: RuleError) -> "Problem":
        extra: dict[str, Any] = dict(error.details)
        if error.legal_actions is not None:
            extra["legal_actions"] = [action.to_json() for action in error.legal_actions]
        return cls(REFUSAL_STATUS[error.refusal], error.code, error.text, params=error.params, **extra)

    @classmethod
    def from_refused(cls, refused: Refused) -> "Problem":
        status, headers = STATUS_OF[refused.code], HEADERS_OF.get(refused.code)
        return cls(status, refused.code, refused.detail, params=refused.params, headers=headers, **refused.extra)

    def detail_in(self, language: str) -> str:
        return render(self.text, self.params, language)

    @property
    def detail(self) -> str:
        return self.detail_in(language())

    def title_in(self, language: str) -> str:
        phrase = HTTPStatus(self.status).phrase
        return TURKISH_TITLES.get(self.status, phrase) if language == "tr" else phrase

    def to_json(self, language: str | None = None) -> dict[str, Any]:
        """The problem's body in ``language``, by default the request's (the HTTP server, which
        refuses some requests before any app sees them, says which)."""
        language = language or texts.language()
        return {
            "type": f"urn:koz:problem:{self.code}",
            "title": self.title_in(language),
            "status": self.status,
            "code": self.code,
            "detail": self.detail_in(language),
            "instance": request.path if request else None,
            **{key: value[language] if isinstance(value, Said) else value for key, value in self.extra.items()},
            **({"errors": texts.localized(self.extra["errors"], language)} if "errors" in self.extra else {}),
        }

    def response(self) -> Response:
        REFUSALS.labels(self.code).inc()
        if has_request_context():
            g.problem_code = self.code  # for the request's log line
        response = Response(json.dumps(self.to_json()), status=self.status, content_type=PROBLEM_CONTENT_TYPE)
        response.headers.update(self.headers)
        return response


class ProblemSchema(ma.Schema):
    """The body of every error response."""

    type = ma.fields.String(required=True, metadata={"description": "`urn:koz:problem:<code>`"})
    title = ma.fields.String(
        required=True, metadata={"description": "The HTTP status phrase, in the language of `Content-Language`"}
    )
    status = ma.fields.Integer(required=True)
    code = ma.fields.String(
        required=True,
        metadata={"description": "Stable machine-readable reason, such as `not_your_turn` or `stale_version`"},
    )
    detail = ma.fields.String(
        required=True, metadata={"description": "Why, in one sentence, in the language of `Content-Language`"}
    )
    instance = ma.fields.String(allow_none=True, metadata={"description": "The request path"})
    legal_actions = ma.fields.List(
        ma.fields.Nested("ActionSchema"),
        metadata={"description": "For an illegal action (422): the actions the seat may take now"},
    )
    option = ma.fields.String(metadata={"description": "For a bad option (400): the option's name"})
    allowed = ma.fields.Raw(
        metadata={
            "description": "For a bad option, ruleset or level (400): the allowed values (a list), "
            "or a sentence describing them",
            "oneOf": [{"type": "array", "items": {}}, {"type": "string"}],
        }
    )
    errors = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Raw(
            metadata={
                "description": "The messages of the field, or of its nested fields by name",
                "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "object", "additionalProperties": True}],
            }
        ),
        metadata={"description": "For an invalid request (400): the messages per field"},
    )
    current_version = ma.fields.Integer(metadata={"description": "For a stale version (412): the game's version now"})
