"""The API's errors, for every feature (API.md "Errors"): one exception and the handlers that answer it.

A feature's blueprint raises ``ApiError`` (status, ``error`` code, message, extra fields such as
``fields`` or ``rule``) and calls ``answer_api_errors(bp)``; ``init_app`` installs the app-wide answers
(an organiser token missing or of the wrong kind, a refused write of the database, any HTTP error under
``/api/`` as JSON). Before issue 21 this lived in the match API and the other features imported it from there.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from qalisball.storage.store import StorageError
from qalisball.web.guards import OrganiserRequired
from qalisball.web.strict_json import BadBody, bad_body_answer


class ApiError(Exception):
    """An answer other than success: ``{"error": error, "message": message, **extra}`` with ``status``."""

    def __init__(self, status: int, error: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.extra = status, error, message, extra


def invalid(field: str, message: str) -> ApiError:
    """400 ``invalid`` naming one field (API.md's ``fields``)."""
    return ApiError(400, "invalid", message, fields={field: [message]})


def api_error_answer(exc: ApiError) -> tuple[Response, int]:
    return jsonify({"error": exc.error, "message": exc.message, **exc.extra}), exc.status


def answer_api_errors(bp: Blueprint, bad_bodies: bool = True) -> None:
    """Answer a blueprint's ``ApiError`` as JSON; ``bad_bodies``: also ``BadBody`` from the strict reader (D44, D151)."""
    bp.register_error_handler(ApiError, api_error_answer)
    if bad_bodies:
        bp.register_error_handler(BadBody, bad_body_answer)


def init_app(app: Flask) -> None:
    """The answers every route shares: 401/403 for the organiser check, 503/507 from storage, JSON under /api/."""
    app.register_error_handler(OrganiserRequired, _organiser_required)
    app.register_error_handler(StorageError, _storage_error)
    app.register_error_handler(HTTPException, _http_error)


def _organiser_required(exc: OrganiserRequired) -> tuple[Response, int]:
    error = "unauthorized" if exc.status == 401 else "forbidden"
    return jsonify({"error": error, "message": exc.message}), exc.status


def _storage_error(exc: StorageError) -> tuple[Response, int]:
    """503 ``unavailable`` (locked, read-only, I/O error) or 507 (disk full): nothing was stored."""
    response = jsonify({"error": exc.error, "message": exc.message})
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response, exc.status


def _http_error(exc: HTTPException) -> tuple[Response, int] | HTTPException:
    """JSON errors under /api/ (unknown routes and methods included); pages keep Flask's own."""
    if not request.path.startswith("/api/"):
        return exc
    code = exc.code or 500
    name = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(code, "error")
    return jsonify({"error": name, "message": exc.description}), code
