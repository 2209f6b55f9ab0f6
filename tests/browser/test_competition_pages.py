"""Competitions in the browser (issue 12): the organiser runs fixtures from the organiser's page, the public
page and the big screen follow the matches live, standings refresh when a match finishes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ADMIN, PHONE, SCREEN, TABLET, Devices, Server, shot
from tests.competition_play import roster

pytestmark = pytest.mark.browser
LIVE = 10_000  # ms: a live update crosses the server, Socket.IO and (for standings) one fetch


def _api(server: Server, method: str, path: str, body: Any = None, expect_status: int = 200) -> Any:
    r = server.http.request(method, server.base + path, json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
    assert r.status_code == expect_status, r.text
    return r.json()


def _competition(server: Server, name: str) -> tuple[str, list[str], list[str]]:
    teams = [
        _api(server, "POST", "/api/teams", {"name": f"{name} {n}", "club": f"Club {n}", "players": roster(n, 8)}, 201)["id"]
        for n in "ABCD"
    ]
    officials = [
        _api(server, "POST", "/api/officials", {"name": f"Ref {n}", "club": club}, 201)["id"]
        for n, club in (("W", None), ("X", "Club A"))
    ]
    comp = _api(
        server,
        "POST",
        "/api/competitions",
        {
            "name": name,
            "format": "round_robin",
            "teams": teams,
            "fields": [{"name": "Field 1"}, {"name": "Field 2"}],
            "starts_at": "2020-01-04T09:00:00+08:00",
        },
        201,
    )["id"]
    return comp, teams, officials


def test_C1_C5_C6_the_organiser_runs_fixtures_from_the_organisers_page(devices: Devices, server: Server) -> None:
    comp, teams, officials = _competition(server, "Organiser Cup")
    fx = _api(server, "GET", f"/api/competitions/{comp}")["fixtures"]
    first, second = fx[0], fx[1]
    page = devices.open(f"/competitions/{comp}/admin?token={ADMIN}", viewport=TABLET)
    expect(page).to_have_url(re.compile(r"/admin$"))  # the token leaves the address bar, kept on the device
    panel = page.locator(f"#fx-{first['id']}")
    panel.locator("summary").click()
    # An official of a playing team's club is refused (C5), with the rule and the reason.
    officials_form = panel.locator('form[data-form="officials"]')
    officials_form.locator('select[name="referee"]').select_option(officials[1])
    officials_form.locator("button[type=submit]").click()
    expect(officials_form.locator(".form-msg")).to_contain_text("C5")
    expect(officials_form.locator(".form-msg")).to_contain_text("stands aside")
    officials_form.locator('select[name="referee"]').select_option(officials[0])
    officials_form.locator("button[type=submit]").click()
    expect(panel.locator('form[data-form="officials"] select[name="referee"]')).to_have_value(officials[0])
    assert _api(server, "GET", f"/api/competitions/{comp}")["fixtures"][0]["officials"] == {"referee": officials[0]}
    # Lineups from the kept rosters: five starters is caught by the page; six make the match.
    lineup = panel.locator('form[data-form="lineup"]')
    lineup.locator('fieldset[data-side="home"] input[name="home.start"][value="6"]').uncheck()
    lineup.locator("button[type=submit]").click()
    expect(lineup.locator(".form-msg")).to_have_text("Choose exactly 6 starters")
    lineup.locator('fieldset[data-side="home"] input[name="home.start"][value="8"]').check()
    lineup.locator("button[type=submit]").click()
    qr = panel.locator("a.officials-link")
    expect(qr).to_be_visible()
    expect(qr).to_have_attribute("href", re.compile(r"/matches/\w+/officials$"))  # the organiser's cookie opens it (D53)
    shot(page, "competition-admin-en")
    match_id = _api(server, "GET", f"/api/competitions/{comp}")["fixtures"][0]["match"]
    state = server.state(match_id)
    assert state["teams"]["home"]["on_field"] == [1, 2, 3, 4, 5, 8] and state["teams"]["home"]["name"] == "Organiser Cup A"
    # The second fixture's team is not there 20 minutes after the start: the organiser declares the forfeit (C6).
    page.once("dialog", lambda d: d.accept())
    panel2 = page.locator(f"#fx-{second['id']}")
    panel2.locator("summary").click()
    forfeit = panel2.locator('form[data-form="forfeit"]')
    forfeit.locator('select[name="team"]').select_option(second["away"])
    forfeit.locator('input[name="reason"]').fill("not at the field")
    forfeit.locator("button[type=submit]").click()
    expect(page.locator(f"#fx-{second['id']} summary .fx-status")).to_have_text("Forfeit")
    assert _api(server, "GET", f"/api/competitions/{comp}")["fixtures"][1]["result"]["forfeit_by"] == second["away"]
    # D75: the last fixture moves. Onto the other field beside a match of one of its teams: refused, naming
    # the rule; to a later slot: its panel says the new time once the page has fetched its part again.
    last = fx[-1]
    panel3 = page.locator(f"#fx-{last['id']}")
    panel3.locator("summary").click()
    move = panel3.locator('form[data-form="move"]')
    clash = next(f for f in fx if f["starts_at"] != last["starts_at"] and {f["home"], f["away"]} & {last["home"], last["away"]})
    other_field = "Field 2" if clash["field"] == "Field 1" else "Field 1"
    move.locator('input[name="starts_at"]').fill(clash["starts_at"][:16])
    move.locator('select[name="field"]').select_option(other_field)
    move.locator("button[type=submit]").click()
    expect(move.locator(".form-msg")).to_contain_text("D75")
    move.locator('input[name="starts_at"]').fill("2020-01-04T20:00")
    move.locator("button[type=submit]").click()
    expect(page.locator(f"#fx-{last['id']} summary .when")).to_contain_text("20:00")
    assert _api(server, "GET", f"/api/competitions/{comp}")["fixtures"][-1]["starts_at"] == "2020-01-04T20:00:00+08:00"


def test_C3_the_public_page_and_big_screen_follow_the_matches_live(devices: Devices, server: Server) -> None:
    comp, teams, _ = _competition(server, "Public Cup")
    f = _api(server, "GET", f"/api/competitions/{comp}")["fixtures"][0]
    made = _api(
        server,
        "POST",
        f"/api/competitions/{comp}/fixtures/{f['id']}/match",
        {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}},
        201,
    )
    phone = devices.open(f"/competitions/{comp}?lang=zh", viewport=PHONE, locale="zh-CN")
    screen = devices.open(f"/competitions/{comp}/screen?seconds=4", viewport=SCREEN)
    expect(phone.locator("h1")).to_contain_text("Public Cup")
    expect(phone.locator("section.schedule h2")).to_have_text("赛程")
    expect(phone.locator('table.standings[data-group="all"] tbody tr')).to_have_count(4)
    # Kick-off and a goal: the score changes in place, the clock ticks from the server's.
    ref = made["tokens"]["referee"]
    mid = made["id"]
    server.post(mid, ref, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    server.post(mid, ref, {"type": "period_start"})
    server.post(mid, ref, {"type": "restart_taken", "team": "home", "player": 1})
    server.post(mid, ref, {"type": "goal", "team": "home", "player": 2})
    card = phone.locator(f'table.grid [data-fixture="{f["id"]}"]')
    expect(card.locator(".fx-score")).to_have_text("1–0", timeout=LIVE)
    expect(card.locator(".fx-clock")).to_have_text(re.compile(r"^\d\d:\d\d$"), timeout=LIVE)
    expect(screen.locator('.panel[data-panel="live"] .big-fx .fx-score')).to_have_text("1–0", timeout=LIVE)
    shot(screen, "competition-screen-live")
    # The match finishes: the standings are fetched again and show the win; the big screen turns to them.
    state = server.state(mid)
    server.post(mid, made["tokens"]["scorer"], {"type": "clock", "action": "set", "elapsed_ms": state["clock"]["length_ms"]})
    server.post(mid, ref, {"type": "period_end"})
    server.post(mid, ref, {"type": "period_start"})
    server.post(mid, made["tokens"]["scorer"], {"type": "clock", "action": "set", "elapsed_ms": state["clock"]["length_ms"]})
    server.post(mid, ref, {"type": "period_end"})
    winner_row = phone.locator(f'table.standings tr[data-team="{f["home"]}"]')
    expect(winner_row.locator("td.pts")).to_have_text("3", timeout=LIVE)
    expect(phone.locator(f'table.grid [data-fixture="{f["id"]}"] .fx-status')).to_have_text("已结束", timeout=LIVE)
    expect(screen.locator('.panel[data-panel="standings"]')).to_be_visible(timeout=15_000)
    expect(screen.locator(f'.panel[data-panel="standings"] tr[data-team="{f["home"]}"] td.pts')).to_have_text("3", timeout=LIVE)
    shot(phone, "competition-public-zh")
    shot(screen, "competition-screen-standings")
    # Printable standings.
    printable = devices.open(f"/competitions/{comp}/standings", viewport=TABLET)
    expect(printable.locator(f'tr[data-team="{f["home"]}"] td.pts')).to_have_text("3")
