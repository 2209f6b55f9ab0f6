"""The append-only event log in SQLite, through sqlite-utils (SPEC D8).

Every accepted event is one row, committed (WAL, ``synchronous=FULL``) before the API answers. Rows
are never deleted or rewritten; the only update is ``voided_by`` on the target of a void, made in
the same transaction as the void's own row. Schema changes are numbered migrations.

Each row carries the hash of the row before it (``qalisball/integrity.py``), and each commit is
recorded in the acknowledgement journal ``<db>-acks`` before the API answers, so that a database
that lost acknowledged events says so at start-up. A database that cannot be read, or fails
``PRAGMA quick_check``, is opened read-only: ``problem`` says why and every write answers 503.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import sqlite_utils

from . import competition_tables, integrity, screen_tables, tokens
from .integrity import AckJournal, Damage
from .rules.errors import N_

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
    prev_hash: str | None = None  # the hash chain (integrity.py): set by ``Store.append``
    hash: str | None = None

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


def _m2(db: sqlite_utils.Database) -> None:
    """Issue 14: the hash chain (computed for the rows already there), hashed role tokens, and
    idempotency keys scoped to the role that sent them."""
    db.execute("ALTER TABLE events ADD COLUMN prev_hash TEXT")
    db.execute("ALTER TABLE events ADD COLUMN hash TEXT")
    db.execute("DROP INDEX IF EXISTS events_idem_key")
    db.execute("CREATE UNIQUE INDEX events_idem_key ON events (match_id, [by], idem_key)")
    for match in list(db.query("SELECT id, created_at, setup, tokens FROM matches")):
        clear = json.loads(match["tokens"])
        hashed = {role: t if tokens.is_hashed(t) else tokens.hash_token(t) for role, t in clear.items()}
        db.execute("UPDATE matches SET tokens = ? WHERE id = ?", [json.dumps(hashed), match["id"]])
        prev = integrity.genesis_hash(match["id"], match["created_at"], json.loads(match["setup"]))
        rows = db.query("SELECT * FROM events WHERE match_id = ? ORDER BY seq", [match["id"]])
        for entry in [_entry(r) for r in rows]:
            h = integrity.row_hash(entry, prev)
            db.execute(
                "UPDATE events SET prev_hash = ?, hash = ? WHERE match_id = ? AND seq = ?", [prev, h, match["id"], entry.seq]
            )
            prev = h


# Numbered migrations, applied once each in number order. Numbers are reserved per piece of work so
# that branches developed side by side never take the same one: 2 the log's hash chain (issue 14),
# 3 competitions (issue 12), 4 and up the match day (issue 11) except 5: venue screens, images and team
# logos (issue 13). A later migration that rewrites a match's ``setup`` or an event row must recompute
# that match's chain as ``_m2`` does.
MIGRATIONS: dict[int, Callable[[sqlite_utils.Database], None]] = {
    1: _m1,
    2: _m2,
    3: competition_tables.migrate,
    5: screen_tables.migrate,
}


class Store:
    """The SQLite database: matches and their event logs. One connection, one writer at a time."""

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        """Open (creating and migrating) the database; ``readonly``: only look (``python -m qalisball verify``).

        A read-only store never writes, migrates or checkpoints: a damaged WAL stays as it was found.
        """
        self.path = str(path)
        self.readonly = readonly
        if self.path != ":memory:" and not readonly:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        # Writes run through ``_run``: inline by default; under gevent, on one worker thread of
        # this database (``run_writes_off_loop``), so a write waiting on SQLite never freezes the
        # event loop that serves reads and spectators (issue 14, defect 2).
        self._run: Callable[[Callable[[], Any]], Any] = _run_inline
        self.acks = AckJournal(integrity.acks_path(self.path))
        # Why the whole database is read-only (it cannot be read, or fails quick_check), if it is.
        self.problem: Damage | None = None
        if readonly:
            target = "file:" + urllib.parse.quote(str(Path(self.path).resolve())) + "?mode=ro"
            conn = sqlite3.connect(target, uri=True, check_same_thread=False, isolation_level=None)
        else:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        self.db = sqlite_utils.Database(conn)
        try:
            if not readonly:
                self.db.execute("PRAGMA journal_mode=WAL")
                # FULL: a committed event survives a power cut too, not only a killed process.
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.execute("PRAGMA foreign_keys=ON")
            self.problem = self.quick_check()
            if self.problem is None and not readonly:
                self._migrate()
        except sqlite3.DatabaseError as exc:
            # A file that is no database, or a damaged schema: start, say so on every screen, write nothing.
            self.problem = Damage(
                N_("the database file {path} cannot be read ({error}): nothing can be stored; restore the latest backup"),
                {"path": self.path, "error": str(exc)},
            )

    def quick_check(self) -> Damage | None:
        """``PRAGMA quick_check``: the database's own structure (pages, b-trees), not the chain."""
        found = [str(row[0]) for row in self.db.execute("PRAGMA quick_check").fetchall()]
        if found == ["ok"]:
            return None
        return Damage(
            N_("the database file is damaged (quick_check: {found}): it is read-only; restore the latest backup"),
            {"found": "; ".join(found[:3])},
        )

    def run_writes_off_loop(self) -> None:
        """Under gevent: run every write on a single OS thread owned by this database."""
        from gevent.threadpool import ThreadPool

        pool = ThreadPool(1)
        self._run = lambda fn: pool.apply(fn)

    def _write(self, fn: Callable[[], Any]) -> Any:
        """Run one write transaction; any SQLite failure becomes a ``StorageError``, nothing half-stored."""
        if self.problem is not None:
            raise StorageError(503, "damaged", self.problem.message)
        if self.readonly:
            raise StorageError(503, "unavailable", "the database was opened read-only")
        try:
            return self._run(fn)
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
        if "migrations" not in self.db.table_names():
            return 0
        return max((row["version"] for row in self.db["migrations"].rows), default=0)

    def _transaction(self) -> Any:
        return _Transaction(self.db.conn, self._lock)

    def _insert(self, table: str, row: dict[str, Any]) -> None:
        # Plain SQL inside our own BEGIN IMMEDIATE: sqlite-utils' insert() would commit on its own.
        columns = ", ".join(f"[{c}]" for c in row)
        marks = ", ".join("?" for _ in row)
        self.db.execute(f"INSERT INTO [{table}] ({columns}) VALUES ({marks})", list(row.values()))

    # -- matches -------------------------------------------------------------------------------

    def add_match(self, match_id: str, setup: dict[str, Any], token_hashes: dict[str, str], created_at: str) -> str:
        """Store a new match (its role tokens as hashes, ``tokens.hash_token``); returns its genesis hash."""
        row = {
            "id": match_id,
            "created_at": created_at,
            "setup": json.dumps(setup, ensure_ascii=False),
            "tokens": json.dumps(token_hashes),
        }
        genesis = integrity.genesis_hash(match_id, created_at, setup)

        def write() -> None:
            with self._transaction():
                self._insert("matches", row)
            self.acks.append(match_id, 0, genesis)

        self._write(write)
        return genesis

    def set_token_hash(self, match_id: str, role: str, token_hash: str) -> None:
        """Replace one role's token (the old one stops working)."""

        def write() -> None:
            with self._transaction():
                row = self.db.execute("SELECT tokens FROM matches WHERE id = ?", [match_id]).fetchone()
                hashes = json.loads(row[0])
                hashes[role] = token_hash
                self.db.execute("UPDATE matches SET tokens = ? WHERE id = ?", [json.dumps(hashes), match_id])

        self._write(write)

    def matches(self) -> Iterator[dict[str, Any]]:
        for row in self.match_rows():
            yield {**row, "setup": json.loads(row["setup"]), "tokens": json.loads(row["tokens"])}

    def match_rows(self) -> list[dict[str, Any]]:
        """The rows of the matches table as stored (JSON columns as text: a damaged one is the caller's to refuse)."""
        return list(self.db["matches"].rows_where(order_by="created_at, id"))

    # -- events --------------------------------------------------------------------------------

    def append(self, entry: LogEntry) -> LogEntry:
        """Commit one event (and, for a void, mark its target) and acknowledge it, before returning.

        Returns the entry with its place in the hash chain (``prev_hash``, ``hash``), taken from the
        database itself inside the write transaction.
        """
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

        def write() -> LogEntry:
            with self._transaction():
                prev = self._head(entry.match_id)
                chained = replace(entry, prev_hash=prev, hash=integrity.row_hash(entry, prev))
                self._insert("events", {**row, "prev_hash": chained.prev_hash, "hash": chained.hash})
                if entry.type in ("void", "amend"):  # the voided or replaced event (D8, M3)
                    # The rules have checked the target may be voided or replaced (corrections.check_correction);
                    # it may already carry an amend that was itself voided (D34): the latest mark wins.
                    self.db.execute(
                        "UPDATE events SET voided_by = ? WHERE match_id = ? AND seq = ?",
                        [entry.seq, entry.match_id, entry.fields["target"]],
                    )
            self.acks.append(entry.match_id, entry.seq, str(chained.hash))  # synced before the API answers
            return chained

        result: LogEntry = self._write(write)
        return result

    def _head(self, match_id: str) -> str:
        """The hash the next row of ``match_id`` chains to: its last row's, or the match's genesis hash."""
        last = self.db.execute("SELECT hash FROM events WHERE match_id = ? ORDER BY seq DESC LIMIT 1", [match_id]).fetchone()
        if last is not None:
            return str(last[0])
        match = self.db.execute("SELECT created_at, setup FROM matches WHERE id = ?", [match_id]).fetchone()
        return integrity.genesis_hash(match_id, match[0], json.loads(match[1]))

    def events(self, match_id: str) -> list[LogEntry]:
        rows = self.db["events"].rows_where("match_id = ?", [match_id], order_by="seq")
        return [_entry(r) for r in rows]

    def close(self) -> None:
        self.db.conn.close()


def _entry(r: dict[str, Any]) -> LogEntry:
    return LogEntry(
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
        prev_hash=r.get("prev_hash"),
        hash=r.get("hash"),
    )


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
