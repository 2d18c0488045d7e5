"""The compact encoding of a game's action log: a played card in one byte, any action in a few.

Each entry opens with one byte: the acting seat in the top two bits, an operation in the low
six. Operations 0-51 play the card of that index (rank-major: ``2C`` is 0, ``AS`` is 51); the
others are fixed actions, or take one more byte (a suit, a bid, a card). An action this table
does not know is kept whole as JSON behind a length, so a new kind of action never breaks the
log, it only costs more bytes.

This module works on action objects as the API shows them (``Action.to_json`` and back), so it
is the one place to adapt when the engine's actions change; the service only stores its bytes.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping

from .actions import Bid, Close, Declare, Exchange, Marriage, Pass, Play, Trump
from .cards import RANK_CODES, Rank, Suit

SUITS = [suit.value for suit in Suit]
#: the card codes by operation, rank-major (the order stored logs were written in)
CARDS = [RANK_CODES[rank] + suit for rank in Rank for suit in SUITS]
CARD_INDEX = {code: index for index, code in enumerate(CARDS)}

#: actions without fields, by operation
BARE = {52: Pass.type, 53: Exchange.type, 54: Close.type, 55: Declare.type}
BARE_OPS = {kind: op for op, kind in BARE.items()}
TRUMP, BID, MARRIAGE, MARRIAGE_DECLARED, OTHER = 56, 57, 58, 59, 63
MAX_SEATS = 4


def _head(seat: int, op: int) -> int:
    if not 0 <= seat < MAX_SEATS:
        raise ValueError(f"the action log holds seats 0 to {MAX_SEATS - 1}, not {seat}")
    return seat << 6 | op


def encode(seat: int, action: Mapping[str, Any]) -> bytes:
    """One log entry: ``seat`` took ``action`` (an action object as ``Action.to_json`` gives it)."""
    kind, fields = action["type"], set(action) - {"type"}
    if kind == Play.type and fields == {"card"} and action["card"] in CARD_INDEX:
        return bytes([_head(seat, CARD_INDEX[action["card"]])])
    if kind in BARE_OPS and not fields:
        return bytes([_head(seat, BARE_OPS[kind])])
    if kind == Trump.type and fields == {"suit"} and action["suit"] in SUITS:
        return bytes([_head(seat, TRUMP), SUITS.index(action["suit"])])
    if kind == Bid.type and fields == {"value"} and isinstance(action["value"], int) and 0 <= action["value"] < 256:
        return bytes([_head(seat, BID), action["value"]])
    if kind == Marriage.type and fields == {"card"} and action["card"] in CARD_INDEX:
        return bytes([_head(seat, MARRIAGE), CARD_INDEX[action["card"]]])
    if kind == Marriage.type and fields == {"card", "declare"} and action["declare"] is True and action["card"] in CARD_INDEX:
        return bytes([_head(seat, MARRIAGE_DECLARED), CARD_INDEX[action["card"]]])
    text = json.dumps(dict(action), separators=(",", ":")).encode()
    if len(text) > 255:
        raise ValueError("an action object in the log is at most 255 bytes of JSON")
    return bytes([_head(seat, OTHER), len(text)]) + text


def decode(log: bytes) -> Iterator[tuple[int, dict[str, Any]]]:
    """The entries of a log, in order, as (seat, action object)."""
    at = 0
    while at < len(log):
        seat, op = log[at] >> 6, log[at] & 0x3F
        at += 1
        if op < len(CARDS):
            yield seat, {"type": Play.type, "card": CARDS[op]}
        elif op in BARE:
            yield seat, {"type": BARE[op]}
        elif op == TRUMP:
            yield seat, {"type": Trump.type, "suit": SUITS[log[at]]}
            at += 1
        elif op == BID:
            yield seat, {"type": Bid.type, "value": log[at]}
            at += 1
        elif op == MARRIAGE:
            yield seat, {"type": Marriage.type, "card": CARDS[log[at]]}
            at += 1
        elif op == MARRIAGE_DECLARED:
            yield seat, {"type": Marriage.type, "card": CARDS[log[at]], "declare": True}
            at += 1
        elif op == OTHER:
            length = log[at]
            yield seat, json.loads(log[at + 1 : at + 1 + length])
            at += 1 + length
        else:
            raise ValueError(f"unknown operation {op} in the action log")
