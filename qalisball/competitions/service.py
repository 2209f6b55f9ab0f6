"""Competitions (SPEC §10): kept teams and officials, schedules, matches made from fixtures, standings.

The service keeps the competition records in memory (loaded from ``competition_store`` at start-up,
written there first on every change) and derives everything else each time it is asked: a fixture's
teams (knockout places fill with winners), its status and result, the standings, the suspensions
and the statistics come from the matches' event logs (``MatchService``) and the recorded decisions,
through the pure rules of ``rules/competition``. Nothing derived is stored, so a correction in a
match (a void, an ``amend``) or a protest decision is reflected at once.

Errors: ``Invalid`` (400 with ``fields``), ``service.NotFound`` (404), ``Conflict`` (409 ``conflict``),
``RuleViolation`` (409 ``rule``, citing C1–C7 or a decision D60–D79), raised by the pure checks of
``rules/competition`` that the service calls with the facts it gathers: it never decides a rule itself.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from marshmallow import ValidationError

from qalisball.competitions import csv_io as competition_csv
from qalisball.competitions.store import CompetitionStore, utc_now
from qalisball.match.schemas import MatchSchema
from qalisball.match.service import MatchService, NotFound
from qalisball.rules.competition import bracket, decisions, discipline, moves, schedule, standings
from qalisball.rules.competition import fixtures as fixture_rules
from qalisball.rules.competition.discipline import Appearance, Cards, Discipline, Party, Suspension
from qalisball.rules.competition.fixtures import FixtureFacts
from qalisball.rules.competition.schedule import PlanError, Planned, Source
from qalisball.rules.competition.standings import Decision, Lots, MatchOutcome, Points, Result, Row
from qalisball.rules.errors import N_
from qalisball.storage.integrity import Damage
from qalisball.storage.store import Store

log = logging.getLogger(__name__)
ROLES = ("referee", "assistant1", "assistant2", "scorer")
FINAL_PHASES = ("finished", "abandoned")
LEAGUE = "all"  # the standings key of a competition without groups (API.md)

# Listener of live changes: (competition id, kind "fixture" or "competition", payload).
Listener = Callable[[str, str, dict[str, Any]], None]

# A cached view (D155) in which a fixture's clock runs is rebuilt after this long: its `running` and
# `time_up` change with time alone (its clock fields stay consistent with its `server_time_ms`).
VIEW_FRESH_MS = 1000


class Invalid(Exception):
    """400 ``invalid``: ``fields`` maps each bad field to its messages."""

    def __init__(self, message: str, fields: dict[str, list[str]]) -> None:
        super().__init__(message)
        self.message, self.fields = message, fields


class Conflict(Exception):
    """409 ``conflict``: the thing asked for exists already (a fixture's match)."""


# ---------------------------------------------------------------------------------------------
# Records


@dataclass
class Team:
    id: str
    name: str
    short: str | None
    color: str | None
    club: str | None
    players: list[dict[str, Any]]
    created_at: str
    updated_at: str

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "short": self.short,
            "color": self.color,
            "club": self.club,
            "players": sorted(self.players, key=lambda p: p["number"]),
        }

    def names(self) -> dict[int, str]:
        return {p["number"]: p["name"] for p in self.players}


@dataclass
class Official:
    id: str
    name: str
    club: str | None
    created_at: str

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "club": self.club}


@dataclass
class Fixture:
    id: str
    number: int
    round: int
    group: str | None
    stage: str
    slot: int
    field: int
    starts_at: str | None
    home_source: Source
    away_source: Source
    home: str | None = None  # fixed when its match is made (C1); until then the sources say
    away: str | None = None
    officials: dict[str, str] = field(default_factory=dict)
    match_id: str | None = None
    previous_matches: list[str] = field(default_factory=list)  # replaced by a replay (C7) or after an abandonment
    forfeit: dict[str, Any] | None = None  # {"team", "reason", "at"} (C6)
    decision: dict[str, Any] | None = None  # a decided result (C7, D63): {"home", "away", "winner", "shootout", "by", ...}

    def planned(self) -> Planned:
        return Planned(self.number, self.round, self.group, self.stage, self.slot, self.field, self.home_source, self.away_source)

    def row(self, comp_id: str) -> dict[str, Any]:
        return {
            "competition_id": comp_id,
            "id": self.id,
            "number": self.number,
            "round": self.round,
            "group_name": self.group,
            "stage": self.stage,
            "slot": self.slot,
            "field": self.field,
            "starts_at": self.starts_at,
            "home_source": self.home_source.to_dict(),
            "away_source": self.away_source.to_dict(),
            "home": self.home,
            "away": self.away,
            "officials": self.officials,
            "match_id": self.match_id,
            "previous_matches": self.previous_matches,
            "forfeit": self.forfeit,
            "decision": self.decision,
        }


@dataclass
class Protest:
    id: str
    fixture: str
    team: str
    text: str
    filed_at: str
    decision: dict[str, Any] | None = None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "fixture": self.fixture,
            "team": self.team,
            "text": self.text,
            "filed_at": self.filed_at,
            "decision": self.decision,
        }


@dataclass
class LotsDrawn:
    id: str
    teams: list[str]
    text: str
    drawn_at: str

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "teams": self.teams, "text": self.text, "drawn_at": self.drawn_at}


@dataclass
class Competition:
    id: str
    name: str
    format: str
    config: dict[str, Any]  # the validated request: points, fields, times, match, discipline, forfeit, groups, advance
    teams: list[str]
    groups: list[list[Any]]  # [[name, [team ids]]]; one group named "" for a league
    byes: list[dict[str, Any]]
    created_at: str
    fixtures: list[Fixture] = field(default_factory=list)
    protests: list[Protest] = field(default_factory=list)
    lots: list[LotsDrawn] = field(default_factory=list)

    def fixture(self, fid: str) -> Fixture:
        for f in self.fixtures:
            if f.id == fid:
                return f
        raise NotFound(f"no fixture {fid} in competition {self.id}")

    @property
    def points(self) -> Points:
        return Points(**self.config["points"])

    @property
    def discipline(self) -> Discipline:
        d = self.config["discipline"]
        return Discipline(d["red_suspension_matches"], d["yellow_accumulation"], d.get("yellow_suspension_matches", 1))


@dataclass(frozen=True)
class CachedView:
    """A competition's view as of one change (D155): ``data`` is shared, never to be changed by a caller."""

    key: tuple[int, tuple[int, ...]]  # the service's write generation, each fixture's match seq
    at: int  # server ms when built
    ticking: bool  # a fixture's match clock runs
    data: dict[str, Any]
    text: str  # ``data`` as compact JSON, encoded once for every join


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


# ---------------------------------------------------------------------------------------------


class CompetitionService:
    def __init__(self, store: Store, matches: MatchService, clock: Callable[[], int]) -> None:
        self.db = CompetitionStore(store)
        self.matches = matches
        self.clock = clock
        self.teams: dict[str, Team] = {}
        self.officials: dict[str, Official] = {}
        self.competitions: dict[str, Competition] = {}
        self._by_match: dict[str, tuple[str, str]] = {}  # match id -> (competition id, fixture id)
        self._status: dict[tuple[str, str], str] = {}  # last status published per fixture
        self._reports: dict[str, tuple[int, dict[str, Any]]] = {}  # final matches' statistics, by seq
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        # Every write bumps the generation; a cached view is valid for one generation and the seqs of
        # its fixtures' matches (D155). Both are read and the view built under ``_lock``, which every
        # write holds around its in-memory change and its store write, so no half-made change is cached.
        self._generation = 0
        self._views: dict[str, CachedView] = {}
        self._load()

    def _write(
        self, changes: list[tuple[str, str, dict[str, Any]]], log_line: tuple[str | None, str, dict[str, Any]] | None = None
    ) -> None:
        """Store a change (``CompetitionStore.write``); every cached view is out of date from now on."""
        self._generation += 1
        self.db.write(changes, log_line)

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _load(self) -> None:
        """Read the competitions; a damaged database (D42) leaves them empty rather than stop the server."""
        try:
            self._read()
        except sqlite3.DatabaseError as exc:
            self.teams, self.officials, self.competitions = {}, {}, {}
            # The database is damaged where quick_check did not look: read-only, said on every screen (D42).
            damage = Damage(
                N_("the database file {path} cannot be read ({error}): nothing can be stored; restore the latest backup"),
                {"path": self.matches.store.path, "error": str(exc)},
            )
            self.matches.problem = self.matches.problem or damage
            log.error("the competitions cannot be read: %s", exc)

    def _read(self) -> None:
        for r in self.db.rows("teams"):
            self.teams[r["id"]] = Team(
                r["id"], r["name"], r["short"], r["color"], r["club"], r["players"], r["created_at"], r["updated_at"]
            )
        for r in self.db.rows("officials"):
            self.officials[r["id"]] = Official(r["id"], r["name"], r["club"], r["created_at"])
        for r in self.db.rows("competitions", order_by="created_at, id"):
            c = Competition(r["id"], r["name"], r["format"], r["config"], r["teams"], r["groups"], r["byes"], r["created_at"])
            self.competitions[c.id] = c
        for r in self.db.rows("fixtures", order_by="competition_id, number"):
            f = Fixture(
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
            self.competitions[r["competition_id"]].fixtures.append(f)
            for m in [*f.previous_matches, f.match_id]:
                if m:
                    self._by_match[m] = (r["competition_id"], f.id)
        for r in self.db.rows("protests", order_by="filed_at, id"):
            self.competitions[r["competition_id"]].protests.append(
                Protest(r["id"], r["fixture_id"], r["team"], r["text"], r["filed_at"], r["decision"])
            )
        for r in self.db.rows("lots", order_by="drawn_at, id"):
            self.competitions[r["competition_id"]].lots.append(LotsDrawn(r["id"], r["teams"], r["text"] or "", r["drawn_at"]))

    # -- teams (C1) ------------------------------------------------------------------------------

    def team(self, team_id: str) -> Team:
        t = self.teams.get(team_id)
        if t is None:
            raise NotFound(f"no team {team_id}")
        return t

    def _name_taken(self, name: str, but: str | None = None) -> bool:
        key = name.strip().casefold()
        return any(t.name.strip().casefold() == key and t.id != but for t in self.teams.values())

    def create_team(self, data: dict[str, Any]) -> Team:
        with self._lock:
            if self._name_taken(data["name"]):
                raise Invalid(
                    "a team of that name exists", {"name": [f"a team named {data['name']!r} exists: change it with PATCH"]}
                )
            now = utc_now()
            t = Team(_new_id(), data["name"], data["short"], data["color"], data["club"], _players(data["players"]), now, now)
            self._write([("insert", "teams", _team_row(t))], (None, "team_created", t.public()))
            self.teams[t.id] = t
            return t

    def update_team(self, team_id: str, data: dict[str, Any]) -> Team:
        with self._lock:
            t = self.team(team_id)
            if "name" in data and self._name_taken(data["name"], but=t.id):
                raise Invalid("a team of that name exists", {"name": [f"another team is named {data['name']!r}"]})
            changed = Team(**{**t.__dict__, **{k: v for k, v in data.items() if k != "players"}})
            if "players" in data:
                changed.players = _players(data["players"])
            changed.updated_at = utc_now()
            self._write([("update", "teams", _team_row(changed))], (None, "team_updated", {"id": t.id, **data}))
            self.teams[t.id] = changed
            return changed

    def import_csv(self, text: str) -> list[Team]:
        """C1: create or update teams by name from ``team,number,name,gender`` (header on line 1).

        A player with the same number is updated, new ones are added, none removed. Any bad line makes
        the whole import a 400 naming every bad line; nothing is stored then.
        """
        rows, errors = competition_csv.parse_teams(text)
        if errors:
            first = next(iter(errors))
            raise Invalid(f"{first}: {errors[first][0]}", errors)
        with self._lock:
            by_name = {t.name.strip().casefold(): t for t in self.teams.values()}
            changes: list[tuple[str, str, dict[str, Any]]] = []
            out: list[Team] = []
            now = utc_now()
            for name, players in rows.items():
                existing = by_name.get(name.strip().casefold())
                if existing is None:
                    t = Team(_new_id(), name, None, None, None, _players(players), now, now)
                    changes.append(("insert", "teams", _team_row(t)))
                else:
                    merged = {p["number"]: p for p in existing.players}
                    merged.update({p["number"]: p for p in players})
                    t = Team(**{**existing.__dict__, "players": _players(merged.values()), "updated_at": now})
                    changes.append(("update", "teams", _team_row(t)))
                if len(t.players) > 60:
                    raise Invalid(
                        "too many players", {"players": [f"team {name!r} would have {len(t.players)} players: at most 60"]}
                    )
                out.append(t)
            self._write(changes, (None, "teams_imported", {"teams": [t.name for t in out]}))
            for t in out:
                self.teams[t.id] = t
            return out

    def export_csv(self) -> str:
        """The kept teams as CSV (``team,number,name,gender``), UTF-8 with a byte-order mark as the match CSV."""
        return competition_csv.teams_csv(t.public() for t in sorted(self.teams.values(), key=lambda t: (t.created_at, t.id)))

    # -- officials -----------------------------------------------------------------------------------

    def create_official(self, data: dict[str, Any]) -> Official:
        with self._lock:
            o = Official(_new_id(), data["name"], data["club"], utc_now())
            self._write([("insert", "officials", o.__dict__.copy())], (None, "official_created", o.public()))
            self.officials[o.id] = o
            return o

    # -- competitions (C2) -------------------------------------------------------------------------

    def get(self, comp_id: str) -> Competition:
        c = self.competitions.get(comp_id)
        if c is None:
            raise NotFound(f"no competition {comp_id}")
        return c

    def create(self, data: dict[str, Any]) -> Competition:
        unknown = [t for t in data["teams"] if t not in self.teams]
        if unknown:
            raise Invalid("unknown teams", {"teams": [f"no such team: {', '.join(unknown)}"]})
        fmt = data["format"]
        try:
            p = schedule.plan(fmt, data["teams"], len(data["fields"]), data["groups"], data["advance"], data["third_place"])
        except PlanError as exc:
            raise Invalid(exc.message, {exc.field: [exc.message]}) from exc
        config = {k: v for k, v in data.items() if k not in ("name", "format", "teams")}
        if fmt != "groups_knockout":
            config.pop("groups", None)
            config.pop("advance", None)
        if fmt not in ("knockout", "groups_knockout"):
            config.pop("third_place", None)
        start = datetime.fromisoformat(data["starts_at"]) if data["starts_at"] else None
        fixtures = [
            Fixture(
                str(x.number),
                x.number,
                x.round,
                x.group or None,
                x.stage,
                x.slot,
                x.field,
                (start + timedelta(minutes=x.slot * data["slot_minutes"])).isoformat() if start else None,
                x.home,
                x.away,
            )
            for x in p.fixtures
        ]
        c = Competition(
            _new_id(),
            data["name"],
            fmt,
            config,
            list(data["teams"]),
            [[name, list(teams)] for name, teams in p.groups],
            [{"round": b.round, "team": b.team} for b in p.byes],
            datetime.now(UTC).isoformat(timespec="microseconds"),
            fixtures,
        )
        row = {
            "id": c.id,
            "name": c.name,
            "format": c.format,
            "config": c.config,
            "teams": c.teams,
            "groups": c.groups,
            "byes": c.byes,
            "created_at": c.created_at,
        }
        with self._lock:
            self._write(
                [("insert", "competitions", row), *(("insert", "fixtures", f.row(c.id)) for f in fixtures)],
                (c.id, "competition_created", {"name": c.name, "format": fmt, "teams": c.teams}),
            )
            self.competitions[c.id] = c
        return c

    # -- what is derived -------------------------------------------------------------------------

    def snapshot(self, c: Competition) -> Snapshot:
        """Teams, results and standings now, from the matches' logs and the recorded decisions."""
        outcomes = {f.id: self._outcome(f.match_id) for f in c.fixtures}
        forfeit_score = c.config["forfeit"]["score"]
        voided = frozenset(
            f.forfeit["team"] for f in c.fixtures if f.forfeit and not f.decision and c.config["forfeit"]["voids_all_results"]
        )

        def result(f: Fixture, teams: tuple[str | None, str | None]) -> Result | None:
            forfeit_by = f.forfeit["team"] if f.forfeit else None
            return standings.fixture_result(
                f.id, teams[0], teams[1], outcomes[f.id], forfeit_by, _decision(f.decision), forfeit_score
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
        winners = {f.number: r.winner for f in knockout if (r := results.get(f.id)) is not None}
        losers = {  # the third-place match's places (D76)
            f.number: lost[0]
            for f in knockout
            if (r := results.get(f.id)) is not None
            and len(lost := [t for t in teams.get(f.id, (None, None)) if t is not None and t != r.winner]) == 1
        }
        changed = {by_number[n].id: sides for n, sides in bracket.changed(planned, fixed, ranks, winners, losers).items()}
        status = {
            f.id: standings.fixture_status(
                o.phase if (o := outcomes[f.id]) else None, f.forfeit["team"] if f.forfeit else None, _decision(f.decision)
            )
            for f in c.fixtures
        }
        return Snapshot(teams, outcomes, results, status, tables, pending, voided, changed)

    def _outcome(self, match_id: str | None) -> MatchOutcome | None:
        if match_id is None or match_id not in self.matches.matches:
            return None
        s = self.matches.get(match_id).state
        assert s is not None
        so = (s.shootout.score["home"], s.shootout.score["away"]) if s.shootout is not None else None
        return MatchOutcome(s.phase, (s.score["home"], s.score["away"]), so, s.winner)

    def _facts(self, f: Fixture, snap: Snapshot) -> FixtureFacts:
        """A fixture as its rules ask about it (C6, C7, D63, D75): its teams now, its match's phase, forfeit, decision."""
        home, away = snap.teams.get(f.id, (None, None))
        o = snap.outcomes.get(f.id)
        return FixtureFacts(f.id, home, away, o.phase if o else None, f.forfeit is not None, f.decision is not None)

    def view(self, c: Competition) -> dict[str, Any]:
        """``GET /api/competitions/<id>`` (API.md, with the extras of docs/api-extras.md)."""
        snap = self.snapshot(c)
        return {
            "id": c.id,
            "name": c.name,
            "format": c.format,
            "teams": list(c.teams),
            "fixtures": [self._fixture_json(c, f, snap) for f in c.fixtures],
            "standings": self._standings_json(c, snap),
            "byes": list(c.byes),
            # Extras (docs/api-extras.md).
            "groups": {name or LEAGUE: list(members) for name, members in c.groups},
            "config": c.config,
            "team_details": {t: self._team_brief(t) for t in c.teams},
            "official_details": {o.id: o.public() for o in self._officials_of(c)},
            "lots": [x.public() for x in c.lots],
            "protests": [p.public() for p in c.protests],
            # Ties C3 leaves to lots, once the group is over (before, more results may still break them).
            "unresolved_ties": {
                k: [list(t) for t in standings.unresolved_ties(rows)] if not snap.pending[k] else []
                for k, rows in snap.tables.items()
            },
            "groups_over": {k: not n for k, n in snap.pending.items()},
            "created_at": c.created_at,
            "server_time_ms": self.clock(),
        }

    def cached_view(self, c: Competition) -> CachedView:
        """``view(c)`` built once per change (D155): a match event (its seq) or any write of the service.

        A crowd of joins (or one connection's storm) then costs a lookup each, not a rebuild of every
        fixture's derived data; while a fixture's clock runs the view is rebuilt at most every VIEW_FRESH_MS.
        """
        with self._lock:
            key = (self._generation, tuple(self._match_seq(f.match_id) for f in c.fixtures))
            now = self.clock()
            held = self._views.get(c.id)
            if held is not None and held.key == key and (not held.ticking or 0 <= now - held.at < VIEW_FRESH_MS):
                return held
            data = self.view(c)
            ticking = any(fx["live"] and fx["live"]["clock"].get("running") for fx in data["fixtures"])
            text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
            built = CachedView(key, now, ticking, data, text)
            self._views[c.id] = built
            return built

    def _match_seq(self, match_id: str | None) -> int:
        m = self.matches.matches.get(match_id) if match_id else None
        return -1 if m is None else m.seq

    def _name(self, team_id: str | None) -> str:
        t = self.teams.get(team_id or "")
        return t.name if t else "?"

    def _team_brief(self, team_id: str | None) -> dict[str, Any] | None:
        t = self.teams.get(team_id or "")
        return None if t is None else {"id": t.id, "name": t.name, "short": t.short, "color": t.color, "club": t.club}

    def _officials_of(self, c: Competition) -> list[Official]:
        ids = {o for f in c.fixtures for o in f.officials.values()}
        return [o for o in self.officials.values() if o.id in ids]

    def _fixture_json(self, c: Competition, f: Fixture, snap: Snapshot) -> dict[str, Any]:
        home, away = snap.teams.get(f.id, (None, None))
        r = snap.results.get(f.id)
        fields = c.config["fields"]
        return {
            "id": f.id,
            "round": f.round,
            "group": f.group,
            "stage": f.stage,
            "field": fields[f.field]["name"] if f.field < len(fields) else None,
            "starts_at": f.starts_at,
            "home": home,
            "away": away,
            "officials": dict(f.officials),
            "match": f.match_id,
            "status": snap.status[f.id],
            "result": None
            if r is None
            else {
                "home": r.score[0],
                "away": r.score[1],
                "shootout": None if r.shootout is None else {"home": r.shootout[0], "away": r.shootout[1]},
                "winner": r.winner,
                "forfeit_by": r.forfeit_by,
                "decided_by": r.decided_by,
            },
            "protests": [p.public() for p in c.protests if p.fixture == f.id],
            # Extras (docs/api-extras.md).
            "number": f.number,
            "slot": f.slot,
            "field_index": f.field,
            "home_from": f.home_source.label() if f.home_source.team is None else None,
            "away_from": f.away_source.label() if f.away_source.team is None else None,
            "forfeit": f.forfeit,
            "decision": f.decision,
            "previous_matches": list(f.previous_matches),
            "live": self._live(f.match_id),
            "bracket_changed": snap.changed.get(f.id, []),
        }

    def _live(self, match_id: str | None) -> dict[str, Any] | None:
        """The match as screens show it next to its fixture: phase, score, clock (extras)."""
        if match_id is None or match_id not in self.matches.matches:
            return None
        s = self.matches.state(self.matches.get(match_id), legal=False)
        return {
            "phase": s["phase"],
            "period": s["period"],
            "score": s["score"],
            "shootout": s["shootout"]["score"] if s["shootout"] else None,
            "clock": s["clock"],
            "time_up": s.get("time_up", False),
            "server_time_ms": s.get("server_time_ms"),
            "seq": s["seq"],
        }

    def standings(self, c: Competition) -> dict[str, list[dict[str, Any]]]:
        return self._standings_json(c, self.snapshot(c))

    def _standings_json(self, c: Competition, snap: Snapshot) -> dict[str, list[dict[str, Any]]]:
        decided = {f.id: f.decision for f in c.fixtures if f.decision}
        lots = {x.id: x for x in c.lots}
        out: dict[str, list[dict[str, Any]]] = {}
        for key, rows in snap.tables.items():
            over = not snap.pending[key]
            out[key] = [
                {
                    "rank": r.rank,
                    "team": r.team,
                    "name": self.teams[r.team].name if r.team in self.teams else r.team,
                    "played": r.played,
                    "won": r.won,
                    "shootout_won": r.shootout_won,
                    "shootout_lost": r.shootout_lost,
                    "lost": r.lost,
                    "goals_for": r.goals_for,
                    "goals_against": r.goals_against,
                    "goal_difference": r.goal_difference,
                    "points": r.points,
                    "note": _note(r, decided, lots, over),
                    # Extras (docs/api-extras.md): the note's parts, for pages that word them.
                    "tiebreak": None if r.tiebreak == "unresolved" and not over else r.tiebreak,
                    "lots": r.lots,
                    "forfeits": list(r.forfeits),
                    "decisions": [
                        {"fixture": fid, "by": decided[fid].get("by"), "text": decided[fid].get("text", "")}
                        for fid in r.decisions
                    ],
                }
                for r in rows
            ]
        return out

    # -- fixtures: officials (C5), the match (C1, C4), forfeits (C6) -------------------------------

    def set_officials(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        chosen = {role: oid for role, oid in data.items() if oid}
        unknown = {role: [f"no such official: {oid}"] for role, oid in chosen.items() if oid not in self.officials}
        if unknown:
            raise Invalid("unknown officials", unknown)
        with self._lock:
            snap = self.snapshot(c)
            self._check_officials(c, f, chosen, snap)
            f.officials = chosen
            self._write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "officials": chosen})],
                (c.id, "officials", {"fixture": f.id, **chosen}),
            )
        self._changed(c)
        return f

    def reschedule(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        """Move a fixture to another time and/or field (D75), before its match is made.

        ``starts_at``: ISO 8601; without an offset, the competition's (its start's). ``field``: a field's name.
        """
        fields = [fl["name"] for fl in c.config["fields"]]
        with self._lock:
            snap = self.snapshot(c)
            facts = self._facts(f, snap)
            moves.check_movable(f.number, facts.phase, facts.over)
            starts_at, field_index = f.starts_at, f.field
            if data.get("field") is not None:
                if data["field"] not in fields:
                    raise Invalid("no such field", {"field": [f"the competition's fields are {', '.join(fields)}"]})
                field_index = fields.index(data["field"])
            if data.get("starts_at") is not None:
                starts_at = _competition_time(c, data["starts_at"])
            slot_ms = int(c.config["slot_minutes"]) * 60_000
            names = {t.id: t.name for t in self.teams.values()} | {o.id: o.name for o in self.officials.values()}
            was = self._booking(c, f, snap)
            moved = self._booking(c, f, snap, starts_at, field_index)
            others = [self._booking(c, x, snap) for x in c.fixtures if x.id != f.id]
            moves.check_move(was, moved, others, slot_ms, fields, names)
            f.starts_at, f.field = starts_at, field_index
            self._write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "starts_at": starts_at, "field": field_index})],
                (c.id, "reschedule", {"fixture": f.id, "starts_at": starts_at, "field": fields[field_index]}),
            )
        self._changed(c)
        return f

    def _booking(
        self, c: Competition, f: Fixture, snap: Snapshot, starts_at: str | None = None, field_index: int | None = None
    ) -> moves.Booking:
        """A fixture as the schedule's rules see it (D75), optionally at another time and field."""
        after = moves.waits_for(f.planned(), [x.planned() for x in c.fixtures])
        outcome = self._outcome(f.match_id) if f.match_id is not None else None
        over = snap.status.get(f.id) in ("finished", "forfeit") or f.decision is not None
        return moves.Booking(
            f.number,
            f.slot,
            _ms(starts_at if starts_at is not None else f.starts_at),
            f.field if field_index is None else field_index,
            tuple(t for t in snap.teams.get(f.id, (None, None)) if t),
            tuple(sorted(f.officials.items())),
            after,
            made=over or (outcome is not None and outcome.phase != "abandoned"),
            over=over,
        )

    def _check_officials(self, c: Competition, f: Fixture, chosen: dict[str, str], snap: Snapshot) -> None:
        parties = {role: Party(o.id, o.name, o.club) for role, oid in chosen.items() if (o := self.officials.get(oid))}
        playing = [
            Party(t.id, t.name, t.club) for tid in snap.teams.get(f.id, (None, None)) if tid and (t := self.teams.get(tid))
        ]
        discipline.check_stand_aside(parties, playing)
        elsewhere: dict[str, str] = {}
        slot_ms = int(c.config["slot_minutes"]) * 60_000
        here = self._booking(c, f, snap)
        for other in c.fixtures:
            # D66 with D75: less than a slot apart (a moved fixture need not start on the same minute).
            same_time = moves.overlaps(here, self._booking(c, other, snap), slot_ms)
            if other.id != f.id and same_time and snap.status.get(other.id) not in ("finished", "forfeit"):
                for oid in other.officials.values():
                    elsewhere[oid] = other.id
        discipline.check_busy(parties, elsewhere)

    def create_match(self, c: Competition, f: Fixture, lineup: dict[str, Any]) -> Any:
        """Make the fixture's match (C1): rosters copied from the teams now, lineups checked for suspensions (C4)."""
        with self._lock:
            snap = self.snapshot(c)
            home, away = snap.teams[f.id]
            teams = {"home": self.teams.get(home or ""), "away": self.teams.get(away or "")}
            starters = c.config["match"]["starters"]
            errors: dict[str, list[str]] = {}
            for side, t in teams.items():
                if t is None:
                    continue
                roster = t.names()
                side_lineup = lineup[side]
                for key in ("starting", "players"):
                    unknown = [n for n in side_lineup.get(key) or [] if n not in roster]
                    if unknown:
                        errors[f"{side}.{key}"] = [f"not on {t.name}'s roster: {unknown}"]
                start = side_lineup["starting"]
                if len(start) != starters:
                    errors.setdefault(f"{side}.starting", []).append(f"must name exactly {starters} starters, not {len(start)}")
                if len(set(start)) != len(start):
                    errors.setdefault(f"{side}.starting", []).append("a starter is named twice")
                squad = side_lineup.get("players")
                if squad is not None and set(start) - set(squad):
                    errors.setdefault(f"{side}.players", []).append(
                        f"the starters {sorted(set(start) - set(squad))} are not in the squad"
                    )
            if errors:
                raise Invalid("the lineups do not fit the rosters", errors)
            current = self._outcome(f.match_id)
            if f.match_id is not None and current is not None and current.phase != "abandoned":
                raise Conflict(f"fixture {f.id} already has its match {f.match_id}")
            # Known here means kept: the match copies the teams' records (C1).
            known = replace(self._facts(f, snap), home=home if teams["home"] else None, away=away if teams["away"] else None)
            fixture_rules.check_match_can_be_made(known, f.home_source, f.away_source)
            active = self.suspensions(c, snap)
            labels = {x.id: " – ".join(self._name(tid) for tid in snap.teams.get(x.id, (None, None))) for x in c.fixtures}
            for side, t in teams.items():
                assert t is not None
                # The starters, and the squad when one is named (else suspended players are left off the copy).
                named = [*lineup[side]["starting"], *(lineup[side].get("players") or [])]
                discipline.check_lineup(t.name, f.id, named, t.names(), [s for s in active if s.team == t.id], labels)
            chosen = {role: oid for role, oid in f.officials.items() if oid in self.officials}
            self._check_officials(c, f, chosen, snap)
            request = self._match_request(c, f, teams, lineup, active)
            try:
                data = MatchSchema().load(request)
            except ValidationError as exc:
                raise Invalid("the match does not fit the schema", exc.normalized_messages()) from exc
            m = self.matches.create(data)
            previous = [*f.previous_matches, f.match_id] if f.match_id else list(f.previous_matches)
            self._write(
                [
                    (
                        "update",
                        "fixtures",
                        {
                            "competition_id": c.id,
                            "id": f.id,
                            "home": home,
                            "away": away,
                            "match_id": m.id,
                            "previous_matches": previous,
                        },
                    )
                ],
                (c.id, "match_created", {"fixture": f.id, "match": m.id, "lineup": lineup}),
            )
            f.home, f.away, f.match_id, f.previous_matches = home, away, m.id, previous
            self._by_match[m.id] = (c.id, f.id)
        self._changed(c)
        return m

    def _match_request(
        self, c: Competition, f: Fixture, teams: dict[str, Team | None], lineup: dict[str, Any], active: list[Suspension]
    ) -> dict[str, Any]:
        """The ``POST /api/matches`` body of a fixture: kept rosters (suspended players left out), field, rules, officials."""
        fields = c.config["fields"]
        fld = fields[f.field] if f.field < len(fields) else fields[0]
        out: dict[str, Any] = {
            "starters": c.config["match"]["starters"],
            "field": {"length": fld["length"], "width": fld["width"], "side_lines": fld["side_lines"]},
            "rules": c.config["match"]["rules"],
            "venue": f"{c.name} · {fld['name']}"[:200],
            "starts_at": f.starts_at,
            "officials": {role: self.officials[oid].name for role, oid in f.officials.items() if oid in self.officials},
        }
        for side, t in teams.items():
            assert t is not None
            out_now = {s.player for s in active if s.team == t.id and s.applies_to(f.id)}
            squad = set(lineup[side].get("players") or t.names())
            players = [
                {"number": p["number"], "name": p["name"], "gender": p.get("gender")}
                for p in sorted(t.players, key=lambda p: p["number"])
                if p["number"] in squad and p["number"] not in out_now
            ]
            team: dict[str, Any] = {"name": t.name, "players": players, "starting": list(lineup[side]["starting"])}
            if t.color:
                team["color"] = t.color
            out[side] = team
        return out

    def forfeit(self, c: Competition, f: Fixture, team: str, reason: str) -> Fixture:
        """C6: the team not ready ``after_minutes`` after the scheduled start forfeits."""
        if team not in c.teams:
            raise Invalid("not a team of this competition", {"team": [f"no team {team} in this competition"]})
        with self._lock:
            snap = self.snapshot(c)
            home, away = snap.teams[f.id]
            if home is not None and away is not None and team not in (home, away):
                raise Invalid("not a team of this fixture", {"team": [f"{self.teams[team].name} does not play fixture {f.id}"]})
            starts_at = datetime.fromisoformat(f.starts_at) if f.starts_at else None
            fixture_rules.check_forfeit(self._facts(f, snap), starts_at, c.config["forfeit"]["after_minutes"], self.clock())
            record = {"team": team, "reason": reason, "at": utc_now()}
            self._write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "forfeit": record, "home": home, "away": away})],
                (c.id, "forfeit", {"fixture": f.id, **record}),
            )
            f.forfeit, f.home, f.away = record, home, away
        self._changed(c)
        return f

    def decide_result(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        """D63: the organiser's result for a fixture whose match was abandoned, or was played without the app."""
        with self._lock:
            snap = self.snapshot(c)
            home, away = snap.teams[f.id]
            result = self._result_of(home, away, data)
            decisions.check_result_decidable(self._facts(f, snap))
            record = {**result, "by": "organiser", "protest": None, "text": data["text"], "at": utc_now()}
            self._write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "decision": record, "home": home, "away": away})],
                (c.id, "result", {"fixture": f.id, **record}),
            )
            f.decision, f.home, f.away = record, home, away
        self._changed(c)
        return f

    def _result_of(self, home: str | None, away: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """A decided result's JSON (400 on a winner that does not fit, 409 C7 while the teams are unknown)."""
        so = data.get("shootout")
        try:
            winner = decisions.decided_winner(home, away, (data["home"], data["away"]), data.get("winner"), so)
        except decisions.ResultError as exc:
            raise Invalid(exc.message, {exc.field: [exc.detail]}) from exc
        return {"home": data["home"], "away": data["away"], "winner": winner, "shootout": so}

    # -- protests (C7) and lots (C3) ---------------------------------------------------------------

    def file_protest(self, c: Competition, data: dict[str, Any]) -> Protest:
        try:
            f = c.fixture(data["fixture"])
        except NotFound as exc:
            raise Invalid("no such fixture", {"fixture": [str(exc)]}) from exc
        with self._lock:
            home, away = self.snapshot(c).teams[f.id]
            if data["team"] not in (home, away):
                raise Invalid("not a team of this fixture", {"team": [f"{data['team']} does not play fixture {f.id}"]})
            p = Protest(_new_id(), f.id, data["team"], data["text"], utc_now())
            self._write(
                [
                    (
                        "insert",
                        "protests",
                        {
                            "id": p.id,
                            "competition_id": c.id,
                            "fixture_id": f.id,
                            "team": p.team,
                            "text": p.text,
                            "filed_at": p.filed_at,
                            "decision": None,
                        },
                    )
                ],
                (c.id, "protest", p.public()),
            )
            c.protests.append(p)
        self._changed(c)
        return p

    def decide_protest(self, c: Competition, protest_id: str, data: dict[str, Any]) -> Protest:
        """C7: rejected, or upheld with a new result or a replay; the match's own log is not changed."""
        p = next((x for x in c.protests if x.id == protest_id), None)
        if p is None:
            raise NotFound(f"no protest {protest_id} in competition {c.id}")
        with self._lock:
            f = c.fixture(p.fixture)
            home, away = self.snapshot(c).teams[f.id]
            result = self._result_of(home, away, data["result"]) if data.get("result") else None
            decisions.check_protest_open(p.id, p.decision is not None)
            decision = {
                "upheld": data["upheld"],
                "text": data["text"],
                "result": result,
                "replay": data["replay"],
                "at": utc_now(),
            }
            changes: list[tuple[str, str, dict[str, Any]]] = [("update", "protests", {"id": p.id, "decision": decision})]
            fixture_change: dict[str, Any] = {}
            if result is not None:
                fixture_change = {
                    "decision": {**result, "by": "protest", "protest": p.id, "text": data["text"], "at": decision["at"]}
                }
            elif data["replay"]:
                previous = [*f.previous_matches, f.match_id] if f.match_id else list(f.previous_matches)
                fixture_change = {"match_id": None, "previous_matches": previous, "forfeit": None, "decision": None}
            if fixture_change:
                changes.append(
                    ("update", "fixtures", {"competition_id": c.id, "id": f.id, "home": home, "away": away, **fixture_change})
                )
            self._write(changes, (c.id, "protest_decided", {"protest": p.id, **decision}))
            p.decision = decision
            if fixture_change:
                f.home, f.away = home, away
                for k, v in fixture_change.items():
                    setattr(f, k, v)
        self._changed(c)
        return p

    def record_lots(self, c: Competition, data: dict[str, Any]) -> LotsDrawn:
        drawn = data["teams"]
        unknown = [t for t in drawn if t not in c.teams]
        if unknown:
            raise Invalid("not teams of this competition", {"teams": [f"not in this competition: {', '.join(unknown)}"]})
        group = next(((name, members) for name, members in c.groups if set(drawn) <= set(members)), None)
        if group is None:
            raise Invalid("teams of different groups", {"teams": ["lots are drawn among teams of one group"]})
        with self._lock:
            snap = self.snapshot(c)
            name, members = group
            key = name or LEAGUE
            counted = [r for f in c.fixtures if f.stage == "group" and (f.group or "") == name and (r := snap.results.get(f.id))]
            standings.check_lots([t for t in members if t not in snap.voided], counted, c.points, drawn, snap.pending[key])
            x = LotsDrawn(_new_id(), list(drawn), data["text"], utc_now())
            self._write(
                [
                    (
                        "insert",
                        "lots",
                        {"id": x.id, "competition_id": c.id, "teams": x.teams, "text": x.text, "drawn_at": x.drawn_at},
                    )
                ],
                (c.id, "lots", x.public()),
            )
            c.lots.append(x)
        self._changed(c)
        return x

    # -- discipline (C4) and statistics ------------------------------------------------------------

    def suspensions(self, c: Competition, snap: Snapshot | None = None) -> list[Suspension]:
        """Every suspension (C4); one of a player not on the kept roster has a negative ``player`` (D74)."""
        return self._suspensions(c, snap)[0]

    def _suspensions(self, c: Competition, snap: Snapshot | None = None) -> tuple[list[Suspension], dict[int, tuple[str, int]]]:
        snap = snap or self.snapshot(c)
        order = sorted(c.fixtures, key=schedule_order)  # served in the order they are played (D65, D75)
        by_team: dict[str, list[Appearance]] = {t: [] for t in c.teams}
        # Players not on the kept roster (added in a match, M2): negative keys, never a kept shirt number.
        outside: dict[tuple[str, str], int] = {}
        names: dict[int, tuple[str, int]] = {}  # such a key → (name, number in his match)
        for f in order:
            for side, tid in zip(("home", "away"), snap.teams.get(f.id, (None, None)), strict=True):
                if tid is None or tid not in by_team:
                    continue
                forfeit_by = f.forfeit["team"] if f.forfeit and not f.decision else None
                if forfeit_by == tid:
                    standing = "forfeited"
                elif snap.results.get(f.id) is not None or snap.status[f.id] in ("finished", "abandoned", "forfeit"):
                    standing = "served"
                else:
                    standing = "pending"
                cards: dict[int, Cards] = {}
                roster = self.teams[tid].names() if tid in self.teams else {}
                for mid in [*f.previous_matches, f.match_id]:  # cards stand even when the result is replaced (D67)
                    for row in self._player_rows(mid, side):
                        got = Cards.from_counts(row["yellow"], row["red"])
                        if got.yellow or got.red:
                            # D74: who he is on the kept roster now, by the number he started the match
                            # with and his name; a late player not on it counts under a key of his own.
                            first = row["numbers"][0] if row.get("numbers") else row["number"]
                            key = discipline.kept_number(first, row["name"], row["added"], roster)
                            if key is None:
                                key = outside.setdefault((tid, " ".join(row["name"].split()).casefold()), -1 - len(outside))
                                names[key] = (row["name"], row["number"])
                            prev = cards.get(key, Cards())
                            cards[key] = Cards(prev.yellow + got.yellow, prev.red + got.red)
                by_team[tid].append(Appearance(f.id, standing, cards))  # type: ignore[arg-type]
        return discipline.suspensions(by_team, c.discipline), names

    def suspensions_json(self, c: Competition) -> list[dict[str, Any]]:
        out = []
        suspensions, outside = self._suspensions(c)
        for s in suspensions:
            t = self.teams.get(s.team)
            name, number = outside.get(s.player, ("", s.player))
            out.append(
                {
                    "team": s.team,
                    "player": number,
                    "reason": s.reason,
                    "from_fixture": s.from_fixture,
                    "remaining": s.remaining,
                    # Extras (docs/api-extras.md).
                    "name": name or (t.names().get(s.player, "") if t else ""),
                    "matches": s.matches,
                    "covers": list(s.covers),
                    "on_roster": s.player >= 0,  # D74: a late player not on the kept roster bars nobody there
                }
            )
        return out

    def _player_rows(self, match_id: str | None, side: str) -> list[dict[str, Any]]:
        report = self._report(match_id)
        if report is None:
            return []
        rows: list[dict[str, Any]] = report["stats"]["players"][side]
        lineup = {p["number"]: p for p in report["lineups"][side]["players"]}
        return [
            {
                **r,
                "appeared": bool(lineup.get(r["number"], {}).get("intervals")),
                "added": lineup.get(r["number"], {}).get("added_seq") is not None,  # a late player (M2)
            }
            for r in rows
        ]

    def _report(self, match_id: str | None) -> dict[str, Any] | None:
        """The match's report data (reports/stats.py); cached by seq once the match is over."""
        if match_id is None or match_id not in self.matches.matches:
            return None
        from qalisball.reports.stats import build_report

        m = self.matches.get(match_id)
        cached = self._reports.get(match_id)
        if cached is not None and cached[0] == m.seq:
            return cached[1]
        log = m.log
        report = build_report(m.id, m.data, m.setup, log, now=self.clock(), created_at=m.created_at)
        if m.state is not None and m.state.phase in FINAL_PHASES:
            self._reports[match_id] = (log[-1].seq if log else 0, report)
        return report

    def stats(self, c: Competition) -> list[dict[str, Any]]:
        """Player statistics over the competition's matches (those whose result counts, not replaced ones)."""
        snap = self.snapshot(c)
        rows: dict[tuple[str, int], dict[str, Any]] = {}
        for f in c.fixtures:
            for side, tid in zip(("home", "away"), snap.teams.get(f.id, (None, None)), strict=True):
                if tid is None:
                    continue
                for r in self._player_rows(f.match_id, side):
                    key = (tid, r["number"])
                    row = rows.setdefault(
                        key,
                        {
                            "team": tid,
                            "number": r["number"],
                            "name": r["name"],
                            "matches": 0,
                            "played_ms": 0,
                            "goals": 0,
                            "shootout_goals": 0,
                            "fouls": 0,
                            "yellow": 0,
                            "red": 0,
                        },
                    )
                    row["matches"] += 1 if r["appeared"] else 0
                    row["played_ms"] += r["played_ms"]
                    row["goals"] += r["goals"]
                    row["shootout_goals"] += r["shootout_scored"]
                    row["fouls"] += r["fouls"]
                    row["yellow"] += r["yellow"]
                    row["red"] += r["red"]
        for (tid, number), row in rows.items():
            t = self.teams.get(tid)
            row["name"] = (t.names().get(number) if t else None) or row["name"]
            row["team_name"] = t.name if t else tid
        out = [
            {
                "team": r["team"],
                "number": r["number"],
                "name": r["name"],
                "matches": r["matches"],
                "minutes": (r["played_ms"] + 30_000) // 60_000,
                "goals": r["goals"],
                "shootout_goals": r["shootout_goals"],
                "fouls": r["fouls"],
                "yellow": r["yellow"],
                "red": r["red"],
                "team_name": r["team_name"],
            }
            for r in rows.values()
        ]
        return sorted(out, key=lambda r: (-r["goals"], -r["shootout_goals"], r["team_name"], r["number"]))

    # -- live ----------------------------------------------------------------------------------------

    def on_match_event(self, match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        """The match service's publisher: a fixture's live score, and the whole view when results change.

        Called after the event is committed and answered for: a failure here is logged and never turns
        an accepted event into an error for the official.
        """
        try:
            self._on_match_event(match_id)
        except Exception:  # the match's event is stored; only the screens miss an update
            log.exception("competition update after an event of match %s failed", match_id)

    def _on_match_event(self, match_id: str) -> None:
        where = self._by_match.get(match_id)
        if where is None:
            return
        c = self.competitions.get(where[0])
        if c is None:
            return
        f = c.fixture(where[1])
        if f.match_id != match_id:
            return  # a replaced match: its events no longer count
        live = self._live(match_id)
        self._emit(c.id, "fixture", {"competition": c.id, "fixture": f.id, "match": match_id, "live": live})
        outcome = self._outcome(match_id)
        key = (c.id, f.id)
        status = standings.fixture_status(
            outcome.phase if outcome else None, f.forfeit["team"] if f.forfeit else None, _decision(f.decision)
        )
        if status != self._status.get(key) or status in ("finished", "abandoned"):
            self._status[key] = status
            self._changed(c)

    def _changed(self, c: Competition) -> None:
        if self._listeners:  # the cached view: the joins that follow reuse it
            self._emit(c.id, "competition", self.cached_view(c).data)

    def _emit(self, comp_id: str, kind: str, payload: dict[str, Any]) -> None:
        for listener in self._listeners:
            listener(comp_id, kind, payload)


# ---------------------------------------------------------------------------------------------
# Helpers


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


def _players(players: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        ({"number": p["number"], "name": p["name"], "gender": p.get("gender")} for p in players), key=lambda p: p["number"]
    )


def _team_row(t: Team) -> dict[str, Any]:
    return dict(t.__dict__)


def _decision(d: dict[str, Any] | None) -> Decision | None:
    if not d:
        return None
    so = d.get("shootout")
    return Decision((d["home"], d["away"]), d["winner"], (so["home"], so["away"]) if so else None, d.get("by", "protest"))


def _note(r: Row, decided: dict[str, dict[str, Any]], lots: dict[str, LotsDrawn], over: bool) -> str:
    """The standings row's note (API.md ``note``): what broke a tie, forfeits, decisions, in English."""
    parts: list[str] = []
    words = {
        "head_to_head": "ranked by head-to-head points",
        "goal_difference": "ranked by goal difference",
        "goals_for": "ranked by goals scored",
        "unresolved": "level: a drawing of lots is needed",
    }
    if r.tiebreak == "lots" and r.lots in lots:
        text = lots[r.lots].text
        parts.append("ranked by a drawing of lots" + (f" ({text})" if text else ""))
    elif r.tiebreak in words and (over or r.tiebreak != "unresolved"):
        parts.append(words[r.tiebreak])
    for fid in r.forfeits:
        parts.append(f"forfeited fixture {fid}")
    for fid in r.decisions:
        d = decided.get(fid) or {}
        who = "protest upheld" if d.get("by") == "protest" else "result decided by the organiser"
        parts.append(f"fixture {fid}: {who}" + (f": {d['text']}" if d.get("text") else ""))
    return "; ".join(parts)


def schedule_order(f: Fixture) -> tuple[float, int, int]:
    """When a fixture is played (D65, D75): its start, else its slot."""
    return moves.order_key(_ms(f.starts_at), f.slot, f.number)


def _ms(iso: str | None) -> int | None:
    return int(datetime.fromisoformat(iso).timestamp() * 1000) if iso else None


def _competition_time(c: Competition, text: str) -> str:
    """``text`` as an ISO 8601 time with an offset: one without takes the competition's start's offset."""
    try:
        at = datetime.fromisoformat(text)
    except ValueError as exc:
        raise Invalid("not a time", {"starts_at": ["an ISO 8601 time, such as 2026-12-05T14:40+08:00"]}) from exc
    start = c.config.get("starts_at")
    if not start:
        raise Invalid(
            "no times", {"starts_at": ["the competition has no start time: its fixtures keep slots, and move fields only"]}
        )
    zone = datetime.fromisoformat(start).tzinfo
    # Kept in the competition's time zone whatever offset it was given in: pages print its hours as they are.
    return (at.replace(tzinfo=zone) if at.tzinfo is None else at.astimezone(zone)).isoformat()
