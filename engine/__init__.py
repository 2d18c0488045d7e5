"""Koz's game engine: the rules of every game, pure Python, with no I/O.

Public surface: :mod:`engine.cards` (cards as numbers, hands as masks), :mod:`engine.actions`
(one typed class per kind of action), :mod:`engine.action_log` (their compact encoding, for a
store), :class:`Ruleset` and :class:`TrickTaking` (the interface each game implements, and the
deal's life cycle the games share), :mod:`engine.registry` (the games by id, each registered
below in one line with its computer strategy), :mod:`engine.rules` (:class:`Event`, options,
results) and :mod:`engine.texts` (every text in English and Turkish, rendered in one place).
"""

from . import registry
from .actions import Action, Bid, Close, Declare, Exchange, Marriage, Pass, Play, Trump
from .batak import PartnershipBatak
from .cards import Card, Rank, Suit, cards, codes
from .errors import Refusal, RefusalCode, RuleError
from .german_whist import GermanWhist
from .players.batak import BatakStrategy
from .players.german_whist import GermanWhistStrategy
from .players.sixty_six import SixtySixStrategy
from .rules import Event, MatchResult, Option
from .ruleset import Match, Ruleset, TrickTaking, replay
from .sixty_six import SixtySix

registry.register(GermanWhist(), GermanWhistStrategy())
registry.register(PartnershipBatak(), BatakStrategy())
registry.register(SixtySix(), SixtySixStrategy())

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
    "RefusalCode",
    "RuleError",
    "Ruleset",
    "Suit",
    "cards",
    "codes",
    "registry",
    "replay",
]
