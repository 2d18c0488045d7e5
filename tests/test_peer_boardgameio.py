"""The boardgame.io peer that ``bench/api.py --peer boardgameio`` measures Koz against plays German
Whist by the rule book (follow suit, the winner takes the face-up card, the loser draws, refusals
with ``INVALID_MOVE``, each player seeing only its own hand): its own Node.js tests say so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PEER = Path(__file__).resolve().parent.parent / "bench" / "peer_boardgameio"


def test_the_boardgameio_peer_plays_german_whist_by_the_rules():
    if shutil.which("node") is None:
        pytest.fail("Node.js is missing: the peer's tests need it (Debian: apt-get install nodejs npm), then `make test`")
    if not (PEER / "node_modules" / "boardgame.io").is_dir():
        pytest.fail("boardgame.io is not installed: `make test` runs `npm ci --prefix bench/peer_boardgameio` (or run it yourself)")
    finished = subprocess.run(["node", "--test", "test/"], cwd=PEER, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "# fail 0" in finished.stdout and "# pass 6" in finished.stdout, finished.stdout
