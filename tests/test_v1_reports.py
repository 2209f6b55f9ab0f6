"""The report of a match played under rule book 1.0 (SPEC §11.2, §11.5, V1-D2; issue 22).

A 1–1 1.0 match with a corner and a short corner: the report names the rule book on the sheet, shows
the draw ("1–1 (draw)", no winner, no shootout) in JSON, HTML and CSV, words 1.0's set pieces in the
timeline, and its notes cite 1.0 (no cards V1-D10, no multiple attack V1-D15, the draw V1-D2) instead
of 2.0's 9.3 and 13.1. A 2.0 report names 2.0 and keeps its notes.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

import tinyhtml5
from flask.testing import FlaskClient

from qalisball.server.demo import demo_request
from tests.conftest import FakeClock, MatchDriver


def _v1_draw(client: FlaskClient, clock: FakeClock) -> MatchDriver:
    body = demo_request()
    body["rules"] = {**body.get("rules", {}), "rule_set": "1.0", "half_minutes": 1}
    match = MatchDriver(client, clock, body)
    match.kickoff("home")
    match.take()
    match.post({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 40.8, "y": 3}})  # corner
    match.take()
    match.post({"type": "violation", "kind": "ball_in_area", "team": "away", "spot": {"x": 1.5, "y": 12.5}})  # short corner
    match.take()
    match.post({"type": "goal", "team": "home", "player": 1})
    match.run_out_half()
    match.post({"type": "period_start"})
    match.take()
    match.post({"type": "goal", "team": "away", "player": 1})
    s = match.run_out_half()
    assert s["phase"] == "finished" and s["winner"] is None and s["score"] == {"home": 1, "away": 1}
    return match


def _report(client: FlaskClient, match: MatchDriver, suffix: str = "", **query: str) -> Any:
    r = client.get(f"/matches/{match.id}/report{suffix}", query_string=query)
    assert r.status_code == 200, r.data[:300]
    return r


def _text_of(html: str, ident: str, attr: str = "data-field") -> str:
    root = tinyhtml5.parse(html, namespace_html_elements=False)
    found = [e for e in root.iter() if e.get(attr) == ident]
    assert len(found) == 1, ident
    return " ".join("".join(found[0].itertext()).split())


def test_V1_D2_the_report_shows_a_1_0_draw_and_names_the_rule_book(client: FlaskClient, clock: FakeClock) -> None:
    match = _v1_draw(client, clock)
    data = _report(client, match, ".json").get_json()
    assert data["match"]["rules"]["rule_set"] == "1.0"
    res = data["result"]
    assert (res["winner"], res["shootout"], res["decided_by"]) == (None, None, "draw")
    assert [t["restart"]["type"] for t in data["timeline"] if t["type"] == "violation"] == ["corner", "short_corner"]

    en = _report(client, match, lang="en").get_data(as_text=True)
    assert _text_of(en, "rule_set") == "1.0"
    assert _text_of(en, "draw") == "1–1 (draw)"
    assert "V1-D2" in en and "V1-D10" in en and "rule 13.1" not in en and "rule 9.3" not in en
    assert "corner →" in en and "short corner →" in en

    zh = _report(client, match, lang="zh").get_data(as_text=True)
    assert _text_of(zh, "draw") == "1–1 (平局)"
    assert "角球 →" in zh and "短角球 →" in zh

    rows = list(csv.reader(io.StringIO(_report(client, match, ".csv", lang="en").get_data(as_text=True).lstrip("\ufeff"))))
    assert "1–1 (draw)" in rows[1], rows[:2]


def test_V1_11_2_a_2_0_report_names_2_0_and_keeps_its_notes(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff("home")
    data = _report(client, match, ".json").get_json()
    assert data["match"]["rules"]["rule_set"] == "2.0" and data["result"]["decided_by"] is None
    en = _report(client, match, lang="en").get_data(as_text=True)
    assert _text_of(en, "rule_set") == "2.0" and "rule 13.1" in en and 'data-field="draw"' not in en


V1_CAUGHT = "Touched: over 2 steps / pass not backwards"
V1_CAUGHT_ZH = "被触碰违例（超过两步/未向后传球）"


def _caught(client: FlaskClient, clock: FakeClock, rule_set: str) -> MatchDriver:
    """A touched carrier called once (violation kind ``caught``), in a match of ``rule_set``."""
    body = demo_request()
    body["rules"] = {**body.get("rules", {}), "rule_set": rule_set}
    match = MatchDriver(client, clock, body)
    match.kickoff("home")
    match.take()
    match.post({"type": "violation", "kind": "caught", "team": "home", "player": 4, "spot": {"x": 20, "y": 12.5}})
    return match


def _pdf_text(data: bytes, tmp_path: Path) -> str:
    assert shutil.which("pdftotext"), "poppler-utils is required: scripts/ensure-system-deps.sh installs it"
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(data)
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout
    return " ".join(out.decode("utf-8").split())  # a long label may wrap in the PDF's table


def test_V1_D16_the_report_words_the_caught_call_in_1_0s_words(client: FlaskClient, clock: FakeClock, tmp_path: Path) -> None:
    """V1-D16: the call keeps 2.0's name (``caught``) with 1.0's label, in the timeline (HTML, PDF) and in
    the violations by kind (HTML's table, the CSV's column)."""
    match = _caught(client, clock, "1.0")
    item = next(t for t in _report(client, match, ".json").get_json()["timeline"] if t["type"] == "violation")
    assert V1_CAUGHT in item["text"]["en"] and V1_CAUGHT_ZH in item["text"]["zh"], item["text"]
    for lang, words, not_words in (("en", V1_CAUGHT, "caught-player violation"), ("zh", V1_CAUGHT_ZH, "被捕违例")):
        page = _report(client, match, lang=lang).get_data(as_text=True)
        assert words in _text_of(page, "violation", "data-type"), lang  # the timeline's row
        assert not_words not in page, lang
        pdf = _pdf_text(_report(client, match, ".pdf", lang=lang).data, tmp_path)
        assert words in pdf and not_words not in pdf, lang
        head = next(csv.reader(io.StringIO(_report(client, match, ".csv", lang=lang).get_data(as_text=True).lstrip("\ufeff"))))
        assert any(words in cell for cell in head) and not any(not_words in cell for cell in head), head


def test_V1_D16_a_2_0_report_keeps_the_caught_player_violation(client: FlaskClient, clock: FakeClock) -> None:
    match = _caught(client, clock, "2.0")
    page = _report(client, match, lang="en").get_data(as_text=True)
    assert "caught-player violation" in page and V1_CAUGHT not in page


def _notes(html: str) -> str:
    """The report's notes: the list that says how the numbers are counted (its first note is the minutes')."""
    root = tinyhtml5.parse(html, namespace_html_elements=False)
    texts = (" ".join("".join(ul.itertext()).split()) for ul in root.iter("ul"))
    (notes,) = [t for t in texts if t.startswith(("Minutes played", "出场分钟"))]
    return notes


def test_D193_a_1_0_reports_notes_cite_1_0_and_no_2_0_rule_it_lacks(client: FlaskClient, clock: FakeClock) -> None:
    match = _v1_draw(client, clock)
    en, zh = (_notes(_report(client, match, lang=lang).get_data(as_text=True)) for lang in ("en", "zh"))
    for notes in (en, zh):
        assert all(rule in notes for rule in ("V1-D2", "V1-D10", "V1-D15")), notes
        assert "13.1" not in notes and "9.3" not in notes, notes
    assert "rule book 1.0" in en and "1.0 版规则" in zh
