"""Every match that is over reveals its seed and deals, however it ended, and ``koz verify``
checks a whole history only: from a game's URL it reads every page itself."""

from __future__ import annotations

import json

import fakeredis
import pytest

from service import create_app, verify as verify_module
from service.cli import main as koz
from service.timeouts import enforce
from service.verify import verify
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import drain, make_settings, serving
from tests.test_api_clocks import Clock, timed_game


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(clock):
    app = create_app(make_settings(), redis=fakeredis.FakeRedis())
    app.extensions["koz"].timer = clock
    with WorkerThread(app.extensions["koz"]):
        yield app
    app.extensions["koz"].announcements.stop()


@pytest.fixture
def api(app):
    return FlaskClient(app.test_client())


@pytest.fixture
def server(app):
    """The app on a real socket, for ``koz verify`` to read from."""
    with serving(app) as url:
        yield url


def finished_game(api) -> str:
    """A one-deal match both of whose humans left it to computers, which played it out."""
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}])
    game_id = created.body["id"]
    for entry in created.body["tokens"]:
        api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=entry["token"])
    assert api.finished_view(game_id)["status"] == "finished"
    return game_id


def forfeited_game(api, clock, tables) -> tuple[str, dict[int, str]]:
    game_id, tokens = timed_game(api, {"seconds_per_action": 30, "on_timeout": "forfeit"})
    seat = api.view(game_id).body["to_act"][0]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    assert api.act(game_id, action, tokens[seat]).status == 200
    clock.now += 31
    assert enforce(tables) == 1
    assert api.view(game_id).body["status"] == "forfeited"
    return game_id, tokens


def stream_messages(api, game_id: str, query: str = "") -> list[tuple[str, dict]]:
    """The (event, data) messages of a game's stream, which ends once the match is over."""
    response = api.test_client.get(f"/v1/games/{game_id}/events{query}")
    messages = []
    for block in response.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            messages.append((fields["event"], json.loads(fields["data"])))
    return messages


# --- a match that is over is revealed, however it ended ----------------------------------------


def test_a_forfeited_match_reveals_its_seed_and_deals_in_the_history_and_the_stream(api, app, clock):
    game_id, tokens = forfeited_game(api, clock, app.extensions["koz"])
    history = api.whole_history(game_id)
    assert history["status"] == "forfeited"
    assert history["reveal"]["seed"] == "clock" and len(history["reveal"]["deals"]) == 1
    # the deal is shown whole to anyone: every hand as dealt
    assert all("hand" in event for event in history["events"] if event["type"] == "dealt")
    assert verify(history) == []
    messages = stream_messages(api, game_id, "?after=-1")
    assert messages[-1] == ("reveal", {"version": history["version"], "reveal": history["reveal"]})


def test_an_abandoned_match_reveals_its_seed_and_deals_and_verifies(fake_redis):
    api = FlaskClient(create_app(make_settings(max_deals=1), redis=fake_redis).test_client())
    created = api.create(ruleset="partnership-batak", seats=[{"bot": "random"}] * 4, options={"target": 51})
    drain(api.test_client.application)
    history = api.whole_history(created.body["id"])
    assert history["status"] == "abandoned" and history["events"][-1]["type"] == "abandoned"
    assert len(history["reveal"]["deals"]) == 2  # the deal it was abandoned in too, as dealt
    assert verify(history) == []
    assert stream_messages(api, created.body["id"])[-1][0] == "reveal"


def test_koz_verify_accepts_a_forfeited_match_read_from_its_url(api, app, clock, server, capsys):
    game_id, _ = forfeited_game(api, clock, app.extensions["koz"])
    koz(["verify", f"{server}/v1/games/{game_id}"])
    assert capsys.readouterr().out.startswith("OK")


# --- koz verify checks a whole history -----------------------------------------------------------


def test_koz_verify_reads_every_page_of_a_game_from_its_url(api, server, capsys, monkeypatch):
    game_id = finished_game(api)
    monkeypatch.setattr(verify_module, "PAGE", 7)  # a one-deal match in several pages
    assert api.history(game_id, query="?limit=7").body["next_after"] == 6
    koz(["verify", f"{server}/v1/games/{game_id}"])
    assert capsys.readouterr().out.startswith("OK")
    koz(["verify", f"{server}/v1/games/{game_id}/history?limit=7"])  # the history's URL: every page too
    assert capsys.readouterr().out.startswith("OK")


def test_koz_verify_fails_on_one_page_of_a_longer_history_and_says_so(api, tmp_path, capsys):
    game_id = finished_game(api)
    first_page = api.history(game_id, query="?limit=20").body
    problems = verify(first_page)
    assert problems[0] == (
        "the history is one page of several (next_after: 19): it needs every page's events (koz verify with the game's URL reads them all)"
    )
    assert any(problem.startswith("the history ends before the match does") for problem in problems)
    path = tmp_path / "page.json"
    path.write_text(json.dumps(first_page))
    with pytest.raises(SystemExit) as exit_:
        koz(["verify", str(path)])
    assert exit_.value.code == 1
    assert "FAIL: the history is one page of several" in capsys.readouterr().out


def test_koz_verify_fails_on_a_history_with_events_cut_out(api):
    history = api.whole_history(finished_game(api))
    cut = {**history, "events": [event for event in history["events"] if event["version"] != 30]}
    assert verify(cut)[0].startswith("the history lacks the events of version 30 ")


def test_koz_verify_fails_on_a_reveal_with_deals_cut_out_or_changed(fake_redis):
    api = FlaskClient(create_app(make_settings(), redis=fake_redis).test_client())
    # a seed whose match runs to more than three deals (an unseeded one was once only three)
    created = api.create(ruleset="sixty-six", seats=[{"bot": "random"}] * 2, seed="verify-cut-deals")
    drain(api.test_client.application)
    history = api.whole_history(created.body["id"])
    deals = history["reveal"]["deals"]
    assert history["status"] == "finished" and len(deals) > 3 and verify(history) == []
    cut = {**history, "reveal": {**history["reveal"], "deals": deals[:-3]}}
    assert verify(cut) == [f"the reveal has {len(deals) - 3} deals, but the match as replayed dealt {len(deals)}"]
    swapped = {**history, "reveal": {**history["reveal"], "deals": [deals[1], deals[0], *deals[2:]]}}
    assert verify(swapped) == ["deal 1 of the reveal is not the one the seed deals"]


def test_koz_verify_of_a_game_the_server_does_not_know_says_what_it_answered(server, capsys):
    with pytest.raises(SystemExit) as exit_:
        koz(["verify", f"{server}/v1/games/nosuchgame"])
    assert exit_.value.code == 2
    assert capsys.readouterr().out.startswith(f"FAIL: {server}/v1/games/nosuchgame answered 404: there is no game 'nosuchgame'")


def test_koz_verify_of_a_match_in_play_says_it_has_no_reveal(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}])
    assert verify(api.whole_history(created.body["id"])) == ["the history has no reveal: the match is not over"]


def test_koz_verify_replays_a_match_with_the_options_it_was_played_with(fake_redis):
    api = FlaskClient(create_app(make_settings(), redis=fake_redis).test_client())
    created = api.create(ruleset="sixty-six", seats=[{"bot": "random"}] * 2, options={"variant": "schnapsen"}, seed="verify-options")
    drain(api.test_client.application)
    history = api.whole_history(created.body["id"])
    assert history["status"] == "finished" and verify(history) == []


def test_koz_verify_fails_on_a_history_with_the_last_version_cut_out_or_an_event_added(api):
    history = api.whole_history(finished_game(api))
    last = history["version"]
    cut = {**history, "events": [event for event in history["events"] if event["version"] != last]}
    assert verify(cut)[0] == f"the history lacks the events of version {last} (1 of versions 0 to {last} missing)"
    rules_events = [event for event in history["events"] if event["type"] not in verify_module.SERVICE_EVENTS]
    added = {**history, "events": history["events"] + [rules_events[-1]]}
    assert verify(added) == [f"event {len(rules_events)} of the history is not what the rules give from the revealed seed"]


def test_koz_verify_names_the_deal_a_cut_history_stops_in_and_a_timeout_that_ended_nothing_does_not_excuse_it(fake_redis):
    api = FlaskClient(create_app(make_settings(), redis=fake_redis).test_client())
    created = api.create(ruleset="sixty-six", seats=[{"bot": "random"}] * 2, seed="verify-cut-deals")
    drain(api.test_client.application)
    history = api.whole_history(created.body["id"])
    second_deal = next(event["version"] for event in history["events"] if event["type"] == "deal" and event["deal"] == 2)
    stop = second_deal + 2
    reveal = {**history["reveal"], "deals": history["reveal"]["deals"][:2]}
    cut = {**history, "version": stop, "reveal": reveal, "events": [event for event in history["events"] if event["version"] <= stop]}
    stopped = "the history ends before the match does: its actions stop in deal 2, and no forfeit or abandonment ended it"
    assert verify(cut) == [stopped]
    played_on = {"type": "timeout", "version": stop, "seat": 0, "on_timeout": "computer"}
    assert verify({**cut, "events": cut["events"] + [played_on]}) == [stopped]
    forfeited = {**played_on, "on_timeout": "forfeit", "winners": [1]}
    assert stopped not in verify({**cut, "events": cut["events"] + [forfeited]})


def test_koz_verify_reads_a_history_url_that_ends_in_a_slash(api, server, capsys):
    game_id = finished_game(api)
    koz(["verify", f"{server}/v1/games/{game_id}/history/"])
    assert capsys.readouterr().out.startswith("OK")


def test_koz_verify_says_why_a_server_could_not_be_read_or_what_it_answered_without_a_problem():
    with pytest.raises(ValueError, match=r"^https://127\.0\.0\.1:9/v1/games/x could not be read: "):
        verify_module.load_history("https://127.0.0.1:9/v1/games/x")

    def bad_gateway(environ, start_response):
        start_response("502 Bad Gateway", [("Content-Type", "text/html")])
        return [b"<html>upstream gone</html>"]

    with serving(bad_gateway) as url:
        with pytest.raises(ValueError, match=r"answered 502: Bad Gateway$"):
            verify_module.load_history(f"{url}/v1/games/x")
