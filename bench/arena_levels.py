"""Koz's levels ordered by the arena over HTTP: six ``koz bot --arena`` processes (two each of
random, basic and expert) seek rated matches of one ruleset on one ``koz serve`` (as
``bench/api.py`` starts it), are paired by its matchmaker, play, and seek again, each until it
has played ``--matches``; then the accounts' pages give each one's rating and uncertainty, and
whether each pair of levels is told apart (every gap wider than the two uncertainties); the bots'
logs, how many matches met each pair of levels (or the house), and how the stronger level fared.

    python bench/arena_levels.py --ruleset german-whist --options '{"target": 20}' --matches 120
    python bench/arena_levels.py --ruleset sixty-six --options '{"target": 5}' --matches 120 --work 16000 --trace 60
    python bench/arena_levels.py --ruleset partnership-batak --options '{"target": 21}' --matches 30 --work 8000 --partners

``bench/ratings.py`` plays the same six levels on the engine with a drawn seating each round,
which makes the run reproducible (and the suite's ordering test). Here the service pairs them
as it pairs anyone, by rating closeness, widening with the time waited, and the expert thinks by
the clock, so that one run is not repeated exactly by the next; it shows what a bot author sees.
A bot left alone meets Koz's house players after ``--house-after`` seconds (counted apart).
``--work N`` has the bots think by a count rather than by the clock (``koz bot --work``), so
that the expert is as strong on a loaded host as on a quiet one; ``--trace S`` prints the
standing every S seconds while they play, so one run says when the levels were first told apart.
``--partners`` (Eşli Batak) seats the two bots of a level as one side, as two friends who seek
beside each other are seated; without it every partner is drawn, and the random partner decides
most matches.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from api import Connection, CpuMeter, start_service
from stopping import stop_on_signals
from ratings import LEVELS, apart_by, told_apart

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from service.arena.ratings import Rating  # noqa: E402

KOZ = Path(sys.executable).with_name("koz")


def rating_in(page: dict, ruleset: str) -> Rating:
    """An account's rating in ``ruleset`` from its public page (the initial one before its first match)."""
    found = [entry for entry in page["ratings"] if entry["ruleset"] == ruleset]
    return Rating(mu=found[0]["rating"], sigma=found[0]["uncertainty"], games=found[0]["games"]) if found else Rating()


def account_page(url: str, name: str) -> dict:
    connection = Connection(url)
    status, page = connection.call("GET", f"/v1/accounts/{name}")
    connection.close()
    assert status == 200, page
    return page


STARTED = re.compile(r"match (\S+) started: seat \d+ against (\[.*\])")
FINISHED = re.compile(r"match (\S+): (win|loss|draw), rating ")
#: the bots' levels, strongest first: whose outcome a match between levels is counted by
STRONGEST_FIRST = ("expert", "basic", "random")


def pairings(logs: list[IO[str]], names: list[str]) -> dict[str, list[int]]:
    """How many matches met each pair of levels (or the house), from the bots' logs of the matches
    they started, and, between different levels, how the strongest bot level fared: ``[matches,
    won, lost, drawn]``."""
    seated: dict[str, set[str]] = {}
    outcomes: dict[tuple[str, str], str] = {}
    for log, name in zip(logs, names):
        log.seek(0)
        for line in log:
            message = json.loads(line).get("message", "") if line.startswith("{") else ""
            if started := STARTED.search(message):  # the bot's own name, and its opponents (a partner included)
                seated.setdefault(started[1], set()).update([name, *ast.literal_eval(started[2])])
            elif finished := FINISHED.search(message):
                outcomes[(finished[1], name)] = finished[2]
    levels = {name: level for name, level in zip(names, LEVELS)}
    met: dict[str, list[int]] = {}
    for game, players in seated.items():
        seated_levels = sorted(levels.get(name, "house") for name in players)
        tally = met.setdefault(" - ".join(seated_levels), [0, 0, 0, 0])
        tally[0] += 1
        if len(set(seated_levels)) == 1:
            continue
        strongest = min((name for name in players if name in levels), key=lambda name: STRONGEST_FIRST.index(levels[name]))
        outcome = outcomes.get((game, strongest))
        if outcome is not None:
            tally[1 + ("win", "loss", "draw").index(outcome)] += 1
    return met


def partners_of(names: list[str]) -> list[str]:
    """Each bot's partner with ``--partners``: the other bot of its level."""
    return [next(other for other, its_level in zip(names, LEVELS) if its_level == level and other != name) for name, level in zip(names, LEVELS)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="german-whist")
    parser.add_argument("--options", default="{}", help="the matches' options, as JSON")
    parser.add_argument("--matches", type=int, default=60, help="rated matches each bot plays")
    parser.add_argument("--house-after", type=float, default=10.0, help="a bot left alone this long meets Koz's house players")
    parser.add_argument("--work", type=int, help="each decision's counted work (koz bot --work); default: the bots think by the clock")
    parser.add_argument("--trace", type=float, help="print the standing every this many seconds while the bots play")
    parser.add_argument(
        "--partners", action="store_true", help="in a ruleset of partnerships, the two bots of each level seek beside each other (koz bot --partner)"
    )
    arguments = parser.parse_args()
    json.loads(arguments.options)  # refused here rather than by six bots
    stop_on_signals()
    process, url, data = start_service("everysec")
    try:
        play(arguments, process, url, data)
    finally:
        process.terminate()
        process.wait(60)
        shutil.rmtree(data, ignore_errors=True)


def play(arguments: argparse.Namespace, process: subprocess.Popen, url: str, data: str) -> None:
    meter = CpuMeter(process.pid, data)
    names = [f"{level}-{number}" for number, level in enumerate(LEVELS)]
    connection = Connection(url)
    keys = []
    for name in names:
        status, made = connection.call("POST", "/v1/accounts", {"name": name, "kind": "bot"})
        assert status == 201, made
        keys.append(made["key"])
    connection.close()
    logs = [tempfile.TemporaryFile("w+") for _ in names]  # a pipe nobody reads would stop a talkative bot
    started, server_before = time.monotonic(), meter.sample()
    bots = [
        subprocess.Popen(
            [str(KOZ), "bot", url, "--arena", arguments.ruleset, f"--key={key}", "--level", level]
            + ["--matches", str(arguments.matches), "--house-after", str(arguments.house_after), "--options", arguments.options]
            + ([] if arguments.work is None else ["--work", str(arguments.work)])
            + ([f"--partner={partner}"] if partner else []),
            stdout=subprocess.DEVNULL,
            stderr=log,
            process_group=0,  # a Ctrl-C reaches the bench alone, which stops them in its cleanup
        )
        for key, level, log, partner in zip(keys, LEVELS, logs, partners_of(names) if arguments.partners else [None] * len(names))
    ]
    try:
        while arguments.trace and any(bot.poll() is None for bot in bots):
            time.sleep(arguments.trace)
            ratings = [rating_in(account_page(url, name), arguments.ruleset) for name in names]
            standing = " ".join(f"{rating.mu:.1f}+-{rating.sigma:.1f}/{rating.games}" for rating in ratings)
            print(
                f"  {time.monotonic() - started:5.0f} s, {standing}: "
                f"expert > basic {told_apart(ratings, 'expert', 'basic')} ({apart_by(ratings, 'expert', 'basic'):+.2f}), "
                f"basic > random {told_apart(ratings, 'basic', 'random')} ({apart_by(ratings, 'basic', 'random'):+.2f})",
                flush=True,
            )
        for bot, name, log in zip(bots, names, logs):
            if bot.wait() != 0:
                log.seek(0)
                raise SystemExit(f"{name}'s bot stopped with {bot.returncode}: {log.read()[-2000:]}")
        server_after = meter.sample()
        pages = [account_page(url, name) for name in names]
        met = pairings(logs, names)
    finally:
        for bot in bots:
            bot.kill()
    bots_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu = sum(server_after[kind] - server_before[kind] for kind in ("web", "worker", "redis"))
    print(
        f"{arguments.ruleset} {arguments.options}, {arguments.matches} matches a bot over HTTP: {time.monotonic() - started:.0f} s, "
        f"CPU {bots_cpu.ru_utime + bots_cpu.ru_stime:.0f} s in the bots, {server_cpu:.0f} s in the server"
    )
    ratings = [rating_in(page, arguments.ruleset) for page in pages]
    for name, page, rating in zip(names, pages, ratings):
        house = sum(1 for game in page["recent_games"] if any(opponent not in names for opponent in game["opponents"]))
        recent = len(page["recent_games"])
        print(f"  {name:9s} {rating.mu:6.2f} +- {rating.sigma:5.2f}  ({rating.games} rated matches; the house in {house} of the last {recent})")
    counted = (f"{pair} {tally[0]}" + (" ({}-{}-{})".format(*tally[1:]) if sum(tally[1:]) else "") for pair, tally in sorted(met.items()))
    print("  matches by the levels they met (between levels, the strongest bot level's won-lost-drawn): " + ", ".join(counted))
    print(f"  expert > basic: {told_apart(ratings, 'expert', 'basic')}; basic > random: {told_apart(ratings, 'basic', 'random')}")


if __name__ == "__main__":
    main()
