"""The replay (SPEC D8, issue 28): a log folded from the rulings stored with each entry, an entry stored
without them decided; what the engine running now would rule otherwise on a stored call is said
(``Step.overruled``), never applied.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from . import shootout as so
from .corrections import CORRECTIONS, Row, effective_log
from .dispatch import _apply_in_place, apply, check_references
from .errors import InvalidEvent, RuleViolation
from .events import Event, PeriodEnd, PeriodStart, from_fields
from .judging import _Disagrees, _forgiven, _gain_possession, _stop
from .restarts import _take_restart
from .rulings import (
    Cautioned,
    ErrorForgiven,
    GoalCounted,
    LeftInjured,
    PenaltyConverted,
    PenaltyMissed,
    RestartAwarded,
    RestartStands,
    RuledAgain,
    Ruling,
    SentOff,
    ShootoutKickTaken,
    own,
)
from .rulings import RestartTaken as RestartTakenRuling
from .state import HALVES, MatchSetup, MatchState, initial_state

Logged = Row  # one row of the event log (the store's ``LogEntry`` is one)


L = TypeVar("L", bound=Logged)


@dataclass(frozen=True)
class Step(Generic[L]):
    """One event of the replay with the states on either side of it (``before`` only when kept), and what
    was ruled on it (rulings.py: restarts awarded and why, errors forgiven, penalties converted,
    sendings-off, shootout kicks …), in the order it was ruled: as stored with the entry (issue 28), or as
    the engine decides it for an entry stored without rulings. ``overruled``: why the engine running now
    would not rule a stored call as it was ruled (it is folded as stored all the same), else None."""

    entry: L
    event: Event
    before: MatchState | None
    after: MatchState
    rulings: tuple[Ruling, ...] = ()
    overruled: str | None = None


def stored_rulings(log: Iterable[Logged]) -> dict[int, tuple[Ruling, ...]]:
    """The rulings each entry of ``log`` is folded with (issue 28): its own stored rulings, or those the latest
    correction that decided it again stored for it (``RuledAgain``). Entries stored without rulings are absent."""
    out: dict[int, tuple[Ruling, ...]] = {}
    for e in log:
        ruled = getattr(e, "rulings", None)
        if ruled is None:
            continue
        out[e.seq] = own(ruled)
        for again in ruled:
            if isinstance(again, RuledAgain):
                out[again.seq] = again.rulings
    return out


def replay_steps(
    setup: MatchSetup, log: Iterable[L], keep_states: bool = True, decide_from: int | None = None
) -> Iterator[Step[L]]:
    """Replay a log, one step per effective event (SPEC D8): start-up, voids and reports all use this.

    An entry stored with its rulings is folded from them: the engine never decides a stored call again
    (issue 28); where the engine running now would rule it otherwise, the step says so (``overruled``) and
    the state is still what was ruled. An entry without stored rulings is decided, as are the effective
    events from index ``decide_from`` on (a correction decides the calls after it again; 0: all of them).
    With ``keep_states`` every step has its own ``before`` and ``after`` (reports look at both);
    without, no ``before`` is kept and a decided step changes its state in place (fast: a step's ``after``
    may change with the next step).
    Raises ``ReplayError`` naming the first event decided that the rules no longer allow.
    """
    rows = list(log)
    ruled = stored_rulings(rows) if decide_from != 0 else {}
    state = initial_state(setup)
    for i, e in enumerate(effective_log(rows)):
        event = from_fields(e.type, e.fields)
        stored = ruled.get(e.seq) if decide_from is None or i < decide_from else None
        overruled: str | None = None
        if stored is not None:
            after, overruled = _fold(state, event, e.received_ms, e.at_ms, stored)  # a new state object either way
        else:
            try:
                check_references(state, event)  # the roster changes during a match (M2)
                if keep_states:
                    after = apply(state, event, e.received_ms, e.at_ms)
                else:
                    _apply_in_place(state, event, e.received_ms, e.at_ms)
                    after = state
            except (RuleViolation, InvalidEvent) as exc:
                raise ReplayError(e.seq, event, exc) from exc
        yield Step(e, event, state if keep_states else None, after, after.rulings, overruled)
        state = after


def fold_appended(state: MatchState, entry: Logged) -> MatchState | None:
    """The state after ``entry`` appended to the log that folded to ``state``, from its stored rulings (issue 31:
    a league's copy follows its venue one entry at a time, never deciding a call again), as ``replay_steps`` of the
    whole log would fold it; None when only that whole replay can say (a correction, which changes what counts
    before it, or an entry stored without rulings). ``state`` is not changed."""
    ruled = getattr(entry, "rulings", None)
    if ruled is None or entry.type in CORRECTIONS or any(isinstance(r, RuledAgain) for r in ruled):
        return None
    after, _ = _fold(state, from_fields(entry.type, entry.fields), entry.received_ms, entry.at_ms, own(ruled))
    return after


def decided_rulings(setup: MatchSetup, log: Sequence[L]) -> dict[int, tuple[Ruling, ...]]:
    """What the engine running now rules on every entry of a log stored without rulings (issue 28's migration):
    each effective event as the replay of the whole log decides it; an event voided or replaced since as the
    log up to it decided it when it was stored; a void (), its calls decided again are the later entries' own.
    An entry from the first one the rules refuse on is left out (its replay refuses it, as before)."""
    out: dict[int, tuple[Ruling, ...]] = {}
    try:
        for step in replay_steps(setup, log, keep_states=False, decide_from=0):
            out[step.entry.seq] = step.rulings
    except ReplayError as exc:
        return {seq: r for seq, r in out.items() if seq < exc.seq}
    for i, e in enumerate(log):
        if e.seq in out:
            continue
        if e.type == "void":
            out[e.seq] = ()
            continue
        try:
            last = None
            then = [x if x.voided_by is None or x.voided_by <= e.seq else _unvoided(x) for x in log[: i + 1]]
            for step in replay_steps(setup, then, keep_states=False, decide_from=0):
                last = step
            out[e.seq] = last.rulings if last is not None and last.entry.seq == e.seq else ()
        except ReplayError:
            out[e.seq] = ()
    return out


def _unvoided(row: L) -> L:
    """``row`` as it was before a later correction marked it (the log as it stood then)."""
    return dataclasses.replace(row, voided_by=None)  # type: ignore[type-var]


def _fold(
    state: MatchState, event: Event, now: int, at_ms: int | None, stored: tuple[Ruling, ...]
) -> tuple[MatchState, str | None]:
    """The state after a stored call, evolved from what was ruled on it (issue 28).

    The engine's handler runs following the stored rulings: at each ruling the decision is the stored one
    (the restart, its spot and why, the attack chances left). Where today's engine refuses the call or rules
    other rulings, the state before is evolved from the stored rulings alone (``_evolve``), and the reason
    is returned to be reported (``python -m qalisball verify``), never applied.
    """
    work = state.copy()  # one copy, as ``apply``: the state before stays whole should today's engine refuse
    work.following, work.overruled = stored, None
    try:
        check_references(work, event)
        _apply_in_place(work, event, now, at_ms)
        if work.rulings != stored:
            raise _Disagrees(f"today's engine rules {len(work.rulings)} rulings, {len(stored)} were stored")
        work.following = None
        return work, work.overruled
    except (RuleViolation, InvalidEvent, _Disagrees) as exc:
        reason = f"today's engine would refuse it ({exc})" if not isinstance(exc, _Disagrees) else str(exc)
    work = state.copy()
    _evolve(work, stored, now, at_ms)
    return work, reason


def _evolve(s: MatchState, stored: tuple[Ruling, ...], now: int, at_ms: int | None) -> None:
    """Evolve ``s`` from the stored rulings alone: a call today's engine would not rule as it was ruled keeps
    its score, restarts, cards, injuries and shootout kicks (the rulings carry them, issue 28)."""
    s.following = None
    for r in stored:
        if isinstance(r, RestartAwarded):
            if s.ball == "live" or not r.retake:
                _stop(s, "free" if r.restart.type == "kickoff" else "normal")
            _gain_possession(s, r.restart.team)
            s.attacking, s.restart = True, r.restart
        elif isinstance(r, RestartStands):
            s.restart = r.restart
        elif isinstance(r, ErrorForgiven):
            _forgiven(s, r)
        elif isinstance(r, RestartTakenRuling):
            _take_restart(s, r.restart, r.player)
        elif isinstance(r, GoalCounted):
            s.score[r.team] += 1
            s.last_goal_at = now
        elif isinstance(r, PenaltyConverted | PenaltyMissed):
            s.penalty_in_play = None
        elif isinstance(r, Cautioned):
            s.teams[r.team].yellow.append(r.player)
        elif isinstance(r, SentOff):
            _send_off(s, r)
        elif isinstance(r, LeftInjured):
            ts = s.teams[r.team]
            if r.player in ts.on_field:
                ts.on_field.remove(r.player)
            ts.injured.append(r.player)
        elif isinstance(r, ShootoutKickTaken) and s.shootout is not None:
            s.shootout = so.kick(s.shootout, r.team, r.scored)
            if s.shootout.decided:
                s.phase, s.winner = "finished", s.shootout.winner
    if at_ms is not None:
        s.last_at_ms = max(s.last_at_ms, at_ms)
    s.rulings = stored


def _send_off(s: MatchState, r: SentOff) -> None:
    ts = s.teams[r.team]
    if r.second_yellow:
        ts.second_yellow.append(r.player)
    ts.sent_off.append(r.player)
    if r.player in ts.injured:
        ts.injured.remove(r.player)
    if r.player in ts.on_field:
        ts.on_field.remove(r.player)
        ts.replacements_due += 1


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
