"""The venue screens' tables (issue 13): migration 5 of the store, registered with the store's migrations
(``storage/migrations.py``) when this module is imported (like ``competitions/tables.py``), so that storage
needs nothing of the screens' code, and the screen store can use the store.
"""

from __future__ import annotations

import sqlite_utils

from qalisball.storage import migrations


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


# Images are not sealed: they are named by their bytes' hash.
migrations.register("venue", {5: migrate}, sealed={"screens": (("name",), None), "team_logos": (("team_key",), None)})
