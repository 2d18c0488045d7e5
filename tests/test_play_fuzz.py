"""The play socket under generated messages (hypothesis): whatever a client sends, each message is
answered ``acted`` or with a problem whose status is a 4xx, with a stable code and a reason,
never with a fault (a close, 1011) or a 5xx; a refused message changes nothing, and the connection
plays on after it. A person plays German Whist against the random computer, which replies within
the act, so that the person is to act again after each move."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest
import websocket
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.cards import FULL_DECK
from tests.api import FlaskClient
from tests.test_api_play import app_on_socket, connect, receive

#: stand for the first of the seat's legal actions, and the version it was shown at, read when the message is sent
LEGAL, SHOWN = object(), object()

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
card_codes = st.sampled_from([str(card) for card in FULL_DECK] + ["2c", "1S", "10H", ""])
actions = st.one_of(
    st.just(LEGAL),
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["play", "bid", "pass", "trump", "marriage", "exchange", "close", "dance"]) | json_values},
        optional={"card": card_codes | json_values, "value": st.integers(0, 14) | json_values, "suit": st.sampled_from("CDHSX") | json_values},
    ),
)
optional_fields = {
    "version": st.sampled_from([SHOWN, SHOWN, 0, 1]) | json_values,
    "key": st.sampled_from(["k1", "k1", "k2"]) | json_values,
    "id": st.integers(0, 9) | st.text(max_size=4) | json_values,
}
#: an act as a client means it (its action often the legal one), its other fields right or not
acts = st.fixed_dictionaries({"type": st.just("act"), "action": st.just(LEGAL) | actions}, optional=optional_fields)
#: anything shaped roughly like an act: another type, a field missing or one too many
act_likes = st.fixed_dictionaries({"type": st.just("act") | json_values}, optional={"action": actions, "extra": json_values, **optional_fields})
#: what a frame carries: a JSON message (mostly an act or shaped like one), or text or bytes of any kind
frames = st.one_of(
    acts.map(lambda message: ("json", message)),
    acts.map(lambda message: ("json", message)),
    act_likes.map(lambda message: ("json", message)),
    json_values.map(lambda message: ("json", message)),
    st.text(max_size=24).map(lambda text: ("text", text)),
    st.binary(max_size=24).map(lambda data: ("binary", data)),
)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[FlaskClient, str]]:
    # each example's connection is closed, but its place in the address's cap is given back a
    # moment later (its threads end): the cap is not what is fuzzed here
    with app_on_socket(streams_per_address=100_000) as (_, api, url):
        yield api, url


def resolved(value: Any, view: dict[str, Any]) -> Any:
    """``value`` with :data:`LEGAL` and :data:`SHOWN` replaced by what ``view`` shows."""
    if value is LEGAL:
        return view["legal_actions"][0]
    if value is SHOWN:
        return view["version"]
    if isinstance(value, dict):
        return {key: resolved(inner, view) for key, inner in value.items()}
    return value


def answer_to(connection: websocket.WebSocket) -> dict[str, Any]:
    """The answer to the message just sent (views pushed before it skipped); a close fails the test."""
    while True:
        opcode, data = connection.recv_data(control_frame=True)
        assert opcode != websocket.ABNF.OPCODE_CLOSE, f"the server closed the connection: {data!r}"
        if opcode in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
            message: dict[str, Any] = json.loads(data)
            if message["type"] in ("acted", "problem"):
                return message


@given(sent=st.lists(frames, min_size=1, max_size=4))
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_message_faults_the_play_socket_and_a_refused_one_changes_nothing(served, sent):
    api, url = served
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "random"}], seed="socket-fuzz").body
    game_id, token = created["id"], created["tokens"][0]["token"]
    connection = connect(url, game_id, token)
    try:
        view = receive(connection)["view"]
        for kind, payload in sent:
            before = api.view(game_id).body["version"]
            if kind == "json":
                payload = resolved(payload, view)
                connection.send(json.dumps(payload))
            elif kind == "text":
                connection.send(payload)
            else:
                connection.send_binary(payload)
            answer = answer_to(connection)
            if answer["type"] == "acted":
                assert answer["view"]["version"] > before or answer["replayed"]
                view = answer["view"]
            else:
                problem = answer["problem"]
                assert 400 <= problem["status"] < 500 and re.fullmatch("[a-z]+(_[a-z]+)*", problem["code"]) and problem["detail"], problem
                assert api.view(game_id).body["version"] == before
            if view["status"] != "active":
                return
        assert answer_to_a_legal_act(connection, view)["type"] == "acted"  # it plays on
    finally:
        connection.close()


def answer_to_a_legal_act(connection: websocket.WebSocket, view: dict[str, Any]) -> dict[str, Any]:
    connection.send(json.dumps({"type": "act", "action": view["legal_actions"][0], "version": view["version"]}))
    return answer_to(connection)
