"""SPEC M1 with M3, from the consoles: a call queued on a tablet that lost the network arrives after another
official's later call, so it cannot be judged at its own time and is refused citing M1. It was made: the
referee's console offers to add it as a missed call at its own time, with the engine's preview; an
assistant's console, which cannot, says to ask the referee."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Devices, Server
from tests.browser.helpers import action, console_url, live_match, player
from tests.waiting import wait_until

pytestmark = pytest.mark.browser


def game_time_passes_the_queued_call(server: Server, match_id: str, console: Page) -> None:
    """Wait until the match's game clock is past the call waiting in ``console``'s queue (its ``at_ms``): a call
    logged from now on is later than it (issue 27.12: a condition, not 1.5 s on the wall clock)."""
    queued = console.evaluate(f"() => JSON.parse(localStorage.getItem('qalisball.queue.{match_id}'))")
    assert len(queued) == 1 and isinstance(queued[0]["at_ms"], (int, float)), queued
    wait_until(lambda: server.state(match_id)["clock"]["elapsed_ms"] > queued[0]["at_ms"], "the game clock passes the call")


def test_M1_M3_a_late_queued_call_is_offered_to_the_referee_as_a_missed_call(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    referee = devices.open(console_url(match_id, tokens["referee"]) + "&lang=en")
    expect(referee.locator("#net")).to_have_text("Online")
    referee.context.set_offline(True)
    action(referee, "goal")  # the team with the ball (home) is preselected
    player(referee, 3)
    expect(referee.locator("#net")).to_have_text("Offline, 1 queued")
    game_time_passes_the_queued_call(server, match_id, referee)  # game time runs on: the next call is later
    server.post(match_id, tokens["scorer"], {"type": "clock", "action": "pause"})
    referee.context.set_offline(False)
    expect(referee.locator("#notice-rule")).to_have_text("Refused by rule M1", timeout=15_000)
    expect(referee.locator("#notice-action")).to_have_text("Add it as a missed call")
    assert server.state(match_id)["score"]["home"] == 0
    referee.locator("#notice-action").click()
    # The builder opens filled in from the call; the engine's preview says what adding it changes.
    expect(referee.locator("#fix-preview")).to_contain_text("Score: 0–0 → 1–0")
    referee.locator("#fix-save").click()
    inserted = server.last_event(match_id, "insert")
    assert inserted["type"] == "insert" and inserted["event"]["type"] == "goal" and inserted["event"]["player"] == 3
    pause = next(e for e in server.events(match_id) if e["type"] == "clock")
    assert inserted["event"]["at_ms"] < pause["at_ms"]  # at the time it was tapped, before the clock stopped
    expect(referee.locator("#home-score")).to_have_text("1")


def test_M1_an_assistants_late_queued_call_asks_for_the_referee(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    assistant = devices.open(console_url(match_id, tokens["assistant2"]) + "&lang=en")
    expect(assistant.locator("#net")).to_have_text("Online")
    assistant.context.set_offline(True)
    action(assistant, "goal")
    player(assistant, 3)
    expect(assistant.locator("#net")).to_have_text("Offline, 1 queued")
    game_time_passes_the_queued_call(server, match_id, assistant)
    server.post(match_id, tokens["referee"], {"type": "card", "team": "away", "player": 2, "color": "yellow"})
    assistant.context.set_offline(False)
    expect(assistant.locator("#notice-rule")).to_have_text("Refused by rule M1", timeout=15_000)
    expect(assistant.locator("#notice-hint")).to_contain_text("Ask the referee to add it as a missed call")
    expect(assistant.locator("#notice-action")).to_be_hidden()
