"""A computer that decides without searching replies within the person's request, in its commit
(``Computers.reply_in_request``): the same moves as the workers make, one commit, nothing left
due; an expert never thinks in a request; the cap leaves the rest to the workers."""

from __future__ import annotations

import random
import threading

import fakeredis
import pytest

from engine import registry
from engine.players import base
from service import create_app
from service.due import game_slot
from service.store import GameStore
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import drain, make_settings

SHORT = {"german-whist": {}, "sixty-six": {"target": 5}, "partnership-batak": {"target": 21}}


def app_of(backend, **settings):
    return create_app(make_settings(**{"reply_wait_seconds": 60, **settings}), redis=backend)


def human_against(api, ruleset_id: str, level: str, seed: str) -> tuple[str, str]:
    seats = [{"name": "Ayşe"}] + [{"bot": level}] * (registry.get(ruleset_id).seat_count - 1)
    created = api.create(ruleset=ruleset_id, seats=seats, options=SHORT[ruleset_id], seed=seed).body
    return created["id"], created["tokens"][0]["token"]


def play(api, game_id: str, token: str, rng: random.Random, actions: int = 60) -> None:
    """The person's ``actions`` (or to the end of the match), each once the replies before it came."""
    for _ in range(actions):
        view = api.view_when(game_id, lambda seen: seen["legal_actions"] or seen["status"] != "active", token)
        if view["status"] != "active":
            return
        assert api.act(game_id, rng.choice(view["legal_actions"]), token).status == 200
    api.view_when(game_id, lambda seen: seen["legal_actions"] or seen["status"] != "active", token)


@pytest.mark.parametrize(
    ("ruleset_id", "level", "actions"), [("german-whist", "random", 30), ("sixty-six", "basic", 30), ("partnership-batak", "basic", 20)]
)
def test_replies_in_the_request_make_the_match_the_workers_make(ruleset_id, level, actions):
    """The same seed and the same person's choices give the same history, event for event, with
    the replies made in the request as with every reply made by a worker (a whole German Whist
    match, deals of the others)."""
    histories = []
    for in_request in (8, 0):
        app = app_of(fakeredis.FakeRedis(), replies_in_request=in_request)
        with WorkerThread(app.extensions["koz"]):
            api = FlaskClient(app.test_client())
            game_id, token = human_against(api, ruleset_id, level, f"twin-{level}")
            play(api, game_id, token, random.Random(ruleset_id), actions)
            histories.append(api.whole_history(game_id)["events"])
        app.extensions["koz"].announcements.stop()
    assert histories[0] == histories[1]


def test_a_persons_action_and_the_computers_reply_are_one_commit_and_one_answer(backend, monkeypatch):
    app = app_of(backend)  # no worker runs: whatever is done, the request did
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    commits = []
    original = GameStore.commit_all
    monkeypatch.setattr(GameStore, "commit_all", lambda self, writes: commits.append(len(writes)) or original(self, writes))
    game_id, token = human_against(api, "german-whist", "random", "one-commit")
    rng = random.Random(1)
    replies = 0
    for _ in range(8):
        view = api.view(game_id, token).body
        commits.clear()
        answer = api.act(game_id, rng.choice(view["legal_actions"]), token)
        assert answer.status == 200
        assert commits == [1]  # one compare-and-set
        assert answer.body["legal_actions"]  # the person is to act again: a reply came with the answer
        assert answer.body == api.view(game_id, token).body
        assert store.redis.zscore(store.due_key(game_slot(game_id)), game_id) is None  # nothing left for a worker
        replies += answer.body["version"] - view["version"] - 1
    assert replies >= 4  # (the person who wins a trick leads the next: no reply to that action)
    assert drain(app) == 0


def test_a_computer_that_leads_a_new_game_has_played_when_it_is_created(backend):
    app = app_of(backend)
    api = FlaskClient(app.test_client())
    for seed in range(40):
        created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed=f"lead-{seed}").body
        if created["version"] > 0:
            view = api.view(created["id"], created["tokens"][0]["token"]).body
            assert view["legal_actions"] and view["version"] == 1
            assert drain(app) == 0
            return
    raise AssertionError("no seed lets the computer lead")


def test_an_expert_never_thinks_in_a_request(backend, monkeypatch):
    app = app_of(backend, reply_wait_seconds=0)
    api = FlaskClient(app.test_client())
    thinking: list[str] = []
    original = base.ExpertPlayer.choose

    def choose(self, *args, **kwargs):
        thinking.append(threading.current_thread().name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(base.ExpertPlayer, "choose", choose)
    game_id, token = human_against(api, "german-whist", "expert", "expert")
    # until the person's action leaves the expert to reply: the expert thinks by the clock, so
    # whether the person's first card wins the trick (and leads again) depends on the host
    while True:
        view = api.view(game_id, token).body
        if not view["legal_actions"]:  # the expert is to act: its move is due, not made
            assert thinking == [] and drain(app) == 1
            thinking.clear()
            continue
        answer = api.act(game_id, view["legal_actions"][0], token).body
        assert thinking == []  # the request did not think
        assert answer["version"] == view["version"] + 1
        if not answer["legal_actions"]:  # the expert's reply is the workers'
            break
    assert drain(app) >= 1  # (its reply may win the trick and bring on its lead)
    assert thinking  # a worker did


@pytest.mark.parametrize("cap", [1, 2])
def test_replies_past_the_cap_fall_to_the_workers(backend, cap):
    """Batak with three random computers and a cap of one or two replies per request: the request
    makes that many, a worker the others; the history is the same as with no cap."""
    app = app_of(backend, replies_in_request=cap, reply_wait_seconds=0)
    api = FlaskClient(app.test_client())
    game_id, token = human_against(api, "partnership-batak", "random", "cap-0")
    made = drain(app)  # the computers bid before the person, one per request at most: the rest are the workers'
    view = api.view(game_id, token).body
    assert view["legal_actions"], made
    answer = api.act(game_id, view["legal_actions"][0], token).body
    assert answer["version"] == view["version"] + 1 + cap and not answer["legal_actions"]  # the person's action and the replies
    assert drain(app) >= 1  # the other replies
    assert api.view(game_id, token).body["legal_actions"]


def test_a_retry_with_the_same_key_answers_the_view_with_the_replies(backend):
    app = app_of(backend)
    api = FlaskClient(app.test_client())
    game_id, token = human_against(api, "german-whist", "basic", "retry")
    view = api.view(game_id, token).body
    first = api.act(game_id, view["legal_actions"][0], token, **{"Idempotency-Key": "k1"})
    again = api.act(game_id, view["legal_actions"][0], token, **{"Idempotency-Key": "k1"})
    assert first.body == again.body and again.headers.get("Idempotent-Replayed") == "true"
    assert first.body == api.view(game_id, token).body


def test_a_reply_that_fails_in_the_request_loses_nothing_of_the_persons_action_and_falls_to_the_workers(backend, monkeypatch, caplog):
    app = app_of(backend, reply_wait_seconds=0)
    api = FlaskClient(app.test_client())
    game_id, token = human_against(api, "partnership-batak", "random", "cap-0")
    drain(app)
    view = api.view(game_id, token).body
    computers = app.extensions["koz"].computers
    monkeypatch.setattr(computers, "decide", lambda game, seat, level: 1 / 0)
    answer = api.act(game_id, view["legal_actions"][0], token)
    assert answer.status == 200 and answer.body["version"] == view["version"] + 1
    assert f"the computer move in game {game_id} failed in a request" in caplog.text
    monkeypatch.undo()
    assert drain(app) >= 1 and api.view(game_id).body["version"] > answer.body["version"]
