"""The two trivial WSGI applications ``bench/floor.py`` serves with gunicorn and its gevent worker:
what a request costs before Koz does anything of its own."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from flask import Flask

BODY = b'{"status":"ok"}'


def bare(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """gunicorn and gevent alone: a fixed JSON answer, no framework."""
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))])
    return [BODY]


flask_app = Flask(__name__)


@flask_app.get("/healthz")
def healthz() -> dict[str, str]:
    """Flask's request and response objects, routing and JSON on top: a trivial JSON route."""
    return {"status": "ok"}
