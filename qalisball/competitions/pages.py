"""The competition pages (issue 12), rendered on the server, then live over Socket.IO.

- ``/competitions``: every competition; for the organiser, kept teams (CSV import/export; 50 a page,
  each team's roster form fetched when its card opens: ``/competitions/teams/<id>``), officials and a
  form to create a competition (its team checkboxes fetched when it opens: ``/competitions/teams``).
- ``/competitions/<id>``: the public page: fixtures by time and field with live scores, standings per
  group, the bracket drawn as a bracket, top scorers.
- ``/competitions/<id>/screen``: the venue's big screen: live matches, latest results, standings, next up, in turn.
- ``/competitions/<id>/admin``: the organiser's page: officials, lineups and the match of each fixture,
  forfeits, protests and decisions, lots, suspensions.
- ``/competitions/<id>/standings``: the standings to print.

One renderer: the pages' live parts are Jinja templates; when results change (the ``competition``
message) the script fetches the same part again (``…/part``) instead of drawing it a second time in
JavaScript. Between those, ``fixture`` messages update a match's score and clock in place. The public
parts are rendered once per change and language for every reader (``_part``, D253).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint, abort, current_app, render_template, request, url_for
from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from qalisball.competitions import slots as competition_slots
from qalisball.competitions.service import LEAGUE, Competition
from qalisball.match.service import NotFound
from qalisball.rules.competition import moves
from qalisball.web import i18n, rulebook
from qalisball.web.guards import organiser_page_data

bp = Blueprint("competition_pages", __name__)

STATUSES = {
    "scheduled": _l("Scheduled"),
    "live": _l("Live"),
    "finished": _l("Finished"),
    "forfeit": _l("Forfeit"),
    "abandoned": _l("Abandoned"),
}
STAGES = {
    "group": _l("Group stage"),
    "round_of_16": _l("Round of 16"),
    "round_of_32": _l("Round of 32"),
    "quarter_final": _l("Quarter-final"),
    "semi_final": _l("Semi-final"),
    "third_place": _l("Third-place match"),
    "final": _l("Final"),
}
FORMATS = {
    "round_robin": _l("Round robin"),
    "double_round_robin": _l("Double round robin"),
    "groups_knockout": _l("Groups, then knockout"),
    "knockout": _l("Knockout"),
}
TIEBREAKS = {
    "head_to_head": _l("head-to-head"),
    "goal_difference": _l("goal difference"),
    "goals_for": _l("goals scored"),
    "lots": _l("drawing of lots"),
    "unresolved": _l("level: lots to be drawn"),
}
ROLES = {
    "referee": _l("Referee"),
    "assistant1": _l("Assistant referee 1"),
    "assistant2": _l("Assistant referee 2"),
    "scorer": _l("Scorer"),
}
# Sentences the organiser's and the public scripts show after the first render.
_JS = {
    "saved": _l("Saved"),
    "failed": _l("Not accepted"),
    "load_failed": _l("Could not load this fixture: check the connection and open it again."),
    "team_load_failed": _l("Could not load this team: check the connection and open it again."),
    "offline": _l("Offline: reconnecting…"),
    "token_needed": _l("Enter the organiser token to make changes"),
    "token_rejected": _l("The organiser token was not accepted"),
    "confirm_forfeit": _l("Declare that {team} forfeits this match?"),
    "match_made": _l("Match created"),
    "starters_count": _l("Choose exactly {n} starters"),
}


competitions = competition_slots.competition_service


def _competition(comp_id: str) -> Competition:
    try:
        return competitions().get(comp_id)
    except NotFound:
        abort(404)


def words() -> dict[str, dict[str, str]]:
    groups = {"status": STATUSES, "stage": STAGES, "format": FORMATS, "tiebreak": TIEBREAKS, "role": ROLES}
    return {name: {k: str(v) for k, v in w.items()} for name, w in groups.items()}


def stage_word(stage: str) -> str:
    if stage in STAGES:
        return str(STAGES[stage])
    return gettext("Round of %(n)s", n=stage.rsplit("_", 1)[-1])


@bp.app_template_filter("hhmm")
def hhmm(iso: str | None) -> str:
    return datetime.fromisoformat(iso).strftime("%H:%M") if iso else ""


@bp.app_template_filter("day")
def day(iso: str | None) -> str:
    return datetime.fromisoformat(iso).strftime("%Y-%m-%d") if iso else ""


# ---------------------------------------------------------------------------------------------
# What the templates render from


def context(c: Competition) -> dict[str, Any]:
    """The competition as the pages show it: the API's view, arranged by time, field, group and round."""
    svc = competitions()
    view = svc.view(c)
    details = view["team_details"]
    fields = [f["name"] for f in c.config["fields"]]

    def name(tid: str | None) -> str | None:
        return details[tid]["name"] if tid and tid in details else None

    def place(fx: dict[str, Any], side: str) -> str:
        """A team's name, or what the place waits for: "A1", "Winner of #13"."""
        known = name(fx[side])
        if known:
            return known
        label = fx[f"{side}_from"] or ""
        if label.startswith("W"):
            return gettext("Winner of #%(n)s", n=label[1:])
        if fx["stage"] == "third_place":  # its places are the semi-finals' losers, "L<n>" (D76)
            return gettext("Loser of #%(n)s", n=label[1:])
        return gettext("Group %(group)s, #%(rank)s", group=label[:1], rank=label[1:]) if label else "?"

    fixtures = view["fixtures"]
    for fx in fixtures:
        fx["home_name"], fx["away_name"] = place(fx, "home"), place(fx, "away")
        fx["stage_word"] = stage_word(fx["stage"])
    # The schedule grid: one row per start time (per slot when the competition has no times), one column
    # per field. A rescheduled fixture (D75) sits in the row of its new time.
    rows: dict[tuple[float, int], dict[str, Any]] = {}
    for fx in fixtures:
        key = (datetime.fromisoformat(fx["starts_at"]).timestamp(), 0) if fx["starts_at"] else (float("inf"), fx["slot"])
        row = rows.setdefault(key, {"slot": fx["slot"], "starts_at": fx["starts_at"], "cells": [None] * len(fields)})
        if fx["field_index"] < len(fields):
            row["cells"][fx["field_index"]] = fx
    grid = [rows[k] for k in sorted(rows)]
    # The bracket: knockout rounds, left to right.
    rounds: dict[int, list[dict[str, Any]]] = {}
    for fx in fixtures:
        if fx["stage"] != "group":
            rounds.setdefault(fx["round"], []).append(fx)
    # A round is named after its main games (the final's round also holds the third-place match, D76).
    bracket = [
        {
            "round": r,
            "stage": next((f["stage_word"] for f in rounds[r] if f["stage"] != "third_place"), rounds[r][0]["stage_word"]),
            "fixtures": rounds[r],
        }
        for r in sorted(rounds)
    ]
    groups = [
        {"key": key, "title": gettext("Group %(group)s", group=key) if key != LEAGUE else gettext("Standings"), "rows": rows_}
        for key, rows_ in view["standings"].items()
    ]
    stats = svc.stats(c)
    scorers = [r for r in stats if r["goals"] > 0][:10]
    live = [fx for fx in fixtures if fx["status"] == "live"]
    upcoming = [fx for fx in sorted(fixtures, key=_when) if fx["status"] == "scheduled"]
    # D166: the venue screen's latest results, the last played first (a forfeit is a result too).
    results = [fx for fx in sorted(fixtures, key=_when, reverse=True) if fx["status"] in ("finished", "forfeit") and fx["result"]]
    return {
        "c": c,
        "view": view,
        "fields": fields,
        "fixtures": fixtures,
        "grid": grid,
        "bracket": bracket,
        "groups": groups,
        "scorers": scorers,
        "live": live,
        "upcoming": upcoming[: max(2, 2 * len(fields))],
        "results": results[: max(4, 2 * len(fields))],
        "live_map": {fx["id"]: fx["live"] for fx in fixtures if fx["live"]},
        "name": name,
        "words": words(),
        "vocab": i18n.vocabulary(),
    }


def _when(fx: dict[str, Any]) -> tuple[float, int, int]:
    """A fixture's place in time: its start (where it moved to, D75), else its slot."""
    at = int(datetime.fromisoformat(fx["starts_at"]).timestamp() * 1000) if fx["starts_at"] else None
    return moves.order_key(at, fx["slot"], fx["number"])


def page_data(c: Competition, **extra: Any) -> dict[str, Any]:
    return {
        "competition": c.id,
        "lang": i18n.current_language(),
        **_page_words(),
        "server_time_ms": competitions().clock(),
        **extra,
    }


def _page_words() -> dict[str, Any]:
    """The words every competition page hands its script, translated once per language and app (D253):
    some 300 translations that were looked up again on every reading of a public page."""
    language = i18n.current_language()
    kept: dict[str, dict[str, Any]] = current_app.extensions.setdefault("qalisball_competition_page_words", {})
    found = kept.get(language)
    if found is None:
        found = kept[language] = {
            "strings": {**i18n.js_strings(), **{k: str(v) for k, v in _JS.items()}},
            "vocab": i18n.vocabulary(),
            "words": words(),
            # The titles of the rules the competitions' refusals cite (C1–C7, D60–D79), in the page's language.
            "rules": {
                k: v
                for k, v in rulebook.titles(language).items()
                if k[:1] == "C" or (k[:1] == "D" and len(k) == 3 and k[1] in "67")
            },
        }
    return found


# ---------------------------------------------------------------------------------------------
# Routes


# Kept teams on one page of /competitions (D159): after a 10,000-row import every roster on the page
# made it 8.9 MB; a team's roster form is fetched when its card opens.
TEAMS_PER_PAGE = 50


@bp.get("/competitions")
def index() -> str:
    svc = competitions()
    comps = sorted(svc.competitions.values(), key=lambda c: c.created_at, reverse=True)
    teams = sorted(svc.teams.values(), key=lambda t: (t.created_at, t.id))
    pages = max(1, -(-len(teams) // TEAMS_PER_PAGE))
    number = min(max(1, request.args.get("teams", 1, type=int) or 1), pages)
    shown = teams[(number - 1) * TEAMS_PER_PAGE : number * TEAMS_PER_PAGE]
    first = (number - 1) * TEAMS_PER_PAGE + 1
    return render_template(
        "competitions/competitions.html",
        comps=comps,
        teams=shown,
        team_pages={"page": number, "pages": pages, "first": first, "last": first + len(shown) - 1, "total": len(teams)},
        officials=sorted(svc.officials.values(), key=lambda o: (o.created_at, o.id)),
        words=words(),
        page={
            "lang": i18n.current_language(),
            "strings": {**i18n.js_strings(), **{k: str(v) for k, v in _JS.items()}},
            **organiser_page_data(),
        },
    )


@bp.get("/competitions/teams/<team_id>")
def team_form(team_id: str) -> str:
    """A kept team's form with its roster, fetched when its card opens on /competitions (D159)."""
    t = competitions().teams.get(team_id)
    if t is None:
        abort(404)
    return render_template("competitions/_team_form.html", t=t)


@bp.get("/competitions/teams")
def team_choices() -> str:
    """The new-competition form's team checkboxes, fetched when the form opens (D159)."""
    svc = competitions()
    return render_template(
        "competitions/_team_choices.html", teams=sorted(svc.teams.values(), key=lambda t: (t.created_at, t.id))
    )


def _part(c: Competition, template: str) -> Markup:
    """A public page's live body, rendered once per change for everyone who reads it (D253)."""
    name = f"{template}:{i18n.current_language()}"
    return Markup(competitions().cached_part(c, name, lambda: render_template(template, **context(c))))


@bp.get("/competitions/<comp_id>")
def public(comp_id: str) -> str:
    c = _competition(comp_id)
    body = _part(c, "competitions/_competition_body.html")
    return render_template("competitions/competition.html", page=page_data(c), c=c, words=_page_words()["words"], body=body)


@bp.get("/competitions/<comp_id>/part")
def public_part(comp_id: str) -> str:
    """The public page's live body again, after results changed (the script swaps it in)."""
    return str(_part(_competition(comp_id), "competitions/_competition_body.html"))


@bp.get("/competitions/<comp_id>/screen")
def screen(comp_id: str) -> str:
    c = _competition(comp_id)
    seconds = request.args.get("seconds", type=int) or 12
    body = _part(c, "competitions/_competition_screen_body.html")
    return render_template(
        "competitions/competition_screen.html", page=page_data(c, seconds=max(4, min(seconds, 120))), c=c, body=body
    )


@bp.get("/competitions/<comp_id>/screen/part")
def screen_part(comp_id: str) -> str:
    return str(_part(_competition(comp_id), "competitions/_competition_screen_body.html"))


@bp.get("/competitions/<comp_id>/admin")
def admin(comp_id: str) -> str:
    c = _competition(comp_id)
    ctx = _admin_context(c)
    page = page_data(c, starters=c.config["match"]["starters"], **organiser_page_data())
    return render_template("competitions/competition_admin.html", page=page, **ctx)


@bp.get("/competitions/<comp_id>/admin/part")
def admin_part(comp_id: str) -> str:
    """The page's live part again, after a write or a change elsewhere: ``?open=3,7`` renders those fixtures'
    panels with their forms (the ones the organiser has open), the others to be fetched when opened."""
    c = _competition(comp_id)
    opened = {x for x in request.args.get("open", "").split(",") if x}
    return render_template("competitions/_competition_admin_body.html", **_admin_context(c, opened))


@bp.get("/competitions/<comp_id>/admin/fixtures/<fid>")
def admin_fixture(comp_id: str, fid: str) -> str:
    """One fixture's forms, fetched when its panel opens (a page of 240 fixtures carries none of them)."""
    c = _competition(comp_id)
    ctx = _admin_context(c, {fid})
    fx = next((f for f in ctx["fixtures"] if str(f["id"]) == fid), None)
    if fx is None:
        abort(404)
    return render_template("competitions/_competition_fixture_one.html", fx=fx, **ctx)


def _admin_context(c: Competition, opened: set[str] | None = None) -> dict[str, Any]:
    svc = competitions()
    ctx = context(c)
    suspensions = svc.suspensions_json(c)
    active = [s for s in suspensions if s["remaining"] > 0 and s["on_roster"]]  # D74: a late player bars no kept one
    rosters = {tid: svc.teams[tid].public()["players"] for tid in c.teams if tid in svc.teams}
    out: dict[str, dict[str, list[int]]] = {s["team"]: {} for s in active}
    for s in active:
        for fid in s["covers"]:
            out[s["team"]].setdefault(fid, []).append(s["player"])
    # The lineup form's first guess: the first N players of the roster who may play.
    starters = c.config["match"]["starters"]
    starting: dict[str, dict[str, list[int]]] = {}
    for fx in ctx["fixtures"]:
        for side in ("home", "away"):
            barred = out.get(fx[side], {}).get(fx["id"], [])
            numbers = [p["number"] for p in rosters.get(fx[side], []) if p["number"] not in barred]
            starting.setdefault(fx["id"], {})[side] = numbers[:starters]
    ctx.update(
        open_fixtures={fx["id"] for fx in ctx["fixtures"] if str(fx["id"]) in (opened or set())},
        starting=starting,
        suspensions=suspensions,
        suspended=out,  # team -> fixture -> players who may not play it
        rosters=rosters,
        officials=sorted(svc.officials.values(), key=lambda o: o.name),
        official_names={o.id: o.name for o in svc.held_officials.values()},
        starters=starters,
        league=svc.league.marks(c),  # fixtures played at a league's venues (L4, D378)
    )
    return ctx


@bp.get("/competitions/<comp_id>/standings")
def printable(comp_id: str) -> str:
    c = _competition(comp_id)
    ctx = context(c)
    return render_template(
        "competitions/competition_standings.html", printed=datetime.now().astimezone().strftime("%Y-%m-%d %H:%M"), **ctx
    )


@bp.app_template_global()
def competition_links(comp_id: str) -> dict[str, str]:
    return {
        "public": url_for("competition_pages.public", comp_id=comp_id),
        "screen": url_for("competition_pages.screen", comp_id=comp_id),
        "admin": url_for("competition_pages.admin", comp_id=comp_id),
        "standings": url_for("competition_pages.printable", comp_id=comp_id),
    }
