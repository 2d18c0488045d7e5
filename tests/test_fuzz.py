"""Fuzzing with real games: schemathesis sends generated and mutated requests, most of them at games
that exist and with a seat's valid token, so that actions, hints and histories are reached past
the token check. No answer may be a 5xx, and every answer must be documented."""

from __future__ import annotations

import zlib

import schemathesis
from hypothesis import HealthCheck, settings

from tests.api import FlaskClient
from tests.conftest import drain, fuzzed_app

app = fuzzed_app()
schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
# (as in test_openapi.py: a request to the play connection without the upgrade is refused 426
# before its query is read, malformed or not)
schema.config.checks.negative_data_rejection.expected_statuses.append("426")


def real_games() -> list[tuple[str, list[str]]]:
    """A game of each ruleset between humans, and one that computers already finished."""
    api = FlaskClient(app.test_client())
    games = []
    for ruleset, seats in (("german-whist", 2), ("sixty-six", 2), ("partnership-batak", 4)):
        created = api.create(ruleset=ruleset, seats=[{"name": "P"}] * seats, seed=f"fuzz-{ruleset}").body
        games.append((created["id"], [entry["token"] for entry in created["tokens"]]))
    finished = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}]).body
    drain(app)  # the worker plays it to the end
    games.append((finished["id"], []))
    return games


GAMES = real_games()


def aim_at_a_real_game(case) -> None:
    """Most cases go to a real game, most of those with a token of one of its seats; the rest
    stay as generated."""
    choice = zlib.crc32(repr((case.path_parameters, case.query, case.body)).encode("utf-8", "surrogatepass"))
    if not case.path_parameters or "game_id" not in case.path_parameters or choice % 4 == 0:
        return
    game_id, tokens = GAMES[choice % len(GAMES)]
    case.path_parameters["game_id"] = game_id
    # a generated token becomes a real one; a case about a missing token stays without
    if tokens and choice % 3 and "Authorization" in (case.headers or {}):
        case.headers["Authorization"] = f"Bearer {tokens[choice % len(tokens)]}"


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_fuzzed_requests_at_real_games_with_valid_tokens_never_get_a_server_error(case):
    aim_at_a_real_game(case)
    # a schema-valid request may still be refused: options depend on the ruleset, and a card
    # must be in the hand, which a schema cannot say; and the token given here is a real one
    case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance, schemathesis.checks.ignored_auth])
