"""The web layer's defences (issue 14): integrity notices on every screen, security headers, throttling.

- ``integrity_notices``: a template global; ``base.html`` shows its lines at the top of every page, so
  a damaged match (or database) says so on the console, the scoreboard, the phone page and the lists.
- Security headers on every answer (D49): ``nosniff``, ``Referrer-Policy: no-referrer``, and on pages a
  content security policy without inline script (a template that still has one marks it with
  ``csp_nonce()``), framing refused except for the scoreboard overlay (stream software may frame it),
  and ``Cache-Control: no-store`` on any answer to a request that carried a token (or a token's cookie).
- Wrong tokens throttled per client address (D50): a leaky bucket of ``THROTTLE_BURST`` failures that
  drains one every ``THROTTLE_EVERY_MS``; while it is full every request from that address that carries
  a token answers 429 with ``Retry-After`` (before the token is looked at, so guessing learns nothing).
  A secret other than a token (a training session's code, issue 24) counts as one once its route calls
  ``secret_presented()``, before looking at it.
"""

from __future__ import annotations

import math
import secrets
import threading
import types
from collections import OrderedDict
from typing import Any

from flask import Flask, Response, current_app, g, jsonify, request
from flask_babel import gettext

from qalisball.storage.integrity import Damage
from qalisball.web import services
from qalisball.web.credentials import cookie_tokens, sent_csrf, unlocked_cookie

THROTTLE_BURST = 10  # wrong tokens an address may send at once …
THROTTLE_EVERY_MS = 6_000  # … then one more every 6 s (10 a minute)
THROTTLE_ADDRESSES = 10_000  # addresses remembered at most (the oldest forgotten first)

CSP = (
    "default-src 'self'; script-src 'self'{nonce}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'{frames}"
)


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(integrity_notices=integrity_notices, csp_nonce=csp_nonce)
    services.THROTTLE.install(app, Throttle())
    app.before_request(_refuse_while_throttled)
    app.register_error_handler(Throttled, lambda exc: exc.response)
    app.after_request(_count_wrong_tokens)
    app.after_request(_security_headers)
    app.before_request(_refuse_oversized_headers)
    app.log_exception = types.MethodType(_log_one_line, app)  # type: ignore[method-assign]


# ---------------------------------------------------------------------------------------------
# One line of log per request at most (issue 33.6, D242), and headers bounded (issue 33.13, D243)

LOGGED_CHARS = 300  # the longest line a failed request writes to the log


def _log_one_line(app: Flask, exc_info: Any) -> None:
    """Flask's ``log_exception`` for a 500: one line (the route, the exception's type and a prefix of its
    words), never the traceback: 2,000 requests that each wrote 16 KB of traceback filled 32 MB in 5 s."""
    exc = exc_info[1] if isinstance(exc_info, tuple) else exc_info
    where = f"{request.method} {request.path}"
    line = f"500 {where[:120]}: {type(exc).__name__}: {exc}".replace("\n", " ").replace("\r", " ")
    app.logger.error("%s", line[:LOGGED_CHARS])


# A header's value past this is refused with 431 before anything reads it: a 64 KB Accept-Language cost
# every page 30 ms of parsing. Cookies may be longer (a device keeps a role cookie per match and role).
MAX_HEADER_BYTES = 8 * 1024
MAX_COOKIE_BYTES = 32 * 1024


def _refuse_oversized_headers() -> Any:
    for name, value in request.headers.items():
        bound = MAX_COOKIE_BYTES if name.lower() == "cookie" else MAX_HEADER_BYTES
        if len(value) > bound:
            message = f"the {name[:40]} header is longer than {bound} bytes"
            if request.path.startswith("/api/"):
                return jsonify({"error": "header_too_large", "message": message}), 431
            return Response(message + "\n", 431, mimetype="text/plain")
    return None


# ---------------------------------------------------------------------------------------------
# Integrity notices (D42)


def _words(damage: Damage) -> str:
    """A damage's reason in the page's language (its template is translated like a rule refusal)."""
    return str(gettext(damage.template)).format(**damage.params)


def integrity_notices(m: Any = None) -> list[str]:
    """What a page must say about the integrity of what it shows: the match's damage, or the database's."""
    svc = services.officials()
    if m is not None:
        damage = svc.damage(m)
        if damage is None:
            return []
        return [
            gettext(
                "Read-only: this match’s event log cannot be trusted (%(reason)s). It is shown as far as it is proven.",
                reason=_words(damage),
            )
        ]
    notices = []
    if svc.problem is not None:
        notices.append(gettext("Read-only: %(reason)s.", reason=_words(svc.problem)))
    for damage in svc.lost.values():
        notices.append(gettext("A match was lost: %(reason)s.", reason=_words(damage)))
    return notices


# ---------------------------------------------------------------------------------------------
# Security headers (D49)


def csp_nonce() -> str:
    """A nonce for an inline ``<script>`` that a template still has (the policy then names it)."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(16)
    return str(g.csp_nonce)


def _is_overlay() -> bool:
    return request.endpoint == "pages.scoreboard" and request.args.get("overlay") in ("1", "true", "yes")


# Public display pages a venue screen (``/screens/<name>``, issue 13) shows in a frame of this site:
# framed by this site only. Every other page (the console, the organiser's pages) is never framed.
_VENUE_PAGES = frozenset({"pages.scoreboard", "pages.lineups", "competition_pages.screen"})


def _framed_by_self() -> bool:
    return request.endpoint in _VENUE_PAGES


def _security_headers(response: Response) -> Response:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    if response.mimetype == "text/html":
        overlay = _is_overlay()
        nonce = f" 'nonce-{g.csp_nonce}'" if "csp_nonce" in g else ""
        # The overlay is framed by stream software (OBS browser sources, a studio page): any frame may show it;
        # a venue screen frames the public display pages from this same site; nothing else is ever framed.
        venue = not overlay and _framed_by_self()
        frames = "" if overlay else ("; frame-ancestors 'self'" if venue else "; frame-ancestors 'none'")
        response.headers["Content-Security-Policy"] = CSP.format(nonce=nonce, frames=frames)
        if not overlay:
            response.headers["X-Frame-Options"] = "SAMEORIGIN" if venue else "DENY"  # browsers without CSP level 2
    if _carried_token() or cookie_tokens():
        # A page or answer that a token opened (in a header, a link, or its cookie: D53): never cached.
        response.headers["Cache-Control"] = "no-store"
    return response


# ---------------------------------------------------------------------------------------------
# Throttling wrong tokens (D50)


class Throttle:
    """Wrong tokens per client address: a leaky bucket per address, times in server ms.

    At most ``size`` addresses are remembered, and a bucket is forgotten only once it has drained: when every
    remembered bucket still holds failures, the failures of the addresses beyond them share one bucket
    (``OVERFLOW``), so a crowd of other addresses never empties the bucket of one (issue 33 item 11, D223).
    Also used per training session and for the codes guessed without one (``training/service.py``)."""

    OVERFLOW = "\x00overflow"

    def __init__(self, burst: int = THROTTLE_BURST, every_ms: int = THROTTLE_EVERY_MS, size: int = THROTTLE_ADDRESSES) -> None:
        self.burst, self.every_ms, self.size = burst, every_ms, size
        self._level: OrderedDict[str, tuple[float, int]] = OrderedDict()  # address -> (failures, at ms)
        self._lock = threading.Lock()

    def _now_level(self, address: str, now: int) -> float:
        if address not in self._level and len(self._level) >= self.size:
            address = self.OVERFLOW  # not remembered while the table is full: the crowd's shared bucket
        level, at = self._level.get(address, (0.0, now))
        return max(0.0, level - (now - at) / self.every_ms)

    def wait_s(self, address: str, now: int) -> int:
        """Seconds until ``address`` may try a token again (0: now)."""
        with self._lock:
            over = self._now_level(address, now) - (self.burst - 1)
        return 0 if over <= 0 else max(1, math.ceil(over * self.every_ms / 1000))

    def failed(self, address: str, now: int) -> None:
        with self._lock:
            if address not in self._level:
                self._forget_drained(now)
                if len(self._level) >= self.size:
                    address = self.OVERFLOW
            level = self._now_level(address, now) + 1
            self._level.pop(address, None)
            self._level[address] = (level, now)

    def _forget_drained(self, now: int) -> None:
        """Forget the oldest buckets that have drained (the table is kept in the order of the last failure)."""
        while len(self._level) >= self.size:
            oldest, (level, at) = next(iter(self._level.items()))
            if level - (now - at) / self.every_ms > 0:
                return
            del self._level[oldest]


class Throttled(Exception):
    """A secret presented while its address is throttled: answered with ``response`` (429)."""

    def __init__(self, response: Response) -> None:
        super().__init__("throttled")
        self.response = response


def secret_presented() -> None:
    """A route is about to check a secret that is not a token (a training session's code, issue 24): it is
    throttled as a token is (D50): refused with 429 while this address is throttled, before it is looked
    at, and its route's 401 counts as a wrong guess."""
    g.carried_secret = True
    refused = _refuse_while_throttled()
    if refused is not None:
        raise Throttled(refused)


def _carried_token() -> bool:
    """A token to guess with: a header's, a link's, a sign-in form's, or a cookie's that its CSRF token
    unlocks (a client chooses the cookies it sends, so a guess can come as a cookie too: D50, D54); or
    another secret its route presented (``secret_presented``)."""
    if g.get("carried_secret"):
        return True
    if request.headers.get("Authorization") or request.args.get("token"):
        return True
    if request.endpoint == "token_links.sign_in" and request.method == "POST":
        return bool(request.form.get("token"))
    return unlocked_cookie(sent_csrf()) is not None


def _address() -> str:
    return request.remote_addr or "?"


def _refuse_while_throttled() -> Response | None:
    if not _carried_token():
        return None
    throttle = services.THROTTLE()
    wait = throttle.wait_s(_address(), current_app.config["CLOCK"]())
    if wait == 0:
        return None
    message = f"too many wrong tokens from this address: try again in {wait} s"
    if request.path.startswith("/api/"):
        response = jsonify({"error": "too_many_requests", "message": message})
    else:
        words = gettext("Too many wrong tokens from this device: try again in %(seconds)s s.", seconds=wait)
        response = Response(words + "\n", mimetype="text/plain")
    response.status_code = 429
    response.headers["Retry-After"] = str(wait)
    return response


def _count_wrong_tokens(response: Response) -> Response:
    if response.status_code == 429 or not _carried_token():
        return response
    wrong = response.status_code == 401
    if request.method == "GET" and request.args.get("token") and not request.path.startswith("/api/"):
        # A page strips every token (D53, D154), marking the ones it refused: those, and any page that did not strip.
        wrong = response.status_code != 303 or "signin=refused" in response.headers.get("Location", "")
    if request.endpoint == "token_links.sign_in":
        wrong = "signin=refused" in response.headers.get("Location", "")
    if wrong:
        services.THROTTLE().failed(_address(), current_app.config["CLOCK"]())
    return response
