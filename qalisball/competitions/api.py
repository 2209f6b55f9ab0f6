"""The competitions' HTTP API (API.md "Competitions"): thin handlers over ``CompetitionService``.

Writes need the organiser token (``web.organiser_required``: 401 without it, 403 with a match role's
token); reads are public. Checks run in API.md's order: 401/403, 404, 400, 409 ``conflict``, 409 ``rule``.
``init_app`` wires the service, its live updates (Socket.IO room ``competition:<id>``) and the pages.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from flask_socketio import SocketIO
from marshmallow import Schema, ValidationError

from qalisball.competitions import csv_io as competition_csv
from qalisball.competitions import live as competition_live
from qalisball.competitions import schemas as cs
from qalisball.competitions import slots as competition_slots
from qalisball.competitions import whatif_api
from qalisball.competitions.service import Competition, CompetitionService, Conflict, Fixture, Invalid
from qalisball.live.rooms import JoinGate
from qalisball.match import slots as match_slots
from qalisball.match.service import NotFound
from qalisball.rules.errors import RuleViolation
from qalisball.web import refusal_words
from qalisball.web.errors import ApiError, answer_api_errors
from qalisball.web.guards import organiser_required
from qalisball.web.i18n import current_language
from qalisball.web.strict_json import read_json

bp = Blueprint("competition_api", __name__, url_prefix="/api")


def init_app(app: Flask, socketio: SocketIO, gate: JoinGate) -> None:
    """Create the competition service, serve its API, pages and live room (the factory has it follow the journal, D300)."""
    matches = match_slots.MATCHES.of(app)
    svc = competition_slots.COMPETITIONS.install(app, CompetitionService(matches.store, matches, app.config["CLOCK"]))
    competition_live.init_room(socketio, svc, gate)
    app.register_blueprint(bp)
    from qalisball.competitions import pages as competition_pages

    app.register_blueprint(competition_pages.bp)
    from qalisball.competitions import calendar

    app.register_blueprint(calendar.bp)  # /competitions/<id>/fixtures.ics (issue 30 item 4)


competitions = competition_slots.competition_service


# ---------------------------------------------------------------------------------------------
# Errors

answer_api_errors(bp)  # ApiError, and D44's bad bodies on every route (D151)
bp.register_error_handler(whatif_api.Busy, whatif_api.busy_answer)  # a decision's what-if past its budget (D250)


@bp.errorhandler(NotFound)
def _not_found(exc: NotFound) -> tuple[Response, int]:
    return jsonify({"error": "not_found", "message": str(exc)}), 404


@bp.errorhandler(Invalid)
def _invalid(exc: Invalid) -> tuple[Response, int]:
    return jsonify({"error": "invalid", "message": exc.message, "fields": exc.fields}), 400


@bp.errorhandler(Conflict)
def _conflict(exc: Conflict) -> tuple[Response, int]:
    return jsonify({"error": "conflict", "message": str(exc)}), 409


@bp.errorhandler(RuleViolation)
def _rule(exc: RuleViolation) -> tuple[Response, int]:
    """409 ``rule``, in the organiser's language as refusals to officials are (docs/api-extras.md)."""
    body: dict[str, Any] = {"error": "rule", "rule": exc.rule, "message": exc.message}
    if current_language() != "en":
        body["message"] = localised(exc)
        body["message_en"] = exc.message
    return jsonify(body), 409


def localised(exc: RuleViolation) -> str:
    """The refusal's template translated and filled in; phases, roles and card colours in words too."""
    return refusal_words.refusal(exc)


def _body() -> Any:
    """The body through the one strict reader (``strict_json``, D44): never ``request.get_json``."""
    return read_json(request)


def _load(schema: Schema, what: str, **kw: Any) -> dict[str, Any]:
    try:
        data: dict[str, Any] = schema.load(_body(), **kw)
    except ValidationError as exc:
        raise ApiError(400, "invalid", f"the {what} does not fit the schema", fields=exc.normalized_messages()) from exc
    return data


def _competition(comp_id: str) -> Competition:
    return competitions().get(comp_id)


def _fixture(comp_id: str, fid: str) -> tuple[Competition, Fixture]:
    c = _competition(comp_id)
    return c, c.fixture(fid)


def csv_response(text: str, filename: str) -> Response:
    """A CSV download: UTF-8 with a byte-order mark (so spreadsheet programs read Chinese), CRLF."""
    resp = Response(text.encode("utf-8"), mimetype="text/csv")
    resp.headers["Content-Type"] = "text/csv; charset=utf-8"
    resp.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp


# ---------------------------------------------------------------------------------------------
# Teams and officials (C1, C5)


@bp.post("/teams")
@organiser_required
def create_team() -> tuple[Response, int]:
    t = competitions().create_team(_load(cs.TeamSchema(), "team"))
    return jsonify({"id": t.id, **t.public()}), 201


@bp.get("/teams")
def list_teams() -> Response:
    return jsonify([t.public() for t in sorted(competitions().teams.values(), key=lambda t: (t.created_at, t.id))])


@bp.get("/teams.csv")
def teams_csv() -> Response:
    return csv_response(competitions().export_csv(), "qalisball-teams.csv")


@bp.get("/teams/<team_id>")
def get_team(team_id: str) -> Response:
    return jsonify(competitions().team(team_id).public())


@bp.patch("/teams/<team_id>")
@organiser_required
def patch_team(team_id: str) -> Response:
    svc = competitions()
    svc.team(team_id)  # 404 before 400
    t = svc.update_team(team_id, _load(cs.TeamSchema(), "team", partial=True))
    return jsonify(t.public())


@bp.post("/teams/import")
@organiser_required
def import_teams() -> Response:
    if request.mimetype not in ("text/csv", "text/plain", "application/csv"):
        raise ApiError(
            400, "invalid", "send the CSV with Content-Type: text/csv", fields={"_schema": ["Content-Type must be text/csv"]}
        )
    raw = request.get_data()
    text = _decode_csv(raw)
    teams = competitions().import_csv(text)
    return jsonify({"teams": [{"id": t.id, "name": t.name, "players": t.public()["players"]} for t in teams]})


def _decode_csv(raw: bytes) -> str:
    try:
        return competition_csv.decode(raw)
    except competition_csv.NotText as exc:
        raise ApiError(400, "invalid", str(exc), fields={"_schema": ["not UTF-8 text"]}) from exc


@bp.post("/officials")
@organiser_required
def create_official() -> tuple[Response, int]:
    o = competitions().create_official(_load(cs.OfficialSchema(), "official"))
    return jsonify({"id": o.id, **o.public()}), 201


@bp.get("/officials")
def list_officials() -> Response:
    return jsonify([o.public() for o in sorted(competitions().officials.values(), key=lambda o: (o.created_at, o.id))])


# ---------------------------------------------------------------------------------------------
# Competitions (C2, C3)


@bp.post("/competitions")
@organiser_required
def create_competition() -> tuple[Response, int]:
    svc = competitions()
    c = svc.create(_load(cs.CompetitionSchema(), "competition"))
    view = svc.view(c)
    return jsonify({"id": c.id, "fixtures": view["fixtures"], "byes": view["byes"]}), 201


@bp.get("/competitions")
def list_competitions() -> Response:
    svc = competitions()
    origin = competition_slots.ORIGIN.find()
    out = []
    for c in svc.competitions.values():
        item: dict[str, Any] = {
            "id": c.id,
            "name": c.name,
            "format": c.format,
            "teams": c.teams,
            "fixtures": len(c.fixtures),
            "created_at": c.created_at,
        }
        venue = origin(c.id) if origin is not None else None
        if venue is not None:  # a league venue's own competition, held read-only at its central (D379)
            item["venue"] = venue
        out.append(item)
    return jsonify(out)


@bp.get("/competitions/<comp_id>")
def get_competition(comp_id: str) -> Response:
    """The view cached per change (D155), as joins get it: a storm of reads never rebuilds it either."""
    return Response(competitions().cached_view(_competition(comp_id)).text, mimetype="application/json")


@bp.get("/competitions/<comp_id>/standings")
def get_standings(comp_id: str) -> Response:
    return jsonify(competitions().standings(_competition(comp_id)))


STANDINGS_COLUMNS = [
    "group",
    "rank",
    "team",
    "name",
    "played",
    "won",
    "shootout_won",
    "shootout_lost",
    "lost",
    "goals_for",
    "goals_against",
    "goal_difference",
    "points",
    "note",
]
STATS_COLUMNS = ["team", "team_name", "number", "name", "matches", "minutes", "goals", "shootout_goals", "fouls", "yellow", "red"]


@bp.get("/competitions/<comp_id>/standings.csv")
def standings_csv(comp_id: str) -> Response:
    c = _competition(comp_id)
    rows = [{"group": g, **r} for g, table in competitions().standings(c).items() for r in table]
    return csv_response(competition_csv.table(STANDINGS_COLUMNS, rows), f"qalisball-{c.id}-standings.csv")


@bp.get("/competitions/<comp_id>/stats")
def get_stats(comp_id: str) -> Response:
    return jsonify(competitions().stats(_competition(comp_id)))


@bp.get("/competitions/<comp_id>/stats.csv")
def stats_csv(comp_id: str) -> Response:
    c = _competition(comp_id)
    return csv_response(competition_csv.table(STATS_COLUMNS, competitions().stats(c)), f"qalisball-{c.id}-stats.csv")


@bp.get("/competitions/<comp_id>/suspensions")
def get_suspensions(comp_id: str) -> Response:
    return jsonify(competitions().suspensions_json(_competition(comp_id)))


# ---------------------------------------------------------------------------------------------
# Fixtures (C1, C4, C5, C6, D63)


@bp.put("/competitions/<comp_id>/fixtures/<fid>/officials")
@organiser_required
def put_officials(comp_id: str, fid: str) -> Response:
    c, f = _fixture(comp_id, fid)
    f = competitions().set_officials(c, f, _load(cs.OfficialsSchema(), "officials"))
    return jsonify({"id": f.id, "officials": f.officials})


@bp.patch("/competitions/<comp_id>/fixtures/<fid>")
@organiser_required
def patch_fixture(comp_id: str, fid: str) -> Response:
    """Move a fixture to another time and/or field before its match is made (D75)."""
    c, f = _fixture(comp_id, fid)
    f = competitions().reschedule(c, f, _load(cs.RescheduleSchema(), "move"))
    field_name = c.config["fields"][f.field]["name"]
    return jsonify({"id": f.id, "starts_at": f.starts_at, "field": field_name})


@bp.post("/competitions/<comp_id>/fixtures/<fid>/match")
@organiser_required
def create_fixture_match(comp_id: str, fid: str) -> tuple[Response, int]:
    c, f = _fixture(comp_id, fid)
    m = competitions().create_match(c, f, _load(cs.LineupSchema(), "lineup"))
    return jsonify({"id": m.id, "tokens": m.tokens}), 201


@bp.post("/competitions/<comp_id>/fixtures/<fid>/forfeit")
@organiser_required
def post_forfeit(comp_id: str, fid: str) -> Response:
    c, f = _fixture(comp_id, fid)
    data = _load(cs.ForfeitRequestSchema(), "forfeit")
    f = competitions().forfeit(c, f, data["team"], data["reason"])
    return jsonify({"id": f.id, "forfeit": f.forfeit})


@bp.post("/competitions/<comp_id>/fixtures/<fid>/result")
@organiser_required
def post_result(comp_id: str, fid: str) -> Response:
    c, f = _fixture(comp_id, fid)
    f = competitions().decide_result(c, f, _load(cs.DecidedResultSchema(), "result"))
    return jsonify({"id": f.id, "decision": f.decision})


# ---------------------------------------------------------------------------------------------
# Protests (C7) and lots (C3)


@bp.post("/competitions/<comp_id>/protests")
@organiser_required
def post_protest(comp_id: str) -> tuple[Response, int]:
    c = _competition(comp_id)
    p = competitions().file_protest(c, _load(cs.ProtestSchema(), "protest"))
    return jsonify({"id": p.id, **p.public()}), 201


@bp.post("/competitions/<comp_id>/protests/<pid>/decision")
@organiser_required
def post_decision(comp_id: str, pid: str) -> Response:
    c = _competition(comp_id)
    p = next((x for x in c.protests if x.id == pid), None)
    if p is None:
        raise NotFound(f"no protest {pid} in competition {c.id}")
    data = _load(cs.DecisionSchema(), "decision")
    if data.get("what_if"):
        # D251, D252: the what-if checked as the what-if itself is, and answered once, kept with the decision.
        match_id = c.fixture(p.fixture).match_id
        m = match_slots.match_service().matches.get(match_id) if match_id else None
        data["what_if_record"] = whatif_api.decision_record(m, data["what_if"], caller="organiser")
    p = competitions().decide_protest(c, pid, data)
    return jsonify(p.public())


@bp.post("/competitions/<comp_id>/lots")
@organiser_required
def post_lots(comp_id: str) -> tuple[Response, int]:
    c = _competition(comp_id)
    x = competitions().record_lots(c, _load(cs.LotsSchema(), "drawing of lots"))
    return jsonify({"id": x.id, **x.public()}), 201
