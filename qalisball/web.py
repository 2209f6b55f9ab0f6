"""The web layer's one way to reach the service and check the organiser (flaskr's ``get_db`` and ``login_required``).

Every blueprint (API, pages, reports, competitions) takes the service and the caller's token from here.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import current_app, request

from .service import MatchService
from .tokens import usable

F = TypeVar("F", bound=Callable[..., Any])


def service() -> MatchService:
    """The match service of this app (created once in ``create_app``)."""
    svc: MatchService = current_app.extensions["qalisball"]
    return svc


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if any."""
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[len("Bearer ") :].strip() or None
    return None


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
        token = bearer_token()
        if not is_organiser(token):
            if token and service().role_for_any_match(token) is not None:
                raise OrganiserRequired(403, "a match official's token cannot do this: use the organiser token")
            raise OrganiserRequired(401, "this needs the organiser token")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]
