"""History derived from the action log: a game replayed through the engine.

The store keeps a game's setup and its actions, not its events: replaying the actions from the
seed gives every event again, exactly as it happened, with the version each one produced. A
:class:`ReplayCache` keeps recent replays in the process, so paging through a history or
polling it replays only the actions that came since.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from typing import Any, Iterable, Mapping

from engine import Action, Event, Ruleset, action_log


def action_event(seat: int, action: Action) -> Event:
    """The history event of an applied action: public, the action object as posted."""
    return Event({"type": "action", "seat": seat, "action": action.to_json()})


def apply_logged(ruleset: Ruleset[Any], state: Any, log: bytes) -> Iterable[tuple[Any, tuple[Event, ...]]]:
    """Apply each action of ``log`` in turn: the state after each, and the events it caused
    (its action event first)."""
    for seat, action_json in action_log.decode(log):
        action = Action.from_json(action_json)
        state, events = ruleset.apply(state, seat, action)
        yield state, (action_event(seat, action),) + events


class Replay:
    """A game replayed from its seed: every event with its version, and the state reached."""

    def __init__(self, ruleset: Ruleset[Any], options: Mapping[str, Any], seed: str) -> None:
        self.ruleset = ruleset
        self.state, events = ruleset.new_game(options, seed)
        self.version = 0
        self.events: list[Event] = list(events)
        self.versions: list[int] = [0] * len(events)
        #: how many bytes of the log are replayed
        self.replayed = 0

    def extend(self, log: bytes) -> None:
        """Replay the part of ``log`` (the whole log, as stored) not yet replayed."""
        for self.state, events in apply_logged(self.ruleset, self.state, log[self.replayed :]):
            self.version += 1
            self.events += events
            self.versions += [self.version] * len(events)
        self.replayed = max(self.replayed, len(log))

    def between(self, after: int, up_to: int) -> list[tuple[int, Event]]:
        """The events of versions ``after < version <= up_to``, in order."""
        start = bisect.bisect_right(self.versions, after)
        end = bisect.bisect_right(self.versions, up_to)
        return list(zip(self.versions[start:end], self.events[start:end]))


class ReplayCache:
    """The last few games replayed in this process, by game and setup (a game id that comes back
    after expiry is another game)."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._replays: OrderedDict[tuple[str, str], Replay] = OrderedDict()
        self._lock = threading.Lock()

    def events(
        self, key: tuple[str, str], ruleset: Ruleset[Any], options: Mapping[str, Any], seed: str, log: bytes, after: int, up_to: int
    ) -> list[tuple[int, Event]]:
        """The events of versions ``after < version <= up_to`` of the game whose log is ``log``."""
        with self._lock:  # one replay at a time: they are CPU-bound, and a Replay is not thread-safe
            replay = self._replays.pop(key, None) or Replay(ruleset, options, seed)
            replay.extend(log)
            self._replays[key] = replay
            while len(self._replays) > self.size:
                self._replays.popitem(last=False)
            return replay.between(after, up_to)
