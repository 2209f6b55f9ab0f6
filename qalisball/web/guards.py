"""The web layer's organiser check and the caller's token (flaskr's ``login_required``).

Every blueprint (API, pages, reports, competitions) takes the caller's token from here (a Bearer
header, or a cookie unlocked by its CSRF token: ``credentials.py``). Which match role a token is comes from
``services.officials()``: what the matches answer this kernel (``services.Officials``), handed by the
composition root; this module names no feature (issue 28 item 4, D320).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import current_app, request

from qalisball.rules.catalogue import ROLES
from qalisball.storage.tokens import usable
from qalisball.web import credentials
from qalisball.web.services import OfficiatedMatch, officials

F = TypeVar("F", bound=Callable[..., Any])


def request_token() -> str | None:
    """The caller's token: ``Authorization: Bearer``, or a cookie with its CSRF token (``credentials.py``)."""
    return credentials.request_token()


def is_organiser(token: str | None) -> bool:
    """Whether ``token`` is this installation's organiser token (compared in constant time).

    A token that is not ASCII (header or ``?token=``) is no token: False, never an error (issue 14).
    """
    candidate = usable(token)
    admin = current_app.config["ADMIN_TOKEN"]
    return candidate is not None and secrets.compare_digest(candidate.encode(), str(admin).encode("utf-8"))


class OrganiserRequired(Exception):
    """No organiser token (401), or a match role's token where the organiser's is needed (403)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def organiser_required(view: F) -> F:
    """The API's organiser check: 401 without a valid token, 403 for a match role's token."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        token = request_token()
        if not is_organiser(token):
            if token and officials().role_for_any_match(token) is not None:
                raise OrganiserRequired(403, "a match official's token cannot do this: use the organiser token")
            raise OrganiserRequired(401, "this needs the organiser token")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def organiser_cookie() -> str | None:
    """The organiser token this device keeps in its cookie (``token_links.py``), if it is still valid."""
    token = credentials.request_cookie(credentials.ORGANISER_COOKIE)
    return token if is_organiser(token) else None


def held_role(m: OfficiatedMatch, wanted: str | None = None) -> tuple[str, str] | None:
    """``(role, token)`` of a role of match ``m`` that this device keeps a valid cookie for.

    ``wanted`` (the console's ``?role=``) only, when it names a role: a tablet that does not hold it is not
    given another role's console under that address. Without it, the first role held in the rule book's
    order (a tablet normally holds one role of a match).
    """
    for role in [wanted] if wanted in ROLES else ROLES:
        token = credentials.request_cookie(credentials.role_cookie(m.id, role))
        if token is not None and m.role_of(token) == role:
            return role, token
    return None


def organiser_page_data() -> dict[str, Any]:
    """What an organiser's page hands its script: whether this device holds the organiser's cookie, that
    cookie's CSRF token (D54), and whether the link's ``?token=`` was refused (a valid one was exchanged)."""
    token = organiser_cookie()
    return {
        "organiser": token is not None,
        "csrf": credentials.csrf_for(token) if token else None,
        "token_rejected": token_refused(),
    }


def token_refused() -> bool:
    """Whether this page was opened with a token that was not accepted: a link's ``?token=`` still here
    (a valid one was exchanged, D53), or a sign-in form's, sent back with ``?signin=refused``."""
    return "token" in request.args or request.args.get("signin") == "refused"
