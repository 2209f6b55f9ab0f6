"""A whole short match, shootout included, run from the pages alone: the organiser creates it, the referee,
an assistant and the scorer officiate it on their consoles, the big screen and a phone follow it.
Checked against the API's state at the end. Screenshots of every screen in both languages are kept."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ADMIN, PHONE, SCREEN, TABLET, Devices, Server, shot
from tests.browser.helpers import action, player, sent, tap_field, team

pytestmark = pytest.mark.browser

HOME = ["1 李华", "2 王芳", "3 张伟", "4 刘洋", "5 陈静", "6 杨帆"]
AWAY = ["1 Alex Chen", "2 Bella Wu", "3 Chris Li", "4 Dana Zhou", "5 Eli Sun", "6 Fay He"]


INVALID = re.compile(r"\binvalid\b")


def create_match(organiser: Page) -> None:
    """The organiser (a Chinese browser) makes mistakes first: each is shown next to its field, in Chinese."""
    home_players = organiser.locator('textarea[name="home.players"]')
    organiser.fill('input[name="home.name"]', "北京 Beijing")
    home_players.fill("\n".join([*HOME, "x 庚", "3 张三"]))  # a line that is no player; #3 twice
    organiser.fill('input[name="away.name"]', "Shanghai 上海")
    organiser.fill('textarea[name="away.players"]', "\n".join(AWAY))
    organiser.fill('input[name="away.starting"]', "1 2 3")  # three starters for four
    organiser.fill('input[name="starters"]', "4")
    organiser.fill('input[name="rules.half_minutes"]', "1")
    organiser.fill('input[name="rules.shootout_rounds"]', "1")
    organiser.fill('input[name="venue"]', "Field 2 二号场")
    organiser.fill('input[name="officials.referee"]', "王裁判 Wang")
    organiser.fill('input[name="officials.scorer"]', "Li Na")
    organiser.click('button[type="submit"]')
    # Found in the page, all at once: nothing was sent.
    expect(organiser.locator("#create-error")).to_contain_text("请更正下方标出的内容（共 3 处）")
    expect(home_players).to_have_class(INVALID)
    expect(organiser.locator("#err-home-players")).to_have_text("第 7 行“x 庚”：请先写号码，再写姓名\n号码不能重复：#3 重复")
    expect(organiser.locator("#err-away-starting")).to_have_text("首发须为 4 人，现为 3 人")
    expect(organiser.locator("#create-error")).to_contain_text("客队 · 首发号码")
    shot(organiser, "index-form-errors-zh")
    # Those corrected, the server finds what the page does not check: a field 250 m wide.
    home_players.fill("\n".join(HOME))
    organiser.fill('input[name="away.starting"]', "")
    organiser.uncheck('input[name="field.side_lines"]')
    organiser.fill('input[name="field.width"]', "250")
    organiser.click('button[type="submit"]')
    expect(organiser.locator("#err-field-width")).to_have_text("须在 20 到 200 之间")
    expect(organiser.locator('input[name="field.width"]')).to_have_class(INVALID)
    expect(home_players).not_to_have_class(INVALID)
    organiser.fill('input[name="field.width"]', "25")
    organiser.check('input[name="field.side_lines"]')
    organiser.click('button[type="submit"]')


def end_half(scorer: Page, referee: Page, typo: bool = False) -> None:
    """The scorer sets the clock to the half's end (1:00); the referee ends the half (3.1)."""
    if typo:  # past the half's end: refused in the page, never shortened silently
        scorer.fill("#clock-input", "1:30")
        scorer.press("#clock-input", "Enter")
        expect(scorer.locator("#notice-msg")).to_have_text("01:30 is past the end of the half (01:00): type a time up to 01:00")
    scorer.fill("#clock-input", "1:00")
    scorer.press("#clock-input", "Enter")
    expect(scorer.locator("#clock")).to_have_class("clock up")
    action(referee, "period_end")


def test_1_3_a_whole_match_with_a_shootout_from_the_pages_alone(devices: Devices, server: Server) -> None:
    organiser = devices.open(f"/?token={ADMIN}", locale="zh-CN")
    expect(organiser.locator("#organiser")).to_be_visible()
    assert "token=" not in organiser.url  # kept on the device, out of the address bar
    create_match(organiser)
    expect(organiser.locator("h1")).to_have_text("北京 Beijing – Shanghai 上海")
    assert len(organiser.locator("svg.qr").all()) == 5
    match_id = organiser.url.split("/matches/")[1].split("/")[0]
    officials = server.http.get(f"{server.base}/matches/{match_id}/report.json", timeout=10).json()["officials"]
    assert officials == {"referee": "王裁判 Wang", "scorer": "Li Na"}  # only the names given

    def link(role: str) -> str:
        href = organiser.locator(f'figure[data-role="{role}"] a.role-link').get_attribute("href")
        assert href and f"/matches/{match_id}/referee?token=" in href
        return href

    referee = devices.open(link("referee"), locale="zh-CN")
    assistant = devices.open(link("assistant1"), locale="en-GB")
    scorer = devices.open(link("scorer"), viewport={"width": 1440, "height": 900}, locale="en-GB")
    board = devices.open(f"/matches/{match_id}/scoreboard", viewport=SCREEN, locale="en-GB")
    phone = devices.open(f"/matches/{match_id}", viewport=PHONE, locale="zh-CN")

    # Coin toss (5.1): home kicks off and defends x = 0; the first half starts.
    action(referee, "coin_toss")
    referee.click('#b-options [data-choice="kickoff"][data-value="home"]')
    referee.click('#b-options [data-choice="home_end"][data-value="x0"]')
    sent(referee)
    action(referee, "period_start")
    expect(board.locator("#phase")).to_have_text("1st half")
    action(referee, "restart_taken")
    # no taker needed here (issue 13): sent at once, without a player tap
    expect(referee.locator("#restart")).to_have_text("比赛进行中")

    # The assistant signals a goal (4.3): 1-0.
    action(assistant, "goal")
    player(assistant, 2)
    expect(board.locator("#home-score")).to_have_text("1")
    action(referee, "restart_taken")  # away's kickoff (5.3)
    # no taker needed here (issue 13): sent at once, without a player tap

    # A foul by home #3 with a yellow card, tapped where it happened: away's free kick (10.6).
    action(referee, "foul")
    team(referee, "home")
    referee.click('#b-options [data-choice="card"][data-value="yellow"]')
    player(referee, 3)
    tap_field(referee, 25, 10)
    expect(referee.locator("#restart")).to_have_text("任意球 · Shanghai 上海")
    expect(board.locator("#home-cards .card.yellow")).to_have_text("3")
    shot(board, "scoreboard-en")

    # The scorer, at a laptop, substitutes for away (it has the restart, 11.1) with the keyboard.
    expect(scorer.locator("#roster-away")).to_contain_text("may substitute")
    scorer.keyboard.press("s")
    home_sub = scorer.locator('#b-teams [data-team="home"]')
    expect(home_sub).to_be_disabled()  # not offered only to be refused: greyed, with the engine's reason
    expect(home_sub).to_contain_text("Shanghai 上海 did not substitute: 北京 Beijing may substitute after Shanghai 上海 has")
    expect(home_sub).to_contain_text("(rule 11.1)")
    shot(scorer, "console-substitution-en")
    for key in ("2", "Enter", "5", "Enter"):
        scorer.keyboard.press(key)
    expect(scorer.locator("#roster-away")).to_contain_text("#5 Eli Sun")
    expect(phone.locator("#timeline li").first).to_contain_text("Bella Wu → #5 Eli Sun")

    action(referee, "restart_taken")
    # #5 came on at this stoppage: he may not take its free kick (11.2), so he is not offered.
    expect(referee.locator('#b-players [data-player="5"]')).to_be_disabled()
    expect(referee.locator("#b-label")).to_contain_text("#5 Eli Sun：本次死球时上场")
    player(referee, 1)
    action(referee, "goal")  # away has the ball: preselected
    player(referee, 3)
    expect(board.locator("#away-score")).to_have_text("1")
    shot(referee, "console-zh")
    shot(phone, "spectator-zh")

    end_half(scorer, referee, typo=True)
    expect(board.locator("#phase")).to_have_text("Half-time")
    action(referee, "period_start")  # ends switched, away kicks off (3.1, 5.3)
    expect(referee.locator("#restart")).to_have_text("中圈开球 · Shanghai 上海")
    expect(referee.locator("#ends .left")).to_contain_text("Shanghai 上海")
    action(referee, "restart_taken")
    # no taker needed here (issue 13): sent at once, without a player tap
    # The scorer's console has heard of the kickoff (the clock runs): space pauses, it does not resume.
    expect(scorer.locator("#clock")).to_have_class("clock")
    scorer.keyboard.press(" ")  # pause
    expect(scorer.locator("#clock")).to_have_class("clock paused")
    expect(board.locator("#paused")).to_have_text("Paused")  # in words on the big screen, not only amber
    scorer.keyboard.press(" ")  # resume
    expect(scorer.locator("#clock")).to_have_class("clock")
    expect(board.locator("#paused")).to_be_hidden()
    shot(scorer, "console-en")
    end_half(scorer, referee)

    # Level after two halves: the penalty shootout (12). One round: home scores 1 and 2, away misses.
    expect(referee.locator("#so-start")).to_be_visible()
    referee.click('[data-first="home"]')
    referee.click("#so-start-send")
    expect(referee.locator("#so-next")).to_contain_text("北京 Beijing 1 号 李华")
    referee.click('[data-kick="1"]')
    expect(board.locator("#so-score")).to_have_text("1–0")
    shot(board, "scoreboard-shootout-en")
    referee.click('[data-kick="0"]')
    expect(board.locator("#so-next")).to_contain_text("Next: 北京 Beijing #1 李华, 2 pt")
    referee.click('[data-kick="1"]')

    expect(board.locator("#result")).to_have_text("Winner: 北京 Beijing")
    expect(phone.locator("#result")).to_have_text("胜方：北京 Beijing")
    expect(referee.locator("#so-next")).to_contain_text("罚球大战已决出胜负")
    # The report, from every screen once the match is over.
    expect(referee.locator("#report-link")).to_have_text("报告")
    expect(board.locator("#report-link")).to_have_text("Report")
    expect(phone.locator("#report-link")).to_have_text("报告")
    assert referee.locator("#report-link").get_attribute("href") == f"/matches/{match_id}/report"
    state = server.state(match_id)
    assert state["phase"] == "finished" and state["winner"] == "home"
    assert state["score"] == {"home": 1, "away": 1}
    assert state["shootout"]["score"] == {"home": 3, "away": 0} and state["shootout"]["next"] is None
    assert state["teams"]["home"]["yellow"] == [3] and 5 in state["teams"]["away"]["on_field"]
    log = server.events(match_id)
    assert [e["by"] for e in log if e["type"] == "goal"] == ["assistant1", "referee"]
    assert [e["by"] for e in log if e["type"] == "substitution"] == ["scorer"]
    assert sum(e["type"] == "shootout_kick" for e in log) == 3
    assert [e["elapsed_ms"] for e in log if e["type"] == "clock" and e["action"] == "set"] == [60_000, 60_000]
    assert len({e["id"] for e in log}) == len(log), "every call was stored once"
    timeline = phone.locator("#timeline")
    for words in (
        "得分 · 北京 Beijing #2 王芳",
        "黄牌 · 北京 Beijing #3 张伟",
        "Shanghai 上海: #2 Bella Wu → #5 Eli Sun",
        "罚球大战射门 · 北京 Beijing #1 李华 · 2 分 · 命中",
    ):
        expect(timeline).to_contain_text(words)

    # Every screen, in both languages, as test artefacts (one device per language).
    screens = {
        "index": (f"/?token={ADMIN}", TABLET),
        "officials": (f"/matches/{match_id}/officials?token={ADMIN}", TABLET),
        "console": (link("referee").split(server.base)[-1], TABLET),
        "scoreboard": (f"/matches/{match_id}/scoreboard", SCREEN),
        "overlay": (f"/matches/{match_id}/scoreboard?overlay=1", SCREEN),
        "spectator": (f"/matches/{match_id}", PHONE),
    }
    for lang, locale in (("en", "en-GB"), ("zh", "zh-CN")):
        page = devices.open("/", locale=locale)
        for name, (path, viewport) in screens.items():
            page.set_viewport_size(viewport)
            page.goto(path)
            expect(page.locator("html")).to_have_attribute("lang", "zh-CN" if lang == "zh" else "en")
            if name not in ("index", "officials"):
                page.wait_for_selector("body[data-live]")  # the page's connection has its state
            if name == "index":  # the result, shootout included, and the way to the report
                card = page.locator(f'[data-match="{match_id}"]')
                expect(card.locator(".sc")).to_have_text("1 – 1 (3 – 0)")
                expect(card.locator(".winner")).to_have_text("Winner: 北京 Beijing" if lang == "en" else "胜方：北京 Beijing")
                expect(card.locator(".report-link")).to_have_text("Report" if lang == "en" else "报告")
            page.evaluate("document.fonts.ready.then(() => true)")
            shot(page, f"final-{name}-{lang}")
