"""Every stored change a page shows has its place in the journal, written in the change's own transaction (issue 28
item 3, D301): a match's events (tests/test_feed.py), a competition's changes, a kept team's or official's, a venue's
screens, images and logos, a training session's changes. The feed carries API.md's kinds only (match, competition).

Each test reads the journal's table itself, as a reader catching up after a restart would: a row is there exactly when
its change is stored. Every test runs on both engines (the ``db`` fixture, issue 32).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import ADMIN, FakeClock, MatchDriver, auth
from tests.pg import sql


@pytest.fixture
def app(db: str, clock: FakeClock) -> Iterator[Flask]:
    """The app on each engine's database (conftest's ``app``, on SQLite only, is the same otherwise)."""
    from qalisball import create_app

    app = create_app({"TESTING": True, "DATABASE": db, "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
    yield app
    app.extensions["qalisball"].store.close()


def journal_rows(app: Flask, after: int = 0) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, subject, message) of every journal row after ``after``, from the database."""
    import json

    found = sql(app.config["DATABASE"], "SELECT kind, subject, body FROM journal WHERE cursor > ? ORDER BY cursor", [after])
    return [(k, s, json.loads(b)) for k, s, b in found]


def head(app: Flask) -> int:
    journal = app.extensions["qalisball"].store.journal
    assert journal is not None
    return int(journal.head)


def test_issue28_item3_D301_a_competitions_fixtures_results_moves_and_protest_decisions_are_journaled(
    app: Flask, client: FlaskClient, clock: FakeClock
) -> None:
    from tests.test_competitions import Api, _league, _six

    api = Api(client)
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    fixtures = api.view(comp)["fixtures"]
    one, two, three = fixtures[0], fixtures[1], fixtures[2]
    official = client.post("/api/officials", json={"name": "Wang Fang", "club": "Neutral"}, headers=auth(ADMIN))
    assert official.status_code == 201
    before = head(app)
    put = client.put(
        f"/api/competitions/{comp}/fixtures/{one['id']}/officials",
        json={"referee": official.get_json()["id"]},
        headers=auth(ADMIN),
    )
    assert put.status_code == 200, put.get_json()
    moved = client.patch(f"/api/competitions/{comp}/fixtures/{two['id']}", json={"field": "Field 2"}, headers=auth(ADMIN))
    assert moved.status_code == 200, moved.get_json()
    forfeit = {"team": three["home"], "reason": "did not come"}
    assert (
        client.post(f"/api/competitions/{comp}/fixtures/{three['id']}/forfeit", json=forfeit, headers=auth(ADMIN)).status_code
        == 200
    )
    made = api.match(comp, one["id"])
    fx = MatchDriver.__new__(MatchDriver)
    fx.client, fx.clock, fx.id, fx.tokens = client, clock, made["id"], made["tokens"]
    fx.kickoff()
    protest = {"fixture": one["id"], "team": one["away"], "text": "the referee missed a foul"}
    r = client.post(f"/api/competitions/{comp}/protests", json=protest, headers=auth(ADMIN))
    assert r.status_code == 201, r.get_json()
    decided = client.post(
        f"/api/competitions/{comp}/protests/{r.get_json()['id']}/decision",
        json={"upheld": False, "text": "rejected"},
        headers=auth(ADMIN),
    )
    assert decided.status_code == 200, decided.get_json()
    rows = journal_rows(app, before)
    changes = [(body["change"], body["detail"].get("fixture")) for kind, subject, body in rows if kind == "competition"]
    assert all(subject == comp for kind, subject, _ in rows if kind == "competition")
    assert changes == [
        ("officials", one["id"]),
        ("reschedule", two["id"]),
        ("forfeit", three["id"]),
        ("match_created", one["id"]),
        ("protest", one["id"]),
        ("protest_decided", None),
    ]
    assert [body["seq"] for kind, subject, body in rows if kind == "match"] == [1, 2]


def test_issue28_item3_D301_kept_teams_and_officials_are_journaled_and_the_feed_keeps_to_its_kinds(
    app: Flask, client: FlaskClient
) -> None:
    team = {"name": "Harbin Ice", "players": [{"number": n, "name": f"P{n}"} for n in range(1, 8)]}
    made = client.post("/api/teams", json=team, headers=auth(ADMIN))
    assert made.status_code == 201
    tid = made.get_json()["id"]
    assert client.patch(f"/api/teams/{tid}", json={"short": "HRB"}, headers=auth(ADMIN)).status_code == 200
    oid = client.post("/api/officials", json={"name": "Li Na"}, headers=auth(ADMIN)).get_json()["id"]
    rows = journal_rows(app)
    assert [(k, s, b["change"]) for k, s, b in rows] == [
        ("team", tid, "team_created"),
        ("team", tid, "team_updated"),
        ("official", oid, "official_created"),
    ]
    assert rows[1][2]["detail"]["short"] == "HRB"
    assert client.get("/api/feed.json?since=0").get_json()["messages"] == []  # API.md's feed: match and competition


def test_issue28_item3_D301_a_venues_screens_images_and_logos_are_journaled(
    app: Flask, client: FlaskClient, match: MatchDriver
) -> None:
    from tests.test_screens import png, put_screen, upload

    before = head(app)
    assert put_screen(client, "hall", {"show": "scoreboard", "match": match.id}).status_code == 201
    image = upload(client, "/api/images?kind=slide", png(), title="Sponsor").get_json()
    logo = upload(client, "/api/logos", png(color="#1565c0"), team="Home")
    assert logo.status_code == 201, logo.get_json()
    assert client.delete("/api/screens/hall", headers=auth(ADMIN)).status_code in (200, 204)
    rows = journal_rows(app, before)
    assert all(kind == "venue" for kind, _, _ in rows)
    assert [(subject.split(":")[0], body["change"]) for _, subject, body in rows] == [
        ("screen", "screen_set"),
        ("image", "image_added"),
        ("image", "image_added"),
        ("logo", "logo_set"),
        ("screen", "screen_deleted"),
    ]
    assert rows[0][1] == "screen:hall" and rows[1][2]["venue"] == {"image": image["id"]}


def test_issue28_item3_D301_a_training_sessions_changes_are_journaled_without_its_code_or_answers(
    app: Flask, client: FlaskClient, match: MatchDriver
) -> None:
    from tests.test_training_api import answer, played, start

    played(match)
    before = head(app)
    s = start(client, match.id)
    r = answer(
        client,
        s,
        {
            "code": s["code"],
            "trainee": "Zhang Wei",
            "n": 1,
            "restart": {"type": "free_kick", "team": "home", "spot": {"x": 33.5, "y": 12.5}},
        },
    )
    assert r.status_code == 200, r.get_json()
    rows = journal_rows(app, before)
    assert {(kind, subject) for kind, subject, _ in rows} == {("training", s["id"])}
    assert [body["change"] for _, _, body in rows] == [
        "training_sessions_insert",
        "training_trainees_insert",
        "training_answers_insert",
    ]
    text = str(rows)
    assert s["code"] not in text and s["tokens"]["Zhang Wei"] not in text and "33.5" not in text
