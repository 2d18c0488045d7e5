"""Every operation documents the 503s a failing store answers it with, and only those: a store that
is down (`storage_unavailable`), a process whose requests wait for Redis past its queue (`busy`), a
Redis full to the brim that refuses writes (`capacity`). Each operation is asked once in each
case, on a real redis-server of the test's own, and what it answers is held to the document; a
503 from the full Redis (which still deletes) must have changed nothing in it."""

from __future__ import annotations

from typing import Callable

import pytest
from redis import Redis

from service import create_app
from tests.conftest import make_settings
from tests.redis_process import RedisProcess
from tests.support import documented_operations
from tests.test_api_play import upgrade_headers
from tests.test_arena_api import bearer
from tests.test_redis_faults import filled_to_the_brim

pytestmark = pytest.mark.redis_server

def documented_503s() -> dict[str, set[str]]:
    """Each operation's codes of 503, by operationId."""
    codes = {}
    for operation_id, operation in documented_operations().items():
        if "503" in operation["responses"]:
            schema = operation["responses"]["503"]["content"]["application/problem+json"]["schema"]
            codes[operation_id] = set(schema["allOf"][1]["properties"]["code"]["enum"])
    return codes


def every_operation(client) -> list[tuple[str, str, str, dict]]:
    """A request of every operation that would succeed on a healthy store, made ready on one:
    ``(operationId, method, path, what the test client sends)``."""

    def made(answer) -> dict:
        assert answer.status_code in (200, 201), answer.get_json()
        return answer.get_json()

    game = made(client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "P"}, {"name": "Q"}], "seed": "store"}))
    table = made(client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "P"}, {"open": True}]}))
    tokens = {entry["seat"]: entry["token"] for entry in game["tokens"]}
    seat = made(client.get(f"/v1/games/{game['id']}"))["to_act"][0]
    legal = made(client.get(f"/v1/games/{game['id']}", headers=bearer(tokens[seat])))["legal_actions"][0]
    key = made(client.post("/v1/accounts", json={"name": "Ayla"}))["key"]
    other = made(client.post("/v1/accounts", json={"name": "Berk"}))["key"]
    seek = made(client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)))
    challenges = [
        made(client.post("/v1/arena/challenges", json={"to": "Berk", "ruleset": ruleset}, headers=bearer(key)))
        for ruleset in ("german-whist", "sixty-six", "partnership-batak")
    ]
    path = f"/v1/games/{game['id']}"
    return [
        ("checkHealth", "GET", "/healthz", {}),
        ("checkReadiness", "GET", "/readyz", {}),
        ("listRulesets", "GET", "/v1/rulesets", {}),
        ("createGame", "POST", "/v1/games", {"json": {"ruleset": "german-whist"}}),
        ("listWaitingGames", "GET", "/v1/games", {}),
        ("getGame", "GET", path, {"headers": bearer(tokens[0])}),
        ("withdrawGame", "DELETE", f"/v1/games/{table['id']}", {"headers": bearer(table["tokens"][0]["token"])}),
        ("postAction", "POST", f"{path}/actions", {"json": legal, "headers": bearer(tokens[seat])}),
        ("getHistory", "GET", f"{path}/history", {}),
        ("getHint", "GET", f"{path}/hint", {"headers": bearer(tokens[seat])}),
        ("takeSeat", "POST", f"/v1/games/{table['id']}/seats/1", {"json": {"name": "R"}}),
        ("leaveGame", "POST", f"{path}/leave", {"json": {}, "headers": bearer(tokens[0])}),
        ("makeRematch", "POST", f"{path}/rematch", {"headers": bearer(tokens[0])}),
        ("streamEvents", "GET", f"{path}/events", {}),
        ("playGame", "GET", f"{path}/play", {"headers": {**upgrade_headers(), **bearer(tokens[0])}}),
        ("createAccount", "POST", "/v1/accounts", {"json": {"name": "Cem"}}),
        ("getAccount", "GET", "/v1/accounts/Ayla", {}),
        ("createSeek", "POST", "/v1/arena/seeks", {"json": {"ruleset": "german-whist"}, "headers": bearer(key)}),
        ("listSeeks", "GET", "/v1/arena/seeks", {"headers": bearer(key)}),
        ("deleteSeek", "DELETE", f"/v1/arena/seeks/{seek['id']}", {"headers": bearer(key)}),
        ("deleteSeeks", "DELETE", "/v1/arena/seeks", {"headers": bearer(key)}),
        ("getLeaderboard", "GET", "/v1/arena/leaderboard", {"query_string": {"ruleset": "german-whist"}}),
        ("streamArenaEvents", "GET", "/v1/arena/events", {"headers": bearer(key)}),
        ("createChallenge", "POST", "/v1/arena/challenges", {"json": {"to": "Berk", "ruleset": "sixty-six", "rated": False}, "headers": bearer(key)}),
        ("listChallenges", "GET", "/v1/arena/challenges", {"headers": bearer(key)}),
        ("acceptChallenge", "POST", f"/v1/arena/challenges/{challenges[0]['id']}/accept", {"headers": bearer(other)}),
        ("declineChallenge", "POST", f"/v1/arena/challenges/{challenges[1]['id']}/decline", {"headers": bearer(other)}),
        ("deleteChallenge", "DELETE", f"/v1/arena/challenges/{challenges[2]['id']}", {"headers": bearer(key)}),
    ]


def answered_503s(client, requests, stored: Callable[[], dict[bytes, bytes]] | None = None) -> dict[str, str]:
    """The code of each operation answered 503, by operationId; with ``stored`` (what the store
    holds), each 503 must have left it as it was."""
    codes = {}
    for operation_id, method, path, sent in requests:
        before = stored() if stored else None
        answer = client.open(path, method=method, buffered=False, **sent)  # (a stream that opens is closed unread)
        if answer.status_code == 503:
            codes[operation_id] = answer.get_json()["code"]
            assert stored is None or stored() == before, f"{operation_id} answered 503 and changed the store"
        answer.close()
    return codes


def everything_but_the_filler(redis: Redis) -> dict[bytes, bytes]:
    return {key: redis.dump(key) for key in redis.scan_iter() if not key.startswith(b"filler:")}


#: the rate limits as served (their counts are the first write of a limited operation), and none
LIMITS = {"rate_limit_create": "1000/minute", "rate_limit_actions": "1000/minute", "rate_limit_hints": "1000/minute"}


@pytest.mark.parametrize("limits", [LIMITS, {}], ids=["as served", "without rate limits"])
def test_every_operation_documents_the_503s_a_failing_store_answers_it_with_and_only_those(tmp_path, monkeypatch, limits):
    server = RedisProcess(tmp_path, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
    try:
        settings = make_settings(redis_url=server.url, redis_connect_timeout=0.5, redis_timeout=0.5, arena_games_at_once=8, **limits)
        app = create_app(settings)
        client = app.test_client()
        requests = every_operation(client)
        answered: dict[str, dict[str, str]] = {}
        with monkeypatch.context() as patch:
            patch.setattr(app.extensions["koz"].store.redis.connection_pool, "max_queued", 0)
            answered["busy"] = answered_503s(client, requests)
        filler = filled_to_the_brim(server.url)
        # (the play connection, its game read, would upgrade: a test client has no socket to give it)
        reading = [request for request in requests if request[0] != "playGame"]
        answered["full"] = answered_503s(client, reading, lambda: everything_but_the_filler(filler))
        filler.config_set("maxmemory", 0)
        app.extensions["koz"].repository.memory_share(fresh=True)  # (not the full Redis's, as read a moment ago)
        server.stop()
        answered["down"] = answered_503s(client, requests)
    finally:
        server.stop()
    assert set(answered["busy"].values()) == {"busy"} and set(answered["down"].values()) == {"storage_unavailable"}
    assert set(answered["full"].values()) == {"capacity"}
    operations = {operation_id for operation_id, *_ in requests}
    assert operations == set(documented_operations())
    documented = documented_503s()
    for code, case in (("busy", "busy"), ("capacity", "full"), ("storage_unavailable", "down")):
        documenting = {operation_id for operation_id, codes in documented.items() if code in codes}
        if limits or code != "capacity":
            assert documenting == set(answered[case]), code
        else:  # (without the limits' counts, an operation refused for another reason first writes nothing)
            assert set(answered[case]) <= documenting
    # readiness answers that the store is down; its connections are its own, never queued behind the requests'
    assert (answered["down"]["checkReadiness"], "checkReadiness" in answered["busy"]) == ("storage_unavailable", False)
    assert set(answered["down"]) == operations - {"checkHealth", "listRulesets"}  # (only they never touch the store)
