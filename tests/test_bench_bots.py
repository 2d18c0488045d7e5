"""``bench/bots.py --compare``: two versions of the expert, compared on the deals both played;
and ``--baseline``, an older expert, played in several processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import RuleError, registry
from engine.players import SeatLogs, batak, german_whist
from engine.shuffle import SeededRandom
from engine.sixty_six_core import DealRules
from tests.support import load_bench

ROOT = Path(__file__).resolve().parent.parent


def records(path: Path, seed: str, winners: dict[int, str]) -> str:
    path.write_text(json.dumps([{"seed": seed, "deal": deal, "winner": winner, "points": 1} for deal, winner in winners.items()]))
    return str(path)


def compare(*paths: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench/bots.py"), "--compare", *paths], capture_output=True, text=True, timeout=120)


def test_the_change_is_taken_deal_by_deal_over_the_deals_both_versions_played(tmp_path):
    before = records(tmp_path / "before.json", "s", {0: "koz", 1: "rdeep", 2: "rdeep", 3: "koz"})
    # deal 4 was played after only, and the deals are listed in another order: neither counts
    after = records(tmp_path / "after.json", "s", {4: "rdeep", 3: "rdeep", 2: "koz", 1: "koz", 0: "koz"})
    run = compare(before, after)
    assert run.returncode == 0, run.stderr
    # differences 0, +1, +1, -1: mean 0.25, sample variance 11/12, half-width 1.96 * sqrt(11/48)
    assert run.stdout.strip() == "4 played by both: before 50.0%, after 75.0%, change +25.00 ± 93.83 points (95%)"


def test_pairs_of_runs_are_pooled(tmp_path):
    first = records(tmp_path / "b1.json", "s1", {0: "rdeep", 1: "rdeep"}), records(tmp_path / "a1.json", "s1", {0: "koz", 1: "koz"})
    second = records(tmp_path / "b2.json", "s2", {0: "koz", 1: "koz"}), records(tmp_path / "a2.json", "s2", {0: "koz", 1: "rdeep"})
    run = compare(*first, *second)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("4 played by both: before 50.0%, after 75.0%, change +25.00 ")


def test_runs_of_different_seeds_are_refused(tmp_path):
    run = compare(records(tmp_path / "before.json", "s1", {0: "koz"}), records(tmp_path / "after.json", "s2", {0: "koz"}))
    assert run.returncode != 0
    assert "share no deal" in run.stderr


def test_an_odd_number_of_files_is_refused(tmp_path):
    run = compare(records(tmp_path / "before.json", "s", {0: "koz"}))
    assert run.returncode != 0
    assert "pairs of record files" in run.stderr


def test_the_pairings_keep_each_matchs_record_and_two_runs_of_the_same_matches_compare_match_by_match(tmp_path):
    def run(path: Path, first: int) -> list[dict]:
        command = [
            sys.executable, str(ROOT / "bench/bots.py"), "--games", "german-whist", "--pairings", "basic-random",
            "--matches", "6", "--first", str(first), "--records", str(path),
        ]  # fmt: skip
        played = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert played.returncode == 0, played.stderr
        return json.loads(path.read_text())

    kept = run(tmp_path / "before.json", 0)
    assert [record["deal"] for record in kept] == list(range(6))
    assert {record["seed"] for record in kept} == {"german-whist basic-random"}
    assert {record["side"] for record in kept} == {"basic"} and {record["winner"] for record in kept} <= {"basic", "random", None}
    again = run(tmp_path / "after.json", 3)  # matches 3 to 8: 3, 4 and 5 are played by both, alike (no expert: no clock)
    assert again[:3] == kept[3:]
    compared = compare(str(tmp_path / "before.json"), str(tmp_path / "after.json"))
    wins = sum(record["winner"] == "basic" for record in kept[3:])
    assert compared.stdout.strip().startswith(f"3 played by both: before {100 * wins / 3:.1f}%, after {100 * wins / 3:.1f}%, change +0.00 ")


def test_a_match_is_won_by_the_pairings_first_level_when_its_winner_is_that_level(tmp_path):
    def kept(path: Path, winners: list[str | None]) -> str:
        matches = [{"seed": "german-whist expert-baseline", "deal": n, "winner": w, "side": "expert"} for n, w in enumerate(winners)]
        path.write_text(json.dumps(matches))
        return str(path)

    before = kept(tmp_path / "b.json", ["baseline", "expert", None, "baseline"])
    run = compare(before, kept(tmp_path / "a.json", ["expert", "expert", "expert", None]))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("4 played by both: before 25.0%, after 75.0%, change +50.00 ")


def test_a_baseline_played_in_several_processes_leaves_no_folder_behind(tmp_path):
    # each process of the pool once made the baseline's folder itself and, ending without
    # running atexit, left it in the temporary directory
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    command = [
        sys.executable, str(ROOT / "bench/bots.py"), "--games", "german-whist", "--pairings", "expert-baseline",
        "--baseline", str(ROOT), "--matches", "2", "--jobs", "2", "--work", "300",
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ, "TMPDIR": str(temporary)})
    assert run.returncode == 0, run.stderr
    assert "expert-baseline" in run.stdout and "of 2" in run.stdout
    assert list(temporary.iterdir()) == []


def test_vus_deals_are_mirrored_without_a_claim_with_a_marriage_an_option_no_client_can_set():
    bots = load_bench("bots.py")
    game = registry.get("sixty-six")
    options = bots.vu_options(game)
    assert options["variant"] == "schnapsen" and DealRules.of(options, 0).marriage_claims is False
    with pytest.raises(RuleError) as caught:
        game.parse_options({"variant": "schnapsen", "marriage_claims": False})
    assert caught.value.code == "unknown_option"


def played(ruleset_id: str, options: dict, moves: int):
    """A game after ``moves`` actions, each the first legal one: the ruleset, its options, the state,
    the seat to act and the seats' logs."""
    game = registry.get(ruleset_id)
    options = game.parse_options(options)
    state, events = game.new_game(options, "oracle")
    logs = SeatLogs(game.seat_count)
    logs.record(events)
    for _ in range(moves):
        (seat,) = game.to_act(state)
        state, events = game.apply(state, seat, game.legal_actions(state, seat)[0])
        logs.record(events)
    (seat,) = game.to_act(state)
    return game, options, state, seat, logs


def test_the_oracle_hands_german_whists_expert_the_opponents_hand_and_leaves_the_stocks_order_to_chance():
    bots = load_bench("bots.py")
    game, options, state, seat, logs = played("german-whist", {"target": 0}, 16)
    knowledge = german_whist.read_knowledge(logs.info(game, options, state, seat))
    hidden = knowledge.opponent_size - knowledge.opponent_known.bit_count()
    # in phase 1, the opponent's hand partly seen, and voids it showed limiting what it may hold
    assert state.stock and 0 < hidden < knowledge.opponent_size and knowledge.caps[:2] == (2, 1)
    sampler = german_whist.Sampler(knowledge.unseen & ~knowledge.opponent_known & ~(1 << knowledge.face_up), hidden, knowledge.caps)
    oracle = bots.Oracle()
    oracle.see(state, seat)
    with oracle.dealing():
        draws = [sampler.draw(SeededRandom(seed, "oracle")) for seed in ("one", "two")]
    for drawn, stock in draws:
        assert drawn | knowledge.opponent_known == state.hands[1 - seat]
        assert sorted(stock) == sorted(state.stock[1:])
    assert draws[0][1] != draws[1][1]


def test_the_oracle_hands_batak_s_expert_every_hand():
    bots = load_bench("bots.py")
    game, options, state, seat, logs = played("partnership-batak", {}, 12)
    assert state.trick is not None  # the cards are being played
    sampler = batak.DealSampler(batak.Knowledge.of(logs.info(game, options, state, seat)), SeededRandom("any", "oracle"))
    oracle = bots.Oracle()
    oracle.see(state, seat)
    with oracle.dealing():
        assert sampler.sample() == list(state.hands)
    assert sampler.sample() != list(state.hands)  # outside, the sampler deals the concealed cards again


@pytest.mark.parametrize("chosen", [["--games", "sixty-six"], ["--games", "german-whist", "--peer"]], ids=["sixty-six", "peer"])
def test_the_oracle_plays_german_whist_and_batak_only(chosen):
    command = [sys.executable, str(ROOT / "bench/bots.py"), *chosen, "--pairings", "expert-basic", "--oracle", "--matches", "1"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--oracle hands the hidden hands to the expert of german-whist and partnership-batak only" in run.stderr


def test_an_expert_given_the_deal_plays_its_matches_out():
    command = [
        sys.executable, str(ROOT / "bench/bots.py"), "--games", "german-whist", "--pairings", "expert-basic",
        "--oracle", "--matches", "2", "--work", "300",
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "expert-basic" in run.stdout and "of 2" in run.stdout
