"""The ``koz`` command: ``koz serve`` runs the service, ``koz openapi`` writes its document."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication
from redis import Redis

from engine.players import level_names

from . import bot, logs
from .app import create_app
from .config import Settings
from .http_server import SETTINGS, SupervisingArbiter

DEFAULT_OPENAPI_PATH = Path("openapi") / "openapi.json"


class Server(BaseApplication):
    """gunicorn, run in-process: workers forked from a master that owns the app and supervises
    the embedded Redis."""

    def __init__(self, app: Flask, options: dict[str, Any]) -> None:
        self.application = app
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in {**SETTINGS, **self.options}.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        return self.application

    def run(self) -> None:
        arbiter = SupervisingArbiter(self)
        embedded = self.application.extensions.get("koz_embedded")
        arbiter.supervise = embedded.supervise if embedded is not None else None
        arbiter.run()


def serve(args: argparse.Namespace) -> None:
    settings = Settings.from_env()
    app = create_app(settings)
    embedded = app.extensions.get("koz_embedded")

    def on_exit(_server) -> None:
        # also on SIGTERM and SIGINT: gunicorn's master stops the workers, then calls this
        if embedded is not None:
            embedded.stop()

    kind = "the Redis Cluster of node" if settings.redis_cluster else "Redis at"
    where = f"{kind} {settings.redis_url}" if settings.redis_url else f"an embedded Redis (data in {settings.data_dir}/)"
    logging.getLogger("koz").info("Koz on http://%s:%s with %s", args.host, args.port, where)
    Server(
        app,
        {
            "bind": f"{args.host}:{args.port}",
            "workers": args.workers,
            "threads": args.threads,
            # views may be held for a long-poll, and computer players may think
            "timeout": int(settings.max_wait_seconds + settings.bot_time_per_request + 30),
            "on_exit": on_exit,
        },
    ).run()


def play_seat(args: argparse.Namespace) -> None:
    sys.exit(bot.run(args.url, args.game_id, args.token, args.level))


def write_openapi(args: argparse.Namespace) -> None:
    logging.getLogger("koz.requests").setLevel(logging.WARNING)  # the document is fetched in-process, not served
    document = openapi_document()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(document)
    print(f"wrote {args.output}")


def openapi_document() -> str:
    """The OpenAPI document as committed: sorted keys, two-space indents, a final newline."""
    app = create_app(Settings(redis_url="redis://unused"), redis=Redis())  # serving the document needs no Redis
    spec = app.test_client().get("/openapi.json").get_json()
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> None:
    logs.configure()
    parser = argparse.ArgumentParser(prog="koz", description="Koz: trick-taking card games as a service")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="run the HTTP service (embedded Redis unless REDIS_URL is set)")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    serve_parser.add_argument("--threads", type=int, default=16, help="threads per worker (default 16)")
    serve_parser.set_defaults(run=serve)
    openapi_parser = commands.add_parser("openapi", help="write the OpenAPI document")
    openapi_parser.add_argument("--output", type=Path, default=DEFAULT_OPENAPI_PATH)
    openapi_parser.set_defaults(run=write_openapi)
    bot_parser = commands.add_parser("bot", help="play one seat of a game on a Koz server with a computer player")
    bot_parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    bot_parser.add_argument("game_id")
    bot_parser.add_argument("token", help="the seat's token")
    bot_parser.add_argument("--level", choices=level_names(), help="the computer level (default: the game's standard level)")
    bot_parser.set_defaults(run=play_seat)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main(sys.argv[1:])
