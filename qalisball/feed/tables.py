"""The webhooks' tables (issue 30 item 3): migration 34 of the store, registered with the store's migrations
(``storage/migrations.py``) when this module is imported, as the competitions, the venue and training register theirs.

- ``webhooks``: one subscription per row: its ``url``, ``secret`` (``whsec_…``, to sign), ``filters`` (JSON
  ``{"match": [...], "competition": [...]}``), ``cursor`` (the last message delivered or given up: the next one
  is the first after it that the filters take), ``attempts`` (failed tries of that next message so far),
  ``next_at`` (when to try it again, ms of the app's clock), ``status`` (``active`` or ``failing``: given up,
  D331), ``generation`` (grows with every redelivery, so a try under way when it was asked records nothing).
- ``webhook_deliveries``: the deliveries log, one row per message sent (again for a redelivery).

Not sealed in the records ledger: they decide nothing a public page shows.
"""

from __future__ import annotations

import sqlite_utils

from qalisball.storage import migrations


def migrate(db: sqlite_utils.Database) -> None:
    """Migration 34 (issue 30 item 3): webhook subscriptions, their delivery state and their deliveries log."""
    db.execute(
        "CREATE TABLE webhooks (id TEXT PRIMARY KEY, url TEXT NOT NULL, secret TEXT NOT NULL, filters TEXT NOT NULL, "
        "created_at TEXT NOT NULL, cursor INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, "
        "next_at INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'active', "
        "generation INTEGER NOT NULL DEFAULT 0)"
    )
    db.execute(
        "CREATE TABLE webhook_deliveries (id INTEGER PRIMARY KEY AUTOINCREMENT, webhook_id TEXT NOT NULL, "
        "cursor INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL, last_status INTEGER, "
        "last_error TEXT, last_at TEXT)"
    )
    db.execute("CREATE INDEX webhook_deliveries_of ON webhook_deliveries (webhook_id, id)")


migrations.register("webhooks", {34: migrate})
