"""Field geometry (SPEC section 1; rule book 2.1, 2.3, 3.1, 10.4, 10.5, 10.8; D3, D11)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qalisball.rules.common import End, Side, Team
from qalisball.rules.field import (
    AREA_RADIUS,
    CENTRE_CIRCLE_RADIUS,
    FREE_KICK_CLEARANCE,
    PENALTY_DISTANCE,
    SEGMENT_HALF,
    TWO_POINT_DISTANCE,
    Field,
    Point,
    area_at,
    area_segment,
    centre_spot,
    clamp_to_field,
    defended_end,
    distance_to_area_line,
    end_line_restart_line,
    end_line_restart_spot,
    end_x,
    free_kick_spot,
    in_area,
    in_field,
    nearest_end,
    nearest_point_on_segment,
    penalty_spot,
    side_line_spot,
    side_of,
    two_point_spot,
)

F = Field(40.0, 25.0)  # the worked-example field: axis y = 12.5, E = x0 y in [12, 13]
SMALLEST = Field(30.0, 20.0)
LARGEST = Field(60.0, 59.0)
NO_SIDE_LINES = Field(30.0, 40.0, side_lines=False)

ENDS: tuple[End, End] = ("x0", "xL")
SIDES: tuple[Side, Side] = ("low", "high")


def approx_point(p: Point, x: float, y: float) -> None:
    assert p.x == pytest.approx(x, abs=1e-9)
    assert p.y == pytest.approx(y, abs=1e-9)


# --- constants and basic points -------------------------------------------------------------


def test_2_3_constants() -> None:
    assert AREA_RADIUS == 3.5
    assert SEGMENT_HALF == 0.5
    assert PENALTY_DISTANCE == 4.5
    assert TWO_POINT_DISTANCE == 10.5
    assert CENTRE_CIRCLE_RADIUS == 2.5
    assert FREE_KICK_CLEARANCE == 3.0


def test_point_as_dict_rounds_to_millimetres() -> None:
    assert Point(1.23456, 7.0).as_dict() == {"x": 1.235, "y": 7.0}
    assert Point(0.0, 12.5).as_dict() == {"x": 0.0, "y": 12.5}


def test_field_defaults_to_side_lines() -> None:
    assert F.side_lines is True
    assert NO_SIDE_LINES.side_lines is False


def test_points_and_fields_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Point(0, 0).x = 1.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        F.length = 50.0  # type: ignore[misc]


def test_end_x() -> None:
    assert end_x(F, "x0") == 0.0
    assert end_x(F, "xL") == 40.0


def test_2_3_centre_spot() -> None:
    assert centre_spot(F) == Point(20.0, 12.5)
    assert centre_spot(SMALLEST) == Point(15.0, 10.0)
    assert centre_spot(LARGEST) == Point(30.0, 29.5)


def test_nearest_end_half_way_line_is_x0() -> None:
    assert nearest_end(F, Point(19.9, 3)) == "x0"
    assert nearest_end(F, Point(20.0, 3)) == "x0"
    assert nearest_end(F, Point(20.1, 3)) == "xL"
    assert nearest_end(F, Point(-5, 3)) == "x0"
    assert nearest_end(F, Point(45, 3)) == "xL"


def test_D11_event_on_axis_uses_low_side() -> None:
    assert side_of(F, Point(3, 12.5)) == "low"
    assert side_of(F, Point(3, 12.4)) == "low"
    assert side_of(F, Point(3, 12.6)) == "high"
    assert end_line_restart_spot(F, "x0", side_of(F, Point(0, 12.5))) == Point(0.0, 8.0)


# --- restricted area (2.3) ------------------------------------------------------------------


def test_2_3_area_segment() -> None:
    assert area_segment(F, "x0") == (Point(0.0, 12.0), Point(0.0, 13.0))
    assert area_segment(F, "xL") == (Point(40.0, 12.0), Point(40.0, 13.0))


def test_2_3_nearest_point_on_segment() -> None:
    assert nearest_point_on_segment(F, "x0", Point(5, 12.5)) == Point(0.0, 12.5)
    assert nearest_point_on_segment(F, "x0", Point(3, 17)) == Point(0.0, 13.0)
    assert nearest_point_on_segment(F, "x0", Point(3, 2)) == Point(0.0, 12.0)
    assert nearest_point_on_segment(F, "xL", Point(30, 12.8)) == Point(40.0, 12.8)


def test_2_3_area_meets_end_line_at_axis_plus_minus_4() -> None:
    for end in ENDS:
        x = end_x(F, end)
        assert distance_to_area_line(F, end, Point(x, 8.5)) == pytest.approx(0.0)
        assert distance_to_area_line(F, end, Point(x, 16.5)) == pytest.approx(0.0)
        assert in_area(F, end, Point(x, 8.5))
        assert in_area(F, end, Point(x, 16.5))
        assert not in_area(F, end, Point(x, 8.4))
        assert not in_area(F, end, Point(x, 16.6))


def test_2_3_area_line_distances() -> None:
    # Straight out from the segment S: 3.5 m from the end line.
    assert distance_to_area_line(F, "x0", Point(3.5, 12.2)) == pytest.approx(0.0)
    assert distance_to_area_line(F, "x0", Point(5, 12.5)) == pytest.approx(1.5)
    assert distance_to_area_line(F, "x0", Point(2, 12.5)) == pytest.approx(-1.5)
    # Off the corner (0, 13): (3, 17) is 5 m away.
    assert distance_to_area_line(F, "x0", Point(3, 17)) == pytest.approx(1.5)
    assert distance_to_area_line(F, "xL", Point(36.5, 12.5)) == pytest.approx(0.0)
    assert distance_to_area_line(F, "xL", Point(30, 12.5)) == pytest.approx(6.5)


def test_2_3_in_area() -> None:
    assert in_area(F, "x0", Point(3.5, 12.5))
    assert not in_area(F, "x0", Point(3.51, 12.5))
    assert in_area(F, "x0", Point(3.6, 12.5), tolerance=0.2)
    assert in_area(F, "xL", Point(37, 14))
    assert not in_area(F, "xL", Point(3, 12.5))
    # Quarter circle: (2.4, 15.5) is sqrt(2.4^2 + 2.5^2) = 3.466 m from (0, 13).
    assert in_area(F, "x0", Point(2.4, 15.5))
    assert not in_area(F, "x0", Point(2.5, 15.6))


def test_2_3_area_is_part_of_the_field_not_behind_the_end_line() -> None:
    assert not in_area(F, "x0", Point(-0.1, 12.5))
    assert not in_area(F, "x0", Point(-1.0, 12.5), tolerance=5.0)
    assert not in_area(F, "xL", Point(40.1, 12.5))
    assert in_area(F, "x0", Point(0.0, 12.5))
    assert area_at(F, Point(-0.5, 12.5)) is None


def test_2_3_area_at() -> None:
    assert area_at(F, Point(1, 12.5)) == "x0"
    assert area_at(F, Point(39, 12.5)) == "xL"
    assert area_at(F, Point(20, 12.5)) is None
    assert area_at(F, Point(3.6, 12.5)) is None
    assert area_at(F, Point(3.6, 12.5), tolerance=0.2) == "x0"


def test_2_3_area_at_huge_tolerance_prefers_nearer_area() -> None:
    assert area_at(F, Point(10, 12.5), tolerance=100) == "x0"
    assert area_at(F, Point(30, 12.5), tolerance=100) == "xL"


# --- field extent ---------------------------------------------------------------------------


def test_2_1_in_field_is_closed() -> None:
    assert in_field(F, Point(0, 0))
    assert in_field(F, Point(40, 25))
    assert in_field(F, Point(20, 12.5))
    assert not in_field(F, Point(-0.01, 5))
    assert not in_field(F, Point(5, 25.01))
    assert not in_field(F, Point(40.01, 5))
    assert not in_field(F, Point(5, -0.01))


def test_clamp_to_field() -> None:
    assert clamp_to_field(F, Point(-3, 30)) == Point(0.0, 25.0)
    assert clamp_to_field(F, Point(45, -2)) == Point(40.0, 0.0)
    assert clamp_to_field(F, Point(7, 8)) == Point(7, 8)


# --- lines and spots (2.3, 10.4, 10.5) ------------------------------------------------------


def test_2_3_penalty_spot() -> None:
    assert penalty_spot(F, "x0") == Point(4.5, 12.5)
    assert penalty_spot(F, "xL") == Point(35.5, 12.5)
    # 1 m beyond the area's segment S.
    assert distance_to_area_line(F, "x0", penalty_spot(F, "x0")) == pytest.approx(1.0)


def test_2_3_two_point_spot() -> None:
    assert two_point_spot(F, "x0") == Point(10.5, 12.5)
    assert two_point_spot(F, "xL") == Point(29.5, 12.5)


def test_2_3_end_line_restart_lines() -> None:
    assert end_line_restart_line(F, "x0", "low") == (Point(0.0, 8.5), Point(0.0, 7.5))
    assert end_line_restart_line(F, "x0", "high") == (
        Point(0.0, 16.5),
        Point(0.0, 17.5),
    )
    assert end_line_restart_line(F, "xL", "low") == (Point(40.0, 8.5), Point(40.0, 7.5))
    assert end_line_restart_line(F, "xL", "high") == (
        Point(40.0, 16.5),
        Point(40.0, 17.5),
    )


def test_2_3_restart_line_starts_where_area_meets_end_line() -> None:
    for end in ENDS:
        for side in SIDES:
            inner, _outer = end_line_restart_line(F, end, side)
            assert distance_to_area_line(F, end, inner) == pytest.approx(0.0)


def test_10_4_end_line_restart_spots() -> None:
    assert end_line_restart_spot(F, "x0", "low") == Point(0.0, 8.0)
    assert end_line_restart_spot(F, "x0", "high") == Point(0.0, 17.0)
    assert end_line_restart_spot(F, "xL", "low") == Point(40.0, 8.0)
    assert end_line_restart_spot(F, "xL", "high") == Point(40.0, 17.0)


def test_10_5_side_line_spot() -> None:
    assert side_line_spot(F, Point(12, 3)) == Point(12.0, 0.0)
    assert side_line_spot(F, Point(12, -4)) == Point(12.0, 0.0)
    assert side_line_spot(F, Point(12, 20)) == Point(12.0, 25.0)
    assert side_line_spot(F, Point(12, 27)) == Point(12.0, 25.0)
    assert side_line_spot(F, Point(12, 12.5)) == Point(12.0, 0.0)  # axis: low side
    assert side_line_spot(F, Point(-3, 26)) == Point(0.0, 25.0)
    assert side_line_spot(F, Point(44, -1)) == Point(40.0, 0.0)


# --- the 3 m rule (10.8, D3) ----------------------------------------------------------------


def test_10_8_free_kick_near_area_moves_to_3m() -> None:
    # (5, 12.5) is 5 m from E, so 1.5 m from the area line: moved 1.5 m further out.
    origin = Point(5, 12.5)
    assert distance_to_area_line(F, "x0", origin) == pytest.approx(1.5)
    spot = free_kick_spot(F, origin, "x0")
    approx_point(spot, 6.5, 12.5)
    assert distance_to_area_line(F, "x0", spot) == pytest.approx(3.0)


def test_10_8_free_kick_near_xL_area_moves_to_3m() -> None:
    approx_point(free_kick_spot(F, Point(36, 12.9), "xL"), 33.5, 12.9)


def test_10_8_free_kick_diagonal_off_segment_corner() -> None:
    # (3, 17): e = (0, 13), P - e = (3, 4), |P - e| = 5, distance 1.5 m.
    # spot = (0, 13) + 6.5 * (0.6, 0.8) = (3.9, 18.2).
    spot = free_kick_spot(F, Point(3, 17), "x0")
    approx_point(spot, 3.9, 18.2)
    assert distance_to_area_line(F, "x0", spot) == pytest.approx(3.0)
    # Mirror image at the other end, low side: (37, 8), e = (40, 12), P - e = (-3, -4).
    approx_point(free_kick_spot(F, Point(37, 8), "xL"), 36.1, 6.8)


def test_10_8_free_kick_inside_area_moves_out() -> None:
    # (2, 12.5) is 1.5 m inside the area.
    approx_point(free_kick_spot(F, Point(2, 12.5), "x0"), 6.5, 12.5)
    # (1, 14): e = (0, 13), direction (1, 1)/sqrt(2).
    d = 6.5 / math.sqrt(2)
    approx_point(free_kick_spot(F, Point(1, 14), "x0"), d, 13 + d)


def test_D3_free_kick_on_segment_moves_straight_in() -> None:
    approx_point(free_kick_spot(F, Point(0, 12.5), "x0"), 6.5, 12.5)
    approx_point(free_kick_spot(F, Point(0, 12.0), "x0"), 6.5, 12.0)
    approx_point(free_kick_spot(F, Point(40, 13.0), "xL"), 33.5, 13.0)


def test_D3_free_kick_behind_segment_is_clamped_then_moved_straight_in() -> None:
    approx_point(free_kick_spot(F, Point(-2, 12.7), "x0"), 6.5, 12.7)
    approx_point(free_kick_spot(F, Point(43, 12.2), "xL"), 33.5, 12.2)


def test_10_8_free_kick_on_end_line_beside_area_moves_along_end_line() -> None:
    # (0, 15): e = (0, 13), straight up the end line to y = 13 + 6.5.
    approx_point(free_kick_spot(F, Point(0, 15), "x0"), 0.0, 19.5)


def test_10_8_free_kick_exactly_3m_away_is_not_moved() -> None:
    assert free_kick_spot(F, Point(6.5, 12.5), "x0") == Point(6.5, 12.5)
    assert free_kick_spot(F, Point(0, 19.5), "x0") == Point(0, 19.5)
    assert free_kick_spot(F, Point(40, 5.5), "xL") == Point(40, 5.5)
    # 3 m off the corner of E (up to float rounding): stays put.
    approx_point(free_kick_spot(F, Point(3.9, 18.2), "x0"), 3.9, 18.2)


def test_10_8_free_kick_far_from_area_is_not_moved() -> None:
    assert free_kick_spot(F, Point(20, 3), "x0") == Point(20, 3)
    assert free_kick_spot(F, Point(7, 12.5), "x0") == Point(7, 12.5)


def test_10_8_free_kick_near_kicking_teams_own_area_is_not_moved() -> None:
    assert free_kick_spot(F, Point(5, 12.5), "xL") == Point(5, 12.5)
    assert free_kick_spot(F, Point(38, 12.5), "x0") == Point(38, 12.5)


def test_10_8_free_kick_origin_outside_field_is_clamped() -> None:
    assert free_kick_spot(F, Point(-1, 30), "x0") == Point(0.0, 25.0)
    assert free_kick_spot(F, Point(20, -3), "xL") == Point(20.0, 0.0)


# --- ends switch at half-time (3.1) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("home_first", "period", "team", "expected"),
    [
        ("x0", 1, "home", "x0"),
        ("x0", 1, "away", "xL"),
        ("x0", 2, "home", "xL"),
        ("x0", 2, "away", "x0"),
        ("xL", 1, "home", "xL"),
        ("xL", 1, "away", "x0"),
        ("xL", 2, "home", "x0"),
        ("xL", 2, "away", "xL"),
    ],
)
def test_3_1_ends_switch_at_half_time(home_first: End, period: int, team: Team, expected: End) -> None:
    assert defended_end(home_first, period, team) == expected


@pytest.mark.parametrize("period", [0, 3, -1])
def test_3_1_defended_end_rejects_other_periods(period: int) -> None:
    with pytest.raises(ValueError):
        defended_end("x0", period, "home")


# --- smallest and largest legal fields (2.1) ------------------------------------------------


def test_2_1_smallest_field() -> None:
    f = SMALLEST
    assert penalty_spot(f, "x0") == Point(4.5, 10.0)
    assert penalty_spot(f, "xL") == Point(25.5, 10.0)
    assert two_point_spot(f, "xL") == Point(19.5, 10.0)
    assert end_line_restart_spot(f, "xL", "low") == Point(30.0, 5.5)
    assert end_line_restart_spot(f, "xL", "high") == Point(30.0, 14.5)
    assert area_segment(f, "x0") == (Point(0.0, 9.5), Point(0.0, 10.5))
    approx_point(free_kick_spot(f, Point(29, 10), "xL"), 23.5, 10.0)
    # Corner of the field is far enough from the area: 9.5 m from (0, 9.5), minus 3.5.
    assert free_kick_spot(f, Point(0, 0), "x0") == Point(0.0, 0.0)
    assert side_line_spot(f, Point(15, 10)) == Point(15.0, 0.0)


def test_2_1_largest_field() -> None:
    f = LARGEST
    assert penalty_spot(f, "xL") == Point(55.5, 29.5)
    assert two_point_spot(f, "x0") == Point(10.5, 29.5)
    assert end_line_restart_spot(f, "x0", "low") == Point(0.0, 25.0)
    assert end_line_restart_spot(f, "x0", "high") == Point(0.0, 34.0)
    assert area_at(f, Point(59, 29)) == "xL"
    approx_point(free_kick_spot(f, Point(60, 29.5), "xL"), 53.5, 29.5)
    approx_point(free_kick_spot(f, Point(3, 34), "x0"), 3.9, 35.2)
    assert side_line_spot(f, Point(30, 29.6)) == Point(30.0, 59.0)


def test_2_1_field_without_side_lines_may_be_wider_than_long() -> None:
    f = NO_SIDE_LINES
    assert centre_spot(f) == Point(15.0, 20.0)
    assert penalty_spot(f, "xL") == Point(25.5, 20.0)
    assert end_line_restart_line(f, "x0", "high") == (
        Point(0.0, 24.0),
        Point(0.0, 25.0),
    )
    assert end_line_restart_spot(f, "xL", "low") == Point(30.0, 15.5)
    assert area_at(f, Point(2, 21)) == "x0"
    approx_point(free_kick_spot(f, Point(0, 20), "x0"), 6.5, 20.0)
    assert in_field(f, Point(29, 39))


# --- properties -----------------------------------------------------------------------------

ends = st.sampled_from(ENDS)
sides = st.sampled_from(SIDES)


@st.composite
def fields(draw: st.DrawFn, side_lines: bool = True) -> Field:
    length = draw(st.floats(30.0, 60.0, allow_nan=False))
    if side_lines:
        width = draw(st.floats(20.0, length, exclude_max=True, allow_nan=False))
    else:
        width = draw(st.floats(20.0, 120.0, allow_nan=False))
    return Field(length, width, side_lines)


@st.composite
def field_and_origin(draw: st.DrawFn, side_lines: bool = True) -> tuple[Field, Point]:
    """A field and any origin: anywhere around the field, or close to an area's segment."""
    f = draw(fields(side_lines))
    if draw(st.booleans()):
        x = draw(st.floats(-10.0, f.length + 10.0, allow_nan=False))
        y = draw(st.floats(-10.0, f.width + 10.0, allow_nan=False))
    else:
        end = draw(ends)
        x = end_x(f, end) + draw(st.floats(-2.0, 8.0, allow_nan=False)) * (1 if end == "x0" else -1)
        y = f.width / 2 + draw(st.floats(-8.0, 8.0, allow_nan=False))
    return f, Point(x, y)


@settings(max_examples=300)
@given(field_and_origin(), ends)
def test_10_8_property_free_kick_spot_in_field_and_3m_clear(fo: tuple[Field, Point], defending: End) -> None:
    f, origin = fo
    spot = free_kick_spot(f, origin, defending)
    assert in_field(f, spot)
    assert distance_to_area_line(f, defending, spot) >= FREE_KICK_CLEARANCE - 0.001


@settings(max_examples=100)
@given(field_and_origin(side_lines=False), ends)
def test_10_8_property_free_kick_spot_without_side_lines(fo: tuple[Field, Point], defending: End) -> None:
    f, origin = fo
    spot = free_kick_spot(f, origin, defending)
    assert in_field(f, spot)
    assert distance_to_area_line(f, defending, spot) >= FREE_KICK_CLEARANCE - 0.001


@settings(max_examples=200)
@given(field_and_origin(), ends)
def test_10_8_property_free_kick_far_enough_is_only_clamped(fo: tuple[Field, Point], defending: End) -> None:
    f, origin = fo
    clamped = clamp_to_field(f, origin)
    if distance_to_area_line(f, defending, clamped) >= FREE_KICK_CLEARANCE:
        assert free_kick_spot(f, origin, defending) == clamped


@given(fields(), ends, sides)
def test_10_4_property_restart_spot_on_its_restart_line(f: Field, end: End, side: Side) -> None:
    spot = end_line_restart_spot(f, end, side)
    a, b = end_line_restart_line(f, end, side)
    assert spot.x == a.x == b.x == end_x(f, end)  # on the end line
    assert min(a.y, b.y) <= spot.y <= max(a.y, b.y)
    assert abs(a.y - b.y) == pytest.approx(1.0)
    assert in_field(f, spot)
    assert not in_area(f, end, spot)
    assert side_of(f, spot) == side


@given(field_and_origin())
def test_10_5_property_side_line_spot_on_a_side_line(fo: tuple[Field, Point]) -> None:
    f, p = fo
    spot = side_line_spot(f, p)
    assert spot.y in (0.0, f.width)
    assert 0.0 <= spot.x <= f.length
    assert in_field(f, spot)
    assert (spot.y == 0.0) == (side_of(f, p) == "low")
