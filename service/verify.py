"""``koz verify HISTORY.json``: check a finished match's history against its seed.

Anyone at the table can check that the deck was fair: every view showed ``seed_commitment``
(SHA-256 of the seed) from the start, and the finished match's history reveals the seed. The
seed must hash to the commitment, and replaying the history's actions from it through the rules
must give every event of the history (every deal as dealt included) and the reveal.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

from engine import RuleError, action_log, registry

from .replay import Replay
from .game import SEAT_EVENTS

#: events of the service, not of the rules: they are not replayed
SERVICE_EVENTS = set(SEAT_EVENTS) | {"abandoned"}


def verify(history: Mapping[str, Any]) -> list[str]:
    """What is wrong with a finished match's history (every page's events in one document, as
    ``GET /v1/games/{id}/history?limit=1000`` gives a match of up to 1000 versions); empty
    when the seed matches its commitment and the deals and events replay from it."""
    reveal = history.get("reveal")
    if not reveal:
        return ["the history has no reveal: the match is not over"]
    seed = reveal["seed"]
    problems = []
    if hashlib.sha256(seed.encode("utf-8")).hexdigest() != history["seed_commitment"]:
        problems.append("the revealed seed does not hash to the seed commitment")
    ruleset = registry.get(history["ruleset"])
    recorded = [
        {key: value for key, value in event.items() if key != "version"} for event in history["events"] if event["type"] not in SERVICE_EVENTS
    ]
    log = b"".join(action_log.encode(event["seat"], event["action"]) for event in recorded if event["type"] == "action")
    replay = Replay(ruleset, ruleset.parse_options(history["options"]), seed)
    try:
        replay.extend(log)
    except (RuleError, ValueError) as error:
        return problems + [f"the actions do not replay from the revealed seed: {error}"]
    replayed = [dict(event.for_viewer(None, revealed=True) or {}) for event in replay.events]
    if replayed != recorded:
        differs = next((index for index, (mine, theirs) in enumerate(zip(replayed, recorded)) if mine != theirs), min(len(replayed), len(recorded)))
        problems.append(f"event {differs} of the history is not what the rules give from the revealed seed")
    if ruleset.result(replay.state) is not None and ruleset.reveal(replay.state) != reveal:
        problems.append("the deals revealed are not the ones the seed deals")
    return problems
