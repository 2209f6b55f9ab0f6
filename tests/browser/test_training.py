"""Referee training in Chromium (issue 24, D190): a trainer starts a session on the finished demo friendly,
two trainees join with the code on their phones and follow the trainer's pace; both answer, the trainer
sees both answers per call live, then the score sheet per trainee and per rule, and its CSV."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

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


def _start(trainer: Page, server: Server, match_id: str | None = None) -> str:
    """The trainer starts a session on the finished demo friendly (or ``match_id``); its code."""
    if match_id is None:
        listed = server.http.get(server.base + "/api/matches", timeout=10).json()
        match_id = next(m["id"] for m in listed if m["home"] == "北大 Peking" and m["phase"] == "finished")
    expect(trainer.locator("body[data-ready]")).to_have_count(1)  # the page has reopened what it reopens (D297)
    before = trainer.locator("body").get_attribute("data-session") or "none"
    trainer.locator('#start select[name="match"]').select_option(match_id)
    trainer.locator("#start button").click()
    expect(trainer.locator("body[data-session]")).to_have_count(1)
    expect(trainer.locator("body")).not_to_have_attribute("data-session", before)
    return trainer.locator("#code").inner_text()


def test_issue27_item8_a_reload_keeps_the_trainers_session_and_the_trainee_joined_in_both_languages(
    devices: Devices, server: Server
) -> None:
    trainer = devices.open(f"/training?token={ADMIN}", viewport=TABLET)
    code = _start(trainer, server)
    session = trainer.locator("body").get_attribute("data-session")
    trainer.reload()
    expect(trainer.locator("body")).to_have_attribute("data-session", str(session))  # reopened, not lost
    expect(trainer.locator("#code")).to_have_text(code)
    first = trainer.locator("#sessions li").first
    expect(first).to_have_attribute("data-session", str(session))  # running first, newest first
    expect(first).to_have_class("open")

    li = _join(devices, code, "Li Lei")
    expect(li).to_have_url(re.compile(r"/training/join$"))  # the code leaves the address once joined
    trainer.locator("#next-call").click()
    expect(li.locator("#question")).to_have_attribute("data-n", "1")
    li.reload()
    expect(li.locator("body[data-joined]")).to_have_count(1)  # still joined on this device
    expect(li.locator("#join")).to_be_hidden()
    expect(li.locator("#joined-as")).to_contain_text("Li Lei")
    li.locator('nav.lang a[data-lang="zh"]').click()
    expect(li.locator("body[data-joined]")).to_have_count(1)
    expect(li.locator("#joined-as")).to_contain_text("已加入")
    assert "code=" not in li.url
    # The trainer ends the session: the trainee's code opens nothing any more, and the page says so.
    trainer.locator("#close-session").click()
    expect(trainer.locator("#sessions li.closed")).to_have_count(1)
    li.reload()
    expect(li.locator("#join")).to_be_visible()
    expect(li.locator("#join-msg")).to_have_text("本次培训已结束。")


def test_issue27_item9_the_verdict_says_which_part_was_wrong_both_spots_on_the_consoles_field_teams_named(
    devices: Devices, server: Server
) -> None:
    trainer = devices.open(f"/training?token={ADMIN}", viewport=TABLET)
    code = _start(trainer, server)
    wang = _join(devices, code, "Wang Wei")
    field = wang.locator("#field")
    expect(field.locator(".area")).to_have_count(2)  # the areas and the centre, as the console draws them
    from qalisball.rules.field import CENTRE_CIRCLE_RADIUS

    expect(field.locator(f'circle[r="{CENTRE_CIRCLE_RADIUS}"]')).to_have_count(1)
    trainer.locator("#next-call").click()
    expect(wang.locator("#question")).to_have_attribute("data-n", "1")
    # The side-line ball is home's at (15, 25): the trainee names away's, at the wrong place.
    _answer(wang, "side_line", "away", 5.0, 10.0)
    verdict = wang.locator("#verdict")
    expect(verdict).to_have_class("bad")
    expect(verdict.locator('[data-part="team"]')).to_contain_text("北大 Peking")
    expect(verdict.locator('[data-part="spot"]')).to_contain_text("m from the right one")
    expect(verdict.locator('[data-part="type"]')).to_have_count(0)  # the restart itself was right
    expect(field.locator("#answer-spot")).to_have_attribute("cx", re.compile(r"^(4\.9|5|5\.1)$"))
    expect(field.locator("#expected-spot")).to_have_attribute("cx", "15")
    shot(wang, "training-verdict-parts-en")
    trainer.locator("#next-call").click()
    expect(wang.locator("#question")).to_have_attribute("data-n", "2")
    # The next call starts blank: no restart, no team, no spot of the previous answer.
    expect(wang.locator('#answer select[name="type"]')).to_have_value("")
    expect(wang.locator('#answer select[name="team"]')).to_have_value("")
    expect(field.locator("#answer-spot")).to_have_count(0)
    expect(field.locator("#expected-spot")).to_have_count(0)
    row = trainer.locator('#grid tr[data-n="1"]')
    expect(row.locator('td[data-trainee="Wang Wei"]')).to_contain_text("北师大 BNU")  # teams by their names
    expect(row).not_to_contain_text("away")


def test_issue27_item10_the_trainee_page_words_the_shootout_and_cards_as_the_rest_of_the_app(
    devices: Devices, server: Server
) -> None:
    trainer = devices.open(f"/training?token={ADMIN}&lang=zh", viewport=TABLET)
    code = _start(trainer, server)
    page = devices.open(f"/training/join?code={code}&lang=zh", viewport=PHONE)
    page.locator('#join input[name="trainee"]').fill("张伟")
    page.locator("#join button").click()
    expect(page.locator("body[data-joined]")).to_have_count(1)
    options = page.locator('#answer select[name="type"] option').all_inner_texts()
    assert "罚球大战射门" in options and "点球大战罚球" not in options  # the console's word for a shootout kick
    cards = page.locator('#answer select[name="card"] option').all_inner_texts()
    assert cards == ["不出牌", "黄牌", "红牌"], cards  # never "黄" / "红"


def test_issue33_item12_a_1_0_training_offers_corner_and_short_corner_and_no_cards(devices: Devices, server: Server) -> None:
    from qalisball.server.demo import demo_v1_request

    m = server.create_match(demo_v1_request())
    ref = m["tokens"]["referee"]
    for event in (
        {"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        {"type": "period_start"},
        {"type": "restart_taken", "team": "home", "player": 1},
        {"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 36.8, "y": 3.0}},
        {"type": "abandon", "reason": "training material"},
    ):
        server.post(m["id"], ref, event)
    trainer = devices.open(f"/training?token={ADMIN}", viewport=TABLET)
    trainer.reload()  # the match is over now: the form offers it
    code = _start(trainer, server, m["id"])
    page = _join(devices, code, "Zhao")
    trainer.locator("#next-call").click()
    expect(page.locator("#question")).to_have_attribute("data-n", "1")
    values = page.locator('#answer select[name="type"] option').evaluate_all("os => os.map((o) => o.value)")
    assert "corner" in values and "short_corner" in values and "end_line" not in values, values
    expect(page.locator('#answer select[name="card"]')).to_be_hidden()
    expect(page.locator("#field .short-corner-spot")).to_have_count(4)  # 1.0's set-piece spots drawn
    _answer(page, "corner", "away", 36.0, 0.0)
    expect(page.locator("#verdict")).to_have_class("ok")


def test_D294_the_trainer_downloads_a_closed_sessions_sheet(devices: Devices, server: Server) -> None:
    """The CSV link carried the session's code, which a closed session refuses (D221, 409): the trainer's
    page downloads the sheet with the trainer's own cookie and CSRF token, closed or not."""
    trainer = devices.open(f"/training?token={ADMIN}", viewport=TABLET)
    code = _start(trainer, server)
    session = str(trainer.locator("body").get_attribute("data-session"))
    li = _join(devices, code, "Li Ming")
    trainer.locator("#next-call").click()
    expect(li.locator("#question")).to_have_attribute("data-n", "1")
    _answer(li, "side_line", "home", 15.0, 24.9)
    expect(li.locator("#verdict")).to_have_class("ok")
    trainer.locator("#close-session").click()
    expect(trainer.locator(f'#sessions li.closed[data-session="{session}"]')).to_have_count(1)
    with trainer.expect_download(timeout=10_000) as got:
        trainer.locator("#csv").click()
    text = Path(got.value.path()).read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {"trainee": "Li Ming", "rule": "", "correct": "1", "answered": "1"} in rows, text
    trainer.reload()  # reopened after a reload, the closed session's sheet still downloads
    expect(trainer.locator("body")).to_have_attribute("data-session", session)
    with trainer.expect_download(timeout=10_000) as again:
        trainer.locator("#csv").click()
    assert "Li Ming" in Path(again.value.path()).read_text(encoding="utf-8-sig")
