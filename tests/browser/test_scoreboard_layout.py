"""The big screen's fixed grid (issue 13): nothing overlaps, nothing is cut, at any name length.

Proved by the element boxes Chromium lays out, not by eye: for 2- and 20-character Chinese names and
30-character Latin names, in Chinese and in English, at 1920×1080 and 1280×720, before kickoff, in a
paused half (two-digit scores, cards, a free kick with its reason) and during a shootout:

- every piece of text or picture (names, scores, each card, the clock, "paused", the phase, the start
  time, the info line, the shootout board's names, kicks and totals, the QR code and its text) lies in
  the window, and no two of them intersect: the QR code never covers the away total Σ;
- no box's content overflows it (a name, the board's names, the info line: fitted, never cut), and the
  fitted names stay legible (at least 12 px).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Devices, Server, shot
from tests.browser.screen_states import NAMES, busy_paused_half, in_shootout, new_match

pytestmark = pytest.mark.browser

VIEWPORTS = {"1920x1080": {"width": 1920, "height": 1080}, "1280x720": {"width": 1280, "height": 720}}

# What must not overlap: each selector's every match is one box.
PIECES = [
    "#home-name", "#away-name", "#home-logo", "#away-logo", "#home-score", "#away-score",
    "#home-cards .card", "#away-cards .card",
    "#clock", "#starts", "#paused", "#phase", "#restart", "#ma", "#return", "#result", "#why",
    ".so-title", ".so-board thead th", ".so-name span", ".so-board td", "#so-next",
    ".follow .qr", "#follow-text", "#sound", ".controls .lang",
]  # fmt: skip
# Boxes whose content must fit (text too long gets a smaller font, never cut or spilled).
FITTED = [
    "#home-name", "#away-name", ".score-row", ".cards", ".clock-box", ".paused-slot", "#phase",
    "#info-line", "#why", ".so-wrap", ".so-name span", ".so-title", "#so-next", ".follow",
]  # fmt: skip

BOXES = """(args) => {
  const [pieces, fitted] = args;
  const out = { boxes: [], overflow: [], fonts: {} };
  const visible = (n) => n.getClientRects().length && getComputedStyle(n).visibility !== "hidden";
  pieces.forEach((sel) => document.querySelectorAll(sel).forEach((n, i) => {
    if (!visible(n) || !n.textContent.trim() && n.tagName !== "svg" && n.tagName !== "IMG") return;
    const r = n.getBoundingClientRect();
    const text = n.textContent.trim().slice(0, 30);
    out.boxes.push({ sel: sel + (i ? "[" + i + "]" : ""), x: r.left, y: r.top, r: r.right, b: r.bottom, text: text });
  }));
  fitted.forEach((sel) => document.querySelectorAll(sel).forEach((n) => {
    if (!visible(n)) return;
    if (n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1) {
      out.overflow.push(sel + ": " + n.scrollWidth + "×" + n.scrollHeight + " in " + n.clientWidth + "×" + n.clientHeight);
    }
  }));
  ["#home-name", "#away-name", ".so-name span"].forEach((sel) => document.querySelectorAll(sel).forEach((n, i) => {
    if (visible(n)) out.fonts[sel + i] = parseFloat(getComputedStyle(n).fontSize);
  }));
  out.width = innerWidth; out.height = innerHeight;
  return out;
}"""


def contains(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["x"] <= b["x"] + 0.5 and a["y"] <= b["y"] + 0.5 and a["r"] >= b["r"] - 0.5 and a["b"] >= b["b"] - 0.5


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    # Boxes that only touch (a shared edge, sub-pixel rounding) do not overlap.
    return min(a["r"], b["r"]) - max(a["x"], b["x"]) > 1 and min(a["b"], b["b"]) - max(a["y"], b["y"]) > 1


def check_layout(page: Page, label: str) -> dict[str, Any]:
    page.wait_for_selector("body[data-ready]")
    page.evaluate("document.fonts.ready.then(() => true)")
    page.evaluate("import('/static/js/scoreboard.js').then(m => m.fitAll(true))")  # the page's module (issue 21: no global)
    found: dict[str, Any] = page.evaluate(BOXES, [PIECES, FITTED])
    boxes = found["boxes"]
    problems = list(found["overflow"])
    for b in boxes:
        if b["x"] < -0.5 or b["y"] < -0.5 or b["r"] > found["width"] + 0.5 or b["b"] > found["height"] + 0.5:
            problems.append(f"{b['sel']} ({b['text']}) leaves the window: {b}")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if overlap(a, b) and not contains(a, b) and not contains(b, a):
                problems.append(f"{a['sel']} ({a['text']}) overlaps {b['sel']} ({b['text']})")
    small = {k: v for k, v in found["fonts"].items() if v < 12}
    if small:
        problems.append(f"names fitted below 12 px: {small}")
    if problems:
        shot(page, "layout-" + label)
    assert not problems, label + ":\n" + "\n".join(problems)
    return found


@pytest.fixture(scope="module")
def matches(server: Server) -> dict[str, dict[str, str]]:
    """For each name length: a match before kickoff, a busy paused half and a shootout."""
    out = {}
    for key, (home, away) in NAMES.items():
        out[key] = {
            "before": new_match(server, home, away, starts_at="2030-06-01T15:30:00+08:00")[0],
            "paused": busy_paused_half(server, home, away)[0],
            "shootout": in_shootout(server, home, away, kicks=5)[0],
        }
    return out


@pytest.fixture(scope="module")
def logo(server: Server) -> Iterator[None]:
    """A logo for the longest Latin name: the logo takes room from its name, never from its neighbours."""
    import io

    from PIL import Image

    from tests.browser.conftest import ADMIN

    buf = io.BytesIO()
    Image.new("RGB", (300, 200), "#c62828").save(buf, "PNG")
    r = server.http.post(
        f"{server.base}/api/logos",
        data={"team": NAMES["latin30"][0]},
        files={"file": ("logo.png", buf.getvalue(), "image/png")},
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    yield


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_scoreboard_nothing_overlaps_or_is_cut_at_any_name_length(
    devices: Devices, matches: dict[str, dict[str, str]], logo: None, viewport: str, lang: str
) -> None:
    page = devices.open("/", viewport=VIEWPORTS[viewport])
    for names, ids in matches.items():
        for situation, match_id in ids.items():
            page.goto(f"/matches/{match_id}/scoreboard?lang={lang}")
            found = check_layout(page, f"{names}-{situation}-{lang}-{viewport}")
            labels = {b["sel"] for b in found["boxes"]}
            if situation == "paused":
                # What this situation is about is on the screen, in the window, overlapping nothing.
                assert {"#paused", "#clock", "#why", "#home-cards .card", "#away-cards .card[1]"} <= labels
            if situation == "shootout":
                cells = [b for b in found["boxes"] if b["sel"].startswith(".so-board td")]
                qr = next(b for b in found["boxes"] if b["sel"] == ".follow .qr")
                assert len(cells) == 2 * 9 and all(c["r"] <= qr["x"] for c in cells), "the QR code covers a total Σ"
            if situation == "before":
                assert "#starts" in labels and "#clock" not in labels
