"""What the browser tests do on the console, the way an official does it: taps."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from qalisball.server.demo import demo_request

TO_SCREEN = """(svg, p) => {
  const pt = svg.createSVGPoint(); pt.x = p[0]; pt.y = p[1];
  const m = pt.matrixTransform(svg.getScreenCTM());
  return [m.x, m.y];
}"""


def tap_field(page: Page, x: float, y: float) -> None:
    """Tap the field diagram at (x, y) metres."""
    sx, sy = page.eval_on_selector("#field", TO_SCREEN, [x, y])
    page.mouse.click(sx, sy)


def action(page: Page, name: str) -> None:
    button = page.locator(f'[data-action="{name}"]')
    expect(button).to_be_enabled()
    button.click()


def player(page: Page, number: int | None) -> None:
    page.locator(f'#b-players button[data-player="{"none" if number is None else number}"]').first.click()


def team(page: Page, side: str) -> None:
    page.locator(f'#b-teams button[data-team="{side}"]').click()


def sent(page: Page) -> None:
    """Wait until the console has no call waiting and shows the engine's answer."""
    expect(page.locator("#net")).to_have_class("net online")
    expect(page.locator("#notice")).to_be_visible()


def live_match(server: Any, **changes: Any) -> tuple[str, dict[str, str]]:
    """A demo match (Chinese and English names) with the first half's kickoff taken: ball in play, home's."""
    body = demo_request()
    body.update(changes)
    m = server.create_match(body)
    ref = m["tokens"]["referee"]
    server.post(m["id"], ref, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    server.post(m["id"], ref, {"type": "period_start"})
    server.post(m["id"], ref, {"type": "restart_taken", "team": "home", "player": 1})
    return m["id"], m["tokens"]


def console_url(match_id: str, token: str) -> str:
    return f"/matches/{match_id}/referee?token={token}"
