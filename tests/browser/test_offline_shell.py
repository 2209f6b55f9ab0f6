"""The offline shell (issue 13): a console reloaded without its server opens with its queue, and sends the
queued calls once when the server is back (static/js/sw.js, a service worker).

The server is really stopped (the field's laptop gone, or the Wi-Fi): Chromium's offline emulation does
not reach a service worker's own network requests, so it would prove nothing here.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import TABLET, start_server, stop_server
from tests.browser.helpers import action, console_url, live_match, player
from tests.waiting import wait_until


def _controlled(page: Page, timeout: float = 15) -> None:
    """Wait until the service worker controls the page (polled from here: the CSP forbids eval)."""
    controlled = "() => Boolean(navigator.serviceWorker && navigator.serviceWorker.controller)"
    wait_until(lambda: page.evaluate(controlled), "a service worker takes control of the page", timeout, every=0.1)


def test_the_console_reloads_without_its_server_with_its_queue_and_sends_it_once(browser: Browser, tmp_path: Path) -> None:
    srv = start_server(tmp_path)
    port = srv.base.rsplit(":", 1)[1]
    ctx = browser.new_context(viewport=TABLET, base_url=srv.base, locale="en-GB")
    try:
        match_id, tokens = live_match(srv)
        console = ctx.new_page()
        console.goto(console_url(match_id, tokens["referee"]))
        expect(console.locator("#net")).to_have_text("Online")
        console.reload()  # the service worker's load: it keeps a copy of the page and its assets
        _controlled(console)
        expect(console.locator("#net")).to_have_text("Online")
        # The worker stores its copies after answering (sw.js): stopping the server before they are stored
        # would be a tablet switched off mid-load (failed once in the clean-clone CI of 469b0c4).
        kept = (
            "() => Promise.all([caches.match(location.href),"
            " caches.match('/static/js/console/main.js', {ignoreSearch: true})]).then(hits => hits.map(Boolean))"
        )
        wait_until(lambda: all(console.evaluate(kept)), "the page and its modules kept", 15, every=0.1)
        seq = srv.state(match_id)["seq"]

        stop_server(srv)  # no server any more
        action(console, "goal")  # home has the ball: preselected
        player(console, 3)
        expect(console.locator("#net")).to_contain_text("1 queued")
        console.reload()  # the shell, not the browser's error page
        expect(console.locator('[data-action="goal"]')).to_be_visible()
        expect(console.locator("#net")).to_contain_text("1 queued")
        expect(console.locator("#home-score")).to_have_text("1")  # the queue's forecast

        srv = start_server(tmp_path, PORT=port)  # the same server back, on its database
        expect(console.locator("#net")).to_have_text("Online", timeout=30_000)
        new = [e for e in srv.events(match_id) if e["seq"] > seq]
        assert [(e["type"], e["team"], e["player"]) for e in new] == [("goal", "home", 3)]  # once
        assert srv.state(match_id)["score"]["home"] == 1
    finally:
        ctx.close()
        stop_server(srv)


def _kept(page: Page, timeout: float = 15) -> list[str]:
    """Every URL the shell keeps, once it holds this page under its own address (or after ``timeout``: then
    the offline reload below shows what a tablet would)."""
    with contextlib.suppress(AssertionError):
        wait_until(lambda: page.evaluate("() => caches.match(location.href).then(Boolean)"), "kept", timeout, every=0.1)
    kept: list[str] = page.evaluate(
        "() => caches.keys().then(ns => Promise.all(ns.map(n => caches.open(n).then(c => c.keys()))))"
        ".then(ks => ks.flat().map(r => r.url))"
    )
    return kept


def test_D171_a_console_opened_once_from_its_QR_link_reloads_without_its_server_with_its_queue(
    browser: Browser, tmp_path: Path
) -> None:
    """Issue 19 item 5: one online visit is enough. The page that registered the worker and the assets it
    loaded are kept from that first visit (the worker saw none of those requests), under the address the
    token exchange left (D53: ``?role=``), never under the QR link's ``?token=``."""
    srv = start_server(tmp_path)
    ctx = browser.new_context(viewport=TABLET, base_url=srv.base, locale="en-GB")
    try:
        match_id, tokens = live_match(srv)
        console = ctx.new_page()
        console.goto(console_url(match_id, tokens["referee"]))  # the QR link, once: no second online load
        expect(console.locator("#net")).to_have_text("Online")
        assert console.url.endswith(f"/matches/{match_id}/referee?role=referee")
        _controlled(console)
        kept = _kept(console)

        stop_server(srv)  # the network drops
        action(console, "goal")
        player(console, 3)
        expect(console.locator("#net")).to_contain_text("1 queued")
        console.reload()  # the console with its queue, not the browser's error page
        expect(console.locator('[data-action="goal"]')).to_be_visible()
        expect(console.locator("#net")).to_contain_text("1 queued")
        expect(console.locator("#home-score")).to_have_text("1")
        assert not [u for u in kept if "token" in u], kept  # no token on the tablet's disk
        assert any(u.endswith("/static/js/console/main.js") for u in kept), kept  # the page's modules too
    finally:
        ctx.close()
        stop_server(srv)
