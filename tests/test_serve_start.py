"""``make run`` on a fresh clone: what it installs, and the first requests after ``koz serve``
starts."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from engine import registry
from tests.api import SocketClient
from tests.test_serve import KOZ, Service, free_port, read_stream_messages

ROOT = Path(__file__).resolve().parent.parent


def make_dry_run(target: str, tmp_path: Path) -> list[str]:
    """The commands ``make <target>`` runs in a fresh clone (one with no environment yet)."""
    run = subprocess.run(
        ["make", "--dry-run", "--always-make", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return run.stdout.splitlines()


def pip_installs(commands: list[str]) -> list[list[str]]:
    """What each ``pip install`` or ``uv pip install`` among ``commands`` installs into the
    environment (the environment named by ``--python`` left out), but the installer uv itself."""
    installs = []
    for words in (command.split() for command in commands):
        if words and (words[1:4] == ["-m", "pip", "install"] or (Path(words[0]).name == "uv" and words[1:3] == ["pip", "install"])):
            installed = words[words.index("install") + 1 :]
            if "--python" in installed:
                del installed[installed.index("--python") : installed.index("--python") + 2]
            installs.append(installed)
    return [words for words in installs if words != ["--quiet", "uv"]]


def test_make_run_installs_what_serving_needs_and_make_test_adds_the_test_tools(tmp_path):
    assert pip_installs(make_dry_run("run", tmp_path)) == [["--quiet", "-e", "."]]
    assert pip_installs(make_dry_run("test", tmp_path)) == [["--quiet", "-e", "'.[test]'"]]


def closure(requirements: list[Requirement], extra: str = "") -> set[str]:
    """The distributions that installing ``requirements`` installs (as installed here)."""
    found: set[str] = set()
    waiting = [(requirement, extra) for requirement in requirements]
    while waiting:
        requirement, asked = waiting.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": asked}):
            continue
        name = metadata.distribution(requirement.name).metadata["Name"].lower().replace("_", "-")
        if name in found:
            continue
        found.add(name)
        for wanted in requirement.extras or {""}:
            waiting += [(Requirement(text), wanted) for text in metadata.requires(requirement.name) or []]
    return found


def top_level_modules(distribution: str) -> set[str]:
    names = set()
    for file in metadata.distribution(distribution).files or []:
        top = file.parts[0] if len(file.parts) > 1 else file.name.split(".")[0]
        if top.isidentifier() and top != "__pycache__":
            names.add(top)
    return names


@pytest.fixture
def without_test_tools(tmp_path) -> dict[str, str]:
    """An environment in which importing what only the test extra installs fails, as it would
    in what ``make run`` installs."""
    koz = [Requirement(text) for text in metadata.requires("koz") or []]
    test_only = closure(koz, "test") - closure(koz)
    assert {"pytest", "mypy", "playwright", "schemathesis", "openapi-python-client", "fakeredis"} <= test_only
    blockers = tmp_path / "no-test-tools"
    blockers.mkdir()
    for distribution in test_only:
        for module in top_level_modules(distribution):
            message = f"{module} comes with the test extra ({distribution}), which serving must not need"
            (blockers / f"{module}.py").write_text(f"raise ImportError({message!r})\n")
    return {"PYTHONPATH": str(blockers)}


@pytest.mark.redis_server
def test_koz_serve_plays_with_nothing_the_test_extra_installs(tmp_path, without_test_tools):
    with Service(tmp_path / "koz-data", **without_test_tools, KOZ_REPLY_WAIT_SECONDS="30") as service:
        api = SocketClient(service.url)
        for path in ("/", "/docs/", "/openapi.json", "/v1/rulesets", "/metrics"):
            assert api.request("GET", path).status == 200, path
        for ruleset in ("german-whist", "partnership-batak", "sixty-six"):
            created = api.create(ruleset=ruleset).body  # its standard seats: computers beside one person
            token = created["tokens"][0]["token"]
            view = api.view(created["id"], token).body
            assert view["legal_actions"]  # the computers before the person moved within the wait
            assert api.request("GET", f"/v1/games/{created['id']}/hint", token=token).status == 200
            acted = api.act(created["id"], view["legal_actions"][0], token)
            assert acted.status == 200
            assert api.history(created["id"]).status == 200
        stream = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
        stream.request("GET", f"/v1/games/{created['id']}/events")
        assert read_stream_messages(stream.getresponse(), 1)[0][0] == "view"
        stream.close()
        api.close()
        assert service.stop() == 0
    log = service.log.read_text()
    assert "Traceback" not in log and "comes with the test extra" not in log


def computer_leads(ruleset_id: str) -> str:
    """A seed with which the computer in seat 0 acts first."""
    ruleset = registry.get(ruleset_id)
    return next(seed for seed in map(str, range(100)) if tuple(ruleset.to_act(ruleset.new_game(ruleset.parse_options({}), seed)[0])) == (0,))


@pytest.mark.redis_server
def test_the_first_request_after_koz_serve_starts_does_not_wait_for_a_worker_to_come_up(tmp_path):
    port = free_port()
    log = tmp_path / "koz.log"
    # a computer's move waits up to half a minute: an answer that waited for the worker shows it
    environment = {**os.environ, "KOZ_DATA_DIR": str(tmp_path / "koz-data"), "KOZ_REPLY_WAIT_SECONDS": "30"}
    environment.pop("REDIS_URL", None)
    seed = computer_leads("german-whist")
    with open(log, "w") as output:
        service = subprocess.Popen([str(KOZ), "serve", "--port", str(port)], stdout=output, stderr=subprocess.STDOUT, env=environment)
    try:
        deadline = time.monotonic() + 120
        while True:  # the first moment the port answers
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                connection.connect()
                break
            except OSError:
                assert time.monotonic() < deadline and service.poll() is None, log.read_text()
                time.sleep(0.01)
        sent = time.monotonic()
        body = json.dumps({"ruleset": "german-whist", "seats": [{"bot": "random"}, {"name": "P"}], "seed": seed})
        connection.request("POST", "/v1/games", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        created = json.loads(response.read())
        answered_after = time.monotonic() - sent
        connection.close()
        assert response.status == 201 and created["version"] == 1  # the computer's lead came with it
        lines = log.read_text().splitlines()
        ready = next(number for number, line in enumerate(lines) if "1 koz worker(s) ready" in line)
        listening = next(number for number, line in enumerate(lines) if "Listening at" in line)
        assert ready < listening, "the web server listened before the worker was ready"
        assert answered_after < 5.0  # generous: a loaded machine; it waited for the worker to start (4 to 9 s here) before
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(60)
    print(f"the first creation, the computer's lead included, answered in {answered_after:.2f} s")
