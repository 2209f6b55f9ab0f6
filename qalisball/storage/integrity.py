"""A log that proves itself (issue 14): the hash chain of every match's events, and the acknowledgement journal.

**The chain.** Each event row carries ``prev_hash``, the hash of the row before it in its match (the
first row: the match's *genesis* hash, over its id, creation time and setup), and ``hash``, the SHA-256
of the row's own canonical JSON, ``prev_hash`` included. Changing, removing or reordering any row
breaks the chain from there on; the last row's ``hash`` (the *head*) stands for the whole log, which is
why reports print it (a signed sheet, SPEC M6, names it). ``voided_by`` is not hashed: it is a mark
that the void's own row already says (the void's ``target``), and the check below compares the two.

**The acknowledgement journal** (D41). A WAL cut by a few bytes or deleted loses the last transactions
*whole*: what remains is a shorter log whose chain is perfectly sound, so no check inside the database
can notice. So after each commit, before the API answers, the store appends ``<match> <seq> <hash>``
to a small file next to the database (``<db>-acks``) and syncs it. At start-up every line is compared
with the rows: a match whose log ends before its last acknowledged seq lost events; a row whose hash
is not the acknowledged one was changed (even with the whole chain recomputed). The journal is written
after the commit, so it can only lag behind the database (a crash between the two), never run ahead of
it unless the database lost something. It grows by about 90 bytes per event and is read as a stream.

**Seals of the stored answers** (D146). An event row also keeps, for its idempotency key, the hash of
the request's body and the answer given; neither is part of the row's hash (the report's head names
what happened, not what was answered). Each row's ``seal`` chains them: the hash of the previous
row's seal (the genesis hash for the first), the row's hash, its ``body_hash`` and its ``response``.
The journal's line for an event carries the seal too (``<match> <seq> <hash> <seal>``), so a forged
answer is caught even with every seal recomputed, and a repeated request never gets it.

**The records ledger** (D145). Competitions, fixtures, kept teams and officials, protests, lots,
venue screens, team logos, each match's role tokens and the training records (sessions, trainees,
answers, exercises: D224, issue 33 item 9) are records that change, so they are not
chained per row: every write of them appends, in the same transaction, the new contents of the rows
it touched to ``record_ledger``, a hash chain of its own whose head the journal acknowledges under
the name ``~records``. At start-up (and by ``verify``) the ledger's chain and acknowledged head are
checked and replayed, and every record in the tables must be the ledger's: a record changed, added
or deleted outside the server makes the database read-only, and the ledger's proven contents are
served in its place.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from qalisball.rules.errors import N_

HEX64 = re.compile(r"^[0-9a-f]{64}$")
# The journal's name for the records ledger: never a match id (those are hex digits).
RECORDS = "~records"


def canonical(value: Any) -> bytes:
    """Canonical JSON: keys sorted, no spaces, UTF-8, no NaN (the same bytes for the same data)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def sha256(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def genesis_hash(match_id: str, created_at: str, setup: Mapping[str, Any]) -> str:
    """The chain's start: the match itself (its rosters and rules are part of what the log proves)."""
    return sha256({"match": match_id, "created_at": created_at, "setup": setup})


class Row(Protocol):
    """What the chain covers of an event row (``store.LogEntry``)."""

    match_id: str
    seq: int
    type: str
    fields: dict[str, Any]
    by: str
    at_ms: int | None
    received_at: str
    received_ms: int
    key: str | None
    voided_by: int | None


def row_hash(row: Row, prev_hash: str) -> str:
    """The hash of one event row: its content and the previous row's hash (never ``voided_by``)."""
    return sha256(
        {
            "match": row.match_id,
            "seq": row.seq,
            "type": row.type,
            "fields": row.fields,
            "by": row.by,
            "at_ms": row.at_ms,
            "received_at": row.received_at,
            "received_ms": row.received_ms,
            "id": row.key,
            "prev": prev_hash,
        }
    )


class Sealed(Protocol):
    """What a seal covers of an event row, beside its hash: what a repeated request is answered with."""

    @property
    def hash(self) -> str | None: ...
    @property
    def body_hash(self) -> str | None: ...
    @property
    def response(self) -> str | None: ...


def seal_hash(prev_seal: str, row: Sealed) -> str:
    """The seal of one row: the previous row's seal (the genesis hash first), its hash, body hash and answer, and
    what was ruled on it (issue 28: the ``rulings`` column, as stored; rows stored before it have none)."""
    sealed = {"prev": prev_seal, "hash": row.hash, "body_hash": row.body_hash, "response": row.response}
    ruled = getattr(row, "rulings_json", None)
    if ruled is not None:
        sealed["rulings"] = ruled
    return sha256(sealed)


@dataclass(frozen=True)
class Damage:
    """Why a match's log cannot be trusted: an ``N_`` template (translated on the pages) and its values."""

    template: str
    params: Mapping[str, Any]

    @property
    def message(self) -> str:
        return self.template.format(**self.params)


@dataclass(frozen=True)
class ChainCheck:
    """The outcome of checking one match: how many rows are proven (a prefix), and the damage, if any."""

    proven: int  # rows 1..proven are sound
    head: str  # the hash of row ``proven`` (the genesis hash when 0)
    damage: Damage | None


class Chained(Row, Protocol):
    prev_hash: str | None
    hash: str | None
    body_hash: str | None
    response: str | None
    seal: str | None  # None: a database from before seals (migration 20 adds them); "": a seal taken away


@dataclass
class AckFindings:
    """What the acknowledgement journal says of one match, compared with its rows."""

    last: int = -1  # the highest seq acknowledged (0: the match's creation)
    mismatch: int | None = None  # the first acknowledged seq whose hash is not the row's
    seal: tuple[int, str] | None = None  # the last acknowledged (seq, seal) of an event


def check_chain(match_id: str, genesis: str, rows: Sequence[Chained], acks: AckFindings | None = None) -> ChainCheck:
    """Check a match's rows (in seq order) against its chain, its void marks and its acknowledged events.

    ``proven`` is the longest prefix that is sound: a damaged match is shown as far as it can be proven.
    """
    hashes = [genesis]
    damage: Damage | None = None
    for i, row in enumerate(rows, start=1):
        if row.seq != i:
            damage = Damage(N_("event {seq} is missing from the log (the next row is {found})"), {"seq": i, "found": row.seq})
            break
        if row.prev_hash != hashes[-1] or row.hash != row_hash(row, hashes[-1]):
            damage = Damage(N_("event {seq} does not match the log's hash chain: it was changed or damaged"), {"seq": i})
            break
        hashes.append(str(row.hash))
    proven = len(hashes) - 1
    if damage is None:
        marks = _void_marks(rows)
        if marks is not None:
            damage, proven = marks[0], min(proven, marks[1] - 1)
    if damage is None and acks is not None:
        if acks.mismatch is not None:
            seq = acks.mismatch
            what = (
                N_("the match's setup is not the one it was created with")
                if seq == 0
                else N_("event {seq} is not the event that was acknowledged")
            )
            damage, proven = Damage(what, {"seq": seq}), max(0, seq - 1)
        elif acks.last > len(rows):
            damage = Damage(
                N_(
                    "the log ends at event {last} but event {seq} was acknowledged: the database lost events "
                    "(a damaged or deleted WAL file); restore the latest backup"
                ),
                {"last": len(rows), "seq": acks.last},
            )
    if damage is None:
        # The answers are not what the screens show: the events stay proven, but the match is read-only,
        # so that a repeated request is never answered with a forged answer (D146).
        damage = _seal_damage(genesis, rows[:proven], acks)
    return ChainCheck(proven, hashes[proven], damage)


def _seal_damage(genesis: str, rows: Sequence[Chained], acks: AckFindings | None) -> Damage | None:
    """Each row's seal is the chain of the stored answers, and the last acknowledged seal is the row's."""
    if any(r.seal is None for r in rows):
        return None  # a database from before seals, read by ``verify``: the server adds them on its first start
    prev = genesis
    for r in rows:
        if r.seal != seal_hash(prev, r):
            return Damage(N_("the stored answer of event {seq} (to a repeated request) was changed or damaged"), {"seq": r.seq})
        prev = str(r.seal)
    if acks is not None and acks.seal is not None:
        seq, seal = acks.seal
        if seq <= len(rows) and rows[seq - 1].seal != seal:
            return Damage(
                N_("the stored answers of events 1–{seq} are not the ones that were acknowledged: they were changed"),
                {"seq": seq},
            )
    return None


def _void_marks(rows: Sequence[Chained]) -> tuple[Damage, int] | None:
    """Every ``voided_by`` names a void or amend of that row, and every void's target carries its mark.

    Returns the damage and the first row that cannot be trusted (the later of the two concerned).
    """
    by_seq = {r.seq: r for r in rows}
    for r in rows:
        if r.voided_by is not None:
            void = by_seq.get(r.voided_by)
            # A void, or an amend that replaced the row (M3), names it as its target.
            if void is None or void.type not in ("void", "amend") or void.fields.get("target") != r.seq:
                return Damage(N_("event {seq} is marked voided by an event that does not void it"), {"seq": r.seq}), max(
                    r.seq, r.voided_by
                )
        if r.type == "void":
            target = by_seq.get(r.fields.get("target"))  # type: ignore[arg-type]
            if target is None or target.voided_by != r.seq:
                return Damage(N_("void event {seq} is not marked on the event it voids"), {"seq": r.seq}), r.seq
    return None


# ----------------------------------------------------------------------------------------------
# The acknowledgement journal


def acks_path(db_path: str) -> Path | None:
    """``<db>-acks`` next to the database (none for an in-memory database).

    A PostgreSQL database has no file to sit beside: its journal is kept by the app, in ``QALISBALL_ACKS_DIR``
    (default: the app's ``instance`` folder), named by the server and the database (D392): a witness outside the
    database, as on SQLite, that a forger with SQL alone cannot rewrite."""
    if db_path.startswith(("postgresql://", "postgres://")):
        where = urllib.parse.urlsplit(db_path)
        name = f"{where.hostname or 'local'}_{where.port or 5432}_{where.path.strip('/') or 'postgres'}"
        folder = Path(os.environ.get("QALISBALL_ACKS_DIR") or Path(__file__).resolve().parents[2] / "instance")
        return folder / ("pg-" + re.sub(r"[^A-Za-z0-9_.-]", "_", name) + "-acks")
    if db_path == ":memory:" or db_path.startswith("file:"):
        return None
    return Path(db_path + "-acks")


class AckJournal:
    """Append-only ``<match> <seq> <hash>`` lines, synced before the API answers (see the module's docstring)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.failed: str | None = None  # the last error writing it (the event itself was committed)

    def lines(self) -> Iterator[tuple[str, int, str]]:
        """Every ``(match, seq, hash)`` acknowledged, in order. Torn or damaged lines are skipped."""
        for match_id, seq, head, _ in self.sealed_lines():
            yield match_id, seq, head

    def sealed_lines(self) -> Iterator[tuple[str, int, str, str | None]]:
        """Every ``(match, seq, hash, seal)`` acknowledged (``seal`` None on a line written before seals)."""
        if self.path is None or not self.path.exists():
            return
        with self.path.open("rb") as f:
            for raw in f:
                parts = raw.decode("ascii", "replace").rstrip("\n").split(" ")
                if len(parts) not in (3, 4) or not parts[1].isdigit() or not all(HEX64.match(p) for p in parts[2:]):
                    continue  # a line cut by a crash: it can only be a later one, never needed to prove a loss
                yield parts[0], int(parts[1]), parts[2], parts[3] if len(parts) == 4 else None

    def scan(self, hashes: Mapping[str, Sequence[str]]) -> dict[str, AckFindings]:
        """Compare every acknowledged line with ``hashes`` (per match: the genesis hash, then each row's).

        Streams the file: memory stays small however long the journal has grown.
        """
        found: dict[str, AckFindings] = {}
        for match_id, seq, head, seal in self.sealed_lines():
            f = found.setdefault(match_id, AckFindings())
            f.last = max(f.last, seq)
            if seal is not None and (f.seal is None or seq >= f.seal[0]):
                f.seal = (seq, seal)
            known = hashes.get(match_id)
            if known is not None and seq < len(known) and known[seq] != head and f.mismatch is None:
                f.mismatch = seq
        return found

    def heads(self) -> dict[str, tuple[int, str]]:
        """The last acknowledged ``(seq, hash)`` per match."""
        out: dict[str, tuple[int, str]] = {}
        for match_id, seq, head in self.lines():
            if match_id not in out or seq >= out[match_id][0]:
                out[match_id] = (seq, head)
        return out

    def append(self, match_id: str, seq: int, head: str, seal: str | None = None) -> None:
        """Record an acknowledged event; a failure is remembered, never raised (the event is already stored)."""
        if self.path is None:
            return
        line = (f"{match_id} {seq} {head}" + (f" {seal}" if seal else "") + "\n").encode("ascii")
        with self._lock:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    os.write(fd, line)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                self.failed = None
            except OSError as exc:
                self.failed = str(exc)

    def rewrite(self, heads: Mapping[str, tuple[int, str, str | None]]) -> None:
        """Replace the journal by one line per match and the records' (``restore``: the restored ones are acknowledged)."""
        if self.path is None:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        data = "".join(
            f"{m} {seq} {h}" + (f" {seal}" if seal else "") + "\n" for m, (seq, h, seal) in sorted(heads.items())
        ).encode("ascii")
        with self._lock:
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                try:
                    os.write(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(tmp, self.path)
                _fsync_dir(self.path.parent)
            except OSError as exc:
                self.failed = str(exc)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def missing_matches(found: Mapping[str, AckFindings], present: Iterable[str]) -> dict[str, Damage]:
    """Matches the journal acknowledged that the database no longer has at all."""
    here = set(present)
    return {
        m: Damage(
            N_(
                "match {match} (acknowledged up to event {seq}) is missing from the database: "
                "the database lost data (a damaged or deleted WAL file); restore the latest backup"
            ),
            {"match": m, "seq": f.last},
        )
        for m, f in found.items()
        if m not in here and not m.startswith("~")  # ``~records`` is the records ledger, checked by the store
    }


# ----------------------------------------------------------------------------------------------
# The records ledger (D145): competitions, teams, officials, screens, role tokens

RECORDS_GENESIS = sha256({"records": "qalisball"})  # what the first change of the ledger chains to


def ledger_hash(seq: int, at: str, action: str, changes: Any, prev_hash: str) -> str:
    """The hash of one change of the records: what it wrote (every touched row's new contents) and the previous hash."""
    return sha256({"seq": seq, "at": at, "action": action, "changes": changes, "prev": prev_hash})


def record_key(table: str, key: Sequence[Any]) -> tuple[str, str]:
    """A record's name in the ledger: its table and its primary key's values."""
    return table, json.dumps(list(key), ensure_ascii=False)


@dataclass(frozen=True)
class LedgerRow:
    seq: int
    at: str
    action: str
    changes: list[dict[str, Any]]  # [{"table", "key": [pk values], "row": {column: value} | None (deleted)}]
    prev_hash: str | None
    hash: str | None


@dataclass(frozen=True)
class RecordsCheck:
    """The records as the ledger proves them, and why the tables cannot be trusted, if they cannot."""

    proven: int  # changes 1..proven of the ledger are sound
    head: str
    values: dict[tuple[str, str], dict[str, Any] | None]  # every record's proven contents (None: deleted)
    damage: Damage | None


def check_records(
    ledger: Sequence[LedgerRow], current: Mapping[tuple[str, str], Mapping[str, Any]], acks: AckFindings | None = None
) -> RecordsCheck:
    """Check the ledger's chain and acknowledged head, replay its proven part, and compare every record with it.

    A column a record has now but did not have when it was sealed (added by a later migration) is not
    compared until the record's next write; a column it had must still be there with the same value.
    """
    hashes = [RECORDS_GENESIS]
    damage: Damage | None = None
    for i, row in enumerate(ledger, start=1):
        if (
            row.seq != i
            or row.prev_hash != hashes[-1]
            or row.hash != ledger_hash(row.seq, row.at, row.action, row.changes, hashes[-1])
        ):
            damage = Damage(
                N_("change {seq} of the records does not match their hash chain: it was changed or damaged"), {"seq": i}
            )
            break
        hashes.append(str(row.hash))
    proven = len(hashes) - 1
    if damage is None and acks is not None:
        if acks.mismatch is not None:
            damage, proven = (
                Damage(N_("change {seq} of the records is not the change that was acknowledged"), {"seq": acks.mismatch}),
                max(0, acks.mismatch - 1),
            )
        elif acks.last > len(ledger):
            damage = Damage(
                N_(
                    "the records end at change {last} but change {seq} was acknowledged: the database lost changes "
                    "(a damaged or deleted WAL file); restore the latest backup"
                ),
                {"last": len(ledger), "seq": acks.last},
            )
    values: dict[tuple[str, str], dict[str, Any] | None] = {}
    for row in ledger[:proven]:
        for change in row.changes:
            values[record_key(change["table"], change["key"])] = change["row"]
    if damage is None:
        changed = [k for k in {*values, *current} if not _same(values.get(k), current.get(k))]
        if changed:
            table, key = sorted(changed)[0]
            damage = Damage(
                N_(
                    "the record {record} was changed, added or deleted outside the server ({count} in all): "
                    "the database is read-only; restore the latest backup"
                ),
                {"record": f"{table} {', '.join(str(v) for v in json.loads(key))}", "count": len(changed)},
            )
    return RecordsCheck(proven, hashes[proven], values, damage)


def _same(sealed: Mapping[str, Any] | None, now: Mapping[str, Any] | None) -> bool:
    if sealed is None or now is None:
        return sealed is None and now is None
    missing = object()
    return all(now.get(column, missing) == value for column, value in sealed.items())
