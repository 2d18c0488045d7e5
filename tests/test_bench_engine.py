"""``bench/engine.py --baseline DIR``: another checkout's engine, imported beside this one, plays the
same deals interleaved with it (here the checkout itself stands in for the older one)."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_engine", ROOT / "bench" / "engine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_baseline_engine_is_a_second_copy_that_plays_the_same_deals():
    bench = load_bench()
    baseline = bench.baseline_registry(str(ROOT))
    assert baseline is not bench.registry
    for ruleset_id, _, raw_options in bench.VARIANTS:
        ours, theirs = bench.Koz(ruleset_id, raw_options), bench.Koz(ruleset_id, raw_options, baseline)
        assert type(theirs.ruleset).__module__.startswith("baseline_engine.")
        played = [bench.playout(koz.ruleset, koz.options, "same-deal", random.Random(7)) for koz in (ours, theirs)]
        assert played[0] == played[1] > 0
