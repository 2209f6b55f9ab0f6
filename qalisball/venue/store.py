"""Venue screens, uploaded images and team logos in SQLite (migration 5, issue 13).

- ``images``: pictures the organiser uploaded (a sponsor's slide, a team's logo), the bytes themselves,
  keyed by their content hash (the same file uploaded twice is one image), checked before storing.
- ``team_logos``: a team's logo, keyed by the team's name as D72 compares names (case and surrounding
  spaces ignored), so a logo uploaded once shows in every match of that team.
- ``screens``: what each named venue screen shows (``/screens/<name>``), as the organiser last chose.

Like a competition's records these change (a screen switches, a logo is replaced); the match logs are
untouched. The SQL lives here; the tables are made by migration 5 (``screen_tables.py``), which
``store.py`` registers without needing anything of this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qalisball.storage.store import Store


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


IMAGE_COLUMNS = ("id", "kind", "title", "content_type", "width", "height", "bytes", "created_at")


class ScreenStore:
    """The screen tables of one ``Store`` (same connection, same lock, same write path)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    # -- reading ---------------------------------------------------------------------------------

    def images(self) -> Iterator[dict[str, Any]]:
        """Every image's description, without its bytes, oldest first."""
        cols = ", ".join(f"[{c}]" for c in IMAGE_COLUMNS)
        for row in self.db.execute(f"SELECT {cols} FROM images ORDER BY created_at, id").fetchall():
            yield dict(zip(IMAGE_COLUMNS, row, strict=True))

    def image_data(self, image_id: str) -> tuple[str, bytes] | None:
        self.store.check_shared_memory()  # read at run time: never through an unwritable -shm (D149)
        row = self.db.execute("SELECT content_type, data FROM images WHERE id = ?", [image_id]).fetchone()
        return (str(row[0]), bytes(row[1])) if row else None

    def logos(self) -> Iterator[dict[str, Any]]:
        # Records changed outside the server are never served: the ledger's proven ones instead (D145).
        proven = self.store.proven_rows("team_logos", "team")
        yield from proven if proven is not None else self.db["team_logos"].rows_where(order_by="team")

    def screens(self) -> Iterator[dict[str, Any]]:
        proven = self.store.proven_rows("screens", "name")
        for row in proven if proven is not None else self.db["screens"].rows_where(order_by="name"):
            yield {"name": row["name"], **json.loads(row["content"]), "updated_at": row["updated_at"]}

    # -- writing ---------------------------------------------------------------------------------

    def add_image(self, row: dict[str, Any]) -> None:
        def run() -> Any:
            with self.store._transaction():
                self.store._insert("images", row)
                return self.store._journal(_entry("images", str(row["id"]), "image_added"))

        self.store._committed(self.store._write(run))

    def delete_image(self, image_id: str) -> None:
        self._run("DELETE FROM images WHERE id = ?", [image_id], ("images", image_id, "image_deleted"))

    def set_logo(self, key: str, team: str, image_id: str) -> None:
        self._run(
            "INSERT INTO team_logos (team_key, team, image_id, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(team_key) DO UPDATE SET team = excluded.team, image_id = excluded.image_id, "
            "updated_at = excluded.updated_at",
            [key, team, image_id, utc_now()],
            ("team_logos", key, "logo_set"),
        )

    def delete_logo(self, key: str) -> None:
        self._run("DELETE FROM team_logos WHERE team_key = ?", [key], ("team_logos", key, "logo_deleted"))

    def set_screen(self, name: str, content: dict[str, Any], updated_at: str) -> None:
        self._run(
            "INSERT INTO screens (name, content, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at",
            [name, json.dumps(content, ensure_ascii=False), updated_at],
            ("screens", name, "screen_set"),
        )

    def delete_screen(self, name: str) -> None:
        self._run("DELETE FROM screens WHERE name = ?", [name], ("screens", name, "screen_deleted"))

    def _run(self, sql: str, params: list[Any], record: tuple[str, str, str] | None = None) -> None:
        """One statement in its own transaction; any SQLite failure becomes a ``StorageError``.

        ``record`` (table, key, action): the screen or logo it writes, sealed in the same transaction (D145).
        """

        def run() -> list[tuple[str, tuple[Any, ...]]]:
            self.db.execute(sql, params)
            return [(record[0], (record[1],))] if record else []

        entry = _entry(*record) if record else None  # the venue's change in the journal, same transaction (D301)
        self.store.write_records(record[2] if record else "image_changed", run, entry)


def _entry(table: str, key: str, action: str) -> tuple[str, str, dict[str, Any]]:
    """The journal's message of a venue change (D301): what changed, never the image's bytes nor a screen's content."""
    what = {"screens": "screen", "team_logos": "logo", "images": "image"}[table]
    return ("venue", f"{what}:{key}", {"venue": {what: key}, "change": action})
