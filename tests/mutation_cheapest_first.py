"""A pytest plugin for `make mutate` only: each mutant's tests run cheapest first, each on the
engine's caches emptied.

mutmut runs, for each mutant, the tests that reached its function, stopping at the first that
fails; it hands them over in no particular order. Most mutants of the rules are killed by a rule
test of milliseconds, but a property test over random matches takes seconds: run first, it made
every killed mutant cost seconds. The durations are those mutmut measured when it mapped the
tests (``mutmut-stats.json`` in ``mutants/``, where it runs them); without that file (the first
mapping run) the order is left alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_durations: dict[str, float] | None = None


def durations() -> dict[str, float]:
    """Each test's duration as mutmut measured it, read once per process (mutmut forks its workers)."""
    global _durations
    if _durations is None:
        stats = Path("mutmut-stats.json")
        if not stats.exists():
            return {}
        _durations = json.loads(stats.read_text())["duration_by_test"]
    return _durations


def pytest_collection_modifyitems(items: list[Any]) -> None:
    known = durations()
    if known:
        items.sort(key=lambda item: known.get(item.nodeid, 0.0))


def pytest_runtest_setup(item: Any) -> None:
    # mutmut forks each mutant's run from a process whose tests already filled the engine's
    # caches: a test would be handed what the unmutated code built, and the mutant go unseen
    from engine import shuffle, sixty_six_core
    from engine.players import german_whist, sixty_six

    sixty_six_core._DEAL_RULES.clear()
    german_whist.SHAPES.clear()
    sixty_six.match_chance.cache_clear()
    shuffle.first_dealer.cache_clear()
