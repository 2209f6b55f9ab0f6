"""Why a thin layer, not SQLAlchemy Core (D390): the store's write (BEGIN; the head; INSERT; COMMIT) through sqlite3 as
the store uses it, SQLAlchemy Core 2.0, psycopg 3 and engine.PgDatabase. SQLAlchemy is not a requirement: run with
it installed apart, `pip install --target /tmp/sa SQLAlchemy==2.0.*` (the script adds /tmp/sa to its path)."""

import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))

N = 3000


def bench(name, fn):
    fn(50)
    best = min(timed(fn) for _ in range(3))
    print(f"{name:<42} {best * 1e6 / N:7.1f} µs per write transaction")


def timed(fn):
    t = time.perf_counter()
    fn(N)
    return time.perf_counter() - t


ddl = "CREATE TABLE events (match_id TEXT, seq INTEGER, body TEXT, hash TEXT, PRIMARY KEY (match_id, seq))"


def raw_sqlite(path):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute(ddl)
    s = [0]

    def run(n):
        for _ in range(n):
            s[0] += 1
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("SELECT hash FROM events WHERE match_id = ? ORDER BY seq DESC LIMIT 1", ["m"]).fetchone()
            conn.execute("INSERT INTO [events] ([match_id], [seq], [body], [hash]) VALUES (?, ?, ?, ?)", ["m", s[0], "{}", "h"])
            conn.execute("COMMIT")

    return run


def sa_sqlite(path):
    sys.path.insert(0, "/tmp/sa")
    import sqlalchemy as sa

    eng = sa.create_engine(f"sqlite:///{path}", isolation_level="AUTOCOMMIT")
    md = sa.MetaData()
    t = sa.Table(
        "events",
        md,
        sa.Column("match_id", sa.Text, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("body", sa.Text),
        sa.Column("hash", sa.Text),
    )
    conn = eng.connect()
    conn.exec_driver_sql("PRAGMA journal_mode=WAL")
    conn.exec_driver_sql("PRAGMA synchronous=OFF")
    md.create_all(conn)
    head = sa.select(t.c.hash).where(t.c.match_id == sa.bindparam("m")).order_by(t.c.seq.desc()).limit(1)
    ins = t.insert()
    s = [0]

    def run(n):
        for _ in range(n):
            s[0] += 1
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            conn.execute(head, {"m": "m"}).fetchone()
            conn.execute(ins, {"match_id": "m", "seq": s[0], "body": "{}", "hash": "h"})
            conn.exec_driver_sql("COMMIT")

    return run


def pg_raw(url):
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    conn.execute("SET synchronous_commit=off")
    conn.execute(ddl.replace("INTEGER", "BIGINT"))
    s = [0]

    def run(n):
        for _ in range(n):
            s[0] += 1
            conn.execute("BEGIN")
            conn.execute("SELECT hash FROM events WHERE match_id = %s ORDER BY seq DESC LIMIT 1", ["m"]).fetchone()
            conn.execute(
                'INSERT INTO "events" ("match_id", "seq", "body", "hash") VALUES (%s, %s, %s, %s)', ["m", s[0], "{}", "h"]
            )
            conn.execute("COMMIT")

    return run


def pg_thin(url):
    from qalisball.storage import engine

    db = engine.PgDatabase(engine.connect(url))
    db.execute("SET synchronous_commit=off")
    db.execute(ddl)
    s = [0]

    def run(n):
        for _ in range(n):
            s[0] += 1
            db.execute("BEGIN")
            db.execute("SELECT hash FROM events WHERE match_id = ? ORDER BY seq DESC LIMIT 1", ["m"]).fetchone()
            db.execute("INSERT INTO [events] ([match_id], [seq], [body], [hash]) VALUES (?, ?, ?, ?)", ["m", s[0], "{}", "h"])
            db.execute("COMMIT")

    return run


def pg_sa(url):
    import sqlalchemy as sa

    eng = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    md = sa.MetaData()
    t = sa.Table(
        "events",
        md,
        sa.Column("match_id", sa.Text, primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True),
        sa.Column("body", sa.Text),
        sa.Column("hash", sa.Text),
    )
    conn = eng.connect()
    conn.exec_driver_sql("SET synchronous_commit=off")
    md.create_all(conn)
    head = sa.select(t.c.hash).where(t.c.match_id == sa.bindparam("m")).order_by(t.c.seq.desc()).limit(1)
    ins = t.insert()
    s = [0]

    def run(n):
        for _ in range(n):
            s[0] += 1
            conn.exec_driver_sql("BEGIN")
            conn.execute(head, {"m": "m"}).fetchone()
            conn.execute(ins, {"match_id": "m", "seq": s[0], "body": "{}", "hash": "h"})
            conn.exec_driver_sql("COMMIT")

    return run


d = tempfile.mkdtemp()
bench("SQLite, sqlite3 as the store uses it", raw_sqlite(d + "/a.db"))
bench("SQLite, SQLAlchemy Core 2.0", sa_sqlite(d + "/b.db"))
from tests.pg import Cluster  # noqa: E402

c = Cluster()
try:
    bench("PostgreSQL, psycopg 3 directly", pg_raw(c.new_database()))
    bench("PostgreSQL, engine.PgDatabase (ours)", pg_thin(c.new_database()))
    bench("PostgreSQL, SQLAlchemy Core 2.0 + psycopg 3", pg_sa(c.new_database()))
finally:
    c.stop()
