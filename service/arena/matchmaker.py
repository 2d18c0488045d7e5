"""The worker's part of the arena: pairing seeks into games, and settling the games that ended.

One worker of the fleet at a time makes a pass (a ``SET NX`` turn with an expiry, as the due
sweep takes its turn), every :data:`PASS_SECONDS`, and sooner when a seek it left unpaired
reaches its ``house_after`` (:attr:`Matchmaker.house_due`: the turn is shortened to that
moment, so the seek meets the house then rather than up to a period later). It opens again the
accepted challenges whose games a process that died never made, and ends the challenges past their
time (:mod:`.challenges`), then for each ruleset it:

1. drops the seeks that expired (``seek_expired`` on the account's stream);
2. pairs the others (:func:`.pairing.pair`), takes each pairing's seeks out of the queue in one
   script (a seek is paired once) that notes the pairing, creates the game through
   :meth:`Games.create_arena_games` (as ``POST /v1/games`` makes one: human seats for the
   accounts, computer seats for Koz's house accounts, a turn clock that forfeits), lists it with
   what is to be told in one script, and hands each account its seat and seat token on its stream
   (``match_started``, told once however often it is told), then settles the pairing. A store
   nearly full takes no game: the seeks wait in the queue (they are not taken out, since a full
   Redis would not take them back); a game that fails to be written puts its seeks back as they
   were, but those their accounts withdrew meanwhile. A worker that dies in between leaves the
   pairing noted: the pass after :data:`PAIRING_SECONDS` puts its seeks back, or tells its match
   if it was listed (:meth:`Matchmaker.recover`);
3. settles the arena games that ended: the commit that ends an arena game records so in the
   game's own slot (as a due computer move is, :mod:`service.due`), and the pass reads only
   those games; the result and the ratings are recorded once
   (:meth:`.ratings.Ratings.record`), then each account hears ``match_finished``, its game no
   longer counts among its games at once, and an account whose clock ran out is marked as
   having abandoned (matched less until it finishes a game). A worker that dies between these
   steps leaves the match listed: the next pass does them again, and the record stands as made.
   A match whose game expired unfinished is dropped unrated.
"""

from __future__ import annotations

import logging
import random
import secrets
from typing import Any, Callable, Mapping, Sequence

from engine import registry
from engine.players import level_names
from engine.ruleset import Ruleset

from ..refusals import Refused
from ..store import Stored
from .accounts import Account
from .arena import Arena, group_of, public_seek
from .challenges import Challenges
from .pairing import Pairing, Seek, house_due, pair, seat
from .ratings import Rating, Seat

log = logging.getLogger(__name__)

#: how often the fleet makes a pass
PASS_SECONDS = 0.5
#: the ended matches settled at most per slot and pass
SETTLE_BATCH = 100
#: how long a pairing may take from its seeks taken out to its match told before the next pass
#: settles it (its worker died): far longer than a pass takes
PAIRING_SECONDS = 60.0


class Lasting:
    """A condition that lasts across passes (the store full): logged when it begins for a key and
    when it ends, not at each pass in between (two a second per ruleset)."""

    def __init__(self, begins: str, ends: str) -> None:
        self.begins, self.ends = begins, ends
        self._holding: set[str] = set()

    def holds(self, key: str) -> None:
        if key not in self._holding:
            self._holding.add(key)
            log.warning(self.begins, key)

    def over(self, key: str) -> None:
        if key in self._holding:
            self._holding.discard(key)
            log.info(self.ends, key)


class Matchmaker:
    def __init__(self, arena: Arena, *, seed: Callable[[], str | None] = lambda: None, shuffle: random.Random | None = None) -> None:
        self.arena = arena
        self.store = arena.store
        self.games = arena.games
        #: the seed of each new game (tests fix them; None: the server draws one)
        self.seed = seed
        self.random = shuffle or random.SystemRandom()
        #: when (by the arena's timer) a seek the last pass left unpaired reaches its house_after
        #: (None: none does): the next pass is due then, if that comes before PASS_SECONDS
        self.house_due: float | None = None
        self.store_full = Lasting("arena: no pass while %s refuses writes for lack of memory", "arena: passes again: %s takes writes")
        self.nearly_full = Lasting(
            "arena: the store is nearly full: %s's seeks wait in the queue", "arena: the store has room again: %s's seeks are paired"
        )

    @property
    def _turn_key(self) -> str:
        return f"{self.store.prefix}:arena:turn"

    def take_turn(self, worker: str, seconds: float) -> bool:
        """Whether ``worker`` makes the fleet's next pass (no other worker made one in ``seconds``)."""
        return bool(self.store.redis.set(self._turn_key, worker, nx=True, px=max(1, int(seconds * 1000))))

    def turn_left(self, seconds: float) -> float:
        """How long until the turn another worker took ends (at most ``seconds``; 0 if it has)."""
        left = self.store.redis.pttl(self._turn_key)
        return seconds if left == -1 else min(seconds, max(0, left) / 1000)

    def end_turn_at(self, moment: float) -> None:
        """Let the fleet's next pass come at ``moment`` (by the arena's timer), before the turn taken would end."""
        self.store.redis.pexpire(self._turn_key, max(1, int((moment - self.arena.timer()) * 1000)))

    def run_pass(self) -> int:
        """Pair and settle every ruleset's arena once, and end the challenges past their time;
        how many matches were started or settled and challenges ended."""
        self.house_due = None
        try:
            self.games.refuse_when_full()
        except Refused:  # what a pass takes out (challenges, seeks) it then tells of, which needs writes
            self.store_full.holds("Redis")
            return 0
        self.store_full.over("Redis")
        challenges = Challenges(self.arena)
        done = challenges.recover() + challenges.expire() + self.settle()
        for ruleset in registry.all_rulesets():
            self.recover(ruleset)
            done += self.settle_expired(ruleset)
            done += self.pair(ruleset)
        return done

    # --- pairing --------------------------------------------------------------------------------

    def pair(self, ruleset: Ruleset[Any]) -> int:
        now = self.arena.timer()
        queued = self.store.seeks(ruleset.id)
        if not queued:
            return 0
        live = []
        for seek in queued:
            if seek["expires_at"] <= now:
                if self.store.take_seeks(ruleset.id, [seek["id"]]):
                    self.store.disengage(seek["account"], seek["id"])
                    self.arena.emit(seek["account"], {"type": "seek_expired", "seek": public_seek(seek)})
            else:
                live.append(seek)
        if not live:
            return 0
        accounts = self.arena.accounts.by_ids(list(dict.fromkeys(seek["account"] for seek in live)))
        ratings = dict(zip(accounts, (Rating.from_text(text) for text in self.store.ratings(ruleset.id, list(accounts)))))
        seeks = [
            Seek(
                seek["id"],
                seek["account"],
                group_of(seek),
                ratings[seek["account"]].mu,
                seek["seeked_at"],
                seek["house_after_seconds"],
                bool((account := accounts[seek["account"]]) and account.abandoned),
                seek.get("partner"),
            )
            for seek in live
        ]
        house = {level: self.arena.accounts.house(level) for level in level_names(ruleset.id)}
        house_ratings = dict(zip(house, (Rating.from_text(text).mu for text in self.store.ratings(ruleset.id, [a.id for a in house.values()]))))
        by_id = {seek["id"]: seek for seek in live}
        pairings = pair(seeks, ruleset.seat_count, now, house_ratings)
        if house_ratings and (due := house_due(seeks, pairings, now)) is not None:
            self.house_due = due if self.house_due is None else min(self.house_due, due)
        if not pairings:
            return 0
        try:
            self.games.refuse_creation_when_full()
        except Refused:
            self.nearly_full.holds(ruleset.id)
            return 0
        self.nearly_full.over(ruleset.id)
        noted = [(secrets.token_hex(8), pairing, [by_id[seek.id] for seek in pairing.seeks]) for pairing in pairings]
        still_there = self.store.take_pairings(ruleset.id, [(pairing_id, seeks) for pairing_id, _, seeks in noted], now)
        taken = [noted_one for noted_one, taken_now in zip(noted, still_there) if taken_now]  # (not: another pass paired one meanwhile)

        def unmade() -> None:
            self.put_back(ruleset.id, [(pairing_id, seeks) for pairing_id, _, seeks in taken])

        return len(self.start_all(ruleset, taken, accounts, house, ratings, unmade=unmade))

    def put_back(self, ruleset_id: str, pairings: list[tuple[str, list[dict[str, Any]]]]) -> None:
        """Put back the seeks of pairings whose games were not made, but those withdrawn meanwhile:
        their places are given back. An accepted challenge's pairing opens its challenge again."""
        for pairing_id, noted in pairings:
            seeks = [seek for seek in noted if not seek.get("challenge")]
            withdrawn = self.store.put_back(ruleset_id, pairing_id, seeks)
            if withdrawn is None:  # listed, or settled already
                continue
            accounts = {seek["id"]: seek["account"] for seek in seeks}
            for seek_id in withdrawn:
                self.store.disengage(accounts[seek_id], seek_id)
            for accepted in noted:
                if accepted.get("challenge"):
                    Challenges(self.arena).reopen(pairing_id, accepted["id"], accepted["account"])

    def recover(self, ruleset: Ruleset[Any]) -> None:
        """Settle the pairings a pass left unsettled (its worker died, or it outlasted
        :data:`PAIRING_SECONDS`): their matches told if their games were listed, else their seeks
        put back (a game made and not listed is never played, rated or told, and expires)."""
        for pairing_id, seeks, tell in self.store.pairings_before(ruleset.id, self.arena.timer() - PAIRING_SECONDS):
            if tell is None:
                log.warning("arena: pairing %s (%s) was left unmade: it is put back", pairing_id, ruleset.id)
                self.put_back(ruleset.id, [(pairing_id, seeks)])
            else:
                log.warning("arena: pairing %s (%s) was left untold: its matches are told", pairing_id, ruleset.id)
                self.tell(ruleset.id, [(pairing_id, tell)], recovering=True)

    def start(
        self,
        ruleset: Ruleset[Any],
        pairing_id: str,
        pairing: Pairing,
        seeks: list[dict[str, Any]],
        accounts: dict[str, Any],
        house: dict[str, Account],
        ratings: dict[str, Any],
        *,
        unmade: Callable[[], None],
    ) -> str:
        """Make the game of the noted pairing ``pairing_id`` of accounts that are not in the queue
        (a challenge's) and hand each account its seat; the game's id (``unmade``: as
        :meth:`start_all`'s)."""
        started = self.start_all(ruleset, [(pairing_id, pairing, seeks)], accounts, house, ratings, unmade=unmade)
        if not started:  # settled by another pass meanwhile: this one outlasted its time
            raise Refused("storage_unavailable", "store_failed")
        return started[0]

    def start_all(
        self,
        ruleset: Ruleset[Any],
        pairings: list[tuple[str, Pairing, list[dict[str, Any]]]],
        accounts: dict[str, Any],
        house: dict[str, Account],
        ratings: dict[str, Any],
        *,
        unmade: Callable[[], None],
    ) -> list[str]:
        """Make the games of the pairings ``(id, pairing, its seeks)``, stored together in one
        round trip, list them and hand each account its seat; the games' ids. When the games
        cannot be made (the store nearly full, or failing as they are written), ``unmade()`` puts
        back what they were to be made of, and the failure is raised: no one was handed a seat, and
        no match is listed (a game written before the failure is never played, rated or told, and
        expires). A pairing is listed with what is to be told, in one step: a worker that dies
        after it leaves the telling to the next pass (:meth:`recover`)."""
        if not pairings:
            return []
        tables: list[list[tuple[Account, str | None]]] = []
        for _, pairing, seeks in pairings:
            partnered = {account for side in pairing.partners for account in side}
            units: list[list[tuple[Account, str | None]]] = [[(accounts[account], None) for account in side] for side in pairing.partners]
            units += [[(accounts[seek["account"]], None)] for seek in seeks if seek["account"] not in partnered]
            units += [[(house[level], level)] for level in pairing.house]
            tables.append(seat(units, ruleset.sides(), self.random))  # partners as they sought, the rest drawn
        clock = {
            "seconds_per_action": self.arena.settings.arena_seconds_per_action,
            "bank": self.arena.settings.arena_bank_seconds,
            "on_timeout": "forfeit",
        }
        specs: list[tuple[Mapping[str, Any] | None, list[Mapping[str, Any]], str | None]] = [
            (
                seeks[0]["options"],
                [{"name": account.name} if level is None else {"bot": level, "name": account.name} for account, level in players],
                self.seed(),
            )
            for (_, _, seeks), players in zip(pairings, tables)
        ]
        try:
            made = self.games.create_arena_games(ruleset.id, specs, clock, self.arena.seat_token)
        except BaseException:
            unmade()
            raise
        now = self.arena.timer()
        until = now + self.arena.settings.game_ttl_seconds
        house_ids = [account.id for account in house.values()]
        rated_now = {**ratings, **dict(zip(house_ids, (Rating.from_text(text) for text in self.store.ratings(ruleset.id, house_ids))))}
        listing = []
        for game, (pairing_id, _, seeks), players in zip(made, pairings, tables):
            first = seeks[0]
            public = [
                {
                    "seat": index,
                    "name": account.name,
                    "kind": account.kind,
                    "rating": rated_now[account.id].mu,
                    "uncertainty": rated_now[account.id].sigma,
                }
                for index, (account, _) in enumerate(players)
            ]
            events = [
                (
                    account.id,
                    {
                        "type": "match_started",
                        "game": game.id,
                        "ruleset": ruleset.id,
                        "options": first["options"],
                        "rated": first["rated"],
                        "seat": index,  # (its token is not kept: it is added as the stream is read)
                        "url": f"/v1/games/{game.id}",
                        "players": [player for player in public if player["seat"] != index],
                    },
                )
                for index, (account, level) in enumerate(players)
                if level is None
            ]
            seated = [{"account": account.id, "name": account.name, "kind": account.kind} for account, _ in players]
            match = {"rated": first["rated"], "seats": seated}
            tell = {"handover": [(seek["account"], seek["id"], game.id) for seek in seeks], "until": until, "events": events}
            if first.get("challenge"):
                tell["challenge"] = True
            listing.append((pairing_id, {game.id: match}, [seek["id"] for seek in seeks], tell))
        started, told = [], []
        for (pairing_id, matches, _, tell), listed, players in zip(listing, self.store.list_pairings(ruleset.id, listing, now), tables):
            (game_id,) = matches
            if not listed:
                log.warning("arena: pairing %s (%s) was settled by another pass meanwhile: %s is left unplayed", pairing_id, ruleset.id, game_id)
                continue
            log.info("arena: started %s (%s) for %s", game_id, ruleset.id, ", ".join(account.name for account, _ in players))
            started.append(game_id)
            told.append((pairing_id, tell))
        self.tell(ruleset.id, told)
        return started

    def tell(self, ruleset_id: str, pairings: Sequence[tuple[str, Mapping[str, Any]]], *, recovering: bool = False) -> None:
        """Hand each account of the listed pairings ``(id, what is to be told)`` its game in place
        of its seek, and tell it on its stream (once, however often this is done), then settle the
        pairings. ``recovering``: a pass left them; a game whose match has been settled since is
        not handed over again."""
        if not pairings:
            return
        handover = [(account, seek_id, game_id, tell["until"]) for _, tell in pairings for account, seek_id, game_id in tell["handover"]]
        if recovering:
            handover = [entry for entry in handover if self.store.match(ruleset_id, entry[2]) is not None]
        self.store.hand_over(handover)
        events = [(account, event) for _, tell in pairings for account, event in tell["events"]]
        self.arena.emit_all(events, once=[f"match_started:{event['game']}" for _, event in events])
        if accepted := [pairing_id for pairing_id, tell in pairings if tell.get("challenge")]:
            Challenges(self.arena).challenges.forget_accepted(accepted)  # (before the pairings: see Challenges.recover)
        seek_ids = [seek_id for _, tell in pairings for _, seek_id, _ in tell["handover"]]
        self.store.pairings_told(ruleset_id, [pairing_id for pairing_id, _ in pairings], seek_ids)

    # --- settling -------------------------------------------------------------------------------

    def settle(self) -> int:
        """Settle the arena matches whose end was committed (:meth:`GameStore.ended_arena_games`):
        the pass reads only the games that ended, never every game in progress."""
        if not self.store.has_matches([ruleset.id for ruleset in registry.all_rulesets()]):
            return 0  # no arena game at all: the ended records of every slot need no reading
        ended = self.games.store.ended_arena_games(SETTLE_BATCH)
        settled = 0
        for game_id, stored in zip(ended, self.games.store.load_many(ended)):
            if isinstance(stored, Stored):
                game = self.games.repository.from_stored(game_id, stored)
                ruleset, match = game.ruleset, self.store.match(game.ruleset.id, game_id)
                if match is not None and game.over:
                    view = game.view(None)
                    self.finish(ruleset, game_id, match, {"status": view["status"], "winners": view["winners"], "forfeit": game.forfeit})
                    settled += 1
            else:  # it ended, then expired before it was settled: nothing to rate
                for ruleset in registry.all_rulesets():
                    if (match := self.store.match(ruleset.id, game_id)) is not None:
                        self.finish(ruleset, game_id, match, None)
                        settled += 1
            self.games.store.forget_ended(game_id)  # (after finishing: a pass that dies before does it again)
        return settled

    def settle_expired(self, ruleset: Ruleset[Any]) -> int:
        """Drop the arena matches whose game expired unfinished (nothing to rate): only those
        started longer ago than a game is kept idle are looked at."""
        old = self.store.matches_started_before(ruleset.id, self.arena.timer() - self.arena.settings.game_ttl_seconds)
        if not old:
            return 0
        gone = [game_id for game_id, exists in zip(old, self.games.store.exist(list(old))) if not exists]
        for game_id in gone:
            self.finish(ruleset, game_id, old[game_id], None)
        return len(gone)

    def finish(self, ruleset: Ruleset[Any], game_id: str, match: dict[str, Any], ended: dict[str, Any] | None) -> None:
        humans = [seat["account"] for seat in match["seats"] if seat["kind"] != "house"]
        if ended is not None:
            winners = set(ended["winners"])
            outcomes = ["draw" if not winners else "win" if index in winners else "loss" for index in range(len(match["seats"]))]
            seats = [Seat(seat["account"], seat["name"], seat["kind"], outcome) for seat, outcome in zip(match["seats"], outcomes)]
            timed_out = ended["forfeit"]["seat"] if ended["forfeit"] is not None else None
            abandoned_by = match["seats"][timed_out]["account"] if timed_out is not None else None
            extra = {"status": ended["status"], "finished_at": self.arena.timer(), "abandoned_by": abandoned_by}
            result = self.arena.ratings.record(ruleset.id, game_id, seats, ruleset.sides(), match["rated"], extra)
            for account in dict.fromkeys(humans):
                self.store.set_abandoned(account, game_id if account == result["abandoned_by"] else None)
                mine = next(seat for seat in result["seats"] if seat["account"] == account)
                self.arena.emit(
                    account,
                    {
                        "type": "match_finished",
                        "game": game_id,
                        "ruleset": ruleset.id,
                        "status": result["status"],
                        "rated": result["rated"],
                        "seat": mine["seat"],
                        "outcome": mine["outcome"],
                        "abandoned": account == result["abandoned_by"],
                        "rating": mine["after"],
                        "rating_change": mine["after"]["rating"] - mine["before"]["rating"],
                    },
                )
        for account in humans:
            self.store.disengage(account, game_id)
        self.store.drop_match(ruleset.id, game_id)
