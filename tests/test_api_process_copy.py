"""A process changes a game it committed last from its own copy, not from the store: only while
its subscription heard that commit's announcement and nothing else of the game since. Each guard
has a test here that fails without it: a move of another process (heard, or still on its way), a
new game under the id, a subscription lost meanwhile. Two processes are two apps on one Redis;
on fakeredis and on a real redis-server."""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import replace

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from engine import Action, registry
from service import create_app
from tests.api import FlaskClient
from tests.conftest import make_settings
from tests.support import expire
from tests.test_api_events import BreakableSubscription, channel_game, subscription_up, until_heard

RULESET = "partnership-batak"  # four seats, each in turn, each may pass while bidding
SEED, OTHER_SEED = "reused-a", "reused-b"  # another deal, the same seat to bid first


@pytest.fixture
def processes(backend):
    settings = make_settings()
    apps = [create_app(settings, redis=backend) for _ in range(2)]
    yield [app.extensions["koz"] for app in apps], [FlaskClient(app.test_client()) for app in apps]
    for app in apps:
        app.extensions["koz"].announcements.stop()


def new_table(api, koz) -> tuple[str, dict[int, str]]:
    """A new game, created through ``api``'s process once ``koz``'s has heard of it: an announcement
    of the creation heard after the first move's commit forgets that commit's copy (a suite run at
    load found it so)."""
    created = api.create(ruleset=RULESET, seats=[{"name": "P"}] * 4, seed=SEED).body
    until_heard(koz, created["id"], created["version"])
    return created["id"], {entry["seat"]: entry["token"] for entry in created["tokens"]}


def pass_in_turn(api, game_id: str, tokens: dict[int, str]):
    """The seat to act passes (its bid), through ``api``'s process."""
    (seat,) = api.view(game_id).body["to_act"]
    assert {"type": "pass"} in api.view(game_id, tokens[seat]).body["legal_actions"]
    return api.act(game_id, {"type": "pass"}, tokens[seat])


def game_reads(koz, monkeypatch) -> list[str]:
    """The games ``koz``'s process reads from the store from now on."""
    reads: list[str] = []
    load = koz.repository.store.load
    monkeypatch.setattr(koz.repository.store, "load", lambda game_id: reads.append(game_id) or load(game_id))
    return reads


def test_the_next_move_of_a_game_the_process_committed_last_reads_nothing_of_the_game(processes, monkeypatch):
    """Nor does it decode the state the snapshot holds: it starts from the state it committed."""
    (koz, _), (api, other) = processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    assert pass_in_turn(api, game_id, tokens).status == 200
    until_heard(koz, game_id, 1)
    (seat,) = other.view(game_id).body["to_act"]
    reads = game_reads(koz, monkeypatch)
    ruleset, loaded = registry.get(RULESET), []
    load = ruleset.load
    monkeypatch.setattr(ruleset, "load", lambda document: loaded.append(document) or load(document))
    answer = api.act(game_id, {"type": "pass"}, tokens[seat])
    assert reads == [] and loaded == []
    monkeypatch.undo()
    assert (answer.status, answer.body["version"]) == (200, 2)
    assert answer.body == other.view(game_id, tokens[seat]).body
    assert other_views_agree(other, game_id, tokens)


def other_views_agree(other, game_id: str, tokens: dict[int, str]) -> bool:
    """The next seat's move, read from the store by the other process, goes on from what was written."""
    return pass_in_turn(other, game_id, tokens).body["version"] == 3


def test_a_move_of_another_process_heard_since_is_read_from_the_store(processes, monkeypatch):
    (koz, _), (api, other) = processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    assert pass_in_turn(api, game_id, tokens).status == 200
    until_heard(koz, game_id, 1)
    assert pass_in_turn(other, game_id, tokens).status == 200
    until_heard(koz, game_id, 2)
    (seat,) = api.view(game_id).body["to_act"]
    reads = game_reads(koz, monkeypatch)
    answer = api.act(game_id, {"type": "pass"}, tokens[seat])
    assert (answer.status, answer.body["version"]) == (200, 3)
    assert reads == [game_id]  # read once: the copy at 1 was forgotten, not tried and refused first


def the_other_bids_first(koz, apis, game_id: str, tokens: dict[int, str], monkeypatch, meanwhile=lambda: None) -> int:
    """After a first pass through ``koz``'s process (``apis[0]``): the seat to act next, whose next
    move through that process will find the other process's bid (``apis[1]``) made just before its
    commit, over the same version, and heard (``meanwhile`` is then called)."""
    api, other = apis
    assert pass_in_turn(api, game_id, tokens).status == 200
    until_heard(koz, game_id, 1)
    (seat,) = api.view(game_id).body["to_act"]
    bid = next(action for action in other.view(game_id, tokens[seat]).body["legal_actions"] if action["type"] == "bid")
    commit = koz.repository.store.commit

    def first_the_other(write):
        monkeypatch.setattr(koz.repository.store, "commit", commit)
        assert other.act(game_id, bid, tokens[seat]).status == 200
        until_heard(koz, game_id, 2)
        meanwhile()
        return commit(write)

    monkeypatch.setattr(koz.repository.store, "commit", first_the_other)
    return seat


def hold_announcements_of(koz, game_id: str, version: int, monkeypatch) -> tuple[threading.Event, threading.Event]:
    """``koz``'s process hears ``version`` of the game only once the test releases it."""
    held, release = threading.Event(), threading.Event()
    announce = koz.announcements._announce

    def delayed(message) -> None:
        if channel_game(koz, message) == game_id and message["data"].startswith(f"{version} ".encode()):
            held.set()
            release.wait(60)
        announce(message)

    monkeypatch.setattr(koz.announcements, "_announce", delayed)
    return held, release


@pytest.mark.parametrize("if_match", [None, 'W/"2"'])
def test_a_refusal_of_the_copy_is_asked_of_the_store_when_a_move_is_on_its_way(processes, monkeypatch, if_match):
    """Another process moved; its announcement has not reached this one, whose copy says it is
    still that seat's turn, at version 1. The next seat's move, and one sent with ``If-Match`` of
    version 2, are applied, not refused: a client told of the move elsewhere must not be refused
    here."""
    (koz, _), (api, other) = processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    assert pass_in_turn(api, game_id, tokens).status == 200
    until_heard(koz, game_id, 1)
    held, release = hold_announcements_of(koz, game_id, 2, monkeypatch)
    assert pass_in_turn(other, game_id, tokens).status == 200
    assert held.wait(30), "version 2 was never announced"
    (seat,) = other.view(game_id).body["to_act"]
    try:
        answer = api.act(game_id, {"type": "pass"}, tokens[seat], **({"If-Match": if_match} if if_match else {}))
    finally:
        release.set()
    assert (answer.status, answer.body["version"]) == (200, 3)


def test_a_move_on_a_copy_passed_by_a_move_on_its_way_is_tried_again_on_the_store_once(processes, monkeypatch):
    """The copy's seat to act moved in another process, unheard here yet: posted again here, the
    copy takes it, the compare-and-set refuses it, and the store's game answers (that seat bids no
    more): nothing applied twice, and no 'busy' after retrying on a copy the store passed."""
    (koz, _), (api, other) = processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    assert pass_in_turn(api, game_id, tokens).status == 200
    until_heard(koz, game_id, 1)
    (seat,) = api.view(game_id).body["to_act"]
    held, release = hold_announcements_of(koz, game_id, 2, monkeypatch)
    assert pass_in_turn(other, game_id, tokens).status == 200
    assert held.wait(30), "version 2 was never announced"
    try:
        again = api.act(game_id, {"type": "pass"}, tokens[seat])
    finally:
        release.set()
    assert (again.status, again.code) == (409, "not_in_auction")  # (a seat that passed bids no more)
    assert other.view(game_id).body["version"] == 2


def reused_id(koz, game_id: str) -> None:
    """The game gone (as when it expires) and another created under its id, with the same seats'
    tokens and another deal: the same token bids at the same version of both."""
    repository = koz.repository
    old = repository.load(game_id)
    expire(koz.store.redis, game_id)
    ruleset = registry.get(RULESET)
    seats = [replace(seat) for seat in old.initial_seats]
    repository.store_new(lambda new_id: repository.new_game(ruleset, old.options, seats, OTHER_SEED, "client", None, new_id), game_id)


def until_forgotten(koz, game_id: str) -> None:
    """Until ``koz``'s process has heard another commit of the game than its own, and so forgotten its copy."""
    deadline = time.monotonic() + 30
    while koz.announcements.last_committed(game_id) is not None:
        assert time.monotonic() < deadline, "the copy was never forgotten"
        time.sleep(0.01)


@pytest.mark.parametrize("how", ["announced", "while the subscription was down"])
def test_a_copy_of_a_game_whose_id_was_taken_by_another_since_is_never_committed_over_it(processes, monkeypatch, how):
    """A copy at version 1, and since then another game under its id, with the seats' tokens, at
    version 1 too: the compare-and-set alone would take the copy's move over the other game. Its
    creation, heard here, forgets the copy; created while the subscription was down, the
    subscription's renewal forgets it."""
    (koz, other_koz), (api, other) = processes
    subscription = BreakableSubscription(koz, monkeypatch)
    with koz.announcements.waiting("keeps-it-up", 0):  # a waiter all along: the listener subscribes again
        subscription_up(koz)
        game_id, tokens = new_table(api, koz)
        assert pass_in_turn(api, game_id, tokens).status == 200
        until_heard(koz, game_id, 1)
        assert koz.announcements.last_committed(game_id) is not None
        if how != "announced":
            subscription.lose()
        reused_id(other_koz, game_id)
        assert pass_in_turn(other, game_id, tokens).status == 200  # the other game at version 1
        if how != "announced":
            subscription.restore.set()
            subscription_up(koz, "warm-up-again")
        else:  # (version 1 was heard of the first game already: waiting for it would not wait)
            until_forgotten(koz, game_id)
        (seat,) = other.view(game_id).body["to_act"]
        stored = koz.repository.load(game_id)
        expected = koz.repository.load(game_id)
        expected.act(seat, Action.from_json({"type": "pass"}))
        assert stored.seed == OTHER_SEED and stored.version == 1
        answer = api.act(game_id, {"type": "pass"}, tokens[seat])
    assert (answer.status, answer.body["version"]) == (200, 2)
    after = other_koz.repository.load(game_id)
    assert after.ruleset.dump(after.state) == expected.ruleset.dump(expected.state)


def test_a_copy_whose_commit_lost_the_race_to_the_same_version_is_never_trusted(processes, monkeypatch):
    """This process and another move the game from 1 to 2 at once; the other's commit comes first
    and its announcement, of the versions this one expected, is heard here before this commit
    fails. The copy this one made is not the stored game: never taken, or the next move here
    would pass the compare-and-set over a game it never saw."""
    (koz, other_koz), (api, other) = processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)

    def not_a_copy_yet():
        # heard, as the versions this commit expects, but not written: not a copy to take yet
        assert koz.announcements.last_committed(game_id) is None

    seat = the_other_bids_first(koz, (api, other), game_id, tokens, monkeypatch, meanwhile=not_a_copy_yet)
    lost = api.act(game_id, {"type": "pass"}, tokens[seat])
    assert lost.status == 409  # the store's game: that seat bid already
    (next_seat,) = other.view(game_id).body["to_act"]
    expected = other_koz.repository.load(game_id)  # after the other's bid
    expected.act(next_seat, Action.from_json({"type": "pass"}))
    answer = api.act(game_id, {"type": "pass"}, tokens[next_seat])
    assert (answer.status, answer.body["version"]) == (200, 3)
    stored = other_koz.repository.load(game_id)
    assert stored.ruleset.dump(stored.state) == expected.ruleset.dump(expected.state)


# --- the requests waiting here on a game this process moves -------------------------------------


@pytest.fixture
def patient_processes(backend):
    """As ``processes``, with long-polls of up to 300 s: one answered long before shows it was woken."""
    settings = make_settings(max_wait_seconds=300)
    apps = [create_app(settings, redis=backend) for _ in range(2)]
    yield [app.extensions["koz"] for app in apps], [FlaskClient(app.test_client()) for app in apps]
    for app in apps:
        app.extensions["koz"].announcements.stop()


def spectator_long_poll(koz, api, game_id: str, after: int) -> queue.Queue:
    """A spectator's long-poll after ``after``, on a thread, once it waits; its answer comes on the queue."""
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: answers.put(api.request("GET", f"/v1/games/{game_id}?wait=300&after={after}")), daemon=True).start()
    deadline = time.monotonic() + 30
    while koz.announcements.waiting_count < 1:
        assert time.monotonic() < deadline, "the long-poll never waited"
        time.sleep(0.01)
    return answers


def commit_answered_after_its_announcement(koz, game_id: str, version: int, monkeypatch, then=lambda commit: commit) -> None:
    """``koz``'s next commit is answered only once its process has heard its announcement (as
    when the subscription's message comes before the commit's answer); ``then`` makes the answer."""
    commit = koz.repository.store.commit

    def heard_first(write):
        monkeypatch.setattr(koz.repository.store, "commit", commit)
        written = commit(write)
        until_heard(koz, game_id, version)
        return then(written)

    monkeypatch.setattr(koz.repository.store, "commit", heard_first)


def test_a_long_poll_woken_by_a_move_made_here_gets_the_view_the_move_made_without_reading_the_game(patient_processes, monkeypatch):
    (koz, _), (api, _) = patient_processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    answers = spectator_long_poll(koz, api, game_id, 0)
    commit_answered_after_its_announcement(koz, game_id, 1, monkeypatch)
    reads_by_the_long_poll: list[str] = []
    load = koz.repository.store.load

    def counted(read_id):
        if threading.current_thread() is not threading.main_thread():  # the long-poll's thread
            reads_by_the_long_poll.append(read_id)
        return load(read_id)

    monkeypatch.setattr(koz.repository.store, "load", counted)
    assert pass_in_turn(api, game_id, tokens).status == 200
    answer = answers.get(timeout=60)
    assert (answer.status, answer.body["version"]) == (200, 1)
    assert reads_by_the_long_poll == []
    assert not koz.waiting._waiting_seats  # whose long-polls are kept only while they wait
    monkeypatch.undo()
    assert answer.body == api.view(game_id).body


def test_a_long_poll_held_for_a_move_made_here_that_lost_its_race_is_woken_by_the_move_that_won(patient_processes, monkeypatch):
    (koz, _), (api, other) = patient_processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    # the other's bid is heard as the versions this process's pass expects: its waiters are held for it
    seat = the_other_bids_first(koz, (api, other), game_id, tokens, monkeypatch)
    answers = spectator_long_poll(koz, api, game_id, 1)
    assert api.act(game_id, {"type": "pass"}, tokens[seat]).status == 409
    answer = answers.get(timeout=60)
    assert (answer.status, answer.body["version"]) == (200, 2)
    assert answer.body == other.view(game_id).body


def test_a_long_poll_held_for_a_move_made_here_whose_answer_was_lost_is_woken_all_the_same(patient_processes, monkeypatch):
    (koz, _), (api, _) = patient_processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    answers = spectator_long_poll(koz, api, game_id, 0)

    def lost(_commit):
        raise RedisConnectionError("the answer was lost on its way")

    commit_answered_after_its_announcement(koz, game_id, 1, monkeypatch, then=lost)
    assert (pass_in_turn(api, game_id, tokens).status, answers.get(timeout=60).body["version"]) == (503, 1)


def test_a_move_committed_here_with_nobody_waiting_is_settled_when_its_announcement_came_first(patient_processes, monkeypatch):
    """(A time-out's commit, say: no request waits on the game, not even the mover's for replies.)"""
    (koz, _), (api, _) = patient_processes
    subscription_up(koz)
    game_id, tokens = new_table(api, koz)
    (seat,) = api.view(game_id).body["to_act"]
    game = koz.repository.load(game_id)
    game.act(game.acting_seat(tokens[seat]), Action.from_json({"type": "pass"}))
    commit_answered_after_its_announcement(koz, game_id, 1, monkeypatch)
    assert koz.repository.commit(game, 0).written
    assert koz.announcements.last_committed(game_id).version == 1
