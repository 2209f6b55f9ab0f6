"""Issue 19, item 3: the officials' console fits a landscape tablet. In every phase of a match, at 1280×800 (a
10-inch tablet) and 1280×720 (the same tablet with its browser's bars), every control that phase needs is on
screen without scrolling: its box inside the viewport, not clipped by a scrolled box, not covered by another
element (the one a finger at its centre would hit). And nothing moves: the clock's controls, the Undo row and
the field keep their place and size in every phase, whatever panel or builder is laid over the rest (D160–D162).
Both languages. Proved by element boxes in Chromium; taps are made as a finger makes them, at a point on
screen, never after the browser scrolled for us."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from qalisball.server.demo import demo_request
from tests.browser.conftest import Devices, Server, shot
from tests.browser.helpers import console_url

pytestmark = pytest.mark.browser

# Each selector's shown elements: [name, problem or "", box]. A problem: outside the viewport, clipped by a
# box with its own scrolling, or covered (elementFromPoint at its centre is neither it nor inside it).
ON_SCREEN = """(sels) => {
  const out = {};
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const label = (e) => e.id || e.getAttribute('data-action') || e.getAttribute('data-sign') || e.getAttribute('data-code')
    || e.getAttribute('data-player') || e.getAttribute('data-kick') || e.getAttribute('data-first')
    || (e.textContent || '').trim().slice(0, 24);
  for (const sel of sels) {
    out[sel] = Array.from(document.querySelectorAll(sel))
      .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
      .map((e) => {
        const r = e.getBoundingClientRect();
        const box = [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
        let why = '';
        if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) why = 'outside the viewport';
        for (let a = e.parentElement; a && !why; a = a.parentElement) {
          const o = getComputedStyle(a);
          if (o.overflowX === 'visible' && o.overflowY === 'visible') continue;
          const c = a.getBoundingClientRect();
          if (r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5 || r.left < c.left - 0.5 || r.right > c.right + 0.5)
            why = 'clipped by ' + (a.id || a.getAttribute('class'));
        }
        if (!why) {
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          if (!hit || !(hit === e || e.contains(hit)))
            why = 'covered by ' + (hit ? hit.id || hit.getAttribute('class') || hit.tagName : 'nothing');
        }
        return [label(e), why, box];
      });
  }
  return out;
}"""

# What every phase shows in the same place: the header's own controls, the field, the clock controls, Undo.
FRAME = ["#horn-mute", ".lang a", "#field", "#controls [data-action]", "#clock-input", ".undo-row button"]
CALLS = ["#actions [data-action]"]  # the calls' grid, where no panel takes its place
# D160, D162: never moves nor resizes, in any phase: the clock's controls, the Undo row, the field (a prompt
# appearing below it, a longer status above it, a sheet laid over it change nothing).
STILL = "#controls [data-action], #clock-input, .undo-row button, #field"


class Walk:
    """One console through a match, checking the screen in each phase; the places of what never moves."""

    def __init__(self, page: Page, label: str) -> None:
        self.page, self.label = page, label
        self.places: dict[str, dict[str, list[int]]] = {}

    def check(self, phase: str, needed: list[str], *, dialog: bool = False) -> None:
        """``needed`` on screen, and the frame too unless a modal ``dialog`` covers the page. D161: while a call
        is built, its builder covers the Undo row (a half-built call is cancelled, not undone); the shootout's
        and the score sheet's panels cover the field."""
        self.page.wait_for_timeout(150)  # a redraw after the last state: fonts, panels
        covered = set()
        if self.page.locator("#builder").is_visible():
            covered.add(".undo-row button")
        if self.page.locator("#panels").is_visible():
            covered.add("#field")  # no call of the shootout or after the match is tapped on the field
        frame = [] if dialog else [sel for sel in FRAME if sel not in covered]
        seen: dict[str, list[list[Any]]] = self.page.evaluate(ON_SCREEN, frame + needed)
        problems = [f"{sel} {name}: {why} {box}" for sel, els in seen.items() for name, why, box in els if why]
        missing = [sel for sel, els in seen.items() if not els]
        scrolled = self.page.evaluate("[window.scrollX, window.scrollY]")
        if problems or missing or scrolled != [0, 0]:
            shot(self.page, f"console-fits-{self.label}-{phase.replace(' ', '-')}")
        assert scrolled == [0, 0], f"{phase}: the page was scrolled to {scrolled}"
        assert not missing, f"{phase}: not shown: {missing}"
        assert not problems, f"{phase} ({self.label}): not on screen:\n" + "\n".join(problems)
        if not dialog:
            self.places[phase] = {name: box for name, _why, box in self.page.evaluate(ON_SCREEN, [STILL])[STILL]}

    def tap(self, selector: str) -> None:
        """A finger's tap at the centre of what is on screen now: fails rather than scroll to it."""
        target = self.page.locator(selector).first
        expect(target).to_be_visible()
        box = target.bounding_box()
        assert box, selector
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        size = self.page.viewport_size
        assert size and 0 <= y <= size["height"] and 0 <= x <= size["width"], f"{selector} is off screen at {x:.0f}, {y:.0f}"
        self.page.mouse.click(x, y)

    def tap_field(self, x: float, y: float) -> None:
        sx, sy = self.page.eval_on_selector(
            "#field",
            "(svg, p) => { const pt = svg.createSVGPoint(); pt.x = p[0]; pt.y = p[1];"
            " const m = pt.matrixTransform(svg.getScreenCTM()); return [m.x, m.y]; }",
            [x, y],
        )
        size = self.page.viewport_size
        assert size and 0 <= sy <= size["height"], f"the spot ({x}, {y}) is off screen at y = {sy:.0f}"
        self.page.mouse.click(sx, sy)

    def nothing_moved(self) -> None:
        first_name, first = next(iter(self.places.items()))
        for name, seen in self.places.items():
            moved = {b: (first.get(b), seen.get(b)) for b in set(first) | set(seen) if first.get(b) != seen.get(b)}
            assert not moved, f"D160 ({self.label}): moved between {first_name} and {name}: {moved}"


def scrawl(page: Page) -> None:
    """A signature drawn with the pointer, inside the pad as it is on screen."""
    box = page.locator("#sign-pad").bounding_box()
    assert box
    x, y = box["x"] + 30, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 20):
        page.mouse.move(x + i * 12, y + (20 if i % 2 else -20))
    page.mouse.up()


def greyed(page: Page, call: str, yes: bool) -> None:
    expect(page.locator(f'[data-action="{call}"]').first).to_have_attribute("aria-disabled", "true" if yes else "false")


VIEWPORTS = [
    pytest.param({"width": 1280, "height": 800}, id="1280x800"),
    pytest.param({"width": 1280, "height": 720}, id="1280x720"),
]


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_issue19_D160_D161_D162_every_control_a_phase_needs_is_on_screen_without_scrolling(
    devices: Devices, server: Server, viewport: dict[str, int], locale: str
) -> None:
    m = server.create_match(demo_request())
    match_id, ref = m["id"], m["tokens"]["referee"]
    page = devices.open(console_url(match_id, ref), viewport=viewport, locale=locale)
    walk = Walk(page, f"{locale}-{viewport['width']}x{viewport['height']}")

    def post(event: dict[str, Any]) -> None:
        server.post(match_id, ref, event)

    greyed(page, "coin_toss", False)
    walk.check("before kickoff", CALLS)

    walk.tap('[data-action="coin_toss"]')  # 5.1: the toss's builder takes the calls' place
    walk.check("coin toss", ["#b-cancel", "#b-options button"])
    walk.tap("#b-cancel")

    post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    post({"type": "period_start"})
    greyed(page, "restart_taken", False)
    walk.check("first half, kickoff pending", CALLS + ["#restart"])

    post({"type": "restart_taken", "team": "home", "player": 1})
    greyed(page, "restart_taken", True)
    walk.check("ball in play", CALLS)
    page.locator('[data-action="restart_taken"]').click(force=True)  # refused: the engine's reason, its close button
    expect(page.locator("#notice")).to_be_visible()
    walk.check("ball in play, a refusal shown", CALLS + ["#notice-msg", "#notice-hint", "#notice-close"])
    walk.tap("#notice-close")

    # A foul with a yellow card: the team, the player, the card, its reason, then the spot on the field.
    walk.tap('[data-action="foul"]')
    walk.check("a foul being built", ["#b-cancel", "#b-teams button", "#prompt"])
    walk.tap('#b-teams [data-team="away"]')
    walk.check("a foul, its player", ["#b-cancel", "#b-teams button", "#b-options button", "#b-players button"])
    walk.tap('#b-players [data-player="2"]')
    walk.tap('#b-options [data-choice="card"][data-value="yellow"]')
    walk.check(
        "a foul with a card, its reason list open",
        ["#b-cancel", "#b-options button", "#b-codes button", "#b-reason-text", "#prompt"],
    )
    walk.tap('#b-codes [data-code="dissent"]')
    walk.check("a card's reason chosen, the spot to tap", ["#b-cancel", "#b-codes button", "#b-reason-text", "#prompt"])
    walk.tap_field(20, 12)
    expect(page.locator("#builder")).to_be_hidden()
    assert server.last_event(match_id, "foul")["card"] == "yellow"

    # A card on its own: every player of the team, on the field and on the bench, and the reasons.
    walk.tap('[data-action="yellow"]')
    walk.tap('#b-teams [data-team="home"]')
    walk.check(
        "a yellow card being built", ["#b-cancel", "#b-teams button", "#b-players button", "#b-codes button", "#b-reason-text"]
    )
    walk.tap("#b-cancel")

    length = server.state(match_id)["clock"]["length_ms"]
    post({"type": "clock", "action": "set", "elapsed_ms": length})
    post({"type": "period_end"})
    greyed(page, "period_start", False)
    walk.check("half-time", CALLS + ["#confirm-send"])
    walk.tap("#confirm-send")

    post({"type": "period_start"})
    greyed(page, "period_start", True)
    walk.check("second half", CALLS)
    post({"type": "clock", "action": "set", "elapsed_ms": length})
    post({"type": "period_end"})  # 0–0: the shootout (12)

    expect(page.locator("#so-start")).to_be_visible()
    walk.check(
        "shootout, the toss and the takers",
        CALLS + ["#so-start [data-first]", "#so-start select", "#so-start-send", "#confirm-send"],
    )
    walk.tap("#confirm-send")
    walk.tap('#so-start [data-first="home"]')
    walk.tap("#so-start-send")
    expect(page.locator("#so-kick")).to_be_visible()
    walk.check("shootout, the kicks", CALLS + ["#so-kick button", "#so-board", "#so-next"])
    walk.tap('#so-kick [data-kick="1"]')
    expect(page.locator("#so-score")).to_have_text("1–0")
    for _ in range(20):  # home scores, away misses, until the shootout is decided (12)
        state = server.state(match_id)
        if state["phase"] == "finished":
            break
        team = state["shootout"]["next"]["team"]
        post({"type": "shootout_kick", "team": team, "scored": team == "home"})
    assert server.state(match_id)["phase"] == "finished", server.state(match_id)["shootout"]
    expect(page.locator("#sign-panel")).to_be_visible()
    walk.check("finished, the score sheet", CALLS + ["#sign-list [data-sign]", "#confirm-send", "#report-link", "#so-score"])
    walk.tap("#confirm-send")
    walk.tap('#sign-list [data-sign="referee"]')
    expect(page.locator("#sign-dialog")).to_be_visible()
    walk.check(
        "finished, the referee signing",
        ["#sign-warn", "#sign-name", "#sign-pad", "#sign-save", "#sign-cancel", "#sign-clear"],
        dialog=True,
    )
    page.locator("#sign-name").fill("王裁判 Wang")
    scrawl(page)
    walk.tap("#sign-save")

    expect(page.locator("#lock-banner")).to_be_visible()
    walk.check("locked", CALLS + ["#lock-banner", "#sign-list li", "#report-link"])
    walk.nothing_moved()
