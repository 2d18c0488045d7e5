"""A pytest plugin (``-p tests.answer_recorder``): records every answer the Flask test client gets,
by operationId, status and problem code, into KOZ_ANSWERS_DIR (one file per process)."""
from __future__ import annotations

import json
import os

from flask.testing import FlaskClient
from werkzeug.routing import WebsocketMismatch
from werkzeug.exceptions import NotFound, MethodNotAllowed

seen: set = set()
sending = FlaskClient.open


def open_recording(client, *args, **kwargs):
    answer = sending(client, *args, **kwargs)
    try:
        routes = client.application.url_map.bind("localhost")
        try:
            endpoint, _ = routes.match(answer.request.path, answer.request.method)
        except WebsocketMismatch:
            endpoint, _ = routes.match(answer.request.path, answer.request.method, websocket=True)
        view = client.application.view_functions[endpoint]
        operation = getattr(view, "_apidoc", {}).get("manual_doc", {}).get("operationId", endpoint)
        code = None
        if answer.mimetype == "application/problem+json":
            code = (answer.get_json(silent=True) or {}).get("code")
        seen.add((operation, answer.status_code, code, os.environ.get('PYTEST_CURRENT_TEST', '').split(' ')[0]))
    except (NotFound, MethodNotAllowed):
        pass
    except Exception as error:  # noqa: BLE001
        seen.add(("?", 0, repr(error)[:80]))
    return answer


FlaskClient.open = open_recording


def pytest_sessionfinish(session):
    folder = os.environ.get("KOZ_ANSWERS_DIR")
    if folder:
        with open(os.path.join(folder, f"{os.getpid()}.json"), "w") as out:
            json.dump(sorted(seen, key=str), out)
