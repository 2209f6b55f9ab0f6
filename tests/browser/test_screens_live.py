"""The public screens live, in Chromium (issue 13): the horn, a lost connection, overlay pop-ups and
delay, restarts explained as they happen, the venue screen following the organiser's choice."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from tests.browser.conftest import ADMIN, PHONE, SCREEN, Devices, Server, shot, start_server, stop_server
from tests.browser.screen_states import kicked_off
from tests.browser.test_competition_pages import _competition
from tests.waiting import wait_until

pytestmark = pytest.mark.browser

HALF_MS = 30 * 60_000

# An AudioContext that records what the page plays instead of playing it: each oscillator started is
# one reed of a horn (lib/horn.js starts three at once).
AUDIO_SPY = """
window.__reeds = [];
class FakeParam {
  constructor() { this.value = 0; }
  setValueAtTime() {} exponentialRampToValueAtTime() {} linearRampToValueAtTime() {}
}
class FakeNode {
  constructor(kind) { this.kind = kind; this.frequency = new FakeParam(); this.gain = new FakeParam(); this.type = ""; }
  connect() {} disconnect() {}
  start(at) { if (this.kind === "osc") window.__reeds.push({ f: this.frequency.value, type: this.type }); }
  stop() {}
}
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  createOscillator() { return new FakeNode("osc"); }
  createGain() { return new FakeNode("gain"); }
  createBiquadFilter() { return new FakeNode("filter"); }
  resume() { return Promise.resolve(); }
};
"""


def _wait_js(page: Any, expression: str, timeout: float = 15) -> None:
    """Wait until ``expression`` is true in the page; polled from here, since the pages' CSP forbids eval."""
    wait_until(lambda: page.evaluate(f"() => Boolean({expression})"), expression, timeout)


def horns(page: Page) -> int:
    reeds: int = page.evaluate("window.__reeds.length")
    return reeds // 3


def board(devices: Devices, path: str, **kw: object) -> Page:
    page = devices.open("/", viewport=SCREEN, **kw)  # type: ignore[arg-type]
    page.context.add_init_script(AUDIO_SPY)
    page.goto(path)
    page.wait_for_selector("body[data-ready]")
    page.wait_for_selector("body[data-live]")  # joined (issue 27.12): what the test posts next reaches it
    return page


# ---------------------------------------------------------------------------------------------
# The horn


def test_S1_3_1_horn_sounds_at_time_up_once_and_a_muted_device_stays_silent(devices: Devices, server: Server) -> None:
    match_id, tokens = kicked_off(server)
    page = board(devices, f"/matches/{match_id}/scoreboard?lang=en")
    assert horns(page) == 0, "no horn when the page opens"
    server.post(match_id, tokens["scorer"], {"type": "clock", "action": "set", "elapsed_ms": HALF_MS - 1500})
    expect(page.locator("#clock")).to_have_class(re.compile(r"\bup\b"), timeout=10_000)
    _wait_js(page, "window.__reeds.length >= 3")
    assert horns(page) == 1
    assert page.evaluate("window.__reeds.map(r => r.type)") == ["sawtooth"] * 3, "synthesized: no sound file"
    expect(page.locator("#sound")).to_have_text("Sound on")

    # Muted on this device: remembered after a reload, and the next time-up is silent.
    page.locator("#sound").click()
    expect(page.locator("#sound")).to_have_text("Sound off")
    server.post(match_id, tokens["referee"], {"type": "period_end"})
    server.post(match_id, tokens["referee"], {"type": "period_start"})
    page.reload()
    page.wait_for_selector("body[data-live]")
    expect(page.locator("#sound")).to_have_text("Sound off")
    server.post(match_id, tokens["scorer"], {"type": "clock", "action": "set", "elapsed_ms": HALF_MS - 1500})
    expect(page.locator("#clock")).to_have_class(re.compile(r"\bup\b"), timeout=10_000)
    page.evaluate("new Promise(r => setTimeout(r, 300))")  # three ticks after the clock turned red
    assert horns(page) == 0, "the horn sounds in the same tick as time-up: a muted screen stayed silent"
    page.locator("#sound").click()
    expect(page.locator("#sound")).to_have_text("Sound on")
    assert page.evaluate("localStorage.getItem('qalisball.horn.muted')") == "0"


def test_S1_no_late_horn_for_a_time_up_missed_while_the_connection_was_lost(devices: Devices, server: Server) -> None:
    match_id, tokens = kicked_off(server)
    seen = board(devices, f"/matches/{match_id}/scoreboard?lang=en")
    missed = board(devices, f"/matches/{match_id}/scoreboard?lang=en")
    # As when the connection drops (the page's own module, issue 21: no global): the next state brings it back.
    missed.evaluate("import('/static/js/lib/connection.js').then(m => m.markStale(true))")
    server.post(match_id, tokens["scorer"], {"type": "clock", "action": "set", "elapsed_ms": HALF_MS})
    for page in (seen, missed):
        expect(page.locator("#clock")).to_have_class(re.compile(r"\bup\b"))
    _wait_js(seen, "window.__reeds.length >= 3")
    assert horns(seen) == 1 and horns(missed) == 0


def faked_clock_board(devices: Devices, match_id: str) -> Page:
    """A scoreboard whose device time the test moves (Playwright's clock), so 30 s pass at once.

    The page keeps the offset to the server's clock it measured first, so moved time is server time
    to it: each countdown is checked on a page opened just before it starts."""
    # Playwright's fake clock is injected by evaluating code, which the pages' CSP forbids (D49): this
    # test context alone bypasses the CSP (tests/test_security.py checks the header itself).
    page = devices.open("/", viewport=SCREEN, bypass_csp=True)
    page.context.add_init_script(AUDIO_SPY)
    page.clock.install()
    page.goto(f"/matches/{match_id}/scoreboard?lang=en")
    page.wait_for_selector("body[data-ready]")
    page.wait_for_selector("body[data-live]")  # joined: the goal the test posts next is news to it
    return page


def test_S1_7_2_horn_sounds_when_the_30_s_return_ends_with_the_kickoff_still_pending(devices: Devices, server: Server) -> None:
    match_id, tokens = kicked_off(server)
    page = faked_clock_board(devices, match_id)
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    expect(page.locator("#return")).to_be_visible()
    page.clock.run_for(20_000)
    assert horns(page) == 0, "not before the 30 s are over"
    page.clock.run_for(11_000)
    _wait_js(page, "window.__reeds.length >= 3")
    assert horns(page) == 1
    expect(page.locator("#return")).to_be_hidden()


def test_S1_7_2_no_horn_when_the_kickoff_is_taken_within_the_30_s(devices: Devices, server: Server) -> None:
    match_id, tokens = kicked_off(server)
    page = faked_clock_board(devices, match_id)
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    expect(page.locator("#return")).to_be_visible()
    page.clock.run_for(5_000)
    server.post(match_id, tokens["referee"], {"type": "restart_taken", "team": "away", "player": 2})
    expect(page.locator("#return")).to_be_hidden()
    page.clock.run_for(30_000)
    assert horns(page) == 0


# ---------------------------------------------------------------------------------------------
# A lost connection


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A server of this test's own: the test stops it."""
    srv = start_server(tmp_path)
    yield srv
    if srv.proc.poll() is None:
        stop_server(srv)


def test_S2_every_public_screen_says_connection_lost_within_5_s_and_the_tv_stops_ticking(
    devices: Devices, own_server: Server
) -> None:
    srv = own_server
    match_id, tokens = kicked_off(srv)
    assert srv.http.put(f"{srv.base}/api/screens/hall", json={"show": "lineups", "match": match_id},
                        headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10).status_code == 201  # fmt: skip
    base = srv.base
    pages = {
        "scoreboard": f"/matches/{match_id}/scoreboard?lang=en",
        "overlay": f"/matches/{match_id}/scoreboard?overlay=1&layout=third&lang=en",
        "phone": f"/matches/{match_id}?lang=en",
        "lineups": f"/matches/{match_id}/lineups?lang=zh",
        "venue screen": "/screens/hall?lang=en",
        "competition screen": f"/competitions/{_competition(srv, 'Stale Cup')[0]}/screen?lang=en",
    }
    line = {name: "#net" if name.startswith("competition") else "#conn" for name in pages}
    opened = {}
    for name, path in pages.items():
        page = devices.open("/", viewport=PHONE if name == "phone" else SCREEN)
        page.goto(base + path)
        expect(page.locator(line[name])).to_be_hidden()
        opened[name] = page
    tv = opened["scoreboard"]
    expect(tv.locator("#clock")).not_to_have_text("00:00")  # ticking
    stop_server(srv)
    for name, page in opened.items():
        conn = page.locator(line[name])
        expect(conn, name).to_be_visible(timeout=5_000)
        words = "连接中断——最后更新" if name == "lineups" else "Connection lost — last update"
        expect(conn, name).to_have_text(re.compile(re.escape(words) + r" ?\d\d:\d\d:\d\d$"))
    frozen = tv.locator("#clock").inner_text()
    tv.wait_for_timeout(2_100)
    assert tv.locator("#clock").inner_text() == frozen, "a stale screen must not tick as if live"
    assert "stale" in (tv.locator("body").get_attribute("class") or "")
    shot(tv, "scoreboard-connection-lost")
    # The venue screen's frame says so too (the line-ups page inside it).
    inner = opened["venue screen"].frame_locator("#frame-a").locator("#conn")
    expect(inner).to_be_visible(timeout=5_000)
    devices.errors.clear()  # the pages' failed reconnections are expected now


# ---------------------------------------------------------------------------------------------
# Stream overlays


def test_overlay_pops_up_a_goal_then_a_card_for_a_few_seconds(devices: Devices, server: Server) -> None:
    match_id, tokens = kicked_off(server)
    page = board(devices, f"/matches/{match_id}/scoreboard?overlay=1&layout=bug&popup=2&lang=en")
    popup = page.locator("#popup")
    expect(popup).to_be_hidden()
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    expect(popup).to_be_visible()
    expect(popup).to_contain_text("Goal")
    expect(popup).to_contain_text("人大 Renmin #3 张伟")
    expect(popup.locator(".pop-score")).to_have_text("1–0")
    shot(page, "overlay-goal-popup")
    expect(popup).to_be_hidden(timeout=6_000)
    server.post(match_id, tokens["referee"], {"type": "card", "team": "away", "player": 2, "color": "yellow"})
    expect(popup).to_be_visible()
    expect(popup).to_contain_text("Yellow card")
    expect(popup).to_contain_text("Tsinghua 清华 #2 Bella Wu")
    # Without pop-ups (hide=popups) a goal changes the score only.
    quiet = board(devices, f"/matches/{match_id}/scoreboard?overlay=1&hide=popups&lang=en")
    server.post(match_id, tokens["referee"], {"type": "restart_taken", "team": "away", "player": 2})
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "away", "player": 3})
    expect(quiet.locator("#away-score")).to_have_text("1")
    assert quiet.locator("#popup").is_hidden()


def test_S5_overlay_delay_holds_updates_back_by_the_streams_latency(devices: Devices, server: Server) -> None:
    match_id, tokens = kicked_off(server)
    live = board(devices, f"/matches/{match_id}/scoreboard?overlay=1")
    delayed = board(devices, f"/matches/{match_id}/scoreboard?overlay=1&delay=4")
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    expect(live.locator("#home-score")).to_have_text("1")
    assert delayed.locator("#home-score").inner_text() == "0", "the delayed overlay has the goal but shows it later"
    expect(delayed.locator("#home-score")).to_have_text("1", timeout=10_000)
    expect(delayed.locator("#popup")).to_be_visible()


# ---------------------------------------------------------------------------------------------
# Decisions explained


@pytest.mark.parametrize(
    ("lang", "why"),
    [
        ("en", "foul by Tsinghua 清华 #4 (10.6); moved 3 m out of the area (10.8)"),
        ("zh", "Tsinghua 清华4号犯规（10.6）；依 3 米规则移出禁区外（10.8）"),
    ],
)
def test_S3_10_8_phone_and_overlay_explain_each_new_restart_as_it_is_given(
    devices: Devices, server: Server, lang: str, why: str
) -> None:
    match_id, tokens = kicked_off(server)
    phone = devices.open(f"/matches/{match_id}?lang={lang}", viewport=PHONE)
    overlay = board(devices, f"/matches/{match_id}/scoreboard?overlay=1&layout=third&lang={lang}")
    for page in (phone, overlay):
        expect(page.locator("#why")).to_be_hidden()  # the ball is in play: nothing pending to explain
    server.post(match_id, tokens["referee"], {"type": "foul", "team": "away", "player": 4, "spot": {"x": 38.5, "y": 12.5}})
    for page in (phone, overlay):
        expect(page.locator("#why")).to_have_text(why)
        expect(page.locator("#restart")).to_contain_text("人大 Renmin")
    shot(phone, f"phone-why-{lang}")
    server.post(match_id, tokens["referee"], {"type": "restart_taken", "team": "home", "player": 2})
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    kickoff_why = {"en": "goal by 人大 Renmin: the other team kicks off (5.3)", "zh": "人大 Renmin进球：由对方开球（5.3）"}[lang]
    for page in (phone, overlay):
        expect(page.locator("#why")).to_have_text(kickoff_why)


# ---------------------------------------------------------------------------------------------
# The venue screen


def test_venue_screen_switches_live_as_the_organiser_chooses(devices: Devices, server: Server) -> None:
    match_id, _ = kicked_off(server)
    other_id, _ = kicked_off(server, "北大 Peking", "北师大 BNU")
    headers = {"Authorization": f"Bearer {ADMIN}"}
    r = server.http.put(
        f"{server.base}/api/screens/field-9", json={"show": "scoreboard", "match": match_id}, headers=headers, timeout=10
    )
    assert r.status_code in (200, 201), r.text
    screen = devices.open("/screens/field-9?lang=en", viewport=SCREEN)
    frame = screen.frame_locator("#frame-a:not([hidden]), #frame-b:not([hidden])")
    expect(frame.locator("#home-name")).to_have_text("人大 Renmin")

    # A slide: an uploaded image with its caption, shown at once.
    buf = io.BytesIO()
    Image.new("RGB", (640, 360), "#0d47a1").save(buf, "PNG")
    image = server.http.post(
        f"{server.base}/api/images?kind=slide",
        files={"file": ("s.png", buf.getvalue(), "image/png")},
        headers=headers,
        timeout=10,
    ).json()
    server.http.put(
        f"{server.base}/api/screens/field-9",
        json={"show": "slide", "image": image["id"], "caption": "Sponsor 赞助"},
        headers=headers,
    )
    expect(screen.locator("#slide")).to_be_visible()
    expect(screen.locator("#slide-caption")).to_have_text("Sponsor 赞助")
    expect(screen.locator("#slide-img")).to_have_attribute("src", image["url"])
    assert screen.evaluate("document.getElementById('slide-img').naturalWidth") == 640

    # From the organiser's page: the line-ups of the other match.
    organiser = devices.open(f"/screens?token={ADMIN}&lang=en", viewport={"width": 1280, "height": 900})
    form = organiser.locator('article[data-screen="field-9"] form')
    form.locator('select[name="show"]').select_option("lineups")
    expect(form.locator('select[name="image"]')).to_be_hidden()
    form.locator('select[name="match"]').select_option(other_id)
    form.locator('button[type="submit"]').click()
    expect(form.locator(".form-msg")).to_have_text("Saved")
    expect(screen.locator("#slide")).to_be_hidden()
    expect(frame.locator("#home-name")).to_have_text("北大 Peking")
    expect(frame.locator("#officials")).to_contain_text("王强")
    assert "token" not in organiser.url, "the organiser token leaves the address bar"
    shot(screen, "venue-screen-lineups")


def test_S4_a_logo_uploaded_mid_match_appears_on_the_open_scoreboard(devices: Devices, server: Server) -> None:
    """Nobody at the venue reloads the big screen: the logo's upload tells it, and it draws itself again."""
    match_id, _ = kicked_off(server, "立群 Logo FC", "对手 Rivals")
    page = board(devices, f"/matches/{match_id}/scoreboard?lang=en")
    expect(page.locator("#home-name")).to_have_text("立群 Logo FC")
    assert page.locator("#home-logo").count() == 0
    buf = io.BytesIO()
    Image.new("RGB", (200, 200), "#b71c1c").save(buf, "PNG")
    r = server.http.post(
        f"{server.base}/api/logos",
        data={"team": "立群 logo fc"},
        files={"file": ("l.png", buf.getvalue(), "image/png")},
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    expect(page.locator("#home-logo")).to_have_attribute("src", r.json()["url"], timeout=15_000)
    expect(page.locator("#away-logo")).to_have_count(0)
    expect(page.locator("#home-name")).to_have_text("立群 Logo FC")
