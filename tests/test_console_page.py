"""The console page as the server renders it (issue 10, items 1 and 7): its script is ES modules from
static files (no inline script: a content-security-policy is coming), its call list is the event
catalogue's, and it carries the rule core's messages translated, so the engine's reasons read in the
official's language."""

from __future__ import annotations

import json
import re
from typing import Any

from flask.testing import FlaskClient

from qalisball.match import pages
from qalisball.rules import catalogue
from tests.conftest import MatchDriver
from tests.console_script import console_view


def console(client: FlaskClient, match: MatchDriver, lang: str, role: str = "referee") -> tuple[str, dict[str, Any]]:
    html = client.get(f"/matches/{match.id}/referee?token={match.tokens[role]}&lang={lang}", follow_redirects=True).get_data(
        as_text=True
    )
    m = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', html, re.S)
    assert m
    return html, json.loads(m.group(1))


def test_console_scripts_are_static_files_and_its_code_an_es_module(client: FlaskClient, match: MatchDriver) -> None:
    html, _ = console(client, match, "en")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    inline = [attrs for attrs, body in scripts if body.strip() and 'type="application/json"' not in attrs]
    assert not inline, "only page data may be inline"
    assert '<script type="module" src="/static/js/console/main.js"></script>' in html
    for name in (
        "main",
        "page",
        "legal",
        "queue",
        "forecast",
        "builder",
        "draw",
        "log",
        "fix",
        "roster",
        "notes",
        "sheet",
        "devices",
    ):
        with client.get(f"/static/js/console/{name}.js") as r:
            assert r.status_code == 200 and "javascript" in r.mimetype, name


def test_console_calls_are_the_catalogues_with_what_each_asks_for(client: FlaskClient, match: MatchDriver) -> None:
    html, page = console(client, match, "en")
    data = console_view(page)  # the calls the script builds from the embedded catalogue (issue 23)
    calls = {c["call"]: c for c in data["calls"]}
    assert [c["call"] for c in data["calls"]] == [c["call"] for c in catalogue.console_calls() if "referee" in c["who"]]
    assert re.findall(r'data-action="(\w+)"', html)[-1] == "abandon"
    # The schema needs the spot of an out-of-play ball, not of a restart violation or a foul at a dead ball.
    assert calls["ball_out_side"]["spot"] == "required" and calls["restart"]["spot"] == "optional"
    assert calls["foul"]["spot"] == "optional" and calls["goal"]["spot"] == "none"
    assert {p["name"] for p in calls["substitution"]["params"]} == {"team", "out", "in"}
    assert "kind" not in {p["name"] for p in calls["ball_out_side"]["params"]}  # the variant is the call
    where = next(p for p in calls["foul"]["params"] if p["name"] == "where")
    assert where["choices"] == ["field", "beyond_end_line", "beyond_side_line"] and where["default"] == "field"


def test_console_hands_over_every_rule_message_translated(client: FlaskClient, match: MatchDriver) -> None:
    _, zh = console(client, match, "zh")
    _, en = console(client, match, "en")
    assert set(zh["rule_templates"]) == set(pages.rule_messages()) and len(zh["rule_templates"]) > 60
    assert zh["rule_templates"]["no restart is pending: the ball is in play"] == "没有待发的球：比赛正在进行中"
    assert zh["rule_templates"]["kickoff"] != "kickoff"  # the phrases a reason names are translated too
    assert en["rule_templates"]["kickoff"] == "kickoff"
    untranslated = [m for m, t in zh["rule_templates"].items() if t == m and re.search(r"[a-z]{3}", m)]
    assert not untranslated, untranslated


def test_console_state_carries_legal_for_the_buttons(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff("home", "x0")
    _, data = console(client, match, "en")
    legal = data["state"]["legal"]
    assert legal["calls"]["restart_taken"]["home"] is True
    refused = legal["reasons"][legal["calls"]["goal"]["home"]]
    assert refused["rule"] == "7.1" and refused["template"] in data["rule_templates"]


def test_D90_only_the_console_and_the_api_state_carry_legal(client: FlaskClient, match: MatchDriver) -> None:
    """``legal`` is the engine trying every call (~0.7 ms a state): spectators' pages, the match lists and the
    competitions' fixtures leave it out; the console and ``GET /api/matches/<id>`` keep it."""
    match.kickoff("home", "x0")
    assert "legal" in console(client, match, "en")[1]["state"]
    assert "legal" in client.get(f"/api/matches/{match.id}").get_json()
    for path in (f"/matches/{match.id}", f"/matches/{match.id}/scoreboard", f"/matches/{match.id}/lineups"):
        html = client.get(path).get_data(as_text=True)
        data = json.loads(re.search(r'<script id="page-data" type="application/json">(.*?)</script>', html, re.S).group(1))
        assert data["state"]["seq"] == match.state()["seq"] and "legal" not in data["state"], path
    assert all("legal" not in m for m in client.get("/api/matches").get_json())


def test_M8_the_console_marks_a_second_yellow_from_the_engines_replay(client: FlaskClient, match: MatchDriver) -> None:
    """The console's log says which yellow sent a player off; the page hands over the seqs the engine's
    replay marks (``second_yellows``), the same as ``timeline.json`` it fetches again after a card."""
    match.kickoff("home", "x0")
    first = match.post({"type": "card", "team": "away", "player": 4, "color": "yellow"})["seq"]
    second = match.post({"type": "card", "team": "away", "player": 4, "color": "yellow"})["seq"]
    assert console(client, match, "en")[1]["second_yellows"] == [second]
    marked = [e["seq"] for e in client.get(f"/matches/{match.id}/timeline.json").get_json()["entries"] if e.get("second_yellow")]
    assert marked == [second]
    match.post({"type": "void", "target": first})  # the first yellow undone: the second is a first now
    assert console(client, match, "en")[1]["second_yellows"] == []
