"""``/v1/games/{id}/play``: a seat plays over one WebSocket, its actions in and its views out,
with every guarantee of ``POST /actions``: the same rules, refusals, idempotency and limits."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import fakeredis
import pytest
import websocket
from prometheus_client import REGISTRY
from redis.exceptions import ConnectionError as LostStore

from service import create_app
from service.games import Games
from service.repository import Repository
from service.resources.play import Upgraded, WholeSends, accepted_environ, echoed_id, subprotocol_token
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import make_settings, serving
from tests.test_api_events import store_reads, subscription_up, until_heard

TWO_HUMANS = [{"name": "Ayşe"}, {"name": "Bora"}]


@contextmanager
def app_on_socket(backend: Any = None, **settings: Any) -> Iterator[tuple[Any, FlaskClient, str]]:
    """An app (on ``backend``, else fakeredis) with its worker, on a real socket: (app, HTTP client, ws:// URL)."""
    app = create_app(make_settings(**settings), redis=backend if backend is not None else fakeredis.FakeRedis())
    try:
        with WorkerThread(app.extensions["koz"]), serving(app) as url:
            yield app, FlaskClient(app.test_client()), url.replace("http://", "ws://")
    finally:
        app.extensions["koz"].announcements.stop()


@pytest.fixture
def table(backend):
    """Two humans at German Whist, the app on fakeredis and on a real redis-server:
    (HTTP client, ws:// URL, game id, tokens by seat, the seat to act)."""
    with app_on_socket(backend) as (_, api, url):
        created = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="play")
        tokens = {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
        game_id = created.body["id"]
        (seat,) = api.view(game_id).body["to_act"]
        yield api, url, game_id, tokens, seat


@pytest.fixture
def table_with_quick_heartbeats():
    """:func:`table`'s two humans on an app whose followers wait 0.5 s at most before a heartbeat, on fakeredis."""
    with app_on_socket(stream_heartbeat_seconds=0.5) as (_, api, url):
        created = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="play")
        tokens = {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
        (seat,) = api.view(created.body["id"]).body["to_act"]
        yield api, url, created.body["id"], tokens, seat


def connect(url: str, game_id: str, token: str | None = None, query: str = "", **options: Any) -> websocket.WebSocket:
    header = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return websocket.create_connection(f"{url}/v1/games/{game_id}/play{query}", header=header, timeout=20, **options)


def receive(connection: websocket.WebSocket) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(connection.recv())
    return message


def act(connection: websocket.WebSocket, action: Any, **fields: Any) -> dict[str, Any]:
    """Send an ``act`` and read messages up to its answer (views pushed before it are skipped)."""
    connection.send(json.dumps({"type": "act", "action": action, **fields}))
    while True:
        message = receive(connection)
        if message["type"] in ("acted", "problem"):
            return message


def closing(connection: websocket.WebSocket) -> tuple[list[dict[str, Any]], int, str]:
    """The messages until the server closes the connection, and its close code and reason."""
    messages = []
    while True:
        opcode, data = connection.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return messages, struct.unpack("!H", data[:2])[0], data[2:].decode()
        if opcode == websocket.ABNF.OPCODE_TEXT:
            messages.append(json.loads(data))


def test_a_seat_is_shown_its_view_on_connecting(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    assert receive(connection) == {"type": "view", "view": api.view(game_id, tokens[seat]).body}
    connection.close()


def test_an_act_is_applied_and_answered_with_the_view_a_post_answers(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    view = receive(connection)["view"]
    answer = act(connection, view["legal_actions"][0], id=7)
    assert answer == {"type": "acted", "id": 7, "replayed": False, "view": api.view(game_id, tokens[seat]).body}
    assert answer["view"]["version"] == view["version"] + 1
    played = [event for event in api.history(game_id).body["events"] if event["type"] == "action"]
    assert [(event["seat"], event["action"]) for event in played] == [(seat, view["legal_actions"][0])]
    connection.close()


def test_another_seats_move_is_pushed_as_a_view_that_shows_only_this_seats_hand(table):
    api, url, game_id, tokens, seat = table
    other = 1 - seat
    connection = connect(url, game_id, tokens[other])
    first = receive(connection)["view"]
    mover_view = api.view(game_id, tokens[seat]).body
    assert api.act(game_id, mover_view["legal_actions"][0], tokens[seat]).status == 200
    pushed = receive(connection)
    assert pushed == {"type": "view", "view": api.view(game_id, tokens[other]).body}
    assert pushed["view"]["version"] == first["version"] + 1
    assert pushed["view"]["hand"] == first["hand"] and not set(pushed["view"]["hand"]) & set(mover_view["hand"])
    connection.close()


def test_a_computers_reply_that_comes_after_the_answer_is_pushed():
    with app_on_socket(reply_wait_seconds=0) as (_, api, url):
        for number in range(40):  # a deal the person leads, so that the expert replies on the worker
            created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "expert"}], seed=f"reply-{number}").body
            token = created["tokens"][0]["token"]
            if api.view(created["id"], token).body["to_act"] == [0]:
                break
        connection = connect(url, created["id"], token)
        view = receive(connection)["view"]
        answered = act(connection, view["legal_actions"][0])["view"]
        assert answered["version"] == view["version"] + 1 and not answered["legal_actions"]  # the answer came before the reply
        pushed = receive(connection)["view"]
        while not pushed["legal_actions"]:  # the expert won the trick and leads the next
            pushed = receive(connection)["view"]
        assert pushed == api.view(created["id"], token).body and pushed["version"] >= view["version"] + 2
        connection.close()


def test_a_spectator_is_shown_the_views_and_may_not_act(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id)
    view = receive(connection)["view"]
    assert view == api.view(game_id).body and view["seat"] is None and not view.get("hand")
    refused = act(connection, {"type": "play", "card": api.view(game_id, tokens[seat]).body["hand"][0]})
    assert (refused["problem"]["status"], refused["problem"]["code"]) == (401, "missing_token")
    assert api.view(game_id).body["version"] == view["version"]
    connection.close()


def test_an_illegal_act_is_refused_with_the_rule_it_breaks_and_the_connection_plays_on(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    view = receive(connection)["view"]
    not_held = next(card for card in ("AS", "KS", "AH", "KH", "AD") if card not in view["hand"])
    counted = REGISTRY.get_sample_value("koz_refusals_total", {"code": "card_not_in_hand"}) or 0
    refused = act(connection, {"type": "play", "card": not_held}, id="m-1")
    assert refused["type"] == "problem" and refused["id"] == "m-1"
    assert REGISTRY.get_sample_value("koz_refusals_total", {"code": "card_not_in_hand"}) == counted + 1  # counted as a refused request is
    posted = api.act(game_id, {"type": "play", "card": not_held}, tokens[seat]).body
    assert refused["problem"] == posted | {"instance": f"/v1/games/{game_id}/play"}
    assert refused["problem"]["code"] == "card_not_in_hand" and refused["problem"]["legal_actions"] == view["legal_actions"]
    assert api.view(game_id).body["version"] == view["version"]
    assert act(connection, view["legal_actions"][0])["type"] == "acted"
    connection.close()


def test_acting_out_of_turn_is_refused_409(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[1 - seat])
    hand = receive(connection)["view"]["hand"]
    refused = act(connection, {"type": "play", "card": hand[0]})
    assert (refused["problem"]["status"], refused["problem"]["code"]) == (409, "not_your_turn")
    connection.close()


@pytest.mark.parametrize(
    "message, status, code",
    [
        ("not json", 400, "malformed_json"),
        ("[1, 2]", 400, "invalid_request"),
        ('{"type": "pass_me", "action": {"type": "pass"}}', 400, "invalid_request"),
        ('{"type": "act"}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "fly"}}', 400, "invalid_request"),
        ('{"type": "act", "action": "2C"}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "2C"}, "version": -1}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "2C"}, "version": 0.5}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "2C"}, "version": "0"}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "2C"}, "key": ""}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "2C"}, "id": [1]}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "2C"}, "extra": 1}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "ZZ"}}', 400, "invalid_request"),
        ('{"type": "act", "action": {"type": "play", "card": "\\ud800"}}', 400, "invalid_text"),
        ('{"type": "act", "action": {"type": "play", "card": "2C"}, "version": 1' + "0" * 30 + "}", 400, "number_too_large"),
        ('{"type": "act", "action": ' + "[" * 20 + "]" * 20 + "}", 400, "json_too_deep"),
    ],
)
def test_a_malformed_message_is_refused_with_its_code_and_changes_nothing(table, message, status, code):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    version = receive(connection)["view"]["version"]
    connection.send(message)
    refused = receive(connection)
    assert refused["type"] == "problem" and (refused["problem"]["status"], refused["problem"]["code"]) == (status, code)
    assert refused["id"] is None  # none that may be echoed was sent
    if code == "invalid_request":  # the field at fault is named, the action's own under `action`
        assert set(refused["problem"]["errors"]) <= {"_schema", "type", "action", "version", "key", "id", "extra"}
        assert '"fly"' not in message or list(refused["problem"]["errors"]) == ["action"]
    assert api.view(game_id).body["version"] == version
    connection.close()


@pytest.mark.parametrize(
    "language, said", [("en", "a string or an integer of at most 200 characters"), ("tr", "en çok 200 karakterlik bir metin ya da tam sayı")]
)
def test_a_message_s_refused_id_is_said_in_the_connection_s_language(table, language, said):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat], query=f"?lang={language}")
    receive(connection)
    connection.send(json.dumps({"type": "act", "action": {"type": "play", "card": "2C"}, "id": True}))
    problem = receive(connection)["problem"]
    assert (problem["code"], problem["errors"]) == ("invalid_request", {"id": [said]})
    assert problem["detail"].endswith(f"'id': {said}")
    connection.close()


def test_a_refused_messages_id_is_echoed_when_it_is_one_that_may_be():
    bodies = ({"id": "a"}, {"id": 3}, {"id": True}, {"id": [1]}, {"id": "x" * 200}, {"id": "x" * 201}, {}, [1])
    assert [echoed_id(body) for body in bodies] == ["a", 3, None, None, "x" * 200, None, None, None]


def test_a_binary_message_is_read_as_its_json_text(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    action = receive(connection)["view"]["legal_actions"][0]
    connection.send_binary(json.dumps({"type": "act", "action": action}).encode())
    assert receive(connection)["type"] == "acted"
    connection.send_binary(b"\xff\xfe")
    assert receive(connection)["problem"]["code"] == "malformed_json"
    connection.close()


def test_an_act_decided_on_a_version_the_game_moved_past_is_refused_412(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    decided_on = receive(connection)["view"]
    connection.close()
    api.act(game_id, decided_on["legal_actions"][0], tokens[seat])
    (other,) = api.view(game_id).body["to_act"]
    connection = connect(url, game_id, tokens[other])
    view = receive(connection)["view"]
    refused = act(connection, view["legal_actions"][0], version=decided_on["version"])
    problem = refused["problem"]
    assert (problem["status"], problem["code"], problem["current_version"]) == (412, "stale_version", view["version"])
    assert problem["detail"] == f"the game is at version {view['version']}, not the one the act was decided on"
    assert api.view(game_id).body["version"] == view["version"]
    assert act(connection, view["legal_actions"][0], version=view["version"])["type"] == "acted"
    connection.close()


def test_an_act_whose_commit_another_came_before_is_refused_412_at_the_version_the_store_holds(backend, monkeypatch):
    """The act is decided on the version the connection showed, and the game read to change is at
    that version; another commit comes first (as if just after the read): the compare-and-set
    fails, and the act is refused as over HTTP with If-Match, saying the game moved on."""
    with app_on_socket(backend) as (app, api, url):
        created = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="play")
        tokens = {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
        game_id = created.body["id"]
        (seat,) = api.view(game_id).body["to_act"]
        connection = connect(url, game_id, tokens[seat])
        view = receive(connection)["view"]
        koz = app.extensions["koz"]
        before = koz.store.load(game_id)
        moved = api.act(game_id, view["legal_actions"][0], tokens[seat]).body["version"]
        monkeypatch.setattr(koz.repository, "load_to_change", lambda loaded_id: (koz.repository.from_stored(loaded_id, before), True))
        problem = act(connection, view["legal_actions"][0], version=view["version"])["problem"]
        assert (problem["status"], problem["code"], problem["current_version"]) == (412, "stale_version", moved)
        assert problem["detail"] == f"the game moved on to version {moved} meanwhile"
        assert api.view(game_id).body["version"] == moved
        connection.close()


def test_an_act_sent_again_with_its_key_is_answered_as_the_first_and_applied_once(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    legal = receive(connection)["view"]["legal_actions"]
    first = act(connection, legal[0], key="move-1")
    again = act(connection, legal[0], key="move-1")
    assert (first["replayed"], again["replayed"], again["view"]) == (False, True, first["view"])
    # the same key over HTTP is the same key
    posted = api.act(game_id, legal[0], tokens[seat], **{"Idempotency-Key": "move-1"})
    assert posted.headers["Idempotent-Replayed"] == "true" and posted.body == first["view"]
    assert (act(connection, legal[1], key="move-1")["problem"]["code"]) == "idempotency_key_reused"
    assert len([event for event in api.history(game_id).body["events"] if event["type"] == "action"]) == 1
    connection.close()


def test_the_match_over_is_shown_revealed_and_the_connection_closed():
    with app_on_socket() as (_, api, url):
        created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "random"}], seed="to-the-end").body
        token = created["tokens"][0]["token"]
        connection = connect(url, created["id"], token)
        view = receive(connection)["view"]
        while view["status"] == "active":
            if not view["legal_actions"]:
                view = receive(connection)["view"]
                continue
            view = act(connection, view["legal_actions"][0])["view"]
        messages, code, reason = closing(connection)
        assert view == api.view(created["id"], token).body and view["status"] == "finished"
        history = api.history(created["id"], token).body
        assert messages == [{"type": "reveal", "version": view["version"], "reveal": history["reveal"]}]
        assert (code, reason) == (1000, "the match is over")


def test_a_match_that_is_over_is_shown_and_revealed_at_once_on_connecting(table):
    api, url, game_id, tokens, seat = table
    for entry_seat, token in tokens.items():
        api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=token)
    final = api.finished_view(game_id)
    messages, code, reason = closing(connect(url, game_id))
    assert [message["type"] for message in messages] == ["view", "reveal"] and messages[0]["view"] == final
    assert (code, reason) == (1000, "the match is over")


def history_and_views(connection: websocket.WebSocket, until: int) -> list[dict[str, Any]]:
    """The messages up to the view (pushed, or an act's answer) of version ``until``."""
    messages = []
    while not messages or messages[-1].get("view", {}).get("version") != until:
        messages.append(receive(connection))
    return messages


def check_history_before_views(messages: list[dict[str, Any]], after: int) -> list[dict[str, Any]]:
    """Each version's history comes once, in order, before the view that shows it: the events."""
    events, history_after = [], after
    for message in messages:
        if message["type"] == "history":
            assert message["version"] > history_after and all(event["version"] == message["version"] for event in message["events"])
            history_after = message["version"]
            events += message["events"]
        else:
            assert message["view"]["version"] <= history_after, "a view came before its version's history"
    return events


def test_with_after_each_versions_history_comes_before_the_view_that_shows_it_as_get_history_shows_it(table):
    api, url, game_id, tokens, seat = table
    other = 1 - seat
    connection = connect(url, game_id, tokens[seat], "?after=-1")
    messages = history_and_views(connection, 0)
    for _ in range(8):  # this seat's moves over the socket, the other's over HTTP: four tricks
        view = messages[-1]["view"]
        if view["legal_actions"]:
            connection.send(json.dumps({"type": "act", "action": view["legal_actions"][0]}))
            messages += history_and_views(connection, view["version"] + 1)
            assert messages[-1]["type"] == "acted"
        else:
            theirs = api.view(game_id, tokens[other]).body
            assert api.act(game_id, theirs["legal_actions"][0], tokens[other]).status == 200
            messages += history_and_views(connection, theirs["version"] + 1)
            assert messages[-1]["type"] == "view"
    events = check_history_before_views(messages, -1)
    assert events == api.history(game_id, tokens[seat]).body["events"]  # the seat's own: the other's hand is not in it
    assert events != api.history(game_id, tokens[other]).body["events"]
    connection.close()


def test_without_after_no_history_is_sent_and_with_it_only_the_history_after_that_version(table):
    api, url, game_id, tokens, seat = table
    view = api.view(game_id, tokens[seat]).body
    assert api.act(game_id, view["legal_actions"][0], tokens[seat]).status == 200
    plain = connect(url, game_id, tokens[seat])
    assert receive(plain)["type"] == "view"
    plain.close()
    resumed = connect(url, game_id, tokens[seat], "?after=0")
    messages = history_and_views(resumed, 1)
    assert [message["type"] for message in messages] == ["history", "view"]
    assert messages[0]["events"] == api.history(game_id, tokens[seat], "?after=0").body["events"] and messages[0]["version"] == 1
    resumed.close()


@pytest.mark.parametrize("after", ["-2", "one", "1.5", "100000001"])
def test_an_after_that_is_not_a_version_is_refused_400_before_the_upgrade(client, after):
    game_id = client.post("/v1/games", json={"ruleset": "german-whist", "seats": TWO_HUMANS}).get_json()["id"]
    answer = client.get(f"/v1/games/{game_id}/play?after={after}", headers=upgrade_headers())
    assert (answer.status_code, answer.get_json()["code"]) == (400, "invalid_request")
    assert "after" in json.dumps(answer.get_json())


def test_the_seat_token_may_come_as_a_subprotocol_from_a_browser(table):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, subprotocols=["koz.v1", f"koz.bearer.{tokens[seat]}"])
    assert connection.getsubprotocol() == "koz.v1"
    assert receive(connection)["view"] == api.view(game_id, tokens[seat]).body
    assert act(connection, api.view(game_id, tokens[seat]).body["legal_actions"][0])["type"] == "acted"
    connection.close()


def test_only_a_subprotocol_that_names_a_token_is_read_as_one():
    assert subprotocol_token("koz.v1, koz.bearer.abc") == "abc"
    assert subprotocol_token("koz.v1, koz.bearer.") is None  # the prefix alone names none
    assert subprotocol_token("koz.v1, graphql-transport-ws") is None  # nor does a longer protocol of another kind
    assert subprotocol_token("koz.v1") is None


def test_an_upgrade_is_taken_on_the_servers_socket_made_to_send_whole_and_with_no_extension():
    for key in ("gunicorn.socket", "werkzeug.socket"):
        sent: list[bytes] = []

        class Socket:
            def sendall(self, data: bytes) -> None:
                sent.append(data)

        environ = {key: Socket(), "HTTP_SEC_WEBSOCKET_EXTENSIONS": "permessage-deflate", "PATH_INFO": "/v1/games/x/play"}
        accepted = accepted_environ(environ)
        assert isinstance(accepted[key], WholeSends) and "HTTP_SEC_WEBSOCKET_EXTENSIONS" not in accepted
        assert accepted["PATH_INFO"] == environ["PATH_INFO"] and "HTTP_SEC_WEBSOCKET_EXTENSIONS" in environ  # a copy
        assert accepted[key].send(b"frame") == 5 and sent == [b"frame"]


def test_an_upgraded_connection_is_ended_as_its_server_ends_one():
    """gunicorn ends a connection whose app stops iterating; Werkzeug's server drops it on an
    error, once the socket is shut (else it would read what the client sends next as a request)."""
    with pytest.raises(StopIteration):
        Upgraded("gunicorn")({}, None)
    shut: list[int] = []

    class Socket:
        def shutdown(self, how: int) -> None:
            shut.append(how)

    with pytest.raises(ConnectionError):
        Upgraded("werkzeug")({"werkzeug.socket": Socket()}, None)
    assert shut == [socket.SHUT_RDWR]


def test_an_act_on_a_game_this_process_committed_last_reads_nothing_of_it_from_the_store(monkeypatch):
    with app_on_socket() as (app, api, url):
        koz = app.extensions["koz"]
        subscription_up(koz)
        created = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="play").body
        game_id, tokens = created["id"], {entry["seat"]: entry["token"] for entry in created["tokens"]}
        (leader,) = api.view(game_id).body["to_act"]
        follower = 1 - leader
        connection = connect(url, game_id, tokens[follower])
        receive(connection)
        led = api.act(game_id, api.view(game_id, tokens[leader]).body["legal_actions"][0], tokens[leader]).body
        view = receive(connection)["view"]  # the lead, pushed
        until_heard(koz, game_id, led["version"])
        reads = store_reads(koz, monkeypatch)
        assert act(connection, view["legal_actions"][0])["type"] == "acted"
        connection.send("not json")  # answered once the act's answer is done with, whatever it did after sending
        assert receive(connection)["problem"]["code"] == "malformed_json"
        assert reads == []
        connection.close()


def test_compression_is_not_taken_up():
    with app_on_socket() as (_, api, url):
        game_id = api.create(ruleset="german-whist", seats=TWO_HUMANS).body["id"]
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            raw.sendall(
                f"GET /v1/games/{game_id}/play HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n".encode()
            )
            head = b""
            while b"\r\n\r\n" not in head:
                head += raw.recv(4096)
        assert head.startswith(b"HTTP/1.1 101") and b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head
        assert b"sec-websocket-extensions" not in head.lower()


def upgrade_headers(**extra: str) -> dict[str, str]:
    return {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13", **extra}


def test_a_get_without_the_upgrade_is_answered_426_in_the_asked_language(client):
    game_id = client.post("/v1/games", json={"ruleset": "german-whist", "seats": TWO_HUMANS}).get_json()["id"]
    answer = client.get(f"/v1/games/{game_id}/play", headers={"Accept-Language": "tr"})
    assert (answer.status_code, answer.get_json()["code"]) == (426, "upgrade_required")
    assert (answer.headers["Upgrade"], answer.headers["Connection"]) == ("websocket", "Upgrade")  # what 426 must name (RFC 9110)
    assert answer.get_json()["title"] == "Yükseltme gerekli" and answer.get_json()["detail"].startswith("bu adreste \"Connection: Upgrade\"")


def test_an_upgrade_to_another_protocol_is_told_to_ask_for_the_websocket(client):
    game_id = client.post("/v1/games", json={"ruleset": "german-whist", "seats": TWO_HUMANS}).get_json()["id"]
    answer = client.get(f"/v1/games/{game_id}/play", headers={"Connection": "Upgrade", "Upgrade": "h2c"})
    assert (answer.status_code, answer.get_json()["code"]) == (426, "upgrade_required")


@pytest.mark.parametrize("connection, upgrade", [("Upgrade", "websocket"), ("keep-alive, Upgrade", "WebSocket")])
def test_a_websocket_asked_of_an_address_that_has_none_is_a_malformed_request_not_told_to_upgrade(client, connection, upgrade):
    answer = client.get("/v1/rulesets", headers={"Connection": connection, "Upgrade": upgrade})
    assert (answer.status_code, answer.get_json()["code"]) == (400, "malformed_request")


def test_an_unknown_game_or_token_is_refused_before_the_upgrade(client):
    game_id = client.post("/v1/games", json={"ruleset": "german-whist", "seats": TWO_HUMANS}).get_json()["id"]
    unknown = client.get("/v1/games/no-such-game/play", headers=upgrade_headers())
    bad_token = client.get(f"/v1/games/{game_id}/play", headers=upgrade_headers(Authorization="Bearer not-a-token"))
    bad_protocol_token = client.get(f"/v1/games/{game_id}/play", headers=upgrade_headers(**{"Sec-WebSocket-Protocol": "koz.v1, koz.bearer.nope"}))
    assert [(answer.status_code, answer.get_json()["code"]) for answer in (unknown, bad_token, bad_protocol_token)] == [
        (404, "unknown_game"),
        (401, "invalid_token"),
        (401, "invalid_token"),
    ]


def test_acts_are_counted_with_the_posted_actions_against_the_seats_rate_limit():
    with app_on_socket(rate_limit_actions="1/minute") as (_, api, url):
        created = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="limited").body
        tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
        game_id = created["id"]
        (seat,) = api.view(game_id).body["to_act"]
        assert api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat]).status == 200
        mover = connect(url, game_id, tokens[seat])
        refused = act(mover, {"type": "play", "card": receive(mover)["view"]["hand"][0]})
        assert (refused["problem"]["status"], refused["problem"]["code"]) == (429, "rate_limited")  # its posted action counted
        assert 1 <= refused["retry_after"] <= 60  # as Retry-After says over HTTP: within the minute
        # the other seat's count is its own
        other = connect(url, game_id, tokens[1 - seat])
        view = receive(other)["view"]
        assert act(other, view["legal_actions"][0])["type"] == "acted"
        assert act(other, {"type": "play", "card": view["hand"][0]})["problem"]["code"] == "rate_limited"
        mover.close()
        other.close()


@contextmanager
def watching(**settings: Any) -> Iterator[tuple[str, str, websocket.WebSocket]]:
    """A spectator's connection to a new game, its first view read, on an app with ``settings``: (ws:// URL, game id, connection)."""
    with app_on_socket(**settings) as (_, api, url):
        game_id = api.create(ruleset="german-whist", seats=TWO_HUMANS).body["id"]
        connection = connect(url, game_id)
        receive(connection)
        yield url, game_id, connection


def test_connections_past_the_addresses_cap_are_refused_429():
    with watching(streams_per_address=1) as (url, game_id, held):
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            connect(url, game_id)
        assert refused.value.status_code == 429 and json.loads(refused.value.resp_body)["code"] == "too_many_streams"
        held.close()


def test_a_message_over_the_body_limit_closes_the_connection_1009():
    with watching(max_body_bytes=1024) as (_, _, connection):
        connection.send(json.dumps({"type": "act", "action": {"type": "play", "card": "2C"}, "key": "k" * 2000}))
        assert closing(connection)[:2] == ([], 1009)


def test_a_connection_is_closed_1001_at_its_time_limit_to_be_made_again():
    with watching(stream_max_seconds=0.5, stream_heartbeat_seconds=0.2) as (_, _, connection):
        assert closing(connection) == ([], 1001, "the connection's time is up")


def test_what_a_client_sends_after_the_close_is_not_read_as_another_request():
    with watching(stream_max_seconds=0.5, stream_heartbeat_seconds=0.2) as (_, _, connection):
        assert closing(connection)[1] == 1001
        connection.sock.settimeout(5)
        connection.sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # a client late to see the close
        assert connection.sock.recv(4096) == b""  # the server shut the socket: no answer, 400 or other


def test_the_follower_of_a_closed_connection_ends(table):
    api, url, game_id, tokens, seat = table
    before = {thread.name for thread in threading.enumerate()}
    connection = connect(url, game_id, tokens[seat])
    receive(connection)
    assert f"play {game_id}" in {thread.name for thread in threading.enumerate()} - before
    connection.close()
    api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat])  # wakes it
    for _ in range(200):
        if f"play {game_id}" not in {thread.name for thread in threading.enumerate()}:
            break
        threading.Event().wait(0.05)
    else:
        raise AssertionError("the closed connection's follower is still running")


def test_an_act_the_store_failed_is_refused_503_and_the_connection_plays_on(table, monkeypatch):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    view = receive(connection)["view"]
    real_act = Games.act

    def store_lost(*args, **kwargs):
        raise LostStore("the store is gone")

    monkeypatch.setattr(Games, "act", store_lost)
    refused = act(connection, view["legal_actions"][0])
    assert (refused["problem"]["status"], refused["problem"]["code"]) == (503, "storage_unavailable")
    monkeypatch.setattr(Games, "act", real_act)
    assert act(connection, view["legal_actions"][0])["type"] == "acted"
    connection.close()


def test_a_fault_in_an_act_closes_the_connection_1011_and_answers_no_http(table, monkeypatch):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[seat])
    view = receive(connection)["view"]

    def fault(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(Games, "act", fault)
    connection.send(json.dumps({"type": "act", "action": view["legal_actions"][0]}))
    assert closing(connection) == ([], 1011, "server error")


@pytest.mark.parametrize(
    "error, code, reason",
    [(LostStore("the store is gone"), 1013, "storage unavailable"), (RuntimeError("a bug"), 1011, "server error")],
    ids=["store lost: come back later", "a fault"],
)
def test_a_failure_while_following_closes_the_connection_with_its_code(table, monkeypatch, error, code, reason):
    api, url, game_id, tokens, seat = table
    connection = connect(url, game_id, tokens[1 - seat])
    receive(connection)

    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr(Repository, "load_announced", failing)
    api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat])  # wakes the follower
    assert closing(connection) == ([], code, reason)


def test_a_move_after_heartbeats_with_none_is_pushed_all_the_same(table_with_quick_heartbeats):
    api, url, game_id, tokens, seat = table_with_quick_heartbeats
    connection = connect(url, game_id, tokens[1 - seat])
    receive(connection)
    connection.settimeout(0.2)
    quiet_until = time.monotonic() + 1.2
    while time.monotonic() < quiet_until:  # two heartbeats and no move: only pings come, each answered
        try:
            assert connection.recv_data(control_frame=True)[0] == websocket.ABNF.OPCODE_PING
        except websocket.WebSocketTimeoutException:
            pass
    connection.settimeout(20)
    moved = api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat]).body
    pushed_by = time.monotonic() + 10
    while (frame := connection.recv_data(control_frame=True))[0] == websocket.ABNF.OPCODE_PING:
        assert time.monotonic() < pushed_by, "the move was never pushed"
    assert json.loads(frame[1])["view"]["version"] == moved["version"]
    connection.close()


def test_an_upgrade_no_websocket_can_be_accepted_from_is_refused_before_it_is_tried(client):
    game_id = client.post("/v1/games", json={"ruleset": "german-whist", "seats": TWO_HUMANS}).get_json()["id"]
    play = f"/v1/games/{game_id}/play"
    old_version = client.get(play, headers=upgrade_headers(**{"Sec-WebSocket-Version": "8"}))
    assert (old_version.status_code, old_version.get_json()["code"], old_version.headers["Sec-WebSocket-Version"]) == (426, "upgrade_required", "13")
    assert (old_version.headers["Upgrade"], old_version.headers["Connection"]) == ("websocket", "Upgrade")  # what 426 must name (RFC 9110)
    without_key = {name: value for name, value in upgrade_headers().items() if name != "Sec-WebSocket-Key"}
    for headers in [without_key] + [upgrade_headers(**{"Sec-WebSocket-Key": key}) for key in ("", "not base64!", "c2hvcnQ=")]:
        bad_key = client.get(play, headers=headers)  # no key, an empty one, not base64, 5 bytes
        assert (bad_key.status_code, bad_key.get_json()["code"]) == (400, "invalid_request")
        assert bad_key.get_json()["detail"] == 'the connection\'s upgrade is malformed: its "Sec-WebSocket-Key" header is missing or wrong'
    no_connection_upgrade = client.get(play, headers={key: value for key, value in upgrade_headers().items() if key != "Connection"})
    assert (no_connection_upgrade.status_code, no_connection_upgrade.get_json()["code"]) == (426, "upgrade_required")


def test_a_stopping_process_closes_its_connections_1001_at_once():
    with app_on_socket(stream_heartbeat_seconds=30) as (app, api, url):
        game_id = api.create(ruleset="german-whist", seats=TWO_HUMANS).body["id"]
        connection = connect(url, game_id)
        receive(connection)
        app.extensions["koz"].announcements.close()  # as on SIGTERM
        connection.settimeout(5)  # well within the heartbeat: the stop is not waited for
        opcode, data = connection.recv_data(control_frame=True)
        assert (opcode, data) == (websocket.ABNF.OPCODE_CLOSE, struct.pack("!H", 1001) + b"the server is stopping")
