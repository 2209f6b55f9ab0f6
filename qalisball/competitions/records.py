"""A competition's records as the service keeps them in memory (SPEC §10): kept teams and officials,
competitions with their fixtures, protests and drawings of lots; the service's errors; small helpers.

Plain data: what a fixture's result, status or teams are now is derived (``book.CompetitionBook.snapshot``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from qalisball.match.service import NotFound
from qalisball.rules.competition import moves
from qalisball.rules.competition.discipline import Discipline
from qalisball.rules.competition.schedule import Planned, Source
from qalisball.rules.competition.standings import Decision, Points

ROLES = ("referee", "assistant1", "assistant2", "scorer")
FINAL_PHASES = ("finished", "abandoned")
LEAGUE = "all"  # the standings key of a competition without groups (API.md)


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
    moves: int = 0  # times moved to another time or field (D75): a calendar's SEQUENCE (D280), from competition_log

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


# A decision's what-if as the protest report prints it (D251), computed once when the decision is stored;
# kept in the stored decision, never in the API's answers (they carry the what-if's request only).
WHAT_IF_RECORD = "what_if_record"


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
            "decision": None if self.decision is None else {k: v for k, v in self.decision.items() if k != WHAT_IF_RECORD},
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

    def row(self) -> dict[str, Any]:
        """The competition's own row as stored (``competitions``)."""
        return {
            "id": self.id,
            "name": self.name,
            "format": self.format,
            "config": self.config,
            "teams": self.teams,
            "groups": self.groups,
            "byes": self.byes,
            "created_at": self.created_at,
        }

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


# ---------------------------------------------------------------------------------------------
# Helpers


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def sorted_players(players: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        ({"number": p["number"], "name": p["name"], "gender": p.get("gender")} for p in players), key=lambda p: p["number"]
    )


def team_row(t: Team) -> dict[str, Any]:
    return dict(t.__dict__)


def as_decision(d: dict[str, Any] | None) -> Decision | None:
    if not d:
        return None
    so = d.get("shootout")
    return Decision((d["home"], d["away"]), d["winner"], (so["home"], so["away"]) if so else None, d.get("by", "protest"))


def schedule_order(f: Fixture) -> tuple[float, int, int]:
    """When a fixture is played (D65, D75): its start, else its slot."""
    return moves.order_key(to_ms(f.starts_at), f.slot, f.number)


def to_ms(iso: str | None) -> int | None:
    return int(datetime.fromisoformat(iso).timestamp() * 1000) if iso else None
