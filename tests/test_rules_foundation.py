"""Story tests for the match's spine: toss, halves, clock, kickoffs, goals, result, voids, against the
rule engine (issues 2 and 10). A void's bookkeeping in the stored log (``voided_by``) and the refusals
of voiding a void or voiding twice are the service's: tests/test_api.py.

Demo match: 40 × 25 m, six starters a side, shirts 1–10. Each test names the rule it proves.
"""

from __future__ import annotations

import pytest

from qalisball.rules.errors import RuleViolation
from qalisball.rules.events import (
    Abandon,
    Card,
    ClockChange,
    CoinToss,
    Goal,
    PeriodEnd,
    PeriodStart,
    RestartTaken,
    Substitution,
    Violation,
)
from tests.engine_driver import EngineMatch

CENTRE = {"x": 20.0, "y": 12.5}


@pytest.fixture
def match() -> EngineMatch:
    return EngineMatch()


def test_5_1_no_half_before_the_coin_toss(match: EngineMatch) -> None:
    match.refused(PeriodStart(), "5.1")


def test_5_1_D24_coin_toss_records_kickoff_and_ends_once(match: EngineMatch) -> None:
    s = match.post(CoinToss("away", "xL"))
    assert s["phase"] == "scheduled" and s["kickoff_team"] == "away"
    assert s["ends"] == {"home": "xL", "away": "x0"}
    match.refused(CoinToss("home", "x0"), "5.1")


def test_5_2_first_half_starts_with_a_kickoff_by_the_toss_winner(match: EngineMatch) -> None:
    s = match.kickoff("away", "x0")
    assert s["phase"] == "first_half" and s["period"] == 1
    assert s["ball"] == "dead" and s["possession"] == "away" and s["attacking"] is True
    assert {k: s["restart"][k] for k in ("type", "team", "spot")} == {"type": "kickoff", "team": "away", "spot": CENTRE}
    assert s["clock"] == {"running": True, "elapsed_ms": 0, "length_ms": 1_800_000}


def test_5_2_kickoff_taken_by_the_right_team_and_a_player_on_the_field(match: EngineMatch) -> None:
    match.kickoff("home")
    match.refused(RestartTaken("away", player=1), "5.2")
    match.refused(RestartTaken("home", player=9), "5.2")  # on the bench
    s = match.post(RestartTaken("home", player=2))
    assert s["ball"] == "live" and s["restart"] is None and s["possession"] == "home"


def test_7_1_goal_only_while_the_ball_is_live(match: EngineMatch) -> None:
    match.kickoff()
    match.refused(Goal("home", player=1), "7.1")
    match.take()
    match.refused(Goal("home", player=9), "7.1")  # scorer not on the field


def test_5_3_after_a_goal_the_conceding_team_kicks_off(match: EngineMatch) -> None:
    match.kickoff("home")
    match.take()
    s = match.post(Goal("home", player=3))
    assert s["score"] == {"home": 1, "away": 0}
    assert s["ball"] == "dead" and {k: s["restart"][k] for k in ("type", "team", "spot")} == {
        "type": "kickoff",
        "team": "away",
        "spot": CENTRE,
    }
    assert s["possession"] == "away"


def test_7_2_thirty_second_return_countdown_after_a_goal(match: EngineMatch) -> None:
    match.kickoff()
    match.take()
    assert match.post(Goal("home"))["return_countdown_ms"] == 30_000
    match.advance(12_000)
    assert match.state()["return_countdown_ms"] == 18_000
    match.advance(18_000)
    assert match.state()["return_countdown_ms"] is None


def test_3_1_D26_clock_pause_resume_and_set(match: EngineMatch) -> None:
    match.kickoff()
    match.advance(61_000)
    assert match.state()["clock"]["elapsed_ms"] == 61_000
    match.post(ClockChange("pause"))
    match.advance(30_000)
    assert match.state()["clock"] == {"running": False, "elapsed_ms": 61_000, "length_ms": 1_800_000}
    match.refused(ClockChange("pause"), "3.1")
    match.post(ClockChange("resume"))
    match.advance(1_000)
    assert match.state()["clock"]["elapsed_ms"] == 62_000
    match.post(ClockChange("set", elapsed_ms=600_000))
    match.advance(500)
    assert match.state()["clock"]["elapsed_ms"] == 600_500


def test_3_1_half_ends_only_when_its_time_is_up(match: EngineMatch) -> None:
    match.kickoff()
    match.advance(60_000)
    refusal = match.refused(PeriodEnd(), "3.1")
    assert "29:00" in refusal.message


def test_10_2_D13_time_up_makes_the_ball_dead_with_no_restart(match: EngineMatch) -> None:
    match.kickoff()
    match.take()
    match.advance(1_800_000)
    s = match.state()
    assert s["time_up"] and s["ball"] == "dead" and s["restart"] is None and s["possession"] is None
    assert s["clock"] == {"running": False, "elapsed_ms": 1_800_000, "length_ms": 1_800_000}
    match.refused(Goal("home"), "3.1")
    # Administrative events are still accepted: a card, a substitution (both teams freely, D13).
    match.post(Card("away", 2, "yellow"))
    match.post(Substitution("away", 2, 8))
    # A clock set back by the referee restores play as it was.
    match.post(ClockChange("set", elapsed_ms=1_790_000))
    assert match.state()["ball"] == "live"


def test_3_1_second_half_switches_ends_and_the_other_team_kicks_off(match: EngineMatch) -> None:
    match.kickoff("home", "x0")
    s = match.run_out_half()
    assert s["phase"] == "halftime" and s["restart"] is None and s["possession"] is None
    assert s["clock"]["length_ms"] == 600_000  # half-time shown as a countdown
    match.advance(1_000)
    assert match.state()["clock"]["elapsed_ms"] == 1_000
    s = match.post(PeriodStart())
    assert s["phase"] == "second_half" and s["period"] == 2
    assert s["ends"] == {"home": "xL", "away": "x0"}
    assert s["restart"]["team"] == "away" and s["restart"]["type"] == "kickoff"


def test_1_3_higher_score_wins_after_two_halves(match: EngineMatch) -> None:
    match.kickoff("home")
    match.take()
    match.post(Goal("away", player=1))
    match.run_out_half()
    match.post(PeriodStart())
    s = match.run_out_half()
    assert s["phase"] == "finished" and s["winner"] == "away" and s["score"] == {"home": 0, "away": 1}
    match.refused(PeriodStart(), "3.1")


def test_3_2_level_after_two_halves_goes_to_the_shootout(match: EngineMatch) -> None:
    match.kickoff()
    match.run_out_half()
    match.post(PeriodStart())
    s = match.run_out_half()
    assert s["phase"] == "shootout" and s["winner"] is None and s["shootout"] is None


def test_4_2_abandon_from_any_phase_D27_then_nothing_more(match: EngineMatch) -> None:
    match.kickoff()
    s = match.post(Abandon("thunderstorm 雷雨"))
    assert s["phase"] == "abandoned" and s["abandon_reason"] == "thunderstorm 雷雨" and s["winner"] is None
    match.refused(PeriodEnd(), "4.2")


def test_D8_void_replays_the_log_without_the_target(match: EngineMatch) -> None:
    match.kickoff()
    match.take()
    match.post(Goal("home", player=1))
    s = match.void(match.seq)  # player in area before the bottle lay flat
    assert s["score"] == {"home": 0, "away": 0} and s["ball"] == "live" and s["possession"] == "home"
    # 7.2 note: the goal voided, the player-in-area violation is called.
    s = match.post(Violation("player_in_area", "home", player=1, spot=(38.5, 12.0)))
    assert s["restart"]["type"] == "end_line" and s["restart"]["team"] == "away"


def test_D8_void_refused_when_a_later_event_depends_on_it(match: EngineMatch) -> None:
    match.kickoff()
    taken = match.post(RestartTaken("home", player=1))["seq"]
    goal = match.post(Goal("home", player=1))["seq"]
    refusal = match.void_refused(taken)
    # Without the kickoff taken the ball is dead: the goal (7.1) would be refused, and is named.
    cause = refusal.params["cause"]
    assert refusal.details["first_refused"] == goal and refusal.params["event_type"] == "goal"
    assert isinstance(cause, RuleViolation) and cause.rule == "7.1"
    match.void(goal)


def test_4_2_a_finished_match_can_still_be_abandoned_and_loses_its_result(match: EngineMatch) -> None:
    match.kickoff("home")
    match.take()
    match.post(Goal("home", player=1))
    match.run_out_half()
    match.post(PeriodStart())
    assert match.run_out_half()["winner"] == "home"
    s = match.post(Abandon("protest upheld 申诉成立"))
    assert s["phase"] == "abandoned" and s["winner"] is None
