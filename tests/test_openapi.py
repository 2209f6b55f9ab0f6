"""Issue 23, item 2: /api/openapi.json is an OpenAPI 3.1 description of every route, generated from the
marshmallow schemas, and every example in it is a request the server accepts; /api/docs shows it with the
vendored viewer, under the pages' CSP (D49)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from qalisball.match.schemas import EVENT_SCHEMAS, MatchSchema
from qalisball.rules.catalogue import BY_TYPE, ROLES, may_log
from tests.conftest import ADMIN, FakeClock, auth

ROOT = Path(__file__).resolve().parents[1]
# Routes the document leaves out, and why: Flask's static files are no interface (a script's name may change
# with any release); everything else, pages included, is described.
EXCLUDED = {"/static/<path:filename>": "Flask's static files"}
_ARG = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


@pytest.fixture
def doc(client: FlaskClient) -> dict[str, Any]:
    r = client.get("/api/openapi.json")
    assert r.status_code == 200 and r.mimetype == "application/json"
    data: dict[str, Any] = r.get_json()
    return data


def _routes(app: Flask) -> list[tuple[str, str]]:
    return sorted(
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
        if rule.rule not in EXCLUDED
    )


def test_the_document_validates_against_the_openapi_3_1_schema(doc: dict[str, Any]) -> None:
    assert doc["openapi"] == "3.1.0"
    validate(doc)  # openapi-spec-validator picks the 3.1 schema from the "openapi" field


def test_every_route_of_the_app_appears_with_its_method(app: Flask, doc: dict[str, Any]) -> None:
    routes = _routes(app)
    assert len(routes) > 60
    missing = [(m, r) for r, m in routes if m.lower() not in doc["paths"].get(_ARG.sub(r"{\1}", r), {})]
    assert not missing, missing
    listed = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    assert len(listed) == len(routes), "no route is described that the app does not have"


def test_every_route_is_described_not_just_listed(doc: dict[str, Any]) -> None:
    """A new route without an entry in server/api_docs.py's table shows up as 'undescribed': this names it."""
    bare = [f"{m.upper()} {p}" for p, ops in doc["paths"].items() for m, op in ops.items() if op["tags"] == ["undescribed"]]
    assert not bare, bare
    # Every tag is declared, with its words, in the order the viewer shows them (the API first, the pages last).
    declared = [t["name"] for t in doc["tags"]]
    assert declared[0] == "matches" and declared[-1] == "pages"
    assert {t for ops in doc["paths"].values() for op in ops.values() for t in op["tags"]} == set(declared)


def test_pages_are_listed_as_html_and_the_api_as_json(doc: dict[str, Any]) -> None:
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            ok = next(iter(op["responses"].values()))
            media = set(ok.get("content", {}))
            if path in ("/", "/competitions") or (path.startswith(("/matches/", "/competitions/")) and media == {"text/html"}):
                assert op["tags"] == ["pages"], (method, path)
            if op["tags"] == ["pages"] and method == "get" and path.endswith(("/scoreboard", "/referee", "/lineups")):
                assert media == {"text/html"}, (method, path)
    assert set(doc["paths"]["/api/matches"]["get"]["responses"]["200"]["content"]) == {"application/json"}


def test_request_bodies_are_the_marshmallow_schemas(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    match = schemas["Match"]
    assert set(match["properties"]) == {f.data_key or name for name, f in MatchSchema().fields.items()}
    assert set(match["required"]) == {"home", "away", "starters"}
    assert match["additionalProperties"] is False  # unknown fields are a 400 (RAISE)
    body = doc["paths"]["/api/matches/{match_id}/events"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["discriminator"]["mapping"]) == set(EVENT_SCHEMAS) == set(BY_TYPE)
    for event_type, ref in body["discriminator"]["mapping"].items():
        event = schemas[ref.rsplit("/", 1)[1]]
        assert event["properties"]["type"]["const"] == event_type
        assert set(event["properties"]) == set(EVENT_SCHEMAS[event_type]().fields)
    # The misconduct codes: a closed list in the schema (a client's own code is a 400).
    assert schemas["Reason"]["properties"]["code"]["enum"][:-1] == [
        p for p in next(p for p in BY_TYPE["note"].params if p.name == "code").choices
    ]


def _examples(doc: dict[str, Any]) -> list[tuple[str, str, str, str, Any]]:
    """Every request example: (method, path, media type, name, body)."""
    out = []
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            for media, content in op.get("requestBody", {}).get("content", {}).items():
                for name, example in content.get("examples", {}).items():
                    out.append((method, path, media, name, example["value"]))
    return out


def test_every_example_fits_its_schema_in_the_document(doc: dict[str, Any]) -> None:
    registry: Registry[Any] = Registry().with_resource("urn:doc", Resource.from_contents(doc, default_specification=DRAFT202012))
    checked = 0
    for method, path, media, name, value in _examples(doc):
        if media != "application/json":
            continue
        schema = doc["paths"][path][method]["requestBody"]["content"][media]["schema"]
        schema = json.loads(json.dumps(schema).replace('"#/components', '"urn:doc#/components'))
        errors = list(OAS31Validator(schema, registry=registry).iter_errors(value))
        assert not errors, (method, path, name, [e.message for e in errors])
        checked += 1
    assert checked > 50


def test_event_examples_cover_every_event_type_of_the_catalogue(doc: dict[str, Any]) -> None:
    post = doc["paths"]["/api/matches/{match_id}/events"]["post"]
    types = {e["value"]["type"] for e in post["requestBody"]["content"]["application/json"]["examples"].values()}
    assert types == set(BY_TYPE)


def _role(event: dict[str, Any]) -> str:
    """The first role whose token may post the example (the catalogue's "who")."""
    entry = BY_TYPE[event["type"]]
    variant = event.get(entry.variant_param) if entry.variant_param else None
    return next(r for r in (*ROLES, "organiser") if may_log(r, event["type"], variant))


def test_every_example_is_accepted_by_the_server(client: FlaskClient, clock: FakeClock, doc: dict[str, Any]) -> None:
    """Each example posted to a test app: the match is the demo's, the events its story in order (the clock run
    to the end of each half before its period_end), then the teams', officials' and screens' examples."""
    examples = _examples(doc)
    ids: dict[str, str] = {"name": "field-1"}
    tokens: dict[str, str] = {"organiser": ADMIN}
    first = {"/api/matches": 0, "/api/teams": 1}
    answered = 0
    for method, path, media, name, value in sorted(examples, key=lambda e: first.get(e[1], 2)):
        url = re.sub(r"{(\w+)}", lambda m: ids[m.group(1)], path)
        if path == "/api/matches/{match_id}/events":
            role = _role(value)
            if value["type"] == "period_end":
                state = client.get(url.removesuffix("/events")).get_json()
                clock.advance(max(0, (state["clock"]["length_ms"] or 0) - state["clock"]["elapsed_ms"]))
            headers = auth(tokens[role])
        else:
            headers = auth(ADMIN)
        if media == "application/json":
            r = client.open(url, method=method.upper(), json=value, headers=headers)
        else:
            r = client.open(url, method=method.upper(), data=value.encode(), content_type=media, headers=headers)
        assert r.status_code in (200, 201), (method, path, name, r.get_json())
        answered += 1
        body = r.get_json()
        if path == "/api/matches":
            ids["match_id"] = body["id"]
            tokens.update(body["tokens"])
        if path == "/api/teams":
            ids["team_id"] = body["id"]
    assert answered == len(examples) > 50


def test_the_viewer_is_vendored_and_runs_under_the_pages_csp(client: FlaskClient) -> None:
    r = client.get("/api/docs")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert "<script>" not in html and "http://" not in html and "https://" not in html  # no inline script, no CDN
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self';" in csp  # the pages' policy, unchanged: no inline script, no eval (D49)
    for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert (ROOT / src.lstrip("/")).is_file(), src
        with client.get(src) as served:  # closes the file the static route streams
            assert served.status_code == 200, src
    assert 'data-url="/api/openapi.json"' in html


def test_issue33_item5_the_trainees_join_route_is_described_with_its_body_and_its_409(doc: dict[str, Any]) -> None:
    op = doc["paths"]["/api/training/{session_id}/trainees"]["post"]
    assert "201" in op["responses"] and "409" in op["responses"]
    body = doc["components"]["schemas"]["Join"]
    assert set(body["properties"]) == {"code", "name"} and set(body["required"]) == {"code", "name"}
    answer = doc["components"]["schemas"]["Answer"]
    assert "token" in answer["required"]  # an answer carries the trainee's token (D220)
    assert "get" in doc["paths"]["/api/training"] and "post" in doc["paths"]["/api/training/{session_id}/close"]


def test_issue30_item5_the_feeds_messages_are_components_and_real_pages_fit_them(
    client: FlaskClient, clock: FakeClock, doc: dict[str, Any]
) -> None:
    from tests.conftest import MatchDriver

    schemas = doc["components"]["schemas"]
    assert {"FeedMatchMessage", "FeedCompetitionMessage", "FeedPage"} <= set(schemas)
    assert doc["paths"]["/api/feed"]["get"]["tags"] == ["feed"]
    assert "text/event-stream" in doc["paths"]["/api/feed"]["get"]["responses"]["200"]["content"]
    m = MatchDriver(client, clock)
    m.kickoff()
    page = client.get("/api/feed.json?since=0").get_json()
    assert [x["seq"] for x in page["messages"]] == [1, 2]
    registry: Registry[Any] = Registry().with_resource("urn:doc", Resource.from_contents(doc, default_specification=DRAFT202012))
    schema = {"$ref": "urn:doc#/components/schemas/FeedPage"}
    errors = list(OAS31Validator(schema, registry=registry).iter_errors(page))
    assert not errors, [e.message for e in errors]
