"""The OpenAPI document: committed, current, and true to what the service answers."""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path

import jsonschema_rs
import pytest
import schemathesis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from werkzeug.routing import WebsocketMismatch

from engine import Refusal, RefusalCode, registry
from service.cli import openapi_document
from tests.conftest import fuzzed_app

COMMITTED = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def test_committed_document_is_current():
    assert COMMITTED.read_text() == openapi_document(), "openapi/ is stale: run `koz openapi` (or `make openapi`)"


def test_served_document_equals_the_committed_one(client):
    assert client.get("/openapi.json").get_json() == json.loads(COMMITTED.read_text())


def test_the_document_is_written_whole_when_first_read_after_serving_and_by_readers_at_once(app):
    """The app writes its document when it is first read, not when it is made: a game served
    before that, and two readers at once, change nothing in it."""
    created = app.test_client().post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "A"}, {"name": "B"}]})
    assert created.status_code == 201
    read: list = []
    readers = [threading.Thread(target=lambda: read.append(app.test_client().get("/openapi.json").get_json())) for _ in range(2)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(60)
    assert read == [json.loads(COMMITTED.read_text())] * 2


def test_document_is_openapi_3_1_and_every_object_is_typed():
    document = json.loads(COMMITTED.read_text())
    assert document["openapi"] == "3.1.0"
    untyped = []

    def walk(node, path):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" not in node and "additionalProperties" not in node:
                untyped.append(path)
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{path}/{index}")

    walk(document["components"]["schemas"], "#/components/schemas")
    assert untyped == []


def test_every_error_response_is_problem_json():
    document = json.loads(COMMITTED.read_text())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
                if status.startswith(("4", "5")) or status == "default":
                    assert list(response["content"]) == ["application/problem+json"], (path, method, status)


def test_a_problem_that_says_when_to_come_back_or_how_to_authenticate_documents_that_header():
    """A generated client reads ``Retry-After`` on a 429 or a 503, ``WWW-Authenticate`` on a 401."""
    document = json.loads(COMMITTED.read_text())
    expected = {"401": "WWW-Authenticate", "429": "Retry-After", "503": "Retry-After"}
    found = 0
    for operations in document["paths"].values():
        for method, operation in operations.items():
            for status, response in operation["responses"].items() if method != "parameters" else []:
                if status in expected:
                    found += 1
                    shared = ("RateLimit-", "X-Request-ID")  # (every answer's, and a limited operation's: test_rate_limits.py)
                    assert [name for name in response["headers"] if not name.startswith(shared)] == ["Content-Language", expected[status]]
                    assert response["headers"][expected[status]]["schema"]["type"] == ("string" if status == "401" else "integer")
    assert found > 50


schema = schemathesis.openapi.from_wsgi("/openapi.json", fuzzed_app())
# a malformed request is refused; to the play connection, a request without the upgrade is refused
# 426 before its query is read, malformed or not (tests/test_api_play.py has its 400s)
schema.config.checks.negative_data_rejection.expected_statuses.append("426")


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_however_malformed_gets_a_server_error_or_an_undocumented_answer(case):
    """Schemathesis sends generated and mutated requests; every answer must be documented and
    none may be a 500. (A schema-valid request may still be refused: a seat list must match the
    ruleset's seat count and option values depend on the ruleset, which a schema cannot say.)"""
    case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])


def _operations(document):
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method != "parameters":
                yield path, method, operation, operations.get("parameters", []) + operation.get("parameters", [])


def test_every_operation_has_a_stable_operation_id():
    document = json.loads(COMMITTED.read_text())
    ids = {(method, path): operation["operationId"] for path, method, operation, _ in _operations(document)}
    assert ids == {
        ("get", "/healthz"): "checkHealth",
        ("get", "/readyz"): "checkReadiness",
        ("get", "/v1/rulesets"): "listRulesets",
        ("post", "/v1/games"): "createGame",
        ("get", "/v1/games/{game_id}"): "getGame",
        ("delete", "/v1/games/{game_id}"): "withdrawGame",
        ("post", "/v1/games/{game_id}/actions"): "postAction",
        ("get", "/v1/games/{game_id}/history"): "getHistory",
        ("get", "/v1/games/{game_id}/hint"): "getHint",
        ("get", "/v1/games"): "listWaitingGames",
        ("post", "/v1/games/{game_id}/seats/{seat}"): "takeSeat",
        ("post", "/v1/games/{game_id}/leave"): "leaveGame",
        ("post", "/v1/games/{game_id}/rematch"): "makeRematch",
        ("get", "/v1/games/{game_id}/events"): "streamEvents",
        ("get", "/v1/games/{game_id}/play"): "playGame",
        ("post", "/v1/accounts"): "createAccount",
        ("get", "/v1/accounts/{name}"): "getAccount",
        ("post", "/v1/arena/seeks"): "createSeek",
        ("get", "/v1/arena/seeks"): "listSeeks",
        ("delete", "/v1/arena/seeks"): "deleteSeeks",
        ("delete", "/v1/arena/seeks/{seek_id}"): "deleteSeek",
        ("get", "/v1/arena/leaderboard"): "getLeaderboard",
        ("get", "/v1/arena/events"): "streamArenaEvents",
        ("post", "/v1/arena/challenges"): "createChallenge",
        ("get", "/v1/arena/challenges"): "listChallenges",
        ("post", "/v1/arena/challenges/{challenge_id}/accept"): "acceptChallenge",
        ("post", "/v1/arena/challenges/{challenge_id}/decline"): "declineChallenge",
        ("delete", "/v1/arena/challenges/{challenge_id}"): "deleteChallenge",
    }


def test_every_parameter_a_client_may_send_is_declared():
    document = json.loads(COMMITTED.read_text())
    declared = {operation["operationId"]: {parameter["name"] for parameter in parameters} for _, _, operation, parameters in _operations(document)}
    assert {"wait", "after", "If-None-Match", "X-Request-ID"} <= declared["getGame"]
    assert {"If-Match", "Idempotency-Key", "X-Request-ID"} <= declared["postAction"]
    assert {"after", "limit"} <= declared["getHistory"]
    assert all("X-Request-ID" in names for names in declared.values())


def test_each_operation_documents_the_request_headers_it_reads_and_no_other():
    """A path's parameters are every operation's on it: an operation's own header there was offered
    by a generated client for another on the same path (`If-None-Match` on `withdrawGame`)."""
    document = json.loads(COMMITTED.read_text())
    every_operations = ["X-Request-ID", "Accept-Language", "lang"]
    headers = {}
    for path, _, operation, _ in _operations(document):
        assert [parameter["name"] for parameter in document["paths"][path]["parameters"] if parameter["in"] != "path"] == every_operations
        own = [parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] == "header"]
        headers.update({operation["operationId"]: own} if own else {})
    assert headers == {
        "getGame": ["If-None-Match"],
        "postAction": ["If-Match", "Idempotency-Key"],
        "takeSeat": ["Idempotency-Key"],
        "streamEvents": ["Last-Event-ID"],
        "streamArenaEvents": ["Last-Event-ID"],
    }


def test_an_operation_without_a_seat_token_says_so():
    document = json.loads(COMMITTED.read_text())
    security = {operation["operationId"]: operation["security"] for _, _, operation, _ in _operations(document)}
    for operation_id in ("checkHealth", "checkReadiness", "listRulesets", "createGame"):
        assert security[operation_id] == [], operation_id
    assert security["postAction"] == security["getHint"] == [{"seatToken": []}]
    assert security["getGame"] == security["getHistory"] == [{}, {"seatToken": []}]


def _documented_codes(operation, status):
    schema = operation["responses"][status]["content"]["application/problem+json"]["schema"]
    return set(schema["allOf"][1]["properties"]["code"]["enum"])


def declared_refusals() -> list[RefusalCode]:
    """Every refusal declared in the engine's modules (a game's own, or one every game gives)."""
    engine = Path(__file__).resolve().parent.parent / "engine"
    names = {".".join(path.relative_to(engine.parent).with_suffix("").parts).removesuffix(".__init__") for path in engine.rglob("*.py")}
    modules = [importlib.import_module(name) for name in sorted(names)]
    return [value for module in modules for value in vars(module).values() if isinstance(value, RefusalCode)]


def test_every_illegal_action_code_of_the_engine_is_documented_as_a_422():
    raised = {refusal.code for refusal in declared_refusals() if refusal.kind is Refusal.ILLEGAL}
    catalogued = {code for ruleset in registry.all_rulesets() for code, refusal in ruleset.catalogue.items() if refusal.kind is Refusal.ILLEGAL}
    document = json.loads(COMMITTED.read_text())
    post_action = document["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert raised and raised <= catalogued
    assert _documented_codes(post_action, "422") == catalogued | {"idempotency_key_reused"}


def test_every_refusal_of_a_seat_that_may_not_act_is_documented_as_a_409_where_a_seat_acts():
    catalogued = {code for ruleset in registry.all_rulesets() for code, refusal in ruleset.catalogue.items() if refusal.kind is Refusal.NOT_YOUR_TURN}
    document = json.loads(COMMITTED.read_text())
    for path, method in (("/v1/games/{game_id}/actions", "post"), ("/v1/games/{game_id}/hint", "get")):
        # the seat comes from the token, so the engine's unknown_seat never reaches the service
        assert catalogued - {"unknown_seat"} <= _documented_codes(document["paths"][path][method], "409"), path


def test_every_turn_refusal_of_the_engine_is_documented_as_a_409():
    raised = {refusal.code for refusal in declared_refusals() if refusal.kind is Refusal.NOT_YOUR_TURN}
    # a seat number no token can name, and the reveal of a match not over, never come from an action
    raised -= {"unknown_seat", "game_not_over"}
    document = json.loads(COMMITTED.read_text())
    post_action = document["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert {"not_your_turn", "game_over", "not_in_auction"} <= raised <= _documented_codes(post_action, "409")


def test_the_refusal_codes_of_an_operation_are_an_enum(client):
    document = json.loads(COMMITTED.read_text())
    post_action = document["paths"]["/v1/games/{game_id}/actions"]["post"]
    answer = client.post("/v1/games/no-such-game/actions", json={"type": "play", "card": "QS"}, headers={"Authorization": "Bearer x"})
    assert answer.status_code == 404
    assert answer.get_json()["code"] in _documented_codes(post_action, "404")


def test_the_server_refusals_documented_on_every_operation_are_the_servers_own():
    from service.api import SERVER_REFUSALS
    from service.http_server import SERVER_REFUSALS as GUNICORN_REFUSALS

    assert {status: [GUNICORN_REFUSALS[status][0]] for status in SERVER_REFUSALS} == SERVER_REFUSALS
    document = json.loads(COMMITTED.read_text())
    for _, _, operation, _ in _operations(document):
        for status, codes in SERVER_REFUSALS.items():
            # an operation may meet a 429 of its own (rate_limited) beside the server's
            assert _documented_codes(operation, str(status)) >= set(codes), operation["operationId"]


def _media_examples(document):
    for _, _, operation, _ in _operations(document):
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            yield operation["operationId"], "request", media_type, media
        for status, response in operation["responses"].items():
            for media_type, media in response.get("content", {}).items():
                yield operation["operationId"], status, media_type, media


def test_every_example_fits_its_schema():
    document = json.loads(COMMITTED.read_text())
    examples = [(where, media) for *where, media in _media_examples(document) if "example" in media]
    assert len(examples) >= 30
    for where, media in examples:
        validator = jsonschema_rs.Draft202012Validator({"components": document["components"], **media["schema"]})
        errors = [f"{error.instance_path}: {error.message}" for error in validator.iter_errors(media["example"])]
        assert errors == [], where


def test_every_request_body_and_success_answer_has_an_example():
    document = json.loads(COMMITTED.read_text())
    missing = [where for *where, media in _media_examples(document) if "example" not in media and not where[1].startswith(("4", "5", "d"))]
    assert missing == []


@pytest.fixture(scope="module")
def captured() -> tuple[dict, list[tuple[str, int, dict[str, str]]]]:
    """The examples' run (every operation, its common refusals; tests/capture_examples.py): the
    examples it captures, and every answer it got, by operationId and status, with its headers."""
    from tests.capture_examples import capture

    answers = []
    sending = FlaskClient.open

    def open_recording(client, *args, **kwargs):
        answer = sending(client, *args, **kwargs)
        routes = client.application.url_map.bind("localhost")
        try:
            endpoint, _ = routes.match(answer.request.path, answer.request.method)
        except WebsocketMismatch:  # (the play connection's route, asked without the upgrade)
            endpoint, _ = routes.match(answer.request.path, answer.request.method, websocket=True)
        operation_id = client.application.view_functions[endpoint]._apidoc["manual_doc"]["operationId"]
        answers.append((operation_id, answer.status_code, dict(answer.headers)))
        return answer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FlaskClient, "open", open_recording)
        return capture(), answers


#: headers of HTTP itself, caches and proxies, and CORS, which the document leaves to them
HTTP_HEADERS = {
    *("Content-Type", "Content-Length", "Connection", "Vary", "Cache-Control", "X-Accel-Buffering"),
    *("Access-Control-Allow-Origin", "Access-Control-Expose-Headers"),
}


def test_every_header_an_answer_carries_is_documented_for_its_operation_and_status(captured):
    """A generated client reads only the headers the document gives an answer: each one sent is
    there (a limited operation's RateLimit headers too, on its refusals as on its successes), its
    request's id on every answer, and its ETag where it says so."""
    document = json.loads(COMMITTED.read_text())
    operations = {operation["operationId"]: operation for _, _, operation, _ in _operations(document)}
    _, answers = captured
    assert len({operation_id for operation_id, _, _ in answers}) == len(operations)
    for operation_id, status, headers in answers:
        documented = operations[operation_id]["responses"][str(status)]
        documented = document["components"]["responses"][documented["$ref"].rsplit("/", 1)[1]] if "$ref" in documented else documented
        assert set(headers) - set(documented.get("headers", {})) - HTTP_HEADERS == set(), (operation_id, status)
        assert "X-Request-ID" in headers
        assert ("ETag" in headers) == ("ETag" in documented.get("headers", {})), (operation_id, status)
    assert "X-Request-ID" in document["components"]["responses"]["DEFAULT_ERROR"]["headers"]  # (an answer of any other status)


def test_the_committed_examples_are_what_a_capture_answers_today(captured):
    from service.api import EXAMPLES

    def shape(examples):
        # ids and tokens are drawn anew by each run; the statuses, codes and fields are not
        return {
            operation: {status: sorted(body) if isinstance(body, dict) else body for status, body in captured["responses"].items()}
            for operation, captured in examples.items()
        }

    examples, _ = captured
    assert shape(examples) == shape(EXAMPLES), "service/examples.json is stale: run `python -m tests.capture_examples`"
    assert examples["postAction"]["responses"]["422"]["code"] == EXAMPLES["postAction"]["responses"]["422"]["code"]


def _reached(document, node, seen=None) -> set[str]:
    """The component schemas a part of the document refers to, directly or through others."""
    seen = set() if seen is None else seen
    if isinstance(node, dict):
        name = node.get("$ref", "").removeprefix("#/components/schemas/")
        if "$ref" in node and name not in seen:
            seen.add(name)
            _reached(document, document["components"]["schemas"][name], seen)
        for value in node.values():
            _reached(document, value, seen)
    elif isinstance(node, list):
        for value in node:
            _reached(document, value, seen)
    return seen


def test_no_request_body_documents_a_default_a_generated_client_would_send_or_require():
    """The server fills in what a request leaves out: a documented `default` would be resent by
    openapi-python-client and made required by openapi-typescript, so it is said in prose."""
    document = json.loads(COMMITTED.read_text())
    bodies = [operation["requestBody"] for _, _, operation, _ in _operations(document) if "requestBody" in operation]
    reached = _reached(document, bodies)
    assert {"GermanWhistGameCreate", "SeatSpec", "Clock", "Leave"} <= reached
    schemas = document["components"]["schemas"]
    defaults = [f"{name}.{field}" for name in reached for field, prop in schemas[name].get("properties", {}).items() if "default" in prop]
    assert defaults == []
    assert schemas["SeatSpec"]["properties"]["open"]["description"].endswith("Absent: false.")


def test_a_nullable_enum_is_one_enum_or_null():
    """`type: [string, null]` with null among the values gave openapi-python-client three identical
    enum classes; `anyOf` the enum and null gives one (the computer levels: the shared LevelName)."""
    document = json.loads(COMMITTED.read_text())
    nullable_enums = []

    def walk(node, path):
        if isinstance(node, dict):
            if None in node.get("enum", []):
                nullable_enums.append(path)
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{path}/{index}")

    walk(document, "#")
    assert nullable_enums == []
    schemas = document["components"]["schemas"]
    assert schemas["GermanWhistView"]["properties"]["trump"]["anyOf"] == [{"type": "string", "enum": ["C", "D", "H", "S"]}, {"type": "null"}]
    assert schemas["SeatSpec"]["properties"]["bot"]["anyOf"] == [{"$ref": "#/components/schemas/LevelName"}, {"type": "null"}]


def test_documenting_an_operations_problems_gives_its_function_back_unwrapped():
    # a wrapper per documented status, passed on every request, cost the web process CPU for nothing
    from service.api import Blueprint

    def view() -> None:
        """A view."""

    documented = Blueprint("documented", __name__).problems({404: ["unknown_game"], 409: ["not_your_turn"]})(view)
    assert documented is view
    assert set(view._apidoc["response"]["responses"]) == {404, 409}  # type: ignore[attr-defined]
    assert view._apidoc["koz_problems"] == {404: ["unknown_game"], 409: ["not_your_turn"]}  # type: ignore[attr-defined]


def test_a_status_documented_twice_lists_each_code_once_in_the_order_given():
    """The server's own refusals are documented beside an operation's (its 429 beside the rate limiter's)."""
    from service.api import Blueprint

    def view() -> None:
        """A view."""

    blueprint = Blueprint("twice", __name__)
    blueprint.problems({429: ["too_many_connections"]})(blueprint.problems({429: ["rate_limited", "too_many_connections"]})(view))
    assert view._apidoc["koz_problems"] == {429: ["rate_limited", "too_many_connections"]}  # type: ignore[attr-defined]
    (documented,) = view._apidoc["response"]["responses"][429]  # type: ignore[attr-defined]  # (one response: the first is replaced)
    assert documented["schema"]["allOf"][1]["properties"]["code"]["enum"] == ["rate_limited", "too_many_connections"]
