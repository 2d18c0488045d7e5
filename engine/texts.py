"""Koz's texts in every language it speaks, rendered in one place.

A text is a template per language (``{"en": ..., "tr": ...}``); its parameters are plain values
(card codes, suit codes, numbers) that :func:`render` names in the language asked for: a
parameter whose name ends in ``card`` is a card code, one ending in ``suit`` a suit code, and a
``{"en": ..., "tr": ...}`` mapping (a seat's names) is taken in that language.

>>> render({"en": "{card} is not in your hand", "tr": "{card} elinizde yok"}, {"card": "QS"}, "tr")
'Maça Kızı elinizde yok'
>>> card_name("TD", "en"), card_name("TD", "tr"), card_name("JC", "tr")
('10 of Diamonds', 'Karo Onlusu', 'Sinek Valesi')
"""

from __future__ import annotations

from typing import Any, Mapping

from .cards import Card, Suit

#: the languages Koz speaks, the default first
LANGUAGES = ("en", "tr")
DEFAULT_LANGUAGE = "en"

Text = Mapping[str, str]


class Said(dict[str, str]):
    """A text (``{"en": ..., "tr": ...}``) among a refusal's machine-readable details, where a
    fact is best given in words (an option's allowed values, "an integer from 0 to 1000"): the
    service answers it in the request's language, as it does the refusal's sentence."""


def card_name(code: str, language: str) -> str:
    return Card.parse(code).names()[language]


def suit_name(code: str, language: str) -> str:
    return Suit(code).names[language].lower()


def render(text: Text, params: Mapping[str, Any], language: str) -> str:
    """``text`` in ``language`` (the default language when it has none) with ``params`` named in it."""
    template = text.get(language) or text[DEFAULT_LANGUAGE]
    language = language if language in text else DEFAULT_LANGUAGE
    return template.format(**{name: _named(name, value, language) for name, value in params.items()})


def _named(name: str, value: Any, language: str) -> Any:
    if isinstance(value, Mapping):
        return value[language]
    if isinstance(value, str) and name.endswith("card"):
        return card_name(value, language)
    if isinstance(value, str) and name.endswith("suit"):
        return suit_name(value, language)
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value)
    return value
