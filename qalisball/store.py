"""The append-only event log in SQLite, through sqlite-utils (SPEC D8).

Every accepted event is one row, committed (WAL, ``synchronous=FULL``) before the API answers. Rows
are never deleted or rewritten; the only update is ``voided_by`` on the target of a void, made in
the same transaction as the void's own row. Schema changes are numbered migrations.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils


@dataclass(frozen=True)
class LogEntry:
    """One row of the event log."""

    match_id: str
    seq: int
    type: str
    fields: dict[str, Any]
    by: str
    at_ms: int | None
    received_at: str  # ISO 8601, UTC
    received_ms: int  # server time in ms: the ``now`` the engine applied the event at
    key: str | None = None
    body_hash: str | None = None
    response: str | None = None
    voided_by: int | None = None

    def public(self) -> dict[str, Any]:
        """The log entry as API.md's ``GET .../events`` shows it."""
        return {
            "seq": self.seq,
            "type": self.type,
            **self.fields,
            "by": self.by,
            "at_ms": self.at_ms,
            "received_at": self.received_at,
            "voided_by": self.voided_by,
            "id": self.key,
        }


def _m1(db: sqlite_utils.Database) -> None:
    db["matches"].create(
        {"id": str, "created_at": str, "setup": str, "tokens": str},
        pk="id",
    )
    db["events"].create(
        {
            "match_id": str,
            "seq": int,
            "type": str,
            "fields": str,
            "by": str,
            "at_ms": int,
            "received_at": str,
            "received_ms": int,
            "idem_key": str,
            "body_hash": str,
            "response": str,
            "voided_by": int,
        },
        pk=("match_id", "seq"),
        not_null={"match_id", "seq", "type", "fields", "by", "received_at", "received_ms"},
    )
    db["events"].create_index(["match_id", "idem_key"], unique=True, index_name="events_idem_key")


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_m1]


class Store:
    """The SQLite database: matches and their event logs. One connection, one writer at a time."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db = sqlite_utils.Database(conn)
        self.db.execute("PRAGMA journal_mode=WAL")
        # FULL: a committed event survives a power cut too, not only a killed process.
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self._lock = threading.RLock()
        self._migrate()

    def _migrate(self) -> None:
        if "migrations" not in self.db.table_names():
            self.db["migrations"].create({"version": int, "applied_at": str}, pk="version")
        done = {row["version"] for row in self.db["migrations"].rows}
        for version, migration in enumerate(MIGRATIONS, start=1):
            if version in done:
                continue
            with self._transaction():
                migration(self.db)
                self._insert("migrations", {"version": version, "applied_at": _utc_now_iso()})

    @property
    def schema_version(self) -> int:
        return max((row["version"] for row in self.db["migrations"].rows), default=0)

    def _transaction(self) -> Any:
        return _Transaction(self.db.conn, self._lock)

    def _insert(self, table: str, row: dict[str, Any]) -> None:
        # Plain SQL inside our own BEGIN IMMEDIATE: sqlite-utils' insert() would commit on its own.
        columns = ", ".join(f"[{c}]" for c in row)
        marks = ", ".join("?" for _ in row)
        self.db.execute(f"INSERT INTO [{table}] ({columns}) VALUES ({marks})", list(row.values()))

    # -- matches -------------------------------------------------------------------------------

    def add_match(self, match_id: str, setup: dict[str, Any], tokens: dict[str, str], created_at: str) -> None:
        with self._transaction():
            self._insert(
                "matches",
                {
                    "id": match_id,
                    "created_at": created_at,
                    "setup": json.dumps(setup, ensure_ascii=False),
                    "tokens": json.dumps(tokens),
                },
            )

    def matches(self) -> Iterator[dict[str, Any]]:
        for row in self.db["matches"].rows_where(order_by="created_at, id"):
            yield {**row, "setup": json.loads(row["setup"]), "tokens": json.loads(row["tokens"])}

    # -- events --------------------------------------------------------------------------------

    def append(self, entry: LogEntry) -> None:
        """Commit one event (and, for a void, mark its target) before returning."""
        row = {
            "match_id": entry.match_id,
            "seq": entry.seq,
            "type": entry.type,
            "fields": json.dumps(entry.fields, ensure_ascii=False),
            "by": entry.by,
            "at_ms": entry.at_ms,
            "received_at": entry.received_at,
            "received_ms": entry.received_ms,
            "idem_key": entry.key,
            "body_hash": entry.body_hash,
            "response": entry.response,
            "voided_by": None,
        }
        with self._transaction():
            self._insert("events", row)
            if entry.type == "void":
                self.db.execute(
                    "UPDATE events SET voided_by = ? WHERE match_id = ? AND seq = ? AND voided_by IS NULL",
                    [entry.seq, entry.match_id, entry.fields["target"]],
                )

    def events(self, match_id: str) -> list[LogEntry]:
        rows = self.db["events"].rows_where("match_id = ?", [match_id], order_by="seq")
        return [
            LogEntry(
                match_id=r["match_id"],
                seq=r["seq"],
                type=r["type"],
                fields=json.loads(r["fields"]),
                by=r["by"],
                at_ms=r["at_ms"],
                received_at=r["received_at"],
                received_ms=r["received_ms"],
                key=r["idem_key"],
                body_hash=r["body_hash"],
                response=r["response"],
                voided_by=r["voided_by"],
            )
            for r in rows
        ]

    def close(self) -> None:
        self.db.conn.close()


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT (or ROLLBACK) under the store's lock."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        self.conn, self.lock = conn, lock

    def __enter__(self) -> None:
        self.lock.acquire()
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.lock.release()


def _utc_now_iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds")
