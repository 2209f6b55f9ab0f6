"""The training tables (issue 24): migration 24 of the store, registered with the store's migrations
(``storage/migrations.py``) when this module is imported, as the competitions and the venue register theirs."""

from __future__ import annotations

import sqlite_utils

from qalisball.storage import migrations


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


# Nothing here is sealed (D145): a training session decides nothing about a match or a competition.
migrations.register("training", {24: migrate})
