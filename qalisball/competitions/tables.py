"""The competitions' tables (SPEC §10, issue 12): migration 3 of the store, registered with the store's
migrations (``storage/migrations.py``) when this module is imported, so that storage imports nothing of
the competitions (and the competition store can use the store).
"""

from __future__ import annotations

import sqlite_utils

from qalisball.storage import migrations


def migrate(db: sqlite_utils.Database) -> None:
    """Migration 3 (issue 12): the competition tables."""
    db["teams"].create(
        {
            "id": str,
            "name": str,
            "short": str,
            "color": str,
            "club": str,
            "players": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"id", "name", "players"},
    )
    db["teams"].create_index(["name"], unique=True, index_name="teams_name")
    db["officials"].create({"id": str, "name": str, "club": str, "created_at": str}, pk="id", not_null={"id", "name"})
    db["competitions"].create(
        {
            "id": str,
            "name": str,
            "format": str,
            "config": str,
            "teams": str,
            "groups": str,
            "byes": str,
            "created_at": str,
        },
        pk="id",
        not_null={"id", "name", "format", "config", "teams"},
    )
    db["fixtures"].create(
        {
            "competition_id": str,
            "id": str,
            "number": int,
            "round": int,
            "group_name": str,
            "stage": str,
            "slot": int,
            "field": int,
            "starts_at": str,
            "home_source": str,
            "away_source": str,
            "home": str,
            "away": str,
            "officials": str,
            "match_id": str,
            "previous_matches": str,
            "forfeit": str,
            "decision": str,
        },
        pk=("competition_id", "id"),
        not_null={"competition_id", "id", "number", "round", "stage"},
        foreign_keys=[("competition_id", "competitions", "id")],
    )
    db["protests"].create(
        {
            "id": str,
            "competition_id": str,
            "fixture_id": str,
            "team": str,
            "text": str,
            "filed_at": str,
            "decision": str,
        },
        pk="id",
        foreign_keys=[("competition_id", "competitions", "id")],
    )
    db["lots"].create(
        {"id": str, "competition_id": str, "teams": str, "text": str, "drawn_at": str},
        pk="id",
        foreign_keys=[("competition_id", "competitions", "id")],
    )
    db["competition_log"].create(
        {"id": int, "competition_id": str, "at": str, "action": str, "body": str},
        pk="id",
    )


migrations.register(
    "competitions",
    {3: migrate},
    sealed={  # the records a decision or a standing depends on (D145)
        "teams": (("id",), None),
        "officials": (("id",), None),
        "competitions": (("id",), None),
        "fixtures": (("competition_id", "id"), None),
        "protests": (("id",), None),
        "lots": (("id",), None),
    },
)
