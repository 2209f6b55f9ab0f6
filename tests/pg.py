"""A throw-away PostgreSQL cluster for the test session (issue 32), and SQL run on a database from outside the server.

Debian's ``postgresql`` (``scripts/ensure-system-deps.sh``) gives ``initdb`` and ``pg_ctl``; ``initdb`` refuses to
run as root, so as root they run as the ``postgres`` user (``runuser``), on a temporary folder owned by it. The
cluster listens on a free loopback port only, trusts local connections, and is stopped (``-m immediate``) and
removed at the end. When it cannot start, the tests that need it fail with pg_ctl's log (never a skip).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .ports import free_port


def _bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if not versions:
        raise RuntimeError("PostgreSQL is not installed (pg_ctl not found): run scripts/ensure-system-deps.sh")
    return Path(versions[-1]).parent


class Cluster:
    """One PostgreSQL server on 127.0.0.1:<port>, its data in a temporary folder."""

    def __init__(self) -> None:
        self.bin = _bindir()
        self.root = os.geteuid() == 0
        self.dir = Path(tempfile.mkdtemp(prefix="qalisball-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.port = free_port()
        if self.root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._as_owner([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                        "--locale=C.UTF-8"])  # fmt: skip
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=on -c max_connections=200"
        self._as_owner([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w",
                        "-t", "60", "start"])  # fmt: skip
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_owner(self, argv: list[str]) -> None:
        command = (["runuser", "-u", "postgres", "--"] if self.root else []) + argv
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.dir, timeout=120)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {' '.join(argv)}\n{done.stdout}\n{done.stderr}\n{log}")

    def new_database(self) -> str:
        """A fresh, empty database of this cluster: its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def drop(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        try:
            self._as_owner([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def sql(db: str, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run one statement on ``db`` (a SQLite file or a postgresql:// URL) as someone with a shell and
    ``sqlite3`` or ``psql`` would, outside the server; its rows. ``?`` placeholders on both."""
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            cur = conn.execute(statement.replace("?", "%s"), list(params))
            return list(cur.fetchall()) if cur.description else []
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        return conn.execute(statement, list(params)).fetchall()
    finally:
        conn.close()


_JSON_SET = re.compile(r"json_set\((\w+),((?:\s*'\$[.\w]+'\s*,\s*(?:\?|-?\d+)\s*,?)+)\)")
_PAIR = re.compile(r"'\$\.([.\w]+)'\s*,\s*(\?|-?\d+)")


def portable(db: str, statement: str) -> str:
    """``statement`` as written for ``sqlite3``, for ``db``'s engine: on PostgreSQL SQLite's ``json_set(col, '$.a.b',
    v, …)`` on a JSON text column becomes nested ``jsonb_set`` (numbers as JSON numbers, ``?`` as a JSON string)."""
    if not db.startswith("postgresql://"):
        return statement

    def nested(m: re.Match[str]) -> str:
        out = f"{m.group(1)}::jsonb"
        for path, value in _PAIR.findall(m.group(2)):
            new = "to_jsonb(?::text)" if value == "?" else f"'{value}'::jsonb"
            out = f"jsonb_set({out}, '{{{path.replace('.', ',')}}}', {new})"
        return f"({out})::text"

    return _JSON_SET.sub(nested, statement)
