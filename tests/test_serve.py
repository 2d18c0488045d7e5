"""``koz serve`` as users run it: a real process on an embedded real Redis, over real sockets.

Matches are played with random legal actions; every answer is kept, and once a match is over
its revealed history is replayed with the engine to check that no answer showed a seat a card
it could not see at that version. Stopping the service (SIGTERM) must stop its redis-server too,
and the games must still be there when it starts again on the same data.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from typing import Any
from pathlib import Path

import pytest
import websocket

from engine import registry
from engine import Action
from tests.api import SocketClient
from tests.support import card_codes_in, concealed_cards

KOZ = Path(sys.executable).with_name("koz")
#: German Whist's options in five deals where every value of every option meets every value of
#: every other (a pairwise covering of the 16 combinations, which the HTTP playthrough plays all of)
WHIST_OPTIONS = [
    dict(zip(("scoring", "count_all_tricks", "no_trump", "misere"), (("tricks", "over-six")[scoring], *flags)))
    for scoring, *flags in ((0, False, False, False), (0, True, True, True), (1, False, True, True), (1, True, False, True), (1, True, True, False))
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Service:
    """A ``koz serve`` process with its own data directory."""

    def __init__(self, data_dir: Path, *arguments: str, **settings: str) -> None:
        self.port = free_port()
        self.log = data_dir.parent / f"koz-{self.port}.log"
        environment = {**os.environ, "KOZ_DATA_DIR": str(data_dir), **settings}
        environment.pop("REDIS_URL", None)
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [str(KOZ), "serve", "--port", str(self.port), *arguments], stdout=log, stderr=subprocess.STDOUT, env=environment
            )
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                client = SocketClient(self.url)
                if client.request("GET", "/readyz").status == 200:
                    client.close()
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("koz serve did not start:\n" + self.log.read_text())
            time.sleep(0.1)

    @property
    def redis_pid(self) -> int:
        """The embedded redis-server's process id, as last started or restarted."""
        return int(re.findall(r"embedded redis-server (\d+) (?:started|restarted)", self.log.read_text())[-1])

    @property
    def redis_socket(self) -> Path:
        return Path(re.search(r"embedded redis-server \d+ started on (\S+)", self.log.read_text()).group(1))

    def worker_pids(self, count: int = 1) -> list[int]:
        """The process ids of the first ``count`` workers, once they have started."""
        deadline = time.monotonic() + 60
        while len(pids := re.findall(r"worker \S+-(\d+) takes computer moves", self.log.read_text())) < count:
            assert time.monotonic() < deadline, "the workers did not start beside koz serve"
            time.sleep(0.1)
        return [int(pid) for pid in pids[:count]]

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(30)

    def __enter__(self) -> "Service":
        return self

    def __exit__(self, *exc_info) -> None:
        """Stopped, whatever the test did (it may have stopped it with SIGSTOP)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            try:
                self.stop()
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def play_and_check(api: SocketClient, ruleset_id: str, options: dict, seed: str) -> str:
    """Play a match between humans with random legal actions; check every answer against the
    revealed deal once it is over. Returns the game id."""
    ruleset = registry.get(ruleset_id)
    created = api.create(ruleset=ruleset_id, options=options, seats=[{"name": "P"}] * ruleset.seat_count, seed=seed).body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    rng = random.Random(seed)
    answers = []  # (seat, body), each body carrying its version
    while True:
        spectator = api.view(created["id"]).body
        answers.append((None, spectator))
        if spectator["status"] == "finished":
            break
        seat = rng.choice(spectator["to_act"])
        view = api.view(created["id"], tokens[seat]).body
        answers.append((seat, view))
        legal = view["legal_actions"]
        action = {"type": "pass"} if {"type": "pass"} in legal and rng.random() < 0.85 else rng.choice(legal)
        answer = api.act(created["id"], action, tokens[seat])
        assert answer.status == 200, answer.body
        answers.append((seat, answer.body))
    history = api.whole_history(created["id"])
    events = history["events"]
    states = {0: ruleset.new_game(ruleset.parse_options(created["options"]), history["reveal"]["seed"])[0]}
    for event in events:
        if event["type"] == "action":
            states[event["version"]] = ruleset.apply(states[event["version"] - 1], event["seat"], Action.from_json(event["action"]))[0]
    for seat, body in answers:
        leaked = card_codes_in(body) & concealed_cards(ruleset_id, states[body["version"]], seat)
        assert not leaked, f"seat {seat} was shown {sorted(leaked)} at version {body['version']}"
    assert ruleset.result(states[max(states)]).scores == tuple(answers[-1][1]["scores"])
    return created["id"]


@pytest.fixture
def data_dir(tmp_path):
    return tmp_path / "koz-data"


def test_koz_serve_plays_matches_under_every_option_without_leaks_and_stops_its_redis(data_dir):
    service = Service(data_dir)
    try:
        api = SocketClient(service.url)
        timed = {"ruleset": "german-whist", "seats": [{"name": "P"}, {"name": "P"}], "clock": {"seconds_per_action": 1, "on_timeout": "forfeit"}}
        timed_id = api.create(**timed).body["id"]
        games = [play_and_check(api, "german-whist", options, f"serve-{n}") for n, options in enumerate(WHIST_OPTIONS)]
        games.append(play_and_check(api, "german-whist", {"target": 15}, "serve-target"))
        games.append(play_and_check(api, "sixty-six", {"variant": "schnapsen", "open_scores": True}, "serve-66"))
        games.append(play_and_check(api, "partnership-batak", {"target": 21}, "serve-batak"))
        assert api.request("GET", "/docs/").status == 200
        # nobody acted in the timed game: the clock check beside the web workers ended it
        deadline = time.monotonic() + 10
        while api.view(timed_id).body["status"] != "forfeited" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert api.view(timed_id).body["status"] == "forfeited"
        api.close()
        redis_pid = service.redis_pid
        assert alive(redis_pid)
    finally:
        exit_code = service.stop()
    assert exit_code == 0
    deadline = time.monotonic() + 10
    while alive(redis_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(redis_pid), "koz serve left its redis-server running"

    again = Service(data_dir)  # the same data directory: the games persisted
    try:
        api = SocketClient(again.url)
        for game_id in games:
            assert api.view(game_id).body["status"] == "finished"
        api.close()
    finally:
        assert again.stop() == 0


def read_stream_messages(response, count: int) -> list[tuple[str, int, dict]]:
    """The next ``count`` messages (event, id, data) of an open event stream; comments skipped."""
    messages: list[tuple[str, int, dict]] = []
    fields: dict[str, str] = {}
    while len(messages) < count:
        line = response.readline().decode().rstrip("\n")
        if line == "":
            if "event" in fields:
                messages.append((fields["event"], int(fields["id"]), json.loads(fields["data"])))
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = value
    return messages


def test_koz_serve_runs_a_worker_beside_it_streams_over_http_and_stops_them_all(data_dir):
    # the worker thinks at a lower priority: on a busy machine its reply may take more than the
    # default 2 s, and this test is about the reply coming, not about how long an answer waits
    service = Service(data_dir, KOZ_REPLY_WAIT_SECONDS="10")
    try:
        api = SocketClient(service.url)
        for seed in range(40):  # a deal where the human leads, so that the computer replies
            created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed=f"beside-{seed}").body
            token = created["tokens"][0]["token"]
            view = api.view(created["id"], token).body
            # (a computer to lead may not have moved yet when the creation answers)
            if view["to_act"] == [0] and not view["trick"]["cards"]:
                break
        hint = api.request("GET", f"/v1/games/{created['id']}/hint", token=token)  # thought off the event loop
        assert hint.status == 200 and hint.body["action"] in view["legal_actions"]
        stream = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
        stream.request("GET", f"/v1/games/{created['id']}/events", headers={"Authorization": f"Bearer {token}"})
        response = stream.getresponse()
        assert response.status == 200 and response.headers["Content-Type"].startswith("text/event-stream")
        assert read_stream_messages(response, 1)[0][:2] == ("view", view["version"])
        answer = api.act(created["id"], view["legal_actions"][0], token)
        assert answer.status == 200 and answer.body["version"] >= view["version"] + 2  # the worker's reply came within the wait
        pushed = read_stream_messages(response, 3)
        assert [(kind, version) for kind, version, _ in pushed[:2]] == [("history", view["version"] + 1), ("history", view["version"] + 2)] or [
            (kind, version) for kind, version, _ in pushed
        ] == [("history", view["version"] + 1), ("view", view["version"] + 1), ("history", view["version"] + 2)]
        stream.close()
        api.close()
        worker_pid = int(re.search(r"worker \S+-(\d+) takes computer moves", service.log.read_text()).group(1))
        assert alive(worker_pid)
        # the computers think at a lower CPU priority than the requests are answered
        assert os.getpriority(os.PRIO_PROCESS, worker_pid) == min(19, os.getpriority(os.PRIO_PROCESS, service.process.pid) + 10)
        runtime_dir = json.loads((data_dir / "koz.lock").read_text())["runtime_dir"]  # the embedded Redis's socket and log
        assert os.path.isdir(runtime_dir)
    finally:
        assert service.stop() == 0
    gone_by = time.monotonic() + 5  # its exit may still be under way as the master's ends
    while alive(worker_pid) and time.monotonic() < gone_by:
        time.sleep(0.1)
    assert not alive(worker_pid), "koz serve left its worker running"
    assert not os.path.exists(runtime_dir), "koz serve left its Redis's runtime folder"  # its own stop, not the kernel's


def play_over_websockets_and_check(url: str, api: SocketClient, ruleset_id: str, options: dict, seed: str) -> None:
    """A match between humans, each seat on its own ``/play`` WebSocket with the history asked for
    (``?after=-1``), random legal actions: each act's answer, each view pushed to the other seats
    and each history message is checked against the revealed deal (a history sent once the match
    is over shows everything, as ``GET /history`` then does), and every connection ends with the
    reveal and a normal close."""
    ruleset = registry.get(ruleset_id)
    created = api.create(ruleset=ruleset_id, options=options, seats=[{"name": "P"}] * ruleset.seat_count, seed=seed).body
    sockets = {
        entry["seat"]: websocket.create_connection(
            f"{url.replace('http', 'ws', 1)}/v1/games/{created['id']}/play?after=-1",
            header={"Authorization": f"Bearer {entry['token']}"},
            timeout=30,
        )
        for entry in created["tokens"]
    }
    shown: list[tuple[int, int, Any]] = []  # (seat, version, what it was shown while the match went on)
    pending: dict[int, list[dict]] = {seat: [] for seat in sockets}

    def next_view(seat: int) -> dict:
        """The seat's next view or answer, its history before it kept to be checked."""
        while (message := json.loads(sockets[seat].recv()))["type"] == "history":
            pending[seat].append(message)
        view = message["view"]
        if view["status"] == "active":
            shown.extend((seat, history["version"], history["events"]) for history in pending[seat])
            shown.append((seat, view["version"], view))
        pending[seat] = []
        return message

    rng = random.Random(seed)
    latest = {seat: next_view(seat)["view"] for seat in sockets}
    while latest[0]["status"] == "active":
        seat = rng.choice(latest[0]["to_act"])
        legal = latest[seat]["legal_actions"]
        action = {"type": "pass"} if {"type": "pass"} in legal and rng.random() < 0.85 else rng.choice(legal)
        sockets[seat].send(json.dumps({"type": "act", "action": action}))
        answer = next_view(seat)
        assert answer["type"] == "acted", answer
        latest[seat] = answer["view"]
        for other in sockets:
            while latest[other]["version"] < answer["view"]["version"]:
                message = next_view(other)
                assert message["type"] == "view", message
                latest[other] = message["view"]
    history = api.whole_history(created["id"])
    for connection in sockets.values():
        assert json.loads(connection.recv()) == {"type": "reveal", "version": latest[0]["version"], "reveal": history["reveal"]}
        opcode, data = connection.recv_data(control_frame=True)
        assert (opcode, data[:2]) == (websocket.ABNF.OPCODE_CLOSE, b"\x03\xe8")  # 1000: the match is over
    states = {0: ruleset.new_game(ruleset.parse_options(created["options"]), history["reveal"]["seed"])[0]}
    for event in history["events"]:
        if event["type"] == "action":
            states[event["version"]] = ruleset.apply(states[event["version"] - 1], event["seat"], Action.from_json(event["action"]))[0]
    assert any(isinstance(what, list) for _, _, what in shown), "no history came to check"
    for seat, version, what in shown:
        leaked = card_codes_in(what) & concealed_cards(ruleset_id, states[version], seat)
        assert not leaked, f"seat {seat} was shown {sorted(leaked)} at version {version}"


def test_koz_serve_plays_over_its_websocket_without_leaks(data_dir):
    with Service(data_dir) as service:
        api = SocketClient(service.url)
        play_over_websockets_and_check(service.url, api, "german-whist", {}, "sockets-whist")
        play_over_websockets_and_check(service.url, api, "sixty-six", {"variant": "schnapsen"}, "sockets-66")
        plain = api.request("GET", f"/v1/games/{api.create(ruleset='german-whist').body['id']}/play")
        assert (plain.status, plain.body["code"]) == (426, "upgrade_required")
        api.close()
        assert service.stop() == 0
