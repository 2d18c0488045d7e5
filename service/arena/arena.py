"""What a request can do in the arena: seek a match, stop seeking, read an account's page, the
leaderboard and its events. Pairing and settling happen on the workers (:mod:`.matchmaker`)."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Callable, Mapping

from engine import registry

from ..games import Games
from ..refusals import Refused
from ..tokens import derived_token
from .accounts import Account, Accounts, is_house_name
from .ratings import ESTABLISHED_GAMES, Ratings
from .store import ArenaStore
from .texts import DETAILS

#: events kept per account (a client that was away longer reads the rest from the account's page)
EVENTS_KEPT = 1000
#: events read at once for a stream
EVENTS_PAGE = 100
#: how long an account's events are kept after the last one
EVENTS_TTL_SECONDS = 7 * 24 * 3600
#: results shown on an account's page, per ruleset
PAGE_RESULTS = 10


def seek_id(ruleset: str, account: str, options: Mapping[str, Any], rated: bool, partner: str | None = None) -> str:
    """One seek per account, ruleset, options, rated-ness and partner: seeking twice is the same seek."""
    group = hashlib.sha256(json.dumps([options, rated], sort_keys=True).encode()).hexdigest()[:16]
    return f"{ruleset}:{account}:{group}" + (f":{partner}" if partner is not None else "")


def seek_ruleset(entry: str, account: str) -> str | None:
    """The ruleset of ``entry`` (among what counts as the account's games) if it is a seek of the
    account's (see :func:`seek_id`), else None."""
    ruleset, _, rest = entry.partition(":")
    return ruleset if rest.startswith(f"{account}:") and ruleset in {known.id for known in registry.all_rulesets()} else None


def public_seek(seek: Mapping[str, Any]) -> dict[str, Any]:
    """A seek as its account is shown it."""
    shown = {key: seek[key] for key in ("id", "ruleset", "options", "rated", "house_after_seconds", "seeked_at", "expires_at")}
    return {**shown, "partner": seek.get("partner_name")}


def group_of(seek: Mapping[str, Any]) -> str:
    return json.dumps([seek["options"], seek["rated"]], sort_keys=True)


class Arena:
    """The arena of one game store: its accounts, queues, ratings and events."""

    def __init__(self, games: Games, timer: Callable[[], float] = time.time) -> None:
        self.games = games
        self.settings = games.settings
        self.store = ArenaStore(games.store.redis, games.settings.key_prefix)
        self.accounts = Accounts(self.store)
        self.ratings = Ratings(self.store)
        self.timer = timer
        self._secret = games.settings.arena_secret

    def seat_token(self, game_id: str, seat: int) -> str:
        """The seat token of an arena match's seat: derived from the fleet's secret, so that it is
        never stored (the game keeps its hash) and is given again whenever the stream is read."""
        if not self._secret:
            self._secret = self.store.secret()
        return derived_token(self._secret, "arena", game_id, str(seat))

    def events_after(self, account: str, after: int, count: int = EVENTS_PAGE) -> list[tuple[int, dict[str, Any]]]:
        """The account's events numbered after ``after``, in order (at most ``count``): a
        ``match_started`` is kept without its seat's token, which is added here."""
        return [
            (number, {**event, "token": self.seat_token(event["game"], event["seat"])} if event["type"] == "match_started" else event)
            for number, event in self.store.events_after(account, after, count)
        ]

    def emit(self, account: str, event: dict[str, Any]) -> int:
        return self.store.add_event(account, event, EVENTS_KEPT, EVENTS_TTL_SECONDS)

    def emit_all(self, events: list[tuple[str, dict[str, Any]]], once: list[str] | None = None) -> None:
        """Each ``(account, event)`` on its account's stream, in one round trip (with ``once``, a
        key per event: not again an event its account was told by that key)."""
        self.store.add_events(events, EVENTS_KEPT, EVENTS_TTL_SECONDS, once)

    # --- seeks ----------------------------------------------------------------------------------

    def seek(
        self,
        account: Account,
        ruleset_id: str,
        options: Mapping[str, Any] | None,
        rated: bool,
        house_after: float | None,
        partner_name: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Put the account in the queue of that ruleset, options and rated-ness, beside the
        account named ``partner_name`` if given (paired once that one seeks the same beside it);
        (the seek, new)."""
        ruleset = registry.get(ruleset_id)
        parsed = ruleset.parse_options(options)
        partner = self.partner(account, ruleset_id, partner_name) if partner_name is not None else None
        now = self.timer()
        identifier = seek_id(ruleset.id, account.id, parsed, rated, partner.id if partner else None)
        expires = now + self.settings.arena_seek_seconds
        cap = self.settings.arena_games_at_once
        if not self.store.engage(account.id, identifier, expires, now, cap):
            raise Refused("too_many_arena_games", DETAILS["too_many_arena_games"], params={"cap": cap})
        seek = {
            "id": identifier,
            "account": account.id,
            "ruleset": ruleset.id,
            "options": parsed,
            "rated": rated,
            "house_after_seconds": house_after,
            "partner": partner.id if partner else None,
            "partner_name": partner.name if partner else None,
            "seeked_at": now,
            "expires_at": expires,
        }
        try:
            new = self.store.add_seek(ruleset.id, seek)
        except BaseException:  # (a Redis out of memory refuses the seek, not the deletion)
            self.store.disengage(account.id, identifier)
            raise
        if not new:  # (queued, or being paired: the same seek)
            seek = self.store.sought(ruleset.id, identifier) or seek
        return seek, new

    def partner(self, account: Account, ruleset_id: str, name: str) -> Account:
        """The account a seek names as its partner: another person's or bot's, in a ruleset of partnerships."""
        if all(len(side) == 1 for side in registry.get(ruleset_id).sides()):
            raise Refused("no_partnerships", DETAILS["no_partnerships"], params={"ruleset": ruleset_id})
        if is_house_name(name):
            raise Refused("house_account", DETAILS["house_account"], params={"name": name})
        partner = self.accounts.find(name)
        if partner.id == account.id:
            raise Refused("partner_self", DETAILS["partner_self"])
        return partner

    def own_seeks(self, account: Account) -> list[dict[str, Any]]:
        return [seek for ruleset in registry.all_rulesets() for seek in self.store.seeks(ruleset.id) if seek["account"] == account.id]

    def unseek(self, account: Account, identifier: str | None = None) -> None:
        """Take the account's seek ``identifier`` (None: all of them) out of the queue, if it is
        still there (a DELETE answers alike when it was paired or gone already). One that a pass
        took out to pair, its game not made yet, is withdrawn too: should the game not be made,
        the pass does not put it back."""
        taken = set()
        for seek in self.own_seeks(account):
            if identifier in (None, seek["id"]) and self.store.take_seeks(seek["ruleset"], [seek["id"]]):
                self.store.disengage(account.id, seek["id"])
                taken.add(seek["id"])
        now = self.timer()
        for entry in self.store.engagements(account.id, now):
            ruleset_id = seek_ruleset(entry, account.id)
            if ruleset_id is not None and entry not in taken and identifier in (None, entry):
                if self.store.withdraw_taken(ruleset_id, entry, now):  # put back in the meantime
                    self.store.disengage(account.id, entry)

    # --- reading --------------------------------------------------------------------------------

    def page(self, name: str) -> dict[str, Any]:
        """An account's public page: kind, created, rating per ruleset, games, the last results."""
        account = self.accounts.find(name)
        ratings = []
        recent = []
        for ruleset in registry.all_rulesets():
            rating = self.ratings.of(ruleset.id, account.id)
            if rating is not None:
                ratings.append(
                    {
                        "ruleset": ruleset.id,
                        "rating": rating.mu,
                        "uncertainty": rating.sigma,
                        "games": rating.games,
                        "wins": rating.wins,
                        "losses": rating.losses,
                        "draws": rating.draws,
                        "provisional": rating.games < ESTABLISHED_GAMES,
                    }
                )
            for result in self.store.recent(ruleset.id, account.id, PAGE_RESULTS):
                recent.append(own_result(result, account.id))
        recent.sort(key=lambda entry: entry["finished_at"], reverse=True)
        played = sum(self.store.played(ruleset.id, account.id) for ruleset in registry.all_rulesets())
        return {**account.to_json(), "ratings": ratings, "games_played": played, "recent_games": recent[:PAGE_RESULTS]}

    def leaderboard(self, ruleset_id: str, provisional: bool, offset: int, limit: int) -> dict[str, Any]:
        ruleset = registry.get(ruleset_id)
        entries, total = self.store.board(ruleset.id, provisional, offset, limit)
        return {
            "ruleset": ruleset.id,
            "provisional": provisional,
            "total": total,
            "entries": [
                {
                    "rank": offset + index + 1,
                    "name": entry["name"],
                    "kind": entry["kind"],
                    "rating": entry["mu"],
                    "uncertainty": entry["sigma"],
                    "games": entry["games"],
                }
                for index, entry in enumerate(entries)
            ],
            "next_offset": offset + limit if offset + limit < total else None,
        }


def own_result(result: Mapping[str, Any], account: str) -> dict[str, Any]:
    """A recorded result as one of its accounts sees it."""
    mine = next(seat for seat in result["seats"] if seat["account"] == account)
    return {
        "game": result["game"],
        "ruleset": result["ruleset"],
        "rated": result["rated"],
        "finished_at": result["finished_at"],
        "status": result["status"],
        "seat": mine["seat"],
        "outcome": mine["outcome"],
        "rating_change": mine["after"]["rating"] - mine["before"]["rating"],  # 0 unrated: the rating after is the one before
        "opponents": [seat["name"] for seat in result["seats"] if seat["account"] != account],
        "history": f"/v1/games/{result['game']}/history",
    }
