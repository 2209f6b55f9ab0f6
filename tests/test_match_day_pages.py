"""The match day (SPEC §9) on the pages as the server renders them: the phone's timeline is the corrected
match (M3) with second yellows shown as send-offs (M8), every screen says whether the sheet is provisional
or final (M6), the rosters come from the state (M2), and the console hands its script what the match day
needs (which events the role may post, the misconduct codes in its language).

The taps themselves are proved in Chromium: tests/browser/test_match_day.py.
"""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from qalisball.rules.catalogue import MISCONDUCT_CODES
from tests.conftest import ADMIN, MatchDriver
from tests.console_script import console_view
from tests.test_pages import element, get, page_data, text


def finished(match: MatchDriver) -> None:
    """Home wins 1–0: both halves played and ended."""
    match.kickoff("home", "x0")
    match.take(1)
    match.post({"type": "goal", "team": "home", "player": 3})
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    assert match.state()["phase"] == "finished"


def timeline(html: str) -> str:
    return html[html.index('id="timeline"') :]


def test_m3_D163_the_phone_timeline_shows_a_corrected_goal_as_corrected_and_a_disallowed_one_struck_out(
    client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff("home", "x0")
    match.take(1)
    first = match.post({"type": "goal", "team": "home", "player": 3})["seq"]
    match.post({"type": "amend", "target": first, "event": {"type": "goal", "team": "home", "player": 5}})
    match.take(1)
    second = match.post({"type": "goal", "team": "home", "player": 2})["seq"]
    disallow = {"type": "violation", "kind": "player_in_area", "team": "home", "player": 2, "spot": {"x": 38.5, "y": 12.0}}
    match.post({"type": "amend", "target": second, "event": disallow})
    html = text(get(client, f"/matches/{match.id}", "en"))
    shown = timeline(html)
    assert "Goal · 人大 Renmin #5 陈静" in shown and "Goal corrected — scorer #3 → #5" in shown
    assert "张伟" not in shown
    # Issue 19.2 (D163): the disallowed goal stays at its place, struck out, with the call that voided it.
    struck = re.search(r'<li class="tl tl-correction tl-disallowed tl-struck"[^>]*>.*?</li>', shown, re.S)
    assert struck and "王芳" in struck.group(0) and "Goal disallowed — Player in area (7.2)" in struck.group(0)
    assert element(html, "home-score") == "1"
    # The page's script gets the same entries, to rebuild from after the next correction.
    assert [(e["type"], e.get("player")) for e in page_data(html)["log"] if e["type"] == "goal"] == [("goal", 5)]


def test_m3_a_missed_goal_added_after_an_event_stands_at_its_place_on_the_timeline(
    client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff("home", "x0")
    taken = match.take(1)["seq"]
    match.post({"type": "card", "team": "away", "player": 2, "color": "yellow"})
    match.post({"type": "insert", "after": taken, "event": {"type": "goal", "team": "home", "player": 4}})
    shown = timeline(text(get(client, f"/matches/{match.id}", "en")))
    # Newest first: the card, logged after the missed goal's place, is above it.
    assert shown.index("Yellow card") < shown.index("Goal · 人大 Renmin #4 刘洋")


def test_m8_a_second_yellow_reads_as_a_sending_off_on_the_phone_and_the_scoreboard(
    client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff("home", "x0")
    match.take(1)
    match.post({"type": "card", "team": "away", "player": 4, "color": "yellow"})
    match.post({"type": "foul", "team": "away", "player": 4, "spot": {"x": 20, "y": 10}, "card": "yellow"})
    phone = text(get(client, f"/matches/{match.id}", "en"))
    items = re.findall(r'<li class="(tl [^"]*)"[^>]*>(.*?)</li>', timeline(phone), re.S)
    assert "Second yellow → sent off · Tsinghua 清华 #4 Dana Zhou" in items[0][1] and "tl-second" in items[0][0]
    assert "Yellow card · Tsinghua 清华 #4 Dana Zhou" in items[1][1]
    board = text(get(client, f"/matches/{match.id}/scoreboard", "en"))
    assert element(board, "away-second") == "#4 Second yellow → sent off"
    assert 'class="card red second" title="Second yellow → sent off"' in board
    zh = text(get(client, f"/matches/{match.id}", "zh"))
    assert "第二张黄牌 → 罚下" in timeline(zh)


@pytest.mark.parametrize("path", ["/matches/{id}", "/matches/{id}/scoreboard", "/matches/{id}/referee?token={token}"])
def test_m6_every_screen_says_provisional_then_final_once_the_referee_signed(
    client: FlaskClient, match: MatchDriver, path: str
) -> None:
    url = path.format(id=match.id, token=match.tokens["referee"])
    assert 'id="sheet" hidden' in text(get(client, url, "en"))  # during the match: nothing to say yet
    finished(match)
    html = text(get(client, url, "en"))
    assert element(html, "sheet") == "Provisional"
    match.post({"type": "sign", "as": "referee", "name": "Wang"})
    assert element(text(get(client, url, "en")), "sheet") == "Final · locked"
    assert element(text(get(client, url, "zh")), "sheet") == "最终 · 已锁定"


def test_m6_the_officials_page_offers_reopen_only_while_the_match_is_locked(client: FlaskClient, match: MatchDriver) -> None:
    finished(match)
    url = f"/matches/{match.id}/officials?token={ADMIN}"
    assert '<form id="reopen-form" hidden>' in text(get(client, url, "en"))
    match.post({"type": "sign", "as": "home_captain", "name": "李华"})
    match.post({"type": "sign", "as": "referee", "name": "Wang"})
    html = text(get(client, url, "en"))
    assert '<form id="reopen-form" >' in html
    assert element(html, "signatures") == "李华 (Home team captain), Wang (Referee)"
    assert page_data(html)["state"]["locked"] is True


def test_m2_pages_name_players_from_the_roster_as_it_is_now(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff("home", "x0")
    match.take(1)
    match.post({"type": "goal", "team": "home", "player": 3})
    match.post({"type": "roster", "team": "home", "add": {"number": 12, "name": "迟到 Late"}})
    match.post({"type": "roster", "team": "home", "player": 3, "number": 13, "name": "张伟伟"})
    html = text(get(client, f"/matches/{match.id}", "en"))
    roster = page_data(html)["roster"]["home"]
    assert roster["12"] == "迟到 Late" and roster["13"] == "张伟伟"
    assert roster["3"] == "张伟伟"  # the goal was logged as #3: his first number still names him
    assert "Goal · 人大 Renmin #3 张伟伟" in timeline(html)


def test_console_hands_its_script_the_match_days_rights_and_the_misconduct_codes(client: FlaskClient, match: MatchDriver) -> None:
    def data(role: str, lang: str) -> dict[str, object]:
        # What the script builds from the embedded catalogue (issue 23): the page carries no copy of it.
        return console_view(page_data(text(get(client, f"/matches/{match.id}/referee?token={match.tokens[role]}", lang))))

    referee, scorer, assistant = data("referee", "en"), data("scorer", "en"), data("assistant1", "zh")
    for d in (referee, scorer, assistant):  # the console's six match-day rights (the catalogue also says reopen's)
        d["matchday"] = {k: v for k, v in d["matchday"].items() if k != "reopen"}
    assert referee["matchday"] == {"roster": True, "amend": True, "insert": True, "note": True, "confirm": True, "sign": True}
    assert scorer["matchday"] == {"roster": True, "amend": False, "insert": False, "note": True, "confirm": False, "sign": False}
    assert assistant["matchday"] == {
        "roster": False,
        "amend": False,
        "insert": False,
        "note": True,
        "confirm": False,
        "sign": False,
    }
    codes = referee["codes"]
    assert isinstance(codes, list) and [c["code"] for c in codes] == [v.name for v in MISCONDUCT_CODES]
    assert {"code": "dissent", "label": "Dissent by word or action"} in codes
    zh_codes = assistant["codes"]
    assert isinstance(zh_codes, list)
    assert all(re.search(r"[\u4e00-\u9fff]", c["label"]) for c in zh_codes)
    # What each role may not do is not on its page at all.
    html = text(get(client, f"/matches/{match.id}/referee?token={match.tokens['assistant1']}", "en"))
    assert 'id="roster-editor"' not in html and 'id="sign-dialog"' not in html and 'id="confirm-prompt"' not in html
    assert 'id="note-dialog"' in html
