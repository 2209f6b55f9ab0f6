"""The big screen's goal pop-up (D165; issue 27 item 10): a Chinese name wraps only at its spaces, never inside
a Chinese run, and the pop-up leaves the restart line and the 30-s return countdown (7.2) in view."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import SCREEN, Devices, Server, shot
from tests.browser.screen_states import kicked_off

pytestmark = pytest.mark.browser

# Every character of a Chinese run of the element's text on one line: the runs (split at spaces) whose
# characters' boxes start at more than one height.
BROKEN_RUNS = """el => {
  const text = el.firstChild === null ? "" : el.textContent;
  const broken = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const re = /[\\u3400-\\u9fff]+/g;
    let m;
    while ((m = re.exec(node.data))) {
      const tops = new Set();
      for (let i = m.index; i < m.index + m[0].length; i++) {
        const r = document.createRange();
        r.setStart(node, i);
        r.setEnd(node, i + 1);
        tops.add(Math.round(r.getBoundingClientRect().top));
      }
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


def _apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_issue27_item10_D165_7_2_the_goal_pop_up_keeps_chinese_names_whole_and_the_restart_and_return_in_view(
    devices: Devices, server: Server, lang: str
) -> None:
    home = "北京市海淀区第一百零一中学 立群球队"
    match_id, tokens = kicked_off(server, home=home)
    tv = devices.open(f"/matches/{match_id}/scoreboard?lang={lang}", viewport=SCREEN)
    tv.wait_for_selector("body[data-live]")
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    popup = tv.locator("#popup")
    expect(popup).to_be_visible()
    expect(popup.locator(".pop-who")).to_have_text(f"{home} #3 张伟")
    expect(tv.locator("#return")).to_be_visible()  # the 30-s return after the goal (7.2)
    expect(tv.locator("#restart")).not_to_be_empty()
    shot(tv, f"scoreboard-goal-popup-long-{lang}")
    assert popup.locator(".pop-who").evaluate(BROKEN_RUNS) == []
    pop = _box(tv, "#popup")
    for covered in ("#restart", "#return", "#home-score", "#away-score", "#clock"):
        assert _apart(pop, _box(tv, covered)), (covered, pop, _box(tv, covered))
