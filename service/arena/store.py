"""The arena's keys in Redis, and the scripts that change several of them at once.

Two hash tags, so that every script touches one slot of a Redis Cluster:

- an account's keys share ``{a:<account id>}``: ``account`` (a hash: name, kind, created, the
  key's hash, the game it last abandoned), ``engaged`` (a sorted set of its seeks and arena games
  in progress, scored by when each lapses: the cap on games at once counts it), ``events`` (a
  Redis stream of its events, ids ``<n>-1``) and ``seq`` (the last event's number, its SSE id);
- a ruleset's arena shares ``{arena:<ruleset id>}``: ``seeks`` (a sorted set of seek ids by when
  they were made) with ``seek`` (a hash: seek id -> the seek), ``matches`` (the arena games in
  progress or ended and not yet settled, by start) with ``match`` (game id -> who sits where), ``ratings`` (account id -> its
  rating), ``board`` and ``provisional`` (account ids by conservative rating, apart by games
  played), ``rated`` (game id -> its recorded result: the exactly-once guard), ``results`` (every
  result in the order recorded), ``played`` (account id -> its games recorded) and
``recent:<account id>`` (an account's last results).

Ratings of one ruleset live in one slot: a result changes two to four accounts' ratings in one
compare-and-set (:data:`RECORD_SCRIPT`). Results come once per match, far more rarely than moves.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, cast

from redis import Redis
from redis.cluster import RedisCluster

#: KEYS: the account. ARGV: name, kind, created, key hash. Creates the account unless it exists: 1, else 0.
CREATE_ACCOUNT_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'kind', ARGV[2], 'created', ARGV[3], 'key_hash', ARGV[4])
return 1
"""

#: KEYS: the account's engaged set. ARGV: what to add, until when, now, the cap. Drops what lapsed;
#: adds the entry unless the account is at its cap (an entry already there is kept): 1 if it is
#: there now, 0 at the cap.
ENGAGE_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""

#: KEYS: the account's event counter, its stream, the keys it was told by. ARGV: the event (JSON),
#: the most kept, the expiry in seconds, the channel, a key it is told once by ('' for none; as
#: many keys are kept as events). Appends the event as number n (id ``n-1``), announces n; 0 when
#: told by its key before.
EVENT_SCRIPT = """
if ARGV[5] ~= '' and redis.call('ZSCORE', KEYS[3], ARGV[5]) then return 0 end
local seq = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], seq .. '-1', 'data', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[3], seq, ARGV[5])
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -1 - tonumber(ARGV[2]))
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
redis.call('PUBLISH', ARGV[4], seq)
return seq
"""

#: KEYS: seeks, seek, withdrawn, in pairing. ARGV: seek id, its JSON, when made. Adds the seek;
#: one already there keeps its place in the queue, and one a pass is pairing is not queued again
#: (seeking twice for the same thing is one seek): 1 if new, 0 if not. A seek made anew ends the
#: withdrawal of the same one a pass was pairing.
SEEK_SCRIPT = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

#: KEYS: seeks, seek, withdrawn. ARGV: a seek id, now. Withdraws a seek no longer in the queue: a
#: pass took it out to pair it, and is not to put it back if the game is not made (marked). Put
#: back already, it is taken out: 1; else 0.
WITHDRAW_TAKEN_SCRIPT = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 0
"""

#: KEYS: seeks, seek, pairings, pairing, in pairing. ARGV: a pairing's id ('' for none), now, what
#: the pairing is made of (JSON), then seek ids. Takes all the seeks out of the queue if all are
#: still there (no other pass paired one meanwhile): 1, else none and 0. With a pairing's id, the
#: pairing is noted in the same step, and each seek as in it, until its match is told or its seeks
#: are put back: a worker that dies in between leaves it to the next pass (see the matchmaker).
TAKE_SEEKS_SCRIPT = """
for index = 4, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[index]) then return 0 end
end
for index = 4, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[index])
  redis.call('HDEL', KEYS[2], ARGV[index])
end
if ARGV[1] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
  for index = 4, #ARGV do
    redis.call('HSET', KEYS[5], ARGV[index], ARGV[1])
  end
end
return 1
"""

#: KEYS: match, matches, withdrawn, pairing, to tell. ARGV: the pairing's id, now, what to tell
#: (JSON), the number of games, then each game's id and who sits where (JSON), then the seek ids
#: it was made of. Lists the pairing's games and notes what is to be told, unless the pairing was
#: settled meanwhile by another pass (it outlasted its time): 0 then, else 1.
LIST_SCRIPT = """
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0 then return 0 end
local count = tonumber(ARGV[4])
for index = 0, count - 1 do
  redis.call('HSET', KEYS[1], ARGV[5 + index * 2], ARGV[6 + index * 2])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5 + index * 2])
end
for index = 5 + count * 2, #ARGV do
  redis.call('HDEL', KEYS[3], ARGV[index])
end
redis.call('HSET', KEYS[5], ARGV[1], ARGV[3])
return 1
"""

#: KEYS: seeks, seek, withdrawn, pairings, pairing, to tell, in pairing. ARGV: the pairing's id,
#: then each seek's id, JSON and when made. Puts back the seeks of a pairing whose game was not
#: made, but those their accounts withdrew meanwhile (see WITHDRAW_TAKEN_SCRIPT), and ends the
#: pairing: {1, the withdrawn ids...}; {0} when its games were listed, or it was settled already.
PUT_BACK_SCRIPT = """
if redis.call('HEXISTS', KEYS[6], ARGV[1]) == 1 or redis.call('HDEL', KEYS[5], ARGV[1]) == 0 then return {0} end
redis.call('ZREM', KEYS[4], ARGV[1])
local withdrawn = {1}
for index = 2, #ARGV, 3 do
  redis.call('HDEL', KEYS[7], ARGV[index])
  if redis.call('HDEL', KEYS[3], ARGV[index]) == 1 then
    table.insert(withdrawn, ARGV[index])
  elseif not redis.call('ZSCORE', KEYS[1], ARGV[index]) then
    redis.call('ZADD', KEYS[1], ARGV[index + 2], ARGV[index])
    redis.call('HSET', KEYS[2], ARGV[index], ARGV[index + 1])
  end
end
return withdrawn
"""

#: KEYS: ratings, board, provisional, rated, results, played, then each account's recent list. ARGV: game
#: id, the result (JSON), the games an established rating has, the recent results kept, then per
#: account: id, its rating as read ('' for none), its new rating ('' for an unrated match), its
#: board score, its games. Records the result once: {0, the result recorded before} when the game
#: was recorded already, {2, account} when an account's rating changed since it was read (the
#: caller reads and rates again), else every rating, the boards and the result: {1, result}.
RECORD_SCRIPT = """
local seen = redis.call('HGET', KEYS[4], ARGV[1])
if seen then return {0, seen} end
local count = (#ARGV - 4) / 5
for index = 0, count - 1 do
  local account, expected = ARGV[5 + index * 5], ARGV[6 + index * 5]
  if ARGV[7 + index * 5] ~= '' and (redis.call('HGET', KEYS[1], account) or '') ~= expected then return {2, account} end
end
for index = 0, count - 1 do
  local account, new, score, games = ARGV[5 + index * 5], ARGV[7 + index * 5], ARGV[8 + index * 5], tonumber(ARGV[9 + index * 5])
  if new ~= '' then
    redis.call('HSET', KEYS[1], account, new)
    if games >= tonumber(ARGV[3]) then
      redis.call('ZADD', KEYS[2], score, account)
      redis.call('ZREM', KEYS[3], account)
    else
      redis.call('ZADD', KEYS[3], score, account)
    end
  end
  redis.call('HINCRBY', KEYS[6], account, 1)
  redis.call('LPUSH', KEYS[7 + index], ARGV[2])
  redis.call('LTRIM', KEYS[7 + index], 0, tonumber(ARGV[4]) - 1)
end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[5], ARGV[2])
return {1, ARGV[2]}
"""


class ArenaStore:
    """The arena's keys under ``prefix`` on ``redis`` (one server or a cluster)."""

    def __init__(self, redis: Redis | RedisCluster, prefix: str) -> None:
        self.redis: Any = cast(Any, redis)  # one server or a cluster: the same commands
        self.prefix = prefix
        self.cluster = isinstance(redis, RedisCluster)
        self._create_account = self.redis.register_script(CREATE_ACCOUNT_SCRIPT)
        self._engage = self.redis.register_script(ENGAGE_SCRIPT)
        self._event = self.redis.register_script(EVENT_SCRIPT)
        self._seek = self.redis.register_script(SEEK_SCRIPT)
        self._list = self.redis.register_script(LIST_SCRIPT)
        self._put_back = self.redis.register_script(PUT_BACK_SCRIPT)
        self._withdraw_taken = self.redis.register_script(WITHDRAW_TAKEN_SCRIPT)
        self._take_seeks = self.redis.register_script(TAKE_SEEKS_SCRIPT)
        self._record = self.redis.register_script(RECORD_SCRIPT)

    def _run_all(self, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
        """Scripts' calls ``(script, keys, args)``, each atomic by itself, in one round trip
        (one after the other on a cluster, where their keys live on different nodes)."""
        if self.cluster or len(calls) < 2:
            return [script(keys=keys, args=args) for script, keys, args in calls]
        with self.redis.pipeline(transaction=False) as pipe:
            for script, keys, args in calls:
                script(keys=keys, args=args, client=pipe)
            return list(pipe.execute())

    # --- keys -----------------------------------------------------------------------------------

    def account_key(self, account: str, name: str) -> str:
        return f"{self.prefix}:{{a:{account}}}:{name}"

    def arena_key(self, ruleset: str, name: str) -> str:
        return f"{self.prefix}:{{arena:{ruleset}}}:{name}"

    def _arena_keys(self, ruleset: str, *names: str) -> list[str]:
        return [self.arena_key(ruleset, name) for name in names]

    def _take_keys(self, ruleset: str) -> list[str]:
        """The keys of :data:`TAKE_SEEKS_SCRIPT`, however it is called."""
        return self._arena_keys(ruleset, "seeks", "seek", "pairings", "pairing", "in_pairing")

    def events_channel_id(self, account: str) -> str:
        """The id under which the process's announcements (``service/announcements.py``) hear
        the account's events: its channel is named as a game's would be."""
        return f"a:{account}"

    # --- accounts -------------------------------------------------------------------------------

    def create_account(self, account: str, name: str, kind: str, created: str, key_hash: str) -> bool:
        return bool(self._create_account(keys=[self.account_key(account, "account")], args=[name, kind, created, key_hash]))

    def account(self, account: str) -> dict[str, str] | None:
        (stored,) = self.accounts([account])
        return stored

    def accounts(self, accounts: list[str]) -> list[dict[str, str] | None]:
        """:meth:`account` of several accounts, in one round trip (one per node on a cluster)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for account in accounts:
                pipe.hgetall(self.account_key(account, "account"))
            answers = pipe.execute()
        return [{key.decode(): value.decode() for key, value in raw.items()} if raw else None for raw in answers]

    def set_abandoned(self, account: str, game_id: str | None) -> None:
        """Mark the account as having abandoned ``game_id`` (None: it finished a game since)."""
        key = self.account_key(account, "account")
        if game_id is None:
            self.redis.hdel(key, "abandoned")
        else:
            self.redis.hset(key, "abandoned", game_id)

    def engage(self, account: str, entry: str, until: float, now: float, cap: int) -> bool:
        return bool(self._engage(keys=[self.account_key(account, "engaged")], args=[entry, repr(until), repr(now), cap]))

    def disengage(self, account: str, *entries: str) -> None:
        self.redis.zrem(self.account_key(account, "engaged"), *entries)

    def engagements(self, account: str, now: float) -> list[str]:
        """What counts among the account's games now: its seeks, challenges and games."""
        return [entry.decode() for entry in self.redis.zrangebyscore(self.account_key(account, "engaged"), f"({now!r}", "+inf")]

    def hand_over(self, engagements: list[tuple[str, str, str, float]]) -> None:
        """Each ``(account, seek id, game id, until)``: the account's seek became that game, which
        counts among its games until then (past the cap: the seek held its place), in one round trip."""
        with self.redis.pipeline(transaction=False) as pipe:
            for account, seek_id, game_id, until in engagements:
                pipe.zrem(self.account_key(account, "engaged"), seek_id)
                pipe.zadd(self.account_key(account, "engaged"), {game_id: until})
            pipe.execute()

    def secret(self) -> str:
        """The fleet's secret that arena seat tokens are derived from, made on first use."""
        key = f"{self.prefix}:arena:secret"
        self.redis.set(key, secrets.token_urlsafe(32), nx=True)
        return str(self.redis.get(key).decode())

    # --- events ---------------------------------------------------------------------------------

    def add_event(self, account: str, event: dict[str, Any], keep: int, ttl: int) -> int:
        (number,) = self.add_events([(account, event)], keep, ttl)
        return number

    def add_events(self, events: list[tuple[str, dict[str, Any]]], keep: int, ttl: int, once: list[str] | None = None) -> list[int]:
        """Append each ``(account, event)`` to its account's stream, in one round trip; their
        numbers. With ``once`` (a key per event), an event told by its key before is not told
        again (its number: 0)."""
        calls = []
        for (account, event), key in zip(events, once or [""] * len(events)):
            channel = f"{self.prefix}:{{{self.events_channel_id(account)}}}:versions"
            keys = [self.account_key(account, "seq"), self.account_key(account, "events"), self.account_key(account, "told")]
            calls.append((self._event, keys, [json.dumps(event, ensure_ascii=False), keep, ttl, channel, key]))
        return [int(number) for number in self._run_all(calls)]

    def events_after(self, account: str, after: int, count: int) -> list[tuple[int, dict[str, Any]]]:
        """The account's events numbered after ``after``, in order (at most ``count``)."""
        entries = self.redis.xrange(self.account_key(account, "events"), min=f"{after + 1}-0", max="+", count=count)
        return [(int(entry_id.decode().partition("-")[0]), json.loads(fields[b"data"])) for entry_id, fields in entries]

    # --- seeks ----------------------------------------------------------------------------------

    def add_seek(self, ruleset: str, seek: dict[str, Any]) -> bool:
        """Queue ``seek`` in its place (by its ``seeked_at``); False when it is queued already."""
        (added,) = self._run_all([self._queued(ruleset, seek)])
        return bool(added)

    def _queued(self, ruleset: str, seek: dict[str, Any]) -> tuple[Any, list[str], list[Any]]:
        keys = self._arena_keys(ruleset, "seeks", "seek", "withdrawn", "in_pairing")
        return self._seek, keys, [seek["id"], json.dumps(seek, ensure_ascii=False), repr(seek["seeked_at"])]

    def seeks(self, ruleset: str) -> list[dict[str, Any]]:
        """Every seek of the ruleset's queue, oldest first."""
        ids = self.redis.zrange(self.arena_key(ruleset, "seeks"), 0, -1)
        if not ids:
            return []
        raw = self.redis.hmget(self.arena_key(ruleset, "seek"), ids)
        return [json.loads(value) for value in raw if value is not None]

    def sought(self, ruleset: str, seek_id: str) -> dict[str, Any] | None:
        """The seek as it is queued, or as the pass pairing it noted it; None when it is neither."""
        raw = self.redis.hget(self.arena_key(ruleset, "seek"), seek_id)
        if raw is not None:
            return dict(json.loads(raw))
        pairing_id = self.redis.hget(self.arena_key(ruleset, "in_pairing"), seek_id)
        noted = self.redis.hget(self.arena_key(ruleset, "pairing"), pairing_id) if pairing_id is not None else None
        return next((seek for seek in json.loads(noted) if seek["id"] == seek_id), None) if noted is not None else None

    def withdraw_taken(self, ruleset: str, seek_id: str, now: float) -> bool:
        """Withdraw a seek a pass took out of the queue (:data:`WITHDRAW_TAKEN_SCRIPT`): whether it
        was back in the queue, and was taken out here."""
        return bool(self._withdraw_taken(keys=self._arena_keys(ruleset, "seeks", "seek", "withdrawn"), args=[seek_id, repr(now)]))

    def take_seeks(self, ruleset: str, seek_ids: list[str]) -> bool:
        """Take the seeks out of the queue, all or none (:data:`TAKE_SEEKS_SCRIPT`)."""
        (taken,) = self._run_all([(self._take_seeks, self._take_keys(ruleset), ["", "", "", *seek_ids])])
        return bool(taken)

    # --- pairings: from their seeks taken out of the queue until their matches are told ----------

    def take_pairings(self, ruleset: str, pairings: list[tuple[str, list[dict[str, Any]]]], now: float) -> list[bool]:
        """Take each pairing's seeks out of the queue (all of a pairing's or none), noting the
        pairing ``(id, seeks)``, in one round trip: whether each was taken."""
        keys = self._take_keys(ruleset)
        calls = [
            (self._take_seeks, keys, [pairing_id, repr(now), json.dumps(seeks, ensure_ascii=False), *(seek["id"] for seek in seeks)])
            for pairing_id, seeks in pairings
        ]
        return [bool(taken) for taken in self._run_all(calls)]

    def note_pairing(self, ruleset: str, pairing_id: str, noted: list[dict[str, Any]], now: float) -> None:
        """Note a pairing made of no queued seek (an accepted challenge's), as :meth:`take_pairings`
        notes one: ``noted`` is what settling it when it is left unmade needs."""
        self._take_seeks(keys=self._take_keys(ruleset), args=[pairing_id, repr(now), json.dumps(noted, ensure_ascii=False)])

    def pairing_noted(self, ruleset: str, pairing_id: str) -> bool:
        """Whether the pairing is noted and not settled."""
        return bool(self.redis.hexists(self.arena_key(ruleset, "pairing"), pairing_id))

    def list_pairings(self, ruleset: str, listed: list[tuple[str, dict[str, dict[str, Any]], list[str], dict[str, Any]]], now: float) -> list[bool]:
        """List the games of each pairing ``(id, its games: id -> who sits where, its seek ids,
        what is to be told)``, in one round trip: whether each was (:data:`LIST_SCRIPT`)."""
        keys = self._arena_keys(ruleset, "match", "matches", "withdrawn", "pairing", "to_tell")
        calls = []
        for pairing_id, matches, seek_ids, tell in listed:
            games = [part for game_id, match in matches.items() for part in (game_id, json.dumps(match, ensure_ascii=False))]
            calls.append((self._list, keys, [pairing_id, repr(now), json.dumps(tell, ensure_ascii=False), len(matches), *games, *seek_ids]))
        return [bool(done) for done in self._run_all(calls)]

    def put_back(self, ruleset: str, pairing_id: str, seeks: list[dict[str, Any]]) -> list[str] | None:
        """Put back the seeks of a pairing whose game was not made (:data:`PUT_BACK_SCRIPT`): the
        ids of those withdrawn meanwhile; None when its games were listed or it was settled already."""
        keys = self._arena_keys(ruleset, "seeks", "seek", "withdrawn", "pairings", "pairing", "to_tell", "in_pairing")
        args = [pairing_id, *(part for seek in seeks for part in (seek["id"], json.dumps(seek, ensure_ascii=False), repr(seek["seeked_at"])))]
        done, *withdrawn = self._put_back(keys=keys, args=args)
        return [seek_id.decode() for seek_id in withdrawn] if done else None

    def pairings_told(self, ruleset: str, pairing_ids: list[str], seek_ids: list[str]) -> None:
        """The pairings' matches are told: they are settled, and their seeks (``seek_ids``) may be
        sought again."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self.arena_key(ruleset, "pairings"), *pairing_ids)
            pipe.hdel(self.arena_key(ruleset, "pairing"), *pairing_ids)
            pipe.hdel(self.arena_key(ruleset, "to_tell"), *pairing_ids)
            pipe.hdel(self.arena_key(ruleset, "in_pairing"), *seek_ids)
            pipe.execute()

    def pairings_before(self, ruleset: str, moment: float) -> list[tuple[str, list[dict[str, Any]], dict[str, Any] | None]]:
        """The pairings noted before ``moment`` and not settled: (id, seeks, what is to be told if listed)."""
        ids = [pairing_id.decode() for pairing_id in self.redis.zrangebyscore(self.arena_key(ruleset, "pairings"), "-inf", repr(moment))]
        if not ids:
            return []
        seeks = self.redis.hmget(self.arena_key(ruleset, "pairing"), ids)
        tells = self.redis.hmget(self.arena_key(ruleset, "to_tell"), ids)
        return [
            (pairing_id, json.loads(taken), json.loads(tell) if tell is not None else None)
            for pairing_id, taken, tell in zip(ids, seeks, tells)
            if taken is not None
        ]

    # --- matches --------------------------------------------------------------------------------

    def match(self, ruleset: str, game_id: str) -> dict[str, Any] | None:
        """Who sits where in an arena game in progress (or ended and not yet settled); None: no such match."""
        raw = self.redis.hget(self.arena_key(ruleset, "match"), game_id)
        return json.loads(raw) if raw is not None else None

    def has_matches(self, rulesets: list[str]) -> bool:
        """Whether any of ``rulesets`` has an arena match in progress (or ended, not yet settled)."""
        return any(self.redis.zcard(self.arena_key(ruleset, "matches")) for ruleset in rulesets)

    def matches_started_before(self, ruleset: str, before: float) -> dict[str, dict[str, Any]]:
        """The arena games of the ruleset in progress (or not yet settled) started before ``before``."""
        ids = self.redis.zrangebyscore(self.arena_key(ruleset, "matches"), "-inf", repr(before))
        if not ids:
            return {}
        raw = self.redis.hmget(self.arena_key(ruleset, "match"), ids)
        return {game_id.decode(): json.loads(value) for game_id, value in zip(ids, raw) if value is not None}

    def drop_match(self, ruleset: str, game_id: str) -> None:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self.arena_key(ruleset, "matches"), game_id)
            pipe.hdel(self.arena_key(ruleset, "match"), game_id)
            pipe.execute()

    # --- ratings --------------------------------------------------------------------------------

    def ratings(self, ruleset: str, accounts: list[str]) -> list[str | None]:
        """The stored ratings (JSON text as stored, compared again when recording) of ``accounts``."""
        raw = self.redis.hmget(self.arena_key(ruleset, "ratings"), accounts)
        return [value.decode() if value is not None else None for value in raw]

    def record(
        self, ruleset: str, game_id: str, result: str, established: int, recent: int, entries: list[tuple[str, str, str, float, int]]
    ) -> tuple[int, str]:
        """Record a result with its accounts' ratings (see :data:`RECORD_SCRIPT`): (outcome, text)."""
        keys = [self.arena_key(ruleset, name) for name in ("ratings", "board", "provisional", "rated", "results", "played")]
        keys += [self.arena_key(ruleset, f"recent:{account}") for account, *_ in entries]
        args: list[Any] = [game_id, result, established, recent]
        for account, expected, new, score, games in entries:
            args += [account, expected, new, repr(score), games]
        outcome, text = self._record(keys=keys, args=args)
        return int(outcome), text.decode() if isinstance(text, bytes) else text

    def played(self, ruleset: str, account: str) -> int:
        """The arena games of the ruleset the account played to the end, rated or not."""
        return int(self.redis.hget(self.arena_key(ruleset, "played"), account) or 0)

    def results(self, ruleset: str) -> list[dict[str, Any]]:
        """Every result of the ruleset in the order recorded."""
        return [json.loads(value) for value in self.redis.lrange(self.arena_key(ruleset, "results"), 0, -1)]

    def recent(self, ruleset: str, account: str, count: int) -> list[dict[str, Any]]:
        return [json.loads(value) for value in self.redis.lrange(self.arena_key(ruleset, f"recent:{account}"), 0, count - 1)]

    def board(self, ruleset: str, provisional: bool, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """A page of the leaderboard (or of the provisional accounts), best first, and how many there are."""
        key = self.arena_key(ruleset, "provisional" if provisional else "board")
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrevrange(key, offset, offset + limit - 1)
            pipe.zcard(key)
            ids, total = pipe.execute()
        if not ids:
            return [], int(total)
        raw = self.redis.hmget(self.arena_key(ruleset, "ratings"), ids)
        return [json.loads(value) for value in raw if value is not None], int(total)
