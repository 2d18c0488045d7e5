"""The one error of the engine: a refusal with a stable code and the kind of refusal it is."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    from .actions import Action


class Refusal(str, Enum):
    """What kind of refusal a :class:`RuleError` is."""

    BAD_SETUP = "bad_setup"  # a new game's ruleset, options or seats are not valid
    MALFORMED = "malformed"  # the action object is not a well-formed action
    NOT_YOUR_TURN = "not_your_turn"  # the seat may not act now (includes a finished match)
    ILLEGAL = "illegal"  # the seat may act, but not this action


class RuleError(Exception):
    """A refused option or action, with a stable machine-readable ``code``.

    ``legal_actions`` is set when a seat that may act asked for an illegal action: it lists what
    the seat may do instead. ``details`` holds further machine-readable facts (for a bad option:
    the option and its allowed values). Nothing in a RuleError reveals a concealed card.
    """

    def __init__(
        self,
        code: str,
        message: str,
        refusal: Refusal,
        *,
        legal_actions: Iterable["Action"] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.refusal = refusal
        self.legal_actions = tuple(legal_actions) if legal_actions is not None else None
        self.details = dict(details or {})


def illegal(code: str, message: str) -> RuleError:
    """An illegal-action refusal; the ruleset's legal actions are attached by ``Ruleset.apply``."""
    return RuleError(code, message, Refusal.ILLEGAL)
