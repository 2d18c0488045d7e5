"""JSON as the service writes it: orjson, a C encoder, with the standard encoder behind it."""

from __future__ import annotations

import json
from typing import Any

import orjson


def json_bytes(value: Any) -> bytes:
    """``value`` as compact JSON in UTF-8, keys in the order built. What orjson refuses (an
    integer past 64 bits, a lone surrogate) goes to the standard encoder, which has the last word."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def json_text(value: Any) -> str:
    return json_bytes(value).decode("utf-8", "surrogatepass")
