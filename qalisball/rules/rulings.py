"""What the engine ruled on one event, as it ruled it: the decisions of the rule book, recorded.

The engine records a ruling where it makes the decision (``engine._rule``), never after: a restart
awarded with its rule and why, an error forgiven by a multiple attack opportunity, a penalty converted,
a sending-off, a shootout kick. Each replay step carries the rulings of its event in the order they were
made (``engine.Step.rulings``), so that the reports count them rather than work them out again from the
states on either side of the event. Values only: no I/O, nothing here changes a state.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .common import Team
from .field import Point
from .restart_values import Restart, Why


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
    """10.8, the 3 m rule: the free kick is taken from ``spot``, moved out from ``origin`` (where the call was);
    ``rule``: the rule the match's book cites for it (1.0: V1-6's 2 m)."""

    team: Team
    origin: Point
    spot: Point
    rule: str = "10.8"


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


@dataclass(frozen=True)
class RuledAgain:
    """D8: a correction (void, amend, insert) decided a later call of the log again: event ``seq`` is now
    ruled ``rulings`` (stored with the correction, so that its replay folds them rather than decide again)."""

    seq: int
    rulings: tuple[Ruling, ...]

    rule = "D8"


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
    | RuledAgain
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


# --------------------------------------------------------------------------------------------
# Rulings as the log stores and API.md shows them: ``{"kind", "rule", ...its facts}`` (issue 28)

_RULE_OF_KIND = {"error_forgiven": "13.1", "goal_counted": "7.1", "penalty_converted": "10.8", "penalty_missed": "10.8"}
_RULE_OF_KIND |= {"cautioned": "9.3", "sent_off": "9.3", "left_injured": "11.3", "shootout_kick_taken": "12.2"}
_RESTART_KINDS = {"restart_awarded": RestartAwarded, "restart_stands": RestartStands, "restart_taken": RestartTaken}
_PLAIN_KINDS = {
    "free_kick_moved": FreeKickMoved,
    "goal_counted": GoalCounted,
    "penalty_converted": PenaltyConverted,
    "penalty_missed": PenaltyMissed,
    "cautioned": Cautioned,
    "sent_off": SentOff,
    "left_injured": LeftInjured,
    "shootout_kick_taken": ShootoutKickTaken,
}
KINDS: dict[type, str] = {cls: kind for kind, cls in {**_RESTART_KINDS, **_PLAIN_KINDS}.items()}
KINDS |= {ErrorForgiven: "error_forgiven", RuledAgain: "ruled_again"}


def _restart_json(r: Restart) -> dict[str, Any]:
    out: dict[str, Any] = {"type": r.type, "team": r.team, "spot": _xy(r.spot), "end": r.end}
    if r.origin is not None:
        out["origin"] = _xy(r.origin)
    if r.why is not None:
        out["why"] = {"rule": r.why.rule, "reason": r.why.template, "params": dict(r.why.params)}
    return out


def _restart(d: dict[str, Any]) -> Restart:
    why = d.get("why")
    return Restart(
        d["type"],
        d["team"],
        _point(d["spot"]),
        d.get("end"),
        Why(why["rule"], why["reason"], tuple(why["params"].items())) if why is not None else None,
        _point(d["origin"]) if d.get("origin") is not None else None,
    )


def _xy(p: Point) -> dict[str, float]:
    return {"x": p.x, "y": p.y}  # as the state's spots (API.md)


def _point(d: dict[str, float]) -> Point:
    return Point(d["x"], d["y"])


def to_json(r: Ruling) -> dict[str, Any]:
    """One ruling as the log stores it and API.md shows it: its ``kind``, the ``rule`` and its facts (a restart's
    ``type``, ``team``, ``spot``, its ``end``, the ``origin`` of a moved free kick and ``why`` it was given)."""
    kind = KINDS[type(r)]
    if isinstance(r, RuledAgain):
        return {"kind": kind, "rule": r.rule, "seq": r.seq, "rulings": [to_json(x) for x in r.rulings]}
    if isinstance(r, RestartAwarded | RestartStands | RestartTaken):
        rule = r.rule if not isinstance(r, RestartTaken) else (r.restart.why.rule if r.restart.why else "10.1")
        out = {"kind": kind, "rule": rule, **_restart_json(r.restart)}
        if isinstance(r, RestartAwarded):
            out["retake"] = r.retake
        if isinstance(r, RestartTaken):
            out["player"] = r.player
        return out
    if isinstance(r, ErrorForgiven):
        restart = _restart_json(r.restart)
        return {"kind": kind, "rule": "13.1", "team": r.team, "player": r.player, "left": r.left, "restart": restart}
    facts = {f.name: getattr(r, f.name) for f in fields(r) if f.name != "rule"}
    for name in ("origin", "spot"):
        if isinstance(facts.get(name), Point):
            facts[name] = _xy(facts[name])
    return {"kind": kind, "rule": getattr(r, "rule", _RULE_OF_KIND.get(kind, "")), **facts}


def from_json(d: dict[str, Any]) -> Ruling:
    """The ruling ``to_json`` wrote (the log's ``rulings`` column)."""
    kind = d["kind"]
    if kind == "ruled_again":
        return RuledAgain(int(d["seq"]), tuple(from_json(x) for x in d["rulings"]))
    if kind == "restart_awarded":
        return RestartAwarded(_restart(d), bool(d.get("retake", False)))
    if kind == "restart_stands":
        return RestartStands(_restart(d), d["rule"])
    if kind == "restart_taken":
        return RestartTaken(_restart(d), d.get("player"))
    if kind == "error_forgiven":
        return ErrorForgiven(d["team"], d.get("player"), int(d["left"]), _restart(d["restart"]))
    cls = _PLAIN_KINDS[kind]
    facts = {f.name: d[f.name] for f in fields(cls) if f.name in d}
    for name in ("origin", "spot"):
        if name in facts:
            facts[name] = _point(facts[name])
    return cls(**facts)  # type: ignore[no-any-return]


def own(rulings: tuple[Ruling, ...]) -> tuple[Ruling, ...]:
    """An entry's own rulings, without the later calls a correction ruled again (``RuledAgain``)."""
    return tuple(r for r in rulings if not isinstance(r, RuledAgain))
