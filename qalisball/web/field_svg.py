"""The field drawn to scale as SVG, in metres (SPEC §1): one drawing for the console, screens and reports.

The viewBox is in field coordinates (x along the length, y across), with a margin around the field
so that spots beyond a line can be shown and tapped. A browser turns a tap into metres with the
SVG's ``getScreenCTM()``; the report adds its markers with ``marks``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from html import escape

from qalisball.rules import field as geo
from qalisball.rules.common import End
from qalisball.rules.state import BOOKS

MARGIN = 3.0  # metres shown beyond the lines
DASHED = ' stroke-dasharray="0.6 0.6"'  # a field with no side lines (2.1)


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    color: str = "#000"
    label: str = ""
    shape: str = "circle"  # circle | cross | square


def field_svg(
    f: geo.Field,
    *,
    ends: dict[str, End] | None = None,
    colors: dict[str, str] | None = None,
    marks: Iterable[Mark] = (),
    element_id: str = "field",
    css_class: str = "field",
    title: str = "Field / 场地",
    rule_set: str = "2.0",
) -> str:
    """The SVG markup of field ``f``; ``ends`` and ``colors`` tint each team's defended end. A 1.0 field
    also shows where its set pieces are taken: the four corners (V1-D4) and the four short-corner spots
    (V1-D5), with 2.0's markings borrowed (V1-D3)."""
    L, W, m = f.length, f.width, MARGIN
    out: list[str] = [
        f'<svg id="{escape(element_id)}" class="{escape(css_class)}" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="{-m} {-m} {L + 2 * m} {W + 2 * m}" data-length="{L}" data-width="{W}" '
        f'preserveAspectRatio="xMidYMid meet" role="img">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{-m}" y="{-m}" width="{L + 2 * m}" height="{W + 2 * m}" fill="#2e7d32"/>',
        f'<rect class="pitch" x="0" y="0" width="{L}" height="{W}" fill="#388e3c" stroke="#fff" '
        f'stroke-width="0.12"{"" if f.side_lines else DASHED}/>',
    ]
    if ends and colors:
        for team, end in ends.items():
            x = 0 if end == "x0" else L - 2
            out.append(
                f'<rect class="end-tint" x="{x}" y="0" width="2" height="{W}" fill="{escape(colors.get(team, "#000"))}" '
                f'opacity="0.5"/>'
            )
    # Half-way line, centre circle (2.3) and spot.
    out.append(f'<line x1="{L / 2}" y1="0" x2="{L / 2}" y2="{W}" stroke="#fff" stroke-width="0.08"/>')
    c = geo.centre_spot(f)
    out.append(f'<circle cx="{c.x}" cy="{c.y}" r="{geo.CENTRE_CIRCLE_RADIUS}" fill="none" stroke="#fff" stroke-width="0.08"/>')
    out.append(f'<circle cx="{c.x}" cy="{c.y}" r="0.15" fill="#fff"/>')
    for end in ("x0", "xL"):
        out.extend(_end_markings(f, end))  # type: ignore[arg-type]
        out.extend(_set_piece_spots(f, end, BOOKS[rule_set].set_piece_spots))  # type: ignore[index]
    for mk in marks:
        out.append(_mark(mk))
    out.append('<g class="overlay"></g></svg>')
    return "".join(out)


def _end_markings(f: geo.Field, end: End) -> list[str]:
    W = f.width
    ex = geo.end_x(f, end)
    sgn = 1 if end == "x0" else -1
    r = geo.AREA_RADIUS
    y1, y2 = W / 2 - geo.SEGMENT_HALF, W / 2 + geo.SEGMENT_HALF
    # Restricted area (2.3): quarter circle, the 1 m segment at 3.5 m, quarter circle.
    sweep = 1 if end == "x0" else 0
    path = (
        f"M {ex} {y1 - r} A {r} {r} 0 0 {sweep} {ex + sgn * r} {y1} L {ex + sgn * r} {y2} A {r} {r} 0 0 {sweep} {ex} {y2 + r} Z"
    )
    parts = [f'<path class="area area-{end}" d="{path}" fill="#fff" fill-opacity="0.18" stroke="#fff" stroke-width="0.1"/>']
    for dist, cls in ((geo.PENALTY_DISTANCE, "penalty-line"), (geo.TWO_POINT_DISTANCE, "two-point-line")):
        x = ex + sgn * dist
        parts.append(
            f'<line class="{cls}" x1="{x}" y1="{W / 2 - 0.5}" x2="{x}" y2="{W / 2 + 0.5}" stroke="#fff" stroke-width="0.12"/>'
        )
    for side in ("low", "high"):
        a, b = geo.end_line_restart_line(f, end, side)  # type: ignore[arg-type]
        parts.append(
            f'<line class="restart-line" x1="{a.x}" y1="{a.y}" x2="{b.x}" y2="{b.y}" stroke="#ffeb3b" stroke-width="0.3"/>'
        )
    # The bottle, at the centre of the end line's segment.
    parts.append(f'<circle class="bottle" cx="{ex}" cy="{W / 2}" r="0.3" fill="#fff" stroke="#000" stroke-width="0.05"/>')
    return parts


def _set_piece_spots(f: geo.Field, end: End, marked: tuple[str, ...]) -> list[str]:
    """The spots the book marks (``Book.set_piece_spots``; 1.0's, V1-6) on each side of ``end``: the corner
    (a quarter circle at the field's corner) and the short corner (a yellow dot on the end line)."""
    parts: list[str] = []
    sgn = 1 if end == "x0" else -1
    for side in ("low", "high"):
        if "corner" in marked:
            c = geo.corner_spot(f, end, side)
            inward = 1 if c.y == 0 else -1
            r = 1.0
            sweep = 1 if sgn * inward > 0 else 0
            parts.append(
                f'<path class="corner-spot corner-{end}-{side}" d="M {c.x + sgn * r} {c.y} A {r} {r} 0 0 {sweep} {c.x} '
                f'{c.y + inward * r}" fill="none" stroke="#fff" stroke-width="0.12"/>'
            )
        if "short_corner" in marked:
            sc = geo.short_corner_spot(f, end, side)
            parts.append(
                f'<circle class="short-corner-spot short-corner-{end}-{side}" cx="{sc.x}" cy="{sc.y}" r="0.35" '
                f'fill="#ffeb3b" stroke="#000" stroke-width="0.05"/>'
            )
    return parts


def _mark(mk: Mark) -> str:
    title = f"<title>{escape(mk.label)}</title>" if mk.label else ""
    color = escape(mk.color)
    if mk.shape == "cross":
        d = 0.45
        return (
            f'<g class="mark">{title}<line x1="{mk.x - d}" y1="{mk.y - d}" x2="{mk.x + d}" y2="{mk.y + d}" '
            f'stroke="{color}" stroke-width="0.18"/><line x1="{mk.x - d}" y1="{mk.y + d}" x2="{mk.x + d}" '
            f'y2="{mk.y - d}" stroke="{color}" stroke-width="0.18"/></g>'
        )
    if mk.shape == "square":
        return (
            f'<rect class="mark" x="{mk.x - 0.4}" y="{mk.y - 0.4}" width="0.8" height="0.8" fill="{color}" '
            f'stroke="#fff" stroke-width="0.06">{title}</rect>'
        )
    return (
        f'<circle class="mark" cx="{mk.x}" cy="{mk.y}" r="0.45" fill="{color}" stroke="#fff" stroke-width="0.06">{title}</circle>'
    )
