"""The service names no game: a new game is its engine module and its registration, and nothing
in ``service/`` changes for it. So no module of the service names a registered ruleset, one of
its options or option values, a card, or a refusal of a game's own; the web table, a client of
the public API that reads a game's options and labels from the catalog and renders the fields
of its views, names no ruleset and no card either."""

from __future__ import annotations

import re
from pathlib import Path

from engine import registry
from engine.cards import FULL_DECK, Rank
from engine.ruleset import COMMON_REFUSALS

SERVICE = Path(__file__).resolve().parent.parent / "service"
MODULES = sorted(SERVICE.rglob("*.py"))
WEB_TABLE = sorted(path for path in (SERVICE / "web").iterdir() if path.suffix in {".js", ".html", ".css"})


def game_words() -> set[str]:
    """What only a game knows, as a word: each ruleset's id and the words of its names."""
    words: set[str] = set()
    for ruleset in registry.all_rulesets():
        words.add(ruleset.id)
        words.update(part for part in ruleset.id.split("-") if len(part) > 3)
        for name in ruleset.names.values():
            words.add(name)
            words.update(part for part in re.split(r"\W+", name) if len(part) > 3)
    return {word.lower() for word in words}


def game_rule_words() -> set[str]:
    """What only a game's rules know: its own refusal codes (as a word), its options and their
    string values (as strings: an option's name may be an everyday word)."""
    common = {refusal.code for refusal in COMMON_REFUSALS}
    codes = {refusal.code for ruleset in registry.all_rulesets() for refusal in ruleset.refusals if refusal.code not in common}
    return {code.lower() for code in codes}


def option_names() -> set[str]:
    """Every registered option's name and string values."""
    names: set[str] = set()
    for ruleset in registry.all_rulesets():
        for option in ruleset.options:
            names.add(option.code)
            names.update(value for value in option.allowed or () if isinstance(value, str))
    return {name.lower() for name in names}


def card_codes() -> set[str]:
    """Every card's code, and its code with the ten written out (``10S``)."""
    return {card.code for card in FULL_DECK} | {f"10{card.suit.value}" for card in FULL_DECK if card.rank is Rank.TEN}


def naming(text: str, words: set[str], quoted: set[str] = set()) -> list[str]:
    """The game words in ``text`` (``quoted`` ones only as a string, an option named in code:
    ``"target"``, not Python's ``target=``), and the card codes."""
    found = [word for word in words if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE)]
    found += [word for word in quoted if re.search(rf"[\"']{re.escape(word)}[\"']", text, re.IGNORECASE)]
    return sorted(found) + sorted(code for code in card_codes() if re.search(rf"(?<![\w-]){code}(?![\w-])", text))


def test_the_words_of_every_game_are_known_to_the_check():
    words, options = game_words() | game_rule_words(), option_names()
    assert {"german-whist", "batak", "sixty-six", "must_overtrump", "dummy_cannot_act"} <= words
    assert {"no_trump", "target", "schnapsen", "last-trick"} <= options
    assert naming('const rank = view.ruleset === "sixty-six"', words) == ["sixty-six"]
    assert naming("such as `QS` or 10H", words) == ["10H", "QS"]
    assert naming('options["target"]', words, options) == ["target"]
    assert naming("Thread(target=run)", words, options) == []


def offences(paths: list[Path], words: set[str], quoted: set[str] = set()) -> str:
    """Each line naming a game's word, as ``file:line: words``."""
    return "\n".join(
        f"{path.relative_to(SERVICE.parent)}:{number}: {', '.join(found)}"
        for path in paths
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if (found := naming(line, words, quoted))
    )


def test_no_module_of_the_service_names_a_game_an_option_a_card_or_a_games_refusal():
    assert MODULES and offences(MODULES, game_words() | game_rule_words(), option_names()) == ""


def test_the_web_table_names_no_game_and_no_card():
    assert WEB_TABLE and offences(WEB_TABLE, game_words()) == ""
