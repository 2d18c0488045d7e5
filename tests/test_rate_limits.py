"""Rate limits: games created per client address, actions per seat token, counted in Redis so
that two service processes sharing it share the count; over the limit, 429 problem+json with
Retry-After and the IETF RateLimit headers."""

from __future__ import annotations

import jsonschema_rs
import pytest
from flask import request
from flask_limiter import Limiter
from redis import Redis

from service import create_app
from service.limits import LIMITED
from service.store import Commit
from tests.api import FlaskClient
from tests.conftest import make_settings
from tests.support import DOCUMENT, documented_operations


def limited_api(redis, **limits) -> FlaskClient:
    return FlaskClient(create_app(make_settings(key_prefix="limits", **limits), redis=redis).test_client())


def test_creating_games_past_the_limit_answers_429_with_retry_after_and_ratelimit_headers(backend):
    api = limited_api(backend, rate_limit_create="3/minute")
    answers = [api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]) for _ in range(4)]
    assert [answer.status for answer in answers] == [201, 201, 201, 429]
    assert [answer.headers["RateLimit-Remaining"] for answer in answers[:3]] == ["2", "1", "0"]
    refused = answers[3]
    assert refused.code == "rate_limited" and refused.headers["Content-Type"] == "application/problem+json"
    assert refused.headers["RateLimit-Limit"] == "3" and refused.headers["RateLimit-Policy"] == "3;w=60"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert 0 <= int(refused.headers["RateLimit-Reset"]) <= 60
    assert not [name for answer in answers for name in answer.headers.keys() if name.startswith("X-RateLimit")]  # the IETF headers only
    assert backend.keys("*/limits:limits/*")  # counted under the store's prefix (the limits library puts its own first)


def test_games_created_are_counted_per_client_address(fake_redis):
    api = FlaskClient(create_app(make_settings(rate_limit_create="1/minute"), redis=fake_redis).test_client())
    assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).status == 201
    assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).status == 429
    other = api.test_client.post("/v1/games", json={"ruleset": "german-whist"}, environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert other.status_code == 201


def test_actions_are_counted_per_seat_token(fake_redis):
    api = limited_api(fake_redis, rate_limit_actions="2/minute")
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}], seed="limits").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    game_id = created["id"]
    statuses = {0: [], 1: []}
    for _ in range(3):
        for seat in (0, 1):
            view = api.view(game_id, tokens[seat]).body
            action = view["legal_actions"][0] if view["legal_actions"] else {"type": "pass"}
            statuses[seat].append(api.act(game_id, action, tokens[seat]).status)
    # each seat's third action is over its own limit, whatever the other seat did
    assert statuses[0][2] == 429 and statuses[1][2] == 429
    assert 429 not in statuses[0][:2] + statuses[1][:2]


def test_actions_without_a_bearer_token_are_counted_per_client_address(fake_redis):
    """A request with no seat token to count by (none, or another scheme than Bearer) is counted
    by its address, and refused 401 within the limit: counting it never fails the request."""
    api = limited_api(fake_redis, rate_limit_actions="2/minute")
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}], seed="limits").body
    path = f"/v1/games/{created['id']}/actions"

    def post(headers=None, address="10.0.0.1"):
        return api.test_client.post(path, json={"type": "pass"}, headers=headers or {}, environ_base={"REMOTE_ADDR": address})

    tokenless = [post().status_code, post({"Authorization": "Basic UDpQ"}).status_code, post().status_code]
    assert tokenless == [401, 401, 429]
    assert post(address="10.0.0.2").status_code == 401  # another address counts apart
    token = created["tokens"][0]["token"]
    assert post({"Authorization": f"Bearer {token}"}).status_code != 429  # a seat token counts apart from its address


def test_two_processes_sharing_a_redis_share_the_count(redis_server_url):
    prefix = "limits-shared"
    settings = make_settings(key_prefix=prefix, rate_limit_create="2/minute")
    first = FlaskClient(create_app(settings, redis=Redis.from_url(redis_server_url)).test_client())
    second = FlaskClient(create_app(settings, redis=Redis.from_url(redis_server_url)).test_client())
    Redis.from_url(redis_server_url).delete(*Redis.from_url(redis_server_url).keys(f"{prefix}:limits*") or ["none"])
    assert first.create(ruleset="german-whist").status == 201
    assert second.create(ruleset="german-whist").status == 201
    assert first.create(ruleset="german-whist").status == 429
    assert second.create(ruleset="german-whist").status == 429


def test_no_limits_means_no_ratelimit_headers(client):
    answer = client.post("/v1/games", json={"ruleset": "german-whist"})
    assert answer.status_code == 201 and "RateLimit-Limit" not in answer.headers


def test_a_route_without_a_limit_runs_none_of_the_limiters_code(fake_redis, monkeypatch):
    """flask-limiter's hooks on every request are not installed (they cost a few per cent of a
    long-poll's CPU, to find nothing): a limited route still counts and tells, the others do not
    even look at the limiter's state."""
    looked = []
    state = Limiter.context
    monkeypatch.setattr(Limiter, "context", property(lambda limiter: looked.append(request.endpoint) or state.fget(limiter)))
    api = limited_api(fake_redis, rate_limit_create="3/minute", rate_limit_actions="3/minute", rate_limit_hints="3/minute")
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}])
    assert created.headers["RateLimit-Remaining"] == "2" and "games.create_game" in looked
    looked.clear()
    assert api.view(created.body["id"]).status == 200 and api.request("GET", "/healthz").status == 200
    assert looked == []


@pytest.mark.parametrize("limit", ["lots", "5 per fortnight"])
def test_a_malformed_limit_is_refused_when_the_service_starts(fake_redis, limit):
    with pytest.raises(ValueError):
        create_app(make_settings(rate_limit_create=limit), redis=fake_redis)


def test_taking_seats_is_counted_per_client_address_like_creating_games(fake_redis):
    api = limited_api(fake_redis, rate_limit_create="2/minute")
    game_id = api.create(ruleset="partnership-batak", seats=[{"name": "P"}, {"open": True}, {"open": True}, {"open": True}]).body["id"]
    answers = [api.request("POST", f"/v1/games/{game_id}/seats/{seat}", json_body={}) for seat in (1, 2, 3)]
    assert [answer.status for answer in answers] == [200, 200, 429]


def human_to_act(api: FlaskClient) -> tuple[str, str]:
    """A German Whist game against the computer where the human is to act: its id and token."""
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed="hints-2").body
    game_id, token = created["id"], created["tokens"][0]["token"]
    assert api.view(game_id, token).body["legal_actions"], "the seed lets the human lead"
    return game_id, token


def test_hints_past_the_limit_answer_429_counted_per_seat_token(fake_redis):
    api = limited_api(fake_redis, rate_limit_hints="2/minute")
    game_id, token = human_to_act(api)
    answers = [api.request("GET", f"/v1/games/{game_id}/hint", token=token) for _ in range(3)]
    assert [answer.status for answer in answers] == [200, 200, 429]
    assert answers[2].code == "rate_limited" and answers[2].headers["RateLimit-Policy"] == "2;w=60"
    other_game, other_token = human_to_act(api)
    assert api.request("GET", f"/v1/games/{other_game}/hint", token=other_token).status == 200


def test_a_hint_that_finds_every_turn_taken_answers_503_busy(fake_redis, monkeypatch):
    app = create_app(make_settings(hints_at_once=1), redis=fake_redis)
    api = FlaskClient(app.test_client())
    game_id, token = human_to_act(api)
    monkeypatch.setattr("service.resources.hints.HINT_QUEUE_SECONDS", 0.05)
    turns = app.extensions["koz_hints"].turns
    assert turns.acquire(timeout=0)  # another request is thinking
    busy = api.request("GET", f"/v1/games/{game_id}/hint", token=token)
    assert (busy.status, busy.code, busy.headers["Retry-After"]) == (503, "busy", "1")
    turns.release()
    assert api.request("GET", f"/v1/games/{game_id}/hint", token=token).status == 200


def test_a_change_that_loses_every_compare_and_set_answers_503_busy_as_the_hints_do(fake_redis, monkeypatch):
    """One code, one status: a game that kept changing under a change (every attempt lost its
    compare-and-set) is the server's moment of load, answered like any other busy (503, come back
    in a second), and nothing was written."""
    app = create_app(make_settings(), redis=fake_redis)
    api = FlaskClient(app.test_client())
    game_id, token = human_to_act(api)
    before = api.request("GET", f"/v1/games/{game_id}", token=token).body["version"]
    repository = app.extensions["koz"].repository
    monkeypatch.setattr(repository, "commit", lambda game, expected_version, idempotency=None: Commit(written=False, version=expected_version))
    busy = api.request("POST", f"/v1/games/{game_id}/leave", json_body={}, token=token)
    assert (busy.status, busy.code, busy.headers["Retry-After"]) == (503, "busy", "1")
    assert "kept changing" in busy.body["detail"]
    monkeypatch.undo()
    assert api.request("GET", f"/v1/games/{game_id}", token=token).body["version"] == before


def test_only_the_limited_routes_are_checked_and_each_once(fake_redis, monkeypatch):
    # flask-limiter's own pass before every request had nothing to count here (no limit on the
    # whole application): it cost every request CPU for nothing
    from flask_limiter import Limiter

    checked: list[str | None] = []
    check = Limiter._check_request_limit

    def counted(limiter, callable_name=None, in_middleware=True):
        checked.append(callable_name)
        check(limiter, callable_name=callable_name, in_middleware=in_middleware)

    monkeypatch.setattr(Limiter, "_check_request_limit", counted)
    api = limited_api(fake_redis, rate_limit_create="5/minute")
    assert api.test_client.get("/healthz").status_code == 200
    assert checked == []
    assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).status == 201
    assert len(checked) == 1 and checked[0] is not None and checked[0].endswith("create_game")


RATE_LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Policy", "RateLimit-Remaining", "RateLimit-Reset"]


def test_the_document_gives_the_ratelimit_headers_on_the_answers_of_exactly_the_limited_operations(app):
    """A client paces itself by a limited operation's RateLimit headers: the document lists them on
    each answer such an operation gives once the request was counted (all but a body refused unread
    and the server's own refusals), and on no other operation's answers."""
    limited = {app.view_functions[endpoint]._apidoc["manual_doc"]["operationId"] for endpoint in LIMITED}
    telling = {}
    for operation_id, operation in documented_operations().items():
        for status, response in operation["responses"].items():
            if set(RATE_LIMIT_HEADERS) & set(response.get("headers", {})):
                assert sorted(name for name in response["headers"] if name.startswith("RateLimit-")) == RATE_LIMIT_HEADERS
                telling.setdefault(operation_id, []).append(status)
    assert set(telling) == limited and len(limited) == len(LIMITED)
    for operation_id in limited:
        answers = documented_operations()[operation_id]["responses"]
        assert telling[operation_id] == [status for status in answers if status not in ("408", "413", "414", "415", "431", "default")]
        assert "rate_limited" in answers["429"]["content"]["application/problem+json"]["schema"]["allOf"][1]["properties"]["code"]["enum"]


def test_the_ratelimit_headers_sent_are_the_ones_documented_with_the_values_they_are_documented_to_have(fake_redis):
    api = limited_api(fake_redis, rate_limit_create="2/minute", rate_limit_actions="2/minute")
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}], seed="limits")
    token = created.body["tokens"][0]["token"]
    view = api.view(created.body["id"], token).body
    acted = api.act(created.body["id"], view["legal_actions"][0], token)
    refused = [api.create(ruleset="german-whist") for _ in range(2)][1]
    operations, headers = documented_operations(), DOCUMENT["components"]["headers"]
    for operation_id, answer in [("createGame", created), ("postAction", acted), ("createGame", refused)]:
        documented = operations[operation_id]["responses"][str(answer.status)]["headers"]
        assert sorted(name for name in answer.headers.keys() if name.startswith("RateLimit-")) == RATE_LIMIT_HEADERS
        for name in RATE_LIMIT_HEADERS:
            schema = headers[documented[name]["$ref"].rsplit("/", 1)[1]]["schema"]
            value = answer.headers[name]
            jsonschema_rs.validate(schema, int(value) if schema["type"] == "integer" else value)
    assert (created.status, acted.status, refused.status) == (201, 200, 429)
