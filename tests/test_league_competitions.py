"""A league venue's own competitions at its central (issue 31 item 2, SPEC L1, API.md "The league", D379): a
competition created at the venue (not a league fixture) reaches the central with its journal messages, which carry
its records; the central lists it (``venue``), shows, reports and serves it as its own, read-only (every write a
403), equal to the venue's, across a restart; a venue key writes only that venue's competitions, teams and
officials. In one process; the real servers on loopback (and the live room) are tests/test_league_servers.py."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball.server.demo import demo_request
from tests.competition_play import play, roster
from tests.conftest import ADMIN, FakeClock, auth
from tests.test_league import _app, ingest, ingest_digest, new_venue, pending_batch

START = "2027-01-15T09:00:00+08:00"
SIX = {"starting": [1, 2, 3, 4, 5, 6]}


@pytest.fixture
def central(tmp_path: Path, clock: FakeClock) -> Iterator[Flask]:
    app = _app(tmp_path / "central.db", clock)
    yield app
    app.extensions["qalisball"].store.close()


@pytest.fixture
def venue(tmp_path: Path, clock: FakeClock) -> Iterator[Flask]:
    app = _app(tmp_path / "venue.db", clock)
    yield app
    app.extensions["qalisball"].store.close()


def call(c: FlaskClient, method: str, url: str, body: Any = None, expect: int = 200, token: str | None = ADMIN) -> Any:
    r = c.open(url, method=method, json=body, headers=auth(token) if token else {})
    assert r.status_code == expect, (url, r.status_code, r.get_json())
    return r.get_json() if r.is_json else r.get_data(as_text=True)


def own_competition(v: FlaskClient) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A round robin made at the venue, its first fixture's match played 2–1 there."""
    teams = [call(v, "POST", "/api/teams", {"name": n, "players": roster(n)}, 201)["id"] for n in "ABCD"]
    official = call(v, "POST", "/api/officials", {"name": "Referee R"}, 201)["id"]
    comp = call(
        v,
        "POST",
        "/api/competitions",
        {
            "name": "Venue Cup",
            "format": "round_robin",
            "teams": teams,
            "fields": [{"name": "Field 1", "length": 40, "width": 25}],
            "starts_at": START,
        },
        201,
    )["id"]
    first = call(v, "GET", f"/api/competitions/{comp}")["fixtures"][0]
    call(v, "PUT", f"/api/competitions/{comp}/fixtures/{first['id']}/officials", {"referee": official})
    made = call(v, "POST", f"/api/competitions/{comp}/fixtures/{first['id']}/match", {"home": SIX, "away": SIX}, 201)

    def post(token: str, event: dict[str, Any]) -> dict[str, Any]:
        r = v.post(f"/api/matches/{made['id']}/events", json=event, headers=auth(token))
        assert r.status_code == 201, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    play(post, lambda: v.get(f"/api/matches/{made['id']}").get_json(), made["tokens"], goals=["home", "away", "home"])
    return comp, first, made


READS = ("", "/standings", "/standings.csv", "/stats", "/stats.csv", "/suspensions")


def test_issue31_L1_D379_a_venues_own_competition_is_listed_shown_and_reported_at_the_central_read_only(
    central: Flask, venue: Flask, clock: FakeClock
) -> None:
    """L1 (D379): the venue's own competition, sent with its journal messages, is the central's to list (``venue``),
    show and report exactly as the venue does; the venue's kept teams are not the central's (its own team of the same
    name stays); every write to the competition or its teams at the central is a 403; a restart keeps it."""
    c, v = central.test_client(), venue.test_client()
    vid, key = new_venue(c)
    mine = call(c, "POST", "/api/teams", {"name": "A", "players": roster("A")}, 201)["id"]  # the central's own "A"
    comp, first, made = own_competition(v)
    batch = pending_batch(venue)
    kinds = {m["kind"] for m in batch["messages"]}
    assert kinds == {"match", "competition"}
    assert sum("records" in m for m in batch["messages"]) == 1  # the competition's last message of the batch
    r = ingest(c, key, batch)
    assert r.status_code == 200, r.get_json()

    theirs = next(x for x in call(v, "GET", "/api/competitions") if x["id"] == comp)
    here = next(x for x in call(c, "GET", "/api/competitions") if x["id"] == comp)
    assert here == {**theirs, "venue": vid} and "venue" not in theirs
    for read in READS:
        assert call(c, "GET", f"/api/competitions/{comp}{read}") == call(v, "GET", f"/api/competitions/{comp}{read}"), read
    assert call(c, "GET", f"/competitions/{comp}/fixtures.ics") == call(v, "GET", f"/competitions/{comp}/fixtures.ics")
    view = call(c, "GET", f"/api/competitions/{comp}")
    assert view["fixtures"][0]["status"] == "finished" and view["fixtures"][0]["match"] == made["id"]
    table = call(c, "GET", f"/api/competitions/{comp}/standings")["all"]
    assert next(r for r in table if r["team"] == first["home"])["points"] == 3
    for page in ("", "/standings", "/screen", "/admin"):
        assert "Venue Cup" in call(c, "GET", f"/competitions/{comp}{page}?lang=en"), page
    assert [t["id"] for t in call(c, "GET", "/api/teams")] == [mine]  # the venue's teams are not the central's kept ones
    assert call(c, "GET", f"/api/teams/{first['home']}")["name"] == call(v, "GET", f"/api/teams/{first['home']}")["name"]

    second = view["fixtures"][1]["id"]
    for method, path, body in [
        ("POST", f"/api/competitions/{comp}/protests", {"fixture": first["id"], "team": first["away"], "text": "x"}),
        ("POST", f"/api/competitions/{comp}/fixtures/{second}/forfeit", {"team": first["home"], "reason": "late"}),
        ("POST", f"/api/competitions/{comp}/fixtures/{second}/match", {"home": SIX, "away": SIX}),
        ("PATCH", f"/api/competitions/{comp}/fixtures/{second}", {"starts_at": START}),
        ("PUT", f"/api/competitions/{comp}/fixtures/{second}/venue", {"venue": vid}),
        ("POST", f"/api/competitions/{comp}/lots", {"teams": [first["home"], first["away"]], "text": "x"}),
        ("PATCH", f"/api/teams/{first['home']}", {"name": "renamed"}),
    ]:
        answer = call(c, method, path, body, expect=403)
        assert answer["error"] == "forbidden" and vid in answer["message"], (path, answer)
    assert call(c, "GET", f"/api/competitions/{comp}") == view  # nothing changed

    # a change at the venue arrives with its next message, into the central's own feed too
    held = batch["messages"][-1]["cursor"]
    call(
        v, "POST", f"/api/competitions/{comp}/protests", {"fixture": first["id"], "team": first["away"], "text": "late goal"}, 201
    )
    more = pending_batch(venue, int(held), ingest_digest(c, key))
    assert ingest(c, key, more).status_code == 200
    assert call(c, "GET", f"/api/competitions/{comp}") == call(v, "GET", f"/api/competitions/{comp}")
    assert [p["text"] for p in call(c, "GET", f"/api/competitions/{comp}")["protests"]] == ["late goal"]
    feed = call(c, "GET", "/api/feed.json?since=0&limit=1000")["messages"]
    changes = [x["change"] for x in feed if x.get("competition") == comp]
    venue_changes = [
        x["change"] for x in call(v, "GET", "/api/feed.json?since=0&limit=1000")["messages"] if x.get("competition") == comp
    ]
    assert changes == venue_changes and changes[-1] == "protest", changes

    again = _app(Path(central.config["DATABASE"]), clock)  # the central restarted: the copy read again, still read-only
    try:
        a = again.test_client()
        assert call(a, "GET", f"/api/competitions/{comp}") == call(v, "GET", f"/api/competitions/{comp}")
        assert next(x for x in call(a, "GET", "/api/competitions") if x["id"] == comp)["venue"] == vid
        assert call(a, "POST", f"/api/competitions/{comp}/lots", {"teams": [first["home"]], "text": "x"}, expect=403)
    finally:
        again.extensions["qalisball"].store.close()


def test_issue31_L1_D379_a_venue_key_writes_only_its_own_competitions_teams_and_officials(
    central: Flask, venue: Flask, clock: FakeClock
) -> None:
    """L1 (D379): another venue's key for the competition, records naming the central's own team or match, or records
    that are no competition's are refused (409 naming the cursor held, 400 naming the field): nothing is stored."""
    from tests.test_league import _refused

    c, v = central.test_client(), venue.test_client()
    _, key = new_venue(c)
    _, other_key = new_venue(c, "South field")
    mine = call(c, "POST", "/api/teams", {"name": "Z", "players": roster("Z")}, 201)["id"]
    comp, _, _ = own_competition(v)
    batch = pending_batch(venue)

    def altered(change: Any) -> dict[str, Any]:
        forged = copy.deepcopy(batch)
        change(next(m for m in forged["messages"] if "records" in m)["records"])
        return forged

    def own_team(records: dict[str, Any]) -> None:
        records["teams"][0]["id"] = mine

    assert "central's own" in _refused(c, key, altered(own_team), "0")["message"]
    own_match = call(c, "POST", "/api/matches", demo_request(), 201)["id"]

    def names_own_match(records: dict[str, Any]) -> None:
        records["fixtures"][1]["match_id"] = own_match

    assert own_match in _refused(c, key, altered(names_own_match), "0")["message"]

    def broken(records: dict[str, Any]) -> None:
        records["competition"]["config"] = "nothing"

    r = ingest(c, key, altered(broken))
    assert r.status_code == 400 and any(f.endswith(".records") for f in r.get_json()["fields"]), r.get_json()
    assert comp not in {x["id"] for x in call(c, "GET", "/api/competitions")}
    assert ingest(c, key, batch).status_code == 200
    # the same competition from another venue's key (its own cursor 0): not that venue's
    theirs = {"after": "0", "after_digest": None, "messages": [m for m in batch["messages"] if m["kind"] == "competition"]}
    assert "another venue" in _refused(c, other_key, theirs, "0")["message"]
    assert next(x for x in call(c, "GET", "/api/competitions") if x["id"] == comp)["venue"] != other_key
