"""Tables people can sit at: open seats, invitations, the lobby, leaving, rematch, a fair deck."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import threading

import pytest

from engine.players.base import standard_level
from service import texts
from service.cli import main as koz
from service.refusals import Refused
from service.repository import Repository
from service.store import Commit
from service.tokens import derived_token
from service.verify import verify
from tests.api import FlaskClient
from tests.support import expire


@pytest.fixture
def app(any_app):
    """The app on fakeredis and on a real redis-server: every test here runs on both."""
    return any_app


@pytest.fixture
def api(app):
    return FlaskClient(app.test_client())


def take(api, game_id, seat, token=None, **body):
    return api.request("POST", f"/v1/games/{game_id}/seats/{seat}", json_body=body, token=token)


def lobby(api, query=""):
    return api.request("GET", f"/v1/games?status=waiting{query}")


def open_game(api, **extra):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}], **extra)
    assert created.status == 201
    return created.body["id"], created.body["tokens"][0]["token"]


def finished_game(api):
    """A one-deal match both of whose humans left it to computers, which played it out."""
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}])
    game_id, tokens = created.body["id"], [entry["token"] for entry in created.body["tokens"]]
    for token in tokens:
        api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=token)
    assert api.finished_view(game_id)["status"] == "finished"  # played out on the worker
    return game_id, tokens


# --- open seats ------------------------------------------------------------------------------


def test_a_game_with_an_open_seat_waits_in_every_view_and_nobody_acts(api):
    game_id, token = open_game(api)
    for view in (api.view(game_id).body, api.view(game_id, token).body):
        assert view["status"] == "waiting" and view["to_act"] == [] and view["legal_actions"] == []
        assert view["seats"][1]["open"] is True
    answer = api.act(game_id, {"type": "play", "card": api.view(game_id, token).body["hand"][0]}, token)
    assert (answer.status, answer.code) == (409, "waiting_for_players")


def test_computers_do_not_move_while_a_seat_is_open(api):
    created = api.create(ruleset="partnership-batak", seats=[{"open": True}, {"bot": "random"}, {"bot": "random"}, {"bot": "random"}])
    assert created.body["version"] == 0 and api.view(created.body["id"]).body["status"] == "waiting"


def test_taking_an_open_seat_returns_its_token_once_and_starts_the_game(api):
    game_id, _ = open_game(api)
    taken = take(api, game_id, 1, name="Bora")
    assert taken.status == 200 and taken.body["view"]["status"] == "active"
    assert taken.body["view"] == api.view(game_id, taken.body["token"]).body  # its own view: its hand, its legal actions
    assert api.view(game_id, taken.body["token"]).body["seat"] == 1
    assert api.view(game_id).body["seats"][1]["name"] == "Bora"
    again = take(api, game_id, 1, name="Cem")
    assert (again.status, again.code) == (409, "seat_taken") and "token" not in again.body


def test_a_seat_that_is_not_open_cannot_be_taken_and_an_unknown_one_is_404(api):
    game_id, _ = open_game(api)
    assert take(api, game_id, 0).code == "seat_taken"
    assert (take(api, game_id, 7).status, take(api, game_id, 7).code) == (404, "unknown_seat")


def detail(name: str, **params) -> str:
    return texts.DETAILS[name]["en"].format(**params)


def test_a_seat_that_cannot_be_taken_is_refused_saying_why(api):
    game_id, _ = open_game(api)
    assert take(api, game_id, 0).body["detail"] == detail("human_seat_never_open", seat=0)
    with_a_computer = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "random"}]).body["id"]
    assert take(api, with_a_computer, 1).body["detail"] == detail("computer_seat_never_open", seat=1)
    assert take(api, game_id, 1, name="Bora").status == 200
    assert take(api, game_id, 1, name="Cem").body["detail"] == detail("seat_not_open", seat=1)


@pytest.mark.parametrize("seat", [2, -1])
def test_a_seat_past_the_tables_is_404_naming_the_seats_there_are(api, seat):
    game_id, _ = open_game(api)
    refused = take(api, game_id, seat)
    assert (refused.status, refused.code, refused.body["detail"]) == (404, "unknown_seat", detail("unknown_seat", last=1))


def test_a_seat_taken_without_a_name_gets_the_rulesets_name_for_a_person_there(api):
    created = api.create(ruleset="partnership-batak", seats=[{"open": True}, {"bot": "random"}, {"bot": "random"}, {"bot": "random"}])
    taken = take(api, created.body["id"], 0)
    assert taken.status == 200 and taken.body["view"]["seats"][0]["name"] == "Sen"  # as the source table names you


def test_after_the_match_a_seat_that_left_cannot_be_taken_back_nor_leave_again(api):
    game_id, tokens = finished_game(api)
    back = take(api, game_id, 1, token=tokens[1])
    assert (back.status, back.code, back.body["detail"]) == (409, "game_over", detail("game_over"))
    left = api.request("POST", f"/v1/games/{game_id}/leave", json_body={}, token=tokens[1])
    assert (left.status, left.code) == (409, "game_over")


def computable_from(token: str, *public: str) -> bool:
    """Whether ``token`` is derived from public values alone (any of them, in any order)."""
    return any(
        derived_token(*chosen) == token for size in range(1, len(public) + 1) for chosen in itertools.permutations(public, size)
    )


def test_a_seat_taken_with_an_idempotency_key_gets_its_own_token_again_and_no_one_else_can_compute_it(api):
    created = api.create(ruleset="partnership-batak", seats=[{"name": "Ayşe"}, {"open": True}, {"open": True}, {"bot": "random"}])
    game_id = created.body["id"]

    def taken(seat):
        path = f"/v1/games/{game_id}/seats/{seat}"
        return api.request("POST", path, json_body={"name": f"P{seat}"}, headers={"Idempotency-Key": "my-key"}).body["token"]

    first = taken(1)
    assert first and taken(1) == first  # asked again: the same seat, the same token
    assert taken(2) not in (first, None)  # the same key at another seat: another token
    assert not computable_from(first, "my-key", "seat", game_id, "1")  # the game's secret salt is in it


def test_a_seat_open_and_a_computer_at_once_is_refused(api):
    answer = api.create(ruleset="german-whist", seats=[{"open": True, "bot": "random"}, {"name": "P"}])
    assert (answer.status, answer.code) == (400, "invalid_seats")


def test_of_many_people_taking_one_seat_at_once_exactly_one_wins(any_app):
    api = FlaskClient(any_app.test_client())
    game_id, _ = open_game(api)
    answers, start = [], threading.Barrier(6)

    def join(name):
        start.wait()
        answers.append(FlaskClient(any_app.test_client()).request("POST", f"/v1/games/{game_id}/seats/1", json_body={"name": name}))

    threads = [threading.Thread(target=join, args=(f"p{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answer.status for answer in answers) == [200] + [409] * 5
    assert {answer.code for answer in answers if answer.status == 409} == {"seat_taken"}
    winner = next(answer for answer in answers if answer.status == 200)
    assert api.view(game_id, winner.body["token"]).body["seat"] == 1
    assert [event["type"] for event in api.history(game_id).body["events"]].count("seat_taken") == 1


def test_a_join_that_loses_the_compare_and_set_is_told_the_seat_is_taken(app, api, monkeypatch):
    """The race made deterministic: another join commits between this one's read and its write."""
    game_id, _ = open_game(api)
    tables = app.extensions["koz"]
    commit = tables.repository.commit
    raced = []

    def commit_after_a_rival(table, expected, idempotency=None):
        if not raced:
            raced.append("rival")  # first: the rival's own commit goes through here too
            tables.take_seat(game_id, 1, None, "rival", None)
        return commit(table, expected, idempotency)

    monkeypatch.setattr(tables.repository, "commit", commit_after_a_rival)
    answer = take(api, game_id, 1, name="late")
    assert (answer.status, answer.code) == (409, "seat_taken")
    assert api.view(game_id).body["seats"][1]["name"] == "rival"


def test_leaving_a_game_that_expired_after_its_read_is_404_unknown_game(app, api, monkeypatch):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="leave").body
    game_id, bora = created["id"], created["tokens"][1]["token"]
    tables = app.extensions["koz"]
    commit = tables.repository.commit

    def commit_after_expiry(table, expected, idempotency=None):
        expire(tables.store.redis, game_id)
        return commit(table, expected, idempotency)

    monkeypatch.setattr(tables.repository, "commit", commit_after_expiry)
    left = api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "basic"}, token=bora)
    assert (left.status, left.code) == (404, "unknown_game") and game_id in left.body["detail"]


def test_leaving_while_every_commit_loses_to_another_is_503_busy_and_changes_nothing(app, api, monkeypatch):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="leave").body
    game_id, bora = created["id"], created["tokens"][1]["token"]
    history = api.history(game_id).body
    tables = app.extensions["koz"]
    monkeypatch.setattr(tables.repository, "commit", lambda game, expected, idempotency=None: Commit(False, expected + 1))
    left = api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "basic"}, token=bora)
    assert (left.status, left.code, left.headers["Retry-After"]) == (503, "busy", "1")
    monkeypatch.undo()
    assert api.history(game_id).body == history


def test_a_taken_seat_is_in_the_history_as_its_own_version(api):
    game_id, _ = open_game(api)
    take(api, game_id, 1, name="Bora")
    events = api.history(game_id).body["events"]
    assert {"version": 1, "type": "seat_taken", "seat": 1, "name": "Bora"} in events
    assert api.view(game_id).body["version"] == 1


# --- private games ---------------------------------------------------------------------------


def test_a_private_game_gives_a_join_code_per_open_seat_and_requires_it(api):
    created = api.create(ruleset="partnership-batak", private=True, seats=[{"name": "Ayşe"}, {"open": True}, {"open": True}, {"bot": "random"}])
    game_id = created.body["id"]
    codes = {entry["seat"]: entry["code"] for entry in created.body["join_codes"]}
    assert set(codes) == {1, 2}
    assert (take(api, game_id, 1).status, take(api, game_id, 1).code) == (403, "invalid_join_code")
    assert take(api, game_id, 1, code=codes[2]).code == "invalid_join_code"
    assert take(api, game_id, 1, code=codes[1]).status == 200
    assert lobby(api).body["games"] == []


# --- the lobby -------------------------------------------------------------------------------


def test_the_lobby_lists_public_games_with_open_seats_newest_first_paged(api):
    ids = [open_game(api)[0] for _ in range(3)]
    first = lobby(api, "&ruleset=german-whist&limit=2").body
    assert [game["id"] for game in first["games"]] == ids[::-1][:2]
    second = lobby(api, f"&ruleset=german-whist&limit=2&before={first['next_before']}").body
    assert [game["id"] for game in second["games"]] == ids[:1] and second["next_before"] is None
    assert lobby(api, "&ruleset=sixty-six").body["games"] == []
    unknown = lobby(api, "&ruleset=no-such-game")
    assert (unknown.status, unknown.code, list(unknown.body["errors"])) == (400, "invalid_request", ["ruleset"])


def test_the_lobby_shows_public_information_only(api):
    game_id, token = open_game(api)
    listed = json.dumps(lobby(api).body)
    hand = api.view(game_id, token).body["hand"]
    assert token not in listed and not any(f'"{card}"' in listed for card in hand)
    assert "token_hash" not in listed and "code_hash" not in listed


def test_a_game_leaves_the_lobby_once_its_seats_are_taken(api):
    game_id, _ = open_game(api)
    take(api, game_id, 1)
    assert lobby(api).body["games"] == []


def listed(app, ruleset=None) -> list[str]:
    """The games in the lobby's index (all games, or one ruleset's), as stored."""
    return [game_id for game_id, _ in app.extensions["koz"].store.waiting(ruleset, 100, None)]


def test_the_lobby_never_lists_a_game_that_filled_up_and_whoever_lists_it_drops_its_entry(api, app):
    full, _ = open_game(api)
    waiting, _ = open_game(api)
    assert take(api, full, 1).status == 200
    # the request that took the last seat did not get to unlist the game (its process died)
    app.extensions["koz"].store.list_waiting("german-whist", full)
    assert full in listed(app) and full in listed(app, "german-whist")
    assert [game["id"] for game in lobby(api, "&limit=1").body["games"]] == [waiting]  # the page is filled past it
    assert full not in listed(app) and full not in listed(app, "german-whist")
    assert [game["id"] for game in lobby(api, "&ruleset=german-whist").body["games"]] == [waiting]


def test_the_lobby_drops_the_entry_of_a_game_that_expired(api, app):
    gone, _ = open_game(api)
    expire(app.extensions["koz"].store.redis, gone)  # its entry left behind
    assert gone in listed(app, "german-whist")
    assert lobby(api, "&ruleset=german-whist").body["games"] == []
    assert gone not in listed(app) and gone not in listed(app, "german-whist")


def test_a_game_with_a_seed_of_its_creator_is_marked_and_never_listed(api):
    game_id, token = open_game(api, seed="my-seed")
    assert api.view(game_id).body["seed_source"] == "client"
    assert api.view(game_id, token).body["seed_source"] == "client"
    assert lobby(api).body["games"] == []


# --- leaving ---------------------------------------------------------------------------------


def test_a_seat_that_leaves_is_played_by_a_computer_of_the_chosen_level(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="leave")
    game_id, (ayse, bora) = created.body["id"], [entry["token"] for entry in created.body["tokens"]]
    before = api.view(game_id).body["version"]
    left = api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "random"}, token=bora)  # (not the standard level)
    assert left.status == 200
    seat = left.body["seats"][1]
    assert (seat["bot"], seat["left"], seat["human"]) == ("random", True, False)
    assert {"version": before + 1, "type": "left", "seat": 1, "level": "random"} in api.history(game_id).body["events"]
    # the computer answers Ayşe's cards from now on: whenever the game waits, it waits for her
    for _ in range(3):
        view = api.view(game_id, ayse).body
        assert view["to_act"] == [0]
        api.act(game_id, view["legal_actions"][0], ayse)
    actions = [event for event in api.history(game_id).body["events"] if event["type"] == "action" and event["version"] > before]
    assert [event["seat"] for event in actions].count(1) >= 2


def test_the_token_of_a_seat_that_left_takes_it_back(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}])
    game_id, (ayse, bora) = created.body["id"], [entry["token"] for entry in created.body["tokens"]]
    left = api.request("POST", f"/v1/games/{game_id}/leave", json_body={}, token=bora)
    assert left.body["seats"][1]["bot"] == standard_level("german-whist")  # no level asked: the standard table's
    again = api.request("POST", f"/v1/games/{game_id}/leave", json_body={}, token=bora)
    assert (again.status, again.code, again.body["detail"]) == (409, "seat_left", detail("seat_left", seat=1))
    assert take(api, game_id, 1, token=ayse).code == "not_your_seat"
    back = take(api, game_id, 1, token=bora)
    assert back.status == 200 and back.body["token"] is None
    assert back.body["view"]["seats"][1]["human"] is True
    assert "rejoined" in [event["type"] for event in api.history(game_id).body["events"]]
    assert take(api, game_id, 1, token=bora).code == "seat_taken"


def test_a_rejoin_while_the_computer_decides_wins_and_the_computer_move_is_dropped(app, api, monkeypatch):
    """Bora left; Ayşe's card brings on the computer's turn for Bora; while the worker decides,
    Bora takes the seat back. The worker's compare-and-set fails and no computer is to act in
    the game as it now is, so only Ayşe's card is applied and it is Bora's turn."""
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="race")
    game_id, tokens = created.body["id"], [entry["token"] for entry in created.body["tokens"]]
    leader = api.view(game_id).body["to_act"][0]
    follower = 1 - leader
    api.request("POST", f"/v1/games/{game_id}/leave", json_body={}, token=tokens[follower])
    tables = app.extensions["koz"]
    # the worker decides (a computer's reply made inside Ayşe's request would come before her commit)
    repository = tables.computers.repository
    monkeypatch.setattr(repository, "settings", dataclasses.replace(repository.settings, replies_in_request=0))
    decide = tables.computers.decide
    rejoined = []

    def decide_while_the_seat_is_taken_back(game, seat, level):
        if not rejoined:
            rejoined.append(tables.take_seat(game_id, follower, tokens[follower], None, None))
        return decide(game, seat, level)

    monkeypatch.setattr(tables.computers, "decide", decide_while_the_seat_is_taken_back)
    play_computers = tables.computers.play_computers
    tried = threading.Event()

    def play_computers_and_note_the_try(game_ids):
        played = play_computers(game_ids)
        if rejoined:
            tried.set()
        return played

    monkeypatch.setattr(tables.computers, "play_computers", play_computers_and_note_the_try)
    api.act(game_id, api.view(game_id, tokens[leader]).body["legal_actions"][0], tokens[leader])
    # the answer comes before the worker's move: wait for its try, not for a version
    assert tried.wait(30), "the worker did not try the computer's move"
    view = api.view(game_id).body
    assert view["seats"][follower]["bot"] is None
    assert view["to_act"] == [follower]
    events = api.history(game_id).body["events"]
    assert [event["type"] for event in events if event["type"] in ("left", "rejoined", "action")] == ["left", "action", "rejoined"]


def test_leaving_needs_the_seat_token_and_a_known_level(api):
    game_id, token = open_game(api)
    assert api.request("POST", f"/v1/games/{game_id}/leave", json_body={}).code == "missing_token"
    unknown = api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "godlike"}, token=token)
    assert (unknown.status, unknown.code, list(unknown.body["errors"])) == (400, "invalid_request", ["level"])
    assert api.view(game_id).body["seats"][0]["bot"] is None  # the seat stayed its human's


# --- rematch ---------------------------------------------------------------------------------


def first_dealer(api, game_id):
    return next(event["dealer"] for event in api.history(game_id).body["events"] if event["type"] == "deal")


def test_a_rematch_keeps_seats_options_and_levels_and_moves_the_first_dealer_on(api):
    created = api.create(
        ruleset="partnership-batak",
        options={"target": 21},
        seats=[{"name": "Ayşe"}, {"bot": "basic"}, {"name": "Cem"}, {"bot": "random"}],
        seed="rematch",
    )
    game_id, tokens = created.body["id"], {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
    for token in tokens.values():
        api.request("POST", f"/v1/games/{game_id}/leave", json_body={"level": "basic"}, token=token)
    old = api.finished_view(game_id)  # the computers play the match out on the worker
    assert old["status"] == "finished"
    first = api.request("POST", f"/v1/games/{game_id}/rematch", token=tokens[0])
    assert first.status == 201 and first.body["seat"] == 0
    new_id = first.body["id"]
    assert api.view(game_id).body["rematch"] == new_id
    assert first.body["view"]["status"] == "waiting"  # until Cem asks too
    assert first.body["view"]["seats"][2]["name"] == "Cem"  # kept for Cem, under Cem's name
    assert not computable_from(first.body["token"], "rematch", new_id, "0")  # derived from the old token, which only Ayşe holds
    assert take(api, new_id, 2).code == "invalid_join_code"  # Cem's seat is kept for Cem's token
    second = api.request("POST", f"/v1/games/{game_id}/rematch", token=tokens[2])
    assert second.body["id"] == new_id and second.body["view"]["status"] == "active"
    new = api.view(new_id, second.body["token"]).body
    assert second.body["view"]["seat"] == 2 and second.body["view"]["hand"] == new["hand"]  # the answer is the seat's own view
    assert new["seat"] == 2 and new["options"] == old["options"]
    assert [(seat["name"], seat["bot"]) for seat in new["seats"]] == [(seat["name"], seat["bot"]) for seat in created.body["seats"]]
    assert first_dealer(api, new_id) == (first_dealer(api, game_id) + 1) % 4
    again = api.request("POST", f"/v1/games/{game_id}/rematch", token=tokens[0])  # asked again: the same seat and token
    assert (again.status, again.body["seat"], again.body["token"]) == (201, 0, first.body["token"])


def test_a_rematch_is_a_new_game_refused_while_the_store_is_nearly_full_and_joined_once_made(api, monkeypatch):
    """Koz makes no new game once Redis is nearly full, a rematch's neither (503 capacity, the old
    game unchanged); a rematch made already is only a seat taken, and the other seat still joins it."""
    game_id, (ayse, bora) = finished_game(api)

    def nearly_full(self, *, fresh=False):
        raise Refused("capacity", "nearly_full")

    with monkeypatch.context() as patch:
        patch.setattr(Repository, "refuse_creation_when_full", nearly_full)
        refused = api.request("POST", f"/v1/games/{game_id}/rematch", token=ayse)
        assert (refused.status, refused.code) == (503, "capacity") and api.view(game_id).body["rematch"] is None
    made = api.request("POST", f"/v1/games/{game_id}/rematch", token=ayse)
    assert made.status == 201
    with monkeypatch.context() as patch:
        patch.setattr(Repository, "refuse_creation_when_full", nearly_full)
        joined = api.request("POST", f"/v1/games/{game_id}/rematch", token=bora)
    assert (joined.status, joined.body["id"], joined.body["view"]["status"]) == (201, made.body["id"], "active")


def test_a_rematch_is_made_only_after_the_match(api):
    game_id, token = open_game(api)
    assert api.request("POST", f"/v1/games/{game_id}/rematch", token=token).code == "game_not_finished"


# --- a fair deck -----------------------------------------------------------------------------


def test_every_view_commits_to_the_seed_the_end_reveals(api):
    game_id, (ayse, _) = finished_game(api)
    commitment = api.view(game_id).body["seed_commitment"]
    assert api.view(game_id, ayse).body["seed_commitment"] == commitment
    history = api.whole_history(game_id)
    assert hashlib.sha256(history["reveal"]["seed"].encode()).hexdigest() == commitment == history["seed_commitment"]


def test_a_server_seed_is_committed_to_from_the_first_view(api):
    game_id, token = open_game(api)
    view = api.view(game_id, token).body
    assert view["seed_source"] == "server" and len(view["seed_commitment"]) == 64


def test_verify_accepts_a_true_history_and_refuses_a_false_seed_or_deal(api, tmp_path, capsys):
    game_id, _ = finished_game(api)
    history = api.whole_history(game_id)
    assert verify(history) == []
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    koz(["verify", str(path)])
    assert capsys.readouterr().out.startswith("OK")
    assert verify({**history, "reveal": {**history["reveal"], "seed": "other"}})[0] == "the revealed seed does not hash to the seed commitment"
    dealt = next(index for index, event in enumerate(history["events"]) if event["type"] == "dealt")
    forged = json.loads(json.dumps(history))
    forged["events"][dealt]["hand"] = forged["events"][dealt]["hand"][::-1]
    assert verify(forged) == [f"event {dealt} of the history is not what the rules give from the revealed seed"]
    path.write_text(json.dumps(forged))
    with pytest.raises(SystemExit):
        koz(["verify", str(path)])
