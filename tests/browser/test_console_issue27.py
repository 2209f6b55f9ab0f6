"""Issue 27, the console's items, in Debian's Chromium: a cancelled correction leaves no hidden mode (1), a
double tap never falls through to the grid and a greyed call is never opened (3), the pending restart's
reason (5), refusals in the console's language with the teams' names (6), asking before leaving (7), and the
console's glitches of item 10 (labels at the field's edge, the builder's words, the device's name)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import Devices, Server
from tests.browser.helpers import action, console_url, live_match, player, tap_field

pytestmark = pytest.mark.browser

HOME, AWAY = "人大 Renmin", "Tsinghua 清华"

BUTTONS = """() => Object.fromEntries([...document.querySelectorAll('[data-action]')]
  .map((b) => [b.getAttribute('data-action'), b.getAttribute('aria-disabled')]))"""


def open_menu(console: Page, seq: int, item: str) -> None:
    console.locator(f'#log li[data-seq="{seq}"] .d').click()
    console.locator(f'#log li[data-seq="{seq}"] [data-fix="{item}"]').click()


def buttons(console: Page) -> dict[str, Any]:
    result: dict[str, Any] = console.evaluate(BUTTONS)
    return result


def closed_by(console: Page, way: str) -> None:
    if way == "cancel":
        console.locator("#b-cancel").click()
    elif way == "escape":
        console.keyboard.press("Escape")
    else:
        console.go_back()


@pytest.mark.parametrize("way", ["cancel", "escape", "back"])
def test_issue27_item1_closing_a_correction_returns_the_console_to_what_legal_says(
    devices: Devices, server: Server, way: str
) -> None:
    """Tap a goal → Disallow goal (or Correct) → Cancel / Esc / Back: the buttons are greyed exactly as before
    (Coin toss, and Goal with the ball dead), and the next tap on Goal is a new call's, refused now (7.1),
    never "Correction: Goal"."""
    match_id, tokens = live_match(server)
    goal = server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})["seq"]
    console = devices.open(console_url(match_id, tokens["referee"]))
    expect(console.locator("#home-score")).to_have_text("1")
    before = buttons(console)
    assert before["coin_toss"] == "true" and before["goal"] == "true"  # the ball is dead: away's kickoff

    for item, title in (("disallow", "Correction: Player in area"), ("amend", "Correction: Goal")):
        open_menu(console, goal, item)
        expect(console.locator("#b-title")).to_have_text(title)
        expect(console.locator('[data-action="coin_toss"]')).to_have_attribute("aria-disabled", "false")
        closed_by(console, way)
        expect(console.locator("#builder")).to_be_hidden()
        expect(console.locator("#fix-banner")).to_be_hidden()
        console.wait_for_function(f"() => JSON.stringify(({BUTTONS})()) === {buttons_json(before)!r}", timeout=5000)
        # The next tap on Goal is a call of now: greyed, so it says why and opens nothing.
        console.locator('[data-action="goal"]').click(force=True)
        expect(console.locator("#notice-rule")).to_have_text("Not now: rule 7.1")
        expect(console.locator("#builder")).to_be_hidden()
        expect(console.locator("#fix-banner")).to_be_hidden()
    assert server.state(match_id)["score"] == {"home": 1, "away": 0}


def buttons_json(d: dict[str, Any]) -> str:
    return json.dumps(d, separators=(",", ":"))


def test_issue27_item3_a_double_tap_on_a_calls_last_button_does_not_fall_through_to_the_grid(
    devices: Devices, server: Server
) -> None:
    """Goal → a double tap on the scorer: the goal is sent once, and the second tap opens nothing under the finger."""
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]))
    expect(console.locator("#net")).to_have_class("net online")
    action(console, "goal")
    console.locator('#b-players button[data-player="3"]').dblclick()
    expect(console.locator("#notice")).to_have_class("notice decision")
    expect(console.locator("#home-score")).to_have_text("1")
    expect(console.locator("#net")).to_have_class("net online")
    expect(console.locator("#builder")).to_be_hidden()
    expect(console.locator("#actions")).to_be_visible()
    assert [e["type"] for e in server.events(match_id)][-1] == "goal"


def test_issue27_item3_a_call_pressed_while_the_last_ones_answer_is_coming_opens_only_if_legal_allows_it(
    devices: Devices, server: Server
) -> None:
    """The goal's answer is held back: Goal pressed again meanwhile does not open a builder; once the answer says
    the ball is dead (away's kickoff), the press is told why (7.1) and opens nothing."""
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]))
    expect(console.locator("#net")).to_have_class("net online")
    held: list[Route] = []

    def hold(route: Route) -> None:
        if route.request.method == "POST" and not held:
            held.append(route)
        else:
            route.continue_()

    console.route("**/api/matches/*/events", hold)
    action(console, "goal")
    player(console, 3)
    console.wait_for_function("() => document.querySelector('#net').classList.contains('sending')")
    console.locator('[data-action="goal"]').click(force=True)  # while the answer is on its way
    expect(console.locator("#builder")).to_be_hidden()
    assert held
    held[0].continue_()
    expect(console.locator("#notice-rule")).to_have_text("Not now: rule 7.1")
    expect(console.locator("#home-score")).to_have_text("1")
    expect(console.locator("#builder")).to_be_hidden()
    assert [e["type"] for e in server.events(match_id)].count("goal") == 1


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", f"the ball is dead ({AWAY}'s kickoff is pending): a ball out side violation needs the ball in play"),
        ("zh", f"现在是死球（等待{AWAY}发中圈开球）：球出边线违例需要在比赛进行中发生"),
    ],
)
def test_issue27_item6_D200_a_refusal_from_the_server_is_in_the_consoles_language_with_the_teams_names(
    devices: Devices, server: Server, lang: str, words: str
) -> None:
    """Two calls queued offline, the second refused once sent (8.1: the goal made the ball dead). The console renders
    the refusal itself (D200), in its language, naming teams by name — even when this tablet's language cookie
    now says English (another page switched it): never "away's kickoff is pending"."""
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]) + f"&lang={lang}")
    expect(console.locator("#net")).to_have_class("net online")
    console.context.add_cookies([{"name": "lang", "value": "en", "url": server.base}])
    console.context.set_offline(True)
    action(console, "goal")
    player(console, 3)
    action(console, "ball_out_side")
    console.locator('#b-teams button[data-team="home"]').click()
    player(console, 2)
    tap_field(console, 20, -1.0)
    expect(console.locator("#log li.queued")).to_have_count(2)
    console.context.set_offline(False)
    expect(console.locator("#notice")).to_have_class("notice refusal", timeout=15_000)
    expect(console.locator("#notice-msg")).to_contain_text(words)
    expect(console.locator("#notice-msg")).not_to_contain_text("away")
    expect(console.locator("#home-score")).to_have_text("1")


@pytest.mark.parametrize(
    ("lang", "why"),
    [
        ("en", f"foul by {AWAY} #4 (10.6); moved 3 m out of the area (10.8)"),
        ("zh", f"{AWAY}4号犯规（10.6）；依 3 米规则移出禁区外（10.8）"),
    ],
)
def test_issue27_item5_the_console_says_why_the_pending_restart_was_given_as_the_scoreboard_does(
    devices: Devices, server: Server, lang: str, why: str
) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]) + f"&lang={lang}")
    expect(console.locator("#net")).to_have_class("net online")
    expect(console.locator("#why")).to_be_hidden()  # the ball is in play: nothing pending to explain
    server.post(match_id, tokens["referee"], {"type": "foul", "team": "away", "player": 4, "spot": {"x": 38.5, "y": 12.5}})
    expect(console.locator("#why")).to_have_text(why)
    console.reload()  # the page's first render says it too
    expect(console.locator("#why")).to_have_text(why)
    # On its own line of the status, inside it (the status never grows: D162).
    status, shown = console.locator("#status").bounding_box(), console.locator("#why").bounding_box()
    assert status and shown and status["y"] <= shown["y"] and shown["y"] + shown["height"] <= status["y"] + status["height"] + 0.5
    board = devices.open(f"/matches/{match_id}/scoreboard?lang={lang}")
    expect(board.locator("#why")).to_have_text(why)


def leave_asks(console: Page, how: str) -> None:
    """Leaving (a link, or Back) asks first; the official stays: the console is still here, as it was."""
    url = console.url
    with console.expect_event("dialog", timeout=10_000) as asked:
        console.evaluate(f"() => {{ setTimeout({how}, 0); }}")  # the page's own navigation, after evaluate returns
    assert asked.value.type == "beforeunload"
    asked.value.dismiss()
    assert console.url == url


def test_issue27_item7_leaving_asks_first_while_a_call_is_half_built_or_calls_are_queued(
    devices: Devices, server: Server
) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]))
    expect(console.locator("#net")).to_have_class("net online")
    # A call half-built: leaving by a link asks; Back closes the call instead (item 1), then leaving is free.
    action(console, "goal")
    leave_asks(console, "() => { location.href = '/'; }")
    expect(console.locator("#b-title")).to_have_text("Goal")
    console.go_back()
    expect(console.locator("#builder")).to_be_hidden()
    # Calls queued (offline): leaving asks, by a link and by Back; the queue stays.
    console.context.set_offline(True)
    action(console, "steal")
    player(console, 4)
    expect(console.locator("#log li.queued")).to_have_count(1)
    leave_asks(console, "() => { location.href = '/'; }")
    leave_asks(console, "() => history.back()")
    expect(console.locator("#log li.queued")).to_have_count(1)
    # Sent: nothing is lost by leaving, and the console does not ask.
    console.context.set_offline(False)
    expect(console.locator("#net")).to_have_class("net online", timeout=15_000)
    asked: list[str] = []
    console.on("dialog", lambda d: (asked.append(d.type), d.dismiss()))
    console.evaluate("() => { setTimeout(() => { location.href = '/'; }, 0); }")
    console.wait_for_url(f"{server.base}/")
    assert asked == []
    assert [e["type"] for e in server.events(match_id)][-1] == "steal"


def test_issue27_item10_the_default_device_name_is_in_the_consoles_language_and_a_given_name_is_kept(
    devices: Devices, server: Server
) -> None:
    match_id, tokens = live_match(server)
    console = devices.open(console_url(match_id, tokens["referee"]) + "&lang=en")
    name = console.locator("#device-name")
    expect(name).to_have_text(re.compile(r"^Tablet [0-9A-F]{4}$"))
    tablet = name.inner_text().removeprefix("Tablet ")
    console.goto(f"/matches/{match_id}/referee?role=referee&lang=zh")
    expect(name).to_have_text(f"平板 {tablet}")  # the same tablet, worded in Chinese
    expect(console.locator("#device-input")).to_have_value(f"平板 {tablet}")
    console.locator("#device-input").fill("裁判 A 台")
    console.locator("#device-save").click()
    console.goto(f"/matches/{match_id}/referee?role=referee&lang=en")
    expect(name).to_have_text("裁判 A 台")  # a name the official gave is never translated


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_issue27_item10_V1_D4_V1_D5_corner_and_short_corner_labels_are_inside_the_consoles_field(
    devices: Devices, server: Server, locale: str
) -> None:
    """1.0's corner at the field's corner (40, 0) and short corner at (0, 8): their words are drawn whole, inside
    the field's drawing, not cut at its edge."""
    match_id, tokens = live_match(server, rules={"rule_set": "1.0", "half_minutes": 1})
    ref = tokens["referee"]
    console = devices.open(console_url(match_id, ref), locale=locale)
    expect(console.locator("#net")).to_have_class("net online")
    label = console.locator("#field .restart-label")
    inside = """(t) => {
      const f = document.querySelector('#field').getBoundingClientRect(), b = t.getBoundingClientRect();
      return b.width > 0 && b.left >= f.left - 0.5 && b.right <= f.right + 0.5
        && b.top >= f.top - 0.5 && b.bottom <= f.bottom + 0.5; }"""
    server.post(match_id, ref, {"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 40.8, "y": 3}})
    expect(label).to_contain_text(AWAY)
    assert server.state(match_id)["restart"]["spot"] == {"x": 40.0, "y": 0.0}
    console.wait_for_function(f"() => ({inside})(document.querySelector('#field .restart-label'))", timeout=5000)
    server.post(match_id, ref, {"type": "restart_taken", "team": "away"})
    server.post(match_id, ref, {"type": "violation", "kind": "ball_in_area", "team": "away", "spot": {"x": 1.5, "y": 11}})
    expect(label).to_contain_text(HOME)
    assert server.state(match_id)["restart"]["spot"] == {"x": 0.0, "y": 8.0}
    console.wait_for_function(f"() => ({inside})(document.querySelector('#field .restart-label'))", timeout=5000)
