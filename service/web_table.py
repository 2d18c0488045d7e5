"""The web table: a page for people, served as static files and built on the public API only.

Nothing here reads a game: the page's script talks to ``/v1`` like any other frontend.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

WEB_DIRECTORY = Path(__file__).with_name("web")

blp = Blueprint("web_table", __name__)

#: the page runs its own files only: a name typed at the table can never become a script
CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


@blp.route("/")
def home() -> Response:
    return _send("index.html")


@blp.route("/web/<path:name>")
def asset(name: str) -> Response:
    return _send(name)


def _send(name: str) -> Response:
    # no-cache: a browser revalidates (a cheap 304) and never keeps an old script after an upgrade
    response = send_from_directory(WEB_DIRECTORY, name, max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
