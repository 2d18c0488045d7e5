"""The committed OpenAPI document passes Redocly's recommended rules and Spectral's spectral:oas,
with no error and no warning (the configs beside it in openapi/ say why any finding is waived)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

OPENAPI = Path(__file__).resolve().parent.parent / "openapi"
BIN = OPENAPI / "node_modules" / ".bin"


@pytest.fixture(scope="module")
def linters() -> Path:
    if shutil.which("node") is None:
        pytest.fail("Node.js is missing: the OpenAPI lint needs it (Debian: apt-get install nodejs npm), then `make test`")
    if not (BIN / "redocly").exists() or not (BIN / "spectral").exists():
        pytest.fail("the OpenAPI linters are not installed: `make test` runs `npm ci --prefix openapi` (or run it yourself)")
    return BIN


def run(command: list[str]) -> str:
    finished = subprocess.run(command, cwd=OPENAPI, capture_output=True, text=True, timeout=300)
    return finished.stdout


def test_redocly_recommended_finds_no_error_and_no_warning(linters):
    report = json.loads(run([str(linters / "redocly"), "lint", "openapi.json", "--config", "redocly.yaml", "--format=json"]))
    problems = [
        f"{problem['severity']} {problem['ruleId']}: {problem['message']} at {problem['location'][0]['pointer']}" for problem in report["problems"]
    ]
    assert report["totals"]["errors"] == report["totals"]["warnings"] == 0, "\n".join(problems)


def test_spectral_oas_finds_no_error_and_no_warning(linters):
    findings = json.loads(run([str(linters / "spectral"), "lint", "openapi.json", "--ruleset", ".spectral.yaml", "--format=json", "--quiet"]) or "[]")
    problems = [f"{finding['code']}: {finding['message']} at {'/'.join(map(str, finding['path']))}" for finding in findings]
    assert problems == []
