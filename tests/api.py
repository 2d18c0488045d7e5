"""A small HTTP client for the tests: the same calls over Flask's test client or a real socket."""

from __future__ import annotations

import http.client
import json
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit


@dataclass
class Answer:
    status: int
    headers: Mapping[str, str]
    body: Any

    @property
    def code(self) -> str | None:
        """The problem code of an error answer."""
        return self.body.get("code") if isinstance(self.body, dict) else None


class Client:
    """``request(method, path, json=..., token=..., headers=...)`` over some transport."""

    def request(self, method: str, path: str, *, json_body: Any = None, token: str | None = None, headers: Mapping[str, str] | None = None) -> Answer:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        return self._send(method, path, json_body, sent)

    def _send(self, method: str, path: str, json_body: Any, headers: dict[str, str]) -> Answer:
        raise NotImplementedError

    # the calls the tests make most

    def create(self, **body: Any) -> Answer:
        return self.request("POST", "/v1/games", json_body=body)

    def view(self, game_id: str, token: str | None = None, **headers: str) -> Answer:
        return self.request("GET", f"/v1/games/{game_id}", token=token, headers=headers)

    def act(self, game_id: str, action: Mapping[str, Any], token: str | None, **headers: str) -> Answer:
        return self.request("POST", f"/v1/games/{game_id}/actions", json_body=action, token=token, headers=headers)

    def history(self, game_id: str, token: str | None = None, query: str = "") -> Answer:
        return self.request("GET", f"/v1/games/{game_id}/history{query}", token=token)

    def finished_view(self, game_id: str, token: str | None = None, seconds: float = 120) -> dict[str, Any]:
        """The view once the match is over, following it by long-polls while workers play. A
        match not over within ``seconds`` (stuck, or going on forever), or over otherwise than
        finished, fails the test."""
        deadline = time.monotonic() + seconds
        view = self.view(game_id, token).body
        while view["status"] in ("active", "waiting"):
            left = deadline - time.monotonic()
            assert left > 0, f"game {game_id} still {view['status']} at version {view['version']} after {seconds} s"
            view = self.request("GET", f"/v1/games/{game_id}?wait={min(30, math.ceil(left))}&after={view['version']}", token=token).body
        assert view["status"] == "finished", f"game {game_id} ended {view['status']}"
        return view

    def view_when(self, game_id: str, condition: Callable[[dict[str, Any]], bool], token: str | None = None, seconds: float = 60) -> dict[str, Any]:
        """The first view (followed by long-polls) for which ``condition`` holds; a test fails
        when none does within ``seconds``."""
        deadline = time.monotonic() + seconds
        view = self.view(game_id, token).body
        while not condition(view):
            left = deadline - time.monotonic()
            assert left > 0, f"game {game_id} at version {view['version']}: the awaited view did not come within {seconds} s"
            view = self.request("GET", f"/v1/games/{game_id}?wait={min(30, math.ceil(left))}&after={view['version']}", token=token).body
        return view

    def whole_history(self, game_id: str, token: str | None = None, after: int = -1) -> dict[str, Any]:
        """Every page of a game's history (of the versions after ``after``): the last page's body
        with all the events."""
        events: list[Any] = []
        while after is not None:
            body = self.history(game_id, token, query=f"?after={after}&limit=1000").body
            events += body["events"]
            after = body["next_after"]
        return {**body, "events": events}


class FlaskClient(Client):
    def __init__(self, test_client) -> None:
        self.test_client = test_client

    def _send(self, method, path, json_body, headers):
        response = self.test_client.open(path, method=method, json=json_body, headers=headers)
        body = response.get_json(silent=True) if response.data else None
        return Answer(response.status_code, response.headers, body)


#: a kept-alive connection idle this long is opened afresh before the next request: the server
#: (gunicorn) closes one idle for 2 s, and a request sent on it as it closes is lost unanswered
#: (RemoteDisconnected), which a test that waits between two requests met on a loaded machine
IDLE_REOPEN_SECONDS = 1.0


class SocketClient(Client):
    """Real HTTP to a running server, over one kept-alive connection while it is in use."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.answered_at = -math.inf

    def _send(self, method, path, json_body, headers):
        body = None
        if json_body is not None:
            body = json.dumps(json_body).encode()
            headers = {**headers, "Content-Type": "application/json"}
        if time.monotonic() - self.answered_at > IDLE_REOPEN_SECONDS:
            self.connection.close()  # http.client opens a new one for the request
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        self.answered_at = time.monotonic()
        is_json = "json" in (response.headers.get("Content-Type") or "")
        return Answer(response.status, response.headers, json.loads(data) if data and is_json else None)

    def close(self) -> None:
        self.connection.close()
