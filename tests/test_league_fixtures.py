"""A league competition in one process (issue 31 item 4, SPEC L4, API.md "A league competition", D375–D378): the
central gives a fixture to a venue, the venue fetches it with rosters, officials and suspensions (C4), makes its
match from what it fetched (also after a restart, without the central), and once the match's messages reach the
central the fixture is live, then finished, and counts there; one match per fixture (409). The real servers on
loopback are tests/test_league_servers.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.competition_play import play, roster
from tests.conftest import ADMIN, FakeClock, auth
from tests.test_league import _app, ingest, new_venue, pending_batch

START = "2027-01-15T09:00:00+08:00"
DEAD = "http://127.0.0.1:9"  # the discard port: the venue's own sender never reaches anything here


@pytest.fixture
def central(tmp_path: Path, clock: FakeClock) -> Iterator[Flask]:
    app = _app(tmp_path / "central.db", clock)
    yield app
    app.extensions["qalisball"].store.close()


def _venue_app(path: Path, clock: FakeClock) -> Flask:
    return _app(path, clock, UPSTREAM=DEAD, UPSTREAM_KEY="k" * 40, UPSTREAM_RETRY_MAX=30)


@pytest.fixture
def venue(tmp_path: Path, clock: FakeClock) -> Iterator[Flask]:
    app = _venue_app(tmp_path / "venue.db", clock)
    yield app
    app.extensions["qalisball"].store.close()


def call(c: FlaskClient, method: str, url: str, body: Any = None, expect: int = 200, token: str | None = ADMIN) -> Any:
    r = c.open(url, method=method, json=body, headers=auth(token) if token else {})
    assert r.status_code == expect, (url, r.status_code, r.get_json())
    return r.get_json()


def league_competition(c: FlaskClient) -> tuple[str, dict[str, Any]]:
    teams = [call(c, "POST", "/api/teams", {"name": n, "players": roster(n)}, 201)["id"] for n in "ABCD"]
    comp = call(
        c,
        "POST",
        "/api/competitions",
        {
            "name": "City League",
            "format": "round_robin",
            "teams": teams,
            "fields": [{"name": "Field 1", "length": 40, "width": 25}],
            "starts_at": START,
        },
        201,
    )
    return comp["id"], call(c, "GET", f"/api/competitions/{comp['id']}")


def next_of(view: dict[str, Any], after: dict[str, Any], team: str) -> dict[str, Any]:
    """The fixture ``team`` plays next after ``after`` (the one a red card in ``after`` suspends him for, C4)."""
    later = view["fixtures"][view["fixtures"].index(after) + 1 :]
    return next(f for f in later if team in (f["home"], f["away"]))


def fetch(central: FlaskClient, venue: Flask, key: str) -> dict[str, Any]:
    """What the venue's sender does when it reaches the central: fetch the assignments and keep them."""
    answer = call(central, "GET", "/api/league/assigned", token=key)
    venue.extensions["qalisball_league_fixtures"].fetched(answer)
    return answer


def tell(central: FlaskClient, venue: Flask, key: str) -> list[Any]:
    """The sender's claims: which match the venue made of which fixture; the central's answers kept at the venue."""
    fixtures = venue.extensions["qalisball_league_fixtures"]
    answers = []
    for claim in fixtures.claims():
        r = central.post("/api/league/claims", json=claim, headers=auth(key))
        fixtures.answered(claim["fixture"], r.status_code == 200, None if r.status_code == 200 else r.get_json()["message"])
        answers.append((r.status_code, r.get_json()))
    return answers


def play_at(venue: Flask, made: dict[str, Any], **kw: Any) -> dict[str, Any]:
    v = venue.test_client()

    def post(token: str, event: dict[str, Any]) -> dict[str, Any]:
        r = v.post(f"/api/matches/{made['id']}/events", json=event, headers=auth(token))
        assert r.status_code == 201, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    return play(post, lambda: v.get(f"/api/matches/{made['id']}").get_json(), made["tokens"], **kw)


SIX = {"starting": [1, 2, 3, 4, 5, 6]}


def test_issue31_L4_D375_a_fixture_is_given_to_a_venue_which_fetches_rosters_officials_and_suspensions(
    central: Flask,
) -> None:
    """L4 (D375): PUT .../venue gives a fixture to a venue (401, 404, 400 for unknown ones, nothing changed); the
    venue's key reads what it was given, with both rosters, the officials and the suspensions (C4); another venue's
    key reads nothing of it; the central makes no match of it itself (409)."""
    c = central.test_client()
    vid, key = new_venue(c)
    _, other_key = new_venue(c, "South field")
    comp, view = league_competition(c)
    first = view["fixtures"][0]
    url = f"/api/competitions/{comp}/fixtures/{first['id']}/venue"
    assert call(c, "PUT", url, {"venue": vid}, 401, token=None)["error"] == "unauthorized"
    assert call(c, "PUT", f"/api/competitions/nope/fixtures/{first['id']}/venue", {"venue": vid}, 404)["error"] == "not_found"
    assert call(c, "PUT", f"/api/competitions/{comp}/fixtures/99/venue", {"venue": vid}, 404)["error"] == "not_found"
    bad = call(c, "PUT", url, {"venue": "v_nope"}, 400)
    assert bad["error"] == "invalid" and bad["fields"]["venue"]
    assert call(c, "GET", "/api/league/assignments", token=ADMIN) == []
    official = call(c, "POST", "/api/officials", {"name": "Referee Wang"}, 201)["id"]
    call(c, "PUT", f"/api/competitions/{comp}/fixtures/{first['id']}/officials", {"referee": official})
    given = call(c, "PUT", url, {"venue": vid})
    assert given["venue"] == vid and given["match"] is None and given["fetched_at"] is None
    assert call(c, "GET", "/api/league/assigned", expect=401, token=None)["error"] == "unauthorized"
    assert call(c, "GET", "/api/league/assigned", token=other_key)["fixtures"] == []
    [x] = call(c, "GET", "/api/league/assigned", token=key)["fixtures"]
    assert x["id"] == f"{comp}-{first['id']}" and x["competition"] == {"id": comp, "name": "City League"}
    assert x["home"]["id"] == first["home"] and [p["number"] for p in x["home"]["players"]] == list(range(1, 9))
    assert x["officials"] == {"referee": "Referee Wang"} and x["suspensions"] == [] and x["blocked"] is None
    assert x["settings"]["starters"] == 6 and x["settings"]["field"]["length"] == 40
    assert call(c, "GET", f"/api/league/assignments?competition={comp}")[0]["fetched_at"] is not None
    refused = call(c, "POST", f"/api/competitions/{comp}/fixtures/{first['id']}/match", {"home": SIX, "away": SIX}, 409)
    assert refused["error"] == "conflict" and vid in refused["message"]
    # given to another venue while no match is made of it
    other = call(c, "GET", "/api/league/venues")[1]["id"]
    call(c, "PUT", url, {"venue": other})
    assert call(c, "GET", "/api/league/assigned", token=key)["fixtures"] == []


def test_issue31_L4_C4_D376_the_venue_makes_the_match_from_what_it_last_fetched_one_per_fixture(
    central: Flask, tmp_path: Path, clock: FakeClock
) -> None:
    """L4, C4 (D376): the venue lists the fixtures as last fetched; its match is checked against the rosters (400)
    and the suspensions fetched (409 rule C4), a suspended player left off the copy; a second match is a 409; all of
    it from the venue's own database, without the central (a restarted venue that reaches no central)."""
    c = central.test_client()
    vid, key = new_venue(c)
    comp, view = league_competition(c)
    first = view["fixtures"][0]
    carded = first["home"]
    made = call(c, "POST", f"/api/competitions/{comp}/fixtures/{first['id']}/match", {"home": SIX, "away": SIX}, 201)
    tokens = made["tokens"]

    def post(token: str, event: dict[str, Any]) -> dict[str, Any]:
        r = c.post(f"/api/matches/{made['id']}/events", json=event, headers=auth(token))
        assert r.status_code == 201, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    play(post, lambda: c.get(f"/api/matches/{made['id']}").get_json(), tokens, goals=["home"], cards=[("home", 3, "red")])
    nxt = next_of(view, first, carded)
    call(c, "PUT", f"/api/competitions/{comp}/fixtures/{nxt['id']}/venue", {"venue": vid})
    venue = _venue_app(tmp_path / "venue.db", clock)
    v = venue.test_client()
    assert call(v, "GET", "/api/league/fixtures", expect=401, token=None)["error"] == "unauthorized"
    assert call(v, "GET", "/api/league/fixtures") == []
    fetch(c, venue, key)
    [x] = call(v, "GET", "/api/league/fixtures")
    fid = x["id"]
    assert x["fetched_at"] is not None and x["venue_match"] is None
    assert [(s["team"], s["player"], s["covers"]) for s in x["suspensions"]] == [(carded, 3, [nxt["id"]])]
    assert "Make the match" not in v.get("/league/fixtures?lang=en").get_data(as_text=True)  # the sign-in form only
    page = v.get(f"/league/fixtures?token={ADMIN}&lang=en", follow_redirects=True).get_data(as_text=True)
    assert "Make the match" in page and "Last fetched from the central" in page and "is suspended for this match" in page
    zh = v.get("/league/fixtures?lang=zh").get_data(as_text=True)
    assert "联赛赛程" in zh and "生成比赛" in zh

    venue.extensions["qalisball"].store.close()  # the venue restarts and reaches no central: what it fetched is kept
    again = _venue_app(tmp_path / "venue.db", clock)
    try:
        v = again.test_client()
        before = call(v, "GET", "/api/matches")
        url = f"/api/league/fixtures/{fid}/match"
        assert call(v, "POST", "/api/league/fixtures/nope/match", {"home": SIX, "away": SIX}, 404)["error"] == "not_found"
        bad = call(v, "POST", url, {"home": {"starting": [1, 2, 3]}, "away": SIX}, 400)
        assert bad["error"] == "invalid" and "home.starting" in bad["fields"]
        assert call(v, "POST", url, {"home": {"starting": [1, 2, 3, 4, 5, 99]}, "away": SIX}, 400)["fields"]["home.starting"]
        where = "home" if nxt["home"] == carded else "away"
        lineup = {"home": SIX, "away": SIX}
        c4 = call(v, "POST", url, lineup, 409)
        assert c4["error"] == "rule" and c4["rule"] == "C4" and "#3" in c4["message"]
        assert call(v, "GET", "/api/matches") == before, "a refused match changed something"
        lineup[where] = {"starting": [1, 2, 4, 5, 6, 7]}
        m = call(v, "POST", url, lineup, 201)
        assert set(m["tokens"]) == {"referee", "assistant1", "assistant2", "scorer"}
        state = call(v, "GET", f"/api/matches/{m['id']}")
        assert 3 not in state["teams"][where]["bench"] + state["teams"][where]["on_field"], "a suspended player is left off"
        assert call(v, "POST", url, lineup, 409)["error"] == "conflict"
        [listed] = call(v, "GET", "/api/league/fixtures")
        assert listed["venue_match"] == m["id"] and listed["claim"] == "pending"
    finally:
        again.extensions["qalisball"].store.close()


def test_issue31_L4_D376_the_venues_match_counts_at_the_central_once_it_arrives_and_a_second_is_refused(
    central: Flask, venue: Flask, clock: FakeClock
) -> None:
    """L4 (D376): the venue tells the central which match it made of the fixture; once the match's messages arrive
    (the ingest, D371) the fixture is live, then finished, and counts in the central's standings; a second match for
    the fixture is refused by the central (409), and the fixture stays with its venue (409)."""
    c = central.test_client()
    vid, key = new_venue(c)
    comp, view = league_competition(c)
    first = view["fixtures"][0]
    call(c, "PUT", f"/api/competitions/{comp}/fixtures/{first['id']}/venue", {"venue": vid})
    fetch(c, venue, key)
    v = venue.test_client()
    [x] = call(v, "GET", "/api/league/fixtures")
    made = call(v, "POST", f"/api/league/fixtures/{x['id']}/match", {"home": SIX, "away": SIX}, 201)
    [(status, answer)] = tell(c, venue, key)
    assert status == 200 and answer["counted"] is False  # told, not held yet
    assert call(c, "GET", f"/api/competitions/{comp}")["fixtures"][0]["status"] == "scheduled"
    assert call(c, "PUT", f"/api/competitions/{comp}/fixtures/{first['id']}/venue", {"venue": vid}, 409)["error"] == "conflict"
    vm = venue.extensions["qalisball"]
    m = vm.matches[made["id"]]
    tokens = made["tokens"]
    v.post(
        f"/api/matches/{m.id}/events",
        json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        headers=auth(tokens["referee"]),
    )
    v.post(f"/api/matches/{m.id}/events", json={"type": "period_start"}, headers=auth(tokens["referee"]))
    batch = pending_batch(venue)
    assert ingest(c, key, batch).status_code == 200
    fixture = call(c, "GET", f"/api/competitions/{comp}")["fixtures"][0]
    assert fixture["status"] == "live" and fixture["match"] == m.id
    held = int(batch["messages"][-1]["cursor"])
    from tests.test_league import ingest_digest

    # the rest of the match at the venue, then its messages
    s = v.get(f"/api/matches/{m.id}").get_json()
    ref, scorer = tokens["referee"], tokens["scorer"]
    team = s["restart"]["team"]
    v.post(
        f"/api/matches/{m.id}/events",
        json={"type": "restart_taken", "team": team, "player": s["teams"][team]["on_field"][0]},
        headers=auth(ref),
    )
    on = v.get(f"/api/matches/{m.id}").get_json()["teams"]["home"]["on_field"]
    assert (
        v.post(
            f"/api/matches/{m.id}/events", json={"type": "goal", "team": "home", "player": on[0]}, headers=auth(ref)
        ).status_code
        == 201
    )
    for _ in range(2):
        length = v.get(f"/api/matches/{m.id}").get_json()["clock"]["length_ms"]
        v.post(f"/api/matches/{m.id}/events", json={"type": "clock", "action": "set", "elapsed_ms": length}, headers=auth(scorer))
        v.post(f"/api/matches/{m.id}/events", json={"type": "period_end"}, headers=auth(ref))
        if v.get(f"/api/matches/{m.id}").get_json()["phase"] == "finished":
            break
        v.post(f"/api/matches/{m.id}/events", json={"type": "period_start"}, headers=auth(ref))
    assert v.get(f"/api/matches/{m.id}").get_json()["phase"] == "finished"
    assert ingest(c, key, pending_batch(venue, held, ingest_digest(c, key))).status_code == 200
    after = call(c, "GET", f"/api/competitions/{comp}")
    assert after["fixtures"][0]["status"] == "finished"
    table = call(c, "GET", f"/api/competitions/{comp}/standings")["all"]
    winner = next(r for r in table if r["team"] == first["home"])
    assert winner["played"] == 1 and winner["points"] == 3, table
    # a second match of the same fixture, from the venue (its league table lost, say): refused by the central
    second = {"fixture": x["id"], "match": "0123456789ab"}
    r = c.post("/api/league/claims", json=second, headers=auth(key))
    assert r.status_code == 409 and r.get_json()["error"] == "conflict"
    assert c.post("/api/league/claims", json={"fixture": x["id"], "match": m.id}, headers=auth(key)).status_code == 200
    assert c.post("/api/league/claims", json={"fixture": 3}, headers=auth(key)).status_code == 400
    assert c.post("/api/league/claims", json={"fixture": "nope", "match": m.id}, headers=auth(key)).status_code == 404
    assert call(c, "GET", f"/api/competitions/{comp}")["fixtures"][0]["match"] == m.id


def test_issue31_L4_C7_D378_a_suspension_the_central_learnt_after_the_venue_fetched_is_shown_next_to_the_fixture(
    central: Flask, venue: Flask
) -> None:
    """L4 with C7 (D378): the venue fetched before a red card at the central suspended one of its players; its match
    names him; once it arrives the central counts it and shows the suspension next to the fixture (the organiser's
    page and GET /api/league/assignments); the result stands until the organiser decides."""
    c = central.test_client()
    vid, key = new_venue(c)
    comp, view = league_competition(c)
    first = view["fixtures"][0]
    carded = first["home"]
    nxt = next_of(view, first, carded)
    call(c, "PUT", f"/api/competitions/{comp}/fixtures/{nxt['id']}/venue", {"venue": vid})
    fetch(c, venue, key)  # before the card
    made = call(c, "POST", f"/api/competitions/{comp}/fixtures/{first['id']}/match", {"home": SIX, "away": SIX}, 201)

    def post(token: str, event: dict[str, Any]) -> dict[str, Any]:
        r = c.post(f"/api/matches/{made['id']}/events", json=event, headers=auth(token))
        assert r.status_code == 201, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    play(post, lambda: c.get(f"/api/matches/{made['id']}").get_json(), made["tokens"], cards=[("home", 3, "red")], goals=["home"])
    [x] = call(venue.test_client(), "GET", "/api/league/fixtures")
    assert x["suspensions"] == []  # what the venue knew
    m = call(venue.test_client(), "POST", f"/api/league/fixtures/{x['id']}/match", {"home": SIX, "away": SIX}, 201)
    play_at(venue, m, goals=["away"])
    tell(c, venue, key)
    assert ingest(c, key, pending_batch(venue)).status_code == 200
    [a] = call(c, "GET", f"/api/league/assignments?competition={comp}")
    assert a["match"] == m["id"]
    assert [(s["team"], s["player"], s["from_fixture"]) for s in a["late_suspensions"]] == [(carded, 3, first["id"])]
    assert call(c, "GET", f"/api/competitions/{comp}")["fixtures"][view["fixtures"].index(nxt)]["status"] == "finished"
    page = c.get(f"/competitions/{comp}/admin?token={ADMIN}&lang=en", follow_redirects=True).get_data(as_text=True)
    assert "suspended" in page and "after the venue fetched" in page


def test_issue31_D376_a_venues_fixture_match_reads_the_competitions_lineup_schema(venue: Flask) -> None:
    """D376 (stop 37's review): the venue's ``POST /api/league/fixtures/<fid>/match`` reads the line-ups with the one
    schema the competitions' ``POST …/fixtures/<fid>/match`` reads (no copy of it in the league), so a bad line-up
    is the same 400 at both."""
    from marshmallow import Schema

    from qalisball.competitions import schemas as cs
    from qalisball.league import venue_fixtures
    from qalisball.match import schemas as ms

    own = [n for n, v in vars(venue_fixtures).items() if isinstance(v, type) and issubclass(v, Schema)]
    assert own == ["LineupSchema", "MatchSchema"] and venue_fixtures.LineupSchema is cs.LineupSchema is ms.LineupSchema
    bad = {"home": {"starting": ["1"]}, "away": {"players": [1]}}
    r = venue.test_client().post("/api/league/fixtures/c-1/match", json=bad, headers=auth(ADMIN))
    from marshmallow import ValidationError

    try:
        cs.LineupSchema().load(bad)
    except ValidationError as exc:
        expected = exc.normalized_messages()
    assert r.status_code == 400 and r.get_json()["fields"] == json.loads(json.dumps(expected)), r.get_json()


def test_issue31_D42_a_league_table_that_cannot_be_read_makes_the_server_read_only_saying_so(
    tmp_path: Path, clock: FakeClock
) -> None:
    """D42 (stop 37's review: one guard in the composition root for the league's tables): a venue whose fixtures'
    table cannot be read starts with none of the league's tables read and read-only, saying why on its pages, as a
    damaged competitions table does; before, it forgot its fixtures and went on writing (a second match of a
    fixture it had made could then be made)."""
    import sqlite3

    db = tmp_path / "venue.db"
    _venue_app(db, clock).extensions["qalisball"].store.close()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE league_fixtures")
    conn.execute("CREATE TABLE league_fixtures (data TEXT)")  # no id: reading it in order fails
    conn.commit()
    conn.close()
    app = _venue_app(db, clock)
    try:
        c = app.test_client()
        page = c.get("/?lang=en").get_data(as_text=True)
        assert "Read-only" in page and "cannot be read" in page and "league_fixtures" not in page.split("Read-only")[0]
        from qalisball.server.demo import demo_request

        r = c.post("/api/matches", json=demo_request(), headers=auth(ADMIN))
        assert r.status_code == 503 and r.get_json()["error"] == "damaged", r.get_json()
        assert app.extensions["qalisball_league_fixtures"].rows == {}
    finally:
        app.extensions["qalisball"].store.close()
