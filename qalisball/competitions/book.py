"""The competition book: every competition's records in memory, read from ``CompetitionStore`` at start-up
and written there first on every change, and what is derived from them and the matches' logs at one
moment (``Snapshot``). The book owns the records and the lock every write holds; each part of the service
(``service.CompetitionService``) is given the book and changes the records through it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from qalisball.competitions.records import LEAGUE, Competition, Fixture, LotsDrawn, Official, Protest, Team, as_decision, to_ms
from qalisball.competitions.store import CompetitionStore
from qalisball.match.service import MatchService, NotFound
from qalisball.rules.competition import bracket, moves, standings
from qalisball.rules.competition.fixtures import FixtureFacts
from qalisball.rules.competition.schedule import Planned, Source
from qalisball.rules.competition.standings import Lots, MatchOutcome, Result, Row
from qalisball.rules.errors import N_
from qalisball.storage.engine import DatabaseError
from qalisball.storage.integrity import Damage
from qalisball.storage.store import Store

log = logging.getLogger(__name__)

# A cached view (D155) in which a fixture's clock runs is rebuilt after this long: its `running` and
# `time_up` change with time alone (its clock fields stay consistent with its `server_time_ms`).
VIEW_FRESH_MS = 1000
# A public page's rendered part (D253) is kept this long while only its fixtures' match seqs moved on (the
# pages take each match's score and clock from the ``fixture`` messages, newest seq first): a match
# logging a call every second costs one render a second, whatever the number of readers.
PART_FRESH_MS = 2000


@dataclass(frozen=True)
class CachedView:
    """A competition's view as of one change (D155): ``data`` is shared, never to be changed by a caller."""

    key: tuple[int, ...]  # each fixture's match seq (any write of the service drops every cached view)
    at: int  # server ms when built
    ticking: bool  # a fixture's match clock runs
    data: dict[str, Any]
    text: str  # ``data`` as compact JSON, encoded once for every join


@dataclass(frozen=True)
class CachedPart:
    """A public page's part rendered once (D253): for these fixtures' match seqs, at server ms ``at``."""

    key: tuple[int, ...]
    at: int
    html: str


@dataclass
class Snapshot:
    """Everything derived about a competition at one moment (never stored)."""

    teams: dict[str, tuple[str | None, str | None]]  # fixture id -> (home, away) team ids
    outcomes: dict[str, MatchOutcome | None]
    results: dict[str, Result | None]
    status: dict[str, str]
    tables: dict[str, list[Row]]  # group name ("all" for a league) -> ranked rows
    pending: dict[str, int]  # group -> fixtures still without a result
    voided: frozenset[str]
    changed: dict[str, list[str]]  # fixture id -> sides whose team its place no longer names


class CompetitionBook:
    """The records (kept teams, officials, competitions), the lock every write holds, what is derived from them.

    The records are the book's: a part reads them here and changes them under ``lock``, storing the change
    first (``write``), then putting the record in place (``put_team``, ``put_official``, ``add_competition``,
    ``match_made``, or the record's own fields).
    """

    def __init__(
        self,
        store: Store,
        matches: MatchService,
        clock: Callable[[], int],
        lock: threading.RLock,
        written: Callable[[], None],
    ) -> None:
        self.db = CompetitionStore(store)
        self.matches = matches
        self.clock = clock
        # Held by every write around its in-memory change and its store write, and by the view cache while it
        # builds (D155), so that no half-made change is read.
        self.lock = lock
        self._written = written  # told before every store write: the cached views and parts are out of date
        self.teams: dict[str, Team] = {}
        self.officials: dict[str, Official] = {}
        self.competitions: dict[str, Competition] = {}
        self._by_match: dict[str, tuple[str, str]] = {}  # match id -> (competition id, fixture id)
        # The teams and officials of a league venue's competitions held here (D379): not this server's kept ones.
        self.copied_teams: set[str] = set()
        self.copied_officials: set[str] = set()
        # (competition id, fixture id) -> the league venue that makes its match (L4, D375); none by default.
        self.venue_of: Callable[[str, str], str | None] = lambda comp_id, fid: None
        self._load()

    def write(
        self, changes: list[tuple[str, str, dict[str, Any]]], log_line: tuple[str | None, str, dict[str, Any]] | None = None
    ) -> None:
        """Store a change (``CompetitionStore.write``); every cached view is out of date from now on."""
        self._written()
        self.db.write(changes, log_line)

    def put_team(self, t: Team) -> None:
        self.teams[t.id] = t

    def put_official(self, o: Official) -> None:
        self.officials[o.id] = o

    def add_competition(self, c: Competition) -> None:
        self.competitions[c.id] = c

    def match_made(self, match_id: str, comp_id: str, fixture_id: str) -> None:
        """A fixture's match was made: its events are the fixture's from now on (``fixture_of``)."""
        self._by_match[match_id] = (comp_id, fixture_id)

    def _load(self) -> None:
        """Read the competitions; a damaged database (D42) leaves them empty rather than stop the server."""
        try:
            self.read()
        except DatabaseError as exc:
            for records in (self.teams, self.officials, self.competitions, self._by_match):
                records.clear()
            # The database is damaged where quick_check did not look: read-only, said on every screen (D42).
            damage = Damage(
                N_("the database file {path} cannot be read ({error}): nothing can be stored; restore the latest backup"),
                {"path": self.matches.store.path, "error": str(exc)},
            )
            self.matches.problem = self.matches.problem or damage
            log.error("the competitions cannot be read: %s", exc)

    def reload(self) -> None:
        """Every record read again (another server process changed them on the same PostgreSQL database, D398): the
        new records are read into new maps, then put in place under the lock; every cached view is out of date."""
        with self.lock:
            old = self.teams, self.officials, self.competitions, self._by_match
            self.teams, self.officials, self.competitions, self._by_match = {}, {}, {}, {}
            try:
                self.matches.store.read(self.read)
            except BaseException:
                self.teams, self.officials, self.competitions, self._by_match = old
                raise
            self._written()

    def read(self) -> None:
        """Read every record from the store (at start-up; a test's restart reads them again)."""
        for r in self.db.rows("teams"):
            self.teams[r["id"]] = team_of_row(r)
        for r in self.db.rows("officials"):
            self.officials[r["id"]] = official_of_row(r)
        for r in self.db.rows("competitions", order_by="created_at, id"):
            c = competition_of_row(r)
            self.competitions[c.id] = c
        for r in self.db.rows("fixtures", order_by="competition_id, number"):
            f = fixture_of_row(r)
            self.competitions[r["competition_id"]].fixtures.append(f)
            for m in [*f.previous_matches, f.match_id]:
                if m:
                    self._by_match[m] = (r["competition_id"], f.id)
        moved = self.db.moves()  # (competition, fixture) -> times moved (D280)
        for c in self.competitions.values():
            for f in c.fixtures:
                f.moves = moved.get((c.id, f.id), 0)
        for r in self.db.rows("protests", order_by="filed_at, id"):
            self.competitions[r["competition_id"]].protests.append(protest_of_row(r))
        for r in self.db.rows("lots", order_by="drawn_at, id"):
            self.competitions[r["competition_id"]].lots.append(lots_of_row(r))

    # -- a league venue's competitions, held read-only at its central (issue 31 item 2, D379) -------------------

    def own_teams(self) -> dict[str, Team]:
        """The kept teams of this server (C1): a venue's teams, held with its competitions, are not among them."""
        if not self.copied_teams:
            return self.teams
        return {k: t for k, t in self.teams.items() if k not in self.copied_teams}

    def own_officials(self) -> dict[str, Official]:
        if not self.copied_officials:
            return self.officials
        return {k: o for k, o in self.officials.items() if k not in self.copied_officials}

    def hold_copy(self, c: Competition, teams: list[Team], officials: list[Official]) -> None:
        """A venue's competition as the venue stored it last (under ``lock``, after the store write): it replaces the
        copy held, with the teams and officials it names (D379)."""
        self._written()
        held = self.competitions.get(c.id)
        if held is not None:
            for f in held.fixtures:
                for m in [*f.previous_matches, f.match_id]:
                    if m and self._by_match.get(m) == (c.id, f.id):
                        del self._by_match[m]
        for t in teams:
            self.teams[t.id] = t
            self.copied_teams.add(t.id)
        for o in officials:
            self.officials[o.id] = o
            self.copied_officials.add(o.id)
        self.competitions[c.id] = c
        for f in c.fixtures:
            for m in [*f.previous_matches, f.match_id]:
                if m:
                    self._by_match[m] = (c.id, f.id)

    def get(self, comp_id: str) -> Competition:
        c = self.competitions.get(comp_id)
        if c is None:
            raise NotFound(f"no competition {comp_id}")
        return c

    # -- what is derived -------------------------------------------------------------------------

    def snapshot(self, c: Competition, what_if: dict[str, MatchOutcome] | None = None) -> Snapshot:
        """Teams, results and standings now, from the matches' logs and the recorded decisions.

        ``what_if``: outcomes by match id to count instead of the logs' (issue 24's what-if; never stored)."""
        outcomes = {f.id: (what_if or {}).get(f.match_id or "") or self.outcome(f.match_id) for f in c.fixtures}
        forfeit_score = c.config["forfeit"]["score"]
        forfeits = [(f.forfeit["team"], f.decision is not None) for f in c.fixtures if f.forfeit]
        voided = standings.voided_teams(forfeits, c.config["forfeit"]["voids_all_results"])

        def result(f: Fixture, teams: tuple[str | None, str | None]) -> Result | None:
            forfeit_by = f.forfeit["team"] if f.forfeit else None
            return standings.fixture_result(
                f.id, teams[0], teams[1], outcomes[f.id], forfeit_by, as_decision(f.decision), forfeit_score
            )

        results: dict[str, Result | None] = {}
        teams: dict[str, tuple[str | None, str | None]] = {}
        tables: dict[str, list[Row]] = {}
        pending: dict[str, int] = {}
        ranks: dict[str, dict[int, str]] = {}
        lots = [Lots(tuple(x.teams), x.id) for x in c.lots]
        for name, members in c.groups:
            in_group = [f for f in c.fixtures if f.stage == "group" and (f.group or "") == name]
            for f in in_group:
                teams[f.id] = (f.home or f.home_source.team, f.away or f.away_source.team)
                results[f.id] = result(f, teams[f.id])
            key = name or LEAGUE
            counted = [r for f in in_group if (r := results[f.id]) is not None]
            tables[key] = standings.table(members, counted, c.points, lots, voided)
            pending[key] = sum(1 for f in in_group if results[f.id] is None and not (set(teams[f.id]) & voided))
            ranks[name] = bracket.known_ranks(tables[key], over=pending[key] == 0)
        knockout = [f for f in c.fixtures if f.stage != "group"]
        by_number = {f.number: f for f in knockout}
        fixed = {f.number: (f.home, f.away) for f in knockout if f.home is not None or f.away is not None}

        def winner(p: Planned, t: tuple[str | None, str | None]) -> str | None:
            f = by_number[p.number]
            r = results[f.id] = result(f, t)
            return r.winner if r else None

        planned = [f.planned() for f in knockout]
        for number, t in bracket.fill(planned, fixed, ranks, winner).items():
            teams[by_number[number].id] = t
        winners = {f.number: r.winner for f in knockout if (r := results.get(f.id)) is not None and r.winner is not None}
        losers = {  # the third-place match's places (D76)
            f.number: lost[0]
            for f in knockout
            if (r := results.get(f.id)) is not None
            and r.winner is not None
            and len(lost := [t for t in teams.get(f.id, (None, None)) if t is not None and t != r.winner]) == 1
        }
        changed = {by_number[n].id: sides for n, sides in bracket.changed(planned, fixed, ranks, winners, losers).items()}
        status = {
            f.id: standings.fixture_status(
                o.phase if (o := outcomes[f.id]) else None, f.forfeit["team"] if f.forfeit else None, as_decision(f.decision)
            )
            for f in c.fixtures
        }
        return Snapshot(teams, outcomes, results, status, tables, pending, voided, changed)

    def fixture_of(self, match_id: str) -> tuple[str, str] | None:
        """(competition id, fixture id) of a match made from a fixture, or None."""
        return self._by_match.get(match_id)

    def outcome(self, match_id: str | None) -> MatchOutcome | None:
        if match_id is None or match_id not in self.matches.matches:
            return None
        s = self.matches.get(match_id).state
        assert s is not None
        so = (s.shootout.score["home"], s.shootout.score["away"]) if s.shootout is not None else None
        return MatchOutcome(s.phase, (s.score["home"], s.score["away"]), so, s.winner)

    def facts(self, f: Fixture, snap: Snapshot) -> FixtureFacts:
        """A fixture as its rules ask about it (C6, C7, D63, D75): its teams now, its match's phase, forfeit, decision."""
        home, away = snap.teams.get(f.id, (None, None))
        o = snap.outcomes.get(f.id)
        return FixtureFacts(f.id, home, away, o.phase if o else None, f.forfeit is not None, f.decision is not None)

    def name(self, team_id: str | None) -> str:
        t = self.teams.get(team_id or "")
        return t.name if t else "?"

    def team_brief(self, team_id: str | None) -> dict[str, Any] | None:
        t = self.teams.get(team_id or "")
        return None if t is None else {"id": t.id, "name": t.name, "short": t.short, "color": t.color, "club": t.club}

    def officials_of(self, c: Competition) -> list[Official]:
        ids = {o for f in c.fixtures for o in f.officials.values()}
        return [o for o in self.officials.values() if o.id in ids]

    def booking(
        self, c: Competition, f: Fixture, snap: Snapshot, starts_at: str | None = None, field_index: int | None = None
    ) -> moves.Booking:
        """A fixture as the schedule's rules see it (D75), optionally at another time and field."""
        after = moves.waits_for(f.planned(), [x.planned() for x in c.fixtures])
        outcome = self.outcome(f.match_id) if f.match_id is not None else None
        over = snap.status.get(f.id) in ("finished", "forfeit") or f.decision is not None
        return moves.Booking(
            f.number,
            f.slot,
            to_ms(starts_at if starts_at is not None else f.starts_at),
            f.field if field_index is None else field_index,
            tuple(t for t in snap.teams.get(f.id, (None, None)) if t),
            tuple(sorted(f.officials.items())),
            after,
            made=over or (outcome is not None and outcome.phase != "abandoned"),
            over=over,
        )


# -- a record from its stored row (the store's, or a venue's as it sent it: D379) -------------------------------


def team_of_row(r: dict[str, Any]) -> Team:
    return Team(r["id"], r["name"], r["short"], r["color"], r["club"], r["players"], r["created_at"], r["updated_at"])


def official_of_row(r: dict[str, Any]) -> Official:
    return Official(r["id"], r["name"], r["club"], r["created_at"])


def competition_of_row(r: dict[str, Any]) -> Competition:
    return Competition(r["id"], r["name"], r["format"], r["config"], r["teams"], r["groups"], r["byes"], r["created_at"])


def fixture_of_row(r: dict[str, Any]) -> Fixture:
    return Fixture(
        r["id"],
        r["number"],
        r["round"],
        r["group_name"],
        r["stage"],
        r["slot"],
        r["field"],
        r["starts_at"],
        Source.from_dict(r["home_source"]),
        Source.from_dict(r["away_source"]),
        r["home"],
        r["away"],
        r["officials"] or {},
        r["match_id"],
        r["previous_matches"] or [],
        r["forfeit"],
        r["decision"],
    )


def protest_of_row(r: dict[str, Any]) -> Protest:
    return Protest(r["id"], r["fixture_id"], r["team"], r["text"], r["filed_at"], r["decision"])


def lots_of_row(r: dict[str, Any]) -> LotsDrawn:
    return LotsDrawn(r["id"], r["teams"], r["text"] or "", r["drawn_at"])
