"""Every feature's tables, registered with the store's migrations (``storage/migrations.py``).

Importing this module registers them all; it is imported before any database is opened by the app
(``factory.py``) and by ``python -m qalisball`` (verify, backup, restore), so that a database is always
migrated, and its sealed records checked, with every feature's tables. Storage itself imports no feature.
"""

from __future__ import annotations

from qalisball.competitions import tables as competition_tables
from qalisball.feed import tables as feed_tables
from qalisball.league import tables as league_tables
from qalisball.match import tables as match_tables
from qalisball.training import tables as training_tables
from qalisball.venue import tables as venue_tables

FEATURE_TABLES = (competition_tables, venue_tables, training_tables, match_tables, feed_tables, league_tables)
