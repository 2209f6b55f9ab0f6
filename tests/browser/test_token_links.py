"""The token-in-URL test (issue 14, D53–D54), in Chromium: a console opened from its QR link keeps its token
in an HttpOnly cookie only — not in the address bar, the history, the page, a script or localStorage — and
still officiates, live; another site's page cannot use the organiser's or a console's cookie."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ADMIN, Devices, Server
from tests.browser.helpers import action, console_url, live_match, player, sent

pytestmark = pytest.mark.browser


def test_D53_the_console_link_token_lives_in_an_httponly_cookie_only(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    token = tokens["assistant1"]
    console = devices.open(console_url(match_id, token) + "&lang=en")
    expect(console.locator("#net")).to_have_text("Online")
    assert console.url == f"{server.base}/matches/{match_id}/referee?lang=en&role=assistant1"
    # Nowhere a script or a screenshot can reach: the address, the page, cookies, storage.
    seen = console.evaluate(
        "() => JSON.stringify([location.href, document.documentElement.outerHTML,"
        " document.cookie, JSON.stringify(localStorage), JSON.stringify(sessionStorage)])"
    )
    assert token not in seen and json.loads(seen)[0] == console.url
    cookies = {c["name"]: c for c in console.context.cookies()}
    cookie = cookies[f"qb_role_{match_id}_assistant1"]
    assert cookie["value"] == token and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    # The console still officiates with it: a goal (cookie + CSRF token) and the live room (legal, devices).
    action(console, "goal")
    player(console, 3)
    sent(console)
    expect(console.locator("#home-score")).to_have_text("1")
    assert server.events(match_id)[-1]["by"] == "assistant1"
    listed = server.http.get(
        f"{server.base}/api/matches/{match_id}/devices", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10
    ).json()
    assert [d["role"] for d in listed] == ["assistant1"]
    # Reloaded from its history (no token in the address), the tablet is still the assistant's console.
    console.reload()
    expect(console.locator("#net")).to_have_text("Online")
    expect(console.locator("#home-score")).to_have_text("1")
    expect(console.locator('[data-action="goal"]')).to_be_visible()  # the console, not the token page


def test_D54_another_site_cannot_write_with_the_organisers_or_a_consoles_cookie(
    devices: Devices, server: Server, other_site: tuple[str, Path]
) -> None:
    match_id, tokens = live_match(server)
    # One device holds both cookies: the organiser's page and the referee's console were opened on it.
    organiser = devices.open(f"/matches/{match_id}/officials?token={ADMIN}&lang=en")
    expect(organiser.locator("a.role-link")).to_have_count(4)
    assert "token=" not in organiser.url
    organiser.goto(console_url(match_id, tokens["referee"]))
    expect(organiser.locator("#net")).to_have_text("Online")
    before = len(server.events(match_id))
    base, folder = other_site  # http://localhost:<port>: another site than http://127.0.0.1:<port>
    (folder / "evil.html").write_text(
        "<!doctype html><title>evil</title>"
        f'<form id="f" method="post" action="{server.base}/matches/{match_id}/officials">'
        '<input name="role" value="referee"></form>'
        "<script>"
        f'fetch("{server.base}/api/matches/{match_id}/events", {{method: "POST", mode: "no-cors", credentials: "include",'
        ' headers: {"Content-Type": "text/plain"}, body: JSON.stringify({type: "goal", team: "home", player: 3})})'
        '.finally(() => document.getElementById("f").submit());'
        "</script>"
    )
    evil = organiser.context.new_page()
    evil.goto(f"{base}/evil.html")
    evil.wait_for_url(re.compile("^" + re.escape(server.base) + "/"))  # the form, posted once the fetch is done
    evil.wait_for_load_state("load")
    body = evil.locator("body").inner_text()
    assert evil.url.startswith(server.base) and ("Organiser token" in body or "did not come from this site" in body), body
    # Nothing changed: no event, and the referee's code was not replaced (its token still works).
    assert len(server.events(match_id)) == before
    server.post(match_id, tokens["referee"], {"type": "clock", "action": "pause"})


def test_D53_a_console_link_followed_from_another_site_opens_the_console(
    devices: Devices, server: Server, other_site: tuple[str, Path]
) -> None:
    """An official taps the QR link in a chat or mail web page: the exchange's redirect comes from another
    site, and the cookie it set must still come with the console's first request (SameSite=Lax, D53)."""
    match_id, tokens = live_match(server)
    base, folder = other_site
    link = f"{server.base}{console_url(match_id, tokens['assistant2'])}&lang=en"
    (folder / "chat.html").write_text(f'<!doctype html><title>chat</title><a id="link" href="{link}">console</a>')
    page = devices.open(f"{base}/chat.html")
    with page.expect_navigation():
        page.click("#link")
    expect(page.locator("#net")).to_have_text("Online")
    assert page.url == f"{server.base}/matches/{match_id}/referee?lang=en&role=assistant2"
