"""Rule book 1.0's words on the pages (SPEC §11.1, V1-D16; issue 22), server side.

The 1.0 titles go through the one gettext catalogue, as 2.0's do (msgctxt "rule book 1.0": the engine's
``rules/v1.py`` keeps the ids and English only); a 1.0 match's console gets them, its calls in 1.0's
words (the caught call is "Touched: over 2 steps / pass not backwards"), no card buttons and no card on
a foul (V1-D10), the field with its corners and short-corner spots (V1-D4, V1-D5), and hints that say
"corner"; the screens say "moved 2 m" (V1-6) and "Draw" at the end (V1-D2). A 2.0 match's pages are
as they were.
"""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball.rules import v1
from qalisball.server.demo import demo_request
from qalisball.web import rulebook
from qalisball.web.i18n import in_language
from tests.conftest import FakeClock, MatchDriver
from tests.console_script import console_view
from tests.test_pages import get, page_data, text


def _v1(client: FlaskClient, clock: FakeClock, **rules: object) -> MatchDriver:
    body = demo_request()
    body["rules"] = {**body.get("rules", {}), "rule_set": "1.0", **rules}
    return MatchDriver(client, clock, body)


def _console(client: FlaskClient, match: MatchDriver, lang: str) -> str:
    return text(get(client, f"/matches/{match.id}/referee?token={match.tokens['referee']}", lang))


def test_V1_11_1_the_1_0_titles_are_the_catalogues_in_both_languages(app: Flask) -> None:
    assert {r: str(t) for r, t in rulebook.V1.items()} == v1.TITLES  # one English, the engine's ids
    with app.app_context():
        assert rulebook.title("V1-1", "zh") == "比赛场地" and rulebook.title("2", "zh") == "球场"
        assert rulebook.title("V1-D10", "en") == "No cards" and rulebook.title("V1-D10", "zh") == "无红黄牌"
        for rule in v1.TITLES:
            assert re.search(r"[\u4e00-\u9fff]", str(rulebook.title(rule, "zh"))), rule
    assert in_language("zh", v1.BOOK_1_0.labels["caught"]) == "被触碰违例（超过两步/未向后传球）"


def test_V1_D16_V1_D10_the_1_0_console_has_1_0_calls_words_and_field(client: FlaskClient, clock: FakeClock) -> None:
    match = _v1(client, clock)
    html = _console(client, match, "en")
    data = console_view(page_data(html))  # what the script builds from the embedded catalogue (issue 23)
    calls = {c["call"]: c for c in data["calls"]}
    assert "yellow" not in calls and "red" not in calls  # no card buttons (V1-D10)
    assert not [p for p in calls["foul"]["params"] if p["name"] in ("card", "reason")]
    assert calls["caught"]["label"] == "Touched: over 2 steps / pass not backwards"
    assert data["vocab"]["violation"]["caught"] == "Touched: over 2 steps / pass not backwards"
    assert data["vocab"]["restart"]["corner"] == "Corner" and data["vocab"]["restart"]["short_corner"] == "Short corner"
    assert data["rules"]["V1-D10"] == "No cards" and data["rules"]["V1-6"] == "Dead ball and set pieces"
    assert "corner" in data["strings"]["hint_end_line"] and "V1-D9" in data["strings"]["tap_field_foul"]
    assert html.count('class="corner-spot') == 4 and html.count('class="short-corner-spot') == 4
    zh = console_view(page_data(_console(client, match, "zh")))
    assert zh["rules"]["V1-5"] == "禁区" and zh["vocab"]["restart"]["short_corner"] == "短角球"
    assert {c["call"]: c["label"] for c in zh["calls"]}["caught"] == "被触碰违例（超过两步/未向后传球）"


def test_V1_11_2_a_2_0_console_is_unchanged(client: FlaskClient, match: MatchDriver) -> None:
    html = _console(client, match, "en")
    data = console_view(page_data(html))  # what the script builds from the embedded catalogue (issue 23)
    calls = {c["call"]: c for c in data["calls"]}
    assert "yellow" in calls and calls["caught"]["label"] == "Caught: 3 steps / 3 s"
    assert any(p["name"] == "card" for p in calls["foul"]["params"])
    assert "V1-D10" not in data["rules"] and "end-line ball" in data["strings"]["hint_end_line"]
    assert "corner-spot" not in html


@pytest.mark.parametrize(("lang", "draw"), [("en", "Draw"), ("zh", "平局")])
def test_V1_D2_the_screens_say_draw_at_the_end(client: FlaskClient, clock: FakeClock, lang: str, draw: str) -> None:
    match = _v1(client, clock, half_minutes=1)
    match.kickoff("home")
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    for page in ("scoreboard", ""):
        html = text(get(client, f"/matches/{match.id}/{page}".rstrip("/"), lang))
        assert re.search(rf'id="result"\s*>{draw}<', html), page
        assert page_data(html)["strings"]["draw"] == draw


def test_V1_6_the_screens_say_moved_2_m(client: FlaskClient, clock: FakeClock) -> None:
    match = _v1(client, clock)
    match.kickoff("home")
    match.take()
    # Grounded 1 m in front of home's area line (x0): the free kick moves 2 m out (V1-6, V1-D7).
    match.post({"type": "violation", "kind": "ball_grounded", "team": "home", "spot": {"x": 4.0, "y": 12.5}})
    html = text(get(client, f"/matches/{match.id}/scoreboard", "en"))
    assert "moved 2 m out of the area (V1-6)" in html
    assert page_data(html)["strings"]["moved_3m"] == "moved 2 m out of the area (V1-6)"


def test_D194_1_0s_titles_have_their_own_context_the_same_english_is_each_books_own_chinese(app: Flask) -> None:
    """The English "The field" is 2.0's chapter 2 (球场) and 1.0's V1-1 (比赛场地): one English, two Chinese,
    so 1.0's titles are looked up under msgctxt "rule book 1.0", never 2.0's "rule book"."""
    assert str(rulebook.V1["V1-1"]) == str(rulebook.RULES["2"]) == "The field"
    with app.app_context():
        assert (rulebook.title("2", "zh"), rulebook.title("V1-1", "zh")) == ("球场", "比赛场地")
    for rule, english in v1.TITLES.items():
        assert re.search(r"[\u4e00-\u9fff]", in_language("zh", english, rulebook.RULE_BOOK_1_0)), rule
