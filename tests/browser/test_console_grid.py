"""Issue 13: the officials' console has a fixed grid. Every call button keeps its place and size in every
phase (greyed when the rules refuse it, never hidden or reflowed), so a referee learns the layout by feel;
every target is at least 48 × 48 px, the language switch too. Proved by element boxes, not by eye."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from qalisball.server.demo import demo_request
from tests.browser.conftest import Devices, Server, shot
from tests.browser.helpers import action, console_url, live_match, player

pytestmark = pytest.mark.browser

# Every call button of the console's fixed area: the controls above the calls, the calls, and the row below.
BOXES = """() => Array.from(document.querySelectorAll('#controls [data-action], #actions [data-action], .undo-row button'))
  .map((b) => { const r = b.getBoundingClientRect();
    return [b.id || b.getAttribute('data-action'), r.x + window.scrollX, r.y + window.scrollY, r.width, r.height,
            b.offsetParent !== null]; })"""
TARGETS = """() => Array.from(document.querySelectorAll('.lang a, .lang strong'))
  .map((b) => { const r = b.getBoundingClientRect(); return [b.textContent, r.width, r.height]; })"""


def boxes(page: Page) -> dict[str, tuple[float, float, float, float]]:
    out: dict[str, tuple[float, float, float, float]] = {}
    for name, x, y, w, h, shown in page.evaluate(BOXES):
        assert shown, f"{name} is hidden"
        out[name] = (round(x, 1), round(y, 1), round(w, 1), round(h, 1))
    return out


def greyed(page: Page, call: str, yes: bool) -> None:
    """Wait until the console shows the new state: `call` greyed (or not), as the state's `legal` says."""
    button = page.locator(f'[data-action="{call}"]').first
    if yes:
        expect(button).to_have_attribute("aria-disabled", "true")
    else:
        expect(button).to_have_attribute("aria-disabled", "false")


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_issue13_no_console_button_moves_or_resizes_between_phases(devices: Devices, server: Server, locale: str) -> None:
    m = server.create_match(demo_request())
    match_id, ref = m["id"], m["tokens"]["referee"]
    console = devices.open(console_url(match_id, ref), locale=locale)
    phases: dict[str, dict[str, tuple[float, float, float, float]]] = {}

    def post(event: dict[str, Any]) -> None:
        server.post(match_id, ref, event)

    greyed(console, "coin_toss", False)
    phases["before kickoff"] = boxes(console)

    post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    post({"type": "period_start"})
    greyed(console, "restart_taken", False)  # ball dead, the kickoff pending
    greyed(console, "goal", True)
    phases["restart pending"] = boxes(console)

    post({"type": "restart_taken", "team": "home", "player": 1})
    greyed(console, "restart_taken", True)  # ball live
    greyed(console, "goal", False)
    phases["ball live"] = boxes(console)
    console.locator('[data-action="restart_taken"]').click(force=True)  # greyed, yet pressable: the engine's reason
    expect(console.locator("#notice")).to_be_visible()
    phases["ball live, a refusal shown"] = boxes(console)

    post({"type": "foul", "team": "away", "player": 2, "spot": {"x": 20, "y": 12}})
    greyed(console, "restart_taken", False)  # ball dead, a free kick pending
    phases["ball dead, restart pending"] = boxes(console)

    length = server.state(match_id)["clock"]["length_ms"]
    post({"type": "clock", "action": "set", "elapsed_ms": length})
    greyed(console, "period_end", False)  # time up: the half may end
    phases["time up"] = boxes(console)

    post({"type": "period_end"})
    greyed(console, "period_start", False)
    phases["half-time"] = boxes(console)
    shot(console, f"console-grid-{locale}")

    first_name, first = next(iter(phases.items()))
    assert len(first) >= 15, first
    for name, seen in phases.items():
        assert seen.keys() == first.keys(), f"{name}: buttons differ from {first_name}"
        moved = {b: (first[b], seen[b]) for b in first if first[b] != seen[b]}
        assert not moved, f"moved or resized between {first_name} and {name}: {moved}"
    for b, (_x, _y, w, h) in first.items():
        assert w >= 48 and h >= 48, f"{b} is {w}×{h} px"
    links = console.evaluate(TARGETS)
    assert len(links) == 2
    for text, w, h in links:
        assert w >= 48 and h >= 48, f"language link {text} is {w}×{h} px"


@pytest.mark.parametrize(
    ("locale", "committed", "last_touch", "shown"),
    [("en-GB", "Committed by", "Last touched by", "Card shown to"), ("zh-CN", "犯规/违例方", "最后触球方", "出示给")],
)
def test_issue13_call_builders_say_whose_action_the_team_is(
    devices: Devices, server: Server, locale: str, committed: str, last_touch: str, shown: str
) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]), locale=locale)
    for call, words in (("foul", committed), ("ball_out_end", last_touch), ("yellow", shown)):
        action(console, call)
        expect(console.locator("#b-teams .b-sub")).to_have_text(words)
        console.locator("#b-cancel").click()
    action(console, "foul")  # no team preselected for a foul: the prompt says whose action it is too
    expect(console.locator("#prompt")).to_have_text(committed)


def test_10_1_D130_restart_taken_is_sent_without_a_player_tap_unless_a_rule_needs_the_taker(
    devices: Devices, server: Server
) -> None:
    match_id, tokens = live_match(server)
    ref = tokens["referee"]
    console = devices.open(console_url(match_id, ref))
    server.post(match_id, ref, {"type": "foul", "team": "away", "player": 2, "spot": {"x": 20, "y": 12}})
    greyed(console, "restart_taken", False)
    action(console, "restart_taken")  # one tap: the free kick is taken, no player named
    taken = server.last_event(match_id, "restart_taken")
    assert taken["type"] == "restart_taken" and taken["team"] == "home" and taken.get("player") is None
    expect(console.locator("#builder")).to_be_hidden()

    # 11.2: away substitutes at this stoppage and has the free kick; #7, who came on, may not take it, so
    # the taker must be named (no "No player" button) and #7 is greyed.
    server.post(match_id, ref, {"type": "foul", "team": "home", "player": 2, "spot": {"x": 20, "y": 12}})
    server.post(match_id, ref, {"type": "substitution", "team": "away", "out": 3, "in": 7})
    expect(console.locator("#roster-away")).to_contain_text("#7")
    action(console, "restart_taken")
    expect(console.locator('#b-players [data-player="7"]')).to_be_disabled()
    expect(console.locator('#b-players [data-player="none"]')).to_have_count(0)
    player(console, 1)
    taken = server.last_event(match_id, "restart_taken")
    assert taken["team"] == "away" and taken["player"] == 1


@pytest.mark.parametrize(
    ("locale", "stop_first", "take_restart", "end_line"),
    [
        (
            "en-GB",
            "The ball is in play: log what stopped play first",
            "The restart is still pending: log “Restart taken” first",
            "The ball is dead: log the end-line ball (Ball out: end line)",
        ),
        (
            "zh-CN",
            "比赛正在进行：请先记录使比赛停止的事件",
            "恢复比赛尚未执行：请先记录“已发球”",
            "死球：请记录底线球（“球出底线”）",
        ),
    ],
)
def test_issue13_a_refusal_because_the_ball_is_dead_or_live_says_what_to_call_next(
    devices: Devices, server: Server, locale: str, stop_first: str, take_restart: str, end_line: str
) -> None:
    match_id, tokens = live_match(server)
    ref = tokens["referee"]
    console = devices.open(console_url(match_id, ref), locale=locale)
    hint = console.locator("#notice-hint")
    console.locator('[data-action="restart_taken"]').click(force=True)  # 10.1: the ball is in play
    expect(hint).to_have_text(stop_first)

    server.post(match_id, ref, {"type": "foul", "team": "away", "player": 2, "spot": {"x": 20, "y": 12}})
    greyed(console, "goal", True)
    console.locator('[data-action="goal"]').click(force=True)  # the free kick is pending
    expect(hint).to_have_text(take_restart)
    server.post(match_id, ref, {"type": "restart_taken", "team": "home"})

    # 10.4: a goal straight from an end-line ball is refused by the server; the ball went out: what next.
    server.post(match_id, ref, {"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 40, "y": 12}})
    server.post(match_id, ref, {"type": "restart_taken", "team": "away"})
    greyed(console, "goal", False)
    seq = server.state(match_id)["seq"]
    action(console, "goal")
    console.locator('#b-options [data-choice="direct"]').click()
    player(console, 1)
    expect(console.locator("#notice-rule")).to_contain_text("10.4")
    expect(hint).to_have_text(end_line)
    assert server.state(match_id)["seq"] == seq

    greyed(console, "substitution", True)
    console.locator('[data-action="substitution"]').click(force=True)  # a refusal with its own advice (11.1)
    expect(console.locator("#notice-rule")).to_contain_text("11.1")
    expect(hint).to_be_hidden()


# An AudioContext spy: every oscillator started is counted (a horn is two), nothing is played.
AUDIO_SPY = """
window.__oscillators = 0; window.__vibrations = 0;
class SpyParam { setValueAtTime() {} exponentialRampToValueAtTime() {} }
class SpyNode { connect() {} }
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = new SpyNode(); }
  resume() {}
  createGain() { const g = new SpyNode(); g.gain = new SpyParam(); return g; }
  createOscillator() {
    const o = new SpyNode(); o.frequency = new SpyParam();
    o.start = () => { window.__oscillators += 1; }; o.stop = () => {}; return o;
  }
};
navigator.vibrate = () => { window.__vibrations += 1; return true; };
"""


def counted(page: Page, name: str) -> int:
    """A spy's count, once it is above zero (polled from here: the page's CSP forbids wait_for_function's eval)."""
    deadline = time.monotonic() + 10
    while (n := int(page.evaluate(f"window.{name}"))) == 0 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    return n


def test_D131_issue13_the_horn_sounds_and_the_tablet_vibrates_at_time_up_and_the_mute_is_remembered(
    devices: Devices, server: Server
) -> None:
    match_id, tokens = live_match(server)
    ref = tokens["referee"]
    console = devices.open(console_url(match_id, ref))
    console.add_init_script(AUDIO_SPY)
    console.reload()
    console.locator("#field").click()  # a first tap: the browser lets the page start audio
    length = server.state(match_id)["clock"]["length_ms"]
    assert console.evaluate("window.__oscillators") == 0
    server.post(match_id, ref, {"type": "clock", "action": "set", "elapsed_ms": length})
    expect(console.locator("#clock")).to_have_class("clock up")
    assert counted(console, "__oscillators") == 2  # one horn: two tones
    assert console.evaluate("window.__vibrations") == 1

    mute = console.locator("#horn-mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    console.reload()  # remembered on this device
    expect(console.locator("#horn-mute")).to_have_attribute("aria-pressed", "true")
    console.locator("#field").click()
    server.post(match_id, ref, {"type": "clock", "action": "set", "elapsed_ms": length - 60_000})
    expect(console.locator("#clock")).not_to_have_class("clock up")
    server.post(match_id, ref, {"type": "clock", "action": "set", "elapsed_ms": length})
    expect(console.locator("#clock")).to_have_class("clock up")
    assert counted(console, "__vibrations") == 1  # the vibration still comes: the mute is for sound
    assert console.evaluate("window.__oscillators") == 0


@pytest.mark.parametrize(
    ("locale", "left", "right"),
    [
        ("en-GB", "人大 Renmin defends the left end", "人大 Renmin defends the right end"),
        ("zh-CN", "人大 Renmin 防守左侧底线", "人大 Renmin 防守右侧底线"),
    ],
)
def test_5_1_the_toss_asks_for_ends_in_plain_words(devices: Devices, server: Server, locale: str, left: str, right: str) -> None:
    m = server.create_match(demo_request())
    console = devices.open(console_url(m["id"], m["tokens"]["referee"]), locale=locale)
    action(console, "coin_toss")
    ends = console.locator('#b-options [data-choice="home_end"]')
    expect(ends).to_have_text([left, right])
    expect(console.locator("#builder")).not_to_contain_text("x = ")
