"""The arbitration committee's what-if pages (issue 24, SPEC C7): the what-if page of any match, and the
protest report that prints the two columns of the what-if a decision links (D188).

The what-if page is for the organiser or the match's referee (the API it calls needs one of them); it
reads the log and the event catalogue through the public API and posts to ``POST …/what-if``. From a
protest (``?competition=…&protest=…``) it also records the committee's decision with the what-if's
request. The report prints what was computed once, when the decision was stored (D251: replayed on the log
as it was when the committee looked, its ``seq``); a decision stored before that is computed on its first
reading and kept in memory (``whatif_api.Answers``), never on every GET.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, request
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from qalisball.competitions import slots as competition_slots
from qalisball.competitions import whatif_api
from qalisball.competitions.records import WHAT_IF_RECORD, Competition, Protest
from qalisball.match import slots as match_slots
from qalisball.match.service import Match, NotFound
from qalisball.web import credentials, i18n, rulebook
from qalisball.web.errors import ApiError
from qalisball.web.guards import held_role, organiser_cookie, token_refused
from qalisball.web.i18n import current_language

bp = Blueprint("whatif_pages", __name__)

# The page's words its script fills in (static/js/whatif/whatif.js).
STRINGS = {
    "amend": _l("Change this call"),
    "void": _l("Void this call"),
    "insert": _l("Insert a call after it"),
    "insert_start": _l("Insert a call at the start"),
    "actual": _l("As logged"),
    "what_if": _l("What if"),
    "score": _l("Score"),
    "shootout": _l("Shootout"),
    "winner": _l("Winner"),
    "none": _l("none"),
    "draw": _l("draw"),
    "restart_after": _l("Restart after the changed call"),
    "refused": _l("Later calls refused"),
    "standings": _l("Standings"),
    "points": _l("Pts"),
    "goal_difference": _l("GD"),
    "no_refusal": _l("Every later call still stands."),
    "pick_event": _l("Pick a call of the log first."),
    "decided": _l("Decision recorded with this what-if."),
    "report": _l("The protest report"),
    "player": _l("Player"),
    "spot_x": _l("Spot x (m)"),
    "spot_y": _l("Spot y (m)"),
    "reason": _l("Reason"),
    # An error the server answered, by its ``error`` code, in the page's language (D295): the server's
    # ``message`` is English but for a rule's refusal (409 ``rule``, worded in the request's language).
    "error_too_many_requests": _l("Too many what-ifs are being computed at once: try again in a moment."),
    "error_unauthorized": _l("This link's token is not valid for this match"),
    "error_forbidden": _l("Your role may not do this"),
    "error_not_found": _l("Not found"),
    "error_invalid": _l("Not accepted"),
    "error_conflict": _l("Not accepted: this protest has changed since the page was opened; reload the page."),
    "error_unavailable": _l("Nothing was stored: the server's database is busy or read-only; try again in a moment."),
    "error_damaged": _l("Nothing was stored: the server's database is read-only; restore the latest backup."),
    "error_too_large": _l("Not accepted: the request is too large."),
    "error_other": _l("The server did not answer ({status}): try again in a moment."),
}


@bp.get("/matches/<match_id>/what-if")
def what_if(match_id: str) -> str:
    m = _match(match_id)
    csrf, allowed = _credentials(m)
    protest = _protest_of(m)
    page: dict[str, Any] = {
        "match": m.id,
        "teams": {t: m.setup.team(t).name for t in ("home", "away")},  # type: ignore[arg-type]
        "allowed": allowed,
        "csrf": csrf,
        "token_rejected": token_refused(),
        "protest": protest,
        "lang": current_language(),
        "strings": {k: str(v) for k, v in STRINGS.items()},
        "vocab": i18n.vocabulary(m.setup.rules.rule_set),
    }
    return render_template("competitions/whatif.html", m=m, page=page, protest=protest)


@bp.get("/competitions/<comp_id>/protests/<pid>/report")
def protest_report(comp_id: str, pid: str) -> str:
    """The protest, the committee's decision and, when it links a what-if, both columns (D188)."""
    comps = competition_slots.COMPETITIONS.find()
    try:
        c = comps.get(comp_id) if comps is not None else None
    except NotFound:
        c = None
    p = next((x for x in c.protests if x.id == pid), None) if c is not None else None
    if c is None or p is None:
        abort(404)
    assert comps is not None and c is not None and p is not None

    def render() -> str:
        link = (p.decision or {}).get("what_if")
        columns, problem = _columns(p.decision or {}, link) if link else (None, None)
        names = {t: comps.teams[t].name if t in comps.teams else t for t in c.teams}
        return render_template(
            "competitions/_protest_report_body.html",
            c=c,
            p=p,
            fixture=c.fixture(p.fixture),
            team_name=names.get(p.team, p.team),
            columns=columns,
            problem=problem,
            link=link,
            rule_title=lambda rule: rulebook.title(rule, current_language()),
            vocab=i18n.vocabulary(),
        )

    # The body once per change and language (D253): a long match's report is some hundred refused calls.
    body = Markup(comps.cached_part(c, f"protest:{p.id}:{current_language()}", render))
    return render_template("competitions/protest_report.html", c=c, body=body)


def _match(match_id: str) -> Match:
    m = match_slots.match_service().matches.get(match_id)
    if m is None:
        abort(404)
    return m


def _credentials(m: Match) -> tuple[str | None, bool]:
    """The CSRF token of the cookie this device may ask a what-if with: the organiser's, or the match's
    referee's (API.md: the organiser token, or that match's referee token)."""
    token = organiser_cookie()
    if token is None:
        held = held_role(m, "referee")
        token = held[1] if held is not None else None
    return (credentials.csrf_for(token), True) if token else (None, False)


def _protest_of(m: Match) -> dict[str, Any] | None:
    """The protest the page was opened from (``?competition=&protest=``), when it is about this match."""
    comps = competition_slots.COMPETITIONS.find()
    comp_id, protest_id = request.args.get("competition"), request.args.get("protest")
    if comps is None or not comp_id or not protest_id:
        return None
    try:
        c: Competition = comps.get(comp_id)
    except NotFound:
        return None
    p: Protest | None = next((x for x in c.protests if x.id == protest_id), None)
    f = c.fixture(p.fixture) if p is not None else None
    if p is None or f is None or f.match_id != m.id:
        return None
    return {
        "teams": {"home": f.home, "away": f.away},  # the competition's team ids, for a decided result
        "competition": c.id,
        "id": p.id,
        "team": comps.held_teams[p.team].name if p.team in comps.held_teams else p.team,
        "text": p.text,
        "decided": p.decision is not None,
        "decision_url": f"/api/competitions/{c.id}/protests/{p.id}/decision",
        "report_url": f"/competitions/{c.id}/protests/{p.id}/report",
    }


def _columns(decision: dict[str, Any], link: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """Both outcomes of the linked what-if, as computed when the decision was stored (D251); or why not."""
    m = match_slots.match_service().matches.get(link.get("match", ""))
    if m is None:
        return None, str(_l("The match of this what-if is not in this database."))
    record = decision.get(WHAT_IF_RECORD)
    if not isinstance(record, dict) or record.get("match") != m.id or record.get("seq") != link.get("seq"):
        try:  # a decision stored before D251: computed once, then kept in memory
            record = whatif_api.decision_record(m, link, caller="report")
        except ApiError as exc:
            return None, exc.message
    language = current_language()
    body = {
        **record,
        "refused": [{**r, "message": (r.get("message") or {}).get(language, "")} for r in record.get("refused", [])],
        "names": {t: m.setup.team(t).name for t in ("home", "away")},  # type: ignore[arg-type]
    }
    return body, None
