"""The match day (SPEC §9, issue 11) officiated from the consoles in Debian's Chromium: a late player added
to the roster, the same goal logged from two tablets, a correction previewed then saved, a goal disallowed,
a goal tapped at the whistle and sent after it, the score confirmed, the sheet signed and locked, and the
organiser's reopen — each checked on the screens and against the API."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.conftest import ADMIN, PHONE, SCREEN, TABLET, Devices, Server, shot, start_server, stop_server
from tests.browser.helpers import action, console_url, live_match, player, tap_field, team
from tests.competition_play import play, roster

pytestmark = pytest.mark.browser

HOME, AWAY = "人大 Renmin", "Tsinghua 清华"


def open_menu(console: Page, seq: int, item: str) -> None:
    """Tap an event of the log, then an item of its menu."""
    console.locator(f'#log li[data-seq="{seq}"] .d').click()
    console.locator(f'#log li[data-seq="{seq}"] [data-fix="{item}"]').click()


def draw_signature(console: Page) -> None:
    """A scrawl on the signature pad, with the pointer (a finger on a tablet)."""
    box = console.locator("#sign-pad").bounding_box()
    assert box
    x, y = box["x"] + 30, box["y"] + box["height"] / 2
    console.mouse.move(x, y)
    console.mouse.down()
    for i in range(1, 25):
        console.mouse.move(x + i * 14, y + (25 if i % 2 else -25))
    console.mouse.up()


def sign(console: Page, who: str, name: str) -> None:
    console.locator(f'#sign-list [data-sign="{who}"]').click()
    expect(console.locator("#sign-save")).to_be_disabled()  # a name and a drawn signature are needed
    console.locator("#sign-name").fill(name)
    draw_signature(console)
    console.locator("#sign-save").click()
    expect(console.locator(f'#sign-list li[data-as="{who}"] .signed')).to_contain_text(name)


def last_goal_seq(server: Server, match_id: str) -> int:
    return max(e["seq"] for e in server.events(match_id) if e["type"] == "goal" and e["voided_by"] is None)


def test_m1_to_m8_a_match_day_officiated_from_the_consoles(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)  # first half, home's kickoff taken: ball in play, home's
    referee = devices.open(console_url(match_id, tokens["referee"]))
    assistant = devices.open(console_url(match_id, tokens["assistant1"]))
    board = devices.open(f"/matches/{match_id}/scoreboard", viewport=SCREEN)
    phone = devices.open(f"/matches/{match_id}", viewport=PHONE)
    expect(referee.locator("#net")).to_have_text("Online")

    # M2: a late player joins home's bench from the referee's roster editor; every console shows him at once.
    referee.locator("#roster-edit").click()
    referee.locator("#re-add-number").fill("12")
    referee.locator("#re-add-name").fill("迟到 Late")
    referee.locator("#re-add").click()
    expect(referee.locator("#re-msg")).to_have_text("Saved: every console shows it now")
    expect(referee.locator("#roster-home")).to_contain_text("#12 迟到 Late")
    expect(assistant.locator("#roster-home")).to_contain_text("#12 迟到 Late")
    assert server.state(match_id)["teams"]["home"]["players"]["12"] == "迟到 Late"
    referee.locator("#roster-edit").click()

    # M4: the referee begins the goal while the assistant logs it; the referee's second call is no error.
    action(referee, "goal")  # home, with the ball, preselected
    action(assistant, "goal")
    player(assistant, 3)
    expect(assistant.locator("#notice-title")).to_have_text(f"Goal, {HOME} #3 张伟")
    expect(assistant.locator("#notice-action")).to_be_hidden()  # only the referee corrects (M3)
    expect(referee.locator("#home-score")).to_have_text("1")
    player(referee, 3)
    expect(referee.locator("#notice")).to_have_class("notice duplicate")
    expect(referee.locator("#notice-title")).to_have_text("Already logged by Assistant referee 1")
    expect(referee.locator("#home-score")).to_have_text("1")
    assert [e["by"] for e in server.events(match_id) if e["type"] == "goal"] == ["assistant1"]
    goal = last_goal_seq(server, match_id)

    # M3: a correction of the scorer, previewed first. Away's kickoff has been taken since: making the goal
    # away's is refused naming that kickoff; the scorer's number is accepted and changes nothing else.
    server.post(match_id, tokens["referee"], {"type": "restart_taken", "team": "away", "player": 1})
    kickoff = server.state(match_id)["seq"]
    open_menu(referee, goal, "amend")
    expect(referee.locator("#b-title")).to_have_text("Correction: Goal")
    expect(referee.locator("#fix-what")).to_contain_text(f"Replaces #{goal} Goal, {HOME} #3 张伟")
    team(referee, "away")
    player(referee, 2)
    preview = referee.locator("#fix-preview")
    expect(preview).to_have_class(re.compile(r"\brefused\b"))
    expect(preview).to_contain_text("Refused by rule D8")
    expect(referee.locator(f'#fix-preview [data-first-refused="{kickoff}"]')).to_contain_text(
        f"First later event that would be refused: #{kickoff} Restart taken, {AWAY} #1 Alex Chen"
    )
    expect(referee.locator("#fix-save")).to_be_disabled()
    team(referee, "home")
    player(referee, 5)
    expect(preview).to_have_class(re.compile(r"\baccepted\b"))
    expect(preview).to_contain_text("Score unchanged: 1–0")
    referee.locator("#fix-reason").fill("wrong number")
    referee.locator("#fix-save").click()
    expect(referee.locator("#notice-title")).to_have_text(f"Corrected #{goal}: Goal, {HOME} #5 陈静")
    amend = server.last_event(match_id, "amend")
    assert amend["type"] == "amend" and amend["target"] == goal and amend["event"]["player"] == 5
    assert amend["reason"] == "wrong number"
    expect(phone.locator("#timeline")).to_contain_text(f"Goal · {HOME} #5 陈静")
    expect(phone.locator("#timeline")).not_to_contain_text("张伟")

    # M3: a goal disallowed (a home player was in away's area: 8.5), previewed, then saved.
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 2})
    expect(board.locator("#home-score")).to_have_text("2")
    second = last_goal_seq(server, match_id)
    open_menu(referee, second, "disallow")
    expect(referee.locator("#b-title")).to_have_text("Correction: Player in area")
    tap_field(referee, 38.5, 12.0)  # inside away's restricted area (home attacks x = L)
    expect(preview).to_contain_text("Score: 2–0 → 1–0")
    shot(referee, "match-day-disallow-preview")
    referee.locator("#fix-save").click()
    expect(referee.locator("#home-score")).to_have_text("1")
    expect(board.locator("#home-score")).to_have_text("1")
    assert server.last_event(match_id, "amend")["event"]["kind"] == "player_in_area"
    expect(referee.locator(f'#log li[data-seq="{second}"]')).to_have_class(re.compile(r"\bvoided\b"))

    # M7 and M8: a yellow card with its reason; a foul on the same player warns of his fouls; his second
    # yellow reads as what it is on the console, the phone and the scoreboard.
    state = server.state(match_id)
    server.post(match_id, tokens["referee"], {"type": "restart_taken", "team": state["restart"]["team"]})
    server.post(match_id, tokens["referee"], {"type": "foul", "team": "away", "player": 4, "spot": {"x": 20, "y": 10}})
    expect(referee.locator('#roster-away .pl[data-player="4"] .fc')).to_have_text("1")
    action(referee, "yellow")
    team(referee, "away")
    referee.locator('#b-codes [data-code="dissent"]').click()
    player(referee, 4)
    expect(referee.locator("#notice-title")).to_have_text(f"Yellow card, {AWAY} #4 Dana Zhou, Dissent by word or action")
    assert server.last_event(match_id, "card")["reason"] == {"code": "dissent"}
    server.post(match_id, tokens["referee"], {"type": "restart_taken", "team": "home"})
    action(referee, "foul")
    team(referee, "away")
    player(referee, 4)
    expect(referee.locator("#call-warning")).to_have_text("#4 has 1 foul")
    referee.locator('#b-options [data-choice="card"][data-value="yellow"]').click()
    expect(referee.locator("#call-warning")).to_contain_text("#4 already has a yellow card: a second one sends the player off")
    tap_field(referee, 22, 12)
    expect(referee.locator("#log li").first).to_contain_text(f"Foul, {AWAY} #4 Dana Zhou + Second yellow → sent off")
    expect(referee.locator("#log li").first).to_have_class(re.compile(r"\bsecond-yellow\b"))
    expect(phone.locator("#timeline li").first).to_contain_text(f"Second yellow → sent off · {AWAY} #4 Dana Zhou")
    expect(board.locator("#away-second")).to_have_text("#4 Second yellow → sent off")
    expect(board.locator('#away-cards .card.red.second[title="Second yellow → sent off"]')).to_have_text("4")

    # M7: a note about the match from the assistant's console.
    assistant.locator("#note-open").click()
    assistant.locator("#note-text").fill("Floodlight out for two minutes")
    assistant.locator("#note-save").click()
    expect(referee.locator("#log li").first).to_contain_text("Note: Floodlight out for two minutes")
    assert server.last_event(match_id, "note")["by"] == "assistant1"

    # M1: a goal tapped at 29:57 while the tablet is offline counts, though it arrives after time up.
    state = server.state(match_id)
    server.post(match_id, tokens["referee"], {"type": "restart_taken", "team": state["restart"]["team"]})
    server.post(match_id, tokens["scorer"], {"type": "clock", "action": "set", "elapsed_ms": 1_796_000})
    expect(referee.locator("#clock")).to_have_text(re.compile(r"^29:5[6-9]$"))
    referee.context.set_offline(True)
    action(referee, "goal")
    team(referee, "home")
    player(referee, 4)
    expect(referee.locator("#net")).to_have_text("Offline, 1 queued")
    expect(referee.locator("#clock")).to_have_class(re.compile(r"\bup\b"), timeout=15_000)  # time is up
    referee.context.set_offline(False)
    expect(referee.locator("#net")).to_have_text("Online", timeout=15_000)
    expect(referee.locator("#home-score")).to_have_text("2")
    expect(referee.locator("#notice-action")).to_have_text("Disallow goal")  # offered at once after a goal
    late = server.last_event(match_id, "goal")
    assert late["type"] == "goal" and 1_796_000 <= late["at_ms"] < 1_800_000
    assert server.state(match_id)["time_up"] is True  # received after the whistle, judged when tapped

    # M6: the half ended, the referee is asked to confirm its score.
    action(referee, "period_end")
    expect(referee.locator("#confirm-text")).to_have_text("The 1st half has ended: confirm the score 2–0")
    referee.locator("#confirm-send").click()
    expect(referee.locator("#confirm-prompt")).to_be_hidden()
    expect(referee.locator("#log li").first).to_contain_text("Score confirmed: 1st half")
    server.last_event(match_id, "confirm")  # the log shows a call while it is still on its way
    assert server.state(match_id)["confirmed"] == [1]
    expect(assistant.locator("#confirm-prompt")).to_have_count(0)  # the referee's alone
    for event in ({"type": "period_start"}, {"type": "clock", "action": "set", "elapsed_ms": 1_800_000}, {"type": "period_end"}):
        server.post(match_id, tokens["referee"], event)
    expect(referee.locator("#confirm-text")).to_have_text("The 2nd half has ended: confirm the score 2–0")
    referee.locator("#confirm-send").click()
    expect(referee.locator("#sheet")).to_have_text("Provisional")
    expect(board.locator("#sheet")).to_have_text("Provisional")
    expect(phone.locator("#sheet")).to_have_text("Provisional")

    # M6: both captains sign, then the referee (his signature locks the match).
    sign(referee, "home_captain", "李华")
    sign(referee, "away_captain", "Alex Chen")
    referee.locator('#sign-list [data-sign="referee"]').click()
    expect(referee.locator("#sign-warn")).to_be_visible()
    referee.locator("#sign-name").fill("王裁判 Wang")
    draw_signature(referee)
    referee.locator("#sign-save").click()
    for screen in (referee, board, phone):
        expect(screen.locator("#sheet")).to_have_text("Final · locked")
    expect(referee.locator("#lock-banner")).to_be_visible()
    expect(assistant.locator("#lock-banner")).to_be_visible()
    shot(referee, "match-day-locked")
    state = server.state(match_id)
    assert state["locked"] is True and [s["as"] for s in state["signatures"]] == ["home_captain", "away_captain", "referee"]
    signatures = [e["signature"] for e in server.events(match_id) if e["type"] == "sign"]
    assert len(signatures) == 3
    assert all(s.startswith("data:image/png;base64,") and len(s) <= 100 * 1024 for s in signatures)
    # Nothing more is accepted (M6): Note and Undo are greyed, the note's reason says why.
    expect(assistant.locator("#note-open")).to_be_disabled()
    expect(assistant.locator("#note-open")).to_have_attribute("title", re.compile("locked"))
    expect(referee.locator("#undo")).to_be_disabled()
    expect(referee.locator("#undo")).to_have_text("Nothing to undo")
    # A stale refusal from while it was locked (a call pressed anyway) is replaced by the reopen below.
    referee.locator('[data-action="goal"]').click(force=True)
    expect(referee.locator("#notice-rule")).to_contain_text("M6")

    # M6: the organiser reopens the match, with a reason, from the officials' page.
    organiser = devices.open(f"/matches/{match_id}/officials?token={ADMIN}")
    expect(organiser.locator("#sheet")).to_have_text("Final · locked")
    organiser.locator("#reopen-reason").fill("Scorer's number to check")
    organiser.locator("#reopen").click()
    expect(organiser.locator("#reopen-msg")).to_have_text("Reopened: the match is provisional again and must be signed again.")
    expect(organiser.locator("#reopen-form")).to_be_hidden()
    for screen in (referee, board, phone, organiser):
        expect(screen.locator("#sheet")).to_have_text("Provisional")
    expect(referee.locator("#lock-banner")).to_be_hidden()
    expect(referee.locator('#sign-list [data-sign="referee"]')).to_be_visible()  # to be signed again
    assert server.last_event(match_id, "reopen")["type"] == "reopen" and server.state(match_id)["locked"] is False
    # Issue 19.1 (D132): the reopen and its reason replace the stale M6 refusal; Undo never offers the
    # organiser's reopen (nor the signatures): it offers the last call of the match instead.
    expect(referee.locator("#notice")).to_have_class(re.compile(r"\bdecision\b"))
    expect(referee.locator("#notice-msg")).to_contain_text("Scorer's number to check")
    expect(referee.locator("#undo")).not_to_contain_text("Reopened")
    expect(referee.locator("#undo")).not_to_contain_text("Signature")
    expect(referee.locator("#undo")).not_to_contain_text("Score confirmed")
    expect(referee.locator("#note-open")).to_be_enabled()
    reopen = server.last_event(match_id, "reopen")
    assert not referee.locator(f'#log li[data-seq="{reopen["seq"]}"] [data-void]').count()


def test_devices_the_referee_and_the_organiser_see_the_consoles_and_a_shared_role(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    assistant = devices.open(console_url(match_id, tokens["assistant1"]), service_workers="block")  # routed: no service worker
    assistant.locator("#device-input").fill("AR1 tablet")
    assistant.locator("#device-save").click()
    expect(assistant.locator("#device-name")).to_have_text("AR1 tablet")
    referee = devices.open(console_url(match_id, tokens["referee"]))
    expect(referee.locator('#devices-list li[data-role="assistant1"]')).to_contain_text("AR1 tablet", timeout=15_000)
    expect(referee.locator('#devices-list li[data-role="scorer"]')).to_contain_text("not connected")
    expect(referee.locator("#devices-warning")).to_be_hidden()
    # A second tablet opens the assistant's link: both are listed, and both screens warn.
    devices.open(console_url(match_id, tokens["assistant1"]))
    warning = "2 consoles are open as Assistant referee 1: check which tablet is the right one."
    expect(referee.locator("#devices-warning")).to_have_text(warning, timeout=15_000)
    expect(referee.locator('#devices-list li[data-role="assistant1"] .dev')).to_have_count(2)
    organiser = devices.open(f"/matches/{match_id}/officials?token={ADMIN}")
    expect(organiser.locator("#shared-warning")).to_have_text(warning, timeout=15_000)
    expect(organiser.locator('[data-devices="assistant1"]')).to_contain_text("AR1 tablet")
    # A call that cannot be sent (the API unreachable, the live connection up) shows as the tablet's queue.
    assistant.route("**/api/matches/*/events", lambda route: route.abort("connectionrefused"))
    action(assistant, "shot_missed")
    team(assistant, "home")
    player(assistant, 2)
    assistant.locator('#b-extra [data-send="1"]').click()
    expect(assistant.locator("#net")).to_have_text("Offline, 1 queued")
    row = referee.locator('#devices-list li[data-role="assistant1"]')
    expect(row).to_contain_text("AR1 tablet 1 unsent", timeout=15_000)
    expect(organiser.locator('[data-devices="assistant1"]')).to_contain_text("AR1 tablet · 1 unsent", timeout=15_000)
    assistant.unroute("**/api/matches/*/events")
    expect(assistant.locator("#net")).to_have_text("Online", timeout=15_000)
    expect(row).not_to_contain_text("unsent", timeout=15_000)
    assert [e["type"] for e in server.events(match_id)][-1] == "shot_missed"


def test_m3_m7_a_missed_call_added_after_an_event_and_a_note_about_another(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    server.post(match_id, tokens["referee"], {"type": "foul", "team": "away", "player": 4, "spot": {"x": 20, "y": 10}})
    taken, foul = server.state(match_id)["seq"] - 1, server.state(match_id)["seq"]
    referee = devices.open(console_url(match_id, tokens["referee"]), locale="zh-CN")
    open_menu(referee, taken, "insert")
    expect(referee.locator("#fix-banner-text")).to_contain_text(f"在 #{taken} ")
    action(referee, "shot_missed")
    team(referee, "home")
    player(referee, 2)
    expect(referee.locator("#fix-preview")).to_contain_text("比分不变：0–0")
    referee.locator("#fix-save").click()
    expect(referee.locator("#log li").first).to_contain_text(f"补记于第 {taken} 条之后：")
    inserted = server.last_event(match_id, "insert")
    assert inserted["type"] == "insert" and inserted["after"] == taken and inserted["event"]["type"] == "shot_missed"
    # A note about the foul: its team and player are filled in; a misconduct code is chosen.
    referee.locator(f'#log li[data-seq="{foul}"] .d').click()
    referee.locator(f'#log li[data-seq="{foul}"] [data-note-about]').click()
    expect(referee.locator("#note-player")).to_have_value("4")
    referee.locator('#note-codes [data-note-code="dangerous_play"]').click()
    referee.locator("#note-text").fill("鞋钉朝上 studs up")
    referee.locator("#note-save").click()
    expect(referee.locator("#log li").first).to_contain_text("鞋钉朝上 studs up")
    note = server.last_event(match_id, "note")
    assert (note["type"], note["about"], note["team"], note["player"], note["code"]) == (
        "note",
        foul,
        "away",
        4,
        "dangerous_play",
    )


def test_devices_a_console_whose_token_stopped_working_says_so_and_sends_nothing_more(devices: Devices, server: Server) -> None:
    match_id, tokens = live_match(server)
    scorer = devices.open(console_url(match_id, tokens["scorer"]), service_workers="block")  # routed: no service worker
    expect(scorer.locator("#net")).to_have_text("Online")
    # The token was replaced meanwhile (POST /api/matches/<id>/tokens/<role>): the API answers 401.
    posted: list[str] = []

    def unauthorized(route: Route) -> None:
        posted.append(route.request.post_data or "")
        route.fulfill(status=401, content_type="application/json", body='{"error": "unauthorized", "message": "no"}')

    scorer.route("**/api/matches/*/events", unauthorized)
    scorer.locator("#clock-input").fill("12:00")
    scorer.locator("#clock-input").press("Enter")
    expect(scorer.locator("#revoked")).to_be_visible()
    expect(scorer.locator("#revoked-msg")).to_contain_text("A new link was issued for the Scorer")
    expect(scorer.locator("#revoked-msg")).to_contain_text("1 call made here was not sent.")
    expect(scorer.locator("body")).to_have_class(re.compile(r"\brevoked\b"))
    # Nothing more is sent: the call stays on the tablet, and a new call is not even queued.
    scorer.locator("#clock-input").fill("13:00")
    scorer.locator("#clock-input").press("Enter")
    scorer.wait_for_timeout(2500)  # the queue retries every 2 s: it must not
    assert len(posted) == 1
    queued = scorer.evaluate(f"JSON.parse(localStorage.getItem('qalisball.queue.{match_id}'))")
    assert [b["elapsed_ms"] for b in queued] == [720_000]
    assert scorer.evaluate(f"localStorage.getItem('qalisball.token.{match_id}')") is None


def test_M4_D167_D169_the_assistant_logs_the_goal_after_the_referees_arrived(devices: Devices, server: Server) -> None:
    """Issue 19.4: the referee's goal has arrived; the assistant's console keeps Goal offered for M4's 10 s and
    his goal reads "already logged by"; a hint names only what an assistant can log."""
    match_id, tokens = live_match(server)
    assistant = devices.open(console_url(match_id, tokens["assistant1"]))
    expect(assistant.locator("#net")).to_have_text("Online")
    server.post(match_id, tokens["referee"], {"type": "goal", "team": "home", "player": 3})
    expect(assistant.locator("#home-score")).to_have_text("1")
    # A ball out is not offered (the kickoff is pending): the hint does not tell him to log "Restart taken".
    assistant.locator('[data-action="ball_out_side"]').click(force=True)  # greyed: still pressable
    expect(assistant.locator("#notice-hint")).to_have_text("The restart is still pending: the referee logs “Restart taken”")
    action(assistant, "goal")  # offered: the same goal, seen by the assistant too
    player(assistant, 3)
    expect(assistant.locator("#notice")).to_have_class("notice duplicate")
    expect(assistant.locator("#notice-title")).to_have_text("Already logged by Referee")
    assert [e["by"] for e in server.events(match_id) if e["type"] == "goal"] == ["referee"]
    # 10 s of play after the goal, another goal is a new call: greyed again, with the same hint.
    expect(assistant.locator('[data-action="goal"]')).to_have_attribute("aria-disabled", "true", timeout=20_000)
    assistant.locator('[data-action="goal"]').click(force=True)
    expect(assistant.locator("#notice-hint")).to_have_text("The restart is still pending: the referee logs “Restart taken”")


def test_issue27_item4_M4_D230_two_consoles_on_one_role_log_the_same_goal(devices: Devices, server: Server) -> None:
    """The referee's second tablet logs the goal the first one already logged (it had not heard of it yet): it
    reads "Already logged by Referee", not "Refused by rule 7.1", and the goal counts once."""
    match_id, tokens = live_match(server)
    first = devices.open(console_url(match_id, tokens["referee"]))
    second = devices.open(console_url(match_id, tokens["referee"]))
    for console in (first, second):
        expect(console.locator("#net")).to_have_text("Online")
    second.context.set_offline(True)  # it will hear of the first tablet's goal only after its own
    action(first, "goal")
    player(first, 3)
    expect(first.locator("#home-score")).to_have_text("1")
    action(second, "goal")  # ball still in play on this tablet
    player(second, 3)
    expect(second.locator("#net")).to_have_text("Offline, 1 queued")
    second.context.set_offline(False)
    expect(second.locator("#notice-title")).to_have_text("Already logged by Referee", timeout=15_000)
    expect(second.locator("#notice")).to_have_class("notice duplicate")
    expect(second.locator("#home-score")).to_have_text("1")
    assert [e["by"] for e in server.events(match_id) if e["type"] == "goal"] == ["referee"]
    assert server.state(match_id)["score"] == {"home": 1, "away": 0}


def test_D168_after_a_restart_the_officials_page_lists_the_rejoined_consoles_and_asks_before_a_new_code(
    browser: Browser, tmp_path: Path
) -> None:
    """Issue 19.6: after a restart every role showed only "New code" while the referee's console was online."""
    srv = start_server(tmp_path)
    port = srv.base.rsplit(":", 1)[1]
    ctx = browser.new_context(viewport=TABLET, base_url=srv.base, locale="en-GB", service_workers="block")
    try:
        match_id, tokens = live_match(srv)
        referee = ctx.new_page()
        referee.goto(console_url(match_id, tokens["referee"]))
        referee.locator("#device-input").fill("Ref tablet")
        referee.locator("#device-save").click()
        expect(referee.locator("#net")).to_have_text("Online")

        stop_server(srv)
        srv = start_server(tmp_path, PORT=port)  # the same server on its database: it knows no code to show
        expect(referee.locator("#net")).to_have_text("Online", timeout=30_000)  # the console rejoined

        organiser = ctx.new_page()
        organiser.goto(f"/matches/{match_id}/officials?token={ADMIN}")
        card = organiser.locator('.qr-card.no-code[data-role="referee"]')
        expect(card.locator('[data-devices="referee"]')).to_contain_text("Ref tablet", timeout=15_000)
        expect(organiser.locator('[data-devices="scorer"]')).to_have_text("not connected")
        # A new code for the online referee: asked first; "Cancel" keeps the tablet's code working.
        asked: list[str] = []

        def answer(accept: bool) -> Any:
            def handle(dialog: Any) -> None:
                asked.append(dialog.message)
                dialog.accept() if accept else dialog.dismiss()

            return handle

        organiser.once("dialog", answer(False))
        card.locator("button.new-code").click()
        for _ in range(150):  # the question comes once the page has asked the server who is connected
            if asked:
                break
            organiser.wait_for_timeout(100)
        organiser.wait_for_timeout(500)  # a refused question submits nothing: give a wrong submit its chance
        assert asked and "Referee is connected now (Ref tablet)" in asked[0], asked
        expect(card).to_be_visible()  # still no new code
        srv.post(match_id, tokens["referee"], {"type": "clock", "action": "pause"})  # the old code still works
        # Confirmed: the new code is shown, and the old console is told its code stopped working.
        organiser.once("dialog", answer(True))
        card.locator("button.new-code").click()
        expect(organiser.locator('.qr-card[data-role="referee"] .role-link')).to_be_visible()
        expect(referee.locator("#revoked")).to_be_visible(timeout=15_000)
        assert len(asked) == 2
        # A role with nothing connected gets its new code without a question.
        organiser.locator('.qr-card.no-code[data-role="scorer"] button.new-code').click()
        expect(organiser.locator('.qr-card[data-role="scorer"] .role-link')).to_be_visible()
        assert len(asked) == 2
    finally:
        ctx.close()
        stop_server(srv)


def _organiser(server: Server, method: str, path: str, body: Any = None) -> Any:
    r = server.http.request(method, server.base + path, json=body, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_D170_the_officials_page_sheet_box_back_link_and_absolute_line_ups_link(devices: Devices, server: Server) -> None:
    """Issue 19.7: an empty "Score sheet" box before kickoff, "← Matches" to the home page from a competition's
    match, and a relative Line-ups link that wrapped."""
    from qalisball.server.demo import demo_request

    made = server.create_match(demo_request())
    match_id, tokens = made["id"], made["tokens"]
    page = devices.open(f"/matches/{match_id}/officials?token={ADMIN}")
    expect(page.locator("#back")).to_have_text("← Matches")
    expect(page.locator("#back")).to_have_attribute("href", "/")  # a match of no competition: the list of matches
    expect(page.locator("#sheet-box")).to_be_hidden()  # before kickoff there is no sheet
    link = page.locator("#lineups-link")
    expect(link).to_have_attribute("href", f"{server.base}/matches/{match_id}/lineups")
    expect(link).to_have_text(f"{server.base}/matches/{match_id}/lineups")
    for url in page.locator(".screen-links a.url").all():  # each link on one line, inside the page
        rects = url.evaluate("a => Array.from(a.getClientRects()).map(r => [r.left, r.right])")
        assert len(rects) == 1 and rects[0][1] <= 1280, rects
    # The match played to its end: the sheet appears (provisional until the referee signs), on its own.
    play(lambda t, e: server.post(match_id, t, e), lambda: server.state(match_id), tokens, goals=["home"])
    expect(page.locator("#sheet-box")).to_be_visible(timeout=15_000)
    expect(page.locator("#sheet")).to_have_text("Provisional")

    # A competition's match: "←" goes back to the organiser's page of that competition, at its fixture.
    teams = [
        _organiser(server, "POST", "/api/teams", {"name": f"Back Cup {n}", "club": f"Club {n}", "players": roster(n, 8)})["id"]
        for n in "AB"
    ]
    cup = {"name": "Back Cup 回程杯", "format": "round_robin", "teams": teams, "fields": [{"name": "Field 1"}]}
    comp = _organiser(server, "POST", "/api/competitions", cup)["id"]
    fixture = _organiser(server, "GET", f"/api/competitions/{comp}")["fixtures"][0]
    lineup = {"starting": [1, 2, 3, 4, 5, 6]}
    made_path = f"/api/competitions/{comp}/fixtures/{fixture['id']}/match"
    cup_match = _organiser(server, "POST", made_path, {"home": lineup, "away": lineup})
    page = devices.open(f"/matches/{cup_match['id']}/officials?token={ADMIN}")
    expect(page.locator("#back")).to_have_text("← Back Cup 回程杯")
    page.locator("#back").click()
    expect(page).to_have_url(f"{server.base}/competitions/{comp}/admin#fx-{fixture['id']}")
    expect(page.locator(f"#fx-{fixture['id']}")).to_be_visible()


def test_D296_D158_a_console_whose_role_was_revoked_before_its_socket_connected_watches_and_says_revoked(
    devices: Devices, server: Server
) -> None:
    """D244 refuses an official's connection (?official=1) that proves no role: a console whose code was
    replaced after its page was served (a reload racing the organiser's new code, or its offline copy) was
    left with no connection at all. It connects again as anyone's, follows the match as a spectator's screen
    would, and says its code was revoked (D158)."""
    match_id, tokens = live_match(server)
    revoked: list[int] = []

    def revoke_first(route: Route) -> None:  # the code is replaced between the page and its connection
        if not revoked:
            r = server.http.post(
                f"{server.base}/api/matches/{match_id}/tokens/scorer", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10
            )
            revoked.append(r.status_code)
        route.continue_()

    ctx = devices.browser.new_context(viewport=TABLET, base_url=server.base, service_workers="block")
    devices.contexts.append(ctx)
    scorer = ctx.new_page()
    scorer.route(re.compile(r"/socket\.io/.*official=1"), revoke_first)
    scorer.goto(console_url(match_id, tokens["scorer"]))
    expect(scorer.locator("#revoked")).to_be_visible()
    assert revoked == [200]
    expect(scorer.locator("#revoked-msg")).to_contain_text("A new link was issued for the Scorer")
    expect(scorer.locator("body[data-live]")).to_have_count(1)  # watching: the join was answered with the state
