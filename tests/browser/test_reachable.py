"""Training and the what-if are reachable from the pages (issue 27 item 11): the organiser's home page links
/training and each played match's what-if, the officials' page links the what-if, and the demo competition
has a finished fixture with a protest, so the protest → what-if → decision path is there on a fresh install."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ADMIN, TABLET, Devices, Server

pytestmark = pytest.mark.browser


def test_issue27_item11_the_organisers_home_page_links_training_and_the_what_if(devices: Devices, server: Server) -> None:
    anonymous = devices.open("/?lang=en", viewport=TABLET)
    expect(anonymous.locator("#training-link")).to_be_hidden()
    expect(anonymous.locator(".what-if-link")).not_to_have_count(0)  # in the page, hidden without the cookie
    expect(anonymous.locator(".what-if-link:visible")).to_have_count(0)
    page = devices.open(f"/?token={ADMIN}&lang=zh", viewport=TABLET)
    page.locator("#training-link").click()
    expect(page).to_have_url(re.compile(r"/training$"))
    expect(page.locator("h1")).to_have_text("裁判培训")
    page.go_back()
    friendly = page.locator(".match-card", has_text="北大 Peking").filter(has_text="北师大 BNU").first
    friendly.locator(".what-if-link").click()
    expect(page).to_have_url(re.compile(r"/matches/\w+/what-if$"))
    expect(page.locator("h1")).to_contain_text("假如")


def test_issue27_item11_the_officials_page_links_the_what_if(devices: Devices, server: Server) -> None:
    friendly = next(m for m in server.http.get(server.base + "/api/matches", timeout=10).json() if m["home"] == "北大 Peking")
    page = devices.open(f"/matches/{friendly['id']}/officials?token={ADMIN}&lang=en", viewport=TABLET)
    page.locator("#what-if-link").click()
    expect(page).to_have_url(re.compile(rf"/matches/{friendly['id']}/what-if$"))
    expect(page.locator("h1")).to_contain_text("What if")


def test_issue27_item11_the_demo_competition_has_a_finished_fixture_with_a_protest_to_take_to_the_what_if(
    devices: Devices, server: Server
) -> None:
    auth = {"Authorization": f"Bearer {ADMIN}"}
    comps = server.http.get(server.base + "/api/competitions", timeout=10).json()
    comp = next(c for c in comps if c["name"] == "Demo Cup 演示杯")["id"]
    view = server.http.get(f"{server.base}/api/competitions/{comp}", headers=auth, timeout=10).json()
    finished = [f for f in view["fixtures"] if f["status"] == "finished"]
    assert len(finished) == 1, [f["status"] for f in view["fixtures"]]
    fixture = finished[0]
    protests = [p for p in view["protests"] if p["fixture"] == fixture["id"]]
    assert len(protests) == 1 and protests[0]["decision"] is None and protests[0]["team"] == fixture["away"]
    page = devices.open(f"/competitions/{comp}/admin?token={ADMIN}&lang=en", viewport=TABLET)
    panel = page.locator(f"#fx-{fixture['id']}")
    panel.locator("summary").click()
    panel.locator(f'.protest[data-protest="{protests[0]["id"]}"] a.what-if-link').click()
    expect(page).to_have_url(re.compile(r"/what-if\?"))
    expect(page.locator("#protest")).to_contain_text("#6 was in the area")
    expect(page.locator("body[data-ready]")).to_have_count(1)
    expect(page.locator("#decide form#decision")).to_be_attached()  # shown once a what-if has run (D188)
