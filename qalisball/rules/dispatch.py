"""Dispatch: ``apply(state, event, now, at_ms) -> state`` and the checks every call passes first: the
rosters it names (``check_references``, 400), the lock (M6), an abandoned match (4.2), time up (3.1) and
the game time it is stamped with (M1); then the call's chapter handler (``judging._handle``).

Every refusal raises ``RuleViolation`` naming the rule (SPEC.md, API.md error ``rule``); an event
naming something the match does not have raises ``InvalidEvent``. ``now`` is the server's time in
milliseconds (the engine has no clock of its own, STYLE.md).
"""

from __future__ import annotations

from collections.abc import Container
from typing import cast

# Each chapter module registers its handlers with judging._handle when imported.
from . import fouls, phases, possession, restarts, sheet, shootout_calls, substitutions, violations  # noqa: F401
from .common import Team, other_team
from .errors import N_, InvalidEvent, RuleViolation
from .events import (
    Abandon,
    Amend,
    Card,
    Catch,
    ClockChange,
    Confirm,
    Event,
    Foul,
    Injury,
    Insert,
    Note,
    PeriodEnd,
    PeriodStart,
    Reopen,
    RosterChange,
    ShootoutStart,
    Sign,
    Substitution,
    Void,
)
from .judging import _handle, _mmss, _phase_words, _rule, time_up
from .rulings import PenaltyMissed
from .sheet import locked_refusal
from .state import HALVES, MatchSetup, MatchState

# Events still accepted once a half's time is up: ending the half and administrative events (SPEC §2).
_AFTER_TIME_UP = (PeriodEnd, Card, Foul, Substitution, ClockChange, Abandon, Injury, RosterChange, Note, Confirm, Sign, Reopen)


# The score sheet's events (SPEC §9), accepted in an abandoned match too (M6 asks for its signatures).
_SHEET = (RosterChange, Note, Confirm, Sign, Reopen)


# Judged when received whatever their ``at_ms``: the sheet's events, and ending a half (its half-time
# countdown starts when the referee ends it); a clock ``set`` is too (below).
_AT_RECEIPT = (*_SHEET, PeriodEnd)


# M1: a tablet's clock may run a little ahead of the server's; a call stamped this much later than the
# clock now is taken as made now (D32).
AT_MS_TOLERANCE = 500


def apply(state: MatchState, event: Event, now: int, at_ms: int | None = None) -> MatchState:
    """Return the state after ``event`` received at server time ``now``; ``state`` itself never changes.

    ``at_ms`` is the game-clock time at which it happened (M1): the clock's rules are judged then.
    """
    new = state.copy()
    _apply_in_place(new, event, now, at_ms)
    return new


def check_references(state: MatchState | MatchSetup, event: Event) -> None:
    """Every shirt number an event names must be on that team's roster now (HTTP 400, not 409).

    Given a ``MatchSetup``, the rosters the match was created with (no roster change yet, M2).
    """
    from_setup = isinstance(state, MatchSetup)
    setup = state if isinstance(state, MatchSetup) else state.setup

    def roster(t: Team) -> Container[int]:
        return setup.team(t).numbers if from_setup else cast("MatchState", state).teams[t].roster

    team: Team | None = getattr(event, "team", None)
    bad: dict[str, list[str]] = {}

    def need(name: str, t: Team, number: int | None) -> None:
        if number is not None and number not in roster(t):
            bad.setdefault(name, []).append(f"no player #{number} on {t}'s roster")

    if team is not None:
        # Most calls name one player or none (legal_calls tries ~56 a state): look up only what is named.
        for name in ("player", "out", "in_"):
            number = getattr(event, name, None)
            if number is not None:
                need("in" if name == "in_" else name, team, number)
    if isinstance(event, RosterChange) and event.add is None and event.player is None:
        bad["player"] = ["name the player to change, or give `add` for a new one"]
    if isinstance(event, Catch) and team is not None:
        need("caught", other_team(team), event.caught)
    if isinstance(event, ShootoutStart):
        for t, numbers in event.takers:
            for n in numbers:
                need(f"takers.{t}", t, n)
    if isinstance(event, ClockChange) and event.elapsed_ms is not None and event.elapsed_ms > setup.rules.half_ms:
        bad["elapsed_ms"] = [f"must be at most the half's length, {setup.rules.half_ms} ms"]
    if bad:
        raise InvalidEvent(bad)


def _apply_in_place(s: MatchState, event: Event, now: int, at_ms: int | None = None) -> None:
    """Apply ``event`` to ``s``; a refusal cites the match's own rule book (SPEC §11.12: the engine raises
    2.0 numbers and a 1.0 match turns them into 1.0's)."""
    s.rulings = ()  # what this event is ruled (rulings.py), recorded as the handlers decide
    try:
        _apply_as_2_0_cites(s, event, now, at_ms)
    except RuleViolation as refusal:
        raise s.setup.rules.book.recite(refusal) from None


def _apply_as_2_0_cites(s: MatchState, event: Event, now: int, at_ms: int | None = None) -> None:
    if isinstance(event, Void | Amend | Insert):
        raise TypeError("corrections are applied by replaying the log with them in place (rules/corrections.py)")
    if s.locked and not isinstance(event, Reopen):
        raise locked_refusal()
    if s.phase == "abandoned" and not isinstance(event, _SHEET):
        raise RuleViolation("4.2", N_("the match was abandoned ({reason})"), {"reason": s.abandon_reason})
    if at_ms is not None and s.phase not in HALVES and not isinstance(event, _SHEET):
        raise RuleViolation(
            "M1",
            N_("no half is being played (the {phase}): a call's game time is given only during a half"),
            {"phase": _phase_words(s)},
        )
    received_at = game_time(s, now)  # the at_ms the log stores when none is given: the replay judges the same
    if s.phase not in HALVES or isinstance(event, _AT_RECEIPT) or (isinstance(event, ClockChange) and event.action == "set"):
        _judge(s, event, now)
        s.last_at_ms = _last_at(s, event, received_at)
        return
    at_ms = received_at if at_ms is None else _check_at_ms(s, now, at_ms)
    assert at_ms is not None
    c = s.clock
    if c.running or isinstance(event, ClockChange):
        # The server time at which the clock showed ``at_ms``: every clock rule is judged then (M1).
        _judge(s, event, now - max(0, c.elapsed(now) - at_ms) if c.running else now)
    else:
        # A paused clock: judge at the game time given, then put the clock back as it was.
        kept = c.base_ms
        c.base_ms = at_ms
        _judge(s, event, now)
        if not c.running and c.base_ms == at_ms:
            c.base_ms = kept
    s.last_at_ms = _last_at(s, event, at_ms)


def _judge(s: MatchState, event: Event, now: int) -> None:
    if time_up(s, now) and not isinstance(event, _AFTER_TIME_UP):
        raise RuleViolation(
            "3.1",
            N_("the {phase} is over (time up): end the half, or correct the clock, before logging a {event}"),
            {"phase": _phase_words(s), "event": event.type},
        )
    _handle(event, s, now)
    pen = s.penalty_in_play
    if pen is not None and (s.ball != "live" or s.possession != pen.team):
        # The penalty's attack is over without a goal of its team (a goal converts it, in _goal).
        s.penalty_in_play = None
        _rule(s, PenaltyMissed(pen.team, pen.taker))


def _last_at(s: MatchState, event: Event, at_ms: int | None) -> int:
    """M1: the game time later calls may not precede (a clock ``set`` resets it to the value set)."""
    if isinstance(event, PeriodStart):
        return 0
    if isinstance(event, ClockChange) and event.action == "set":
        return s.clock.base_ms
    return max(s.last_at_ms, at_ms) if at_ms is not None else s.last_at_ms


def _check_at_ms(s: MatchState, now: int, at_ms: int) -> int:
    """M1: a call's game time is not later than the clock, nor earlier than the last accepted call."""
    clock_now = min(s.clock.elapsed(now), s.clock.length_ms)
    if at_ms > clock_now + AT_MS_TOLERANCE:
        raise RuleViolation(
            "M1",
            N_("the call is stamped {at}, later than the clock ({clock}): check the tablet's clock"),
            {"at": _mmss(at_ms), "clock": _mmss(clock_now)},
        )
    if at_ms < s.last_at_ms:
        raise RuleViolation(
            "M1",
            N_("the call is stamped {at}, earlier than the last call logged ({last}): insert it at its place instead"),
            {"at": _mmss(at_ms), "last": _mmss(s.last_at_ms)},
            {"late_call": True},  # the web layer adds where it fits (insert_point), for the referee's insert (M3)
        )
    return min(at_ms, clock_now)


def game_time(s: MatchState, now: int) -> int | None:
    """The game-clock time of an event logged at server time ``now`` (SPEC D8): the half's elapsed time."""
    if s.phase in HALVES:
        return min(s.clock.elapsed(now), s.clock.length_ms)
    return None
