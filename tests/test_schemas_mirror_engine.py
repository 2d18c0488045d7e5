"""The service's schemas mirror the engine: every view, event and deal result that whole random
matches produce validates against the OpenAPI document's schemas (and against the marshmallow
schemas the service answers with). Validation, unlike a dump, fails for a required field that is
missing, a value of the wrong type and a field the schema does not declare: the service sends
views and events as built, without a dump, so this is what keeps them as documented."""

from __future__ import annotations

import itertools
import json
import random

import jsonschema_rs
import pytest

from engine import registry
from service.cli import openapi_document
from service.resources.game_schemas import GameViewSchema
from tests.support import random_playout

RULESETS = [ruleset.id for ruleset in registry.all_rulesets()]
#: random Batak bidding rarely makes its contract, so a random match may never end: play a prefix
#: of about two Batak deals (each view is validated for every seat twice, the cost of this file)
ACTIONS = 150
DOCUMENT = json.loads(openapi_document())


def validator(component: str):
    """A validator of one of the document's schemas, its references resolved in the document."""
    return jsonschema_rs.Draft202012Validator({"$ref": f"#/components/schemas/{component}", "components": DOCUMENT["components"]})


def playout(ruleset, seed):
    return itertools.islice(random_playout(ruleset, {}, f"mirror-{seed}", random.Random(seed)), ACTIONS)


def frame(ruleset, view):
    """The service's own part of a view around a bare engine view, as the API sends it."""
    service = {"id": "g", "ruleset": ruleset.id, "options": ruleset.parse_options({}), "version": 0, "status": "active", "seats": []}
    service.update(seed_commitment="0" * 64, seed_source="server", rematch=None, clock=None, sides=ruleset.sides())
    return {**service, **view}


def errors(validate, document):
    return [error.message for error in validate.iter_errors(document)]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_view_event_and_deal_result_validates_against_the_schemas(ruleset_id):
    ruleset = registry.get(ruleset_id)
    views = GameViewSchema()
    view_document, event_document, action_document = validator("GameView"), validator("HistoryEvent"), validator("Action")
    own_results = validator(ruleset.deal_result_type.__name__)
    results = 0
    for seed in range(3):
        for state, _, action, happened in playout(ruleset, seed):
            if action is not None:
                assert errors(action_document, action.to_json()) == []
            for seat in (None, *range(ruleset.seat_count)):
                view = frame(ruleset, ruleset.view(state, seat))
                assert views.validate(view) == {}, view
                assert errors(view_document, view) == [], view
                if view["last_deal"] is not None:
                    results += 1
                    assert errors(own_results, view["last_deal"]) == [], view["last_deal"]
                for event in happened:
                    seen = event.for_viewer(seat)
                    if seen is not None:
                        entry = {"version": 1, **seen}
                        assert errors(event_document, entry) == [], seen
    assert results, "no deal finished: the deal results went unchecked"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_view_without_a_required_field_fails_validation(ruleset_id):
    ruleset = registry.get(ruleset_id)
    state, _ = ruleset.new_game(ruleset.parse_options({}), "missing")
    view = frame(ruleset, ruleset.view(state, 0))
    own = DOCUMENT["components"]["schemas"]["GameView"]["discriminator"]["mapping"][ruleset_id].rsplit("/", 1)[1]
    assert set(DOCUMENT["components"]["schemas"][own]["required"]) == set(view), "every field of a view is always sent"
    for name in view:
        assert errors(validator("GameView"), {key: value for key, value in view.items() if key != name}), name
    for other in RULESETS:
        if other != ruleset_id:
            assert errors(validator("GameView"), {**view, "ruleset": other}), other


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_deal_result_is_its_rulesets_own(ruleset_id):
    """A deal result validates as its own ruleset's, and fails without any of its fields."""
    ruleset = registry.get(ruleset_id)
    rng = random.Random(7)
    result = next(
        view["last_deal"]
        for seed in range(20)
        for state, *_ in random_playout(ruleset, {}, f"result-{seed}", rng)
        if (view := ruleset.view(state, None))["last_deal"] is not None
    )
    own = validator(ruleset.deal_result_type.__name__)
    assert errors(own, result) == []
    for name in result:
        assert errors(own, {key: value for key, value in result.items() if key != name}), name
    others = [other for other in RULESETS if other != ruleset_id]
    for other in others:
        assert errors(validator(registry.get(other).deal_result_type.__name__), result), other


def test_each_kind_of_action_requires_its_fields():
    actions = validator("Action")
    assert errors(actions, {"type": "bid"})
    assert errors(actions, {"type": "play"})
    assert errors(actions, {"type": "trump", "suit": "X"})
    assert errors(actions, {"type": "pass", "card": "QS"})
    assert errors(actions, {"type": "dance"})
    for action in ({"type": "bid", "value": 8}, {"type": "pass"}, {"type": "marriage", "card": "KH", "declare": True}):
        assert errors(actions, action) == [], action


def test_legal_actions_in_a_problem_are_typed_actions():
    problem = DOCUMENT["components"]["schemas"]["Problem"]["properties"]
    assert problem["legal_actions"]["items"] == {"$ref": "#/components/schemas/Action"}
    assert errors(validator("Problem"), {**PROBLEM, "legal_actions": [{"type": "bid"}]})
    assert errors(validator("Problem"), {**PROBLEM, "errors": {"value": ["Not a valid integer."]}}) == []


PROBLEM = {"type": "urn:koz:problem:illegal_action", "title": "Unprocessable Content", "status": 422, "code": "x", "detail": "d"}


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_options_are_documented_per_ruleset_without_defaults(ruleset_id):
    """A generated client sends only the options it sets: the server fills in the others."""
    ruleset = registry.get(ruleset_id)
    schemas = DOCUMENT["components"]["schemas"]
    branch = schemas[schemas["GameCreate"]["discriminator"]["mapping"][ruleset_id].rsplit("/", 1)[1]]
    options = validator(branch["properties"]["options"]["$ref"].rsplit("/", 1)[1])
    assert errors(options, ruleset.parse_options({})) == []
    assert errors(options, {}) == []
    assert errors(options, {"no_such_option": 1})
    assert all("default" not in prop for prop in schemas[branch["properties"]["options"]["$ref"].rsplit("/", 1)[1]]["properties"].values())
