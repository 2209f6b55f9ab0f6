"""Where a request's token comes from: a Bearer header, or a cookie that a CSRF token unlocks (D53, D54).

A token in a link (a console's QR code, the officials' page, ``/?token=``) is exchanged at once for an
HttpOnly, SameSite=Lax cookie and taken out of the address bar (``token_links.py``). Browsers send that
cookie by themselves, to any request: so a cookie alone authorises nothing that writes. A write that
comes with cookies needs the CSRF token of one of them, in the ``X-CSRF-Token`` header (the pages'
scripts) or in a ``csrf`` form field (the officials' page form). The CSRF token is an HMAC of the cookie's
token (D54): the server needs no table of sessions, every process of a cluster computes the same one, and
the page that carries it does not carry the token itself. It also picks which cookie a request means when
a tablet holds several (two roles of one match, or a role and the organiser's).

No Flask app state here: only the request. ``token_links.py`` sets the cookies and guards the writes.
"""

from __future__ import annotations

import hashlib
import hmac
import re

from flask import request

from qalisball.storage.tokens import usable

ORGANISER_COOKIE = "qb_organiser"
ROLE_COOKIE_PREFIX = "qb_role_"
# Over HTTPS the cookies are named ``__Host-…``: browsers then take them only from this very host (Secure,
# Path=/, no Domain), so a sibling subdomain cannot plant a cookie of the same name that shadows ours.
HOST_PREFIX = "__Host-"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

_COOKIE_SAFE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def role_cookie(match_id: str, role: str) -> str:
    """The cookie that keeps ``role``'s token of match ``match_id`` on this device."""
    key = match_id if _COOKIE_SAFE.fullmatch(match_id) else hashlib.sha256(match_id.encode()).hexdigest()[:24]
    return f"{ROLE_COOKIE_PREFIX}{key}_{role}"


def csrf_for(token: str) -> str:
    """The CSRF token that goes with ``token``: 128 bits of an HMAC keyed by the token itself (D54)."""
    return hmac.new(token.encode("ascii"), b"qalisball csrf v1", hashlib.sha256).hexdigest()[:32]


def bearer() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if any."""
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[len("Bearer ") :].strip() or None
    return None


def cookie_name(name: str, secure: bool) -> str:
    """The name a cookie is set under: ``__Host-<name>`` over HTTPS, ``<name>`` over plain HTTP."""
    return HOST_PREFIX + name if secure else name


def request_cookie(name: str) -> str | None:
    """The token in cookie ``name`` of this request (its ``__Host-`` form first), if it can be a token."""
    return usable(request.cookies.get(HOST_PREFIX + name) or request.cookies.get(name))


def cookie_tokens() -> list[str]:
    """The tokens this request's cookies carry (the organiser's and any match role's), usable ones only."""
    found = []
    for name, value in request.cookies.items():
        name = name.removeprefix(HOST_PREFIX)
        if name == ORGANISER_COOKIE or name.startswith(ROLE_COOKIE_PREFIX):
            token = usable(value)
            if token is not None:
                found.append(token)
    return found


def sent_csrf() -> str | None:
    """The CSRF token the request presents: its header, or the ``csrf`` field of a posted form."""
    value = request.headers.get(CSRF_HEADER)
    if not value and request.method == "POST" and request.mimetype == "application/x-www-form-urlencoded":
        value = request.form.get(CSRF_FIELD)
    return value if value and value.isascii() else None


def unlocked_cookie(csrf: str | None) -> str | None:
    """The cookie token whose CSRF token is ``csrf`` (compared in constant time), if any."""
    if not csrf:
        return None
    for token in cookie_tokens():
        if hmac.compare_digest(csrf_for(token), csrf):
            return token
    return None


def request_token() -> str | None:
    """The caller's token: the Bearer header's, else the cookie that the presented CSRF token unlocks.

    A cookie without its CSRF token is no token (a GET answers as to anyone; a write is refused before
    this by ``token_links.guard_writes``).
    """
    return bearer() or unlocked_cookie(sent_csrf())


def cookie_refused() -> bool:
    """Whether this is a write that carries cookies but not the CSRF token of one of them (D54)."""
    if request.method in SAFE_METHODS or request.headers.get("Authorization"):
        return False
    return bool(cookie_tokens()) and unlocked_cookie(sent_csrf()) is None
