"""The game store: each game's record and history in Redis, written by one atomic script.

Keys of a game share the hash tag ``{<game id>}`` so a Redis Cluster keeps them on one node:

- ``<prefix>:{<id>}:game``: a hash with the ``version`` and the ``record`` (JSON)
- ``<prefix>:{<id>}:history``: a sorted set of history entries scored by version
- ``<prefix>:{<id>}:idem:<seat>:<key hash>``: the first answer to an idempotent action

and one key for the whole service: ``<prefix>:computers``, the stream of computer moves to make
(a Redis Streams consumer group, read by the workers; see ``service/worker.py``).

Every change is one call of :data:`COMMIT_SCRIPT`: it checks the version, writes the record,
appends the history, stores the idempotent answer, renews the expiry and announces the new
version, all or nothing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Sequence

from redis import Redis
from redis.exceptions import NoScriptError

#: ARGV: expected version ("new" to create), new version, record, ttl, idempotent answer ("" for
#: none), channel, then score/member pairs of history entries.
#: Returns {1, version} when written, {0, version} on a version mismatch (or an existing game when
#: creating), {2, answer} when the idempotency key has an answer already, {3, ""} for no game.
COMMIT_SCRIPT = """
local expected, new_version, record, ttl, answer, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if answer ~= '' then
  local seen = redis.call('GET', KEYS[3])
  if seen then return {2, seen} end
end
local current = redis.call('HGET', KEYS[1], 'version')
if expected == 'new' then
  if current then return {0, current} end
elseif not current then
  return {3, ''}
elseif current ~= expected then
  return {0, current}
end
redis.call('HSET', KEYS[1], 'version', new_version, 'record', record)
redis.call('EXPIRE', KEYS[1], ttl)
local batch = {}
for i = 7, #ARGV do
  batch[#batch + 1] = ARGV[i]
  if #batch == 200 or i == #ARGV then
    redis.call('ZADD', KEYS[2], unpack(batch))
    batch = {}
  end
end
redis.call('EXPIRE', KEYS[2], ttl)
if answer ~= '' then redis.call('SET', KEYS[3], answer, 'EX', ttl) end
redis.call('PUBLISH', channel, new_version)
return {1, new_version}
"""


@dataclass(frozen=True)
class Stored:
    """A game as read from the store: its version and its record."""

    version: int
    record: dict[str, Any]


@dataclass(frozen=True)
class Commit:
    """The outcome of a write: ``written``, or why not (a stale version or an earlier answer)."""

    written: bool
    version: int | None = None
    earlier_answer: dict[str, Any] | None = None
    missing: bool = False


class GameStore:
    def __init__(self, redis: Redis, *, ttl_seconds: int, prefix: str = "koz") -> None:
        self.redis = redis
        self.ttl_seconds = ttl_seconds
        self.prefix = prefix
        self._commit = redis.register_script(COMMIT_SCRIPT)

    # --- keys -------------------------------------------------------------------------------

    def _key(self, game_id: str, name: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:{name}"

    def _idempotency_key(self, game_id: str, seat: int, key: str) -> str:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return self._key(game_id, f"idem:{seat}:{digest}")

    def channel(self, game_id: str) -> str:
        return self._key(game_id, "versions")

    # --- reads ------------------------------------------------------------------------------

    def load(self, game_id: str) -> Stored | None:
        version, record = self.redis.hmget(self._key(game_id, "game"), ["version", "record"])
        if version is None or record is None:
            return None
        return Stored(int(version), json.loads(record))

    def version(self, game_id: str) -> int | None:
        version = self.redis.hget(self._key(game_id, "game"), "version")
        return int(version) if version is not None else None

    def history(self, game_id: str, after: int, up_to: float) -> list[tuple[int, dict[str, Any]]]:
        """History entries with ``after < version <= up_to``, in order, as (version, entry)."""
        members: list[tuple[bytes, float]] = self.redis.zrangebyscore(  # type: ignore[assignment]
            self._key(game_id, "history"), f"({after}", up_to, withscores=True
        )
        return [(int(score), json.loads(member.split(b"|", 1)[1])) for member, score in members]

    def idempotent_answer(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        answer = self.redis.get(self._idempotency_key(game_id, seat, key))
        return json.loads(answer) if answer is not None else None

    def ping(self) -> bool:
        return bool(self.redis.ping())

    # --- writes -----------------------------------------------------------------------------

    def commit(
        self,
        game_id: str,
        expected_version: int | None,
        version: int,
        record: dict[str, Any],
        entries: Sequence[tuple[int, int, dict[str, Any]]],
        *,
        idempotency: tuple[int, str, dict[str, Any]] | None = None,
        schedule: bool = False,
        ttl_seconds: int | None = None,
    ) -> Commit:
        """Write a new version atomically, or nothing.

        ``expected_version`` None creates the game. ``entries`` are (version, sequence number,
        entry); the sequence number orders entries of one version. ``idempotency`` is (seat, key,
        answer): the answer a retry with that key gets. ``ttl_seconds`` overrides the store's
        expiry (finished games are kept for less time). ``schedule`` queues a computer move for
        the game in the same transaction, so that no commit leaving a computer to act is without
        its job.
        """
        answer_key = self._idempotency_key(game_id, idempotency[0], idempotency[1]) if idempotency else self._key(game_id, "idem:none")
        args: list[Any] = [
            "new" if expected_version is None else expected_version,
            version,
            json.dumps(record, separators=(",", ":")),
            ttl_seconds or self.ttl_seconds,
            json.dumps(idempotency[2], separators=(",", ":")) if idempotency else "",
            self.channel(game_id),
        ]
        for entry_version, sequence, entry in entries:
            args += [entry_version, f"{sequence:010d}|" + json.dumps(entry, separators=(",", ":"))]
        keys = [self._key(game_id, "game"), self._key(game_id, "history"), answer_key]
        if schedule:
            status, value = self._commit_and_schedule(game_id, keys, args)
        else:
            status, value = self._commit(keys=keys, args=args)
        if status == 1:
            return Commit(True, int(value))
        if status == 2:
            return Commit(False, earlier_answer=json.loads(value))
        if status == 3:
            return Commit(False, missing=True)
        return Commit(False, int(value))

    def _commit_and_schedule(self, game_id: str, keys: list[str], args: list[Any]) -> tuple[int, Any]:
        # MULTI/EXEC: the job is queued even when the script writes nothing; the worker then
        # finds nothing due at the game's version and lets it go. EVALSHA by hand: a pipeline
        # running a Script object asks SCRIPT EXISTS first, one more round trip every time.
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.evalsha(self._commit.sha, len(keys), *keys, *args)
            pipe.xadd(self.jobs_key, {"game": game_id})
            result, _ = pipe.execute(raise_on_error=False)
        if isinstance(result, NoScriptError):  # the server lost its scripts (a restart); the job is queued
            return self._commit(keys=keys, args=args)
        if isinstance(result, Exception):
            raise result
        return result

    # --- computer moves: a stream read by a consumer group ----------------------------------

    @property
    def jobs_key(self) -> str:
        return f"{self.prefix}:computers"

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
