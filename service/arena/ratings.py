"""Ratings: OpenSkill (Plackett-Luce), one per account and ruleset, with its uncertainty.

OpenSkill rates teams, so partnerships are rated as the sides they are (a side's
seats share its result). A rating is shown as ``rating`` (mu) and ``uncertainty`` (sigma); the
leaderboard orders by the conservative ``mu - 3 sigma``. An account with fewer than
:data:`ESTABLISHED_GAMES` rated games is provisional, listed apart.

A match's result is recorded once: :meth:`Ratings.record` reads the players' ratings, rates,
and writes every new rating, the boards and the result in one compare-and-set of the ruleset's
slot, which refuses a game recorded before (two workers, a retry, a worker that died after the
write) and a rating that changed since it was read (then it reads and rates again).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from openskill.models import PlackettLuce

from .store import ArenaStore

#: rated games before an account leaves the provisional list
ESTABLISHED_GAMES = 10
#: results kept per account for its page
RECENT_RESULTS = 20
#: how many times a result is rated again when another result changed a rating meanwhile
ATTEMPTS = 20

MODEL = PlackettLuce()


@dataclass
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @classmethod
    def from_text(cls, text: str | None) -> "Rating":
        if text is None:
            return cls()
        stored = json.loads(text)
        return cls(stored["mu"], stored["sigma"], stored["games"], stored["wins"], stored["losses"], stored["draws"])


@dataclass(frozen=True)
class Seat:
    """A seat of a finished match: its account and what the match was for it."""

    account: str
    name: str
    kind: str
    outcome: str  # "win", "loss" or "draw"


def rate(ratings: Sequence[Rating], sides: Sequence[Sequence[int]], outcomes: Sequence[str]) -> list[Rating]:
    """The seats' new ratings after a match: ``sides`` groups seats into teams (a seat alone in a
    game without partners), ``outcomes`` says each seat's result (a side's seats share it)."""
    teams = [[MODEL.rating(mu=ratings[seat].mu, sigma=ratings[seat].sigma) for seat in side] for side in sides]
    # a loss ranks below a win; a draw is every side's, so all rank alike
    ranks = [1.0 if outcomes[side[0]] == "loss" else 0.0 for side in sides]
    rated = MODEL.rate(teams, ranks=ranks)
    new = list(ratings)
    for side, team in zip(sides, rated):
        for seat, player in zip(side, team):
            old = ratings[seat]
            outcome = outcomes[seat]
            new[seat] = Rating(
                player.mu,
                player.sigma,
                old.games + 1,
                old.wins + (outcome == "win"),
                old.losses + (outcome == "loss"),
                old.draws + (outcome == "draw"),
            )
    return new


def one_sided(accounts: Sequence[str], sides: Sequence[Sequence[int]]) -> set[str]:
    """The accounts (by seat) that sit on one side only: a match rates those. A house account
    that fills seats of both sides (the computer against itself) is not rated by it."""
    sides_of: dict[str, set[int]] = {}
    for index, side in enumerate(sides):
        for seat in side:
            sides_of.setdefault(accounts[seat], set()).add(index)
    return {account for account, found in sides_of.items() if len(found) == 1}


def rating_json(rating: Rating, seat: Seat) -> dict[str, Any]:
    return {
        "name": seat.name,
        "kind": seat.kind,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "games": rating.games,
        "wins": rating.wins,
        "losses": rating.losses,
        "draws": rating.draws,
    }


class Ratings:
    def __init__(self, store: ArenaStore) -> None:
        self.store = store

    def record(
        self, ruleset: str, game_id: str, seats: Sequence[Seat], sides: Sequence[Sequence[int]], rated: bool, extra: dict[str, Any]
    ) -> dict[str, Any]:
        """Record a finished match once (rating it when ``rated``); the result as recorded, by
        this call or an earlier one: ``seats`` with each one's rating before and after."""
        accounts = [seat.account for seat in seats]
        rated_here = one_sided(accounts, sides) if rated else set()
        for _ in range(ATTEMPTS):
            stored = self.store.ratings(ruleset, accounts)
            before = [Rating.from_text(text) for text in stored]
            after = rate(before, sides, [seat.outcome for seat in seats]) if rated else before
            result = {
                "game": game_id,
                "ruleset": ruleset,
                "rated": rated,
                **extra,
                "seats": [
                    {
                        "seat": index,
                        "account": seat.account,
                        "name": seat.name,
                        "kind": seat.kind,
                        "outcome": seat.outcome,
                        "before": {"rating": old.mu, "uncertainty": old.sigma},
                        "after": {"rating": new.mu, "uncertainty": new.sigma},
                    }
                    for index, (seat, old, new) in enumerate(zip(seats, before, after))
                ],
            }
            # one entry an account (a house account may fill several seats): its first seat's
            firsts = {seat.account: (seat, text, new) for seat, text, new in reversed(list(zip(seats, stored, after)))}
            entries = [
                (seat.account, text or "", json.dumps(rating_json(new, seat)) if seat.account in rated_here else "", new.conservative, new.games)
                for seat, text, new in firsts.values()
            ]
            outcome, text = self.store.record(ruleset, game_id, json.dumps(result, ensure_ascii=False), ESTABLISHED_GAMES, RECENT_RESULTS, entries)
            if outcome in (0, 1):
                recorded: dict[str, Any] = json.loads(text)
                return recorded
        raise RuntimeError(f"the ratings of {game_id}'s players kept changing")

    def of(self, ruleset: str, account: str) -> Rating | None:
        (text,) = self.store.ratings(ruleset, [account])
        return Rating.from_text(text) if text is not None else None


def replay(results: Sequence[dict[str, Any]], sides_of: dict[str, list[list[int]]]) -> dict[tuple[str, str], Rating]:
    """The ratings that the rated ``results`` give when rated again in order, from scratch, by
    (ruleset, account): what the store must hold (``sides_of``: each ruleset's sides)."""
    ratings: dict[tuple[str, str], Rating] = {}
    for result in results:
        if not result["rated"]:
            continue
        ruleset = result["ruleset"]
        seats = result["seats"]
        accounts = [seat["account"] for seat in seats]
        before = [ratings.get((ruleset, account), Rating()) for account in accounts]
        after = rate(before, sides_of[ruleset], [seat["outcome"] for seat in seats])
        rated_here = one_sided(accounts, sides_of[ruleset])
        for account, rating in zip(accounts, after):
            if account in rated_here:
                ratings[(ruleset, account)] = rating
    return ratings
