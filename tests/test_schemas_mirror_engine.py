"""The service's schemas mirror the engine: every field of every view and event is declared.

A view or event dumped through its schema must come out unchanged. The service sends views and
events as built, without a dump: a field the engine adds but the schema lacks would otherwise
reach clients undocumented, and a value of another shape would contradict the document.
"""

from __future__ import annotations

import itertools
import random

import pytest

from engine import registry
from service.resources.games import GameViewSchema
from service.resources.history import HistoryEventSchema
from service.tables import SeatRecord, Table
from tests.support import random_playout

RULESETS = [ruleset.id for ruleset in registry.all_rulesets()]
#: random Batak bidding rarely makes its contract, so a random match may never end: play a prefix
ACTIONS = 400


def playout(ruleset, seed):
    return itertools.islice(random_playout(ruleset, {}, f"mirror-{seed}", random.Random(seed)), ACTIONS)


def framer(ruleset):
    """The view as the service sends it, with its own part (id, options, seats) as a table builds it."""
    seats = [SeatRecord("Ayşe" if index == 0 else None, None if index == 0 else "random", None) for index in range(ruleset.seat_count)]
    table = Table.new("g", ruleset, ruleset.parse_options(None), seats, "mirror")

    def frame(state, seat):
        table.state = state
        return table.view(seat)

    return frame


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_view_field_is_declared(ruleset_id):
    ruleset = registry.get(ruleset_id)
    schema = GameViewSchema()
    frame = framer(ruleset)
    for seed in range(6):
        for state, *_ in playout(ruleset, seed):
            for seat in (None, *range(ruleset.seat_count)):
                view = frame(state, seat)
                assert schema.dump(view) == view


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_event_field_is_declared(ruleset_id):
    ruleset = registry.get(ruleset_id)
    schema = HistoryEventSchema()
    for seed in range(6):
        for _, _, _, events in playout(ruleset, seed):
            for event in events:
                for seat in (None, *range(ruleset.seat_count)):
                    seen = event.for_viewer(seat)
                    if seen is not None:
                        entry = {"version": 1, **seen}
                        assert schema.dump(entry) == entry


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_view_event_and_deal_result_validates_against_the_schemas(ruleset_id):
    """Validation, unlike a dump, fails for a required field that is missing, a value of the
    wrong type and a field the schema does not declare."""
    ruleset = registry.get(ruleset_id)
    views, events = GameViewSchema(), HistoryEventSchema()
    frame = framer(ruleset)
    for seed in range(3):
        for state, _, _, happened in playout(ruleset, seed):
            for seat in (None, *range(ruleset.seat_count)):
                view = frame(state, seat)
                assert views.validate(view) == {}, view
                for event in happened:
                    seen = event.for_viewer(seat)
                    if seen is not None:
                        assert events.validate({"version": 1, **seen}) == {}, seen
