"""Rate limits, counted in Redis so that they hold across processes (flask-limiter).

Games created are counted per client address, actions and hints per seat token (a hash of it: the token
itself is never stored). A client over a limit gets 429 ``rate_limited`` with ``Retry-After``;
every limited answer carries the IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers:
``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset`` in seconds, and
``RateLimit-Policy``).
"""

from __future__ import annotations

from typing import Any, cast

import hashlib
from functools import partial
import math
import time

from flask import Flask, Response, request
from flask_limiter import Limiter
from limits import RateLimitItem, parse
from redis import Redis
from redis.cluster import RedisCluster

from .config import Settings
from .errors import Problem


def client_address() -> str:
    return request.remote_addr or "unknown"


def seat_token_key() -> str:
    """The seat token's hash, or the client's address for a request without one."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    return token_key(token if scheme.lower() == "bearer" else None)


def token_key(token: str | None) -> str:
    """What a seat's actions are counted by: its token's hash, else the client's address."""
    if token is not None and token.strip():
        return "token:" + hashlib.sha256(token.strip().encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return "address:" + client_address()


#: the endpoint each limit applies to, and whom it counts
LIMITED = {
    "games.create_game": ("rate_limit_create", client_address),
    "actions.post_action": ("rate_limit_actions", seat_token_key),
    # taking a seat issues a token and a rematch makes a game: counted like creating one
    "seats.take_seat": ("rate_limit_create", client_address),
    "seats.rematch": ("rate_limit_create", client_address),
    "seats.leave": ("rate_limit_actions", seat_token_key),
    # a hint is a search by the expert: the costliest request there is
    "hints.get_hint": ("rate_limit_hints", seat_token_key),
    # the arena: accounts made per address, seeks and challenges per account key (counted like creating games)
    "accounts.create_account": ("rate_limit_create", client_address),
    "arena.create_seek": ("rate_limit_create", seat_token_key),
    "challenges.create_challenge": ("rate_limit_create", seat_token_key),
}


class RouteLimiter(Limiter):
    """flask-limiter with only the limits of routes (:data:`LIMITED`), each checked by its route's
    decorator as the route is called. flask-limiter also hooks every request: before it is routed
    (limits on the whole application or by default), after (its own headers, deductions made
    only for some answers) and at its end (its per-request state), none of which Koz has. Those
    hooks found nothing to do, on every request, long-polls and moves alike, at a few per cent of
    a request's CPU; they are not installed (flask-limiter installs them once per application,
    and takes this one as done)."""

    def init_app(self, app: Flask) -> None:
        app.extensions.setdefault("limiter", set()).add(self)
        super().init_app(app)


def install(app: Flask, settings: Settings, redis: Redis | RedisCluster) -> Limiter | None:
    if not any(getattr(settings, setting) for setting, _ in LIMITED.values()):
        return None
    if isinstance(redis, RedisCluster):  # the limits library keeps a cluster client of its own
        node = redis.get_default_node()
        storage: dict[str, Any] = {"storage_uri": f"redis+cluster://{node.host}:{node.port}"}
    else:
        storage = {"storage_uri": "redis://", "storage_options": {"connection_pool": redis.connection_pool}}
    prefix = f"{settings.key_prefix}:limits"
    limiter = RouteLimiter(
        key_func=client_address,
        app=app,
        **storage,
        key_prefix=prefix,
        headers_enabled=False,  # the IETF headers are written below
    )
    limited = set()
    for endpoint, (setting, key_func) in LIMITED.items():
        if getattr(settings, setting):
            parse(getattr(settings, setting))  # a malformed limit fails at start, not per request
            limit = limiter.limit(getattr(settings, setting), key_func=key_func)
            app.view_functions[endpoint] = cast(Any, limit(app.view_functions[endpoint]))
            limited.add(endpoint)

    if "actions.post_action" in limited:
        app.extensions["koz_action_limit"] = partial(count_action, limiter, prefix, parse(settings.rate_limit_actions))

    @app.after_request
    def rate_limit_headers(response: Response) -> Response:
        if request.endpoint not in limited:  # (a route without a limit has none to tell)
            return response
        current = limiter.current_limit
        if current is not None:
            window = current.limit.get_expiry()
            reset = min(window, max(0, math.ceil(current.reset_at - time.time())))  # reset_at is rounded up
            response.headers["RateLimit-Limit"] = str(current.limit.amount)
            response.headers["RateLimit-Remaining"] = str(current.remaining)
            response.headers["RateLimit-Reset"] = str(reset)
            response.headers["RateLimit-Policy"] = f"{current.limit.amount};w={window}"
            if current.breached:
                response.headers["Retry-After"] = str(max(1, reset))
        return response

    return limiter


def count_action(limiter: Limiter, prefix: str, limit: RateLimitItem, token: str | None) -> None:
    """Count an action sent over a play connection, in the same count as ``POST /actions`` by the
    same token (flask-limiter's key for it: its prefix, whom it counts, the route); over the limit,
    the 429 that route answers."""
    identifiers = (prefix, token_key(token), "actions.post_action")
    if not limiter.limiter.hit(limit, *identifiers):
        reset = math.ceil(limiter.limiter.get_window_stats(limit, *identifiers).reset_time - time.time())
        raise Problem(429, "rate_limited", "rate_limited", params={"description": str(limit)}, headers={"Retry-After": str(max(1, reset))})
