"""The one error of the engine: a refusal with a stable code and the kind of refusal it is."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .texts import DEFAULT_LANGUAGE, Text, render

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
    the option and its allowed values). The message is ``text``, a template per language, with
    ``params``, the facts it names (a card, a suit, a bid), rendered by :meth:`message_in`.
    Nothing in a RuleError reveals a concealed card: a card in it is one the refused seat sees.
    """

    def __init__(
        self,
        code: str,
        text: Text,
        refusal: Refusal,
        *,
        params: Mapping[str, Any] | None = None,
        legal_actions: Iterable["Action"] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.text = text
        self.params = dict(params or {})
        super().__init__(self.message)
        self.refusal = refusal
        self.legal_actions = tuple(legal_actions) if legal_actions is not None else None
        self.details = dict(details or {})

    @property
    def message(self) -> str:
        """The message in the default language (English)."""
        return self.message_in(DEFAULT_LANGUAGE)

    def message_in(self, language: str) -> str:
        return render(self.text, self.params, language)


def illegal(code: str, text: Text, **params: Any) -> RuleError:
    """An illegal-action refusal; the ruleset's legal actions are attached by ``Ruleset.apply``."""
    return RuleError(code, text, Refusal.ILLEGAL, params=params)
