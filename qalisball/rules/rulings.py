"""What the engine ruled on one event, as it ruled it: the decisions of the rule book, recorded.

The engine records a ruling where it makes the decision (``engine._rule``), never after: a restart
awarded with its rule and why, an error forgiven by a multiple attack opportunity, a penalty converted,
a sending-off, a shootout kick. Each replay step carries the rulings of its event in the order they were
made (``engine.Step.rulings``), so that the reports count them rather than work them out again from the
states on either side of the event. Values only: no I/O, nothing here changes a state.
"""

from __future__ import annotations

from dataclasses import dataclass

from .common import Team
from .field import Point
from .state import Restart


@dataclass(frozen=True)
class RestartAwarded:
    """A restart given to a team (10; 5.1 and 5.3 for kickoffs): its type, team, spot and end, and in
    ``restart.why`` the rule and the reason. ``retake``: the attack of a team whose error was forgiven
    starts again (13.1) — the ball was in play, so this is a restart, but not a new award to count."""

    restart: Restart
    retake: bool = False

    @property
    def rule(self) -> str:
        return self.restart.why.rule if self.restart.why is not None else ""


@dataclass(frozen=True)
class RestartStands:
    """The pending restart is left as it was: a foul by the defending team (9.2), an injury at a dead ball
    (11.3), a card after time up (D21), a forgiven error in taking it (13.1)."""

    restart: Restart
    rule: str


@dataclass(frozen=True)
class FreeKickMoved:
    """10.8, the 3 m rule: the free kick is taken from ``spot``, moved out from ``origin`` (where the call was)."""

    team: Team
    origin: Point
    spot: Point


@dataclass(frozen=True)
class ErrorForgiven:
    """13.1: ``team``'s error is forgiven and one multiple attack opportunity used (``left`` remain to the
    holder: the team, or ``player`` when players hold them); the attack restarts with ``restart``."""

    team: Team
    player: int | None
    left: int
    restart: Restart


@dataclass(frozen=True)
class RestartTaken:
    """The pending ``restart`` is taken (10.1), by ``player`` when named; the ball is in play."""

    restart: Restart
    player: int | None


@dataclass(frozen=True)
class GoalCounted:
    """7.1: a goal for ``team`` stands (a bottle knocked down straight from an end-line ball is refused, 10.4)."""

    team: Team
    player: int | None
    direct: bool


@dataclass(frozen=True)
class PenaltyConverted:
    """10.8: the penalty ``taker`` took is converted: its team scored before the ball was dead again and
    before the other team had the ball."""

    team: Team
    taker: int | None
    scorer: int | None


@dataclass(frozen=True)
class PenaltyMissed:
    """10.8: the penalty ``taker`` took ended without its team scoring (the ball dead, or the other team's)."""

    team: Team
    taker: int | None


@dataclass(frozen=True)
class Cautioned:
    """9.3: a yellow card to ``player`` (a second one is also ``SentOff`` with ``second_yellow``)."""

    team: Team
    player: int


@dataclass(frozen=True)
class SentOff:
    """9.3, D5: ``player`` is sent off for the rest of the match, by a red card or a second yellow
    (``second_yellow``, shown as a sending-off, M8); ``from_field`` when he was on the field (his team may
    bring a player on for him, 11.2), not on the bench."""

    team: Team
    player: int
    second_yellow: bool
    from_field: bool


@dataclass(frozen=True)
class LeftInjured:
    """11.3: the injured ``player`` leaves the field."""

    team: Team
    player: int


@dataclass(frozen=True)
class ShootoutKickTaken:
    """12.2: a shootout kick by ``team``'s ``player`` (the engine's order of takers), worth ``points``."""

    team: Team
    player: int
    round: int
    points: int
    scored: bool


Ruling = (
    RestartAwarded
    | RestartStands
    | FreeKickMoved
    | ErrorForgiven
    | RestartTaken
    | GoalCounted
    | PenaltyConverted
    | PenaltyMissed
    | Cautioned
    | SentOff
    | LeftInjured
    | ShootoutKickTaken
)


@dataclass(frozen=True)
class PenaltyInPlay:
    """A penalty taken whose attack goes on (10.8): converted by a goal of its team before the ball is dead
    or the other team has it (docs/reports.md)."""

    team: Team
    taker: int | None


def restart_ruled(rulings: tuple[Ruling, ...]) -> Restart | None:
    """The restart an event left pending, as the engine ruled it (awarded, or left standing), if it ruled one."""
    for r in reversed(rulings):
        if isinstance(r, RestartAwarded | RestartStands):
            return r.restart
    return None
