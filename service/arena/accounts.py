"""Accounts: a unique name, a kind, and a key answered once and kept only as its hash.

A name is validated and normalised as a seat's name is (:class:`service.edge.Name`: NFC, trimmed,
no control characters, 1 to 40 characters); two names are the same account when they are equal
after NFKC and case folding ("Ayşe" and "AYŞE" are one). An account's id is a hash of that folded
name, and its key is ``<id>.<secret>``: the key finds its account with one read, and the store
keeps only the key's hash (:func:`service.tokens.token_hash`), compared in constant time.

Koz's computer levels are accounts of their own (kind ``house``, no key), made when first needed:
``koz-random``, ``koz-basic``, ``koz-expert``.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..refusals import Refused
from ..tokens import new_token, token_hash
from .store import ArenaStore
from .texts import DETAILS

KINDS = ("bot", "person")
HOUSE = "house"
HOUSE_PREFIX = "koz-"


def folded(name: str) -> str:
    """The form in which two names are the same account: NFKC, case folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def account_id(name: str) -> str:
    """The account id of a (normalised) name: its folded form's hash."""
    return hashlib.sha256(folded(name).encode("utf-8", "surrogatepass")).hexdigest()[:24]


def house_name(level: str) -> str:
    return HOUSE_PREFIX + level


def is_house_name(name: str) -> bool:
    return folded(name).startswith(HOUSE_PREFIX)


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    kind: str
    created: str
    #: the game it last abandoned (its clock ran out), until it finishes another
    abandoned: str | None = None

    @classmethod
    def from_stored(cls, account: str, stored: dict[str, str]) -> "Account":
        return cls(account, stored["name"], stored["kind"], stored["created"], stored.get("abandoned") or None)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "created": self.created}


def now_text() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class Accounts:
    def __init__(self, store: ArenaStore) -> None:
        self.store = store

    def create(self, name: str, kind: str) -> tuple[Account, str]:
        """A new account and its key (answered once); a 409 ``name_taken`` for a name in use
        (Koz's own ``koz-...`` names included)."""
        if is_house_name(name):
            raise Refused("name_taken", DETAILS["name_taken"], params={"name": name})
        account = account_id(name)
        key = f"{account}.{new_token()}"
        created = now_text()
        if not self.store.create_account(account, name, kind, created, token_hash(key)):
            raise Refused("name_taken", DETAILS["name_taken"], params={"name": name})
        return Account(account, name, kind, created), key

    def house(self, level: str) -> Account:
        """Koz's account of a computer level, made on first use."""
        name = house_name(level)
        account = account_id(name)
        stored = self.store.account(account)
        if stored is None:
            self.store.create_account(account, name, HOUSE, now_text(), "")
            stored = self.store.account(account)
            assert stored is not None
        return Account.from_stored(account, stored)

    def find(self, name: str) -> Account:
        """The account of a name (any case, any normalisation); a 404 ``unknown_account`` without one."""
        account = account_id(unicodedata.normalize("NFC", name).strip())
        stored = self.store.account(account)
        if stored is None:
            raise Refused("unknown_account", DETAILS["unknown_account"], params={"name": name})
        return Account.from_stored(account, stored)

    def by_id(self, account: str) -> Account | None:
        return self.by_ids([account])[account]

    def by_ids(self, accounts: list[str]) -> dict[str, Account | None]:
        """The accounts of these ids (None for one that does not exist), read in one round trip."""
        return {
            account: Account.from_stored(account, stored) if stored is not None else None
            for account, stored in zip(accounts, self.store.accounts(accounts))
        }

    def authenticate(self, key: str | None) -> Account:
        """The account whose key this is: a 401 ``missing_key`` without one, ``invalid_key`` for any other."""
        if key is None:
            raise Refused("missing_key", DETAILS["missing_key"])
        account, _, _ = key.partition(".")
        stored = self.store.account(account) if account.isalnum() and len(account) <= 64 else None
        expected = stored.get("key_hash", "") if stored is not None else ""
        # compared even when there is no account, so that the time taken does not tell which ids exist
        matches = hmac.compare_digest(token_hash(key), expected or "0" * 64)
        if stored is None or not expected or not matches:
            raise Refused("invalid_key", DETAILS["invalid_key"])
        return Account.from_stored(account, stored)
