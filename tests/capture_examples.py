"""Capture the OpenAPI examples from a real run: ``python -m tests.capture_examples``.

Plays the first moves of a seeded German Whist game on the app (fakeredis), provokes the common
refusals, and writes each request and answer, by operationId and status, to
``service/examples.json``, which the document shows (``tests/test_openapi.py`` checks each one
against its schema). Ids and tokens are whatever the run drew.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import fakeredis

from service import create_app
from service.errors import Problem
from service.http_server import refusal
from service.worker import WorkerThread
from tests.arena_examples import capture_arena
from tests.challenge_examples import capture_challenges
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

    # the other refusals of the operations, each as a client meets it
    invitation = {"ruleset": "german-whist", "seats": [{"name": "Ayşe"}, {"open": True}], "private": True}
    private = client.post("/v1/games", json=invitation).get_json()
    keep("withdrawGame", client.delete(f"/v1/games/{private['id']}"))
    keep("withdrawGame", client.delete("/v1/games/no-such-game", headers=bearer(token)))
    keep("takeSeat", client.post(f"/v1/games/{private['id']}/seats/1", json={"name": "Bora", "code": "not-the-code"}))
    keep("takeSeat", client.post(f"/v1/games/{private['id']}/seats/1", json={"name": ""}))
    keep("takeSeat", client.post(f"/v1/games/{private['id']}/seats/1", json={"name": "Bora"}, headers={"Authorization": "Bearer not-a-token"}))
    keep("takeSeat", client.post(f"/v1/games/{private['id']}/seats/9", json={"name": "Bora"}))
    keep("takeSeat", client.post(f"/v1/games/{private['id']}/seats/1", data=too_large, headers={"Content-Type": "application/json"}))
    keep("leaveGame", client.post(f"{game}/leave", json={"level": "grandmaster"}, headers=bearer(token)))
    keep("leaveGame", client.post(f"{game}/leave", json={}))
    keep("leaveGame", client.post("/v1/games/no-such-game/leave", json={}, headers=bearer(token)))
    keep("leaveGame", client.post(f"{game}/leave", data=too_large, headers={**bearer(token), "Content-Type": "application/json"}))
    keep("makeRematch", client.post(f"{game}/rematch"))
    keep("makeRematch", client.post("/v1/games/no-such-game/rematch", headers=bearer(token)))
    keep("streamEvents", client.get(f"{game}/events", headers={"Last-Event-ID": "soon"}))
    keep("streamEvents", client.get(f"{game}/events", headers={"Authorization": "Bearer not-a-token"}))
    keep("streamEvents", client.get("/v1/games/no-such-game/events"))
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"}
    keep("playGame", client.get(f"{game}/play", headers=bearer(token)))
    keep("playGame", client.get(f"{game}/play", headers={**upgrade, "Authorization": "Bearer not-a-token"}))
    keep("playGame", client.get("/v1/games/no-such-game/play", headers=upgrade))
    keep("playGame", client.get(f"{game}/play", headers={**upgrade, "Sec-WebSocket-Key": "short"}))

    limited = create_app(make_settings(rate_limit_create="1/minute"), redis=fakeredis.FakeRedis()).test_client()
    limited.post("/v1/games", json=create)
    keep("createGame", limited.post("/v1/games", json=create))
    keep("takeSeat", limited.post(f"/v1/games/{private['id']}/seats/1", json={"name": "Bora"}))
    keep("makeRematch", limited.post(f"/v1/games/{private['id']}/rematch", headers=bearer(token)))
    strict = make_settings(rate_limit_actions="1/minute", rate_limit_hints="1/minute", streams_per_address=1)
    busy_app = create_app(strict, redis=fakeredis.FakeRedis())
    busy = busy_app.test_client()
    seated = busy.post("/v1/games", json=create).get_json()
    there, here = f"/v1/games/{seated['id']}", bearer(seated["tokens"][0]["token"])
    busy.get(f"{there}/hint", headers=here)
    keep("getHint", busy.get(f"{there}/hint", headers=here))
    busy.post(f"{there}/leave", json={}, headers=here)
    keep("leaveGame", busy.post(f"{there}/leave", json={}, headers=here))
    keep("postAction", busy.post(f"{there}/actions", json={"type": "play", "card": "2C"}, headers=here))
    held = busy.get(f"{there}/events")  # an open stream: the address's only one
    keep("streamEvents", busy.get(f"{there}/events"))
    keep("playGame", busy.get(f"{there}/play", headers=upgrade))
    held.close()
    turns = busy_app.extensions["koz_hints"].turns
    for _ in range(busy_app.extensions["koz_hints"].count):
        turns.acquire()  # every turn taken: the next hint waits its second, then gives up
    other = busy.post("/v1/games", json=create).get_json()  # another seat's token: within its hint limit
    keep("getHint", busy.get(f"/v1/games/{other['id']}/hint", headers=bearer(other["tokens"][0]["token"])))

    server = fakeredis.FakeServer()
    down = create_app(make_settings(), redis=fakeredis.FakeRedis(server=server)).test_client()
    server.connected = False
    keep("checkReadiness", down.get("/readyz"))
    keep("createGame", down.post("/v1/games", json=create))
    keep("postAction", down.post(f"{game}/actions", json=legal, headers=bearer(token)))
    keep("makeRematch", down.post(f"{game}/rematch", headers=bearer(token)))
    keep("withdrawGame", down.delete(f"/v1/games/{private['id']}", headers=bearer(token)))
    keep("leaveGame", down.post(f"{game}/leave", json={}, headers=bearer(token)))
    keep("takeSeat", down.post(f"/v1/games/{private['id']}/seats/1", json={"name": "Bora"}))
    keep("getGame", down.get(game, headers=bearer(token)))
    keep("getHistory", down.get(f"{game}/history"))
    keep("streamEvents", down.get(f"{game}/events"))
    keep("playGame", down.get(f"{game}/play", headers={**upgrade, **bearer(token)}))
    keep("listWaitingGames", down.get("/v1/games", query_string={"status": "waiting"}))

    capture_arena(keep, client, too_large)
    capture_challenges(keep, too_large)

    # a POST's body refused before it is read (too large, or not JSON): any POST's
    posted = {
        "createGame": "/v1/games",
        "postAction": f"{game}/actions",
        "takeSeat": f"/v1/games/{private['id']}/seats/1",
        "leaveGame": f"{game}/leave",
        "makeRematch": f"{game}/rematch",
        "createAccount": "/v1/accounts",
        "createSeek": "/v1/arena/seeks",
        "createChallenge": "/v1/arena/challenges",
        "acceptChallenge": "/v1/arena/challenges/no-such-challenge/accept",
        "declineChallenge": "/v1/arena/challenges/no-such-challenge/decline",
    }
    for operation_id, path in posted.items():
        keep(operation_id, client.post(path, data=too_large, headers={"Content-Type": "application/json"}))
        keep(operation_id, client.post(path, data="ruleset=german-whist", headers={"Content-Type": "application/x-www-form-urlencoded"}))

    # what cannot be provoked on the app alone, answered as Koz answers it
    failed = create_app(make_settings(), redis=fakeredis.FakeRedis())
    failed.extensions["koz_embedded"] = types.SimpleNamespace(failed=True)  # its embedded Redis died for good
    keep("checkHealth", failed.test_client().get("/healthz"))
    with app_context_of(client, f"{game}/history"):
        unreadable = Problem(410, "game_unreadable", "game_unreadable", params={"game": repr(created["id"])}).to_json("en")
    for operation_id in ("getGame", "getHistory", "getHint", "postAction", "withdrawGame"):
        examples.setdefault(operation_id, {"responses": {}})["responses"].setdefault("410", unreadable)
    # the refusals of the HTTP server itself, before the app sees a request: any operation's
    examples["*"] = {"responses": {str(status): json.loads(refusal(status, "en").partition(b"\r\n\r\n")[2]) for status in (408, 414, 429, 431)}}
    return examples


def app_context_of(client, path: str):
    """A request context on the app of ``client``, as if ``path`` were asked for."""
    return client.application.test_request_context(path)


if __name__ == "__main__":
    EXAMPLES.write_text(json.dumps(capture(), indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {EXAMPLES}")
