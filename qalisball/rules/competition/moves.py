"""Moving a fixture to another time or field (D75): what a reschedule may not do.

Fixtures overlap when their starts are less than one slot apart (a slot is a match with its turnaround);
in a competition without times, when they share a slot.
A moved fixture may not overlap another that is not over on the same field, nor one that a team of it
plays, nor one that an official of it officiates (D66 as for assigning him). Fixtures whose teams are
not known yet (a knockout's later rounds) clash by field only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import N_, RuleViolation


@dataclass(frozen=True)
class Booking:
    """A fixture as far as the schedule is concerned: when and where, who plays, who officiates."""

    number: int
    slot: int
    starts_ms: int | None  # None: the competition has no times (slots only)
    field: int
    teams: tuple[str, ...]  # the teams known now
    officials: tuple[tuple[str, str], ...]  # (role, official id)


def overlaps(a: Booking, b: Booking, slot_ms: int) -> bool:
    """Less than a slot apart; a competition without times compares slots."""
    if a.starts_ms is None or b.starts_ms is None:
        return a.slot == b.slot
    return abs(a.starts_ms - b.starts_ms) < slot_ms


def check_move(
    moved: Booking,
    others: Sequence[Booking],
    slot_ms: int,
    field_names: Sequence[str],
    names: Mapping[str, str],
) -> None:
    """Refuse the move (``RuleViolation`` citing D75, or D66 for an official) naming the fixture it clashes with.

    ``others``: the competition's other fixtures that are not over; ``names``: team and official ids → names.
    """
    for other in sorted(others, key=lambda b: b.number):
        if other.number == moved.number or not overlaps(moved, other, slot_ms):
            continue
        if other.field == moved.field:
            raise RuleViolation(
                "D75",
                N_("{field} is taken at that time by fixture #{fixture}"),
                {"field": field_names[moved.field] if moved.field < len(field_names) else moved.field, "fixture": other.number},
            )
        for team in moved.teams:
            if team in other.teams:
                raise RuleViolation(
                    "D75",
                    N_("{team} plays fixture #{fixture} at that time"),
                    {"team": names.get(team, team), "fixture": other.number},
                )
        busy = {official for _, official in other.officials}
        for role, official in moved.officials:
            if official in busy:
                raise RuleViolation(
                    "D66",
                    N_("{official} already officiates fixture {fixture} at the same time ({role})"),
                    {"official": names.get(official, official), "fixture": other.number, "role": role},
                )
