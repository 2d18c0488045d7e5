"""Who plays whom: seeks of one ruleset, options and rated-ness paired by rating closeness.

Pure: the matchmaker (:mod:`.matchmaker`) reads the queue and the ratings, asks :func:`pair`,
and takes the pairings it answers out of the queue in one script each.

The longest waiting seek chooses first. It accepts others whose rating is within its window,
which widens with the time it has waited (:func:`window`); of those it takes the nearest. A seek
that waited past its own ``house_after`` seconds fills the seats it still lacks with Koz's house
players of the nearest rating. An account that abandoned its last arena game waits as if it had
come :data:`ABANDON_PENALTY_SECONDS` later: it is matched less until it plays a game out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

#: the rating distance a seek accepts at once, and how much wider it gets per second waited
BASE_WINDOW = 3.0
WIDEN_PER_SECOND = 0.5
#: how much later an account that abandoned its last game counts as having come
ABANDON_PENALTY_SECONDS = 30.0


@dataclass(frozen=True)
class Seek:
    id: str
    account: str
    #: the queue it is in: seeks pair only within one (ruleset, options, rated)
    group: str
    rating: float
    seeked_at: float
    house_after: float | None = None
    abandoned: bool = False

    def waited(self, now: float) -> float:
        """How long it counts as having waited."""
        return now - self.seeked_at - (ABANDON_PENALTY_SECONDS if self.abandoned else 0.0)


@dataclass(frozen=True)
class Pairing:
    seeks: tuple[Seek, ...]
    #: the house levels that fill the other seats
    house: tuple[str, ...] = field(default_factory=tuple)


def window(waited: float) -> float:
    return BASE_WINDOW + WIDEN_PER_SECOND * max(0.0, waited)


def pair(seeks: Sequence[Seek], seat_count: int, now: float, house_ratings: Mapping[str, float]) -> list[Pairing]:
    """The pairings to make now among ``seeks``: ``seat_count`` seats each, seeks first, then
    house levels (by ``house_ratings``: level -> rating) for a seek that waited past its
    ``house_after``. A seek is in one pairing at most, and an account once per pairing."""
    pairings: list[Pairing] = []
    paired: set[str] = set()
    order = sorted(seeks, key=lambda seek: (-seek.waited(now), seek.id))
    for seek in order:
        if seek.id in paired:
            continue
        reach = window(seek.waited(now))
        accounts = {seek.account}
        candidates = []
        for other in sorted(order, key=lambda other: (abs(other.rating - seek.rating), -other.waited(now), other.id)):
            if other.id in paired or other.group != seek.group or other.account in accounts:
                continue
            if abs(other.rating - seek.rating) > reach:
                break
            candidates.append(other)
            accounts.add(other.account)
            if len(candidates) == seat_count - 1:
                break
        chosen = (seek, *candidates)
        house: tuple[str, ...] = ()
        if len(chosen) < seat_count:
            if seek.house_after is None or seek.waited(now) < seek.house_after or not house_ratings:
                continue
            house = nearest_house(seek.rating, house_ratings, seat_count - len(chosen))
        pairings.append(Pairing(chosen, house))
        paired.update(member.id for member in chosen)
    return pairings


def house_due(seeks: Sequence[Seek], pairings: Sequence[Pairing], now: float) -> float | None:
    """When the first of ``seeks`` left out of ``pairings`` reaches its ``house_after`` (after
    ``now``; None: none will): the pass to pair it with the house is due then, not a period later."""
    paired = {member.id for pairing in pairings for member in pairing.seeks}
    due = [
        seek.seeked_at + (ABANDON_PENALTY_SECONDS if seek.abandoned else 0.0) + seek.house_after
        for seek in seeks
        if seek.id not in paired and seek.house_after is not None
    ]
    return min((moment for moment in due if moment > now), default=None)


def nearest_house(rating: float, house_ratings: Mapping[str, float], count: int) -> tuple[str, ...]:
    """``count`` house levels for a seek of ``rating``: the nearest level's, repeated (one
    account may fill several seats: it is the computer)."""
    level = min(house_ratings, key=lambda level: (abs(house_ratings[level] - rating), level))
    return tuple(level for _ in range(count))
