"""Competitions (SPEC §10): kept teams and officials, schedules, matches made from fixtures, standings.

The service keeps the competition records in memory (loaded from ``competition_store`` at start-up,
written there first on every change) and derives everything else each time it is asked: a fixture's
teams (knockout places fill with winners), its status and result, the standings, the suspensions
and the statistics come from the matches' event logs (``MatchService``) and the recorded decisions,
through the pure rules of ``rules/competition``. Nothing derived is stored, so a correction in a
match (a void, an ``amend``) or a protest decision is reflected at once.

``CompetitionService`` is a facade over parts, each owning its state and given the shared pieces it needs
when the service is built (issue 28 item 7):

- ``book.CompetitionBook``: the records in memory, the lock every write holds, the snapshot (what is derived);
- ``views.ViewCache``: the views and the public pages' parts, built once per change (D155, D253);
- ``views.CompetitionViews``: the JSON views and standings; ``views.LiveUpdates``: the listeners, told of
  a fixture's match events and of each change (``changed``);
- ``player_records.PlayerRecords``: suspensions and statistics, with each match's report core;
- ``teams_officials.TeamsAndOfficials``: kept teams and officials (C1, D68, D72);
- ``fixture_results.FixturesAndResults``: the schedule made, a fixture's officials, match and forfeit (C2, C4–C6);
- ``protest_decisions.ProtestsAndDecisions``: decided results, protests and lots (C3, C7, D63);
- ``schedule_moves.ScheduleMoves``: moving a fixture (D75);
- ``league_desk.LeagueDesk``: what a league's central asks of its competitions (issue 31 item 4, L4).

Errors: ``Invalid`` (400 with ``fields``), ``service.NotFound`` (404), ``Conflict`` (409 ``conflict``),
``RuleViolation`` (409 ``rule``, citing C1–C7 or a decision D60–D79), raised by the pure checks of
``rules/competition`` that the service calls with the facts it gathers: it never decides a rule itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from qalisball.competitions.book import CachedView, CompetitionBook, Snapshot
from qalisball.competitions.fixture_results import FixturesAndResults
from qalisball.competitions.league_desk import LeagueDesk
from qalisball.competitions.player_records import PlayerRecords
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
from qalisball.competitions.views import CompetitionViews, Listener, LiveUpdates, ViewCache
from qalisball.match.service import MatchService
from qalisball.rules.competition.standings import MatchOutcome
from qalisball.storage.store import Store

log = logging.getLogger(__name__)


class CompetitionService:
    """The competitions' service: a facade whose every method is one of its parts' (the records loaded at start)."""

    def __init__(self, store: Store, matches: MatchService, clock: Callable[[], int]) -> None:
        lock = threading.RLock()
        self._cache = ViewCache(lock, clock, matches)
        self._book = CompetitionBook(store, matches, clock, lock, written=self._cache.drop)
        self._shown = CompetitionViews(self._book)
        self._live = LiveUpdates(self._book, self._cache, self._shown)
        self._players = PlayerRecords(self._book)
        self._kept = TeamsAndOfficials(self._book)
        self._fixtures = FixturesAndResults(self._book, self._players, self._live.changed)
        self._decisions = ProtestsAndDecisions(self._book, self._live.changed)
        self._moves = ScheduleMoves(self._book, self._live.changed)
        self.league = LeagueDesk(self._book, self._players, self._fixtures, self._live.changed)

    def played_elsewhere(self, venue_of: Callable[[str, str], str | None]) -> None:
        """Who plays a fixture elsewhere (the league's venues, L4): its match is made there, never here (D375)."""
        self._book.venue_of = venue_of

    # -- the records (the book) ------------------------------------------------------------------

    @property
    def teams(self) -> dict[str, Team]:
        """This server's kept teams (C1): not the teams of a league venue's competitions held here (D379)."""
        return self._book.own_teams()

    @property
    def officials(self) -> dict[str, Official]:
        return self._book.own_officials()

    @property
    def held_teams(self) -> dict[str, Team]:
        """Every team a competition here names: the kept ones and a league venue's (D379)."""
        return self._book.teams

    @property
    def held_officials(self) -> dict[str, Official]:
        return self._book.officials

    @property
    def competitions(self) -> dict[str, Competition]:
        return self._book.competitions

    @property
    def matches(self) -> MatchService:
        return self._book.matches

    def clock(self) -> int:
        return self._book.clock()

    def get(self, comp_id: str) -> Competition:
        return self._book.get(comp_id)

    def fixture_of(self, match_id: str) -> tuple[str, str] | None:
        """(competition id, fixture id) of a match made from a fixture, or None."""
        return self._book.fixture_of(match_id)

    # -- what is shown: views, their cache per change, live updates ---------------------------------

    def view(self, c: Competition) -> dict[str, Any]:
        return self._shown.view(c)

    def standings(self, c: Competition) -> dict[str, list[dict[str, Any]]]:
        return self._shown.standings(c)

    def standings_if(self, c: Competition, what_if: dict[str, MatchOutcome]) -> dict[str, list[dict[str, Any]]]:
        return self._shown.standings_if(c, what_if)

    def cached_view(self, c: Competition) -> CachedView:
        """``view(c)`` built once per change (D155)."""
        return self._cache.cached_view(c, self.view)

    def cached_part(self, c: Competition, name: str, render: Callable[[], str]) -> str:
        """A public page's part rendered once per change (D253)."""
        return self._cache.cached_part(c, name, render)

    def listen(self, listener: Listener) -> None:
        self._live.listen(listener)

    def on_stored_elsewhere(self, kind: str, subject: str) -> None:
        """Another server process on the same PostgreSQL database changed a competition, a kept team or an official
        (the journal's listener, D398): the records are read again and the competition's pages told, as after a
        write here."""
        if kind not in ("competition", "team", "official"):
            return
        self._book.reload()
        c = self._book.competitions.get(subject) if kind == "competition" else None
        if c is not None:
            self._live.changed(c)

    def on_match_event(self, match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        """The match service's publisher: a fixture's live score, and the whole view when results change.

        Called after the event is committed and answered for: a failure here is logged and never turns
        an accepted event into an error for the official.
        """
        try:
            self._live.on_match_event(match_id)
        except Exception:  # the match's event is stored; only the screens miss an update
            log.exception("competition update after an event of match %s failed", match_id)

    # -- players: suspensions (C4), statistics ------------------------------------------------------

    def suspensions_json(self, c: Competition) -> list[dict[str, Any]]:
        return self._players.suspensions_json(c)

    def stats(self, c: Competition) -> list[dict[str, Any]]:
        return self._players.stats(c)

    # -- kept teams and officials (C1) ----------------------------------------------------------------

    def team(self, team_id: str) -> Team:
        return self._kept.team(team_id)

    def create_team(self, data: dict[str, Any]) -> Team:
        return self._kept.create_team(data)

    def update_team(self, team_id: str, data: dict[str, Any]) -> Team:
        return self._kept.update_team(team_id, data)

    def import_csv(self, text: str) -> list[Team]:
        return self._kept.import_csv(text)

    def export_csv(self) -> str:
        return self._kept.export_csv()

    def create_official(self, data: dict[str, Any]) -> Official:
        return self._kept.create_official(data)

    # -- competitions and fixtures (C2, C4–C6) ------------------------------------------------------

    def create(self, data: dict[str, Any]) -> Competition:
        return self._fixtures.create(data)

    def set_officials(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        return self._fixtures.set_officials(c, f, data)

    def create_match(self, c: Competition, f: Fixture, lineup: dict[str, Any]) -> Any:
        return self._fixtures.create_match(c, f, lineup)

    def forfeit(self, c: Competition, f: Fixture, team: str, reason: str) -> Fixture:
        return self._fixtures.forfeit(c, f, team, reason)

    def reschedule(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        return self._moves.reschedule(c, f, data)

    # -- decisions: results (D63), protests (C7), lots (C3) ------------------------------------------

    def decide_result(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        return self._decisions.decide_result(c, f, data)

    def file_protest(self, c: Competition, data: dict[str, Any]) -> Protest:
        return self._decisions.file_protest(c, data)

    def decide_protest(self, c: Competition, protest_id: str, data: dict[str, Any]) -> Protest:
        return self._decisions.decide_protest(c, protest_id, data)

    def record_lots(self, c: Competition, data: dict[str, Any]) -> LotsDrawn:
        return self._decisions.record_lots(c, data)

    # -- for tests and benchmarks: a restart's reading of the records, the caches it starts without ----

    @property
    def _parts(self) -> dict[tuple[str, str], Any]:
        return self._cache.parts

    @property
    def _reports(self) -> dict[str, tuple[int, Any]]:
        return self._players.reports

    def _read(self) -> None:
        self._book.read()


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
