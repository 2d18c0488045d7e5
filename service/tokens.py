"""Seat tokens: long random secrets, of which the store keeps only a hash."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Sequence

from .refusals import Refused


def new_token() -> str:
    """A fresh seat token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def derived_token(secret: str, *context: str) -> str:
    """A seat token computed from a secret the caller holds (an Idempotency-Key, the seat's token
    in the match before) and the context it is for: asking again gives the same token, and the
    store still keeps only its hash. The context includes a random salt of the game where the
    secret may be weak, so that nobody computes the token without asking."""
    digest = hmac.new(secret.encode("utf-8", "surrogatepass"), "\x00".join(context).encode("utf-8", "surrogatepass"), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")


def token_hash(token: str) -> str:
    """The hash kept in place of a token (SHA-256 suffices: tokens are random, not passwords)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def seat_of(token: str, hashes: Sequence[str | None]) -> int | None:
    """The seat whose token this is, comparing every seat's hash in constant time."""
    presented = token_hash(token)
    found = None
    for seat, stored in enumerate(hashes):
        # every seat is compared, so the time taken does not tell which one matched
        if stored is not None and hmac.compare_digest(presented, stored):
            found = seat
    return found


def authenticated_seat(token: str, hashes: Sequence[str | None]) -> int:
    """The seat of a bearer token among the seats' hashes; a token of no seat is a 401 ``invalid_token``."""
    seat = seat_of(token, hashes)
    if seat is None:
        raise Refused("invalid_token", "invalid_token")
    return seat


def require_token(token: str | None) -> str:
    """The bearer token of a request that needs one; a 401 ``missing_token`` without."""
    if token is None:
        raise Refused(
            "missing_token",
            "missing_token",
        )
    return token
