"""The registry of games: the service finds every game here, by its id.

A game is registered in one line, ``register(ruleset, strategy)``: its rules and, when it has
them, the strategies of its ``basic`` and ``expert`` computer players (without, it offers
``random`` only). :func:`check_all` validates every registered game; the app runs it at start.
"""

from __future__ import annotations

from typing import Any

from .errors import Refusal, RefusalCode
from .players.base import Strategy, register_strategy, unregister_strategy
from .ruleset import Ruleset

_RULESETS: dict[str, Ruleset[Any]] = {}

UNKNOWN_RULESET = RefusalCode(
    "unknown_ruleset",
    {"en": "there is no such ruleset", "tr": "böyle bir oyun yok"},
    Refusal.BAD_SETUP,
    says={"en": "there is no ruleset {ruleset}; rulesets are: {allowed}", "tr": "{ruleset} diye bir oyun yok; oyunlar: {allowed}"},
)


def register(ruleset: Ruleset[Any], strategy: Strategy | None = None) -> Ruleset[Any]:
    """Make ``ruleset`` available under its id, with its computer ``strategy`` if it has one."""
    if ruleset.id in _RULESETS:
        raise ValueError(f"ruleset {ruleset.id!r} is registered already")
    _RULESETS[ruleset.id] = ruleset
    if strategy is not None:
        register_strategy(ruleset.id, strategy)
    return ruleset


def unregister(ruleset_id: str) -> None:
    """Take a game out of the registry (a test's own game, once the test is done)."""
    del _RULESETS[ruleset_id]
    unregister_strategy(ruleset_id)


def check_all() -> None:
    """Check every registered game (:meth:`Ruleset.check`); raises ``ValueError`` naming the first fault."""
    for ruleset in _RULESETS.values():
        ruleset.check()


def get(ruleset_id: str) -> Ruleset[Any]:
    """The ruleset with this id; raises ``RuleError(code="unknown_ruleset")`` for any other."""
    try:
        return _RULESETS[ruleset_id]
    except (KeyError, TypeError):
        raise UNKNOWN_RULESET(ruleset=repr(ruleset_id), allowed=list(_RULESETS), details={"allowed": list(_RULESETS)}) from None


def refusal_codes(kind: Refusal) -> list[str]:
    """Every code of this kind among the registered rulesets' own refusals, sorted (the service
    documents its refusals from them)."""
    return sorted({refusal.code for ruleset in _RULESETS.values() for refusal in ruleset.refusals if refusal.kind == kind})


def all_rulesets() -> tuple[Ruleset[Any], ...]:
    """Every registered ruleset, in registration order."""
    return tuple(_RULESETS.values())
