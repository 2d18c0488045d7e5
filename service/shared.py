"""What the requests woken by one announcement show alike, rendered once per process and shared.

When a game moves on, every long-poll and event stream waiting on it wakes at once: a hundred
people following one seat's table would each read the game, build the seat's view and encode
it. :class:`SharedRenders` lets the first of them do it, under a key naming what the rendering
depends on (the game and the viewer, and for a stream the version it resumes after), and hands
the others the same result: they wait for it rather than make it again. A rendering is a pure
function of the stored version it shows, so a shared one is what each would have built.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Generic, Hashable, TypeVar

T = TypeVar("T")

#: renderings a process keeps (the latest one of each key)
RENDERS_KEPT = 4096
#: seconds a request waits for another's rendering before it makes its own
RENDER_WAIT_SECONDS = 5.0


@dataclass(frozen=True)
class Rendered(Generic[T]):
    """A rendering of a game at ``version``."""

    version: int
    value: T


class SharedRenders(Generic[T]):
    """The latest rendering of each key, made by one request and shared by the others."""

    def __init__(self, kept: int = RENDERS_KEPT) -> None:
        self.kept = kept
        self._renders: OrderedDict[Hashable, Rendered[T]] = OrderedDict()
        #: the renderings under way, per key: the requests that want one wait for it
        self._pending: dict[Hashable, threading.Event] = {}
        # held only for dictionary updates, never while rendering: safe between greenlets too
        self._lock = threading.Lock()

    def get(self, key: Hashable, version: int, render: Callable[[], Rendered[T] | None]) -> Rendered[T] | None:
        """The rendering of ``key`` at ``version`` or later: one made already, one another request
        is making (waited for), or else ``render()``'s, kept for the next requests (None: nothing
        to show, such as a game gone; not kept)."""
        for _ in range(3):
            with self._lock:
                found = self._renders.get(key)
                if found is not None and found.version >= version:
                    self._renders.move_to_end(key)
                    return found
                pending = self._pending.get(key)
                if pending is None:
                    pending = self._pending[key] = threading.Event()
                    break
            pending.wait(RENDER_WAIT_SECONDS)  # another request renders it
        else:
            return render()  # the others' renderings keep failing or coming out older: make one's own
        try:
            made = render()
            if made is not None:
                self.offer(key, made)
            return made
        finally:
            with self._lock:
                if self._pending.get(key) is pending:
                    del self._pending[key]
            pending.set()

    def offer(self, key: Hashable, rendered: Rendered[T]) -> None:
        """Keep ``rendered`` (a :meth:`get`'s, or one made by other means), unless a newer one is kept."""
        with self._lock:
            found = self._renders.get(key)
            if found is None or found.version <= rendered.version:
                self._renders[key] = rendered
                self._renders.move_to_end(key)
            while len(self._renders) > self.kept:
                self._renders.popitem(last=False)  # the least recently used first

    def latest(self, key: Hashable) -> Rendered[T] | None:
        """The rendering of ``key`` kept, whatever its version (None: none)."""
        with self._lock:
            return self._renders.get(key)

    def __len__(self) -> int:
        return len(self._renders)
