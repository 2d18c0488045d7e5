"""The challenges' part of the OpenAPI examples (``tests/capture_examples.py``): a challenge
made, listed, accepted, declined and withdrawn, and the refusals a client meets."""

from __future__ import annotations

from typing import Any, Callable

import fakeredis

from service import create_app
from tests.conftest import make_settings


def capture_challenges(keep: Callable[..., Any], too_large: bytes) -> None:
    def bearer(key):
        return {"Authorization": f"Bearer {key}"}

    client = create_app(make_settings(), redis=fakeredis.FakeRedis()).test_client()
    kozbot, ayse, bora = (client.post("/v1/accounts", json={"name": name}).get_json()["key"] for name in ("KozBot", "Ayşe", "Bora"))
    body = {"to": "Ayşe", "ruleset": "german-whist", "options": {"scoring": "tricks"}, "rated": True}
    made = keep("createChallenge", client.post("/v1/arena/challenges", json=body, headers=bearer(kozbot)), body)
    keep("createChallenge", client.post("/v1/arena/challenges", json={**body, "to": "nobody"}, headers=bearer(kozbot)))
    keep("createChallenge", client.post("/v1/arena/challenges", json={**body, "to": "KozBot"}, headers=bearer(kozbot)))
    keep("createChallenge", client.post("/v1/arena/challenges", json=body))
    keep("createChallenge", client.post("/v1/arena/challenges", data=too_large, headers={**bearer(kozbot), "Content-Type": "application/json"}))
    keep("listChallenges", client.get("/v1/arena/challenges", headers=bearer(ayse)))
    keep("listChallenges", client.get("/v1/arena/challenges", headers=bearer("not-a-key")))
    keep("acceptChallenge", client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(bora)))
    keep("acceptChallenge", client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(ayse)))
    keep("acceptChallenge", client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer("not-a-key")))
    declined = client.post("/v1/arena/challenges", json={**body, "to": "Bora"}, headers=bearer(kozbot)).get_json()
    client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer(bora))  # 204: no body to show
    keep("declineChallenge", client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer(bora)))
    keep("declineChallenge", client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer("not-a-key")))
    withdrawn = client.post("/v1/arena/challenges", json={**body, "to": "Bora"}, headers=bearer(kozbot)).get_json()
    client.delete(f"/v1/arena/challenges/{withdrawn['id']}", headers=bearer(kozbot))  # 204: no body to show
    keep("deleteChallenge", client.delete(f"/v1/arena/challenges/{withdrawn['id']}", headers=bearer(kozbot)))
    keep("deleteChallenge", client.delete(f"/v1/arena/challenges/{withdrawn['id']}", headers=bearer("not-a-key")))

    capped = create_app(make_settings(arena_games_at_once=1), redis=fakeredis.FakeRedis()).test_client()
    first, second, _ = (capped.post("/v1/accounts", json={"name": name}).get_json()["key"] for name in ("KozBot", "Ayşe", "Bora"))
    open_one = capped.post("/v1/arena/challenges", json=body, headers=bearer(first)).get_json()
    keep("createChallenge", capped.post("/v1/arena/challenges", json={**body, "to": "Bora"}, headers=bearer(first)))
    capped.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(second))
    keep("acceptChallenge", capped.post(f"/v1/arena/challenges/{open_one['id']}/accept", headers=bearer(second)))

    limited = create_app(make_settings(rate_limit_create="1/minute"), redis=fakeredis.FakeRedis()).test_client()
    limited_key = limited.post("/v1/accounts", json={"name": "KozBot"}).get_json()["key"]
    limited.post("/v1/arena/challenges", json=body, headers=bearer(limited_key))
    keep("createChallenge", limited.post("/v1/arena/challenges", json=body, headers=bearer(limited_key)))

    server = fakeredis.FakeServer()
    down = create_app(make_settings(), redis=fakeredis.FakeRedis(server=server)).test_client()
    server.connected = False
    for operation, answer in [
        ("createChallenge", down.post("/v1/arena/challenges", json=body, headers=bearer(kozbot))),
        ("listChallenges", down.get("/v1/arena/challenges", headers=bearer(kozbot))),
        ("acceptChallenge", down.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(ayse))),
        ("declineChallenge", down.post(f"/v1/arena/challenges/{made['id']}/decline", headers=bearer(ayse))),
        ("deleteChallenge", down.delete(f"/v1/arena/challenges/{made['id']}", headers=bearer(kozbot))),
    ]:
        keep(operation, answer)
