"""``python -m qalisball verify|backup|restore``: look after the event log's database (docs/deploy.md).

- ``verify [db]``: ``PRAGMA quick_check``, every match's hash chain and its last acknowledged event;
  one line per match, ``OK`` or ``DAMAGED`` with the reason. Read-only: it never changes the database
  (not even a checkpoint), so it can run beside the server. Exit status 0 when everything is sound.
- ``backup <dest> [--db db]``: a consistent copy made with SQLite's online backup API while the server
  runs, checked (quick_check and every chain) before it is put in place. Prints each match's head hash.
- ``restore <backup> [--db db]``: with the server stopped, put a backup in place of the database and
  record its heads as acknowledged, listing the events that the backup does not have.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path

from .integrity import AckJournal, acks_path
from .service import MatchService
from .store import Store

ROOT = Path(__file__).resolve().parent.parent


def default_db() -> str:
    return os.environ.get("QALISBALL_DB", str(ROOT / "instance" / "qalisball.db"))


def check(db: str, use_acks: bool = True, out: object = None) -> bool:
    """Print the verdict on every match of ``db``; True when all are sound."""
    write = print if out is None else out  # type: ignore[assignment]
    if not Path(db).exists():
        write(f"{db}: no such database")
        return False
    store = Store(db, readonly=True)
    if not use_acks:
        store.acks = AckJournal(None)
    try:
        version = store.schema_version if store.problem is None else 0
        if store.problem is None and version < 2:
            write(f"{db}: schema version {version} has no hash chain yet; start the server once to add it")
            return False
        svc = MatchService(store)
        write(f"{db}: quick_check {'ok' if store.problem is None else 'FAILED'}, schema version {version}")
        ok = store.problem is None
        if store.problem is not None:
            write(f"DAMAGED  database  {store.problem.message}")
        for m in svc.matches.values():
            names = f"{m.setup.home.name} – {m.setup.away.name}"
            damage = svc.damage(m)
            if damage is None:
                write(f"OK       {m.id}  {names}  events 1–{m.seq}  head {m.head}")
            else:
                ok = False
                write(f"DAMAGED  {m.id}  {names}  proven up to event {m.seq}: {damage.message}")
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
    if not check(backup_file, use_acks=False):
        print("the backup is not sound: nothing restored")
        return False
    journal = AckJournal(acks_path(db))
    before = journal.heads()
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
    store = Store(db)
    try:
        svc = MatchService(store)  # rewrites the journal: the restored heads are now the acknowledged ones
        heads = {m.id: (m.seq, m.head) for m in svc.matches.values()}
        journal.rewrite(heads)
        for match_id, (seq, _) in sorted(before.items()):
            now = heads.get(match_id, (None, ""))[0]
            if now is None:
                print(f"LOST     {match_id}: acknowledged up to event {seq}, not in the backup")
            elif now < seq:
                print(f"LOST     {match_id}: events {now + 1}–{seq} were acknowledged, the backup ends at {now}")
    finally:
        store.close()
    print(f"restored {backup_file} → {db}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qalisball", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="check a database: quick_check, every match's hash chain, acknowledged events")
    v.add_argument("db", nargs="?", default=None, help="the SQLite file (default: $QALISBALL_DB or instance/qalisball.db)")
    b = sub.add_parser("backup", help="copy the database with SQLite's online backup API (safe while serving)")
    b.add_argument("dest", help="a file, or a folder to copy into")
    b.add_argument("--db", default=None)
    r = sub.add_parser("restore", help="put a backup in place of the database (stop the server first)")
    r.add_argument("backup")
    r.add_argument("--db", default=None)
    args = parser.parse_args(argv)
    if args.command == "verify":
        return 0 if check(args.db or default_db()) else 1
    if args.command == "backup":
        return 0 if backup(args.dest, args.db or default_db()) else 1
    return 0 if restore(args.backup, args.db or default_db()) else 1


if __name__ == "__main__":
    sys.exit(main())
