"""API.md "Match day" (SPEC §9): the HTTP contract of late calls, roster changes, corrections, duplicates,
the score sheet and notes. The rules themselves are proved at the engine level in
tests/test_rules_match_day.py; these tests are about what goes over the wire.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import ADMIN, FakeClock, MatchDriver, auth

# The smallest valid PNG (1×1, transparent): what a signature pad saves.
PNG = (
    "data:image/png;base64,"
    + base64.b64encode(
        bytes.fromhex(
            "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
            "1f15c4890000000d49444154789c6300010000050001"
            "0d0a2db40000000049454e44ae426082"
        )
    ).decode()
)


@pytest.fixture
def match(client: FlaskClient, clock: FakeClock) -> MatchDriver:
    return MatchDriver(client, clock)


def live(match: MatchDriver) -> dict[str, Any]:
    match.kickoff("home", "x0")
    return match.take()


def raw(match: MatchDriver, body: Any, token: str, query: str = "") -> Any:
    return match.client.post(f"/api/matches/{match.id}/events{query}", json=body, headers=auth(token))


def finish(match: MatchDriver) -> None:
    live(match)
    match.post({"type": "goal", "team": "home", "player": 3})
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()


def test_M3_dry_run_answers_the_state_and_stores_nothing(match: MatchDriver) -> None:
    live(match)
    before, log = match.state(), match.events()
    r = raw(match, {"type": "goal", "team": "home", "player": 3}, match.tokens["assistant1"], "?dry_run=1")
    assert r.status_code == 200
    body = r.get_json()
    assert body["dry_run"] is True and body["state"]["score"] == {"home": 1, "away": 0}
    assert match.state()["seq"] == before["seq"] and match.events() == log
    # A refusal is answered as the real request would be.
    r = raw(match, {"type": "restart_taken", "team": "home"}, match.tokens["referee"], "?dry_run=1")
    assert r.status_code == 409 and r.get_json()["rule"] == "10.1"


def test_M3_amend_replaces_the_target_and_the_log_says_so(match: MatchDriver) -> None:
    live(match)
    goal = match.post({"type": "goal", "team": "home", "player": 3}, role="assistant1")["seq"]
    body = {
        "type": "amend",
        "target": goal,
        "event": {"type": "violation", "kind": "player_in_area", "team": "home", "player": 3, "spot": {"x": 38.5, "y": 12.5}},
        "reason": "disallowed: attacker in the area 进攻队员进入禁区",
    }
    answer = match.post(body)
    assert answer["state"]["score"] == {"home": 0, "away": 0} and answer["state"]["restart"]["team"] == "away"
    log = match.events()
    assert log[goal - 1]["voided_by"] == answer["seq"]
    entry = log[-1]
    assert entry["type"] == "amend" and entry["target"] == goal and entry["event"]["kind"] == "player_in_area"
    assert entry["reason"].startswith("disallowed")


def test_M3_refused_corrections_cite_D8_with_first_refused(match: MatchDriver) -> None:
    live(match)
    goal = match.post({"type": "goal", "team": "home", "player": 3})["seq"]
    taken = match.post({"type": "restart_taken", "team": "away"})["seq"]
    before = match.events()
    r = raw(match, {"type": "amend", "target": goal, "event": {"type": "attack", "team": "home"}}, match.tokens["referee"])
    assert r.status_code == 409
    assert r.get_json()["rule"] == "D8" and r.get_json()["first_refused"] == taken
    assert match.events() == before


def test_M3_corrections_name_missing_events_404_and_bad_events_400(match: MatchDriver) -> None:
    live(match)
    ref = match.tokens["referee"]
    r = raw(match, {"type": "amend", "target": 99, "event": {"type": "goal", "team": "home"}}, ref)
    assert r.status_code == 404
    r = raw(match, {"type": "insert", "after": 99, "event": {"type": "goal", "team": "home"}}, ref)
    assert r.status_code == 404
    r = raw(match, {"type": "amend", "target": 3, "event": {"type": "goal", "team": "nobody"}}, ref)
    assert r.status_code == 400 and "event.team" in r.get_json()["fields"]
    r = raw(match, {"type": "amend", "target": 3, "event": {"type": "sign", "as": "referee", "name": "x"}}, ref)
    assert r.status_code == 400 and "event.type" in r.get_json()["fields"]
    r = raw(match, {"type": "insert", "after": 3, "event": {"type": "goal", "team": "home", "player": 42}}, ref)
    assert r.status_code == 400  # no #42 on the roster, as for any event
    # Only the referee corrects.
    r = raw(match, {"type": "amend", "target": 3, "event": {"type": "goal", "team": "home"}}, match.tokens["assistant1"])
    assert r.status_code == 403


def test_M4_the_same_goal_from_a_second_official_is_answered_as_a_duplicate(match: MatchDriver) -> None:
    live(match)
    first = match.post({"type": "goal", "team": "home", "player": 3}, role="assistant1")
    r = raw(match, {"type": "goal", "team": "home"}, match.tokens["referee"])
    assert r.status_code == 200
    body = r.get_json()
    assert body["duplicate_of"] == first["seq"] and body["by"] == "assistant1"
    assert body["state"]["score"] == {"home": 1, "away": 0} and len(match.events()) == first["seq"]
    # Another team's goal is not the same call: the ball is dead, refused (7.1).
    assert raw(match, {"type": "goal", "team": "away"}, match.tokens["referee"]).status_code == 409
    # The same official twice is the same goal too (D230): see test_issue27_item4_M4_D230_...


def test_issue27_item4_M4_D230_a_second_tablet_of_the_same_role_gets_the_duplicate_not_7_1(
    match: MatchDriver, clock: FakeClock
) -> None:
    """Two referee tablets log the same goal: the second is answered ``200 duplicate_of`` (nothing stored)."""
    live(match)
    first = match.post({"type": "goal", "team": "home", "player": 3})
    clock.advance(2_000)
    for body in ({"type": "goal", "team": "home"}, {"type": "goal", "team": "home", "player": 3}):
        r = raw(match, body, match.tokens["referee"])
        assert r.status_code == 200, r.get_json()
        answer = r.get_json()
        assert answer["duplicate_of"] == first["seq"] and answer["by"] == "referee"
        assert answer["state"]["score"] == {"home": 1, "away": 0}
    assert len(match.events()) == first["seq"]
    # The same assistant's ball out twice (one tablet tapped twice) is one ball out too.
    match.take()
    out = {"type": "violation", "kind": "ball_out_side", "team": "home", "spot": {"x": 20, "y": -1}}
    seen = match.post(out, role="assistant1")
    r = raw(match, out, match.tokens["assistant1"])
    assert r.status_code == 200 and r.get_json()["duplicate_of"] == seen["seq"]
    # Another team's goal, or one 10 s of play later, is a new call: refused while the restart waits (7.1).
    assert raw(match, {"type": "goal", "team": "away"}, match.tokens["assistant1"]).status_code == 409
    clock.advance(10_001)
    r = raw(match, out, match.tokens["assistant1"])
    assert r.status_code == 409 and r.get_json()["rule"] != "M4"


def test_M4_D167_the_assistants_goal_2_s_after_the_referees_is_the_duplicate(match: MatchDriver, clock: FakeClock) -> None:
    """Issue 19.4: once the referee's goal has arrived, the assistant's consoles keep Goal offered (the
    officials' ``legal`` names the open call) and his goal is answered "already logged by" the referee."""
    live(match)
    first = match.post({"type": "goal", "team": "home", "player": 3})
    until = first["state"]["last_at_ms"] + 10_000
    assert first["state"]["legal"]["duplicates"] == [
        {"call": "goal", "type": "goal", "team": "home", "by": "referee", "seq": first["seq"], "until_ms": until}
    ]
    assert match.state()["legal"]["duplicates"][0]["seq"] == first["seq"]  # a console that (re)joins reads it too
    clock.advance(2_000)
    r = raw(match, {"type": "goal", "team": "home"}, match.tokens["assistant1"])
    assert r.status_code == 200 and r.get_json()["duplicate_of"] == first["seq"] and r.get_json()["by"] == "referee"
    assert len(match.events()) == first["seq"]


def test_M4_D167_a_pause_at_the_goal_keeps_the_assistants_goal_a_duplicate(match: MatchDriver, clock: FakeClock) -> None:
    live(match)
    first = match.post({"type": "goal", "team": "home", "player": 3})
    match.post({"type": "clock", "action": "pause"})
    clock.advance(45_000)  # game time stands while paused
    r = raw(match, {"type": "goal", "team": "home", "player": 3}, match.tokens["assistant2"])
    assert r.status_code == 200 and r.get_json()["duplicate_of"] == first["seq"]
    match.post({"type": "clock", "action": "resume"})
    clock.advance(10_001)  # 10 s of play after the goal: a goal now is a new call, refused while the kickoff waits
    r = raw(match, {"type": "goal", "team": "home"}, match.tokens["assistant2"])
    assert r.status_code == 409 and r.get_json()["rule"] == "7.1"


def test_D169_a_refusal_because_the_ball_is_dead_names_the_call_to_log_first(match: MatchDriver) -> None:
    live(match)
    match.post({"type": "goal", "team": "home", "player": 3})
    out = {"type": "violation", "kind": "ball_out_side", "team": "home", "spot": {"x": 20, "y": -1}}
    r = raw(match, out, match.tokens["assistant1"])
    assert r.status_code == 409 and r.get_json()["next_call"] == "restart_taken"


def test_M4_a_ball_out_seen_by_both_assistants(match: MatchDriver) -> None:
    live(match)
    out = {"type": "violation", "kind": "ball_out_side", "team": "home", "spot": {"x": 20, "y": -1}}
    first = match.post(out, role="assistant1")
    r = raw(match, {**out, "spot": {"x": 21, "y": -1}}, match.tokens["assistant2"])
    assert r.status_code == 200 and r.get_json()["duplicate_of"] == first["seq"]


def test_M1_at_ms_refusals_cite_M1(match: MatchDriver, clock: FakeClock) -> None:
    live(match)
    clock.advance(10_000)
    r = raw(match, {"type": "goal", "team": "home", "at_ms": 60_000}, match.tokens["assistant1"])
    assert r.status_code == 409 and r.get_json()["rule"] == "M1"
    r = raw(match, {"type": "goal", "team": "home", "at_ms": 9_000}, match.tokens["assistant1"])
    assert r.status_code == 201 and match.events()[-1]["at_ms"] == 9_000


def test_M1_M3_a_late_call_is_told_where_it_fits_in_its_half_even_after_corrections(match: MatchDriver, clock: FakeClock) -> None:
    """A call stamped before the last one logged is refused citing M1, with ``fits_after``: the seq of the
    last effective event of the half at or before its time (the engine's replay: an amended event in its
    place, with its time), after which the referee may insert it (M3)."""
    ref = match.tokens["referee"]
    live(match)  # restart taken at 0:00
    start = next(e["seq"] for e in match.events() if e["type"] == "period_start")
    clock.advance(60_000)
    match.post({"type": "clock", "action": "pause"}, role="scorer")  # at 1:00
    resume = match.post({"type": "clock", "action": "resume"}, role="scorer")["seq"]  # at 1:00 too
    clock.advance(30_000)
    match.post({"type": "clock", "action": "pause"}, role="scorer")  # at 1:30
    r = raw(match, {"type": "goal", "team": "home", "player": 3, "at_ms": 70_000}, match.tokens["assistant1"])
    assert r.status_code == 409 and r.get_json()["rule"] == "M1" and r.get_json()["fits_after"] == resume
    inserted = raw(
        match, {"type": "insert", "after": resume, "event": {"type": "goal", "team": "home", "player": 3, "at_ms": 70_000}}, ref
    )
    assert inserted.status_code == 201, inserted.get_json()
    assert match.state()["score"]["home"] == 1
    # A refusal for another reason (stamped later than the clock) says nothing of where it fits.
    r = raw(match, {"type": "goal", "team": "home", "at_ms": 999_000}, match.tokens["assistant1"])
    assert r.status_code == 409 and "fits_after" not in r.get_json()
    # In the next half the place is counted from that half's start, never the first half's events.
    match.post({"type": "clock", "action": "resume"}, role="scorer")
    match.run_out_half()
    second = match.post({"type": "period_start"})["seq"]
    match.take()
    clock.advance(20_000)
    match.post({"type": "clock", "action": "pause"}, role="scorer")
    r = raw(match, {"type": "goal", "team": "away", "player": 2, "at_ms": 0}, match.tokens["assistant1"])
    assert r.status_code == 409 and r.get_json()["fits_after"] in (second, second + 1)
    assert r.get_json()["fits_after"] > start


def test_M2_roster_answers(match: MatchDriver) -> None:
    ref, scorer = match.tokens["referee"], match.tokens["scorer"]
    r = raw(match, {"type": "roster", "team": "home", "add": {"number": 11, "name": "迟到 Late"}}, scorer)
    assert r.status_code == 201 and r.get_json()["state"]["teams"]["home"]["players"]["11"] == "迟到 Late"
    r = raw(match, {"type": "roster", "team": "home", "add": {"number": 11, "name": "Again"}}, ref)
    assert r.status_code == 409 and r.get_json()["rule"] == "M2"
    r = raw(match, {"type": "roster", "team": "home", "player": 42, "name": "Nobody"}, ref)
    assert r.status_code == 400  # not on the roster at all
    r = raw(match, {"type": "roster", "team": "home", "player": 3}, ref)
    assert r.status_code == 400  # nothing to change
    r = raw(match, {"type": "roster", "team": "home", "player": 3, "name": "   "}, ref)
    assert r.status_code == 400
    r = raw(match, {"type": "roster", "team": "home", "player": 3, "number": 30}, match.tokens["assistant1"])
    assert r.status_code == 403


def test_M6_the_sheet_over_the_wire(match: MatchDriver, client: FlaskClient) -> None:
    live(match)
    r = raw(match, {"type": "confirm", "period": 1}, match.tokens["referee"])
    assert r.status_code == 409 and r.get_json()["rule"] == "M6"
    match.post({"type": "goal", "team": "home", "player": 3})
    match.run_out_half()
    assert match.post({"type": "confirm", "period": 1})["state"]["confirmed"] == [1]
    assert raw(match, {"type": "confirm", "period": 3}, match.tokens["referee"]).status_code == 400
    match.post({"type": "period_start"})
    match.run_out_half()
    match.post({"type": "confirm", "period": 2})
    bad = raw(
        match,
        {"type": "sign", "as": "home_captain", "name": "李华", "signature": "data:image/png;base64,AAAA"},
        match.tokens["referee"],
    )
    assert bad.status_code == 400 and "signature" in bad.get_json()["fields"]
    match.post({"type": "sign", "as": "home_captain", "name": "李华", "signature": PNG})
    match.post({"type": "sign", "as": "away_captain", "name": "Alex Chen", "signature": PNG})
    s = match.post({"type": "sign", "as": "referee", "name": "Zhang 张", "signature": PNG})["state"]
    assert s["locked"] is True
    assert [(x["as"], x["name"]) for x in s["signatures"]] == [
        ("home_captain", "李华"),
        ("away_captain", "Alex Chen"),
        ("referee", "Zhang 张"),
    ]
    assert all("signature" not in x and x["at"].endswith("+00:00") for x in s["signatures"])  # the image only in the report
    r = raw(match, {"type": "note", "text": "late"}, match.tokens["scorer"])
    assert r.status_code == 409 and r.get_json()["rule"] == "M6"
    # Only the organiser reopens; the organiser token officiates nothing else.
    assert raw(match, {"type": "reopen", "reason": "x"}, match.tokens["referee"]).status_code == 403
    assert raw(match, {"type": "note", "text": "x"}, ADMIN).status_code == 403
    r = raw(match, {"type": "reopen", "reason": "the scorer's number was wrong"}, ADMIN)
    assert r.status_code == 201 and r.get_json()["state"]["locked"] is False and r.get_json()["state"]["signatures"] == []
    assert match.events()[-1]["by"] == "organiser"


def test_M6_D132_the_referee_cannot_undo_the_organisers_reopen(match: MatchDriver, client: FlaskClient) -> None:
    """Issue 19.1: the referee's void of the reopen answered 201 and locked the match again, old signatures and all."""
    live(match)
    match.post({"type": "goal", "team": "home", "player": 3})
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    match.post({"type": "confirm", "period": 2})
    match.post({"type": "sign", "as": "referee", "name": "Zhang 张", "signature": PNG})
    r = raw(match, {"type": "reopen", "reason": "the scorer's number was wrong"}, ADMIN)
    reopen = r.get_json()["seq"]
    sign = reopen - 1
    before = match.events()
    for target in (reopen, sign, reopen - 2):  # the reopen, the signature, the confirmation
        for body in (
            {"type": "void", "target": target, "reason": "undo"},
            {"type": "amend", "target": target, "event": {"type": "goal", "team": "home", "player": 3}},
        ):
            r = raw(match, body, match.tokens["referee"])
            assert r.status_code == 409 and r.get_json()["rule"] == "M6", (target, r.get_json())
    assert "organiser" in raw(match, {"type": "void", "target": reopen}, match.tokens["referee"]).get_json()["message"]
    zh = client.post(
        f"/api/matches/{match.id}/events?lang=zh",
        json={"type": "void", "target": reopen, "reason": "undo"},
        headers={"Authorization": f"Bearer {match.tokens['referee']}"},
    )
    assert zh.status_code == 409 and "组织者" in zh.get_json()["message"]
    assert match.events() == before
    state = client.get(f"/api/matches/{match.id}").get_json()
    assert state["locked"] is False and state["signatures"] == []


def test_M7_notes_and_card_reasons(match: MatchDriver) -> None:
    live(match)
    match.post({"type": "note", "text": "spectator on the field", "team": "away"}, role="assistant2")
    match.post({"type": "card", "team": "away", "player": 2, "color": "yellow", "reason": {"code": "dissent", "text": "argued"}})
    r = raw(
        match, {"type": "card", "team": "away", "player": 2, "color": "red", "reason": {"code": "rude"}}, match.tokens["referee"]
    )
    assert r.status_code == 400 and "reason" in r.get_json()["fields"]
    r = raw(match, {"type": "note", "text": "x" * 2001}, match.tokens["referee"])
    assert r.status_code == 400
    log = match.events()
    assert log[-1]["reason"] == {"code": "dissent", "text": "argued"} and log[-2]["by"] == "assistant2"


def test_M8_the_state_counts_fouls_and_shows_second_yellows(match: MatchDriver) -> None:
    match.kickoff("away", "x0")
    match.take()
    match.post({"type": "foul", "team": "home", "player": 4, "spot": {"x": 20, "y": 10}, "card": "yellow"})
    match.take()
    s = match.post({"type": "foul", "team": "home", "player": 4, "spot": {"x": 22, "y": 10}, "card": "yellow"})["state"]
    home = s["teams"]["home"]
    assert home["fouls"] == {"4": 2} and home["second_yellow"] == [4] and home["sent_off"] == [4]


def test_D35_a_note_in_between_does_not_hide_a_duplicate_goal(match: MatchDriver) -> None:
    live(match)
    first = match.post({"type": "goal", "team": "home", "player": 3}, role="assistant1")
    match.post({"type": "note", "text": "bottle hit the post first"}, role="assistant2")
    r = raw(match, {"type": "goal", "team": "home"}, match.tokens["referee"])
    assert r.status_code == 200 and r.get_json()["duplicate_of"] == first["seq"]


def test_M3_M8_the_phone_timeline_is_the_servers_with_corrections_in_place_and_second_yellows_marked(
    match: MatchDriver, client: FlaskClient
) -> None:
    live(match)
    goal = match.post({"type": "goal", "team": "home", "player": 3})["seq"]
    match.post({"type": "amend", "target": goal, "event": {"type": "goal", "team": "home", "player": 4}})
    match.post({"type": "card", "team": "away", "player": 2, "color": "yellow"})
    last = match.post({"type": "card", "team": "away", "player": 2, "color": "yellow"})["seq"]
    body = client.get(f"/matches/{match.id}/timeline.json").get_json()
    assert body["seq"] == last
    goals = [e for e in body["entries"] if e["type"] == "goal"]
    assert [(e["player"], e["seq"]) for e in goals] == [(4, goal + 1)]  # the amend, in the goal's place
    cards = [e for e in body["entries"] if e["type"] == "card"]
    assert [e.get("second_yellow", False) for e in cards] == [False, True]  # the engine's send-off (9.3)
