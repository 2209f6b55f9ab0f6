"""Field geometry: coordinates, restricted areas, lines and restart spots.

Pure geometry, no I/O. Coordinates are metres (SPEC section 1): ``x`` runs along
the length from the end line x = 0 (end ``"x0"``) to the end line x = L (end
``"xL"``); ``y`` runs across from the side line y = 0 to the side line y = W.

Rule numbers in brackets are the Qalisball rule book 2.0's own section numbers:
[2.1] field size, [2.3] field markings, [3.1] ends switch at half-time,
[10.4] end-line ball, [10.5] side-line ball, [10.8] free-kick position (the
3 m rule). Decisions D3 and D11 are the product's own (SPEC section 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qalisball.rules.common import End, Side, Team, other_end

__all__ = [
    "AREA_RADIUS",
    "CENTRE_CIRCLE_RADIUS",
    "FREE_KICK_CLEARANCE",
    "PENALTY_DISTANCE",
    "SEGMENT_HALF",
    "TWO_POINT_DISTANCE",
    "Field",
    "Point",
    "area_at",
    "area_segment",
    "centre_spot",
    "clamp_to_field",
    "corner_spot",
    "defended_end",
    "distance_to_area_line",
    "end_line_restart_line",
    "end_line_restart_spot",
    "end_x",
    "free_kick_spot",
    "in_area",
    "in_field",
    "nearest_end",
    "nearest_point_on_segment",
    "penalty_spot",
    "side_line_spot",
    "short_corner_spot",
    "side_of",
    "two_point_spot",
]

#: Radius of the restricted area's quarter circles, and distance of its 1 m
#: segment S from the end line [2.3].
AREA_RADIUS = 3.5
#: Half the length of the 1 m end-line segment E the area is built around [2.3].
SEGMENT_HALF = 0.5
#: Distance of the penalty line from the end line: 1 m beyond S [2.3].
PENALTY_DISTANCE = 4.5
#: Distance of the two-point line from the end line: 6 m beyond the penalty line [2.3].
TWO_POINT_DISTANCE = 10.5
#: Radius of the centre circle [2.3].
CENTRE_CIRCLE_RADIUS = 2.5
#: Minimum distance of a free kick from the defending team's area line [10.8].
FREE_KICK_CLEARANCE = 3.0

#: Where an end-line restart line starts and stops, measured along the end line
#: from the long axis y = W/2: from the area's meeting point with the end line
#: (W/2 +- 4) 1 m outwards (W/2 +- 5) [2.3].
_RESTART_LINE_INNER = AREA_RADIUS + SEGMENT_HALF
_RESTART_LINE_OUTER = _RESTART_LINE_INNER + 1.0

#: |P - e| below this means P lies on E (D3).
_ON_SEGMENT_EPS = 1e-9


@dataclass(frozen=True)
class Point:
    """A point on (or off) the field, in metres."""

    x: float
    y: float

    def as_dict(self) -> dict[str, float]:
        """The point as JSON-ready ``{"x": ..., "y": ...}``, rounded to millimetres."""
        return {"x": round(self.x, 3), "y": round(self.y, 3)}


@dataclass(frozen=True)
class Field:
    """A field of ``length`` L by ``width`` W metres [2.1].

    ``side_lines`` is False for an amateur field without side lines [2.1]; then
    no side-line ball can be awarded. This class does not validate the sizes.
    """

    length: float
    width: float
    side_lines: bool = True


def _axis_y(field: Field) -> float:
    return field.width / 2.0


def _into_field(end: End) -> float:
    """+1 or -1: the x direction pointing from ``end``'s end line into the field."""
    return 1.0 if end == "x0" else -1.0


def end_x(field: Field, end: End) -> float:
    """The x coordinate of ``end``'s end line: 0 for ``"x0"``, L for ``"xL"``."""
    return 0.0 if end == "x0" else field.length


def centre_spot(field: Field) -> Point:
    """The centre spot (L/2, W/2), centre of the centre circle [2.3]."""
    return Point(field.length / 2.0, _axis_y(field))


def nearest_end(field: Field, p: Point) -> End:
    """The end whose half ``p`` lies in; the half-way line (x = L/2) counts as ``"x0"``."""
    return "x0" if p.x <= field.length / 2.0 else "xL"


def side_of(field: Field, p: Point) -> Side:
    """Which side of the long axis ``p`` is on [10.4]; exactly on y = W/2 is ``"low"`` (D11)."""
    return "low" if p.y <= _axis_y(field) else "high"


def area_segment(field: Field, end: End) -> tuple[Point, Point]:
    """The 1 m end-line segment E of ``end``'s restricted area [2.3], low y first.

    The area is the set of field points within 3.5 m of E (SPEC section 1).
    """
    x = end_x(field, end)
    c = _axis_y(field)
    return Point(x, c - SEGMENT_HALF), Point(x, c + SEGMENT_HALF)


def nearest_point_on_segment(field: Field, end: End, p: Point) -> Point:
    """e: the point of ``end``'s segment E nearest ``p`` [2.3, 10.8]."""
    c = _axis_y(field)
    y = min(max(p.y, c - SEGMENT_HALF), c + SEGMENT_HALF)
    return Point(end_x(field, end), y)


def distance_to_area_line(field: Field, end: End, p: Point) -> float:
    """Distance from ``p`` to ``end``'s area line: dist(P, E) - 3.5, negative inside [2.3, 10.8]."""
    e = nearest_point_on_segment(field, end, p)
    return math.hypot(p.x - e.x, p.y - e.y) - AREA_RADIUS


def in_area(field: Field, end: End, p: Point, tolerance: float = 0.0) -> bool:
    """Whether ``p`` is in ``end``'s restricted area [2.3] (the area line counts as in).

    ``tolerance`` widens the area by that many metres. The area is part of the
    field: a point behind the end line (or beyond the other end) is not in it.
    """
    if not 0.0 <= p.x <= field.length:
        return False
    return distance_to_area_line(field, end, p) <= tolerance


def area_at(field: Field, p: Point, tolerance: float = 0.0) -> End | None:
    """The end whose restricted area contains ``p`` [2.3], or None.

    Should a huge ``tolerance`` make both areas contain ``p``, the nearer area wins.
    """
    ends: tuple[End, End] = ("x0", "xL")
    inside = [end for end in ends if in_area(field, end, p, tolerance)]
    if not inside:
        return None
    return min(inside, key=lambda end: distance_to_area_line(field, end, p))


def in_field(field: Field, p: Point) -> bool:
    """Whether ``p`` is in the field, lines included: 0 <= x <= L and 0 <= y <= W [2.1]."""
    return 0.0 <= p.x <= field.length and 0.0 <= p.y <= field.width


def clamp_to_field(field: Field, p: Point) -> Point:
    """The field point nearest ``p`` (``p`` itself when it is in the field)."""
    return Point(
        min(max(p.x, 0.0), field.length),
        min(max(p.y, 0.0), field.width),
    )


def penalty_spot(field: Field, end: End) -> Point:
    """Midpoint of ``end``'s penalty line, 4.5 m from that end line on y = W/2 [2.3, 10.8]."""
    return Point(end_x(field, end) + _into_field(end) * PENALTY_DISTANCE, _axis_y(field))


def two_point_spot(field: Field, end: End) -> Point:
    """Midpoint of ``end``'s two-point line, 10.5 m from that end line on y = W/2 [2.3]."""
    return Point(end_x(field, end) + _into_field(end) * TWO_POINT_DISTANCE, _axis_y(field))


def end_line_restart_line(field: Field, end: End, side: Side) -> tuple[Point, Point]:
    """The 1 m end-line restart line of ``end`` on ``side`` [2.3, 10.4].

    It runs along the end line from where the area meets it (W/2 -+ 4) outwards
    to W/2 -+ 5; the first point is the inner one (the area's meeting point).
    """
    x = end_x(field, end)
    c = _axis_y(field)
    sign = -1.0 if side == "low" else 1.0
    return Point(x, c + sign * _RESTART_LINE_INNER), Point(x, c + sign * _RESTART_LINE_OUTER)


def end_line_restart_spot(field: Field, end: End, side: Side) -> Point:
    """Spot of an end-line ball: midpoint of the restart line on ``side`` [10.4].

    (end_x, W/2 - 4.5) for ``"low"``, (end_x, W/2 + 4.5) for ``"high"``. Choosing
    the side of an event on the axis is :func:`side_of`'s job (D11).
    """
    a, b = end_line_restart_line(field, end, side)
    return Point((a.x + b.x) / 2.0, (a.y + b.y) / 2.0)


def short_corner_spot(field: Field, end: End, side: Side) -> Point:
    """Spot of a 1.0 short corner (短角球): its "指定区域" is 2.0's end-line restart line (V1-6, V1-D5).

    The midpoint of that line, as for an end-line ball: (end_x, W/2 - 4.5) low, (end_x, W/2 + 4.5) high.
    """
    return end_line_restart_spot(field, end, side)


def corner_spot(field: Field, end: End, side: Side) -> Point:
    """Spot of a 1.0 corner (角球): the field's corner of ``end`` on ``side`` (V1-6, V1-D4).

    (end_x, 0) for ``"low"``, (end_x, W) for ``"high"``.
    """
    return Point(end_x(field, end), 0.0 if side == "low" else field.width)


def side_line_spot(field: Field, p: Point) -> Point:
    """Spot of a side-line ball: the side-line point nearest ``p`` [10.5].

    x is clamped to [0, L]; y is 0 when ``p.y <= W/2`` else W. Callers check
    ``field.side_lines`` [2.1]; this function only computes.
    """
    x = min(max(p.x, 0.0), field.length)
    y = 0.0 if p.y <= _axis_y(field) else field.width
    return Point(x, y)


def free_kick_spot(field: Field, origin: Point, defending_end: End, clearance: float = FREE_KICK_CLEARANCE) -> Point:
    """Where a free kick is taken, after the 3 m rule [10.8] (1.0's 2 m rule with ``clearance=2``, V1-6).

    ``defending_end`` is the end of the team that does not take the kick; only
    its area counts (the kicking team's own area never moves the kick). The
    origin is first clamped into the field. If it is less than 3 m from that
    area line (negative inside the area), it moves along the line of least
    distance to exactly 3 m outside: e + 6.5 * (P - e) / |P - e|, e being the
    point of E nearest P. When P lies on E the direction is straight into the
    field (D3). Otherwise the clamped origin is the spot.
    """
    p = clamp_to_field(field, origin)
    if distance_to_area_line(field, defending_end, p) >= clearance:
        return p
    e = nearest_point_on_segment(field, defending_end, p)
    dx, dy = p.x - e.x, p.y - e.y
    norm = math.hypot(dx, dy)
    reach = AREA_RADIUS + clearance
    if norm < _ON_SEGMENT_EPS:
        return Point(e.x + _into_field(defending_end) * reach, p.y)
    return Point(e.x + reach * dx / norm, e.y + reach * dy / norm)


def defended_end(home_end_first_half: End, period: int, team: Team) -> End:
    """The end ``team`` defends in ``period`` 1 or 2; ends switch at half-time [3.1].

    Raises ValueError for any other period.
    """
    if period not in (1, 2):
        raise ValueError(f"period must be 1 or 2, not {period!r}")
    end = home_end_first_half if team == "home" else other_end(home_end_first_half)
    return end if period == 1 else other_end(end)
