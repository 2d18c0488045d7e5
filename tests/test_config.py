"""The settings, read from the environment: every variable the README's table lists sets its own
setting, its default is the one the table gives, and a value that cannot be used is refused by
name before the service starts."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from service.config import Settings

README = (Path(__file__).parent.parent / "README.md").read_text()
DEFAULTS = Settings()
NUMBERS = [field.name for field in dataclasses.fields(Settings) if field.type in ("int", "float")]

#: where 0 could not work (every request refused, every game expired at once), 0 means the default
ZERO_MEANS_THE_DEFAULT = {
    "game_ttl_seconds",
    "max_body_bytes",
    "request_seconds",
    "stream_heartbeat_seconds",
    "stream_max_seconds",
    "job_claim_seconds",
    "redis_connect_timeout",
    "redis_timeout",
    "redis_replica_timeout",
    "hints_at_once",
    "max_deals",
    "max_versions",
    "finished_game_ttl_seconds",
    "waiting_game_ttl_seconds",
    "arena_games_at_once",
    "arena_seek_seconds",
    "arena_seconds_per_action",
}


def readme_rows() -> list[tuple[str, str]]:
    """(variable, its default as the table writes it), for every variable of the table."""
    rows = []
    for row in README.splitlines():
        if not row.startswith("| `"):
            continue
        names, default = row.split("|")[1:3]
        variables = re.findall(r"`((?:KOZ|REDIS)_[A-Z_]+)`", names)
        defaults = re.findall(r"`([^`]*)`", default) or [default.strip()]
        rows += zip(variables, defaults if len(defaults) == len(variables) else defaults * len(variables))
    return rows


ROWS = readme_rows()


def setting_of(variable: str) -> str:
    return variable.removeprefix("KOZ_").lower()


def another_value(name: str) -> tuple[str, object]:
    """A value for the setting ``name`` that is not its default: as the environment gives it, and as read."""
    default = getattr(DEFAULTS, name)
    if isinstance(default, bool):
        return "1", True
    if isinstance(default, int):
        return str(default + 7), default + 7
    if isinstance(default, float):
        return repr(default + 0.25), default + 0.25
    return f"{default}-changed", f"{default}-changed"


def test_the_table_lists_every_setting_once():
    assert sorted(setting_of(variable) for variable, _ in ROWS) == sorted(field.name for field in dataclasses.fields(Settings))


@pytest.mark.parametrize("variable, default", ROWS, ids=[variable for variable, _ in ROWS])
def test_a_setting_defaults_to_what_the_readme_says(variable, default):
    value = getattr(Settings.from_env({}), setting_of(variable))
    if default.startswith("unset"):
        assert value is None
    elif default == "(empty)":
        assert value == ""
    elif isinstance(value, bool):
        assert value is (default != "0")
    elif isinstance(value, (int, float)):
        assert value == float(default)
    else:
        assert value == default


@pytest.mark.parametrize("variable", [variable for variable, _ in ROWS if variable not in ("REDIS_URL", "KOZ_REDIS_CLUSTER")])
def test_a_variable_sets_its_own_setting_and_no_other(variable):
    name = setting_of(variable)
    given, read = another_value(name)
    settings = Settings.from_env({variable: given})
    assert getattr(settings, name) == read
    assert dataclasses.replace(settings, **{name: getattr(DEFAULTS, name)}) == DEFAULTS


def test_a_cluster_is_a_redis_url_and_the_cluster_flag():
    url = "redis://10.0.0.1:7000"
    assert (Settings.from_env({"REDIS_URL": url}).redis_url, Settings.from_env({"REDIS_URL": url}).redis_cluster) == (url, False)
    for flag, cluster in (("1", True), ("yes", True), ("0", False), ("", False)):
        assert Settings.from_env({"REDIS_URL": url, "KOZ_REDIS_CLUSTER": flag}).redis_cluster is cluster
    assert Settings.from_env({"REDIS_URL": ""}).redis_url is None


@pytest.mark.parametrize("name", NUMBERS)
def test_a_zero_is_kept_where_it_means_something_and_is_the_default_where_it_could_not_work(name):
    variable = "KOZ_" + name.upper()
    expected = getattr(DEFAULTS, name) if name in ZERO_MEANS_THE_DEFAULT else 0
    assert getattr(Settings.from_env({variable: "0"}), name) == expected
    assert getattr(Settings.from_env({variable: ""}), name) == getattr(DEFAULTS, name)


@pytest.mark.parametrize(
    "variable, given, says",
    [
        ("KOZ_MAX_BODY_BYTES", "lots", "KOZ_MAX_BODY_BYTES must be a number, not 'lots'"),
        ("KOZ_MAX_DEALS", "1.5", "KOZ_MAX_DEALS must be a number, not '1.5'"),
        ("KOZ_REPLY_WAIT_SECONDS", "2s", "KOZ_REPLY_WAIT_SECONDS must be a number, not '2s'"),
        ("KOZ_REDIS_REPLICAS", "-1", "KOZ_REDIS_REPLICAS must not be negative"),
        ("KOZ_BOT_EXPERT_SECONDS", "-0.01", "KOZ_BOT_EXPERT_SECONDS must not be negative"),
    ],
)
def test_a_value_that_cannot_be_used_is_refused_naming_its_variable(variable, given, says):
    with pytest.raises(ValueError) as refused:
        Settings.from_env({variable: given})
    assert str(refused.value) == says


def test_an_empty_rate_limit_is_no_limit():
    for variable in ("KOZ_RATE_LIMIT_CREATE", "KOZ_RATE_LIMIT_ACTIONS", "KOZ_RATE_LIMIT_HINTS"):
        assert getattr(Settings.from_env({variable: ""}), setting_of(variable)) == ""


def test_the_arena_secret_is_never_shown():
    assert "s3cret" not in repr(Settings.from_env({"KOZ_ARENA_SECRET": "s3cret"}))
