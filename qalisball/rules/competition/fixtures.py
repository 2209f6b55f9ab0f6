"""What may be done with a fixture now (SPEC C2, C6, C7; D69, D73): making its match and declaring a forfeit.

Pure: the service gathers the facts of a fixture (``FixtureFacts``: its teams known now, its current
match's phase, whether it was forfeited or decided) and stores the change only when these checks pass.
Each refusal is a ``RuleViolation`` naming the rule, worded as the API answers it (409 ``rule``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..errors import N_, RuleViolation
from ..state import BOOKS
from .schedule import Source


@dataclass(frozen=True)
class FixtureFacts:
    """A fixture as its rules ask about it, gathered by the service from its records and its match."""

    id: str  # how refusals name it (API.md's fixture id)
    home: str | None  # the teams known now (None: a knockout place not filled yet)
    away: str | None
    phase: str | None  # its current match's phase; None while it has no match
    forfeited: bool = False  # a forfeit was declared (C6)
    decided: bool = False  # a result was decided: by the organiser (D63) or a protest (C7)

    @property
    def teams_known(self) -> bool:
        return self.home is not None and self.away is not None

    @property
    def over(self) -> bool:
        """Played, forfeited or decided: its result no longer comes from a match still to play (D75)."""
        return self.decided or self.forfeited or self.phase == "finished"


def shootout_on_draw(rule_set: str, stage: str) -> bool:
    """C2 with V1-D2: a knockout fixture needs a winner. Under a rule book without a shootout (1.0), where a
    level match is a draw, a knockout fixture's match is created with ``shootout_on_draw``; a group match
    keeps its draws, and a rule book with a shootout (2.0) never needs it."""
    book = BOOKS.get(rule_set)  # type: ignore[call-overload]
    return book is not None and not book.shootout and stage != "group"


def check_match_can_be_made(fx: FixtureFacts, home_source: Source, away_source: Source) -> None:
    """C1 with C2, C6, C7: a fixture gets a match while nothing else has settled it and both its teams are known.

    (A match already made and not abandoned is a 409 ``conflict`` the service answers first, D73.)
    """
    if fx.decided:
        raise RuleViolation(
            "C7",
            N_("fixture {fixture} has a decided result: a replay is ordered by a protest decision"),
            {"fixture": fx.id},
        )
    if fx.forfeited:
        raise RuleViolation("C6", N_("fixture {fixture} was forfeited: it has no match"), {"fixture": fx.id})
    if not fx.teams_known:
        raise RuleViolation(
            "C2",
            N_("the teams of fixture {fixture} are not known yet ({home} v {away})"),
            {"fixture": fx.id, "home": home_source.label(), "away": away_source.label()},
        )


def check_forfeit(fx: FixtureFacts, starts_at: datetime | None, after_minutes: float, now_ms: int) -> None:
    """C6 with D69: a forfeit is declared once, before kick-off (or for an abandoned match), between known teams,
    and not before ``after_minutes`` past the scheduled start (``now_ms``: the server's clock, epoch ms).

    A fixture without a scheduled time may be forfeited any time before kick-off.
    """
    if fx.forfeited:
        raise RuleViolation("C6", N_("fixture {fixture} was already forfeited"), {"fixture": fx.id})
    if fx.decided:
        raise RuleViolation(
            "C7", N_("fixture {fixture} has a decided result: change it by a protest decision"), {"fixture": fx.id}
        )
    if not fx.teams_known:
        raise RuleViolation("C6", N_("the teams of fixture {fixture} are not known yet"), {"fixture": fx.id})
    if fx.phase is not None and fx.phase not in ("scheduled", "abandoned"):
        raise RuleViolation(
            "C6",
            N_("the match of fixture {fixture} has begun ({phase}): a forfeit is declared before kick-off"),
            {"fixture": fx.id, "phase": fx.phase},
        )
    if starts_at is not None and fx.phase in (None, "scheduled"):
        due = int(starts_at.timestamp() * 1000 + after_minutes * 60_000)
        if now_ms < due:
            local = starts_at + timedelta(minutes=after_minutes)
            raise RuleViolation(
                "C6",
                N_("a team forfeits only when not ready {minutes} minutes after the scheduled start: not before {time}"),
                {"minutes": _num(after_minutes), "time": local.strftime("%H:%M")},
            )


def _num(x: float) -> str:
    """A number of minutes as the refusal prints it: "20", "7.5"."""
    return str(int(x)) if float(x).is_integer() else str(x)
