"""``python -m qalisball verify|backup|restore``: look after the event log's database (docs/deploy.md).

- ``verify [db]``: ``PRAGMA quick_check``, every match's hash chain and its last acknowledged event;
  one line per match, ``OK`` or ``DAMAGED`` with the reason. Read-only: it never changes the database
  (not even a checkpoint), so it can run beside the server. Exit status 0 when everything is sound.
- ``backup <dest> [--db db]``: a consistent copy made with SQLite's online backup API while the server
  runs, checked (quick_check and every chain) before it is put in place. Prints each match's head hash.
- ``restore <backup> [--db db]``: with the server stopped, put a backup in place of the database and
  record its heads as acknowledged, listing the events and the changes of records (teams,
  competitions, screens, tokens) that the backup does not have. It refuses while a server holds the
  database (D148).

``verify`` also checks the records ledger (D145): ``OK records`` or ``DAMAGED records`` with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from qalisball.match.service import MatchService
from qalisball.server import tables  # noqa: F401  (every feature's tables join the migrations before a Store opens)
from qalisball.storage import engine, migrations
from qalisball.storage.integrity import RECORDS, AckJournal, acks_path
from qalisball.storage.store import LEDGER, DatabaseInUse, DatabaseUnavailable, Store, acquire_writer, release_writer

ROOT = Path(__file__).resolve().parent.parent


def default_db() -> str:
    """QALISBALL_DATABASE_URL (PostgreSQL, issue 32) when set, else QALISBALL_DB's SQLite file."""
    return os.environ.get("QALISBALL_DATABASE_URL") or os.environ.get("QALISBALL_DB", str(ROOT / "instance" / "qalisball.db"))


def check(db: str, use_acks: bool = True, out: object = None) -> bool:
    """Print the verdict on every match of ``db``; True when all are sound."""
    write = print if out is None else out  # type: ignore[assignment]
    postgres = engine.is_postgres(db)
    if not postgres and not Path(db).exists():
        write(f"{db}: no such database")
        return False
    try:
        store = Store(db, readonly=True)
    except DatabaseUnavailable as exc:
        write(f"{engine.redacted(db)}: {exc}")
        return False
    name = engine.redacted(db)
    if not use_acks:
        store.acks = AckJournal(None)
    try:
        # What failed, said as it is (issue 33 item 10): records changed outside the server are not a damaged
        # file; quick_check passed and the schema version is read as usual.
        records_only = store.records is not None and store.problem is store.records.damage
        sound_file = store.problem is None or records_only
        version = store.schema_version if sound_file else 0
        if sound_file and version < 2:
            write(f"{name}: schema version {version} has no hash chain yet; start the server once to add it")
            return False
        svc = MatchService(store)
        if sound_file and postgres:
            write(f"{name}: PostgreSQL, schema version {version}")
        elif sound_file:
            write(f"{db}: quick_check ok, schema version {version}")
        else:
            write(f"{name}: the file cannot be trusted (quick_check FAILED or the database cannot be read)")
        ok = store.problem is None
        if store.problem is not None and (store.records is None or store.problem is not store.records.damage):
            write(f"DAMAGED  database  {store.problem.message}")
        records = store.records
        if records is not None and records.damage is not None:
            write(f"DAMAGED  records  proven up to change {records.proven}: {records.damage.message}")
        elif records is not None:
            write(f"OK       records  changes 1–{records.proven}  head {records.head}")
        elif store.problem is None:
            write("NOTE     records  not sealed yet (a database from before issue 20): the server seals them when it next starts")
        if records is not None and store.unsealed:
            since = max(migrations.SEALED_FROM[t] for t in store.unsealed)
            write(
                f"NOTE     records  {', '.join(store.unsealed)} not sealed yet (a database from before schema version "
                f"{since}): the server seals them as they are when it next starts"
            )
        for m in svc.matches.values():
            names = f"{m.setup.home.name} – {m.setup.away.name}"
            # The records' damage is said once above; a match's line says what its own log proves.
            damage = m.damaged if records is not None and svc.problem is records.damage else svc.damage(m)
            if damage is None:
                write(f"OK       {m.id}  {names}  events 1–{m.seq}  head {m.head}")
            else:
                ok = False
                write(f"DAMAGED  {m.id}  {names}  proven up to event {m.seq}: {damage.message}")
            for seq, why in m.overruled:  # issue 28: kept as ruled, reported, never applied
                write(f"NOTE     {m.id}  event {seq} stands as it was ruled; {why}")
        for match_id, damage in svc.lost.items():
            ok = False
            write(f"LOST     {match_id}  {damage.message}")
        return ok
    finally:
        store.close()


def backup(dest: str, db: str) -> bool:
    """Copy ``db`` to ``dest`` with the online backup API; the copy is checked before it is put in place."""
    target = Path(dest)
    if target.is_dir():
        target = target / Path(db).name
    tmp = target.with_name(target.name + ".part")
    tmp.unlink(missing_ok=True)
    source = sqlite3.connect("file:" + str(Path(db).resolve()) + "?mode=ro", uri=True)
    copy = sqlite3.connect(tmp, isolation_level=None)
    try:
        source.backup(copy)  # page by page; a consistent snapshot even while the server writes
        copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
    finally:
        copy.close()
        source.close()
    print(f"checking the copy {tmp} …")
    if not check(str(tmp), use_acks=False):
        print(f"the copy is not sound: left as {tmp}, not put in place")
        return False
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, target)
    print(f"backup written: {target}")
    return True


def restore(backup_file: str, db: str) -> bool:
    """Put ``backup_file`` in place of ``db`` (server stopped) and acknowledge the restored heads."""
    try:
        acquire_writer(db)  # held to the end: no server may start on the database meanwhile
    except DatabaseInUse as exc:
        print(f"qalisball: {exc}. Nothing restored.")
        return False
    try:
        return _restore(backup_file, db)
    finally:
        release_writer(db)


def _restore(backup_file: str, db: str) -> bool:
    if not check(backup_file, use_acks=False):
        print("the backup is not sound: nothing restored")
        return False
    journal = AckJournal(acks_path(db))
    before = journal.heads()
    lost_records = _records_lost(db, backup_file, before.pop(RECORDS, None))
    tmp = Path(db + ".restoring")
    tmp.unlink(missing_ok=True)
    source = sqlite3.connect("file:" + str(Path(backup_file).resolve()) + "?mode=ro", uri=True)
    copy = sqlite3.connect(tmp, isolation_level=None)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=WAL")
    finally:
        copy.close()
        source.close()
    for stale in (db + "-wal", db + "-shm"):  # never let the old database's WAL be applied to the backup
        Path(stale).unlink(missing_ok=True)
    os.replace(tmp, db)
    store = Store(db)  # migrates a backup from before seals (D147)
    try:
        heads = store.acknowledged_heads()
        journal.rewrite(heads)  # the restored heads are now the acknowledged ones
        for match_id, (seq, _) in sorted(before.items()):
            now = heads.get(match_id, (None, "", None))[0]
            if now is None:
                print(f"LOST     {match_id}: acknowledged up to event {seq}, not in the backup")
            elif now < seq:
                print(f"LOST     {match_id}: events {now + 1}–{seq} were acknowledged, the backup ends at {now}")
        for line in lost_records:
            print(line)
    finally:
        store.close()
    print(f"restored {backup_file} → {db}")
    return True


def _ledger(db: str) -> list[dict[str, Any]]:
    """The records ledger of a database file, read-only (empty when it has none or cannot be read)."""
    if not Path(db).exists():
        return []
    try:
        conn = sqlite3.connect("file:" + str(Path(db).resolve()) + "?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(f"SELECT seq, action, changes, hash FROM [{LEDGER}] ORDER BY seq")]
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def _records_lost(db: str, backup_file: str, acknowledged: tuple[int, str] | None) -> list[str]:
    """``LOST`` lines for the changes of records (a team created, a result decided…) the backup does not have.

    Named one by one from the database being replaced when it can still be read; otherwise counted from
    the acknowledgement journal.
    """
    kept = {r["seq"]: r["hash"] for r in _ledger(backup_file)}
    old = _ledger(db)
    lines = []
    for change in old:
        if kept.get(change["seq"]) == change["hash"]:
            continue
        for c in json.loads(change["changes"]):
            row = c["row"] or {}
            name = f" “{row['name']}”" if isinstance(row.get("name"), str) else ""
            key = ", ".join(str(k) for k in c["key"])
            lines.append(
                f"LOST     records: change {change['seq']} ({change['action']}): {c['table']} {key}{name}, not in the backup"
            )
    last_kept = max(kept, default=0)
    if not old and acknowledged is not None and acknowledged[0] > last_kept:
        lines.append(
            f"LOST     records: changes {last_kept + 1}–{acknowledged[0]} were acknowledged, the backup ends at {last_kept}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qalisball", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="check a database: quick_check, every match's hash chain, acknowledged events")
    where = "the SQLite file or a postgresql:// URL (default: $QALISBALL_DATABASE_URL, else $QALISBALL_DB, instance/qalisball.db)"
    v.add_argument("db", nargs="?", default=None, help=where)
    b = sub.add_parser("backup", help="copy the database with SQLite's online backup API (safe while serving)")
    b.add_argument("dest", help="a file, or a folder to copy into")
    b.add_argument("--db", default=None)
    r = sub.add_parser("restore", help="put a backup in place of the database (stop the server first)")
    r.add_argument("backup")
    r.add_argument("--db", default=None)
    args = parser.parse_args(argv)
    if args.command == "verify":
        return 0 if check(args.db or default_db()) else 1
    if not _postgres_tools(args.command, args.db or default_db()):
        return 2
    if args.command == "backup":
        return 0 if backup(args.dest, args.db or default_db()) else 1
    return 0 if restore(args.backup, args.db or default_db()) else 1


def _postgres_tools(command: str, db: str) -> bool:
    """``backup`` and ``restore`` of a PostgreSQL database are the engine's own tools (docs/deploy.md, D393)."""
    if not engine.is_postgres(db):
        return True
    tool = "pg_dump --format=custom" if command == "backup" else "pg_restore --clean --if-exists (servers stopped)"
    print(
        f"qalisball: {command} of a PostgreSQL database ({engine.redacted(db)}) is done with {tool}, then "
        '`python -m qalisball verify` (docs/deploy.md, "PostgreSQL"). Nothing done.'
    )
    return False


if __name__ == "__main__":
    sys.exit(main())
