"""The league's tables (issue 31): migration 31 of the store, registered with the store's migrations
(``storage/migrations.py``) when this module is imported, as the other features register theirs.

At the central:

- ``league_venues``: one venue per row: its ``id``, ``name``, ``key_hash`` (the venue key as ``tokens.hash_token``
  keeps it: never the key itself), ``created_at``; what it sent last: ``cursor`` (the venue's feed cursor of the
  last message stored), ``digest`` (that message's digest, ``central.digest``), ``last_seen`` (its last request),
  ``last_message_at`` (when its last message was stored). Sealed (id, name, key_hash): a key planted outside the
  server writes nothing (D145).
- ``league_messages``: every message a venue sent, as it sent it, with its digest: what its next batch must continue.
- ``league_matches``: the matches a venue writes (SPEC L1): read-only here. Sealed.

At a venue:

- ``league_upstream``: per central (its URL), the cursor and digest it last acknowledged, so that a restart
  knows what is pending before the central answers again.

Migration 35 (issue 31 item 4, a league competition, SPEC L4):

- ``league_assignments`` (central): a competition's fixture given to a venue (``venue_id``, ``assigned_at``); the
  match the venue made of it once the venue says so (``match_id``, ``claimed_at``), and when the venue last fetched
  it (``fetched_at``). Sealed (the fixture, its venue and its match): a result the standings count depends on it.
- ``league_fixtures`` (venue): each fixture the central assigned it, as last fetched (``data``: teams, rosters,
  officials, suspensions; ``fetched_at``), the match made of it here (``match_id``) and what the central answered
  when told (``claim``: ``pending``, ``accepted`` or ``refused``; ``claim_error``).

Migration 36 (issue 31 item 2, D379):

- ``league_competitions`` (central): a venue's own competition as it sent it last (``records``: the competition, its
  fixtures, protests, lots, the teams and officials it names), from its message at ``cursor``: held read-only and
  shown as the central's own. Sealed (the competition and its venue).

Migration 37 (D380):

- ``league_revoked_keys`` (central): a venue key the organiser revoked (its hash, its venue, when): a venue that
  still sends with it is refused and told so. Sealed. A revoked venue's ``league_venues.key_hash`` is empty until a
  new key is issued.
"""

from __future__ import annotations

import sqlite_utils

from qalisball.storage import migrations


def migrate(db: sqlite_utils.Database) -> None:
    """Migration 31 (issue 31): the central's venues, their messages and matches; a venue's acknowledged cursor."""
    db.execute(
        "CREATE TABLE league_venues (id TEXT PRIMARY KEY, name TEXT NOT NULL, key_hash TEXT NOT NULL, "
        "created_at TEXT NOT NULL, cursor INTEGER NOT NULL DEFAULT 0, digest TEXT, last_seen TEXT, last_message_at TEXT)"
    )
    db.execute(
        "CREATE TABLE league_messages (venue_id TEXT NOT NULL, cursor INTEGER NOT NULL, kind TEXT NOT NULL, "
        "subject TEXT NOT NULL, digest TEXT NOT NULL, body TEXT NOT NULL, received_at TEXT NOT NULL, "
        "PRIMARY KEY (venue_id, cursor))"
    )
    db.execute("CREATE TABLE league_matches (match_id TEXT PRIMARY KEY, venue_id TEXT NOT NULL)")
    db.execute("CREATE TABLE league_upstream (upstream TEXT PRIMARY KEY, cursor INTEGER NOT NULL, digest TEXT, updated_at TEXT)")


def migrate_fixtures(db: sqlite_utils.Database) -> None:
    """Migration 35 (issue 31 item 4): fixtures a central gives its venues; a venue's copy of those it was given."""
    db.execute(
        "CREATE TABLE league_assignments (competition_id TEXT NOT NULL, fixture_id TEXT NOT NULL, "
        "venue_id TEXT NOT NULL, assigned_at TEXT NOT NULL, match_id TEXT, claimed_at TEXT, fetched_at TEXT, "
        "PRIMARY KEY (competition_id, fixture_id))"
    )
    db.execute(
        "CREATE TABLE league_fixtures (id TEXT PRIMARY KEY, data TEXT NOT NULL, fetched_at TEXT NOT NULL, "
        "match_id TEXT, claim TEXT, claim_error TEXT)"
    )


def migrate_competitions(db: sqlite_utils.Database) -> None:
    """Migration 36 (issue 31 item 2): the venues' own competitions held at the central."""
    db.execute(
        "CREATE TABLE league_competitions (competition_id TEXT PRIMARY KEY, venue_id TEXT NOT NULL, "
        "records TEXT NOT NULL, cursor INTEGER NOT NULL)"
    )


migrations.register(
    "league",
    {31: migrate},
    sealed={"league_venues": (("id",), ("id", "name", "key_hash")), "league_matches": (("match_id",), None)},
    sealed_from=31,
)
migrations.register(
    "league",
    {35: migrate_fixtures},
    sealed={"league_assignments": (("competition_id", "fixture_id"), ("competition_id", "fixture_id", "venue_id", "match_id"))},
    sealed_from=35,
)


def migrate_revoked(db: sqlite_utils.Database) -> None:
    """Migration 37 (D380): revoked venue keys."""
    db.execute("CREATE TABLE league_revoked_keys (key_hash TEXT PRIMARY KEY, venue_id TEXT NOT NULL, revoked_at TEXT NOT NULL)")


migrations.register(
    "league",
    {36: migrate_competitions},
    sealed={"league_competitions": (("competition_id",), ("competition_id", "venue_id"))},
    sealed_from=36,
)
migrations.register(
    "league",
    {37: migrate_revoked},
    sealed={"league_revoked_keys": (("key_hash",), ("key_hash", "venue_id", "revoked_at"))},
    sealed_from=37,
)
