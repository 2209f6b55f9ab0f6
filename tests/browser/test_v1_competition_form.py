"""The organiser creates a competition under rule book 1.0 from the competitions page (SPEC §11.2, V1-D2;
issue 22): the form offers the rule book, shows the points for a draw instead of the shootout's when 1.0
is chosen, and the competition it creates plays 1.0 with those points."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ADMIN, TABLET, Devices, Server
from tests.browser.test_competition_pages import _api
from tests.competition_play import roster

pytestmark = pytest.mark.browser


def test_V1_11_2_V1_D2_the_organiser_creates_a_1_0_competition_with_points_for_a_draw(devices: Devices, server: Server) -> None:
    teams = [_api(server, "POST", "/api/teams", {"name": f"Form Cup {n}", "players": roster(n, 6)}, 201)["id"] for n in "AB"]
    page = devices.open(f"/competitions?token={ADMIN}&lang=en", viewport=TABLET)
    form = page.locator('form[data-form="competition"]')
    draw, shootout_win = form.locator('input[name="points.draw"]'), form.locator('input[name="points.shootout_win"]')
    expect(shootout_win).to_be_visible()  # 2.0 by default: its standings count shootouts
    expect(draw).to_be_hidden()
    form.locator('select[name="rules.rule_set"]').select_option("1.0")
    expect(draw).to_be_visible()  # 1.0: a level match is a draw (V1-D2)
    expect(shootout_win).to_be_hidden()
    form.locator('input[name="name"]').fill("Form Cup 1.0")
    form.locator('select[name="format"]').select_option("round_robin")
    draw.fill("2")
    for tid in teams:
        form.locator(f'input[name="teams"][value="{tid}"]').check()
    form.locator("button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/competitions/\w+/admin$"))
    comp = page.url.rsplit("/", 2)[-2]
    config = _api(server, "GET", f"/api/competitions/{comp}")["config"]
    assert config["match"]["rules"]["rule_set"] == "1.0" and config["points"]["draw"] == 2
    public = devices.open(f"/competitions/{comp}?lang=en", viewport=TABLET)
    expect(public.locator(".legend")).to_contain_text("Points: win 3, draw 2, loss 0")
