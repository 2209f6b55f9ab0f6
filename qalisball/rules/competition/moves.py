"""Moving a fixture to another time or field (D75): what a reschedule may not do.

Fixtures overlap when their starts are less than one slot apart (a slot is a match with its turnaround);
in a competition without times, when they share a slot.
A moved fixture may not overlap another that is not over on the same field, nor one that a team of it
plays, nor one that an official of it officiates (D66 as for assigning him). Fixtures whose teams are
not known yet (a knockout's later rounds) clash by field, and by the games they wait for: a knockout game
starts a slot after each of them. A fixture does not move ahead of one of its teams' games whose match is
made or played (a suspension would be served twice); it may be postponed past one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import N_, RuleViolation
from .schedule import Planned


@dataclass(frozen=True)
class Booking:
    """A fixture as far as the schedule is concerned: when and where, who plays, who officiates."""

    number: int
    slot: int
    starts_ms: int | None  # None: the competition has no times (slots only)
    field: int
    teams: tuple[str, ...]  # the teams known now
    officials: tuple[tuple[str, str], ...]  # (role, official id)
    after: tuple[int, ...] = ()  # fixtures whose results it waits for (a knockout's sources, a group's games)
    made: bool = False  # its match is made, or it is over: its place among its teams' games is fixed
    over: bool = False  # played, forfeited or decided: it holds no field, team or official any more


def waits_for(game: Planned, plan: Sequence[Planned]) -> tuple[int, ...]:
    """The fixtures ``game`` waits for: the games whose winner or loser takes a place in it, every game of a
    group whose rank does, and for a final the third-place match (played first, D76)."""
    after: list[int] = []
    for source in (game.home, game.away):
        if source.winner_of is not None:
            after.append(source.winner_of)
        elif source.loser_of is not None:
            after.append(source.loser_of)
        elif source.group is not None:
            after.extend(x.number for x in plan if x.group == source.group and x.stage == "group")
    if game.stage == "final":
        after.extend(x.number for x in plan if x.stage == "third_place")
    return tuple(after)


def order_key(starts_ms: int | None, slot: int, number: int) -> tuple[float, int, int]:
    """When a fixture is played, for ordering (suspensions are served in this order, D65): its start,
    else its slot (a competition without times)."""
    return (float(starts_ms) if starts_ms is not None else float("inf"), slot, number)


def overlaps(a: Booking, b: Booking, slot_ms: int) -> bool:
    """Less than a slot apart; a competition without times compares slots."""
    if a.starts_ms is None or b.starts_ms is None:
        return a.slot == b.slot
    return abs(a.starts_ms - b.starts_ms) < slot_ms


def check_movable(number: int, phase: str | None, over: bool) -> None:
    """D75: a fixture moves until its match is made (an abandoned match's fixture moves again), and never once it is
    over (played, forfeited or decided). ``phase``: its current match's phase, None while it has none."""
    if phase is not None and phase != "abandoned":
        raise RuleViolation(
            "D75",
            N_("fixture #{fixture} has its match: a fixture moves only before its match is made"),
            {"fixture": number},
        )
    if over:
        raise RuleViolation("D75", N_("fixture #{fixture} is decided: it no longer moves"), {"fixture": number})


def check_move(
    was: Booking,
    moved: Booking,
    others: Sequence[Booking],
    slot_ms: int,
    field_names: Sequence[str],
    names: Mapping[str, str],
) -> None:
    """Refuse moving ``was`` to ``moved`` (``RuleViolation`` citing D75, or D66 for an official), naming the
    fixture it clashes with.

    ``others``: the competition's other fixtures that are not over; ``names``: team and official ids → names.
    """
    by_number = {b.number: b for b in others}
    for number in moved.after:  # a knockout game comes a slot after every game it waits for (D71)
        source = by_number.get(number)
        if source is not None and not source.over and _before(moved, source, slot_ms):
            raise RuleViolation(
                "D75",
                N_("fixture #{fixture} waits for fixture #{source}: it cannot start before that one ends"),
                {"fixture": moved.number, "source": number},
            )
    for other in others:
        if moved.number in other.after and _before(other, moved, slot_ms):
            raise RuleViolation(
                "D75",
                N_("fixture #{fixture} waits for fixture #{source}: it cannot start before that one ends"),
                {"fixture": other.number, "source": moved.number},
            )
    for other in sorted(others, key=lambda b: b.number):
        if other.number == moved.number:
            continue
        if other.made and set(moved.teams) & set(other.teams) and _ahead(moved, other) and not _ahead(was, other):
            # Its match is made (its squad left out who was suspended for it, D70) or played: a game of the
            # same team may not move ahead of it, or that suspension would be served twice. (Postponing a
            # game past one is how a rained-off match is played later: allowed.)
            raise RuleViolation(
                "D75",
                N_("fixture #{fixture} of the same team is already made: a fixture may not move ahead of it"),
                {"fixture": other.number},
            )
        if other.over or not overlaps(moved, other, slot_ms):
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


def _before(game: Booking, source: Booking, slot_ms: int) -> bool:
    """Whether ``game`` would start before ``source`` (a game it waits for) has ended."""
    if game.starts_ms is None or source.starts_ms is None:
        return game.slot <= source.slot
    return game.starts_ms < source.starts_ms + slot_ms


def _ahead(a: Booking, b: Booking) -> bool:
    return order_key(a.starts_ms, a.slot, a.number) < order_key(b.starts_ms, b.slot, b.number)
