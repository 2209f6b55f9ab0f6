"""Corrections of goals told to spectators, in Chromium (issue 19 item 2, D163–D165): the big screen and
the overlays pop up a disallowed goal with its call and rule and an amended scorer, the phone's timeline
says it where the goal was; the big screen pops up each goal with its scorer."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, SCREEN, Devices, Server, shot
from tests.browser.screen_states import kicked_off

pytestmark = pytest.mark.browser

IN_AREA = {"type": "violation", "kind": "player_in_area", "team": "home", "player": 3, "spot": {"x": 38, "y": 12}}


def board(devices: Devices, path: str) -> Page:
    """A big screen that has joined its match's room (issue 27.12): what the server posts next pops up on it.

    ``data-ready`` (the page is drawn) comes before the join's answer: a goal posted in between arrives inside
    that answer's state, and a state is no pop-up."""
    page = devices.open(path, viewport=SCREEN)
    page.wait_for_selector("body[data-ready]")
    page.wait_for_selector("body[data-live]")
    return page


def test_D165_the_big_screen_pops_up_each_goal_with_its_scorer(devices: Devices, server: Server) -> None:
    match_id, tokens = kicked_off(server)
    tv = board(devices, f"/matches/{match_id}/scoreboard?lang=en")
    popup = tv.locator("#popup")
    expect(popup).to_be_hidden()
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    expect(popup).to_be_visible()
    expect(popup.locator(".pop-title")).to_have_text("Goal")
    expect(popup.locator(".pop-who")).to_have_text("人大 Renmin #3 张伟")
    expect(popup.locator(".pop-score")).to_have_text("1–0")
    # Over the board's middle, clear of both scores (they stay in view).
    pop = popup.bounding_box()
    assert pop is not None
    for side in ("home", "away"):
        score = tv.locator(f"#{side}-score").bounding_box()
        assert score is not None
        apart = (
            score["y"] + score["height"] <= pop["y"]
            or pop["x"] + pop["width"] <= score["x"]
            or score["x"] + score["width"] <= pop["x"]
        )
        assert apart, (side, score, pop)
    shot(tv, "scoreboard-goal-popup")
    # A card is on the board already: no pop-up for it on the big screen.
    expect(popup).to_be_hidden(timeout=8_000)
    server.post(match_id, tokens["referee"], {"type": "card", "team": "away", "player": 2, "color": "yellow"})
    expect(tv.locator("#away-cards .card")).to_have_count(1)
    assert popup.is_hidden()


def test_D163_big_screen_overlay_and_phone_say_a_goal_was_disallowed_then_a_scorer_corrected(
    devices: Devices, server: Server
) -> None:
    match_id, tokens = kicked_off(server)
    ref = tokens["referee"]
    goal = server.post(match_id, ref, {"type": "goal", "team": "home", "player": 3})
    tv = board(devices, f"/matches/{match_id}/scoreboard?lang=en")
    overlay = board(devices, f"/matches/{match_id}/scoreboard?overlay=1&lang=zh")
    phone = devices.open(f"/matches/{match_id}?lang=en", viewport=PHONE)
    expect(phone.locator(f'#timeline [data-seq="{goal["seq"]}"]')).to_contain_text("张伟")

    fix = server.post(match_id, ref, {"type": "amend", "target": goal["seq"], "event": IN_AREA, "reason": "#3 stepped in"})
    for page, title, detail, who in (
        (tv, "Goal disallowed", "Player in area (7.2)", "人大 Renmin #3 张伟"),
        (overlay, "进球无效", "球员进入禁区（7.2）", "人大 Renmin #3 张伟"),
    ):
        popup = page.locator("#popup")
        expect(popup).to_be_visible()
        expect(popup.locator(".pop-title")).to_have_text(title)
        expect(popup.locator(".pop-detail")).to_have_text(detail)
        expect(popup.locator(".pop-who")).to_have_text(who)
        expect(popup.locator(".pop-score")).to_have_text("0–0")
    shot(tv, "scoreboard-goal-disallowed")
    shot(overlay, "overlay-goal-disallowed")
    # The phone: at the goal's place, struck out, with the call, the rule and the referee's reason.
    item = phone.locator(f'#timeline [data-seq="{fix["seq"]}"]')
    expect(item).to_contain_text("Goal disallowed — Player in area (7.2)")
    expect(item).to_contain_text("Reason: #3 stepped in")
    expect(item).to_have_class("tl tl-correction tl-disallowed tl-struck")
    expect(phone.locator("#home-score")).to_have_text("0")
    shot(phone, "phone-goal-disallowed")

    # Play on: away restarts, home scores again, and the referee corrects the scorer (#3 → #4).
    state = server.state(match_id)
    restart = state["restart"]
    server.post(match_id, ref, {"type": "restart_taken", "team": restart["team"], "player": 2})
    again = server.post(match_id, ref, {"type": "goal", "team": "home", "player": 3})
    expect(tv.locator("#popup .pop-title")).to_have_text("Goal")
    server.post(
        match_id,
        ref,
        {
            "type": "amend",
            "target": again["seq"],
            "event": {"type": "goal", "team": "home", "player": 4},
            "reason": "wrong shirt",
        },
    )
    for page, title, detail in ((tv, "Goal corrected", "scorer #3 → #4"), (overlay, "进球更正", "进球者 #3 → #4")):
        popup = page.locator("#popup")
        expect(popup.locator(".pop-title")).to_have_text(title)
        expect(popup.locator(".pop-detail")).to_have_text(detail)
        expect(popup.locator(".pop-who")).to_contain_text("人大 Renmin #4 ")
        expect(popup.locator(".pop-score")).to_have_text("1–0")
    expect(phone.locator("#timeline .tl-corrected")).to_contain_text("Goal corrected — scorer #3 → #4")
