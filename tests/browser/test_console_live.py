"""The officials' console in Debian's Chromium: live updates, refusals, the offline queue, languages."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Route, expect

from tests.browser.conftest import PHONE, SCREEN, Devices, Server
from tests.browser.helpers import action, console_url, live_match, player, sent, tap_field, team

pytestmark = pytest.mark.browser


def test_7_1_goal_on_the_console_updates_the_scoreboard_without_reload(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    board = devices.open(f"/matches/{match_id}/scoreboard", viewport=SCREEN)
    phone = devices.open(f"/matches/{match_id}", viewport=PHONE)
    expect(board.locator("#home-score")).to_have_text("0")
    board.evaluate("window.notReloaded = true")

    console = devices.open(console_url(match_id, tokens["referee"]))
    action(console, "goal")  # 1: the call; the team with the ball (home) is preselected
    player(console, 3)  # 2: the scorer: sent
    sent(console)
    expect(console.locator("#home-score")).to_have_text("1")
    # The engine's decision is shown before the next call: away's kickoff, on the diagram too.
    expect(console.locator("#notice-msg")).to_contain_text("Kickoff · Tsinghua 清华")
    expect(console.locator("#field .restart-label")).to_have_text("Kickoff · Tsinghua 清华")

    expect(board.locator("#home-score")).to_have_text("1")
    expect(board.locator("#restart")).to_have_text("Kickoff · Tsinghua 清华")
    expect(board.locator("#return")).to_be_visible()  # 7.2: 30 s to return to their halves
    assert board.evaluate("window.notReloaded") is True
    expect(phone.locator("#timeline li").first).to_contain_text("Goal · 人大 Renmin #3 张伟")

    # Undo names what it will void; two taps (the first arms it, and says so).
    undo = console.locator("#undo")
    expect(undo).to_have_text(re.compile(r"^Undo: Goal, 人大 Renmin #3 张伟, 0\d:\d\d$"))
    what = undo.inner_text().removeprefix("Undo: ")
    undo.click()
    expect(undo).to_have_text(f"Tap again to undo: {what}")
    expect(undo).to_have_class(re.compile(r"\barmed\b"))
    undo.click()
    expect(board.locator("#home-score")).to_have_text("0")
    # D164: the undone goal stays on the phone's timeline, struck out, with why it no longer counts.
    expect(phone.locator("#timeline")).to_contain_text("Goal cancelled — logged in error")
    # The void is told in the Undo button's words, never by an internal number.
    expect(console.locator("#notice-title")).to_have_text(f"Undone: {what}")
    expect(console.locator("#log li").first).to_contain_text(f"Undone: {what}")
    expect(console.locator("#log li").first).not_to_contain_text("#4")
    expect(console.locator("#log li.voided")).to_contain_text("Goal, 人大 Renmin #3 张伟")
    log = server.events(match_id)
    assert [e["type"] for e in log[-2:]] == ["goal", "void"] and log[-2]["voided_by"] == log[-1]["seq"]


@pytest.mark.parametrize(
    ("locale", "head", "title", "why"),
    [
        ("en-GB", "Refused by rule 8.4", "Ball landing in the restricted area", "landed in a restricted area: call ball_in_area"),
        ("zh-CN", "依规则 8.4 不予接受", "球落在禁区内", "球落在禁区内：请判“球落禁区”"),
    ],
)
def test_8_4_a_refused_call_shows_its_rule_in_the_officials_language(
    devices: Devices, server: Server, locale: str, head: str, title: str, why: str
) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]), locale=locale)
    seq = server.state(match_id)["seq"]
    action(console, "ball_grounded")
    player(console, 2)
    tap_field(console, 1.5, 12.5)  # inside home's restricted area: that is "ball in area" (8.4)
    notice = console.locator("#notice")
    expect(notice).to_have_class("notice refusal")
    expect(console.locator("#notice-rule")).to_have_text(head)
    expect(console.locator("#notice-title")).to_have_text(title)
    expect(console.locator("#notice-msg")).to_contain_text(why)  # the engine's explanation, in that language too
    assert server.state(match_id)["seq"] == seq  # a refusal changes nothing


def test_network_drop_calls_are_queued_and_sent_once_in_order(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]))
    expect(console.locator("#net")).to_have_text("Online")
    seq = server.state(match_id)["seq"]

    console.context.set_offline(True)
    action(console, "steal")  # away steals: the team without the ball, preselected
    player(console, 4)
    expect(console.locator("#net")).to_have_text("Offline, 1 queued")
    # Who has the ball now is the engine's to rule (the forecast does not guess it): the official names the team.
    expect(console.locator("#restart")).to_have_text("Restart: to be ruled")
    action(console, "attack")
    team(console, "away")
    action(console, "ball_out_side")  # away, with the ball, put it out
    team(console, "away")
    player(console, 2)
    tap_field(console, 20, -1.0)
    expect(console.locator("#net")).to_have_text("Offline, 3 queued")
    expect(console.locator("body")).to_have_class("console role-referee predicted")
    # A call made by mistake while offline is taken back before it is ever sent.
    action(console, "yellow")
    team(console, "home")
    player(console, 5)
    expect(console.locator("#net")).to_have_text("Offline, 4 queued")
    expect(console.locator("#log li.queued")).to_have_count(4)
    undo = console.locator("#undo")
    expect(undo).to_have_text("Take back the unsent call: Yellow card, 人大 Renmin #5 陈静")
    undo.click()
    expect(console.locator("#net")).to_have_text("Offline, 3 queued")
    queued = json.loads(console.evaluate(f"localStorage.getItem('qalisball.queue.{match_id}')"))
    assert [b["type"] for b in queued] == ["steal", "attack", "violation"]
    assert len({b["id"] for b in queued}) == 3
    assert server.state(match_id)["seq"] == seq  # nothing arrived

    console.context.set_offline(False)
    expect(console.locator("#net")).to_have_text("Online", timeout=15_000)
    log = server.events(match_id)
    new = [e for e in log if e["seq"] > seq]
    assert [e["type"] for e in new] == ["steal", "attack", "violation"]
    assert [e["id"] for e in new] == [b["id"] for b in queued]
    state = server.state(match_id)
    assert state["restart"]["type"] == "side_line" and state["restart"]["team"] == "home"
    expect(console.locator("#restart")).to_have_text("Side-line ball · 人大 Renmin")
    assert console.evaluate(f"localStorage.getItem('qalisball.queue.{match_id}')") == "[]"


def test_a_call_whose_answer_was_lost_is_sent_again_and_stored_once(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    # Playwright's routes do not see what a service worker fetches (the offline shell): none here.
    console = devices.open(console_url(match_id, tokens["referee"]), service_workers="block")
    seq = server.state(match_id)["seq"]
    lost: list[str] = []

    def lose_the_answer(route: Route) -> None:
        if route.request.method == "POST" and not lost:
            lost.append(route.request.post_data or "")
            route.fetch()  # the server stores the call...
            route.abort("connectionreset")  # ...but its answer never reaches the tablet
        else:
            route.continue_()

    console.route("**/api/matches/*/events", lose_the_answer)
    action(console, "goal")
    player(console, 3)
    expect(console.locator("#net")).to_have_text("Offline, 1 queued")
    expect(console.locator("#net")).to_have_text("Online", timeout=15_000)  # retried with the same key
    new = [e for e in server.events(match_id) if e["seq"] > seq]
    assert [e["type"] for e in new] == ["goal"] and new[0]["id"] == json.loads(lost[0])["id"]
    assert server.state(match_id)["score"]["home"] == 1
    expect(console.locator("#home-score")).to_have_text("1")


def test_language_switch_changes_the_console_labels_and_is_remembered(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]), locale="en-GB")
    goal = console.locator('[data-action="goal"]')
    expect(goal).to_contain_text("Goal")
    expect(console.locator("#phase")).to_have_text("1st half")
    console.locator('a[data-lang="zh"]').click()
    expect(goal).to_contain_text("得分")
    expect(console.locator("#phase")).to_have_text("上半场")
    expect(console.locator('[data-action="player_in_area"]')).to_contain_text("球员进入禁区")
    expect(console.locator("#net")).to_have_text("在线")
    assert console.url.endswith(f"/matches/{match_id}/referee?role=referee")  # the token became a cookie (D53)
    # Remembered on this device: the scoreboard opened on it is in Chinese too, though the browser says English.
    board = console.context.new_page()
    board.goto(f"/matches/{match_id}/scoreboard")
    expect(board.locator("#phase")).to_have_text("上半场")
    board.close()
    console.locator('a[data-lang="en"]').click()
    expect(goal).to_contain_text("Goal")


def test_browser_language_is_the_default(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    zh = devices.open(console_url(match_id, tokens["assistant1"]), locale="zh-CN")
    expect(zh.locator('[data-action="goal"]')).to_contain_text("得分")
    expect(zh.locator("#role")).to_have_text("助理裁判一")
    en = devices.open(console_url(match_id, tokens["assistant1"]), locale="en-US")
    expect(en.locator('[data-action="goal"]')).to_contain_text("Goal")


@pytest.mark.parametrize(
    ("locale", "head", "title", "why"),
    [
        ("en-GB", "Not now: rule 10.1", "Restarts: definition", "Restart taken — no restart is pending: the ball is in play"),
        ("zh-CN", "现在不可：规则 10.1", "发球的定义", "已发球 — 没有待发的球：比赛正在进行中"),
    ],
)
def test_10_1_a_greyed_call_pressed_shows_the_engines_reason_in_the_officials_language(
    devices: Devices, server: Server, locale: str, head: str, title: str, why: str
) -> None:
    """The console decides nothing: it greys what the state's `legal` refuses and shows the engine's reason."""
    match_id, tokens = live_match(server)  # the ball is in play: no restart to take
    state = server.state(match_id)
    reason = state["legal"]["reasons"][state["legal"]["calls"]["restart_taken"]["home"]]
    assert reason["rule"] == "10.1"
    console = devices.open(console_url(match_id, tokens["referee"]), locale=locale)
    taken = console.locator('[data-action="restart_taken"]')
    expect(taken).to_be_disabled()  # greyed (aria-disabled), yet pressable
    expect(taken).to_have_class(re.compile(r"\bgreyed\b"))
    taken.click(force=True)
    expect(console.locator("#notice")).to_have_class("notice refusal")
    expect(console.locator("#notice-rule")).to_have_text(head)
    expect(console.locator("#notice-title")).to_have_text(title)
    expect(console.locator("#notice-msg")).to_contain_text(why)
    expect(console.locator("#builder")).to_be_hidden()
    assert server.state(match_id)["seq"] == state["seq"]  # nothing was sent


def test_offline_forecast_shows_score_and_cards_and_leaves_the_restart_to_be_ruled(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    server.post(match_id, tokens["referee"], {"type": "card", "team": "away", "player": 2, "color": "yellow"})
    console = devices.open(console_url(match_id, tokens["referee"]))
    expect(console.locator("#restart")).to_have_text("Ball in play")
    console.context.set_offline(True)
    action(console, "goal")
    player(console, 3)
    expect(console.locator("#home-score")).to_have_text("1")  # a goal adds one
    expect(console.locator("#restart")).to_have_text("Restart: to be ruled")  # the kickoff is the engine's to award
    expect(console.locator("#field .restart-label")).to_have_count(0)
    action(console, "yellow")
    team(console, "away")
    player(console, 2)  # a second yellow: sent off (9.3)
    expect(console.locator("#roster-away")).to_contain_text("sent off")
    expect(console.locator("#roster-away .pl.off")).to_have_text("#2 Bella Wu")
    expect(console.locator("#net")).to_have_text("Offline, 2 queued")
    console.context.set_offline(False)
    expect(console.locator("#net")).to_have_text("Online", timeout=15_000)
    expect(console.locator("#restart")).to_have_text("Kickoff · Tsinghua 清华")  # now the engine's ruling
    state = server.state(match_id)
    assert state["score"]["home"] == 1 and state["teams"]["away"]["sent_off"] == [2]


def test_6_2_a_refused_team_is_greyed_with_the_engines_reason_naming_the_team_in_chinese(
    devices: Devices, server: Server
) -> None:
    """A reason's params are filled in as the API does: team keys become the teams' names."""
    match_id, tokens = live_match(server)  # home has the ball
    console = devices.open(console_url(match_id, tokens["referee"]), locale="zh-CN")
    action(console, "steal")
    home = console.locator('#b-teams [data-team="home"]')
    expect(home).to_be_disabled()
    expect(home).to_contain_text("人大 Renmin已经持球：抢断应由对方完成 （规则 6.2）")
    expect(console.locator('#b-teams [data-team="away"]')).to_have_class(re.compile(r"\bchosen\b"))  # the only team allowed
