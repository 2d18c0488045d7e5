"""Koz's game engine: the rules of every game, pure Python, with no I/O.

Public surface: :mod:`engine.cards` (cards and codes), :class:`Ruleset` (the interface each game
implements), :mod:`engine.registry` (the rulesets by id), and the shared vocabulary of
:mod:`engine.rules` (:class:`Action`, :class:`Event`, :class:`RuleError`, ...).
"""

from . import registry
from .batak import PartnershipBatak
from .cards import Card, Rank, Suit, cards, codes
from .german_whist import GermanWhist
from .actions import Action, Bid, Close, Declare, Exchange, Marriage, Pass, Play, Trump
from .errors import Refusal, RuleError
from .rules import Event, MatchResult, Option
from .ruleset import Match, Ruleset, TrickTaking, replay
from .sixty_six import SixtySix

registry.register(GermanWhist())
registry.register(PartnershipBatak())
registry.register(SixtySix())

__all__ = [
    "Action",
    "Bid",
    "Close",
    "Declare",
    "Exchange",
    "Marriage",
    "Pass",
    "Play",
    "Trump",
    "TrickTaking",
    "Card",
    "Event",
    "Match",
    "MatchResult",
    "Option",
    "Rank",
    "Refusal",
    "RuleError",
    "Ruleset",
    "Suit",
    "cards",
    "codes",
    "registry",
    "replay",
]
