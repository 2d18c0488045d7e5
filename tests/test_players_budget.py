"""An expert decision thinks by the clock (its level's time, never past the ceiling), or by a
count when a test asks for reproducible decisions."""

from __future__ import annotations

import itertools
import time

import pytest

from engine import registry
from engine.players import Budget, ExpertPlayer, strategy
from engine.players.base import BY_TIME
from tests.test_players import decision_points

RULESETS = [ruleset.id for ruleset in registry.all_rulesets() if ruleset.id != "plain-whist"]


class SteppingClock:
    """A clock that moves on by ``step`` seconds every time it is read: a decision's elapsed
    time is then the number of times it looked, which no load on the machine changes."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_a_budget_resolves_to_a_count_or_to_the_clock():
    expert, chosen = ExpertPlayer(), strategy("sixty-six")
    assert expert.resolve(Budget(), chosen).work == chosen.expert_work  # no clock: the calibrated count
    assert expert.resolve(Budget(work=7, timer=SteppingClock(1)), chosen).work == 7  # a count asked for
    by_clock = expert.resolve(Budget(timer=SteppingClock(1)), chosen)
    assert by_clock.work == BY_TIME and by_clock.ceiling == ExpertPlayer.think_seconds
    assert expert.resolve(Budget(seconds=0.2, ceiling=0.5, timer=SteppingClock(1)), chosen).ceiling == 0.2
    assert expert.resolve(Budget(seconds=3.0, ceiling=0.5, timer=SteppingClock(1)), chosen).ceiling == 0.5


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize(("seconds", "ceiling"), [(0.03, 0.5), (5.0, 0.04)])
def test_an_expert_decision_stops_at_its_time_or_at_the_ceiling_whichever_comes_first(ruleset_id, seconds, ceiling):
    limit = min(seconds, ceiling)
    for _, info in itertools.islice(decision_points(ruleset_id, {}, f"time-{seconds}"), 0, 40, 8):
        clock = SteppingClock(0.0005)
        action = ExpertPlayer().choose(info, "time", Budget(seconds=seconds, ceiling=ceiling, timer=clock))
        assert action in info.legal_actions()
        # the clock is looked at between samples and every few hundred searched positions: a
        # decision ends within a few looks of its limit, never near the double of it
        assert clock.now <= limit * 1.5, (ruleset_id, clock.now)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_more_time_buys_more_search(ruleset_id):
    """A decision by the clock searches until its time is up: given four times the time, it looks
    at the clock more often (it did more work) on the decisions where it searches at all."""
    looked_more = 0
    for _, info in itertools.islice(decision_points(ruleset_id, {}, "longer"), 0, 60, 3):
        short, long = SteppingClock(0.0001), SteppingClock(0.0001)
        ExpertPlayer().choose(info, "t", Budget(seconds=0.005, timer=short))
        ExpertPlayer().choose(info, "t", Budget(seconds=0.02, timer=long))
        looked_more += long.now > 2 * short.now
    assert looked_more >= 2


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_an_expert_decision_keeps_to_its_time_in_cpu_time(ruleset_id):
    """On a real clock (the process's CPU time: other work on the machine does not count) a
    decision overruns its time by at most the step it was in."""
    for _, info in itertools.islice(decision_points(ruleset_id, {}, "cpu"), 0, 40, 8):
        started = time.process_time()
        ExpertPlayer().choose(info, "cpu", Budget(seconds=0.02, timer=time.process_time))
        assert time.process_time() - started < 0.02 + 0.1


def test_the_expert_time_is_a_setting():
    from service.config import Settings

    assert Settings.from_env({}).bot_expert_seconds == ExpertPlayer.think_seconds
    assert Settings.from_env({"KOZ_BOT_EXPERT_SECONDS": "0.12"}).bot_expert_seconds == 0.12
    with pytest.raises(ValueError, match="KOZ_BOT_EXPERT_SECONDS"):
        Settings.from_env({"KOZ_BOT_EXPERT_SECONDS": "soon"})
