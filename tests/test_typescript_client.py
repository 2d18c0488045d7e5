"""A TypeScript client, as a third-party developer would write one: types generated from the
committed OpenAPI document by openapi-typescript, requests through openapi-fetch. The programs
(``tests/typescript/`` and the README's example) must type-check under ``tsc --strict`` with no
cast, then, compiled, play German Whist and Schnapsen matches against the computer on a live
``koz serve`` with Node.js, and an arena
match from taking an account to the rating its result gave. The tools are pinned by ``openapi/package-lock.json``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import README_SERVER, readme_example
from tests.test_serve import Service

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "openapi" / "node_modules" / ".bin"
PROGRAMS = Path(__file__).resolve().parent / "typescript"


def run(command: list, folder: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], cwd=folder, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The programs beside the generated types, in a folder of their own (an ES module package
    that finds the pinned tools' node_modules)."""
    if shutil.which("node") is None:
        pytest.fail("Node.js is missing: the TypeScript client needs it (Debian: apt-get install nodejs npm), then `make test`")
    if not (BIN / "openapi-typescript").exists() or not (BIN / "tsc").exists():
        pytest.fail("the TypeScript tools are not installed: `make test` runs `npm ci --prefix openapi` (or run it yourself)")
    folder = tmp_path_factory.mktemp("typescript-client")
    for source in [*PROGRAMS.glob("*.ts"), PROGRAMS / "tsconfig.json"]:
        shutil.copy(source, folder)
    (folder / "readme_example.ts").write_text(readme_example("ts"))
    (folder / "package.json").write_text(json.dumps({"type": "module", "private": True}))
    (folder / "node_modules").symlink_to(ROOT / "openapi" / "node_modules")
    return folder


@pytest.fixture(scope="module")
def generated(project):
    return run([BIN / "openapi-typescript", ROOT / "openapi" / "openapi.json", "-o", "koz.d.ts"], project)


@pytest.fixture(scope="module")
def compiled(project, generated):
    return run([BIN / "tsc", "--strict", "-p", "."], project, timeout=600)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    service = Service(tmp_path_factory.mktemp("typescript-client-service") / "koz-data")
    yield service
    service.stop()


def test_openapi_typescript_generates_the_types_without_a_warning(generated):
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "⚠" not in output and "warn" not in output.lower(), output


def test_the_typescript_programs_type_check_under_strict(compiled):
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


def test_the_typescript_client_plays_a_german_whist_match_against_the_computer(project, compiled, service):
    played = run(["node", project / "out" / "play_german_whist.js", service.url], project)
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout)
    assert summary["status"] == "finished"
    assert summary["refused"] == "card_not_in_hand"
    assert summary["actions"] == 26  # one card to each of the 26 tricks
    assert summary["dealt"] == [[13, 13]]
    assert len(summary["winners"]) == 1


def test_the_readme_typescript_example_plays_a_schnapsen_match(project, compiled, service):
    example = project / "out" / "readme_example.js"
    example.write_text(example.read_text().replace(README_SERVER, service.url))
    played = run(["node", example], project)
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith("finished [")


def test_the_typescript_client_plays_an_arena_match_from_its_account_to_its_rating(project, compiled, service):
    played = run(["node", project / "out" / "play_arena.js", service.url, "TsBot"], project)
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout)
    assert summary["status"] == "finished" and summary["actions"] == 26  # one card to each of the 26 tricks
    finished = summary["finished"]
    assert finished["game"] == summary["game"] and finished["outcome"] == ("win" if summary["seat"] in summary["winners"] else "loss")
    assert summary["games_played"] == 1 and summary["rating"] == finished["rating"]["rating"]
