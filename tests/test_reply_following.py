"""An action's answer follows the computers' replies as they are announced (service.waiting's
``after_computers``), reading the game again only when announcements may have been missed.

The game and the repository here are stand-ins with only what the waiting reads: the timing of
announcements against the store is what is tested, and a real worker cannot be held between
its commit and its announcement."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from engine import action_log
from service.announcements import Waiter, parse_announcement
from service.waiting import after_computers


class TwoReplies:
    """A game at version 1 whose computers reply twice (versions 2 and 3)."""

    id = "g"
    has_human = True

    def __init__(self) -> None:
        self.version = 1

    def computer_to_act(self) -> int | None:
        return 1 if self.version < 3 else None

    def follow(self, version: int, entries: bytes) -> bool:
        self.version = version
        return True


def repository_with_store_at(version: int, reads: list[str]) -> SimpleNamespace:
    return SimpleNamespace(
        settings=SimpleNamespace(reply_wait_seconds=10.0),
        store=SimpleNamespace(version=lambda game_id: version),
        load=lambda game_id: reads.append(game_id) or SimpleNamespace(version=version, computer_to_act=lambda: None),
    )


def test_a_reply_whose_announcement_comes_after_the_store_has_it_is_followed_not_read():
    game, reads = TwoReplies(), []
    replies = Waiter(after=1)
    replies._wake(2, (1, b""))  # the first reply, heard before the answer looks (its wake-up stays set)
    # the store already holds the second reply; its announcement is still on its way
    late = threading.Timer(0.2, replies._wake, args=(3, (2, b"")))
    late.start()
    try:
        answered = after_computers(repository_with_store_at(3, reads), game, replies)
    finally:
        late.join()
    assert (answered.version, reads) == (3, [])


def test_a_renewed_subscription_sends_the_answer_to_the_store_for_what_it_may_have_missed():
    game, reads = TwoReplies(), []
    replies = Waiter(after=1)
    replies._wake(2, (1, b""))
    replies._wake(None)  # renewed: the second reply's announcement may be lost
    answered = after_computers(repository_with_store_at(3, reads), game, replies)
    assert (answered.version, reads) == (3, ["g"])


def test_an_announcement_keeps_its_log_entries_whole_whatever_bytes_they_hold():
    entries = action_log.encode(0, {"type": "play", "card": "TC"}) + action_log.encode(1, {"type": "play", "card": "2C"})
    assert b" " in entries  # seat 0's ten of clubs is one byte: a space
    assert parse_announcement(b"7 5 " + entries) == (7, (5, entries))
    assert parse_announcement(b"0 new ") == (0, None)  # a new game: nothing to follow
    assert parse_announcement(b"4") == (4, None)  # a game withdrawn
