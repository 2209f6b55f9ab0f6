"""The append-only event log in SQLite, through sqlite-utils (SPEC D8).

Every accepted event is one row, committed (WAL, ``synchronous=FULL``) before the API answers. Rows
are never deleted or rewritten; the only update is ``voided_by`` on the target of a void, made in
the same transaction as the void's own row. Schema changes are numbered migrations.

Each row carries the hash of the row before it (``qalisball/storage/integrity.py``), and each commit is
recorded in the acknowledgement journal ``<db>-acks`` before the API answers, so that a database
that lost acknowledged events says so at start-up. A database that cannot be read, or fails
``PRAGMA quick_check``, is opened read-only: ``problem`` says why and every write answers 503.

Records that change (competitions, kept teams, screens, role tokens: ``SEALED``) are written with
``write_records``, which appends their new contents to the records ledger in the same transaction
(D145); a record that is not the ledger's makes the database read-only, and the ledger's proven
contents are what ``proven_rows`` serves instead. One server process writes a database: the store
holds an exclusive lock on ``<db>-lock`` (D148).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import sys
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import sqlite_utils

from qalisball.rules import rulings as ruled
from qalisball.rules.errors import N_
from qalisball.rules.rulings import Ruling
from qalisball.storage import engine, integrity, journal, migrations, tokens
from qalisball.storage.integrity import RECORDS, AckJournal, Damage, LedgerRow, RecordsCheck
from qalisball.storage.migrations import MIGRATIONS, SEALED, sealed_at

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


def storage_error(exc: BaseException) -> StorageError:
    """Say what a failed SQLite (or PostgreSQL) call means for the official, in words and an HTTP status."""
    if not isinstance(exc, sqlite3.Error):
        return _pg_error(exc)
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


def _pg_error(exc: BaseException) -> StorageError:
    """A failed PostgreSQL call (psycopg's error, its SQLSTATE): nothing was stored (the transaction rolled back)."""
    state = str(getattr(exc, "sqlstate", "") or "")
    if state.startswith("53"):  # insufficient resources: 53100 disk full
        return StorageError(507, "storage_full", "the database server's disk is full: nothing was stored; free space")
    if state in ("55P03", "40001", "40P01"):  # lock not available, serialization failure, deadlock
        return StorageError(503, "unavailable", "the database is busy: try again in a moment", 2)
    if state == "25006":
        return StorageError(503, "unavailable", "the database was opened read-only: nothing was stored", 10)
    return StorageError(503, "unavailable", f"the database refused the write ({exc}): nothing was stored", 5)


# While a write runs on its own thread, the interpreter hands the GIL over this often (s) instead of every
# 5 ms: the write's thread waits for the loop (busy with readers) once per SQLite call (issue 33, D240).
WRITE_SWITCH_S = 0.0005
_writes_running = [0, 0.005]  # writes on their thread now, and the switch interval to restore after them


@contextlib.contextmanager
def writes_first() -> Any:
    """Shorten the GIL's switch interval while a write runs off the loop (D240); nested writes share it."""
    if _writes_running[0] == 0:
        _writes_running[1] = sys.getswitchinterval()
        sys.setswitchinterval(min(WRITE_SWITCH_S, _writes_running[1]))
    _writes_running[0] += 1
    try:
        yield
    finally:
        _writes_running[0] -= 1
        if _writes_running[0] == 0:
            sys.setswitchinterval(_writes_running[1])


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
    seal: str | None = None  # the stored answers' chain (integrity.seal_hash, D146): set by ``Store.append``
    # What was ruled on this event when it was stored (issue 28, rules/rulings.py), sealed with it; a replay
    # folds them and never decides the call again. None: not ruled yet (a row before migration 28).
    rulings: tuple[Ruling, ...] | None = None

    @property
    def rulings_json(self) -> str | None:
        """The ``rulings`` column as stored and sealed (API.md's form), None when there are none."""
        if self.rulings is None:
            return None
        cached = self.__dict__.get("_rulings_json")
        if cached is None or cached[0] is not self.rulings:
            cached = (self.rulings, json.dumps([ruled.to_json(r) for r in self.rulings], ensure_ascii=False))
            self.__dict__["_rulings_json"] = cached  # a cache of a frozen value: never seen by == or replace
        return cached[1]

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
            "rulings": [ruled.to_json(r) for r in self.rulings or ()],
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


# The records a decision or an answer depends on, sealed in the records ledger (D145): per table, its
# primary key and the columns sealed (None: all), in ``migrations.SEALED``: the matches' here, the
# features' tables as each registers them (competitions/tables.py, venue/tables.py). Images are not
# sealed: they are named by their bytes' hash.
LEDGER = "record_ledger"


def _sealed_row(db: sqlite_utils.Database, table: str, key: tuple[Any, ...]) -> dict[str, Any] | None:
    """A record's sealed columns as stored now (None when it is not there)."""
    pk, columns = SEALED[table]
    cols = ", ".join(f"[{c}]" for c in columns) if columns else "*"
    where = " AND ".join(f"[{c}] = ?" for c in pk)
    cursor = db.execute(f"SELECT {cols} FROM [{table}] WHERE {where}", list(key))
    row = cursor.fetchone()
    return dict(zip([d[0] for d in cursor.description], row, strict=True)) if row else None


def _all_sealed(db: sqlite_utils.Database, only: Iterable[str] | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """Every sealed record now in the tables (``only`` those tables), by ``integrity.record_key``. A table a
    later migration creates is not there yet while an earlier one runs (migration 20 before training's 24)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    present = set(db.table_names())
    for table, (pk, columns) in SEALED.items():
        if table not in present or (only is not None and table not in only):
            continue
        cols = ", ".join(f"[{c}]" for c in columns) if columns else "*"
        cursor = db.execute(f"SELECT {cols} FROM [{table}] ORDER BY rowid")
        names = [d[0] for d in cursor.description]
        for values in cursor.fetchall():
            row = dict(zip(names, values, strict=True))
            out[integrity.record_key(table, [row[c] for c in pk])] = row
    return out


def _append_ledger(db: sqlite_utils.Database, action: str, changes: list[dict[str, Any]]) -> tuple[int, str]:
    """Append one change to the records ledger (inside the caller's transaction); its (seq, hash)."""
    if getattr(db, "engine", None) == "postgresql":  # several writers (D396): one change of the ledger at a time
        db.execute("SELECT pg_advisory_xact_lock(?)", [LEDGER_LOCK_KEY])
    last = db.execute(f"SELECT seq, hash FROM [{LEDGER}] ORDER BY seq DESC LIMIT 1").fetchone()
    seq, prev = (int(last[0]) + 1, str(last[1])) if last else (1, integrity.RECORDS_GENESIS)
    at = _utc_now_iso()
    h = integrity.ledger_hash(seq, at, action, changes, prev)
    db.execute(
        f"INSERT INTO [{LEDGER}] (seq, at, action, changes, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
        [seq, at, action, json.dumps(changes, ensure_ascii=False), prev, h],
    )
    return seq, h


def seal_existing(db: sqlite_utils.Database, action: str, tables: Iterable[str]) -> None:
    """For a migration that starts sealing tables whose records are already there (training's 33): append
    them, as they are, to the records ledger in one change (as ``_m20`` started it)."""
    changes = [{"table": t, "key": json.loads(k), "row": row} for (t, k), row in _all_sealed(db, set(tables)).items()]
    if changes:
        _append_ledger(db, action, changes)


def _m20(db: sqlite_utils.Database) -> None:
    """Issue 20: seals of the stored answers (computed for the rows already there) and the records ledger,
    started with every record as it is on this first open (D147)."""
    db.execute("ALTER TABLE events ADD COLUMN seal TEXT")
    for match in list(db.query("SELECT id, created_at, setup FROM matches")):
        seal = integrity.genesis_hash(match["id"], match["created_at"], json.loads(match["setup"]))
        rows = db.query("SELECT * FROM events WHERE match_id = ? ORDER BY seq", [match["id"]])
        for entry in [_entry(r) for r in rows]:
            seal = integrity.seal_hash(seal, entry)
            db.execute("UPDATE events SET seal = ? WHERE match_id = ? AND seq = ?", [seal, match["id"], entry.seq])
    db[LEDGER].create(
        {"seq": int, "at": str, "action": str, "changes": str, "prev_hash": str, "hash": str},
        pk="seq",
        not_null={"seq", "at", "action", "changes", "prev_hash", "hash"},
    )
    changes = [{"table": table, "key": json.loads(key), "row": row} for (table, key), row in _all_sealed(db).items()]
    _append_ledger(db, "sealed_on_first_open", changes)


# Numbered migrations, applied once each in number order (``migrations.MIGRATIONS``: the log's here, the
# features' registered by their tables modules). Numbers are reserved per piece of work so
# that branches developed side by side never take the same one: 2 the log's hash chain (issue 14),
# 3 competitions (issue 12, competitions/tables.py), 4 and up the match day (issue 11) except 5: venue
# screens, images and team logos (issue 13, venue/tables.py); 20 seals and the records ledger (issue 20).
# A later migration that rewrites a match's ``setup`` or an event row must recompute that match's chain
# (and seals) as ``_m2`` and ``_m20`` do; one that rewrites a sealed column of a record (``SEALED``) must
# append the new contents to the ledger (``_append_ledger``, as ``_m20`` does), or the next start finds
# the records changed.
migrations.register("journal", {30: journal.migrate})  # the journal of every public change (issue 30, journal.py)
migrations.register(
    "matches",
    {1: _m1, 2: _m2, 20: _m20},
    sealed={"matches": (("id",), ("id", "tokens"))},  # the rest of a match is its chain's genesis
    reseals=(20,),  # its seals (and the ledger) computed on that first open are the acknowledged ones
)


class Store:
    """The SQLite database: matches and their event logs. One connection, one writer at a time."""

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        """Open (creating and migrating) the database; ``readonly``: only look (``python -m qalisball verify``).

        A read-only store never writes, migrates or checkpoints: a damaged WAL stays as it was found.
        """
        self.path = str(path)
        self.readonly = readonly
        self.postgres = engine.is_postgres(self.path)  # a postgresql:// URL (QALISBALL_DATABASE_URL): D390
        if self.path != ":memory:" and not readonly and not self.postgres:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._locked = False
        # Several server processes write one PostgreSQL database at once (issue 32 item 2, D396): a match's appends
        # are ordered by a lock per match in the database, the journal's cursors by one lock held to the commit.
        self.shared = self.postgres and not readonly
        if not readonly:
            acquire_writer(self.path)  # SQLite: one server process writes a database (D148): DatabaseInUse otherwise
            self._locked = True
        # SQLite's shared-memory index, mapped into this process: see ``check_shared_memory``.
        self._shm = None if self.path == ":memory:" or self.path.startswith("file:") or self.postgres else self.path + "-shm"
        self._lock = threading.RLock()
        # Writes run through ``_run``: inline by default; under gevent, on one worker thread of
        # this database (``run_writes_off_loop``), so a write waiting on SQLite never freezes the
        # event loop that serves reads and spectators (issue 14, defect 2).
        self._run: Callable[[Callable[[], Any]], Any] = _run_inline
        self.acks = AckJournal(integrity.acks_path(self.path))
        if self.postgres and not readonly and self.acks.path is not None:
            self.acks.path.parent.mkdir(parents=True, exist_ok=True)  # the app's folder for PostgreSQL's journal (D392)
        self._on_close: list[Callable[[], None]] = []  # ``on_close``
        # Why the whole database is read-only (it cannot be read, or fails quick_check), if it is.
        self.problem: Damage | None = None
        conn: Any
        if self.postgres:
            try:
                conn = engine.connect(self.path, readonly=readonly)
            except engine.Error as exc:
                if self._locked:
                    self._locked = False
                    release_writer(self.path)
                raise DatabaseUnavailable(f"the database {engine.redacted(self.path)} cannot be reached: {exc}") from exc
            self.db: Any = engine.PgDatabase(conn)
        else:
            if readonly:
                target = "file:" + urllib.parse.quote(str(Path(self.path).resolve())) + "?mode=ro"
                conn = sqlite3.connect(target, uri=True, check_same_thread=False, isolation_level=None)
            else:
                conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S)
            self.db = sqlite_utils.Database(conn)
        # The records as the ledger proves them (D145); None before migration 20 (an old database under ``verify``).
        self.records: RecordsCheck | None = None
        self._sealing = False  # whether writes seal records (the ledger exists: migration 20)
        self._rulings = False  # whether rows keep their rulings (the column exists: migration 28)
        # Tables with records that a later migration seals, not yet applied (verify on an older database: D293).
        self.unsealed: list[str] = []
        try:
            if not readonly and not self.postgres:
                self.db.execute("PRAGMA journal_mode=WAL")
                # FULL: a committed event survives a power cut too, not only a killed process.
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.execute("PRAGMA foreign_keys=ON")
            self.problem = self.quick_check()
            if self.problem is None and not readonly:
                self._migrate()
            self._sealing = LEDGER in self.db.table_names()
            self._rulings = "rulings" in self.db["events"].columns_dict if "events" in self.db.table_names() else False
            if self.problem is None and self._sealing:
                self.records = self.check_records()
                self.problem = self.records.damage
            # The readers' side of the journal (journal.py): none on a database that does not have it yet.
            self.journal: journal.Journal | None = (
                journal.Journal(self.path, conn, self._lock) if "journal" in self.db.table_names() else None
            )
        except engine.DatabaseError as exc:
            self.journal = None
            # A file that is no database, or a damaged schema: start, say so on every screen, write nothing.
            self.problem = Damage(
                N_("the database file {path} cannot be read ({error}): nothing can be stored; restore the latest backup"),
                {"path": self.path, "error": str(exc)},
            )

    def quick_check(self) -> Damage | None:
        """``PRAGMA quick_check``: the database's own structure (pages, b-trees), not the chain. PostgreSQL checks
        its own pages (checksums, its WAL): nothing to ask it here."""
        if self.postgres:
            return None
        found = [str(row[0]) for row in self.db.execute("PRAGMA quick_check").fetchall()]
        if found == ["ok"]:
            return None
        return Damage(
            N_("the database file is damaged (quick_check: {found}): it is read-only; restore the latest backup"),
            {"found": "; ".join(found[:3])},
        )

    def check_records(self) -> RecordsCheck:
        """The records ledger's chain, its acknowledged head, and every sealed record against it (D145)."""
        ledger = [
            LedgerRow(r["seq"], r["at"], r["action"], json.loads(r["changes"]), r["prev_hash"], r["hash"])
            for r in self.db.query(f"SELECT * FROM [{LEDGER}] ORDER BY seq")
        ]
        found = self.acks.scan({RECORDS: [integrity.RECORDS_GENESIS, *(str(r.hash) for r in ledger)]})
        # A database not yet migrated to a table's sealing (training's 33, on a file the version before wrote,
        # under ``verify``) has its records unsealed, not added outside the server: they are sealed as they
        # are at the next start (D293).
        version = self.schema_version
        sealed = sealed_at(version)
        present = set(self.db.table_names())
        self.unsealed = sorted(t for t in SEALED if t not in sealed and t in present and self.db[t].count)
        return integrity.check_records(ledger, _all_sealed(self.db, sealed), found.get(RECORDS))

    def proven_rows(self, table: str, order_by: str = "rowid") -> list[dict[str, Any]] | None:
        """A sealed table's records as the ledger proves them, when the table cannot be trusted; else None.

        What was changed outside the server is never served: a changed record is served as it was last
        written by the server, an added one not at all, a deleted one as it was (D145).
        """
        if self.records is None or self.records.damage is None or table not in SEALED or table in self.unsealed:
            return None
        stored = {integrity.record_key(table, [r[c] for c in SEALED[table][0]]): r for r in self.db[table].rows}
        columns = list(self.db[table].columns_dict)
        rows = [
            {**dict.fromkeys(columns), **stored.get(key, {}), **value}
            for key, value in self.records.values.items()
            if key[0] == table and value is not None
        ]
        for column in reversed([c.strip() for c in order_by.split(",")]):
            if column in columns:  # "rowid": the order the ledger first wrote them
                rows.sort(key=lambda r, c=column: (r[c] is not None, r[c]))  # type: ignore[misc]
        return rows

    def check_shared_memory(self) -> None:
        """Refuse (503) before SQLite touches ``<db>-shm`` when that file cannot be written.

        SQLite maps the shared-memory index into the process and writes to it on every read and write;
        once the file is made immutable (``chattr +i``) the next such write kills the whole server with
        SIGBUS (issue 20, item 9). Checked before each use, the server answers 503 instead, keeps
        serving what it holds in memory, and carries on by itself when the file is writable again (D149).
        """
        if self._shm is not None and not os.access(self._shm, os.W_OK) and os.path.exists(self._shm):
            raise StorageError(
                503,
                "unavailable",
                f"the database's shared-memory file {self._shm} cannot be written (read-only or immutable): "
                "nothing was stored; check its permissions and attributes (lsattr, chattr -i)",
                10,
            )

    def run_writes_off_loop(self) -> None:
        """Under gevent: run every write on a single OS thread owned by this database."""
        from gevent.threadpool import ThreadPool

        pool = ThreadPool(1)
        here = threading.local()  # set on the write thread: a read asked from inside a write runs where it is

        def on_thread(fn: Callable[[], Any]) -> Any:
            here.writing = True
            try:
                return fn()
            finally:
                here.writing = False

        def run(fn: Callable[[], Any]) -> Any:
            if getattr(here, "writing", False):
                return fn()
            with writes_first():  # the write's thread gets the GIL at once, not after the loop's 5 ms (D240)
                return pool.apply(on_thread, (fn,))

        self._run = run

    def _write(self, fn: Callable[[], Any]) -> Any:
        """Run one write transaction; any SQLite failure becomes a ``StorageError``, nothing half-stored."""
        if self.problem is not None:
            raise StorageError(503, "damaged", self.problem.message)
        if self.readonly:
            raise StorageError(503, "unavailable", "the database was opened read-only")
        self.check_shared_memory()
        try:
            return self._run(fn)
        except engine.Error as exc:
            raise storage_error(exc) from exc

    def _migrate(self) -> None:
        if not self.postgres:
            self._migrate_all()
            return
        # Several processes may start at once on one PostgreSQL database (D396): one migrates, the others wait for
        # it and then find every migration done (a session lock on this autocommit connection, let go at once).
        self.db.execute("SELECT pg_advisory_lock(?)", [MIGRATE_LOCK_KEY])
        try:
            self.db._tables = None  # what another process created meanwhile
            self._migrate_all()
        finally:
            self.db.execute("SELECT pg_advisory_unlock(?)", [MIGRATE_LOCK_KEY])

    def _migrate_all(self) -> None:
        if "migrations" not in self.db.table_names():
            self.db["migrations"].create({"version": int, "applied_at": str}, pk="version")
        done = {row["version"] for row in self.db["migrations"].rows}
        for version, migration in sorted(MIGRATIONS.items()):
            if version in done:
                continue
            before = self._ledger_head()
            with self._transaction():
                migration(self.db)
                self._insert("migrations", {"version": version, "applied_at": _utc_now_iso()})
            if version in migrations.RESEALS:
                self._acknowledge_all()  # the seals and the ledger computed on this first open are the acknowledged ones
            elif (after := self._ledger_head()) != before and after is not None:
                self._acknowledge_records(after)  # a later migration that sealed records (``seal_existing``)

    def _ledger_head(self) -> tuple[int, str] | None:
        if LEDGER not in self.db.table_names():
            return None
        last = self.db.execute(f"SELECT seq, hash FROM [{LEDGER}] ORDER BY seq DESC LIMIT 1").fetchone()
        return None if last is None else (int(last[0]), str(last[1]))

    def acknowledged_heads(self) -> dict[str, tuple[int, str, str | None]]:
        """Every match's last row (seq, hash, seal) and the records ledger's head, as the journal should hold them."""
        heads: dict[str, tuple[int, str, str | None]] = {}
        has_seal = "seal" in self.db["events"].columns_dict
        seal = "seal" if has_seal else "NULL"
        for row in self.db.execute(
            f"SELECT e.match_id, e.seq, e.hash, {seal} FROM events e JOIN "
            "(SELECT match_id, MAX(seq) AS last FROM events GROUP BY match_id) l "
            "ON e.match_id = l.match_id AND e.seq = l.last"
        ).fetchall():
            heads[str(row[0])] = (int(row[1]), str(row[2]), row[3])
        for match in self.db.execute("SELECT id, created_at, setup FROM matches").fetchall():
            if match[0] not in heads:
                heads[match[0]] = (0, integrity.genesis_hash(match[0], match[1], json.loads(match[2])), None)
        if LEDGER in self.db.table_names():
            last = self.db.execute(f"SELECT seq, hash FROM [{LEDGER}] ORDER BY seq DESC LIMIT 1").fetchone()
            if last is not None:
                heads[RECORDS] = (int(last[0]), str(last[1]), None)
        return heads

    def _acknowledge_all(self) -> None:
        for match_id, (seq, head, seal) in self.acknowledged_heads().items():
            self.acks.append(match_id, seq, head, seal)

    @property
    def schema_version(self) -> int:
        if "migrations" not in self.db.table_names():
            return 0
        return max((row["version"] for row in self.db["migrations"].rows), default=0)

    def _transaction(self) -> Any:
        return _Transaction(self.db.conn, self._lock, "BEGIN" if self.postgres else "BEGIN IMMEDIATE")

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
                sealed = self._seal("match_created", [("matches", (match_id,))])
                self.notify(f"match {match_id}")  # the other processes load it (D397)
            self.acks.append(match_id, 0, genesis)
            self._acknowledge_records(sealed)

        self._write(write)
        return genesis

    def set_token_hash(self, match_id: str, role: str, token_hash: str) -> None:
        """Replace one role's token (the old one stops working)."""

        def change() -> list[tuple[str, tuple[Any, ...]]]:
            row = self.db.execute("SELECT tokens FROM matches WHERE id = ?", [match_id]).fetchone()
            hashes = json.loads(row[0])
            hashes[role] = token_hash
            self.db.execute("UPDATE matches SET tokens = ? WHERE id = ?", [json.dumps(hashes), match_id])
            self.notify(f"match {match_id}")  # the old token stops working in every process (D397)
            return [("matches", (match_id,))]

        self.write_records("token_issued", change)

    # -- records (D145) ------------------------------------------------------------------------

    def write_records(
        self, action: str, change: Callable[[], Iterable[tuple[str, tuple[Any, ...]]]], entry: journal.Entry | None = None
    ) -> None:
        """Run ``change`` (SQL that returns the ``(table, primary key)`` of every record it touched) in one
        transaction that also seals those records in the ledger, then acknowledge the ledger's head.
        ``entry``: the journal's message of the change, written in the same transaction."""

        def write() -> journal.Row | None:
            with self._transaction():
                sealed = self._seal(action, change())
                row = self._journal(entry)
            self._acknowledge_records(sealed)
            return row

        self._committed(self._write(write))

    def _journal(self, entry: journal.Entry | None, local: Any = None) -> journal.Row | None:
        """Inside a write transaction: the journal's row of ``entry`` (none without a journal or an entry)."""
        if entry is None or self.journal is None:
            return None
        row = journal.write(self.db, entry, local)
        self.journal.mine(row.cursor)  # before the commit: the listener never takes it for another process's (D397)
        return row

    def _committed(self, row: journal.Row | None) -> None:
        """After the commit, outside the write: the journal's readers follow (journal.py)."""
        if row is not None and self.journal is not None:
            self.journal.committed(row)

    def followed(self) -> None:
        """A writer once its own write lock is let go: the journal's readers follow now (``Journal.drain``, D300)."""
        if self.journal is not None:
            self.journal.drain()

    def _seal(self, action: str, touched: Iterable[tuple[str, tuple[Any, ...]]]) -> tuple[int, str] | None:
        """Inside a write transaction: append the new contents of the sealed records touched to the ledger."""
        if not self._sealing:
            return None
        changes, seen = [], set()
        for table, key in touched:
            if table in SEALED and (table, key) not in seen:
                seen.add((table, key))
                changes.append({"table": table, "key": list(key), "row": _sealed_row(self.db, table, key)})
        return _append_ledger(self.db, action, changes) if changes else None

    def _acknowledge_records(self, sealed: tuple[int, str] | None) -> None:
        if sealed is not None:
            self.acks.append(RECORDS, *sealed)

    def matches(self) -> Iterator[dict[str, Any]]:
        for row in self.match_rows():
            yield {**row, "setup": json.loads(row["setup"]), "tokens": json.loads(row["tokens"])}

    def match_rows(self) -> list[dict[str, Any]]:
        """The rows of the matches table as stored (JSON columns as text: a damaged one is the caller's to refuse).

        When the records cannot be trusted, a match's role tokens are the ones the ledger proves (none for a
        match it does not know): a token planted outside the server never opens a console (D145).
        """
        rows = list(self.db["matches"].rows_where(order_by="created_at, id"))
        if self.records is not None and self.records.damage is not None:
            for row in rows:
                proven = self.records.values.get(integrity.record_key("matches", [row["id"]]))
                row["tokens"] = proven["tokens"] if proven else "{}"
        return rows

    # -- events --------------------------------------------------------------------------------

    def append(
        self,
        entry: LogEntry,
        message: journal.Entry | None = None,
        local: Any = None,
        also: Callable[[sqlite_utils.Database, LogEntry], None] | None = None,
    ) -> LogEntry:
        """Commit one event (and, for a void, mark its target) and acknowledge it, before returning.

        Returns the entry with its place in the hash chain (``prev_hash``, ``hash``), taken from the
        database itself inside the write transaction. ``message``: the journal's message of the event,
        written in the same transaction (journal.py); ``local``: what its row hands this process's readers besides.
        ``also``: a feature's own rows of the event (a league's copy, its cursor), written in the same transaction
        with the chained entry: raising there stores nothing.
        """

        def write() -> tuple[LogEntry, journal.Row | None]:
            with self._transaction():
                self.lock_match(entry.match_id)  # several writers (D396): the head read here is the match's last row
                chained = self._append_row(entry)
                if also is not None:
                    also(self.db, chained)
                written = self._journal(message, local)
            self.acks.append(entry.match_id, entry.seq, str(chained.hash), chained.seal)  # synced before the API answers
            return chained, written

        result, written = self._write(write)
        self._committed(written)
        return result  # type: ignore[no-any-return]

    def append_decided(
        self,
        match_id: str,
        known_seq: int,
        decide: Callable[[list[LogEntry]], tuple[LogEntry, journal.Entry | None, Any] | None],
    ) -> LogEntry | None:
        """Several writers of one PostgreSQL database (D396): in one transaction, take the match's lock, hand
        ``decide`` every row of the match after ``known_seq`` (what other processes stored since this one's copy
        was brought up to date: it folds them first, so a stale copy never decides), then commit what it decided.

        ``decide`` answers ``(entry, message, local)`` to store (``entry.seq`` the one after the newest row), or None
        to store nothing (a repeated key, M4's duplicate, a dry run); what it raises stores nothing either. Under the
        lock no other process appends to the match, so seqs follow one another without gap or duplicate."""

        def write() -> tuple[LogEntry | None, journal.Row | None]:
            with self._transaction():
                self.lock_match(match_id)
                decided = decide(self.events_after(match_id, known_seq))
                if decided is None:
                    return None, None
                entry, message, local = decided
                chained = self._append_row(entry)
                written = self._journal(message, local)
            self.acks.append(entry.match_id, entry.seq, str(chained.hash), chained.seal)
            return chained, written

        result, written = self._write(write)
        self._committed(written)
        return result  # type: ignore[no-any-return]

    def lock_match(self, match_id: str) -> None:
        """Inside a write transaction on PostgreSQL: the match's lock, held to the commit (D396); SQLite's own write
        lock (BEGIN IMMEDIATE, one writer process: D148) already orders everything."""
        if self.postgres:
            self.db.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", [MATCH_LOCK_SPACE, match_id])

    def events_after(self, match_id: str, seq: int) -> list[LogEntry]:
        """The rows of ``match_id`` after ``seq``, in order (a copy catching up: what other processes stored)."""
        rows = self.db.query("SELECT * FROM events WHERE match_id = ? AND seq > ? ORDER BY seq", [match_id, seq])
        return [_entry(r) for r in rows]

    def read(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` (reads of the store's connection) where the writes run: never inside another greenlet's write
        transaction on the one connection (D396)."""
        try:
            return self._run(fn)
        except engine.Error as exc:
            raise storage_error(exc) from exc

    def _append_row(self, entry: LogEntry) -> LogEntry:
        """Inside a write transaction: ``entry``'s row chained to the match's head (and a void's mark), as stored."""
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
        if entry.rulings is not None and self._rulings:  # the column of migration 28 (match/tables.py)
            row["rulings"] = entry.rulings_json
        prev, prev_seal = self._head(entry.match_id)
        chained = replace(entry, prev_hash=prev, hash=integrity.row_hash(entry, prev))
        chained = replace(chained, seal=integrity.seal_hash(prev_seal, chained))
        self._insert("events", {**row, "prev_hash": chained.prev_hash, "hash": chained.hash, "seal": chained.seal})
        if entry.type in ("void", "amend"):  # the voided or replaced event (D8, M3)
            # The rules have checked the target may be voided or replaced (corrections.check_correction); it may
            # already carry an amend that was itself voided (D34): the latest mark wins.
            self.db.execute(
                "UPDATE events SET voided_by = ? WHERE match_id = ? AND seq = ?",
                [entry.seq, entry.match_id, entry.fields["target"]],
            )
        return chained

    def notify(self, what: str) -> None:
        """Inside a write transaction on PostgreSQL: tell the other processes, at the commit, that ``what`` changed
        outside the journal (``match <id>``: a match made, a role's token issued again; D397)."""
        if self.postgres:
            self.db.execute("SELECT pg_notify(?, ?)", [journal.CHANNEL, what])

    def _head(self, match_id: str) -> tuple[str, str]:
        """The hash and the seal the next row of ``match_id`` chains to: its last row's, or the genesis hash."""
        last = self.db.execute(
            "SELECT hash, seal FROM events WHERE match_id = ? ORDER BY seq DESC LIMIT 1", [match_id]
        ).fetchone()
        if last is not None:
            return str(last[0]), str(last[1])
        match = self.db.execute("SELECT created_at, setup FROM matches WHERE id = ?", [match_id]).fetchone()
        genesis = integrity.genesis_hash(match_id, match[0], json.loads(match[1]))
        return genesis, genesis

    def events(self, match_id: str) -> list[LogEntry]:
        rows = self.db["events"].rows_where("match_id = ?", [match_id], order_by="seq")
        return [_entry(r) for r in rows]

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the store closes, before its connections go (a feature's workers stop using them)."""
        self._on_close.append(callback)

    def close(self) -> None:
        for callback in getattr(self, "_on_close", ()):
            callback()
        if getattr(self, "journal", None) is not None:
            self.journal.close()  # type: ignore[union-attr]
        self.db.conn.close()
        if self._locked:
            self._locked = False
            release_writer(self.path)


def entry_of_row(r: dict[str, Any]) -> LogEntry:
    """The log entry an ``events`` row holds (for the features' migrations of the log)."""
    return _entry(r)


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
        # None: a database from before seals (migration 20); "": a seal taken away, which the check refuses.
        seal=(r["seal"] or "") if "seal" in r else None,
        rulings=tuple(ruled.from_json(x) for x in json.loads(r["rulings"])) if r.get("rulings") is not None else None,
    )


# ----------------------------------------------------------------------------------------------
# One writer per database (D148)


class DatabaseInUse(Exception):
    """Another process holds the database's writer lock: it is open by a server (or a ``restore``)."""


class DatabaseUnavailable(Exception):
    """The PostgreSQL server named by the URL cannot be reached (or refuses the connection)."""


# The writer locks this process holds, by lock file: (descriptor, how many stores use it). A process may
# open its own database twice (tests, ``restore`` checking what it restored); another process may not.
_HELD: dict[str, list[int]] = {}
_HELD_LOCK = threading.Lock()


def lock_path(db_path: str) -> Path | None:
    """``<db>-lock`` next to the database (none for an in-memory database, nor PostgreSQL's: an advisory lock)."""
    if db_path == ":memory:" or db_path.startswith("file:") or engine.is_postgres(db_path):
        return None
    return Path(db_path + "-lock")


def acquire_writer(db_path: str) -> None:
    """Take the database's writer lock (``flock`` on ``<db>-lock``, holding our pid) or raise ``DatabaseInUse``.

    The kernel releases it when the process ends however it ends (kill -9 included), so a crashed
    server never blocks the next start; the pid in the file only names the holder in the refusal.
    """
    if engine.is_postgres(db_path):
        _acquire_pg_writer(db_path)
        return
    path = lock_path(db_path)
    if path is None:
        return
    key = str(path.resolve())
    with _HELD_LOCK:
        if key in _HELD:
            _HELD[key][1] += 1
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise DatabaseInUse(
                f"the database {db_path} is already open by another server process ({holder}): one process writes a "
                "database (two would each accept events and then disagree); stop it first, or use another QALISBALL_DB"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        _HELD[key] = [fd, 1]


def release_writer(db_path: str) -> None:
    if engine.is_postgres(db_path):
        with _HELD_LOCK:
            held = _HELD_PG.get(db_path)
            if held is not None:
                held[1] -= 1
                if held[1] == 0:
                    del _HELD_PG[db_path]
                    with contextlib.suppress(*engine.Error):
                        held[0].close()  # the session ends: PostgreSQL lets its advisory lock go
        return
    path = lock_path(db_path)
    if path is None:
        return
    key = str(path.resolve())
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            del _HELD[key]
            os.close(held[0])  # closing the descriptor releases the lock


# On PostgreSQL every server process holds a *shared* session-level advisory lock on a connection of its own while
# its store is open (D396, superseding D391's exclusive one): several servers serve one database at once, and
# ``pg_locks`` names them all; PostgreSQL lets it go when that session ends, however the process ends (kill -9
# included). What orders their writes is the per-match lock and the journal's lock (``lock_match``, journal.write).
WRITER_LOCK_KEY = 0x51A115BA11  # "qalisball": one number, per database (advisory locks are per database)
MIGRATE_LOCK_KEY = 0x51A115BA12  # one process migrates at a time (Store._migrate)
LEDGER_LOCK_KEY = 0x51A115BA13  # one change of the records ledger at a time (_append_ledger)
MATCH_LOCK_SPACE = 0x51A1  # pg_advisory_xact_lock(space, hashtext(match id)): one match's appends at a time
_HELD_PG: dict[str, list[Any]] = {}  # url -> [connection holding the lock, how many stores use it]


def _acquire_pg_writer(url: str) -> None:
    with _HELD_LOCK:
        if url in _HELD_PG:
            _HELD_PG[url][1] += 1
            return
        try:
            conn = engine.connect(url)
            conn.execute("SELECT pg_advisory_lock_shared(%s)", [WRITER_LOCK_KEY])
        except engine.Error as exc:
            raise DatabaseUnavailable(f"the database {engine.redacted(url)} cannot be reached: {exc}") from exc
        _HELD_PG[url] = [conn, 1]


def _holder(fd: int) -> str:
    """``pid 1234: python app.py`` from the lock file and /proc, as far as they say."""
    try:
        pid = int(os.pread(fd, 32, 0).decode("ascii", "replace").strip())
    except ValueError:
        return "pid unknown"
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        command = ""
    return f"pid {pid}" + (f": {command}" if command else "")


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT (or ROLLBACK) under the store's lock."""

    def __init__(self, conn: Any, lock: threading.RLock, begin: str = "BEGIN IMMEDIATE") -> None:
        self.conn, self.lock, self.begin = conn, lock, begin

    def __enter__(self) -> None:
        self.lock.acquire()
        try:
            self.conn.execute(self.begin)
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
        if engine.in_transaction(self.conn):
            # SQLite may have rolled back already (for example after SQLITE_FULL).
            with contextlib.suppress(*engine.Error):
                self.conn.execute("ROLLBACK")


def _utc_now_iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds")
