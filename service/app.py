"""The app factory."""

from __future__ import annotations

from typing import Any, Callable

from apispec import APISpec
from flask import Flask, Response, request
from flask.json.provider import DefaultJSONProvider
from flask_cors import CORS
from flask_swagger_ui import get_swaggerui_blueprint
from redis import Redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry
from werkzeug.sansio.response import Response as BaseResponse

from engine import registry

from . import edge, limits, logs, metrics, texts
from .api import Api
from .arena.arena import Arena
from .config import Settings
from .embedded import EmbeddedRedis
from .encoding import json_bytes, json_text
from .errors import Problem
from .metrics import InstrumentedRedis
from .per_address import PerAddress
from .redis_pool import QueueingConnectionPool
from .resources import BLUEPRINTS
from .resources.game_schemas import document_rulesets_apart, document_views
from .resources.hints import HintsAtOnce
from .resources.history import document_events
from .slot_map import FailoverRedisCluster
from .schemas import document_actions, document_levels, document_options, document_request_defaults
from .store import GameStore
from .games import Games
from .web_table import blp as web_table

API_DESCRIPTION = """\
Koz hosts trick-taking card games: GAMES.

Create a game (`POST /v1/games`), keep the seat tokens it returns, see the game as a seat
(`GET /v1/games/{id}` with `Authorization: Bearer <token>`) or as a spectator (no token), act
by posting one of the view's `legal_actions` (`POST /v1/games/{id}/actions`), and read the
history (`GET /v1/games/{id}/history`). Hidden cards never leave the server for anyone who may
not see them; once a match is over the history reveals everything.

Every error is `application/problem+json` with a stable `code`. Every view carries `version`
(also its ETag); `If-Match` on an action guards against acting on a stale view, and
`Idempotency-Key` makes retries safe.
"""


def api_description() -> str:
    names = [ruleset.names["en"] for ruleset in registry.all_rulesets()]
    return API_DESCRIPTION.replace("GAMES", " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names))


#: functions a process remembers as synchronous (the app's hooks and views are a few dozen; a
#: function registered for one request only would otherwise be kept for good)
SYNCHRONOUS_KEPT = 1024


class KozFlask(Flask):
    """Flask, asking once per function whether it must be run as a coroutine: Flask asks
    ``inspect`` of each of a dozen hooks and of the view on every request (an eighth of a
    trivial request's time in the app), and the answer never changes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synchronous: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        found = self._synchronous.get(func)
        if found is None:
            found = super().ensure_sync(func)
            if len(self._synchronous) >= SYNCHRONOUS_KEPT:
                self._synchronous.clear()
            self._synchronous[func] = found
        return found


def answer_simple_requests_at_once(app: Flask) -> None:
    """flask-cors's headers on an answer to a request that is not a preflight, as flask-cors made
    them once at start, rather than made again for every answer (a path match, an origin match and
    a header list: under cProfile, 15% of a trivial request's time in the app; half that now). With Koz's options (any
    origin, the wildcard sent, no credentials) they are the same for every such request;
    flask-cors itself still answers preflights, requests asking for private network access, and
    answers it has already given its headers to (errors, which it handles apart)."""
    hooks = app.after_request_funcs[None]
    (at,) = [number for number, hook in enumerate(hooks) if getattr(hook, "__name__", None) == "cors_after_request"]
    cors_after_request: Callable[[Response], Response] = hooks[at]  # type: ignore[assignment]  # flask-cors's, synchronous
    with app.test_request_context("/"):
        blank = Response()
        present = len(blank.headers)
        simple = list(cors_after_request(blank).headers.items())[present:]
    assert [name for name, _ in simple] == ["Access-Control-Allow-Origin", "Access-Control-Expose-Headers"], simple

    def cors_headers(response: Response) -> Response:
        asked_apart = request.method == "OPTIONS" or "HTTP_ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK" in request.environ
        if asked_apart or "Access-Control-Allow-Origin" in response.headers:
            return cors_after_request(response)
        response.headers.extend(simple)
        return response

    hooks[at] = cors_headers


class FastJSONProvider(DefaultJSONProvider):
    """Answers encoded by orjson (a view took 19 us with the standard encoder, under 1 us with
    it): compact, keys in the order built, text as UTF-8 (names are often Turkish)."""

    sort_keys = False
    ensure_ascii = False

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return super().dumps(obj, **kwargs) if kwargs else json_text(obj)

    def response(self, *args: Any, **kwargs: Any) -> BaseResponse:
        return Response(json_bytes(self._prepare_response_obj(args, kwargs)), mimetype=self.mimetype)


#: seconds /readyz waits for Redis
READINESS_TIMEOUT = 0.5
#: a cluster client's retries of a command (a node lost or timing out), each after a fresh read
#: of the slot map (redis-py 7 takes only their count from its Retry: the pause between them is
#: the slot map's pace, :mod:`service.slot_map`)
CLUSTER_RETRIES = 3
#: Redis connections of one process at most; more requests in flight wait for one, in turn, as
#: long as Redis answers, and past MAX_QUEUED waiting a new one is refused (503 busy)
MAX_CONNECTIONS = 64
MAX_QUEUED = 4096


def redis_client(
    connect_timeout: float, timeout: float, *, url: str | None = None, unix_socket_path: str | None = None, cluster: bool = False
) -> Redis | RedisCluster:
    """A Redis client that gives up after the timeouts, and never retries by itself: a write that
    timed out may have been applied, and only the caller (with its version check and
    idempotency key) can tell. A single server's connections are shared by every request of the
    process: under gevent thousands of requests may be in flight at once, and past
    ``MAX_CONNECTIONS`` a request waits its turn for a free one, as long as Redis answers
    (:class:`QueueingConnectionPool`). Long-polls and streams hold none while they wait: they
    wait on the process's one subscription.

    With ``cluster``, ``url`` names one node of a Redis Cluster; the other nodes are discovered
    from it. The cluster client keeps its own retries: they follow a slot that moved to another
    node, and a repeated compare-and-set cannot apply twice. A command refused by a lost primary
    is held until its failover, for up to ``timeout`` (:mod:`service.slot_map`)."""
    if cluster:
        assert url is not None, "a cluster is named by the URL of one of its nodes"
        retry = Retry(NoBackoff(), CLUSTER_RETRIES)
        return FailoverRedisCluster.connect(url, timeout, socket_connect_timeout=connect_timeout, socket_timeout=timeout, retry=retry)
    options: dict[str, Any] = {"socket_connect_timeout": connect_timeout, "socket_timeout": timeout, "retry": Retry(NoBackoff(), 0)}
    pool = QueueingConnectionPool.from_url(
        url or f"unix://{unix_socket_path}", max_connections=MAX_CONNECTIONS, max_queued=MAX_QUEUED, timeout=timeout, **options
    )
    return InstrumentedRedis(connection_pool=pool)


def game_store(redis: Redis | RedisCluster, settings: Settings) -> GameStore:
    """The store of the settings' games: their key prefix, expiry and replicas."""
    return GameStore(
        redis, ttl_seconds=settings.game_ttl_seconds, prefix=settings.key_prefix,
        replicas=settings.redis_replicas, replica_timeout=settings.redis_replica_timeout,
    )


def document_security_schemes(spec: APISpec) -> None:
    """How requests authenticate: a game's seat token, an arena account's key."""
    spec.components.security_scheme(
        "seatToken",
        {"type": "http", "scheme": "bearer", "description": "A seat token, as returned once when the game was created"},
    )
    spec.components.security_scheme(
        "accountKey",
        {"type": "http", "scheme": "bearer", "description": "An account's key, as returned once when the account was made (`POST /v1/accounts`)"},
    )


def create_app(settings: Settings | None = None, redis: Redis | RedisCluster | None = None, embedded: EmbeddedRedis | None = None) -> Flask:
    """A Koz app. Without ``redis``, it connects to ``settings.redis_url``; without that, to the
    ``embedded`` redis-server, or to one it starts, which the caller stops with
    ``app.extensions["koz_embedded"].stop()``."""
    settings = settings or Settings.from_env()
    app = KozFlask("koz")
    app.config.update(
        API_TITLE="Koz",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        API_SPEC_OPTIONS={
            "info": {"description": api_description(), "license": {"name": "MIT", "identifier": "MIT"}},
            # Koz is self-hosted: the document describes the server that serves it
            "servers": [{"url": "/", "description": "The server this document was fetched from"}],
        },
    )
    registry.check_all()  # a game unfit to serve stops the start, not a player
    app.json = FastJSONProvider(app)
    readiness = redis
    if redis is None:
        where: dict[str, Any] = {"url": settings.redis_url, "cluster": settings.redis_cluster}
        if not settings.redis_url:
            if embedded is None:
                embedded = EmbeddedRedis(settings.data_dir, appendfsync=settings.redis_appendfsync, maxmemory=settings.redis_maxmemory)
            app.extensions["koz_embedded"] = embedded
            where = {"unix_socket_path": embedded.socket_file}
        redis = redis_client(settings.redis_connect_timeout, settings.redis_timeout, **where)
        # readiness is answered within a second, whatever the timeouts of requests
        readiness = redis_client(min(settings.redis_connect_timeout, READINESS_TIMEOUT), READINESS_TIMEOUT, **where)
    app.extensions["koz_readiness"] = readiness
    app.extensions["koz_streams"] = PerAddress(settings.streams_per_address)
    app.extensions["koz_hints"] = HintsAtOnce(settings.hints_at_once)
    app.extensions["koz"] = Games(game_store(redis, settings), settings)
    app.extensions["koz_arena"] = Arena(app.extensions["koz"])

    api = Api(app)
    api.document(document_levels, document_security_schemes)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    api.document(document_actions, document_options, document_views, document_events, document_rulesets_apart, document_request_defaults)
    limits.install(app, settings, redis)

    app.register_blueprint(get_swaggerui_blueprint("/docs", "/openapi.json", config={"app_name": "Koz API"}))
    app.register_blueprint(web_table)  # the page for people at /, outside the API document
    CORS(
        app,
        origins="*",
        send_wildcard=True,
        methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "X-Request-ID", "Last-Event-ID"],
        expose_headers=[
            "ETag",
            "Location",
            "Idempotent-Replayed",
            "X-Request-ID",
            "Retry-After",
            "RateLimit-Limit",
            "RateLimit-Remaining",
            "RateLimit-Reset",
            "RateLimit-Policy",
            "WWW-Authenticate",
            "Upgrade",
        ],
        max_age=600,
    )

    answer_simple_requests_at_once(app)

    @app.before_request
    def bodies_are_json() -> None:
        if request.method == "POST" and request.content_length and not request.is_json:
            raise Problem(415, "unsupported_media_type", "unsupported_media_type")

    edge.install(app)
    texts.install(app)
    metrics.install(app)
    logs.install(app)

    return app
