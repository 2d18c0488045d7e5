"""The worker: computer moves leave the web request; the commit records them as due in the
game's slot, and workers claim them.

A move is made once however many workers race for it; a worker that dies with a move in hand
leaves it to another; a human's action waits a short, configured time for the replies.
"""

from __future__ import annotations

import fnmatch
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import fakeredis
import pytest
from redis import Redis
from redis.cluster import key_slot

from service import create_app
from service.due import DUE_SLOT_COUNT, DUE_SPACING, SLOTS, game_slot
from service.worker import BATCH, OTHER_SLOTS_PER_SWEEP, Worker
from tests.api import FlaskClient
from tests.conftest import drain, make_settings

KOZ = Path(sys.executable).with_name("koz")


def action_versions(api, game_id):
    return [event["version"] for event in api.whole_history(game_id)["events"] if event["type"] == "action"]


def computer_leads(api, seed_prefix: str):
    """A German Whist game of a human and a computer in which the computer is to lead."""
    for seed in range(40):
        created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed=f"{seed_prefix}-{seed}").body
        if api.view(created["id"]).body["to_act"] == [1]:
            return created["id"], created["tokens"][0]["token"]
    raise AssertionError("no seed lets the computer lead")


def due_score(store, game_id):
    return store.redis.zscore(store.due_key(game_slot(game_id)), game_id)


def test_a_commit_that_leaves_a_computer_to_move_records_it_in_the_games_slot(backend):
    app = create_app(make_settings(reply_wait_seconds=0, replies_in_request=0), redis=backend)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    listener = backend.pubsub()
    listener.psubscribe(store.computer_channel_pattern)
    assert listener.get_message(timeout=1)["type"] == "psubscribe"
    game_id, _ = computer_leads(api, "recorded")
    assert due_score(store, game_id) <= time.time()  # due now, in the same slot as the game
    announced = [message["data"] for message in iter(lambda: listener.get_message(timeout=0.2), None)]
    assert announced[-1] == game_id.encode()
    assert api.view(game_id).body["version"] == 0  # nobody moved it in a request
    drain(app)
    assert api.view(game_id).body["version"] == 1
    assert due_score(store, game_id) is None  # the human is to play: the move's commit dropped it
    listener.close()


def test_new_games_live_in_the_slots_a_worker_sweeps_and_a_tag_names_every_slot(backend):
    store = create_app(make_settings(), redis=backend).extensions["koz"].store
    ids = [store.new_game_id() for _ in range(50)]
    assert all(re.fullmatch("[0-9a-f]{16}", game_id) for game_id in ids)
    assert all(game_slot(game_id) % DUE_SPACING == 0 for game_id in ids)
    assert len({game_slot(game_id) for game_id in ids}) > 10  # spread over the swept slots, so over a cluster's nodes
    assert all(key_slot(store.due_key(slot).encode()) == slot for slot in range(SLOTS))


def test_a_games_computer_channel_is_in_its_slot_and_heard_by_the_workers_pattern(backend):
    store = create_app(make_settings(), redis=backend).extensions["koz"].store
    game_id = store.new_game_id()
    channel = store.computer_channel(game_id)
    assert key_slot(channel.encode()) == game_slot(game_id) and f"{{{game_id}}}" in channel
    assert fnmatch.fnmatchcase(channel, store.computer_channel_pattern)
    assert not fnmatch.fnmatchcase(store.computer_channel(game_id).replace(store.prefix, "other", 1), store.computer_channel_pattern)


def test_the_sweep_is_one_workers_for_its_period_then_free_for_another(backend):
    store = create_app(make_settings(), redis=backend).extensions["koz"].store
    assert store.take_sweep("first", 0.3)
    assert not store.take_sweep("second", 0.3)
    assert 0 < backend.pttl(f"{store.prefix}:sweep") <= 300
    time.sleep(0.4)
    assert store.take_sweep("second", 0.3)


def test_one_round_moves_each_game_it_claims_once(backend):
    """A worker does the games it heard of together: every game announced moves once, however
    often it was announced."""
    app = create_app(make_settings(reply_wait_seconds=0, replies_in_request=0), redis=backend)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    worker = Worker(app.extensions["koz"], "batcher")
    worker._next_sweep = time.monotonic() + 60  # only what it hears
    assert worker.work() == 0  # subscribed: it hears from now on
    games = [computer_leads(api, f"batch-{number}")[0] for number in range(3)]
    for game_id in games:
        backend.publish(store.computer_channel(game_id), game_id)  # a second announcement of each
    assert worker.work() == 3
    assert [api.view(game_id).body["version"] for game_id in games] == [1, 1, 1]
    assert [due_score(store, game_id) for game_id in games] == [None] * 3  # the human is to play now
    assert worker.work() == 0
    assert worker.drain() == 0
    assert [action_versions(api, game_id) for game_id in games] == [[1], [1], [1]]


def test_a_computer_move_that_fails_is_logged_and_the_rest_of_its_batch_is_played(backend, monkeypatch, caplog):
    app = create_app(make_settings(reply_wait_seconds=0, replies_in_request=0), redis=backend)
    api = FlaskClient(app.test_client())
    computers = app.extensions["koz"].computers
    failing, fine = (computer_leads(api, f"failing-{number}")[0] for number in range(2))
    decide = computers.decide

    def fails_in_one_game(game, seat, level):
        if game.id == failing:
            raise RuntimeError("a strategy's fault")
        return decide(game, seat, level)

    monkeypatch.setattr(computers, "decide", fails_in_one_game)
    played = computers.play_computers([failing, fine])
    assert played.written == {fine} and played.idle == {failing: 0}
    assert f"the computer move in game {failing} failed" in caplog.text
    assert [api.view(game_id).body["version"] for game_id in (failing, fine)] == [0, 1]


def test_a_batch_writes_its_moves_in_one_round_trip_and_after_a_long_decision_writes_what_it_has(backend, monkeypatch):
    """Moves decided quickly are written together; once a decision has taken long (an expert's),
    the moves decided so far are written before the next decision, not held up by it."""
    app = create_app(make_settings(reply_wait_seconds=0, replies_in_request=0), redis=backend)
    api = FlaskClient(app.test_client())
    computers, store = app.extensions["koz"].computers, app.extensions["koz"].store
    first, second, slow, after = (computer_leads(api, f"batched-{number}")[0] for number in range(4))
    clock = [1000.0]
    monkeypatch.setattr("service.computers.time", SimpleNamespace(monotonic=lambda: clock[0], perf_counter=time.perf_counter))
    decide = computers.decide

    def thinking(game, seat, level):
        if game.id == slow:
            clock[0] += 1.0
        return decide(game, seat, level)

    monkeypatch.setattr(computers, "decide", thinking)
    written: list[list[str]] = []
    commit_all = store.commit_all
    monkeypatch.setattr(store, "commit_all", lambda writes: written.append([write.game_id for write in writes]) or commit_all(writes))
    repository = app.extensions["koz"].repository
    monkeypatch.setattr(repository, "load", lambda game_id: pytest.fail(f"{game_id} read by itself: the batch reads its games in one round trip"))
    assert computers.play_computers([first, second, slow, after]).written == {first, second, slow, after}
    assert written == [[first, second, slow], [after]]


def test_a_due_entry_with_no_computer_to_move_is_dropped_unless_the_game_changed(backend):
    app = create_app(make_settings(reply_wait_seconds=0, replies_in_request=0), redis=backend)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}], seed="stale").body
    due = store.due_key(game_slot(created["id"]))
    backend.zadd(due, {created["id"]: 0, "gone": 0})  # as a crash could leave, and a game that expired
    backend.zadd(store.due_key(game_slot("gone")), {"gone": 0})
    assert Worker(app.extensions["koz"], "settler").drain() == 2
    assert backend.zscore(due, created["id"]) is None and backend.zscore(store.due_key(game_slot("gone")), "gone") is None
    assert api.view(created["id"]).body["version"] == 0
    store.settle(created["id"], 5)  # a stale settle (the game is at version 0) drops nothing
    backend.zadd(due, {created["id"]: 0})
    store.settle(created["id"], 5)
    assert backend.zscore(due, created["id"]) == 0


def test_a_human_action_waits_for_the_reply_only_as_long_as_configured(backend):
    app = create_app(make_settings(reply_wait_seconds=0.3, replies_in_request=0), redis=backend)  # no worker runs
    api = FlaskClient(app.test_client())
    game_id, token = computer_leads(api, "wait")
    drain(app)
    view = api.view(game_id, token).body
    started = time.monotonic()
    answer = api.act(game_id, view["legal_actions"][0], token)
    waited = time.monotonic() - started
    assert answer.status == 200 and answer.body["version"] == view["version"] + 1  # the committed view
    # at least the configured wait; and an answer, though no worker will ever reply (a generous
    # deadline: a slow machine must not fail it)
    assert 0.25 < waited < 30


def test_concurrent_workers_make_each_computer_move_exactly_once(backend):
    """Six workers on four games of computers, with every move announced many times over: the
    matches come out as one worker alone plays them (decisions are seeded by game and version),
    with one action per version."""
    seats = [{"bot": "random"}, {"bot": "basic"}]
    alone = create_app(make_settings(), redis=fakeredis.FakeRedis())
    solo = FlaskClient(alone.test_client())
    raced = create_app(make_settings(), redis=backend)
    api = FlaskClient(raced.test_client())
    store = raced.extensions["koz"].store
    games = {}
    for number in range(4):
        seed = f"race-{number}"
        raced_id = api.create(ruleset="german-whist", seats=seats, seed=seed).body["id"]
        games[raced_id] = solo.create(ruleset="german-whist", seats=seats, seed=seed).body["id"]
    drain(alone)

    def extra_announcements():  # duplicates of every announcement
        for _ in range(200):
            for game_id in games:
                backend.publish(store.computer_channel(game_id), game_id)
            time.sleep(0.01)

    stop = threading.Event()
    workers = [Worker(raced.extensions["koz"], f"racer-{number}", block_seconds=0.1) for number in range(6)]
    threads = [threading.Thread(target=worker.run, args=(stop,)) for worker in workers]
    threads.append(threading.Thread(target=extra_announcements))
    for thread in threads:
        thread.start()
    try:
        for game_id in games:
            assert api.finished_view(game_id)["status"] == "finished"
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    for game_id, twin in games.items():
        versions = action_versions(api, game_id)
        assert versions == list(range(1, len(versions) + 1))  # one action per version, none lost
        assert api.whole_history(game_id)["events"] == solo.whole_history(twin)["events"]


def test_a_move_claimed_by_a_dead_worker_is_taken_over_at_the_end_of_its_lease_and_made_once(backend):
    app = create_app(make_settings(reply_wait_seconds=0, replies_in_request=0), redis=backend)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    game_id, _ = computer_leads(api, "takeover")
    # a worker claims the move and dies before making it
    # (a lease of 2 s: "not yet" holds on a slow machine too)
    assert store.claim([game_id], 2) == [game_id]
    assert store.claim([game_id], 2) == []  # held
    survivor = Worker(app.extensions["koz"], "survivor")
    assert survivor.drain() == 0  # not abandoned long enough yet: nothing to do
    assert api.view(game_id).body["version"] == 0
    deadline = time.monotonic() + 30  # the survivor looks until the lease has passed
    while not (done := survivor.drain()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert done == 1
    assert api.view(game_id).body["version"] == 1
    assert action_versions(api, game_id) == [1]


@pytest.mark.redis_server
def test_a_killed_worker_process_leaves_its_move_to_another_worker(redis_server_url):
    """Two ``koz worker`` processes in turn on a real Redis: the first is killed (SIGKILL) while
    it holds a computer move; the second takes it over, and no move is made twice."""
    environment = {**os.environ, "REDIS_URL": redis_server_url, "KOZ_KEY_PREFIX": f"kill-{os.getpid()}", "KOZ_JOB_CLAIM_SECONDS": "1"}
    settings = make_settings(key_prefix=environment["KOZ_KEY_PREFIX"], reply_wait_seconds=0, replies_in_request=0)
    redis = Redis.from_url(redis_server_url)
    app = create_app(settings, redis=redis)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    # four expert computers: each decision takes a while, so the worker is caught holding one
    created = api.create(ruleset="partnership-batak", seats=[{"bot": "expert"}] * 4, seed="killed").body
    doomed = subprocess.Popen([str(KOZ), "worker"], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while (due_score(store, created["id"]) or 0) <= time.time():
            assert time.monotonic() < deadline, "the worker claimed no move"
            time.sleep(0.005)
        doomed.send_signal(signal.SIGKILL)
    finally:
        doomed.wait(10)
    assert due_score(store, created["id"]) > time.time()  # killed in the middle of its decision: still claimed
    version = api.view(created["id"]).body["version"]
    survivor = subprocess.Popen([str(KOZ), "worker"], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        view = api.view(created["id"]).body
        deadline = time.monotonic() + 60
        while view["version"] < version + 3:
            assert time.monotonic() < deadline, "the survivor did not take the move over"
            view = api.request("GET", f"/v1/games/{created['id']}?wait=5&after={view['version']}").body
    finally:
        survivor.terminate()
        assert survivor.wait(30) == 0
    versions = action_versions(api, created["id"])
    assert versions == list(range(1, len(versions) + 1))


def test_one_worker_of_the_fleet_sweeps_in_a_period(backend):
    app = create_app(make_settings(reply_wait_seconds=0, replies_in_request=0), redis=backend)
    api = FlaskClient(app.test_client())
    first, second = (Worker(app.extensions["koz"], name, sweep_seconds=30) for name in ("first", "second"))
    assert first.sweep() == []  # nothing due, but this period's sweep is the first's
    game_id, _ = computer_leads(api, "swept")
    assert second.sweep() == []  # not its turn: the move stays due
    assert second.sweep(shared=False) == [game_id]


class HeardSubscription:
    """A worker's subscription that hands over the messages given, then nothing, and records how
    long each look was allowed to wait."""

    def __init__(self, messages: list[dict]) -> None:
        self.messages = list(messages)
        self.waits: list[float] = []

    def get_message(self, timeout: float) -> dict | None:
        self.waits.append(timeout)
        return self.messages.pop(0) if self.messages else None


def idle_worker(fake_redis, name: str, **options) -> Worker:
    """A worker of an app with no game."""
    return Worker(create_app(make_settings(), redis=fake_redis).extensions["koz"], name, **options)


def listening(fake_redis, sweep_in: float, arena_in: float, messages=()) -> tuple[Worker, HeardSubscription]:
    worker = idle_worker(fake_redis, "listener", block_seconds=5.0)
    worker._subscription = subscription = HeardSubscription(list(messages))
    worker._next_sweep = time.monotonic() + sweep_in
    worker._next_arena = time.monotonic() + arena_in
    return worker, subscription


@pytest.mark.parametrize(
    "sweep_in, arena_in, wait",
    [(3.0, 60.0, 3.0), (60.0, 2.0, 2.0), (60.0, 60.0, 5.0), (-1.0, 60.0, 0.0), (60.0, -1.0, 0.0)],
    ids=["until its sweep", "until its arena pass", "its block time at most", "not past a sweep due", "not past a pass due"],
)
def test_a_waiting_worker_listens_until_its_next_sweep_or_arena_pass_and_no_longer(fake_redis, sweep_in, arena_in, wait):
    worker, subscription = listening(fake_redis, sweep_in, arena_in)
    assert worker._announced(block=True) == []
    assert subscription.waits == [pytest.approx(wait, abs=0.05)]
    worker._announced(block=False)
    assert subscription.waits[1] == 0.0  # a worker not told to wait only looks


def test_a_worker_hears_at_most_a_batch_of_games_at_once_waiting_only_for_the_first(fake_redis):
    announced = [{"type": "pmessage", "data": f"g{index}".encode()} for index in range(BATCH + 3)]
    worker, subscription = listening(fake_redis, 3.0, 60.0, announced)
    assert worker._announced(block=True) == [f"g{index}" for index in range(BATCH)]
    assert subscription.waits == [pytest.approx(3.0, abs=0.05)] + [0.0] * (BATCH - 1)
    assert worker._announced(block=True) == [f"g{index}" for index in range(BATCH, BATCH + 3)]


def test_a_worker_subscribed_afresh_sweeps_at_once_for_what_was_announced_before(fake_redis):
    worker, subscription = listening(fake_redis, 3.0, 60.0, [{"type": "psubscribe", "data": 1}, {"type": "pmessage", "data": b"g1"}])
    assert worker._announced(block=True) == ["g1"]
    assert subscription.waits[1:] == [0.0, 0.0] and worker._next_sweep == 0.0


def test_a_worker_sweeps_once_a_period_not_at_every_look(fake_redis, monkeypatch):
    worker = idle_worker(fake_redis, "sweeper", sweep_seconds=30)
    swept = []
    sweep = worker.sweep
    monkeypatch.setattr(worker, "sweep", lambda **options: swept.append(options) or sweep(**options))
    for _ in range(3):
        worker.work()
    assert swept == [{}]


def test_sweeps_go_round_every_slot_a_share_at_a_time(fake_redis, monkeypatch):
    """Each sweep looks at the slots of new games and the next share of the others, each slot
    once: every slot is seen within SLOTS / OTHER_SLOTS_PER_SWEEP sweeps."""
    worker = idle_worker(fake_redis, "rounds")
    asked: list[list[int]] = []
    monkeypatch.setattr(worker.store, "due_slots", lambda slots, now: asked.append(list(slots)) or [])
    for _ in range(SLOTS // OTHER_SLOTS_PER_SWEEP):
        worker.sweep(shared=False)
    new_games = {index * DUE_SPACING for index in range(DUE_SLOT_COUNT)}
    for slots in asked:
        assert len(slots) == len(set(slots)) and new_games <= set(slots) and len(set(slots) - new_games) <= OTHER_SLOTS_PER_SWEEP
    assert set().union(*asked) == set(range(SLOTS))
