"""Everything a decision or an answer depends on is checked (issue 20, item 3; D145–D147).

Each test changes the database as someone with the SQLite file and a shell would (``sqlite3`` on the
file while the server is stopped; ``psql`` on PostgreSQL: the ``db`` fixture runs them on both engines,
issue 32), starts the server again on it, and checks that ``verify`` reports
the change, that the server is read-only and says why on its pages, and that the forged value is
never served: not in the standings, not as the answer to a repeated request, not as a console's key.
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball import create_app
from qalisball.__main__ import check
from qalisball.server.demo import demo_request
from qalisball.storage import integrity, tokens

from .competition_play import roster
from .conftest import FakeClock, auth
from .pg import portable, sql
from .test_reliability import _cli

ADMIN = "integrity-organiser-token-0123456"


def _app(db: Path | str) -> Flask:
    return create_app({"TESTING": True, "DATABASE": str(db), "ADMIN_TOKEN": ADMIN, "CLOCK": FakeClock()})


def _close(app: Flask) -> None:
    app.extensions["qalisball"].store.close()


def _call(client: FlaskClient, method: str, url: str, body: Any = None, expect: int = 200, token: str = ADMIN) -> Any:
    r = client.open(url, method=method, json=body, headers=auth(token))
    assert r.status_code == expect, (r.status_code, r.get_json())
    return r.get_json()


def _decided(db: Path | str) -> tuple[str, str, str, str]:
    """Two kept teams, a round robin of them, and the organiser's result 1–0 for its fixture (D63)."""
    app = _app(db)
    c = app.test_client()
    alpha = _call(c, "POST", "/api/teams", {"name": "Alpha", "players": roster("Alpha")}, 201)["id"]
    beta = _call(c, "POST", "/api/teams", {"name": "Beta", "players": roster("Beta")}, 201)["id"]
    body = {"name": "Cup", "format": "round_robin", "teams": [alpha, beta], "fields": [{"name": "F1"}]}
    comp = _call(c, "POST", "/api/competitions", body, 201)["id"]
    fixture = _call(c, "GET", f"/api/competitions/{comp}")["fixtures"][0]
    url = f"/api/competitions/{comp}/fixtures/{fixture['id']}/result"
    _call(c, "POST", url, {"home": 1, "away": 0, "text": "played without the app"})
    _close(app)
    return comp, fixture["id"], fixture["home"], fixture["away"]


def _sql(db: Path | str, *statements: str, params: list[Any] | None = None) -> None:
    """As ``sqlite3`` (or ``psql``) on the database would, outside the server (tests/pg.py)."""
    for statement in statements:
        sql(str(db), portable(str(db), statement), params or [])


def _verify(db: Path | str) -> tuple[bool, str]:
    out = io.StringIO()
    ok = check(str(db), out=lambda line: print(line, file=out))
    return ok, out.getvalue()


def _read_only_everywhere(client: FlaskClient, words: str) -> None:
    """The database is read-only, every page says why in both languages, and a write changes nothing."""
    en = client.get("/?lang=en").get_data(as_text=True)
    assert "Read-only:" in en and words in en
    zh = client.get("/?lang=zh").get_data(as_text=True)
    assert "只读" in zh
    before = client.get("/api/teams").get_json()
    r = client.post("/api/teams", json={"name": "Gamma", "players": roster("Gamma")}, headers=auth(ADMIN))
    assert r.status_code == 503 and r.get_json()["error"] == "damaged", r.get_json()
    assert client.get("/api/teams").get_json() == before


def test_D145_a_decided_result_changed_in_sqlite_is_reported_and_never_in_the_standings(db: str) -> None:
    comp, fid, home, away = _decided(db)
    assert _verify(db)[0]
    # 1–0 becomes 0–9 for the away team, straight in the file.
    _sql(
        db,
        "UPDATE fixtures SET decision = json_set(decision, '$.home', 0, '$.away', 9, '$.winner', ?)",
        params=[away],
    )
    ok, out = _verify(db)
    assert not ok and "DAMAGED  records" in out and f"fixtures {comp}, {fid}" in out, out
    app = _app(db)
    client = app.test_client()
    view = client.get(f"/api/competitions/{comp}").get_json()
    fixture = next(f for f in view["fixtures"] if f["id"] == fid)
    assert fixture["decision"]["home"] == 1 and fixture["decision"]["away"] == 0, "the proven result, never the forged one"
    assert fixture["decision"]["winner"] == home
    standings = json.dumps(client.get(f"/api/competitions/{comp}/standings").get_json())
    assert '"goals_for": 9' not in standings and '"goals_against": 9' not in standings
    _read_only_everywhere(client, f"fixtures {comp}, {fid}")
    assert "在服务器之外被改动" in client.get("/?lang=zh").get_data(as_text=True), "the reason in Chinese too"
    _close(app)


@pytest.mark.parametrize(
    ("change", "table"),
    [
        ("UPDATE teams SET name = 'Forged FC' WHERE name = 'Alpha'", "teams"),
        ("UPDATE teams SET players = '[]' WHERE name = 'Beta'", "teams"),
        ("DELETE FROM teams WHERE name = 'Beta'", "teams"),
        ("INSERT INTO officials (id, name, club, created_at) VALUES ('planted', 'Planted Ref', NULL, '2027')", "officials"),
        ("UPDATE competitions SET config = json_set(config, '$.points.win', 30)", "competitions"),
        ("UPDATE fixtures SET decision = NULL", "fixtures"),
        ("INSERT INTO screens (name, content, updated_at) VALUES ('field-1', '{\"show\": \"none\"}', '2027')", "screens"),
    ],
)
def test_D145_a_record_changed_added_or_deleted_in_sqlite_is_reported_and_not_served(db: str, change: str, table: str) -> None:
    comp, fid, _, _ = _decided(db)
    app = _app(db)
    c = app.test_client()
    honest = (c.get("/api/teams").get_json(), c.get("/api/officials").get_json(), c.get(f"/api/competitions/{comp}").get_json())
    _close(app)
    _sql(db, change)
    ok, out = _verify(db)
    assert not ok and "DAMAGED  records" in out and f"the record {table} " in out, out
    app = _app(db)
    client = app.test_client()
    served = (
        client.get("/api/teams").get_json(),
        client.get("/api/officials").get_json(),
        client.get(f"/api/competitions/{comp}").get_json(),
    )
    for view in (honest[2], served[2]):
        view.pop("server_time_ms", None)
    assert served == honest, "what the server serves is what it wrote, not the forgery"
    assert client.get("/api/screens").status_code in (200, 401)
    _read_only_everywhere(client, f"the record {table} ")
    _close(app)


def _keyed_event(db: Path | str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """A match with one event sent with an idempotency key: its answer is stored for a repeated request."""
    app = _app(db)
    c = app.test_client()
    made = _call(c, "POST", "/api/matches", demo_request(), 201)
    body = {"type": "coin_toss", "kickoff": "home", "home_end": "x0", "id": "toss-1"}
    answer = _call(c, "POST", f"/api/matches/{made['id']}/events", body, 201, made["tokens"]["referee"])
    assert _call(c, "POST", f"/api/matches/{made['id']}/events", body, 200, made["tokens"]["referee"]) == answer
    _close(app)
    return made["id"], made["tokens"], body


def _reseal(db: Path | str) -> None:
    """What a forger with SQL would do next: recompute every seal, so that each row agrees with its own."""
    from qalisball.storage.store import _entry

    if str(db).startswith("postgresql://"):
        import psycopg
        from psycopg.rows import dict_row

        pg = psycopg.connect(str(db), autocommit=True, row_factory=dict_row)
        matches = pg.execute("SELECT id, created_at, setup FROM matches").fetchall()
        rows_of = lambda m: pg.execute("SELECT * FROM events WHERE match_id = %s ORDER BY seq", [m]).fetchall()  # noqa: E731
        update = lambda *p: pg.execute("UPDATE events SET seal = %s WHERE match_id = %s AND seq = %s", list(p))  # noqa: E731
    else:
        conn = sqlite3.connect(db, isolation_level=None)
        conn.row_factory = sqlite3.Row
        matches = conn.execute("SELECT id, created_at, setup FROM matches").fetchall()
        rows_of = lambda m: conn.execute("SELECT * FROM events WHERE match_id = ? ORDER BY seq", [m]).fetchall()  # noqa: E731
        update = lambda *p: conn.execute("UPDATE events SET seal = ? WHERE match_id = ? AND seq = ?", list(p))  # noqa: E731
    for match in matches:
        seal = integrity.genesis_hash(match["id"], match["created_at"], json.loads(match["setup"]))
        for row in rows_of(match["id"]):
            seal = integrity.seal_hash(seal, _entry(dict(row)))
            update(seal, match["id"], row["seq"])
    (pg if str(db).startswith("postgresql://") else conn).close()


@pytest.mark.parametrize("resealed", [False, True], ids=["plain", "seals-recomputed"])
def test_D146_a_forged_stored_answer_is_never_given_to_a_repeated_request(db: str, resealed: bool) -> None:
    match_id, tokens_, body = _keyed_event(db)
    forged = {"seq": 1, "state": {"score": {"home": 9, "away": 0}, "forged": True}}
    _sql(db, "UPDATE events SET response = ? WHERE seq = 1", params=[json.dumps(forged)])
    if resealed:
        _reseal(db)
    ok, out = _verify(db)
    assert not ok and f"DAMAGED  {match_id}" in out and "answer" in out, out
    app = _app(db)
    client = app.test_client()
    r = client.post(f"/api/matches/{match_id}/events", json=body, headers=auth(tokens_["referee"]))
    assert r.status_code == 503 and r.get_json()["error"] == "damaged", r.get_json()
    assert "forged" not in r.get_data(as_text=True)
    state = client.get(f"/api/matches/{match_id}").get_json()
    assert "answer" in state["damaged"] and state["seq"] == 1, "the events themselves stay proven and shown"
    page = client.get(f"/matches/{match_id}/scoreboard?lang=en").get_data(as_text=True)
    assert "Read-only: this match’s event log cannot be trusted" in page
    _close(app)


def test_D146_a_forged_body_hash_is_caught(db: str) -> None:
    match_id, tokens_, _ = _keyed_event(db)
    other = {"type": "coin_toss", "kickoff": "away", "home_end": "x0", "id": "toss-1"}
    import hashlib

    planted = hashlib.sha256(json.dumps(other, sort_keys=True).encode()).hexdigest()
    _sql(db, "UPDATE events SET body_hash = ? WHERE seq = 1", params=[planted])
    _reseal(db)
    ok, out = _verify(db)
    assert not ok and f"DAMAGED  {match_id}" in out, out
    app = _app(db)
    r = app.test_client().post(f"/api/matches/{match_id}/events", json=other, headers=auth(tokens_["referee"]))
    assert r.status_code == 503, "another body under the key is never answered with the stored answer"
    _close(app)


def test_D145_a_token_hash_planted_in_sqlite_opens_no_console(db: str) -> None:
    app = _app(db)
    made = _call(app.test_client(), "POST", "/api/matches", demo_request(), 201)
    _close(app)
    planted = "planted-token-0123456789abcdef"
    stored = json.loads(sql(db, "SELECT tokens FROM matches")[0][0])
    _sql(db, "UPDATE matches SET tokens = ?", params=[json.dumps({**stored, "referee": tokens.hash_token(planted)})])
    ok, out = _verify(db)
    assert not ok and f"the record matches {made['id']}" in out, out
    app = _app(db)
    client = app.test_client()
    toss = {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}
    r = client.post(f"/api/matches/{made['id']}/events", json=toss, headers=auth(planted))
    assert r.status_code == 401, r.get_json()
    page = client.get(f"/matches/{made['id']}/referee", headers=auth(planted))
    assert page.status_code == 401
    # The token the server gave still names its official (the database is read-only: 503, not 401).
    r = client.post(f"/api/matches/{made['id']}/events", json=toss, headers=auth(made["tokens"]["referee"]))
    assert r.status_code == 503
    _close(app)


def test_D145_restore_lists_a_team_created_after_the_backup_as_lost(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    _decided(db)
    (tmp_path / "backups").mkdir()
    assert _cli("backup", str(tmp_path / "backups"), "--db", str(db)).returncode == 0
    app = _app(db)
    late = _call(app.test_client(), "POST", "/api/teams", {"name": "Late FC", "players": roster("Late")}, 201)["id"]
    _close(app)
    done = _cli("restore", str(tmp_path / "backups" / "live.db"), "--db", str(db))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LOST     records: change" in done.stdout and f"(team_created): teams {late} “Late FC”" in done.stdout, done.stdout
    app = _app(db)
    assert [t["name"] for t in app.test_client().get("/api/teams").get_json()] == ["Alpha", "Beta"]
    _close(app)
    assert _verify(db)[0], "the restored records are the acknowledged ones"


def test_D147_a_database_written_before_the_checks_opens_verifies_and_is_checked_from_then_on(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    comp, fid, _, _ = _decided(db)
    match_id, tokens_, body = _keyed_event(db)
    # As the previous version left it: no seals, no records ledger, journal lines of three fields.
    _sql(
        db,
        "ALTER TABLE events DROP COLUMN seal",
        "DROP TABLE record_ledger",
        "DELETE FROM migrations WHERE version = 20",
    )
    acks = Path(str(db) + "-acks")
    acks.write_text(
        "".join(" ".join(line.split(" ")[:3]) + "\n" for line in acks.read_text().splitlines() if not line.startswith("~"))
    )
    ok, out = _verify(db)
    assert ok and "NOTE     records  not sealed yet" in out, out
    app = _app(db)  # the first open computes the new checks
    client = app.test_client()
    assert "damaged" not in client.get(f"/api/matches/{match_id}").get_json()
    assert client.post(f"/api/matches/{match_id}/events", json=body, headers=auth(tokens_["referee"])).status_code == 200
    _close(app)
    ok, out = _verify(db)
    assert ok and "OK       records  changes 1–1" in out, out
    # From now on a change is caught.
    _sql(db, "UPDATE fixtures SET decision = json_set(decision, '$.home', 0, '$.away', 9)")
    _sql(db, "UPDATE events SET response = '{}' WHERE match_id = ?", params=[match_id])
    ok, out = _verify(db)
    assert not ok and f"fixtures {comp}, {fid}" in out and f"DAMAGED  {match_id}" in out, out
