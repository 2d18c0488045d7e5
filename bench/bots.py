"""Computer levels against each other, in every game, and Koz's expert against VU's RdeepBot:
win shares and decision times.

    python bench/bots.py                      # every game, the three pairings
    python bench/bots.py --games sixty-six --pairings expert-basic --matches 100 --jobs 2
    python bench/bots.py --work 15000         # decisions by a count: the same shares every run
    python bench/bots.py --peer --deals 1000 --jobs 2   # Schnapsen against RdeepBot(32, 6)
    python bench/bots.py --baseline /tmp/koz-then --pairings expert-baseline   # against an older expert
    python bench/bots.py --games german-whist --baseline /tmp/koz-then --pairings expert-baseline --oracle

For each game and pairing "A-B", matches are played with A and B swapping seats every match (in
Batak, A plays North-South in even matches and East-West in odd ones), each seat deciding from
its own information only. Printed per pairing: A's share of the deals won (deals with a winner)
and of the matches, each with a 95% Wilson interval, and the decision time p50/p95/max of each
level in milliseconds. German Whist matches are single deals (target 0); Sixty-Six plays to 7 and
Batak to 31.

Decisions think by the clock (the expert's default time, or ``--seconds``), measured in the
process's CPU time (``--clock cpu``, the default: fair on a machine that other work shares) or
on the wall clock; ``--work N`` makes every expert decision a count instead, so that the shares
depend on the seeds only.

``--baseline DIR`` adds the level ``baseline``: the expert of the Koz checkout in ``DIR`` (for
example ``git worktree add /tmp/koz-then <commit>``), given the same time as today's expert (a
decision's work unbounded, its ceiling the expert's time) or the same ``--work``; it decides from
the same seat information, passed to it as JSON, and its actions are read back the same way.

``--oracle`` hands this checkout's expert the hands in play in place of those it samples
(German Whist: the opponent's hand, the stock's order still sampled, as no reading of the
opponent's plays can learn it; Batak: every hand): its share against ``baseline`` then bounds
what any better reading of the hidden cards could bring (issue 28's note of 2026-12-04). The
other levels, and ``baseline``, are unchanged.

``--peer`` plays Koz's expert against the VU schnapsen platform's RdeepBot (``--samples``,
``--depth``; 32 and 6 by default) under VU's rules: VU runs each deal (``bench/schnapsen_rdeep.py``
in the environment ``make bench`` builds, ``.venv-peer``), Koz mirrors it in its own engine, and
its player decides from its seat's view and events as in any Koz game, choosing among the actions
VU allows too (VU has no closing and no explicit claim: a trick's winner with 66 wins at once; a
marriage leads the king); VU checks each of its moves. Koz's engine and player are also told one of
those rules, as an option: no claim comes with a marriage, whose points count from its announcer's
next trick won (``vu_options``; until 2026-12-04 the player counted on such claims, for itself and
for RdeepBot). Deals played out that never close, as VU's cannot, did no better (issue 28's note of
2026-12-04), so closing is left as Koz's rules have it. A VU game is a single deal, won by whoever
wins the deal: Koz's player is told so (both sides a game point short of the match's target, so
that the deal decides the match); ``--first-deal`` plays each deal as the first of a match to 7
instead (the expert then weighs game points, as it does at 0-0: how the figures up to issue 28's
note of 2026-12-02 were measured). The first lead alternates. Printed: the deals Koz won with a 95%
interval, game points per deal of each side, and each side's mean decision time (CPU and wall) and
Koz's 95th percentile. ``--records FILE`` keeps each deal's record (winner, game points, both
sides' decision times) as JSON: two runs of the same ``--seed`` play the same deals, so two
versions of the expert can be compared deal by deal: ``--compare BEFORE AFTER [BEFORE AFTER ...]``
prints the change in deals won between two versions' records (after minus before) with its 95%
interval, from the deals both played, which is narrower than comparing the two shares (each deal's
luck is the same for both). With the pairings, ``--records`` keeps each match's record (its number,
which seeds its deals, and the level that won it), and ``--compare`` takes the change in matches
won by the pairing's first level: two checkouts' ``--pairings expert-baseline`` runs over the same
``--first`` and ``--matches`` play the same deals.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import registry  # noqa: E402
from engine.actions import Action  # noqa: E402
from engine.cards import Card  # noqa: E402
from engine.players import BasicPlayer, Budget, ExpertPlayer, Player, RandomPlayer, SeatInfo, SeatLogs, batak, german_whist, play_match  # noqa: E402
from engine.players.base import BY_TIME  # noqa: E402
from engine.ruleset import Match  # noqa: E402
from engine.shuffle import SeededRandom  # noqa: E402
from engine.sixty_six import SixtySix  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}

LEVELS = {chosen.level: chosen for chosen in (RandomPlayer(), BasicPlayer(), ExpertPlayer())}

GAMES = {
    "german-whist": {"target": 0},
    "sixty-six": {},
    "partnership-batak": {},
}
PAIRINGS = ["expert-random", "expert-basic", "basic-random"]


def sides(ruleset_id: str, match_number: int) -> list[int]:
    """Which side (0: A, 1: B) plays each seat in this match: sides swap every match."""
    seat_count = registry.get(ruleset_id).seat_count
    return [(seat + match_number) % 2 for seat in range(seat_count)]


def deal_winner_side(ruleset_id: str, result: dict, seat_sides: list[int]) -> int | None:
    """The side that won a deal: its winners' side, or in Batak the team that scored more."""
    if ruleset_id == "partnership-batak":
        north_south, east_west = result["team_points"]
        if north_south == east_west:
            return None
        return seat_sides[0] if north_south > east_west else seat_sides[1]
    return seat_sides[result["winners"][0]] if result["winners"] else None


def expert_budget(args: argparse.Namespace) -> Budget:
    """The expert's budget: a count with ``--work``, else its thinking time (``--seconds``)."""
    return Budget(work=args.work, seconds=args.seconds, ceiling=args.ceiling)


class Baseline(Player):
    """The expert of another Koz checkout (``--baseline``), as a level of this one."""

    level = "baseline"
    names = {"en": "Baseline", "tr": "Eski"}

    def __init__(self, home: str) -> None:
        sys.path.insert(0, home)
        self.players = importlib.import_module("baseline_engine.players")

    def choose(self, info: SeatInfo, seed: str, budget: Budget | None = None) -> Action:
        budget = budget or Budget()
        then = self.players
        work = budget.work if budget.work is not None else BY_TIME
        ceiling = budget.ceiling if budget.work is not None else min(budget.seconds or ExpertPlayer.think_seconds, budget.ceiling)
        given = then.SeatInfo(info.ruleset, info.seat, info.options, info.view, info.events)
        # a checkout from before the budget's time source was named ``timer`` calls it ``clock``
        timer_field = "timer" if "timer" in then.Budget.__dataclass_fields__ else "clock"
        chosen = then.ExpertPlayer().choose(given, seed, then.Budget(work=work, ceiling=ceiling, **{timer_field: budget.timer}))
        return Action.from_json(chosen.to_json())


class Oracle:
    """``--oracle``: this checkout's expert is handed the hands in play in place of those it
    would sample (German Whist: the opponent's hand, the stock's order still sampled; Batak: every
    hand), and so plays as it would if it read the hidden hands perfectly: what that is worth to
    it bounds what any better reading of the opponents' plays could bring it. (The stock's order
    is left to chance: no reading of the plays can learn it.)"""

    def __init__(self) -> None:
        self.state: Any = None
        self.seat = 0

    def see(self, state: Any, seat: int) -> None:
        """The deal as it stands when ``seat`` is asked to decide (``play_match``'s hook)."""
        self.state, self.seat = state, seat

    def german_whist_draw(self, sampler: german_whist.Sampler, rng: SeededRandom) -> tuple[int, list[int]]:
        held = self.state.hands[1 - self.seat]
        return held & sum(1 << card for card in sampler.pool), rng.shuffled([card for card in sampler.pool if not held >> card & 1])

    def batak_deal(self) -> list[int]:
        return list(self.state.hands)

    @contextmanager
    def dealing(self) -> Iterator[None]:
        """While inside, this checkout's samplers deal what :meth:`see` was last shown."""
        with (
            patch.object(german_whist.Sampler, "draw", lambda sampler, rng: self.german_whist_draw(sampler, rng)),
            patch.object(batak.DealSampler, "sample", lambda sampler: self.batak_deal()),
        ):
            yield


#: the games whose expert ``--oracle`` can hand the hidden hands to
ORACLE_GAMES = ("german-whist", "partnership-batak")


def baseline_home(directory: str) -> str:
    """A folder that holds the engine of the checkout in ``directory`` under another package name
    (its imports are relative), removed when this process exits. Made by the main process: a
    worker of the pool ends without running ``atexit``, and would leave its own behind."""
    home = Path(tempfile.mkdtemp(prefix="koz-baseline-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)  # its modules may be imported until then
    (home / "baseline_engine").symlink_to(Path(directory).resolve() / "engine")
    return str(home)


def play_one(job: tuple[str, str, int, argparse.Namespace]) -> dict:
    ruleset_id, pairing, number, args = job
    if args.baseline and "baseline" not in LEVELS:
        LEVELS["baseline"] = Baseline(args.baseline_home)
    levels = pairing.split("-")
    seat_sides = sides(ruleset_id, number)
    players = [LEVELS[levels[side]] for side in seat_sides]
    oracle = Oracle() if args.oracle else None
    with oracle.dealing() if oracle else nullcontext():
        record = play_match(
            registry.get(ruleset_id),
            GAMES[ruleset_id],
            f"bench-{pairing}-{number}",
            players,
            timer=CLOCKS[args.clock],
            budgets={"expert": expert_budget(args), "baseline": expert_budget(args)},
            before_decision=oracle.see if oracle else None,
        )
    deals = [deal_winner_side(ruleset_id, result, seat_sides) for result in record.deal_results]
    winners = {seat_sides[seat] for seat in record.result.winners}
    return {
        "deals": deals,
        "match": winners.pop() if len(winners) == 1 else None,
        "times": [(decision.level, decision.seconds) for decision in record.decisions],
    }


#: the normal quantile of a two-sided 95% interval
Z_95 = 1.959964


def wilson(wins: int, total: int) -> tuple[float, float, float]:
    """The share and its 95% Wilson score interval."""
    if total == 0:
        return math.nan, math.nan, math.nan
    z = Z_95
    share = wins / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    spread = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return share, centre - spread, centre + spread


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else math.nan


def share_text(wins: int, total: int) -> str:
    share, low, high = wilson(wins, total)
    return f"{100 * share:5.1f}% [{100 * low:5.1f}, {100 * high:5.1f}] of {total}"


class MirroredDeal(SixtySix):
    """Schnapsen dealt as VU dealt it: the leader's hand, the follower's, the talon (drawing
    order, the face-up trump card last)."""

    def __init__(self, leader_seat: int, hands: list[list[str]], talon: list[str]) -> None:
        super().__init__()
        number = self.deck.number
        cards = [[number[Card.parse(code)] for code in hand] for hand in hands]
        self.hands = cards if leader_seat == 0 else cards[::-1]
        self.talon = [number[Card.parse(code)] for code in talon]

    def _dealt(self, match: Match, deal_number: int, dealer: int) -> tuple[list[list[int]], list[int], int]:  # type: ignore[override]
        return self.hands, self.talon[:-1], self.talon[-1]


def vu_options(ruleset: SixtySix) -> dict[str, Any]:
    """Koz's options for VU's Schnapsen: a claim of 66 never comes with a marriage, whose points
    count from its announcer's next trick won (an option no client can set: the engine offers no
    such claim, and Koz's player does not count on one, for itself or for RdeepBot)."""
    return {**ruleset.parse_options({"variant": "schnapsen"}), "marriage_claims": False}


def vu_move(action: Action) -> dict[str, Any] | None:
    """An action as VU's side names its move; None for what VU does not have (closing, claims)."""
    doc = action.to_json()
    if doc["type"] in ("play", "exchange") or (doc["type"] == "marriage" and not doc.get("declare")):
        return doc
    return None


def peer_deals(job: tuple[int, int, argparse.Namespace]) -> list[dict]:
    """Play deals ``first`` to ``first + count`` against RdeepBot; a record per deal."""
    first, count, args = job
    timer = CLOCKS[args.clock]
    expert, budget = ExpertPlayer(), replace(expert_budget(args), timer=timer)
    command = [
        str(ROOT / ".venv-peer/bin/python"), str(ROOT / "bench/schnapsen_rdeep.py"),
        "--deals", str(count), "--first", str(first), "--seed", args.seed, "--samples", str(args.samples), "--depth", str(args.depth),
    ]  # fmt: skip
    peer = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert peer.stdin is not None and peer.stdout is not None
    records: list[dict] = []
    for line in peer.stdout:
        message = json.loads(line)
        if "deal" in message:
            deal = message["deal"]
            ruleset = MirroredDeal(0, deal["hands"], deal["talon"])
            options = vu_options(ruleset)
            match = Match.start(options, f"{args.seed}:{deal['number']}", 2)
            if not args.first_deal:  # VU's game is this one deal: its winner wins, as Koz's player is told
                match = match._replace(scores=(options["target"] - 1, options["target"] - 1))
            leader = 1 - match.dealer(2)
            ruleset = MirroredDeal(leader, deal["hands"], deal["talon"])
            koz = leader if deal["koz_leads"] else 1 - leader
            state, events = ruleset.deal(match)
            logs = SeatLogs(2)
            logs.record(events)
            cpu: list[float] = []
            wall: list[float] = []
        elif "move" in message:
            state, events = ruleset.apply(state, 1 - koz, Action.from_json(message["move"]))
            logs.record(events)
        elif "ask" in message:
            info = logs.info(ruleset, options, state, koz)
            assert sorted(info.view["hand"]) == message["ask"]["hand"], "Koz's deal and VU's differ"
            valid = message["ask"]["valid"]
            allowed = [doc for doc in info.view["legal_actions"] if vu_move(Action.from_json(doc)) in valid]
            info = replace(info, view={**info.view, "legal_actions": allowed})
            started, started_cpu = time.perf_counter(), time.process_time()
            action = expert.choose(info, f"{args.seed}:{deal['number']}:{len(wall)}", budget)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
            peer.stdin.write(json.dumps({"move": vu_move(action)}) + "\n")
            peer.stdin.flush()
            state, events = ruleset.apply(state, koz, action)
            logs.record(events)
        else:
            end = message["end"]
            records.append({**end, "seed": args.seed, "deal": deal["number"], "koz_cpu": cpu, "koz_wall": wall})
    if peer.wait() != 0:
        raise SystemExit(f"the VU side failed (exit {peer.returncode})")
    return records


def won(record: dict) -> bool:
    """Whether the side compared won the record's deal (``--peer``: Koz) or match (a pairing: its first level)."""
    return record["winner"] == record.get("side", "koz")


def paired_change(pairs: list[tuple[dict, dict]]) -> tuple[float, float]:
    """The change in the share of deals (or matches) won, after minus before, over those both
    versions played, and the half-width of its 95% interval (normal, on the per-deal differences)."""
    differences = [won(after) - won(before) for before, after in pairs]
    count = len(differences)
    change = sum(differences) / count
    variance = sum((d - change) ** 2 for d in differences) / (count - 1)
    return change, Z_95 * math.sqrt(variance / count)


def compare_main(paths: list[str]) -> None:
    if len(paths) % 2:
        raise SystemExit("--compare takes pairs of record files: BEFORE AFTER [BEFORE AFTER ...]")
    pairs: list[tuple[dict, dict]] = []
    for before_path, after_path in zip(paths[::2], paths[1::2]):
        before, after = ({(r["seed"], r["deal"]): r for r in json.loads(Path(path).read_text())} for path in (before_path, after_path))
        common = sorted(before.keys() & after.keys())
        if not common:
            raise SystemExit(f"{before_path} and {after_path} share no deal (the same --seed plays the same deals)")
        pairs += [(before[key], after[key]) for key in common]
    if len(pairs) < 2:
        raise SystemExit("--compare needs at least two deals (or matches) played by both")
    change, spread = paired_change(pairs)
    shares = [sum(won(pair[side]) for pair in pairs) / len(pairs) for side in (0, 1)]
    print(
        f"{len(pairs)} played by both: before {100 * shares[0]:.1f}%, after {100 * shares[1]:.1f}%, "
        f"change {100 * change:+.2f} ± {100 * spread:.2f} points (95%)"
    )


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


PEER_PART = 20


def peer_main(args: argparse.Namespace) -> None:
    if not (ROOT / ".venv-peer/bin/python").exists():
        raise SystemExit("the VU platform's environment is missing: make .venv-peer/.installed")
    # in parts of 20 deals, with a running count on stderr: a long match shows how it goes
    jobs = [(first, min(PEER_PART, args.deals - first), args) for first in range(0, args.deals, PEER_PART)]
    started = time.perf_counter()
    records: list[dict] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for part in pool.map(peer_deals, jobs):
            records += part
            won = sum(record["winner"] == "koz" for record in records)
            print(f"{len(records)} deals: Koz won {share_text(won, len(records))}", file=sys.stderr, flush=True)
            if args.records:
                Path(args.records).write_text(json.dumps(records))
    won = [record for record in records if record["winner"] == "koz"]
    points = {side: sum(r["points"] for r in records if r["winner"] == side) / len(records) for side in ("koz", "rdeep")}
    koz_cpu = [s for r in records for s in r["koz_cpu"]]
    koz_wall = [s for r in records for s in r["koz_wall"]]
    rdeep_cpu = [s for r in records for s in r["rdeep_cpu"]]
    rdeep_wall = [s for r in records for s in r["rdeep_wall"]]
    budget = f"work {args.work}" if args.work else f"{args.seconds or ExpertPlayer.think_seconds} s by the {args.clock} clock"
    each = "the first of a match to 7" if args.first_deal else "deciding the match"
    print(f"Koz expert ({budget}) against RdeepBot({args.samples}, {args.depth}), Schnapsen under VU's rules, each deal {each}, seed {args.seed!r}")
    print(f"deals won by Koz: {share_text(len(won), len(records))}")
    print(f"game points per deal: Koz {points['koz']:.3f}, Rdeep {points['rdeep']:.3f}")
    print(
        f"decision ms, mean CPU/wall: Koz {1000 * mean(koz_cpu):.1f}/{1000 * mean(koz_wall):.1f} "
        f"(p95 CPU/wall {1000 * percentile(koz_cpu, 0.95):.1f}/{1000 * percentile(koz_wall, 0.95):.1f}, "
        f"max {1000 * max(koz_cpu):.1f}/{1000 * max(koz_wall):.1f}), "
        f"Rdeep {1000 * mean(rdeep_cpu):.1f}/{1000 * mean(rdeep_wall):.1f}  ({time.perf_counter() - started:.0f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--pairings", default=",".join(PAIRINGS))
    parser.add_argument("--matches", type=int, default=100, help="matches per game and pairing")
    parser.add_argument("--first", type=int, default=0, help="the number of the first match (its seed)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (decision times are cleanest with 1)")
    parser.add_argument("--work", type=int, help="every expert decision does this much work (reproducible)")
    parser.add_argument("--seconds", type=float, help="an expert decision thinks this long (default: the level's)")
    parser.add_argument("--ceiling", type=float, default=0.5, help="no decision thinks longer (seconds)")
    parser.add_argument("--clock", choices=CLOCKS, default="cpu", help="the clock decisions think and are timed by")
    parser.add_argument("--baseline", help="a Koz checkout whose expert is the level 'baseline'")
    parser.add_argument("--oracle", action="store_true", help="this checkout's expert plays knowing the hidden hands (German Whist, Batak)")
    parser.add_argument("--peer", action="store_true", help="Schnapsen against VU's RdeepBot instead")
    parser.add_argument("--deals", type=int, default=1000, help="--peer: deals to play")
    parser.add_argument("--samples", type=int, default=32, help="--peer: RdeepBot's samples per move")
    parser.add_argument("--depth", type=int, default=6, help="--peer: RdeepBot's depth in tricks")
    parser.add_argument("--seed", default="peer", help="--peer: the deals' seed")
    parser.add_argument("--records", help="write each deal's record (--peer) or match's (the pairings) to this JSON file")
    parser.add_argument("--compare", nargs="+", metavar="RECORDS", help="pairs of --records files, before and after: the change in wins")
    parser.add_argument("--first-deal", action="store_true", help="--peer: each deal as the first of a match to 7, not one that decides")
    args = parser.parse_args()
    if args.compare:
        compare_main(args.compare)
        return
    if args.oracle and (args.peer or not set(args.games.split(",")) <= set(ORACLE_GAMES)):
        parser.error(f"--oracle hands the hidden hands to the expert of {' and '.join(ORACLE_GAMES)} only")
    if args.peer:
        peer_main(args)
        return
    args.baseline_home = baseline_home(args.baseline) if args.baseline else None

    print(f"{'game':18} {'pairing':14} {'A wins deals':32} {'A wins matches':32} decision ms p50/p95/max")
    records: list[dict] = []
    for ruleset_id in args.games.split(","):
        for pairing in args.pairings.split(","):
            jobs = [(ruleset_id, pairing, number, args) for number in range(args.first, args.first + args.matches)]
            started = time.perf_counter()
            if args.jobs > 1:
                with ProcessPoolExecutor(args.jobs) as pool:
                    outcomes = list(pool.map(play_one, jobs))
            else:
                outcomes = [play_one(job) for job in jobs]
            deals = [side for outcome in outcomes for side in outcome["deals"] if side is not None]
            matches = [outcome["match"] for outcome in outcomes if outcome["match"] is not None]
            levels = pairing.split("-")
            for (_, _, number, _), outcome in zip(jobs, outcomes):
                winner = None if outcome["match"] is None else levels[outcome["match"]]
                records.append({"seed": f"{ruleset_id} {pairing}", "deal": number, "winner": winner, "side": levels[0]})
            timing = []
            for level in dict.fromkeys(levels):
                seconds = [s for outcome in outcomes for lvl, s in outcome["times"] if lvl == level]
                timing.append(
                    f"{level} {1000 * percentile(seconds, 0.5):.1f}/{1000 * percentile(seconds, 0.95):.1f}/{1000 * max(seconds):.1f}"
                )
            print(
                f"{ruleset_id:18} {pairing:14} {share_text(deals.count(0), len(deals)):32} "
                f"{share_text(matches.count(0), len(matches)):32} {'; '.join(timing)}"
                f"  ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    if args.records:
        Path(args.records).write_text(json.dumps(records))


if __name__ == "__main__":
    main()
