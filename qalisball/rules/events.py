"""One small frozen dataclass per event type of API.md's event table.

The API validates the JSON (schemas.py) and builds these; the engine only ever sees them. The
class attribute ``type`` is the API's name for the event. ``from_fields`` rebuilds an event from
the stored JSON fields, so a replay reads exactly what was accepted.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from .common import End, Side, Team

Spot = tuple[float, float]

# The violation kinds are listed in the catalogue (catalogue.VIOLATION_KINDS), checked where events enter.
ViolationKind = str
FoulWhere = Literal["field", "beyond_end_line", "beyond_side_line"]
CardColor = Literal["yellow", "red"]
ClockAction = Literal["pause", "resume", "set"]


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = ""

    def fields(self) -> dict[str, Any]:
        """The event's fields as JSON-ready data (spots as {"x", "y"})."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            name = "in" if f.name == "in_" else f.name
            if f.name in ("spot",) and value is not None:
                value = {"x": value[0], "y": value[1]}
            if f.name == "takers":
                value = {team: list(numbers) for team, numbers in value}
            out[name] = value
        return out


@dataclass(frozen=True)
class CoinToss(Event):
    type: ClassVar[str] = "coin_toss"
    kickoff: Team
    home_end: End


@dataclass(frozen=True)
class PeriodStart(Event):
    type: ClassVar[str] = "period_start"


@dataclass(frozen=True)
class PeriodEnd(Event):
    type: ClassVar[str] = "period_end"


@dataclass(frozen=True)
class ClockChange(Event):
    type: ClassVar[str] = "clock"
    action: ClockAction
    elapsed_ms: int | None = None


@dataclass(frozen=True)
class RestartTaken(Event):
    type: ClassVar[str] = "restart_taken"
    team: Team
    player: int | None = None  # needed only where a rule names the taker (10.8 penalty, 11.2)


@dataclass(frozen=True)
class Goal(Event):
    type: ClassVar[str] = "goal"
    team: Team
    player: int | None = None
    direct: bool = False


@dataclass(frozen=True)
class Violation(Event):
    type: ClassVar[str] = "violation"
    kind: ViolationKind
    team: Team
    player: int | None = None
    spot: Spot | None = None
    side: Side = "low"


@dataclass(frozen=True)
class Foul(Event):
    type: ClassVar[str] = "foul"
    team: Team
    player: int | None = None
    spot: Spot | None = None
    where: FoulWhere = "field"
    on_official: bool = False
    card: CardColor | None = None


@dataclass(frozen=True)
class Card(Event):
    type: ClassVar[str] = "card"
    team: Team
    player: int
    color: CardColor


@dataclass(frozen=True)
class Substitution(Event):
    type: ClassVar[str] = "substitution"
    team: Team
    out: int | None
    in_: int


@dataclass(frozen=True)
class Injury(Event):
    type: ClassVar[str] = "injury"
    team: Team
    player: int
    spot: Spot | None = None


@dataclass(frozen=True)
class Steal(Event):
    type: ClassVar[str] = "steal"
    team: Team
    player: int | None = None


@dataclass(frozen=True)
class Catch(Event):
    type: ClassVar[str] = "catch"
    team: Team
    player: int | None = None
    caught: int | None = None


@dataclass(frozen=True)
class Attack(Event):
    type: ClassVar[str] = "attack"
    team: Team


@dataclass(frozen=True)
class ShotMissed(Event):
    type: ClassVar[str] = "shot_missed"
    team: Team
    player: int | None = None
    spot: Spot | None = None


@dataclass(frozen=True)
class ShootoutStart(Event):
    type: ClassVar[str] = "shootout_start"
    first: Team
    # A tuple of (team, takers) pairs keeps the event hashable and frozen.
    takers: tuple[tuple[Team, tuple[int, ...]], ...]

    def takers_of(self, team: Team) -> tuple[int, ...]:
        return dict(self.takers)[team]


@dataclass(frozen=True)
class ShootoutKick(Event):
    type: ClassVar[str] = "shootout_kick"
    team: Team
    scored: bool


@dataclass(frozen=True)
class Abandon(Event):
    type: ClassVar[str] = "abandon"
    reason: str


@dataclass(frozen=True)
class Void(Event):
    type: ClassVar[str] = "void"
    target: int
    reason: str = ""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        CoinToss,
        PeriodStart,
        PeriodEnd,
        ClockChange,
        RestartTaken,
        Goal,
        Violation,
        Foul,
        Card,
        Substitution,
        Injury,
        Steal,
        Catch,
        Attack,
        ShotMissed,
        ShootoutStart,
        ShootoutKick,
        Abandon,
        Void,
    )
}


def from_fields(event_type: str, fields: dict[str, Any]) -> Event:
    """Build an event from validated JSON fields (the inverse of ``Event.fields``)."""
    cls = EVENT_TYPES[event_type]
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        name = "in" if f.name == "in_" else f.name
        if name not in fields:
            continue
        value = fields[name]
        if f.name == "spot" and value is not None:
            value = (float(value["x"]), float(value["y"]))
        if f.name == "takers":
            value = tuple((team, tuple(value[team])) for team in ("home", "away"))
        kwargs[f.name] = value
    return cls(**kwargs)
