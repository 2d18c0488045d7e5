"""Structured logs: one JSON object per line, each with the id of the request it is about.

A log line says what happened (method, route, status, duration, problem code); it never carries a
token, a request body or a card, so no secret or hidden card can reach the logs.
"""

from __future__ import annotations

import logging
import logging.config
import time
from typing import Any

import orjson
from flask import Flask, Response, g, has_request_context, request
from pythonjsonlogger.json import JsonFormatter

from .edge import request_id

log = logging.getLogger("koz.requests")


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record: the current request's, or null outside a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id() if has_request_context() else None
        return True


class JsonLines(JsonFormatter):
    """python-json-logger's fields and values, encoded by orjson (a line took 37 µs, now 22:
    every request writes one). The lines are compact (no space after ``:`` and ``,``); what
    orjson cannot encode goes to the standard encoder, as before."""

    #: (the second, its time as the lines write it) of the last line: the standard formatting
    #: (``time.strftime``) was a seventh of a line's cost, and most lines share their second
    _second: tuple[int, str] = (-1, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (logging's name)
        if datefmt is not None or not self.default_msec_format:
            return super().formatTime(record, datefmt)
        second, text = self._second
        if second != int(record.created):  # (local time is offset from UTC by whole seconds)
            second, text = int(record.created), time.strftime(self.default_time_format, self.converter(record.created))
            self._second = (second, text)  # one assignment: a line on another thread reads either pair whole
        return self.default_msec_format % (text, record.msecs)

    def jsonify_log_record(self, log_data: Any) -> str:
        try:
            return orjson.dumps(log_data, default=self.json_default).decode()
        except TypeError:
            return str(super().jsonify_log_record(log_data))


#: the logging configuration of ``koz`` (and of gunicorn under it): JSON lines on stderr
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": RequestIdFilter}},
    "formatters": {
        "json": {
            "()": "service.logs.JsonLines",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            "json_ensure_ascii": False,
        }
    },
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["request_id"], "stream": "ext://sys.stderr"}},
    "root": {"level": "INFO", "handlers": ["stderr"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": [], "propagate": True},
        "gunicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},
    },
}


def configure() -> None:
    logging.config.dictConfig(LOGGING)


def skip_unwritten_lookups() -> None:
    """logging's documented switches off for what the lines never write: where each call was made
    from (a walk up the stack), its thread and its process. The web process logs a line for every
    request (it turns them off as it starts), and those lookups were about a quarter of a line's cost (alone, with the lines sent nowhere)."""
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False


def install(app: Flask) -> None:
    @app.before_request
    def start_timer() -> None:
        g.log_started = time.perf_counter()

    @app.after_request
    def log_request(response: Response) -> Response:
        fields = {
            "method": request.method,
            "route": request.url_rule.rule if request.url_rule is not None else None,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round((time.perf_counter() - g.get("log_started", time.perf_counter())) * 1000, 1),
        }
        problem_code = g.get("problem_code")
        if problem_code:
            fields["code"] = problem_code
        log.info("request", extra=fields)
        return response
