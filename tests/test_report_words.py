"""The report speaks as the console does (issue 19 item 7, D173): ends are "the left end" / "the right end"
(左侧底线 / 右侧底线), never "end x0", and a spot is given to 0.1 m, never as the tablet's raw tap
("(33.9563, 9.60769)"), in the HTML, the PDF and the JSON's texts; the JSON keeps its numbers.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import MatchDriver

RAW = re.compile(r"\d+\.\d{2,}")  # a coordinate with more than one decimal


def _report(match: MatchDriver, home_end: str) -> None:
    """Home defends ``home_end``; home fouls at a tapped spot, away's free kick is there."""
    match.kickoff("home", home_end)
    match.take()
    match.clock.advance(60_000)
    match.post({"type": "foul", "team": "home", "player": 2, "spot": {"x": 19.9563, "y": 9.60769}})
    assert match.state()["restart"]["spot"] == {"x": 19.956, "y": 9.608}  # the engine keeps millimetres


def _get(client: FlaskClient, match: MatchDriver, suffix: str, **query: str) -> Any:
    r = client.get(f"/matches/{match.id}/report{suffix}", query_string=query)
    assert r.status_code == 200, r.data[:300]
    return r


@pytest.mark.parametrize(("home_end", "en", "zh"), [("x0", "the left end", "左侧底线"), ("xL", "the right end", "右侧底线")])
def test_D173_the_reports_text_names_the_ends_as_the_console_does(
    match: MatchDriver, client: FlaskClient, home_end: str, en: str, zh: str
) -> None:
    _report(match, home_end)
    toss = _get(client, match, ".json").get_json()["timeline"][0]
    assert toss["type"] == "coin_toss"
    assert f"defends {en} in the first half" in toss["text"]["en"], toss["text"]
    assert f"防守{zh}" in toss["text"]["zh"] and en in toss["text"]["both"] and zh in toss["text"]["both"]
    assert not any(f"end {home_end}" in t or f"{home_end}端" in t for t in toss["text"].values())
    assert f"defends {en}" in _get(client, match, "", lang="en").get_data(as_text=True)
    assert f"防守{zh}" in _get(client, match, "", lang="zh").get_data(as_text=True)


def test_D173_the_report_gives_a_spot_to_a_tenth_of_a_metre(match: MatchDriver, client: FlaskClient, tmp_path: Path) -> None:
    _report(match, "x0")
    data = _get(client, match, ".json").get_json()
    spot = data["timeline"][-1]["restart"]["spot"]  # the JSON keeps its numbers (docs/reports.md)
    assert round(spot["x"], 1) == 20.0 and round(spot["y"], 1) == 9.6 and spot["x"] != 20
    for lang in ("en", "zh", None):
        html = _get(client, match, "", **({"lang": lang} if lang else {})).get_data(as_text=True)
        page = re.sub(r"<[^>]*>", " ", html)  # what a reader sees (the field diagram's SVG keeps its numbers)
        assert "(20, 9.6)" in page, lang
        assert "19.95" not in page and "9.60" not in page
    csv = _get(client, match, ".csv").get_data(as_text=True)
    assert not RAW.search(csv)
    assert shutil.which("pdftotext"), "poppler-utils is required: scripts/ensure-system-deps.sh installs it"
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(_get(client, match, ".pdf", lang="en").data)
    text = subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout
    assert "(20, 9.6)" in text.decode("utf-8") and "19.95" not in text.decode("utf-8")
