"""The training tables (issue 24): migrations 24 and 33 of the store, registered with the store's migrations
(``storage/migrations.py``) when this module is imported, as the competitions and the venue register theirs."""

from __future__ import annotations

import sqlite_utils

from qalisball.storage import migrations

# The records a trainee's grade depends on, sealed in the records ledger as competitions are (issue 33 item 9,
# D224): a session's code, its trainees' token hashes, every answer's ``correct``, every exercise.
SEALED: dict[str, migrations.Sealed] = {
    "training_sessions": (("id",), None),
    "training_trainees": (("session_id", "id"), None),
    "training_answers": (("session_id", "trainee", "n"), None),
    "training_exercises": (("id",), None),
}


def migrate(db: sqlite_utils.Database) -> None:
    """Migration 24 (issue 24): training sessions, the trainees' answers, hand-written exercises."""
    db["training_sessions"].create(
        {"id": str, "code": str, "match_id": str, "rules": str, "created_at": str},
        pk="id",
        not_null={"id", "code", "match_id"},
    )
    db["training_sessions"].create_index(["code"], unique=True, index_name="training_sessions_code")
    db["training_answers"].create(
        {"session_id": str, "trainee": str, "n": int, "answer": str, "correct": int, "answered_at": str},
        pk=("session_id", "trainee", "n"),
        foreign_keys=[("session_id", "training_sessions", "id")],
    )
    db["training_exercises"].create(
        {"id": str, "title": str, "events": str, "created_at": str},
        pk="id",
        not_null={"id", "events"},
    )


def migrate_trainees(db: sqlite_utils.Database) -> None:
    """Migration 33 (issue 33 item 5): trainees who join once (a token each, a name once per session), sessions
    that end (``closed_at``), and every training record sealed in the records ledger (item 9).

    A name that answered before trainees joined is kept as a trainee without a token: its answers stand, nobody
    can answer under it again."""
    db.execute("ALTER TABLE training_sessions ADD COLUMN closed_at TEXT")
    db["training_trainees"].create(
        {"session_id": str, "id": str, "name": str, "name_key": str, "token_hash": str, "joined_at": str},
        pk=("session_id", "id"),
        not_null={"session_id", "id", "name", "name_key"},
        foreign_keys=[("session_id", "training_sessions", "id")],
    )
    db["training_trainees"].create_index(["session_id", "name_key"], unique=True, index_name="training_trainees_name")
    from qalisball.training.names import name_key

    legacy = db.execute("SELECT session_id, trainee, MIN(answered_at) FROM training_answers GROUP BY session_id, trainee")
    for i, (session_id, name, at) in enumerate(legacy.fetchall()):
        db.execute(
            "INSERT OR IGNORE INTO training_trainees (session_id, id, name, name_key, token_hash, joined_at) "
            "VALUES (?, ?, ?, ?, NULL, ?)",
            [session_id, f"legacy-{i}", name, name_key(name), at],
        )
    if "record_ledger" in db.table_names():  # migration 20 ran: seal what is there (as _m20 sealed the rest)
        from qalisball.storage.store import seal_existing

        seal_existing(db, "training_sealed_on_migration", list(SEALED))


migrations.register("training", {24: migrate, 33: migrate_trainees}, sealed=SEALED, sealed_from=33)
