"""Redis faults, on a real redis-server of the test's own: a stalled Redis is a 503 once the
client's timeout passes, never a hang; readiness says so; requests recover by themselves when
Redis returns; a full Redis refuses new games while the running ones go on. No test times the
service against the clock: each waits for its answer within a generous deadline."""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time

import fakeredis
import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError, ResponseError

from engine.players import level_names
from service import create_app
from service.api import storage_problem
from service.arena.matchmaker import Matchmaker
from service.redis_pool import StorageBusy
from service.texts import DETAILS
from tests.api import FlaskClient
from tests.test_arena_api import bearer, events
from tests.conftest import make_settings
from tests.redis_process import RedisProcess

pytestmark = pytest.mark.redis_server

TIMEOUT = 0.5


@pytest.fixture
def redis_process(tmp_path):
    server = RedisProcess(tmp_path)
    yield server
    server.stop()


@pytest.fixture
def api(redis_process):
    # with rate limits, as served by default: they are counted in the same Redis
    limits = {"rate_limit_create": "1000/minute", "rate_limit_actions": "1000/minute"}
    app = create_app(make_settings(redis_url=redis_process.url, redis_connect_timeout=TIMEOUT, redis_timeout=TIMEOUT, **limits))
    return FlaskClient(app.test_client())


#: a request to a stalled or dead Redis answers after the client's timeout (TIMEOUT), where one
#: without it would hang: this generous deadline tells the two apart on a slow machine too
DEADLINE = 30


def answered(call, seconds: float = DEADLINE):
    """The answer of ``call()``, which must come within ``seconds``."""
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: answers.put(call()), daemon=True).start()
    try:
        return answers.get(timeout=seconds)
    except queue.Empty:
        raise AssertionError(f"no answer within {seconds} s: the request hangs") from None


def new_game(api) -> tuple[str, dict[int, str]]:
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}], seed="faults").body
    return created["id"], {entry["seat"]: entry["token"] for entry in created["tokens"]}


def play_one(api, game_id: str, tokens: dict[int, str]):
    seat = api.view(game_id).body["to_act"][0]
    legal = api.view(game_id, tokens[seat]).body["legal_actions"]
    return api.act(game_id, legal[0], tokens[seat])


def test_a_stalled_redis_answers_503_storage_unavailable_within_the_timeout(api, redis_process):
    game_id, tokens = new_game(api)
    redis_process.pause()
    try:
        for call in (lambda: api.view(game_id), lambda: api.create(ruleset="german-whist"), lambda: api.history(game_id)):
            answer = answered(call)
            assert (answer.status, answer.code) == (503, "storage_unavailable")
            assert answer.headers["Retry-After"] == "1"
    finally:
        redis_process.resume()


def test_readyz_reports_a_stalled_redis_instead_of_hanging(api, redis_process):
    assert api.request("GET", "/readyz").status == 200
    redis_process.pause()
    try:
        answer = answered(lambda: api.request("GET", "/readyz"))
        assert (answer.status, answer.code) == (503, "storage_unavailable")
    finally:
        redis_process.resume()


def test_requests_recover_by_themselves_once_a_stalled_redis_resumes(api, redis_process):
    game_id, tokens = new_game(api)
    redis_process.pause()
    assert api.view(game_id).status == 503
    redis_process.resume()
    assert api.request("GET", "/readyz").status == 200
    assert play_one(api, game_id, tokens).status == 200


def test_requests_recover_by_themselves_once_a_killed_redis_is_back_and_no_acknowledged_action_is_lost(api, redis_process):
    game_id, tokens = new_game(api)
    acted = play_one(api, game_id, tokens)
    assert acted.status == 200
    redis_process.kill()
    answer = answered(lambda: api.view(game_id))
    assert (answer.status, answer.code) == (503, "storage_unavailable")
    redis_process.start()  # on its append-only file
    assert api.view(game_id).body["version"] == acted.body["version"]


def test_every_redis_client_the_app_makes_has_timeouts_and_no_automatic_retry(redis_process):
    app = create_app(make_settings(redis_url=redis_process.url, redis_connect_timeout=0.3, redis_timeout=0.7))
    store_pool = app.extensions["koz"].store.redis.connection_pool
    assert store_pool.connection_kwargs["socket_connect_timeout"] == 0.3
    assert store_pool.connection_kwargs["socket_timeout"] == 0.7
    assert store_pool.connection_kwargs["retry"].get_retries() == 0
    readiness_pool = app.extensions["koz_readiness"].connection_pool
    assert readiness_pool.connection_kwargs["socket_timeout"] <= 0.5


@pytest.fixture
def small_redis(tmp_path):
    server = RedisProcess(tmp_path, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
    yield server
    server.stop()


def test_a_nearly_full_redis_refuses_new_games_with_503_capacity_while_running_games_go_on(small_redis):
    api = FlaskClient(create_app(make_settings(redis_url=small_redis.url)).test_client())
    game_id, tokens = new_game(api)
    filler = Redis.from_url(small_redis.url)
    limit = int(filler.config_get("maxmemory")["maxmemory"])
    number = 0
    while int(filler.info("memory")["used_memory"]) < limit * 0.93:
        filler.set(f"filler:{number}", b"x" * 8192)
        number += 1
    # the service reads the memory use at most once a second: games are created until it has
    deadline = time.monotonic() + DEADLINE
    while (refused := api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}])).status == 201:
        assert time.monotonic() < deadline, "new games were still accepted"
        time.sleep(0.1)
    assert (refused.status, refused.code) == (503, "capacity")
    assert "Retry-After" in refused.headers
    assert play_one(api, game_id, tokens).status == 200


def test_a_redis_that_refuses_a_write_for_lack_of_memory_answers_503_capacity(small_redis):
    api = FlaskClient(create_app(make_settings(redis_url=small_redis.url)).test_client())
    game_id, tokens = new_game(api)
    filler = filled_to_the_brim(small_redis.url)
    with pytest.raises(OutOfMemoryError):
        filler.set("filler:last", b"x")
    answer = play_one(api, game_id, tokens)
    assert (answer.status, answer.code) == (503, "capacity")


def filled_to_the_brim(url: str) -> Redis:
    """Fill the Redis at ``url`` until it refuses every write for lack of memory; a client of it."""
    filler = Redis.from_url(url)
    with pytest.raises(OutOfMemoryError):
        for number in itertools.count():
            filler.set(f"filler:{number}", b"x" * 8192)
    # filled to the brim, Redis frees a little on its own (idle clients' buffers shrink), which
    # may let a small write in again: a limit well under the use keeps every write refused
    used = int(filler.info("memory")["used_memory"])
    filler.config_set("maxmemory", used - used // 4)
    return filler


def test_a_full_redis_takes_out_no_challenge_it_cannot_start_nor_seeks_it_cannot_pair(small_redis):
    """Taking a challenge or seeks out deletes (which a full Redis still does), and putting them
    back when their game is refused would write (which it does not): the arena asks whether a game
    can be made before it takes anything out. Accepted and paired once there is room."""
    app = create_app(make_settings(redis_url=small_redis.url))
    client = app.test_client()
    ayla, berk, cem, derya = (client.post("/v1/accounts", json={"name": name}).get_json()["key"] for name in ("Ayla", "Berk", "Cem", "Derya"))
    made = client.post("/v1/arena/challenges", json={"to": "Berk", "ruleset": "german-whist"}, headers=bearer(ayla)).get_json()
    for key in (cem, derya):
        assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)).status_code == 201
    arena = app.extensions["koz_arena"]
    for level in level_names("sixty-six"):
        arena.accounts.house(level)  # (made the first time a pass reads them: a write)
    filler = filled_to_the_brim(small_redis.url)
    refused = client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk))
    assert (refused.status_code, refused.get_json()["code"]) == (503, "capacity")
    matchmaker = Matchmaker(arena)
    assert matchmaker.run_pass() == 0
    filler.config_set("maxmemory", 0)
    assert client.get("/v1/arena/challenges", headers=bearer(berk)).get_json()["challenges"] == [made]
    assert [len(client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"]) for key in (cem, derya)] == [1, 1]
    assert client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk)).status_code == 200
    assert matchmaker.run_pass() == 1


def test_a_pass_held_back_by_a_full_redis_is_logged_when_it_begins_and_when_it_ends_not_at_every_pass(small_redis, caplog):
    """A worker passes twice a second: a warning at each, for each ruleset, would bury the log."""
    app = create_app(make_settings(redis_url=small_redis.url))
    client = app.test_client()
    for name in ("Cem", "Derya"):
        key = client.post("/v1/accounts", json={"name": name}).get_json()["key"]
        assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)).status_code == 201
    arena = app.extensions["koz_arena"]
    for level in level_names("sixty-six"):
        arena.accounts.house(level)  # (made the first time a pass reads them: a write)
    matchmaker = Matchmaker(arena)
    redis = Redis.from_url(small_redis.url)
    for number in range(200):  # (so that what Redis uses for its clients, which comes and goes, is a small share)
        redis.set(f"filler:{number}", b"x" * 8192)
    used = int(redis.info("memory")["used_memory"])
    caplog.set_level(logging.INFO, logger="service.arena.matchmaker")
    redis.config_set("maxmemory", int(used / 0.95))  # nearly full: writes taken, no new game
    assert [matchmaker.run_pass() for _ in range(3)] == [0, 0, 0]
    redis.config_set("maxmemory", used - used // 4)  # full: every write refused
    assert [matchmaker.run_pass() for _ in range(3)] == [0, 0, 0]
    redis.config_set("maxmemory", 0)
    assert [matchmaker.run_pass() for _ in range(3)] == [1, 0, 0]
    assert [(record.levelname, record.getMessage()) for record in caplog.records if "started" not in record.getMessage()] == [
        ("WARNING", "arena: the store is nearly full: sixty-six's seeks wait in the queue"),
        ("WARNING", "arena: no pass while Redis refuses writes for lack of memory"),
        ("INFO", "arena: passes again: Redis takes writes"),
        ("INFO", "arena: the store has room again: sixty-six's seeks are paired"),
    ]


def test_a_full_redis_declines_withdraws_or_expires_no_challenge_it_could_not_tell_the_other_side_of(small_redis):
    """Ending a challenge takes it out (a delete, which a full Redis makes) and tells the other side
    (a write, which it refuses): asked while Redis refuses writes, a decline or a withdrawal is a
    503 that changes nothing, and the pass ends nothing; once there is room, each is done and told."""
    app = create_app(make_settings(redis_url=small_redis.url))
    client = app.test_client()
    arena = app.extensions["koz_arena"]
    ayla, berk = (client.post("/v1/accounts", json={"name": name}).get_json()["key"] for name in ("Ayla", "Berk"))
    declined, withdrawn, expiring = (
        client.post("/v1/arena/challenges", json={"to": "Berk", "ruleset": ruleset}, headers=bearer(ayla)).get_json()
        for ruleset in ("german-whist", "sixty-six", "partnership-batak")
    )
    real = arena.timer
    filler = filled_to_the_brim(small_redis.url)
    refused = [
        client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer(berk)),
        client.delete(f"/v1/arena/challenges/{withdrawn['id']}", headers=bearer(ayla)),
    ]
    assert [(answer.status_code, answer.get_json()["code"]) for answer in refused] == [(503, "capacity")] * 2
    arena.timer = lambda: real() + arena.settings.arena_seek_seconds + 1
    assert Matchmaker(arena).run_pass() == 0
    arena.timer = real
    filler.config_set("maxmemory", 0)
    assert len(client.get("/v1/arena/challenges", headers=bearer(berk)).get_json()["challenges"]) == 3
    assert client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer(berk)).status_code == 204
    assert client.delete(f"/v1/arena/challenges/{withdrawn['id']}", headers=bearer(ayla)).status_code == 204
    arena.timer = lambda: real() + arena.settings.arena_seek_seconds + 1
    assert Matchmaker(arena).run_pass() == 1
    told = {key: [(event["type"], event["challenge"]["id"]) for event in events(app, key) if event["type"] != "challenge"] for key in (ayla, berk)}
    assert told[ayla] == [("challenge_declined", declined["id"]), ("challenge_expired", expiring["id"])]
    assert told[berk] == [("challenge_withdrawn", withdrawn["id"]), ("challenge_expired", expiring["id"])]


@pytest.mark.parametrize(
    "error, status, code, retry_after, detail",
    [
        (OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), 503, "capacity", "60", "store_full"),
        (ResponseError("OOM command not allowed when used memory > 'maxmemory'. script: 1a2b"), 503, "capacity", "60", "store_full"),
        (StorageBusy("4096 requests wait for a Redis connection already"), 503, "busy", "1", "storage_busy"),
        (RedisConnectionError("Connection refused"), 503, "storage_unavailable", "1", "store_unavailable"),
        (ResponseError("ERR wrong number of arguments"), 503, "storage_unavailable", "1", "store_unavailable"),
    ],
    ids=["out of memory", "out of memory inside a script", "too many waiting", "connection lost", "another error"],
)
def test_each_failure_of_the_store_is_answered_as_what_it_says_and_when_to_come_back(error, status, code, retry_after, detail):
    app = create_app(make_settings(), redis=fakeredis.FakeRedis())
    with app.test_request_context("/v1/games", method="POST"):
        problem = storage_problem(error)
    assert (problem.status, problem.code, problem.headers, problem.text) == (status, code, {"Retry-After": retry_after}, DETAILS[detail])
