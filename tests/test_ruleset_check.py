"""The start check refuses a ruleset that is not fit to serve, saying what is wrong with it: a game
registered from outside Koz is checked before the service answers anything about it. A ruleset
is registered once, and taken out with its computer strategy."""

from __future__ import annotations

import pytest

from engine import RuleError, registry
from engine.errors import RefusalCode
from engine.players import level_names
from engine.players.base import Strategy
from plain_whist import CARD_NOT_IN_HAND, MUST_FOLLOW_SUIT, PlainWhist

ENGLISH_ONLY_WORDS = RefusalCode(
    "card_not_in_hand",
    {"en": "the card is not in the hand", "tr": "kart elde yok"},
    says={"en": "{card} is not in your hand"},
)
ENGLISH_ONLY_CASE = RefusalCode(
    "must_follow_suit",
    {"en": "the suit led must be followed", "tr": "yerdeki renk oynanmalı"},
    cases={"void": {"en": "follow the suit led"}},
)


class EnglishWordsOnly(PlainWhist):
    refusals = (ENGLISH_ONLY_WORDS, MUST_FOLLOW_SUIT)


class EnglishCaseOnly(PlainWhist):
    refusals = (CARD_NOT_IN_HAND, ENGLISH_ONLY_CASE)


class EnglishSeatLabel(PlainWhist):
    table_labels = {"open_hand": {"en": "open hand"}}


class HumanSeatNotAtTheTable(PlainWhist):
    standard_human_seats = (2,)


class SeatOnTwoSides(PlainWhist):
    teams = ((0, 1), (1,))


def test_a_ruleset_fit_to_serve_passes():
    PlainWhist().check()


@pytest.mark.parametrize(
    "ruleset, says",
    [
        (EnglishWordsOnly, "every refusal, message, option and label is written in every language"),
        (EnglishCaseOnly, "every refusal, message, option and label is written in every language"),
        (EnglishSeatLabel, "every refusal, message, option and label is written in every language"),
        (HumanSeatNotAtTheTable, "needs seats, and standard human seats among them"),
        (SeatOnTwoSides, "its sides hold every seat once"),
    ],
)
def test_a_ruleset_not_fit_to_serve_is_refused_saying_why(ruleset, says):
    with pytest.raises(ValueError) as refused:
        ruleset().check()
    assert str(refused.value) == f"ruleset 'plain-whist': {says}"


class FirstLegalAction(Strategy):
    def basic(self, info, rng):
        return info.legal_actions()[0]

    def expert(self, info, rng, budget):
        return info.legal_actions()[0]


def test_a_ruleset_is_registered_once_and_taken_out_with_its_strategy():
    registry.register(PlainWhist(), FirstLegalAction())
    try:
        assert level_names("plain-whist") == ["random", "basic", "expert"]
        with pytest.raises(ValueError) as again:
            registry.register(PlainWhist())
        assert str(again.value) == "ruleset 'plain-whist' is registered already"
    finally:
        registry.unregister("plain-whist")
    assert level_names("plain-whist") == ["random"]
    with pytest.raises(RuleError):
        registry.get("plain-whist")
