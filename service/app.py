"""The app factory."""

from __future__ import annotations

from flask import Flask, request
from flask_cors import CORS
from flask_swagger_ui import get_swaggerui_blueprint
from redis import BlockingConnectionPool, Redis

from .api import Api
from .config import Settings
from .embedded import EmbeddedRedis
from .errors import Problem
from .resources import BLUEPRINTS
from .store import GameStore
from .tables import Tables

API_DESCRIPTION = """\
Koz hosts trick-taking card games: German Whist, Partnership Batak and Sixty-Six.

Create a game (`POST /v1/games`), keep the seat tokens it returns, see the game as a seat
(`GET /v1/games/{id}` with `Authorization: Bearer <token>`) or as a spectator (no token), act
by posting one of the view's `legal_actions` (`POST /v1/games/{id}/actions`), and read the
history (`GET /v1/games/{id}/history`). Hidden cards never leave the server for anyone who may
not see them; once a match is over the history reveals everything.

Every error is `application/problem+json` with a stable `code`. Every view carries `version`
(also its ETag); `If-Match` on an action guards against acting on a stale view, and
`Idempotency-Key` makes retries safe.
"""


#: Redis connections of one process at most; more requests in flight wait for one
MAX_CONNECTIONS = 64


def shared_client(url: str) -> Redis:
    """A client for every request of a process. Under gevent thousands of requests may be in
    flight at once: past ``MAX_CONNECTIONS`` a request waits for a free connection rather than
    failing. (Waiting requests hold none: they wait on the process's one subscription.)"""
    return Redis(connection_pool=BlockingConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS, timeout=20))


def create_app(settings: Settings | None = None, redis: Redis | None = None) -> Flask:
    """A Koz app. Without ``redis``, it connects to ``settings.redis_url``; without that, it
    starts an embedded redis-server, which the caller stops with ``app.extensions["koz_embedded"].stop()``."""
    settings = settings or Settings.from_env()
    app = Flask("koz")
    app.config.update(
        API_TITLE="Koz",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        API_SPEC_OPTIONS={"info": {"description": API_DESCRIPTION, "license": {"name": "MIT", "identifier": "MIT"}}},
    )
    app.json.sort_keys = False
    app.json.ensure_ascii = False  # names are often Turkish
    if redis is None:
        if settings.redis_url:
            redis = shared_client(settings.redis_url)
        else:
            embedded = EmbeddedRedis(settings.data_dir)
            app.extensions["koz_embedded"] = embedded
            redis = shared_client(f"unix://{embedded.client.socket_file}")
    app.extensions["koz"] = Tables(GameStore(redis, ttl_seconds=settings.game_ttl_seconds, prefix=settings.key_prefix), settings)

    api = Api(app)
    api.spec.components.security_scheme(
        "seatToken",
        {"type": "http", "scheme": "bearer", "description": "A seat token, as returned once when the game was created"},
    )
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)

    app.register_blueprint(get_swaggerui_blueprint("/docs", "/openapi.json", config={"app_name": "Koz API"}))
    CORS(
        app,
        origins="*",
        send_wildcard=True,
        methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "Last-Event-ID"],
        expose_headers=["ETag", "Location", "Idempotent-Replayed"],
        max_age=600,
    )

    @app.before_request
    def bodies_are_json():
        if request.method == "POST" and request.content_length and not request.is_json:
            raise Problem(415, "unsupported_media_type", "send the body as application/json")

    return app
