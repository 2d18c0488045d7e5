"""A moment where two seats may act (Sixty-Six: a claim right after a marriage, or the reply).

Whichever action arrives first decides; a computer seat gives a human in the same moment a grace
period before it moves, so the human's option is real.
"""

from __future__ import annotations

import time

import fakeredis

from service import create_app
from tests.api import FlaskClient
from tests.conftest import make_settings


def marriage_moment(api, bot: bool):
    """A Sixty-Six game in which seat 0 (human) has just announced a marriage with its lead.

    Returns (game id, tokens, the view after the announcement)."""
    for seed in range(200):
        seats = [{"name": "Ayşe"}, {"bot": "random"} if bot else {"name": "Bora"}]
        created = api.create(ruleset="sixty-six", seats=seats, seed=f"moment-{seed}").body
        tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
        view = api.view(created["id"], tokens[0]).body
        marriages = [action for action in view["legal_actions"] if action["type"] == "marriage"]
        if view["to_act"] == [0] and marriages:
            return created["id"], tokens, api.act(created["id"], marriages[0], tokens[0]).body
    raise AssertionError("no seed gives seat 0 a marriage on its first lead")


def app_with_grace(grace: float):
    return create_app(make_settings(bot_grace_seconds=grace), redis=fakeredis.FakeRedis())


def test_both_seats_may_act_right_after_a_marriage_and_the_view_shows_it():
    api = FlaskClient(app_with_grace(0).test_client())
    game_id, tokens, after = marriage_moment(api, bot=False)
    assert after["to_act"] == [0, 1]
    assert after["legal_actions"] == [{"type": "declare"}]
    opponent = api.view(game_id, tokens[1]).body
    assert opponent["to_act"] == [0, 1] and all(action["type"] == "play" for action in opponent["legal_actions"])


def test_in_that_moment_a_reply_arriving_first_closes_it():
    api = FlaskClient(app_with_grace(0).test_client())
    game_id, tokens, after = marriage_moment(api, bot=False)
    reply = api.view(game_id, tokens[1]).body["legal_actions"][0]
    answer = api.act(game_id, reply, tokens[1]).body
    assert len(answer["to_act"]) == 1  # the trick is complete; its winner leads
    assert answer["last_trick"]["cards"] == [{"seat": 0, "card": after["trick"]["cards"][0]["card"]}, {"seat": 1, "card": reply["card"]}]


def test_a_claim_arriving_first_ends_the_deal_and_the_reply_is_refused():
    api = FlaskClient(app_with_grace(0).test_client())
    game_id, tokens, after = marriage_moment(api, bot=False)
    reply = api.view(game_id, tokens[1]).body["legal_actions"][0]
    assert api.act(game_id, {"type": "declare"}, tokens[0]).status == 200
    assert api.act(game_id, reply, tokens[1]).status in (409, 422)
    assert api.view(game_id).body["last_deal"]["reason"] in ("claim", "false_claim")


def test_a_computer_opponent_waits_the_grace_so_the_human_may_claim():
    api = FlaskClient(app_with_grace(30).test_client())
    game_id, tokens, after = marriage_moment(api, bot=True)
    assert after["to_act"] == [0, 1] and after["legal_actions"] == [{"type": "declare"}]
    assert api.view(game_id, tokens[0]).body["version"] == after["version"]  # the computer waits
    answer = api.act(game_id, {"type": "declare"}, tokens[0])
    assert answer.status == 200 and answer.body["last_deal"]["claimed_by"] == 0


def test_after_the_grace_the_computer_plays_on_the_next_request():
    api = FlaskClient(app_with_grace(0.3).test_client())
    game_id, tokens, after = marriage_moment(api, bot=True)
    assert after["to_act"] == [0, 1]
    time.sleep(0.4)
    view = api.view(game_id, tokens[0]).body
    assert view["version"] > after["version"]


def test_a_long_poll_sees_the_computer_move_once_the_grace_has_passed():
    api = FlaskClient(app_with_grace(0.5).test_client())
    game_id, tokens, after = marriage_moment(api, bot=True)
    started = time.monotonic()
    view = api.request("GET", f"/v1/games/{game_id}?wait=10&after={after['version']}", token=tokens[0]).body
    waited = time.monotonic() - started
    assert view["version"] > after["version"]
    assert 0.3 < waited < 5


def test_without_grace_the_computer_replies_at_once():
    api = FlaskClient(app_with_grace(0).test_client())
    game_id, tokens, after = marriage_moment(api, bot=True)
    assert after["to_act"] != [0, 1]
    assert after["last_trick"]["leader"] == 0 and len(after["last_trick"]["cards"]) == 2  # the reply came
