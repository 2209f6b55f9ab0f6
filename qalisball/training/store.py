"""Training in SQLite (migration 24): sessions, answers (the first answer of a trainee to a question
counts), exercises. The SQL of training lives here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qalisball.storage.store import Store

_JSON = {"training_sessions": ("rules",), "training_answers": ("answer",), "training_exercises": ("events",)}


class TrainingStore:
    def __init__(self, store: Store) -> None:
        self.store = store

    def rows(self, table: str, order_by: str = "rowid") -> Iterator[dict[str, Any]]:
        for row in self.store.db[table].rows_where(order_by=order_by):
            yield {k: json.loads(v) if k in _JSON[table] and isinstance(v, str) else v for k, v in row.items()}

    def insert(self, table: str, row: dict[str, Any]) -> None:
        """One row, in one transaction through the store's single write path."""
        encoded = {k: json.dumps(v, ensure_ascii=False) if k in _JSON[table] else v for k, v in row.items()}

        def run() -> list[tuple[str, tuple[Any, ...]]]:
            self.store._insert(table, encoded)
            return []  # nothing sealed

        self.store.write_records(f"{table}_insert", run)
