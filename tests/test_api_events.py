"""The event stream (``GET /v1/games/{id}/events``, Server-Sent Events): the current view on
connect, then each version's history and view in order; resuming after ``Last-Event-ID`` (or
``?after=``) without loss or repetition; no hidden card for a viewer who may not see it; the
reveal and the end of the stream once the match is over."""

from __future__ import annotations

import gc
import json
import queue
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from engine import Action, registry
from service import create_app, texts
from service.game import Game
from service.resources.events import HeldStream
from service.worker import WorkerThread
from tests.api import FlaskClient
from tests.conftest import drain, make_settings
from tests.support import card_codes_in, concealed_cards, expire


@dataclass
class Message:
    kind: str
    id: int
    data: Any


class Stream:
    """An open event stream over Flask's test client, read on a thread into a queue."""

    def __init__(self, client, game_id: str, token: str | None = None, query: str = "", headers: dict | None = None) -> None:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        self.response = client.get(f"/v1/games/{game_id}/events{query}", headers=sent, buffered=False)
        self.messages: queue.Queue = queue.Queue()
        self.comments: list[str] = []
        self.ended = threading.Event()
        #: what the server's generator raised while the stream was read, if anything
        self.error: BaseException | None = None
        self._closing = threading.Event()
        if self.response.status_code == 200:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = ""
        try:
            for chunk in self.response.response:
                buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    self._parse(block)
                if self._closing.is_set():
                    break
        except Exception as error:
            self.error = error
        finally:
            self.response.close()
            self.ended.set()

    def _parse(self, block: str) -> None:
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
            else:
                name, _, value = line.partition(": ")
                fields[name] = value
        if "event" in fields:
            self.messages.put(Message(fields["event"], int(fields["id"]), json.loads(fields["data"])))

    def next(self, timeout: float = 60) -> Message:
        return self.messages.get(timeout=timeout)

    def until_view(self, version: int, timeout: float = 60) -> list[Message]:
        """Every message up to and including the view of ``version``."""
        received = []
        while True:
            message = self.next(timeout)
            received.append(message)
            if message.kind == "view" and message.id >= version:
                return received

    def close(self) -> None:
        self._closing.set()
        self.ended.wait(5)


@pytest.fixture
def app(backend):
    # a short heartbeat lets a closed stream notice soon, and the tests see heartbeats; on
    # fakeredis and on a real redis-server, every test here that uses the app runs on both
    app = create_app(make_settings(stream_heartbeat_seconds=0.1, max_wait_seconds=300), redis=backend)
    with WorkerThread(app.extensions["koz"]):
        yield app


@pytest.fixture
def api(app):
    return FlaskClient(app.test_client())


def two_humans(api, ruleset_id="german-whist", seed="stream", options=None):
    seat_count = registry.get(ruleset_id).seat_count
    created = api.create(ruleset=ruleset_id, seats=[{"name": "P"}] * seat_count, seed=seed, options=options or {}).body
    return created["id"], {entry["seat"]: entry["token"] for entry in created["tokens"]}


def play(api, game_id, tokens, rng, count=None, after_each=lambda: None):
    """Random legal actions by the seats whose turn it is: ``count`` of them, or to the end."""
    done = 0
    while count is None or done < count:
        view = api.view(game_id).body
        if view["status"] == "finished":
            return
        seat = rng.choice(view["to_act"])
        legal = api.view(game_id, tokens[seat]).body["legal_actions"]
        action = {"type": "pass"} if {"type": "pass"} in legal and rng.random() < 0.85 else rng.choice(legal)
        assert api.act(game_id, action, tokens[seat]).status == 200
        after_each()
        done += 1


def test_a_stream_starts_with_the_current_view(app, api):
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id, tokens[0])
    try:
        assert stream.response.headers["Content-Type"].startswith("text/event-stream")
        assert stream.response.headers["Cache-Control"] == "no-cache"
        first = stream.next()
        assert (first.kind, first.id) == ("view", 0)
        assert first.data == api.view(game_id, tokens[0]).body
    finally:
        stream.close()


def test_each_new_version_brings_its_history_then_the_new_view_in_order(app, api):
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id, tokens[0])
    try:
        stream.next()
        play(api, game_id, tokens, random.Random(1), count=6)
        received = stream.until_view(6)
        # versions committed together come together: the history of each, then one view
        last_history = 0
        for message in received:
            if message.kind == "history":
                assert message.id == last_history + 1
                last_history = message.id
            else:
                assert (message.kind, message.id) == ("view", last_history)
        histories = [message for message in received if message.kind == "history"]
        assert [message.id for message in histories] == list(range(1, 7))
        expected = api.history(game_id, tokens[0]).body["events"]
        assert [event for message in histories for event in message.data["events"]] == [e for e in expected if e["version"] >= 1]
        assert received[-1].data == api.view(game_id, tokens[0]).body
    finally:
        stream.close()


def test_last_event_id_resumes_after_that_version_without_loss_or_repetition(app, api):
    game_id, tokens = two_humans(api)
    rng = random.Random(2)
    play(api, game_id, tokens, rng, count=2)
    play(api, game_id, tokens, rng, count=3)  # the client was away for versions 3 to 5
    stream = Stream(app.test_client(), game_id, tokens[1], headers={"Last-Event-ID": "2"})
    try:
        received = stream.until_view(5)
        assert [(message.kind, message.id) for message in received] == [("history", 3), ("history", 4), ("history", 5), ("view", 5)]
        expected = [event for event in api.history(game_id, tokens[1]).body["events"] if event["version"] > 2]
        assert [event for message in received[:-1] for event in message.data["events"]] == expected
    finally:
        stream.close()


def test_after_in_the_query_resumes_too_and_last_event_id_takes_precedence(app, api):
    game_id, tokens = two_humans(api)
    play(api, game_id, tokens, random.Random(3), count=4)
    by_query = Stream(app.test_client(), game_id, query="?after=1")
    both = Stream(app.test_client(), game_id, query="?after=1", headers={"Last-Event-ID": "3"})
    try:
        assert [message.id for message in by_query.until_view(4) if message.kind == "history"] == [2, 3, 4]
        assert [message.id for message in both.until_view(4) if message.kind == "history"] == [4]
    finally:
        by_query.close()
        both.close()


@pytest.mark.parametrize("resume", [{"query": "?after=-1"}, {"headers": {"Last-Event-ID": "-1"}}])
def test_after_minus_one_sends_the_whole_history_from_the_deal(app, api, resume):
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id, tokens[0], **resume)
    try:
        first = stream.next()
        assert (first.kind, first.id) == ("history", 0)
        assert first.data["events"] == api.history(game_id, tokens[0]).body["events"]
    finally:
        stream.close()


def test_an_idle_stream_sends_heartbeat_comments(app, api):
    game_id, _ = two_humans(api)
    stream = Stream(app.test_client(), game_id)
    try:
        stream.next()
        deadline = time.monotonic() + 10
        while "heartbeat" not in stream.comments and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "heartbeat" in stream.comments
        assert stream.messages.empty()  # a comment, not a message
    finally:
        stream.close()


@pytest.mark.parametrize("ruleset_id, options", [("german-whist", {}), ("sixty-six", {"target": 5}), ("partnership-batak", {"target": 21})])
def test_no_stream_shows_a_viewer_a_card_it_may_not_see_and_the_match_ends_with_the_reveal(app, api, ruleset_id, options):
    ruleset = registry.get(ruleset_id)
    game_id, tokens = two_humans(api, ruleset_id, seed=f"leak-{ruleset_id}", options=options)
    viewers: list[int | None] = [None, *range(ruleset.seat_count)]
    streams = {viewer: Stream(app.test_client(), game_id, tokens.get(viewer)) for viewer in viewers}
    # what GET /history showed each viewer as the match went on, page by page
    histories: dict[int | None, list[dict]] = {viewer: [] for viewer in viewers}

    def read_histories():
        for viewer, events in histories.items():
            after = events[-1]["version"] if events else 0
            events += api.history(game_id, tokens.get(viewer), query=f"?after={after}&limit=1000").body["events"]

    try:
        play(api, game_id, tokens, random.Random(ruleset_id), after_each=read_histories)
        final = api.view(game_id).body["version"]
        received = {viewer: stream.until_view(final, timeout=30) for viewer, stream in streams.items()}
        for viewer, stream in streams.items():
            reveal = stream.next()
            assert (reveal.kind, reveal.id) == ("reveal", final)
            assert reveal.data["reveal"] == api.history(game_id).body["reveal"]
            assert stream.ended.wait(5), "the stream goes on after the reveal"
    finally:
        for stream in streams.values():
            stream.close()
    # replay the revealed match: each message against what its viewer could not see at its version
    history = api.whole_history(game_id)
    states = {0: ruleset.new_game(ruleset.parse_options(options), history["reveal"]["seed"])[0]}
    actions = {event["version"]: event["action"] for event in history["events"] if event["type"] == "action"}
    for event in history["events"]:
        if event["type"] == "action":
            states[event["version"]] = ruleset.apply(states[event["version"] - 1], event["seat"], Action.from_json(event["action"]))[0]
    for viewer, messages in received.items():
        versions = [message.id for message in messages]
        assert versions == sorted(versions)
        assert [message.id for message in messages if message.kind == "history"] == sorted(
            {message.id for message in messages if message.kind == "history"}
        )
        # each version as the history showed it then; but a stream that fell behind and caught up
        # after the end was rightly shown what the history shows now: everything
        streamed = [event for message in messages if message.kind == "history" for event in message.data["events"]]
        sent, then, now = by_version(streamed), by_version(histories[viewer]), by_version(history["events"])
        over = rendered_over(messages)
        assert list(sent) == list(then)
        for version, events in sent.items():
            assert events == (now if over[version] else then)[version], f"viewer {viewer}: version {version} differs from the history's"
        for message in messages:
            if message.id == final or over.get(message.id):
                continue  # rendered once the match was over: everything is shown
            for part, concealed in parts_and_concealed(ruleset_id, message, states, actions, viewer):
                leaked = card_codes_in(part) & concealed
                assert not leaked, f"viewer {viewer} was shown {sorted(leaked)} at version {message.id}: {part}"


def parts_and_concealed(ruleset_id, message, states, actions, viewer):
    """A message's parts, each with the cards ``viewer`` may not see in it. A version that ends a
    deal tells of two deals: its events up to the new deal's ``deal`` event belong to the old
    one, judged against the state before the action (less the card it played, now public); the
    rest, against the new deal's state."""
    version = message.id
    events = message.data["events"] if message.kind == "history" else None
    cut = next((index for index, event in enumerate(events or []) if event["type"] == "deal"), None)
    if not cut:  # a view, or a version within one deal (or the very first deal)
        return [(message.data, concealed_cards(ruleset_id, states[version], viewer))]
    played = {actions[version]["card"]} if "card" in actions[version] else set()
    old_deal = concealed_cards(ruleset_id, states[version - 1], viewer) - played
    return [(events[:cut], old_deal), (events[cut:], concealed_cards(ruleset_id, states[version], viewer))]


def test_a_stream_shows_the_computer_reply_the_worker_made(app, api):
    for seed in range(20):
        created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed=f"reply-{seed}").body
        token = created["tokens"][0]["token"]
        view = api.view(created["id"], token).body
        if not view["trick"]["cards"]:  # the human leads: the computer's reply comes after
            break
    stream = Stream(app.test_client(), created["id"], token)
    try:
        assert stream.next().id == view["version"]
        api.act(created["id"], view["legal_actions"][0], token)
        received = stream.until_view(view["version"] + 2)
        actions = [event for message in received if message.kind == "history" for event in message.data["events"] if event["type"] == "action"]
        assert [event["seat"] for event in actions][:2] == [0, 1]  # the computer replied (and may have led again)
    finally:
        stream.close()


def test_a_stream_of_an_unknown_game_or_with_a_bad_token_is_a_problem(api):
    game_id, _ = two_humans(api)
    missing = api.request("GET", "/v1/games/nosuchgame/events")
    assert (missing.status, missing.code) == (404, "unknown_game")
    wrong = api.request("GET", f"/v1/games/{game_id}/events", token="not-a-token")
    assert (wrong.status, wrong.code) == (401, "invalid_token")
    bad_resume = api.request("GET", f"/v1/games/{game_id}/events", headers={"Last-Event-ID": "yesterday"})
    assert (bad_resume.status, bad_resume.code) == (400, "invalid_request")


@pytest.mark.parametrize(
    "header, error",
    [("1" * 18, "at most {max_versions}"), ("1" * 19, "-1 or a whole number"), ("-2", "-1 or a whole number"), ("+1", "-1 or a whole number")],
)
def test_a_last_event_id_past_every_version_or_no_version_at_all_is_refused_as_such(app, api, header, error):
    """(Up to 18 digits it is a number, whatever its size, and compared with the cap on versions.)"""
    game_id, _ = two_humans(api)
    refused = api.request("GET", f"/v1/games/{game_id}/events", headers={"Last-Event-ID": header})
    expected = error.format(max_versions=app.extensions["koz"].settings.max_versions)
    assert (refused.status, refused.code, refused.body["errors"]) == (400, "invalid_request", {"Last-Event-ID": [expected]})


@pytest.mark.parametrize("by", ["lang", "Accept-Language"])
def test_a_streams_problems_speak_the_language_asked_like_every_route(app, api, by):
    game_id, tokens = two_humans(api)

    def ask(path, headers=None, token=None):
        if by == "lang":
            path += ("&" if "?" in path else "?") + "lang=tr"
        else:
            headers = {**(headers or {}), "Accept-Language": "tr-TR,tr;q=0.9"}
        return api.request("GET", path, token=token, headers=headers)

    missing = ask("/v1/games/nosuchgame/events")
    assert (missing.status, missing.headers["Content-Language"]) == (404, "tr")
    assert missing.body["detail"] == "'nosuchgame' diye bir oyun yok (süresi dolmuş olabilir)"
    wrong = ask(f"/v1/games/{game_id}/events", token="not-a-token")
    assert (wrong.status, wrong.body["title"], wrong.body["detail"]) == (401, "Kimlik doğrulanamadı", texts.DETAILS["invalid_token"]["tr"])
    bad_resume = ask(f"/v1/games/{game_id}/events", headers={"Last-Event-ID": "yesterday"})
    assert bad_resume.body["detail"] == texts.DETAILS["last_event_id"]["tr"]
    assert bad_resume.body["errors"] == {"Last-Event-ID": ["-1 ya da bir tam sayı"]}
    bad_after = ask(f"/v1/games/{game_id}/events?after=-5")
    assert (bad_after.code, bad_after.body["errors"]) == ("invalid_request", {"after": ["En az -1 olmalı."]})
    # lang is no field of the stream's query: the stream opens, and its messages (views, events)
    # carry codes and names in both languages, the same whatever the language asked
    stream = Stream(app.test_client(), game_id, tokens[0], query="?lang=tr")
    try:
        assert stream.response.status_code == 200
        assert stream.next().data == api.view(game_id, tokens[0]).body
    finally:
        stream.close()


def test_a_stream_is_open_to_other_origins_and_private_to_its_token(app, api):
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id, tokens[0], headers={"Origin": "https://table.example"})
    try:
        assert stream.response.headers["Access-Control-Allow-Origin"] == "*"
        assert "Authorization" in stream.response.headers["Vary"]
    finally:
        stream.close()
    preflight = app.test_client().options(
        f"/v1/games/{game_id}/events",
        headers={
            "Origin": "https://table.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization, last-event-id",
        },
    )
    assert "last-event-id" in preflight.headers["Access-Control-Allow-Headers"].lower()


@pytest.mark.parametrize("viewers", ["spectators", "each seat and a spectator"])
def test_the_streams_woken_by_one_version_share_one_read_of_the_store(app, api, monkeypatch, viewers):
    game_id, tokens = two_humans(api)
    seats = [None] * 5 if viewers == "spectators" else [None, 0, 1, 0, 1]  # (each viewer's messages are its own)
    streams = [Stream(app.test_client(), game_id, tokens[seat] if seat is not None else None) for seat in seats]
    try:
        for stream in streams:
            stream.next()
        store = app.extensions["koz"].store
        reads_by_streams = []
        original = store.load

        def counted(game):
            if threading.current_thread() is not threading.main_thread():  # each stream is read on its own thread
                reads_by_streams.append(game)
            return original(game)

        monkeypatch.setattr(store, "load", counted)
        play(api, game_id, tokens, random.Random(4), count=1)
        for stream in streams:
            assert stream.until_view(1)[-1].id == 1
        assert reads_by_streams == [game_id]
    finally:
        for stream in streams:
            stream.close()


def test_a_stream_ends_after_its_longest_time_and_a_reconnection_loses_nothing(backend):
    app = create_app(make_settings(stream_heartbeat_seconds=0.1, stream_max_seconds=0.5), redis=backend)
    api = FlaskClient(app.test_client())
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id, tokens[0])
    last = stream.next().id
    assert stream.ended.wait(5), "the stream outlived its longest time"
    play(api, game_id, tokens, random.Random(5), count=2)  # while the client is away
    again = Stream(app.test_client(), game_id, tokens[0], headers={"Last-Event-ID": str(last)})
    try:
        assert [(message.kind, message.id) for message in again.until_view(2)] == [("history", 1), ("history", 2), ("view", 2)]
    finally:
        again.close()


def test_a_stream_waits_no_longer_than_the_time_it_has_left_whatever_its_heartbeat(backend, monkeypatch):
    app = create_app(make_settings(stream_heartbeat_seconds=30, stream_max_seconds=0.3), redis=backend)
    api = FlaskClient(app.test_client())
    game_id, tokens = two_humans(api)
    waiting = app.extensions["koz"].waiting
    timeouts: list[float] = []
    wait_for_version = waiting.wait_for_version
    monkeypatch.setattr(waiting, "wait_for_version", lambda *args: timeouts.append(args[2]) or wait_for_version(*args))
    stream = Stream(app.test_client(), game_id, tokens[0])
    try:
        stream.next()
        assert stream.ended.wait(5), "the stream outlived its longest time"
        assert timeouts and max(timeouts) <= 0.3
    finally:
        stream.close()


def test_a_stream_asks_the_store_its_games_version_once_then_goes_by_what_is_announced(app, api, monkeypatch):
    """(Its waiter stays registered between messages: nothing announced meanwhile is missed, and
    neither a move nor a heartbeat needs the store's word.)"""
    game_id, tokens = two_humans(api)
    koz = app.extensions["koz"]
    subscription_up(koz)
    asked: list[str] = []
    store = type(koz.repository.store)
    version = store.version

    def counted(self, asked_id):
        if threading.current_thread() is not threading.main_thread():  # the stream is read on its own thread
            asked.append(asked_id)
        return version(self, asked_id)

    monkeypatch.setattr(store, "version", counted)
    stream = Stream(app.test_client(), game_id, tokens[0])
    try:
        stream.next()
        for moves in (1, 2, 3):
            play(api, game_id, tokens, random.Random(moves), count=1)
            assert stream.until_view(moves)[-1].id == moves
            time.sleep(0.3)  # heartbeats (every 0.1 s here)
        assert "heartbeat" in stream.comments
        assert asked == [game_id]
    finally:
        stream.close()


def test_a_stream_ends_when_its_game_is_gone_at_the_version_announced(app, api, monkeypatch):
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id, tokens[0])
    try:
        stream.next()
        # the game expires between its announcement and the stream's read of it
        monkeypatch.setattr(app.extensions["koz"].repository, "load_announced", lambda *args: None)
        play(api, game_id, tokens, random.Random(6), count=1)
        assert stream.ended.wait(10)
        assert stream.error is None and stream.messages.empty()
    finally:
        stream.close()


def test_a_stream_closed_twice_gives_its_place_back_once():
    given_back: list[bool] = []
    held = HeldStream((text for text in [b"retry: 2000\n\n"]), lambda: given_back.append(True))
    held.close()
    held.close()
    assert given_back == [True]


def copies_of(game_id: str) -> list[Game]:
    gc.collect()  # what is only garbage waiting for the collector is not held
    # by its type, not isinstance: that asks a weak proxy (which gc.get_objects also lists) its
    # referent's class, and raises once the referent is gone (a test before may leave one)
    return [thing for thing in gc.get_objects() if type(thing) is Game and thing.id == game_id]


def until_no_copy_of(game_id: str, seconds: float = 60) -> list[Game]:
    deadline = time.monotonic() + seconds
    while copies_of(game_id) and time.monotonic() < deadline:
        time.sleep(0.02)
    return copies_of(game_id)


def subscription_up(koz, channel: str = "warm-up") -> None:
    """Until the process's subscription is up and hears: a test's announcements are then heard."""
    with koz.announcements.waiting(channel, 0) as heard:
        deadline = time.monotonic() + 10
        while heard.newer_than(0) == 0 and time.monotonic() < deadline:
            # published again until heard: one sent before the subscription came up is lost
            koz.store.redis.publish(koz.store.channel(channel), "1 0 ")
            heard.wait(0.2)  # (a renewal may wake it first)
        assert heard.newer_than(0) == 1, "the subscription did not come up"


def until_heard(koz, game_id: str, version: int) -> None:
    deadline = time.monotonic() + 30
    while (koz.announcements.heard(game_id) or (None,))[0] != version:
        assert time.monotonic() < deadline, f"version {version} was never heard"
        time.sleep(0.01)


def store_reads(koz, monkeypatch) -> list[str]:
    """What the store is asked from now on, in order: a whole game ("game") or its version ("version")."""
    reads: list[str] = []
    store = type(koz.repository.store)
    load, version = store.load, store.version
    monkeypatch.setattr(store, "load", lambda self, loaded_id: reads.append("game") or load(self, loaded_id))
    monkeypatch.setattr(store, "version", lambda self, loaded_id: reads.append("version") or version(self, loaded_id))
    return reads


def long_poll_in_background(client, game_id: str, after: int, token: str | None = None) -> queue.Queue:
    """A long-poll of the longest wait the app allows, on a thread; its answer goes to the queue returned."""
    answers: queue.Queue = queue.Queue()
    path = f"/v1/games/{game_id}?wait=300&after={after}"
    threading.Thread(target=lambda: answers.put(client.request("GET", path, token=token)), daemon=True).start()
    return answers


def until_waiting(koz, count: int) -> None:
    deadline = time.monotonic() + 60
    while koz.announcements.waiting_count < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert koz.announcements.waiting_count == count


def moved_elsewhere(koz, game_id: str) -> int:
    """A legal move committed as another web process would make it: this process hears its
    announcement and keeps nothing else of it. The new version."""
    game = koz.repository.load(game_id)
    seat = game.view(None)["to_act"][0]
    start = game.version
    game.act(seat, Action.from_json(game.view(seat)["legal_actions"][0]))
    assert koz.repository.commit(game, start).written
    return game.version


def warmed_up(api) -> None:
    """A first game and move: fakeredis keeps the error of a script's first call (the script is
    loaded then), and with it the frames of that request, which the tests below must not count."""
    game_id, tokens = two_humans(api, seed="warm-up")
    play(api, game_id, tokens, random.Random(0), count=1)


def test_a_waiting_stream_holds_no_copy_of_the_game(app, api):
    # thousands wait at once in one process, and each of the collector's full passes walks what they hold
    warmed_up(api)
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id, tokens[0])
    try:
        assert stream.next().kind == "view"
        assert until_no_copy_of(game_id) == []
        play(api, game_id, tokens, random.Random(6), count=1)
        assert stream.until_view(1)[-1].data["version"] == 1
    finally:
        stream.close()


def test_a_waiting_long_poll_holds_no_copy_of_the_game(app, api):
    warmed_up(api)
    game_id, tokens = two_humans(api)
    answers: queue.Queue = queue.Queue()
    client = FlaskClient(app.test_client())
    # the longest wait a request may ask (the app allows it): it is still waiting when checked, however slow the machine
    threading.Thread(target=lambda: answers.put(client.request("GET", f"/v1/games/{game_id}?wait=300&after=0", token=tokens[1])), daemon=True).start()
    assert until_no_copy_of(game_id) == []
    assert answers.empty(), "the long-poll ended before anything happened"
    play(api, game_id, tokens, random.Random(7), count=1)
    answer = answers.get(timeout=60)
    assert (answer.status, answer.body["version"]) == (200, 1)
    assert answer.body == api.view(game_id, tokens[1]).body


def test_a_long_poll_asking_again_after_the_version_it_was_shown_reads_nothing_of_the_store(app, api, monkeypatch):
    """A table's long-polls all ask again at once after each move: the seats' token hashes at the
    version shown, kept by the process, say whose each is, and the process's subscription, which
    heard that version last, that the game is still there: the store is not asked even its version.
    A token of no seat is still refused at once, and the next move still answers."""
    game_id, tokens = two_humans(api)
    koz = app.extensions["koz"]
    subscription_up(koz)
    client = FlaskClient(app.test_client())
    answers: queue.Queue = queue.Queue()

    def long_poll(after: int, token: str) -> None:
        path = f"/v1/games/{game_id}?wait=300&after={after}"
        threading.Thread(target=lambda: answers.put(client.request("GET", path, token=token)), daemon=True).start()

    long_poll(0, tokens[1])
    until_waiting(koz, 1)
    play(api, game_id, tokens, random.Random(9), count=1)
    assert answers.get(timeout=60).body["version"] == 1
    until_heard(koz, game_id, 1)
    reads = store_reads(koz, monkeypatch)
    for token in tokens.values():
        long_poll(1, token)
    until_waiting(koz, 2)
    refused = client.request("GET", f"/v1/games/{game_id}?wait=300&after=1", token="not-a-seat-token")
    assert (refused.status, refused.code) == (401, "invalid_token")
    assert reads == []
    monkeypatch.undo()
    play(api, game_id, tokens, random.Random(9), count=1)
    woken = sorted(json.dumps(answers.get(timeout=60).body, sort_keys=True) for _ in tokens)
    assert woken == sorted(json.dumps(api.view(game_id, token).body, sort_keys=True) for token in tokens.values())
    assert {json.loads(body)["version"] for body in woken} == {2}


def test_a_long_poll_on_a_game_heard_too_long_ago_asks_the_store_its_version_only(app, api, monkeypatch):
    """The seats' token hashes kept at the version shown still say whose the token is, but a word
    of the subscription older than a game may live unmoved no longer says the game is there: the
    store is asked its version, and not the whole game."""
    game_id, tokens = two_humans(api)
    koz = app.extensions["koz"]
    subscription_up(koz)
    client = FlaskClient(app.test_client())
    first = long_poll_in_background(client, game_id, 0, tokens[1])
    until_waiting(koz, 1)
    play(api, game_id, tokens, random.Random(9), count=1)
    assert first.get(timeout=60).body["version"] == 1
    until_heard(koz, game_id, 1)
    real_clock = koz.announcements.clock
    monkeypatch.setattr(koz.announcements, "clock", lambda: real_clock() + koz.waiting.heard_trusted_seconds)
    reads = store_reads(koz, monkeypatch)
    second = long_poll_in_background(client, game_id, 1, tokens[1])
    until_waiting(koz, 1)
    assert reads == ["version"]
    monkeypatch.undo()
    play(api, game_id, tokens, random.Random(9), count=1)
    assert second.get(timeout=60).body["version"] == 2


def test_a_long_poll_of_one_second_waits_that_second(app, api):
    game_id, _ = two_humans(api)
    started = time.monotonic()
    answer = api.request("GET", f"/v1/games/{game_id}?wait=1&after=0")  # nobody moves
    assert (answer.status, answer.body["version"]) == (200, 0) and time.monotonic() - started >= 0.9


def channel_game(koz, message) -> str | None:
    channel = message["channel"]
    return koz.store.game_of_channel(channel.decode() if isinstance(channel, bytes) else channel)


def test_a_long_poll_after_a_version_passed_since_answers_at_once_whether_heard_yet_or_on_its_way(app, api, monkeypatch):
    """The game may move on between the view a client was shown and its next long-poll. Heard
    already, the long-poll answers the new version at once. Made in another process and still on
    its way to this one (the subscription's last word is then the version the client has, and the
    store is not asked), its announcement wakes the long-poll when it arrives. Neither waits out
    the long-poll's time."""
    koz = app.extensions["koz"]
    subscription_up(koz)
    game_id, tokens = two_humans(api)
    client = FlaskClient(app.test_client())
    first = long_poll_in_background(client, game_id, 0, tokens[1])
    until_waiting(koz, 1)
    play(api, game_id, tokens, random.Random(9), count=1)
    assert first.get(timeout=60).body["version"] == 1  # the process holds the seats' hashes at 1
    play(api, game_id, tokens, random.Random(9), count=1)
    until_heard(koz, game_id, 2)
    heard = long_poll_in_background(client, game_id, 1, tokens[1]).get(timeout=20)  # its 300 s wait would fail it
    assert (heard.status, heard.body) == (200, api.view(game_id, tokens[1]).body)
    assert heard.body["version"] == 2

    held, release = threading.Event(), threading.Event()
    announce = koz.announcements._announce

    def delayed(message) -> None:
        if channel_game(koz, message) == game_id and message["data"].startswith(b"3 "):
            held.set()
            release.wait(60)
        announce(message)

    monkeypatch.setattr(koz.announcements, "_announce", delayed)
    assert moved_elsewhere(koz, game_id) == 3
    assert held.wait(30), "version 3 was never announced"
    reads = store_reads(koz, monkeypatch)
    on_its_way = long_poll_in_background(client, game_id, 2, tokens[1])
    until_waiting(koz, 1)
    assert reads == []  # the subscription's word, version 2, was taken: only the announcement can wake it
    release.set()
    answer = on_its_way.get(timeout=20)
    monkeypatch.undo()
    assert (answer.status, answer.body) == (200, api.view(game_id, tokens[1]).body)
    assert answer.body["version"] == 3


def test_a_long_poll_on_a_game_withdrawn_or_expired_since_answers_at_once_that_it_is_gone(app, api, monkeypatch):
    """Long-polls after the version they were shown, on a game gone since: withdrawn (announced),
    or expired (never announced: the subscription's word is taken only for as long as the game
    cannot have expired since it was heard). Each answers 404 at once, not after its wait."""
    koz = app.extensions["koz"]
    subscription_up(koz)
    created = api.create(ruleset="german-whist", seats=[{"name": "A"}, {"open": True}]).body
    invitation, version = created["id"], created["version"]
    until_heard(koz, invitation, version)
    assert api.request("DELETE", f"/v1/games/{invitation}", token=created["tokens"][0]["token"]).status == 204
    until_heard(koz, invitation, version + 1)
    client = FlaskClient(app.test_client())
    withdrawn = long_poll_in_background(client, invitation, version).get(timeout=20)  # its 300 s wait would fail it
    assert (withdrawn.status, withdrawn.code) == (404, "unknown_game")

    game_id, tokens = two_humans(api)
    play(api, game_id, tokens, random.Random(9), count=1)
    until_heard(koz, game_id, 1)
    expire(koz.store.redis, game_id)  # unannounced
    # as long after the last move was heard as a game may live without a move (the app's shortest time to live, halved)
    settings = koz.settings
    shortest = min(settings.game_ttl_seconds, settings.finished_game_ttl_seconds, settings.waiting_game_ttl_seconds)
    real_clock = koz.announcements.clock
    monkeypatch.setattr(koz.announcements, "clock", lambda: real_clock() + shortest / 2)
    expired = long_poll_in_background(client, game_id, 1).get(timeout=20)
    assert (expired.status, expired.code) == (404, "unknown_game")


class BreakablePubSub:
    """The process's subscription, which a test can lose (as a Redis failover or restart does) and
    keep from coming up again until it says so."""

    def __init__(self, pubsub, lose: threading.Event, down: threading.Event, restore: threading.Event) -> None:
        self.pubsub, self.lose, self.down, self.restore = pubsub, lose, down, restore

    def psubscribe(self, *patterns) -> None:
        if self.lose.is_set():  # the subscription lost: it comes up again when the test says
            self.down.set()
            assert self.restore.wait(60)
            self.lose.clear()
        self.pubsub.psubscribe(*patterns)

    def get_message(self, timeout: float):
        if self.lose.is_set():
            raise RedisConnectionError("lost, as in a failover")
        return self.pubsub.get_message(timeout=timeout)

    def close(self) -> None:
        self.pubsub.close()


class BreakableSubscription:
    """The process's subscriptions made breakable (:class:`BreakablePubSub`), before it subscribes."""

    def __init__(self, koz, monkeypatch) -> None:
        self.koz = koz
        self.lost, self.down, self.restore = threading.Event(), threading.Event(), threading.Event()
        subscribe = koz.store.redis.pubsub
        monkeypatch.setattr(koz.store.redis, "pubsub", lambda: BreakablePubSub(subscribe(), self.lost, self.down, self.restore))
        monkeypatch.setattr(koz.announcements, "retry_seconds", 0.01)

    def lose(self) -> None:
        """Lose it, and keep it down until ``restore`` is set."""
        self.lost.set()
        self.koz.store.redis.publish(self.koz.store.channel("nudge"), "1 0 ")  # the listener's next read finds it lost
        assert self.down.wait(30), "the subscription was not lost"


def test_a_long_poll_after_a_version_heard_before_the_subscription_was_lost_asks_the_store(app, api, monkeypatch):
    """What the subscription heard before it was lost is forgotten: a move made while it was down
    was never announced here, and a long-poll after the version heard before must find it in the
    store at once, not wait out its time."""
    koz = app.extensions["koz"]
    subscription = BreakableSubscription(koz, monkeypatch)
    with koz.announcements.waiting("keeps-it-up", 0):  # a waiter all along: the listener subscribes again
        subscription_up(koz)
        game_id, tokens = two_humans(api)
        play(api, game_id, tokens, random.Random(9), count=1)
        until_heard(koz, game_id, 1)
        subscription.lose()
        assert koz.announcements.heard(game_id) is None  # forgotten as soon as it was lost
        play(api, game_id, tokens, random.Random(9), count=1)  # version 2, announced to nobody here
        subscription.restore.set()
        subscription_up(koz, "warm-up-again")
        answer = long_poll_in_background(FlaskClient(app.test_client()), game_id, 1).get(timeout=20)  # its 300 s wait would fail it
    assert (answer.status, answer.body["version"]) == (200, 2)


def test_a_long_poll_on_a_game_that_expired_while_the_subscription_was_down_answers_404_once_it_is_back(app, api, monkeypatch):
    """Its waiter is woken by the renewal, and only the store can say what became of the game: gone."""
    koz = app.extensions["koz"]
    subscription = BreakableSubscription(koz, monkeypatch)
    subscription_up(koz)
    game_id, tokens = two_humans(api)
    answers = long_poll_in_background(FlaskClient(app.test_client()), game_id, 0, tokens[0])
    until_waiting(koz, 1)
    subscription.lose()
    expire(koz.store.redis, game_id)  # unannounced
    subscription.restore.set()
    answer = answers.get(timeout=20)  # its 300 s wait would fail it
    assert (answer.status, answer.code) == (404, "unknown_game")


@pytest.mark.parametrize("reply", ["while it was down", "once it was back"])
def test_an_answer_waiting_for_a_reply_across_a_lost_subscription_shows_the_reply(backend, monkeypatch, reply):
    """A reply made while the subscription was down is announced to nobody here: the renewal
    wakes the answer, which finds it in the store rather than wait out the reply wait. A reply
    made after the renewal is waited for as before: the renewal alone does not end the wait."""
    # no worker running: the test makes the reply when it wants it
    app = create_app(make_settings(replies_in_request=0, reply_wait_seconds=60), redis=backend)
    koz, api = app.extensions["koz"], FlaskClient(app.test_client())
    subscription = BreakableSubscription(koz, monkeypatch)
    subscription_up(koz)
    # seed "1" deals with the computer as dealer: the person leads (with the computer first, the
    # creation would wait out the reply wait, no worker running)
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed="1").body
    game_id, token = created["id"], created["tokens"][0]["token"]
    assert api.view(game_id).body["to_act"] == [0]
    action = api.view(game_id, token).body["legal_actions"][0]
    answers: queue.Queue = queue.Queue()
    client = FlaskClient(app.test_client())
    threading.Thread(target=lambda: answers.put(client.act(game_id, action, token)), daemon=True).start()
    until_waiting(koz, 1)  # the answer waits for the computer's reply
    subscription.lose()
    if reply == "while it was down":
        assert drain(app) >= 1  # announced to nobody here
        subscription.restore.set()
    else:
        subscription.restore.set()
        subscription_up(koz, "warm-up-again")
        assert answers.empty()  # renewed, and still waiting for the reply
        assert drain(app) >= 1
    answer = answers.get(timeout=30)  # its 60 s reply wait would fail it
    assert (answer.status, answer.body["to_act"]) == (200, [0]) and answer.body["version"] >= 2
    koz.announcements.stop()


class RefusedOnce:
    """The process's subscription, refused the first time it is asked for (as by a Redis still starting)."""

    def __init__(self, pubsub, refusals: list[str]) -> None:
        self.pubsub, self.refusals = pubsub, refusals

    def psubscribe(self, *patterns) -> None:
        if not self.refusals:
            self.refusals.append("refused")
            raise RedisConnectionError("refused, as by a Redis still starting")
        self.pubsub.psubscribe(*patterns)

    def get_message(self, timeout: float):
        return self.pubsub.get_message(timeout=timeout)

    def close(self) -> None:
        self.pubsub.close()


def test_a_subscription_that_fails_to_come_up_is_asked_for_again(backend, monkeypatch):
    app = create_app(make_settings(max_wait_seconds=300), redis=backend)  # no worker: its subscription comes up here
    koz, api = app.extensions["koz"], FlaskClient(app.test_client())
    refusals: list[str] = []
    subscribe = koz.store.redis.pubsub
    monkeypatch.setattr(koz.store.redis, "pubsub", lambda: RefusedOnce(subscribe(), refusals))
    monkeypatch.setattr(koz.announcements, "retry_seconds", 0.01)
    game_id, tokens = two_humans(api)
    answer = long_poll_in_background(api, game_id, 0)
    until_waiting(koz, 1)
    subscription_up(koz)
    play(api, game_id, tokens, random.Random(9), count=1)
    assert refusals == ["refused"] and answer.get(timeout=20).body["version"] == 1
    koz.announcements.stop()


def test_a_stream_hears_the_first_move_after_it_connected_at_once_not_at_its_next_heartbeat(backend):
    app = create_app(make_settings(stream_heartbeat_seconds=30, stream_max_seconds=300), redis=backend)
    koz, api = app.extensions["koz"], FlaskClient(app.test_client())
    subscription_up(koz)
    game_id, tokens = two_humans(api)
    stream = Stream(app.test_client(), game_id)
    assert stream.next().kind == "view"  # on connect; the stream then waits for version 1
    until_waiting(koz, 2)  # the stream's own registration, and its first wait's
    play(api, game_id, tokens, random.Random(9), count=1)
    assert stream.until_view(1, timeout=10)[-1].id == 1  # its heartbeat is 30 s away
    koz.announcements.close()  # the stream ends
    stream.close()


def test_the_subscription_ends_once_nobody_waits_and_the_next_waiter_brings_it_back(backend):
    """An idle process holds no subscription (nor its connection); a long-poll after that is
    heard as before."""
    app = create_app(make_settings(max_wait_seconds=300), redis=backend)  # no worker: nothing else waits
    koz, api = app.extensions["koz"], FlaskClient(app.test_client())
    game_id, tokens = two_humans(api)
    with koz.announcements.waiting(game_id, 0):
        subscription_up(koz)
        play(api, game_id, tokens, random.Random(9), count=1)
        until_heard(koz, game_id, 1)
    time.sleep(3)  # past the listener's 2 s reads with nothing heard: idle, but for less than its 30 s
    assert koz.announcements.heard(game_id) is not None
    koz.announcements.idle_seconds = 0.05
    deadline = time.monotonic() + 30
    while koz.announcements.heard(game_id) is not None:  # what it heard is kept only while it is up
        assert time.monotonic() < deadline, "the subscription outlived its waiters"
        time.sleep(0.05)
    answer = long_poll_in_background(api, game_id, 1)
    until_waiting(koz, 1)
    subscription_up(koz)
    play(api, game_id, tokens, random.Random(9), count=1)
    assert answer.get(timeout=20).body["version"] == 2  # its 300 s wait would fail it
    koz.announcements.stop()


def test_a_long_poll_after_a_version_whose_seats_the_process_does_not_hold_reads_the_game_once(app, api, monkeypatch):
    """A client asks after a version made in another process and never shown here: this process
    holds no seats' hashes at it, so the whole game is read at once, and the store is not first
    asked its version (one round trip, as before the hashes were kept)."""
    game_id, tokens = two_humans(api)
    koz = app.extensions["koz"]
    moved_elsewhere(koz, game_id)
    reads = store_reads(koz, monkeypatch)
    answers: queue.Queue = queue.Queue()
    client = FlaskClient(app.test_client())
    path = f"/v1/games/{game_id}?wait=300&after=1"
    threading.Thread(target=lambda: answers.put(client.request("GET", path, token=tokens[0])), daemon=True).start()
    deadline = time.monotonic() + 60
    while koz.announcements.waiting_count < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert koz.announcements.waiting_count == 1
    assert reads == ["game"]
    monkeypatch.undo()
    play(api, game_id, tokens, random.Random(9), count=1)
    assert answers.get(timeout=60).body == api.view(game_id, tokens[0]).body


def test_a_long_poll_after_the_version_its_own_action_was_answered_with_reads_no_whole_game(app, api, monkeypatch):
    """After its move a client (a bot) asks after the version its action's answer showed: the
    process that committed it keeps the seats' hashes at that version, and the whole game is not
    read again to know whose token it is. The other seat's move still answers it."""
    game_id, tokens = two_humans(api)
    seat = api.view(game_id).body["to_act"][0]
    answered = api.act(game_id, api.view(game_id, tokens[seat]).body["legal_actions"][0], tokens[seat]).body
    koz = app.extensions["koz"]
    store = type(koz.repository.store)
    reads: list[str] = []
    load = store.load
    monkeypatch.setattr(store, "load", lambda self, loaded_id: reads.append("game") or load(self, loaded_id))
    answers = long_poll_in_background(FlaskClient(app.test_client()), game_id, answered["version"], tokens[seat])
    until_waiting(koz, 1)
    assert reads == []
    monkeypatch.undo()
    play(api, game_id, tokens, random.Random(9), count=1)
    answer = answers.get(timeout=60)
    assert (answer.status, answer.body) == (200, api.view(game_id, tokens[seat]).body)
    assert answer.body["version"] == answered["version"] + 1


def test_a_long_poll_that_waited_in_vain_answers_the_game_as_it_is(app, api):
    game_id, tokens = two_humans(api)
    answer = api.request("GET", f"/v1/games/{game_id}?wait=0.2&after=0", token=tokens[1])
    assert (answer.status, answer.body) == (200, api.view(game_id, tokens[1]).body)


def by_version(events: list[dict]) -> dict[int, list[dict]]:
    grouped: dict[int, list[dict]] = {}
    for event in events:
        grouped.setdefault(event["version"], []).append(event)
    return grouped


def rendered_over(messages) -> dict[int, bool]:
    """For each version a stream's history messages carried, whether the stream rendered it once
    the match was over (the view that follows them in the same wake says)."""
    over, pending = {}, []
    for message in messages:
        if message.kind == "history":
            pending.append(message.data["version"])
        elif message.kind == "view":
            over.update({version: message.data["status"] != "active" for version in pending})
            pending = []
    return over


@pytest.mark.parametrize("cap", [{"max_versions": 5}, {"max_deals": 1}])
def test_the_stream_and_the_history_agree_on_a_match_that_ends_abandoned(cap, backend):
    """Whatever an abandoned match shows (its reveal or not), every viewer's stream shows it as
    the history does: a stream that followed the match, each version's events as the history
    showed them then; one opened after the end, the history as it is now; both the same reveal
    (or none), and then they end."""
    app = create_app(make_settings(stream_heartbeat_seconds=0.1, **cap), redis=backend)
    api = FlaskClient(app.test_client())
    game_id, tokens = two_humans(api, seed="abandon", options={"target": 10})
    viewers: list[int | None] = [None, 0, 1]
    live = {viewer: Stream(app.test_client(), game_id, tokens.get(viewer), query="?after=-1") for viewer in viewers}
    late: dict[int | None, Stream] = {}
    # what GET /history showed each viewer as the match went on, version by version
    seen = {viewer: api.history(game_id, tokens.get(viewer)).body["events"] for viewer in viewers}
    rng = random.Random(8)
    try:
        while (view := api.view(game_id).body)["status"] == "active":
            seat = rng.choice(view["to_act"])
            assert api.act(game_id, rng.choice(api.view(game_id, tokens[seat]).body["legal_actions"]), tokens[seat]).status == 200
            for viewer, events in seen.items():
                events += api.history(game_id, tokens.get(viewer), query=f"?after={events[-1]['version']}&limit=1000").body["events"]
        assert view["status"] == "abandoned"
        late = {viewer: Stream(app.test_client(), game_id, tokens.get(viewer), query="?after=-1") for viewer in viewers}
        for opened, expected_events in ((live, seen), (late, None)):
            for viewer, stream in opened.items():
                assert stream.ended.wait(10), "the stream of an abandoned match goes on"
                messages = []
                while not stream.messages.empty():
                    messages.append(stream.messages.get())
                history = api.whole_history(game_id, tokens.get(viewer))
                assert history["events"][-1]["type"] == "abandoned"
                streamed = [event for message in messages if message.kind == "history" for event in message.data["events"]]
                if expected_events is None:
                    assert streamed == history["events"], f"viewer {viewer}: the stream's events differ from the history's"
                else:
                    # a stream that woke late (one wake for the last versions) renders them after the
                    # end, when the history shows every event whole: those are as the history is now
                    sent, then, now = by_version(streamed), by_version(expected_events[viewer]), by_version(history["events"])
                    assert list(sent) == list(then), f"viewer {viewer}: the stream's versions differ from the history's"
                    over = rendered_over(messages)
                    for version, events in sent.items():
                        assert events == (now if over[version] else then)[version], f"viewer {viewer}: version {version} differs from the history's"
                views = [message for message in messages if message.kind == "view"]
                assert views[-1].data == api.view(game_id, tokens.get(viewer)).body
                reveals = [message.data for message in messages if message.kind == "reveal"]
                assert reveals == ([] if history["reveal"] is None else [{"version": view["version"], "reveal": history["reveal"]}])
                assert messages[-1].kind == ("view" if history["reveal"] is None else "reveal")
    finally:
        for stream in [*live.values(), *late.values()]:
            stream.close()


def test_the_long_polls_and_streams_woken_by_one_version_share_one_rendering_per_seat(app, api, monkeypatch):
    """A table's followers on one seat wake together: the seat's view is built once for all its
    long-polls and once for all its streams' messages; another seat, and a spectator, get their own."""
    game_id, tokens = two_humans(api)
    waiting_seat = 1 - api.view(game_id).body["to_act"][0]
    viewers = {"seat": tokens[waiting_seat], "other seat": tokens[1 - waiting_seat], "spectator": None}
    streams = {name: [Stream(app.test_client(), game_id, token) for _ in range(4)] for name, token in viewers.items()}
    answers: queue.Queue = queue.Queue()
    client = FlaskClient(app.test_client())
    for name, token in viewers.items():
        for _ in range(4):
            poll = lambda name=name, token=token: answers.put((name, client.request("GET", f"/v1/games/{game_id}?wait=300&after=0", token=token)))  # noqa: E731
            threading.Thread(target=poll, daemon=True).start()
    try:
        for stream in [stream for group in streams.values() for stream in group]:
            assert stream.next().kind == "view"
        koz = app.extensions["koz"]
        deadline = time.monotonic() + 60
        while koz.announcements.waiting_count < 24 and time.monotonic() < deadline:  # every long-poll and stream waits
            time.sleep(0.01)
        mover = 1 - waiting_seat
        action = api.view(game_id, tokens[mover]).body["legal_actions"][0]
        built: list[int | None] = []
        original = Game.view

        def counted(game, seat):
            built.append(seat)
            return original(game, seat)

        monkeypatch.setattr(Game, "view", counted)
        assert api.act(game_id, action, tokens[mover]).status == 200
        received = [answers.get(timeout=60) for _ in range(12)]
        shown = {name: [message.data for message in group[0].until_view(1) if message.kind == "view"][-1] for name, group in streams.items()}
        for name, group in streams.items():
            for stream in group[1:]:
                assert [message.data for message in stream.until_view(1) if message.kind == "view"][-1] == shown[name]
        monkeypatch.undo()
        for name, answer in received:
            assert (answer.status, answer.body) == (200, api.view(game_id, viewers[name]).body)
        for name, token in viewers.items():
            assert shown[name] == api.view(game_id, token).body
        # each viewer's view built twice (the long-polls' JSON, made by the move's request before it
        # woke them, and the streams' messages), never once per request; and the mover's answer
        assert sorted(built, key=str) == sorted([waiting_seat, waiting_seat, mover, mover, mover, None, None], key=str)
    finally:
        for stream in [stream for group in streams.values() for stream in group]:
            stream.close()


def test_a_wait_that_ends_with_nothing_announced_reads_nothing_unless_the_subscription_was_renewed(app, api, monkeypatch):
    """A thousand streams' heartbeats fall due together: the subscription, heard all along, says
    that nothing happened; only a renewed one (announcements possibly missed) sends them to the store."""
    game_id, _ = two_humans(api)
    koz = app.extensions["koz"]
    # the subscription is up and heard: a renewal still on its way would wake the wait below
    subscription_up(koz)
    reads: list[str] = []
    original = koz.store.version
    monkeypatch.setattr(koz.store, "version", lambda game: reads.append(game) or original(game))
    with koz.announcements.waiting(game_id, 0) as waiter:
        assert koz.waiting.wait_for_version(game_id, 0, 0.2, waiter) == 0
        assert reads == []
        waiter._wake(None)  # as when the subscription is renewed
        assert koz.waiting.wait_for_version(game_id, 0, 0.2, waiter) == 0
        assert reads == [game_id]
        assert koz.waiting.wait_for_version(game_id, 0, 0.2, waiter) == 0
        assert reads == [game_id]
