"""Rules of the table that hold with no worker to enforce them: a late action meets its own
timeout (and so does a seat leaving or taken back after a deadline), a seat that left does not
act until it is taken back, and asking again for a rematch or a seat answers what the first ask
got."""

from __future__ import annotations

import time

import fakeredis
import pytest

from service import create_app
from tests.api import FlaskClient, SocketClient
from tests.conftest import drain, make_settings
from tests.test_api_clocks import Clock
from tests.test_serve import Service


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(clock):
    """The app with no worker: nothing enforces a clock or moves a computer unless a request does
    (or the test drains the queue)."""
    app = create_app(make_settings(), redis=fakeredis.FakeRedis())
    app.extensions["koz"].timer = clock
    yield app
    app.extensions["koz"].announcements.stop()


@pytest.fixture
def api(app):
    return FlaskClient(app.test_client())


def two_humans(api, **extra):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="table-rules", **extra)
    assert created.status == 201, created.body
    game_id = created.body["id"]
    tokens = {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
    (seat,) = api.view(game_id).body["to_act"]
    return game_id, tokens, seat


def events(api, game_id, token=None):
    return [{key: value for key, value in event.items() if key != "version"} for event in api.whole_history(game_id, token)["events"]]


# --- a late action meets its own timeout ---------------------------------------------------------


@pytest.mark.parametrize("late", [0.1, 0.45, 3.0])
def test_an_action_after_the_deadline_applies_the_timeout_and_is_refused(api, clock, late):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30})
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    clock.now += 30 + late
    answer = api.act(game_id, action, tokens[seat])
    assert (answer.status, answer.code) == (409, "deadline_passed")
    history = events(api, game_id)
    timeout = history.index({"type": "timeout", "seat": seat, "on_timeout": "computer"})
    assert history[timeout + 1]["type"] == "action" and history[timeout + 1]["seat"] == seat  # the computer's one action
    view = api.view(game_id, tokens[seat]).body
    assert view["to_act"] == [1 - seat] and view["version"] == 2


@pytest.mark.parametrize("workers", ["0", "1"])
def test_koz_serve_refuses_a_late_action_with_or_without_a_worker(tmp_path, workers):
    service = Service(tmp_path / "koz-data", "--workers", workers)
    try:
        api = SocketClient(service.url)
        game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 1, "on_timeout": "forfeit"})
        action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
        time.sleep(1.1)  # past the deadline, and a worker's clock check (every half second) may not have come yet
        answer = api.act(game_id, action, tokens[seat])
        # the late request applied the timeout itself, or a worker had just applied it
        assert (answer.status, answer.code) in ((409, "deadline_passed"), (409, "game_over"))
        view = api.view(game_id).body
        assert (view["status"], view["winners"]) == ("forfeited", [1 - seat])
        if workers == "0":  # nothing but the request could have applied it
            assert answer.code == "deadline_passed"
        api.close()
    finally:
        service.stop()


def test_an_action_after_a_forfeit_deadline_forfeits_the_match(api, clock):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30, "on_timeout": "forfeit"})
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    clock.now += 33
    answer = api.act(game_id, action, tokens[seat])
    assert (answer.status, answer.code) == (409, "deadline_passed")
    view = api.view(game_id).body
    assert (view["status"], view["winners"]) == ("forfeited", [1 - seat])
    assert {"type": "timeout", "seat": seat, "on_timeout": "forfeit", "winners": [1 - seat]} in events(api, game_id)


def test_leaving_after_a_forfeit_deadline_forfeits_the_match_and_the_leave_is_refused(api, clock):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30, "on_timeout": "forfeit"})
    clock.now += 31
    answer = api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=tokens[seat])
    assert (answer.status, answer.code) == (409, "game_over")
    view = api.view(game_id).body
    assert (view["status"], view["winners"]) == ("forfeited", [1 - seat])
    assert not [event for event in events(api, game_id) if event["type"] == "left"]


def test_the_other_seat_leaving_after_the_deadline_applies_the_timeout_then_leaves(api, clock):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30})
    clock.now += 31
    answer = api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=tokens[1 - seat])
    assert answer.status == 200, answer.body
    kinds = [(event["type"], event.get("seat")) for event in events(api, game_id) if event["type"] in ("timeout", "left")]
    assert kinds == [("timeout", seat), ("left", 1 - seat)]


def test_taking_a_seat_back_after_the_other_seats_deadline_applies_its_timeout_first(api, clock):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30})
    other = 1 - seat
    assert api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=tokens[other]).status == 200
    clock.now += 31
    assert api.request("POST", f"/v1/games/{game_id}/seats/{other}", json_body={}, token=tokens[other]).status == 200
    kinds = [(event["type"], event.get("seat")) for event in events(api, game_id) if event["type"] in ("left", "timeout", "rejoined")]
    assert kinds == [("left", other), ("timeout", seat), ("rejoined", other)]


def test_leaving_in_time_applies_no_timeout(api, clock):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30, "on_timeout": "forfeit"})
    clock.now += 29.9
    answer = api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=tokens[seat])
    assert answer.status == 200, answer.body
    assert not [event for event in events(api, game_id) if event["type"] == "timeout"]


def test_an_action_in_time_is_applied(api, clock):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30})
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    clock.now += 29.9
    assert api.act(game_id, action, tokens[seat]).status == 200
    assert not [event for event in events(api, game_id) if event["type"] == "timeout"]


def test_the_other_seat_acting_after_the_deadline_applies_the_timeout_then_its_own_action(api, clock):
    game_id, tokens, seat = two_humans(api, clock={"seconds_per_action": 30})
    clock.now += 31
    # the late seat's turn is played by the computer first: then it is the other seat's turn
    after_timeout = api.act(game_id, {"type": "play", "card": "2C"}, tokens[1 - seat])
    assert after_timeout.code != "not_your_turn"
    assert {"type": "timeout", "seat": seat, "on_timeout": "computer"} in events(api, game_id)


# --- a seat that left --------------------------------------------------------------------------


def test_a_seat_that_left_offers_no_action_and_acts_again_only_once_taken_back(api, app):
    game_id, tokens, seat = two_humans(api)
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    assert api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=tokens[seat]).status == 200
    # the computer has not moved yet (no worker): the seat is still to act, by the computer
    view = api.view(game_id, tokens[seat]).body
    assert view["to_act"] == [seat] and view["legal_actions"] == [] and view["seats"][seat]["left"] is True
    refused = api.act(game_id, action, tokens[seat])
    assert (refused.status, refused.code) == (409, "seat_left")
    assert api.request("GET", f"/v1/games/{game_id}/hint", token=tokens[seat]).code == "seat_left"
    taken_back = api.request("POST", f"/v1/games/{game_id}/seats/{seat}", json_body={}, token=tokens[seat])
    assert taken_back.status == 200 and taken_back.body["view"]["legal_actions"]
    assert api.act(game_id, action, tokens[seat]).status == 200
    history = events(api, game_id)
    rejoined = history.index({"type": "rejoined", "seat": seat})
    assert history[rejoined + 1] == {"type": "action", "seat": seat, "action": action}
    version = api.view(game_id).body["version"]
    drain(app)  # the computer's queued move finds the seat taken back: nothing to do
    assert api.view(game_id).body["version"] == version


# --- asking again ------------------------------------------------------------------------------


def finished_match(api, app):
    """A one-deal match both of whose humans left it to computers, which played it out."""
    game_id, tokens, _ = two_humans(api)
    for token in tokens.values():
        api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=token)
    drain(app)
    assert api.view(game_id).body["status"] == "finished"
    return game_id, tokens


@pytest.mark.parametrize("keys", [(None, None), ("rematch-1", "rematch-1"), ("rematch-1", "rematch-2"), (None, "rematch-2")])
def test_a_retried_rematch_answers_the_same_seat_and_token(api, app, keys):
    game_id, tokens = finished_match(api, app)

    def rematch(seat, key):
        headers = {"Idempotency-Key": key} if key else {}
        return api.request("POST", f"/v1/games/{game_id}/rematch", token=tokens[seat], headers=headers)

    first, again = rematch(0, keys[0]), rematch(0, keys[1])
    assert first.status == again.status == 201
    assert (again.body["id"], again.body["seat"], again.body["token"]) == (first.body["id"], 0, first.body["token"])
    assert again.headers["Location"] == first.headers["Location"]
    other = rematch(1, None)
    assert other.status == 201 and other.body["token"] != first.body["token"]
    assert rematch(1, None).body["token"] == other.body["token"]
    new_id = first.body["id"]
    assert api.view(new_id, first.body["token"]).body["seat"] == 0  # the token the retry answered works
    assert api.view(new_id, other.body["token"]).body["status"] == "active"
    assert [event["type"] for event in events(api, new_id)].count("seat_taken") == 2


def test_taking_a_seat_again_with_the_same_idempotency_key_answers_the_same_seat_and_token(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}]).body

    def take(key=None):
        headers = {"Idempotency-Key": key} if key else {}
        return api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={"name": "Bora"}, headers=headers)

    first, again = take("take-seat-1"), take("take-seat-1")
    assert first.status == again.status == 200
    assert (again.body["seat"], again.body["token"]) == (1, first.body["token"])
    assert api.view(created["id"], first.body["token"]).body["seat"] == 1
    assert [event["type"] for event in events(api, created["id"])].count("seat_taken") == 1
    assert (take("take-seat-2").status, take("take-seat-2").code) == (409, "seat_taken")
    assert take().code == "seat_taken"


def test_a_seat_taken_without_an_idempotency_key_is_not_given_to_a_retry_with_one(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}]).body
    assert api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={}).status == 200
    retry = api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={}, headers={"Idempotency-Key": "guess"})
    assert (retry.status, retry.code) == (409, "seat_taken")
