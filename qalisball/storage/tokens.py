"""Role tokens: made at random, stored only as their SHA-256 (API.md allows it; issue 14).

A token is 144 random bits, so a plain SHA-256 is enough to keep it out of the database (no salt or
slow hash is needed against guessing: there is nothing to guess from). Tokens are compared digest to
digest in constant time; a token that is not ASCII is no token at all (never a 500).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "sha256:"
MAX_LENGTH = 200  # longer strings are not tokens of ours: refused before hashing


def new_token() -> str:
    return secrets.token_urlsafe(18)


def hash_token(token: str) -> str:
    """What the database keeps of a token."""
    return PREFIX + hashlib.sha256(token.encode("ascii")).hexdigest()


def is_hashed(stored: str) -> bool:
    return stored.startswith(PREFIX)


def usable(token: object) -> str | None:
    """``token`` if it can be a token (a non-empty ASCII string of sane length), else None."""
    if not isinstance(token, str) or not token or len(token) > MAX_LENGTH or not token.isascii():
        return None
    return token


def matches(token: str | None, stored: str) -> bool:
    """Whether ``token`` is the one whose hash is ``stored`` (constant time)."""
    candidate = usable(token)
    if candidate is None:
        return False
    return hmac.compare_digest(hash_token(candidate), stored)
