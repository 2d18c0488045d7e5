"""Turn clocks: deadlines in the views, a bank, and timeouts enforced with no request coming."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest

from service import create_app
from service.refusals import Refused
from service.timeouts import enforce, run
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import make_settings
from tests.support import expire

START = 1_800_000_000.0


class Clock:
    """The time the service reads, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(clock, backend):
    """The app on fakeredis and on a real redis-server (every test here runs on both), its clock the test's."""
    app = create_app(make_settings(), redis=backend)
    app.extensions["koz"].timer = clock
    with WorkerThread(app.extensions["koz"]):  # computer players move on a worker, as in koz serve
        yield app
    app.extensions["koz"].announcements.stop()


@pytest.fixture
def tables(app):
    return app.extensions["koz"]


@pytest.fixture
def api(app):
    return FlaskClient(app.test_client())


def timed_game(api, clock_spec, seats=None, ruleset="german-whist"):
    seats = seats or [{"name": "Ayşe"}, {"name": "Bora"}]
    created = api.create(ruleset=ruleset, seats=seats, clock=clock_spec, seed="clock")
    assert created.status == 201, created.body
    return created.body["id"], {entry["seat"]: entry["token"] for entry in created.body["tokens"]}


def iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def events(api, game_id):
    return api.whole_history(game_id)["events"]


def test_views_show_the_deadline_of_the_seat_to_act(api):
    game_id, _ = timed_game(api, {"seconds_per_action": 30, "bank": 60})
    view = api.view(game_id).body
    (seat,) = view["to_act"]
    assert view["clock"]["deadlines"][seat] == iso(START + 90)
    assert view["clock"]["deadlines"][1 - seat] is None
    assert view["clock"]["on_timeout"] == "computer" and view["clock"]["banks"] == [60, 60]


def test_time_past_seconds_per_action_comes_off_the_bank(api, clock):
    game_id, tokens = timed_game(api, {"seconds_per_action": 30, "bank": 60})
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 40
    api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat])
    assert api.view(game_id).body["clock"]["banks"][seat] == 50
    assert api.view(game_id).body["clock"]["deadlines"][1 - seat] == iso(START + 40 + 90)


def test_an_action_in_time_keeps_the_whole_bank_and_one_late_spends_exactly_its_lateness(api, clock):
    game_id, tokens = timed_game(api, {"seconds_per_action": 30, "bank": 60})
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 29.5
    api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat])
    clock.now += 89.5  # the other seat: half a second before its deadline
    api.act(game_id, api.view(game_id, tokens[1 - seat]).body["legal_actions"][0], tokens[1 - seat])
    banks = api.view(game_id).body["clock"]["banks"]
    assert (banks[seat], banks[1 - seat]) == (60, 0.5)


def test_nothing_times_out_before_the_deadline(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30})
    clock.now += 29
    assert enforce(tables) == 0
    assert api.view(game_id).body["version"] == 0


def test_a_check_that_finds_the_deadline_not_yet_come_puts_the_game_back_on_the_schedule_at_it(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30})
    tables.store.schedule_clock(game_id, START + 5)  # a change whose own deadline was not scheduled
    clock.now += 10
    assert enforce(tables) == 0 and api.view(game_id).body["version"] == 0
    assert game_id not in tables.store.due_clocks(START + 29.9) and game_id in tables.store.due_clocks(START + 30)
    clock.now = START + 30  # due at its moment
    assert enforce(tables) == 1


def test_a_game_with_no_clock_running_is_dropped_from_the_schedule(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30}, [{"name": "Ayşe"}, {"open": True}])  # waiting: no clock runs
    tables.store.schedule_clock(game_id, START + 5)
    clock.now += 10
    assert enforce(tables) == 0 and game_id not in tables.store.due_clocks(float("inf"))


def test_a_game_gone_from_the_store_is_dropped_from_the_schedule(api, tables, clock, backend):
    game_id, _ = timed_game(api, {"seconds_per_action": 30})
    expire(backend, game_id)
    clock.now += 31
    assert enforce(tables) == 0 and game_id not in tables.store.due_clocks(float("inf"))


def test_one_check_times_out_every_game_due_and_says_how_many(api, tables, clock):
    games = [timed_game(api, {"seconds_per_action": 30})[0] for _ in range(2)]
    clock.now += 31
    assert enforce(tables) == 2
    assert all("timeout" in [event["type"] for event in events(api, game_id)] for game_id in games)


def test_a_game_whose_timeout_is_refused_waits_for_the_next_check_and_the_others_time_out(api, tables, clock, monkeypatch, caplog):
    first, second = (timed_game(api, {"seconds_per_action": 30})[0] for _ in range(2))
    clock.now += 31
    time_out = tables.time_out

    def busy_for_the_first(game):
        if game.id == first:
            raise Refused("busy", "busy")  # the game kept changing
        return time_out(game)

    monkeypatch.setattr(tables, "time_out", busy_for_the_first)
    assert enforce(tables) == 1 and "timeout" in [event["type"] for event in events(api, second)]
    assert f"clock of game {first} not enforced: busy" in caplog.text
    monkeypatch.undo()
    assert enforce(tables) == 1 and "timeout" in [event["type"] for event in events(api, first)]


def test_on_timeout_computer_plays_that_one_action_with_no_request_coming(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30})
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 31
    assert enforce(tables) == 1
    history = events(api, game_id)
    timeout = next(index for index, event in enumerate(history) if event["type"] == "timeout")
    assert history[timeout] == {"version": 1, "type": "timeout", "seat": seat, "on_timeout": "computer"}
    assert history[timeout + 1]["type"] == "action" and history[timeout + 1]["seat"] == seat
    view = api.view(game_id).body
    assert view["seats"][seat]["human"] is True and view["to_act"] == [1 - seat]
    assert view["clock"]["deadlines"][1 - seat] == iso(clock.now + 30)


def test_a_timeout_spends_the_seats_whole_bank_and_the_next_seats_deadline_times_out_in_its_turn(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30, "bank": 60})
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 91
    assert enforce(tables) == 1
    view = api.view(game_id).body
    assert view["clock"]["banks"] == [0 if index == seat else 60 for index in range(2)] and view["to_act"] == [1 - seat]
    clock.now += 91  # the other seat's 30 s and its bank
    assert enforce(tables) == 1
    timeouts = [event["seat"] for event in events(api, game_id) if event["type"] == "timeout"]
    assert timeouts == [seat, 1 - seat] and api.view(game_id).body["clock"]["banks"] == [0, 0]


def test_on_timeout_forfeit_loses_the_match_for_the_seat(api, tables, clock):
    game_id, tokens = timed_game(api, {"seconds_per_action": 30, "on_timeout": "forfeit"})
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 31
    assert enforce(tables) == 1
    view = api.view(game_id).body
    assert (view["status"], view["winners"], view["to_act"]) == ("forfeited", [1 - seat], [])
    assert api.view(game_id, tokens[seat]).body["legal_actions"] == []  # the seat whose turn it was acts no more
    assert view["clock"]["banks"][seat] == 0 and game_id not in tables.store.due_clocks(float("inf"))  # spent, and off the schedule
    assert {"type": "timeout", "seat": seat, "on_timeout": "forfeit", "winners": [1 - seat]} in [
        {key: value for key, value in event.items() if key != "version"} for event in events(api, game_id)
    ]
    answer = api.act(game_id, {"type": "pass"}, tokens[seat])
    assert (answer.status, answer.code) == (409, "game_over")


def test_a_match_over_shows_each_seats_bank_as_it_was_left(api, tables, clock):
    game_id, tokens = timed_game(api, {"seconds_per_action": 30, "bank": 60, "on_timeout": "forfeit"})
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 40
    api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat])
    clock.now += 91
    assert enforce(tables) == 1
    view = api.view(game_id).body
    assert view["status"] == "forfeited" and view["clock"]["deadlines"] == [None, None]
    assert (view["clock"]["banks"][seat], view["clock"]["banks"][1 - seat]) == (50, 0)


def test_a_forfeit_loses_the_match_for_the_seat_s_whole_side(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30, "on_timeout": "forfeit"}, [{"name": "P"}] * 4, ruleset="partnership-batak")
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 31
    enforce(tables)
    assert api.view(game_id).body["winners"] == sorted([(seat + 1) % 4, (seat + 3) % 4])  # the other team


def test_a_computer_seat_has_no_deadline(api):
    game_id, _ = timed_game(api, {"seconds_per_action": 30}, [{"name": "Ayşe"}, {"bot": "basic"}])
    view = api.view(game_id).body
    assert view["clock"]["deadlines"][1] is None and view["to_act"] == [0]


@pytest.mark.parametrize("other", [{"name": "Bora"}, {"bot": "random"}])
def test_an_actions_answer_shows_the_deadline_of_the_seat_now_to_act_from_the_moment_it_came_to_act(api, clock, other):
    game_id, tokens = timed_game(api, {"seconds_per_action": 30}, [{"name": "Ayşe"}, other])
    view = api.view_when(game_id, lambda seen: [seat for seat in seen["to_act"] if seat in tokens])  # a person's turn
    (seat,) = view["to_act"]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    clock.now += 10
    answer = api.act(game_id, action, tokens[seat], **{"Idempotency-Key": "first-move"})
    (now_to_act,) = answer.body["to_act"]
    expected = [iso(clock.now + 30) if index == now_to_act else None for index in range(2)]
    assert answer.body["clock"]["deadlines"] == expected == api.view(game_id).body["clock"]["deadlines"]
    retried = api.act(game_id, action, tokens[seat], **{"Idempotency-Key": "first-move"})
    assert retried.body["clock"]["deadlines"] == expected


def test_an_actions_answer_that_waited_for_a_workers_reply_shows_the_deadline_as_stored(clock, backend):
    """The reply started the person's turn on the worker: the answer reads the game again rather
    than follow the reply's announcement, which does not carry the turn's start."""
    app = create_app(make_settings(replies_in_request=0), redis=backend)  # every computer move is a worker's
    app.extensions["koz"].timer = clock
    with WorkerThread(app.extensions["koz"]):
        api = FlaskClient(app.test_client())
        game_id, tokens = timed_game(api, {"seconds_per_action": 30}, [{"name": "Ayşe"}, {"bot": "random"}])
        api.view_when(game_id, lambda seen: seen["to_act"] == [0])
        clock.now += 10
        answer = api.act(game_id, api.view(game_id, tokens[0]).body["legal_actions"][0], tokens[0])
        assert answer.body["to_act"] == [0]  # the computer replied within the reply wait
        assert answer.body["clock"]["deadlines"] == [iso(clock.now + 30), None] == api.view(game_id).body["clock"]["deadlines"]
        clock.now += 30  # the worker's reply put that deadline on the clock check's schedule
        assert enforce(app.extensions["koz"]) == 1
    app.extensions["koz"].announcements.stop()


@pytest.mark.parametrize("first", ["the action", "the timeout"])
def test_an_action_and_its_clock_expiring_at_once_one_of_them_wins(api, tables, clock, monkeypatch, first):
    game_id, tokens = timed_game(api, {"seconds_per_action": 30})
    (seat,) = api.view(game_id).body["to_act"]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][-1]
    if first == "the action":  # in time (an action after the deadline meets its timeout: tests/test_api_table_rules.py)
        clock.now += 29.9
        assert api.act(game_id, action, tokens[seat]).status == 200
        clock.now += 1.1
        assert enforce(tables) == 0  # the deadline now is the other seat's, not due
        assert "timeout" not in [event["type"] for event in events(api, game_id)]
        return
    clock.now += 31
    commit, raced = tables.repository.commit, []

    def commit_after_the_timeout(table, expected, idempotency=None):
        if not raced:
            raced.append("timeout")  # first: the timeout's own commit goes through here too
            raced.append(enforce(tables))  # the clock check commits while the action is decided
        return commit(table, expected, idempotency)

    monkeypatch.setattr(tables.repository, "commit", commit_after_the_timeout)
    answer = api.act(game_id, action, tokens[seat])
    assert raced == ["timeout", 1] and (answer.status, answer.code) == (409, "not_your_turn")
    assert [event["type"] for event in events(api, game_id)].count("timeout") == 1


def test_a_rematch_keeps_the_clock(api, tables, clock):
    game_id, tokens = timed_game(api, {"seconds_per_action": 30, "on_timeout": "forfeit"})
    clock.now += 31
    enforce(tables)
    rematch = api.request("POST", f"/v1/games/{game_id}/rematch", token=tokens[0])
    assert rematch.status == 201 and rematch.body["view"]["clock"]["on_timeout"] == "forfeit"


def test_the_clock_check_runs_on_its_own_until_stopped(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30, "on_timeout": "forfeit"})
    stop = threading.Event()
    checker = threading.Thread(target=run, args=(tables, stop, 0.01))
    checker.start()
    try:
        clock.now += 31
        for _ in range(500):
            if api.view(game_id).body["status"] == "forfeited":
                break
            stop.wait(0.01)
    finally:
        stop.set()
        checker.join()
    assert api.view(game_id).body["status"] == "forfeited"


def test_leaving_as_the_clock_expires_applies_both_in_turn(api, tables, clock, monkeypatch):
    """The timeout commits while the leave is being applied: the leave's compare-and-set fails,
    its retry leaves the seat after the timed-out action, and no deadline runs for a computer."""
    game_id, tokens = timed_game(api, {"seconds_per_action": 30})
    (seat,) = api.view(game_id).body["to_act"]
    clock.now += 31
    commit, raced = tables.repository.commit, []

    def commit_after_the_timeout(table, expected, idempotency=None):
        if not raced:
            raced.append("timeout")
            raced.append(enforce(tables))
        return commit(table, expected, idempotency)

    monkeypatch.setattr(tables.repository, "commit", commit_after_the_timeout)
    left = api.request("POST", f"/v1/games/{game_id}/leave", json_body={}, token=tokens[seat])
    assert raced == ["timeout", 1] and left.status == 200
    kinds = [(event["type"], event.get("seat")) for event in events(api, game_id) if event["type"] in ("timeout", "action", "left")]
    assert kinds[:3] == [("timeout", seat), ("action", seat), ("left", seat)]
    assert api.view(game_id).body["clock"]["deadlines"][seat] is None


def test_the_clock_starts_when_the_last_open_seat_is_taken(api, tables, clock):
    game_id, _ = timed_game(api, {"seconds_per_action": 30}, [{"name": "Ayşe"}, {"open": True}])
    assert api.view(game_id).body["clock"]["deadlines"] == [None, None]
    clock.now += 100
    assert enforce(tables) == 0
    api.request("POST", f"/v1/games/{game_id}/seats/1", json_body={"name": "Bora"})
    view = api.view(game_id).body
    assert view["clock"]["deadlines"][view["to_act"][0]] == iso(clock.now + 30)
