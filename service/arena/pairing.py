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

import random
from dataclasses import dataclass, field
from typing import Mapping, Sequence, TypeVar

T = TypeVar("T")

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
    #: the account it seeks to sit beside (the other seat of its side); None: a partner drawn
    partner: str | None = None

    def waited(self, now: float) -> float:
        """How long it counts as having waited."""
        return now - self.seeked_at - (ABANDON_PENALTY_SECONDS if self.abandoned else 0.0)


@dataclass(frozen=True)
class Pairing:
    seeks: tuple[Seek, ...]
    #: the house levels that fill the other seats
    house: tuple[str, ...] = field(default_factory=tuple)
    #: the accounts of each side of partners among the seeks (two that named each other)
    partners: tuple[tuple[str, ...], ...] = field(default_factory=tuple)


def window(waited: float) -> float:
    return BASE_WINDOW + WIDEN_PER_SECOND * max(0.0, waited)


@dataclass(frozen=True)
class Unit:
    """The seeks that sit together: one alone, or two partners who each named the other."""

    seeks: tuple[Seek, ...]

    @property
    def group(self) -> str:
        return self.seeks[0].group

    @property
    def accounts(self) -> set[str]:
        return {seek.account for seek in self.seeks}

    @property
    def rating(self) -> float:
        return sum(seek.rating for seek in self.seeks) / len(self.seeks)

    @property
    def house_after(self) -> float | None:
        """The house only once both partners would meet it: the longer wait, or never if either would."""
        waits = [seek.house_after for seek in self.seeks]
        return None if None in waits else max(wait for wait in waits if wait is not None)

    def waited(self, now: float) -> float:
        return min(seek.waited(now) for seek in self.seeks)

    def house_at(self) -> float | None:
        """When it reaches its house_after (None: never)."""
        house_after = self.house_after
        if house_after is None:
            return None
        return max(seek.seeked_at + (ABANDON_PENALTY_SECONDS if seek.abandoned else 0.0) for seek in self.seeks) + house_after


def units(seeks: Sequence[Seek]) -> list[Unit]:
    """The seeks as they would sit: a seek with no partner alone, two that name each other (in one
    group) together; a seek whose partner is not seeking the same with it waits, in no unit."""
    by_pair = {(seek.account, seek.group, seek.partner): seek for seek in seeks}
    found: list[Unit] = []
    for seek in seeks:
        if seek.partner is None:
            found.append(Unit((seek,)))
        elif (mate := by_pair.get((seek.partner, seek.group, seek.account))) is not None and seek.id < mate.id:
            found.append(Unit((seek, mate)))
    return found


def pair(seeks: Sequence[Seek], seat_count: int, now: float, house_ratings: Mapping[str, float]) -> list[Pairing]:
    """The pairings to make now among ``seeks``: ``seat_count`` seats each, seeks first, then
    house levels (by ``house_ratings``: level -> rating) for a seek that waited past its
    ``house_after``. A seek is in one pairing at most, and an account once per pairing; partners
    are in the same pairing or none."""
    pairings: list[Pairing] = []
    paired: set[str] = set()
    order = sorted(units(seeks), key=lambda unit: (-unit.waited(now), unit.seeks[0].id))
    for unit in order:
        if unit.seeks[0].id in paired:
            continue
        reach = window(unit.waited(now))
        accounts = set(unit.accounts)
        chosen = [unit]
        seats = len(unit.seeks)
        for other in sorted(order, key=lambda other: (abs(other.rating - unit.rating), -other.waited(now), other.seeks[0].id)):
            if seats == seat_count:
                break
            if other.seeks[0].id in paired or other.group != unit.group or accounts & other.accounts:
                continue
            if abs(other.rating - unit.rating) > reach:
                break
            if seats + len(other.seeks) <= seat_count:
                chosen.append(other)
                accounts |= other.accounts
                seats += len(other.seeks)
        house: tuple[str, ...] = ()
        if seats < seat_count:
            if unit.house_after is None or unit.waited(now) < unit.house_after or not house_ratings:
                continue
            house = nearest_house(unit.rating, house_ratings, seat_count - seats)
        members = tuple(seek for member in chosen for seek in member.seeks)
        partners = tuple(tuple(seek.account for seek in member.seeks) for member in chosen if len(member.seeks) > 1)
        pairings.append(Pairing(members, house, partners))
        paired.update(seek.id for seek in members)
    return pairings


def house_due(seeks: Sequence[Seek], pairings: Sequence[Pairing], now: float) -> float | None:
    """When the first of ``seeks`` left out of ``pairings`` reaches its ``house_after`` (after
    ``now``; None: none will): the pass to pair it with the house is due then, not a period later."""
    paired = {member.id for pairing in pairings for member in pairing.seeks}
    due = [unit.house_at() for unit in units(seeks) if unit.seeks[0].id not in paired]
    return min((moment for moment in due if moment is not None and moment > now), default=None)


def seat(players: list[list[T]], sides: list[list[int]], shuffle: random.Random) -> list[T]:
    """The players in seat order, drawn at random, where ``players`` are the pairing's units (a
    side of partners as one list): each such side on a side of the table, the others anywhere left."""
    others = [unit[0] for unit in players if len(unit) == 1]
    shuffle.shuffle(others)  # first: without partners, this is the one draw of every seat
    free_sides = [list(side) for side in sides]
    seated: dict[int, T] = {}
    for team in (list(unit) for unit in players if len(unit) > 1):
        side = shuffle.choice([side for side in free_sides if len(side) == len(team)])
        free_sides.remove(side)
        shuffle.shuffle(team)
        seated.update(zip(side, team))
    seated.update(zip(sorted(seat for side in free_sides for seat in side), others))
    return [seated[index] for index in range(len(seated))]


def nearest_house(rating: float, house_ratings: Mapping[str, float], count: int) -> tuple[str, ...]:
    """``count`` house levels for a seek of ``rating``: the nearest level's, repeated (one
    account may fill several seats: it is the computer)."""
    level = min(house_ratings, key=lambda level: (abs(house_ratings[level] - rating), level))
    return tuple(level for _ in range(count))
