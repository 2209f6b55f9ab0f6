"""The database's numbered migrations, which the features add to (issue 21): storage imports no feature.

The store (``store.py``) registers the log's own migrations (1, 2, 20) and the features theirs, when their
``tables.py`` is imported: ``register("competitions", {3: migrate}, sealed={"teams": (("id",), None), …})``.
``Store`` applies every registered migration once, in number order. Numbers are reserved per piece of work
so that branches developed side by side never take the same one; two features registering one number is
an error at import, never a migration silently skipped.

``sealed`` names the tables whose records the records ledger seals (D145): per table, its primary key and
the columns sealed (None: all). ``sealed_from``: the migration that starts sealing them, when that is later
than the ledger's start (20): training's tables, sealed by its migration 33 (D224); a database not yet
migrated that far (``verify`` on a database the version before wrote) has them unsealed, not damaged (D293).
Every feature's tables must be registered before a database is opened
(``qalisball/server/tables.py`` imports them all; ``create_app`` and ``python -m qalisball`` import it),
or the ledger would name records of tables the store does not know.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sqlite_utils

Migrate = Callable[[sqlite_utils.Database], None]
Sealed = tuple[tuple[str, ...], tuple[str, ...] | None]


@dataclass(frozen=True)
class Migration:
    number: int
    feature: str
    apply: Migrate


class MigrationClash(Exception):
    """Two features claimed the same migration number, or the same sealed table."""


# Live registries, filled at import by ``register``; the store reads them when it opens a database.
REGISTERED: dict[int, Migration] = {}
MIGRATIONS: dict[int, Migrate] = {}  # number -> migration, as the store applies them
SEALED: dict[str, Sealed] = {}
RESEALS: set[int] = set()  # migrations that recompute the seals: the store acknowledges the heads after them
SEALED_FROM: dict[str, int] = {}  # table -> the migration that starts sealing it (absent: the ledger's start)


def register(
    feature: str,
    migrations: Mapping[int, Migrate],
    sealed: Mapping[str, Sealed] | None = None,
    reseals: tuple[int, ...] = (),
    sealed_from: int | None = None,
) -> None:
    """Add ``feature``'s migrations (and the tables it seals). Registering the same function again is a no-op
    (a module imported twice); another migration under a number already taken raises ``MigrationClash``."""
    for number, apply in migrations.items():
        held = REGISTERED.get(number)
        if held is not None and (held.feature, held.apply.__qualname__) != (feature, apply.__qualname__):
            raise MigrationClash(f"migration {number} of {feature} is already {held.feature}'s")
    for table, key in (sealed or {}).items():
        if SEALED.get(table, key) != key:
            raise MigrationClash(f"{feature} seals table {table}, already sealed with another key")
    for number, apply in sorted(migrations.items()):
        REGISTERED[number] = Migration(number, feature, apply)
        MIGRATIONS[number] = apply
    SEALED.update(sealed or {})
    RESEALS.update(reseals)
    if sealed_from is not None:
        SEALED_FROM.update(dict.fromkeys(sealed or {}, sealed_from))


def sealed_at(version: int) -> set[str]:
    """The tables a database at schema ``version`` has sealed (D293): every sealed table but those a later
    migration starts sealing."""
    return {table for table in SEALED if SEALED_FROM.get(table, 0) <= version}


def features() -> dict[str, list[int]]:
    """Which feature registered which migration numbers (for ``python -m qalisball verify`` and tests)."""
    out: dict[str, list[int]] = {}
    for number in sorted(REGISTERED):
        out.setdefault(REGISTERED[number].feature, []).append(number)
    return out
