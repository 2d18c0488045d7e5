"""Seat tokens (``service/tokens.py``): a token opens its own seat and no other; only the whole
hash of the whole token matches; the store keeps hashes, never tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from service.refusals import Refused
from service.tokens import derived_token, new_token, require_token, seat_of, token_hash


def test_a_new_token_is_long_random_and_url_safe():
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert len(token) == 43  # 256 bits in unpadded base64
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_a_tokens_hash_is_the_sha256_of_its_utf8_text():
    assert token_hash("abc") == hashlib.sha256(b"abc").hexdigest()
    assert token_hash("ç") == hashlib.sha256("ç".encode()).hexdigest()
    assert token_hash("abc") != token_hash("abd")


def test_any_text_presented_as_a_token_hashes_even_a_lone_surrogate():
    # a bearer header can carry anything: hashing it never fails, so a bad token is a 401, not a 500
    assert token_hash("\ud800") == hashlib.sha256(b"\xed\xa0\x80").hexdigest()
    assert seat_of("\ud800", [token_hash(new_token())]) is None


def test_a_token_opens_its_own_seat_among_several():
    tokens = [new_token() for _ in range(4)]
    hashes = [token_hash(token) for token in tokens]
    for seat, token in enumerate(tokens):
        assert seat_of(token, hashes) == seat


def test_a_token_matches_only_on_its_whole_hash_not_a_prefix():
    token = new_token()
    whole = token_hash(token)
    for kept in (8, 16, 32, 63):
        # a stored hash that agrees with the token's on its first `kept` characters only
        differing = whole[:kept] + ("0" if whole[kept] != "0" else "1") + whole[kept + 1 :]
        assert seat_of(token, [differing]) is None, f"matched on the first {kept} characters"
    assert seat_of(token, [whole[:-1]]) is None  # nor a shorter hash
    assert seat_of(token, [whole]) == 0


def test_a_token_of_the_right_length_that_is_not_the_seats_opens_nothing():
    hashes = [token_hash(new_token()) for _ in range(2)]
    for other in (new_token(), "A" * 43, "x" * 43):
        assert seat_of(other, hashes) is None
    assert seat_of("", hashes) is None


def test_a_seat_without_a_token_is_opened_by_none():
    token = new_token()
    assert seat_of(token, [None, None]) is None
    assert seat_of(token, [None, token_hash(token)]) == 1
    assert seat_of(token, []) is None


def test_the_token_itself_in_place_of_its_hash_opens_nothing():
    token = new_token()
    assert seat_of(token, [token]) is None


def test_a_derived_token_is_the_hmac_of_its_context_under_the_secret_url_safe_unpadded():
    expected = hmac.new(b"key", b"game\x00seat-1", hashlib.sha256).digest()
    assert derived_token("key", "game", "seat-1") == base64.urlsafe_b64encode(expected).rstrip(b"=").decode()
    token = derived_token("key", "game", "seat-1")
    assert len(token) == 43 and "=" not in token
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_asking_again_derives_the_same_token_and_another_secret_or_context_another():
    token = derived_token("idempotency-key", "game-1", "0")
    assert derived_token("idempotency-key", "game-1", "0") == token
    others = {
        derived_token("idempotency-kez", "game-1", "0"),
        derived_token("idempotency-key", "game-2", "0"),
        derived_token("idempotency-key", "game-1", "1"),
        derived_token("idempotency-key", "0", "game-1"),
        derived_token("idempotency-key", "game-10"),
    }
    assert token not in others and len(others) == 5


def test_a_derived_token_takes_any_text_even_a_lone_surrogate():
    assert derived_token("\ud800", "\udfff") == base64.urlsafe_b64encode(
        hmac.new(b"\xed\xa0\x80", b"\xed\xbf\xbf", hashlib.sha256).digest()
    ).rstrip(b"=").decode()


def test_a_request_without_a_bearer_token_is_refused_as_missing_token_and_one_with_it_gets_it():
    with pytest.raises(Refused) as refused:
        require_token(None)
    assert (refused.value.code, refused.value.detail) == ("missing_token", "missing_token")
    assert require_token("") == "" and require_token("a-token") == "a-token"
