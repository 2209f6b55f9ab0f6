"""Corrections decided (SPEC D8, M3, issue 28): a ``void``, ``amend`` or ``insert`` in place, the later calls
decided again from its place on, and what it decided (its own event's rulings, a ``RuledAgain`` for every
later call now ruled otherwise) stored with it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .corrections import check_correction, effective_log
from .errors import N_, RuleViolation
from .replay import L, Logged, ReplayError, replay_steps, stored_rulings
from .rulings import RuledAgain, Ruling
from .sheet import locked_refusal
from .state import MatchState, initial_state


def correct(state: MatchState, log: Sequence[L], row: L) -> tuple[MatchState, list[L]]:
    """The state with the correction ``row`` (a void, amend or insert) in place (D8, M3), and the log
    before ``row`` with the voided or replaced event marked (the caller appends ``row`` once stored).

    Refused citing D8, with ``first_refused``, when a later event would no longer be legal; an
    amend's or insert's own event that is illegal at its place is refused as posting it there would be.
    """
    corrected, new_log, _ = correct_ruled(state, log, row)
    return corrected, new_log


def correct_ruled(state: MatchState, log: Sequence[L], row: L) -> tuple[MatchState, list[L], tuple[Ruling, ...]]:
    """``correct``, and what the correction decided (issue 28): a correction is itself a decision. The calls
    before its place are folded as stored; from its place on the engine decides them again. Its rulings: its
    own event's (an amend's or insert's), then a ``RuledAgain`` for every later call now ruled otherwise than
    it was, stored with the correction so that its replay folds them too."""
    if state.locked:
        raise locked_refusal()
    check_correction(log, row.type, row.fields, row.by)
    target = row.fields.get("target")
    new_log = [dataclasses.replace(e, voided_by=row.seq) if e.seq == target else e for e in log]  # type: ignore[type-var]
    corrected_log = [*new_log, row]
    before = [(e.seq, e.type, e.fields, e.at_ms) for e in effective_log(log)]
    after = effective_log(corrected_log)
    place = next(
        (i for i, (b, a) in enumerate(zip(before, after, strict=False)) if b != (a.seq, a.type, a.fields, a.at_ms)), None
    )
    if place is None:
        place = min(len(before), len(after))
    was = stored_rulings(log)
    own_rulings: tuple[Ruling, ...] = ()
    again: list[Ruling] = []
    corrected = initial_state(state.setup)
    try:
        for step in replay_steps(state.setup, corrected_log, keep_states=False, decide_from=place):
            corrected = step.after
            if step.entry.seq == row.seq:
                own_rulings = step.rulings
            elif step.entry.seq in was and was[step.entry.seq] != step.rulings:
                again.append(RuledAgain(step.entry.seq, step.rulings))
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
    corrected.rulings = (*own_rulings, *again)
    return corrected, new_log, corrected.rulings


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
