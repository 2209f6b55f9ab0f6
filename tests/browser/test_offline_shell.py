"""The offline shell (issue 13): a console reloaded without network opens with its queue, and sends the
queued calls once, in order, when the network returns (static/js/sw.js, a service worker)."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from tests.browser.conftest import Devices, Server
from tests.browser.helpers import action, console_url, live_match, player


def _controlled(page: Page, timeout: float = 15) -> None:
    """Wait until the service worker controls the page (polled from here: the CSP forbids eval)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate("() => Boolean(navigator.serviceWorker && navigator.serviceWorker.controller)"):
        assert time.monotonic() < deadline, "no service worker took control of the page"
        time.sleep(0.1)


def test_the_console_reloads_offline_with_its_queue_and_sends_it_once(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]))
    expect(console.locator("#net")).to_have_text("Online")
    console.reload()  # the second load is the service worker's: it keeps a copy of the page and its assets
    _controlled(console)
    expect(console.locator("#net")).to_have_text("Online")
    seq = server.state(match_id)["seq"]

    console.context.set_offline(True)
    action(console, "goal")  # home has the ball: preselected
    player(console, 3)
    expect(console.locator("#net")).to_have_text("Offline, 1 queued")
    console.reload()  # no network: the shell, not the browser's error page
    expect(console.locator('[data-action="goal"]')).to_be_visible()
    expect(console.locator("#net")).to_contain_text("1 queued")
    expect(console.locator("#home-score")).to_have_text("1")  # the queue's forecast
    assert server.state(match_id)["seq"] == seq  # nothing arrived

    console.context.set_offline(False)
    expect(console.locator("#net")).to_have_text("Online", timeout=20_000)
    new = [e for e in server.events(match_id) if e["seq"] > seq]
    assert [(e["type"], e["team"], e["player"]) for e in new] == [("goal", "home", 3)]  # once
    assert server.state(match_id)["score"]["home"] == 1
