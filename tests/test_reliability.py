"""Storage that fails safe and says so (issue 14): a locked database answers 503, never hangs the server.

These run ``app.py`` (gevent, a real port and SQLite file) as ``make run`` does, reusing the
durability tests' server harness.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import select
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient

from qalisball import create_app
from qalisball.__main__ import check
from qalisball.server.demo import demo_request, ensure_demo
from qalisball.storage.store import MIGRATIONS, Store

from .conftest import FakeClock, auth
from .pg import sql
from .test_durability import ROOT, Server, _create, _post, _state, server  # noqa: F401  (fixture)


def _hold_write_lock(db: Path, release: threading.Event, held: threading.Event) -> None:
    """Another program (a backup, a sqlite3 shell) holds SQLite's write lock until ``release``."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    held.set()
    release.wait(30)
    conn.execute("ROLLBACK")
    conn.close()


def test_locked_database_answers_503_serves_reads_and_recovers(server: Server) -> None:  # noqa: F811
    match_id, tokens = _create(server)
    session = requests.Session()
    assert _post(session, server, match_id, tokens["referee"], {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}).ok
    release, held = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(server.db, release, held))
    holder.start()
    try:
        assert held.wait(10)
        # The write is sent whole (http.client returns once it is sent) and its answer read only after the reads:
        # it waits on SQLite for the busy timeout (2 s) and then answers 503.
        host, port = server.base.removeprefix("http://").split(":")
        write = http.client.HTTPConnection(host, int(port), timeout=30)
        start = json.dumps({"type": "period_start"})
        headers = {"Authorization": f"Bearer {tokens['referee']}", "Content-Type": "application/json"}
        write.request("POST", f"/api/matches/{match_id}/events", body=start, headers=headers)
        assert write.sock is not None

        def write_answered() -> bool:
            return bool(select.select([write.sock], [], [], 0)[0])

        # Reads keep answering while the write waits (the write runs off the event loop): reads answered before
        # the write's answer. A read queued behind the write would be answered after it, and none would count.
        answered_while_waiting, deadline = 0, time.monotonic() + 30
        while not write_answered():
            assert time.monotonic() < deadline, "the write never answered: a locked database hung it"
            assert requests.get(f"{server.base}/api/matches/{match_id}", timeout=10).status_code == 200
            answered_while_waiting += not write_answered()
        answer = write.getresponse()
        body = json.loads(answer.read())
        write.close()
        assert answer.status == 503, body
        assert body["error"] == "unavailable" and "busy" in body["message"]
        assert int(answer.headers["Retry-After"]) > 0
        assert answered_while_waiting >= 3, f"only {answered_while_waiting} reads answered while the write waited"
        assert _state(server, match_id)["phase"] == "scheduled", "nothing was stored"
        # Several more writes while locked: each answers 503 (none hangs).
        for _ in range(3):
            assert _post(session, server, match_id, tokens["referee"], {"type": "period_start"}).status_code == 503
    finally:
        release.set()
        holder.join(30)
    # Once the lock is released, writes resume by themselves.
    r = _post(session, server, match_id, tokens["referee"], {"type": "period_start"})
    assert r.status_code == 201, r.text
    assert _state(server, match_id)["phase"] == "first_half"
    r = requests.post(
        f"{server.base}/api/matches",
        json={
            "home": {"name": "A", "players": [{"number": n, "name": f"a{n}"} for n in range(1, 5)], "starting": [1, 2, 3, 4]},
            "away": {"name": "B", "players": [{"number": n, "name": f"b{n}"} for n in range(1, 5)], "starting": [1, 2, 3, 4]},
            "starters": 4,
        },
        headers={"Authorization": "Bearer durability-organiser-token"},
        timeout=10,
    )
    assert r.status_code == 201, "creating a match works again"


def test_store_releases_its_lock_when_begin_fails(tmp_path: Path) -> None:
    """The defect itself: BEGIN IMMEDIATE raising must not leave the store's lock taken."""
    db = tmp_path / "x.db"
    store = Store(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    from qalisball.storage.store import StorageError

    for _ in range(2):
        try:
            store.add_match("m1", {"a": 1}, {}, "2026-01-01T00:00:00")
        except StorageError as exc:
            assert exc.status == 503
        else:
            raise AssertionError("a locked database must refuse the write")
    other.execute("ROLLBACK")
    # Taken from another thread: a leaked RLock would block here for ever.
    done = threading.Event()
    threading.Thread(target=lambda: (store.add_match("m2", {"a": 1}, {}, "t"), done.set())).start()
    assert done.wait(10), "the store's lock was never released"
    assert [m["id"] for m in store.matches()] == ["m2"]
    store.close()


# ---------------------------------------------------------------------------------------------
# A log that proves itself: the hash chain (D40), acknowledged events (D41), damage served read-only (D42)

ADMIN = "reliability-organiser-token-0123"
PLAY: list[tuple[str, dict[str, Any]]] = [
    ("referee", {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}),
    ("referee", {"type": "period_start"}),
    ("referee", {"type": "restart_taken", "team": "home", "player": 1}),
    ("assistant1", {"type": "goal", "team": "home", "player": 3}),
    ("referee", {"type": "void", "target": 4, "reason": "offside 越位"}),
    ("referee", {"type": "goal", "team": "home", "player": 2}),
    ("scorer", {"type": "clock", "action": "pause"}),
]


def _app(db: Path, clock: FakeClock | None = None) -> Flask:
    return create_app({"TESTING": True, "DATABASE": str(db), "ADMIN_TOKEN": ADMIN, "CLOCK": clock or FakeClock()})


def _played(db: Path, events: list[tuple[str, dict[str, Any]]] = PLAY) -> tuple[Flask, str, dict[str, str]]:
    """A match with ``events`` logged through the API; the app is left open (its WAL not checkpointed)."""
    app = _app(db)
    client = app.test_client()
    r = client.post("/api/matches", json=demo_request(), headers=auth(ADMIN))
    assert r.status_code == 201, r.get_json()
    match_id, tokens = r.get_json()["id"], r.get_json()["tokens"]
    for role, body in events:
        answer = client.post(f"/api/matches/{match_id}/events", json=body, headers=auth(tokens[role]))
        assert answer.status_code == 201, answer.get_json()
    return app, match_id, tokens


def _crash_copy(db: Path, dest: Path, wal: str = "keep", cut: int = 0) -> Path:
    """The files a killed server leaves (database, WAL, acknowledgement journal), copied while it is still open."""
    dest.mkdir()
    for suffix in ("", "-wal", "-acks"):
        source = Path(str(db) + suffix)
        if source.exists() and not (suffix == "-wal" and wal == "delete"):
            shutil.copyfile(source, Path(str(dest / db.name) + suffix))
    copy_wal = Path(str(dest / db.name) + "-wal")
    if cut:
        size = copy_wal.stat().st_size
        assert size > cut, "the events are still in the WAL (not yet checkpointed)"
        with copy_wal.open("r+b") as f:
            f.truncate(size - cut)
    return dest / db.name


def _close(app: Flask) -> None:
    app.extensions["qalisball"].store.close()


def test_D40_every_event_row_carries_the_sha256_of_the_previous_row(db: str) -> None:
    app, match_id, _ = _played(db)
    store = app.extensions["qalisball"].store
    m = app.extensions["qalisball"].matches[match_id]
    rows = list(store.db.query("SELECT * FROM events WHERE match_id = ? ORDER BY seq", [match_id]))
    setup = json.loads(next(store.db.query("SELECT setup FROM matches WHERE id = ?", [match_id]))["setup"])
    prev = hashlib.sha256(
        json.dumps(
            {"match": match_id, "created_at": m.created_at, "setup": setup},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        ).encode()
    ).hexdigest()
    for row in rows:
        assert row["prev_hash"] == prev
        content = {
            "match": match_id,
            "seq": row["seq"],
            "type": row["type"],
            "fields": json.loads(row["fields"]),
            "by": row["by"],
            "at_ms": row["at_ms"],
            "received_at": row["received_at"],
            "received_ms": row["received_ms"],
            "id": row["idem_key"],
            "prev": prev,
        }
        canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        assert row["hash"] == hashlib.sha256(canonical).hexdigest(), row["seq"]
        prev = row["hash"]
    assert m.head == prev == rows[-1]["hash"]
    _close(app)


def test_D40_reports_print_the_final_hash(db: str) -> None:
    app, match_id, _ = _played(db)
    client = app.test_client()
    head = app.extensions["qalisball"].matches[match_id].head
    assert client.get(f"/matches/{match_id}/report.json").get_json()["match"]["log_hash"] == head
    html = client.get(f"/matches/{match_id}/report?lang=en").get_data(as_text=True)
    assert f'<code id="log-hash">{head}</code>' in html and "Log hash (SHA-256 of the last event, chained)" in html
    _close(app)


def test_D40_migration_2_chains_the_rows_already_there_and_hashes_the_tokens(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    app, match_id, tokens = _played(db)
    heads = [r["hash"] for r in app.extensions["qalisball"].store.db.query("SELECT hash FROM events ORDER BY seq")]
    _close(app)
    # The same database as schema version 1 left it: no chain, tokens in clear, keys per match.
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX events_idem_key")
        conn.execute("ALTER TABLE events DROP COLUMN prev_hash")
        conn.execute("ALTER TABLE events DROP COLUMN hash")
        conn.execute("CREATE UNIQUE INDEX events_idem_key ON events (match_id, idem_key)")
        conn.execute("UPDATE matches SET tokens = ?", [json.dumps(tokens)])
        conn.execute("DELETE FROM migrations WHERE version = 2")
    conn.close()
    Path(str(db) + "-acks").unlink()
    app = _app(db)
    store = app.extensions["qalisball"].store
    assert store.schema_version == max(MIGRATIONS)
    assert [r["hash"] for r in store.db.query("SELECT hash FROM events ORDER BY seq")] == heads
    stored = json.loads(next(store.db.query("SELECT tokens FROM matches"))["tokens"])
    assert all(v.startswith("sha256:") and tokens[role] not in v for role, v in stored.items())
    client = app.test_client()
    assert "damaged" not in client.get(f"/api/matches/{match_id}").get_json()
    r = client.post(f"/api/matches/{match_id}/events", json={"type": "clock", "action": "resume"}, headers=auth(tokens["scorer"]))
    assert r.status_code == 201, "the tokens given before the migration still work"
    _close(app)


def _damaged_state(client: FlaskClient, match_id: str) -> dict[str, Any]:
    state: dict[str, Any] = client.get(f"/api/matches/{match_id}").get_json()
    assert isinstance(state.get("damaged"), str) and state["damaged"], state
    return state


def _writes_refused(client: FlaskClient, match_id: str, token: str) -> None:
    before = client.get(f"/api/matches/{match_id}/events").get_json()
    r = client.post(f"/api/matches/{match_id}/events", json={"type": "clock", "action": "resume"}, headers=auth(token))
    assert r.status_code == 503, r.get_json()
    assert r.get_json()["error"] == "damaged" and "read-only" in r.get_json()["message"]
    assert client.get(f"/api/matches/{match_id}/events").get_json() == before


def _every_screen_says(client: FlaskClient, match_id: str, token: str, words: str) -> None:
    for path in (
        f"/matches/{match_id}",
        f"/matches/{match_id}/scoreboard",
        f"/matches/{match_id}/scoreboard?overlay=1",
        f"/matches/{match_id}/referee?token={token}",
        f"/matches/{match_id}/officials?token={ADMIN}",
    ):
        html = client.get(path + ("&" if "?" in path else "?") + "lang=en", follow_redirects=True).get_data(as_text=True)
        assert "Read-only: this match’s event log cannot be trusted" in html and words in html, path
        zh = client.get(path + ("&" if "?" in path else "?") + "lang=zh", follow_redirects=True).get_data(as_text=True)
        assert "只读：本场比赛的事件记录不可信" in zh, path
    report = client.get(f"/matches/{match_id}/report?lang=en").get_data(as_text=True)
    assert 'id="damaged"' in report and words in report


def test_D41_a_wal_cut_by_100_bytes_loses_the_last_event_and_the_server_says_so(tmp_path: Path) -> None:
    app, match_id, tokens = _played(tmp_path / "a.db")
    crashed = _crash_copy(tmp_path / "a.db", tmp_path / "crash", cut=100)
    _close(app)
    app = _app(crashed)
    client = app.test_client()
    state = _damaged_state(client, match_id)
    assert state["seq"] < len(PLAY), "the cut WAL lost the last transaction"
    assert f"but event {len(PLAY)} was acknowledged" in state["damaged"]
    _writes_refused(client, match_id, tokens["scorer"])
    _every_screen_says(client, match_id, tokens["referee"], f"event {len(PLAY)} was acknowledged")
    # The loss stays visible after another restart (the journal keeps what was acknowledged).
    _close(app)
    app = _app(crashed)
    assert "damaged" in app.test_client().get(f"/api/matches/{match_id}").get_json()
    _close(app)


def test_D41_a_deleted_wal_is_noticed_and_no_demo_match_replaces_the_lost_one(tmp_path: Path) -> None:
    app, match_id, _ = _played(tmp_path / "a.db")
    crashed = _crash_copy(tmp_path / "a.db", tmp_path / "crash", wal="delete")
    _close(app)
    app = _app(crashed)
    svc = app.extensions["qalisball"]
    assert ensure_demo(svc) is None, "an empty list after a loss is no fresh installation"
    client = app.test_client()
    assert client.get("/api/matches").get_json() == []
    index = client.get("/?lang=en").get_data(as_text=True)
    assert "A match was lost" in index and match_id in index and f"acknowledged up to event {len(PLAY)}" in index
    assert "比赛丢失" in client.get("/?lang=zh").get_data(as_text=True)
    _close(app)


def test_D41_a_changed_row_with_a_recomputed_chain_is_caught_by_the_acknowledged_hash(db: str) -> None:
    """Someone edits a goal's scorer and recomputes every hash: the chain is sound, the journal is not fooled
    (on PostgreSQL too: the app keeps its journal, D392)."""
    app, match_id, tokens = _played(db)
    _close(app)
    sql(db, "UPDATE events SET fields = ? WHERE seq = 6", [json.dumps({"team": "home", "player": 5, "direct": False})])
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as pg:
            _m2_chain_only(_QMarks(pg))
    else:
        conn = sqlite3.connect(db, isolation_level=None)
        _m2_chain_only(conn)
        conn.close()
    app = _app(db)
    client = app.test_client()
    state = _damaged_state(client, match_id)
    assert "event 6 is not the event that was acknowledged" in state["damaged"]  # every acknowledgement is kept
    assert state["seq"] == 5 and state["score"] == {"home": 0, "away": 0}, "shown as far as it is proven"
    _writes_refused(client, match_id, tokens["referee"])
    _close(app)


class _QMarks:
    """A psycopg connection that takes ``?`` and gives rows by name, as ``_m2_chain_only`` uses sqlite3's."""

    def __init__(self, pg: Any) -> None:
        from psycopg.rows import dict_row

        self.pg = pg
        pg.row_factory = dict_row

    def execute(self, statement: str, params: list[Any] | None = None) -> Any:
        return self.pg.execute(statement.replace("?", "%s"), params or [])


def _m2_chain_only(conn: Any) -> None:
    """Recompute every chain as migration 2 does (what a forger with SQL access would do)."""
    from qalisball.storage import integrity
    from qalisball.storage.store import _entry

    if isinstance(conn, sqlite3.Connection):
        conn.row_factory = sqlite3.Row
    for match in conn.execute("SELECT id, created_at, setup FROM matches").fetchall():
        prev = integrity.genesis_hash(match["id"], match["created_at"], json.loads(match["setup"]))
        for row in conn.execute("SELECT * FROM events WHERE match_id = ? ORDER BY seq", [match["id"]]).fetchall():
            entry = _entry(dict(row))
            h = integrity.row_hash(entry, prev)
            conn.execute(
                "UPDATE events SET prev_hash = ?, hash = ? WHERE match_id = ? AND seq = ?", [prev, h, match["id"], entry.seq]
            )
            prev = h


@pytest.mark.parametrize(
    ("change", "words", "proven"),
    [
        (
            'UPDATE events SET fields = \'{"team": "away", "player": 3, "direct": false}\' WHERE seq = 6',
            "event 6 does not match",
            5,
        ),
        ("UPDATE events SET received_ms = received_ms + 1 WHERE seq = 2", "event 2 does not match", 1),
        ("DELETE FROM events WHERE seq = 3", "event 3 is missing from the log", 2),
        ("UPDATE events SET voided_by = NULL WHERE seq = 4", "void event 5 is not marked on the event it voids", 4),
        ("UPDATE events SET voided_by = 7 WHERE seq = 2", "event 2 is marked voided by an event that does not void it", 6),
        ("UPDATE matches SET setup = replace(setup, 'Renmin', 'Remnin')", "event 1 does not match", 0),
    ],
)
def test_D40_a_changed_deleted_or_unmarked_row_breaks_the_chain(db: str, change: str, words: str, proven: int) -> None:
    app, match_id, tokens = _played(db)
    _close(app)
    sql(db, change)  # sqlite3 on the file, or psql on PostgreSQL (issue 32)
    app = _app(db)
    client = app.test_client()
    state = _damaged_state(client, match_id)
    assert words in state["damaged"], state["damaged"]
    assert state["seq"] == proven
    _writes_refused(client, match_id, tokens["scorer"])
    _close(app)
    out = io.StringIO()
    assert check(str(db), out=lambda line: print(line, file=out)) is False
    assert f"DAMAGED  {match_id}" in out.getvalue() and words in out.getvalue()


def test_D42_a_garbage_page_starts_the_server_read_only_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    app, match_id, tokens = _played(db)
    _close(app)  # checkpointed: every row is in the database file now
    size = db.stat().st_size
    page = 4096
    assert size >= 4 * page
    with db.open("r+b") as f:  # one page in the middle overwritten with garbage
        f.seek(page * (size // page // 2))
        f.write(bytes(range(256)) * (page // 256))
    app = _app(db)  # starts, never crashes
    client = app.test_client()
    assert client.get("/api/matches").status_code == 200
    index = client.get("/?lang=en").get_data(as_text=True)
    # Found by quick_check, or (a page quick_check passed) when the competitions' tables are read.
    assert "Read-only: the database file is damaged (quick_check:" in index or (
        "Read-only: the database file" in index and "(database disk image is malformed)" in index
    )
    r = client.post("/api/matches", json=demo_request(), headers=auth(ADMIN))
    assert r.status_code == 503 and r.get_json()["error"] == "damaged"
    assert ensure_demo(app.extensions["qalisball"]) is None
    for m in client.get("/api/matches").get_json():
        assert "the database file is damaged" in m["damaged"] or "disk image is malformed" in m["damaged"]
    _close(app)


def test_D42_a_file_that_is_no_database_starts_an_empty_read_only_server_that_says_so(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    app, match_id, tokens = _played(db)
    _close(app)
    with db.open("r+b") as f:
        f.write(b"garbage garbage!")  # the header: no longer an SQLite file
    app = _app(db)
    client = app.test_client()
    assert client.get("/api/matches").get_json() == []
    index = client.get("/?lang=en").get_data(as_text=True)
    assert "cannot be read (file is not a database)" in index
    assert "A match was lost" in index and match_id in index
    assert ensure_demo(app.extensions["qalisball"]) is None
    r = client.post("/api/matches", json=demo_request(), headers=auth(ADMIN))
    assert r.status_code == 503 and r.get_json()["error"] == "damaged"
    _close(app)


def test_D43_verify_backup_and_restore_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    app, match_id, tokens = _played(db)
    head = app.extensions["qalisball"].matches[match_id].head
    # While the server runs (its WAL not checkpointed): verify reads, never writes.
    wal = Path(str(db) + "-wal").read_bytes()
    done = _cli("verify", str(db))
    assert done.returncode == 0, done.stdout
    assert f"OK       {match_id}" in done.stdout and f"events 1–{len(PLAY)}  head {head}" in done.stdout
    assert Path(str(db) + "-wal").read_bytes() == wal
    # A backup while serving.
    done = _cli("backup", str(tmp_path / "backups"), "--db", str(db)) if (tmp_path / "backups").mkdir() is None else None
    assert done is not None and done.returncode == 0, done.stdout if done else ""
    backup = tmp_path / "backups" / "live.db"
    assert backup.exists() and f"head {head}" in done.stdout
    # More events after the backup, then the disk dies: restore it and see what was lost.
    client = app.test_client()
    assert (
        client.post(
            f"/api/matches/{match_id}/events", json={"type": "clock", "action": "resume"}, headers=auth(tokens["scorer"])
        ).status_code
        == 201
    )
    _close(app)
    done = _cli("restore", str(backup), "--db", str(db))
    assert done.returncode == 0, done.stdout
    assert (
        f"LOST     {match_id}: events {len(PLAY) + 1}–{len(PLAY) + 1} were acknowledged, the backup ends at {len(PLAY)}"
        in done.stdout
    )
    app = _app(db)
    state = app.test_client().get(f"/api/matches/{match_id}").get_json()
    assert "damaged" not in state and state["seq"] == len(PLAY), "the restored log is the acknowledged one now"
    _close(app)
    assert _cli("verify", str(db)).returncode == 0
    # A damaged database: verify says so, exit status 1.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET [by] = 'scorer' WHERE seq = 3")
    conn.close()
    done = _cli("verify", str(db))
    assert done.returncode == 1 and f"DAMAGED  {match_id}" in done.stdout and "event 3 does not match" in done.stdout


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "qalisball", *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def test_D41_kill_9_then_a_wal_cut_by_100_bytes_on_the_real_server(server: Server) -> None:  # noqa: F811
    """As bad luck would: ``make run``'s server killed, its WAL cut, started again."""
    match_id, tokens = _create(server)
    session = requests.Session()
    for role, body in PLAY:
        assert _post(session, server, match_id, tokens[role], body).status_code == 201
    server.kill9()
    wal = Path(str(server.db) + "-wal")
    with wal.open("r+b") as f:
        f.truncate(wal.stat().st_size - 100)
    server.start()
    state = _state(server, match_id)
    assert state["seq"] < len(PLAY) and f"event {len(PLAY)} was acknowledged" in state["damaged"]
    r = _post(session, server, match_id, tokens["scorer"], {"type": "clock", "action": "resume"})
    assert r.status_code == 503 and r.json()["error"] == "damaged"
    page = requests.get(f"{server.base}/matches/{match_id}/scoreboard?lang=en", timeout=10).text
    assert "Read-only: this match’s event log cannot be trusted" in page
    session.close()
