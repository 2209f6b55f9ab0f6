"""Post-match reports and statistics from the event log (API.md "Pages and reports").

``/matches/<id>/report`` (HTML, printable on A4), ``.pdf`` (WeasyPrint from that same HTML), ``.csv``
(one row per player) and ``.json`` (everything; docs/reports.md). Labels are English and Chinese side
by side, or one language with ``?lang=en`` / ``?lang=zh``. Reports exist during the match too, marked
provisional; they are final once the main referee has signed the score sheet (SPEC M6).

The report's data is kept per match and seq (``ReportCache``): the log only grows, and every new row
(a correction too) changes the seq, so a kept report is never stale. What depends on the time now
(minutes of a half being played, "generated at") is redone on every request (``stats.finish``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from flask_babel import force_locale, gettext

from qalisball.match.service import Match, NotFound
from qalisball.match.slots import match_service as service
from qalisball.storage.integrity import Damage
from qalisball.web import services
from qalisball.web.services import Slot

from . import render
from .stats import Core, build_core, finish

bp = Blueprint("reports", __name__)

# Matches whose report data is kept, and PDFs kept, per server process (least recently used out).
CACHED_MATCHES = 8
CACHED_PDFS = 32


class ReportCache:
    """Report data per match at its last seq, and PDFs per (match, seq, language).

    A report is built at most once per seq: concurrent requests for the same match wait for the
    one that builds it (a lock per match), and requests for other matches do not wait at all.
    """

    def __init__(self) -> None:
        self._cores: OrderedDict[str, Core] = OrderedDict()
        self._pdfs: OrderedDict[tuple[str, int, str | None], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}
        self.builds = 0  # how many times a report was built (tests, benchmarks)

    def core(self, m: Match) -> Core:
        log = m.log  # the service replaces the list on every event: this is a consistent snapshot
        seq = log[-1].seq if log else 0
        core = self._get(m.id, seq)
        if core is not None:
            return core
        with self._lock:
            building = self._building.setdefault(m.id, threading.Lock())
        with building:
            core = self._get(m.id, seq)  # built meanwhile by the request we waited for
            if core is None:
                core = build_core(m.id, m.data, m.setup, log, created_at=m.created_at)
                self.builds += 1
                with self._lock:
                    old = self._cores.get(m.id)
                    if old is None or old.seq <= seq:
                        self._cores[m.id] = core
                        self._cores.move_to_end(m.id)
                    while len(self._cores) > CACHED_MATCHES:
                        self._cores.popitem(last=False)
        return core

    def _get(self, match_id: str, seq: int) -> Core | None:
        with self._lock:
            core = self._cores.get(match_id)
            if core is None or core.seq != seq:
                return None
            self._cores.move_to_end(match_id)
            return core

    def pdf(self, key: tuple[str, int, str | None]) -> bytes | None:
        with self._lock:
            data = self._pdfs.get(key)
            if data is not None:
                self._pdfs.move_to_end(key)
            return data

    def keep_pdf(self, key: tuple[str, int, str | None], data: bytes) -> None:
        with self._lock:
            self._pdfs[key] = data
            while len(self._pdfs) > CACHED_PDFS:
                self._pdfs.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._cores.clear()
            self._pdfs.clear()


REPORTS: Slot[ReportCache] = Slot("qalisball_reports")


def cache() -> ReportCache:
    """This app's report cache (one per app: tests make many apps)."""
    return REPORTS.get_or_install(current_app, ReportCache)


def _lang() -> str | None:
    lang = request.args.get("lang")
    return lang if lang in ("en", "zh") else None


def report_core(match_id: str) -> Core:
    return cache().core(service().get(match_id))


def report_for(match_id: str) -> dict[str, Any]:
    """The report data of a match, from its event log as it is now."""
    svc = service()
    m = svc.get(match_id)
    report = finish(report_core(match_id), svc.clock())
    # The head of the log's hash chain: a signed sheet that names it can be checked against the log (issue 14).
    report["match"]["log_hash"] = (m.log[-1].hash if m.log else None) or m.head
    damage = svc.damage(m)
    report["match"]["damaged"] = None if damage is None else {"en": damage.message, "zh": _in_chinese(damage)}
    logos = services.logos()  # the teams' logos, uploaded once per team name to the venue (issue 13)
    for team in report["teams"].values():
        team["logo"] = logos.logo_url(team["name"])
    return report


def _in_chinese(damage: Damage) -> str:
    with force_locale("zh"):
        return str(gettext(damage.template)).format(**damage.params)


@bp.errorhandler(NotFound)
def _not_found(exc: NotFound) -> tuple[Response, int]:
    if request.path.endswith(".json"):
        return jsonify({"error": "not_found", "message": str(exc)}), 404
    return Response(f"No such match / 没有这场比赛: {exc}\n", 404, mimetype="text/plain"), 404


@bp.get("/matches/<match_id>/report")
def report_html(match_id: str) -> Response:
    page = render.html(report_for(match_id), _lang())
    render.prewarm()  # the page's reader often asks for the PDF next
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
    core = report_core(match_id)
    # The PDF changes only with a new event, unless a half is being played (minutes count up).
    key = (match_id, core.seq, lang)
    store = cache()
    data = None if core.live else store.pdf(key)
    if data is None:
        report = finish(core, service().clock())
        try:
            data = render.pdf(render.html(report, lang, for_pdf=True))
        except render.PdfError as exc:
            current_app.logger.error("report PDF of match %s failed: %s", match_id, exc)
            return Response("The PDF could not be made; try again / PDF 生成失败，请重试\n", 503, mimetype="text/plain")
        if not core.live:
            store.keep_pdf(key, data)
    resp = Response(data, mimetype="application/pdf")
    resp.headers["Content-Disposition"] = f'inline; filename="qalisball-{match_id}-{core.report["match"]["status"]}.pdf"'
    return resp
