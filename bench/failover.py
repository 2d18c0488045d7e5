"""How long play pauses when a Redis Cluster primary is lost: the failover test of
``tests/test_fleet.py`` (3 primaries with 2 replicas each, ``KOZ_REDIS_REPLICAS=1``, 2 web
processes, 2 workers, 20 matches against a computer and 20 between people over HTTP, one primary
killed with SIGKILL, or with ``--freeze`` stopped with SIGSTOP) run ``--runs`` times for each ``--node-timeouts``, alternated; printed per run
and per node timeout: the steps from the kill as the nodes logged them (the primary marked as
failing, its replica elected, the slots writable again), play resumed (the first action on the lost
primary's games answered to a try made after the kill), Koz's part (resumed - writable), and how
many runs resumed within the issue's bound, ``cluster-node-timeout`` + 2 s, with the host's load.

The bound is a figure, not a test's assertion: Redis's own part takes most of it and grows with
the host's load (the test asserts Koz's part alone, generously).

    python bench/failover.py --runs 5 --node-timeouts 1000
    python bench/failover.py --runs 3 --node-timeouts 500,1000,2000
    python bench/failover.py --runs 5 --freeze
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(node_timeout_ms: int, timeline: Path, freeze: bool) -> dict | None:
    """One run of the failover test; its timeline, or None (and its output shown) if it failed."""
    environment = {
        **os.environ,
        "KOZ_FLEET_NODE_TIMEOUT_MS": str(node_timeout_ms),
        "KOZ_FLEET_TIMELINE": str(timeline),
        "KOZ_FLEET_FREEZE": "1" if freeze else "0",
    }
    timeline.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "tests/test_fleet.py", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-k", "failover"]
    finished = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    if finished.returncode != 0 or not timeline.exists():
        print(finished.stdout[-3000:], finished.stderr[-2000:], sep="\n", file=sys.stderr)
        return None
    return json.loads(timeline.read_text().splitlines()[-1])


def summary(runs: list[dict]) -> str:
    def span(step: str) -> str:
        values = [run[step] for run in runs]
        return f"{min(values):.2f}-{max(values):.2f}"

    parts = [run["resumed"] - run["writable"] for run in runs]
    met = sum(run["resumed"] < run["node_timeout"] + 2 for run in runs)
    return (
        f"{span('failing')} | {span('elected')} | {span('writable')} | {span('resumed')} | "
        f"{min(parts):.2f}-{max(parts):.2f} (median {statistics.median(parts):.2f}) | {met} of {len(runs)} | "
        f"{min(run['load'] for run in runs):.1f}-{max(run['load'] for run in runs):.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per node timeout")
    parser.add_argument("--node-timeouts", default="1000", help="cluster-node-timeout values in ms, comma-separated")
    parser.add_argument(
        "--freeze",
        action="store_true",
        help="stop the primary (SIGSTOP: it takes connections and answers nothing, as a machine cut off the network) instead of killing it",
    )
    arguments = parser.parse_args()
    node_timeouts = [int(value) for value in arguments.node_timeouts.split(",")]
    results: dict[int, list[dict]] = {timeout: [] for timeout in node_timeouts}
    failed: dict[int, int] = {timeout: 0 for timeout in node_timeouts}
    with tempfile.TemporaryDirectory(prefix="koz-bench-failover-") as directory:
        timeline = Path(directory) / "timeline.jsonl"
        print("node timeout | run | load | marked failing | elected | writable | resumed | Koz's part | bound")
        for number in range(arguments.runs):
            for node_timeout in node_timeouts:
                run = run_once(node_timeout, timeline, arguments.freeze)
                if run is None:
                    failed[node_timeout] += 1
                    print(f"{node_timeout / 1000:.1f} s | {number + 1} | the test failed", flush=True)
                    continue
                results[node_timeout].append(run)
                bound = run["node_timeout"] + 2
                print(
                    f"{node_timeout / 1000:.1f} s | {number + 1} | {run['load']:.1f} | {run['failing']:.2f} | {run['elected']:.2f} | "
                    f"{run['writable']:.2f} | {run['resumed']:.2f} | {run['resumed'] - run['writable']:.2f} | "
                    f"{'met' if run['resumed'] < bound else 'NOT met'} ({bound:.2f})",
                    flush=True,
                )
    print("\nnode timeout | marked failing | elected | writable | resumed | Koz's part | within node timeout + 2 s | load")
    for node_timeout, runs in results.items():
        failures = f" ({failed[node_timeout]} runs failed)" if failed[node_timeout] else ""
        print(f"{node_timeout / 1000:.1f} s | " + (summary(runs) if runs else "no run") + failures)


if __name__ == "__main__":
    main()
