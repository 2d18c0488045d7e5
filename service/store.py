"""The game store: each game's setup, action log and snapshot in Redis, written by one atomic script.

A game is fully determined by its setup (ruleset, options, seats, seed) and its actions, so that
is what is kept; a snapshot of the current state spares replaying the log on every request.
Keys of a game share the hash tag ``{<game id>}`` so a Redis Cluster keeps them on one node:

- ``<prefix>:{<id>}:game``: a hash with the ``version``, the ``setup`` (JSON, written once) and
  the ``snapshot`` (zlib-compressed JSON: the current state and what the service keeps beside it;
  once the match is over, only the final state)
- ``<prefix>:{<id>}:log``: the actions in order, in the compact encoding of :mod:`engine.action_log`
  (absent until the first action)
- ``<prefix>:{<id>}:idem:<seat>:<key hash>``: the first answer to an idempotent action

Every change is one call of :data:`COMMIT_SCRIPT`: it checks the version, appends the new
actions to the log, writes the snapshot, stores the idempotent answer, renews the expiry, records
whether a computer is now due to move and announces the new version, all or nothing, and only if
it writes. With ``replicas``, a write answers only once that many replicas hold it (``WAIT``).

The record of a due computer move is written by the same script, in the game's own slot: see
:mod:`.due`.

Games stored before the log existed (a ``record`` field beside a ``history`` sorted set) are
read as :class:`Legacy`, replayed and rewritten in the new layout as they are read (:meth:`Repository.load <service.repository.Repository.load>`).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass
from typing import Any, cast

import orjson
from redis import Redis
from redis.cluster import RedisCluster
from redis.exceptions import AskError, ConnectionError, MovedError, NoScriptError, RedisError, TimeoutError

from .due import CLAIM_SCRIPT, SETTLE_SCRIPT, DueMoves, game_slot
from .indexes import RESERVE_WAITING_SCRIPT, UNSCHEDULE_SCRIPT, Indexes

#: KEYS: game hash, log, idempotent answer, the due computer moves of the game's slot, the ended
#: arena games of the game's slot, and (not on a cluster, where it is another slot's) the turn
#: clocks. ARGV: expected version ("new" to create), new version, setup (written only when
#: creating), snapshot, log bytes to append, ttl, idempotent answer ("" for none), channel, game
#: id, "1" when a computer is due to move in the new version (else "0"), the channel of due
#: computer moves, "1" when the new version ends an arena match (else "0"), the deadline of the
#: seat to act in the new version ("" for none), scheduled among the turn clocks.
#: Returns {1, version} when written, {0, version} on a version mismatch (or an existing game when
#: creating), {2, answer} when the idempotency key has an answer already, {3, ""} for no game.
#: Announces "<new version> <expected version> <log bytes appended>" on the game's channel, and
#: the game's id on the channel of computer moves when one is due.
COMMIT_SCRIPT = """
local expected, new_version, setup, snapshot, appended, ttl, answer, channel, game, due, computers, ended, deadline =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13]
if answer ~= '' then
  local seen = redis.call('GET', KEYS[3])
  if seen then return {2, seen} end
end
local current = redis.call('HGET', KEYS[1], 'version')
if expected == 'new' then
  if current then return {0, current} end
  redis.call('HSET', KEYS[1], 'setup', setup)
elseif not current then
  return {3, ''}
elseif current ~= expected then
  return {0, current}
end
redis.call('HSET', KEYS[1], 'version', new_version, 'snapshot', snapshot)
redis.call('EXPIRE', KEYS[1], ttl)
if appended ~= '' then redis.call('APPEND', KEYS[2], appended) end
redis.call('EXPIRE', KEYS[2], ttl)
if answer ~= '' then redis.call('SET', KEYS[3], answer, 'EX', ttl) end
if due == '1' then
  local now = redis.call('TIME')
  redis.call('ZADD', KEYS[4], tonumber(now[1]) + tonumber(now[2]) / 1000000, game)
else
  redis.call('ZREM', KEYS[4], game)
end
if ended == '1' then redis.call('ZADD', KEYS[5], 'NX', redis.call('TIME')[1], game) end
if deadline ~= '' and KEYS[6] then redis.call('ZADD', KEYS[6], deadline, game) end
redis.call('PUBLISH', channel, new_version .. ' ' .. expected .. ' ' .. appended)
if due == '1' then redis.call('PUBLISH', computers, game) end
return {1, new_version}
"""

#: KEYS: game hash, old history, log. ARGV: the legacy version, setup, snapshot, log.
#: Replaces a legacy record by the setup, snapshot and log, keeping the expiry; 1 if done, 0 if
#: the game changed or went meanwhile.
MIGRATE_SCRIPT = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'record') == 0 then
  return 0
end
local ttl = redis.call('TTL', KEYS[1])
redis.call('HDEL', KEYS[1], 'record')
redis.call('HSET', KEYS[1], 'setup', ARGV[2], 'snapshot', ARGV[3])
redis.call('DEL', KEYS[2])
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[3], ARGV[4])
  if ttl > 0 then redis.call('EXPIRE', KEYS[3], ttl) end
end
return 1
"""


#: KEYS: game hash, log. ARGV: the expected version, the game's channel. Deletes the game if it
#: is still at that version, and announces a version past it, so that its waiters wake and find
#: it gone: 1 if deleted, 0 if it moved on, 3 if there is no game.
WITHDRAW_SCRIPT = """
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return 3 end
if current ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('PUBLISH', ARGV[2], tonumber(current) + 1)
return 1
"""


#: KEYS: an idempotent answer. Reads it and, when there is one, sets its expiry again to what it
#: is: a write after the answer's own in the replication stream, which a ``WAIT`` can then count.
REPLICATED_ANSWER_SCRIPT = """
local answer = redis.call('GET', KEYS[1])
if answer then redis.call('PEXPIRE', KEYS[1], math.max(1, redis.call('PTTL', KEYS[1]))) end
return answer
"""


class ReplicationTimeout(RedisError):
    """A write was made on the primary, but fewer replicas than asked for acknowledged it in time:
    it is not reported as done (a failover now may lose it)."""


def ready(redis: Redis | RedisCluster) -> bool:
    """Whether a Redis can serve: it answers, and a cluster reports its state ok on every primary."""
    if isinstance(redis, RedisCluster):
        answers: Any = redis.cluster_info(target_nodes=RedisCluster.PRIMARIES)
        # one answer per primary, by node name; a single primary's answer comes unwrapped
        infos = [answers] if "cluster_state" in answers else list(answers.values())
        return all(info.get("cluster_state") == "ok" for info in infos)
    return bool(redis.ping())


def pack(document: dict[str, Any]) -> bytes:
    # orjson (compact, UTF-8) and the fastest compression: a snapshot is written at every move,
    # and level 1 packs it within 2% of the default level in two thirds of the time
    return zlib.compress(orjson.dumps(document), 1)


def unpack(data: bytes) -> dict[str, Any]:
    unpacked: dict[str, Any] = orjson.loads(zlib.decompress(data))
    return unpacked


@dataclass(frozen=True)
class Stored:
    """A game as read from the store: its version, setup and snapshot."""

    version: int
    setup: dict[str, Any]
    snapshot: dict[str, Any]


@dataclass(frozen=True)
class Legacy:
    """A game in the format before the action log: one JSON record, its history in a sorted set."""

    version: int
    record: dict[str, Any]


@dataclass(frozen=True)
class Prepared:
    """A write, ready to be made: the commit script's keys and arguments."""

    game_id: str
    keys: list[str]
    args: list[Any]

    @property
    def snapshot(self) -> bytes:
        """The snapshot written, packed as stored."""
        packed: bytes = self.args[3]
        return packed

    @property
    def deadline(self) -> float | None:
        """When the seat to act in the new version times out, if a clock runs."""
        return float(self.args[12]) if self.args[12] else None


@dataclass(frozen=True)
class Commit:
    """The outcome of a write: ``written``, or why not (a stale version or an earlier answer)."""

    written: bool
    version: int | None = None
    earlier_answer: dict[str, Any] | None = None
    missing: bool = False


class GameStore(DueMoves, Indexes):
    def __init__(
        self, redis: Redis | RedisCluster, *, ttl_seconds: int, prefix: str = "koz", replicas: int = 0, replica_timeout: float = 1.0
    ) -> None:
        """``replicas``: a write answers once that many replicas of its primary hold it, or fails
        with :class:`ReplicationTimeout` after ``replica_timeout`` seconds."""
        # redis-py types its replies as sync-or-async unions and its cluster client apart; this
        # store uses the sync clients only, whose replies it reads as they come
        self.redis: Any = cast(Any, redis)
        self.ttl_seconds = ttl_seconds
        self.prefix = prefix
        self.cluster = isinstance(redis, RedisCluster)
        self.replicas = replicas
        self.replica_timeout_ms = max(1, int(replica_timeout * 1000))
        self._commit = self.redis.register_script(COMMIT_SCRIPT)
        self._claim = self.redis.register_script(CLAIM_SCRIPT)
        self._settle = self.redis.register_script(SETTLE_SCRIPT)
        self._migrate = self.redis.register_script(MIGRATE_SCRIPT)
        self._unschedule = self.redis.register_script(UNSCHEDULE_SCRIPT)
        self._withdraw = self.redis.register_script(WITHDRAW_SCRIPT)
        self._reserve_waiting = self.redis.register_script(RESERVE_WAITING_SCRIPT)
        self._replicated_answer = self.redis.register_script(REPLICATED_ANSWER_SCRIPT)

    # --- keys -------------------------------------------------------------------------------

    def _key(self, game_id: str, name: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:{name}"

    def _idempotency_key(self, game_id: str, seat: int, key: str) -> str:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return self._key(game_id, f"idem:{seat}:{digest}")

    def channel(self, game_id: str) -> str:
        return self._key(game_id, "versions")

    # --- reads ------------------------------------------------------------------------------

    def load(self, game_id: str) -> Stored | Legacy | None:
        return self._decode(*self.redis.hmget(self._key(game_id, "game"), ["version", "setup", "snapshot", "record"]))

    @staticmethod
    def _decode(version: bytes | None, setup: bytes | None, snapshot: bytes | None, record: bytes | None) -> Stored | Legacy | None:
        if version is None:
            return None
        if record is not None:
            return Legacy(int(version), json.loads(record))
        if setup is None or snapshot is None:
            return None
        return Stored(int(version), orjson.loads(setup), unpack(snapshot))

    def load_many(self, game_ids: list[str]) -> list[Stored | Legacy | None]:
        """:meth:`load` of several games, in one round trip (one after the other on a cluster)."""
        if len(game_ids) == 1 or self.cluster:
            return [self.load(game_id) for game_id in game_ids]
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hmget(self._key(game_id, "game"), ["version", "setup", "snapshot", "record"])
            return [self._decode(*fields) for fields in pipe.execute()]

    def exist(self, game_ids: list[str]) -> list[bool]:
        """Whether each game is stored, in one round trip (one per node on a cluster)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.exists(self._key(game_id, "game"))
            return [bool(found) for found in pipe.execute()]

    def version(self, game_id: str) -> int | None:
        version = self.redis.hget(self._key(game_id, "game"), "version")
        return int(version) if version is not None else None

    def log(self, game_id: str, start: int = 0) -> bytes:
        """The action log from byte ``start`` on (empty before the first action)."""
        return self.redis.getrange(self._key(game_id, "log"), start, -1) or b""

    def legacy_history(self, game_id: str) -> list[tuple[int, dict[str, Any]]]:
        """A legacy game's history entries in order, as (version, entry)."""
        members: list[tuple[bytes, float]] = self.redis.zrangebyscore(self._key(game_id, "history"), "-inf", "+inf", withscores=True)
        return [(int(score), json.loads(member.split(b"|", 1)[1])) for member, score in members]

    def idempotent_answer(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        """The stored answer of an earlier request with this idempotency key, if any. With
        ``replicas``, only once they hold it (else :class:`ReplicationTimeout`): the earlier
        request may have failed for want of them, and its retry must not report it done sooner."""
        answer_key = self._idempotency_key(game_id, seat, key)
        if not self.replicas:
            answer = self.redis.get(answer_key)
        elif self.cluster:
            answer = self._replicated_on_cluster(self._replicated_answer, [answer_key], [])
        else:
            (answer,) = self._evalsha_all(self.redis, self._replicated_answer, [([answer_key], [])], wait=True)
        return json.loads(answer) if answer is not None else None

    # --- writes -----------------------------------------------------------------------------

    def commit(self, write: Prepared) -> Commit:
        """Make one prepared write (:meth:`prepare`) atomically, or nothing."""
        return self.commit_all([write])[0]

    def prepare(
        self,
        game_id: str,
        expected_version: int | None,
        version: int,
        snapshot: dict[str, Any],
        appended: bytes,
        *,
        setup: dict[str, Any] | None = None,
        idempotency: tuple[int, str, dict[str, Any]] | None = None,
        computer_due: bool = False,
        arena_ended: bool = False,
        deadline: float | None = None,
        ttl_seconds: int | None = None,
    ) -> Prepared:
        """A new version of a game, written atomically or not at all by :meth:`commit` (or with
        others by :meth:`commit_all`).

        ``expected_version`` None creates the game with ``setup``. ``appended`` are the log
        entries of the actions since ``expected_version``. ``idempotency`` is (seat, key,
        answer): the answer a retry with that key gets. ``ttl_seconds`` overrides the store's
        expiry (finished games are kept for less time). ``computer_due``: a computer is to move in
        the new version; the write records it in the game's slot, so that no commit leaving a
        computer to act is without the record a worker finds. ``arena_ended``: the new version is
        an arena match's end; the write records it in the game's slot likewise, for the arena's
        pass to settle (:meth:`ended_arena_games`). ``deadline``: when the seat to act in the new
        version times out; the write schedules it among the turn clocks (on a cluster, whose
        clocks are on another slot, just after: :meth:`commit_all`)."""
        answer_key = self._idempotency_key(game_id, idempotency[0], idempotency[1]) if idempotency else self._key(game_id, "idem:none")
        args: list[Any] = [
            "new" if expected_version is None else expected_version,
            version,
            json.dumps(setup, separators=(",", ":")) if setup is not None else "",
            pack(snapshot),
            appended,
            ttl_seconds or self.ttl_seconds,
            json.dumps(idempotency[2], separators=(",", ":")) if idempotency else "",
            self.channel(game_id),
            game_id,
            "1" if computer_due else "0",
            self.computer_channel(game_id),
            "1" if arena_ended else "0",
            repr(deadline) if deadline is not None else "",
        ]
        slot = game_slot(game_id)
        keys = [self._key(game_id, "game"), self._key(game_id, "log"), answer_key, self.due_key(slot), self.ended_key(slot)]
        if not self.cluster:
            keys.append(self._clocks_key())
        return Prepared(game_id, keys, args)

    def commit_all(self, writes: list[Prepared]) -> list[Commit]:
        """Make the prepared writes, each atomic by itself, in one round trip (one after the
        other on a cluster, whose games live on different nodes); their outcomes in order. With
        ``replicas``, they answer once replicated (else :class:`ReplicationTimeout`)."""
        if self.replicas and self.cluster:
            results = [self._replicated_on_cluster(self._commit, write.keys, write.args) for write in writes]
        elif self.replicas:
            results = self._evalsha_all(self.redis, self._commit, [(write.keys, write.args) for write in writes], wait=True)
        elif self.cluster:
            results = [self._commit(keys=write.keys, args=write.args) for write in writes]
        else:
            results = self._evalsha_all(self.redis, self._commit, [(write.keys, write.args) for write in writes])
        if self.cluster:
            # beside the compare-and-set, not in it: a deadline the process did not get to
            # schedule is caught by the next change of the game
            deadlines = {write.game_id: write.deadline for write, (status, _) in zip(writes, results) if status == 1 and write.deadline is not None}
            if deadlines:
                self.schedule_clocks(deadlines)
        return [
            Commit(True, int(value))
            if status == 1
            else Commit(False, earlier_answer=json.loads(value))
            if status == 2
            else Commit(False, missing=True)
            if status == 3
            else Commit(False, int(value))
            for status, value in results
        ]

    def _evalsha_all(self, client: Redis, script: Any, calls: list[tuple[list[str], list[Any]]], *, wait: bool = False) -> list[Any]:
        """A script's calls on one server in one round trip (one connection), followed by
        ``WAIT`` for the replicas when asked: WAIT counts the writes of its own connection."""
        if len(calls) == 1 and not wait:
            return [script(keys=calls[0][0], args=calls[0][1])]
        for _ in range(2):
            # EVALSHA by hand: a pipeline running a Script object asks SCRIPT EXISTS first
            with client.pipeline(transaction=False) as pipe:
                for keys, args in calls:
                    pipe.evalsha(script.sha, len(keys), *keys, *args)
                if wait:
                    pipe.execute_command("WAIT", self.replicas, self.replica_timeout_ms)
                answers = pipe.execute(raise_on_error=False)
            if not any(isinstance(answer, NoScriptError) for answer in answers):
                break
            # the server lost its scripts (a restart, a failover): those calls wrote nothing
            client.script_load(script.script)
        for answer in answers:
            if isinstance(answer, Exception):
                raise answer
        if wait and answers[-1] < self.replicas:
            raise ReplicationTimeout(f"{answers[-1]} of {self.replicas} replicas acknowledged the write in time")
        return answers[: len(calls)]

    def _replicated_on_cluster(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """One script's write on the primary of its slot, on one connection with its ``WAIT``; a
        slot that moved (a failover, a resharding) is looked up again: the refused write wrote
        nothing. A write refused by a lost primary is held through the failover, as the cluster
        client's own commands are (:class:`service.slot_map.FailoverRedisCluster`)."""

        def write() -> Any:
            for attempt in range(3):
                node = self.redis.get_node_from_key(keys[0])
                try:
                    return self._evalsha_all(self.redis.get_redis_connection(node), script, [(keys, args)], wait=True)[0]
                except (MovedError, AskError, ConnectionError, TimeoutError) as error:
                    if isinstance(error, (ConnectionError, TimeoutError)):  # asked last when the map is read again, as redis-py does
                        self.redis.nodes_manager.move_node_to_end_of_cached_nodes(node.name)
                    self.redis.nodes_manager.initialize()  # the next try finds the slot's new primary
                    if attempt == 2 or isinstance(error, TimeoutError):
                        raise
            raise AssertionError("unreachable")

        held = getattr(self.redis, "held", None)
        return held(write) if held is not None else write()

    def replace_legacy(self, game_id: str, version: int, setup: dict[str, Any], snapshot: dict[str, Any], log: bytes) -> bool:
        """Rewrite a legacy game in this format, if it is still at ``version``."""
        keys = [self._key(game_id, "game"), self._key(game_id, "history"), self._key(game_id, "log")]
        args: list[Any] = [version, json.dumps(setup, separators=(",", ":")), pack(snapshot), log]
        return bool(self._migrate(keys=keys, args=args))

    def withdraw(self, game_id: str, version: int) -> Commit:
        """Delete a game if it is still at ``version`` (its creator withdrew it while it waited)."""
        outcome = int(self._withdraw(keys=[self._key(game_id, "game"), self._key(game_id, "log")], args=[version, self.channel(game_id)]))
        return Commit(written=outcome == 1, missing=outcome == 3)

    # --- the lobby --------------------------------------------------------------------------
    #
    # --- announcements ----------------------------------------------------------------------

    @property
    def channel_pattern(self) -> str:
        """The pattern of every game's channel: one subscription hears every game."""
        escaped = "".join("\\" + char if char in "*?[]\\" else char for char in self.prefix)
        return f"{escaped}:{{*}}:versions"

    def game_of_channel(self, channel: str) -> str | None:
        """The game id of a channel named by :meth:`channel`, None for another channel."""
        head, tail = f"{self.prefix}:{{", "}:versions"
        if channel.startswith(head) and channel.endswith(tail):
            return channel[len(head) : -len(tail)]
        return None
