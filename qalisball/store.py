"""The append-only event log in SQLite, through sqlite-utils (SPEC D8).

Every accepted event is one row, committed (WAL, ``synchronous=FULL``) before the API answers. Rows
are never deleted or rewritten; the only update is ``voided_by`` on the target of a void, made in
the same transaction as the void's own row. Schema changes are numbered migrations.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from . import competition_store, screen_store

# A write waits at most this long for another connection's lock before answering 503 (seconds).
BUSY_TIMEOUT_S = 2.0


class StorageError(Exception):
    """The database refused a write for a reason outside the request: nothing was stored.

    ``status`` is the HTTP answer (503 ``unavailable`` while it may pass by itself, 507 when the
    disk is full); ``retry_after`` is seconds, for the ``Retry-After`` header.
    """

    def __init__(self, status: int, error: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.retry_after = status, error, message, retry_after


# SQLite's primary result codes (https://sqlite.org/rescode.html).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


def storage_error(exc: sqlite3.Error) -> StorageError:
    """Say what a failed SQLite call means for the official, in words and an HTTP status."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc).lower()
    if code in (_BUSY, _LOCKED) or "locked" in text or "busy" in text:
        return StorageError(
            503, "unavailable", "the database is busy (another program holds its write lock): try again in a moment", 2
        )
    if code == _FULL or "full" in text:
        return StorageError(507, "storage_full", "the disk holding the database is full: nothing was stored; free space")
    if code == _READONLY or "readonly" in text or "read-only" in text:
        return StorageError(503, "unavailable", "the database file is read-only: nothing was stored; check its permissions", 10)
    if code in (_IOERR, _CANTOPEN):
        return StorageError(503, "unavailable", "the disk could not be written (I/O error): nothing was stored", 5)
    if code in (_CORRUPT, _NOTADB):
        return StorageError(503, "unavailable", "the database is damaged: nothing was stored; run `python -m qalisball verify`")
    return StorageError(503, "unavailable", f"the database refused the write ({exc}): nothing was stored", 5)


def _run_inline(fn: Callable[[], Any]) -> Any:
    return fn()


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


# Numbered migrations, applied once each in number order. Numbers are reserved per piece of work so
# that branches developed side by side never take the same one: 2 the log's hash chain (issue 14),
# 3 competitions (issue 12), 4 and up the match day (issue 11) except 5: venue screens, images
# and team logos (issue 13).
MIGRATIONS: dict[int, Callable[[sqlite_utils.Database], None]] = {1: _m1, 3: competition_store.migrate, 5: screen_store.migrate}


class Store:
    """The SQLite database: matches and their event logs. One connection, one writer at a time."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        self.db = sqlite_utils.Database(conn)
        self.db.execute("PRAGMA journal_mode=WAL")
        # FULL: a committed event survives a power cut too, not only a killed process.
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self._lock = threading.RLock()
        # Writes run through ``_run``: inline by default; under gevent, on one worker thread of
        # this database (``run_writes_off_loop``), so a write waiting on SQLite never freezes the
        # event loop that serves reads and spectators (issue 14, defect 2).
        self._run: Callable[[Callable[[], Any]], Any] = _run_inline
        self._migrate()

    def run_writes_off_loop(self) -> None:
        """Under gevent: run every write on a single OS thread owned by this database."""
        from gevent.threadpool import ThreadPool

        pool = ThreadPool(1)
        self._run = lambda fn: pool.apply(fn)

    def _write(self, fn: Callable[[], None]) -> None:
        """Run one write transaction; any SQLite failure becomes a ``StorageError``, nothing half-stored."""
        try:
            self._run(fn)
        except sqlite3.Error as exc:
            raise storage_error(exc) from exc

    def _migrate(self) -> None:
        if "migrations" not in self.db.table_names():
            self.db["migrations"].create({"version": int, "applied_at": str}, pk="version")
        done = {row["version"] for row in self.db["migrations"].rows}
        for version, migration in sorted(MIGRATIONS.items()):
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
        row = {
            "id": match_id,
            "created_at": created_at,
            "setup": json.dumps(setup, ensure_ascii=False),
            "tokens": json.dumps(tokens),
        }

        def write() -> None:
            with self._transaction():
                self._insert("matches", row)

        self._write(write)

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

        def write() -> None:
            with self._transaction():
                self._insert("events", row)
                if entry.type in ("void", "amend"):  # the voided or replaced event (D8, M3)
                    self.db.execute(
                        "UPDATE events SET voided_by = ? WHERE match_id = ? AND seq = ? AND voided_by IS NULL",
                        [entry.seq, entry.match_id, entry.fields["target"]],
                    )

        self._write(write)

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
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except BaseException:
            # "database is locked" (or any failure to begin): release the lock, or every later
            # write would wait on it for ever (issue 14, defect 1).
            self.lock.release()
            raise

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            if exc_type is None:
                try:
                    self.conn.execute("COMMIT")
                except BaseException:
                    self._rollback()  # a failed COMMIT (disk full, I/O error) leaves nothing half-stored
                    raise
            else:
                self._rollback()
        finally:
            self.lock.release()

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            # SQLite may have rolled back already (for example after SQLITE_FULL).
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")


def _utc_now_iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds")
