"""Moving a fixture to another time or field (D75): the facts gathered for ``rules/competition/moves``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from qalisball.competitions.book import CompetitionBook
from qalisball.competitions.records import Competition, Fixture, Invalid
from qalisball.rules.competition import moves


class ScheduleMoves:
    """A fixture moved to another time or field (D75). Given the book and the live updates' ``changed``."""

    def __init__(self, book: CompetitionBook, changed: Callable[[Competition], None]) -> None:
        self.book, self.changed = book, changed

    def reschedule(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        """Move a fixture to another time and/or field (D75), before its match is made.

        ``starts_at``: ISO 8601; without an offset, the competition's (its start's). ``field``: a field's name.
        """
        fields = [fl["name"] for fl in c.config["fields"]]
        with self.book.lock:
            snap = self.book.snapshot(c)
            facts = self.book.facts(f, snap)
            moves.check_movable(f.number, facts.phase, facts.over)
            starts_at, field_index = f.starts_at, f.field
            if data.get("field") is not None:
                if data["field"] not in fields:
                    raise Invalid("no such field", {"field": [f"the competition's fields are {', '.join(fields)}"]})
                field_index = fields.index(data["field"])
            if data.get("starts_at") is not None:
                starts_at = _competition_time(c, data["starts_at"])
            slot_ms = int(c.config["slot_minutes"]) * 60_000
            names = {t.id: t.name for t in self.book.teams.values()} | {o.id: o.name for o in self.book.officials.values()}
            was = self.book.booking(c, f, snap)
            moved = self.book.booking(c, f, snap, starts_at, field_index)
            others = [self.book.booking(c, x, snap) for x in c.fixtures if x.id != f.id]
            moves.check_move(was, moved, others, slot_ms, fields, names)
            f.starts_at, f.field = starts_at, field_index
            self.book.write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "starts_at": starts_at, "field": field_index})],
                (c.id, "reschedule", {"fixture": f.id, "starts_at": starts_at, "field": fields[field_index]}),
            )
            f.moves += 1  # the competition log's line counts it after a restart (D280)
        self.changed(c)
        return f


def _competition_time(c: Competition, text: str) -> str:
    """``text`` as an ISO 8601 time with an offset: one without takes the competition's start's offset."""
    try:
        at = datetime.fromisoformat(text)
    except ValueError as exc:
        raise Invalid("not a time", {"starts_at": ["an ISO 8601 time, such as 2026-12-05T14:40+08:00"]}) from exc
    start = c.config.get("starts_at")
    if not start:
        raise Invalid(
            "no times", {"starts_at": ["the competition has no start time: its fixtures keep slots, and move fields only"]}
        )
    zone = datetime.fromisoformat(start).tzinfo
    # Kept in the competition's time zone whatever offset it was given in: pages print its hours as they are.
    return (at.replace(tzinfo=zone) if at.tzinfo is None else at.astimezone(zone)).isoformat()
