"""One storage interface, two engines (issue 32, D390): the store, its hash chain and seals, the records ledger,
the journal, tokens and the migrations work the same on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from qalisball.server import tables  # noqa: F401  (every feature's migrations registered)
from qalisball.storage import integrity, migrations
from qalisball.storage.store import DatabaseInUse, LogEntry, Store

ROOT = Path(__file__).resolve().parent.parent


def _entry(match_id: str, seq: int, **kw: object) -> LogEntry:
    return LogEntry(match_id, seq, "goal", {"team": "home"}, "referee", 1000 * seq, "2026-01-01T00:00:00.000+00:00",
                    1_800_000_000_000 + seq, **kw)  # type: ignore[arg-type]  # fmt: skip


def test_issue32_D390_every_migration_runs_and_a_chain_is_stored_and_read_back(db: str) -> None:
    store = Store(db)
    try:
        assert store.problem is None, store.problem
        assert store.schema_version == max(migrations.MIGRATIONS)
        genesis = store.add_match("m1", {"a": 1}, {"referee": "sha256:" + "0" * 64}, "2026-01-01T00:00:00Z")
        one = store.append(_entry("m1", 1, key="k1"))
        two = store.append(_entry("m1", 2))
        assert one.prev_hash == genesis and two.prev_hash == one.hash
        read = store.events("m1")
        assert [e.hash for e in read] == [one.hash, two.hash] and read[0].key == "k1"
        assert integrity.check_chain("m1", genesis, read).damage is None
        assert store.check_records().damage is None
    finally:
        store.close()
    again = Store(db)  # opened again: nothing migrates twice, the records are the ledger's
    try:
        assert again.problem is None, again.problem
        assert [e.seq for e in again.events("m1")] == [1, 2]
    finally:
        again.close()


@pytest.mark.postgres
def test_issue32_D396_a_second_server_process_on_one_postgresql_database_opens_it_too(pg_url: str) -> None:
    """D391's refusal is superseded: several processes write one PostgreSQL database (each holds a shared lock)."""
    store = Store(pg_url)
    try:
        code = f"from qalisball.storage.store import Store\ns = Store({pg_url!r})\nassert s.shared\ns.close()\nprint('opened')"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "opened" in done.stdout, done.stderr
        held = store.db.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock' AND granted"
        ).fetchone()[0]
        assert held == 1  # this process's shared lock; the other's went with its session
    finally:
        store.close()


def test_issue32_D391_one_process_may_open_its_own_database_twice(db: str) -> None:
    first = Store(db)
    try:
        Store(db).close()
    except DatabaseInUse:  # pragma: no cover - the failure this test names
        pytest.fail("a process opening its own database again was refused")
    finally:
        first.close()


def _verify_cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QALISBALL_DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "qalisball", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


@pytest.mark.postgres
def test_issue32_item4_verify_on_postgresql_says_damaged_for_a_row_edited_with_psql(pg_url: str) -> None:
    from qalisball import create_app
    from qalisball.server.demo import demo_request

    from .conftest import FakeClock, auth

    admin = "engines-organiser-token-0123456789"
    app = create_app({"TESTING": True, "DATABASE": pg_url, "ADMIN_TOKEN": admin, "CLOCK": FakeClock()})
    client = app.test_client()
    made = client.post("/api/matches", json=demo_request(), headers=auth(admin)).get_json()
    for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
        r = client.post(f"/api/matches/{made['id']}/events", json=body, headers=auth(made["tokens"]["referee"]))
        assert r.status_code == 201, r.get_json()
    app.extensions["qalisball"].store.close()
    sound = _verify_cli(pg_url, "verify")
    assert sound.returncode == 0 and f"OK       {made['id']}" in sound.stdout and "PostgreSQL" in sound.stdout, sound.stdout
    psql = shutil.which("psql") or str(Path(shutil.which("pg_ctl") or "/usr/bin/pg_ctl").parent / "psql")
    edit = 'UPDATE events SET fields = \'{"kickoff": "away", "home_end": "x0"}\' WHERE seq = 1'
    done = subprocess.run([psql, pg_url, "-v", "ON_ERROR_STOP=1", "-c", edit], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "UPDATE 1" in done.stdout, done.stderr
    damaged = _verify_cli(pg_url, "verify")
    assert damaged.returncode == 1, damaged.stdout
    assert f"DAMAGED  {made['id']}" in damaged.stdout and "event 1 does not match" in damaged.stdout, damaged.stdout
    assert "***" not in pg_url and "postgresql://postgres@127.0.0.1" in damaged.stdout


@pytest.mark.postgres
def test_issue32_D393_backup_and_restore_of_postgresql_name_pg_dump_and_pg_restore_and_do_nothing(pg_url: str) -> None:
    Store(pg_url).close()
    for args, tool in ((("backup", "/tmp"), "pg_dump"), (("restore", "/tmp/x.dump"), "pg_restore")):
        done = _verify_cli(pg_url, *args)
        assert done.returncode == 2 and tool in done.stdout and "Nothing done" in done.stdout, done.stdout


def test_issue32_D390_the_sql_is_written_in_postgresqls_words() -> None:
    from qalisball.storage.engine import translate

    assert translate("SELECT [by] FROM events WHERE match_id = ? ORDER BY rowid") == (
        'SELECT "by" FROM events WHERE match_id = %s ORDER BY ctid'
    )
    assert translate("SELECT json_extract(body, '$.fixture') FROM t WHERE x LIKE '50% ?'") == (
        "SELECT (body::jsonb ->> 'fixture') FROM t WHERE x LIKE '50%% ?'"
    )
    assert translate("INSERT OR IGNORE INTO t (a) VALUES (?)") == "INSERT INTO t (a) VALUES (%s) ON CONFLICT DO NOTHING"
    assert translate("CREATE TABLE j (cursor INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER)") == (
        "CREATE TABLE j (cursor BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n BIGINT)"
    )
