"""A short match under rule book 1.0 officiated from the console (SPEC §11, issue 22's "done when").

The referee's console of a 1.0 match: no card buttons (V1-D10), the caught call in 1.0's words (V1-D16),
the field drawn with its corners and short-corner spots (V1-D4, V1-D5). A goal marked "straight from the
restart" after the kickoff is refused citing V1-3 with its 1.0 title; a ball over the end line gives a
corner, a ball landing in an area a short corner, a ball grounded 0.5 m from an area's line a free kick
moved 2 m out (V1-6, V1-D7), said so on the big screen; a level match ends a draw (V1-D2), "Draw" on
the scoreboard and "平局" on a phone.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, SCREEN, Devices, Server
from tests.browser.helpers import action, console_url, live_match, player, tap_field, team

pytestmark = pytest.mark.browser

HOME, AWAY = "人大 Renmin", "Tsinghua 清华"


def test_V1_a_short_1_0_match_from_the_console_corner_short_corner_2_m_refused_kickoff_goal_draw(
    devices: Devices, server: Server
) -> None:
    match_id, tokens = live_match(server, rules={"rule_set": "1.0", "half_minutes": 1})  # home's kickoff taken
    referee = devices.open(console_url(match_id, tokens["referee"]), locale="en-GB")
    board = devices.open(f"/matches/{match_id}/scoreboard", viewport=SCREEN, locale="en-GB")
    phone = devices.open(f"/matches/{match_id}", viewport=PHONE, locale="zh-CN")
    referee.wait_for_selector("body[data-live]")

    # The console of 1.0: no cards, 1.0's words for the caught call, the corners and short-corner spots.
    expect(referee.locator('[data-action="yellow"], [data-action="red"]')).to_have_count(0)
    expect(referee.locator('[data-action="caught"]')).to_contain_text("Touched: over 2 steps / pass not backwards")
    expect(referee.locator("#field .corner-spot")).to_have_count(4)
    expect(referee.locator("#field .short-corner-spot")).to_have_count(4)

    # V1-3: the kickoff is a pass; a goal straight from it is refused, and play goes on.
    action(referee, "goal")
    referee.click('#b-options [data-choice="direct"]')
    player(referee, 1)
    expect(referee.locator("#notice-rule")).to_have_text("Refused by rule V1-3")
    expect(referee.locator("#notice-title")).to_have_text("Kickoff")
    assert server.state(match_id)["score"] == {"home": 0, "away": 0}

    # V1-6, V1-D4: over away's end line (x = 40), low side, last touched by home: away's corner at (40, 0).
    action(referee, "ball_out_end")
    team(referee, "home")
    tap_field(referee, 40.8, 3)
    expect(referee.locator("#restart")).to_have_text(f"Corner · {AWAY}")
    expect(board.locator("#restart")).to_have_text(f"Corner · {AWAY}")
    assert server.state(match_id)["restart"]["spot"] == {"x": 40.0, "y": 0.0}
    action(referee, "restart_taken")

    # V1-6, V1-D5: the ball lands in home's area, last touched by away: home's short corner at (0, 8).
    action(referee, "ball_in_area")
    team(referee, "away")
    tap_field(referee, 1.5, 11)
    expect(referee.locator("#restart")).to_have_text(f"Short corner · {HOME}")
    expect(phone.locator("#restart")).to_contain_text("短角球")
    assert server.state(match_id)["restart"]["spot"] == {"x": 0.0, "y": 8.0}
    action(referee, "restart_taken")

    # V1-6 (2 m), V1-D7: grounded 0.5 m in front of home's area line, home last: away's free kick 2 m out.
    action(referee, "ball_grounded")
    team(referee, "home")
    tap_field(referee, 4.0, 12.5)
    expect(referee.locator("#restart")).to_have_text(f"Free kick · {AWAY}")
    expect(board.locator("#why")).to_contain_text("moved 2 m out of the area (V1-6)")
    assert server.state(match_id)["restart"]["spot"] == {"x": 5.5, "y": 12.5}

    # Both halves run out level: a draw (V1-D2), no shootout.
    scorer = tokens["scorer"]
    server.post(match_id, scorer, {"type": "clock", "action": "set", "elapsed_ms": 60_000})
    action(referee, "period_end")
    expect(board.locator("#phase")).to_have_text("Half-time")
    action(referee, "period_start")
    expect(board.locator("#phase")).to_have_text("2nd half")
    server.post(match_id, scorer, {"type": "clock", "action": "set", "elapsed_ms": 60_000})
    action(referee, "period_end")
    expect(board.locator("#result")).to_have_text("Draw")
    expect(phone.locator("#result")).to_have_text("平局")
    state = server.state(match_id)
    assert state["phase"] == "finished" and state["winner"] is None and state["shootout"] is None
    assert [e["type"] for e in server.events(match_id)].count("card") == 0
