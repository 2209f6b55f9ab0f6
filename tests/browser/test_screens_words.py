"""Names never break inside a word or a Chinese run on the public screens (issue 19.7), in Chromium.

"Tsinghua 清/华" on the home page's cards, "Field 1 一/号场" on the venue screen, and the phone's two
scores at different heights because one name took two lines (its shootout grid too). A name
may wrap at its spaces or get a smaller font; a word (a run of letters, or of Chinese characters) stays
on one line. Checked with the text's own line boxes: a word whose characters sit on two lines is broken.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import ADMIN, PHONE, SCREEN, TABLET, Devices, Server, shot
from tests.browser.screen_states import in_shootout
from tests.competition_play import roster

pytestmark = pytest.mark.browser

HOME, AWAY = "人大 Renmin", "Tsinghua 清华"
START = "2020-01-04T09:00:00+08:00"
ONLY_PANEL = "(name) => document.querySelectorAll('.panel').forEach((p) => { p.hidden = p.dataset.panel !== name; })"
SMALL_SCREEN = {"width": 1280, "height": 720}

# The words of the elements matched by a selector that are drawn on more than one line.
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const el of document.querySelectorAll(selector)) {
    if (!el.getClientRects().length) continue;  // not shown now
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      for (const m of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


def broken(page: Page, selector: str) -> list[str]:
    assert page.locator(selector).count() > 0, f"nothing matches {selector}"
    words: list[str] = page.evaluate(BROKEN_WORDS, selector)
    return words


def _api(server: Server, method: str, path: str, body: Any = None, expect_status: int = 200) -> Any:
    r = server.http.request(method, server.base + path, json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
    assert r.status_code == expect_status, r.text
    return r.json()


def test_home_page_cards_keep_each_word_of_a_name_whole(devices: Devices, server: Server) -> None:
    in_shootout(server, HOME, AWAY)
    for viewport in (PHONE, {"width": 320, "height": 640}, TABLET):
        page = devices.open("/?lang=en", viewport=viewport)
        page.wait_for_selector(".match-card")
        assert broken(page, ".match-card .teams") == [], viewport
    shot(page, "index-names")


def test_phone_page_keeps_names_whole_and_both_scores_level(devices: Devices, server: Server) -> None:
    match_id, _ = in_shootout(server, HOME, AWAY)
    for viewport in (PHONE, {"width": 320, "height": 640}):
        for lang in ("en", "zh"):
            page = devices.open(f"/matches/{match_id}?lang={lang}", viewport=viewport)
            assert broken(page, ".strip .name") == [], (viewport, lang)
            assert broken(page, ".so-board .so-name") == [], (viewport, lang)
            home, away = page.locator("#home-score").bounding_box(), page.locator("#away-score").bounding_box()
            assert home and away and abs(home["y"] - away["y"]) < 1, (viewport, lang, home, away)
    shot(page, "phone-names")


def test_venue_screen_keeps_field_and_team_names_whole(devices: Devices, server: Server) -> None:
    teams = [
        _api(server, "POST", "/api/teams", {"name": name, "players": roster(name, 8)}, 201)["id"]
        for name in ("Renda 人大队", "Qinghua 清华队", "Beida 北大", "Beihang University 北京航空航天大学")
    ]
    fields = [{"name": "Field 1 一号场"}, {"name": "Field 2 二号场"}]
    body = {
        "name": "Words Cup 字杯",
        "format": "round_robin",
        "teams": teams,
        "fields": fields,
        "starts_at": START,
    }
    comp = _api(server, "POST", "/api/competitions", body, 201)["id"]
    fx = _api(server, "GET", f"/api/competitions/{comp}")["fixtures"][0]
    starting = {"starting": [1, 2, 3, 4, 5, 6]}
    made = _api(server, "POST", f"/api/competitions/{comp}/fixtures/{fx['id']}/match", {"home": starting, "away": starting}, 201)
    ref = made["tokens"]["referee"]
    server.post(made["id"], ref, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    server.post(made["id"], ref, {"type": "period_start"})
    for viewport in (SCREEN, SMALL_SCREEN):
        for lang in ("en", "zh"):
            page = devices.open(f"/competitions/{comp}/screen?lang={lang}", viewport=viewport)
            for panel in ("live", "next"):
                page.evaluate(ONLY_PANEL, panel)
                assert broken(page, f'.panel[data-panel="{panel}"]') == [], (viewport, lang, panel)
    shot(page, "competition-screen-names")
