"""Issue 13: the officials' console has a fixed grid. Every call button keeps its place and size in every
phase (greyed when the rules refuse it, never hidden or reflowed), so a referee learns the layout by feel;
every target is at least 48 × 48 px, the language switch too. Proved by element boxes, not by eye."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from qalisball.demo import demo_request
from tests.browser.conftest import Devices, Server, shot
from tests.browser.helpers import console_url

pytestmark = pytest.mark.browser

# Every call button of the console's fixed area: the controls above the calls, the calls, and the row below.
BOXES = """() => Array.from(document.querySelectorAll('#controls [data-action], #actions [data-action], .undo-row button'))
  .map((b) => { const r = b.getBoundingClientRect();
    return [b.id || b.getAttribute('data-action'), r.x + window.scrollX, r.y + window.scrollY, r.width, r.height,
            b.offsetParent !== null]; })"""
TARGETS = """() => Array.from(document.querySelectorAll('.lang a, .lang strong'))
  .map((b) => { const r = b.getBoundingClientRect(); return [b.textContent, r.width, r.height]; })"""


def boxes(page: Page) -> dict[str, tuple[float, float, float, float]]:
    out: dict[str, tuple[float, float, float, float]] = {}
    for name, x, y, w, h, shown in page.evaluate(BOXES):
        assert shown, f"{name} is hidden"
        out[name] = (round(x, 1), round(y, 1), round(w, 1), round(h, 1))
    return out


def greyed(page: Page, call: str, yes: bool) -> None:
    """Wait until the console shows the new state: `call` greyed (or not), as the state's `legal` says."""
    button = page.locator(f'[data-action="{call}"]').first
    if yes:
        expect(button).to_have_attribute("aria-disabled", "true")
    else:
        expect(button).to_have_attribute("aria-disabled", "false")


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_issue13_no_console_button_moves_or_resizes_between_phases(devices: Devices, server: Server, locale: str) -> None:
    m = server.create_match(demo_request())
    match_id, ref = m["id"], m["tokens"]["referee"]
    console = devices.open(console_url(match_id, ref), locale=locale)
    phases: dict[str, dict[str, tuple[float, float, float, float]]] = {}

    def post(event: dict[str, Any]) -> None:
        server.post(match_id, ref, event)

    greyed(console, "coin_toss", False)
    phases["before kickoff"] = boxes(console)

    post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    post({"type": "period_start"})
    greyed(console, "restart_taken", False)  # ball dead, the kickoff pending
    greyed(console, "goal", True)
    phases["restart pending"] = boxes(console)

    post({"type": "restart_taken", "team": "home", "player": 1})
    greyed(console, "restart_taken", True)  # ball live
    greyed(console, "goal", False)
    phases["ball live"] = boxes(console)
    console.locator('[data-action="restart_taken"]').click(force=True)  # greyed, yet pressable: the engine's reason
    expect(console.locator("#notice")).to_be_visible()
    phases["ball live, a refusal shown"] = boxes(console)

    post({"type": "foul", "team": "away", "player": 2, "spot": {"x": 20, "y": 12}})
    greyed(console, "restart_taken", False)  # ball dead, a free kick pending
    phases["ball dead, restart pending"] = boxes(console)

    length = server.state(match_id)["clock"]["length_ms"]
    post({"type": "clock", "action": "set", "elapsed_ms": length})
    greyed(console, "period_end", False)  # time up: the half may end
    phases["time up"] = boxes(console)

    post({"type": "period_end"})
    greyed(console, "period_start", False)
    phases["half-time"] = boxes(console)
    shot(console, f"console-grid-{locale}")

    first_name, first = next(iter(phases.items()))
    assert len(first) >= 15, first
    for name, seen in phases.items():
        assert seen.keys() == first.keys(), f"{name}: buttons differ from {first_name}"
        moved = {b: (first[b], seen[b]) for b in first if first[b] != seen[b]}
        assert not moved, f"moved or resized between {first_name} and {name}: {moved}"
    for b, (_x, _y, w, h) in first.items():
        assert w >= 48 and h >= 48, f"{b} is {w}×{h} px"
    links = console.evaluate(TARGETS)
    assert len(links) == 2
    for text, w, h in links:
        assert w >= 48 and h >= 48, f"language link {text} is {w}×{h} px"
