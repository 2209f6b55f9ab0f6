"""The newer routes attacked as the match routes were (issue 20, items 4, 5 and parts of 9).

Competitions, venue screens, images and logos, and every page: one CSV writer for every export, one
strict JSON reader and one text validator for every route, uploads decoded, bounded and re-encoded,
and no token left in an address. Each test is named after the decision it proves (docs/decisions.md).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball.demo import demo_request

from .conftest import ADMIN, FakeClock, MatchDriver, auth

# A cell a spreadsheet program would run (OWASP "CSV injection"); a number (-3) is no formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
DANGEROUS = ["=1+2 FC", "@SUM(A1) FC", "+cmd|' /C calc'!A0", "-2+3 FC", '=HYPERLINK("http://evil.example","x")']


def _post(client: FlaskClient, url: str, body: Any, expect: int = 201) -> Any:
    r = client.post(url, json=body, headers=auth(ADMIN))
    assert r.status_code == expect, (r.status_code, r.get_json())
    return r.get_json()


def _dangerous_world(client: FlaskClient, clock: FakeClock) -> dict[str, str]:
    """Every text a CSV export can carry set to a formula: teams, players, genders, clubs, officials,
    the competition, its fields, a match's venue. Returns the route parameters that name them."""
    teams = []
    for i, side in enumerate(("home", "away")):
        players = [
            {"number": n, "name": DANGEROUS[(n + i) % len(DANGEROUS)] + f" {n}", "gender": DANGEROUS[n % len(DANGEROUS)][:20]}
            for n in range(1, 9)
        ]
        body = {"name": DANGEROUS[i] + f" {side}", "short": "=S", "club": "@club", "players": players}
        teams.append(_post(client, "/api/teams", body)["id"])
    _post(client, "/api/teams", {"name": "-lonely FC"})  # a team without players: one line of its own
    _post(client, "/api/officials", {"name": "=official", "club": "+club"})
    comp = _post(
        client,
        "/api/competitions",
        {"name": "=Cup", "format": "round_robin", "teams": teams, "fields": [{"name": "@Field"}]},
    )
    fixture = comp["fixtures"][0]
    starting = {"starting": [1, 2, 3, 4, 5, 6]}
    made = _post(client, f"/api/competitions/{comp['id']}/fixtures/{fixture['id']}/match", {"home": starting, "away": starting})
    tokens = made["tokens"]
    for event in (
        {"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        {"type": "period_start"},
        {"type": "restart_taken", "team": "home", "player": 1},
        {"type": "goal", "team": "home", "player": 1},
    ):
        r = client.post(f"/api/matches/{made['id']}/events", json=event, headers=auth(tokens["referee"]))
        assert r.status_code == 201, r.get_json()
    body = demo_request()
    body["venue"] = "=venue"
    body["home"]["name"], body["away"]["name"] = "=home", "@away"
    for p, name in zip(body["home"]["players"], DANGEROUS * 3, strict=False):
        p["name"], p["gender"] = name, "-g"
    match = MatchDriver(client, clock, body)
    match.kickoff()
    return {"comp_id": comp["id"], "match_id": match.id}


def _csv_routes(app: Flask) -> list[str]:
    return sorted(r.rule for r in app.url_map.iter_rules() if r.rule.endswith(".csv") and "GET" in (r.methods or ()))


def test_D150_every_csv_export_escapes_formulas_in_every_text_column(app: Flask, client: FlaskClient, clock: FakeClock) -> None:
    """D51 for the class: every CSV route of the app (found in its URL map, so a new one is covered at
    once), with a formula in every text column, writes no cell a spreadsheet would run."""
    params = _dangerous_world(client, clock)
    routes = _csv_routes(app)
    assert len(routes) >= 4, routes  # teams, standings, stats, the match report
    escaped: set[str] = set()
    for rule in routes:
        names = re.findall(r"<(?:\w+:)?(\w+)>", rule)
        assert set(names) <= set(params), f"{rule}: give this CSV route's parameters a value with a formula"
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: params[m.group(1)], rule)
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code)
        rows = list(csv.reader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff"))))
        assert len(rows) > 1, (url, rows)
        bad = [c for row in rows for c in row if c.startswith(FORMULA_START) and not NUMBER.match(c)]
        assert not bad, f"{url}: cells a spreadsheet would run: {bad[:5]}"
        escaped |= {c for row in rows for c in row if c.startswith("'")}
    # Not vacuous: the dangerous names are in the exports, with the leading quote.
    for text in ("'=1+2 FC home", "'@SUM(A1) FC away", "'-lonely FC", "'=home"):
        assert text in escaped, (text, sorted(escaped)[:20])
