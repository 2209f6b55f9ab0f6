"""What spectators are told of a correction that changes a goal (issue 19, D163, D164).

A correction is a new event in the log (SPEC D8, M3): a ``void``, an ``amend`` or an ``insert``. When it
takes away, moves or gives a goal, the score changes; the public screens then say why, in the words of
the correction itself: which call voided the goal and the rule that says so, which scorer replaced which,
the referee's reason. This module works out those facts from the log (pure: no words, no I/O); the pages
put them into words in the viewer's language.

A notice is shown where the goal was (``shows_at``, the seq of the timeline row that stands in the goal's
place now), or, for a goal voided outright that left no row, at the goal's own place (``place_key``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .catalogue import BY_TYPE
from .corrections import Row

Kind = Literal["disallowed", "corrected", "cancelled", "given"]
# 7.2 note: a goal is void when an attacker entered the area before the bottle lay flat (SPEC §3).
GOAL_VOID_RULE = "7.2"
# The decisions that make a correction: a void (D8), an amend or insert (M3).
VOID_RULE, AMEND_RULE = "D8", "M3"
PlaceKey = tuple[int, ...]


@dataclass(frozen=True)
class Notice:
    """One correction that changed a goal, as spectators are told of it."""

    seq: int  # the correction's own seq (a void, an amend or an insert)
    kind: Kind
    team: str  # the goal's team (as it stood before; for a goal given, the new goal's)
    player: int | None  # its scorer
    rule: str
    reason: str  # the referee's own words (a correction always has a reason)
    call: Mapping[str, Any] | None = None  # disallowed: the call that voids the goal (type and fields)
    new_team: str | None = None  # corrected: the goal as it stands now
    new_player: int | None = None
    shows_at: int | None = None  # the seq of the timeline row in the goal's place now; None: no row (cancelled)
    place: PlaceKey = ()  # the goal's place in the match (see ``place_key``)
    target: int = 0  # the seq of the event corrected (for a goal cancelled: the goal's row)
    at_ms: int | None = None  # the game time of the event corrected

    def public(self) -> dict[str, Any]:
        """The facts as pages hand them to scripts (JSON)."""
        return {
            "seq": self.seq,
            "kind": self.kind,
            "team": self.team,
            "player": self.player,
            "rule": self.rule,
            "reason": self.reason,
            "call": dict(self.call) if self.call is not None else None,
            "new_team": self.new_team,
            "new_player": self.new_player,
        }


def notices(log: Iterable[Row]) -> list[Notice]:
    """Every correction in ``log`` that took away, moved or gave a goal, in log order.

    A later correction may undo an earlier one (a void of a disallowing amend gives the goal back): both
    are listed, each saying what it did when it was made; ``in_force`` tells which still stand.
    """
    rows = list(log)
    by_seq = {r.seq: r for r in rows}
    out: list[Notice] = []
    for r in rows:
        found = _notice(r, by_seq)
        if found is not None:
            out.append(found)
    return out


def in_force(found: Iterable[Notice], shown_seqs: Iterable[int]) -> dict[int, Notice]:
    """The notice each shown timeline row carries (by the row's seq), the latest correction of that place.

    A notice whose row is no longer shown (its correction was itself undone) is dropped; a cancelled goal
    has no row and is handed back under its own correction's seq, to be placed by ``place``.
    """
    shown = set(shown_seqs)
    out: dict[int, Notice] = {}
    for n in found:
        if n.shows_at is None:
            out[n.seq] = n
        elif n.shows_at in shown:
            out[n.shows_at] = n  # a later correction of the same place wins
    return out


def place_key(seq: int, by_seq: Mapping[int, Row]) -> PlaceKey:
    """The place of event ``seq`` in the match, as ``corrections.effective_log`` orders it.

    An event logged in turn stands at its own seq; an amend takes the place of what it replaced; an insert
    comes right after the event it names (and after the inserts before it there). Keys compare as tuples.
    """
    row = by_seq.get(seq)
    if row is None:
        return (seq,)
    if row.type == "amend":
        return place_key(int(row.fields["target"]), by_seq)
    if row.type == "insert":
        return (*place_key(int(row.fields["after"]), by_seq), 1, row.seq)
    return (row.seq, 0)


def _body(row: Row) -> dict[str, Any] | None:
    """The event ``row`` stands for: its own fields, or the event an amend or insert carries."""
    if row.type in ("amend", "insert"):
        return dict(row.fields["event"])
    if row.type == "void":
        return None
    return {"type": row.type, **row.fields}


@dataclass(frozen=True)
class _Change:
    """What a correction did at one place: the event before and after it (None: no event)."""

    before: dict[str, Any] | None
    after: dict[str, Any] | None
    shows_at: int | None  # the row in that place now
    place_of: int  # the seq whose place it is
    at_ms: int | None


def _change(r: Row, by_seq: Mapping[int, Row]) -> _Change | None:
    if r.type == "insert":
        return _Change(None, dict(r.fields["event"]), r.seq, r.seq, _at(r))
    if r.type not in ("amend", "void"):
        return None
    target = by_seq.get(int(r.fields["target"]))
    if target is None:
        return None
    if r.type == "amend":
        return _Change(_body(target), dict(r.fields["event"]), r.seq, r.seq, _at(target))
    if target.type == "amend":
        # Undoing an amend: what it replaced stands again, in its place.
        replaced = by_seq.get(int(target.fields["target"]))
        if replaced is None:
            return None
        return _Change(_body(target), _body(replaced), replaced.seq, target.seq, _at(target))
    return _Change(_body(target), None, None, target.seq, _at(target))


def _notice(r: Row, by_seq: Mapping[int, Row]) -> Notice | None:
    """What correction ``r`` did to a goal, if anything."""
    change = _change(r, by_seq)
    if change is None:
        return None
    before, after = change.before, change.after
    kind = _kind(before, after)
    if kind is None:
        return None
    goal = before if kind != "given" else after
    assert goal is not None
    new = after if kind == "corrected" else None
    return Notice(
        seq=r.seq,
        kind=kind,
        team=str(goal["team"]),
        player=goal.get("player"),
        rule=_rule(kind, after, r.type),
        reason=str(r.fields.get("reason") or ""),
        call=after if kind == "disallowed" else None,
        new_team=str(new["team"]) if new is not None else None,
        new_player=new.get("player") if new is not None else None,
        shows_at=change.shows_at if kind != "cancelled" else None,
        place=place_key(change.place_of, by_seq),
        target=change.place_of,
        at_ms=change.at_ms,
    )


def _at(row: Row) -> int | None:
    """The game time of the event ``row`` stands for (an amend's or insert's own, else the row's)."""
    if row.type in ("amend", "insert") and row.fields["event"].get("at_ms") is not None:
        return int(row.fields["event"]["at_ms"])
    return row.at_ms


def _is_goal(body: Mapping[str, Any] | None) -> bool:
    return body is not None and body.get("type") == "goal"


def _kind(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> Kind | None:
    if _is_goal(before) and after is None:
        return "cancelled"
    if _is_goal(before) and not _is_goal(after):
        return "disallowed"
    if _is_goal(before) and _is_goal(after):
        assert before is not None and after is not None
        same = before["team"] == after["team"] and before.get("player") == after.get("player")
        return None if same else "corrected"
    if _is_goal(after):
        return "given"
    return None


def _rule(kind: Kind, after: Mapping[str, Any] | None, correction: str) -> str:
    """The rule a spectator is shown: for a disallowed goal, the call's own rule (7.2 note for a player
    in the area); otherwise the decision that makes the correction (D8 for a void, M3 for an amend)."""
    if kind == "disallowed" and after is not None:
        return call_rule(after)
    return VOID_RULE if correction == "void" else AMEND_RULE


def call_rule(body: Mapping[str, Any]) -> str:
    """The rule of the book behind a call that voids a goal (D163)."""
    if body.get("type") == "violation" and body.get("kind") == "player_in_area":
        return GOAL_VOID_RULE
    entry = BY_TYPE.get(str(body.get("type")))
    if entry is None:
        return AMEND_RULE
    if entry.variant_param:
        chosen = entry.variant(str(body.get(entry.variant_param)))
        if chosen is not None and chosen.rule:
            return chosen.rule
    return entry.rule or AMEND_RULE
