"""Due computer moves: which games wait for a computer's move, kept in each game's own slot.

A due computer move is kept in the game's own slot, so that it is written by the same script on
one Redis and on a Redis Cluster alike: ``<prefix>:{<tag>}:due`` is a sorted set of the games of
one slot whose computer is due, scored by when (``<tag>`` is a short string that hashes to that
slot: :func:`slot_tag`). Workers claim entries from it (a lease: the score moves past the lease)
and learn of new ones from the channel ``<prefix>:{<id>}:computer``, published by the same
script, or by sweeping the due sets (see ``service/worker.py``). New games are given ids in one
slot out of :data:`DUE_SPACING`, so that a sweep of :data:`DUE_SLOT_COUNT` sets finds them all,
spread over every node of a cluster.
"""

from __future__ import annotations

import functools
import secrets
from binascii import crc_hqx
from typing import TYPE_CHECKING, Any

from redis.crc import key_slot

#: KEYS: the due computer moves of one slot. ARGV: the lease (seconds), the most to claim, then
#: the games to claim (none: any that are due). Takes the games whose move is due (the score has
#: passed), moving each one's score past the lease, so that no other worker takes it meanwhile;
#: a worker that stops holding one lets it fall due again. Returns the games claimed.
CLAIM_SCRIPT = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local games = {}
if #ARGV > 2 then
  for index = 3, #ARGV do
    local due = redis.call('ZSCORE', KEYS[1], ARGV[index])
    if due and tonumber(due) <= now then games[#games + 1] = ARGV[index] end
  end
else
  games = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
end
for _, game in ipairs(games) do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), game) end
return games
"""

#: KEYS: the due computer moves of the game's slot, the game hash. ARGV: game id, the version a
#: worker found no computer move in ("" for no game). Drops the game's entry if the game is still
#: at that version (or still gone): a change since recorded what is due itself.
SETTLE_SCRIPT = """
if (redis.call('HGET', KEYS[2], 'version') or '') == ARGV[2] then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


#: the hash slots of a Redis Cluster (one Redis has them all)
SLOTS = 16384
#: new games are given ids in one slot out of this many: the slots a worker sweeps often
DUE_SPACING = 64
DUE_SLOT_COUNT = SLOTS // DUE_SPACING


def _tag_basis() -> tuple[bytes, int, dict[int, tuple[int, int]]]:
    """The slot of a key tagged with four characters of ``@A..O`` is linear in their 16 low bits
    (CRC16 is linear over GF(2)): a base tag, its slot, and an echelon basis of the slot changes
    that flipping those bits makes (pivot bit -> (change, the bits flipped))."""
    base = b"@@@@"
    base_slot = crc_hqx(base, 0) % SLOTS
    basis: dict[int, tuple[int, int]] = {}
    for bit in range(16):
        flipped = bytearray(base)
        flipped[bit // 4] ^= 1 << (bit % 4)
        change, bits = (crc_hqx(bytes(flipped), 0) % SLOTS) ^ base_slot, 1 << bit
        for pivot in sorted(basis, reverse=True):
            if change >> pivot & 1:
                change, bits = change ^ basis[pivot][0], bits ^ basis[pivot][1]
        if change:
            basis[change.bit_length() - 1] = (change, bits)
    return base, base_slot, basis


_TAG_BASE, _TAG_BASE_SLOT, _TAG_BASIS = _tag_basis()


@functools.cache
def slot_tag(slot: int) -> str:
    """A hash tag whose keys live in ``slot``: four characters, found without a search."""
    change, bits = slot ^ _TAG_BASE_SLOT, 0
    for pivot in sorted(_TAG_BASIS, reverse=True):
        if change >> pivot & 1:
            change, bits = change ^ _TAG_BASIS[pivot][0], bits ^ _TAG_BASIS[pivot][1]
    return bytes(char ^ (bits >> 4 * index & 15) for index, char in enumerate(_TAG_BASE)).decode()


def game_slot(game_id: str) -> int:
    return key_slot(f"{{{game_id}}}".encode())


class DueMoves:
    """The game store's due computer moves (a part of :class:`~service.store.GameStore`, whose
    client, prefix, keys and scripts it uses)."""

    redis: Any
    prefix: str
    cluster: bool
    _claim: Any
    _settle: Any

    if TYPE_CHECKING:  # the store's

        def _key(self, game_id: str, name: str) -> str: ...

        def _evalsha_all(self, client: Any, script: Any, calls: list[tuple[list[str], list[Any]]], *, wait: bool = False) -> list[Any]: ...

        @property
        def channel_pattern(self) -> str: ...

    def new_game_id(self) -> str:
        """A new game's id, random, in one of the slots a worker sweeps often."""
        while True:
            game_id = secrets.token_hex(8)
            if game_slot(game_id) % DUE_SPACING == 0:
                return game_id

    def due_key(self, slot: int) -> str:
        return f"{self.prefix}:{{{slot_tag(slot)}}}:due"

    def ended_key(self, slot: int) -> str:
        """The arena matches of one slot that ended and are not settled yet (see :mod:`.arena.matchmaker`)."""
        return f"{self.prefix}:{{{slot_tag(slot)}}}:arena-ended"

    def ended_arena_games(self, count: int) -> list[str]:
        """Up to ``count`` arena games of each slot of new games whose end was committed and is not
        settled yet: one round trip per node."""
        with self.redis.pipeline(transaction=False) as pipe:
            for index in range(DUE_SLOT_COUNT):
                pipe.zrange(self.ended_key(index * DUE_SPACING), 0, count - 1)
            answers = pipe.execute()
        return [game.decode() for games in answers for game in games]

    def forget_ended(self, game_id: str) -> None:
        """The arena settled the match ``game_id``: its end is no longer news."""
        self.redis.zrem(self.ended_key(game_slot(game_id)), game_id)

    def computer_channel(self, game_id: str) -> str:
        return self._key(game_id, "computer")

    @property
    def computer_channel_pattern(self) -> str:
        return self.channel_pattern.removesuffix(":versions") + ":computer"

    def take_sweep(self, worker: str, seconds: float) -> bool:
        """Whether ``worker`` takes the sweep of the next ``seconds`` (no other worker has it)."""
        return bool(self.redis.set(f"{self.prefix}:sweep", worker, nx=True, px=max(1, int(seconds * 1000))))

    def due_slots(self, slots: list[int], now: float) -> list[int]:
        """Of ``slots``, those with a computer move due by ``now``: one round trip per node."""
        with self.redis.pipeline(transaction=False) as pipe:
            for slot in slots:
                pipe.zcount(self.due_key(slot), "-inf", repr(now))
            counts = pipe.execute()
        return [slot for slot, count in zip(slots, counts) if count]

    def claim(self, game_ids: list[str], lease_seconds: float) -> list[str]:
        """Of ``game_ids``, those whose computer move is due, each now held by the caller for
        ``lease_seconds`` (or until a commit of the game records what is due anew)."""
        by_slot: dict[int, list[str]] = {}
        for game_id in dict.fromkeys(game_ids):  # a game announced twice is claimed once
            by_slot.setdefault(game_slot(game_id), []).append(game_id)
        calls = [([self.due_key(slot)], [repr(lease_seconds), len(games), *games]) for slot, games in by_slot.items()]
        return self._claim_calls(calls)

    def claim_due(self, slots: list[int], lease_seconds: float, count: int) -> list[str]:
        """Up to ``count`` games of each of ``slots`` whose computer move is due, held as by :meth:`claim`."""
        return self._claim_calls([([self.due_key(slot)], [repr(lease_seconds), count]) for slot in slots])

    def _claim_calls(self, calls: list[tuple[list[str], list[Any]]]) -> list[str]:
        if not calls:
            return []
        if self.cluster:
            answers = [self._claim(keys=keys, args=args) for keys, args in calls]
        else:
            answers = self._evalsha_all(self.redis, self._claim, calls)
        return [game.decode() for games in answers for game in games]

    def settle(self, game_id: str, version: int | None) -> None:
        """Drop a claimed game's due entry: it was found at ``version`` (None: gone) with no
        computer to move, and has not changed since."""
        self._settle(keys=[self.due_key(game_slot(game_id)), self._key(game_id, "game")], args=[game_id, "" if version is None else version])
