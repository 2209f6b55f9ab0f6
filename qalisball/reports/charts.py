"""The report's two pictures as SVG made on the server: the score over time and the field diagram.

Both are plain SVG strings, inlined into the HTML (and so into the PDF WeasyPrint makes from it).
"""

from __future__ import annotations

from html import escape
from typing import Any

from qalisball.web.field_svg import MARGIN, Mark, field_svg

from ..rules.field import Field
from .labels import label, pick

FONT = "Noto Sans CJK SC, Noto Sans, DejaVu Sans, sans-serif"
SHAPES = {"foul": "cross", "violation": "square", "free_kick": "circle"}

# Chart geometry (SVG user units, drawn at 100 % width).
_W, _H = 640.0, 230.0
_LEFT, _RIGHT, _TOP, _BOTTOM = 36.0, 16.0, 30.0, 34.0


def score_chart_svg(report: dict[str, Any], lang: str | None = None) -> str:
    """A step chart of both teams' scores over the two halves (match minutes on the x axis)."""
    half_ms = int(report["match"]["rules"]["half_minutes"] * 60_000)
    total_ms = 2 * half_ms
    series = report["charts"]["score"]
    teams = report["teams"]
    final = report["result"]["score"]
    top: int = max(1, int(final["home"]), int(final["away"]))
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def x_of(period: int | None, at_ms: int | None) -> float:
        t = (max(1, period or 1) - 1) * half_ms + (at_ms or 0)
        return _LEFT + plot_w * min(t, total_ms) / total_ms

    def y_of(score: int) -> float:
        return _TOP + plot_h * (1 - score / top)

    end_x = _LEFT + plot_w * _elapsed_fraction(report, half_ms, total_ms)
    out = [
        f'<svg class="score-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W:g} {_H:g}" '
        f'font-family="{FONT}" font-size="11" role="img">',
        f"<title>{escape(label('score_chart', lang))}</title>",
        f'<rect x="{_LEFT:g}" y="{_TOP:g}" width="{plot_w:g}" height="{plot_h:g}" fill="#fafafa" stroke="#999" '
        f'stroke-width="0.8"/>',
    ]
    # Half-time divider and x ticks (match minutes; the second half continues the count).
    mid = x_of(2, 0)
    out.append(f'<line x1="{mid:.1f}" y1="{_TOP:g}" x2="{mid:.1f}" y2="{_TOP + plot_h:g}" stroke="#666" stroke-dasharray="4 3"/>')
    step = _tick_step(half_ms / 60_000)
    minute = 0.0
    total_min = total_ms / 60_000
    while minute <= total_min + 1e-9:
        x = _LEFT + plot_w * minute / total_min
        out.append(f'<line x1="{x:.1f}" y1="{_TOP + plot_h:g}" x2="{x:.1f}" y2="{_TOP + plot_h + 4:g}" stroke="#666"/>')
        out.append(f'<text x="{x:.1f}" y="{_TOP + plot_h + 15:g}" text-anchor="middle">{minute:g}′</text>')
        minute += step
    out.append(
        f'<text x="{_LEFT + plot_w / 2:g}" y="{_H - 4:g}" text-anchor="middle" fill="#444">{escape(label("minute", lang))}</text>'
    )
    for s in range(top + 1):
        y = y_of(s)
        out.append(f'<line x1="{_LEFT - 4:g}" y1="{y:.1f}" x2="{_LEFT + plot_w:g}" y2="{y:.1f}" stroke="#e0e0e0"/>')
        out.append(f'<text x="{_LEFT - 7:g}" y="{y + 4:.1f}" text-anchor="end">{s}</text>')
    # One step line per team.
    for i, team in enumerate(("home", "away")):
        color = escape(teams[team]["color"])
        offset = -1.2 if i == 0 else 1.2  # keep level lines apart
        points = [(_LEFT, y_of(0) + offset)]
        score = 0
        goals = [g for g in series if g["team"] == team]
        for g in goals:
            x = x_of(g["period"], g["at_ms"])
            points.append((x, y_of(score) + offset))
            score = g["score"][team]
            points.append((x, y_of(score) + offset))
        points.append((max(end_x, points[-1][0]), y_of(score) + offset))
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        out.append(
            f'<polyline class="score-line" data-team="{team}" points="{path}" fill="none" stroke="{color}" stroke-width="2.2"/>'
        )
        for g in goals:
            x, y = x_of(g["period"], g["at_ms"]), y_of(g["score"][team]) + offset
            out.append(
                f'<circle class="goal" data-team="{team}" data-seq="{g["seq"]}" cx="{x:.1f}" cy="{y:.1f}" r="3.5" '
                f'fill="{color}"><title>{escape(_goal_title(g, report))}</title></circle>'
            )
    # Legend: team names and colours; the shootout score, if any.
    lx = _LEFT
    for team in ("home", "away"):
        name = teams[team]["name"]
        out.append(f'<rect x="{lx:g}" y="8" width="14" height="4" fill="{escape(teams[team]["color"])}"/>')
        out.append(f'<text x="{lx + 18:g}" y="14">{escape(name)}</text>')
        lx += 26 + 7.5 * _text_width(name)
    so = report["result"]["shootout"]
    if so is not None:
        out.append(
            f'<text x="{_LEFT + plot_w:g}" y="14" text-anchor="end">{escape(label("shootout_score", lang))} '
            f"{so['home']}–{so['away']}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def field_diagram_svg(report: dict[str, Any], lang: str | None = None) -> str:
    """The field to scale with a mark where each foul, violation and free kick happened."""
    f = report["match"]["field"]
    fld = Field(f["length"], f["width"], f["side_lines"])
    teams = report["teams"]
    marks = []
    # Free kicks first, fouls last: a foul's free kick is usually on the foul's own spot.
    order = {"free_kick": 0, "violation": 1, "foul": 2}
    for m in sorted(report["charts"]["field_marks"], key=lambda m: order[m["kind"]]):
        x = min(max(m["x"], -MARGIN + 0.5), fld.length + MARGIN - 0.5)
        y = min(max(m["y"], -MARGIN + 0.5), fld.width + MARGIN - 0.5)
        kind = label(f"legend_{m['kind']}", lang)
        who = teams[m["team"]]["name"] + (f" #{m['player']}" if m.get("player") is not None else "")
        marks.append(Mark(x, y, teams[m["team"]]["color"], f"{m['seq']}: {kind} — {who}", SHAPES[m["kind"]]))
    return field_svg(
        fld,
        marks=marks,
        element_id="report-field",
        css_class="field-diagram",
        title=label("field_diagram", lang),
    )


def _goal_title(g: dict[str, Any], report: dict[str, Any]) -> str:
    team = report["teams"][g["team"]]["name"]
    half = pick("1st", "上", None) if g["period"] == 1 else pick("2nd", "下", None)
    sec = (g["at_ms"] or 0) // 1000
    return f"{team} {half} {sec // 60}:{sec % 60:02d} → {g['score']['home']}–{g['score']['away']}"


def _elapsed_fraction(report: dict[str, Any], half_ms: int, total_ms: int) -> float:
    """How far along the two halves the match is: the whole chart once regulation time is over."""
    m = report["match"]
    if m["phase"] in ("shootout", "finished") or (m["phase"] == "abandoned" and len(report["result"]["halves"]) >= 2):
        return 1.0
    latest = 0
    for item in report["timeline"]:
        if item["period"] is not None and item["at_ms"] is not None:
            latest = max(latest, (item["period"] - 1) * half_ms + item["at_ms"])
    if m["phase"] == "halftime":
        latest = max(latest, half_ms)
    return min(1.0, latest / total_ms)


def _tick_step(half_minutes: float) -> float:
    for step in (1, 2, 5, 10, 15, 20, 30, 60):
        if half_minutes * 2 / step <= 8:
            return float(step)
    return 60.0


def _text_width(s: str) -> float:
    """Rough width in average Latin characters (CJK characters count double)."""
    return sum(2.0 if ord(c) > 0x2E80 else 1.0 for c in s)
