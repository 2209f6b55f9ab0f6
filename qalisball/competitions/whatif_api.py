"""The arbitration committee's what-if over HTTP (API.md "Training and what-if", issue 24, SPEC C7).

``POST /api/matches/<id>/what-if`` replays a copy of the match's log with the changes posted (amends,
voids, inserts, validated exactly as the events endpoint validates them) and answers both outcomes, the
later events the changed log refuses, and, for a match of a competition, the standings under each
outcome. Nothing is stored: the match's log, seq and state never change (``rules/whatif.py`` is pure).
It lives with the competitions because the committee is theirs and the standings are theirs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from marshmallow import ValidationError

from qalisball.match.schemas import parse_event
from qalisball.match.service import Match
from qalisball.rules import whatif
from qalisball.rules.competition.standings import MatchOutcome
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.state import MatchSetup, MatchState, Restart
from qalisball.rules.view import public_state
from qalisball.web import refusal_words, services
from qalisball.web.errors import ApiError, answer_api_errors
from qalisball.web.guards import is_organiser, request_token
from qalisball.web.i18n import current_language
from qalisball.web.strict_json import read_json

bp = Blueprint("whatif_api", __name__, url_prefix="/api")
answer_api_errors(bp)
MAX_CHANGES = 20
# Refusal parameters that name a team (as the match API words them).


def init_app(app: Flask) -> None:
    """The what-if API, and its pages: the what-if page and the protest report (``whatif_pages.py``)."""
    app.register_blueprint(bp)
    from qalisball.competitions import whatif_pages

    app.register_blueprint(whatif_pages.bp)


@bp.post("/matches/<match_id>/what-if")
def what_if(match_id: str) -> Response:
    svc = services.match_service()
    token = request_token()
    m = svc.matches.get(match_id)
    organiser = is_organiser(token)
    role = m.role_of(token) if m is not None else None
    if not organiser and role is None:
        raise ApiError(401, "unauthorized", "no token, or a token that is not valid for this match")
    if not organiser and role != "referee":
        raise ApiError(403, "forbidden", f"the {role} may not open a what-if: the referee or the organiser may")
    if m is None:
        raise ApiError(404, "not_found", f"no match {match_id}")
    changes = _changes(read_json(request))
    seqs = {e.seq for e in m.log}
    for c in changes:
        if c.place not in seqs and not (c.kind == "insert" and c.place == 0):
            raise ApiError(404, "not_found", f"no event {c.place} in match {m.id}")
    try:
        return jsonify(compare(m, changes))
    except InvalidEvent as exc:
        raise ApiError(400, "invalid", str(exc), fields=exc.fields) from exc
    except RuleViolation as exc:
        raise _rule_error(exc, m.setup) from exc


def compare(m: Match, changes: list[whatif.Change], upto: int | None = None) -> dict[str, Any]:
    """API.md's answer: both outcomes of ``m``'s log (its first ``upto`` events: the log the committee
    looked at, D188) and of the log with ``changes``. Raises as ``whatif.what_if`` does."""
    log = m.log if upto is None else _prefix(m.log, upto)
    w = whatif.what_if(m.setup, log, changes, by="referee")
    now = services.match_service().clock()
    seq = log[-1].seq if log else 0
    body: dict[str, Any] = {
        "actual": public_state(w.actual.state, now, m.id, seq, legal=False),
        "what_if": public_state(w.what_if.state, now, m.id, seq, legal=False),
        "refused": [
            {"seq": r.seq, "type": r.type, "rule": r.rule, "message": _words(r.template, dict(r.params), m.setup)}
            for r in w.what_if.refused
        ],
        # Extras (docs/api-extras.md): the restart that stood right after the changed call, each way.
        "restart_after": {"actual": _restart(w.actual.restart_after), "what_if": _restart(w.what_if.restart_after)},
    }
    standings = _standings(m, w.what_if.state)
    if standings is not None:
        body["standings"] = standings
    return body


def parse_changes(raw: Any) -> list[whatif.Change]:
    """A stored what-if request's changes (a decision's link, D188), read as the API reads them."""
    return _changes({"changes": raw})


def _prefix(log: list[Any], n: int) -> list[Any]:
    """The first ``n`` events, without the marks of voids that are not among them (as a report at seq n)."""
    return [
        dataclasses.replace(e, voided_by=None) if e.voided_by is not None and e.voided_by > n else e for e in log if e.seq <= n
    ]


def _changes(body: Any) -> list[whatif.Change]:
    if not isinstance(body, dict) or not isinstance(body.get("changes"), list) or not body["changes"]:
        raise ApiError(
            400, "invalid", "changes: a list of amend, void or insert bodies", fields={"changes": ["a non-empty list"]}
        )
    if len(body["changes"]) > MAX_CHANGES:
        raise ApiError(400, "invalid", f"at most {MAX_CHANGES} changes", fields={"changes": [f"at most {MAX_CHANGES}"]})
    out: list[whatif.Change] = []
    for i, raw in enumerate(body["changes"]):
        if not isinstance(raw, dict) or raw.get("type") not in whatif.CHANGE_KINDS:
            raise ApiError(
                400,
                "invalid",
                "a change is an amend, a void or an insert",
                fields={f"changes.{i}.type": ["amend, void or insert"]},
            )
        try:
            parsed = parse_event(raw)  # exactly as posted to events (400 with the same fields)
        except ValidationError as exc:
            messages = exc.normalized_messages()
            fields = (
                {f"changes.{i}.{k}": v for k, v in messages.items()} if isinstance(messages, dict) else {f"changes.{i}": messages}
            )
            raise ApiError(400, "invalid", "a change does not fit the schema", fields=fields) from exc
        out.append(whatif.Change(parsed.type, parsed.event.fields()))  # type: ignore[arg-type]
    return out


def _standings(m: Match, changed: MatchState) -> dict[str, Any] | None:
    comps = services.COMPETITIONS.find()
    place = comps.fixture_of(m.id) if comps is not None else None
    if comps is None or place is None:
        return None
    c = comps.get(place[0])
    so = changed.shootout
    outcome = MatchOutcome(
        changed.phase,
        (changed.score["home"], changed.score["away"]),
        (so.score["home"], so.score["away"]) if so is not None else None,
        changed.winner,
    )
    return {"actual": comps.standings(c), "what_if": comps.standings_if(c, {m.id: outcome})}


def _restart(r: Restart | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"type": r.type, "team": r.team, "spot": r.spot.as_dict(), "rule": r.why.rule if r.why else None}


def _rule_error(exc: RuleViolation, setup: MatchSetup) -> ApiError:
    """409 ``rule`` as the events endpoint answers it: the message in the caller's language."""
    message = _words(exc.template, exc.params, setup)
    if current_language() == "en":
        return ApiError(409, "rule", message, rule=exc.rule, **exc.details)
    return ApiError(409, "rule", message, rule=exc.rule, message_en=exc.message, **exc.details)


def _words(template: str, params: dict[str, object], setup: MatchSetup) -> str:
    return refusal_words.render(template, params, setup)
