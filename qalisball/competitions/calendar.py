"""A competition's fixtures as a calendar (issue 30 item 4, API.md "The feed"): ``/competitions/<id>/fixtures.ics``.

RFC 5545 through the ``icalendar`` package: one ``VEVENT`` per fixture that has a time (a competition
without a start time keeps slots only: those have no place in a calendar), with

- a ``UID`` made of the competition's and the fixture's ids, which never change (D280);
- ``DTSTART`` and ``DTEND`` (the start plus the competition's slot) in UTC;
- ``SUMMARY`` "Home – Away", or the stage while its teams are not known; ``LOCATION`` the field;
- ``URL`` the fixture's public page: its match's spectator page once made, else the competition's page;
- ``SEQUENCE`` the times the fixture moved (D75's moves, counted from the competition log), so a calendar
  that subscribed replaces its copy of the event when the fixture moves.

``?team=<team id>``: that team's fixtures only (a team not in the competition is a 400 naming ``team``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import icalendar
from flask import Blueprint, Response, abort, current_app, jsonify, request, url_for

from qalisball.competitions import slots as competition_slots
from qalisball.competitions.pages import stage_word
from qalisball.competitions.service import Competition
from qalisball.match.service import NotFound

bp = Blueprint("competition_calendar", __name__)

PRODID = "-//Qalisball Live//fixtures//EN"


def _external(path: str) -> str:
    base = current_app.config.get("PUBLIC_URL")
    return (str(base).rstrip("/") if base else request.host_url.rstrip("/")) + path


def calendar(c: Competition, team: str | None = None) -> icalendar.Calendar:
    """The competition's fixtures (``team``'s only, when given) as an iCalendar."""
    svc = competition_slots.competition_service()
    view = svc.view(c)
    names = {tid: d["name"] for tid, d in view["team_details"].items()}
    slot = timedelta(minutes=int(c.config["slot_minutes"]))
    stamp = datetime.fromtimestamp(svc.clock() / 1000, UTC).replace(microsecond=0)
    cal = icalendar.Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", c.name if team is None else f"{c.name} · {names.get(team, team)}")
    moves = {f.id: f.moves for f in c.fixtures}
    for fx in view["fixtures"]:
        if not fx["starts_at"] or (team is not None and team not in (fx["home"], fx["away"])):
            continue
        start = datetime.fromisoformat(fx["starts_at"]).astimezone(UTC)
        ev = icalendar.Event()
        ev.add("uid", f"{c.id}-{fx['id']}@qalisball")
        ev.add("dtstamp", stamp)
        ev.add("dtstart", start)
        ev.add("dtend", start + slot)
        if fx["home"] and fx["away"]:
            summary = f"{names.get(fx['home'], fx['home'])} – {names.get(fx['away'], fx['away'])}"
        else:
            summary = stage_word(fx["stage"]) + (f" {fx['group']}" if fx["group"] else "")
        ev.add("summary", summary)
        if fx["field"]:
            ev.add("location", fx["field"])
        page = (
            url_for("pages.spectator", match_id=fx["match"]) if fx["match"] else url_for("competition_pages.public", comp_id=c.id)
        )
        ev.add("url", _external(page))
        ev.add("sequence", moves.get(fx["id"], 0))
        cal.add_component(ev)
    return cal


@bp.get("/competitions/<comp_id>/fixtures.ics")
def fixtures_ics(comp_id: str) -> Response:
    try:
        c = competition_slots.competition_service().get(comp_id)
    except NotFound:
        abort(404)
    team = request.args.get("team") or None
    if team is not None and team not in c.teams:
        answer = jsonify(
            {
                "error": "invalid",
                "message": "no such team in this competition",
                "fields": {"team": ["a team id of the competition"]},
            }
        )
        answer.status_code = 400
        return answer
    body = calendar(c, team).to_ical()
    name = f"{c.id}{'-' + team if team else ''}.ics"
    return Response(body, mimetype="text/calendar", headers={"Content-Disposition": f'inline; filename="{name}"'})
