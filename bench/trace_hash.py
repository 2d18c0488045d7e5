"""One SHA-256 over everything the engine shows of random matches: a refactor must leave it as it was.

    python bench/trace_hash.py [--matches 100]

For each of 9 configurations (three per shipped game), ``--matches`` matches are played to their
end with random legal actions (seeded: the same matches every run; a seat that may pass mostly
passes and otherwise mostly bids the least it may, since Batak's random bids sink both teams'
totals for ever). Hashed, in order: every event
as each seat and a spectator see it, every view (each seat's and the spectator's), the state's dump
and its reload, the result, the reveal at the end, and at every step two refusals (a seat that is
not to act, and a random action once seen in the configuration) with their codes, kinds, texts in
both languages, details and legal actions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Action, RuleError, registry  # noqa: E402

CONFIGURATIONS: list[tuple[str, dict[str, Any]]] = [
    ("german-whist", {}),
    ("german-whist", {"scoring": "over-six", "no_trump": True, "target": 50}),
    ("german-whist", {"misere": True, "count_all_tricks": True}),
    ("sixty-six", {}),
    ("sixty-six", {"variant": "schnapsen", "target": 5}),
    ("sixty-six", {"no_talon": True, "open_scores": True, "marriages": False, "exhausted_talon": "last-trick-ten"}),
    ("partnership-batak", {"target": 21}),
    ("partnership-batak", {"trump_lead_before_broken": True}),
    ("partnership-batak", {"target": 51}),
]


def refusal(error: RuleError) -> list[Any]:
    legal = None if error.legal_actions is None else [action.to_json() for action in error.legal_actions]
    return [error.code, error.refusal.value, error.message_in("en"), error.message_in("tr"), error.details, legal]


def choose(legal: Sequence[Action], rng: random.Random) -> Action:
    """A random legal action, biased to passing and low bids."""
    passes = [action for action in legal if action.to_json()["type"] == "pass"]
    bids = sorted((action for action in legal if action.to_json()["type"] == "bid"), key=lambda action: action.to_json()["value"])
    if passes and rng.random() < 0.8:
        return passes[0]
    if bids and rng.random() < 0.7:
        return bids[0]
    return rng.choice(legal)


def trace(ruleset_id: str, raw_options: dict[str, Any], match: int, rng: random.Random, seen: set[str], digest: Any) -> None:
    ruleset = registry.get(ruleset_id)
    options = ruleset.parse_options(raw_options)
    viewers: list[int | None] = [*range(ruleset.seat_count), None]

    def put(*items: Any) -> None:
        digest.update(json.dumps(items, sort_keys=True, ensure_ascii=False).encode())

    state, events = ruleset.new_game(options, f"trace-{ruleset_id}-{match}")
    while True:
        for event in events:
            put("event", [event.for_viewer(viewer) for viewer in viewers])
        put("views", [ruleset.view(state, viewer) for viewer in viewers])
        dumped = json.loads(json.dumps(ruleset.dump(state)))
        put("dump", dumped, ruleset.dump(ruleset.load(dumped)))
        result = ruleset.result(state)
        put("result", None if result is None else [list(result.winners), repr(result)])
        to_act = ruleset.to_act(state)
        if not to_act:
            put("reveal", ruleset.reveal(state))
            return
        seat = rng.choice(to_act)
        legal = ruleset.legal_actions(state, seat)
        seen.update(json.dumps(action.to_json(), sort_keys=True) for action in legal)
        waiting = [other for other in range(ruleset.seat_count) if other not in to_act]
        if waiting:
            try:
                ruleset.apply(state, rng.choice(waiting), legal[0])
                put("accepted out of turn")
            except RuleError as error:
                put("out of turn", refusal(error))
        tried = Action.from_json(json.loads(rng.choice(sorted(seen))))
        try:
            ruleset.apply(state, seat, tried)
            put("accepted", tried.to_json())
        except RuleError as error:
            put("refused", refusal(error))
        state, events = ruleset.apply(state, seat, choose(legal, rng))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    args = parser.parse_args()
    digest = hashlib.sha256()
    for ruleset_id, options in CONFIGURATIONS:
        rng, seen = random.Random(f"{ruleset_id}{options}"), set()
        for match in range(args.matches):
            trace(ruleset_id, options, match, rng, seen, digest)
    print(digest.hexdigest())


if __name__ == "__main__":
    main()
