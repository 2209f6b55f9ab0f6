"""The rule book as a state machine: ``apply(state, event, now) -> state``, split by the rule book's chapters.

Every refusal raises ``RuleViolation`` naming the rule (SPEC.md, API.md error ``rule``); an event
naming something the match does not have raises ``InvalidEvent``. ``now`` is the server's time in
milliseconds (the engine has no clock of its own, STYLE.md): it drives the game clock (3.1) and the
30-second return after a goal (7.2). Section numbers in comments are the rule book's.

The chapters: ``dispatch.py`` (the checks every call passes, M1), ``phases.py`` (3, 4.2, 5),
``restarts.py`` (5.2, 7, 10), ``violations.py`` (8), ``fouls.py`` (9, 10.4–10.7), ``substitutions.py`` (11),
``possession.py`` (6, 13.1), ``shootout_calls.py`` (12), ``sheet.py`` (SPEC §9), what they share
``judging.py``; the replay ``replay.py`` and corrections ``correcting.py`` (D8, M3). This module names
them all, as callers have always imported them, and is the one road into the rules: ``decide`` (issue 28).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, cast

from .correcting import correct, correct_ruled
from .corrections import CORRECTIONS, duplicate_of
from .dispatch import AT_MS_TOLERANCE, apply, check_references, game_time
from .errors import RuleViolation
from .events import Event, Goal
from .judging import (
    AREA_TAP_TOLERANCE,
    NEXT_END_LINE,
    NEXT_RESTART,
    NEXT_STOPPAGE,
    RESTART_RULE,
    RESTART_WORDS,
    _handle,
    time_up,
)
from .replay import L, Logged, ReplayError, Step, decided_rulings, insert_point, replay, replay_steps, stored_rulings
from .rulings import Ruling
from .sheet import locked_refusal
from .state import MatchState
from .substitutions import may_substitute, substitution_refusal

__all__ = [
    "AREA_TAP_TOLERANCE",
    "AT_MS_TOLERANCE",
    "Decision",
    "L",
    "NEXT_END_LINE",
    "NEXT_RESTART",
    "NEXT_STOPPAGE",
    "RESTART_RULE",
    "RESTART_WORDS",
    "Goal",
    "Logged",
    "ReplayError",
    "RuleViolation",
    "Step",
    "_handle",
    "apply",
    "check_references",
    "correct",
    "correct_ruled",
    "decide",
    "decided_rulings",
    "game_time",
    "insert_point",
    "locked_refusal",
    "may_substitute",
    "replay",
    "replay_steps",
    "stored_rulings",
    "substitution_refusal",
    "time_up",
]


# --------------------------------------------------------------------------------------------
# The one road into the rules (issue 28 item 2)


class Decision(NamedTuple, Generic[L]):
    """What the rules decided on one call (issue 28): nothing stored yet, the state given unchanged.

    ``state``: the match after the call; ``rulings``: what was ruled on it, in the order ruled (stored with its
    entry; a correction's are its own event's and a ``RuledAgain`` for every later call it rules otherwise);
    ``at_ms``: the game time the call is logged with (M1: the one it was stamped with, else the clock's now);
    ``log``: the log before the call, with the entry a correction voids or replaces marked (the caller appends
    the call's own entry once stored); ``duplicate_of``: M4, the same call logged just before by an official,
    when it is one (then nothing is decided: ``state`` is the state given, nothing is to be stored). A named
    tuple: ``legal`` decides some thirty trial calls per state, each answer costs only its tuple."""

    state: MatchState
    rulings: tuple[Ruling, ...]
    at_ms: int | None
    log: Sequence[L]
    duplicate_of: L | None = None


@dataclass(frozen=True)
class _Call:
    """A correction's own row while it is decided (it is stored by the caller once decided): ``Logged``."""

    seq: int
    type: str
    fields: dict[str, Any]
    by: str
    at_ms: int | None
    received_ms: int
    voided_by: int | None = None


def decide(
    state: MatchState, event: Event, now: int, at_ms: int | None = None, *, log: Sequence[L] | None = None, by: str = ""
) -> Decision[L]:
    """Decide one call: the road into the rules of the service, the what-if, ``legal`` and the console's hints
    (a replay, training's too, folds its stored entries or decides them itself: ``replay.py``).

    In order: the rosters the call names (``InvalidEvent``, 400), its game time (M1: ``at_ms`` as stamped by the
    official's console, else the clock's at ``now``), then with the match's ``log`` given the same call logged
    just before (M4: ``duplicate_of``, nothing decided) and corrections (``void``, ``amend``, ``insert``: the
    later calls decided again, D8, M3), else the call itself (``RuleViolation``, 409). A call stamped before
    the last one is refused saying where it fits (``fits_after``, M1 with M3) when the log is given. ``by`` is
    the role posting it. Pure: ``state`` and ``log`` are left as they are (``Decision``).
    """
    check_references(state, event)
    stamp = at_ms if at_ms is not None else game_time(state, now)
    if log is None:
        new = apply(state, event, now, at_ms)
        return Decision(new, new.rulings, stamp, ())
    fields = event.fields()
    first = duplicate_of(log, by, event.type, fields, stamp)
    if first is not None:
        return Decision(state, (), stamp, log, first)
    try:
        if event.type in CORRECTIONS:
            row = _Call(log[-1].seq + 1 if log else 1, event.type, fields, by, stamp, now)
            corrected, marked, rulings = correct_ruled(state, cast("Sequence[Logged]", log), row)
            return Decision(corrected, rulings, stamp, cast("list[L]", marked))
        new = apply(state, event, now, at_ms)
    except RuleViolation as refusal:
        if refusal.details.pop("late_call", False) and at_ms is not None:
            refusal.details["fits_after"] = insert_point(state.setup, log, at_ms)
        raise
    return Decision(new, new.rulings, stamp, log)
