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
from qalisball.rules.rulings import KINDS as RULING_KINDS
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
    "feed": 'Every public change for other software: Server-Sent Events, pages, calendars (API.md "The feed", issue 30)',
    "league": 'A league: venues, their keys, and what each sends its central (API.md "The league", issue 31, docs/deploy.md)',
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
_SPOT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}}
# API.md "Events": what the engine ruled on an entry when it was stored (rules/rulings.py, issue 28).
_RULING = {
    "type": "object",
    "required": ["kind", "rule"],
    "properties": {
        "kind": {"type": "string", "enum": sorted(RULING_KINDS.values())},
        "rule": {"type": "string", "description": "the rule it applies, as the match's rule book numbers it"},
        "type": {"type": "string", "description": "a restart's type"},
        "team": {"type": "string", "enum": ["home", "away"]},
        "spot": _SPOT,
        "origin": _SPOT,
        "seq": {"type": "integer", "description": "ruled_again: the later entry a correction decided again"},
        "rulings": {"type": "array", "items": {"type": "object"}, "description": "ruled_again: its rulings now"},
    },
    "additionalProperties": True,
}
_LOG_ENTRY = {
    "type": "object",
    "required": ["seq", "type", "by", "at_ms", "received_at", "voided_by", "rulings"],
    "properties": {
        "seq": {"type": "integer"},
        "type": {"type": "string"},
        "by": {"type": "string"},
        "at_ms": {"type": ["integer", "null"]},
        "received_at": {"type": "string"},
        "voided_by": {"type": ["integer", "null"]},
        "id": {"type": ["string", "null"]},
        "rulings": {
            "type": "array",
            "items": _RULING,
            "description": "what was ruled on it when it was stored, in order; never worked out again",
        },
    },
    "additionalProperties": True,
}
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
    f = "feed"
    lg = "league"
    return {
        # The league (API.md "The league", issue 31; D370-D374)
        ("POST", "/api/league/venues"): Operation(
            "At the central: a venue and its key (shown once, stored hashed)",
            lg,
            "organiser",
            201,
            body_schema={
                "type": "object",
                "required": ["name"],
                "additionalProperties": True,
                "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100}},
            },
            answer_schema={
                "type": "object",
                "properties": {"id": {"type": "string"}, "key": {"type": "string", "minLength": 32}},
            },
            examples={"a venue": {"name": "North field"}},
        ),
        ("GET", "/api/league/venues"): Operation(
            "At the central: the venues, their last contact, their matches and how far behind they are",
            lg,
            "organiser",
            answer_schema={"type": "array", "items": {"$ref": "#/components/schemas/LeagueVenue"}},
        ),
        ("DELETE", "/api/league/venues/<venue_id>/key"): Operation(
            "At the central: revoke a venue's key; the venue writes nothing more until it has a new one",
            lg,
            "organiser",
            answer_schema={
                "type": "object",
                "properties": {"id": {"type": "string"}, "key_revoked": {"type": "boolean"}},
            },
            description="D380: the old key is then a 403 `forbidden` with `revoked_at` for every venue request, nothing "
            "read or stored; what the venue sent before stays.",
            errors=(404,),
        ),
        ("POST", "/api/league/venues/<venue_id>/key"): Operation(
            "At the central: a new key for a venue (shown once), the old one revoked",
            lg,
            "organiser",
            201,
            answer_schema={
                "type": "object",
                "properties": {"id": {"type": "string"}, "key": {"type": "string", "minLength": 32}},
            },
            description="D380: the same venue, carrying on from the cursor the central holds.",
            errors=(404,),
        ),
        ("GET", "/api/league/ingest"): Operation(
            "At the central (venue key): the venue's last message held, where its next batch starts",
            lg,
            "venue",
            answer_schema={"$ref": "#/components/schemas/LeagueHeld"},
        ),
        ("POST", "/api/league/ingest"): Operation(
            "At the central (venue key): a batch of the venue's feed messages, stored only if it continues what is held",
            lg,
            "venue",
            body_schema={"$ref": "#/components/schemas/LeagueBatch"},
            answer_schema={"$ref": "#/components/schemas/LeagueHeld"},
            description="Checked whole before anything is stored (D371): `after` is not beyond the cursor held and "
            "`after_digest` is the digest of the venue's message there; a message already held must be the one held "
            "(a batch sent again is acknowledged, stored once); a match entry continues its chain (seq, prev_hash, "
            "hash, seal). Otherwise 409 `conflict` with `cursor`, the last cursor held: nothing of it is stored.",
            errors=(409,),
        ),
        ("GET", "/api/league/upstream"): Operation(
            "At a venue: whether its sender reaches the central, what is pending, the last acknowledgement and error",
            lg,
            "organiser",
            answer_schema={"$ref": "#/components/schemas/LeagueUpstream"},
            description="404 when this server sends to no central (QALISBALL_UPSTREAM is not set).",
            errors=(404,),
        ),
        # A league competition (API.md "A league competition", issue 31 item 4; D375-D378)
        ("PUT", "/api/competitions/<comp_id>/fixtures/<fid>/venue"): Operation(
            "At the central: give a fixture to a league venue, which makes its match",
            lg,
            "organiser",
            body_schema={
                "type": "object",
                "required": ["venue"],
                "properties": {"venue": {"type": "string", "description": "a venue's id (GET /api/league/venues)"}},
            },
            answer_schema={"$ref": "#/components/schemas/LeagueAssignment"},
            description="400 `invalid` for a venue the central does not know; 409 `conflict` once the fixture has a "
            "match (made at the central, or said made by its venue). Given to another venue while it has none. The "
            "central itself makes no match of a fixture given to a venue (409 `conflict`, D375).",
            errors=(409,),
        ),
        ("GET", "/api/league/assignments"): Operation(
            "At the central: the fixtures given to venues, their matches and the suspensions their venue did not know",
            lg,
            "organiser",
            parameters=({"name": "competition", "in": "query", "schema": {"type": "string"}, "description": "only its"},),
            answer_schema={"type": "array", "items": {"$ref": "#/components/schemas/LeagueAssignment"}},
        ),
        ("GET", "/api/league/assigned"): Operation(
            "At the central (venue key): the fixtures given to that venue, with rosters, officials and suspensions",
            lg,
            "venue",
            answer_schema={
                "type": "object",
                "required": ["venue", "at", "fixtures"],
                "properties": {
                    "venue": {"type": "string"},
                    "at": {"type": "string", "description": "when the central answered (ISO 8601)"},
                    "fixtures": {"type": "array", "items": {"$ref": "#/components/schemas/LeagueFixture"}},
                },
            },
            description="What the venue's sender fetches whenever it reaches the central (D377).",
        ),
        ("POST", "/api/league/claims"): Operation(
            "At the central (venue key): the venue made this match of this fixture",
            lg,
            "venue",
            body_schema={
                "type": "object",
                "required": ["fixture", "match"],
                "properties": {
                    "fixture": {"type": "string", "description": "the fixture's id at the venue (`<competition>-<fixture>`)"},
                    "match": {"type": "string", "description": "the match the venue made of it"},
                },
            },
            answer_schema={
                "type": "object",
                "required": ["fixture", "match", "counted"],
                "properties": {
                    "fixture": {"type": "string"},
                    "match": {"type": "string"},
                    "counted": {"type": "boolean", "description": "whether the central holds the match yet"},
                },
            },
            description="Sent by the venue's sender until answered; the same claim again is a 200. 409 `conflict`: the "
            "fixture has another match, or is another venue's (D376).",
            errors=(409,),
        ),
        ("GET", "/api/league/fixtures"): Operation(
            "At a venue: the fixtures the central gave it, as last fetched, with the match made here of each",
            lg,
            "organiser",
            answer_schema={"type": "array", "items": {"$ref": "#/components/schemas/LeagueFixture"}},
            description="404 when this server sends to no central (QALISBALL_UPSTREAM is not set). Each fixture adds "
            "`fetched_at`, `venue_match` (the match made here), `claim` (`pending`, `accepted`, `refused`) and `claim_error`.",
            errors=(404,),
        ),
        ("POST", "/api/league/fixtures/<fid>/match"): Operation(
            "At a venue: make a league fixture's match from the rosters and suspensions last fetched",
            lg,
            "organiser",
            status=201,
            body=cs.LineupSchema,
            answer_schema={
                "type": "object",
                "required": ["id", "tokens"],
                "properties": {"id": {"type": "string"}, "tokens": {"type": "object", "description": "role -> token"}},
            },
            description="Lineups as for POST /api/competitions/{comp_id}/fixtures/{fid}/match, checked against the "
            "rosters (400) and the suspensions fetched (409 `rule` C4), suspended players left off the copy; works "
            "without the central. 409 `conflict` for a second match of the fixture (D376).",
            errors=(409,),
        ),
        # The feed (API.md "The feed", issue 30)
        ("GET", "/api/feed"): Operation(
            "Every public change as Server-Sent Events (Last-Event-ID or ?since= resumes)",
            f,
            answer="text/event-stream",
            answer_schema={
                "oneOf": [
                    {"$ref": "#/components/schemas/FeedMatchMessage"},
                    {"$ref": "#/components/schemas/FeedCompetitionMessage"},
                ]
            },
            parameters=_FEED_FILTERS,
            description="Each message: `id: <cursor>`, `event: match | competition`, `data:` one of the messages "
            "described (JSON). `: keep-alive` comment lines while nothing happens (every 10 s). A cursor this server "
            "never gave is a 400 naming `since`; more than 20 open streams from one address, a 429.",
            errors=(429,),
        ),
        ("GET", "/api/feed.json"): Operation(
            "The same messages as pages, for pollers (?since=, ?limit= ≤ 1000)",
            f,
            answer_schema={"$ref": "#/components/schemas/FeedPage"},
            parameters=(*_FEED_FILTERS, _FEED_LIMIT),
        ),
        # Webhooks (API.md "The feed", issue 30 item 3; docs/feed.md)
        ("POST", "/api/webhooks"): Operation(
            "Subscribe a URL to the feed's messages (signed POSTs, Standard Webhooks)",
            f,
            "organiser",
            201,
            body_schema={"$ref": "#/components/schemas/WebhookRequest"},
            answer_schema={"$ref": "#/components/schemas/WebhookCreated"},
            examples={"one match": {"url": "http://93.184.216.34/qalisball", "match": ["m_1a2b3c"]}},
            description="Each message is POSTed as the `feedMessage` webhook of this description says. A URL on a "
            "loopback, private, link-local or multicast address (also after DNS resolution) is a 400 naming `url` "
            "unless QALISBALL_WEBHOOK_ALLOW_PRIVATE=1 (D332).",
        ),
        ("GET", "/api/webhooks"): Operation(
            "The subscriptions (never their secrets)",
            f,
            "organiser",
            answer_schema={"type": "array", "items": {"$ref": "#/components/schemas/Webhook"}},
        ),
        ("GET", "/api/webhooks/<sub_id>"): Operation(
            "One subscription", f, "organiser", answer_schema={"$ref": "#/components/schemas/Webhook"}
        ),
        ("DELETE", "/api/webhooks/<sub_id>"): Operation("Delete a subscription: nothing more is sent", f, "organiser", 204),
        ("GET", "/api/webhooks/<sub_id>/deliveries"): Operation(
            "A subscription's deliveries log, newest first",
            f,
            "organiser",
            answer_schema={"type": "array", "items": {"$ref": "#/components/schemas/WebhookDelivery"}},
            parameters=({**_FEED_LIMIT, "description": "at most this many (default 100)"},),
        ),
        ("POST", "/api/webhooks/<sub_id>/redeliver"): Operation(
            "Send every message after a cursor again, in order (a failing subscription becomes active)",
            f,
            "organiser",
            202,
            body_schema={
                "type": "object",
                "required": ["since"],
                "additionalProperties": False,
                "properties": {"since": _CURSOR},
            },  # fmt: skip
            answer_schema={"$ref": "#/components/schemas/Webhook"},
        ),
        ("GET", "/competitions/<comp_id>/fixtures.ics"): Operation(
            "The fixtures as an iCalendar (RFC 5545; ?team= one team's)",
            f,
            answer="text/calendar",
            parameters=({"name": "team", "in": "query", "required": False, "schema": {"type": "string"}},),
        ),
        # Matches (API.md "Matches", "Events", "Match day")
        ("POST", "/api/matches"): Operation(
            "Create a match", m, "organiser", 201, body=ms.MatchSchema, examples={"demo match": demo_request()}
        ),
        ("GET", "/api/matches"): Operation("List matches", m, answer_schema=_JSON_LIST),
        ("GET", "/api/matches/<match_id>"): Operation("A match's public state", m, answer_schema=_JSON_OBJECT),
        ("GET", "/api/matches/<match_id>/events"): Operation(
            "A match's event log", m, answer_schema={"type": "array", "items": _LOG_ENTRY}
        ),
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
        ("GET", "/api/training"): Operation(
            "The trainer's sessions, running first (status open, closed or expired)", t, "organiser", answer_schema=_JSON_LIST
        ),
        ("POST", "/api/training/<session_id>/close"): Operation(
            "End a session: its code opens nothing any more (D221)", t, "organiser", answer_schema=_JSON_OBJECT
        ),
        ("GET", "/api/training/join"): Operation(
            "The session a code opens, and what its rule book lets a trainee answer", t, answer_schema=_JSON_OBJECT, errors=(409,)
        ),
        ("GET", "/api/training/<session_id>/field.svg"): Operation(
            "The match's field as the console draws it (?code=)", t, answer="image/svg+xml"
        ),
        ("POST", "/api/training/<session_id>/trainees"): Operation(
            "A trainee joins once: their token (the same name again, or a full session: 409; D220)",
            t,
            status=201,
            body=ts.JoinSchema,
            errors=(409,),
        ),
        ("GET", "/api/training/<session_id>/questions"): Operation(
            "The session's questions (?code=)", t, answer_schema=_JSON_LIST
        ),
        ("POST", "/api/training/<session_id>/answers"): Operation(
            "Answer a question with the trainee's token, graded by the engine", t, body=ts.AnswerSchema, errors=(409,)
        ),
        ("GET", "/api/training/<session_id>/answers"): Operation(
            "Everyone's answers (?code=; ?since=, ?limit= ≤ 500)", t, answer_schema=_JSON_LIST
        ),
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
        ("GET", "/league/fixtures"): _page("A league venue's fixtures, with the form making each one's match", token=True),
        ("GET", "/screens/<name>"): _page("A venue's big screen"),
        ("GET", "/images/<image_id>"): _page("An uploaded image", "image/*"),
        ("GET", "/docs/"): _page("The documentation site (`make docs` builds it; 404 says how until then)"),
        ("GET", "/docs/<path:filename>"): _page("A page or file of the documentation site", "*/*"),
        ("POST", "/sign-in"): _page("Sign in with a token (a form)", body_schema=_JSON_OBJECT, body_media=_FORM, status=303),
        ("POST", "/forget-token"): _page(
            "Forget the organiser token on this device", body_schema=_JSON_OBJECT, body_media=_FORM, status=303
        ),
    }


_FEED_FILTERS: tuple[dict[str, Any], ...] = (
    {"name": "match", "in": "query", "required": False, "schema": {"type": "array", "items": {"type": "string"}},
     "explode": True, "description": "only this match's messages (may repeat)"},
    {"name": "competition", "in": "query", "required": False, "schema": {"type": "array", "items": {"type": "string"}},
     "explode": True, "description": "this competition's changes and its fixtures' matches (may repeat)"},
    {"name": "since", "in": "query", "required": False, "schema": {"type": "string"},
     "description": "the messages after this cursor (0: from the beginning)"},
)  # fmt: skip
_FEED_LIMIT = {"name": "limit", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 1, "maximum": 1000}}
_CURSOR = {"type": "string", "description": "the message's place in the journal: opaque, later messages have later cursors"}
# The feed's messages (API.md "The feed"), as components: the webhooks POST the same bodies.
FEED_SCHEMAS: dict[str, dict[str, Any]] = {
    "FeedMatchMessage": {
        "type": "object",
        "required": ["v", "cursor", "match", "seq", "event", "state"],
        "properties": {
            "v": {"const": 1},
            "cursor": _CURSOR,
            "match": {"type": "string"},
            "seq": {"type": "integer"},
            "event": {"type": "object", "description": "the log entry as GET /api/matches/<id>/events listed it when "
                      "stored (voided_by null), with its rulings; without a note's text or a signature's image"},
            "state": {"type": "object", "description": "the public state right after it, as GET /api/matches/<id>"},
        },
    },
    "FeedCompetitionMessage": {
        "type": "object",
        "required": ["v", "cursor", "competition", "change", "competition_state"],
        "properties": {
            "v": {"const": 1},
            "cursor": _CURSOR,
            "competition": {"type": "string"},
            "change": {"type": "string", "description": "what changed: competition_created, match_created, officials, "
                       "forfeit, result, protest, protest_decided, lots, reschedule"},
            "detail": {"type": "object", "description": "the change as the competition log records it"},
            "competition_state": {"type": "object", "description": "as GET /api/competitions/<id> when sent (D282)"},
        },
    },
    "FeedPage": {
        "type": "object",
        "required": ["messages", "next"],
        "properties": {
            "messages": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/FeedMatchMessage"},
                                                              {"$ref": "#/components/schemas/FeedCompetitionMessage"}]}},
            "next": {**_CURSOR, "description": "the cursor to ask from next"},
        },
    },
}  # fmt: skip


_NULLABLE = {"type": ["string", "null"]}
# The league (issue 31, API.md "The league"; the batch: qalisball/league/central.py, D371).
LEAGUE_SCHEMAS: dict[str, dict[str, Any]] = {
    "LeagueVenue": {
        "type": "object",
        "required": ["id", "name", "last_seen", "matches", "behind_s"],
        "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "last_seen": {**_NULLABLE, "description": "the venue's last request (ISO 8601), null if never"},
            "matches": {"type": "integer", "description": "the venue's matches the central holds"},
            "behind_s": {"type": ["integer", "null"], "description": "seconds since its last message arrived, null if never"},
            "key_revoked": {"type": "boolean", "description": "true while its key is revoked, no new one issued (D380)"},
        },
    },
    "LeagueHeld": {
        "type": "object",
        "required": ["cursor", "digest"],
        "properties": {
            "cursor": {**_CURSOR, "description": "the venue's last message held (its own feed's cursor; 0: none)"},
            "digest": {**_NULLABLE, "description": "that message's digest (SHA-256 of its cursor, kind, subject, body, entry)"},
            "stored": {"type": "integer", "description": "POST: how many messages of the batch were new"},
        },
    },
    "LeagueBatch": {
        "type": "object",
        "required": ["after", "messages"],
        "properties": {
            "after": {**_CURSOR, "description": "the venue's cursor the batch continues (the central's acknowledgement)"},
            "after_digest": {**_NULLABLE, "description": "the digest of the venue's own message at `after`"},
            "messages": {"type": "array", "maxItems": 500, "items": {
                "type": "object",
                "required": ["cursor", "kind", "subject", "body"],
                "properties": {
                    "cursor": _CURSOR, "kind": {"enum": ["match", "competition"]}, "subject": {"type": "string"},
                    "body": {"type": "string", "description": "the journal row's JSON as the venue stored it"},
                    "entry": {"type": "object", "description": "a match message: the log entry as the venue's store "
                              "holds it (its hashed columns, prev_hash, hash, body_hash, response, seal, rulings)"},
                    "match": {"type": "object", "description": "a match's first entry: its created_at and setup"},
                },
            }},
        },
    },
    "LeagueAssignment": {
        "type": "object",
        "required": ["competition", "fixture", "venue", "assigned_at", "fetched_at", "match", "late_suspensions"],
        "properties": {
            "competition": {"type": "string"}, "fixture": {"type": "string"}, "venue": {"type": "string"},
            "assigned_at": {"type": "string"},
            "fetched_at": {**_NULLABLE, "description": "when the venue last fetched it"},
            "match": {**_NULLABLE, "description": "the match its venue said it made of it"},
            "late_suspensions": {"type": "array", "description": "players its match names who are suspended for it, "
                                 "learnt after the venue fetched (L4 with C7, D378)", "items": {"type": "object"}},
        },
    },
    "LeagueFixture": {
        "type": "object",
        "required": ["id", "competition", "fixture", "home", "away", "officials", "suspensions", "settings"],
        "properties": {
            "id": {"type": "string", "description": "the fixture's id at the venue: `<competition id>-<fixture id>`"},
            "competition": {"type": "object"}, "fixture": {"type": "string"}, "number": {"type": "integer"},
            "starts_at": _NULLABLE, "status": _NULLABLE, "match": _NULLABLE,
            "claimed": {**_NULLABLE, "description": "the match its venue said it made of it"},
            "blocked": {"type": ["object", "null"], "description": "why its match cannot be made yet: rule, message"},
            "home": {"type": ["object", "null"], "description": "the team with its kept roster (players)"},
            "away": {"type": ["object", "null"]},
            "officials": {"type": "object", "description": "role -> name"},
            "suspensions": {"type": "array", "items": {"type": "object"},
                            "description": "as GET /api/competitions/{id}/suspensions, the two teams'"},
            "labels": {"type": "object"},
            "settings": {"type": "object", "description": "starters, field, rules and venue of the match"},
        },
    },
    "LeagueUpstream": {
        "type": "object",
        "required": ["upstream", "connected", "pending", "last_ack", "last_error"],
        "properties": {
            "upstream": {"type": "string"}, "connected": {"type": "boolean"},
            "pending": {"type": "integer", "description": "messages stored and not yet acknowledged"},
            "last_ack": _NULLABLE, "last_error": _NULLABLE,
        },
    },
}  # fmt: skip


_IDS = {"type": "array", "items": {"type": "string"}, "maxItems": 100}
# The webhooks (issue 30 item 3): the subscription's shapes, and the payload each POST carries.
WEBHOOK_SCHEMAS: dict[str, dict[str, Any]] = {
    "WebhookRequest": {
        "type": "object",
        "required": ["url"],
        "additionalProperties": False,
        "properties": {
            "url": {"type": "string", "format": "uri", "maxLength": 2048,
                    "description": "http or https; a public address (D332)"},
            "match": {**_IDS, "description": "only these matches' messages (as the feed's ?match=)"},
            "competition": {**_IDS, "description": "these competitions' changes and their fixtures' matches"},
            "since": {**_CURSOR, "description": "start after this cursor (0: from the beginning); default: the next change"},
        },
    },
    "WebhookCreated": {
        "type": "object",
        "required": ["id", "secret"],
        "properties": {
            "id": {"type": "string"},
            "secret": {"type": "string", "pattern": "^whsec_",
                       "description": "shown once: the key that signs (Standard Webhooks)"},
        },
    },
    "Webhook": {
        "type": "object",
        "required": ["id", "url", "match", "competition", "status", "cursor", "created_at"],
        "properties": {
            "id": {"type": "string"},
            "url": {"type": "string"},
            "match": _IDS,
            "competition": _IDS,
            "status": {"enum": ["active", "failing"], "description": "failing: a message given up after its 7th try (D331)"},
            "cursor": {**_CURSOR, "description": "the last message delivered (or given up); the next is the first after it"},
            "created_at": {"type": "string", "format": "date-time"},
        },
    },
    "WebhookDelivery": {
        "type": "object",
        "required": ["cursor", "status", "attempts", "last_status", "last_at"],
        "properties": {
            "cursor": _CURSOR,
            "status": {"enum": ["delivered", "pending", "failed"]},
            "attempts": {"type": "integer", "minimum": 1, "maximum": 7},
            "last_status": {"type": ["integer", "null"], "description": "the HTTP status of the last try (null: no answer)"},
            "last_error": {"type": ["string", "null"], "description": "why the last try failed, in words"},
            "last_at": {"type": "string", "format": "date-time"},
        },
    },
    "WebhookPayload": {
        "description": "The body of each webhook POST: the feed's message, byte for byte as GET /api/feed's data",
        "oneOf": [{"$ref": "#/components/schemas/FeedMatchMessage"}, {"$ref": "#/components/schemas/FeedCompetitionMessage"}],
    },
}  # fmt: skip
_WEBHOOK_HEADERS = {
    "webhook-id": "the message's cursor (the same for every try of it)",
    "webhook-timestamp": "Unix seconds of this try",
    "webhook-signature": "v1,<base64 of HMAC-SHA256 over '<webhook-id>.<webhook-timestamp>.<body>', keyed with the "
    "base64-decoded part of the secret after whsec_>",
}
WEBHOOKS = {
    "feedMessage": {
        "post": {
            "summary": "Each message of the feed, POSTed to a subscription's URL (Standard Webhooks)",
            "description": "A 2xx within 10 s delivers it; anything else is tried again after 5 s, 25 s, 2 min, "
            "15 min, 1 h and 2 h (D330), then given up and the subscription stops (D331). In cursor order: a "
            "message waits until the one before it is delivered. Verify with the standardwebhooks package: "
            "docs/feed.md.",
            "tags": ["feed"],
            "parameters": [{"name": n, "in": "header", "required": True, "schema": {"type": "string"}, "description": d}
                           for n, d in _WEBHOOK_HEADERS.items()],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/WebhookPayload"}}}},
            "responses": {"2XX": {"description": "delivered"}, "default": {"description": "a failed try: tried again"}},
        }
    }
}  # fmt: skip


def _finish(doc: dict[str, Any]) -> dict[str, Any]:
    """What the schemas cannot say: each event schema's ``type`` is its own, and a correction carries a call."""
    schemas = doc["components"]["schemas"]
    schemas.update(FEED_SCHEMAS)
    schemas.update(WEBHOOK_SCHEMAS)
    schemas.update(LEAGUE_SCHEMAS)
    doc["webhooks"] = WEBHOOKS
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
