"""The big screen and the phone: a clock that follows the server's, not the device's."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREEN, Devices, Server
from tests.browser.helpers import live_match

pytestmark = pytest.mark.browser


def test_3_1_scoreboard_clock_follows_the_server_even_on_a_device_an_hour_ahead(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    server.post(match_id, tokens["scorer"], {"type": "clock", "action": "set", "elapsed_ms": 600_000})
    ctx = devices.browser.new_context(viewport=SCREEN, base_url=server.base, locale="en-GB")
    devices.contexts.append(ctx)
    ctx.clock.set_system_time(time.time() + 3600)  # the projector PC's clock is an hour ahead
    board = ctx.new_page()
    board.goto(f"/matches/{match_id}/scoreboard")
    assert board.evaluate("Date.now()") > (time.time() + 3500) * 1000
    expect(board.locator("#clock")).to_have_text(re.compile(r"^10:0[0-3]$"))
    expect(board.locator("#clock")).to_have_text(re.compile(r"^10:0[2-5]$"))  # and it ticks
    # Paused by the scorer: the screen stops at the server's time, and says so.
    paused = server.post(match_id, tokens["scorer"], {"type": "clock", "action": "pause"})["state"]["clock"]["elapsed_ms"]
    expect(board.locator("#clock")).to_have_class("clock paused")
    expect(board.locator("#clock")).to_have_text(f"{paused // 60000:02d}:{paused // 1000 % 60:02d}")
