"""The worker: computer moves leave the web request for a queue (a Redis Streams consumer group).

A move is made once however many workers race for it; a worker that dies with a move in hand
leaves it to another; a human's action waits a short, configured time for the replies.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import fakeredis
import pytest
from redis import Redis

from service import create_app
from service.worker import GROUP, Worker
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


def test_a_commit_that_leaves_a_computer_to_move_queues_one_job_for_it(backend):
    app = create_app(make_settings(reply_wait_seconds=0), redis=backend)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    game_id, _ = computer_leads(api, "queued")
    entries = backend.xrange(store.jobs_key)
    assert [fields[b"game"].decode() for _, fields in entries][-1] == game_id
    assert api.view(game_id).body["version"] == 0  # nobody moved it in a request
    drain(app)
    assert api.view(game_id).body["version"] == 1
    assert backend.xlen(store.jobs_key) == 0  # done entries are acknowledged and deleted


def test_one_read_of_the_queue_moves_each_game_it_names_once(backend):
    """A worker does the jobs of one read together: every game named moves once, however many
    jobs name it, and the write of each move acknowledges every job of its game."""
    app = create_app(make_settings(reply_wait_seconds=0), redis=backend)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    games = [computer_leads(api, f"batch-{number}")[0] for number in range(3)]
    for game_id in games:
        backend.xadd(store.jobs_key, {"game": game_id})  # a second job for each game
    worker = Worker(app.extensions["koz"], "batcher")
    worker.join_group()
    assert worker.work() == 6
    assert [api.view(game_id).body["version"] for game_id in games] == [1, 1, 1]
    assert backend.xpending(store.jobs_key, GROUP)["pending"] == 0
    assert backend.xlen(store.jobs_key) == 0  # and deleted: the human is to play now
    assert worker.drain() == 0
    assert [action_versions(api, game_id) for game_id in games] == [[1], [1], [1]]


def test_a_human_action_waits_for_the_reply_only_as_long_as_configured(backend):
    app = create_app(make_settings(reply_wait_seconds=0.3), redis=backend)  # no worker runs
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
    """Six workers on four games of computers, with every job queued three times over: the
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

    def extra_jobs():  # duplicates of every job, as a crash between two steps could leave
        for _ in range(200):
            for game_id in games:
                backend.xadd(store.jobs_key, {"game": game_id})
            time.sleep(0.01)

    stop = threading.Event()
    workers = [Worker(raced.extensions["koz"], f"racer-{number}", block_seconds=0.1) for number in range(6)]
    threads = [threading.Thread(target=worker.run, args=(stop,)) for worker in workers]
    threads.append(threading.Thread(target=extra_jobs))
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


def test_a_job_left_by_a_dead_worker_is_taken_over_and_done_once(backend):
    # a claim window of a minute: "not abandoned long enough yet" holds on a slow machine too
    app = create_app(make_settings(job_claim_seconds=60, reply_wait_seconds=0), redis=backend)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    game_id, _ = computer_leads(api, "takeover")
    worker = Worker(app.extensions["koz"], "survivor")
    worker.join_group()
    # a worker takes the job and dies before making the move: the entry stays pending, its own
    backend.xreadgroup(GROUP, "dead", {store.jobs_key: ">"})
    assert worker.work() == 0  # not abandoned long enough yet: nothing to do
    assert api.view(game_id).body["version"] == 0
    worker.claim_ms = 200  # now a short window, and the survivor looks until it has passed
    deadline = time.monotonic() + 30
    while True:
        worker._next_claim = 0  # its next look for abandoned entries is due now
        if (done := worker.drain()) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert done == 1
    assert api.view(game_id).body["version"] == 1
    assert backend.xpending(store.jobs_key, GROUP)["pending"] == 0
    assert action_versions(api, game_id) == [1]


@pytest.mark.redis_server
def test_a_killed_worker_process_leaves_its_move_to_another_worker(redis_server_url):
    """Two ``koz worker`` processes in turn on a real Redis: the first is killed (SIGKILL) while
    it holds a computer move; the second takes it over, and no move is made twice."""
    environment = {**os.environ, "REDIS_URL": redis_server_url, "KOZ_KEY_PREFIX": f"kill-{os.getpid()}", "KOZ_JOB_CLAIM_SECONDS": "1"}
    settings = make_settings(key_prefix=environment["KOZ_KEY_PREFIX"], reply_wait_seconds=0)
    redis = Redis.from_url(redis_server_url)
    app = create_app(settings, redis=redis)
    api = FlaskClient(app.test_client())
    store = app.extensions["koz"].store
    Worker(app.extensions["koz"]).join_group()
    # four expert computers: each decision takes a while, so the worker is caught holding one
    created = api.create(ruleset="partnership-batak", seats=[{"bot": "expert"}] * 4, seed="killed").body
    doomed = subprocess.Popen([str(KOZ), "worker"], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while redis.xpending(store.jobs_key, GROUP)["pending"] == 0:
            assert time.monotonic() < deadline, "the worker took no job"
            time.sleep(0.005)
        doomed.send_signal(signal.SIGKILL)
    finally:
        doomed.wait(10)
    dead = f"{socket.gethostname()}-{doomed.pid}"
    held = {entry["name"].decode(): entry["pending"] for entry in redis.xinfo_consumers(store.jobs_key, GROUP)}
    assert held[dead] == 1  # killed in the middle of its decision
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
    held = {entry["name"].decode(): entry["pending"] for entry in redis.xinfo_consumers(store.jobs_key, GROUP)}
    assert held[dead] == 0  # its move was taken over
