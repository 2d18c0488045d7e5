"""Games stored in the format before the action log (a JSON record of the whole state beside a
sorted set of every event) are read, served as before, and rewritten as setup, log and snapshot;
one that no longer replays under the current rules is refused with a problem."""

from __future__ import annotations

import json
import random

import fakeredis
import pytest

from engine import Event, registry
from service import create_app
from service.tokens import new_token, token_hash
from tests.api import FlaskClient
from tests.conftest import make_settings


@pytest.fixture
def redis():
    return fakeredis.FakeRedis()


@pytest.fixture
def app(redis):
    return create_app(make_settings(), redis=redis)


@pytest.fixture
def api(app):
    return FlaskClient(app.test_client())


def store_legacy(
    redis, prefix: str, game_id: str, actions: int, target: int = 0, seed: str = "legacy", abandoned: bool = False
) -> dict[int, str]:
    """A German Whist game between two humans, after ``actions`` random actions (``abandoned``:
    then ended by the service as too long), written as the store wrote games before the action
    log; the seats' tokens."""
    whist = registry.get("german-whist")
    options = whist.parse_options({"target": target})
    rng = random.Random(seed)
    state, events = whist.new_game(options, seed)
    entries = [(0, event) for event in events]
    deal_start = last_actor = 0
    for version in range(1, actions + 1):
        seat = whist.to_act(state)[0]
        action = rng.choice(whist.legal_actions(state, seat))
        state, events = whist.apply(state, seat, action)
        entries.append((version, Event({"type": "action", "seat": seat, "action": action.to_json()})))
        entries += [(version, event) for event in events]
        deal_start = version if any(event.data["type"] == "deal" for event in events) else deal_start
        last_actor = seat
    if abandoned:
        entries.append((actions, Event({"type": "abandoned", "reason": "too_long", "deal": 1, "max_deals": 1, "max_versions": actions})))
    tokens = {seat: new_token() for seat in (0, 1)}
    record = {
        "ruleset": "german-whist",
        "options": options,
        "seats": [{"name": f"seat {seat}", "bot": None, "token_hash": token_hash(tokens[seat])} for seat in (0, 1)],
        "state": whist.dump(state),
        "seed": seed,
        "created_at": "2026-11-01T10:00:00Z",
        "history_length": len(entries),
        "deal_start": deal_start,
        "last_actor": last_actor,
        "moment": None,
    }
    key = f"{prefix}:{{{game_id}}}"
    redis.hset(f"{key}:game", mapping={"version": actions, "record": json.dumps(record)})
    redis.zadd(f"{key}:history", {f"{index:010d}|" + json.dumps(event.to_json()): version for index, (version, event) in enumerate(entries)})
    for name in ("game", "history"):
        redis.expire(f"{key}:{name}", 3600)
    return tokens


def legacy_history(redis, prefix: str, game_id: str, seat: int | None, revealed: bool) -> list[dict]:
    """The history as the service served it from the legacy format."""
    members = redis.zrangebyscore(f"{prefix}:{{{game_id}}}:history", "-inf", "+inf", withscores=True)
    served = []
    for member, version in members:
        seen = Event.from_json(json.loads(member.split(b"|", 1)[1])).for_viewer(seat, revealed=revealed)
        if seen is not None:
            served.append({"version": int(version), **seen})
    return served


def test_a_legacy_game_serves_the_same_history_and_view(app, api, redis):
    prefix = app.extensions["koz"].store.prefix
    tokens = store_legacy(redis, prefix, "0123456789abcdef", actions=21)
    expected = {seat: legacy_history(redis, prefix, "0123456789abcdef", seat, revealed=False) for seat in (None, 0, 1)}
    view = api.view("0123456789abcdef", tokens[0]).body
    assert view["version"] == 21 and view["seats"][0]["name"] == "seat 0"
    for seat in (None, 0, 1):
        assert api.whole_history("0123456789abcdef", tokens.get(seat))["events"] == expected[seat]


def test_a_legacy_game_is_rewritten_as_setup_log_and_snapshot_and_plays_on(app, api, redis):
    prefix = app.extensions["koz"].store.prefix
    tokens = store_legacy(redis, prefix, "fedcba9876543210", actions=5)
    (seat,) = api.view("fedcba9876543210").body["to_act"]
    key = f"{prefix}:{{fedcba9876543210}}"
    assert not redis.exists(f"{key}:history")
    assert set(redis.hkeys(f"{key}:game")) == {b"version", b"setup", b"snapshot"}
    assert len(redis.get(f"{key}:log")) == 5
    assert 0 < redis.ttl(f"{key}:log") <= 3600  # the expiry stays as it was
    assert json.loads(redis.hget(f"{key}:game", "setup"))["created_at"] == "2026-11-01T10:00:00Z"
    legal = api.view("fedcba9876543210", tokens[seat]).body["legal_actions"]
    assert api.act("fedcba9876543210", legal[0], tokens[seat]).body["version"] == 6
    history = api.whole_history("fedcba9876543210")["events"]
    assert [event["action"] for event in history if event["type"] == "action"][-1] == legal[0]


def test_a_finished_legacy_match_still_reveals_everything(app, api, redis):
    prefix = app.extensions["koz"].store.prefix
    store_legacy(redis, prefix, "00000000000000aa", actions=52)
    expected = legacy_history(redis, prefix, "00000000000000aa", None, revealed=True)
    body = api.whole_history("00000000000000aa")
    assert body["status"] == "finished" and body["reveal"]["seed"] == "legacy"
    assert body["events"] == expected


def test_a_legacy_game_that_no_longer_replays_is_refused_with_a_problem(app, api, redis):
    prefix = app.extensions["koz"].store.prefix
    store_legacy(redis, prefix, "00000000000000bb", actions=4)
    key = f"{prefix}:{{00000000000000bb}}:game"
    record = json.loads(redis.hget(key, "record"))
    record["seed"] = "another seed"  # as if the rules dealt differently now
    redis.hset(key, "record", json.dumps(record))
    answer = api.view("00000000000000bb")
    assert (answer.status, answer.code) == (410, "game_unreadable") and "00000000000000bb" in answer.body["detail"]
    assert redis.hexists(key, "record")  # refused, not destroyed


def test_a_legacy_game_whose_version_is_not_its_actions_count_is_refused(app, api, redis):
    prefix = app.extensions["koz"].store.prefix
    store_legacy(redis, prefix, "00000000000000cc", actions=4)
    redis.hset(f"{prefix}:{{00000000000000cc}}:game", "version", 5)  # an action missing from its history
    assert api.view("00000000000000cc").code == "game_unreadable"


def test_a_legacy_game_the_service_abandoned_stays_abandoned(app, api, redis):
    prefix = app.extensions["koz"].store.prefix
    tokens = store_legacy(redis, prefix, "00000000000000dd", actions=6, abandoned=True)
    view = api.view("00000000000000dd", tokens[0]).body
    assert (view["status"], view["to_act"], view["version"]) == ("abandoned", [], 6)
    assert api.whole_history("00000000000000dd")["events"][-1] == {
        "version": 6, "type": "abandoned", "reason": "too_long", "deal": 1, "max_deals": 1, "max_versions": 6
    }
    assert api.act("00000000000000dd", {"type": "play", "card": "2C"}, tokens[0]).code == "game_over"


def test_a_game_stored_before_seed_sources_were_kept_says_its_source_is_unknown(app, api, redis):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}]).body
    key = f"{app.extensions['koz'].store.prefix}:{{{created['id']}}}:game"
    setup = json.loads(redis.hget(key, "setup"))
    del setup["seed_source"]
    redis.hset(key, "setup", json.dumps(setup))
    elsewhere = FlaskClient(create_app(make_settings(key_prefix=app.extensions["koz"].store.prefix), redis=redis).test_client())
    assert elsewhere.view(created["id"]).body["seed_source"] == "unknown"


def test_a_legacy_game_is_held_to_the_match_length_cap_from_its_rewrite_on(redis):
    app = create_app(make_settings(max_versions=7), redis=redis)
    api = FlaskClient(app.test_client())
    prefix = app.extensions["koz"].store.prefix
    tokens = store_legacy(redis, prefix, "00000000000000ee", actions=6)
    whist = registry.get("german-whist")
    state = whist.load(json.loads(redis.hget(f"{prefix}:{{00000000000000ee}}:game", "record"))["state"])
    (seat,) = whist.to_act(state)
    # the request that rewrites the game is the action that reaches the cap
    answer = api.act("00000000000000ee", whist.legal_actions(state, seat)[0].to_json(), tokens[seat])
    assert (answer.status, answer.body["status"], answer.body["version"]) == (200, "abandoned", 7)
    assert api.whole_history("00000000000000ee")["events"][-1]["type"] == "abandoned"


def test_a_legacy_game_whose_rewrite_keeps_losing_to_other_writers_is_503_storage_unavailable(app, api, redis, monkeypatch):
    store_legacy(redis, app.extensions["koz"].store.prefix, "00000000000000ff", actions=3)
    monkeypatch.setattr(app.extensions["koz"].store, "replace_legacy", lambda *_: False)
    answer = api.view("00000000000000ff")
    assert (answer.status, answer.code) == (503, "storage_unavailable")
