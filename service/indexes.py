"""The store's keys of their own, apart from any game's slot: the lobby's index of public games
with open seats, each address's games waiting for players, and the turn clocks' schedule. On a
Redis Cluster each lives on one node and is written beside a game's compare-and-set, not inside
it; on one Redis, a commit schedules its clock itself (a part of :class:`~service.store.GameStore`,
whose client, prefix and scripts it uses).
"""

from __future__ import annotations

import time
from typing import Any

#: KEYS: the clocks. ARGV: game id, now. Removes the game's deadline only if it is due.
UNSCHEDULE_SCRIPT = """
local deadline = redis.call('ZSCORE', KEYS[1], ARGV[1])
if deadline and tonumber(deadline) <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


#: KEYS: an address's waiting games. ARGV: game id, now, its expiry, the cap (0: none), the
#: key's own expiry in seconds. Drops the games expired by now; adds the game if the address
#: keeps fewer than the cap waiting: 1 if added, 0 if at the cap.
RESERVE_WAITING_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local cap = tonumber(ARGV[4])
if cap > 0 and redis.call('ZCARD', KEYS[1]) >= cap then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


class Indexes:
    """The game store's lobby, waiting games per address and turn clocks."""

    redis: Any
    prefix: str
    ttl_seconds: int
    _unschedule: Any
    _reserve_waiting: Any

    # Public games with open seats are indexed in sorted sets by creation time: one of all games
    # (``<prefix>:lobby``) and one per ruleset (``<prefix>:lobby:<ruleset>``). Written beside the
    # game's compare-and-set, an entry may outlive its game's last open seat (or the game), and
    # whoever lists it drops it then.

    def _lobby_keys(self, ruleset: str | None) -> list[str]:
        return [f"{self.prefix}:lobby"] + ([f"{self.prefix}:lobby:{ruleset}"] if ruleset else [])

    def list_waiting(self, ruleset: str, game_id: str) -> None:
        created = time.time()
        for key in self._lobby_keys(ruleset):
            self.redis.zadd(key, {game_id: created})
            self.redis.expire(key, self.ttl_seconds)

    def unlist_waiting(self, ruleset: str | None, game_id: str) -> None:
        for key in self._lobby_keys(ruleset):
            self.redis.zrem(key, game_id)

    def waiting(self, ruleset: str | None, count: int, before: float | None) -> list[tuple[str, float]]:
        """Up to ``count`` listed games, newest first, created before ``before`` (None: any)."""
        key = self._lobby_keys(ruleset)[-1]
        entries = self.redis.zrevrangebyscore(key, f"({before!r}" if before is not None else "+inf", "-inf", start=0, num=count, withscores=True)
        return [(game_id.decode(), score) for game_id, score in entries]

    # Each address's games waiting for players, by when they expire (``<prefix>:waiting-from:<host>``,
    # the host a hash of the address): a game leaves it when it starts, is withdrawn or expires.

    def _waiting_from_key(self, host: str) -> str:
        return f"{self.prefix}:waiting-from:{host}"

    def reserve_waiting(self, host: str, game_id: str, expires: float, cap: int, ttl_seconds: int) -> bool:
        """Count ``game_id`` among ``host``'s waiting games, unless it keeps ``cap`` already (0: no cap)."""
        keys = [self._waiting_from_key(host)]
        return bool(self._reserve_waiting(keys=keys, args=[game_id, time.time(), expires, cap, max(1, ttl_seconds)]))

    def release_waiting(self, host: str, game_id: str) -> None:
        self.redis.zrem(self._waiting_from_key(host), game_id)

    # --- turn clocks ------------------------------------------------------------------------
    #
    # The deadline of each timed game's seat to act, in one sorted set (``<prefix>:clocks``, a
    # key of its own like the lobby's), read by whoever enforces the clocks. Each commit of a
    # game schedules its new deadline (GameStore.prepare); these are for the clocks' checks.

    def _clocks_key(self) -> str:
        return f"{self.prefix}:clocks"

    def schedule_clock(self, game_id: str, deadline: float) -> None:
        self.redis.zadd(self._clocks_key(), {game_id: deadline})

    def schedule_clocks(self, deadlines: dict[str, float]) -> None:
        """:meth:`schedule_clock` for several games at once."""
        self.redis.zadd(self._clocks_key(), deadlines)

    def unschedule_clock(self, game_id: str, now: float) -> None:
        """Drop a game's entry if it is due (a later deadline, just scheduled by a change of the game, stays)."""
        self._unschedule(keys=[self._clocks_key()], args=[game_id, repr(now)])

    def due_clocks(self, now: float, count: int = 100) -> list[str]:
        """Games whose deadline has passed, earliest first."""
        return [game_id.decode() for game_id in self.redis.zrangebyscore(self._clocks_key(), "-inf", repr(now), start=0, num=count)]
