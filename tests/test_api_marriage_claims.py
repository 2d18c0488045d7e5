"""Sixty-Six over HTTP: a marriage may claim 66 in the same action, and there is never a moment
in which both seats may act (a plain marriage is answered by the opponent like any lead)."""

from __future__ import annotations

import pytest

from tests.api import FlaskClient


@pytest.fixture
def api(client):
    return FlaskClient(client)


def marriage_offer(api, *, claim: bool):
    """A Sixty-Six game, Ayşe (seat 0) against the random computer, at Ayşe's first lead offering
    a marriage (with the claim beside it when ``claim``). Returns (game id, token, view)."""
    for seed in range(100):
        created = api.create(ruleset="sixty-six", seats=[{"name": "Ayşe"}, {"bot": "random"}], seed=f"marriage-{seed}").body
        game_id, token = created["id"], created["tokens"][0]["token"]
        view = api.view(game_id, token).body
        while view["deal"] == 1 and view["status"] == "active":
            marriages = [action for action in view["legal_actions"] if action["type"] == "marriage"]
            if marriages and any(action.get("declare") for action in marriages) == claim:
                return game_id, token, view
            plays = [action for action in view["legal_actions"] if action["type"] == "play"]
            view = api.act(game_id, plays[0], token).body
    raise AssertionError("no seed offers seat 0 such a marriage in the first deal")


def events_after(api, game_id, token, version):
    return api.history(game_id, token, f"?after={version}").body["events"]


def test_the_claim_is_offered_beside_each_plain_marriage_once_a_trick_is_won(api):
    _, _, view = marriage_offer(api, claim=True)
    marriages = [action for action in view["legal_actions"] if action["type"] == "marriage"]
    plain = [action for action in marriages if "declare" not in action]
    assert marriages == [claimed for action in plain for claimed in (action, {**action, "declare": True})]
    assert view["tricks_won"][0] > 0


def test_a_marriage_with_declare_announces_claims_and_ends_the_deal_in_one_request(api):
    game_id, token, view = marriage_offer(api, claim=True)
    action = next(action for action in view["legal_actions"] if action.get("declare"))
    answer = api.act(game_id, action, token)
    assert answer.status == 200
    result = answer.body["last_deal"]
    assert result["deal"] == 1 and result["claimed_by"] == 0 and result["deemed_claim"] is False
    assert result["reason"] in ("claim", "false_claim")
    events = events_after(api, game_id, token, view["version"])
    kinds = [event["type"] for event in events]
    assert kinds[:4] == ["action", "marriage", "declare", "deal_result"]
    assert events[1]["card"] == action["card"] and not any(event["type"] == "trick" for event in events[:4])


def test_after_a_plain_marriage_the_computer_replies_at_once_and_no_claim_is_offered(api):
    game_id, token, view = marriage_offer(api, claim=False)
    action = next(action for action in view["legal_actions"] if action["type"] == "marriage")
    answer = api.act(game_id, action, token)
    assert answer.status == 200 and answer.body["to_act"] == [0]
    events = events_after(api, game_id, token, view["version"])
    assert [event["type"] for event in events[:3]] == ["action", "marriage", "action"]
    assert (events[0]["seat"], events[0]["action"]) == (0, action)
    assert events[2]["seat"] == 1 and events[2]["action"]["type"] == "play"
    assert events[3]["type"] == "trick" and events[3]["cards"][0] == {"seat": 0, "card": action["card"]}


@pytest.mark.parametrize("declare", ["yes", "true", 1, 0, None, {}, ["x"]])
def test_a_marriage_with_an_ill_typed_declare_is_400_and_changes_nothing(api, declare):
    game_id, token, view = marriage_offer(api, claim=True)
    action = next(action for action in view["legal_actions"] if action.get("declare"))
    answer = api.act(game_id, {**action, "declare": declare}, token)
    assert (answer.status, answer.code) == (400, "invalid_request")
    assert answer.headers["Content-Type"] == "application/problem+json" and "declare" in answer.body["errors"]
    assert api.view(game_id).body["version"] == view["version"]


def test_declare_on_any_action_but_a_marriage_is_400(api):
    game_id, token, view = marriage_offer(api, claim=True)
    play = next(action for action in view["legal_actions"] if action["type"] == "play")
    answer = api.act(game_id, {**play, "declare": True}, token)
    assert (answer.status, answer.code) == (400, "malformed_action")
    assert api.view(game_id).body["version"] == view["version"]


def test_a_marriage_claim_before_winning_a_trick_is_422_with_the_legal_actions(api):
    for seed in range(100):
        created = api.create(ruleset="sixty-six", seats=[{"name": "Ayşe"}, {"bot": "random"}], seed=f"first-{seed}").body
        game_id, token = created["id"], created["tokens"][0]["token"]
        view = api.view(game_id, token).body
        marriages = [action for action in view["legal_actions"] if action["type"] == "marriage"]
        if view["tricks_won"] == [0, 0] and marriages:
            answer = api.act(game_id, {**marriages[0], "declare": True}, token)
            assert (answer.status, answer.code) == (422, "declare_not_allowed")
            assert answer.body["legal_actions"] == view["legal_actions"]
            return
    raise AssertionError("no seed offers seat 0 a marriage at the first lead")
