"""The VU side of ``bench/bots.py --peer``: the VU schnapsen platform runs each deal, RdeepBot
against a proxy for Koz's player.

Run by the interpreter that has the ``schnapsen`` package (its pinned dependencies cannot share
Koz's environment). It speaks JSON lines: to stdout it writes each deal as dealt (``deal``: the
leader's and the follower's hands and the talon in drawing order, its last card the face-up
trump card), every move RdeepBot makes (``move``), a question whenever Koz's player is to move
(``ask``: its hand and VU's legal moves), and each deal's end (``end``); from stdin it reads
Koz's answers to questions (``{"move": ...}``), and refuses (exits with an error) any move that
is not among VU's legal moves. Moves are ``{"type": "play" | "marriage", "card": code}`` or
``{"type": "exchange"}``, with Koz's card codes (``KH``, ``TS``). RdeepBot's decision times are
measured in this process, on the wall clock and in CPU time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any, Optional

from schnapsen.bots.rdeep import RdeepBot
from schnapsen.deck import Card, Rank, Suit
from schnapsen.game import (
    Bot,
    BotState,
    GameState,
    Move,
    PlayerPerspective,
    SchnapsenGamePlayEngine,
)

RANKS = {Rank.ACE: "A", Rank.TEN: "T", Rank.KING: "K", Rank.QUEEN: "Q", Rank.JACK: "J"}
SUITS = {Suit.CLUBS: "C", Suit.DIAMONDS: "D", Suit.HEARTS: "H", Suit.SPADES: "S"}
CARDS = {RANKS[card.rank] + SUITS[card.suit]: card for card in Card if card.rank in RANKS}


def code(card: Card) -> str:
    return RANKS[card.rank] + SUITS[card.suit]


def move_json(move: Move) -> dict[str, Any]:
    if move.is_trump_exchange():
        return {"type": "exchange"}
    if move.is_marriage():
        return {"type": "marriage", "card": code(move.as_marriage().king_card)}
    return {"type": "play", "card": code(move.as_regular_move().card)}


def send(message: dict[str, Any]) -> None:
    print(json.dumps(message), flush=True)


class Timed(Bot):
    """RdeepBot, its moves told to Koz's side and its decisions timed."""

    def __init__(self, bot: Bot) -> None:
        super().__init__("rdeep")
        self.bot = bot
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def get_move(self, perspective: PlayerPerspective, leader_move: Optional[Move]) -> Move:
        wall, cpu = time.perf_counter(), time.process_time()
        move = self.bot.get_move(perspective, leader_move)
        self.wall.append(time.perf_counter() - wall)
        self.cpu.append(time.process_time() - cpu)
        send({"move": move_json(move)})
        return move


class Koz(Bot):
    """Asks Koz's side for each move and checks it against VU's legal moves."""

    def __init__(self) -> None:
        super().__init__("koz")

    def get_move(self, perspective: PlayerPerspective, leader_move: Optional[Move]) -> Move:
        valid = perspective.valid_moves()
        send({"ask": {"hand": sorted(code(card) for card in perspective.get_hand().get_cards()), "valid": [move_json(move) for move in valid]}})
        answer = json.loads(sys.stdin.readline())["move"]
        for move in valid:
            if move_json(move) == answer:
                return move
        raise SystemExit(f"Koz's move {answer} is not legal in VU: {[move_json(move) for move in valid]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, required=True)
    parser.add_argument("--first", type=int, default=0, help="the number of the first deal")
    parser.add_argument("--seed", default="peer")
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--depth", type=int, default=6)
    args = parser.parse_args()
    engine = SchnapsenGamePlayEngine()
    for number in range(args.first, args.first + args.deals):
        rng = random.Random(f"{args.seed}:{number}")
        rdeep = Timed(RdeepBot(args.samples, args.depth, random.Random(f"{args.seed}:{number}:rdeep")))
        koz = Koz()
        koz_leads = number % 2 == 0  # the first lead alternates
        deck = engine.deck_generator.shuffle_deck(engine.deck_generator.get_initial_deck(), rng)
        first, second, talon = engine.hand_generator.generateHands(deck)
        send({"deal": {
            "number": number,
            "koz_leads": koz_leads,
            "hands": [[code(card) for card in first.get_cards()], [code(card) for card in second.get_cards()]],
            "talon": [code(card) for card in talon.get_cards()],
        }})
        leader, follower = (koz, rdeep) if koz_leads else (rdeep, koz)
        state = GameState(
            leader=BotState(implementation=leader, hand=first),
            follower=BotState(implementation=follower, hand=second),
            talon=talon,
            previous=None,
        )
        winner, points, _ = engine.play_game_from_state(state, leader_move=None)
        send({"end": {"winner": "koz" if winner is koz else "rdeep", "points": points, "rdeep_wall": rdeep.wall, "rdeep_cpu": rdeep.cpu}})


if __name__ == "__main__":
    main()
