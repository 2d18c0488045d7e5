"""Challenges by name: one account asks another for a match; the other accepts or declines.

A challenge counts among the challenger's games at once from the moment it is made (as a seek
does), and among the challenged account's when it accepts. It lives in the arena's challenge
keys (:class:`.store.ArenaStore`) until it is accepted, declined, withdrawn or expires, and each
of those takes it out in one script: a challenge ends once, whichever comes first, even when
the challenged account accepts while the challenger withdraws.

Each side hears what the other did on its event stream: the challenged account ``challenge``
(and ``challenge_withdrawn`` or ``challenge_expired``), the challenger ``challenge_declined`` or
``challenge_expired``; an accepted challenge starts its game as a pairing of seeks does
(:meth:`.matchmaker.Matchmaker.start`: ``match_started`` on both streams, each with its seat
token). In a ruleset of four seats Koz's house players of the nearest rating take the other two.
An acceptance is noted as a pairing before the challenge is taken out, and the challenge is kept
as accepted until its match is told: whichever instant the accepting process dies at, the
matchmaker's pass tells the match, or opens the challenge again as it was.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any, Callable, Mapping

from engine import registry
from engine.players import level_names

from ..refusals import Refused
from .accounts import Account, is_house_name
from .arena import Arena
from .pairing import Pairing, nearest_house
from .ratings import Rating
from .texts import DETAILS

if TYPE_CHECKING:
    from .matchmaker import Matchmaker

#: KEYS: the challenges (id -> JSON), their expiry (a sorted set), the accepted (pairing id ->
#: JSON). ARGV: the id, and for an acceptance the id of the pairing noted for it. Takes the
#: challenge out if it is still there (nothing else ended it meanwhile): its JSON, else nil. An
#: accepted challenge is kept under its pairing's id until its match is told or it is open again.
TAKE_CHALLENGE_SCRIPT = """
local challenge = redis.call('HGET', KEYS[1], ARGV[1])
if not challenge then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] then redis.call('HSET', KEYS[3], ARGV[2], challenge) end
return challenge
"""

#: KEYS: the challenges, their expiry, the accepted. ARGV: the pairing's id, the challenge's id,
#: its expiry, its JSON. The challenge accepted for the pairing open again, once: 1, else 0 (it
#: was open again already, or its match was told).
REOPEN_SCRIPT = """
if redis.call('HDEL', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
return 1
"""


class ChallengeStore:
    """The open challenges: one hash and its expiry set under one hash tag (one slot of a
    cluster, so that taking one out is one script), and each account's index of its challenges
    (read back through the hash: an entry whose challenge ended is skipped, then dropped). In the
    same slot, the accepted challenges whose matches are not yet told, by their pairings' ids."""

    def __init__(self, arena: Arena) -> None:
        self.arena_store = arena.store
        self.redis = arena.store.redis
        prefix = arena.store.prefix
        self.challenges_key = f"{prefix}:{{arena-challenges}}:challenge"
        self.due_key = f"{prefix}:{{arena-challenges}}:due"
        self.accepted_key = f"{prefix}:{{arena-challenges}}:accepted"
        self._take = self.redis.register_script(TAKE_CHALLENGE_SCRIPT)
        self._reopen = self.redis.register_script(REOPEN_SCRIPT)

    def index_key(self, account: str) -> str:
        return self.arena_store.account_key(account, "challenges")

    def add(self, challenge: Mapping[str, Any]) -> None:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(self.challenges_key, challenge["id"], json.dumps(challenge, ensure_ascii=False))
            pipe.zadd(self.due_key, {challenge["id"]: challenge["expires_at"]})
            pipe.execute()
        self._index(challenge)

    def _index(self, challenge: Mapping[str, Any]) -> None:
        for account in (challenge["from_account"], challenge["to_account"]):
            self.redis.sadd(self.index_key(account), challenge["id"])

    def get(self, identifier: str) -> dict[str, Any] | None:
        raw = self.redis.hget(self.challenges_key, identifier)
        return json.loads(raw) if raw is not None else None

    def take(self, identifier: str, pairing_id: str | None = None) -> dict[str, Any] | None:
        """The challenge, taken out (kept as accepted for the pairing ``pairing_id``, if given);
        None when it had ended already."""
        args = [identifier] if pairing_id is None else [identifier, pairing_id]
        raw = self._take(keys=[self.challenges_key, self.due_key, self.accepted_key], args=args)
        if raw is None:
            return None
        challenge: dict[str, Any] = json.loads(raw)
        for account in (challenge["from_account"], challenge["to_account"]):
            self.redis.srem(self.index_key(account), identifier)
        return challenge

    def of(self, account: str) -> list[dict[str, Any]]:
        identifiers = sorted(self.redis.smembers(self.index_key(account)))
        if not identifiers:
            return []
        raw = self.redis.hmget(self.challenges_key, identifiers)
        ended = [identifier for identifier, value in zip(identifiers, raw) if value is None]
        if ended:
            self.redis.srem(self.index_key(account), *ended)
        return [json.loads(value) for value in raw if value is not None]

    def accepted(self) -> list[tuple[str, dict[str, Any]]]:
        """The accepted challenges whose matches are not yet told: (pairing id, challenge)."""
        return [(pairing_id.decode(), json.loads(raw)) for pairing_id, raw in self.redis.hgetall(self.accepted_key).items()]

    def being_accepted(self, identifier: str, accepter: str) -> bool:
        """Whether ``accepter`` accepted the challenge ``identifier`` and its match is not yet told."""
        return any(challenge["id"] == identifier and challenge["to_account"] == accepter for _, challenge in self.accepted())

    def reopen(self, pairing_id: str) -> bool:
        """The challenge accepted for the pairing open again as it was (:data:`REOPEN_SCRIPT`):
        whether it was this call that opened it."""
        raw = self.redis.hget(self.accepted_key, pairing_id)
        if raw is None:
            return False
        challenge = json.loads(raw)
        keys = [self.challenges_key, self.due_key, self.accepted_key]
        if not self._reopen(keys=keys, args=[pairing_id, challenge["id"], repr(challenge["expires_at"]), raw]):
            return False
        self._index(challenge)
        return True

    def forget_accepted(self, pairing_ids: list[str]) -> None:
        """The accepted challenges' matches are told."""
        self.redis.hdel(self.accepted_key, *pairing_ids)

    def due(self, now: float) -> list[str]:
        return [identifier.decode() for identifier in self.redis.zrangebyscore(self.due_key, "-inf", repr(now))]


def public_challenge(challenge: Mapping[str, Any]) -> dict[str, Any]:
    """A challenge as either side is shown it."""
    return {key: challenge[key] for key in ("id", "from", "to", "ruleset", "options", "rated", "created_at", "expires_at")}


class Challenges:
    def __init__(self, arena: Arena, matchmaker: "Matchmaker | None" = None) -> None:
        self.arena = arena
        self.store = arena.store
        self.challenges = ChallengeStore(arena)
        #: what starts an accepted challenge's game (None: the challenges are only expired)
        self.matchmaker = matchmaker

    def create(self, challenger: Account, to: str, ruleset_id: str, options: Mapping[str, Any] | None, rated: bool) -> dict[str, Any]:
        """Challenge the account named ``to``; the challenge (the other hears ``challenge``)."""
        ruleset = registry.get(ruleset_id)
        parsed = ruleset.parse_options(options)
        if is_house_name(to):  # whether or not it played yet
            raise Refused("house_account", DETAILS["house_account"], params={"name": to})
        challenged = self.arena.accounts.find(to)
        if challenged.id == challenger.id:
            raise Refused("challenge_self", DETAILS["challenge_self"])
        now = self.arena.timer()
        identifier = secrets.token_hex(8)
        expires = now + self.arena.settings.arena_seek_seconds
        cap = self.arena.settings.arena_games_at_once
        if not self.store.engage(challenger.id, identifier, expires, now, cap):
            raise Refused("too_many_arena_games", DETAILS["too_many_arena_games"], params={"cap": cap})
        challenge = {
            "id": identifier,
            "from": challenger.name,
            "from_account": challenger.id,
            "to": challenged.name,
            "to_account": challenged.id,
            "ruleset": ruleset.id,
            "options": parsed,
            "rated": rated,
            "created_at": now,
            "expires_at": expires,
        }
        try:
            self.challenges.add(challenge)
        except BaseException:  # (a Redis out of memory refuses the challenge, not the deletions)
            self.challenges.take(identifier)
            self.store.disengage(challenger.id, identifier)
            raise
        rating = Rating.from_text(self.store.ratings(ruleset.id, [challenger.id])[0])
        self.arena.emit(
            challenged.id,
            {
                "type": "challenge",
                "challenge": public_challenge(challenge),
                "challenger": {"name": challenger.name, "kind": challenger.kind, "rating": rating.mu, "uncertainty": rating.sigma},
            },
        )
        return challenge

    def involving(self, account: Account) -> list[dict[str, Any]]:
        """The account's challenges still open, made or received, oldest first."""
        now = self.arena.timer()
        found = [challenge for challenge in self.challenges.of(account.id) if challenge["expires_at"] > now]
        return sorted(found, key=lambda challenge: (challenge["created_at"], challenge["id"]))

    def _take(self, identifier: str, account: Account, side: str, pairing_id: str | None = None) -> dict[str, Any]:
        """The open challenge ``identifier`` where ``account`` is on ``side`` (``from_account`` or
        ``to_account``), taken out (as accepted for ``pairing_id``, if given); a 404
        ``unknown_challenge`` when there is none (or it ended)."""
        challenge = self.challenges.get(identifier)
        if challenge is None or challenge[side] != account.id or challenge["expires_at"] <= self.arena.timer():
            raise Refused("unknown_challenge", DETAILS["unknown_challenge"], params={"challenge": identifier})
        taken = self.challenges.take(identifier, pairing_id)
        if taken is None:  # accepted, declined or withdrawn meanwhile
            raise Refused("unknown_challenge", DETAILS["unknown_challenge"], params={"challenge": identifier})
        return taken

    def accept(self, identifier: str, accepter: Account) -> tuple[dict[str, Any], str]:
        """Accept a challenge made to ``accepter``: its game starts; the challenge and its game's id.
        When the game cannot be made (a 503), the challenge is open again as it was.

        The acceptance is noted as a pairing (in its ruleset's slot) before the challenge is taken
        out, and the challenge is kept as accepted until its match is told: a process that dies in
        between leaves both to the matchmaker's pass, which tells the match if it was listed and
        otherwise opens the challenge again (:meth:`.Matchmaker.put_back`, :meth:`recover`)."""
        now = self.arena.timer()
        cap = self.arena.settings.arena_games_at_once
        seen = self.challenges.get(identifier)
        if seen is None and self.challenges.being_accepted(identifier, accepter.id):
            # (a retry of an accept whose answer was lost, or whose process died: the pass settles it)
            raise Refused("challenge_being_accepted", DETAILS["challenge_being_accepted"], params={"challenge": identifier})
        if seen is None or seen["to_account"] != accepter.id or seen["expires_at"] <= now:
            raise Refused("unknown_challenge", DETAILS["unknown_challenge"], params={"challenge": identifier})
        self.arena.games.refuse_creation_when_full()
        assert self.matchmaker is not None
        matchmaker, pairing_id = self.matchmaker, secrets.token_hex(8)
        noted = [{"id": identifier, "account": accepter.id, "challenge": True}]
        self.store.note_pairing(seen["ruleset"], pairing_id, noted, now)  # (first: the accepter's place is then never left taken)

        def unmade() -> None:
            matchmaker.put_back(seen["ruleset"], [(pairing_id, noted)])

        try:
            if not self.store.engage(accepter.id, identifier, seen["expires_at"], now, cap):
                raise Refused("too_many_arena_games", DETAILS["too_many_arena_games"], params={"cap": cap})
            challenge = self._take(identifier, accepter, "to_account", pairing_id)
        except Refused:
            unmade()
            raise
        # (the challenger's place passes from the challenge to its game when the game is handed over)
        return challenge, self.start(challenge, pairing_id, unmade=unmade)

    def reopen(self, pairing_id: str, identifier: str, accepter: str) -> None:
        """The pairing's game was not made: open the challenge ``identifier`` again if the pairing
        took it out (its process may have died before), and free the accepter's place."""
        self.challenges.reopen(pairing_id)
        self.store.disengage(accepter, identifier)

    def recover(self) -> int:
        """Open again the accepted challenges whose pairing was settled unmade by a process that
        died before it opened them (a pairing told forgets its challenge first); how many."""
        reopened = 0
        for pairing_id, challenge in self.challenges.accepted():
            if not self.store.pairing_noted(challenge["ruleset"], pairing_id) and self.challenges.reopen(pairing_id):
                self.store.disengage(challenge["to_account"], challenge["id"])
                reopened += 1
        return reopened

    def start(self, challenge: Mapping[str, Any], pairing_id: str, *, unmade: Callable[[], None]) -> str:
        """Start the game of an accepted challenge as the pairing ``pairing_id`` is started; its id
        (``unmade``: as :meth:`.Matchmaker.start_all`'s)."""
        ruleset = registry.get(challenge["ruleset"])
        accounts = {account: self.arena.accounts.by_id(account) for account in (challenge["from_account"], challenge["to_account"])}
        ratings = dict(zip(accounts, (Rating.from_text(text) for text in self.store.ratings(ruleset.id, list(accounts)))))
        house = {level: self.arena.accounts.house(level) for level in level_names(ruleset.id)}
        seeks = [
            {"id": challenge["id"], "account": account, "options": challenge["options"], "rated": challenge["rated"], "challenge": True}
            for account in accounts
        ]
        levels: tuple[str, ...] = ()
        if ruleset.seat_count > len(seeks):
            house_ratings = dict(zip(house, (Rating.from_text(t).mu for t in self.store.ratings(ruleset.id, [a.id for a in house.values()]))))
            mean = sum(rating.mu for rating in ratings.values()) / len(ratings)
            levels = nearest_house(mean, house_ratings, ruleset.seat_count - len(seeks))
        assert self.matchmaker is not None
        # start seats the seeks' accounts, drawn, and the pairing's house levels (a challenge has no partners)
        return self.matchmaker.start(ruleset, pairing_id, Pairing((), levels), seeks, accounts, house, ratings, unmade=unmade)

    def decline(self, identifier: str, decliner: Account) -> None:
        self._end(identifier, decliner, "to_account", "challenge_declined")

    def withdraw(self, identifier: str, challenger: Account) -> None:
        self._end(identifier, challenger, "from_account", "challenge_withdrawn")

    def _end(self, identifier: str, account: Account, side: str, event: str) -> None:
        """End the challenge ``account`` is on ``side`` of, freeing the challenger's place, and tell
        the other side ``event``. Refused while the store refuses writes: it would take the challenge
        out (a deletion) and not tell."""
        self.arena.games.refuse_when_full()
        challenge = self._take(identifier, account, side)
        self.store.disengage(challenge["from_account"], identifier)
        other = "from_account" if side == "to_account" else "to_account"
        self.arena.emit(challenge[other], {"type": event, "challenge": public_challenge(challenge)})

    def expire(self) -> int:
        """Take out the challenges past their time, telling both sides; how many."""
        expired = 0
        for identifier in self.challenges.due(self.arena.timer()):
            challenge = self.challenges.take(identifier)
            if challenge is None:
                continue
            self.store.disengage(challenge["from_account"], identifier)
            for account in (challenge["from_account"], challenge["to_account"]):
                self.arena.emit(account, {"type": "challenge_expired", "challenge": public_challenge(challenge)})
            expired += 1
        return expired
