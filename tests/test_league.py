"""The league in one process (issue 31, SPEC §12, API.md "The league"): a central's venues and keys, its ingest
checks (L3, D371), its read-only copies (L1, D370) equal to the venue's entry for entry, rulings included (L2), and
the venue organiser's mark (D373). The two real servers on loopback are tests/test_league_servers.py."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import ADMIN, FakeClock, MatchDriver, auth


def _app(path: Path, clock: FakeClock, **extra: Any) -> Flask:
    from qalisball import create_app

    return create_app({"TESTING": True, "DATABASE": str(path), "ADMIN_TOKEN": ADMIN, "CLOCK": clock, **extra})


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


def new_venue(client: FlaskClient, name: str = "North field") -> tuple[str, str]:
    r = client.post("/api/league/venues", json={"name": name}, headers=auth(ADMIN))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.get_json()["key"]


def pending_batch(app: Flask, after: int = 0, after_digest: str | None = None) -> dict[str, Any]:
    """What the venue's sender would send next from ``after`` (upstream.py builds it; nothing is sent here)."""
    from qalisball.league.upstream import Upstream

    comps = app.extensions["qalisball_competitions"]
    up = Upstream(app.extensions["qalisball"].store, "http://127.0.0.1:9", "k" * 40, lambda: 0, records_of=comps.league.records)
    try:
        up.ack, up.ack_digest = after, after_digest
        return {"after": str(after), "after_digest": after_digest, "messages": up._messages()}
    finally:
        up.stop()


def played(venue: Flask, clock: FakeClock) -> MatchDriver:
    m = MatchDriver(venue.test_client(), clock)
    m.kickoff()
    m.take()
    clock.advance(5000)
    m.post({"type": "goal", "team": "home", "player": m.state()["teams"]["home"]["on_field"][1]})
    m.take()
    last = m.events()[-1]["seq"]
    m.post({"type": "void", "target": last})  # a correction: folded whole at the central
    m.take()
    return m


def ingest(client: FlaskClient, key: str, batch: Any) -> Any:
    return client.post("/api/league/ingest", json=batch, headers=auth(key))


def test_issue31_D374_venue_keys_are_shown_once_stored_hashed_and_listed(central: Flask) -> None:
    """API.md "The league": a venue's key (≥ 32 characters) is shown once, stored as its hash only."""
    c = central.test_client()
    assert c.post("/api/league/venues", json={"name": "x"}).status_code == 401
    assert c.post("/api/league/venues", json={"name": ""}, headers=auth(ADMIN)).get_json()["fields"]["name"]
    vid, key = new_venue(c)
    assert len(key) >= 32
    store = central.extensions["qalisball"].store
    stored = store.db.execute("SELECT key_hash FROM league_venues WHERE id = ?", [vid]).fetchone()[0]
    assert key not in stored and stored.startswith("sha256:")
    listing = c.get("/api/league/venues", headers=auth(ADMIN)).get_json()
    assert listing == [{"id": vid, "name": "North field", "last_seen": None, "matches": 0, "behind_s": None}]
    assert c.get("/api/league/venues").status_code == 401


def test_issue31_L1_L2_D370_a_venue_match_at_the_central_is_the_venues_entry_for_entry_and_read_only(
    central: Flask, venue: Flask, clock: FakeClock
) -> None:
    """L1, L2 (D370): the central's copy lists, serves and reports the venue's match as the venue stored it, rulings
    included; every write to it at the central is a 403; the central never decides the calls again."""
    c = central.test_client()
    vid, key = new_venue(c)
    m = played(venue, clock)
    batch = pending_batch(venue)
    r = ingest(c, key, batch)
    assert r.status_code == 200, r.get_json()
    copy_here = central.extensions["qalisball"].matches[m.id]
    assert copy_here.overruled == [] and copy_here.token_hashes == {}  # folded as ruled; no role opens it here
    assert copy_here.head == venue.extensions["qalisball"].matches[m.id].head
    assert r.get_json()["cursor"] == batch["messages"][-1]["cursor"] and r.get_json()["stored"] == len(batch["messages"])
    assert c.get(f"/api/matches/{m.id}/events").get_json() == m.events()
    here, there = c.get(f"/api/matches/{m.id}").get_json(), m.state()
    assert here == there and here["score"] == {"home": 1, "away": 0}
    again = _app(Path(central.config["DATABASE"]), clock)  # the central restarted: its copy replayed whole
    try:
        assert again.test_client().get(f"/api/matches/{m.id}").get_json() == here
    finally:
        again.extensions["qalisball"].store.close()
    listed = next(x for x in c.get("/api/matches").get_json() if x["id"] == m.id)
    assert listed["venue"] == vid
    assert c.get(f"/matches/{m.id}").status_code == 200 and c.get(f"/matches/{m.id}/report.json").status_code == 200
    for path, body in [
        (f"/api/matches/{m.id}/events", {"type": "period_end"}),
        (f"/api/matches/{m.id}/tokens/referee", {}),
        (f"/api/matches/{m.id}/what-if", {}),
    ]:
        r = c.post(path, json=body, headers=auth(ADMIN))
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden", (path, r.get_json())
    assert len(c.get(f"/api/matches/{m.id}/events").get_json()) == len(m.events())
    assert c.get("/api/league/venues", headers=auth(ADMIN)).get_json()[0]["matches"] == 1
    # The central's feed carries the venue's messages as the venue's feed did (same event, same state).
    mine = [x for x in c.get("/api/feed.json?since=0&limit=1000").get_json()["messages"] if x.get("match") == m.id]
    theirs = [x for x in venue.test_client().get("/api/feed.json?since=0&limit=1000").get_json()["messages"]]
    assert [(x["event"], x["state"]) for x in mine] == [(x["event"], x["state"]) for x in theirs]


def test_issue31_D371_a_resent_batch_is_acknowledged_not_stored_twice(central: Flask, venue: Flask, clock: FakeClock) -> None:
    """D371: an acknowledged batch sent again (its answer lost) is acknowledged once more, nothing stored twice."""
    c = central.test_client()
    _, key = new_venue(c)
    m = played(venue, clock)
    batch = pending_batch(venue)
    first = ingest(c, key, batch).get_json()
    again = ingest(c, key, batch)
    assert again.status_code == 200 and again.get_json() == {**first, "stored": 0}
    assert len(c.get(f"/api/matches/{m.id}/events").get_json()) == len(m.events())


def _refused(c: FlaskClient, key: str, batch: Any, held: str) -> Any:
    before = c.get("/api/feed.json?since=0&limit=1000").get_json()["messages"]
    r = ingest(c, key, batch)
    assert r.status_code == 409, r.get_json()
    body = r.get_json()
    assert body["error"] == "conflict" and body["cursor"] == held
    assert c.get("/api/feed.json?since=0&limit=1000").get_json()["messages"] == before, "a refused batch stored something"
    return body


def test_issue31_L3_D371_ingest_refuses_a_bad_key_a_gap_an_altered_entry_and_another_venues_match(
    central: Flask, venue: Flask, tmp_path: Path, clock: FakeClock
) -> None:
    """L3 (D371): a batch that does not continue what the central holds from that venue is a 409 naming the cursor
    held, and nothing of it is stored; a key that is no venue's is a 401; a venue key writes only its own matches."""
    c = central.test_client()
    _, key = new_venue(c)
    _, other_key = new_venue(c, "South field")
    m = played(venue, clock)
    batch = pending_batch(venue)
    assert ingest(c, "not-a-venue-key-" + "x" * 30, batch).status_code == 401
    assert ingest(c, ADMIN, batch).status_code == 401
    # a gap: the first messages left out
    gap = {**batch, "messages": batch["messages"][2:]}
    _refused(c, key, gap, "0")
    # an altered entry (the scorer changed, its hash left as it was)
    altered = copy.deepcopy(batch)
    goal = next(x for x in altered["messages"] if x["entry"]["type"] == "goal")
    goal["entry"]["fields"]["player"] = 99
    assert "chain" in _refused(c, key, altered, "0")["message"]
    # the same with the hash recomputed: its successor no longer continues it
    from qalisball.league.central import entry_of_wire
    from qalisball.storage import integrity

    e = entry_of_wire(goal["entry"])
    goal["entry"]["hash"] = integrity.row_hash(e, str(e.prev_hash))
    _refused(c, key, altered, "0")
    # rulings taken away: the central would have to decide the call (L2)
    bare = copy.deepcopy(batch)
    bare["messages"][0]["entry"]["rulings"] = None
    assert "rulings" in _refused(c, key, bare, "0")["message"]
    assert ingest(c, key, batch).status_code == 200
    held = batch["messages"][-1]["cursor"]
    # another venue's key for the same match's next entry
    m.post({"type": "goal", "team": "away", "player": m.state()["teams"]["away"]["on_field"][1]})
    more = pending_batch(venue, int(held), ingest_digest(c, key))
    assert "another venue" in _refused(c, other_key, {**more, "after": "0", "after_digest": None}, "0")["message"]
    # a batch after a cursor the central does not hold (the venue thinks it sent more than it did)
    _refused(c, key, {**more, "after": str(int(held) + 5)}, held)
    # a wrong digest at the junction: the venue's record forked there
    _refused(c, key, {**more, "after_digest": "0" * 64}, held)
    assert ingest(c, key, more).status_code == 200
    assert c.get(f"/api/matches/{m.id}/events").get_json() == m.events()
    # not a batch at all: 400, naming the field
    r = ingest(c, key, {"after": 3, "messages": []})
    assert r.status_code == 400 and "after" in r.get_json()["fields"]


def ingest_digest(c: FlaskClient, key: str) -> str:
    return str(c.get("/api/league/ingest", headers=auth(key)).get_json()["digest"])


def test_issue31_L1_D374_a_venue_key_cannot_write_the_centrals_own_match(central: Flask, venue: Flask, clock: FakeClock) -> None:
    """L1 (D371): the central's own match is never a venue's to write, even with the venue's own chain."""
    c = central.test_client()
    _, key = new_venue(c)
    own = MatchDriver(c, clock)
    m = played(venue, clock)
    batch = pending_batch(venue)
    hijack = copy.deepcopy(batch)
    for x in hijack["messages"]:
        x["subject"] = x["entry"]["match_id"] = own.id
    assert "central's own" in _refused(c, key, hijack, "0")["message"]
    assert own.events() == [] and m.id not in c.get("/api/matches").get_data(as_text=True)


def test_issue31_D373_upstream_status_and_the_organisers_mark_after_a_minute(tmp_path: Path, clock: FakeClock) -> None:
    """D373: at a venue whose central cannot be reached, GET /api/league/upstream says what is pending and why;
    the organiser's page shows the mark (zh/en) once something has been pending for more than a minute."""
    dead = "http://127.0.0.1:9"  # the discard port: nothing listens
    app = _app(tmp_path / "v.db", clock, UPSTREAM=dead, UPSTREAM_KEY="k" * 40, UPSTREAM_RETRY_MAX=0.05)
    try:
        c = app.test_client()
        assert c.get("/api/league/upstream").status_code == 401
        m = MatchDriver(c, clock)
        m.kickoff()
        up = app.extensions["qalisball_league_upstream"]
        from tests.waiting import wait_until

        wait_until(lambda: up.last_error is not None, "the sender tried and failed")
        status = c.get("/api/league/upstream", headers=auth(ADMIN)).get_json()
        assert status["upstream"] == dead and status["connected"] is False and status["pending"] == 2
        assert "cannot be reached" in status["last_error"]
        page = c.get(f"/?token={ADMIN}", follow_redirects=True)
        assert "league-alert" not in page.get_data(as_text=True)
        clock.advance(61_000)
        page = c.get("/?lang=en", follow_redirects=True).get_data(as_text=True)
        assert "league-alert" in page and "central server for over a minute" in page
        zh = c.get("/?lang=zh", follow_redirects=True).get_data(as_text=True)
        assert "联赛中心服务器" in zh
        assert "league-alert" not in c.get(f"/matches/{m.id}").get_data(as_text=True)  # a spectator's page: no mark
    finally:
        app.extensions["qalisball"].store.close()


def test_issue31_D372_without_an_upstream_nothing_is_sent(central: Flask) -> None:
    """D372: without QALISBALL_UPSTREAM a server sends nothing and says so."""
    r = central.test_client().get("/api/league/upstream", headers=auth(ADMIN))
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert "qalisball_league_upstream" not in central.extensions
    assert json.loads(json.dumps(central.test_client().get("/api/matches").get_json())) is not None


def test_issue31_D42_a_central_and_a_venue_on_a_file_that_is_no_database_start_read_only(
    tmp_path: Path, clock: FakeClock
) -> None:
    """D42 holds for the league's tables too: a central's venues and assignments and a venue's fixtures on a file
    that is no database are not read (the error logged), and the server starts read-only saying so, as every
    feature does (the clean-clone CI of 469b0c4 stopped in the central's start-up)."""
    for name, extra in (("c.db", {}), ("v.db", {"UPSTREAM": "http://127.0.0.1:9", "UPSTREAM_KEY": "k" * 40})):
        db = tmp_path / name
        db.write_bytes(b"garbage garbage!" * 64)  # no SQLite header
        app = _app(db, clock, **extra)
        try:
            c = app.test_client()
            assert c.get("/api/matches").get_json() == []
            assert "file is not a database" in c.get("/?lang=en").get_data(as_text=True)
            r = c.post("/api/league/venues", json={"name": "North"}, headers=auth(ADMIN))
            assert r.status_code == 503, r.get_json()
        finally:
            app.extensions["qalisball"].store.close()


def test_issue31_D373_the_marks_reason_is_in_the_pages_language_never_the_networks_words(
    tmp_path: Path, clock: FakeClock
) -> None:
    """D373: the venue organiser's mark says why nothing reaches the central in the page's language (zh, en); the
    network's own English ("Connection refused") is only in the API's last_error."""
    dead = "http://127.0.0.1:9"  # the discard port: nothing listens
    app = _app(tmp_path / "v.db", clock, UPSTREAM=dead, UPSTREAM_KEY="k" * 40, UPSTREAM_RETRY_MAX=0.05)
    try:
        c = app.test_client()
        MatchDriver(c, clock).kickoff()
        up = app.extensions["qalisball_league_upstream"]
        from tests.waiting import wait_until

        wait_until(lambda: up.last_error is not None, "the sender tried and failed")
        assert "Connection refused" in c.get("/api/league/upstream", headers=auth(ADMIN)).get_json()["last_error"]
        c.get(f"/?token={ADMIN}")
        clock.advance(61_000)
        zh = c.get("/?lang=zh").get_data(as_text=True)
        mark = zh[zh.index('class="league-alert"') :].split("</p>")[0]
        assert "无法连接联赛中心服务器" in mark and "那里没有应答" in mark, mark
        assert not any(word in mark for word in ("cannot", "refused", "Errno", "urlopen")), mark
        en = c.get("/?lang=en").get_data(as_text=True)
        mark = en[en.index('class="league-alert"') :].split("</p>")[0]
        assert "cannot be reached: nothing answers there" in mark and "Errno" not in mark, mark
    finally:
        app.extensions["qalisball"].store.close()


def through(central: Flask) -> Any:
    """An Upstream's ``_call`` that reaches ``central`` in this process (its test client), as over HTTP."""
    c = central.test_client()

    def call(method: str, body: dict[str, Any] | None, path: str = "/api/league/ingest") -> tuple[int, dict[str, Any]]:
        r = c.open(path, method=method, json=body, headers=auth(call.key))  # type: ignore[attr-defined]
        return r.status_code, r.get_json() or {}

    return call


def test_issue31_D380_a_revoked_venue_key_is_refused_saying_so_nothing_is_stored_and_the_venue_says_why(
    central: Flask, venue: Flask, clock: FakeClock
) -> None:
    """D380: the organiser revokes a venue's key (DELETE /api/league/venues/<id>/key) or issues a new one (POST …/key):
    the old key is then a 403 saying it was revoked, for every venue request, with nothing read or stored, also after
    a restart; the venue's upstream status and its organiser's mark (zh/en) say why; the new key carries on from the
    cursor held."""
    from qalisball.league.upstream import Upstream

    c = central.test_client()
    vid, key = new_venue(c)
    m = played(venue, clock)
    assert ingest(c, key, pending_batch(venue)).status_code == 200
    held = c.get("/api/league/ingest", headers=auth(key)).get_json()
    assert c.delete(f"/api/league/venues/{vid}/key").status_code == 401
    assert c.delete("/api/league/venues/v_nope/key", headers=auth(ADMIN)).status_code == 404
    r = c.delete(f"/api/league/venues/{vid}/key", headers=auth(ADMIN))
    assert r.status_code == 200 and r.get_json() == {"id": vid, "key_revoked": True}
    assert c.get("/api/league/venues", headers=auth(ADMIN)).get_json()[0]["key_revoked"] is True

    m.post({"type": "goal", "team": "away", "player": m.state()["teams"]["away"]["on_field"][1]})
    before = c.get("/api/feed.json?since=0&limit=1000").get_json()["messages"]
    more = pending_batch(venue, int(held["cursor"]), held["digest"])
    for method, path, body in [
        ("POST", "/api/league/ingest", more),
        ("GET", "/api/league/ingest", None),
        ("GET", "/api/league/assigned", None),
        ("POST", "/api/league/claims", {"fixture": "c-1", "match": m.id}),
    ]:
        r = c.open(path, method=method, json=body, headers=auth(key))
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden", (path, r.get_json())
        assert "revoked" in r.get_json()["message"] and r.get_json()["revoked_at"], r.get_json()
    assert c.get("/api/feed.json?since=0&limit=1000").get_json()["messages"] == before, "a revoked key stored something"
    assert ingest(c, "qlv_" + "x" * 40, more).status_code == 401  # a key the central never issued: not "revoked"

    # the venue's sender with the revoked key: its status and its organiser's mark say why
    up = Upstream(venue.extensions["qalisball"].store, "http://central.example", key, clock)
    call = through(central)
    call.key = key  # type: ignore[attr-defined]
    up._call = call  # type: ignore[method-assign]
    try:
        assert up._send_some() is False
        assert up.refused is True and "revoked" in str(up.last_error)
        venue.extensions["qalisball_league_upstream"] = up
        with venue.test_request_context("/?lang=zh"):
            from flask import render_template_string

            zh = render_template_string("{% set x = league_mark() %}{{ x.error }}")
        assert "已于" in zh and "撤销本场馆的密钥" in zh, zh
    finally:
        up.stop()

    # a new key: the old one stays refused, the new one carries on from what is held, across a restart
    r = c.post(f"/api/league/venues/{vid}/key", headers=auth(ADMIN))
    assert r.status_code == 201 and r.get_json()["id"] == vid
    new_key = r.get_json()["key"]
    assert len(new_key) >= 32 and new_key != key
    assert ingest(c, key, more).status_code == 403
    assert c.get("/api/league/ingest", headers=auth(new_key)).get_json() == held
    assert ingest(c, new_key, more).status_code == 200
    assert c.get(f"/api/matches/{m.id}/events").get_json() == m.events()
    again = _app(Path(central.config["DATABASE"]), clock)
    try:
        a = again.test_client()
        assert ingest(a, key, more).get_json()["error"] == "forbidden"
        assert a.get("/api/league/ingest", headers=auth(new_key)).status_code == 200
    finally:
        again.extensions["qalisball"].store.close()
