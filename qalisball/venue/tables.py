"""The venue screens' tables (issue 13): migration 5 of the store, kept apart (like ``competition_tables.py``)
so that ``store.py`` needs nothing of the screens' code, and the screen store can use the store.
"""

from __future__ import annotations

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    """Migration 5 (issue 13): images, team logos and venue screens."""
    db["images"].create(
        {
            "id": str,
            "kind": str,
            "title": str,
            "content_type": str,
            "width": int,
            "height": int,
            "bytes": int,
            "data": bytes,
            "created_at": str,
        },
        pk="id",
        not_null={"id", "kind", "content_type", "data", "created_at"},
    )
    db["team_logos"].create(
        {"team_key": str, "team": str, "image_id": str, "updated_at": str},
        pk="team_key",
        not_null={"team_key", "team", "image_id"},
        foreign_keys=[("image_id", "images", "id")],
    )
    db["screens"].create(
        {"name": str, "content": str, "updated_at": str},
        pk="name",
        not_null={"name", "content"},
    )
