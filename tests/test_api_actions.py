"""Acting: legality, turns, tokens, If-Match, idempotency; a refused request changes nothing."""

from __future__ import annotations

import queue
import threading
import time

import pytest

from engine.texts import card_name
from service import create_app
from service.waiting import Waiting
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import make_settings
from tests.support import card_codes_in, expire

TWO_HUMANS = [{"name": "Ayşe"}, {"name": "Bora"}]


@pytest.fixture
def app(any_app):
    """The app on fakeredis and on a real redis-server: every test here runs on both."""
    return any_app


@pytest.fixture
def api(client):
    return FlaskClient(client)


@pytest.fixture
def game(api):
    """A German Whist game between two humans: (id, tokens by seat, seat to act, its view)."""
    answer = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="actions")
    tokens = {entry["seat"]: entry["token"] for entry in answer.body["tokens"]}
    game_id = answer.body["id"]
    (seat,) = api.view(game_id).body["to_act"]
    return game_id, tokens, seat


def unchanged(api, game_id, before):
    """The game is exactly as it was: same version, same history."""
    assert api.view(game_id).body["version"] == before["version"]
    assert api.history(game_id).body == before["history"]


def snapshot(api, game_id):
    return {"version": api.view(game_id).body["version"], "history": api.history(game_id).body}


def test_posting_a_legal_action_verbatim_applies_it_and_answers_the_new_view(api, game):
    game_id, tokens, seat = game
    view = api.view(game_id, tokens[seat]).body
    action = view["legal_actions"][0]
    answer = api.act(game_id, action, tokens[seat])
    assert answer.status == 200
    assert answer.body["version"] == view["version"] + 1 and answer.body["seat"] == seat
    assert answer.body["trick"]["cards"] == [{"seat": seat, "card": action["card"]}]
    assert answer.headers["ETag"] == f'W/"{view["version"] + 1}"'


def test_acting_out_of_turn_is_409_not_your_turn(api, game):
    game_id, tokens, seat = game
    before = snapshot(api, game_id)
    other = 1 - seat
    card = api.view(game_id, tokens[other]).body["hand"][0]
    answer = api.act(game_id, {"type": "play", "card": card}, tokens[other])
    assert (answer.status, answer.code) == (409, "not_your_turn")
    unchanged(api, game_id, before)


def test_illegal_action_is_422_with_the_rule_and_the_legal_actions(api, game):
    game_id, tokens, seat = game
    hand = api.view(game_id, tokens[seat]).body["hand"]
    follower_hand = api.view(game_id, tokens[1 - seat]).body["hand"]
    # a lead of a suit the follower holds, so that it must follow (whatever the deal)
    lead = next(card for card in hand if any(other[-1] == card[-1] for other in follower_hand))
    api.act(game_id, {"type": "play", "card": lead}, tokens[seat])
    follower = api.view(game_id, tokens[1 - seat]).body
    off_suit = next(card for card in follower["hand"] if card[-1] != lead[-1])
    before = snapshot(api, game_id)
    answer = api.act(game_id, {"type": "play", "card": off_suit}, tokens[1 - seat])
    assert (answer.status, answer.code) == (422, "must_follow_suit")
    assert answer.body["legal_actions"] == follower["legal_actions"]
    assert follower["legal_actions"] and all(action["card"][-1] == lead[-1] for action in follower["legal_actions"])
    unchanged(api, game_id, before)


def test_card_not_in_hand_is_422(api, game):
    game_id, tokens, seat = game
    mine = api.view(game_id, tokens[seat]).body
    other_hand = api.view(game_id, tokens[1 - seat]).body["hand"]
    before = snapshot(api, game_id)
    answer = api.act(game_id, {"type": "play", "card": other_hand[0]}, tokens[seat])
    assert (answer.status, answer.code) == (422, "card_not_in_hand")
    assert answer.body["legal_actions"] == mine["legal_actions"]
    # it names the card asked for, and no other card of the other hand
    assert answer.body["detail"] == f"{card_name(other_hand[0], 'en')} is not in your hand"
    assert not card_codes_in(answer.body) & set(other_hand[1:])
    unchanged(api, game_id, before)


@pytest.mark.parametrize(
    "action, code",
    [
        ({"type": "play"}, "malformed_action"),
        ({"type": "play", "card": "QS", "value": 3}, "malformed_action"),
        ({"type": "bid", "value": "eight"}, "invalid_request"),
        ({"type": "bid", "value": "8"}, "invalid_request"),
        ({"type": "bid", "value": 8.5}, "invalid_request"),
        ({"type": "dance"}, "invalid_request"),
        ({"card": "QS"}, "invalid_request"),
        ({"type": "play", "card": "1S"}, "invalid_request"),
        ([1, 2], "invalid_request"),
    ],
)
def test_malformed_action_is_400(api, game, action, code):
    game_id, tokens, seat = game
    before = snapshot(api, game_id)
    answer = api.act(game_id, action, tokens[seat])
    assert (answer.status, answer.code) == (400, code)
    unchanged(api, game_id, before)


@pytest.mark.parametrize("value", [8.9, "8"])
def test_a_bid_is_a_json_integer_not_a_number_or_text_read_as_one(api, value):
    """8.9 is not a bid of 8, nor is "8": a client that sent either has a fault to hear of."""
    created = api.create(ruleset="partnership-batak", seats=[{"name": name} for name in "ABCD"], seed="bid-as-integer").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    (bidder,) = api.view(created["id"]).body["to_act"]
    assert {"type": "bid", "value": 8} in api.view(created["id"], tokens[bidder]).body["legal_actions"]
    before = snapshot(api, created["id"])
    answer = api.act(created["id"], {"type": "bid", "value": value}, tokens[bidder])
    assert (answer.status, answer.code) == (400, "invalid_request")
    assert list(answer.body["errors"]) == ["value"]
    unchanged(api, created["id"], before)


def test_acting_without_a_token_is_401(api, game):
    game_id, tokens, seat = game
    answer = api.act(game_id, {"type": "play", "card": "AS"}, None)
    assert (answer.status, answer.code) == (401, "missing_token")
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")


def test_acting_with_another_games_token_is_401(api, game):
    game_id, tokens, seat = game
    other = api.create(ruleset="german-whist", seats=TWO_HUMANS).body
    answer = api.act(game_id, {"type": "play", "card": "AS"}, other["tokens"][0]["token"])
    assert (answer.status, answer.code) == (401, "invalid_token")


def test_acting_in_an_unknown_game_is_404(api):
    answer = api.act("ffffffffffffffff", {"type": "play", "card": "AS"}, "whatever")
    assert (answer.status, answer.code) == (404, "unknown_game")


def test_if_match_with_a_stale_version_is_412_and_changes_nothing(api, game):
    game_id, tokens, seat = game
    view = api.view(game_id, tokens[seat]).body
    api.act(game_id, view["legal_actions"][0], tokens[seat])
    other = api.view(game_id, tokens[1 - seat]).body
    before = snapshot(api, game_id)
    answer = api.act(game_id, other["legal_actions"][0], tokens[1 - seat], **{"If-Match": f'W/"{view["version"]}"'})
    assert (answer.status, answer.code) == (412, "stale_version")
    assert answer.body["current_version"] == other["version"]
    unchanged(api, game_id, before)


def test_if_match_with_the_current_version_applies(api, game):
    game_id, tokens, seat = game
    for weak in (True, False):
        view = api.view(game_id, tokens[seat]).body
        tag = f'W/"{view["version"]}"' if weak else f'"{view["version"]}"'
        answer = api.act(game_id, view["legal_actions"][0], tokens[seat], **{"If-Match": tag})
        assert answer.status == 200
        seat = 1 - seat


def test_retry_with_the_same_idempotency_key_returns_the_first_answer_and_applies_once(api, game):
    game_id, tokens, seat = game
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    first = api.act(game_id, action, tokens[seat], **{"Idempotency-Key": "move-1"})
    again = api.act(game_id, action, tokens[seat], **{"Idempotency-Key": "move-1"})
    assert first.status == again.status == 200
    assert again.body == first.body and again.headers["Idempotent-Replayed"] == "true"
    assert api.view(game_id).body["version"] == first.body["version"]
    plays = [event for event in api.history(game_id).body["events"] if event["type"] == "action"]
    assert len(plays) == 1


def test_a_retry_that_came_while_the_first_was_committed_gets_the_first_answer_marked_replayed(app, api, game, monkeypatch):
    game_id, tokens, seat = game
    legal = api.view(game_id, tokens[seat]).body["legal_actions"]
    action = legal[0]
    koz = app.extensions["koz"]
    before = koz.store.load(game_id)
    first = api.act(game_id, action, tokens[seat], **{"Idempotency-Key": "move-1"})
    assert "Idempotent-Replayed" not in first.headers
    # the retry read the game and looked for the key before the first's commit: its own commit finds the key
    monkeypatch.setattr(koz.repository, "load_to_change", lambda loaded_id: (koz.repository.from_stored(loaded_id, before), True))
    monkeypatch.setattr(koz.store, "idempotent_answer", lambda *_: None)
    again = api.act(game_id, action, tokens[seat], **{"Idempotency-Key": "move-1"})
    assert (again.status, again.body, again.headers["Idempotent-Replayed"]) == (200, first.body, "true")
    other = api.act(game_id, legal[-1], tokens[seat], **{"Idempotency-Key": "move-1"})
    assert (other.status, other.code) == (422, "idempotency_key_reused")
    assert api.view(game_id).body["version"] == first.body["version"]


def passed_by_a_commit(app, api, game, monkeypatch, also_from_the_store: bool = False) -> tuple[dict, int]:
    """The seat to act acts; from then on, every read of the game to change gives it as it was
    before, as if that action's commit came just after the read (``also_from_the_store``: the
    retries' reads of the store too). (The action, the version the store holds.)"""
    game_id, tokens, seat = game
    koz = app.extensions["koz"]
    before = koz.store.load(game_id)
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    moved = api.act(game_id, action, tokens[seat]).body["version"]
    monkeypatch.setattr(koz.repository, "load_to_change", lambda loaded_id: (koz.repository.from_stored(loaded_id, before), True))
    if also_from_the_store:
        monkeypatch.setattr(koz.repository, "load", lambda loaded_id: koz.repository.from_stored(loaded_id, before))
    return action, moved


def test_an_action_read_before_another_seats_commit_with_if_match_is_412_at_the_version_the_store_holds(app, api, game, monkeypatch):
    game_id, tokens, seat = game
    action, moved = passed_by_a_commit(app, api, game, monkeypatch)
    answer = api.act(game_id, action, tokens[seat], **{"If-Match": 'W/"0"'})
    assert (answer.status, answer.code, answer.body["current_version"]) == (412, "stale_version", moved)
    assert f"version {moved}" in answer.body["detail"] and api.view(game_id).body["version"] == moved


def test_an_action_whose_every_read_was_passed_by_another_commit_is_503_busy_and_changes_nothing(app, api, game, monkeypatch):
    game_id, tokens, seat = game
    action, moved = passed_by_a_commit(app, api, game, monkeypatch, also_from_the_store=True)
    log = app.extensions["koz"].store.log(game_id)
    answer = api.act(game_id, action, tokens[seat])
    assert (answer.status, answer.code, answer.headers["Retry-After"]) == (503, "busy", "1")
    monkeypatch.undo()
    assert api.view(game_id).body["version"] == moved and app.extensions["koz"].store.log(game_id) == log


def test_an_action_on_a_game_that_expired_after_its_read_is_404_unknown_game(app, api, game, monkeypatch):
    game_id, tokens, seat = game
    koz = app.extensions["koz"]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    read = koz.repository.load

    def read_then_expire(loaded_id):
        game = read(loaded_id)
        expire(koz.store.redis, game_id)
        return game, False

    monkeypatch.setattr(koz.repository, "load_to_change", read_then_expire)
    answer = api.act(game_id, action, tokens[seat])
    assert (answer.status, answer.code) == (404, "unknown_game") and game_id in answer.body["detail"]


def test_an_answer_that_waits_for_no_computer_reply_is_not_marked_replayed(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "expert"}], seed="actions").body
    token = created["tokens"][0]["token"]
    view = api.view_when(created["id"], lambda seen: seen["to_act"] == [0], token)
    answer = api.act(created["id"], view["legal_actions"][0], token, **{"Idempotency-Key": "mine"})
    assert answer.status == 200 and "Idempotent-Replayed" not in answer.headers


def test_idempotency_key_reused_for_another_action_is_422(api, game):
    game_id, tokens, seat = game
    legal = api.view(game_id, tokens[seat]).body["legal_actions"]
    api.act(game_id, legal[0], tokens[seat], **{"Idempotency-Key": "k"})
    answer = api.act(game_id, legal[1], tokens[seat], **{"Idempotency-Key": "k"})
    assert (answer.status, answer.code) == (422, "idempotency_key_reused")


def test_idempotency_keys_are_per_seat(api, game):
    game_id, tokens, seat = game
    api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat], **{"Idempotency-Key": "same"})
    answer = api.act(game_id, api.view(game_id, tokens[1 - seat]).body["legal_actions"][0], tokens[1 - seat], **{"Idempotency-Key": "same"})
    assert answer.status == 200 and "Idempotent-Replayed" not in answer.headers


def test_an_idempotency_key_of_up_to_200_characters_is_taken_and_a_longer_one_is_400_naming_it(api, game):
    game_id, tokens, seat = game
    answer = api.act(game_id, {"type": "play", "card": "AS"}, tokens[seat], **{"Idempotency-Key": "k" * 201})
    assert (answer.status, answer.code) == (400, "invalid_request")
    assert answer.body["errors"] == {"Idempotency-Key": ["1 to 200 characters"]}
    assert api.view(game_id).body["version"] == 0
    legal = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    assert api.act(game_id, legal, tokens[seat], **{"Idempotency-Key": "k" * 200}).status == 200


def test_no_action_after_the_match_is_over(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "A"}, {"bot": "random"}], seed=3).body
    game_id, token = created["id"], created["tokens"][0]["token"]
    while (view := api.view(game_id, token).body)["status"] == "active":
        api.act(game_id, view["legal_actions"][0], token)
    answer = api.act(game_id, {"type": "play", "card": "AS"}, token)
    assert (answer.status, answer.code) == (409, "game_over")


def test_computer_answers_within_the_request(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "A"}, {"bot": "random"}], seed=11).body
    game_id, token = created["id"], created["tokens"][0]["token"]
    view = api.view(game_id, token).body
    answer = api.act(game_id, view["legal_actions"][0], token).body
    assert answer["to_act"] == [0] and answer["version"] >= view["version"] + 2


# --- an action that waits for the seat's next turn (?wait=) ------------------------------------


@pytest.fixture
def patient_app(backend):
    """The app on each kind of Redis, with waits of up to 300 s allowed: an answer long before
    that shows it did not wait."""
    app = create_app(make_settings(max_wait_seconds=300), redis=backend)
    with WorkerThread(app.extensions["koz"]):
        yield app
    app.extensions["koz"].announcements.stop()


def until_version(api, game_id, version):
    deadline = time.monotonic() + 120
    while api.view(game_id).body["version"] < version:
        assert time.monotonic() < deadline, f"the game never reached version {version}"
        time.sleep(0.01)


def new_actions_game(api):
    """The fixture's game ("actions"): seat 1 leads 2C; 3C and 7C both win it for seat 0."""
    answer = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="actions").body
    return answer["id"], {entry["seat"]: entry["token"] for entry in answer["tokens"]}


def in_background(call):
    """``call()``'s answer, as a queue it will be put on."""
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: answers.put(call()), daemon=True).start()
    return answers


def play(card):
    return {"type": "play", "card": card}


def test_an_action_asked_to_wait_answers_once_its_seat_is_to_act_again(patient_app, monkeypatch):
    api = FlaskClient(patient_app.test_client())
    game_id, tokens = new_actions_game(api)
    passed: queue.Queue = queue.Queue()  # the versions the waiting answer was woken by
    watch_view = Waiting.watch_view

    def watched(self, game_id, token, wait, after):
        shown = watch_view(self, game_id, token, wait, after)
        if after is not None:  # not the test's own reads
            passed.put(shown.version)
        return shown

    monkeypatch.setattr(Waiting, "watch_view", watched)
    answers = in_background(lambda: api.request("POST", f"/v1/games/{game_id}/actions?wait=300", json_body=play("2C"), token=tokens[1]))
    until_version(api, game_id, 1)
    taken = api.act(game_id, play("3C"), tokens[0]).body  # seat 0 takes the trick: it leads, seat 1 still waits
    assert taken["version"] == 2 and taken["to_act"] == [0]
    assert passed.get(timeout=120) == 2  # the waiting answer saw that version, and waits on
    led = api.act(game_id, taken["legal_actions"][0], tokens[0]).body
    answer = answers.get(timeout=120)
    assert answer.status == 200 and answer.headers["ETag"] == 'W/"3"'
    assert answer.body == api.view(game_id, tokens[1]).body and answer.body["version"] == led["version"] == 3
    assert answer.body["to_act"] == [1] and answer.body["legal_actions"]


def test_an_action_asked_to_wait_answers_at_once_when_its_seat_acts_next(patient_app):
    api = FlaskClient(patient_app.test_client())
    game_id, tokens = new_actions_game(api)
    api.act(game_id, play("2C"), tokens[1])
    answers = in_background(lambda: api.request("POST", f"/v1/games/{game_id}/actions?wait=300", json_body=play("3C"), token=tokens[0]))
    answer = answers.get(timeout=120)
    assert answer.status == 200 and answer.body["version"] == 2 and answer.body["to_act"] == [0] and answer.body["legal_actions"]


def test_an_action_asked_to_wait_that_ends_the_match_answers_at_once(patient_app):
    api = FlaskClient(patient_app.test_client())
    game_id, tokens = new_actions_game(api)
    played = []
    while (to_act := api.view(game_id).body)["status"] == "active":
        (seat,) = to_act["to_act"]
        action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
        played.append((seat, action))
        api.act(game_id, action, tokens[seat])
    game_id, tokens = new_actions_game(api)  # the same deal again, played alike up to its last action
    for seat, action in played[:-1]:
        assert api.act(game_id, action, tokens[seat]).status == 200
    seat, action = played[-1]
    answers = in_background(lambda: api.request("POST", f"/v1/games/{game_id}/actions?wait=300", json_body=action, token=tokens[seat]))
    answer = answers.get(timeout=120)
    assert answer.status == 200 and answer.body["status"] == "finished" and answer.body["version"] == len(played)


def test_an_action_waiting_for_its_turn_answers_the_game_as_it_is_once_the_process_is_stopping(patient_app):
    api = FlaskClient(patient_app.test_client())
    game_id, tokens = new_actions_game(api)
    answers = in_background(lambda: api.request("POST", f"/v1/games/{game_id}/actions?wait=300", json_body=play("2C"), token=tokens[1]))
    until_version(api, game_id, 1)
    announcements = patient_app.extensions["koz"].announcements
    deadline = time.monotonic() + 60
    while announcements.waiting_count < 1:  # the answer waits
        assert time.monotonic() < deadline, "the answer never waited"
        time.sleep(0.01)
    announcements.close()  # as on SIGTERM: no request waits any more
    answer = answers.get(timeout=60)
    assert answer.status == 200 and answer.body["version"] == 1 and not answer.body["legal_actions"]


def test_an_action_asked_to_wait_answers_the_game_as_it_is_when_the_wait_ends(api):
    game_id, tokens = new_actions_game(api)
    answer = api.request("POST", f"/v1/games/{game_id}/actions?wait=0.3", json_body=play("2C"), token=tokens[1])
    assert answer.status == 200 and answer.body["version"] == 1 and answer.body["to_act"] == [0] and not answer.body["legal_actions"]
    assert answer.body == api.view(game_id, tokens[1]).body


def test_a_retry_asked_to_wait_is_still_marked_replayed(api):
    game_id, tokens = new_actions_game(api)
    first = api.act(game_id, play("2C"), tokens[1], **{"Idempotency-Key": "lead"})
    again = api.request("POST", f"/v1/games/{game_id}/actions?wait=0.3", json_body=play("2C"), token=tokens[1], headers={"Idempotency-Key": "lead"})
    assert again.status == 200 and again.headers["Idempotent-Replayed"] == "true" and again.body == first.body


@pytest.mark.parametrize("query", ["wait=-1", "wait=abc", "wait=1000", "wait=nan"])
def test_bad_wait_on_an_action_is_400_and_applies_nothing(api, query):
    game_id, tokens = new_actions_game(api)
    before = snapshot(api, game_id)
    answer = api.request("POST", f"/v1/games/{game_id}/actions?{query}", json_body=play("2C"), token=tokens[1])
    assert (answer.status, answer.code) == (400, "invalid_request")
    unchanged(api, game_id, before)

