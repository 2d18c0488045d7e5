"""The OpenAPI document: committed, current, and true to what the service answers."""

from __future__ import annotations

import json
from pathlib import Path

import fakeredis
import schemathesis
from hypothesis import HealthCheck, settings

from service import create_app
from service.cli import openapi_document
from tests.conftest import make_settings

COMMITTED = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def test_committed_document_is_current():
    assert COMMITTED.read_text() == openapi_document(), "openapi/ is stale: run `koz openapi` (or `make openapi`)"


def test_served_document_equals_the_committed_one(client):
    assert client.get("/openapi.json").get_json() == json.loads(COMMITTED.read_text())


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


# no worker runs (a human's action answers at once), and an event stream ends soon
fuzzed_app = create_app(make_settings(reply_wait_seconds=0, stream_heartbeat_seconds=0.2, stream_max_seconds=1), redis=fakeredis.FakeRedis())
schema = schemathesis.openapi.from_wsgi("/openapi.json", fuzzed_app)


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_however_malformed_gets_a_server_error_or_an_undocumented_answer(case):
    """Schemathesis sends generated and mutated requests; every answer must be documented and
    none may be a 500. (A schema-valid request may still be refused: a seat list must match the
    ruleset's seat count and option values depend on the ruleset, which a schema cannot say.)"""
    case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
