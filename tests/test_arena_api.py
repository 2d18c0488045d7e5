"""The arena over HTTP: accounts, seeks, pairing on the worker, events, results and ratings.

Each scenario runs on fakeredis and on a real redis-server (``backend``)."""

from __future__ import annotations

import random
import threading
import time

import fakeredis
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from service import create_app
from engine import registry
from service.arena.arena import EVENTS_KEPT
from service.arena.matchmaker import PAIRING_SECONDS, Matchmaker
from service.arena.store import ArenaStore
from service.games import Games
from service.repository import Repository
from service.timeouts import enforce
from service.worker import Worker
from tests.conftest import make_settings
from tests.support import expire
from tests.test_api_events import subscription_up


@pytest.fixture
def arena_app(backend):
    app = create_app(make_settings(stream_heartbeat_seconds=0.05, stream_max_seconds=0.3), redis=backend)
    yield app
    app.extensions["koz"].announcements.stop()


@pytest.fixture
def client(arena_app):
    return arena_app.test_client()


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def account(client, name: str, kind: str = "bot") -> str:
    answer = client.post("/v1/accounts", json={"name": name, "kind": kind})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["key"]


def events(app, key: str, after: int = 0) -> list[dict]:
    arena = app.extensions["koz_arena"]
    return [event for _, event in arena.events_after(arena.accounts.authenticate(key).id, after)]


def engaged(app, key: str) -> list[str]:
    """What counts among the account's arena games now (its seeks, challenges and games)."""
    arena = app.extensions["koz_arena"]
    return arena.store.engagements(arena.accounts.authenticate(key).id, arena.timer())


def bookkeeping_left(arena, ruleset: str = "german-whist") -> dict[str, int]:
    """What the ruleset's pairings left behind once every one is settled (told or put back): each
    key of their bookkeeping that is not empty, and the queue's seeks kept in the hash beyond those
    queued. Nothing, when each step cleans up after itself."""
    redis, key = arena.store.redis, lambda name: arena.store.arena_key(ruleset, name)  # noqa: E731
    left = {
        "seek": redis.hlen(key("seek")) - redis.zcard(key("seeks")),
        "pairings": redis.zcard(key("pairings")),
        **{name: redis.hlen(key(name)) for name in ("pairing", "to_tell", "in_pairing", "withdrawn")},
    }
    return {name: count for name, count in left.items() if count}


def paired(app, client, names: tuple[str, ...]) -> tuple[list[str], list[dict]]:
    """Accounts of these names seek German Whist and one pass pairs them: their keys, and the
    ``match_started`` each heard."""
    keys = [account(client, name) for name in names]
    for key in keys:
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key))
    Matchmaker(app.extensions["koz_arena"]).run_pass()
    assert bookkeeping_left(app.extensions["koz_arena"]) == {}
    return keys, [events(app, key)[0] for key in keys]


def two_tables(app, client, names: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Four accounts of these names seek German Whist and one pass seats them at two tables: their
    keys, and the two games' ids, sorted."""
    keys = [account(client, name) for name in names]
    for key in keys:
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key))
    assert Matchmaker(app.extensions["koz_arena"]).run_pass() == 2
    return keys, sorted({events(app, key)[0]["game"] for key in keys})


def play_out(app, client, started: list[dict]) -> None:
    """The seats of a started match play it out (each its first legal action), then the worker's pass settles it."""
    tokens = {event["seat"]: event["token"] for event in started}
    game = started[0]["game"]
    view = client.get(f"/v1/games/{game}").get_json()
    while view["status"] == "active":
        (seat,) = view["to_act"]
        mine = client.get(f"/v1/games/{game}", headers=bearer(tokens[seat])).get_json()
        view = client.post(f"/v1/games/{game}/actions", json=mine["legal_actions"][0], headers=bearer(tokens[seat])).get_json()
    Matchmaker(app.extensions["koz_arena"]).run_pass()


def forfeit(app, game_id: str) -> int:
    """The seat to act lets its clock run out (the match is lost by forfeit, at once); that seat."""
    koz = app.extensions["koz"]
    game = koz.repository.load(game_id)
    seat = game.turn["seat"]
    game.now = game.deadline() + 1
    assert koz.time_out(game)
    return seat


def test_the_worker_pairs_a_seek_with_the_house_when_its_house_after_comes_not_a_period_later(arena_app, client, monkeypatch):
    monkeypatch.setattr("service.worker.PASS_SECONDS", 30.0)  # a pass a period later would come far too late
    worker = Worker(arena_app.extensions["koz"], "test", block_seconds=0.05)
    key = account(client, "Lone")
    assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "house_after_seconds": 1.0}, headers=bearer(key)).status_code == 201
    worker.work()  # the pass that finds it alone
    assert events(arena_app, key) == []
    ends = time.monotonic() + 10
    while not events(arena_app, key) and time.monotonic() < ends:
        worker.work(block=True)
    (started,) = events(arena_app, key)
    assert started["type"] == "match_started" and [player["kind"] for player in started["players"]] == ["house"]


def test_an_account_is_made_once_per_name_whatever_its_case_and_its_key_is_kept_hashed(arena_app, client, backend):
    created = client.post("/v1/accounts", json={"name": "  Ayşe  ", "kind": "person"})
    assert created.status_code == 201 and created.headers["Location"].endswith("/v1/accounts/Ay%C5%9Fe")
    body = created.get_json()
    assert (body["name"], body["kind"]) == ("Ayşe", "person") and len(body["key"]) > 40
    again = client.post("/v1/accounts", json={"name": "AYŞE"}, headers={"Accept-Language": "tr"})
    assert again.status_code == 409 and again.get_json()["code"] == "name_taken" and "alınmış" in again.get_json()["detail"]
    decomposed = client.post("/v1/accounts", json={"name": "Ays\u0327e"})  # the same name, decomposed
    assert decomposed.status_code == 409
    assert client.post("/v1/accounts", json={"name": "Koz-Expert"}).get_json()["code"] == "name_taken"
    bad = client.post("/v1/accounts", json={"name": "a\u0007b"}, headers={"Accept-Language": "tr"})
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid_request" and "denetim" in bad.get_json()["detail"]
    assert client.post("/v1/accounts", json={"name": "x", "kind": "house"}).status_code == 400
    stored = b"".join(value for key in backend.keys(b"*") if backend.type(key) == b"hash" for value in backend.hgetall(key).values())
    assert body["key"].encode() not in stored
    page = client.get("/v1/accounts/ayşe").get_json()
    assert page == {"name": "Ayşe", "kind": "person", "created": body["created"], "ratings": [], "games_played": 0, "recent_games": []}
    missing = client.get("/v1/accounts/nobody", headers={"Accept-Language": "tr"})
    assert missing.status_code == 404 and missing.get_json()["code"] == "unknown_account" and "hesap yok" in missing.get_json()["detail"]


def test_an_account_is_made_with_its_id_and_an_id_without_an_account_reads_as_none(arena_app, client):
    accounts = arena_app.extensions["koz_arena"].accounts
    made, key = accounts.create("Ayla", "bot")
    assert made == accounts.authenticate(key) == accounts.find("AYLA")
    assert accounts.by_ids(["no-such-account", made.id]) == {"no-such-account": None, made.id: made}


def test_arena_calls_need_an_accounts_key(client):
    assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}).get_json()["code"] == "missing_key"
    wrong = client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer("0123.not-the-key"))
    assert wrong.status_code == 401 and wrong.get_json()["code"] == "invalid_key"
    assert client.get("/v1/arena/seeks", headers=bearer("garbage")).get_json()["code"] == "invalid_key"


def test_seeking_twice_is_one_seek_the_cap_counts_seeks_and_delete_takes_them_out(arena_app, client):
    key = account(client, "Seeker")
    first = client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key))
    again = client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "options": {}}, headers=bearer(key))
    assert (first.status_code, again.status_code) == (201, 200) and first.get_json() == again.get_json()
    bad = client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "options": {"colour": 1}}, headers=bearer(key))
    assert bad.status_code == 400 and bad.get_json()["code"] == "unknown_option"
    assert arena_app.extensions["koz"].settings.arena_games_at_once == 4
    for other in ({"ruleset": "german-whist", "rated": False}, {"ruleset": "german-whist", "options": {"target": 20}}, {"ruleset": "sixty-six"}):
        assert client.post("/v1/arena/seeks", json=other, headers=bearer(key)).status_code == 201
    assert len(client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"]) == 4
    over = client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak"}, headers=bearer(key))
    assert over.status_code == 409 and over.get_json()["code"] == "too_many_arena_games"
    assert client.delete(f"/v1/arena/seeks/{first.get_json()['id']}", headers=bearer(key)).status_code == 204
    assert first.get_json()["id"] not in [seek["id"] for seek in client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"]]
    assert client.delete("/v1/arena/seeks", headers=bearer(key)).status_code == 204
    assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json() == {"seeks": []}


def test_a_seek_the_store_fails_to_queue_is_refused_and_takes_no_place(arena_app, client, monkeypatch):
    key = account(client, "Ayla")

    def lost(self, ruleset, seek):
        raise RedisConnectionError("Connection reset by peer")

    with monkeypatch.context() as patch:
        patch.setattr(ArenaStore, "add_seek", lost)
        refused = client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key))
    assert (refused.status_code, refused.get_json()["code"]) == (503, "storage_unavailable")
    assert engaged(arena_app, key) == []
    assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json() == {"seeks": []}


@pytest.mark.parametrize("failure", ["nearly full", "lost as the game is written"])
def test_seeks_whose_game_the_store_cannot_make_stay_queued_and_are_paired_once_it_can(arena_app, client, monkeypatch, failure):
    """A pass that cannot make the game takes no seek out for good: each stays in the queue as it
    was, no one hears of a match, and a later pass pairs them."""
    from tests.test_arena_challenges import store_failing

    keys = [account(client, name) for name in ("Ayla", "Berk")]
    seeks = [client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).get_json() for key in keys]
    matchmaker = Matchmaker(arena_app.extensions["koz_arena"])
    with monkeypatch.context() as patch:
        if store_failing(patch, failure) == "capacity":
            assert matchmaker.run_pass() == 0  # (the pass goes on with the other rulesets)
        else:
            with pytest.raises(RedisConnectionError):
                matchmaker.run_pass()
    for key, seek in zip(keys, seeks):
        assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json() == {"seeks": [seek]}
        assert events(arena_app, key) == []
    assert matchmaker.run_pass() == 1
    assert [events(arena_app, key)[0]["type"] for key in keys] == ["match_started", "match_started"]


@pytest.mark.parametrize("withdrawal", ["the seek", "every seek"])
def test_a_seek_withdrawn_while_its_game_is_made_is_not_put_back_when_the_game_cannot_be_made(arena_app, client, monkeypatch, withdrawal):
    """The DELETE answered 204 (the seek was out of the queue, being paired) and its account may
    have gone: the pass that fails to make the game puts the other seek back, not that one, and
    gives its place back. Sought again, it is paired as any other."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    seeks = [client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).get_json() for key in keys]
    path = f"/v1/arena/seeks/{seeks[0]['id']}" if withdrawal == "the seek" else "/v1/arena/seeks"

    def withdrawn_then_lost(self, games):
        assert client.delete(path, headers=bearer(keys[0])).status_code == 204
        raise RedisConnectionError("Connection reset by peer")

    matchmaker = Matchmaker(arena)
    with monkeypatch.context() as patch:
        patch.setattr(Repository, "store_new_games", withdrawn_then_lost)
        with pytest.raises(RedisConnectionError):
            matchmaker.run_pass()
    assert [client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"] for key in keys] == [[], [seeks[1]]]
    assert [len(engaged(arena_app, key)) for key in keys] == [0, 1]
    assert matchmaker.run_pass() == 0 and [events(arena_app, key) for key in keys] == [[], []]
    assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(keys[0])).status_code == 201
    assert matchmaker.run_pass() == 1
    assert [events(arena_app, key)[0]["type"] for key in keys] == ["match_started", "match_started"]
    assert bookkeeping_left(arena) == {}


def test_a_seek_withdrawn_while_its_game_is_made_then_sought_again_stays_queued_when_the_game_cannot_be_made(arena_app, client, monkeypatch):
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    for key in keys:
        assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).status_code == 201
    again = []

    def withdrawn_sought_again_then_lost(self, games):
        assert client.delete("/v1/arena/seeks", headers=bearer(keys[0])).status_code == 204
        again.append(client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(keys[0])).get_json())
        raise RedisConnectionError("Connection reset by peer")

    with monkeypatch.context() as patch:
        patch.setattr(Repository, "store_new_games", withdrawn_sought_again_then_lost)
        with pytest.raises(RedisConnectionError):
            Matchmaker(arena).run_pass()
    assert client.get("/v1/arena/seeks", headers=bearer(keys[0])).get_json()["seeks"] == again
    assert engaged(arena_app, keys[0]) == [again[0]["id"]]
    assert bookkeeping_left(arena) == {}


def test_a_seek_sought_again_while_a_pass_pairs_it_is_the_same_seek_and_its_match_is_its_one_game(arena_app, client, monkeypatch):
    """Seeking twice for the same thing is one seek, also while a pass is pairing it: the second
    POST answers the seek as the pass took it (200), nothing is queued again, and once the match
    starts it is the one game the seek counts as (before, a copy was queued that no longer counted
    among the account's games and was paired into a second match)."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    seeks = [client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).get_json() for key in keys]
    store_new_games = Repository.store_new_games
    again = []

    def sought_again_while_written(self, games):
        again.append(client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(keys[0])))
        return store_new_games(self, games)

    matchmaker = Matchmaker(arena)
    with monkeypatch.context() as patch:
        patch.setattr(Repository, "store_new_games", sought_again_while_written)
        assert matchmaker.run_pass() == 1
    assert (again[0].status_code, again[0].get_json()) == (200, seeks[0])
    assert client.get("/v1/arena/seeks", headers=bearer(keys[0])).get_json() == {"seeks": []}
    (started,) = [event for event in events(arena_app, keys[0]) if event["type"] == "match_started"]
    assert engaged(arena_app, keys[0]) == [started["game"]]
    assert matchmaker.run_pass() == 0
    assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(keys[0])).status_code == 201  # told: a new seek
    assert bookkeeping_left(arena) == {}


def test_withdrawing_every_seek_leaves_the_accounts_games_and_challenges_and_marks_nothing_else(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, started = paired(arena_app, client, ("Ayla", "Berk"))
    account(client, "Cem")
    made = client.post("/v1/arena/challenges", json={"to": "Cem", "ruleset": "german-whist"}, headers=bearer(keys[0])).get_json()
    assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(keys[0])).status_code == 201
    assert client.delete("/v1/arena/seeks", headers=bearer(keys[0])).status_code == 204
    assert sorted(engaged(arena_app, keys[0])) == sorted([started[0]["game"], made["id"]])
    assert [key for key in arena.store.redis.scan_iter(match="*withdrawn*")] == []  # (a game's or challenge's id is no seek)


def test_a_seek_put_back_in_the_instant_its_withdrawal_looked_for_it_is_withdrawn_all_the_same(arena_app, client, monkeypatch):
    arena = arena_app.extensions["koz_arena"]
    key = account(client, "Ayla")
    assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).status_code == 201
    queued = arena.store.seeks("german-whist")
    assert arena.store.take_pairings("german-whist", [("pairing", queued)], arena.timer()) == [True]  # a pass takes it out to pair it
    engagements = ArenaStore.engagements

    def put_back_meanwhile(self, account_id, now):
        found = engagements(self, account_id, now)
        assert self.put_back("german-whist", "pairing", queued) == []  # its game was not made
        return found

    with monkeypatch.context() as patch:
        patch.setattr(ArenaStore, "engagements", put_back_meanwhile)
        assert client.delete("/v1/arena/seeks", headers=bearer(key)).status_code == 204
    assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"] == []
    assert engaged(arena_app, key) == []
    assert bookkeeping_left(arena) == {}


def test_a_seek_withdrawn_while_its_game_is_made_has_its_match_once_the_game_is_made(arena_app, client, monkeypatch):
    """Too late to withdraw: the match starts (as for a seek paired already), and the seek made
    again later is paired and, if its game cannot be made then, put back as any other."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    for key in keys:
        assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).status_code == 201
    store_new_games = Repository.store_new_games

    def withdrawn_while_written(self, games):
        assert client.delete("/v1/arena/seeks", headers=bearer(keys[0])).status_code == 204
        return store_new_games(self, games)

    matchmaker = Matchmaker(arena)
    with monkeypatch.context() as patch:
        patch.setattr(Repository, "store_new_games", withdrawn_while_written)
        assert matchmaker.run_pass() == 1
    assert [events(arena_app, key)[0]["type"] for key in keys] == ["match_started", "match_started"]
    assert arena.store.redis.hlen(arena.store.arena_key("german-whist", "withdrawn")) == 0  # nothing of it is kept
    seekers = [keys[0], account(client, "Cem")]
    again = [client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).get_json() for key in seekers]

    def lost(self, games):
        raise RedisConnectionError("Connection reset by peer")

    with monkeypatch.context() as patch:
        patch.setattr(Repository, "store_new_games", lost)
        with pytest.raises(RedisConnectionError):
            matchmaker.run_pass()
    assert [client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"] for key in seekers] == [[seek] for seek in again]


class Killed(BaseException):
    """The worker's process is killed here: nothing after runs, no handler either."""


def killed(original):
    def dies(*args, **kwargs):
        raise Killed

    return dies


def killed_after_the_first(original):
    def tells_one_then_dies(self, events, keep, ttl, once=None):
        original(self, events[:1], keep, ttl, once[:1] if once else None)
        raise Killed

    return tells_one_then_dies


def killed_at(monkeypatch, dies: tuple, act) -> None:
    """``act()`` in a process killed where ``dies`` says ``(owner, its function, how it dies)``:
    nothing after runs, no handler either."""
    owner, name, death = dies
    with monkeypatch.context() as patch:
        patch.setattr(owner, name, death(getattr(owner, name)))
        patch.setattr(Matchmaker, "put_back", lambda *args: None)  # (no handler runs in a killed process)
        with pytest.raises(Killed):
            act()


def settled_after_the_pairings_time(arena) -> None:
    """Another worker's passes: within the pairing's time they leave it alone, after it they settle it."""
    real = arena.timer
    survivor = Matchmaker(arena)
    assert survivor.run_pass() == 0
    arena.timer = lambda: real() + PAIRING_SECONDS + 1
    survivor.run_pass()
    survivor.run_pass()
    arena.timer = real


def one_match_each(app, client, keys: list[str]) -> str:
    """Each account heard one ``match_started``, of one game with a seat each that its token opens,
    and that game is all it is engaged in; nothing of the pairing is left: the game's id."""
    arena = app.extensions["koz_arena"]
    started = [[event for event in events(app, key) if event["type"] == "match_started"] for key in keys]
    assert [len(heard) for heard in started] == [1, 1], started
    game_id = started[0][0]["game"]
    assert started[1][0]["game"] == game_id and {heard[0]["seat"] for heard in started} == {0, 1}
    for key, (event,) in zip(keys, started):
        assert client.get(f"/v1/games/{game_id}", headers=bearer(event["token"])).get_json()["seat"] == event["seat"]
        assert engaged(app, key) == [game_id]
    assert arena.store.match("german-whist", game_id) is not None
    assert arena.store.pairings_before("german-whist", arena.timer() + PAIRING_SECONDS) == []
    assert bookkeeping_left(arena) == {}
    return game_id


@pytest.mark.parametrize(
    "where, dies",
    [
        ("before its game is made", (Games, "create_arena_games", killed)),
        ("once its game is made, before it is listed", (ArenaStore, "list_pairings", killed)),
        ("once it is listed, before the seats are handed over", (ArenaStore, "hand_over", killed)),
        ("after telling one account of two", (ArenaStore, "add_events", killed_after_the_first)),
        ("after telling both, before the pairing is settled", (ArenaStore, "pairings_told", killed)),
    ],
)
def test_a_worker_killed_while_it_pairs_leaves_no_seek_lost_and_every_account_told_of_one_match_once(arena_app, client, monkeypatch, where, dies):
    """Whatever the instant, the next pass after the pairing's time settles it: the seeks are put
    back and paired again, or the match listed is told; each account hears one match_started,
    of a game it can play, and that game is all it is engaged in."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    for key in keys:
        assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).status_code == 201
    killed_at(monkeypatch, dies, Matchmaker(arena).run_pass)
    settled_after_the_pairings_time(arena)
    one_match_each(arena_app, client, keys)
    for key in keys:
        assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json() == {"seeks": []}


def test_a_pairing_left_unsettled_whose_match_was_played_out_since_hands_no_one_that_game_again(arena_app, client, monkeypatch):
    """Told, then killed before the pairing was settled: the match is played and settled, and the
    pass that settles the pairing later gives no account its finished game back as a place taken."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    for key in keys:
        assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).status_code == 201
    with monkeypatch.context() as patch:
        patch.setattr(ArenaStore, "pairings_told", killed(ArenaStore.pairings_told))
        with pytest.raises(Killed):
            Matchmaker(arena).run_pass()
    play_out(arena_app, client, [events(arena_app, key)[0] for key in keys])
    real = arena.timer
    arena.timer = lambda: real() + PAIRING_SECONDS + 1
    Matchmaker(arena).run_pass()
    arena.timer = real
    assert [[event["type"] for event in events(arena_app, key)] for key in keys] == [["match_started", "match_finished"]] * 2
    assert [engaged(arena_app, key) for key in keys] == [[], []]


@pytest.mark.parametrize("then", ["makes its game", "fails to make its game"])
def test_a_pass_that_outlasts_its_pairings_time_leaves_them_to_the_pass_that_settled_them(arena_app, client, monkeypatch, then):
    """A stalled worker's pairing is settled by another's pass (its seeks put back and paired
    anew); the stalled pass, going on, lists, tells and puts back nothing: each account has one
    match, and no seek is queued again."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    for key in keys:
        assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).status_code == 201
    create_arena_games, real = Games.create_arena_games, arena.timer
    stalled = []

    def stalls(self, *args, **kwargs):
        if not stalled:
            stalled.append(True)
            arena.timer = lambda: real() + PAIRING_SECONDS + 1
            assert Matchmaker(arena).run_pass() == 1  # another worker, meanwhile
            arena.timer = real
            if then == "fails to make its game":
                raise RedisConnectionError("Connection reset by peer")
        return create_arena_games(self, *args, **kwargs)

    monkeypatch.setattr(Games, "create_arena_games", stalls)
    if then == "makes its game":
        assert Matchmaker(arena).run_pass() == 0
    else:
        with pytest.raises(RedisConnectionError):
            Matchmaker(arena).run_pass()
    assert [client.get("/v1/arena/seeks", headers=bearer(key)).get_json() for key in keys] == [{"seeks": []}] * 2
    started = [[event for event in events(arena_app, key) if event["type"] == "match_started"] for key in keys]
    assert [len(heard) for heard in started] == [1, 1] and started[0][0]["game"] == started[1][0]["game"]
    for key in keys:
        assert engaged(arena_app, key) == [started[0][0]["game"]]
    assert bookkeeping_left(arena) == {}


@pytest.mark.parametrize("then", ["makes its games", "fails to make its games"])
def test_a_stalled_pass_whose_first_pairing_was_settled_meanwhile_still_settles_the_next(arena_app, client, monkeypatch, then):
    """Two tables in one pass; another worker settles the first while the pass is stalled: the
    pass, going on, still tells the second's match (or puts its seeks back), not only stops."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk", "Cem", "Derya")]
    for key in keys:
        assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).status_code == 201
    take_pairings, create_arena_games = ArenaStore.take_pairings, Games.create_arena_games
    noted: list[tuple[str, list[dict]]] = []

    def noting(self, ruleset, pairings, now):
        noted.extend(pairings)
        return take_pairings(self, ruleset, pairings, now)

    def first_settled_meanwhile(self, *args, **kwargs):
        assert arena.store.put_back("german-whist", *noted[0]) == []  # another worker's pass
        if then == "fails to make its games":
            raise RedisConnectionError("Connection reset by peer")
        return create_arena_games(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(ArenaStore, "take_pairings", noting)
        patch.setattr(Games, "create_arena_games", first_settled_meanwhile)
        if then == "makes its games":
            assert Matchmaker(arena).run_pass() == 1
        else:
            with pytest.raises(RedisConnectionError):
                Matchmaker(arena).run_pass()
    first = {seek["account"] for seek in noted[0][1]}
    for key in keys:
        told = [event for event in events(arena_app, key) if event["type"] == "match_started"]
        queued = client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"]
        expected = (0, 1) if arena.accounts.authenticate(key).id in first or then == "fails to make its games" else (1, 0)
        assert (len(told), len(queued)) == expected
    assert bookkeeping_left(arena) == {}


def test_an_event_told_once_by_its_key_is_not_told_again_while_its_key_is_kept_as_long_as_the_events(arena_app, client):
    store = arena_app.extensions["koz_arena"].store
    account_id = arena_app.extensions["koz_arena"].accounts.authenticate(account(client, "Ayla")).id

    def told(*keys: str) -> list[int]:
        return store.add_events([(account_id, {"type": "told", "key": key}) for key in keys], EVENTS_KEPT, 60, list(keys))

    assert told("g0", "g0") == [1, 0]
    assert told(*(f"g{number}" for number in range(1, EVENTS_KEPT + 1)))[-1] == EVENTS_KEPT + 1
    assert store.redis.zcard(store.account_key(account_id, "told")) == EVENTS_KEPT
    assert told("g1", "g0") == [0, EVENTS_KEPT + 2]  # g0's key went with its event


def test_a_pairing_whose_games_were_listed_is_never_put_back(arena_app, client):
    """(A pass that finds a pairing left unmade may put it back just as the stalled pass lists it.)"""
    store = arena_app.extensions["koz_arena"].store
    key = account(client, "Ayla")
    client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key))
    seeks = store.seeks("german-whist")
    assert store.take_pairings("german-whist", [("pairing", seeks)], 1.0) == [True]
    assert store.list_pairings("german-whist", [("pairing", {"g1": {"rated": True, "seats": []}}, [seeks[0]["id"]], {})], 2.0) == [True]
    assert store.put_back("german-whist", "pairing", seeks) is None
    assert store.seeks("german-whist") == []


def test_two_seeks_are_paired_into_a_game_each_seat_hears_its_token_and_the_result_rates_both(arena_app, client):
    keys = {name: account(client, name) for name in ("Ayla", "Berk")}
    for key in keys.values():
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key))
    assert Matchmaker(arena_app.extensions["koz_arena"]).run_pass() == 1
    started = [events(arena_app, key)[0] for key in keys.values()]
    assert [event["type"] for event in started] == ["match_started", "match_started"]
    assert started[0]["game"] == started[1]["game"] and {event["seat"] for event in started} == {0, 1}
    assert started[0]["players"][0]["name"] == "Berk" and started[0]["players"][0]["rating"] == pytest.approx(25.0)
    view = client.get(f"/v1/games/{started[0]['game']}", headers=bearer(started[0]["token"])).get_json()
    assert view["seat"] == started[0]["seat"] and view["clock"]["on_timeout"] == "forfeit"
    assert client.get("/v1/arena/seeks", headers=bearer(keys["Ayla"])).get_json() == {"seeks": []}
    play_out(arena_app, client, started)
    finished = [events(arena_app, key)[-1] for key in keys.values()]
    assert [event["type"] for event in finished] == ["match_finished", "match_finished"]
    assert sorted(event["outcome"] for event in finished) == ["loss", "win"]
    winner = next(event for event in finished if event["outcome"] == "win")
    assert winner["rating_change"] > 0 and winner["rating"]["uncertainty"] < 8.34
    page = client.get("/v1/accounts/ayla").get_json()
    assert page["games_played"] == 1 and page["ratings"][0]["games"] == 1 and page["ratings"][0]["provisional"]
    assert page["recent_games"][0]["game"] == started[0]["game"] and page["recent_games"][0]["history"].endswith("/history")
    board = client.get("/v1/arena/leaderboard", query_string={"ruleset": "german-whist", "provisional": "true"}).get_json()
    winner_first = sorted(keys, key=lambda name: name != winner_name(finished, keys))
    assert [entry["name"] for entry in board["entries"]] == winner_first
    assert board["entries"][0]["rank"] == 1 and board["total"] == 2 and board["next_offset"] is None
    established = client.get("/v1/arena/leaderboard", query_string={"ruleset": "german-whist"}).get_json()
    assert established["entries"] == [] and established["total"] == 0
    assert client.get("/v1/arena/leaderboard", query_string={"ruleset": "chess"}).status_code == 400


def test_match_finished_tells_each_account_its_seat_outcome_and_rating_change_and_the_match_leaves_the_queue(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, started = paired(arena_app, client, ("Ayla", "Berk"))
    game = started[0]["game"]
    play_out(arena_app, client, started)
    (result,) = arena.store.results("german-whist")
    for name, key, heard in zip(("Ayla", "Berk"), keys, started):
        mine = result["seats"][heard["seat"]]
        assert (mine["name"], mine["kind"]) == (name, "bot")
        assert events(arena_app, key)[-1] == {
            "type": "match_finished",
            "game": game,
            "ruleset": "german-whist",
            "status": "finished",
            "rated": True,
            "seat": heard["seat"],
            "outcome": mine["outcome"],
            "abandoned": False,
            "rating": mine["after"],
            "rating_change": mine["after"]["rating"] - mine["before"]["rating"],
        }
    assert arena.store.match("german-whist", game) is None and not arena.store.has_matches(["german-whist"])


def test_a_finished_match_frees_each_accounts_place_for_the_next(backend):
    app = create_app(make_settings(arena_games_at_once=1), redis=backend)
    client = app.test_client()
    keys, started = paired(app, client, ("Cemre", "Derin"))
    for key in keys:  # at its one game at once: seeking more is refused
        assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)).status_code == 409
    play_out(app, client, started)
    for key in keys:
        assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)).status_code == 201
    app.extensions["koz"].announcements.stop()


def test_an_accounts_page_shows_its_rating_its_record_and_its_last_games_newest_first(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, first = paired(arena_app, client, ("Ela", "Fuat"))
    play_out(arena_app, client, first)
    for key in keys:
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "rated": False}, headers=bearer(key))
    real = arena.timer
    arena.timer = lambda: real() + 10  # their ratings moved apart: the window widens with the wait
    Matchmaker(arena).run_pass()
    second = [events(arena_app, key)[-1] for key in keys]
    play_out(arena_app, client, second)
    rated, unrated = arena.store.results("german-whist")
    ela = arena.accounts.authenticate(keys[0]).id
    rating = arena.ratings.of("german-whist", ela)
    page = client.get("/v1/accounts/ela").get_json()
    mine = next(seat for seat in rated["seats"] if seat["account"] == ela)
    assert page["ratings"] == [
        {
            "ruleset": "german-whist",
            "rating": rating.mu,
            "uncertainty": rating.sigma,
            "games": 1,
            "wins": int(mine["outcome"] == "win"),
            "losses": int(mine["outcome"] == "loss"),
            "draws": 0,
            "provisional": True,
        }
    ]
    expected = []
    for result, change in ((unrated, 0.0), (rated, mine["after"]["rating"] - mine["before"]["rating"])):
        seat = next(seat for seat in result["seats"] if seat["account"] == ela)
        expected.append(
            {
                "game": result["game"],
                "ruleset": "german-whist",
                "rated": result["rated"],
                "finished_at": result["finished_at"],
                "status": "finished",
                "seat": seat["seat"],
                "outcome": seat["outcome"],
                "rating_change": change,
                "opponents": ["Fuat"],
                "history": f"/v1/games/{result['game']}/history",
            }
        )
    assert page["games_played"] == 2 and page["recent_games"] == expected and unrated["finished_at"] > rated["finished_at"]


def test_an_account_is_provisional_until_its_tenth_rated_game(arena_app, client):
    from service.arena.ratings import ESTABLISHED_GAMES, Seat

    arena = arena_app.extensions["koz_arena"]
    ids = [arena.accounts.authenticate(account(client, name)).id for name in ("Gaye", "Hilmi")]
    for number in range(ESTABLISHED_GAMES):
        seats = [Seat(ids[0], "Gaye", "bot", "win"), Seat(ids[1], "Hilmi", "bot", "loss")]
        arena.ratings.record("german-whist", f"g{number}", seats, [[0], [1]], True, {"status": "finished", "finished_at": float(number)})
        (shown,) = client.get("/v1/accounts/gaye").get_json()["ratings"]
        assert (shown["games"], shown["provisional"]) == (number + 1, number + 1 < ESTABLISHED_GAMES)


def test_an_accounts_page_shows_its_ten_last_games_of_every_ruleset_newest_first(arena_app, client):
    from service.arena.ratings import Seat

    arena = arena_app.extensions["koz_arena"]
    ids = [arena.accounts.authenticate(account(client, name)).id for name in ("Gaye", "Hilmi")]
    seats = [Seat(ids[0], "Gaye", "bot", "win"), Seat(ids[1], "Hilmi", "bot", "loss")]

    def finish(ruleset: str, number: int) -> None:
        arena.ratings.record(ruleset, f"g{number}", seats, [[0], [1]], False, {"status": "finished", "finished_at": float(number)})

    for number in range(14):  # two of Sixty-Six, then twelve of German Whist
        finish("sixty-six" if number < 2 else "german-whist", number)
    page = client.get("/v1/accounts/gaye").get_json()
    assert page["games_played"] == 14
    assert [entry["game"] for entry in page["recent_games"]] == [f"g{number}" for number in range(13, 3, -1)]
    finish("sixty-six", 14)
    page = client.get("/v1/accounts/gaye").get_json()
    assert [(entry["game"], entry["ruleset"]) for entry in page["recent_games"][:2]] == [("g14", "sixty-six"), ("g13", "german-whist")]
    assert [entry["game"] for entry in page["recent_games"]] == [f"g{number}" for number in range(14, 4, -1)]


def test_a_drawn_match_is_a_draw_for_each_account(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, started = paired(arena_app, client, ("İpek", "Jale"))
    game = started[0]["game"]
    whist = registry.get("german-whist")
    Matchmaker(arena).finish(whist, game, arena.store.match("german-whist", game), {"status": "finished", "winners": [], "forfeit": None})
    for key in keys:
        assert events(arena_app, key)[-1]["outcome"] == "draw"
        (shown,) = client.get(f"/v1/accounts/{arena.accounts.authenticate(key).name}").get_json()["ratings"]
        assert (shown["wins"], shown["losses"], shown["draws"]) == (0, 0, 1)


def test_a_match_settled_by_a_worker_that_died_before_forgetting_its_end_is_not_settled_again(arena_app, client):
    arena, koz = arena_app.extensions["koz_arena"], arena_app.extensions["koz"]
    keys, started = paired(arena_app, client, ("Kerem", "Lale"))
    game = started[0]["game"]
    forfeit(arena_app, game)
    view = koz.repository.load(game).view(None)
    Matchmaker(arena).finish(registry.get("german-whist"), game, arena.store.match("german-whist", game), {**view, "forfeit": None})
    assert koz.store.ended_arena_games(10) == [game]  # what the worker that died left
    for key in keys:  # another match of theirs, so that a pass reads the ended games again
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "rated": False}, headers=bearer(key))
    real = arena.timer
    arena.timer = lambda: real() + 10
    assert Matchmaker(arena).run_pass() == 1  # that match started
    assert Matchmaker(arena).settle() == 0  # and the old one is not settled again
    assert koz.store.ended_arena_games(10) == [] and len(arena.store.results("german-whist")) == 1
    assert [[event["type"] for event in events(arena_app, key)] for key in keys] == [["match_started", "match_finished", "match_started"]] * 2


def test_a_match_whose_game_ended_and_expired_before_it_was_settled_is_dropped_unrated_and_frees_its_players(backend):
    arena_app = create_app(make_settings(arena_games_at_once=1), redis=backend)
    client, arena = arena_app.test_client(), arena_app.extensions["koz_arena"]
    keys, games = two_tables(arena_app, client, ("Mert", "Nil", "Oya", "Pelin"))
    for game in games:
        forfeit(arena_app, game)
    expire(backend, games[0])
    assert Matchmaker(arena).run_pass() == 2
    assert [result["game"] for result in arena.store.results("german-whist")] == [games[1]]
    assert not arena.store.has_matches(["german-whist"])
    expired = [key for key in keys if events(arena_app, key)[0]["game"] == games[0]]
    assert [events(arena_app, key)[-1]["type"] for key in expired] == ["match_started", "match_started"]
    for key in expired:  # at one game at once, each may seek again
        assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)).status_code == 201
    arena_app.extensions["koz"].announcements.stop()


def test_a_match_whose_game_expired_unfinished_is_dropped_unrated_and_a_live_one_is_kept(backend):
    app = create_app(make_settings(), redis=backend)
    client, arena = app.test_client(), app.extensions["koz_arena"]
    keys, games = two_tables(app, client, ("Rana", "Sarp", "Tuna", "Umay"))
    expire(backend, games[0])  # left unplayed past its time
    real = arena.timer
    arena.timer = lambda: real() + arena.settings.game_ttl_seconds + 1
    assert Matchmaker(arena).run_pass() == 1
    assert arena.store.results("german-whist") == [] and list(arena.store.matches_started_before("german-whist", float("inf"))) == [games[1]]
    assert all([event["type"] for event in events(app, key)] == ["match_started"] for key in keys)  # nothing to tell
    app.extensions["koz"].announcements.stop()


def test_an_arena_seat_token_opens_its_own_seat_of_its_own_game_and_no_other(arena_app, client):
    keys, _ = two_tables(arena_app, client, ("Vedat", "Yaren", "Zeki", "Ahu"))
    started = [events(arena_app, key)[0] for key in keys]
    assert len({event["token"] for event in started}) == 4
    for event in started:
        assert client.get(f"/v1/games/{event['game']}", headers=bearer(event["token"])).get_json()["seat"] == event["seat"]
        for other in started:
            if other["game"] != event["game"]:
                assert client.get(f"/v1/games/{other['game']}", headers=bearer(event["token"])).status_code == 401


def test_without_a_configured_secret_every_process_derives_the_same_seat_tokens_from_one_made_on_first_use(backend):
    settings = make_settings()
    first, second = (create_app(settings, redis=backend) for _ in range(2))
    keys, started = paired(first, first.test_client(), ("Bige", "Cansu"))
    again = [events(second, key)[0] for key in keys]
    assert [event["token"] for event in again] == [event["token"] for event in started]
    view = second.test_client().get(f"/v1/games/{again[0]['game']}", headers=bearer(again[0]["token"])).get_json()
    assert view["seat"] == again[0]["seat"]
    secret = first.extensions["koz_arena"].store.secret()
    assert len(secret) >= 43 and secret == second.extensions["koz_arena"].store.secret()  # 32 random bytes, kept
    for app in (first, second):
        app.extensions["koz"].announcements.stop()


def test_a_seat_token_comes_from_its_fleets_secret_so_another_fleet_derives_another_for_the_same_seat():
    fleets = [create_app(make_settings(), redis=fakeredis.FakeRedis()) for _ in range(2)]
    tokens = [fleet.extensions["koz_arena"].seat_token("one-game", 0) for fleet in fleets]
    assert tokens[0] != tokens[1] and tokens[0] == fleets[0].extensions["koz_arena"].seat_token("one-game", 0)


def test_the_leaderboard_pages_by_offset_and_limit_its_ranks_counting_on_and_names_the_next_page(arena_app, client):
    from service.arena.ratings import ESTABLISHED_GAMES, Seat

    ratings = arena_app.extensions["koz_arena"].ratings
    names = ["Ada", "Bora", "Cem", "Duru", "Ece"]
    kinds = dict(zip(names, ["bot", "person", "bot", "person", "bot"]))
    for round_number in range(ESTABLISHED_GAMES):  # a chain: each beats the next, every round
        for winner, loser in zip(names, names[1:]):
            seats = [Seat(f"id-{winner}", winner, kinds[winner], "win"), Seat(f"id-{loser}", loser, kinds[loser], "loss")]
            ratings.record("german-whist", f"{round_number}-{winner}", seats, [[0], [1]], True, {})
    query = {"ruleset": "german-whist", "limit": 2}
    pages = [client.get("/v1/arena/leaderboard", query_string={**query, "offset": offset}).get_json() for offset in (0, 2, 4)]
    assert [(page["ruleset"], page["provisional"], page["total"], page["next_offset"]) for page in pages] == [
        ("german-whist", False, 5, 2),
        ("german-whist", False, 5, 4),
        ("german-whist", False, 5, None),
    ]
    entries = [entry for page in pages for entry in page["entries"]]
    assert [entry["rank"] for entry in entries] == [1, 2, 3, 4, 5]
    for entry in entries:
        rating = ratings.of("german-whist", f"id-{entry['name']}")
        assert entry == {
            "rank": entry["rank"],
            "name": entry["name"],
            "kind": kinds[entry["name"]],
            "rating": rating.mu,
            "uncertainty": rating.sigma,
            "games": rating.games,
        }
    conservative = [entry["rating"] - 3 * entry["uncertainty"] for entry in entries]
    assert conservative == sorted(conservative, reverse=True) and entries[0]["name"] == "Ada" and entries[-1]["name"] == "Ece"
    whole = client.get("/v1/arena/leaderboard", query_string={**query, "limit": 5}).get_json()
    assert whole["entries"] == entries and whole["next_offset"] is None


def winner_name(finished, keys) -> str:
    for (name, _), event in zip(keys.items(), finished):
        if event["outcome"] == "win":
            return name
    raise AssertionError


def test_a_seek_past_its_house_after_plays_a_house_account_which_is_rated_too(arena_app, client):
    key = account(client, "Lonely")
    client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "house_after_seconds": 0}, headers=bearer(key))
    Matchmaker(arena_app.extensions["koz_arena"]).run_pass()
    (started,) = events(arena_app, key)
    (house,) = started["players"]
    assert house["kind"] == "house" and house["name"].startswith("koz-")
    game = arena_app.extensions["koz"].repository.load(started["game"])
    assert [seat["bot"] is not None for seat in game.seat_list()] == [seat != started["seat"] for seat in range(2)]
    Worker(arena_app.extensions["koz"], "test").drain()  # the house moves first when it leads
    forfeit(arena_app, started["game"])
    Matchmaker(arena_app.extensions["koz_arena"]).run_pass()
    assert events(arena_app, key)[-1]["type"] == "match_finished"
    assert client.get(f"/v1/accounts/{house['name']}").get_json()["ratings"][0]["games"] == 1
    arena = arena_app.extensions["koz_arena"]
    (result,) = arena.store.results("german-whist")
    assert sorted(seat["kind"] for seat in result["seats"]) == ["bot", "house"]
    assert arena.events_after(arena.accounts.find(house["name"]).id, 0) == []  # the house has no stream to tell


def test_a_seek_meets_the_house_level_of_the_nearest_rating_and_hears_the_whole_match_it_starts(arena_app, client):
    from service.arena.ratings import Seat

    arena = arena_app.extensions["koz_arena"]
    house = {level: arena.accounts.house(level) for level in ("random", "basic", "expert")}
    results = [("random", "loss"), ("random", "loss"), ("basic", "loss"), ("basic", "loss"), ("expert", "draw")]
    for number, (level, outcome) in enumerate(results):  # the weaker levels fall well below a new account; the expert stays by it
        other = {"loss": "win", "draw": "draw"}[outcome]
        seats = [Seat(house[level].id, house[level].name, "house", outcome), Seat(f"sparring-{number}", "sparring", "bot", other)]
        arena.ratings.record("german-whist", f"earlier-{number}", seats, [[0], [1]], True, {"status": "finished", "finished_at": 0.0})
    expert = arena.ratings.of("german-whist", house["expert"].id)
    key = account(client, "Deniz")
    client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "rated": False, "house_after_seconds": 0}, headers=bearer(key))
    assert Matchmaker(arena).run_pass() == 1
    (started,) = events(arena_app, key)
    game, seat = started["game"], started["seat"]
    assert started == {
        "type": "match_started",
        "game": game,
        "ruleset": "german-whist",
        "options": {"scoring": "tricks", "count_all_tricks": False, "no_trump": False, "misere": False, "target": 0},
        "rated": False,
        "seat": seat,
        "url": f"/v1/games/{game}",
        "players": [{"seat": 1 - seat, "name": "koz-expert", "kind": "house", "rating": expert.mu, "uncertainty": expert.sigma}],
        "token": started["token"],
    }
    seats = client.get(f"/v1/games/{game}").get_json()["seats"]
    expected = [("Deniz", None) if index == seat else ("koz-expert", "expert") for index in range(2)]
    assert [(entry["name"], entry["bot"]) for entry in seats] == expected


def test_a_pass_with_nothing_to_pair_starts_nothing_and_seeks_of_other_options_never_meet(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    assert Matchmaker(arena).run_pass() == 0
    short, long = account(client, "Kısa"), account(client, "Uzun")
    client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "options": {"target": 0}}, headers=bearer(short))
    client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "options": {"target": 20}}, headers=bearer(long))
    assert Matchmaker(arena).run_pass() == 0 and events(arena_app, short) == events(arena_app, long) == []


def test_the_pass_is_due_when_the_first_seek_left_alone_in_any_ruleset_reaches_its_house_after(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    whist, sixty_six = account(client, "Eda"), account(client, "Fikret")
    matchmaker = Matchmaker(arena)
    for first_after, second_after in ((40, 20), (20, 40)):  # the pass takes the rulesets in one order; the first due of either
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "house_after_seconds": first_after}, headers=bearer(whist))
        client.post("/v1/arena/seeks", json={"ruleset": "sixty-six", "house_after_seconds": second_after}, headers=bearer(sixty_six))
        seeks = [seek for key in (whist, sixty_six) for seek in client.get("/v1/arena/seeks", headers=bearer(key)).get_json()["seeks"]]
        due = min(seek["seeked_at"] + seek["house_after_seconds"] for seek in seeks)
        assert matchmaker.run_pass() == 0 and matchmaker.house_due == pytest.approx(due, abs=0.001)
        for key in (whist, sixty_six):
            assert client.delete("/v1/arena/seeks", headers=bearer(key)).status_code == 204


def test_an_account_that_abandoned_a_game_seeks_as_if_it_came_later_and_others_meet_first(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, started = paired(arena_app, client, ("Gamze", "Harun"))
    quitter_seat = forfeit(arena_app, started[0]["game"])
    quitter = keys[[event["seat"] for event in started].index(quitter_seat)]
    Matchmaker(arena).run_pass()
    real = arena.timer
    client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(quitter))  # the first to seek
    arena.timer = lambda: real() + 1
    fresh = [account(client, name) for name in ("Irmak", "Jülide")]
    for key in fresh:
        client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key))
    arena.timer = lambda: real() + 2
    assert Matchmaker(arena).run_pass() == 1
    assert [events(arena_app, key)[-1]["type"] for key in fresh] == ["match_started", "match_started"]
    assert events(arena_app, quitter)[-1]["type"] == "match_finished"  # still waiting


def test_an_arena_game_whose_first_seat_never_acts_is_forfeited_when_its_clock_runs_out(arena_app, client):
    """Arena games are made together, their clocks scheduled together: a bot that never plays its
    first card loses by the clocks' check alone, with no request coming."""
    koz = arena_app.extensions["koz"]
    keys, started = paired(arena_app, client, ("Sleepy", "Waiting"))
    game_id = started[0]["game"]
    deadline = koz.repository.load(game_id).deadline()
    assert deadline is not None
    real = koz.timer
    koz.timer = lambda: deadline - 1
    assert enforce(koz) == 0
    koz.timer = lambda: deadline + 1
    assert enforce(koz) == 1
    koz.timer = real
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "forfeited"


def test_a_seek_that_waits_past_its_time_expires_and_says_so(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    key = account(client, "Patient")
    seek = client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).get_json()
    real = arena.timer
    arena.timer = lambda: real() + arena.settings.arena_seek_seconds + 1
    Matchmaker(arena).run_pass()
    assert events(arena_app, key) == [{"type": "seek_expired", "seek": seek}]
    assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json() == {"seeks": []}


def test_a_seek_expires_at_its_expires_at_and_gives_its_account_its_place_back():
    app = create_app(make_settings(arena_games_at_once=1), redis=fakeredis.FakeRedis())
    client, arena = app.test_client(), app.extensions["koz_arena"]
    key = account(client, "Patient")
    seek = client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key)).get_json()
    assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)).get_json()["code"] == "too_many_arena_games"
    arena.timer = lambda: seek["expires_at"]
    assert Matchmaker(arena).run_pass() == 0  # nothing started, settled or ended
    assert events(app, key) == [{"type": "seek_expired", "seek": seek}]
    assert client.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(key)).status_code == 201


def test_a_clock_run_out_loses_the_match_and_the_account_is_matched_later_until_it_plays_again(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, started = paired(arena_app, client, ("Quitter", "Stayer"))
    seat_to_act = forfeit(arena_app, started[0]["game"])
    quitter = next(event for event in started if event["seat"] == seat_to_act)
    Matchmaker(arena).run_pass()
    quitter_key = keys[started.index(quitter)]
    finished = events(arena_app, quitter_key)[-1]
    assert finished["type"] == "match_finished" and finished["outcome"] == "loss" and finished["abandoned"] and finished["status"] == "forfeited"
    assert arena.accounts.authenticate(quitter_key).abandoned == quitter["game"]
    # it plays again (its opponent's clock runs out this time): it is matched as anyone is
    for key in keys:
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "rated": False}, headers=bearer(key))
    Matchmaker(arena).run_pass()
    assert events(arena_app, quitter_key)[-1]["type"] == "match_finished"  # its penalty: not paired yet, their ratings apart
    real = arena.timer
    arena.timer = lambda: real() + 60  # a minute later: the window has widened past the penalty
    Matchmaker(arena).run_pass()
    again = [events(arena_app, key)[-1] for key in keys]
    assert again[0]["type"] == again[1]["type"] == "match_started"
    timed_out = forfeit(arena_app, again[0]["game"])
    Matchmaker(arena).run_pass()
    finished = events(arena_app, quitter_key)[-1]
    assert finished["type"] == "match_finished" and finished["abandoned"] == (timed_out == again[keys.index(quitter_key)]["seat"])
    assert arena.accounts.authenticate(quitter_key).abandoned == (again[0]["game"] if finished["abandoned"] else None)


def test_the_event_stream_resumes_after_last_event_id(arena_app, client):
    keys = [account(client, name) for name in ("Ece", "Fırat")]
    for key in keys:
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "house_after_seconds": 0}, headers=bearer(key))
    Matchmaker(arena_app.extensions["koz_arena"]).run_pass()
    text = client.get("/v1/arena/events", headers=bearer(keys[0])).get_data(as_text=True)
    assert text.startswith("retry: 2000\n\n") and "id: 1\nevent: match_started\n" in text and '"token":' in text
    assert "id: 1\n" not in client.get("/v1/arena/events", headers={**bearer(keys[0]), "Last-Event-ID": "1"}).get_data(as_text=True)
    assert client.get("/v1/arena/events", headers={**bearer(keys[0]), "Last-Event-ID": "soon"}).status_code == 400
    assert client.get("/v1/arena/events").get_json()["code"] == "missing_key"


def test_an_event_told_while_the_stream_waits_reaches_it_at_once_not_at_its_heartbeat(backend):
    """The stream waits on the account's own channel: the event's announcement wakes it (an event
    announced on another channel would wait out the heartbeat, 5 s here, and arrive after it)."""
    app = create_app(make_settings(stream_heartbeat_seconds=5, stream_max_seconds=30), redis=backend)
    subscription_up(app.extensions["koz"])
    client = app.test_client()
    key = account(client, "Ece")
    arena = app.extensions["koz_arena"]
    stream = client.get("/v1/arena/events", headers=bearer(key), buffered=False)
    chunks = iter(stream.response)
    assert next(chunks) == b"retry: 2000\n\n"
    told = threading.Timer(0.2, arena.emit, (arena.accounts.authenticate(key).id, {"type": "seek_expired", "number": 1}))
    told.start()
    assert next(chunks).startswith(b"id: 1\nevent: seek_expired\n")  # (the stream reads, finds nothing, and waits meanwhile)
    told.join()
    stream.close()
    app.extensions["koz"].announcements.stop()


def test_the_event_stream_sends_a_backlog_longer_than_a_page_whole_and_in_order(backend):
    """Page after page at once: nothing wakes the stream between them (its subscription is up
    before it connects, and no event comes), and its heartbeat's wait outlasts it."""
    app = create_app(make_settings(stream_heartbeat_seconds=30, stream_max_seconds=0.5), redis=backend)
    subscription_up(app.extensions["koz"])
    client = app.test_client()
    key = account(client, "Ece")
    arena = app.extensions["koz_arena"]
    arena.emit_all([(arena.accounts.authenticate(key).id, {"type": "seek_expired", "number": number}) for number in range(250)])
    text = client.get("/v1/arena/events", headers=bearer(key)).get_data(as_text=True)  # no heartbeat's wait between pages
    sent = [line for line in text.splitlines() if line.startswith("id: ")]
    assert sent == [f"id: {number}" for number in range(1, 251)] and '"number":249}' in text
    app.extensions["koz"].announcements.stop()


def test_four_seeks_of_esli_batak_start_one_match_partners_drawn_each_account_with_its_own_seat_token(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    names = ["Oya", "Polat", "Rana", "Sarp"]
    keys = [account(client, name) for name in names]
    partners = []
    for draw in (1, 2):  # two matches of the same four: the partners are drawn anew
        for key in keys:
            assert client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak"}, headers=bearer(key)).status_code == 201
        assert Matchmaker(arena, shuffle=random.Random(draw)).run_pass() == 1
        started = [events(arena_app, key)[-1] for key in keys]
        assert {event["type"] for event in started} == {"match_started"} and len({event["game"] for event in started}) == 1
        assert sorted(event["seat"] for event in started) == [0, 1, 2, 3] and len({event["token"] for event in started}) == 4
        game = started[0]["game"]
        for name, event in zip(names, started):
            view = client.get(f"/v1/games/{game}", headers=bearer(event["token"])).get_json()
            assert view["seat"] == event["seat"] and view["seats"][event["seat"]]["name"] == name
            assert sorted(player["name"] for player in event["players"]) == sorted(set(names) - {name})
        sides = client.get(f"/v1/games/{game}").get_json()["sides"]
        seat_of = {name: event["seat"] for name, event in zip(names, started)}
        partners.append(next(other for other in names if other != "Oya" and any({seat_of["Oya"], seat_of[other]} <= set(side) for side in sides)))
    assert partners[0] != partners[1]


def test_two_accounts_that_seek_beside_each_other_sit_on_one_side_of_esli_batak(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys = {name: account(client, name) for name in ("Tuna", "Umay", "Veli", "Yaren")}
    beside = {"Tuna": "umay", "Umay": "TUNA"}  # (a name in any case)
    for name, key in keys.items():
        body = {"ruleset": "partnership-batak", **({"partner": beside[name]} if name in beside else {})}
        made = client.post("/v1/arena/seeks", json=body, headers=bearer(key))
        assert made.status_code == 201 and made.get_json()["partner"] == {"Tuna": "Umay", "Umay": "Tuna"}.get(name)
    for draw in range(4):  # whatever the draw (four matches: the cap of games at once)
        if draw:
            for name, key in keys.items():
                client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak", "partner": beside.get(name)}, headers=bearer(key))
        assert Matchmaker(arena, shuffle=random.Random(draw)).run_pass() == 1
        seat_of = {name: events(arena_app, key)[-1]["seat"] for name, key in keys.items()}
        sides = client.get(f"/v1/games/{events(arena_app, keys['Tuna'])[-1]['game']}").get_json()["sides"]
        partnerships = [{seat_of["Tuna"], seat_of["Umay"]}, {seat_of["Veli"], seat_of["Yaren"]}]
        assert sorted(map(sorted, partnerships)) == sorted(map(sorted, sides))


def test_a_seek_beside_a_partner_waits_for_that_partner_and_is_another_seek_than_one_without(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys = {name: account(client, name) for name in ("Zehra", "Ali", "Bora", "Cem", "Dila")}
    beside = client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak", "partner": "Ali"}, headers=bearer(keys["Zehra"]))
    again = client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak", "partner": "ali"}, headers=bearer(keys["Zehra"]))
    alone = client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak"}, headers=bearer(keys["Zehra"]))
    assert (beside.status_code, again.status_code, alone.status_code) == (201, 200, 201)
    assert beside.get_json() == again.get_json() and alone.get_json()["id"] != beside.get_json()["id"] and alone.get_json()["partner"] is None
    client.delete(f"/v1/arena/seeks/{alone.get_json()['id']}", headers=bearer(keys["Zehra"]))
    for name in ("Ali", "Bora", "Cem", "Dila"):  # Ali seeks, but not beside Zehra
        client.post("/v1/arena/seeks", json={"ruleset": "partnership-batak"}, headers=bearer(keys[name]))
    assert Matchmaker(arena).run_pass() == 1
    assert events(arena_app, keys["Zehra"]) == [] and events(arena_app, keys["Ali"])[-1]["type"] == "match_started"
    assert [seek["partner"] for seek in client.get("/v1/arena/seeks", headers=bearer(keys["Zehra"])).get_json()["seeks"]] == ["Ali"]


@pytest.mark.parametrize(
    ("body", "status", "code", "turkish"),
    [
        ({"ruleset": "german-whist", "partner": "Ece"}, 400, "no_partnerships", "ortaklı oynanmaz"),
        ({"ruleset": "partnership-batak", "partner": "Nil"}, 400, "partner_self", "kendi ortağı"),
        ({"ruleset": "partnership-batak", "partner": "koz-expert"}, 400, "house_account", "Koz'un kendi"),
        ({"ruleset": "partnership-batak", "partner": "Nobody"}, 404, "unknown_account", "hesap yok"),
        ({"ruleset": "partnership-batak", "partner": ""}, 400, "invalid_request", ""),
        ({"ruleset": "partnership-batak", "partner": 7}, 400, "invalid_request", ""),
    ],
)
def test_a_seek_beside_no_one_it_can_sit_beside_is_refused_and_queues_nothing(client, body, status, code, turkish):
    key = account(client, "Nil")
    account(client, "Ece")
    refused = client.post("/v1/arena/seeks", json=body, headers={**bearer(key), "Accept-Language": "tr"})
    assert refused.status_code == status and refused.get_json()["code"] == code and turkish in refused.get_json()["detail"]
    assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json() == {"seeks": []}


@pytest.mark.parametrize("after", ["5", True])
def test_a_seeks_house_after_is_a_json_number_of_seconds_not_text_read_as_one(client, after):
    key = account(client, "Nil")
    refused = client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "house_after_seconds": after}, headers=bearer(key))
    assert refused.status_code == 400 and refused.get_json()["code"] == "invalid_request"
    assert list(refused.get_json()["errors"]) == ["house_after_seconds"]
    assert client.get("/v1/arena/seeks", headers=bearer(key)).get_json() == {"seeks": []}


def stored_values(redis, prefix: str) -> list[bytes]:
    """Every value kept under ``prefix``, whatever its key's type."""
    values: list[bytes] = []
    for key in redis.scan_iter(match=f"{prefix}:*"):
        kind = redis.type(key).decode()
        if kind == "string":
            values.append(redis.get(key))
        elif kind == "hash":
            values += redis.hvals(key)
        elif kind == "list":
            values += redis.lrange(key, 0, -1)
        elif kind == "zset":
            values += redis.zrange(key, 0, -1)
        elif kind == "stream":
            values += [value for _, fields in redis.xrange(key) for value in fields.values()]
    return values


def test_a_seat_token_is_kept_nowhere_in_the_store_and_is_given_whenever_the_stream_is_read(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, started = paired(arena_app, client, ("Mert", "Nur"))
    stored = stored_values(arena.store.redis, arena.store.prefix)
    for event in started:
        assert len(event["token"]) > 40 and not any(event["token"].encode() in value for value in stored)
        assert client.get(f"/v1/games/{event['game']}", headers=bearer(event["token"])).get_json()["seat"] == event["seat"]
    assert events(arena_app, keys[0]) == [started[0]]  # read again: the same token
    streamed = client.get("/v1/arena/events", headers=bearer(keys[1])).get_data(as_text=True)
    assert f'"token":"{started[1]["token"]}"' in streamed.replace(" ", "")


def test_a_result_is_recorded_once_by_racing_workers_and_again_after_one_died_mid_way(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys, started = paired(arena_app, client, ("Gül", "Hakan"))
    forfeit(arena_app, started[0]["game"])
    dying = Matchmaker(arena)
    dying.store = type("Dies", (), {"__getattr__": lambda self, name: getattr(arena.store, name), "set_abandoned": died})()
    with pytest.raises(RuntimeError):
        dying.settle()
    racers = [Matchmaker(arena) for _ in range(4)]
    threads = [threading.Thread(target=racer.run_pass) for racer in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for key in keys:
        page = client.get(f"/v1/accounts/{arena.accounts.authenticate(key).name}").get_json()
        assert page["games_played"] == 1 and page["ratings"][0]["games"] == 1
        assert any(event["type"] == "match_finished" for event in events(arena_app, key))
    assert len(arena.store.results("german-whist")) == 1
    assert arena.store.matches_started_before("german-whist", float("inf")) == {}
    assert arena_app.extensions["koz"].store.ended_arena_games(10) == []


def test_a_pass_reads_only_the_arena_games_whose_end_was_committed(arena_app, client, monkeypatch):
    arena, koz = arena_app.extensions["koz_arena"], arena_app.extensions["koz"]
    keys = [account(client, name) for name in ("Irmak", "Jale", "Kaan", "Lale")]
    for key in keys:
        client.post("/v1/arena/seeks", json={"ruleset": "german-whist"}, headers=bearer(key))
    assert Matchmaker(arena).run_pass() == 2
    games = sorted({events(arena_app, key)[0]["game"] for key in keys})
    assert koz.store.ended_arena_games(10) == []
    forfeit(arena_app, games[0])
    assert koz.store.ended_arena_games(10) == [games[0]]
    read = []
    load_many = koz.store.load_many
    monkeypatch.setattr(koz.store, "load_many", lambda game_ids: read.append(list(game_ids)) or load_many(game_ids))
    monkeypatch.setattr(koz.repository, "load", lambda game_id: pytest.fail(f"{game_id} read one by one"))
    assert Matchmaker(arena).run_pass() == 1
    assert read == [[games[0]]] and koz.store.ended_arena_games(10) == []
    assert set(arena.store.matches_started_before("german-whist", float("inf"))) == {games[1]}


def test_a_game_outside_the_arena_leaves_no_end_for_the_arenas_pass(arena_app, client):
    koz = arena_app.extensions["koz"]
    created = client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"bot": "random"}, {"bot": "random"}]})
    Worker(koz, "test").drain()  # the computers play it out
    assert client.get(f"/v1/games/{created.get_json()['id']}").get_json()["status"] == "finished"
    assert koz.store.ended_arena_games(10) == []


def died(*_):
    raise RuntimeError("the worker died here")


def test_the_turn_left_is_what_remains_of_the_one_taken_at_most_a_period_and_none_when_no_turn_is_taken(arena_app, backend):
    matchmaker = Matchmaker(arena_app.extensions["koz_arena"])
    assert matchmaker.turn_left(0.5) == 0  # no turn taken: the pass is due now
    assert matchmaker.take_turn("another worker", 100.0) and not matchmaker.take_turn("this worker", 100.0)
    assert matchmaker.turn_left(1000.0) == pytest.approx(100.0, abs=0.05) and matchmaker.turn_left(0.5) == 0.5
    matchmaker.end_turn_at(matchmaker.arena.timer() + 50.0)  # a pass due sooner than the turn taken would end
    assert matchmaker.turn_left(1000.0) == pytest.approx(50.0, abs=0.05)
    backend.persist(matchmaker._turn_key)  # a turn that lost its expiry: waited out a period at a time, not asked again at once
    assert matchmaker.turn_left(0.5) == 0.5


def test_a_worker_that_finds_the_turn_taken_makes_the_pass_when_that_turn_ends_not_a_period_later(arena_app, client, monkeypatch):
    monkeypatch.setattr("service.worker.PASS_SECONDS", 30.0)  # a pass a period later would come far too late
    worker = Worker(arena_app.extensions["koz"], "test", block_seconds=0.05)
    key = account(client, "Lone")
    assert client.post("/v1/arena/seeks", json={"ruleset": "german-whist", "house_after_seconds": 0}, headers=bearer(key)).status_code == 201
    assert Matchmaker(arena_app.extensions["koz_arena"]).take_turn("another worker", 0.3)
    started_at = time.monotonic()
    worker.work()  # the other's turn: no pass
    assert events(arena_app, key) == []
    while not events(arena_app, key) and time.monotonic() < started_at + 10:
        worker.work(block=True)
    (started,) = events(arena_app, key)
    assert started["type"] == "match_started" and time.monotonic() - started_at < 5
