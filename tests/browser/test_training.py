"""Referee training in Chromium (issue 24, D190): a trainer starts a session on the finished demo friendly,
two trainees join with the code on their phones and follow the trainer's pace; both answer, the trainer
sees both answers per call live, then the score sheet per trainee and per rule, and its CSV."""

from __future__ import annotations

import csv
import io
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ADMIN, PHONE, TABLET, Devices, Server, shot

pytestmark = pytest.mark.browser


def _tap_field(page: Page, x: float, y: float) -> None:
    """A tap on the field diagram at (x, y) metres (the SVG's own coordinates)."""
    at = page.evaluate(
        """([x, y]) => { const svg = document.getElementById("field"); const p = svg.createSVGPoint();
        p.x = x; p.y = y; const q = p.matrixTransform(svg.getScreenCTM()); return [q.x, q.y]; }""",
        [x, y],
    )
    page.mouse.click(at[0], at[1])


def _join(devices: Devices, code: str, name: str) -> Page:
    page = devices.open(f"/training/join?code={code}", viewport=PHONE)
    page.locator('#join input[name="trainee"]').fill(name)
    page.locator("#join button").click()
    expect(page.locator("body[data-joined]")).to_have_count(1)
    return page


def _answer(page: Page, restart: str, team: str, x: float, y: float) -> None:
    page.locator('#answer select[name="type"]').select_option(restart)
    page.locator('#answer select[name="team"]').select_option(team)
    _tap_field(page, x, y)
    page.locator("#answer button").click()


def test_issue24_D190_two_trainees_follow_the_trainers_pace_and_the_trainer_sees_both_answers(
    devices: Devices, server: Server
) -> None:
    trainer = devices.open(f"/training?token={ADMIN}", viewport=TABLET)
    expect(trainer).to_have_url(re.compile(r"/training$"))
    friendly = next(m for m in server.http.get(server.base + "/api/matches", timeout=10).json() if m["home"] == "北大 Peking")
    assert friendly["phase"] == "finished"  # the demo friendly: a trainer starts at once on a fresh install
    trainer.locator('#start select[name="match"]').select_option(friendly["id"])
    trainer.locator("#start button").click()
    expect(trainer.locator("body[data-session]")).to_have_count(1)
    code = trainer.locator("#code").inner_text()
    assert re.fullmatch(r"[A-Z2-9]{6}", code), code

    li, wang = _join(devices, code, "Li Hua"), _join(devices, code, "Wang Fang")
    trainer.locator("#next-call").click()  # everyone to the first call: a ball out over the side line
    for page in (li, wang):
        expect(page.locator("#question")).to_have_attribute("data-n", "1")
    _answer(li, "side_line", "home", 15.0, 24.9)  # the engine's: home's side-line ball where the ball went out (8.2)
    _answer(wang, "free_kick", "away", 15.0, 24.9)
    expect(li.locator("#verdict")).to_have_class("ok")
    expect(wang.locator("#verdict")).to_have_class("bad")
    expect(wang.locator("#verdict")).to_contain_text("8.2")

    row = trainer.locator('#grid tr[data-n="1"]')
    expect(row.locator('td[data-trainee="Li Hua"]')).to_have_class("ok")
    expect(row.locator('td[data-trainee="Wang Fang"]')).to_have_class("bad")
    shot(trainer, "training-trainer-grid-en")

    trainer.locator("#next-call").click()  # the trainer moves everyone on: a grounded ball (8.3)
    for page in (li, wang):
        expect(page.locator("#question")).to_have_attribute("data-n", "2")
    _answer(li, "free_kick", "away", 30.0, 5.0)
    expect(li.locator("#verdict")).to_have_class("ok")
    shot(li, "training-trainee-phone-en")

    sheet = trainer.locator("#sheet")
    expect(sheet.locator('tr[data-trainee="Li Hua"] td.total')).to_have_text("2 / 2")
    expect(sheet.locator('tr[data-trainee="Wang Fang"] td.total')).to_have_text("0 / 1")
    expect(sheet.locator('tr[data-trainee="Li Hua"] [data-rule="8.3"]')).to_have_text("8.3: 1 / 1")
    href = trainer.locator("#csv").get_attribute("href")
    rows = list(csv.DictReader(io.StringIO(server.http.get(server.base + str(href), timeout=10).content.decode("utf-8-sig"))))
    assert {"trainee": "Wang Fang", "rule": "8.2", "correct": "0", "answered": "1"} in rows
    assert {"trainee": "Li Hua", "rule": "", "correct": "2", "answered": "2"} in rows
