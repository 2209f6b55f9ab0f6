"""A token in a link becomes an HttpOnly cookie, and cookie writes need their CSRF token (issue 14; D53–D55).

- ``exchange``: a page opened with ``?token=`` (a console's QR code, ``/matches/<id>/officials``, ``/``,
  the organiser's competition and screen pages) whose token is valid answers ``303`` to the same address
  without it, setting the cookie: ``qb_organiser`` for the organiser token, ``qb_role_<match>_<role>`` for
  a match role's token (the address then names the role: ``?role=scorer``, so a tablet holding two roles
  of one match opens the one it was given). A token that is not valid is left to the page, which says so
  (and the throttle counts it).
- ``guard_writes``: a write (POST, PUT, PATCH, DELETE) that carries our cookies but not the CSRF token of
  one of them is refused, 403, before anything is read or stored. A Bearer header needs no CSRF token:
  browsers never add one by themselves.
- ``POST /forget-token``: the matches page's "forget the organiser token on this device".

The cookies are HttpOnly (no script reads them), SameSite=Strict (no other site's page sends them),
``Secure`` when the request came over HTTPS, and last a match week for a role, 30 days for the organiser.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, Flask, Response, jsonify, redirect, request, url_for
from flask_babel import gettext

from .credentials import CSRF_HEADER, ORGANISER_COOKIE, cookie_refused, role_cookie
from .web import is_organiser, service

ROLE_COOKIE_DAYS = 7
ORGANISER_COOKIE_DAYS = 30

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


def exchange() -> Response | None:
    if request.method != "GET" or "token" not in request.args or not _is_page():
        return None
    token = request.args.get("token", "")
    extra: dict[str, str] = {}
    if is_organiser(token):
        cookie, days = ORGANISER_COOKIE, ORGANISER_COOKIE_DAYS
    elif request.endpoint == "pages.console":  # a role token opens its console, and nothing else
        match_id = (request.view_args or {}).get("match_id")
        m = service().matches.get(str(match_id)) if match_id is not None else None
        role = m.role_of(token) if m is not None else None
        if m is None or role is None:
            return None  # the page answers "this token is not valid" (and the throttle counts it)
        cookie, days = role_cookie(m.id, role), ROLE_COOKIE_DAYS
        extra["role"] = role
    else:
        return None
    kept = [(k, v) for k, v in request.args.items(multi=True) if k not in ("token", "role")]
    query = urlencode(kept + list(extra.items()))
    response = redirect(request.path + (f"?{query}" if query else ""), 303)
    response.set_cookie(
        cookie,
        token,
        max_age=days * 86_400,
        path="/",
        secure=request.is_secure,
        httponly=True,
        samesite="Strict",
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def guard_writes() -> Response | None:
    if not cookie_refused():
        return None
    message = f"a write that a cookie authorises needs that cookie's CSRF token ({CSRF_HEADER} header or csrf field)"
    if request.path.startswith("/api/"):
        response = jsonify({"error": "forbidden", "message": message})
    else:
        words = gettext("This form has expired or did not come from this site: reload the page and try again.")
        response = Response(words + "\n", mimetype="text/plain")
    response.status_code = 403
    return response


@bp.post("/forget-token")
def forget() -> Response:
    """Forget the organiser token on this device (guarded like every cookie write: a CSRF field)."""
    response = redirect(url_for("pages.index"), 303)
    response.delete_cookie(ORGANISER_COOKIE, path="/", secure=request.is_secure, httponly=True, samesite="Strict")
    return response
