"""A game's history is its actions replayed from the seed; the process keeps its last few replays,
so that reading a history again replays only the actions that came since."""

from __future__ import annotations

from typing import Any

from engine import action_log, registry
from service.replay import Replay, ReplayCache

GERMAN_WHIST = registry.get("german-whist")
OPTIONS = GERMAN_WHIST.parse_options({})


class CountingRuleset:
    """German Whist's rules, counting the actions applied."""

    def __init__(self) -> None:
        self.applied = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(GERMAN_WHIST, name)

    def apply(self, state: Any, seat: int, action: Any) -> Any:
        self.applied += 1
        return GERMAN_WHIST.apply(state, seat, action)


def logged_actions(seed: str, actions: int) -> list[bytes]:
    """The log entries of the first ``actions`` actions of a game, each seat playing its first
    legal card: the log as stored after ``n`` of them is ``b"".join(entries[:n])``."""
    state, _ = GERMAN_WHIST.new_game(OPTIONS, seed)
    entries = []
    for _ in range(actions):
        seat = GERMAN_WHIST.to_act(state)[0]
        action = GERMAN_WHIST.legal_actions(state, seat)[0]
        state, _ = GERMAN_WHIST.apply(state, seat, action)
        entries.append(action_log.encode(seat, action.to_json()))
    return entries


def action_log_of(seed: str, actions: int) -> bytes:
    return b"".join(logged_actions(seed, actions))


def replayed_events(seed: str, log: bytes) -> list[tuple[int, Any]]:
    replay = Replay(GERMAN_WHIST, OPTIONS, seed)
    replay.extend(log)
    return replay.between(-1, replay.version)


def test_reading_a_history_again_replays_only_the_actions_that_came_since():
    cache, rules = ReplayCache(), CountingRuleset()
    entries = logged_actions("replay-1", 6)
    log = b"".join(entries)
    first = cache.events(("g1", "setup"), rules, OPTIONS, "replay-1", b"".join(entries[:4]), -1, 4)
    assert rules.applied == 4
    later = cache.events(("g1", "setup"), rules, OPTIONS, "replay-1", log, 4, 6)
    assert rules.applied == 6
    assert first + later == replayed_events("replay-1", log)


def test_the_cache_keeps_the_games_read_last_up_to_its_size():
    cache, rules = ReplayCache(size=2), CountingRuleset()
    logs = {seed: action_log_of(seed, 3) for seed in ("a", "b", "c")}
    for seed in ("a", "b", "c"):
        cache.events((seed, "setup"), rules, OPTIONS, seed, logs[seed], -1, 3)
    assert rules.applied == 9
    for seed in ("c", "b"):  # the two read last are kept
        assert cache.events((seed, "setup"), rules, OPTIONS, seed, logs[seed], -1, 3) == replayed_events(seed, logs[seed])
    assert rules.applied == 9
    cache.events(("a", "setup"), rules, OPTIONS, "a", logs["a"], -1, 3)  # the one read longest ago is replayed again
    assert rules.applied == 12


def test_a_game_id_that_comes_back_with_another_setup_is_another_game():
    cache, rules = ReplayCache(), CountingRuleset()
    cache.events(("g1", "first"), rules, OPTIONS, "first", action_log_of("first", 2), -1, 2)
    log = action_log_of("second", 2)
    assert cache.events(("g1", "second"), rules, OPTIONS, "second", log, -1, 2) == replayed_events("second", log)
    assert rules.applied == 4


def test_a_reader_with_an_older_log_neither_loses_nor_repeats_the_actions_replayed_since():
    """Two requests read the log at different moments; the one that read it earlier may be answered
    later, and its shorter log must not wind the replay back."""
    cache, rules = ReplayCache(), CountingRuleset()
    entries = logged_actions("replay-2", 8)
    log, older = b"".join(entries), b"".join(entries[:5])
    cache.events(("g2", "setup"), rules, OPTIONS, "replay-2", b"".join(entries[:6]), -1, 6)
    every = replayed_events("replay-2", log)
    assert cache.events(("g2", "setup"), rules, OPTIONS, "replay-2", older, 3, 5) == [entry for entry in every if 3 < entry[0] <= 5]
    assert cache.events(("g2", "setup"), rules, OPTIONS, "replay-2", log, 6, 8) == [entry for entry in every if entry[0] > 6]
    assert rules.applied == 8
