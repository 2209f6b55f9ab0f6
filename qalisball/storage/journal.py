"""One journal of every stored change a public page shows (issue 28 item 3, issue 30): the feed reads it.

A row of ``journal`` is ``(cursor, kind, subject, body)``: ``cursor`` an integer that only grows
(``AUTOINCREMENT``: never reused, even after the last row is gone), ``kind`` what the message is about
(``match``, ``competition``, ``team``, ``official``, ``venue``, ``training``, D301: words of the features that
write, not of this kernel), ``subject`` its id,
``body`` the message's JSON as the writer gave it. The store writes a row in the same SQLite transaction as
the change it records (``Store.append(..., journal=…)``, ``Store.write_records(..., journal=…)``), so a
change is in the journal exactly when it is stored.

Readers follow the journal after the commit, never inside the write lock: the writer only hands the
committed row to ``Journal.committed`` (the newest rows kept in memory, readers woken); each reader reads
from its own cursor (``after``), from memory when it is recent, else from the database through its own
connection. A reader that falls behind or restarts catches up from its cursor: nothing expires.

``follow(name, callback, from_cursor)`` makes such a reader (``Reader``): ``callback`` gets every row after
the cursor, once and in order; a callback that raises is logged and the reader goes on with the next row.
How readers run is the composition root's choice (D300): ``run_readers(spawn)`` gives each its own greenlet
or thread (production), woken by ``committed``, so a slow or failing reader delays neither a write nor the
other readers; until then (a service without a server, the tests' threading mode) the writer's own thread
runs them with ``drain()`` once its write lock is let go. ``settled`` says when every reader has caught up.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import sqlite_utils

from qalisball.storage import engine

TAIL = 20_000  # the newest rows kept in memory: readers following live never touch the database
BATCH = 500  # rows a reader takes per read of the journal
WAIT_S = 5.0  # a background reader looks again at least this often (a missed wake-up costs no more)

log = logging.getLogger(__name__)

Entry = tuple[str, str, dict[str, Any]]  # (kind, subject, body) as a writer gives it

# PostgreSQL, several server processes on one database (D396, D397): the journal's cursors are taken under this
# transaction-scoped advisory lock, and every commit of a row (or of a match made elsewhere) is NOTIFYed here.
JOURNAL_LOCK_KEY = 0x51A115BA14
CHANNEL = "qalisball_journal"


@dataclass(frozen=True)
class Row:
    cursor: int
    kind: str
    subject: str
    body: str  # the message's JSON text, encoded once for every reader
    # What the writer hands its process's readers with the row, never stored (the match's whole log entry and
    # state, D300): None on a row read back from the database, whose readers use ``body``.
    local: Any = field(default=None, compare=False, repr=False)

    def data(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.body)
        return value


def migrate(db: sqlite_utils.Database) -> None:
    """Migration 30 (issue 30): the journal table."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS journal (cursor INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, "
        "subject TEXT NOT NULL, body TEXT NOT NULL)"
    )


def write(db: sqlite_utils.Database, entry: Entry, local: Any = None) -> Row:
    """Inside the caller's write transaction (which holds SQLite's write lock): the row of ``entry``.

    The message names its own cursor (an opaque string to readers): ``{"v": 1, "cursor": "<n>", **body}``.
    """
    kind, subject, body = entry
    if getattr(db, "engine", None) == "postgresql":  # the identity's sequence: never reused either (D390)
        # Several writers (D396): cursors are taken one transaction at a time, the lock held to the commit, so a
        # row is visible only once every row with a smaller cursor is committed or will never be (rolled back):
        # a reader reading after its cursor never misses one. The other processes are told at the commit (D397).
        db.execute("SELECT pg_advisory_xact_lock(?)", [JOURNAL_LOCK_KEY])
        cursor = int(db.execute("SELECT nextval(pg_get_serial_sequence('journal', 'cursor'))").fetchone()[0])
        db.execute("SELECT pg_notify(?, ?)", [CHANNEL, str(cursor)])
    else:
        last = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'journal'").fetchone()
        cursor = int(last[0] if last else 0) + 1
    text = json.dumps({"v": 1, "cursor": str(cursor), **body}, ensure_ascii=False, separators=(",", ":"))
    db.execute("INSERT INTO journal (cursor, kind, subject, body) VALUES (?, ?, ?, ?)", [cursor, kind, subject, text])
    return Row(cursor, kind, subject, text, local)


class Journal:
    """The readers' side: the newest rows in memory, older ones read through a connection of their own."""

    def __init__(self, path: str, conn: Any, lock: threading.RLock) -> None:
        self.path, self._conn, self._lock = path, conn, lock
        self._tail: deque[Row] = deque(maxlen=TAIL)
        self._head = 0
        self._cond = threading.Condition()
        self._reader: Any = None
        self._listeners: list[Callable[[Row], None]] = []
        self.readers: list[Reader] = []
        self._spawn: Callable[[Callable[[], None]], Any] | None = None  # None: readers run in the writer's thread
        self.closed = False
        self._listened = 0  # the listener's cursor (``listen_database``, D397)
        self._listening = threading.Lock()  # one catch-up at a time
        self._mine: set[int] = set()
        self._reader_guard = threading.Lock()  # cursors this process wrote that the listener has not read back yet
        self.listening = False  # the listener's LISTEN is in place (tests wait for it)
        with self._lock:
            found = conn.execute("SELECT max(cursor) FROM journal").fetchone()
        self._head = int(found[0] or 0) if found else 0

    @property
    def head(self) -> int:
        """The latest cursor committed (0: none yet)."""
        return self._head

    def listen(self, listener: Callable[[Row], None]) -> None:
        """Call ``listener`` with each row after its commit (it must not block: it only wakes its reader)."""
        self._listeners.append(listener)

    def committed(self, row: Row) -> None:
        """The writer, after the commit: keep the row, wake the readers.

        Rows are kept in cursor order whatever the order their writers hand them in: two writers (a match's
        event, a competition's change) may commit 5 then 6 and hand over 6 first. The rows before ``row`` are
        committed (SQLite writes one transaction at a time), so a gap is read from the database; a row handed
        over again later is already there."""
        if row.cursor <= self._head:
            return
        gap = self._query(self._head, row.cursor - self._head - 1) if row.cursor > self._head + 1 else []
        with self._cond:
            for kept in [*gap, row]:
                # In cursor order. On PostgreSQL a cursor of a transaction that rolled back is never used (a sequence
                # does not roll back): what the gap's read did not find will never be there (journal.write's lock).
                if kept.cursor > self._head and (kept.cursor == self._head + 1 or engine.is_postgres(self.path)):
                    self._tail.append(kept)
                    self._head = kept.cursor
            self._cond.notify_all()
        for listener in self._listeners:
            listener(row)

    def wait(self, after: int, timeout: float | None) -> bool:
        """Until a row after ``after`` is committed or ``timeout`` s pass; whether one is there."""
        with self._cond:
            if self._head > after:
                return True
            self._cond.wait(timeout)
            return self._head > after

    def wake(self) -> None:
        """Wake every waiting reader (a server stopping, a test's clock moving on)."""
        with self._cond:
            self._cond.notify_all()

    # -- readers (D300) --------------------------------------------------------------------------------

    def follow(self, name: str, callback: Callable[[Row], None], from_cursor: int | None = None) -> Reader:
        """A reader named ``name`` calling ``callback`` with every row after ``from_cursor`` (default: the head,
        so the next change), in order, outside every write lock."""
        reader = Reader(self, name, callback, self._head if from_cursor is None else from_cursor)
        self.readers.append(reader)
        if self._spawn is not None:
            self._spawn(reader.run)
        return reader

    def run_readers(self, spawn: Callable[[Callable[[], None]], Any]) -> None:
        """From now on each reader runs in its own greenlet or thread, started with ``spawn`` (production:
        ``socketio.start_background_task``): the writer answers without waiting for any of them."""
        self._spawn = spawn
        for reader in self.readers:
            spawn(reader.run)

    def drain(self) -> None:
        """The writer, once its write lock is let go: the readers catch up in this thread, unless they run in
        their own (``run_readers``: then nothing, they are already woken)."""
        if self._spawn is None:
            for reader in list(self.readers):
                reader.drain()

    def settled(self, cursor: int | None = None) -> bool:
        """Every reader has been given every row up to ``cursor`` (default: the head)."""
        upto = self._head if cursor is None else cursor
        return all(r.cursor >= upto for r in self.readers)

    def after(self, cursor: int, limit: int = 1000, match: Callable[[Row], bool] | None = None) -> list[Row]:
        """Up to ``limit`` rows after ``cursor``, in order (those ``match`` accepts, when given).

        The tail holds consecutive cursors up to the head (``committed``), so the rows after a recent cursor are
        its last ``head - cursor``: taken from the right end, never a walk through the whole tail."""
        with self._cond:  # a writer appends under it: the slice is of one moment
            tail = self._tail
            first = tail[0].cursor if tail else self._head + 1
            newer = self._head - cursor
            recent = None
            if cursor + 1 >= first and newer > 0:
                recent = list(islice(reversed(tail), newer))
                if recent and recent[-1].cursor <= cursor:  # cursors a rolled-back PostgreSQL write never used (D396)
                    recent = [r for r in recent if r.cursor > cursor]
            if recent is None and cursor + 1 >= first:
                return []  # nothing newer
        if recent is None:
            return self._read(cursor, limit, match)
        recent.reverse()
        if match is None:
            return recent[:limit]
        out = []
        for row in recent:
            if match(row):
                out.append(row)
                if len(out) >= limit:
                    break
        return out

    def _read(self, cursor: int, limit: int, match: Callable[[Row], bool] | None) -> list[Row]:
        out: list[Row] = []
        while len(out) < limit:
            batch = self._query(cursor, 500)
            if not batch:
                break
            for row in batch:
                if match is None or match(row):
                    out.append(row)
                    if len(out) >= limit:
                        break
            cursor = batch[-1].cursor
        return out

    def _query(self, cursor: int, n: int) -> list[Row]:
        sql = "SELECT cursor, kind, subject, body FROM journal WHERE cursor > ? ORDER BY cursor LIMIT ?"
        if self.path == ":memory:":
            with self._lock:
                rows = self._conn.execute(sql, [cursor, n]).fetchall()
        else:
            with self._reader_guard:  # never a connection made once the store closes (a reader or the listener woken then)
                if self.closed:
                    return []
                if self._reader is None:
                    if engine.is_postgres(self.path):
                        self._reader = engine.connect(self.path, readonly=True)
                    else:
                        self._reader = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
                reader = self._reader
            if engine.is_postgres(self.path):
                sql = engine.translate(sql)
            rows = reader.execute(sql, [cursor, n]).fetchall()
        return [Row(int(c), str(k), str(s), str(b)) for c, k, s, b in rows]

    # -- several processes on one PostgreSQL database (D397) -------------------------------------------

    def listen_database(
        self,
        spawn: Callable[[Callable[[], None]], Any],
        before: Callable[[Row], None],
        notice: Callable[[str], None],
    ) -> None:
        """PostgreSQL with several server processes (D397): a listener (its own greenlet or thread, ``spawn``, on a
        connection of its own) LISTENs for the other processes' commits. Each NOTIFY only says "look": the journal
        stays the source of truth, read from the listener's cursor, so a lost or merged notification loses nothing
        (it also looks every ``WAIT_S``). Each row is handed to ``before`` (the match's copy in memory folds the
        stored entries, D396) and only then to this process's readers (``committed``: the broadcast, the views), in
        cursor order; ``notice`` gets what is not in the journal (``match <id>``: made, or a token issued again)."""
        self._listened = self._head
        spawn(lambda: self._listen(before, notice))

    def _listen(self, before: Callable[[Row], None], notice: Callable[[str], None]) -> None:
        conn: Any = None
        while not self.closed:
            try:
                if conn is None:
                    conn = engine.connect(self.path)
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening = True
                heard = [n.payload for n in conn.notifies(timeout=WAIT_S, stop_after=1)]
                if self.closed:
                    break
                for payload in heard:
                    if not payload.isdigit():
                        notice(payload)
                self.catch_up(before)
            except Exception:  # the database went away (a restart, a network cut): connect again a little later
                if self.closed:
                    break
                log.exception("the journal's listener lost PostgreSQL: it listens again in %s s", WAIT_S)
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
                conn = None
                self.listening = False
                threading.Event().wait(WAIT_S)
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def mine(self, cursor: int) -> None:
        """A cursor this process writes (inside its transaction): the listener hands it to no ``before`` (D397)."""
        if engine.is_postgres(self.path):
            self._mine.add(cursor)

    def catch_up(self, before: Callable[[Row], None]) -> int:
        """Hand over every row committed after the listener's cursor (the other processes' and, read back, ours):
        ``before`` each, then this process's readers; how many."""
        done = foreign = 0
        with self._listening:
            while True:
                rows = self._query(self._listened, BATCH)
                if not rows:
                    break
                for row in rows:
                    try:  # another process's row, also one a local write's gap already handed over
                        if row.cursor in self._mine:
                            self._mine.discard(row.cursor)
                        else:
                            foreign += 1
                            before(row)
                    except Exception:  # logged; the readers still get the row, the next submit catches up
                        what = (row.cursor, row.kind, row.subject)
                        log.exception("the journal's listener could not apply cursor %d (%s %s)", *what)
                    self.committed(row)
                    self._listened = row.cursor
                    done += 1
        if foreign:  # readers in the writer's thread (the tests' threading mode): another process's rows here
            self.drain()
        return done

    def close(self) -> None:
        with self._reader_guard:
            self.closed = True
            reader, self._reader = self._reader, None
        self.wake()  # the background readers stop
        if reader is not None:
            reader.close()


class Reader:
    """One reader of the journal: its own cursor, its rows handed to ``callback`` once each, in order."""

    def __init__(self, journal: Journal, name: str, callback: Callable[[Row], None], cursor: int) -> None:
        self.journal, self.name, self.callback = journal, name, callback
        self.cursor = cursor  # the last row handed over (or skipped after its callback failed)
        self.failures = 0
        self._turn = threading.Lock()  # one catch-up at a time: rows in order, each once
        self._pause = threading.Event()  # never set: a pause after the journal could not be read

    def drain(self) -> int:
        """Hand over every row after the cursor, up to the head; how many."""
        done = 0
        with self._turn:
            while True:
                rows = self.journal.after(self.cursor, BATCH)
                if not rows:
                    return done
                for row in rows:
                    try:
                        self.callback(row)
                    except Exception:  # logged, and the next row follows: one bad row stops no reader
                        self.failures += 1
                        what = (self.name, row.cursor, row.kind, row.subject)
                        log.exception("journal reader %s failed on cursor %d (%s %s)", *what)
                    self.cursor = row.cursor
                    done += 1

    def run(self) -> None:
        """A background reader's loop: catch up, wait for the next row, until the journal closes."""
        while not self.journal.closed:
            try:
                self.drain()
            except Exception:  # the journal could not be read (the database closing): look again a little later
                if self.journal.closed:
                    return
                log.exception("journal reader %s could not read the journal after cursor %d", self.name, self.cursor)
                self._pause.wait(WAIT_S)
                continue
            if not self.journal.closed:
                self.journal.wait(self.cursor, WAIT_S)
