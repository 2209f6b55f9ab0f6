"""The arbitration committee's what-if in Chromium (issue 24, SPEC C7, D188): on the demo competition, a
protest against a goal; from the organiser's page the committee opens "What if…", amends the goal into a
miss, sees both outcomes side by side (score, winner, the later calls refused, the standings), and records
its decision with that what-if; the protest report prints both columns. The match never changes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ADMIN, TABLET, Devices, Server, shot

pytestmark = pytest.mark.browser


def _api(server: Server, method: str, path: str, body: Any = None, expect_status: int = 200, token: str = ADMIN) -> Any:
    r = server.http.request(method, server.base + path, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert r.status_code == expect_status, r.text
    return r.json()


def _played_demo_fixture(server: Server) -> tuple[str, dict[str, Any], str, int]:
    """The demo competition's first fixture, played to 1-0 (the halves ended by setting the clock)."""
    comp = next(c for c in _api(server, "GET", "/api/competitions") if c["name"] == "Demo Cup 演示杯")["id"]
    fixture = _api(server, "GET", f"/api/competitions/{comp}")["fixtures"][0]
    lineup = {"starting": [1, 2, 3, 4, 5, 6]}
    made = _api(server, "POST", f"/api/competitions/{comp}/fixtures/{fixture['id']}/match", {"home": lineup, "away": lineup}, 201)
    mid, ref = made["id"], made["tokens"]["referee"]
    server.post(mid, ref, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    server.post(mid, ref, {"type": "period_start"})
    server.post(mid, ref, {"type": "restart_taken", "team": "home", "player": 1})
    goal = server.post(mid, ref, {"type": "goal", "team": "home", "player": 2})["seq"]
    server.post(mid, ref, {"type": "restart_taken", "team": "away", "player": 1})
    for half in (1, 2):
        length = server.state(mid)["clock"]["length_ms"]
        server.post(mid, ref, {"type": "clock", "action": "set", "elapsed_ms": length})
        server.post(mid, ref, {"type": "period_end"})
        if half == 1:
            server.post(mid, ref, {"type": "period_start"})
            server.post(mid, ref, {"type": "restart_taken", "team": "away", "player": 1})
    assert server.state(mid)["phase"] == "finished" and server.state(mid)["score"] == {"home": 1, "away": 0}
    return comp, fixture, mid, goal


def test_issue24_D188_a_committee_what_if_on_the_demo_competition(devices: Devices, server: Server) -> None:
    comp, fixture, mid, goal = _played_demo_fixture(server)
    pid = _api(
        server,
        "POST",
        f"/api/competitions/{comp}/protests",
        {"fixture": fixture["id"], "team": fixture["away"], "text": "the ball was caught"},
        201,
    )["id"]
    log_before = server.events(mid)

    page = devices.open(f"/competitions/{comp}/admin?token={ADMIN}", viewport=TABLET)
    expect(page).to_have_url(re.compile(r"/admin$"))
    panel = page.locator(f"#fx-{fixture['id']}")
    panel.locator("summary").click()
    panel.locator(f'.protest[data-protest="{pid}"] a.what-if-link').click()
    expect(page).to_have_url(re.compile(rf"/matches/{mid}/what-if\?"))
    expect(page.locator("body[data-ready]")).to_have_count(1)

    # Pick the goal, amend it into a missed shot, ask.
    page.locator(f'#log input[value="{goal}"]').check()
    expect(page.locator("#event-type")).to_have_value("goal")
    page.locator("#event-type").select_option("shot_missed")
    page.locator('#change input[name="reason"]').fill("protest: caught")
    page.locator("#run").click()

    columns = page.locator("#columns")
    expect(columns.locator('tr[data-row="score"] td.actual')).to_have_text("1–0")
    expect(columns.locator('tr[data-row="score"] td.what-if')).to_have_text("0–0")
    expect(columns.locator('tr[data-row="winner"] td.actual')).to_have_text(re.compile(r"Renmin"))  # the demo's first fixture
    # 0-0 at full time: a shootout would have followed (2.0), no winner yet
    expect(columns.locator('tr[data-row="winner"] td.what-if')).to_have_text("Shootout")
    expect(page.locator("#refused li").first).to_contain_text("10.")  # the kickoff after the goal no longer stands
    home_row = f'tr[data-team="{fixture["home"]}"] td.pts'
    expect(page.locator(f"#standings .actual {home_row}")).to_have_text("3")
    expect(page.locator(f"#standings .what-if {home_row}")).not_to_have_text("3")
    shot(page, "whatif-columns-en")

    # The committee's decision, linked to this what-if.
    decision = page.locator("#decision")
    decision.locator('input[name="text"]').fill("Rejected: the goal was scored before the catch")
    decision.locator("button").click()
    expect(page.locator("#decision-msg")).not_to_have_class(re.compile("bad"))
    expect(page.locator("#decision-msg")).not_to_be_empty()
    stored = next(
        p for f in _api(server, "GET", f"/api/competitions/{comp}")["fixtures"] for p in f["protests"] if p["id"] == pid
    )
    assert stored["decision"]["what_if"]["match"] == mid and stored["decision"]["what_if"]["changes"][0]["target"] == goal

    # The protest report prints both columns.
    page.locator("#report-link").click()
    report = page.locator("#columns")
    expect(report.locator('tr[data-row="score"] td').nth(0)).to_contain_text("1–0")
    expect(report.locator('tr[data-row="score"] td').nth(1)).to_contain_text("0–0")
    shot(page, "whatif-protest-report-en")
    assert server.events(mid) == log_before  # read-only on the match


WHAT_IF_POST = re.compile(r"/api/matches/[^/]+/what-if(\?.*)?$")


def test_D295_the_what_ifs_429_and_other_errors_are_said_in_the_pages_language(devices: Devices, server: Server) -> None:
    """The what-if page in Chinese showed the server's English message for its 429 (D250) and every other
    error but a rule's refusal: each is now worded from its ``error`` code with the page's words."""
    friendly = next(m for m in _api(server, "GET", "/api/matches") if m["home"] == "北大 Peking" and m["phase"] == "finished")
    page = devices.open(f"/?token={ADMIN}&lang=zh", viewport=TABLET)
    page.goto(f"/matches/{friendly['id']}/what-if?lang=zh")
    expect(page.locator("body[data-ready]")).to_have_count(1)
    page.locator("#log input").first.check()
    msg = page.locator("#change-msg")
    # The server's own 429 body (whatif_api.Answers.slot), answered while two what-ifs are being computed.
    busy = {
        "error": "too_many_requests",
        "message": "a what-if is being computed for this caller (or too many at once): try again in a moment",
    }
    page.route(WHAT_IF_POST, lambda route: route.fulfill(status=429, json=busy, headers={"Retry-After": "1"}))
    page.locator("#run").click()
    expect(msg).to_have_text("同时计算的假如过多：请稍后再试。")
    expect(msg).to_have_class(re.compile("bad"))
    page.unroute(WHAT_IF_POST)
    page.route(WHAT_IF_POST, lambda route: route.fulfill(status=502, body="<html>Bad Gateway</html>"))
    page.locator("#run").click()
    expect(msg).to_have_text("服务器没有应答（502）：请稍后再试。")  # no JSON of ours: said by its status
    page.unroute(WHAT_IF_POST)
    # A real answer of the server: the organiser's cookie gone, a 401 (its message is English).
    page.context.clear_cookies()
    page.locator("#run").click()
    expect(msg).to_have_text("此链接的令牌对本场比赛无效")
    assert "token" not in msg.inner_text()
