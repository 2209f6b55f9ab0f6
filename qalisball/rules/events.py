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
        """The event's fields as JSON-ready data (spots as {"x", "y"}; ``in_`` and ``as_`` as ``in``, ``as``)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in ("spot",) and value is not None:
                value = {"x": value[0], "y": value[1]}
            elif f.name == "takers":
                value = {team: list(numbers) for team, numbers in value}
            elif dataclasses.is_dataclass(value) and not isinstance(value, type):
                value = {k: v for k, v in dataclasses.asdict(value).items() if v is not None or k in ("number", "name")}
            out[f.name.rstrip("_")] = value
        return out


@dataclass(frozen=True)
class Reason:
    """Why a card was shown (SPEC M7): a misconduct code of the catalogue and free text."""

    code: str | None = None
    text: str | None = None


@dataclass(frozen=True)
class NewPlayer:
    """A late player added to a roster (SPEC M2)."""

    number: int
    name: str
    gender: str | None = None


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
    reason: Reason | None = None  # the card's reason (M7)


@dataclass(frozen=True)
class Card(Event):
    type: ClassVar[str] = "card"
    team: Team
    player: int
    color: CardColor
    reason: Reason | None = None  # M7


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


# --- The match day (SPEC §9) -------------------------------------------------------------------


@dataclass(frozen=True)
class RosterChange(Event):
    """M2: add a late player (``add``), or rename / renumber ``player``."""

    type: ClassVar[str] = "roster"
    team: Team
    add: NewPlayer | None = None
    player: int | None = None
    name: str | None = None
    number: int | None = None


@dataclass(frozen=True)
class Note(Event):
    """M7: a note of the referee's report, about the match, an event, a team or a player."""

    type: ClassVar[str] = "note"
    text: str
    about: int | None = None
    team: Team | None = None
    player: int | None = None
    code: str | None = None


@dataclass(frozen=True)
class Confirm(Event):
    """M6: the main referee confirms the score of a period that has ended (1, 2 or the shootout)."""

    type: ClassVar[str] = "confirm"
    period: int | str


@dataclass(frozen=True)
class Sign(Event):
    """M6: a signature on the score sheet; the main referee's locks the match."""

    type: ClassVar[str] = "sign"
    as_: str
    name: str
    signature: str | None = None


@dataclass(frozen=True)
class Reopen(Event):
    """M6: the organiser reopens a signed match, with a reason."""

    type: ClassVar[str] = "reopen"
    reason: str


@dataclass(frozen=True)
class Amend(Event):
    """M3: replace event ``target`` by ``event`` (a whole event body); the replay puts it in the target's place."""

    type: ClassVar[str] = "amend"
    target: int
    event: dict[str, Any]
    reason: str = ""


@dataclass(frozen=True)
class Insert(Event):
    """M3: add a missed event right after event ``after`` (0: before the first)."""

    type: ClassVar[str] = "insert"
    after: int
    event: dict[str, Any]
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
        RosterChange,
        Note,
        Confirm,
        Sign,
        Reopen,
        Amend,
        Insert,
    )
}
# Nested objects of the stored JSON, by field name.
_NESTED: dict[str, type[Reason] | type[NewPlayer]] = {"reason": Reason, "add": NewPlayer}


def from_fields(event_type: str, fields: dict[str, Any]) -> Event:
    """Build an event from validated JSON fields (the inverse of ``Event.fields``)."""
    cls = EVENT_TYPES[event_type]
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        name = f.name.rstrip("_")
        if name not in fields:
            continue
        value = fields[name]
        if f.name == "spot" and value is not None:
            value = (float(value["x"]), float(value["y"]))
        elif f.name == "takers":
            value = tuple((team, tuple(value[team])) for team in ("home", "away"))
        elif f.name in _NESTED and isinstance(value, dict):
            value = _NESTED[f.name](**value)
        kwargs[f.name] = value
    return cls(**kwargs)
