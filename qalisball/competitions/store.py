"""Competitions in SQLite (migration 3): kept teams and officials, competitions, fixtures, protests, lots.

Unlike a match's event log these are records that change (a fixture gets its match, a forfeit, a
decision), so every write also appends what was done to ``competition_log``, in the same transaction:
the organiser's decisions keep their history, and nothing is computed from them that could go stale
(standings are derived from the matches' logs and these records each time).

The SQL of competitions lives here; ``store.py`` only registers the migration.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qalisball.storage.store import Store

# Columns that hold JSON, per table: written with json.dumps, read back with json.loads.
_JSON = {
    "teams": ("players",),
    "competitions": ("config", "teams", "groups", "byes"),
    "fixtures": ("home_source", "away_source", "officials", "previous_matches", "forfeit", "decision"),
    "protests": ("decision",),
    "lots": ("teams",),
    "competition_log": ("body",),
}


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class CompetitionStore:
    """The competition tables of one ``Store`` (same connection, same lock, same write path)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    # -- reading ---------------------------------------------------------------------------------

    def rows(
        self, table: str, where: str | None = None, params: list[Any] | None = None, order_by: str = "rowid"
    ) -> Iterator[dict[str, Any]]:
        # Records changed outside the server are never served: the ledger's proven ones instead (D145).
        proven = self.store.proven_rows(table, order_by) if where is None else None
        for row in proven if proven is not None else self.db[table].rows_where(where, params or [], order_by=order_by):
            yield _decode(table, row)

    def moves(self) -> dict[tuple[str, str], int]:
        """How many times each fixture was moved (D75's ``reschedule`` lines of the competition log, D280)."""
        out: dict[tuple[str, str], int] = {}
        sql = "SELECT competition_id, json_extract(body, '$.fixture') FROM competition_log WHERE action = 'reschedule'"
        for comp, fixture in self.db.execute(sql).fetchall():
            out[(comp, fixture)] = out.get((comp, fixture), 0) + 1
        return out

    # -- writing ---------------------------------------------------------------------------------

    def write(
        self, changes: list[tuple[str, str, dict[str, Any]]], log: tuple[str | None, str, dict[str, Any]] | None = None
    ) -> None:
        """Apply ``(op, table, row)`` changes in one transaction, with one line of the competition log.

        ``op`` is ``insert`` or ``update`` (``row`` then holds the primary key columns and the new values).
        Any SQLite failure becomes a ``StorageError`` and nothing is stored.
        """

        def run() -> list[tuple[str, tuple[Any, ...]]]:
            for op, table, row in changes:
                encoded = _encode(table, row)
                if op == "insert":
                    self.store._insert(table, encoded)
                else:
                    keys = _PKS[table]
                    sets = ", ".join(f"[{c}] = ?" for c in encoded if c not in keys)
                    where = " AND ".join(f"[{c}] = ?" for c in keys)
                    values = [v for c, v in encoded.items() if c not in keys] + [encoded[c] for c in keys]
                    self.db.execute(f"UPDATE [{table}] SET {sets} WHERE {where}", values)
            if log is not None:
                comp, action, body = log
                self.store._insert(
                    "competition_log",
                    {"competition_id": comp, "at": utc_now(), "action": action, "body": json.dumps(body, ensure_ascii=False)},
                )
            # Every record written is sealed in the same transaction (D145).
            return [(table, tuple(row[c] for c in _PKS[table])) for _, table, row in changes]

        # A competition's change is a message of the journal (the feed, D282), in the same transaction; so is a
        # kept team's or official's, which the teams page and the competitions show (kind ``team``, D301).
        entry: tuple[str, str, dict[str, Any]] | None = None
        if log is not None and log[0] is not None:
            entry = ("competition", log[0], {"competition": log[0], "change": log[1], "detail": log[2]})
        elif log is not None:
            kind = "official" if log[1].startswith("official") else "team"
            entry = (kind, str(log[2].get("id", "")), {kind: log[2].get("id"), "change": log[1], "detail": log[2]})
        self.store.write_records(log[1] if log is not None else "records_changed", run, entry)


_PKS = {
    "teams": ("id",),
    "officials": ("id",),
    "competitions": ("id",),
    "fixtures": ("competition_id", "id"),
    "protests": ("id",),
    "lots": ("id",),
}


def _encode(table: str, row: dict[str, Any]) -> dict[str, Any]:
    cols = _JSON.get(table, ())
    return {k: json.dumps(v, ensure_ascii=False) if k in cols and v is not None else v for k, v in row.items()}


def _decode(table: str, row: dict[str, Any]) -> dict[str, Any]:
    cols = _JSON.get(table, ())
    return {k: json.loads(v) if k in cols and isinstance(v, str) else v for k, v in row.items()}
