"""A token in a link becomes an HttpOnly cookie, and cookie writes need their CSRF token (issue 14; D53–D55).

- ``exchange``: a page opened with ``?token=`` (a console's QR code, ``/matches/<id>/officials``, ``/``,
  the organiser's competition and screen pages) whose token is valid answers ``303`` to the same address
  without it, setting the cookie: ``qb_organiser`` for the organiser token, ``qb_role_<match>_<role>`` for
  a match role's token on its console (the address then names the role: ``?role=scorer``, so a tablet
  holding two roles of one match opens the one it was given). Every other page with ``?token=`` answers
  ``303`` without it too (D154): a role's token of that match (on the scoreboard) is just dropped; a token
  that is not valid adds ``?signin=refused``, so the page says so (and the throttle counts it).
- ``POST /sign-in``: the sign-in forms (``token``, ``next``, and ``match`` on a console's token page) do
  the same without putting the token in an address at all.
- ``guard_writes``: a write (POST, PUT, PATCH, DELETE) that carries our cookies but not the CSRF token of
  one of them is refused, 403, before anything is read or stored. A Bearer header needs no CSRF token:
  browsers never add one by themselves.
- ``POST /forget-token``: the matches page's "forget the organiser token on this device" (its CSRF token
  required even without a cookie, so no other site can sign the organiser out).

The cookies are HttpOnly (no script reads them), SameSite=Lax (no other site's form, fetch or frame sends
them; a link followed from another site still opens the console: D53), ``Secure`` and ``__Host-`` named
when the request came over HTTPS, and last a match week for a role, 30 days for the organiser.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, jsonify, redirect, request, url_for
from flask_babel import gettext

from qalisball.web.credentials import (
    CSRF_HEADER,
    HOST_PREFIX,
    ORGANISER_COOKIE,
    cookie_name,
    cookie_refused,
    role_cookie,
    sent_csrf,
    unlocked_cookie,
)
from qalisball.web.guards import is_organiser
from qalisball.web.services import officials

ROLE_COOKIE_DAYS = 7
ORGANISER_COOKIE_DAYS = 30
SIGN_IN_REFUSED = "refused"  # ``?signin=refused``: the page says the token was not accepted

bp = Blueprint("token_links", __name__)


def init_app(app: Flask) -> None:
    """Hooks run after the throttle's (a throttled address exchanges nothing)."""
    app.before_request(guard_writes)
    app.before_request(exchange)
    app.register_blueprint(bp)


def _is_page() -> bool:
    """Pages take ``?token=``; the API and static files never do (the API reads a Bearer header)."""
    endpoint = request.endpoint or ""
    return bool(endpoint) and endpoint != "static" and not request.path.startswith(("/api/", "/static/"))


def _cookie_for(token: str, match_id: str | None) -> tuple[str, int, str | None] | None:
    """``(cookie, days, role)`` that ``token`` is kept under, or None when it is not valid here.

    The organiser's token anywhere; a role's only for its own match's console (``match_id``).
    """
    if is_organiser(token):
        return ORGANISER_COOKIE, ORGANISER_COOKIE_DAYS, None
    m = officials().matches.get(match_id) if match_id is not None else None
    role = m.role_of(token) if m is not None else None
    if m is None or role is None:
        return None
    return role_cookie(m.id, role), ROLE_COOKIE_DAYS, role


def _keep(response: Response, cookie: str, token: str, days: int) -> Response:
    response.set_cookie(
        cookie_name(cookie, request.is_secure),
        token,
        max_age=days * 86_400,
        path="/",
        secure=request.is_secure,
        httponly=True,
        samesite="Lax",
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def exchange() -> Response | None:
    """Every page opened with ``?token=`` answers ``303`` to itself without it (D53, D154): a token never stays
    in the address bar, the history or the language links, whether it is kept, only dropped, or refused."""
    if request.method != "GET" or "token" not in request.args or not _is_page():
        return None
    view_args = dict(request.view_args or {})
    token = request.args.get("token", "")
    match_id = str(view_args["match_id"]) if "match_id" in view_args else None
    found = _cookie_for(token, match_id if request.endpoint == "pages.console" else None)
    # Never a name url_for takes as its own (``_external``, ``_scheme``, ``_anchor``, ``_method``): a 500, or another site.
    dropped = ("token", "signin", *view_args)
    kept = {k: request.args.getlist(k) for k in request.args if k not in dropped and not k.startswith("_")}
    if found is None:
        # A role's token of this match on a page that does not take it (the scoreboard) is dropped; any other is
        # refused: the page says so (``?signin=refused``, as a sign-in form's), and the throttle counts it (D50).
        if not _of_match(token, match_id):
            kept["signin"] = [SIGN_IN_REFUSED]
        response = redirect(url_for(str(request.endpoint), **view_args, **kept), 303)
        response.headers["Cache-Control"] = "no-store"
        return response
    cookie, days, role = found
    kept.pop("role", None)
    if role is not None:
        kept["role"] = [role]
    # Built again from the route (never from the raw path): encoded, and under the app's script root.
    target = url_for(str(request.endpoint), **view_args, **kept)
    return _keep(redirect(target, 303), cookie, token, days)


def _of_match(token: str, match_id: str | None) -> bool:
    """Whether ``token`` is one of the roles' tokens of match ``match_id``."""
    m = officials().matches.get(match_id) if match_id is not None else None
    return m is not None and m.role_of(token) is not None


def _local(target: str | None, fallback: str) -> str:
    """``target`` if it is an address of this site (a path), else ``fallback``: never an open redirect."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return fallback
    parts = urlsplit(target)
    return fallback if parts.scheme or parts.netloc or any(c in target for c in "\r\n") else target


@bp.post("/sign-in")
def sign_in() -> Response:
    """A sign-in form's token, kept as ``exchange`` keeps a link's; back to ``next`` (``?signin=refused`` if not valid)."""
    token = request.form.get("token", "").strip()
    match_id = request.form.get("match") or None
    found = _cookie_for(token, match_id)
    if found is None:
        back = _local(request.form.get("next"), url_for("pages.index"))
        return redirect(back + ("&" if "?" in back else "?") + f"signin={SIGN_IN_REFUSED}", 303)
    cookie, days, role = found
    if role is not None and match_id is not None:
        target = url_for("pages.console", match_id=match_id, role=role)
    else:
        target = _local(request.form.get("next"), url_for("pages.index"))
    return _keep(redirect(target, 303), cookie, token, days)


def guard_writes() -> Response | None:
    if request.endpoint == "token_links.sign_in" or not cookie_refused():
        return None  # a sign-in brings its own token (it needs no cookie's CSRF token)
    message = f"a write that a cookie authorises needs that cookie's CSRF token ({CSRF_HEADER} header or csrf field)"
    return _forbidden(message)


def _forbidden(message: str) -> Response:
    if request.path.startswith("/api/"):
        response = jsonify({"error": "forbidden", "message": message})
    else:
        words = gettext("This form has expired or did not come from this site: reload the page and try again.")
        response = Response(words + "\n", mimetype="text/plain")
    response.status_code = 403
    return response


@bp.post("/forget-token")
def forget() -> Response:
    """Forget the organiser token on this device: only with the CSRF token of a cookie it holds (D55)."""
    if unlocked_cookie(sent_csrf()) is None:
        return _forbidden("forgetting the organiser token needs its CSRF token (csrf field)")
    response = redirect(url_for("pages.index"), 303)
    for name in (ORGANISER_COOKIE, HOST_PREFIX + ORGANISER_COOKIE):
        response.delete_cookie(
            name, path="/", secure=name.startswith(HOST_PREFIX) or request.is_secure, httponly=True, samesite="Lax"
        )
    return response
