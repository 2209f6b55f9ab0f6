"""The API's own description (issue 23): ``/api/openapi.json``, ``/api/docs`` and ``/api/catalogue``.

The composition root knows every feature, so the table of what each route takes and answers lives here;
``qalisball/web/openapi.py`` turns it, the app's routes and the features' marshmallow schemas into an
OpenAPI 3.1 document. Its examples are real requests: the match is the demo match, and the event examples
are one match's story from the coin toss to the reopened score sheet, in order, one per event type and
more (tests/test_openapi.py posts each to a test app; a half's end needs its time run out first).
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from flask import Blueprint, Flask, Response, current_app, render_template
from marshmallow import Schema

from qalisball.competitions import schemas as cs
from qalisball.match import catalogue_api
from qalisball.match import schemas as ms
from qalisball.rules.catalogue import BY_TYPE, CORRECTABLE
from qalisball.server.demo import demo_request
from qalisball.training import schemas as ts
from qalisball.web import openapi
from qalisball.web.openapi import Operation

try:  # issue 21 moves the venue's schemas out of its service into venue/schemas.py
    from qalisball.venue.schemas import ScreenContentSchema
except ImportError:  # until that move is committed
    from qalisball.venue.service import ScreenContentSchema  # type: ignore[attr-defined,no-redef]

bp = Blueprint("api_docs", __name__, url_prefix="/api")

TITLE = "Qalisball Live"
VERSION = "1"
DESCRIPTION = (
    "Live officiating of Qalisball (立群球): the HTTP API of API.md, generated from the marshmallow schemas "
    "that validate each request. Event types, their fields, who may log them and their labels in Chinese and "
    "English: `GET /api/catalogue`. The pages are listed too (tag `pages`), as HTML; Socket.IO is not described here."
)
TAGS = {
    "matches": 'Matches, their events and the match day (API.md "Matches", "Events", "Match day")',
    "competitions": 'Kept teams and officials, competitions, fixtures, protests (API.md "Competitions")',
    "venue screens": "Venue screens, slides and team logos (docs/api-extras.md)",
    "training and what-if": 'Referee training and the arbitration committee\'s what-if (API.md "Training and what-if", issue 24)',
    "documentation": "The event catalogue and this description (issue 23)",
    "pages": 'The pages for people, in HTML (README "Pages"): listed so that the description covers every route',
}
# Flask's static files are not an interface (a script's or a stylesheet's name may change with any release).
EXCLUDED = ("static",)

# A 1×1 PNG: a drawn signature as the console sends it (API.md "Match day"), tiny.
_SIGNATURE = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
_FOUL_SPOT = {"x": 15.0, "y": 10.0}

# One match's story, in order: each example is legal where it stands (seq numbers count from 1).
EVENT_STORY: tuple[dict[str, Any], ...] = (
    {"type": "coin_toss", "kickoff": "home", "home_end": "x0"},  # 1
    {"type": "period_start"},  # 2
    {"type": "restart_taken", "team": "home", "player": 1},  # 3: the kickoff
    {"type": "attack", "team": "home"},  # 4
    {"type": "shot_missed", "team": "home", "player": 3, "spot": {"x": 30.0, "y": 12.5}},  # 5
    {"type": "steal", "team": "away", "player": 2},  # 6
    {"type": "catch", "team": "home", "player": 3, "caught": 2},  # 7
    {"type": "violation", "kind": "ball_out_end", "team": "away", "player": 2, "spot": {"x": -1.0, "y": 12.5}},  # 8
    {"type": "restart_taken", "team": "home", "player": 1},  # 9: the end-line ball
    {
        "type": "foul",
        "team": "away",
        "player": 4,
        "spot": _FOUL_SPOT,
        "card": "yellow",
        "reason": {"code": "dangerous_play", "text": "high boot"},
    },  # 10
    {"type": "card", "team": "away", "player": 5, "color": "yellow", "reason": {"code": "dissent"}},  # 11
    {"type": "clock", "action": "pause"},  # 12
    {"type": "injury", "team": "home", "player": 2, "spot": _FOUL_SPOT},  # 13: #2 leaves the field
    {"type": "substitution", "team": "home", "out": None, "in": 7},  # 14: #7 comes on for the injured #2
    {"type": "roster", "team": "home", "add": {"number": 11, "name": "Late Player"}},  # 15
    {"type": "clock", "action": "set", "elapsed_ms": 600000},  # 16
    {"type": "clock", "action": "resume"},  # 17
    {"type": "restart_taken", "team": "home", "player": 1},  # 18: the free kick
    {"type": "goal", "team": "home", "player": 3},  # 19
    {"type": "note", "text": "Goal seen from the far side", "about": 19, "team": "home", "player": 3},  # 20
    {"type": "void", "target": 19, "reason": "player in area before the shot"},  # 21
    {
        "type": "amend",
        "target": 10,
        "event": {"type": "foul", "team": "away", "player": 6, "spot": _FOUL_SPOT, "card": "yellow"},
        "reason": "wrong shirt number",
    },  # 22
    {
        "type": "insert",
        "after": 4,
        "event": {"type": "shot_missed", "team": "home", "player": 4, "spot": {"x": 30.0, "y": 5.0}},
        "reason": "missed call",
    },  # 23
    {"type": "period_end"},  # 24: once the half's time is up
    {"type": "confirm", "period": 1},  # 25
    {"type": "period_start"},  # 26
    {"type": "restart_taken", "team": "away", "player": 1},  # 27
    {"type": "period_end"},  # 28: level at full time …
    {"type": "confirm", "period": 2},  # 29
    {"type": "shootout_start", "first": "home", "takers": {"home": [1, 3, 4, 5], "away": [1, 3, 4, 5]}},  # 30: … shootout
    *(
        {"type": "shootout_kick", "team": team, "scored": team == "home"}
        for team in ("home", "away", "home", "away", "home", "away", "home", "away", "home")
    ),  # 31–39: decided
    {"type": "confirm", "period": "shootout"},  # 40
    *({"type": "sign", "as": who, "name": name} for who, name in (("home_captain", "Li Hua"), ("away_captain", "Zhao Lei"))),
    *({"type": "sign", "as": who, "name": name} for who, name in (("assistant1", "Chen Li"), ("assistant2", "Zhao Ming"))),
    {"type": "sign", "as": "scorer", "name": "Sun Yan"},
    {"type": "sign", "as": "referee", "name": "Wang Qiang", "signature": _SIGNATURE},  # 46: locks the match
    {"type": "reopen", "reason": "the away captain signed before reading the sheet"},  # 47: the organiser's token
    {"type": "abandon", "reason": "thunderstorm"},  # 48
)


def event_examples() -> dict[str, dict[str, Any]]:
    """The story as named examples ("01 coin_toss", "08 violation ball_out_end"), in order."""
    out = {}
    for i, body in enumerate(EVENT_STORY, start=1):
        entry = BY_TYPE[body["type"]]
        variant = body.get(entry.variant_param) if entry.variant_param else None
        out[f"{i:02d} {body['type']}" + (f" {variant}" if variant else "")] = body
    return out


TEAM_EXAMPLE = {
    "name": "Beijing Sport University 北体",
    "short": "BSU",
    "color": "#1b5e20",
    "club": "北京体育大学",
    "players": [{"number": n, "name": name} for n, name in enumerate(("王军", "李娜", "张磊", "刘芳", "陈刚", "杨洋"), start=1)],
}

# Schema names in the document: the class name without "Schema", but where two features use one name.
_EVENT_CLASSES = {schema: f"{name}Event" for name, schema in ((s.__name__, s) for s in ms.EVENT_SCHEMAS.values())}
_NAMES: dict[type[Schema], str] = {
    cs.TeamSchema: "KeptTeam",
    cs.OfficialSchema: "KeptOfficial",
    cs.OfficialsSchema: "FixtureOfficials",
    ScreenContentSchema: "ScreenContent",
    **_EVENT_CLASSES,
}


def schema_name(cls: type[Schema]) -> str:
    return _NAMES.get(cls) or cls.__name__.removesuffix("Schema").lstrip("_")


_JSON_LIST = {"type": "array", "items": {"type": "object"}}
_JSON_OBJECT = {"type": "object"}
_LANG = {
    "name": "lang",
    "in": "query",
    "required": False,
    "schema": {"type": "string", "enum": ["zh", "en"]},
    "description": "the language of the answer's words (remembered by the browser)",
}
_TOKEN = {
    "name": "token",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": "a QR link's token: answered with a redirect without it, the token kept in an HttpOnly cookie (D53)",
}
_UPLOAD = {
    "type": "object",
    "required": ["file"],
    "properties": {
        "file": {"type": "string", "contentMediaType": "application/octet-stream", "description": "PNG, JPEG, WebP or GIF"},
        "title": {"type": "string", "maxLength": 120},
        "kind": {"type": "string", "enum": ["slide", "logo"]},
    },
}
_LOGO = {
    "type": "object",
    "required": ["file", "team"],
    "properties": {
        "file": {
            "type": "string",
            "contentMediaType": "application/octet-stream",
            "description": "PNG, JPEG, WebP or GIF (1 MB)",
        },
        "team": {"type": "string", "minLength": 1, "maxLength": 80, "description": "the team's name as its matches name it"},
    },
}
_FORM = "application/x-www-form-urlencoded"


def _events_body() -> dict[str, Any]:
    """One of the event schemas, told apart by ``type`` (the catalogue's types)."""
    refs = {t: f"#/components/schemas/{schema_name(s)}" for t, s in ms.EVENT_SCHEMAS.items()}
    return {"oneOf": [{"$ref": r} for r in refs.values()], "discriminator": {"propertyName": "type", "mapping": refs}}


def _page(summary: str, answer: str = "text/html", token: bool = False, **kw: Any) -> Operation:
    """A page: every page takes ``?lang=``; a page a QR link opens takes its ``?token=`` too."""
    return Operation(summary=summary, tag="pages", answer=answer, parameters=(_LANG, _TOKEN) if token else (_LANG,), **kw)


def operations() -> dict[tuple[str, str], Operation]:
    """Every route's description, keyed by (method, Flask rule); tests/test_openapi.py checks none is missing."""
    m, c, v, d, t = "matches", "competitions", "venue screens", "documentation", "training and what-if"
    return {
        # Matches (API.md "Matches", "Events", "Match day")
        ("POST", "/api/matches"): Operation(
            "Create a match", m, "organiser", 201, body=ms.MatchSchema, examples={"demo match": demo_request()}
        ),
        ("GET", "/api/matches"): Operation("List matches", m, answer_schema=_JSON_LIST),
        ("GET", "/api/matches/<match_id>"): Operation("A match's public state", m, answer_schema=_JSON_OBJECT),
        ("GET", "/api/matches/<match_id>/events"): Operation("A match's event log", m, answer_schema=_JSON_LIST),
        ("POST", "/api/matches/<match_id>/events"): Operation(
            "Log an event",
            m,
            "match",
            201,
            body_schema=_events_body(),
            examples=event_examples(),
            parameters=(
                {
                    "name": "dry_run",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string", "enum": ["1", "true", "yes"]},
                    "description": "answer what the request would get (200), storing nothing",
                },
            ),
            description="The examples are one match's story in order, on the demo match (a half's end once its "
            "time is up). Who may log each type and variant: `GET /api/catalogue`.",
            errors=(409, 413),
        ),
        ("GET", "/api/matches/<match_id>/devices"): Operation("The officials' consoles connected now", m, "organiser_or_referee"),
        ("POST", "/api/matches/<match_id>/tokens/<role>"): Operation(
            "A new token for a role (the old one stops working)", m, "organiser"
        ),
        ("GET", "/api/catalogue"): Operation(
            "The event catalogue: types, variants, fields, who, codes, restarts (zh/en)", d, answer_schema=_JSON_OBJECT
        ),
        ("GET", "/api/openapi.json"): Operation("This OpenAPI document", d, answer_schema=_JSON_OBJECT),
        ("GET", "/api/docs"): Operation("This document in a viewer", d, answer="text/html"),
        # Competitions (API.md "Competitions")
        ("POST", "/api/teams"): Operation(
            "Keep a team", c, "organiser", 201, body=cs.TeamSchema, examples={"team": TEAM_EXAMPLE}
        ),
        ("GET", "/api/teams"): Operation("Kept teams", c, answer_schema=_JSON_LIST),
        ("GET", "/api/teams.csv"): Operation("Kept teams as CSV", c, answer="text/csv"),
        ("GET", "/api/teams/<team_id>"): Operation("A kept team", c, answer_schema=_JSON_OBJECT),
        ("PATCH", "/api/teams/<team_id>"): Operation(
            "Change a kept team", c, "organiser", body=cs.TeamSchema(partial=True), examples={"new colour": {"color": "#004d40"}}
        ),
        ("POST", "/api/teams/import"): Operation(
            "Import kept teams from CSV",
            c,
            "organiser",
            body_schema={"type": "string"},
            body_media="text/csv",
            examples={"two players": "team,number,name\r\nBSU 北体,1,王军\r\nBSU 北体,2,李娜\r\n"},
        ),
        ("POST", "/api/officials"): Operation(
            "Keep an official", c, "organiser", 201, body=cs.OfficialSchema, examples={"referee": {"name": "王强", "club": None}}
        ),
        ("GET", "/api/officials"): Operation("Kept officials", c, answer_schema=_JSON_LIST),
        ("POST", "/api/competitions"): Operation(
            "Create a competition and its fixtures", c, "organiser", 201, body=cs.CompetitionSchema, errors=(409,)
        ),
        ("GET", "/api/competitions"): Operation("Competitions", c, answer_schema=_JSON_LIST),
        ("GET", "/api/competitions/<comp_id>"): Operation("A competition", c, answer_schema=_JSON_OBJECT),
        ("GET", "/api/competitions/<comp_id>/standings"): Operation("Standings", c, answer_schema=_JSON_OBJECT),
        ("GET", "/api/competitions/<comp_id>/standings.csv"): Operation("Standings as CSV", c, answer="text/csv"),
        ("GET", "/api/competitions/<comp_id>/stats"): Operation("Players' statistics", c, answer_schema=_JSON_LIST),
        ("GET", "/api/competitions/<comp_id>/stats.csv"): Operation("Players' statistics as CSV", c, answer="text/csv"),
        ("GET", "/api/competitions/<comp_id>/suspensions"): Operation("Suspensions", c, answer_schema=_JSON_OBJECT),
        ("PUT", "/api/competitions/<comp_id>/fixtures/<fid>/officials"): Operation(
            "A fixture's officials", c, "organiser", body=cs.OfficialsSchema, errors=(409,)
        ),
        ("PATCH", "/api/competitions/<comp_id>/fixtures/<fid>"): Operation(
            "Move a fixture (D75)", c, "organiser", body=cs.RescheduleSchema, errors=(409,)
        ),
        ("POST", "/api/competitions/<comp_id>/fixtures/<fid>/match"): Operation(
            "Make a fixture's match from its line-ups", c, "organiser", 201, body=cs.LineupSchema, errors=(409,)
        ),
        ("POST", "/api/competitions/<comp_id>/fixtures/<fid>/forfeit"): Operation(
            "A forfeit", c, "organiser", body=cs.ForfeitRequestSchema, errors=(409,)
        ),
        ("POST", "/api/competitions/<comp_id>/fixtures/<fid>/result"): Operation(
            "A decided result (D63)", c, "organiser", body=cs.DecidedResultSchema, errors=(409,)
        ),
        ("POST", "/api/competitions/<comp_id>/protests"): Operation(
            "File a protest (C7)", c, "organiser", 201, body=cs.ProtestSchema, errors=(409,)
        ),
        ("POST", "/api/competitions/<comp_id>/protests/<pid>/decision"): Operation(
            "Decide a protest (C7)", c, "organiser", body=cs.DecisionSchema, errors=(409,)
        ),
        ("POST", "/api/competitions/<comp_id>/lots"): Operation(
            "A drawing of lots (C3)", c, "organiser", 201, body=cs.LotsSchema, errors=(409,)
        ),
        # Training and what-if (API.md "Training and what-if", issue 24): the training routes take the session's code.
        ("POST", "/api/matches/<match_id>/what-if"): Operation(
            "A what-if: the match replayed with changed calls, nothing stored",
            t,
            "organiser_or_referee",
            body_schema=_JSON_OBJECT,
            errors=(409,),
        ),
        ("POST", "/api/training"): Operation(
            "Start a training session from a finished match", t, "organiser", 201, body=ts.StartSchema
        ),
        ("GET", "/api/training/join"): Operation("The session a code opens", t, answer_schema=_JSON_OBJECT),
        ("GET", "/api/training/<session_id>/questions"): Operation(
            "The session's questions (?code=)", t, answer_schema=_JSON_LIST
        ),
        ("POST", "/api/training/<session_id>/answers"): Operation(
            "Answer a question, graded by the engine", t, body=ts.AnswerSchema
        ),
        ("GET", "/api/training/<session_id>/answers"): Operation("Everyone's answers (?code=)", t, answer_schema=_JSON_LIST),
        ("GET", "/api/training/<session_id>/sheet"): Operation(
            "The score sheet per trainee and rule (?code=)", t, answer_schema=_JSON_OBJECT
        ),
        ("GET", "/api/training/<session_id>/sheet.csv"): Operation("The score sheet as CSV (?code=)", t, answer="text/csv"),
        ("GET", "/api/training/<session_id>/pace"): Operation(
            "The call the trainer has moved everyone to (?code=)", t, answer_schema=_JSON_OBJECT
        ),
        ("PUT", "/api/training/<session_id>/pace"): Operation(
            "Move everyone following the trainer to a call", t, "organiser", body=ts.PaceSchema
        ),
        ("POST", "/api/training/exercises"): Operation(
            "Store a hand-written exercise (its shared JSON)", t, "organiser", 201, body=ts.ExerciseSchema, errors=(409,)
        ),
        ("GET", "/api/training/exercises"): Operation("Every stored exercise", t, answer_schema=_JSON_LIST),
        ("GET", "/api/training/exercises/<exercise_id>"): Operation(
            "An exercise's shared JSON and its question (?download=1)", t, answer_schema=_JSON_OBJECT
        ),
        ("POST", "/api/training/exercises/<exercise_id>/answers"): Operation(
            "Answer an exercise, graded by the engine", t, body=ts.ExerciseAnswerSchema
        ),
        ("GET", "/training"): _page("The trainer's page", token=True),
        ("GET", "/training/join"): _page("The trainee's page"),
        ("GET", "/matches/<match_id>/what-if"): _page("The what-if page (organiser or the match's referee)", token=True),
        ("GET", "/competitions/<comp_id>/protests/<pid>/report"): _page(
            "A protest's report: the decision and both columns of the what-if it links"
        ),
        # Venue screens, images and logos (docs/api-extras.md)
        ("GET", "/api/screens"): Operation("Venue screens", v, answer_schema=_JSON_LIST),
        ("GET", "/api/screens/<name>"): Operation("What a venue screen shows", v, answer_schema=_JSON_OBJECT),
        ("PUT", "/api/screens/<name>"): Operation(
            "Choose what a venue screen shows", v, "organiser", body=ScreenContentSchema, examples={"blank": {"show": "blank"}}
        ),
        ("DELETE", "/api/screens/<name>"): Operation("Forget a venue screen", v, "organiser", 204),
        ("POST", "/api/images"): Operation(
            "Upload a slide or a logo", v, "organiser", 201, body_schema=_UPLOAD, body_media="multipart/form-data", errors=(413,)
        ),
        ("GET", "/api/images"): Operation("Uploaded images", v, answer_schema=_JSON_LIST),
        ("DELETE", "/api/images/<image_id>"): Operation("Delete an image", v, "organiser", 204),
        ("POST", "/api/logos"): Operation(
            "A team's logo", v, "organiser", 201, body_schema=_LOGO, body_media="multipart/form-data", errors=(413,)
        ),
        ("GET", "/api/logos"): Operation("Team logos by team name", v, answer_schema=_JSON_OBJECT),
        ("DELETE", "/api/logos"): Operation(
            "Forget a team's logo",
            v,
            "organiser",
            204,
            parameters=({"name": "team", "in": "query", "required": True, "schema": {"type": "string"}},),
            errors=(404,),
        ),
        # Pages (README "Pages"): HTML for people, listed so that the document covers every route.
        ("GET", "/"): _page("The list of matches", token=True),
        ("GET", "/matches/<match_id>"): _page("The spectator page (phones)"),
        ("GET", "/matches/<match_id>/scoreboard"): _page("The scoreboard, or a stream overlay (?overlay=1)"),
        ("GET", "/matches/<match_id>/lineups"): _page("The line-ups screen"),
        ("GET", "/matches/<match_id>/officials"): _page("The officials' QR codes", token=True),
        ("POST", "/matches/<match_id>/officials"): _page(
            "New codes for roles (the officials' page's form)", body_schema=_JSON_OBJECT, body_media=_FORM, status=303
        ),
        ("GET", "/matches/<match_id>/referee"): _page("The officials' console", token=True),
        ("GET", "/matches/<match_id>/timeline.json"): _page("The phone's timeline", "application/json"),
        ("GET", "/sw.js"): _page("The console's offline worker (D171)", "text/javascript"),
        ("GET", "/lang/<language>"): _page("Switch the language (remembered by the device)", status=302),
        ("GET", "/matches/<match_id>/report"): _page("The match report"),
        ("GET", "/matches/<match_id>/report.pdf"): _page("The match report as PDF", "application/pdf"),
        ("GET", "/matches/<match_id>/report.csv"): _page("The match report as CSV", "text/csv"),
        ("GET", "/matches/<match_id>/report.json"): _page("The match report's data", "application/json"),
        ("GET", "/competitions"): _page("Competitions and kept teams", token=True),
        ("GET", "/competitions/teams"): _page("The new competition's team choices (a page part)"),
        ("GET", "/competitions/teams/<team_id>"): _page("A kept team's roster form (a page part)"),
        ("GET", "/competitions/<comp_id>"): _page("A competition"),
        ("GET", "/competitions/<comp_id>/part"): _page("A competition's live part"),
        ("GET", "/competitions/<comp_id>/admin"): _page("The organiser's competition page", token=True),
        ("GET", "/competitions/<comp_id>/admin/part"): _page("The organiser's page's live part"),
        ("GET", "/competitions/<comp_id>/admin/fixtures/<fid>"): _page("A fixture's forms (a page part)"),
        ("GET", "/competitions/<comp_id>/screen"): _page("A competition's big screen"),
        ("GET", "/competitions/<comp_id>/screen/part"): _page("The big screen's live part"),
        ("GET", "/competitions/<comp_id>/standings"): _page("Standings to print"),
        ("GET", "/screens"): _page("The organiser's venue screens", token=True),
        ("GET", "/screens/<name>"): _page("A venue's big screen"),
        ("GET", "/images/<image_id>"): _page("An uploaded image", "image/*"),
        ("GET", "/docs/"): _page("The documentation site (`make docs` builds it; 404 says how until then)"),
        ("GET", "/docs/<path:filename>"): _page("A page or file of the documentation site", "*/*"),
        ("POST", "/sign-in"): _page("Sign in with a token (a form)", body_schema=_JSON_OBJECT, body_media=_FORM, status=303),
        ("POST", "/forget-token"): _page(
            "Forget the organiser token on this device", body_schema=_JSON_OBJECT, body_media=_FORM, status=303
        ),
    }


def _finish(doc: dict[str, Any]) -> dict[str, Any]:
    """What the schemas cannot say: each event schema's ``type`` is its own, and a correction carries a call."""
    schemas = doc["components"]["schemas"]
    calls = [{"$ref": f"#/components/schemas/{schema_name(ms.EVENT_SCHEMAS[t])}"} for t in sorted(CORRECTABLE)]
    for event_type, cls in ms.EVENT_SCHEMAS.items():
        props = schemas[schema_name(cls)]["properties"]
        props["type"] = {"type": "string", "const": event_type, "description": f"rule {BY_TYPE[event_type].rule}"}
        if "event" in props:  # an amend's or insert's call (M3), as it would be posted, without id or expected_seq
            props["event"] = {"oneOf": calls, "description": "the call, as it would be posted (M3)"}
    return doc


def document(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of ``app``."""
    doc = openapi.build(
        app,
        operations(),
        title=TITLE,
        version=VERSION,
        description=DESCRIPTION,
        schema_name=schema_name,
        schemas={schema_name(s): s for s in ms.EVENT_SCHEMAS.values()},
        tags=TAGS,
        exclude=EXCLUDED,
    )
    return _finish(doc)


# Built once per app: its routes and schemas do not change while it runs.
_TEXT: weakref.WeakKeyDictionary[Flask, str] = weakref.WeakKeyDictionary()


@bp.get("/openapi.json")
def openapi_json() -> Response:
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    if app not in _TEXT:
        _TEXT[app] = json.dumps(document(app), ensure_ascii=False)
    return Response(_TEXT[app], mimetype="application/json")


@bp.get("/docs")
def viewer() -> str:
    return render_template("api_docs.html")


def init_app(app: Flask) -> None:
    """Serve the catalogue and the API's description."""
    app.register_blueprint(catalogue_api.bp)
    app.register_blueprint(bp)
