"""Challenges by name over HTTP: made, heard on the other's stream, accepted (the match starts as
a pairing's would), declined, withdrawn, expired; each refused shape with its code in both languages.

Each scenario runs on fakeredis and on a real redis-server (``backend``)."""

from __future__ import annotations

import fakeredis
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from service import create_app
from service.arena.challenges import Challenges, ChallengeStore
from service.arena.matchmaker import PAIRING_SECONDS, Matchmaker
from service.arena.ratings import Seat
from service.arena.store import ArenaStore
from service.games import Games
from service.refusals import Refused
from service.repository import Repository
from tests.conftest import make_settings
from tests.test_arena_api import (
    Killed,
    account,
    bearer,
    bookkeeping_left,
    engaged,
    events,
    killed,
    killed_after_the_first,
    killed_at,
    one_match_each,
    play_out,
    settled_after_the_pairings_time,
)


@pytest.fixture
def arena_app(backend):
    app = create_app(make_settings(), redis=backend)
    yield app
    app.extensions["koz"].announcements.stop()


@pytest.fixture
def client(arena_app):
    return arena_app.test_client()


def challenge(client, key: str, to: str, **body) -> dict:
    answer = client.post("/v1/arena/challenges", json={"to": to, "ruleset": "german-whist", **body}, headers=bearer(key))
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def test_an_accepted_challenge_starts_the_match_on_both_streams_and_is_rated_as_any(arena_app, client):
    ayla, berk = account(client, "Ayla"), account(client, "Berk")
    made = challenge(client, ayla, "BERK", options={"scoring": "tricks"})
    assert (made["from"], made["to"], made["rated"], made["options"]["scoring"]) == ("Ayla", "Berk", True, "tricks")
    (heard,) = events(arena_app, berk)
    assert heard["type"] == "challenge" and heard["challenge"] == made
    assert heard["challenger"]["name"] == "Ayla" and heard["challenger"]["rating"] == pytest.approx(25.0)
    for key in (ayla, berk):
        assert client.get("/v1/arena/challenges", headers=bearer(key)).get_json() == {"challenges": [made]}
    accepted = client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk))
    assert accepted.status_code == 200 and accepted.get_json() == {**made, "game": accepted.get_json()["game"]}
    started = [events(arena_app, key)[-1] for key in (ayla, berk)]
    assert [event["type"] for event in started] == ["match_started", "match_started"]
    assert {event["game"] for event in started} == {accepted.get_json()["game"]} and {event["seat"] for event in started} == {0, 1}
    assert started[0]["options"]["scoring"] == "tricks" and started[0]["players"][0]["name"] == "Berk"
    view = client.get(f"/v1/games/{started[1]['game']}", headers=bearer(started[1]["token"])).get_json()
    assert view["seat"] == started[1]["seat"] and view["clock"]["on_timeout"] == "forfeit"
    assert client.get("/v1/arena/challenges", headers=bearer(ayla)).get_json() == {"challenges": []}
    again = client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk))
    assert again.status_code == 404 and again.get_json()["code"] == "unknown_challenge"
    play_out(arena_app, client, started)
    assert [events(arena_app, key)[-1]["type"] for key in (ayla, berk)] == ["match_finished", "match_finished"]
    assert client.get("/v1/accounts/ayla").get_json()["ratings"][0]["games"] == 1


def test_a_declined_withdrawn_or_expired_challenge_tells_the_other_side_and_frees_the_challengers_place(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    ece, firat = account(client, "Ece"), account(client, "Fırat")
    declined = challenge(client, ece, "fırat")
    assert client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer(ece)).status_code == 404  # not Ece's to decline
    assert client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer(firat)).status_code == 204
    assert events(arena_app, ece)[-1] == {"type": "challenge_declined", "challenge": declined}
    withdrawn = challenge(client, ece, "Fırat", rated=False)
    assert client.delete(f"/v1/arena/challenges/{withdrawn['id']}", headers=bearer(firat)).status_code == 404  # only the challenger withdraws
    assert client.delete(f"/v1/arena/challenges/{withdrawn['id']}", headers=bearer(ece)).status_code == 204
    assert events(arena_app, firat)[-1] == {"type": "challenge_withdrawn", "challenge": withdrawn}
    late = client.post(f"/v1/arena/challenges/{withdrawn['id']}/accept", headers={**bearer(firat), "Accept-Language": "tr"})
    assert late.status_code == 404 and "meydan okuma yok" in late.get_json()["detail"]
    expiring = challenge(client, ece, "Fırat")
    real = arena.timer
    arena.timer = lambda: real() + arena.settings.arena_seek_seconds + 1
    assert client.post(f"/v1/arena/challenges/{expiring['id']}/accept", headers=bearer(firat)).status_code == 404
    assert Matchmaker(arena).run_pass() == 1
    for key in (ece, firat):
        assert events(arena_app, key)[-1] == {"type": "challenge_expired", "challenge": expiring}
        assert client.get("/v1/arena/challenges", headers=bearer(key)).get_json() == {"challenges": []}
    arena.timer = real
    assert arena.store.redis.zcard(arena.store.account_key(arena.accounts.authenticate(ece).id, "engaged")) == 0


def test_an_open_challenge_counts_among_the_challengers_games_and_accepting_among_the_accepters():
    capped = create_app(make_settings(arena_games_at_once=1), redis=fakeredis.FakeRedis()).test_client()
    gul, hakan, ilke = (account(capped, name) for name in ("Gül", "Hakan", "İlke"))
    first = challenge(capped, gul, "Hakan")
    over = capped.post("/v1/arena/challenges", json={"to": "İlke", "ruleset": "sixty-six"}, headers={**bearer(gul), "Accept-Language": "tr"})
    assert over.status_code == 409 and over.get_json()["code"] == "too_many_arena_games" and "aynı anda" in over.get_json()["detail"]
    assert capped.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(hakan)).status_code == 201
    busy = capped.post(f"/v1/arena/challenges/{first['id']}/accept", headers=bearer(hakan))
    assert busy.status_code == 409 and busy.get_json()["code"] == "too_many_arena_games"
    assert capped.get("/v1/arena/challenges", headers=bearer(hakan)).get_json()["challenges"] == [first]  # still open
    capped.delete("/v1/arena/seeks", headers=bearer(hakan))
    assert capped.post(f"/v1/arena/challenges/{first['id']}/accept", headers=bearer(hakan)).status_code == 200
    assert capped.post("/v1/arena/challenges", json={"to": "İlke", "ruleset": "sixty-six"}, headers=bearer(gul)).status_code == 409
    assert ilke


def test_the_challenged_hears_the_challengers_kind_and_rating_and_the_match_starts_at_their_ratings(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    ayla, berk = account(client, "Ayla"), account(client, "Berk", kind="person")
    ids = [arena.accounts.authenticate(key).id for key in (ayla, berk)]
    seats = [Seat(ids[0], "Ayla", "bot", "win"), Seat(ids[1], "Berk", "person", "loss")]
    arena.ratings.record("german-whist", "earlier", seats, [[0], [1]], True, {"status": "finished", "finished_at": 0.0})
    rated = {name: arena.ratings.of("german-whist", account_id) for name, account_id in zip(("Ayla", "Berk"), ids)}
    made = challenge(client, ayla, "Berk")
    ayla_rating = rated["Ayla"]
    assert events(arena_app, berk)[-1] == {
        "type": "challenge",
        "challenge": made,
        "challenger": {"name": "Ayla", "kind": "bot", "rating": ayla_rating.mu, "uncertainty": ayla_rating.sigma},
    }
    assert client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk)).status_code == 200
    for key, other in ((ayla, "Berk"), (berk, "Ayla")):
        (player,) = events(arena_app, key)[-1]["players"]
        assert (player["name"], player["rating"]) == (other, rated[other].mu)


def test_an_account_lists_only_its_own_open_challenges_oldest_first_every_time_it_asks(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys = {name: account(client, name) for name in ("Ayla", "Berk", "Cem", "Duru")}
    real, made = arena.timer, []
    for offset, (source, to) in enumerate([("Ayla", "Berk"), ("Cem", "Ayla"), ("Ayla", "Duru"), ("Cem", "Duru"), ("Duru", "Ayla")]):
        arena.timer = lambda offset=offset: real() + offset
        made.append(challenge(client, keys[source], to))
    arena.timer = lambda: real() + 5
    for _ in range(2):
        assert client.get("/v1/arena/challenges", headers=bearer(keys["Ayla"])).get_json() == {"challenges": [made[0], made[1], made[2], made[4]]}
        assert client.get("/v1/arena/challenges", headers=bearer(keys["Berk"])).get_json() == {"challenges": [made[0]]}


def test_a_challenge_is_over_at_its_expires_at_and_only_its_own_sides_may_take_it_before(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    ece, firat, gaye = account(client, "Ece"), account(client, "Fırat"), account(client, "Gaye")
    made = challenge(client, ece, "Fırat")
    for path, method in ((f"/v1/arena/challenges/{made['id']}/decline", "post"), (f"/v1/arena/challenges/{made['id']}", "delete")):
        refused = getattr(client, method)(path, headers=bearer(gaye))  # neither side: as if there were none
        assert refused.status_code == 404 and refused.get_json()["code"] == "unknown_challenge" and made["id"] in refused.get_json()["detail"]
    arena.timer = lambda: made["expires_at"]
    for key, path, method in (
        (firat, f"/v1/arena/challenges/{made['id']}/accept", "post"),
        (firat, f"/v1/arena/challenges/{made['id']}/decline", "post"),
        (ece, f"/v1/arena/challenges/{made['id']}", "delete"),
    ):
        late = getattr(client, method)(path, headers=bearer(key))
        assert late.status_code == 404 and late.get_json()["code"] == "unknown_challenge"
    assert client.get("/v1/arena/challenges", headers=bearer(firat)).get_json() == {"challenges": []}


def test_one_accounts_open_challenge_takes_no_place_of_anothers_and_a_challenge_to_another_is_unknown_even_at_the_cap():
    capped = create_app(make_settings(arena_games_at_once=1), redis=fakeredis.FakeRedis()).test_client()
    gul, hakan, ilke, jale = (account(capped, name) for name in ("Gül", "Hakan", "İlke", "Jale"))
    first = challenge(capped, gul, "Hakan")
    assert capped.post("/v1/arena/challenges", json={"to": "Hakan", "ruleset": "sixty-six"}, headers=bearer(ilke)).status_code == 201
    assert capped.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(jale)).status_code == 201  # Jale at her cap
    taken = capped.post(f"/v1/arena/challenges/{first['id']}/accept", headers=bearer(jale))
    assert taken.status_code == 404 and taken.get_json()["code"] == "unknown_challenge"


def test_every_challenge_past_its_time_expires_in_one_pass(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Lale", "Mert", "Nur")]
    made = [challenge(client, keys[0], "Mert"), challenge(client, keys[2], "Lale")]
    real = arena.timer
    arena.timer = lambda: real() + arena.settings.arena_seek_seconds + 1
    assert Matchmaker(arena).run_pass() == 2
    assert [event["type"] for event in events(arena_app, keys[0])] == ["challenge", "challenge_expired", "challenge_expired"]
    assert {event["challenge"]["id"] for event in events(arena_app, keys[0])[1:]} == {made[0]["id"], made[1]["id"]}


def test_a_challenge_in_eşli_batak_seats_koz_house_players_beside_the_two_accounts(arena_app, client):
    can, deniz = account(client, "Can"), account(client, "Deniz")
    made = challenge(client, can, "Deniz", ruleset="partnership-batak")
    game = client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(deniz)).get_json()["game"]
    started = events(arena_app, can)[-1]
    assert started["game"] == game and len(started["players"]) == 3
    assert sorted(player["kind"] for player in started["players"]) == ["bot", "house", "house"]


def test_a_challenge_in_eşli_batak_seats_the_house_level_nearest_the_two_accounts_mean_rating(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    ece, fuat = account(client, "Ece"), account(client, "Fuat")
    expert = arena.accounts.house("expert")
    winners = [arena.accounts.authenticate(key) for key in (ece, fuat)] + [expert]
    for number, winner in enumerate(winners * 3):  # the two accounts and koz-expert climb alike; koz-basic stays new
        seats = [Seat(winner.id, winner.name, winner.kind, "win"), Seat(f"sparring-{number}", "sparring", "bot", "loss")]
        arena.ratings.record("partnership-batak", f"earlier-{number}", seats, [[0], [1]], True, {"status": "finished", "finished_at": 0.0})
    made = challenge(client, ece, "Fuat", ruleset="partnership-batak")
    game = client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(fuat)).get_json()["game"]
    seats = client.get(f"/v1/games/{game}").get_json()["seats"]
    assert sorted(entry["name"] for entry in seats) == ["Ece", "Fuat", "koz-expert", "koz-expert"]


def test_a_challenge_in_eşli_batak_seats_the_house_level_nearest_the_mean_not_either_account(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    ece, fuat = account(client, "Ece"), account(client, "Fuat")
    climbing = [arena.accounts.authenticate(ece), arena.accounts.house("expert")]
    falling = [arena.accounts.authenticate(fuat), arena.accounts.house("basic")]
    for number in range(3):  # Ece and koz-expert climb as Fuat and koz-basic fall: the mean stays koz-random's 25
        for side, (climber, faller) in enumerate(zip(climbing, falling)):
            seats = [Seat(climber.id, climber.name, climber.kind, "win"), Seat(faller.id, faller.name, faller.kind, "loss")]
            arena.ratings.record("partnership-batak", f"earlier-{number}-{side}", seats, [[0], [1]], True, {"status": "finished", "finished_at": 0.0})
    made = challenge(client, ece, "Fuat", ruleset="partnership-batak")
    game = client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(fuat)).get_json()["game"]
    seats = client.get(f"/v1/games/{game}").get_json()["seats"]
    assert sorted(entry["name"] for entry in seats) == ["Ece", "Fuat", "koz-random", "koz-random"]


def test_a_challenge_taken_out_is_in_neither_accounts_index_and_one_ended_by_a_process_that_died_is_dropped_when_read(arena_app, client):
    arena = arena_app.extensions["koz_arena"]
    store = ChallengeStore(arena)
    gaye, hilmi = account(client, "Gaye"), account(client, "Hilmi")
    ids = [arena.accounts.authenticate(key).id for key in (gaye, hilmi)]
    declined = challenge(client, gaye, "Hilmi")
    assert client.post(f"/v1/arena/challenges/{declined['id']}/decline", headers=bearer(hilmi)).status_code == 204
    assert [store.redis.smembers(store.index_key(account_id)) for account_id in ids] == [set(), set()]
    open_one, orphaned = challenge(client, gaye, "Hilmi"), challenge(client, gaye, "Hilmi", rated=False)
    store._take(keys=[store.challenges_key, store.due_key], args=[orphaned["id"]])  # taken out; its process died before the indexes
    for account_id in ids:
        assert [entry["id"] for entry in store.of(account_id)] == [open_one["id"]]
        assert store.redis.smembers(store.index_key(account_id)) == {open_one["id"].encode()}


def test_a_challenge_another_worker_expired_first_is_not_expired_again_and_the_rest_still_are(arena_app, client, monkeypatch):
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Lale", "Mert")]
    first, second = challenge(client, keys[0], "Mert"), challenge(client, keys[0], "Mert", rated=False)
    due = ChallengeStore.due

    def expired_elsewhere_a_moment_before(self, now):
        identifiers = due(self, now)
        self.take(first["id"])  # the other worker's pass, between this one's read and its take
        return identifiers

    monkeypatch.setattr(ChallengeStore, "due", expired_elsewhere_a_moment_before)
    real = arena.timer
    arena.timer = lambda: real() + arena.settings.arena_seek_seconds + 1
    assert Challenges(arena).expire() == 1
    assert [event["challenge"]["id"] for event in events(arena_app, keys[1]) if event["type"] == "challenge_expired"] == [second["id"]]


def test_a_challenge_taken_by_the_other_side_while_it_is_accepted_is_refused_as_unknown_and_frees_the_accepters_place(monkeypatch):
    capped = create_app(make_settings(arena_games_at_once=1), redis=fakeredis.FakeRedis()).test_client()
    ayla, berk = account(capped, "Ayla"), account(capped, "Berk")
    made = challenge(capped, ayla, "Berk")
    take = ChallengeStore.take

    def withdrawn_a_moment_before(self, identifier, pairing_id=None):
        take(self, identifier)  # the challenger's withdrawal, between the accepter's read and its take
        return take(self, identifier, pairing_id)

    monkeypatch.setattr(ChallengeStore, "take", withdrawn_a_moment_before)
    late = capped.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk))
    assert late.status_code == 404 and late.get_json()["code"] == "unknown_challenge" and made["id"] in late.get_json()["detail"]
    assert capped.post("/v1/arena/seeks", json={"ruleset": "sixty-six"}, headers=bearer(berk)).status_code == 201  # at its cap of 1
    arena = capped.application.extensions["koz_arena"]
    assert arena.store.pairings_before("german-whist", arena.timer() + 1) == []  # the acceptance's note settled
    assert ChallengeStore(arena).accepted() == []


def store_failing(patch: pytest.MonkeyPatch, failure: str) -> str:
    """Make the store refuse new games as nearly full, or lose its connection as they are written;
    the code of the 503 that answers."""
    if failure == "nearly full":

        def nearly_full(self, *, fresh=False):
            raise Refused("capacity", "nearly_full")

        patch.setattr(Repository, "refuse_creation_when_full", nearly_full)
        return "capacity"

    def lost(self, games):
        raise RedisConnectionError("Connection reset by peer")

    patch.setattr(Repository, "store_new_games", lost)
    return "storage_unavailable"


@pytest.mark.parametrize("failure", ["nearly full", "lost as the game is written"])
def test_an_accept_whose_game_the_store_cannot_make_changes_nothing_and_the_challenge_is_accepted_later(failure, monkeypatch):
    """A 503 changes nothing: the challenge stays open to both sides, no match starts, the
    accepter's place is free again, and the same accept succeeds once the store takes the game."""
    capped = create_app(make_settings(arena_games_at_once=1), redis=fakeredis.FakeRedis()).test_client()
    arena = capped.application.extensions["koz_arena"]
    ayla, berk = account(capped, "Ayla"), account(capped, "Berk")
    made = challenge(capped, ayla, "Berk")
    heard = {key: events(capped.application, key) for key in (ayla, berk)}

    def engaged(key: str) -> int:
        return arena.store.redis.zcard(arena.store.account_key(arena.accounts.authenticate(key).id, "engaged"))

    with monkeypatch.context() as patch:
        code = store_failing(patch, failure)
        refused = capped.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk))
    assert (refused.status_code, refused.get_json()["code"]) == (503, code)
    for key in (ayla, berk):
        assert capped.get("/v1/arena/challenges", headers=bearer(key)).get_json() == {"challenges": [made]}
        assert events(capped.application, key) == heard[key]
    assert (engaged(ayla), engaged(berk)) == (1, 0)  # the open challenge is the challenger's one game, as before
    accepted = capped.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(berk))
    assert accepted.status_code == 200
    assert [events(capped.application, key)[-1]["type"] for key in (ayla, berk)] == ["match_started", "match_started"]
    assert (engaged(ayla), engaged(berk)) == (1, 1)


#: the instants an accepting process may die at, before its match is listed
UNLISTED = [
    "before the acceptance is noted",
    "before the challenge is taken out",
    "before its game is made",
    "once its game is made, before it is listed",
]


@pytest.mark.parametrize(
    "where, dies",
    [
        (UNLISTED[0], (ArenaStore, "note_pairing", killed)),
        (UNLISTED[1], (ChallengeStore, "take", killed)),
        (UNLISTED[2], (Games, "create_arena_games", killed)),
        (UNLISTED[3], (ArenaStore, "list_pairings", killed)),
        ("once it is listed, before the seats are handed over", (ArenaStore, "hand_over", killed)),
        ("after telling one account of two", (ArenaStore, "add_events", killed_after_the_first)),
        ("after telling both, before the pairing is settled", (ArenaStore, "pairings_told", killed)),
    ],
)
def test_a_process_killed_while_it_accepts_leaves_the_challenge_open_again_or_its_match_told_once(arena_app, client, monkeypatch, where, dies):
    """Whatever the instant, the pass after the pairing's time settles the acceptance: a match not
    yet listed is never played and the challenge is open again as it was (and can be accepted);
    a match listed is told; either way each side hears one match_started, of a game it can play."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    made = challenge(client, keys[0], "Berk")
    killed_at(monkeypatch, dies, lambda: client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(keys[1])))
    settled_after_the_pairings_time(arena)
    unlisted = where in UNLISTED
    assert [client.get("/v1/arena/challenges", headers=bearer(key)).get_json()["challenges"] for key in keys] == [[made] if unlisted else []] * 2
    if unlisted:
        assert not any(event["type"] == "match_started" for key in keys for event in events(arena_app, key))
        assert [engaged(arena_app, key) for key in keys] == [[made["id"]], []]  # the open challenge is the challenger's one game
        assert client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(keys[1])).status_code == 200
    one_match_each(arena_app, client, keys)
    assert ChallengeStore(arena).accepted() == []


@pytest.mark.parametrize(
    "dies, told",
    [
        ((Games, "create_arena_games", killed), False),
        ((ArenaStore, "list_pairings", killed), False),
        ((ArenaStore, "hand_over", killed), True),
        ((ArenaStore, "add_events", killed_after_the_first), True),
    ],
)
def test_an_accept_retried_while_the_first_is_under_way_is_refused_as_being_accepted_and_changes_nothing(
    arena_app, client, monkeypatch, dies, told
):
    """Retried after its process died (or its answer was lost), an accept whose challenge is taken
    out and whose match is not yet told answers 409 challenge_being_accepted in both languages
    (the challenger's own accept: unknown), until the pass settles it: then the challenge is open
    again and may be accepted, or its match was told and it is unknown."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    made = challenge(client, keys[0], "Berk")
    accept = f"/v1/arena/challenges/{made['id']}/accept"
    killed_at(monkeypatch, dies, lambda: client.post(accept, headers=bearer(keys[1])))
    under_way, heard = ChallengeStore(arena).accepted(), [events(arena_app, key) for key in keys]
    for language, said in (("en", "is being accepted"), ("tr", "kabul ediliyor")):
        retried = client.post(accept, headers={**bearer(keys[1]), "Accept-Language": language})
        assert (retried.status_code, retried.get_json()["code"]) == (409, "challenge_being_accepted"), retried.get_json()
        assert made["id"] in retried.get_json()["detail"] and said in retried.get_json()["detail"]
    not_the_accepters = client.post(accept, headers=bearer(keys[0]))
    assert (not_the_accepters.status_code, not_the_accepters.get_json()["code"]) == (404, "unknown_challenge")
    assert ChallengeStore(arena).accepted() == under_way != [] and [events(arena_app, key) for key in keys] == heard
    settled_after_the_pairings_time(arena)
    late = client.post(accept, headers=bearer(keys[1]))
    if told:
        assert (late.status_code, late.get_json()["code"]) == (404, "unknown_challenge")
    else:
        assert late.status_code == 200
    one_match_each(arena_app, client, keys)
    assert ChallengeStore(arena).accepted() == []


def test_an_accepted_challenge_whose_game_was_not_made_is_opened_by_the_pass_when_the_process_died_before_it_opened_it(
    arena_app, client, monkeypatch
):
    """Each pairing settled unmade, the process died before it opened its challenge again: the next
    pass opens both (no pairing's time to wait: nothing is left to tell)."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    made = [challenge(client, keys[0], "Berk"), challenge(client, keys[0], "Berk", rated=False)]
    with monkeypatch.context() as patch:
        store_failing(patch, "lost as the game is written")
        patch.setattr(Challenges, "reopen", killed(Challenges.reopen))
        for each in made:
            with pytest.raises(Killed):
                client.post(f"/v1/arena/challenges/{each['id']}/accept", headers=bearer(keys[1]))
    assert client.get("/v1/arena/challenges", headers=bearer(keys[1])).get_json() == {"challenges": []}
    assert Matchmaker(arena).run_pass() == 2
    assert [client.get("/v1/arena/challenges", headers=bearer(key)).get_json()["challenges"] for key in keys] == [made] * 2
    assert [sorted(engaged(arena_app, key)) for key in keys] == [sorted(each["id"] for each in made), []]
    assert ChallengeStore(arena).accepted() == []
    assert client.post(f"/v1/arena/challenges/{made[0]['id']}/accept", headers=bearer(keys[1])).status_code == 200
    assert [events(arena_app, key)[-1]["type"] for key in keys] == ["match_started", "match_started"]
    assert bookkeeping_left(arena) == {}


def test_an_accept_that_outlasts_its_pairings_time_answers_503_and_leaves_the_challenge_open_as_the_pass_left_it(arena_app, client, monkeypatch):
    """A stalled accept's pairing is settled by a worker's pass meanwhile (its game not made: the
    challenge open again); the accept, going on, makes a game no one is told of and answers 503,
    and the challenge can be accepted again: one match for each side."""
    arena = arena_app.extensions["koz_arena"]
    keys = [account(client, name) for name in ("Ayla", "Berk")]
    made = challenge(client, keys[0], "Berk")
    create_arena_games, real = Games.create_arena_games, arena.timer

    def stalls(self, *args, **kwargs):
        arena.timer = lambda: real() + PAIRING_SECONDS + 1
        Matchmaker(arena).run_pass()  # a worker, meanwhile
        arena.timer = real
        return create_arena_games(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Games, "create_arena_games", stalls)
        late = client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(keys[1]))
    assert (late.status_code, late.get_json()["code"]) == (503, "storage_unavailable")
    assert [client.get("/v1/arena/challenges", headers=bearer(key)).get_json()["challenges"] for key in keys] == [[made]] * 2
    assert [engaged(arena_app, key) for key in keys] == [[made["id"]], []]
    assert not any(event["type"] == "match_started" for key in keys for event in events(arena_app, key))
    assert client.post(f"/v1/arena/challenges/{made['id']}/accept", headers=bearer(keys[1])).status_code == 200
    assert [[event["type"] for event in events(arena_app, key)].count("match_started") for key in keys] == [1, 1]
    assert bookkeeping_left(arena) == {} and ChallengeStore(arena).accepted() == []


@pytest.mark.parametrize(
    "body, status, code, turkish",
    [
        ({"to": "Ayla", "ruleset": "german-whist"}, 400, "challenge_self", "kendine"),
        ({"to": "koz-expert", "ruleset": "german-whist"}, 400, "house_account", "Koz'un kendi"),
        ({"to": "nobody", "ruleset": "german-whist"}, 404, "unknown_account", "hesap yok"),
        ({"to": "Berk", "ruleset": "chess"}, 400, "unknown_ruleset", None),
        ({"to": "Berk", "ruleset": "german-whist", "options": {"colour": 1}}, 400, "unknown_option", None),
        ({"to": "Berk", "ruleset": "german-whist", "rated": "yes"}, 400, "invalid_request", None),
        ({"to": "", "ruleset": "german-whist"}, 400, "invalid_request", None),
        ({"ruleset": "german-whist"}, 400, "invalid_request", None),
    ],
)
def test_every_refused_challenge_has_its_code_in_both_languages(client, body, status, code, turkish):
    ayla = account(client, "Ayla")
    account(client, "Berk")
    english = client.post("/v1/arena/challenges", json=body, headers=bearer(ayla))
    answer = client.post("/v1/arena/challenges", json=body, headers={**bearer(ayla), "Accept-Language": "tr"})
    assert (english.status_code, english.get_json()["code"]) == (status, code) == (answer.status_code, answer.get_json()["code"])
    assert english.get_json()["detail"] != answer.get_json()["detail"]
    if turkish:
        assert turkish in answer.get_json()["detail"]


def test_challenges_need_an_accounts_key_and_are_rate_limited_per_account():
    limited = create_app(make_settings(rate_limit_create="2/minute"), redis=fakeredis.FakeRedis()).test_client()
    assert limited.post("/v1/arena/challenges", json={"to": "x", "ruleset": "german-whist"}).get_json()["code"] == "missing_key"
    assert limited.get("/v1/arena/challenges", headers=bearer("nope")).get_json()["code"] == "invalid_key"
    assert limited.post("/v1/arena/challenges/abc/accept", headers=bearer("nope")).status_code == 401
    jale = limited.post("/v1/accounts", json={"name": "Jale"}).get_json()["key"]
    limited.post("/v1/accounts", json={"name": "Kaan"})
    answers = [limited.post("/v1/arena/challenges", json={"to": "Kaan", "ruleset": "german-whist"}, headers=bearer(jale)) for _ in range(3)]
    assert [answer.status_code for answer in answers] == [201, 201, 429] and answers[2].get_json()["code"] == "rate_limited"
