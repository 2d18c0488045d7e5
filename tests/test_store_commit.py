"""The store's commit, engine-free and quick (no app, no game): what one write stores, where it
announces itself and which keys it touches, on fakeredis and on a real redis-server. ``make
mutate`` runs this file against the mutants of ``GameStore.prepare`` and ``commit_all``."""

from __future__ import annotations

import time
import uuid

import pytest
from redis import Redis
from redis.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import NoScriptError

from service.due import game_slot
from service.store import GameStore, ReplicationTimeout
from tests.redis_cluster import LocalCluster, started


#: a deadline (seconds of the epoch)
START = 1_800_000_000.0


def new_store(backend, **settings) -> GameStore:
    return GameStore(backend, ttl_seconds=60, prefix=f"commit-{uuid.uuid4().hex[:8]}", **settings)


def announcements(pubsub, count: int) -> list[tuple[bytes, bytes]]:
    """The next ``count`` messages of a subscription, as (channel, data), waiting at most 5 s."""
    heard: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + 5
    while len(heard) < count and time.monotonic() < deadline:
        message = pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05)
        if message is not None:
            heard.append((message["channel"], message["data"]))
    return heard


def test_a_commit_announces_its_version_on_the_games_channel_and_a_due_computer_on_the_computers_channel(backend):
    store = new_store(backend)
    pubsub = backend.pubsub()
    pubsub.subscribe(store.channel("g1"), store.computer_channel("g1"))
    announcements(pubsub, 0)
    store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}))
    store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"ab", computer_due=True))
    heard = announcements(pubsub, 3)
    pubsub.close()
    games, computers = store.channel("g1").encode(), store.computer_channel("g1").encode()
    # "<new version> <expected version> <log bytes appended>"; the computers' channel names the game
    assert heard == [(games, b"0 new "), (games, b"1 0 ab"), (computers, b"g1")]


def test_a_commit_records_a_due_computer_only_when_asked_and_clears_it_otherwise(backend):
    store = new_store(backend)
    due = store.due_key(game_slot("g1"))
    store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}))
    assert backend.zrange(due, 0, -1) == []
    store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"x", computer_due=True))
    assert backend.zrange(due, 0, -1) == [b"g1"]
    store.commit(store.prepare("g1", 1, 2, {"state": 3}, b"y", computer_due=False))
    assert backend.zrange(due, 0, -1) == []


def test_a_write_that_ends_an_arena_match_records_it_in_its_slot_once_and_no_other_write_does(backend):
    store = new_store(backend)
    ended = store.ended_key(key_slot(b"g1"))
    store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}))
    assert backend.zrange(ended, 0, -1) == []
    store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"x", arena_ended=True))
    first = backend.zscore(ended, "g1")
    assert backend.zrange(ended, 0, -1) == [b"g1"] and first is not None
    store.commit(store.prepare("g1", 1, 2, {"state": 3}, b"y", arena_ended=True))
    assert backend.zscore(ended, "g1") == first  # (ended once: a later write keeps when)
    store.forget_ended("g1")
    assert backend.zrange(ended, 0, -1) == []


def test_every_key_a_write_touches_on_a_cluster_is_in_its_games_slot_with_or_without_an_idempotency_key(backend):
    store = new_store(backend)
    store.cluster = True  # as a cluster's store prepares its writes
    slot = key_slot(b"g1")
    plain = store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}, deadline=START)
    keyed = store.prepare("g1", 0, 1, {"state": 2}, b"x", idempotency=(0, "key", {"version": 1}), deadline=START)
    for write in (plain, keyed):
        assert write.game_id == "g1"
        assert [key_slot(key.encode()) for key in write.keys] == [slot] * 5
    # without an idempotency key, nothing is stored under the answer's key
    assert store.commit(plain).written and store.commit(keyed).written
    assert not [key for key in backend.scan_iter(match=f"{store.prefix}:*idem*") if key.decode() != keyed.keys[2]]


def test_a_write_schedules_the_deadline_of_the_seat_to_act_in_the_same_compare_and_set(backend):
    store = new_store(backend)
    assert store.prepare("g1", None, 0, {"state": 1}, b"").keys[5] == store.prepare("g2", None, 0, {"state": 1}, b"").keys[5]  # one set
    assert store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}, deadline=START)).written
    assert store.due_clocks(START) == ["g1"] and store.due_clocks(START - 0.5) == []
    assert store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"x", deadline=START + 30)).written
    assert store.due_clocks(START + 29.5) == [] and store.due_clocks(START + 30) == ["g1"]
    assert not store.commit(store.prepare("g1", 0, 1, {"state": 3}, b"y", deadline=START + 5)).written  # stale: nothing written
    assert store.due_clocks(START + 29.5) == []
    assert store.commit(store.prepare("g1", 1, 2, {"state": 4}, b"z")).written  # no clock runs: the entry waits to be found so
    assert store.due_clocks(START + 30) == ["g1"]


def test_on_a_cluster_a_written_deadline_is_scheduled_just_after_the_compare_and_set(backend):
    store = new_store(backend)
    store.cluster = True  # the clocks are another slot's: scheduled beside the write
    writes = [store.prepare(game, None, 0, {"state": 1}, b"", setup={"seed": "s"}, deadline=START) for game in ("g1", "g2")]
    assert [commit.written for commit in store.commit_all(writes)] == [True, True]
    assert sorted(store.due_clocks(START)) == ["g1", "g2"]
    assert not store.commit(store.prepare("g1", 5, 6, {"state": 2}, b"x", deadline=START - 10)).written
    assert store.due_clocks(START - 5) == []


def test_a_games_setup_and_an_idempotent_answer_are_stored_as_compact_json(backend):
    store = new_store(backend)
    setup = {"seed": "s", "ruleset": "german-whist", "seats": [{"name": "Ayşe"}]}
    answer = {"version": 1, "events": [{"type": "trick", "seat": 0}]}
    store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup=setup))
    store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"x", idempotency=(1, "key", answer)))
    stored_setup = backend.hget(store._key("g1", "game"), "setup")
    stored_answer = backend.get(store.prepare("g1", 1, 2, {}, b"", idempotency=(1, "key", {})).keys[2])
    assert stored_setup == b'{"seed":"s","ruleset":"german-whist","seats":[{"name":"Ay\\u015fe"}]}'
    assert stored_answer == b'{"version":1,"events":[{"type":"trick","seat":0}]}'
    assert store.load("g1").setup == setup


def test_a_finished_games_write_expires_after_its_own_time_and_others_after_the_stores(backend):
    store = new_store(backend)
    store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}))
    assert 55 < backend.ttl(store._key("g1", "game")) <= 60
    store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"x", ttl_seconds=5))
    assert 0 < backend.ttl(store._key("g1", "game")) <= 5 and 0 < backend.ttl(store._key("g1", "log")) <= 5


@pytest.mark.redis_server
def test_a_write_its_replicas_do_not_acknowledge_in_time_fails_as_not_replicated(redis_server_url):
    # a lone redis-server has no replica: WAIT answers 0 after the timeout, one write or a batch
    backend = Redis.from_url(redis_server_url)
    store = new_store(backend, replicas=1, replica_timeout=0.01)
    with pytest.raises(ReplicationTimeout, match="0 of 1 replicas"):
        store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}))
    assert store.version("g1") == 0  # written on the primary all the same: a retry finds it done
    with pytest.raises(ReplicationTimeout, match="0 of 1 replicas"):
        store.commit_all([store.prepare("g1", 0, 1, {"state": 2}, b"x"), store.prepare("g2", None, 0, {}, b"", setup={})])
    assert (store.version("g1"), store.version("g2")) == (1, 0)


def test_a_batch_of_writes_survives_a_server_that_lost_its_scripts(backend):
    store = new_store(backend)
    store.commit(store.prepare("g0", None, 0, {"state": 1}, b"", setup={"seed": "z"}))
    backend.script_flush()  # as after a restart of Redis: the batch's EVALSHAs find no script
    outcomes = store.commit_all([store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "a"}), store.prepare("g0", 0, 1, {"state": 2}, b"x")])
    assert [(outcome.written, outcome.version) for outcome in outcomes] == [(True, 0), (True, 1)]
    assert store.log("g0") == b"x"


def test_a_server_that_keeps_losing_its_scripts_fails_the_batch_after_one_reload_rather_than_looping(backend):
    store = new_store(backend)
    reloads = []
    backend.script_load = lambda script: reloads.append(script)  # a server that forgets them at once
    backend.script_flush()
    with pytest.raises(NoScriptError):
        store.commit_all([store.prepare("g1", None, 0, {}, b"", setup={}), store.prepare("g2", None, 0, {}, b"", setup={})])
    assert reloads == [store._commit.script] * 2 and store.version("g1") is None


@pytest.fixture(scope="module")
def one_node_cluster():
    """A Redis Cluster of one primary holding every slot: the store's cluster paths, quickly."""
    local = started(LocalCluster(primaries=1))
    try:
        yield local.url
    finally:
        local.stop()


@pytest.mark.redis_server
def test_on_a_cluster_each_write_of_a_batch_is_made_by_itself_and_without_replicas_fails_as_not_replicated(one_node_cluster):
    store = new_store(RedisCluster.from_url(one_node_cluster))
    outcomes = store.commit_all([store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "a"}), store.prepare("g2", 5, 6, {}, b"x")])
    assert [(outcome.written, outcome.version, outcome.missing) for outcome in outcomes] == [(True, 0, False), (False, None, True)]
    assert store.load("g1").setup == {"seed": "a"}
    replicated = new_store(RedisCluster.from_url(one_node_cluster), replicas=1, replica_timeout=0.01)
    with pytest.raises(ReplicationTimeout, match="0 of 1 replicas"):
        replicated.commit(replicated.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "b"}))
    assert replicated.load("g1").setup == {"seed": "b"}  # written on the primary all the same
