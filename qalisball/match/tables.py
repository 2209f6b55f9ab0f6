"""The log's rulings (issue 28): migration 28 of the store, registered with the store's migrations
(``storage/migrations.py``) when this module is imported, as the competitions, the venue and training register theirs.

The match feature knows the engine; storage does not decide calls. On the first start of this version every
stored call of a database is decided once, by the engine of the version that migrates it (D272), and the
result stored in the ``rulings`` column and sealed; from then on a replay folds it (D270).
"""

from __future__ import annotations

import json
from dataclasses import replace

import sqlite_utils

from qalisball.rules import engine
from qalisball.rules.setup import build_setup
from qalisball.storage import integrity, migrations
from qalisball.storage.store import entry_of_row


def migrate(db: sqlite_utils.Database) -> None:
    """Migration 28: the ``rulings`` column, filled by ``engine.decided_rulings``; the seals recomputed (as 20 does)."""
    db.execute("ALTER TABLE events ADD COLUMN rulings TEXT")
    for match in list(db.query("SELECT id, created_at, setup FROM matches")):
        setup_data = json.loads(match["setup"])
        seal = integrity.genesis_hash(match["id"], match["created_at"], setup_data)
        rows = [entry_of_row(r) for r in db.query("SELECT * FROM events WHERE match_id = ? ORDER BY seq", [match["id"]])]
        try:
            decided = engine.decided_rulings(build_setup(setup_data), rows)
        except (ValueError, KeyError, TypeError):
            decided = {}  # a setup the rules cannot read: its rows stay undecided (the start says why)
        for entry in rows:
            entry = replace(entry, rulings=decided.get(entry.seq))
            seal = integrity.seal_hash(seal, entry)
            db.execute(
                "UPDATE events SET rulings = ?, seal = ? WHERE match_id = ? AND seq = ?",
                [entry.rulings_json, seal, match["id"], entry.seq],
            )


# The rulings are sealed with their rows (integrity.seal_hash), not in the records ledger.
migrations.register("rulings", {28: migrate}, reseals=(28,))
