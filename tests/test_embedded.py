"""The embedded default's redis-server, in this process: one service per data folder, a left-over
server stopped or refused, a dead server restarted on its data (and given up on when it keeps
dying), and nothing of a start left behind. tests/test_serve_lifetime.py and
tests/test_serve_start.py show the same through ``koz serve`` itself."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest
import redis.retry

from service import create_app, embedded
from service.embedded import (
    DataInUse,
    EmbeddedRedis,
    claim,
    is_runtime_dir,
    parent_of,
    read_record,
    record,
    redis_server_binary,
    servers_on,
    stop_left_over_server,
)
from tests.api import FlaskClient
from tests.conftest import make_settings
from tests.redis_cluster import answers


@pytest.fixture
def server(tmp_path):
    started = EmbeddedRedis(str(tmp_path / "data"), maxmemory="32mb")
    yield started
    started.stop()


def redis_server_in(data: str) -> subprocess.Popen:
    """A redis-server working in ``data`` (listening on a socket there: one that listens nowhere exits)."""
    command = [redis_server_binary(), "--port", "0", "--unixsocket", os.path.join(data, "s.sock"), "--save", ""]
    return subprocess.Popen(command, cwd=data, stdout=subprocess.DEVNULL)


# --- one service per data folder -------------------------------------------------------------


def test_a_second_claim_on_a_data_folder_is_refused_naming_the_holder_until_the_first_lets_go(tmp_path):
    first = claim(str(tmp_path))
    record(first, "/nowhere")
    with pytest.raises(DataInUse, match=f"in use by another koz serve \\(process {os.getpid()}\\)"):
        claim(str(tmp_path))
    first.close()
    claim(str(tmp_path)).close()


def test_a_claim_removes_the_runtime_folder_a_killed_service_recorded_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.setattr(embedded.tempfile, "gettempdir", lambda: str(tmp_path))
    left = tmp_path / f"{embedded.RUNTIME_PREFIX}abcd1234"
    not_ours = tmp_path / "elsewhere" / f"{embedded.RUNTIME_PREFIX}abcd1234"
    for recorded, removed in ((left, True), (not_ours, False)):
        recorded.mkdir(parents=True)
        data = tmp_path / f"data-{removed}"
        data.mkdir()
        lock = claim(str(data))
        record(lock, str(recorded))
        lock.close()
        claim(str(data)).close()
        assert recorded.exists() is not removed


@pytest.mark.parametrize(("text", "read"), [("", {}), ("{not json", {}), ("[1, 2]", {}), ('{"pid": 7}', {"pid": 7})])
def test_what_the_lock_file_records_is_read_as_an_object_or_nothing(tmp_path, text, read):
    (tmp_path / "koz.lock").write_text(text)
    with open(tmp_path / "koz.lock", "a+") as lock:
        assert read_record(lock) == read


def test_a_record_replaces_the_last_one(tmp_path):
    with open(tmp_path / "koz.lock", "a+") as lock:
        record(lock, "/tmp/a-much-longer-folder-name-than-the-next")
        record(lock, "/tmp/b")
        assert json.loads((tmp_path / "koz.lock").read_text()) == {"pid": os.getpid(), "runtime_dir": "/tmp/b"}


def test_only_a_folder_a_start_made_counts_as_a_runtime_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(embedded.tempfile, "gettempdir", lambda: str(tmp_path))
    made = tmp_path / f"{embedded.RUNTIME_PREFIX}x"
    made.mkdir()
    other_name = tmp_path / "redis-x"
    other_name.mkdir()
    deeper = made / f"{embedded.RUNTIME_PREFIX}y"
    deeper.mkdir()
    link = tmp_path / f"{embedded.RUNTIME_PREFIX}link"
    link.symlink_to(made)
    file = tmp_path / f"{embedded.RUNTIME_PREFIX}file"
    file.write_text("")
    assert is_runtime_dir(str(made))
    assert not any(is_runtime_dir(str(path)) for path in (other_name, deeper, link, file, tmp_path / f"{embedded.RUNTIME_PREFIX}gone"))
    in_tmp = embedded.tempfile.mkdtemp(prefix=embedded.RUNTIME_PREFIX, dir="/tmp")
    try:
        assert is_runtime_dir(in_tmp)
    finally:
        os.rmdir(in_tmp)


# --- servers left running --------------------------------------------------------------------


def test_a_process_parent_is_read_even_when_its_command_holds_spaces_and_parentheses(tmp_path):
    odd = tmp_path / "a) b (c"
    odd.symlink_to(sys.executable)
    child = subprocess.Popen([str(odd), "-c", "import time; time.sleep(30)"])
    try:
        assert parent_of(child.pid) == os.getpid()
    finally:
        child.kill()
        child.wait(10)
    assert parent_of(child.pid) is None
    assert parent_of(os.getpid()) == os.getppid()


def test_the_redis_servers_on_a_folder_are_those_working_in_it_and_one_this_process_started_is_refused_not_stopped(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "other").mkdir()
    data = os.path.realpath(tmp_path / "data")
    running = redis_server_in(data)
    try:
        deadline = time.monotonic() + 10
        while running.pid not in servers_on(data) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert servers_on(data) == [running.pid]
        assert servers_on(os.path.realpath(tmp_path / "other")) == []
        with pytest.raises(DataInUse, match=f"process {running.pid}, started by process {os.getpid()}"):
            stop_left_over_server(data)
        with pytest.raises(DataInUse):
            EmbeddedRedis(data)
        assert running.poll() is None
        claim(data).close()  # the refused start let go of the folder
    finally:
        running.kill()
        running.wait(10)


def test_a_left_over_server_whose_service_is_gone_is_stopped(tmp_path, monkeypatch):
    data = os.path.realpath(tmp_path)
    left = redis_server_in(data)
    monkeypatch.setattr(embedded, "parent_of", lambda pid: 1)  # as if its service were gone
    # as init would: reaped once it exits (a child of this process would stay a zombie in /proc)
    reaping = threading.Thread(target=left.wait, daemon=True)
    reaping.start()
    try:
        # running, as a left-over server is: one signalled while it starts has no handler yet
        # and dies of the SIGTERM it would have stopped on
        probe = redis.Redis(unix_socket_path=os.path.join(data, "s.sock"), socket_timeout=1)
        deadline = time.monotonic() + 10
        while not (servers_on(data) and answers(probe)) and time.monotonic() < deadline:
            time.sleep(0.05)
        probe.close()
        stop_left_over_server(data)
        assert left.wait(10) == 0 and servers_on(data) == []  # asked to stop (SIGTERM: it syncs its data), not killed
    finally:
        if left.poll() is None:
            left.kill()
            left.wait(10)


# --- the server's life -----------------------------------------------------------------------


def test_a_started_server_answers_on_its_socket_and_its_folder_records_the_start(server):
    assert server.client.ping()
    assert server.url == f"unix://{server.socket_file}"
    assert os.path.dirname(server.socket_file) == server.runtime_dir and is_runtime_dir(server.runtime_dir)
    with open(os.path.join(server.data_dir, embedded.LOCK_FILE)) as lock:
        assert json.load(lock) == {"pid": os.getpid(), "runtime_dir": server.runtime_dir}


def test_a_started_server_keeps_every_write_in_its_append_only_file_in_the_data_folder_and_evicts_nothing(server):
    """(Its files' names are what an upgraded service finds its games in.)"""
    config = {name: server.client.config_get(name)[name] for name in (
        "appendonly", "appendfsync", "appendfilename", "dbfilename", "dir", "save", "maxmemory", "maxmemory-policy",
        "port", "unixsocket", "unixsocketperm", "logfile", "daemonize",
    )}
    assert config == {
        "appendonly": "yes", "appendfsync": "always", "appendfilename": "koz.aof", "dbfilename": "koz.db",
        "dir": os.path.realpath(server.data_dir), "save": "", "maxmemory": str(32 * 1024 * 1024), "maxmemory-policy": "noeviction",
        "port": "0", "unixsocket": server.socket_file, "unixsocketperm": "700", "logfile": os.path.join(server.runtime_dir, "redis.log"),
        "daemonize": "no",
    }
    server.client.set("kept", "yes")
    written = [name for _, _, names in os.walk(server.data_dir) for name in names]  # (Redis 7 keeps it in a folder of its own)
    assert any(name.startswith("koz.aof") for name in written)


def test_a_started_server_works_in_its_data_folder_in_a_session_of_its_own(server):
    """(Its working folder is how a later start finds it left over; its own session keeps a
    Ctrl-C meant for the service from stopping it before the service is done with it.)"""
    assert servers_on(server.data_dir) == [server.pid]
    assert os.getsid(server.pid) == server.pid != os.getsid(0)


@pytest.mark.parametrize("over", [0, 1])
def test_the_runtime_folder_is_in_the_temporary_folder_while_its_socket_path_fits_in_a_socket_address(monkeypatch, over):
    # a temporary folder whose runtime folder's socket path is SOCKET_PATH_MAX bytes long, or one over
    base = tempfile.mkdtemp(dir="/tmp")  # (pytest's tmp_path is too long to make the path just fit)
    suffix = os.path.join(f"{embedded.RUNTIME_PREFIX}12345678", "redis.socket")
    temporary = os.path.join(base, "t" * (embedded.SOCKET_PATH_MAX + over - len(base) - 2 - len(suffix)))
    os.mkdir(temporary)
    monkeypatch.setattr(embedded.tempfile, "gettempdir", lambda: temporary)
    try:
        made = embedded.runtime_folder()
        if over:
            assert os.path.dirname(made) == "/tmp"
        else:
            assert os.path.dirname(made) == temporary and len(os.fsencode(os.path.join(made, "redis.socket"))) == embedded.SOCKET_PATH_MAX
        os.rmdir(made)
    finally:
        shutil.rmtree(base)


def test_a_server_ends_with_the_process_that_started_it_even_when_that_process_is_killed(tmp_path):
    """Nothing is left running after a crash: the server is told to stop (SIGTERM, its data
    synced) when its service's process dies, SIGKILL included. (In a process of its own, started
    the way this one imports the service, so that a mutant of the start is the one at work.)"""
    starter = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from service.embedded import EmbeddedRedis; "
         "print(EmbeddedRedis(sys.argv[1], maxmemory='32mb').pid, flush=True); time.sleep(60)", str(tmp_path / "data")],
        stdout=subprocess.PIPE, text=True, cwd=os.getcwd(), env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        pid = int(starter.stdout.readline())
        assert os.path.exists(f"/proc/{pid}")
        starter.kill()
        starter.wait(10)
        deadline = time.monotonic() + 10
        while servers_on(os.path.realpath(tmp_path / "data")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert servers_on(os.path.realpath(tmp_path / "data")) == []
    finally:
        if starter.poll() is None:
            starter.kill()
        for left in servers_on(os.path.realpath(tmp_path / "data")):  # (when the test fails)
            os.kill(left, signal.SIGKILL)
        claim(str(tmp_path / "data")).close()  # as the next start does: the killed service's runtime folder goes


def test_a_dead_server_is_restarted_on_its_data_and_a_live_one_is_left_alone(server):
    server.client.set("kept", "yes")
    first = server.pid
    server.supervise()
    assert server.pid == first
    server.process.kill()
    server.process.wait(10)
    assert os.path.exists(server.socket_file)  # a killed server leaves its socket behind
    server.supervise()
    assert server.pid != first and server.alive() and not server.failed
    assert server.client.get("kept") == b"yes"
    assert server.restarts and len(server.restarts) == 1


def test_a_server_that_keeps_dying_is_given_up_on_after_its_restarts_within_the_window(server):
    for _ in range(embedded.MAX_RESTARTS):
        server.process.kill()
        server.process.wait(10)
        server.supervise()
        assert server.alive() and not server.failed
    server.process.kill()
    server.process.wait(10)
    server.supervise()
    assert server.failed and not server.alive()
    server.supervise()  # given up: no more starts
    assert not server.alive()


def test_restarts_older_than_the_window_are_forgotten(server):
    server.restarts = [time.monotonic() - embedded.RESTART_WINDOW - 1] * embedded.MAX_RESTARTS
    server.process.kill()
    server.process.wait(10)
    server.supervise()
    assert server.alive() and not server.failed and len(server.restarts) == 1


def test_a_server_that_cannot_be_restarted_is_given_up_on(server):
    server.command = server.command + ["--no-such-setting", "1"]
    server.process.kill()
    server.process.wait(10)
    server.supervise()
    assert server.failed and not server.alive()


def test_a_server_that_will_not_start_says_why_and_leaves_the_folder_free_and_nothing_behind(tmp_path, monkeypatch):
    made = []
    real_runtime_folder = embedded.runtime_folder
    monkeypatch.setattr(embedded, "runtime_folder", lambda: made.append(real_runtime_folder()) or made[-1])
    with pytest.raises(RuntimeError, match="does not start; its log ends:\n(.|\n)*maxmemory"):
        EmbeddedRedis(str(tmp_path), maxmemory="lots")
    assert not os.path.exists(made[0])
    claim(str(tmp_path)).close()


def test_a_start_probes_the_server_at_its_own_pace_with_no_retries_of_the_client_between(tmp_path, monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)  # the probe's
    monkeypatch.setattr(redis.retry, "sleep", slept.append)  # redis-py's, between its own retries
    with pytest.raises(RuntimeError):
        EmbeddedRedis(str(tmp_path), maxmemory="lots")
    # none at all when the server had died before the first probe, which is then the only one
    assert set(slept) <= {0.05}


def test_a_stop_ends_the_server_removes_its_folder_lets_go_of_the_data_and_is_done_once(server):
    process = server.process
    server.stop()
    assert process.poll() == 0  # SIGTERM: it synced and exited
    assert not os.path.exists(server.runtime_dir)
    claim(server.data_dir).close()
    server.stop()
    server.supervise()  # a stopped server is not brought back, nor counted as died
    assert not server.alive() and not server.failed and server.restarts == []


def test_a_server_that_does_not_stop_in_time_is_killed(server, monkeypatch):
    monkeypatch.setattr(embedded, "STOP_TIMEOUT", 0.5)
    process = server.process
    process.send_signal(signal.SIGSTOP)
    server.stop()
    assert process.poll() == -signal.SIGKILL


def test_an_app_made_without_a_redis_starts_its_own_with_the_settings_and_plays_on_it(tmp_path):
    """What ``create_app()`` does alone (``gunicorn service.wsgi:app``): the embedded default, as
    the settings configure it, for its requests and its readiness probe."""
    settings = make_settings(data_dir=str(tmp_path / "data"), redis_appendfsync="everysec", redis_maxmemory="16mb", redis_timeout=1.5)
    app = create_app(settings)
    started = app.extensions["koz_embedded"]
    try:
        assert isinstance(started, EmbeddedRedis) and started.data_dir == str(tmp_path / "data") and started.alive
        assert (started.client.config_get("appendfsync"), started.client.config_get("maxmemory")) == (
            {"appendfsync": "everysec"}, {"maxmemory": str(16 * 1024 * 1024)}
        )
        for client, timeout in ((app.extensions["koz"].store.redis, 1.5), (app.extensions["koz_readiness"], 0.5)):
            options = client.connection_pool.connection_kwargs
            assert (options["path"], options["socket_timeout"]) == (started.socket_file, timeout)
        api = FlaskClient(app.test_client())
        created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed="embedded")
        assert created.status == 201 and any(created.body["id"].encode() in key for key in started.client.scan_iter(f"{settings.key_prefix}*"))
        assert api.request("GET", "/readyz").status == 200 and api.request("GET", "/healthz").status == 200
    finally:
        app.extensions["koz"].announcements.stop()
        started.stop()


def test_an_app_given_a_started_embedded_redis_serves_on_it_and_starts_none(server):
    app = create_app(make_settings(), embedded=server)
    try:
        assert app.extensions["koz_embedded"] is server
        assert app.extensions["koz"].store.redis.connection_pool.connection_kwargs["path"] == server.socket_file
        assert FlaskClient(app.test_client()).request("GET", "/readyz").status == 200
    finally:
        app.extensions["koz"].announcements.stop()
