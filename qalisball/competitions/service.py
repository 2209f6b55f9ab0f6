"""Competitions (SPEC §10): kept teams and officials, schedules, matches made from fixtures, standings.

The service keeps the competition records in memory (loaded from ``competition_store`` at start-up,
written there first on every change) and derives everything else each time it is asked: a fixture's
teams (knockout places fill with winners), its status and result, the standings, the suspensions
and the statistics come from the matches' event logs (``MatchService``) and the recorded decisions,
through the pure rules of ``rules/competition``. Nothing derived is stored, so a correction in a
match (a void, an ``amend``) or a protest decision is reflected at once.

``CompetitionService`` is one object over one shared state (``book.CompetitionBook``: the records, the
lock every write holds, the listeners), put together from its parts by what they do:

- ``teams_officials.TeamsAndOfficials``: kept teams and officials (C1, D68, D72);
- ``fixture_results.FixturesAndResults``: the schedule made, a fixture's officials, match and forfeit (C2, C4–C6);
- ``protest_decisions.ProtestsAndDecisions``: decided results, protests and lots (C3, C7, D63);
- ``schedule_moves.ScheduleMoves``: moving a fixture (D75);
- beneath them ``player_records.PlayerRecords`` (suspensions, statistics) and ``views.CompetitionViews``
  (the JSON views, cached per change, and live updates).

Errors: ``Invalid`` (400 with ``fields``), ``service.NotFound`` (404), ``Conflict`` (409 ``conflict``),
``RuleViolation`` (409 ``rule``, citing C1–C7 or a decision D60–D79), raised by the pure checks of
``rules/competition`` that the service calls with the facts it gathers: it never decides a rule itself.
"""

from __future__ import annotations

from qalisball.competitions.book import CachedView, Snapshot
from qalisball.competitions.fixture_results import FixturesAndResults
from qalisball.competitions.protest_decisions import ProtestsAndDecisions
from qalisball.competitions.records import (
    FINAL_PHASES,
    LEAGUE,
    ROLES,
    Competition,
    Conflict,
    Fixture,
    Invalid,
    LotsDrawn,
    Official,
    Protest,
    Team,
    schedule_order,
)
from qalisball.competitions.schedule_moves import ScheduleMoves
from qalisball.competitions.teams_officials import TeamsAndOfficials


class CompetitionService(TeamsAndOfficials, FixturesAndResults, ProtestsAndDecisions, ScheduleMoves):
    """The competitions' service: every part above on one book (``CompetitionBook.__init__`` loads it)."""


__all__ = [
    "FINAL_PHASES",
    "LEAGUE",
    "ROLES",
    "CachedView",
    "Competition",
    "CompetitionService",
    "Conflict",
    "Fixture",
    "Invalid",
    "LotsDrawn",
    "Official",
    "Protest",
    "Snapshot",
    "Team",
    "schedule_order",
]
