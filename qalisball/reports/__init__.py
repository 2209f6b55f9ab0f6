"""Post-match reports and statistics from the event log (API.md "Pages and reports").

``/matches/<id>/report`` (HTML, printable on A4), ``.pdf`` (WeasyPrint from that same HTML), ``.csv``
(one row per player) and ``.json`` (everything; docs/reports.md). Labels are English and Chinese side
by side, or one language with ``?lang=en`` / ``?lang=zh``. Reports exist during the match too, marked
provisional; they are final once the match is finished or abandoned.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from ..service import NotFound
from ..web import service
from . import render
from .stats import FINAL_PHASES, build_report

bp = Blueprint("reports", __name__)

# PDFs of final reports, by (match, seq, lang): a final report only changes with a new event.
_PDF_CACHE: OrderedDict[tuple[str, int, str | None], bytes] = OrderedDict()
_PDF_CACHE_SIZE = 32
_pdf_lock = threading.Lock()


def _lang() -> str | None:
    lang = request.args.get("lang")
    return lang if lang in ("en", "zh") else None


def report_for(match_id: str) -> dict[str, Any]:
    """The report data of a match, from its event log as it is now."""
    svc = service()
    m = svc.get(match_id)
    log = m.log  # the service replaces the list on every event: this is a consistent snapshot
    report = build_report(m.id, m.data, m.setup, log, now=svc.clock(), created_at=m.created_at)
    from ..screens import screens  # the teams' logos, uploaded once per team name (issue 13)

    for team in report["teams"].values():
        team["logo"] = screens().logo_url(team["name"])
    return report


@bp.errorhandler(NotFound)
def _not_found(exc: NotFound) -> tuple[Response, int]:
    if request.path.endswith(".json"):
        return jsonify({"error": "not_found", "message": str(exc)}), 404
    return Response(f"No such match / 没有这场比赛: {exc}\n", 404, mimetype="text/plain"), 404


@bp.get("/matches/<match_id>/report")
def report_html(match_id: str) -> Response:
    page = render.html(report_for(match_id), _lang())
    return Response(page, mimetype="text/html")


@bp.get("/matches/<match_id>/report.json")
def report_json(match_id: str) -> Response:
    return jsonify(report_for(match_id))


@bp.get("/matches/<match_id>/report.csv")
def report_csv(match_id: str) -> Response:
    report = report_for(match_id)
    body = render.csv_text(report, _lang()).encode("utf-8")
    resp = Response(body, mimetype="text/csv")
    resp.headers["Content-Type"] = "text/csv; charset=utf-8"
    resp.headers["Content-Disposition"] = f'attachment; filename="qalisball-{match_id}-{report["match"]["status"]}.csv"'
    return resp


@bp.get("/matches/<match_id>/report.pdf")
def report_pdf(match_id: str) -> Response:
    lang = _lang()
    m = service().get(match_id)
    # A finished (or abandoned) match's report changes only with a new event: cache its PDF by seq.
    final = m.state is not None and m.state.phase in FINAL_PHASES
    key = (match_id, m.seq, lang)
    data = _PDF_CACHE.get(key) if final else None
    if data is None:
        report = report_for(match_id)
        try:
            data = render.pdf(render.html(report, lang))
        except render.PdfError as exc:
            current_app.logger.error("report PDF of match %s failed: %s", match_id, exc)
            return Response("The PDF could not be made; try again / PDF 生成失败，请重试\n", 503, mimetype="text/plain")
        if final and report["match"]["seq"] == key[1]:
            with _pdf_lock:
                _PDF_CACHE[key] = data
                while len(_PDF_CACHE) > _PDF_CACHE_SIZE:
                    _PDF_CACHE.popitem(last=False)
    status = "final" if final else "provisional"
    resp = Response(data, mimetype="application/pdf")
    resp.headers["Content-Disposition"] = f'inline; filename="qalisball-{match_id}-{status}.pdf"'
    return resp
