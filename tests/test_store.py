"""The store's guarantees, on fakeredis and on a real redis-server: atomic compare-and-set, no
move lost or applied twice under races, hashed tokens, hash-tagged keys, expiry."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from redis import Redis

from service import create_app
from service.due import DUE_SPACING, game_slot
from service.store import GameStore
from tests.api import FlaskClient
from tests.conftest import make_settings

TWO_HUMANS = [{"name": "Ayşe"}, {"name": "Bora"}]


@pytest.fixture
def api(any_app):
    return FlaskClient(any_app.test_client())


def new_game(api, **body):
    answer = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="store", **body)
    return answer.body["id"], {entry["seat"]: entry["token"] for entry in answer.body["tokens"]}


def game_keys(redis: Redis, game_id: str) -> list[bytes]:
    return [key for key in redis.scan_iter(match="*") if game_id.encode() in key]


def race(calls):
    """Run the calls at the same moment in threads; their answers, in order."""
    barrier = threading.Barrier(len(calls))
    answers = [None] * len(calls)

    def run(index, call):
        barrier.wait()
        answers[index] = call()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_racing_the_same_move_applies_it_exactly_once(any_app):
    api = FlaskClient(any_app.test_client())
    game_id, tokens = new_game(api)
    (seat,) = api.view(game_id).body["to_act"]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    clients = [FlaskClient(any_app.test_client()) for _ in range(6)]
    answers = race([lambda client=client: client.act(game_id, action, tokens[seat]) for client in clients])
    assert sorted(answer.status for answer in answers) == [200] + [409] * 5
    assert {answer.code for answer in answers if answer.status == 409} == {"not_your_turn"}
    assert api.view(game_id).body["version"] == 1
    assert len([e for e in api.history(game_id).body["events"] if e["type"] == "action"]) == 1


def test_racing_moves_with_if_match_exactly_one_wins(any_app):
    api = FlaskClient(any_app.test_client())
    game_id, tokens = new_game(api)
    (seat,) = api.view(game_id).body["to_act"]
    legal = api.view(game_id, tokens[seat]).body["legal_actions"]
    clients = [FlaskClient(any_app.test_client()) for _ in range(4)]
    answers = race(
        [
            lambda client=client, action=legal[i % len(legal)]: client.act(game_id, action, tokens[seat], **{"If-Match": 'W/"0"'})
            for i, client in enumerate(clients)
        ]
    )
    assert sorted(answer.status for answer in answers)[0] == 200
    assert [answer.status for answer in answers].count(200) == 1
    assert {answer.code for answer in answers if answer.status != 200} <= {"stale_version"}


def test_racing_retries_of_one_idempotent_move_give_one_answer(any_app):
    api = FlaskClient(any_app.test_client())
    game_id, tokens = new_game(api)
    (seat,) = api.view(game_id).body["to_act"]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    clients = [FlaskClient(any_app.test_client()) for _ in range(4)]
    answers = race([lambda client=client: client.act(game_id, action, tokens[seat], **{"Idempotency-Key": "once"}) for client in clients])
    assert all(answer.status == 200 for answer in answers)
    assert all(answer.body == answers[0].body for answer in answers)
    assert api.view(game_id).body["version"] == 1


def test_every_key_of_a_game_shares_its_hash_tag(any_app, backend):
    api = FlaskClient(any_app.test_client())
    game_id, tokens = new_game(api)
    (seat,) = api.view(game_id).body["to_act"]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    api.act(game_id, action, tokens[seat], **{"Idempotency-Key": "tagged"})
    keys = game_keys(backend, game_id)
    assert len(keys) == 3  # game, action log, idempotent answer
    assert all(f"{{{game_id}}}".encode() in key for key in keys)


def test_tokens_are_stored_only_as_hashes(any_app, backend):
    api = FlaskClient(any_app.test_client())
    game_id, tokens = new_game(api)
    stored = b"".join(b"".join(backend.hgetall(key).values()) for key in game_keys(backend, game_id) if key.endswith(b":game"))
    assert b"token_hash" in stored and not any(token.encode() in stored for token in tokens.values())


def test_idle_games_expire_after_the_configured_time(backend):
    app = create_app(make_settings(game_ttl_seconds=120), redis=backend)
    api = FlaskClient(app.test_client())
    game_id, _ = new_game(api)
    for key in game_keys(backend, game_id):
        assert 0 < backend.ttl(key) <= 120


def test_an_expired_game_is_gone(redis_server_url):
    redis = Redis.from_url(redis_server_url)
    app = create_app(make_settings(game_ttl_seconds=1), redis=redis)
    api = FlaskClient(app.test_client())
    game_id, _ = new_game(api)
    time.sleep(2.2)
    assert api.view(game_id).code == "unknown_game"


def test_acting_renews_the_expiry(backend):
    app = create_app(make_settings(game_ttl_seconds=60), redis=backend)
    api = FlaskClient(app.test_client())
    game_id, tokens = new_game(api)
    record = next(key for key in game_keys(backend, game_id) if key.endswith(b":game"))
    backend.expire(record, 5)
    (seat,) = api.view(game_id).body["to_act"]
    api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat])
    assert backend.ttl(record) > 5


def test_long_poll_wakes_when_another_request_moves(any_app):
    api = FlaskClient(any_app.test_client())
    game_id, tokens = new_game(api)
    (seat,) = api.view(game_id).body["to_act"]
    action = api.view(game_id, tokens[seat]).body["legal_actions"][0]
    mover = FlaskClient(any_app.test_client())

    def move_soon():
        time.sleep(0.3)
        mover.act(game_id, action, tokens[seat])

    threading.Thread(target=move_soon).start()
    started = time.monotonic()
    answer = FlaskClient(any_app.test_client()).request("GET", f"/v1/games/{game_id}?wait=10&after=0")
    assert answer.body["version"] == 1
    assert time.monotonic() - started < 5


def test_a_commit_that_records_a_computer_move_survives_a_server_that_lost_its_scripts(backend):
    store = GameStore(backend, ttl_seconds=60, prefix=f"flushed-{uuid.uuid4().hex[:8]}")
    backend.script_flush()  # as after a restart of Redis
    commit = store.commit(store.prepare("g1", None, 0, {"state": "s"}, b"", setup={"seed": "s"}, computer_due=True))
    assert commit.written
    assert backend.zrange(store.due_key(game_slot("g1")), 0, -1) == [b"g1"]
    stored = store.load("g1")
    assert (stored.setup, stored.snapshot) == ({"seed": "s"}, {"state": "s"})


class CountedScript:
    """The store's commit script, counting the calls made one write at a time."""

    def __init__(self, script) -> None:
        self.script, self.sha, self.calls = script, script.sha, 0

    def __call__(self, **arguments):
        self.calls += 1
        return self.script(**arguments)


def test_a_batch_of_writes_is_one_round_trip_each_atomic_by_itself_and_one_write_is_one_call(backend):
    store = GameStore(backend, ttl_seconds=60, prefix=f"batch-{uuid.uuid4().hex[:8]}")
    counted = store._commit = CountedScript(store._commit)
    store.commit(store.prepare("g0", None, 0, {"state": 1}, b"", setup={"seed": "z"}))  # Redis has the script now
    counted.calls = 0
    one = store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "a"}))
    assert (one.written, one.version, counted.calls) == (True, 0, 1)
    writes = [
        store.prepare("g1", 0, 1, {"state": 2}, b"x"),  # the next version
        store.prepare("g1", 0, 1, {"state": 3}, b"y"),  # a stale one: version 0 has passed
        store.prepare("g2", None, 0, {"state": 1}, b"", setup={"seed": "b"}),
        store.prepare("g3", 5, 6, {"state": 1}, b"z"),  # no such game
    ]
    outcomes = store.commit_all(writes)
    assert counted.calls == 1  # the batch went in one pipeline, not one call per write
    expected = [(True, 1, False), (False, 1, False), (True, 0, False), (False, None, True)]
    assert [(outcome.written, outcome.version, outcome.missing) for outcome in outcomes] == expected
    assert store.log("g1") == b"x" and store.version("g1") == 1 and store.version("g3") is None


def test_an_idempotent_write_keeps_its_answer_under_its_seat_and_key_and_a_retry_gets_that_answer(backend):
    store = GameStore(backend, ttl_seconds=60, prefix=f"idem-{uuid.uuid4().hex[:8]}")
    store.commit(store.prepare("g1", None, 0, {"state": 1}, b"", setup={"seed": "s"}))
    answer = {"version": 1, "events": [{"type": "trick"}]}
    assert store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"x", idempotency=(1, "key-1", answer))).written
    assert store.idempotent_answer("g1", 1, "key-1") == answer
    assert store.idempotent_answer("g1", 0, "key-1") is None and store.idempotent_answer("g1", 1, "key-2") is None
    retry = store.commit(store.prepare("g1", 0, 1, {"state": 2}, b"x", idempotency=(1, "key-1", answer)))
    assert (retry.written, retry.earlier_answer) == (False, answer)


def test_the_ended_arena_matches_are_read_oldest_first_up_to_the_count_from_each_slot_and_forgotten_one_by_one(backend):
    store = create_app(make_settings(), redis=backend).extensions["koz"].store
    backend.zadd(store.ended_key(0), {"a1": 1, "a2": 2, "a3": 3})
    backend.zadd(store.ended_key(DUE_SPACING), {"b1": 1})
    assert sorted(store.ended_arena_games(10)) == ["a1", "a2", "a3", "b1"]
    assert sorted(store.ended_arena_games(2)) == ["a1", "a2", "b1"]
    assert sorted(store.ended_arena_games(1)) == ["a1", "b1"]
    game_id = store.new_game_id()
    backend.zadd(store.ended_key(game_slot(game_id)), {game_id: 4})
    assert game_id in store.ended_arena_games(10)
    store.forget_ended(game_id)
    assert game_id not in store.ended_arena_games(10)
