"""Training in SQLite (migrations 24 and 33): sessions, trainees, answers (the first answer of a trainee to a
question counts), exercises. The SQL of training lives here. Every row written is sealed in the records
ledger in the same transaction (issue 33 item 9, D224), and when the records cannot be trusted the ledger's
proven rows are read instead of the tables' (a code or an answer changed with sqlite3 is never served)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from qalisball.training.tables import SEALED

if TYPE_CHECKING:
    from qalisball.storage.store import Store

_JSON = {
    "training_sessions": ("rules",),
    "training_answers": ("answer",),
    "training_exercises": ("events",),
    "training_trainees": (),
}


class TrainingStore:
    def __init__(self, store: Store) -> None:
        self.store = store

    def rows(self, table: str, order_by: str = "rowid") -> Iterator[dict[str, Any]]:
        proven = self.store.proven_rows(table, order_by)
        found = proven if proven is not None else self.store.db[table].rows_where(order_by=order_by)
        for row in found:
            yield {k: json.loads(v) if k in _JSON[table] and isinstance(v, str) else v for k, v in row.items()}

    def insert(self, table: str, row: dict[str, Any]) -> None:
        """One row, in one transaction through the store's single write path, sealed."""
        encoded = {k: json.dumps(v, ensure_ascii=False) if k in _JSON[table] else v for k, v in row.items()}

        def run() -> list[tuple[str, tuple[Any, ...]]]:
            self.store._insert(table, encoded)
            return [(table, tuple(encoded[c] for c in SEALED[table][0]))]

        self.store.write_records(f"{table}_insert", run, _entry(table, row, f"{table}_insert"))

    def update(self, table: str, key: dict[str, Any], values: dict[str, Any]) -> None:
        """Set ``values`` on the row of ``key`` (its primary key's columns), sealed."""

        def run() -> list[tuple[str, tuple[Any, ...]]]:
            sets = ", ".join(f"[{c}] = ?" for c in values)
            where = " AND ".join(f"[{c}] = ?" for c in key)
            self.store.db.execute(f"UPDATE [{table}] SET {sets} WHERE {where}", [*values.values(), *key.values()])
            return [(table, tuple(key[c] for c in SEALED[table][0]))]

        self.store.write_records(f"{table}_update", run, _entry(table, key, f"{table}_update"))


def _entry(table: str, row: dict[str, Any], action: str) -> tuple[str, str, dict[str, Any]]:
    """The journal's message of a training change (D301): the session (or exercise) and what changed, never a code,
    a trainee's token or an answer."""
    subject = str(row.get("session_id", row.get("id", "")))
    key = {c: row[c] for c in SEALED[table][0] if c in row and c != "trainee"}
    return ("training", subject, {"training": subject, "change": action, "key": key})
