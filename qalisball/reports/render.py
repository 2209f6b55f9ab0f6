"""The report's formats: HTML (printable), PDF (WeasyPrint, from that same HTML), CSV (per player).

The HTML is self-contained (stylesheet and pictures inline), so the PDF is made from exactly the
page the browser shows, and a saved copy of the page keeps its look.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import contextlib
import csv
import io
import os
import select
import struct
import subprocess
import sys
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any

from flask import render_template
from markupsafe import Markup

from qalisball.match.schemas import PNG_MAGIC, SIGNATURE_PREFIX, SIGNATURE_SIDE

from .charts import field_diagram_svg, score_chart_svg
from .labels import VIOLATION_KINDS, label, pick, spot_words, text

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


def html(report: dict[str, Any], lang: str | None = None, for_pdf: bool = False) -> str:
    """The report page (needs a Flask app context for the template).

    ``for_pdf``: the same page with the timeline as one block per event instead of a table, which
    WeasyPrint lays out several times faster (bench/README.md); browsers get the table.
    """
    return render_template(
        "reports/report.html",
        r=_drawable_signatures(report),
        lang=lang,
        L=lambda key: label(key, lang, _rule_set(report)),
        T=lambda pair: text(pair, lang),
        P=lambda en, zh: pick(en, zh, lang),
        css=Markup(_css()),
        score_svg=Markup(score_chart_svg(report, lang)),
        field_svg=Markup(field_diagram_svg(report, lang)),
        kinds=VIOLATION_KINDS,
        for_pdf=for_pdf,
        ms_clock=_ms_clock,
        timeline_rows=_timeline_rows(report, lang),
        timeline_legend=_timeline_legend(lang),
    )


def _rule_set(report: dict[str, Any]) -> str:
    """The match's rule book, whose words the report's labels take (V1-D16); a report without one is 2.0's."""
    return str((report["match"].get("rules") or {}).get("rule_set") or "2.0")


def _drawable_signatures(report: dict[str, Any]) -> dict[str, Any]:
    """The report with only the signatures' drawings that may be drawn: a signature stored before D152
    (only its PNG magic was checked) may declare 9000×9000 px, which made the PDF five times slower."""
    sheet = report.get("sheet")
    if not sheet or not any(not signature_fits(s.get("image")) for s in sheet.get("signatures", ())):
        return report
    signatures = [{**s, "image": s.get("image") if signature_fits(s.get("image")) else None} for s in sheet["signatures"]]
    return {**report, "sheet": {**sheet, "signatures": signatures}}


def signature_fits(data_url: str | None) -> bool:
    """Whether a stored signature's PNG declares at most ``SIGNATURE_SIDE`` px a side (read from its IHDR
    header without decoding a pixel); no drawing at all fits."""
    if not data_url:
        return True
    try:
        head = base64.b64decode(data_url[len(SIGNATURE_PREFIX) : len(SIGNATURE_PREFIX) + 44])
    except (binascii.Error, ValueError):
        return False
    if not data_url.startswith(SIGNATURE_PREFIX) or head[:8] != PNG_MAGIC or head[12:16] != b"IHDR":
        return False
    width, height = struct.unpack(">II", head[16:24])
    return 0 < width <= SIGNATURE_SIDE and 0 < height <= SIGNATURE_SIDE


class PdfError(Exception):
    """WeasyPrint failed or took too long."""


# At most this many WeasyPrint processes at once (each takes a core and, for a long match, memory).
_PDF_SLOTS = threading.BoundedSemaphore(2)
PDF_TIMEOUT_S = 300
# A worker is replaced after this many documents, or once it holds this much memory (an idle one holds
# ~100 MB; after the PDF of a 2,000-event match ~280 MB, which Python does not give back), so that
# whatever WeasyPrint keeps cannot pile up on the laptop at the field.
RECYCLE_AFTER = 50
RECYCLE_RSS_KB = 200_000


class _WorkerGone(Exception):
    """The worker process died, closed its pipe or did not answer in time."""


class _Worker:
    """One ``pdf_worker.py --serve`` process: WeasyPrint imported and its fonts loaded, kept between PDFs."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # WeasyPrint's warnings go to the server's log
            close_fds=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.inp, self.out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        # Non-blocking pipes driven by select: under gevent (select patched) waiting yields to the
        # server's other greenlets instead of stalling the hub for seconds.
        os.set_blocking(self.inp, False)
        os.set_blocking(self.out, False)
        self.served = 0

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_kb(self) -> int:
        """Resident memory (Linux; 0 where /proc does not say)."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return 0
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def render(self, page: bytes, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        self._write(len(page).to_bytes(4, "big") + page, deadline)
        head = self._read(5, deadline)
        body = self._read(int.from_bytes(head[1:], "big"), deadline)
        self.served += 1
        if head[:1] == b"P":
            return body
        raise PdfError(body.decode("utf-8", "replace")[-2000:])

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            _wait(self.inp, deadline, write=True)
            try:
                n = os.write(self.inp, view)
            except BlockingIOError:
                continue
            except OSError as exc:  # broken pipe: the worker is gone
                raise _WorkerGone(str(exc)) from exc
            view = view[n:]

    def _read(self, n: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        while n:
            _wait(self.out, deadline, write=False)
            try:
                chunk = os.read(self.out, min(n, 1 << 20))
            except BlockingIOError:
                continue
            if not chunk:
                raise _WorkerGone("the PDF worker closed its output")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if self.alive():
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


def _wait(fd: int, deadline: float, write: bool) -> None:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _WorkerGone(f"WeasyPrint took longer than {PDF_TIMEOUT_S} s")
    ready = select.select([], [fd], [], left) if write else select.select([fd], [], [], left)
    if not (ready[1] if write else ready[0]):
        raise _WorkerGone(f"WeasyPrint took longer than {PDF_TIMEOUT_S} s")


_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def _take_worker() -> _Worker:
    with _idle_lock:
        while _idle:
            w = _idle.pop()
            if w.alive():
                return w
            w.close()  # it left after its idle time
    return _Worker()


def _put_back(w: _Worker) -> None:
    if w.served >= RECYCLE_AFTER or not w.alive() or w.rss_kb() > RECYCLE_RSS_KB:
        w.close()
        return
    with _idle_lock:
        _idle.append(w)


def prewarm() -> None:
    """Start a PDF worker now if none is waiting, so that a PDF asked for next finds WeasyPrint ready.

    Called when someone opens a report page: the PDF button is usually next. Returns at once; the
    worker loads WeasyPrint and its fonts by itself (about half a second of a core).
    """
    with _idle_lock:
        if any(w.alive() for w in _idle):
            return
        try:
            _idle.append(_Worker())
        except OSError:  # no process to spare now: the PDF request will try again
            return


@atexit.register
def close_workers() -> None:
    """Stop the idle PDF workers (they also leave by themselves once the server's pipe closes)."""
    with _idle_lock:
        while _idle:
            _idle.pop().close()


def pdf(page: str) -> bytes:
    """The PDF of an HTML report page (A4, from the page's print stylesheet), made by WeasyPrint.

    Rendered in a worker process (pdf_worker.py, kept between PDFs): the server keeps answering
    meanwhile. A worker that dies or takes longer than ``PDF_TIMEOUT_S`` is killed and replaced.
    """
    data = page.encode("utf-8")
    with _PDF_SLOTS:
        w = _take_worker()
        try:
            out = w.render(data, PDF_TIMEOUT_S)
        except _WorkerGone as exc:
            w.close()
            raise PdfError(str(exc)) from exc
        except PdfError:
            _put_back(w)  # that document failed; the worker is fine
            raise
        except BaseException:
            w.close()  # interrupted half-way: its pipe is in an unknown state
            raise
        _put_back(w)
    if not out.startswith(b"%PDF-"):
        raise PdfError("the PDF worker answered something that is not a PDF")
    return out


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
    head += [f"{label('violations', lang)}: {label(k, lang, _rule_set(report))}" for k in VIOLATION_KINDS]
    head += [label(k, lang) for _, k in CSV_TAIL]
    match_head, match_cells = _match_cells(report, lang)
    w.writerow([*match_head, *head])
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
            w.writerow([*match_cells, *line])
    return out.getvalue()


def _match_cells(report: dict[str, Any], lang: str | None) -> tuple[list[str], list[Any]]:
    """The match on every CSV row (headers, values), so that several matches' CSVs can be merged (issue 11).

    The score is written "2–2" with an en dash, which no spreadsheet program takes for a date.
    """
    m, res, teams = report["match"], report["result"], report["teams"]
    so = res["shootout"]
    head = [
        pick("Match", "比赛编号", lang),
        label("date", lang),
        label("home", lang),
        label("away", lang),
        label("score", lang),
        label("shootout_score", lang),
    ]
    cells = [
        m["id"],
        m["date"] or "",
        teams["home"]["name"],
        teams["away"]["name"],
        f"{res['score']['home']}–{res['score']['away']}" + (f" ({label('draw', lang)})" if res["decided_by"] == "draw" else ""),
        f"{so['home']}–{so['away']}" if so else "",
    ]
    return head, cells


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
    "organiser": ("O", "组织者"),
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
            restart = f"{label(rs['type'], lang)} → {teams[rs['team']]['name']} {spot_words(rs['spot'])}"
        rows.append(
            {
                "seq": item["seq"],
                "type": item["type"],
                "when": when,
                "text": text(item["text"], lang),
                "by": _code(_ROLE_CODE.get(item["by"], (item["by"], item["by"])), lang),
                "restart": restart,
                "score": f"{item['score']['home']}–{item['score']['away']}",
                "correction": (item.get("correction") or {}).get("kind"),
            }
        )
    return rows


def _ms_clock(ms: int | None) -> str:
    if ms is None:
        return ""
    sec = max(0, int(ms)) // 1000
    return f"{sec // 60}:{sec % 60:02d}"
