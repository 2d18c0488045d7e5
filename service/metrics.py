"""What to watch the service by, in the Prometheus format (``GET /metrics``).

With several worker processes, set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory shared by
them (prometheus_client's multiprocess mode); otherwise each process counts its own requests.
"""

from __future__ import annotations

import contextlib
import glob
import os
import time
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import REGISTRY, multiprocess
from redis import Redis, RedisError
from redis.cluster import RedisCluster

REQUESTS = Counter("koz_http_requests", "HTTP requests answered", ["method", "route", "status"])
REQUEST_SECONDS = Histogram("koz_http_request_duration_seconds", "Time to answer an HTTP request", ["method", "route"])
ACTIONS = Counter("koz_actions_applied", "Actions applied and stored", ["ruleset", "by"])
REFUSALS = Counter("koz_refusals", "Requests refused, by problem code", ["code"])
DECISION_SECONDS = Histogram(
    "koz_computer_decision_seconds",
    "Time a computer player took to decide",
    ["ruleset", "level"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
WAITING = Gauge("koz_waiting_clients", "Clients held in a long-poll or an event stream now", multiprocess_mode="livesum")
REDIS_ERRORS = Counter("koz_redis_errors", "Redis commands that failed, by error", ["error"])
SLOT_MAP_READS = Counter("koz_redis_slot_map_reads", "Reads of a Redis Cluster's slot map after a command failed on a lost or moved node")
REDIS_SECONDS = Histogram(
    "koz_redis_command_duration_seconds",
    "Time of one Redis command, by command",
    ["command"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0, 2.5),
)


class Children:
    """A labelled metric's child per label values, looked up once. prometheus_client's ``labels``
    takes a lock and checks its arguments on every call, and every Redis command and every
    request asks for one; it hands back the same child each time, so keeping it changes nothing."""

    def __init__(self, metric: Any) -> None:
        self.metric = metric
        self._children: dict[tuple[str, ...], Any] = {}

    def __call__(self, *values: str) -> Any:
        child = self._children.get(values)
        if child is None:
            child = self._children[values] = self.metric.labels(*values)
        return child


REDIS_SECONDS_BY_COMMAND = Children(REDIS_SECONDS)
REQUESTS_BY_ROUTE = Children(REQUESTS)
REQUEST_SECONDS_BY_ROUTE = Children(REQUEST_SECONDS)


class Instrumented:
    """Times every command of a Redis client and counts the ones that fail."""

    def execute_command(self, *args: Any, **options: Any) -> Any:
        started = time.perf_counter()
        try:
            return super().execute_command(*args, **options)  # type: ignore[misc]  # the Redis client it is mixed into
        except RedisError as error:
            REDIS_ERRORS.labels(type(error).__name__).inc()
            raise
        finally:
            REDIS_SECONDS_BY_COMMAND(str(args[0]).upper()).observe(time.perf_counter() - started)


class InstrumentedRedis(Instrumented, Redis):
    """A Redis client that times every command and counts the ones that fail."""


class InstrumentedRedisCluster(Instrumented, RedisCluster):
    """A Redis Cluster client that times every command and counts the ones that fail."""


def route_label() -> str:
    """The route's pattern (``/v1/games/<game_id>``), never the path: ids would explode the series."""
    return request.url_rule.rule if request.url_rule is not None else "unmatched"


class SharedMetrics:
    """The counts of every process that shares ``directory`` (prometheus_client's multiprocess
    collection), leaving out a process's file while it is still empty: a process makes its file,
    then sizes it, and a scrape in between failed (a 500), as did every scrape after a process
    killed in between, its empty file left for good (prometheus/client_python#1199, open in 0.26)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def collect(self) -> Any:
        files = []
        for path in glob.glob(os.path.join(self.directory, "*.db")):
            with contextlib.suppress(FileNotFoundError):  # (a live gauge's file, its process marked dead meanwhile)
                if os.path.getsize(path) > 0:
                    files.append(path)
        return multiprocess.MultiProcessCollector.merge(files, accumulate=True)


def exposition() -> Response:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        registry.register(SharedMetrics(os.environ["PROMETHEUS_MULTIPROC_DIR"]))
    else:
        registry = REGISTRY
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def install(app: Flask) -> None:
    app.add_url_rule("/metrics", "metrics", exposition)

    @app.before_request
    def start_timer() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def count(response: Response) -> Response:
        route = route_label()
        REQUESTS_BY_ROUTE(request.method, route, str(response.status_code)).inc()
        REQUEST_SECONDS_BY_ROUTE(request.method, route).observe(time.perf_counter() - g.get("started", time.perf_counter()))
        return response
