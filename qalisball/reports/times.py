"""Times in a report: game time of an event, clock strings, minutes, and times of day in the match's zone."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any

from ..rules.state import HALVES
from .moments import Moment


def game_time(st: Moment) -> tuple[int | None, int | None]:
    """(period, game-clock ms) of an event: during a half only; a half's start is at 0."""
    if st.entry.type == "period_start":
        return st.after.period, 0
    b = st.before
    if b.phase not in HALVES:
        return None, None
    at = st.entry.at_ms if st.entry.at_ms is not None else b.clock.elapsed(st.entry.received_ms)
    return b.period, max(0, min(at, b.clock.length_ms))


def phase_of(st: Moment) -> str:
    return st.after.phase if st.entry.type == "period_start" else st.before.phase


def clock(ms: int | None) -> str | None:
    if ms is None:
        return None
    sec = max(0, ms) // 1000
    return f"{sec // 60}:{sec % 60:02d}"


def minute(ms: int | None, half_ms: int) -> int | None:
    """The minute of the half an event happened in, counted from 1 ("in the 13th minute" for 12:xx)."""
    if ms is None:
        return None
    last = max(1, -(-half_ms // 60_000))
    return min(ms // 60_000 + 1, last)


def minutes(ms: int) -> int:
    """Whole minutes played, rounded half up."""
    return (ms + 30_000) // 60_000


# ----------------------------------------------------------------------------------------------
# Times of day: in the match's time zone, never bare UTC


def match_zone(starts_at: Any, at_ms: int | None = None) -> tzinfo:
    """The match's time zone: the offset of its ``starts_at``, else the server's local zone.

    The local zone is fixed at the match's first event (or now), so that one report never shows
    two offsets across a change to summer time.
    """
    if isinstance(starts_at, str):
        try:
            dt = datetime.fromisoformat(starts_at)
        except ValueError:
            dt = None
        if dt is not None and dt.utcoffset() is not None:
            return timezone(dt.utcoffset() or timedelta(0))
    stamp = at_ms / 1000 if at_ms is not None else time.time()
    return timezone(timedelta(seconds=time.localtime(stamp).tm_gmtoff))


def ms_of(value: str | None) -> int | None:
    try:
        dt = datetime.fromisoformat(value) if value else None
    except ValueError:
        return None
    return int(dt.timestamp() * 1000) if dt is not None and dt.tzinfo is not None else None


def iso(ms: int, tz: tzinfo) -> str:
    return datetime.fromtimestamp(ms / 1000, tz).isoformat(timespec="seconds")


def iso_text(value: str | None, tz: tzinfo) -> str | None:
    """An ISO time stored in UTC (``created_at``), shown in the match's zone."""
    if not value:
        return value
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return value
    if dt.tzinfo is None:
        return value
    return dt.astimezone(tz).isoformat(timespec="seconds")


def offset_text(tz: tzinfo, at_ms: int | None = None) -> str:
    moment = datetime.fromtimestamp(at_ms / 1000, tz) if at_ms is not None else None
    off = tz.utcoffset(moment) or timedelta(0)
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def match_date(starts_at: Any, kicked_off_at: str | None, created_at: str | None, tz: tzinfo) -> str | None:
    """The match date: the scheduled start, else the first kick-off, else the day it was created."""
    for value in (starts_at, kicked_off_at, created_at):
        if isinstance(value, str) and value:
            try:
                dt = datetime.fromisoformat(value)
            except ValueError:
                continue
            if dt.tzinfo is not None:
                dt = dt.astimezone(tz)
            return dt.date().isoformat()
    return None
