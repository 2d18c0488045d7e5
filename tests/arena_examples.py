"""The arena's part of the OpenAPI examples (``tests/capture_examples.py``): accounts, seeks,
the leaderboard and the account's events, each answer as a client meets it."""

from __future__ import annotations

from typing import Any, Callable

import fakeredis

from service import create_app
from service.arena.matchmaker import Matchmaker
from tests.conftest import make_settings


def capture_arena(keep: Callable[..., Any], client, too_large: bytes) -> None:
    def bearer(key):
        return {"Authorization": f"Bearer {key}"}

    made = keep("createAccount", client.post("/v1/accounts", json={"name": "KozBot", "kind": "bot"}), {"name": "KozBot", "kind": "bot"})
    other = client.post("/v1/accounts", json={"name": "Ayşe", "kind": "person"}).get_json()
    keep("createAccount", client.post("/v1/accounts", json={"name": "kozbot"}))
    keep("createAccount", client.post("/v1/accounts", json={"name": ""}))
    keep("createAccount", client.post("/v1/accounts", data=too_large, headers={"Content-Type": "application/json"}))
    key = made["key"]
    seek = {"ruleset": "german-whist", "options": {"scoring": "tricks"}, "rated": True, "house_after_seconds": 30}
    keep("createSeek", client.post("/v1/arena/seeks", json=seek, headers=bearer(key)), seek)
    keep("createSeek", client.post("/v1/arena/seeks", json=seek, headers=bearer(key)))
    keep("createSeek", client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "options": {"colour": "red"}}, headers=bearer(key)))
    keep("createSeek", client.post("/v1/arena/seeks", json=seek))
    keep("createSeek", client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak", "partner": "nobody"}, headers=bearer(key)))
    keep("createSeek", client.post("/v1/arena/seeks", data=too_large, headers={**bearer(key), "Content-Type": "application/json"}))
    keep("listSeeks", client.get("/v1/arena/seeks", headers=bearer(key)))
    keep("listSeeks", client.get("/v1/arena/seeks", headers=bearer("not-a-key")))
    keep("deleteSeek", client.delete("/v1/arena/seeks/no-such-seek", headers=bearer("not-a-key")))
    keep("deleteSeeks", client.delete("/v1/arena/seeks", headers=bearer("not-a-key")))
    client.post("/v1/arena/seeks", json=seek, headers=bearer(other["key"]))
    Matchmaker(client.application.extensions["koz_arena"]).run_pass()
    keep("getAccount", client.get("/v1/accounts/KozBot"))
    keep("getAccount", client.get("/v1/accounts/nobody"))
    keep("getLeaderboard", client.get("/v1/arena/leaderboard", query_string={"ruleset": "german-whist", "provisional": "true"}))
    keep("getLeaderboard", client.get("/v1/arena/leaderboard", query_string={"ruleset": "chess"}))
    keep("streamArenaEvents", client.get("/v1/arena/events", headers={**bearer(key), "Last-Event-ID": "soon"}))
    keep("streamArenaEvents", client.get("/v1/arena/events", headers=bearer("not-a-key")))

    capped = create_app(make_settings(arena_games_at_once=1), redis=fakeredis.FakeRedis()).test_client()
    capped_key = capped.post("/v1/accounts", json={"name": "KozBot"}).get_json()["key"]
    capped.post("/v1/arena/seeks", json=seek, headers=bearer(capped_key))
    keep("createSeek", capped.post("/v1/arena/seeks", json={**seek, "rated": False}, headers=bearer(capped_key)))

    limited = create_app(make_settings(rate_limit_create="1/minute", streams_per_address=1), redis=fakeredis.FakeRedis()).test_client()
    limited_key = limited.post("/v1/accounts", json={"name": "KozBot"}).get_json()["key"]
    keep("createAccount", limited.post("/v1/accounts", json={"name": "Ayşe"}))
    limited.post("/v1/arena/seeks", json=seek, headers=bearer(limited_key))
    keep("createSeek", limited.post("/v1/arena/seeks", json={**seek, "rated": False}, headers=bearer(limited_key)))
    held = limited.get("/v1/arena/events", headers=bearer(limited_key))  # an open stream: the address's only one
    keep("streamArenaEvents", limited.get("/v1/arena/events", headers=bearer(limited_key)))
    held.close()

    server = fakeredis.FakeServer()
    down = create_app(make_settings(), redis=fakeredis.FakeRedis(server=server)).test_client()
    server.connected = False
    for operation, answer in [
        ("createAccount", down.post("/v1/accounts", json={"name": "KozBot"})),
        ("getAccount", down.get("/v1/accounts/KozBot")),
        ("createSeek", down.post("/v1/arena/seeks", json=seek, headers=bearer(key))),
        ("listSeeks", down.get("/v1/arena/seeks", headers=bearer(key))),
        ("deleteSeeks", down.delete("/v1/arena/seeks", headers=bearer(key))),
        ("deleteSeek", down.delete("/v1/arena/seeks/no-such-seek", headers=bearer(key))),
        ("getLeaderboard", down.get("/v1/arena/leaderboard", query_string={"ruleset": "german-whist"})),
        ("streamArenaEvents", down.get("/v1/arena/events", headers=bearer(key))),
    ]:
        keep(operation, answer)
