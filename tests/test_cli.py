"""``koz``'s command line, run in this process: what it refuses before it starts anything, its
defaults, and what ``koz serve`` does around gunicorn (its metrics folders, its workers' supervision,
gunicorn's configuration), with gunicorn's own run stood in for. ``tests/test_serve.py`` and
``tests/test_serve_lifetime.py`` run the commands whole, in processes of their own, where a mutant
of this module does not reach (docs/mutation-report.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from flask import Flask

from service import cli
from service.cli import main as koz


@pytest.fixture(autouse=True)
def environment_restored():
    """``koz`` run in-process sets this process's environment as it would its own
    (``PROMETHEUS_MULTIPROC_DIR``, ``REDIS_URL``): put back whole after each test. (monkeypatch's
    ``delenv`` of a variable not set records nothing, so one set afterwards outlived its test and
    turned a later test's metrics to another folder's.)"""
    before = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(before)


def test_koz_bot_refuses_a_game_without_its_seat_s_token_and_an_arena_run_without_a_key_or_with_a_game(monkeypatch):
    monkeypatch.setattr(cli.bot, "run", lambda *args, **kwargs: pytest.fail("played"))
    monkeypatch.setattr(cli.arena_bot, "run", lambda *args, **kwargs: pytest.fail("played"))
    for argv in (["bot", "http://127.0.0.1:1"], ["bot", "http://127.0.0.1:1", "g1"]):
        with pytest.raises(SystemExit) as refused:
            koz(argv)
        assert refused.value.code == "koz bot takes a game and its seat's token (or --arena RULESET --key KEY)"
    for argv in (["--arena", "sixty-six"], ["g1", "--arena", "sixty-six", "--key", "k"]):
        with pytest.raises(SystemExit) as refused:
            koz(["bot", "http://127.0.0.1:1", *argv])
        assert refused.value.code == "koz bot --arena RULESET takes --key KEY, and no game or token"


def test_koz_bot_plays_its_seat_with_what_it_was_given_and_ends_with_the_bot_s_own_status(monkeypatch):
    asked = []
    monkeypatch.setattr(cli.bot, "run", lambda *args, **kwargs: asked.append((args, kwargs)) or 3)
    with pytest.raises(SystemExit) as ended:
        koz(["bot", "http://127.0.0.1:1", "g1", "t1", "--level", "expert", "--work", "1", "--socket"])
    assert ended.value.code == 3
    assert asked == [(("http://127.0.0.1:1", "g1", "t1", "expert", 1), {"socket": True})]


def test_koz_bot_in_the_arena_seeks_as_it_was_told(monkeypatch):
    asked = []
    monkeypatch.setattr(cli.arena_bot, "run", lambda *args, **kwargs: asked.append((args, kwargs)) or 0)
    with pytest.raises(SystemExit):
        koz(["bot", "http://h", "--arena", "sixty-six", "--key", "k", "--level", "basic", "--house-after", "2.5", "--matches", "4",
             "--unrated", "--options", '{"target": 5}', "--partner", "Ada"])  # fmt: skip
    assert asked == [
        (
            ("http://h", "k", "sixty-six", "basic", 2.5, 4),
            {"rated": False, "options": {"target": 5}, "work": None, "partner": "Ada", "socket": False},
        )
    ]


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ("[1]", "a JSON object is needed, as a game's options are"),
        ("{target: 1}", "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ],
)
def test_koz_bot_s_options_are_a_json_object(options, refusal, monkeypatch, capsys):
    monkeypatch.setattr(cli.arena_bot, "run", lambda *args, **kwargs: pytest.fail("played"))
    with pytest.raises(SystemExit) as refused:
        koz(["bot", "http://127.0.0.1:1", "--arena", "sixty-six", "--key", "k", "--options", options])
    assert refused.value.code == 2 and capsys.readouterr().err.endswith(f"argument --options: {refusal}\n")


def test_each_command_s_defaults_are_the_documented_ones(monkeypatch):
    """As the README gives them: one web process on 127.0.0.1:8000 holding up to 10,000 connections,
    one worker beside it, the embedded Redis; the document written where it is committed."""
    run = []
    for command in ("serve", "work", "write_openapi", "verify_history"):
        monkeypatch.setattr(cli, command, run.append)
    koz(["serve"])
    koz(["worker"])
    koz(["openapi"])
    koz(["verify", "history.json"])
    serve, work, openapi, verify = run
    assert (serve.command, serve.host, serve.port, serve.processes, serve.connections, serve.workers, serve.redis_url) == (
        "serve", "127.0.0.1", 8000, 1, 10000, 1, None
    )
    assert (work.command, work.with_parent, work.redis_url, work.ready_fd) == ("worker", False, None, None)
    assert (openapi.command, openapi.output) == ("openapi", Path("openapi") / "openapi.json")
    assert (verify.command, verify.history) == ("verify", "history.json")
    given = ["serve", "--host", "0.0.0.0", "--port", "8080", "--processes", "4", "--connections", "500", "--workers", "0", "--redis-url", "redis://r"]
    koz(given)
    koz(["worker", "--with-parent", "--redis-url", "redis://r", "--ready-fd", "7"])
    assert (run[4].host, run[4].port, run[4].processes, run[4].connections, run[4].workers, run[4].redis_url) == ("0.0.0.0", 8080, 4, 500, 0, "redis://r")
    assert (run[5].with_parent, run[5].redis_url, run[5].ready_fd) == (True, "redis://r", 7)
    assert run[4].argv == given  # what koz serve starts itself again with (its web processes' shared metrics)
    monkeypatch.setattr(sys, "argv", ["koz", "serve", "--port", "9"])  # as the koz script calls it
    koz()
    assert (run[6].port, run[6].argv) == (9, ["serve", "--port", "9"])


def test_koz_without_a_command_says_which_it_takes(capsys):
    with pytest.raises(SystemExit) as refused:
        koz([])
    assert refused.value.code == 2
    assert capsys.readouterr().err.endswith("error: the following arguments are required: command\n")


@pytest.mark.parametrize(
    ("text", "refusal"),
    [("1.5", "not a whole number: '1.5'"), ("x", "not a whole number: 'x'"), ("0", "must be at least 1"), ("-2", "must be at least 1")],
)
def test_a_count_of_work_is_a_whole_number_of_at_least_one(text, refusal):
    with pytest.raises(cli.argparse.ArgumentTypeError, match=f"^{refusal}$"):
        cli.positive_int(text)
    assert cli.positive_int("1") == 1


def test_the_metrics_folders_of_services_that_are_gone_are_removed_and_no_other(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    gone, running = tmp_path / f"koz-metrics-{ended.pid}", tmp_path / f"koz-metrics-{os.getpid()}"
    for folder in (gone, running, tmp_path / "koz-metrics-x1", tmp_path / f"other-{ended.pid}"):
        folder.mkdir()
        (folder / "counter_1.db").write_bytes(b"counts")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link, file = tmp_path / f"koz-metrics-{ended.pid + 1000000}", tmp_path / f"koz-metrics-{ended.pid + 2000000}"
    link.symlink_to(elsewhere)  # not folders it made: left alone
    file.write_text("a file")
    cli.remove_metrics_of_killed_services()
    kept = [running.name, "koz-metrics-x1", f"other-{ended.pid}", "elsewhere", link.name, file.name]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(kept)
    assert (elsewhere.exists(), (running / "counter_1.db").exists()) == (True, True)
    assert cli.own_metrics_folder() == running


def test_a_process_is_alive_until_it_has_ended():
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    assert cli.process_alive(process.pid) and cli.process_alive(os.getpid())
    process.communicate(b"")
    assert not cli.process_alive(process.pid)


def test_another_user_s_process_is_alive(monkeypatch):
    def not_allowed(pid: int, signal: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "kill", not_allowed)
    assert cli.process_alive(1)


#: a process that ends at once, leaving one it started holding the pipe open until its input ends
HOLDER = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'], pass_fds=({fd},))"


@pytest.mark.parametrize(
    ("code", "ready"),
    [("import os, sys; os.write({fd}, b'1'); sys.stdin.read()", True), ("pass", False), (HOLDER, False)],
)
def test_a_worker_is_ready_once_it_says_so_and_not_if_it_ends_first(code, ready):
    ready_read, ready_write = os.pipe()
    process = subprocess.Popen([sys.executable, "-c", code.format(fd=ready_write)], stdin=subprocess.PIPE, pass_fds=(ready_write,))
    os.close(ready_write)
    answer = []
    asking = threading.Thread(target=lambda: answer.append(cli.said_ready(process, ready_read)))
    asking.start()
    asking.join(10)  # the pipe is read a second at a time: its end is seen within one
    answered = not asking.is_alive()
    process.communicate(b"")
    asking.join()
    assert answered and answer == [ready]


def test_koz_openapi_writes_the_document_where_it_is_told_making_its_folder_and_logs_no_request(tmp_path, capsys):
    output = tmp_path / "docs" / "api" / "openapi.json"
    for again in (False, True):  # again: into the folder made the first time, over its file, as into openapi/ by default
        if again:
            output.write_text("an older document")
        koz(["openapi", "--output", str(output)])
        assert output.read_text() == (Path(__file__).parents[1] / "openapi" / "openapi.json").read_text()  # as committed
        written = capsys.readouterr()
        assert written.out == f"wrote {output}\n" and "openapi.json" not in written.err  # fetched in process, not served


def test_koz_serve_with_several_web_processes_starts_again_with_a_fresh_metrics_folder_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    started = []

    def execv(path: str, argv: list[str]) -> None:
        started.append((path, argv, os.environ.get("PROMETHEUS_MULTIPROC_DIR")))
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", execv)
    left = tmp_path / f"koz-metrics-{os.getpid()}"  # a killed service's of the same process id
    left.mkdir()
    (left / "counter_1.db").write_bytes(b"counts")
    with pytest.raises(SystemExit):
        koz(["serve", "--processes", "2"])
    assert started == [(sys.executable, [sys.executable, "-m", "service.cli", "serve", "--processes", "2"], str(left))]
    assert left.is_dir() and not any(left.iterdir())
    shutil.rmtree(left)  # and with none left before
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    with pytest.raises(SystemExit):
        koz(["serve", "--processes", "3"])
    assert started[1][2] == str(left) and left.is_dir()
    monkeypatch.setattr(cli, "remove_metrics_of_killed_services", lambda: None)
    monkeypatch.setattr(cli, "Settings", None)  # past the metrics, serve would start: stop it there
    for argv, folder in ((["serve"], None), (["serve", "--processes", "2"], "/elsewhere")):  # one web process, or the folder set
        if folder is None:
            monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
        else:
            monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", folder)
        with pytest.raises(AttributeError, match="from_env"):
            koz(argv)
    assert len(started) == 2


def test_the_redis_url_given_stands_for_redis_url_and_none_given_leaves_it(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://before")
    cli.use_redis_url(cli.argparse.Namespace(redis_url=None))
    assert os.environ["REDIS_URL"] == "redis://before"
    cli.use_redis_url(cli.argparse.Namespace(redis_url="redis://given"))
    assert os.environ["REDIS_URL"] == "redis://given"


def test_a_web_process_that_ended_is_left_out_of_the_shared_metrics_only_when_they_are_shared(monkeypatch):
    dead = []
    monkeypatch.setattr(cli.multiprocess, "mark_process_dead", dead.append)
    worker = cli.argparse.Namespace(pid=4321)
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    cli.forget_process(None, worker)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "/somewhere")
    cli.forget_process(None, worker)
    assert dead == [4321]


def test_a_worker_started_with_its_parent_stops_once_its_parent_is_gone_and_not_before():
    stop = threading.Event()
    watching = threading.Thread(target=cli.stop_with_parent, args=(os.getppid(), stop))
    watching.start()
    watching.join(1.5)
    assert watching.is_alive() and not stop.is_set()
    stop.set()
    watching.join()
    orphaned = threading.Event()
    watching = threading.Thread(target=cli.stop_with_parent, args=(os.getppid() + 1, orphaned))  # started by another: gone
    watching.start()
    watching.join(10)
    assert orphaned.is_set() and not watching.is_alive()


@pytest.mark.redis_server
def test_koz_serve_s_workers_start_on_its_redis_say_when_ready_are_started_again_when_one_stops_and_stop_with_it(redis_server_url):
    workers = cli.WorkerProcesses(2, redis_server_url)
    workers.start()
    try:
        assert workers.wait_ready(30)
        first = list(workers.processes)
        assert len(first) == 2 and all(process.poll() is None for process in first)
        assert all(process.args[2:5] == ["service.cli", "worker", "--with-parent"] for process in first)
        assert workers.environment == {**os.environ, "REDIS_URL": redis_server_url}
        first[0].kill()
        deadline = time.monotonic() + 30
        while len(workers.processes) < 2 or first[0] in workers.processes:
            assert time.monotonic() < deadline, "the stopped worker was not started again"
            time.sleep(0.1)
        assert first[1] in workers.processes
    finally:
        workers.stop()
    assert all(process.poll() is not None for process in workers.processes + first)
    time.sleep(1.5)  # a stopped service starts none again
    assert workers.processes == []


def test_koz_serve_s_gunicorn_serves_its_app_with_the_service_s_settings_and_its_options_and_supervises_the_embedded_redis(monkeypatch):
    app = Flask("koz")
    server = cli.Server(app, {"bind": "127.0.0.1:9", "workers": 3, "worker_connections": 7})
    assert server.load() is app
    assert (server.cfg.bind, server.cfg.workers, server.cfg.worker_connections) == (["127.0.0.1:9"], 3, 7)  # the options win
    assert (server.cfg.timeout, server.cfg.graceful_timeout, server.cfg.worker_class_str) == (30, 5, "service.http_server.KozGeventWorker")
    supervised = []

    class Arbiter:
        def __init__(self, application: cli.Server) -> None:
            self.application = application

        def run(self) -> None:
            supervised.append((self.application, self.supervise))

    monkeypatch.setattr(cli, "SupervisingArbiter", Arbiter)
    server.run()
    embedded = cli.argparse.Namespace(supervise=lambda: None)
    app.extensions["koz_embedded"] = embedded
    server.run()
    assert supervised == [(server, None), (server, embedded.supervise)]


def test_koz_serve_waits_for_workers_that_never_get_ready_only_as_long_as_it_said():
    workers = cli.WorkerProcesses(2, "")  # no Redis named: each koz worker refuses to start, and is started again
    workers.start()
    try:
        asked = time.monotonic()
        assert not workers.wait_ready(0.5)
        assert time.monotonic() - asked < 1.5  # the half second in all, not for each worker
    finally:
        workers.stop()
