"""Capture the OpenAPI examples from a real run: ``python -m tests.capture_examples``.

Plays the first moves of a seeded German Whist game on the app (fakeredis), provokes the common
refusals, and writes each request and answer, by operationId and status, to
``service/examples.json``, which the document shows (``tests/test_openapi.py`` checks each one
against its schema). Ids and tokens are whatever the run drew.
"""

from __future__ import annotations

import json
from pathlib import Path

import fakeredis

from service import create_app
from service.worker import WorkerThread
from tests.conftest import make_settings

EXAMPLES = Path(__file__).resolve().parent.parent / "service" / "examples.json"


def capture() -> dict:
    app = create_app(make_settings(), redis=fakeredis.FakeRedis())
    with WorkerThread(app.extensions["koz"]):  # the computer replies, as beside koz serve
        return capture_on(app.test_client())


def capture_on(client) -> dict:
    examples: dict = {}

    def keep(operation_id, answer, request=None):
        entry = examples.setdefault(operation_id, {"responses": {}})
        if request is not None:
            entry["request"] = request
        entry["responses"].setdefault(str(answer.status_code), answer.get_json())
        return answer.get_json()

    def bearer(token):
        return {"Authorization": f"Bearer {token}"}

    keep("checkHealth", client.get("/healthz"))
    keep("checkReadiness", client.get("/readyz"))
    keep("listRulesets", client.get("/v1/rulesets"))
    create = {"ruleset": "german-whist", "options": {"scoring": "tricks"}, "seats": [{"name": "Ayşe"}, {"bot": "expert"}], "seed": "example-7"}
    created = keep("createGame", client.post("/v1/games", json=create), create)
    keep("createGame", client.post("/v1/games", json={"ruleset": "german-whist", "options": {"variant": "schnapsen"}}))
    game, token = f"/v1/games/{created['id']}", created["tokens"][0]["token"]
    view = keep("getGame", client.get(game, headers=bearer(token)))
    keep("getGame", client.get("/v1/games/no-such-game"))
    keep("getGame", client.get(game, headers={"Authorization": "Bearer not-a-token"}))
    keep("getGame", client.get(game, query_string={"wait": "soon"}))
    keep("getHint", client.get(f"{game}/hint", headers=bearer(token)))
    keep("getHint", client.get(f"{game}/hint"))
    in_hand = set(view["hand"])
    legal = view["legal_actions"][0]
    not_held = next(card for card in ("AS", "KS", "AH", "KH") if card not in in_hand)
    keep("postAction", client.post(f"{game}/actions", json={"type": "play", "card": not_held}, headers=bearer(token)))
    stale = {**bearer(token), "If-Match": f'W/"{view["version"] - 1}"'}
    keep("postAction", client.post(f"{game}/actions", json=legal, headers=stale))
    keep("postAction", client.post(f"{game}/actions", json={"type": "play"}, headers=bearer(token)))
    keep("postAction", client.post(f"{game}/actions", json=legal))
    keep("postAction", client.post("/v1/games/no-such-game/actions", json=legal, headers=bearer(token)))
    headers = {**bearer(token), "If-Match": f'W/"{view["version"]}"', "Idempotency-Key": "9f1c2d7e-move-1"}
    keep("postAction", client.post(f"{game}/actions", json=legal, headers=headers), legal)
    humans = client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "Ayşe"}, {"name": "Can"}], "seed": "example-8"}).get_json()
    waiting = next(entry["token"] for entry in humans["tokens"] if entry["seat"] not in client.get(f"/v1/games/{humans['id']}").get_json()["to_act"])
    keep("postAction", client.post(f"/v1/games/{humans['id']}/actions", json={"type": "play", "card": "2C"}, headers=bearer(waiting)))
    keep("getHint", client.get(f"/v1/games/{humans['id']}/hint", headers=bearer(waiting)))
    keep("getHistory", client.get(f"{game}/history", query_string={"after": -1, "limit": 4}, headers=bearer(token)))
    keep("getHistory", client.get(f"{game}/history", query_string={"limit": 0}))
    keep("getHistory", client.get("/v1/games/no-such-game/history"))
    keep("getHistory", client.get(f"{game}/history", headers={"Authorization": "Bearer not-a-token"}))
    keep("getHint", client.get("/v1/games/no-such-game/hint", headers=bearer(token)))
    # a table people sit at: an open seat, the lobby, taking the seat, leaving, a rematch
    invitation = {"ruleset": "german-whist", "seats": [{"name": "Ayşe"}, {"open": True}], "clock": {"seconds_per_action": 60, "bank": 120}}
    table = client.post("/v1/games", json=invitation).get_json()
    keep("listWaitingGames", client.get("/v1/games", query_string={"status": "waiting", "ruleset": "german-whist"}))
    keep("listWaitingGames", client.get("/v1/games", query_string={"status": "active"}))
    taken = keep("takeSeat", client.post(f"/v1/games/{table['id']}/seats/1", json={"name": "Bora"}), {"name": "Bora"})
    keep("takeSeat", client.post(f"/v1/games/{table['id']}/seats/1", json={"name": "Cem"}))
    keep("withdrawGame", client.delete(f"/v1/games/{table['id']}", headers=bearer(table["tokens"][0]["token"])))
    keep("withdrawGame", client.delete(f"/v1/games/{table['id']}", headers=bearer(taken["token"])))
    keep("leaveGame", client.post(f"/v1/games/{table['id']}/leave", json={"level": "expert"}, headers=bearer(taken["token"])), {"level": "expert"})
    keep("leaveGame", client.post(f"/v1/games/{table['id']}/leave", json={}, headers=bearer(taken["token"])))
    keep("makeRematch", client.post(f"/v1/games/{table['id']}/rematch", headers=bearer(table["tokens"][0]["token"])))
    two_humans = {"ruleset": "german-whist", "seats": [{"name": "Ayşe"}, {"name": "Can"}], "seed": "example-9"}
    both_left = client.post("/v1/games", json=two_humans).get_json()
    for entry in both_left["tokens"]:
        client.post(f"/v1/games/{both_left['id']}/leave", json={"level": "random"}, headers=bearer(entry["token"]))
    finished = client.get(f"/v1/games/{both_left['id']}").get_json()
    while finished["status"] != "finished":  # the worker plays the computers' match out
        finished = client.get(f"/v1/games/{both_left['id']}", query_string={"wait": 30, "after": finished["version"]}).get_json()
    keep("makeRematch", client.post(f"/v1/games/{both_left['id']}/rematch", headers=bearer(both_left["tokens"][0]["token"])))
    too_large = b"[" + b" " * 20_000 + b"]"
    keep("postAction", client.post(f"{game}/actions", data=too_large, headers={**bearer(token), "Content-Type": "application/json"}))

    limited = create_app(make_settings(rate_limit_create="1/minute"), redis=fakeredis.FakeRedis()).test_client()
    limited.post("/v1/games", json=create)
    keep("createGame", limited.post("/v1/games", json=create))

    server = fakeredis.FakeServer()
    down = create_app(make_settings(), redis=fakeredis.FakeRedis(server=server)).test_client()
    server.connected = False
    keep("checkReadiness", down.get("/readyz"))
    keep("createGame", down.post("/v1/games", json=create))
    keep("postAction", down.post(f"{game}/actions", json=legal, headers=bearer(token)))
    return examples


if __name__ == "__main__":
    EXAMPLES.write_text(json.dumps(capture(), indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {EXAMPLES}")
