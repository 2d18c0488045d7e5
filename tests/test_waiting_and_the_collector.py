"""The web process and Python's cyclic garbage collector: a full pass walks every object it has
not frozen, stalling every waiting request meanwhile, so that what survives a full pass is
frozen, and let back in at long intervals (``service.http_server.SurvivorFreezer``)."""

from __future__ import annotations

import gc

import pytest

from service.http_server import FULL_PASS_SECONDS, SurvivorFreezer, freeze_what_was_loaded

STOP_OF_A_FULL_PASS = ("stop", {"generation": 2, "collected": 0, "uncollectable": 0})


@pytest.fixture(autouse=True)
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_what_survives_a_full_pass_is_frozen():
    survivor = [object()]
    SurvivorFreezer(300, Clock())(*STOP_OF_A_FULL_PASS)
    assert gc.get_freeze_count() > 0
    assert all(thing is not survivor for thing in gc.get_objects())  # the next passes skip it


@pytest.mark.parametrize("generation", [0, 1])
def test_a_young_pass_freezes_nothing(generation):
    freezer = SurvivorFreezer(300, Clock())
    freezer("stop", {"generation": generation, "collected": 0, "uncollectable": 0})
    freezer("start", {"generation": 2, "collected": 0, "uncollectable": 0})
    assert gc.get_freeze_count() == 0


def test_the_frozen_are_let_back_in_once_a_refresh_is_due_and_frozen_again_after_the_next_full_pass():
    clock = Clock()
    freezer = SurvivorFreezer(300, clock)
    freezer(*STOP_OF_A_FULL_PASS)
    clock.now += 299
    freezer(*STOP_OF_A_FULL_PASS)
    assert gc.get_freeze_count() > 0
    clock.now += 1
    freezer(*STOP_OF_A_FULL_PASS)
    assert gc.get_freeze_count() == 0  # the next full pass walks everything, and frees the cycles the frozen had left
    clock.now += 1
    freezer(*STOP_OF_A_FULL_PASS)
    assert gc.get_freeze_count() > 0


def test_a_forked_web_process_freezes_what_it_loaded_and_every_full_passs_survivors():
    before = list(gc.callbacks)
    try:
        freeze_what_was_loaded()
        assert gc.get_freeze_count() > 0
        [freezer] = [callback for callback in gc.callbacks if callback not in before]
        assert isinstance(freezer, SurvivorFreezer) and freezer.refresh_seconds == FULL_PASS_SECONDS
    finally:
        gc.callbacks[:] = before
