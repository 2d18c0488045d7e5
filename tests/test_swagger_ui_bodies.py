"""The bodies Swagger UI's "Try it out" offers are accepted as they are.

Swagger UI fills a request body with the first example of its media type, or, where there is
none, with a sample it builds from the schema alone (every property set, the first branch of a
`oneOf`, a schema's own `example` where it gives one). Both are taken here for every operation
with a body: the example from the document, the sample from openapi-sampler (the sampler of
Redoc and the Swagger family, pinned by ``openapi/package-lock.json``, run with Node.js), and
each is posted to a game where the operation makes sense. The server may refuse it for the
state of the game (`not_your_turn`, a card the seat does not hold), never for its shape.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import fakeredis
import pytest

from service import create_app
from tests.conftest import make_settings

OPENAPI = Path(__file__).resolve().parent.parent / "openapi"
DOCUMENT = json.loads((OPENAPI / "openapi.json").read_text())
#: the sample of each operation's body schema, as openapi-sampler builds it (require() resolves it
#: from openapi/node_modules, the working directory)
SAMPLER = """
const sampler = require("openapi-sampler");
const spec = JSON.parse(require("fs").readFileSync("openapi.json", "utf8"));
const samples = {};
for (const operations of Object.values(spec.paths))
  for (const operation of Object.values(operations))
    if (operation.requestBody) samples[operation.operationId] = sampler.sample(operation.requestBody.content["application/json"].schema, {}, spec);
console.log(JSON.stringify(samples));
"""
#: refusals of the request's shape rather than of the game's state
SHAPE_REFUSALS = {"malformed_action"}


def operations_with_a_body() -> dict[str, tuple[str, dict]]:
    return {
        operation["operationId"]: (path, operation["requestBody"]["content"]["application/json"])
        for path, operations in DOCUMENT["paths"].items()
        for operation in operations.values()
        if "requestBody" in operation
    }


def first_example(media: dict):
    """What Swagger UI shows first: the media type's `example`, else its first `examples` entry."""
    if "example" in media:
        return media["example"]
    return next(iter(media["examples"].values()))["value"]


@pytest.fixture(scope="module")
def samples() -> dict:
    if shutil.which("node") is None:
        pytest.fail("Node.js is missing: the sampler needs it (Debian: apt-get install nodejs npm), then `make test`")
    if not (OPENAPI / "node_modules" / "openapi-sampler").exists():
        pytest.fail("openapi-sampler is not installed: `make test` runs `npm ci --prefix openapi` (or run it yourself)")
    sampled = subprocess.run(["node", "-e", SAMPLER], cwd=OPENAPI, capture_output=True, text=True, timeout=120)
    assert sampled.returncode == 0, sampled.stderr
    return json.loads(sampled.stdout)


@pytest.fixture
def client():
    return create_app(make_settings(), redis=fakeredis.FakeRedis()).test_client()


def new_game(client, seats: list) -> dict:
    answer = client.post("/v1/games", json={"ruleset": "german-whist", "seats": seats, "seed": "swagger"})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def post(client, operation_id: str, body):
    """Post a body to the operation, on a game where it applies: its own seat acting or leaving,
    an open seat to take."""
    if operation_id == "createGame":
        return client.post("/v1/games", json=body)
    if operation_id == "postAction":
        game = new_game(client, [{"name": "Ayşe"}, {"name": "Bora"}])
        seat = client.get(f"/v1/games/{game['id']}").get_json()["to_act"][0]
        token = next(entry["token"] for entry in game["tokens"] if entry["seat"] == seat)
        return client.post(f"/v1/games/{game['id']}/actions", json=body, headers={"Authorization": f"Bearer {token}"})
    if operation_id == "leaveGame":
        game = new_game(client, [{"name": "Ayşe"}, {"name": "Bora"}])
        return client.post(f"/v1/games/{game['id']}/leave", json=body, headers={"Authorization": f"Bearer {game['tokens'][0]['token']}"})
    if operation_id == "takeSeat":
        game = new_game(client, [{"name": "Ayşe"}, {"open": True}])
        return client.post(f"/v1/games/{game['id']}/seats/1", json=body)
    if operation_id == "createAccount":
        return client.post("/v1/accounts", json=body)
    if operation_id == "createSeek":
        key = client.post("/v1/accounts", json={"name": "Swagger"}).get_json()["key"]
        return client.post("/v1/arena/seeks", json=body, headers={"Authorization": f"Bearer {key}"})
    if operation_id == "createChallenge":
        key = client.post("/v1/accounts", json={"name": "Swagger"}).get_json()["key"]
        client.post("/v1/accounts", json={"name": body.get("to", "Ayşe")})
        return client.post("/v1/arena/challenges", json=body, headers={"Authorization": f"Bearer {key}"})
    raise AssertionError(f"no game to post {operation_id}'s body to: add one here")


def assert_accepted(answer, operation_id: str, body) -> None:
    if answer.status_code < 300:
        return
    problem = answer.get_json()
    assert answer.status_code in (409, 422) and problem["code"] not in SHAPE_REFUSALS, (operation_id, body, problem)


@pytest.mark.parametrize("operation_id", sorted(operations_with_a_body()))
def test_swagger_ui_first_example_body_is_accepted(client, operation_id):
    body = first_example(operations_with_a_body()[operation_id][1])
    assert_accepted(post(client, operation_id, body), operation_id, body)


@pytest.mark.parametrize("operation_id", sorted(operations_with_a_body()))
def test_swagger_ui_body_sampled_from_the_schema_is_accepted(client, samples, operation_id):
    body = samples[operation_id]
    assert_accepted(post(client, operation_id, body), operation_id, body)
