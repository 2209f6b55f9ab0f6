"""The rule book as a state machine: ``apply(state, event, now) -> state``.

Every refusal raises ``RuleViolation`` naming the rule (SPEC.md, API.md error ``rule``); an event
naming something the match does not have raises ``InvalidEvent``. ``now`` is the server's time in
milliseconds (the engine has no clock of its own, STYLE.md): it drives the game clock (3.1) and the
30-second return after a goal (7.2). Section numbers in comments are the rule book's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import singledispatch
from typing import Any, Generic, TypeVar

from . import field as geo
from . import shootout as so
from . import v1
from .book import BOOK_2_0
from .catalogue import violation_label, violation_rule, violation_words
from .common import TEAMS, Side, Team, other_team
from .corrections import Row, check_correction, effective_log
from .errors import N_, InvalidEvent, RuleViolation
from .events import (
    Abandon,
    Amend,
    Attack,
    Card,
    Catch,
    ClockChange,
    CoinToss,
    Confirm,
    Event,
    Foul,
    Goal,
    Injury,
    Insert,
    Note,
    PeriodEnd,
    PeriodStart,
    Reopen,
    RestartTaken,
    RosterChange,
    ShootoutKick,
    ShootoutStart,
    ShotMissed,
    Sign,
    Steal,
    Substitution,
    Violation,
    Void,
    from_fields,
)
from .rulings import (
    Cautioned,
    ErrorForgiven,
    FreeKickMoved,
    GoalCounted,
    LeftInjured,
    PenaltyConverted,
    PenaltyInPlay,
    PenaltyMissed,
    RestartAwarded,
    RestartStands,
    Ruling,
    SentOff,
    ShootoutKickTaken,
)
from .rulings import (
    RestartTaken as RestartTakenRuling,
)
from .state import HALVES, MatchSetup, MatchState, Player, Restart, RestartType, Signature, Stoppage, Why, initial_state

# The rule that governs taking each restart type in 2.0: cited when the wrong team or player takes it
# (each rule book's own table is its ``restart_rule``, book.py).
RESTART_RULE = BOOK_2_0.restart_rule
RESTART_WORDS: dict[RestartType, str] = {
    "kickoff": N_("kickoff"),
    "end_line": N_("end-line ball"),
    "side_line": N_("side-line ball"),
    "free_kick": N_("free kick"),
    "penalty": N_("penalty"),
    "corner": N_("corner"),  # 1.0 (V1-6)
    "short_corner": N_("short corner"),  # 1.0 (V1-6)
}
# D169: what a refusal because the ball is dead or in play asks to be logged first (the refusal's
# ``next_call``: a console call, or "stoppage" for any call that stops play). Each console turns it into
# a hint naming only what its role may log (the catalogue's ``who``), "ask the referee" otherwise.
NEXT_RESTART: dict[str, object] = {"next_call": "restart_taken"}
NEXT_END_LINE: dict[str, object] = {"next_call": "ball_out_end"}
NEXT_STOPPAGE: dict[str, object] = {"next_call": "stoppage"}
# A tapped spot may be a little off the area line on a tablet: an area entry within this distance
# of the area still counts (metres).
AREA_TAP_TOLERANCE = 0.5
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


# --------------------------------------------------------------------------------------------
# Public entry points


def apply(state: MatchState, event: Event, now: int, at_ms: int | None = None) -> MatchState:
    """Return the state after ``event`` received at server time ``now``; ``state`` itself never changes.

    ``at_ms`` is the game-clock time at which it happened (M1): the clock's rules are judged then.
    """
    new = state.copy()
    _apply_in_place(new, event, now, at_ms)
    return new


Logged = Row  # one row of the event log (the store's ``LogEntry`` is one)


L = TypeVar("L", bound=Logged)


@dataclass(frozen=True)
class Step(Generic[L]):
    """One event of the replay with the states on either side of it (``before`` only when kept), and what
    the engine ruled on it (rulings.py: restarts awarded and why, errors forgiven, penalties converted,
    sendings-off, shootout kicks …), in the order it ruled."""

    entry: L
    event: Event
    before: MatchState | None
    after: MatchState
    rulings: tuple[Ruling, ...] = ()


def replay_steps(setup: MatchSetup, log: Iterable[L], keep_states: bool = True) -> Iterator[Step[L]]:
    """Replay a log, one step per effective event (SPEC D8): start-up, voids and reports all use this.

    With ``keep_states`` every step has its own ``before`` and ``after`` (reports look at both);
    without, one state is changed in place and each step's ``after`` is that same object (fast).
    Raises ``ReplayError`` naming the first event that the rules no longer allow.
    """
    state = initial_state(setup)
    for e in effective_log(log):
        event = from_fields(e.type, e.fields)
        try:
            check_references(state, event)  # the roster changes during a match (M2)
            if keep_states:
                after = apply(state, event, e.received_ms, e.at_ms)
            else:
                _apply_in_place(state, event, e.received_ms, e.at_ms)
                after = state
        except (RuleViolation, InvalidEvent) as exc:
            raise ReplayError(e.seq, event, exc) from exc
        yield Step(e, event, state if keep_states else None, after, after.rulings)
        state = after


def insert_point(setup: MatchSetup, log: Iterable[L], at_ms: int) -> int | None:
    """M1 with M3: where a call stamped ``at_ms`` in the half being played fits, to be inserted (SPEC D8).

    The seq of the last effective event of that half whose game time is at or before ``at_ms`` (an amended
    event in its place and with its time, an insert where it was put), else of the half's start; None when
    no half is being played at the end of the log.
    """
    point: int | None = None
    for step in replay_steps(setup, log, keep_states=False):
        if isinstance(step.event, PeriodStart):
            point = step.entry.seq
        elif isinstance(step.event, PeriodEnd) or step.after.phase not in HALVES:
            point = None
        elif point is not None and step.entry.at_ms is not None and step.entry.at_ms <= at_ms:
            point = step.entry.seq
    return point


def locked_refusal() -> RuleViolation:
    """M6: what every change of a signed (locked) match is answered, but the organiser's ``reopen``."""
    return RuleViolation(
        "M6", N_("the score sheet is signed and the match locked: the organiser must reopen it before any change")
    )


def correct(state: MatchState, log: Sequence[L], row: L) -> tuple[MatchState, list[L]]:
    """The state with the correction ``row`` (a void, amend or insert) in place (D8, M3), and the log
    before ``row`` with the voided or replaced event marked (the caller appends ``row`` once stored).

    Refused citing D8, with ``first_refused``, when a later event would no longer be legal; an
    amend's or insert's own event that is illegal at its place is refused as posting it there would be.
    """
    if state.locked:
        raise locked_refusal()
    check_correction(log, row.type, row.fields, row.by)
    target = row.fields.get("target")
    new_log = [dataclasses.replace(e, voided_by=row.seq) if e.seq == target else e for e in log]  # type: ignore[type-var]
    try:
        corrected = replay(state.setup, [*new_log, row])
    except ReplayError as exc:
        if exc.seq == row.seq:
            raise exc.cause from exc
        params: dict[str, object] = {
            "target": target if target is not None else row.fields.get("after"),
            "type": _type_of(log, target) if target is not None else row.fields["event"]["type"],
            "seq": exc.seq,
            "event_type": exc.event.type,
            "cause": exc.cause,
        }
        raise _correction_refused(row.type, params, exc.seq) from exc
    return corrected, new_log


def _correction_refused(kind: str, params: dict[str, object], first_refused: int) -> RuleViolation:
    details = {"first_refused": first_refused}
    if kind == "void":
        return RuleViolation(
            "D8",
            N_("voiding event {target} ({type}) would make event {seq} ({event_type}) illegal: {cause}; void event {seq} first"),
            params,
            details,
        )
    if kind == "amend":
        return RuleViolation(
            "D8",
            N_(
                "replacing event {target} ({type}) would make event {seq} ({event_type}) illegal: {cause}; "
                "correct event {seq} first"
            ),
            params,
            details,
        )
    return RuleViolation(
        "D8",
        N_(
            "adding a {type} after event {target} would make event {seq} ({event_type}) illegal: {cause}; "
            "correct event {seq} first"
        ),
        params,
        details,
    )


def _type_of(log: Sequence[Logged], seq: int) -> str:
    return next((e.type for e in log if e.seq == seq), "")


def replay(setup: MatchSetup, log: Iterable[Logged]) -> MatchState:
    """The state after the effective events of ``log`` (SPEC D8)."""
    state = initial_state(setup)
    for step in replay_steps(setup, log, keep_states=False):
        state = step.after
    return state


class ReplayError(Exception):
    """An event of the log that would be refused in a replay (after a void, for example)."""

    def __init__(self, seq: int, event: Event, cause: RuleViolation | InvalidEvent) -> None:
        self.seq, self.event, self.cause = seq, event, cause
        self.rule = cause.rule if isinstance(cause, RuleViolation) else "D8"
        super().__init__(f"event {seq} ({event.type}) would be refused: {cause}")


def time_up(state: MatchState, now: int) -> bool:
    """A half's time is up (3.1): play is dead, no restart pending (10.2)."""
    return state.phase in HALVES and state.clock.elapsed(now) >= state.clock.length_ms


def check_references(state: MatchState | MatchSetup, event: Event) -> None:
    """Every shirt number an event names must be on that team's roster now (HTTP 400, not 409).

    Given a ``MatchSetup``, the rosters the match was created with (no roster change yet, M2).
    """
    setup = state if isinstance(state, MatchSetup) else state.setup
    rosters = (
        {t: setup.team(t).numbers for t in TEAMS} if isinstance(state, MatchSetup) else {t: state.teams[t].roster for t in TEAMS}
    )
    team: Team | None = getattr(event, "team", None)
    bad: dict[str, list[str]] = {}

    def need(name: str, t: Team, number: int | None) -> None:
        if number is not None and number not in rosters[t]:
            bad.setdefault(name, []).append(f"no player #{number} on {t}'s roster")

    if team is not None:
        for name in ("player", "out", "in_"):
            need("in" if name == "in_" else name, team, getattr(event, name, None))
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


def substitution_refusal(state: MatchState, team: Team, now: int) -> RuleViolation | None:
    """Why an ordinary substitution (a player off, another on) for ``team`` is refused now, if it is.

    Only while the ball is dead (11.1); the initiative rule (11.1): at each stoppage the restarting
    team may substitute, the other only after it; after a goal, before a kickoff and at half-time
    both freely (11.2); never at an injury stoppage called during live play (11.3).
    """
    return _dead_ball_refusal(state, now) or _initiative_refusal(state, team, now)


def _dead_ball_refusal(state: MatchState, now: int) -> RuleViolation | None:
    if state.phase not in ("scheduled", "first_half", "halftime", "second_half"):
        return RuleViolation(
            "11.1",
            N_("no substitutions in the {phase}: they are made before the match, at half-time, or at a dead ball during a half"),
            {"phase": _phase_words(state)},
        )
    if state.phase in HALVES and state.ball == "live" and not time_up(state, now):
        return RuleViolation("11.1", N_("substitutions are made only while the ball is dead: wait for the next stoppage"))
    return None


def _initiative_refusal(state: MatchState, team: Team, now: int) -> RuleViolation | None:
    if not state.setup.rules.book.substitution_initiative:
        return None  # 1.0: either team at any dead ball, injury stoppages included (V1-D11, V1-D12)
    if state.phase in ("scheduled", "halftime") or time_up(state, now):
        return None  # both teams freely (11.2, D13)
    if state.stoppage.kind == "injury":
        return RuleViolation(
            "11.3",
            N_(
                "no substitutions at an injury stoppage called during live play; "
                "the injured player's team may bring a player on at its next chance to substitute"
            ),
        )
    restart = state.restart
    if state.stoppage.kind == "free" or restart is None:
        return None
    if team == restart.team or restart.team in state.stoppage.substituted:
        return None
    return RuleViolation(
        "11.1",
        N_(
            "{team} has no restart at this stoppage and {restarting} did not substitute: "
            "{team} may substitute after {restarting} has substituted at this stoppage"
        ),
        {"team": team, "restarting": restart.team},
    )


def may_substitute(state: MatchState, team: Team, now: int) -> bool:
    """True exactly when an ordinary substitution for ``team`` would be accepted now (SPEC §5.6)."""
    if substitution_refusal(state, team, now) is not None:
        return False
    ts = state.teams[team]
    return bool(ts.on_field) and bool(_eligible_bench(state, team))


# --------------------------------------------------------------------------------------------
# Dispatch


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


@singledispatch
def _handle(event: Event, s: MatchState, now: int) -> None:  # pragma: no cover - every type is registered
    raise TypeError(f"no rule for event type {event.type}")


# --------------------------------------------------------------------------------------------
# Phases, coin toss, clock (3.1, 5.1, 5.3)


@_handle.register
def _coin_toss(ev: CoinToss, s: MatchState, now: int) -> None:
    if s.phase != "scheduled":
        raise RuleViolation("5.1", N_("the coin toss happens before the match starts"))
    if s.toss_kickoff is not None:
        raise RuleViolation("5.1", N_("the coin has already been tossed: void that toss to redo it"))
    s.toss_kickoff, s.home_end_first_half = ev.kickoff, ev.home_end


@_handle.register
def _period_start(ev: PeriodStart, s: MatchState, now: int) -> None:
    if s.phase == "scheduled":
        if s.toss_kickoff is None:
            raise RuleViolation("5.1", N_("toss the coin first: it decides who kicks off and the ends"))
        s.phase, s.period, kicker = "first_half", 1, s.toss_kickoff
    elif s.phase == "halftime":
        assert s.toss_kickoff is not None
        # The second half: ends switched (3.1), kicked off by the other team (5.3).
        s.phase, s.period, kicker = "second_half", 2, other_team(s.toss_kickoff)
    else:
        raise RuleViolation("3.1", N_("a half cannot start during the {phase}"), {"phase": _phase_words(s)})
    s.clock.start(now, s.setup.rules.half_ms)
    s.halftime_started_at = None
    _stop(s, "free")  # before the kickoff both teams may substitute (11.2)
    _give_restart(s, "kickoff", kicker, geo.centre_spot(s.setup.field))
    _explain(s, "5.1" if s.period == 1 else "5.3", N_("the half begins: {team} kicks off"), team=kicker)
    _awarded(s)


@_handle.register
def _period_end(ev: PeriodEnd, s: MatchState, now: int) -> None:
    if s.phase not in HALVES:
        raise RuleViolation("3.1", N_("no half is being played (the {phase})"), {"phase": _phase_words(s)})
    if not time_up(s, now):
        left = s.clock.length_ms - s.clock.elapsed(now)
        raise RuleViolation(
            "3.1",
            N_("the half has {left} left: it ends when its time is up (set the clock if it is wrong)"),
            {"left": _mmss(left)},
        )
    s.clock.pause(now)
    _stop(s, "free")
    s.restart, s.possession, s.attacking = None, None, False
    for t in s.teams:
        s.teams[t].ma_team = None
    s.halves_ended += 1
    if s.phase == "first_half":
        s.phase, s.halftime_started_at = "halftime", now
    elif s.score["home"] == s.score["away"]:
        # Level after two halves: penalty shootout (3.2, 12); in 1.0 a draw, winner null (V1-D2).
        s.phase = "shootout" if s.setup.rules.level_goes_to_shootout else "finished"
    else:
        s.phase = "finished"
        s.winner = "home" if s.score["home"] > s.score["away"] else "away"  # 1.3


@_handle.register
def _clock(ev: ClockChange, s: MatchState, now: int) -> None:
    if s.phase not in HALVES:
        raise RuleViolation("3.1", N_("the game clock runs only during a half, not the {phase}"), {"phase": _phase_words(s)})
    c = s.clock
    if ev.action == "pause":
        if not c.running:
            raise RuleViolation("3.1", N_("the clock is already paused"))
        c.pause(now)
    elif ev.action == "resume":
        if c.running:
            raise RuleViolation("3.1", N_("the clock is already running"))
        if c.elapsed(now) >= c.length_ms:
            raise RuleViolation("3.1", N_("the half's time is up: set the clock back before resuming it"))
        c.resume(now)
    else:
        assert ev.elapsed_ms is not None  # the schema requires it for "set"
        c.set(now, min(ev.elapsed_ms, c.length_ms))  # check_references refuses longer (400)


@_handle.register
def _abandon(ev: Abandon, s: MatchState, now: int) -> None:
    if s.phase in HALVES:
        s.clock.pause(now)
    s.phase, s.abandon_reason, s.ball, s.restart, s.possession = "abandoned", ev.reason, "dead", None, None
    s.winner = None  # an abandoned match has no result, even one abandoned after its end (SPEC §2)


# --------------------------------------------------------------------------------------------
# Restarts and goals (5.2, 7, 10)


@_handle.register
def _restart_taken(ev: RestartTaken, s: MatchState, now: int) -> None:
    _require_half(s, "10.1", N_("a restart"))
    r = s.restart
    if s.ball == "live" or r is None:
        raise RuleViolation("10.1", N_("no restart is pending: the ball is in play"), details=NEXT_STOPPAGE)
    book = s.setup.rules.book
    rule, what = book.restart_rule[r.type], RESTART_WORDS[r.type]
    if ev.team != r.team:
        raise RuleViolation(
            rule, N_("the {what} is {restarting}'s, not {team}'s"), {"what": what, "restarting": r.team, "team": ev.team}
        )
    ts = s.teams[ev.team]
    if ev.player is None:
        if r.type == "penalty" and book.penalty_taker_required:  # 1.0 names none (V1-D13)
            raise RuleViolation(
                "10.8", N_("name the penalty taker: rule 10.8 has the taker chosen among the players on the field")
            )
        _take_restart(s, r, None)
        return
    if ev.player in ts.sent_off:
        raise RuleViolation(
            "9.3",
            N_("#{player} of {team} was sent off and takes no restart: choose a player on the field"),
            {"player": ev.player, "team": ev.team},
        )
    if ev.player not in ts.on_field:
        raise RuleViolation(
            rule,
            N_("#{player} of {team} is not on the field and cannot take the {what}"),
            {"player": ev.player, "team": ev.team, "what": what},
        )
    if (ev.team, ev.player) in s.stoppage.came_on and book.substitution_initiative:  # 1.0 has no 11.2 (V1-D11)
        raise RuleViolation(
            "11.2",
            N_("#{player} came on at this stoppage and may not take its {what}: choose another player"),
            {"player": ev.player, "what": what},
        )
    _take_restart(s, r, ev.player)


def _take_restart(s: MatchState, r: Restart, player: int | None) -> None:
    s.ball, s.restart, s.restart_in_play = "live", None, r
    _rule(s, RestartTakenRuling(r, player))
    if r.type == "penalty":
        s.penalty_in_play = PenaltyInPlay(r.team, player)  # converted or missed later (10.8)
    s.last_goal_at = None  # the 30 s return (7.2) ends with the kickoff
    # A replacement for a sent-off player is made at that dead ball (11.2); it lapses once play
    # restarts (a team still short may then bring a player on at its next chance, SPEC §5.3) —
    # unless 11.3 forbade it at this injury stoppage: then it waits for the next dead ball (M5).
    injury = s.stoppage.kind == "injury"
    for t in s.teams:
        ts = s.teams[t]
        ts.replacements_carried = ts.replacements_due if injury else 0
        ts.replacements_due = 0


@_handle.register
def _goal(ev: Goal, s: MatchState, now: int) -> None:
    _require_live(s, "7.1", N_("a goal"))
    if ev.player is not None and ev.player not in s.teams[ev.team].on_field:
        raise RuleViolation("7.1", N_("#{player} of {team} is not on the field"), {"player": ev.player, "team": ev.team})
    if ev.direct and s.restart_in_play is not None and s.restart_in_play.type == "end_line":
        raise RuleViolation(
            "10.4", N_("a bottle knocked down straight from an end-line ball does not count"), details=NEXT_END_LINE
        )
    if ev.direct and s.restart_in_play is not None and s.restart_in_play.type in s.setup.rules.book.pass_only:
        raise v1.kickoff_is_a_pass()  # V1-3: the kickoff is a pass; the ball stays live
    s.score[ev.team] += 1
    _rule(s, GoalCounted(ev.team, ev.player, ev.direct))
    pen = s.penalty_in_play
    if pen is not None:
        # Straight from the penalty: its team scores before the ball is dead or the other team has it (10.8).
        s.penalty_in_play = None
        _rule(s, PenaltyConverted(pen.team, pen.taker, ev.player) if pen.team == ev.team else PenaltyMissed(pen.team, pen.taker))
    s.last_goal_at = now
    _stop(s, "free")  # after a goal both teams may substitute (11.2)
    # The team that conceded kicks off (5.3).
    _give_restart(s, "kickoff", other_team(ev.team), geo.centre_spot(s.setup.field))
    _explain(s, "5.3", N_("goal by {team}: the other team kicks off"), team=ev.team)
    _awarded(s)


# --------------------------------------------------------------------------------------------
# Violations (8) — SPEC §3's call table


@_handle.register
def _violation(ev: Violation, s: MatchState, now: int) -> None:
    _require_half(s, "8.1", N_("a violation"))
    if ev.kind == "restart":
        _restart_violation(ev, s)
        return
    _require_live(s, "8.1", violation_words(ev.kind))
    spot = _need_spot(ev.spot, f"a {ev.kind} violation")
    f = s.setup.field
    winner = other_team(ev.team)
    if ev.kind == "ball_out_side":
        if not f.side_lines:
            raise RuleViolation("2.1", N_("this field has no side lines: no side-line ball can be called"))
        outcome = Restart("side_line", winner, geo.side_line_spot(f, spot))  # 8.2, 10.5
    elif ev.kind in ("ball_out_end", "ball_in_area"):
        # 8.2 / 8.4, 10.4: end-line ball at that end, behind the restart line on the event's side;
        # 1.0: a corner, or a short corner for a ball in an area (V1-6, V1-D4, V1-D5).
        book = s.setup.rules.book
        kind = book.over_end_line if ev.kind == "ball_out_end" else book.into_area
        outcome = _at_end(s, kind, winner, geo.nearest_end(f, spot), geo.side_of(f, spot))
    elif ev.kind == "ball_grounded":
        if geo.area_at(f, spot) is not None:
            raise RuleViolation("8.4", N_("the ball landed in a restricted area: call ball_in_area"))
        outcome = _free_kick(s, winner, spot)  # 8.3, 10.7
    elif ev.kind == "caught":
        outcome = _free_kick(s, winner, spot)  # 6.2, 8.6, 10.7
    else:  # player_in_area (8.5)
        area = geo.area_at(f, spot, AREA_TAP_TOLERANCE)
        if area is None:
            raise RuleViolation("8.5", N_("the spot is not in a restricted area: tap where the player entered it"))
        if area == s.defended_end(ev.team):
            # His own area: a penalty for the other team, whoever had the ball (8.5, D9).
            outcome = Restart("penalty", winner, geo.penalty_spot(f, area), area)
        else:
            # The opponents' area: end-line ball for the area's team at that end (D1); 1.0: a short corner (V1-D6).
            outcome = _at_end(s, s.setup.rules.book.into_area, winner, area, geo.side_of(f, spot))
        _stop(s)
        _give(s, outcome)  # never forgiven by multiple attack opportunities (D7)
        _explain_call(s, "8.5" if outcome.type == "penalty" else "D1", ev.kind, ev.team, ev.player)
        _awarded(s)
        return
    if ev.kind in ("ball_out_end", "ball_in_area") and s.possession == ev.team and outcome.end == s.defended_end(winner):
        # 13.1 note, 4: the ball over the opponents' end line or into their area shows the team
        # was attacking.
        s.attacking = True
    if not _forgive(s, ev.team, ev.player, spot):
        _stop(s)
        _give(s, outcome)
        _explain_call(s, violation_rule(ev.kind), ev.kind, ev.team, ev.player)
        _awarded(s)


def _restart_violation(ev: Violation, s: MatchState) -> None:
    """8.7: the same restart at the same spot for the other team; a penalty becomes an end-line ball (D2)."""
    pending = s.ball == "dead" and s.restart is not None
    r = s.restart if pending else s.restart_in_play
    if r is None:
        raise RuleViolation("8.7", N_("no restart is being taken: a restart violation needs one"))
    if r.team != ev.team and s.setup.rules.rule_set == "1.0":
        raise v1.breach_by_other_team(r.team)
    if r.team != ev.team:
        raise RuleViolation(
            "8.7",
            N_("the restart is {restarting}'s; a defender inside 2.5 m is a foul (9.2), not a restart violation"),
            {"restarting": r.team},
        )
    if _forgive(s, ev.team, ev.player, None, retake=r):
        return
    if not pending:
        _stop(s)
    _give(s, _restart_for_opponents(s, r, ev.side))
    _explain_call(s, "D2" if r.type == "penalty" else "8.7", "restart", ev.team, ev.player)
    _awarded(s)


def _restart_for_opponents(s: MatchState, r: Restart, side: Side) -> Restart:
    """The restart ``r`` handed to the other team (8.7, 10.4, 10.5 special cases; D2; 1.0: V1-D8)."""
    winner = other_team(r.team)
    if r.type == "penalty":
        assert r.end is not None
        return _at_end(s, s.setup.rules.book.into_area, winner, r.end, side)
    if r.type == "free_kick":
        return _free_kick(s, winner, r.spot)
    return Restart(r.type, winner, r.spot, r.end)


# --------------------------------------------------------------------------------------------
# Fouls and cards (9, 10.4–10.7)


@_handle.register
def _foul(ev: Foul, s: MatchState, now: int) -> None:
    book = s.setup.rules.book
    if ev.card is not None and not book.cards:
        raise v1.no_cards()
    if ev.card is not None and ev.player is None:
        raise InvalidEvent({"player": ["a foul with a card must name the player"]})
    red = ev.card == "red"
    playing = s.phase in HALVES and not time_up(s, now)  # after time up only the card counts (D21)
    if playing and s.ball == "live":
        _live_foul(ev, s, red)
    elif playing and s.restart is not None:
        r = s.restart
        if ev.team == r.team:
            # A foul by the team taking the restart (10.4, 10.5 special cases; D12).
            if red or not _forgive(s, ev.team, ev.player, None, retake=r):
                _give(s, _restart_for_opponents(s, r, _side_or_low(s, ev.spot)))
                cited = book.restart_rule[r.type] if r.type in book.restart_fouls_cite_restart else "D12"
                _explain_foul(s, cited, ev.team, ev.player)
                _awarded(s)
        else:
            _rule(s, RestartStands(r, "9.2"))  # a foul by the other team (a defender inside 2.5 m) leaves it as it is
    elif ev.card is None:
        raise RuleViolation(
            "9.1",
            N_("no play to restart now: a foul at this time can only be punished with a card")
            if book.cards
            else N_("no play to restart now: a foul at this time gives no set piece; record misconduct in a note"),
        )
    elif s.restart is not None and s.ball == "dead":
        _rule(s, RestartStands(s.restart, "D21"))  # after time up only the card counts: the restart stands
    if ev.player is not None:
        fouls = s.teams[ev.team].fouls
        fouls[ev.player] = fouls.get(ev.player, 0) + 1  # 9.3: repeated fouls are grounds for a caution (M8)
    if ev.card is not None and ev.player is not None:
        _show_card(s, ev.team, ev.player, ev.card)


def _live_foul(ev: Foul, s: MatchState, red: bool) -> None:
    spot = _need_spot(ev.spot, "a foul during play")
    f = s.setup.field
    winner = other_team(ev.team)
    by_attackers = ev.team == s.possession
    if ev.where != "field" and (by_attackers or ev.on_official) and s.setup.rules.book.attacking_foul_at_last_touch:
        raise RuleViolation(
            "10.7",
            N_(
                "a foul by the team with the ball, or on an official, restarts with a free kick where the "
                "ball was last touched: log it with where=field and that spot"
            ),
        )
    if ev.where == "beyond_side_line":
        if not f.side_lines:
            raise RuleViolation("2.1", N_("this field has no side lines: no side-line ball can be called"))
        outcome = Restart("side_line", winner, geo.side_line_spot(f, spot))  # 10.5
    elif ev.where == "beyond_end_line":
        outcome = _at_end(s, s.setup.rules.book.over_end_line, winner, geo.nearest_end(f, spot), geo.side_of(f, spot))
    else:
        outcome = _free_kick(s, winner, spot)  # 10.6, 10.7
    # An attacking foul may be forgiven (13.1), never one sent with a red card nor one on an official (D7).
    if by_attackers and not red and not ev.on_official and _forgive(s, ev.team, ev.player, spot):
        return
    _stop(s)
    _give(s, outcome)
    rule = {"side_line": "10.5", "end_line": "10.4"}.get(outcome.type, "10.7" if by_attackers or ev.on_official else "10.6")
    _explain_foul(s, rule, ev.team, ev.player)
    _awarded(s)


@_handle.register
def _card(ev: Card, s: MatchState, now: int) -> None:
    if not s.setup.rules.book.cards:
        raise v1.no_cards()
    _show_card(s, ev.team, ev.player, ev.color)


def _show_card(s: MatchState, team: Team, player: int, color: str) -> None:
    """9.3: a second yellow is a red; a red sends the player off for the rest of the match (D5)."""
    ts = s.teams[team]
    if player in ts.sent_off:
        raise RuleViolation("D5", N_("#{player} of {team} has already been sent off"), {"player": player, "team": team})
    if color == "yellow":
        _rule(s, Cautioned(team, player))
    if color == "yellow" and player not in ts.yellow:
        ts.yellow.append(player)
        return
    if color == "yellow":
        ts.yellow.append(player)  # kept twice: the record shows both yellows
        ts.second_yellow.append(player)  # shown everywhere as a send-off (M8)
    ts.sent_off.append(player)
    _rule(s, SentOff(team, player, second_yellow=color == "yellow", from_field=player in ts.on_field))
    if player in ts.injured:
        ts.injured.remove(player)
    if player in ts.on_field:
        ts.on_field.remove(player)
        ts.replacements_due += 1  # 11.2; a bench player's red gives no replacement (9.3)


# --------------------------------------------------------------------------------------------
# Substitutions and injuries (11)


@_handle.register
def _substitution(ev: Substitution, s: MatchState, now: int) -> None:
    ts = s.teams[ev.team]
    n = s.setup.starters
    roster_rule = s.setup.rules.book.roster_rule  # SPEC §5.5's checks (1.0: V1-2)
    refusal = _dead_ball_refusal(s, now)
    if refusal is not None:
        raise refusal
    bench = ", ".join(f"#{p}" for p in _eligible_bench(s, ev.team)) or "nobody"
    if ev.out is None:
        if len(ts.on_field) >= n:
            raise RuleViolation(
                roster_rule,
                N_("{team} already has {n} players on the field: name the player going off"),
                {"team": ev.team, "n": n},
            )
        refusal = _initiative_refusal(s, ev.team, now)
        # The replacement right (11.2, D15) — never at the injury stoppage itself (11.3), which
        # carries it to the next dead ball (M5).
        if ts.replacements_due > 0 and (refusal is None or refusal.rule == "11.1"):
            ts.replacements_due -= 1  # the sent-off player's replacement, whatever the initiative (11.2, D15)
        elif refusal is not None:
            raise refusal
    else:
        refusal = _initiative_refusal(s, ev.team, now)
        if refusal is not None:
            raise refusal
        if ev.out not in ts.on_field:
            on = ", ".join(f"#{p}" for p in ts.on_field)
            raise RuleViolation(
                roster_rule,
                N_("#{out} of {team} is not on the field: the player going off is one of {on}"),
                {"out": ev.out, "team": ev.team, "on": on},
            )
    if ev.in_ in ts.sent_off:
        raise RuleViolation(
            "9.3",
            N_("#{in} of {team} was sent off and may not come back (D5): bring on one of {bench}"),
            {"in": ev.in_, "team": ev.team, "bench": bench},
        )
    if ev.in_ in ts.on_field:
        raise RuleViolation(
            roster_rule,
            N_("#{in} of {team} is already on the field: bring on one of {bench}"),
            {"in": ev.in_, "team": ev.team, "bench": bench},
        )
    if ev.out is not None:
        ts.on_field[ts.on_field.index(ev.out)] = ev.in_
    else:
        ts.on_field.append(ev.in_)
    if ev.in_ in ts.injured:
        ts.injured.remove(ev.in_)
    s.stoppage.substituted.add(ev.team)
    s.stoppage.came_on.add((ev.team, ev.in_))


@_handle.register
def _injury(ev: Injury, s: MatchState, now: int) -> None:
    if s.phase not in ("scheduled", "first_half", "halftime", "second_half"):
        raise RuleViolation("11.3", N_("no injuries are logged in the {phase}"), {"phase": _phase_words(s)})
    ts = s.teams[ev.team]
    if ev.player not in ts.on_field:
        raise RuleViolation("11.3", N_("#{player} of {team} is not on the field"), {"player": ev.player, "team": ev.team})
    live = s.phase in HALVES and s.ball == "live" and not time_up(s, now)
    if live:
        spot = _need_spot(ev.spot, "an injury stoppage during play")
        holder = s.possession
        assert holder is not None
        _stop(s, "injury")
        # A free kick for the team that had the ball, where it was last touched (11.3, 10.6).
        _give(s, _free_kick(s, holder, spot))
        _explain(s, "11.3", N_("injury stoppage: {team} keeps the ball"), team=holder)
        _awarded(s)
    elif s.restart is not None and s.ball == "dead":
        _rule(s, RestartStands(s.restart, "11.3"))  # an injury at a dead ball changes no restart
    # The injured player always leaves the field (11.3).
    ts.on_field.remove(ev.player)
    ts.injured.append(ev.player)
    _rule(s, LeftInjured(ev.team, ev.player))


# --------------------------------------------------------------------------------------------
# Possession during play (6, 13.1 note)


@_handle.register
def _steal(ev: Steal, s: MatchState, now: int) -> None:
    _require_live(s, "6.2", N_("a steal"))
    if s.possession == ev.team:
        raise RuleViolation("6.2", N_("{team} already has the ball: a steal is by the other team"), {"team": ev.team})
    s.restart_in_play = None
    _gain_possession(s, ev.team)
    s.attacking = False  # not yet attacking (13.1 note): the referee marks it with "attack"


@_handle.register
def _catch(ev: Catch, s: MatchState, now: int) -> None:
    _require_live(s, "6.2", N_("a catch"))
    if s.possession == ev.team:
        raise RuleViolation("6.2", N_("{team} has the ball: a catch is made by the defending team"), {"team": ev.team})
    if s.setup.rules.book.mixed_contact_rule and ev.player is not None and ev.caught is not None:
        catcher, caught = s.teams[ev.team].roster.get(ev.player), s.teams[other_team(ev.team)].roster.get(ev.caught)
        refusal = v1.mixed_catch_refusal(catcher.gender if catcher else None, caught.gender if caught else None)
        if refusal is not None:
            raise refusal  # V1-9, V1-D14
    s.restart_in_play = None


@_handle.register
def _attack(ev: Attack, s: MatchState, now: int) -> None:
    _require_live(s, "13.1", N_("an attack"))
    if s.possession != ev.team:
        raise RuleViolation("13.1", N_("{team} does not have the ball"), {"team": ev.team})
    s.attacking = True
    s.restart_in_play = None


@_handle.register
def _shot_missed(ev: ShotMissed, s: MatchState, now: int) -> None:
    _require_live(s, "6.1", N_("a missed shot"))
    if s.possession != ev.team:
        raise RuleViolation("6.1", N_("{team} does not have the ball"), {"team": ev.team})
    # With a spot, a missed shot is an error only when it would be forgiven (SPEC §6); otherwise it
    # is statistics and play goes on.
    if ev.spot is None or not _forgive(s, ev.team, ev.player, geo.Point(*ev.spot)):
        s.restart_in_play = None


# --------------------------------------------------------------------------------------------
# Shootout (12)


@_handle.register
def _shootout_start(ev: ShootoutStart, s: MatchState, now: int) -> None:
    if not s.setup.rules.level_goes_to_shootout:
        raise v1.no_shootout()
    if s.phase != "shootout":
        raise RuleViolation("12.1", N_("a shootout follows a second half that ended level"))
    if s.shootout is not None:
        raise RuleViolation("12.2", N_("the shootout has already started"))
    ineligible = {t: tuple(s.teams[t].sent_off) for t in s.teams}
    takers = {t: ev.takers_of(t) for t in s.teams}
    s.shootout = so.start(ev.first, takers, s.setup.rules.shootout_rounds, ineligible)


@_handle.register
def _shootout_kick(ev: ShootoutKick, s: MatchState, now: int) -> None:
    if not s.setup.rules.level_goes_to_shootout:
        raise v1.no_shootout()
    if s.phase != "shootout" or s.shootout is None:
        raise RuleViolation("12.2", N_("no shootout is under way: record its toss and takers first"))
    nxt = s.shootout.next_kick()
    if nxt is not None and nxt.team == ev.team and ev.scored and nxt.player in s.teams[ev.team].sent_off:
        raise RuleViolation(
            "D5", N_("#{player} of {team} was sent off: the kick is recorded as missed"), {"player": nxt.player, "team": ev.team}
        )
    s.shootout = so.kick(s.shootout, ev.team, ev.scored)
    k = s.shootout.kicks[-1]
    _rule(s, ShootoutKickTaken(k.team, k.player, k.round, k.points, k.scored))
    if s.shootout.decided:
        s.phase, s.winner = "finished", s.shootout.winner


# --------------------------------------------------------------------------------------------
# The match day (SPEC §9): roster changes, notes, the score sheet


@_handle.register
def _roster(ev: RosterChange, s: MatchState, now: int) -> None:
    """M2: a late player joins the bench; a player's name or shirt number is corrected."""
    ts = s.teams[ev.team]
    if ev.add is not None:
        if ev.add.number in ts.roster:
            raise RuleViolation(
                "M2",
                N_("#{number} is already {name}'s number in {team}: choose a free number"),
                {"number": ev.add.number, "name": ts.roster[ev.add.number].name, "team": ev.team},
            )
        ts.roster[ev.add.number] = Player(ev.add.number, ev.add.name, ev.add.gender)
        return
    assert ev.player is not None  # check_references asks for it (400)
    old = ts.roster[ev.player]
    number = ev.number if ev.number is not None else ev.player
    if number != ev.player and number in ts.roster:
        raise RuleViolation(
            "M2",
            N_("#{number} is already {name}'s number in {team}: choose a free number"),
            {"number": number, "name": ts.roster[number].name, "team": ev.team},
        )
    player = Player(number, ev.name if ev.name is not None else old.name, old.gender)
    if number == ev.player:
        ts.roster[number] = player
        return
    _renumber(s, ev.team, ev.player, number)
    ts.roster = {(number if n == ev.player else n): (player if n == ev.player else p) for n, p in ts.roster.items()}


def _renumber(s: MatchState, team: Team, old: int, new: int) -> None:
    """From now on the player is named by ``new`` everywhere in the state (M2)."""
    ts = s.teams[team]

    def swap(numbers: list[int]) -> list[int]:
        return [new if n == old else n for n in numbers]

    ts.on_field, ts.sent_off, ts.yellow = swap(ts.on_field), swap(ts.sent_off), swap(ts.yellow)
    ts.injured, ts.second_yellow = swap(ts.injured), swap(ts.second_yellow)
    ts.fouls = {(new if n == old else n): c for n, c in ts.fouls.items()}
    ts.ma_players = {(new if n == old else n): c for n, c in ts.ma_players.items()}
    ts.first_numbers[new] = ts.first_numbers.pop(old, old)
    s.stoppage.came_on = {(t, new if (t == team and n == old) else n) for t, n in s.stoppage.came_on}
    if s.shootout is not None:
        s.shootout = so.renumber(s.shootout, team, old, new)
    pen = s.penalty_in_play
    if pen is not None and pen.team == team and pen.taker == old:
        s.penalty_in_play = PenaltyInPlay(team, new)


@_handle.register
def _note(ev: Note, s: MatchState, now: int) -> None:
    """M7: notes only go into the referee's report; the match is unchanged."""


@_handle.register
def _confirm(ev: Confirm, s: MatchState, now: int) -> None:
    """M6: the main referee confirms a period's score once it has ended."""
    if ev.period == "shootout":
        ended = s.shootout is not None and s.shootout.decided
    else:
        ended = isinstance(ev.period, int) and s.halves_ended >= ev.period
    if not ended:
        raise RuleViolation("M6", N_("period {period} has not ended: its score is confirmed after it"), {"period": ev.period})
    if ev.period in s.confirmed:
        raise RuleViolation("M6", N_("period {period} is already confirmed"), {"period": ev.period})
    s.confirmed.append(ev.period)


@_handle.register
def _sign(ev: Sign, s: MatchState, now: int) -> None:
    """M6: officials and both captains sign once the match is over; the main referee's signature locks it."""
    if s.phase not in ("finished", "abandoned"):
        raise RuleViolation("M6", N_("the score sheet is signed once the match is finished or abandoned"))
    if any(sig.as_ == ev.as_ for sig in s.signatures):
        raise RuleViolation("M6", N_("the {who} has already signed"), {"who": ev.as_})
    s.signatures.append(Signature(ev.as_, ev.name, now))
    if ev.as_ == "referee":
        s.locked = True


@_handle.register
def _reopen(ev: Reopen, s: MatchState, now: int) -> None:
    """M6: the organiser reopens a locked match; it must be signed again."""
    if not s.locked:
        raise RuleViolation("M6", N_("the match is not locked: there is nothing to reopen"))
    s.locked, s.signatures = False, []


# --------------------------------------------------------------------------------------------
# Helpers


def _require_half(s: MatchState, rule: str, what: str) -> None:
    if s.phase not in HALVES:
        raise RuleViolation(
            rule, N_("{what} can only happen during a half, not the {phase}"), {"what": what, "phase": _phase_words(s)}
        )


def _require_live(s: MatchState, rule: str, what: str) -> None:
    _require_half(s, rule, what)
    if s.ball != "live":
        if s.restart is None:
            raise RuleViolation(rule, N_("the ball is dead: {what} needs the ball in play"), {"what": what})
        raise RuleViolation(
            rule,
            N_("the ball is dead ({restarting}'s {restart} is pending): {what} needs the ball in play"),
            {"restarting": s.restart.team, "restart": RESTART_WORDS[s.restart.type], "what": what},
            NEXT_RESTART,
        )


def _need_spot(spot: tuple[float, float] | None, what: str) -> geo.Point:
    if spot is None:
        raise InvalidEvent({"spot": [f"{what} needs a spot"]})
    return geo.Point(*spot)


def _side_or_low(s: MatchState, spot: tuple[float, float] | None) -> Side:
    return geo.side_of(s.setup.field, geo.Point(*spot)) if spot is not None else "low"


def _free_kick(s: MatchState, team: Team, origin: geo.Point) -> Restart:
    """A free kick for ``team``, moved out by the 3 m rule from the other team's area (10.8); 1.0: by
    2 m from either area, the nearer one (V1-6, V1-D7: fields are at least 35 m long, so only one counts)."""
    book, f = s.setup.rules.book, s.setup.field
    guarded = geo.nearest_end(f, geo.clamp_to_field(f, origin)) if book.clear_both_areas else s.defended_end(other_team(team))
    spot = geo.free_kick_spot(f, origin, guarded, book.free_kick_clearance)
    moved = spot != geo.clamp_to_field(s.setup.field, origin)
    return Restart("free_kick", team, spot, origin=geo.clamp_to_field(s.setup.field, origin) if moved else None)


def _stop(s: MatchState, kind: Any = "normal") -> None:
    """The ball becomes dead: a new stoppage begins (10.2); a right carried from an injury stoppage is due now (M5)."""
    s.ball, s.restart_in_play, s.stoppage = "dead", None, Stoppage(kind=kind)
    for ts in s.teams.values():
        ts.replacements_due += ts.replacements_carried
        ts.replacements_carried = 0


def _rule(s: MatchState, ruling: Ruling) -> None:
    """Record a decision as the engine makes it (rulings.py): the replay's step carries it to the reports."""
    s.rulings = (*s.rulings, ruling)


def _awarded(s: MatchState, retake: bool = False) -> None:
    """The pending restart, with why it was given, is this event's ruling (and its 3 m move, 10.8)."""
    r = s.restart
    assert r is not None
    _rule(s, RestartAwarded(r, retake))
    if r.origin is not None:
        _rule(s, FreeKickMoved(r.team, r.origin, r.spot))


def _give(s: MatchState, restart: Restart) -> None:
    _give_restart(s, restart.type, restart.team, restart.spot, restart.end)
    if restart.origin is not None and s.restart is not None:
        s.restart = dataclasses.replace(s.restart, origin=restart.origin)


def _explain(s: MatchState, rule: str, template: str, **params: object) -> None:
    """Say why the pending restart was given (spectators see it in their language, issue 13)."""
    if s.restart is not None:
        cited = s.setup.rules.book.cite(rule)  # a 1.0 match's restarts cite 1.0 (SPEC §11.12)
        s.restart = dataclasses.replace(s.restart, why=Why(cited, template, tuple(params.items())))


def _explain_call(s: MatchState, rule: str, kind: str, team: Team, player: int | None) -> None:
    what = violation_label(kind)
    if player is None:
        _explain(s, rule, N_("{what} by {team}"), what=what, team=team)
    else:
        _explain(s, rule, N_("{what} by {team} #{player}"), what=what, team=team, player=player)


def _explain_foul(s: MatchState, rule: str, team: Team, player: int | None) -> None:
    if player is None:
        _explain(s, rule, N_("foul by {team}"), team=team)
    else:
        _explain(s, rule, N_("foul by {team} #{player}"), team=team, player=player)


def _at_end(s: MatchState, kind: RestartType, team: Team, end: Any, side: Side) -> Restart:
    """A restart taken at ``end`` on ``side``: an end-line ball (10.4), or 1.0's corner at the field's corner
    (V1-D4) or short corner at the end-line restart line's midpoint (V1-D5)."""
    spot = {"corner": geo.corner_spot, "short_corner": geo.short_corner_spot}.get(kind, geo.end_line_restart_spot)
    return Restart(kind, team, spot(s.setup.field, end, side), end)


def _give_restart(s: MatchState, kind: RestartType, team: Team, spot: geo.Point, end: Any = None) -> None:
    """Award a restart: its team has the ball and is in attacking state (13.1 note, 2)."""
    _gain_possession(s, team)
    s.attacking = True
    s.restart = Restart(kind, team, spot, end)


def _gain_possession(s: MatchState, team: Team) -> None:
    """13.1: losing the ball loses the remaining opportunities; regaining it brings back the full K."""
    if s.possession == team:
        return
    s.possession = team
    ma = s.setup.rules.multi_attack
    for t in s.teams:
        ts = s.teams[t]
        now_numbered = {first: n for n, first in ts.first_numbers.items()}  # renumbered players (M2)
        ts.ma_players = {now_numbered.get(n, n): ma.k for n in ma.designated(t)}
        holds = (ma.mode == "teams" and t in ma.teams) or (
            ma.mode == "trailing" and s.score[t] < s.score[other_team(t)]  # decided now
        )
        ts.ma_team = ma.k if t == team and holds else None


def _forgive(s: MatchState, team: Team, player: int | None, spot: geo.Point | None, retake: Restart | None = None) -> bool:
    """Multiple attack opportunities (13.1): is this error by ``team`` forgiven? If so, restart its attack.

    Forgiven while the team has the ball in attacking state and the holder has more than one
    opportunity left: the attack restarts for the same team with ``retake`` when the error was in
    taking a restart, else with a free kick where the ball was last touched (``spot``, 3 m rule).
    """
    if s.possession != team or not s.attacking:
        return False
    ma = s.setup.rules.multi_attack
    ts = s.teams[team]
    if ma.mode == "players":
        if player is None or ts.ma_players.get(player, 0) <= 1:
            return False
        ts.ma_players[player] -= 1
        left = ts.ma_players[player]
    elif ts.ma_team is not None and ts.ma_team > 1:
        ts.ma_team -= 1
        left = ts.ma_team
    else:
        return False
    if retake is None:
        retake = _free_kick(s, team, geo.clamp_to_field(s.setup.field, _need_spot_point(spot)))
    in_play = s.ball == "live"
    if in_play:
        _stop(s)
    s.restart, s.attacking = retake, True
    _explain(s, "13.1", N_("{team}'s error is forgiven (one attack chance used): the attack starts again"), team=team)
    assert s.restart is not None
    _rule(s, ErrorForgiven(team, player, left, s.restart))
    if in_play:
        _awarded(s, retake=True)  # the ball was in play: the attack restarts (not a new award)
    else:
        _rule(s, RestartStands(s.restart, "13.1"))  # the restart being taken is taken again
    return True


def _need_spot_point(spot: geo.Point | None) -> geo.Point:
    if spot is None:
        raise InvalidEvent({"spot": ["a forgiven error restarts where the ball was last touched: send that spot"]})
    return spot


def _eligible_bench(s: MatchState, team: Team) -> list[int]:
    ts = s.teams[team]
    return [n for n in ts.roster if n not in ts.on_field and n not in ts.sent_off]


def _phase_words(s: MatchState) -> str:
    return {
        "scheduled": N_("time before the match"),
        "first_half": N_("first half"),
        "halftime": N_("half-time break"),
        "second_half": N_("second half"),
        "shootout": N_("penalty shootout"),
        "finished": N_("finished match"),
        "abandoned": N_("abandoned match"),
    }[s.phase]


def _mmss(ms: int) -> str:
    sec = max(0, ms) // 1000
    return f"{sec // 60}:{sec % 60:02d}"
