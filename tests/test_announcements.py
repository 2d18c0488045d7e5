"""What a process's subscription heard, and the games it committed last, as
:class:`service.announcements.Announcements` keeps them: bounded, the process's own (never a
forked child's), and waking only the requests an announcement concerns.

The subscription here is a stand-in: the announcements are handed over as its messages would be
(a real subscription is in ``test_api_events.py`` and ``test_api_process_copy.py``)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from service import announcements as announcements_module
from service.announcements import Announcements, Committed, Waiter

CHANNEL_PREFIX = "game:"


@pytest.fixture
def announcements() -> Announcements:
    store = SimpleNamespace(game_of_channel=lambda channel: channel.removeprefix(CHANNEL_PREFIX) if channel.startswith(CHANNEL_PREFIX) else None)
    subscribed = Announcements(store)
    subscribed._listening_in = os.getpid()  # a listener runs: waiting starts none
    subscribed._hearing(SimpleNamespace())  # its subscription is up
    return subscribed


def announce(announcements: Announcements, game_id: str, version: int, over: int | None, entries: bytes = b"") -> None:
    """The subscription hears a commit of ``game_id`` from ``over`` to ``version`` (None: a new game)."""
    data = b"%d %s %s" % (version, b"new" if over is None else b"%d" % over, entries)
    announcements._announce({"channel": (CHANNEL_PREFIX + game_id).encode(), "data": data})


def committed_here(announcements: Announcements, game_id: str, over: int, entries: bytes = b"e") -> Committed:
    """This process commits ``game_id`` from ``over`` to the next version, written, then hears it."""
    committed = Committed(over, over + 1, b"{}", b"snapshot")
    announcements.expect_commit(game_id, committed)
    announcements.settled(game_id, committed, True)
    announce(announcements, game_id, over + 1, over, entries)
    return committed


def test_a_commit_made_here_is_trusted_once_written_and_heard(announcements):
    committed = committed_here(announcements, "g", 4)
    assert announcements.last_committed("g") is committed
    assert announcements.heard("g")[0] == 5


def test_a_process_forked_from_one_that_heard_a_game_takes_nothing_of_it_as_heard_or_committed(announcements, monkeypatch):
    committed_here(announcements, "g", 4)
    parent = os.getpid()
    monkeypatch.setattr(announcements_module.os, "getpid", lambda: parent + 1)  # the child: no subscription of its own yet
    assert announcements.heard("g") is None
    assert announcements.last_committed("g") is None


def test_the_games_committed_here_are_kept_up_to_the_bound_the_least_recently_committed_forgotten_first(announcements, monkeypatch):
    monkeypatch.setattr(announcements_module, "COMMITTED_KEPT", 2)
    for game_id in ("a", "b", "c"):
        committed_here(announcements, game_id, 0)
    assert announcements.last_committed("a") is None
    assert announcements.last_committed("b") is not None and announcements.last_committed("c") is not None


def test_the_games_heard_are_kept_up_to_the_bound_the_least_recently_heard_forgotten_first(announcements, monkeypatch):
    monkeypatch.setattr(announcements_module, "HEARD_KEPT", 2)
    for game_id in ("a", "b", "c"):
        announce(announcements, game_id, 1, 0)
    announce(announcements, "b", 2, 1)  # heard again: the most recent now
    announce(announcements, "d", 1, 0)
    assert [announcements.heard(game_id) is not None for game_id in "abcd"] == [False, True, False, True]


def test_an_announcement_held_for_a_commit_made_here_wakes_only_the_waiters_behind_its_version(announcements):
    committed = Committed(1, 2, b"{}", b"snapshot")
    announcements.expect_commit("g", committed)
    with announcements.waiting("g", 1) as behind, announcements.waiting("g", 2) as level:
        announce(announcements, "g", 2, 1, b"entries")  # heard before the commit's answer: held
        assert not behind._event.is_set() and committed.held is not None
        announcements.settled("g", committed, True)
        assert (behind._event.is_set(), behind.announced, behind.changes) == (True, 2, {1: (2, b"entries")})
        assert (level._event.is_set(), level.announced) == (False, None)


def test_an_announcement_wakes_only_the_waiters_of_its_game_behind_its_version(announcements):
    with announcements.waiting("g", 1) as behind, announcements.waiting("g", 2) as level, announcements.waiting("h", 1) as other:
        announce(announcements, "g", 2, 1, b"entries")
        assert (behind._event.is_set(), level._event.is_set(), other._event.is_set()) == (True, False, False)
        assert (behind.announced, behind.changes) == (2, {1: (2, b"entries")})


def test_an_announcement_on_a_channel_named_in_text_is_heard_as_one_named_in_bytes(announcements):
    """(A client that decodes responses hands the channel over as text.)"""
    announcements._announce({"channel": CHANNEL_PREFIX + "g", "data": b"3 2 "})
    assert announcements.heard("g")[0] == 3


def test_a_commit_here_whose_game_was_heard_moving_otherwise_before_its_answer_is_never_trusted(announcements):
    committed = Committed(2, 3, b"{}", b"snapshot")
    announcements.expect_commit("g", committed)
    announce(announcements, "g", 2, 1)  # not this commit's announcement: another commit's of the game
    announcements.settled("g", committed, True)
    announce(announcements, "g", 3, 2)
    assert announcements.last_committed("g") is None


def test_a_waiter_keeps_the_changes_announced_from_its_own_version_on_and_forgets_the_older():
    """(An event stream waits on one game for a whole match: it follows the changes in order.)"""
    waiter = Waiter(after=1)
    waiter._wake(2, (1, b"a"))
    waiter._wake(3, (2, b"b"))
    assert (waiter.announced, waiter.changes) == (3, {1: (2, b"a"), 2: (3, b"b")})
    waiter.after = 2  # it followed the first
    waiter._wake(4, (3, b"c"))
    assert (waiter.announced, waiter.changes) == (4, {2: (3, b"b"), 3: (4, b"c")})
