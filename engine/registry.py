"""The registry of rulesets: the service finds every game here, by its id."""

from __future__ import annotations

from .errors import Refusal, RuleError
from .ruleset import Ruleset

_RULESETS: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Make ``ruleset`` available under its id."""
    if ruleset.id in _RULESETS:
        raise ValueError(f"ruleset {ruleset.id!r} is registered already")
    _RULESETS[ruleset.id] = ruleset
    return ruleset


def get(ruleset_id: str) -> Ruleset:
    """The ruleset with this id; raises ``RuleError(code="unknown_ruleset")`` for any other."""
    try:
        return _RULESETS[ruleset_id]
    except (KeyError, TypeError):
        raise RuleError(
            "unknown_ruleset",
            f"there is no ruleset {ruleset_id!r}; rulesets are: {', '.join(_RULESETS)}",
            Refusal.BAD_SETUP,
            details={"allowed": list(_RULESETS)},
        ) from None


def all_rulesets() -> tuple[Ruleset, ...]:
    """Every registered ruleset, in registration order."""
    return tuple(_RULESETS.values())
