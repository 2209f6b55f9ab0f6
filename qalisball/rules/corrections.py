"""Corrections of the past (SPEC D8, M3) and one call seen by two officials (M4), over the event log.

The log is append-only. A ``void`` hides an event; an ``amend`` replaces one in its place; an
``insert`` adds a missed event right after another. ``effective_log`` turns the log into the
sequence of events the state is the replay of: each correction's event stands where it belongs,
with the times it is judged at (M1), and everything voided or replaced is left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .catalogue import CORRECTABLE, NOT_UNDOABLE
from .errors import N_, RuleViolation

# M4: a second official's call of the same goal or ball-out within this much game time.
DUPLICATE_WINDOW_MS = 10_000
# The calls two officials may both log (M4): goals, and balls out (4.3).
_DUPLICABLE_KINDS = frozenset({"ball_out_side", "ball_out_end"})
CORRECTIONS = frozenset({"void", "amend", "insert"})


class Row(Protocol):
    """One row of the event log, as the store keeps it (a frozen dataclass)."""

    @property
    def seq(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def received_ms(self) -> int: ...
    @property
    def at_ms(self) -> int | None: ...
    @property
    def voided_by(self) -> int | None: ...
    @property
    def by(self) -> str: ...


R = TypeVar("R", bound=Row)


def effective_log(log: Iterable[R]) -> list[R]:
    """The events the state is the replay of, in order, each correction's event in its place.

    An event replaced by an ``amend`` appears as the amend's row carrying the new event (its
    ``seq`` and ``by`` are the amend's; its times are the replaced event's unless the new event
    gives its own ``at_ms``). An ``insert`` appears right after the event it names (after the
    earlier inserts there): with its own ``at_ms`` it is judged at that game time, without one
    right after that event. A void of an amend or insert undoes that correction.
    """
    rows = list(log)
    by_seq = {e.seq: e for e in rows}
    inserts: dict[int, list[R]] = {}
    for e in rows:
        if e.type == "insert":
            inserts.setdefault(int(e.fields["after"]), []).append(e)

    # (effective row, anchor of an insert that has no time of its own)
    placed: list[tuple[R, R | None, bool]] = []

    def current(row: R) -> R | None:
        return _current(row, by_seq)

    def place_inserts(seqs: Iterable[int], anchor: R | None) -> None:
        for seq in seqs:
            for ins in inserts.get(seq, []):
                now = current(ins)
                if now is None:
                    continue
                body = now.fields["event"]
                row = _embed(now, body, at_ms=body.get("at_ms"), received_ms=now.received_ms)
                placed.append((row, anchor, "at_ms" in body))
                place_inserts(_place_seqs(ins, by_seq), row)

    place_inserts([0], None)
    for e in rows:
        if e.type in CORRECTIONS:
            continue
        now = current(e)
        row = None
        if now is e:
            row = e
        elif now is not None:
            body = now.fields["event"]
            row = _embed(now, body, at_ms=body.get("at_ms", e.at_ms), received_ms=e.received_ms)
        if row is not None:
            placed.append((row, None, False))
        place_inserts(_place_seqs(e, by_seq), row if row is not None else e)

    out: list[R] = []
    for i, (row, anchor, own_time) in enumerate(placed):
        if own_time:
            # Received, for the clock, with the event that follows it (its game time lies before).
            later = placed[i + 1][0] if i + 1 < len(placed) else row
            row = dataclasses.replace(row, received_ms=max(later.received_ms, row.received_ms if later is row else 0))  # type: ignore[type-var]
        elif anchor is not None:
            row = dataclasses.replace(row, received_ms=anchor.received_ms, at_ms=anchor.at_ms)  # type: ignore[type-var]
        out.append(row)
    return out


def _current(row: R, by_seq: Mapping[int, R]) -> R | None:
    """The row that stands in ``row``'s place now: itself, the last amend of it, or nothing."""
    cur = row
    while cur.voided_by is not None:
        replacer = by_seq.get(cur.voided_by)
        if replacer is None or replacer.type == "void":
            return None
        undone = replacer.voided_by is not None and by_seq.get(replacer.voided_by, replacer).type == "void"
        if undone:
            break  # the amend was voided: what it replaced stands again
        cur = replacer
    return cur


def struck(log: Iterable[Row]) -> set[int]:
    """The seqs of the entries that no longer count (D8, M3): voided, or replaced by an amend that stands
    (an amend of an amend included). An entry whose amend was voided counts again; the log's screens strike
    out these and no other (``GET .../events``' ``struck``, docs/api-extras.md)."""
    by_seq = {e.seq: e for e in log}
    return {e.seq for e in by_seq.values() if e.voided_by is not None and _current(e, by_seq) is not e}


def _place_seqs(row: R, by_seq: Mapping[int, R]) -> list[int]:
    """The seqs that name ``row``'s place: its own, and those of the amends that replaced it."""
    seqs = [row.seq]
    cur = row
    while cur.voided_by is not None:
        nxt = by_seq.get(cur.voided_by)
        if nxt is None or nxt.type != "amend":
            break
        seqs.append(nxt.seq)
        cur = nxt
    return seqs


def _embed(row: R, body: Mapping[str, Any], at_ms: int | None, received_ms: int) -> R:
    """``row`` (an amend or insert) as the event it carries."""
    fields = {k: v for k, v in body.items() if k not in ("type", "at_ms")}
    return dataclasses.replace(row, type=body["type"], fields=fields, at_ms=at_ms, received_ms=received_ms)  # type: ignore[type-var]


# The role of the installation's organiser token (catalogue.ORGANISER): whose events only it may change.
_ORGANISER = "organiser"


def undo_barred_authors(role: str) -> list[str]:
    """M6, D132: whose events ``role`` may not void or amend (the console's Undo skips them)."""
    return [] if role == _ORGANISER else [_ORGANISER]


def check_correction(log: Iterable[R], event_type: str, fields: Mapping[str, Any], role: str | None = None) -> None:
    """D8, M3, M6: what a void or an amend sent by ``role`` may target (its existence is checked by the caller: 404)."""
    if event_type not in ("void", "amend"):
        return
    rows = {e.seq: e for e in log}
    target = rows[int(fields["target"])]
    _check_sheet_and_owner(target, role)
    if target.type == "void":
        raise RuleViolation(
            "D8", N_("event {target} is a void: a void cannot be voided; log the event again"), {"target": target.seq}
        )
    if target.voided_by is not None:
        by = rows.get(target.voided_by)
        undone = by is not None and by.voided_by is not None and rows.get(by.voided_by, by).type == "void"
        if not undone:
            if by is not None and by.type == "amend":
                raise RuleViolation(
                    "D8",
                    N_("event {target} was replaced by event {by}: correct event {by} instead"),
                    {"target": target.seq, "by": by.seq},
                )
            raise RuleViolation(
                "D8", N_("event {target} was already voided by event {by}"), {"target": target.seq, "by": target.voided_by}
            )
    if event_type == "amend" and target.type not in CORRECTABLE | {"amend", "insert"}:
        raise RuleViolation(
            "D8",
            N_("event {target} ({type}) is not a call of the match: void it and log it again"),
            {"target": target.seq, "type": target.type},
        )


def _check_sheet_and_owner(target: Row, role: str | None) -> None:
    """M6, D132: the score sheet is corrected forwards, never undone; an organiser's event is the organiser's.

    Undoing a reopen would lock the match again with the old signatures; undoing a signature or a
    confirmation would change a sheet that others signed. A correction of the sheet is a new ``reopen``
    and new signatures. ``role`` None (the engine's own replays) checks the sheet only.
    """
    params = {"target": target.seq, "type": target.type}
    if target.type in NOT_UNDOABLE:
        raise RuleViolation(
            "M6",
            N_(
                "event {target} ({type}) is part of the score sheet and is not undone: to correct the sheet, "
                "the organiser reopens the match and the officials sign again"
            ),
            params,
        )
    if role is not None and target.by in undo_barred_authors(role):
        raise RuleViolation(
            "M6", N_("event {target} ({type}) was logged by the organiser: only the organiser may undo it"), params
        )


def last_call(log: Iterable[R]) -> R | None:
    """The last entry that says something about the play: notes (D35) and pausing or resuming the clock
    (D167: the referee often stops the clock at a goal) come between a call and its duplicate (M4)."""
    rows = log if isinstance(log, Sequence) else list(log)  # the match's log is a list: read from its end, no copy
    return next((e for e in reversed(rows) if not _beside_the_play(e)), None)


def _beside_the_play(e: Row) -> bool:
    return e.type == "note" or (e.type == "clock" and e.fields.get("action") in ("pause", "resume"))


def duplicate_of(log: Iterable[R], by: str, event_type: str, fields: Mapping[str, Any], at_ms: int | None) -> R | None:
    """M4: the call logged just before, if this one is the same call seen twice.

    Same type (a goal, or a ball out of the same kind) and team, the player the same or missing in
    one of them, the last call logged (``last_call``), within 10 s of game time. By another official
    or by the same role (D230: its second tablet, or one tablet tapped twice): with nothing logged in
    between, a second goal of the same team cannot be a new goal. ``by`` names who asks (unused: the
    answer names the first call's official).
    """
    if event_type not in ("goal", "violation"):
        return None
    if event_type == "violation" and fields.get("kind") not in _DUPLICABLE_KINDS:
        return None
    last = last_call(log)
    if last is None or last.voided_by is not None or last.type != event_type:
        return None
    if last.fields.get("team") != fields.get("team") or last.fields.get("kind") != fields.get("kind"):
        return None
    mine, theirs = fields.get("player"), last.fields.get("player")
    if mine is not None and theirs is not None and mine != theirs:
        return None
    if at_ms is not None and last.at_ms is not None and abs(at_ms - last.at_ms) > DUPLICATE_WINDOW_MS:
        return None
    return last
