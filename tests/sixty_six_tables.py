"""Sixty-Six states written out as card codes, for the rule tests and the players' tests."""

from __future__ import annotations

from engine import registry
from engine.cards import Card, Suit, cards
from engine.rules import Trick
from engine.ruleset import Match
from engine.sixty_six import DECK, SUITS, Announcement, Closing, SixtySixState


def table(
    hand0: str,
    hand1: str,
    talon: str = "",
    *,
    trump_card: str | None = None,
    trump: str = "H",
    leader: int = 0,
    trick: str = "",
    won: tuple[str, str] = ("", ""),
    announced: tuple[tuple[int, str], ...] = (),
    shown: tuple[str, str] = ("", ""),
    closing: tuple[int, int, int] | None = None,
    scores=(0, 0),
    deal_number: int = 1,
    seed: str = "test",
    **option_values,
) -> SixtySixState:
    """A Sixty-Six state in the middle of a deal, written out as card codes."""
    match = Match.start(registry.get("sixty-six").parse_options(option_values), seed, 2)._replace(scores=tuple(scores), deal_number=deal_number)
    return SixtySixState(
        match=match,
        hands=(DECK.mask(cards(hand0)), DECK.mask(cards(hand1))),
        talon=numbers(talon),
        trump_card=DECK.number[Card.parse(trump_card)] if trump_card else None,
        trump=SUITS.index(Suit(trump)),
        trick=Trick(leader, numbers(trick)),
        won=(DECK.mask(cards(won[0])), DECK.mask(cards(won[1]))),
        marriages=tuple(Announcement(seat, DECK.number[Card.parse(code)]) for seat, code in announced),
        shown=(DECK.mask(cards(shown[0])), DECK.mask(cards(shown[1]))),
        closing=Closing(*closing) if closing else None,
    )


def numbers(codes: str) -> tuple[int, ...]:
    """The engine's numbers of some cards."""
    return tuple(DECK.number[card] for card in cards(codes))
