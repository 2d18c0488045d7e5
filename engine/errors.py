"""The one error of the engine: a refusal with a stable code and the kind of refusal it is; and
the declaration of each refusal a game may give (:class:`RefusalCode`), made once.

>>> NOT_HELD = RefusalCode("card_not_in_hand", {"en": "the card is not in the hand", "tr": "kart elde yok"},
...                        says={"en": "{card} is not in your hand", "tr": "{card} elinizde yok"})
>>> refused = NOT_HELD(card="QS")
>>> refused.code, refused.refusal.value, refused.message_in("tr")
('card_not_in_hand', 'illegal', 'Maça Kızı elinizde yok')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Mapping

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

    ``legal_actions`` is set (by the ruleset that refuses) when a seat that may act asked for an
    illegal action: it lists what the seat may do instead. ``details`` holds further
    machine-readable facts (for a bad option: the option and its allowed values). The message is
    ``text``, a template per language, with ``params``, the facts it names (a card, a suit, a
    bid), rendered by :meth:`message_in`. Nothing in a RuleError reveals a concealed card: a card
    in it is one the refused seat sees.
    """

    def __init__(
        self,
        code: str,
        text: Text,
        refusal: Refusal,
        *,
        params: Mapping[str, Any] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.text = text
        self.params = dict(params or {})
        super().__init__(self.message)
        self.refusal = refusal
        self.legal_actions: tuple["Action", ...] | None = None
        self.details = dict(details or {})

    @property
    def message(self) -> str:
        """The message in the default language (English)."""
        return self.message_in(DEFAULT_LANGUAGE)

    def message_in(self, language: str) -> str:
        return render(self.text, self.params, language)


@dataclass(frozen=True, slots=True)
class RefusalCode:
    """One refusal, declared once: its stable ``code``, its ``kind``, what the code means (the
    catalogue's ``meaning``) and the words a refused client reads: ``says`` (the meaning itself
    when the two are the same), or, where one code covers several situations, one of its
    ``cases`` by name. Calling it gives the :class:`RuleError` with the facts its words name."""

    code: str
    meaning: Text
    kind: Refusal = Refusal.ILLEGAL
    says: Text | None = None
    cases: Mapping[str, Text] = field(default_factory=dict)

    def __call__(self, case: str | None = None, /, *, details: Mapping[str, Any] | None = None, **params: Any) -> RuleError:
        """The refusal in the words of ``case`` (None: its own words) with ``params`` named in
        them, and the machine-readable ``details`` it carries."""
        return RuleError(self.code, self.words(case), self.kind, params=params, details=details)

    def words(self, case: str | None = None) -> Text:
        return self.cases[case] if case is not None else self.says or self.meaning

    def texts(self) -> list[Text]:
        """Every text of the refusal: its meaning and all its words (each in every language)."""
        return [self.meaning, *([self.says] if self.says else []), *self.cases.values()]

    def meaning_in_game(self, meaning: Text) -> "RefusalCode":
        """The same refusal, its meaning said as one game puts it (such as what ``illegal_action``
        means where only cards are played)."""
        return replace(self, meaning=meaning)
