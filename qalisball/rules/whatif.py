"""The arbitration committee's what-if (issue 24, SPEC C7): a match replayed with one call changed.

A protest disputes a call. The committee changes that call on a *copy* of the match's log (an ``amend``,
a ``void`` or an ``insert``, exactly as the referee would post it, SPEC D8 and M3) and the engine replays
both logs. Unlike a real correction (``engine.correct``), a later event that the changed log no longer
allows does not refuse the change: it is left out of the what-if and listed, with the rule that refuses
it, because that is what the committee must see ("after this, the restart taken at 12:40 would have been
illegal: 10.1"). A change that is itself illegal at its place is refused as posting it would be.

Pure: the caller's log is never changed (rows are frozen dataclasses, copied with ``dataclasses.replace``),
and nothing here stores anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from .common import TEAMS, Team
from .competition.discipline import Cards
from .corrections import Row, check_correction, effective_log
from .engine import decide
from .errors import InvalidEvent, RuleViolation
from .events import from_fields
from .replay import ReplayError, replay_steps
from .state import MatchSetup, MatchState, Restart, initial_state

ChangeKind = Literal["amend", "void", "insert"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("amend", "void", "insert")

L = TypeVar("L", bound=Row)


@dataclass(frozen=True)
class Change:
    """One change of the copy: ``kind`` is ``amend``, ``void`` or ``insert``; ``fields`` its body as posted
    (``target`` and ``event`` for an amend, ``target`` for a void, ``after`` and ``event`` for an insert)."""

    kind: ChangeKind
    fields: Mapping[str, Any]

    @property
    def place(self) -> int:
        """The seq of the call the change is about: the one amended or voided, or the one inserted after."""
        return int(self.fields["after"] if self.kind == "insert" else self.fields["target"])


@dataclass(frozen=True)
class Refused:
    """A later event of the log that the changed log no longer allows, and the rule that refuses it."""

    seq: int
    type: str
    rule: str
    template: str
    params: Mapping[str, object]

    @property
    def message(self) -> str:
        return self.template.format(**self.params)


@dataclass(frozen=True)
class Outcome(Generic[L]):
    """One log replayed to its end: the state, the events left out (refused), and the restart that stood
    right after the changed call (``restart_after``: None when none was pending)."""

    state: MatchState
    refused: tuple[Refused, ...]
    restart_after: Restart | None


@dataclass(frozen=True)
class WhatIf(Generic[L]):
    """Both outcomes, side by side: the match as logged and the match with the changes."""

    actual: Outcome[L]
    what_if: Outcome[L]
    changes: tuple[Change, ...]


def what_if(setup: MatchSetup, log: Sequence[L], changes: Sequence[Change], by: str = "referee") -> WhatIf[L]:
    """Replay ``log`` as it is and with ``changes`` (in order, as if posted one after the other at the end).

    Raises ``RuleViolation`` (D8, M6, or the changed event's own rule) when a change is itself refused, and
    ``KeyError`` when it names a seq the log does not have (the API's 404, checked first).
    """
    if not changes:
        raise ValueError("a what-if needs at least one change")
    rows = list(log)
    seqs = {r.seq for r in rows}
    added: list[int] = []
    for change in changes:
        at_start = change.kind == "insert" and change.place == 0  # an insert before the first event (M3)
        if not rows or (change.place not in seqs and not at_start):
            raise KeyError(change.place)
        new_seq = max(seqs) + 1
        check_correction(rows, change.kind, change.fields, None)  # what may be amended or voided (D8, M6)
        anchor = rows[0] if at_start else next(r for r in rows if r.seq == change.place)
        row = dataclasses.replace(  # type: ignore[type-var]
            anchor, seq=new_seq, type=change.kind, fields=dict(change.fields), by=by, voided_by=None
        )
        if change.kind != "insert":
            rows = [dataclasses.replace(r, voided_by=new_seq) if r.seq == change.place else r for r in rows]  # type: ignore[type-var]
        rows.append(row)
        seqs.add(new_seq)
        added.append(new_seq)
    first = changes[0]
    actual = replay_as_ruled(setup, log, restart_at=first.place)
    # After the change, the restart that stands at its place: the changed (or inserted) call's; for a
    # void, the one that stood before the voided call (none of the call remains).
    at = added[0] if first.kind != "void" else _before(log, first.place)
    changed = replay_leniently(setup, rows, restart_at=at, own=frozenset(added))
    return WhatIf(actual, changed, tuple(changes))


def replay_as_ruled(setup: MatchSetup, log: Sequence[L], restart_at: int | None = None) -> Outcome[L]:
    """The match as it was ruled: each entry folded from the rulings stored with it (issue 28 item 1: a stored
    call is never decided again, so the committee compares its change with the record, not with what today's
    engine would rule). A log that cannot be folded (entries without rulings the rules now refuse) is replayed
    leniently instead."""
    state = initial_state(setup)
    restart_after: Restart | None = None
    try:
        for step in replay_steps(setup, log, keep_states=False):
            state = step.after
            if step.entry.seq == restart_at:
                restart_after = state.restart  # a frozen value: the next step does not change it
    except ReplayError:
        return replay_leniently(setup, log, restart_at=restart_at)
    return Outcome(state, (), restart_after)


def replay_leniently(
    setup: MatchSetup, log: Sequence[L], restart_at: int | None = None, own: frozenset[int] = frozenset()
) -> Outcome[L]:
    """The state after ``log``'s effective events, leaving out (and listing) those the rules refuse.

    ``own``: seqs of the changes themselves, whose refusal is raised rather than listed (the change is
    refused as posting it would be). ``restart_at``: the seq after whose event the pending restart is kept.
    """
    state = initial_state(setup)
    refused: list[Refused] = []
    restart_after: Restart | None = None
    for e in effective_log(log):
        event = from_fields(e.type, e.fields)
        try:
            trial = decide(state, event, e.received_ms, e.at_ms).state
        except (RuleViolation, InvalidEvent) as exc:
            if e.seq in own:
                raise  # the change itself: refused (409) or invalid (400) as posting it would be
            refused.append(_refusal(e.seq, e.type, exc))
            continue
        state = trial
        if e.seq == restart_at:
            restart_after = state.restart
    return Outcome(state, tuple(refused), restart_after)


def _refusal(seq: int, event_type: str, exc: RuleViolation | InvalidEvent) -> Refused:
    if isinstance(exc, RuleViolation):
        return Refused(seq, event_type, exc.rule, exc.template, exc.params)
    # A shirt number the changed match no longer has (a renumber left out, M2): D8's replay refusal.
    return Refused(seq, event_type, "D8", "{error}", {"error": str(exc)})


def _before(log: Sequence[L], seq: int) -> int | None:
    """The seq of the effective event just before ``seq``'s place (None at the start of the log)."""
    order = [e.seq for e in effective_log(log)]
    if seq not in order:
        return None
    i = order.index(seq)
    return order[i - 1] if i > 0 else None


def cards(state: MatchState) -> dict[Team, dict[int, Cards]]:
    """The cards of a match as suspensions count them (C4): per team, per player, cautions and sendings-off.

    A second yellow is a sending-off, and its two cautions do not count again for accumulation (D64,
    ``Cards.from_counts``). Keyed by the numbers players have now.
    """
    out: dict[Team, dict[int, Cards]] = {}
    for t in TEAMS:
        ts = state.teams[t]
        players = set(ts.yellow) | set(ts.sent_off)
        out[t] = {n: Cards.from_counts(ts.yellow.count(n), 1 if n in ts.sent_off else 0) for n in sorted(players)}
    return out
