"""``bench/engine.py --baseline DIR``: another checkout's engine, imported beside this one, plays the
same deals interleaved with it (here the checkout itself stands in for the older one)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from tests.support import load_bench

ROOT = Path(__file__).resolve().parent.parent


def test_the_baseline_engine_is_a_second_copy_that_plays_the_same_deals():
    bench = load_bench("engine.py")
    baseline = bench.baseline_registry(str(ROOT))
    assert baseline is not bench.registry
    for ruleset_id, _, raw_options in bench.VARIANTS:
        ours, theirs = bench.Koz(ruleset_id, raw_options), bench.Koz(ruleset_id, raw_options, baseline)
        assert type(theirs.ruleset).__module__.startswith("baseline_engine.")
        played = [bench.playout(koz.ruleset, koz.options, "same-deal", random.Random(7)) for koz in (ours, theirs)]
        assert played[0] == played[1] > 0


def test_the_baseline_engines_folder_is_removed_when_the_bench_ends(tmp_path):
    for script, load in (
        ("engine.py", "bench.baseline_registry(root)"),
        ("bots.py", "bench.Baseline(bench.baseline_home(root))"),
    ):
        program = (
            "import importlib.util, sys\n"
            f"root = {str(ROOT)!r}\n"
            f"spec = importlib.util.spec_from_file_location('bench_script', root + '/bench/{script}')\n"
            "bench = importlib.util.module_from_spec(spec)\n"
            "spec.loader.exec_module(bench)\n"
            f"{load}\n"
            "import tempfile, pathlib\n"
            "assert list(pathlib.Path(tempfile.gettempdir()).glob('koz-baseline-*'))  # there while it runs\n"
        )
        subprocess.run([sys.executable, "-c", program], check=True, env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=120)
        assert not list(tmp_path.glob("koz-baseline-*")), script
