"""The HTTP API of API.md: thin handlers — authorise, validate, hand to the service, answer.

Checks run in API.md's order: 401/403, 404, 400, 409 ``conflict``, 409 ``rule``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request
from marshmallow import ValidationError

from qalisball.match import devices
from qalisball.match import live as match_live
from qalisball.match import slots as match_slots
from qalisball.match.schemas import MatchSchema, parse_event
from qalisball.match.service import Conflict, Forbidden, Match, NotFound
from qalisball.match.validation_words import fields_answer
from qalisball.rules.catalogue import ROLES
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.state import MatchSetup
from qalisball.web import refusal_words
from qalisball.web.errors import ApiError, answer_api_errors
from qalisball.web.guards import is_organiser, organiser_required, request_token
from qalisball.web.i18n import current_language
from qalisball.web.strict_json import SIGNED_LIMIT, BadBody, read_json

bp = Blueprint("api", __name__, url_prefix="/api")
answer_api_errors(bp, bad_bodies=False)  # a bad body is read through _json_body, which says so as ApiError


def _json_body(signed_limit: int | None = None) -> Any:
    """The body as strict JSON (strict_json.py): 413 over the size limit, 400 for anything not plain UTF-8 JSON."""
    try:
        return read_json(request, signed_limit=signed_limit)
    except BadBody as exc:
        extra = {"fields": {"_schema": [exc.message]}} if exc.status == 400 else {}
        raise ApiError(exc.status, exc.error, exc.message, **extra) from exc


@bp.post("/matches")
@organiser_required
def create_match() -> tuple[Response, int]:
    body = _json_body()
    try:
        data = MatchSchema().load(body)
    except ValidationError as exc:
        raise ApiError(400, "invalid", "the match does not fit the schema", **fields_answer(exc.normalized_messages())) from exc
    m = match_slots.match_service().create(data)
    return jsonify({"id": m.id, "tokens": m.tokens}), 201


@bp.get("/matches")
def list_matches() -> Response:
    svc = match_slots.match_service()
    origin = match_slots.ORIGIN.find()
    out = [svc.summary(m) for m in svc.matches.values()]
    if origin is not None:  # a league's central: a venue's match names its venue (API.md "The league")
        for summary in out:
            summary["venue"] = origin(summary["id"]) or summary["venue"]
    return jsonify(out)


def _match(match_id: str) -> Match:
    try:
        return match_slots.match_service().get(match_id)
    except NotFound as exc:
        raise ApiError(404, "not_found", str(exc)) from exc


@bp.get("/matches/<match_id>")
def get_match(match_id: str) -> Response:
    return jsonify(match_slots.match_service().state(_match(match_id)))


@bp.get("/matches/<match_id>/events")
def get_events(match_id: str) -> Response:
    return jsonify(match_slots.match_service().log(_match(match_id)))


@bp.post("/matches/<match_id>/events")
def post_event(match_id: str) -> tuple[Response, int]:
    svc = match_slots.match_service()
    token = request_token()
    m = svc.matches.get(match_id)
    role = m.role_of(token) if m is not None else None
    if role is None and is_organiser(token):
        role = "organiser"  # may only reopen a signed match (M6)
    if role is None:
        raise ApiError(401, "unauthorized", "no token, or a token that is not valid for this match")
    if m is None:
        raise ApiError(404, "not_found", f"no match {match_id}")
    body = _json_body(signed_limit=SIGNED_LIMIT)  # a signature may make an event larger (API.md "Match day")
    try:
        svc.authorise(role, body)
    except Forbidden as exc:
        if role == "organiser":
            raise ApiError(403, "forbidden", "the organiser token does not officiate: use a role token") from exc
        raise ApiError(403, "forbidden", str(exc)) from exc
    dry_run = request.args.get("dry_run", "").lower() in ("1", "true", "yes")
    try:
        parsed = parse_event(body)
        outcome = svc.submit(m, role, body, parsed, dry_run=dry_run)
    except ValidationError as exc:
        raise ApiError(400, "invalid", "the event does not fit the schema", fields=exc.normalized_messages()) from exc
    except InvalidEvent as exc:
        raise ApiError(400, "invalid", str(exc), fields=exc.fields) from exc
    except NotFound as exc:
        raise ApiError(404, "not_found", str(exc)) from exc
    except Conflict as exc:
        raise ApiError(409, "conflict", str(exc), seq=m.seq) from exc
    except RuleViolation as exc:  # a late call's ``fits_after`` (M1 with M3) comes from the service
        raise _rule_error(exc, m.setup) from exc
    return jsonify(outcome.body), outcome.status


@bp.get("/matches/<match_id>/devices")
def get_devices(match_id: str) -> Response:
    """The officials' consoles connected now (API.md "Match day"): organiser or referee token.

    ``[{"role", "device", "connected_at", "last_seen", "queued"}]``, by role; two consoles on one
    role are both listed (the screens warn about it).
    """
    token = request_token()
    m = match_slots.match_service().matches.get(match_id)
    role = m.role_of(token) if m is not None else None
    if not is_organiser(token):
        if role is None:
            raise ApiError(401, "unauthorized", "no token, or a token that is not valid for this match")
        if role != "referee":
            raise ApiError(403, "forbidden", f"the {role} may not list the match's devices: the referee or the organiser may")
    if m is None:
        raise ApiError(404, "not_found", f"no match {match_id}")
    return jsonify(devices.listing(devices.devices(), m.id))


@bp.post("/matches/<match_id>/tokens/<role>")
@organiser_required
def issue_token(match_id: str, role: str) -> tuple[Response, int]:
    """A new token for ``role`` (API.md "Match day"): 200 ``{"token"}``; the old one answers 401 from now on."""
    m = _match(match_id)
    if role not in ROLES:
        raise ApiError(404, "not_found", f"no role {role!r}; one of: {', '.join(ROLES)}")
    token = match_live.live().reissue(m, role)  # the form's path too (D158)
    return jsonify({"token": token}), 200


def _rule_error(exc: RuleViolation, setup: MatchSetup) -> ApiError:
    """409 ``rule``: ``message`` in the official's language (English as API.md; ``message_en`` when not), and
    the refusal's ``template`` and ``params`` for the console's renderer (D200)."""
    words = refusal_words.wire(exc)  # D200: the console renders it in its own language, teams by their names
    if current_language() == "en":
        return ApiError(409, "rule", exc.message, rule=exc.rule, **exc.details, **words)
    return ApiError(409, "rule", localised_refusal(exc, setup), rule=exc.rule, message_en=exc.message, **exc.details, **words)


def localised_refusal(exc: RuleViolation, setup: MatchSetup) -> str:
    """The refusal's template translated and filled in, teams by their names (the one renderer)."""
    return refusal_words.refusal(exc, setup)
