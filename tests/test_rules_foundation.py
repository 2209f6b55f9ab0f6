"""Story tests for the match's spine: toss, halves, clock, kickoffs, goals, result, voids (issue 2).

Demo match: 40 × 25 m, six starters a side, shirts 1–10. Each test names the rule it proves.
"""

from __future__ import annotations

from tests.conftest import FakeClock, MatchDriver

CENTRE = {"x": 20.0, "y": 12.5}


def test_5_1_no_half_before_the_coin_toss(match: MatchDriver) -> None:
    match.refused({"type": "period_start"}, "5.1")


def test_5_1_D24_coin_toss_records_kickoff_and_ends_once(match: MatchDriver) -> None:
    s = match.post({"type": "coin_toss", "kickoff": "away", "home_end": "xL"})["state"]
    assert s["phase"] == "scheduled" and s["kickoff_team"] == "away"
    assert s["ends"] == {"home": "xL", "away": "x0"}
    match.refused({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, "5.1")


def test_5_2_first_half_starts_with_a_kickoff_by_the_toss_winner(match: MatchDriver) -> None:
    s = match.kickoff("away", "x0")
    assert s["phase"] == "first_half" and s["period"] == 1
    assert s["ball"] == "dead" and s["possession"] == "away" and s["attacking"] is True
    assert s["restart"] == {"type": "kickoff", "team": "away", "spot": CENTRE}
    assert s["clock"] == {"running": True, "elapsed_ms": 0, "length_ms": 1_800_000}


def test_5_2_kickoff_taken_by_the_right_team_and_a_player_on_the_field(match: MatchDriver) -> None:
    match.kickoff("home")
    match.refused({"type": "restart_taken", "team": "away", "player": 1}, "5.2")
    match.refused({"type": "restart_taken", "team": "home", "player": 9}, "5.2")  # on the bench
    s = match.post({"type": "restart_taken", "team": "home", "player": 2})["state"]
    assert s["ball"] == "live" and s["restart"] is None and s["possession"] == "home"


def test_7_1_goal_only_while_the_ball_is_live(match: MatchDriver) -> None:
    match.kickoff()
    match.refused({"type": "goal", "team": "home", "player": 1}, "7.1")
    match.take()
    match.refused({"type": "goal", "team": "home", "player": 9}, "7.1")  # scorer not on the field


def test_5_3_after_a_goal_the_conceding_team_kicks_off(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff("home")
    match.take()
    s = match.post({"type": "goal", "team": "home", "player": 3})["state"]
    assert s["score"] == {"home": 1, "away": 0}
    assert s["ball"] == "dead" and s["restart"] == {"type": "kickoff", "team": "away", "spot": CENTRE}
    assert s["possession"] == "away"


def test_7_2_thirty_second_return_countdown_after_a_goal(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    match.take()
    assert match.post({"type": "goal", "team": "home"})["state"]["return_countdown_ms"] == 30_000
    clock.advance(12_000)
    assert match.state()["return_countdown_ms"] == 18_000
    clock.advance(18_000)
    assert match.state()["return_countdown_ms"] is None


def test_3_1_D26_clock_pause_resume_and_set(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    clock.advance(61_000)
    assert match.state()["clock"]["elapsed_ms"] == 61_000
    match.post({"type": "clock", "action": "pause"}, role="scorer")
    clock.advance(30_000)
    assert match.state()["clock"] == {"running": False, "elapsed_ms": 61_000, "length_ms": 1_800_000}
    match.refused({"type": "clock", "action": "pause"}, "3.1")
    match.post({"type": "clock", "action": "resume"})
    clock.advance(1_000)
    assert match.state()["clock"]["elapsed_ms"] == 62_000
    match.post({"type": "clock", "action": "set", "elapsed_ms": 600_000})
    clock.advance(500)
    assert match.state()["clock"]["elapsed_ms"] == 600_500


def test_3_1_half_ends_only_when_its_time_is_up(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    clock.advance(60_000)
    body = match.refused({"type": "period_end"}, "3.1")
    assert "29:00" in body["message"]


def test_10_2_D13_time_up_makes_the_ball_dead_with_no_restart(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    match.take()
    clock.advance(1_800_000)
    s = match.state()
    assert s["time_up"] and s["ball"] == "dead" and s["restart"] is None and s["possession"] is None
    assert s["clock"] == {"running": False, "elapsed_ms": 1_800_000, "length_ms": 1_800_000}
    match.refused({"type": "goal", "team": "home"}, "3.1")
    # Administrative events are still accepted: a card, a substitution (both teams freely, D13).
    match.post({"type": "card", "team": "away", "player": 2, "color": "yellow"})
    match.post({"type": "substitution", "team": "away", "out": 2, "in": 8}, role="scorer")
    # A clock set back by the referee restores play as it was.
    match.post({"type": "clock", "action": "set", "elapsed_ms": 1_790_000})
    assert match.state()["ball"] == "live"


def test_3_1_second_half_switches_ends_and_the_other_team_kicks_off(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff("home", "x0")
    s = match.run_out_half()
    assert s["phase"] == "halftime" and s["restart"] is None and s["possession"] is None
    assert s["clock"]["length_ms"] == 600_000  # half-time shown as a countdown
    clock.advance(1_000)
    assert match.state()["clock"]["elapsed_ms"] == 1_000
    s = match.post({"type": "period_start"})["state"]
    assert s["phase"] == "second_half" and s["period"] == 2
    assert s["ends"] == {"home": "xL", "away": "x0"}
    assert s["restart"]["team"] == "away" and s["restart"]["type"] == "kickoff"


def test_1_3_higher_score_wins_after_two_halves(match: MatchDriver) -> None:
    match.kickoff("home")
    match.take()
    match.post({"type": "goal", "team": "away", "player": 1})
    match.run_out_half()
    match.post({"type": "period_start"})
    s = match.run_out_half()
    assert s["phase"] == "finished" and s["winner"] == "away" and s["score"] == {"home": 0, "away": 1}
    match.refused({"type": "period_start"}, "3.1")


def test_3_2_level_after_two_halves_goes_to_the_shootout(match: MatchDriver) -> None:
    match.kickoff()
    match.run_out_half()
    match.post({"type": "period_start"})
    s = match.run_out_half()
    assert s["phase"] == "shootout" and s["winner"] is None and s["shootout"] is None


def test_4_2_abandon_from_any_phase_D27_then_nothing_more(match: MatchDriver) -> None:
    match.kickoff()
    s = match.post({"type": "abandon", "reason": "thunderstorm 雷雨"})["state"]
    assert s["phase"] == "abandoned" and s["abandon_reason"] == "thunderstorm 雷雨" and s["winner"] is None
    match.refused({"type": "period_end"}, "4.2")


def test_D8_void_replays_the_log_without_the_target(match: MatchDriver) -> None:
    match.kickoff()
    match.take()
    goal = match.post({"type": "goal", "team": "home", "player": 1})
    s = match.post({"type": "void", "target": goal["seq"], "reason": "player in area before the bottle lay flat"})["state"]
    assert s["score"] == {"home": 0, "away": 0} and s["ball"] == "live" and s["possession"] == "home"
    log = match.events()
    assert log[goal["seq"] - 1]["voided_by"] == goal["seq"] + 1
    # 7.2 note: the goal voided, the player-in-area violation is called.
    s = match.post({"type": "violation", "kind": "player_in_area", "team": "home", "player": 1, "spot": {"x": 38.5, "y": 12.0}})[
        "state"
    ]
    assert s["restart"]["type"] == "end_line" and s["restart"]["team"] == "away"


def test_D8_void_refused_when_a_later_event_depends_on_it(match: MatchDriver) -> None:
    match.kickoff()
    taken = match.post({"type": "restart_taken", "team": "home", "player": 1})
    goal = match.post({"type": "goal", "team": "home", "player": 1})
    body = match.refused({"type": "void", "target": taken["seq"]}, "7.1")
    assert f"event {goal['seq']}" in body["message"]
    v = match.post({"type": "void", "target": goal["seq"]})
    match.refused({"type": "void", "target": goal["seq"]}, "D8")  # already voided
    match.refused({"type": "void", "target": v["seq"]}, "D8")  # a void is not voided


def test_4_2_a_finished_match_can_still_be_abandoned_and_loses_its_result(match: MatchDriver) -> None:
    match.kickoff("home")
    match.take()
    match.post({"type": "goal", "team": "home", "player": 1})
    match.run_out_half()
    match.post({"type": "period_start"})
    assert match.run_out_half()["winner"] == "home"
    s = match.post({"type": "abandon", "reason": "protest upheld 申诉成立"})["state"]
    assert s["phase"] == "abandoned" and s["winner"] is None
