"""The report's formats: HTML (printable), PDF (WeasyPrint, from that same HTML), CSV (per player).

The HTML is self-contained (stylesheet and pictures inline), so the PDF is made from exactly the
page the browser shows, and a saved copy of the page keeps its look.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import threading
from functools import cache
from pathlib import Path
from typing import Any

from flask import render_template
from markupsafe import Markup

from .charts import field_diagram_svg, score_chart_svg
from .labels import VIOLATION_KINDS, label, pick, text

ROOT = Path(__file__).resolve().parent.parent.parent
CSS_PATH = ROOT / "static" / "report.css"
WORKER = Path(__file__).resolve().with_name("pdf_worker.py")

# CSV columns: (key in a player row, label key). Violations by kind follow "violations_total".
CSV_HEAD = (
    ("team", "team"),
    ("team_name", "team"),
    ("number", "number"),
    ("name", "name"),
    ("starter", "starter"),
    ("minutes", "minutes"),
    ("played", "played"),
    ("goals", "goals"),
    ("shots_missed", "shots_missed"),
    ("violations_total", "violations"),
)
CSV_TAIL = (
    ("fouls", "fouls"),
    # No "fouls suffered" per player: a foul names its offender only (docs/reports.md); team totals have it.
    ("yellow", "yellow"),
    ("red", "red"),
    ("penalties_conceded", "penalties_conceded"),
    ("penalties_taken", "penalties_taken"),
    ("penalties_converted", "penalties_converted"),
    ("multi_attack_used", "multi_attack_used"),
    ("shootout_kicks", "shootout_kicks"),
    ("shootout_scored", "shootout_scored"),
    ("shootout_points", "shootout_points"),
    ("status", "status"),
)


@cache
def _css() -> str:
    return CSS_PATH.read_text(encoding="utf-8")


def html(report: dict[str, Any], lang: str | None = None) -> str:
    """The report page (needs a Flask app context for the template)."""
    return render_template(
        "report.html",
        r=report,
        lang=lang,
        L=lambda key: label(key, lang),
        T=lambda pair: text(pair, lang),
        P=lambda en, zh: pick(en, zh, lang),
        css=Markup(_css()),
        score_svg=Markup(score_chart_svg(report, lang)),
        field_svg=Markup(field_diagram_svg(report, lang)),
        kinds=VIOLATION_KINDS,
        names={t: {p["number"]: p["name"] for p in report["lineups"][t]["players"]} for t in ("home", "away")},
        ms_clock=_ms_clock,
        timeline_rows=_timeline_rows(report, lang),
        timeline_legend=_timeline_legend(lang),
    )


class PdfError(Exception):
    """WeasyPrint failed or took too long."""


# At most this many WeasyPrint processes at once (each takes a core and, for a long match, memory).
_PDF_SLOTS = threading.BoundedSemaphore(2)
PDF_TIMEOUT_S = 300


def pdf(page: str) -> bytes:
    """The PDF of an HTML report page (A4, from the page's print stylesheet), made by WeasyPrint.

    Rendered in a child process (pdf_worker.py): the server keeps answering meanwhile.
    """
    with _PDF_SLOTS:
        try:
            done = subprocess.run(
                [sys.executable, str(WORKER)],
                input=page.encode("utf-8"),
                capture_output=True,
                timeout=PDF_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise PdfError(f"WeasyPrint took longer than {PDF_TIMEOUT_S} s") from exc
    if done.returncode != 0 or not done.stdout.startswith(b"%PDF-"):
        raise PdfError(done.stderr.decode("utf-8", "replace")[-2000:])
    return done.stdout


# A text cell that starts with one of these is a formula to a spreadsheet program (OWASP, "CSV injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """A cell as a spreadsheet must show it: text that would start a formula gets a leading ``'`` (D51).

    Numbers stay numbers (a negative count is no formula); only text is escaped.
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class _SafeWriter:
    """``csv.writer`` whose every cell goes through ``csv_safe``: every CSV export writes through this."""

    def __init__(self, out: io.StringIO) -> None:
        self._writer = csv.writer(out, lineterminator="\r\n")

    def writerow(self, row: list[Any]) -> None:
        self._writer.writerow([csv_safe(v) for v in row])


def csv_writer(out: io.StringIO) -> _SafeWriter:
    return _SafeWriter(out)


def csv_text(report: dict[str, Any], lang: str | None = None) -> str:
    """One row per player of both teams, UTF-8 with a byte-order mark (for spreadsheet programs)."""
    out = io.StringIO()
    out.write("\ufeff")
    w = csv_writer(out)
    head = [label(k, lang) for _, k in CSV_HEAD]
    head[0] = pick("Side", "主/客", lang)
    head += [f"{label('violations', lang)}: {label(k, lang)}" for k in VIOLATION_KINDS]
    head += [label(k, lang) for _, k in CSV_TAIL]
    w.writerow(head)
    status = label(f"status_{report['match']['status']}", lang)
    for team in ("home", "away"):
        team_name = report["teams"][team]["name"]
        for row in report["stats"]["players"][team]:
            values = {
                **row,
                "team": team,
                "team_name": team_name,
                "starter": 1 if row["starter"] else 0,
                "played": _ms_clock(row["played_ms"]),
                "status": status,
            }
            line = [values[k] for k, _ in CSV_HEAD]
            line += [row["violations"][k] for k in VIOLATION_KINDS]
            line += [values[k] for k, _ in CSV_TAIL]
            w.writerow(line)
    return out.getvalue()


# Short codes for the timeline's columns (a legend above the table explains them).
_PHASE_CODE = {
    "scheduled": ("—", "赛前"),
    "first_half": ("H1", "上半场"),
    "halftime": ("HT", "中场"),
    "second_half": ("H2", "下半场"),
    "shootout": ("SO", "罚球大战"),
    "finished": ("FT", "赛后"),
    "abandoned": ("AB", "中止后"),
}
_ROLE_CODE = {
    "referee": ("R", "主裁"),
    "assistant1": ("A1", "助裁一"),
    "assistant2": ("A2", "助裁二"),
    "scorer": ("S", "记分"),
}


def _code(pair: tuple[str, str], lang: str | None) -> str:
    return pair[1] if lang == "zh" else pair[0]


def _timeline_legend(lang: str | None) -> str:
    """What the timeline's short codes stand for."""
    if lang == "zh":
        return "；".join(f"{_ROLE_CODE[r][1]}＝{label(r, lang)}" for r in _ROLE_CODE) + "；′＝分钟"
    parts = [f"{_PHASE_CODE[p][0]} {label(p, lang)}" for p in ("first_half", "halftime", "second_half", "shootout")]
    parts += [f"{_ROLE_CODE[r][0]} {label(r, lang)}" for r in _ROLE_CODE]
    parts.append(f"′ {label('minute', lang)}")
    return " · ".join(parts)


def _timeline_rows(report: dict[str, Any], lang: str | None) -> list[dict[str, Any]]:
    """The timeline as plain strings (thousands of rows: kept small for the PDF)."""
    teams = report["teams"]
    rows = []
    for item in report["timeline"]:
        when = _code(_PHASE_CODE.get(item["phase"], (item["phase"], item["phase"])), lang)
        if item["clock"] is not None:
            when += f" {item['clock']} · {item['minute']}′"
        rs = item["restart"]
        restart = ""
        if rs is not None:
            restart = f"{label(rs['type'], lang)} → {teams[rs['team']]['name']} ({rs['spot']['x']:g}, {rs['spot']['y']:g})"
        rows.append(
            {
                "seq": item["seq"],
                "type": item["type"],
                "when": when,
                "text": text(item["text"], lang),
                "by": _code(_ROLE_CODE.get(item["by"], (item["by"], item["by"])), lang),
                "restart": restart,
                "score": f"{item['score']['home']}–{item['score']['away']}",
            }
        )
    return rows


def _ms_clock(ms: int | None) -> str:
    if ms is None:
        return ""
    sec = max(0, int(ms)) // 1000
    return f"{sec // 60}:{sec % 60:02d}"
