"""``koz verify``: check a match that is over against its seed, from its whole history.

Anyone at the table can check that the deck was fair: every view showed ``seed_commitment``
(SHA-256 of the seed) from the start, and the history of a match that is over, however it ended,
reveals the seed and every deal as dealt. The history must be whole (every version from the
first), the seed must hash to the commitment, and replaying the history's actions from it through
the rules must give every event of the history, a match that is over, and exactly the deals
revealed. :func:`read_history` reads every page of a game's history from a Koz server.
"""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from engine import RuleError, action_log, registry

from .replay import Replay
from .game import SEAT_EVENTS

#: events of the service, not of the rules: they are not replayed
SERVICE_EVENTS = set(SEAT_EVENTS) | {"abandoned"}
#: the versions of a page read from a server: the longest the history answers
PAGE = 1000


def verify(history: Mapping[str, Any]) -> list[str]:
    """What is wrong with the history of a match that is over (every page's events in one
    document, as :func:`read_history` gives it); empty when it is whole, the seed matches its
    commitment, and the events and the deals revealed are what the rules give from the seed."""
    problems = whole(history)
    reveal = history.get("reveal")
    if not reveal:
        return problems + ["the history has no reveal: the match is not over"]
    seed = reveal["seed"]
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
    ended_early = ruleset.result(replay.state) is None
    if ended_early and not ended_by_the_service(history):
        deal = ruleset.view(replay.state, None)["deal"]
        problems.append(f"the history ends before the match does: its actions stop in deal {deal}, and no forfeit or abandonment ended it")
    problems += deals_differ(ruleset.reveal(replay.state, ended_early=ended_early)["deals"], reveal["deals"])
    return problems


def whole(history: Mapping[str, Any]) -> list[str]:
    """Why the history is not every event of the game, if it is not."""
    if history.get("next_after") is not None:
        return [
            f"the history is one page of several (next_after: {history['next_after']}): it needs every page's events"
            " (koz verify with the game's URL reads them all)"
        ]
    seen = {event["version"] for event in history["events"]}
    missing = [version for version in range(history["version"] + 1) if version not in seen]
    if missing:
        return [f"the history lacks the events of version {missing[0]} ({len(missing)} of versions 0 to {history['version']} missing)"]
    return []


def ended_by_the_service(history: Mapping[str, Any]) -> bool:
    """Whether the history says the match ended before its rules ended it: a forfeit, or
    abandoned as too long."""
    return any(event["type"] == "abandoned" or (event["type"] == "timeout" and event.get("on_timeout") == "forfeit") for event in history["events"])


def deals_differ(dealt: list[Any], revealed: list[Any]) -> list[str]:
    """Which revealed deals are not the ones the seed dealt in the replayed match."""
    if len(revealed) != len(dealt):
        return [f"the reveal has {len(revealed)} deals, but the match as replayed dealt {len(dealt)}"]
    wrong = [number for number, (mine, theirs) in enumerate(zip(dealt, revealed), start=1) if mine != theirs]
    return [f"deal {wrong[0]} of the reveal is not the one the seed deals"] if wrong else []


def read_history(url: str, timeout: float = 30.0) -> dict[str, Any]:
    """Every page of a game's history from a Koz server: the last page's document with every
    page's events. ``url``: the game's URL (``.../v1/games/{id}``) or its history's."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/history"):
        path += "/history"
    events: list[Any] = []
    after: int | None = -1
    while after is not None:
        page_url = urlunsplit((parts.scheme, parts.netloc, path, f"after={after}&limit={PAGE}", ""))
        with urllib.request.urlopen(page_url, timeout=timeout) as answer:
            page = json.load(answer)
        events += page["events"]
        after = page["next_after"]
    return {**page, "events": events}


def load_history(source: str) -> dict[str, Any]:
    """The history to check: read from a server when ``source`` is an http(s) URL, else from
    the JSON file of that name. A server's refusal raises ``ValueError`` with its detail."""
    if urlsplit(source).scheme not in ("http", "https"):
        with open(source, encoding="utf-8") as file:
            history: dict[str, Any] = json.load(file)
            return history
    try:
        return read_history(source)
    except urllib.error.HTTPError as error:
        raise ValueError(f"{source} answered {error.code}: {problem_detail(error)}") from None
    except urllib.error.URLError as error:
        raise ValueError(f"{source} could not be read: {error.reason}") from None


def problem_detail(error: urllib.error.HTTPError) -> str:
    """The detail of a problem answer, else the status's reason."""
    try:
        return str(json.loads(error.read())["detail"])
    except (ValueError, KeyError, TypeError):
        return str(error.reason)
