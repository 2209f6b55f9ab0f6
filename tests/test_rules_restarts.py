"""SPEC §3's call table, one story test per row, against the rule engine (issues 3 and 10).

Demo match, 40 × 25 m. After the toss home defends x0 and attacks towards xL; away defends xL.
Areas: within 3.5 m of the 1 m end-line segment y ∈ [12, 13]; penalty spots (4.5, 12.5) and
(35.5, 12.5); end-line restart spots (end, 8.0) low and (end, 17.0) high.
"""

from __future__ import annotations

from typing import Any

import pytest

from qalisball.rules.events import Attack, Catch, Event, Foul, Goal, Injury, RestartTaken, Steal, Violation
from qalisball.rules.field import Field
from tests.calls import live, restart
from tests.engine_driver import EngineMatch, demo_setup


@pytest.fixture
def match() -> EngineMatch:
    return EngineMatch()


def call(match: EngineMatch, kind: str, team: str, **fields: Any) -> dict[str, Any]:
    return match.post(Violation(kind, team, **fields))  # type: ignore[arg-type]


def test_8_2_10_5_ball_out_over_side_line_gives_side_line_ball_at_nearest_point(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_out_side", "home", player=2, spot=(12.3, 26.1))
    assert restart(s) == ("side_line", "away", 12.3, 25.0)
    assert s["ball"] == "dead" and s["possession"] == "away" and s["attacking"] is True


def test_8_2_10_4_ball_out_over_end_line_gives_end_line_ball_same_side(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_out_end", "home", spot=(40.8, 20.0))
    assert restart(s) == ("end_line", "away", 40.0, 17.0)


def test_D11_event_on_the_long_axis_uses_the_low_side(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_out_end", "home", spot=(41.0, 12.5))
    assert restart(s) == ("end_line", "away", 40.0, 8.0)


def test_8_3_10_7_ball_grounded_gives_free_kick_where_it_landed(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_grounded", "home", spot=(22.0, 5.0))
    assert restart(s) == ("free_kick", "away", 22.0, 5.0)


def test_10_8_free_kick_near_the_defending_area_moves_out_to_3m(match: EngineMatch) -> None:
    live(match, "away")  # away attacks x0, home defends it
    s = call(match, "ball_grounded", "away", spot=(35.0, 12.5))
    # The free kick is home's; the area that counts is away's (xL): 5 m from E = 1.5 m from its line.
    assert restart(s) == ("free_kick", "home", 33.5, 12.5)


def test_10_8_free_kick_near_the_kicking_teams_own_area_is_not_moved(match: EngineMatch) -> None:
    live(match, "home")
    s = call(match, "ball_grounded", "home", spot=(36.0, 12.5))
    assert restart(s) == ("free_kick", "away", 36.0, 12.5)


def test_8_3_D20_ball_grounded_inside_an_area_is_refused(match: EngineMatch) -> None:
    live(match)
    match.refused(Violation("ball_grounded", "home", spot=(38.0, 12.5)), "8.4")


def test_8_4_ball_in_area_gives_end_line_ball_at_that_end_same_side(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_in_area", "home", spot=(38.0, 14.0))
    assert restart(s) == ("end_line", "away", 40.0, 17.0)


def test_8_5_D9_player_in_his_own_area_gives_a_penalty(match: EngineMatch) -> None:
    live(match, "home")
    s = call(match, "player_in_area", "away", player=4, spot=(38.0, 12.0))
    assert restart(s) == ("penalty", "home", 35.5, 12.5)


def test_D9_own_area_penalty_even_when_his_team_had_the_ball(match: EngineMatch) -> None:
    live(match, "away")
    s = call(match, "player_in_area", "away", player=4, spot=(39.0, 13.0))
    assert restart(s) == ("penalty", "home", 35.5, 12.5)


def test_8_5_D1_player_in_the_opponents_area_gives_end_line_ball_to_the_areas_team(match: EngineMatch) -> None:
    live(match, "home")
    s = call(match, "player_in_area", "home", player=5, spot=(38.0, 10.0))
    assert restart(s) == ("end_line", "away", 40.0, 8.0)


def test_8_5_player_in_area_needs_a_spot_in_an_area(match: EngineMatch) -> None:
    live(match)
    match.refused(Violation("player_in_area", "home", spot=(20.0, 12.5)), "8.5")


def test_6_2_8_6_caught_violation_gives_free_kick_where_he_was_caught(match: EngineMatch) -> None:
    live(match)
    match.post(Catch("away", player=3, caught=2))
    s = call(match, "caught", "home", player=2, spot=(25.0, 20.0))
    assert restart(s) == ("free_kick", "away", 25.0, 20.0)


def test_8_7_restart_violation_gives_the_same_restart_to_the_other_team(match: EngineMatch) -> None:
    live(match)
    call(match, "ball_out_side", "home", spot=(12.0, -1.0))
    s = call(match, "restart", "away", player=1)
    assert restart(s) == ("side_line", "home", 12.0, 0.0)


def test_8_7_D16_restart_violation_straight_after_taking_it(match: EngineMatch) -> None:
    live(match)
    call(match, "ball_out_side", "home", spot=(12.0, -1.0))
    match.take()
    s = call(match, "restart", "away", player=1)
    assert restart(s) == ("side_line", "home", 12.0, 0.0) and s["ball"] == "dead"


def test_8_7_kickoff_violation_gives_the_kickoff_to_the_other_team(match: EngineMatch) -> None:
    match.kickoff("home")
    s = call(match, "restart", "home", player=1)
    assert restart(s) == ("kickoff", "away", 20.0, 12.5)


def test_8_7_only_the_restarting_team_commits_a_restart_violation(match: EngineMatch) -> None:
    match.kickoff("home")
    refusal = match.refused(Violation("restart", "away"), "8.7")
    assert "9.2" in refusal.message


def test_8_7_D2_penalty_violation_becomes_end_line_ball_for_the_defending_team(match: EngineMatch) -> None:
    live(match, "home")
    call(match, "player_in_area", "away", player=4, spot=(38.0, 12.0))
    s = call(match, "restart", "home", player=1, side="high")
    assert restart(s) == ("end_line", "away", 40.0, 17.0)


def test_D2_penalty_violation_side_defaults_to_low(match: EngineMatch) -> None:
    live(match, "home")
    call(match, "player_in_area", "away", player=4, spot=(38.0, 12.0))
    assert restart(call(match, "restart", "home")) == ("end_line", "away", 40.0, 8.0)


def test_8_7_free_kick_violation_gives_the_free_kick_to_the_other_team_with_the_3m_rule(match: EngineMatch) -> None:
    live(match, "away")
    call(match, "ball_grounded", "away", spot=(31.0, 12.5))  # home's free kick, 5.5 m from xL area
    s = call(match, "restart", "home")
    # Now away's free kick at the same spot; the area that counts is home's (x0), far away.
    assert restart(s) == ("free_kick", "away", 31.0, 12.5)


def test_8_1_no_violation_while_the_ball_is_dead(match: EngineMatch) -> None:
    match.kickoff()
    match.refused(Violation("ball_grounded", "home", spot=(10, 10)), "8.1")


def foul(match: EngineMatch, team: str, **fields: Any) -> dict[str, Any]:
    return match.post(Foul(team, **fields))  # type: ignore[arg-type]


def test_9_10_6_foul_on_an_attacking_player_in_the_field_free_kick_where_he_was(match: EngineMatch) -> None:
    live(match, "home")
    s = foul(match, "away", player=2, spot=(18.0, 7.0))
    assert restart(s) == ("free_kick", "home", 18.0, 7.0)


def test_10_4_foul_on_an_attacking_player_beyond_the_end_line_gives_end_line_ball(match: EngineMatch) -> None:
    live(match, "home")
    s = foul(match, "away", player=2, spot=(40.5, 3.0), where="beyond_end_line")
    assert restart(s) == ("end_line", "home", 40.0, 8.0)


def test_10_5_foul_on_an_attacking_player_beyond_a_side_line_gives_side_line_ball(match: EngineMatch) -> None:
    live(match, "home")
    s = foul(match, "away", player=2, spot=(30.0, -0.5), where="beyond_side_line")
    assert restart(s) == ("side_line", "home", 30.0, 0.0)


def test_10_7_attacking_foul_free_kick_where_the_ball_was_last_touched(match: EngineMatch) -> None:
    live(match, "home")
    s = foul(match, "home", player=3, spot=(14.0, 9.0))
    assert restart(s) == ("free_kick", "away", 14.0, 9.0)


def test_10_7_D18_attacking_foul_beyond_a_line_is_refused(match: EngineMatch) -> None:
    live(match, "home")
    match.refused(Foul("home", spot=(40.5, 3.0), where="beyond_end_line"), "10.7")


def test_10_4_foul_by_the_team_taking_an_end_line_ball_gives_it_to_the_opponents(match: EngineMatch) -> None:
    live(match, "home")
    call(match, "ball_out_end", "home", spot=(41.0, 20.0))  # away's end-line ball
    s = foul(match, "away", player=2, spot=(39.0, 17.5))
    assert restart(s) == ("end_line", "home", 40.0, 17.0)


def test_10_5_foul_on_an_official_during_a_side_line_ball_gives_it_to_the_offenders_opponents(match: EngineMatch) -> None:
    live(match, "home")
    call(match, "ball_out_side", "home", spot=(10.0, 26.0))  # away's side-line ball
    s = foul(match, "home", player=2, on_official=True)
    assert restart(s) == ("side_line", "away", 10.0, 25.0)  # home offended: away keeps it
    s = foul(match, "away", player=2, on_official=True)
    assert restart(s) == ("side_line", "home", 10.0, 25.0)


def test_9_2_defender_foul_at_a_pending_restart_leaves_it_with_the_same_team(match: EngineMatch) -> None:
    live(match, "home")
    foul(match, "away", player=2, spot=(18.0, 7.0))
    s = foul(match, "away", player=3, card="yellow")  # inside 2.5 m at the free kick
    assert restart(s) == ("free_kick", "home", 18.0, 7.0)
    assert s["teams"]["away"]["yellow"] == [3]


def test_D12_foul_by_the_team_about_to_take_a_free_kick_gives_it_to_the_other_team(match: EngineMatch) -> None:
    live(match, "home")
    foul(match, "away", player=2, spot=(18.0, 7.0))
    s = foul(match, "home", player=4)
    assert restart(s) == ("free_kick", "away", 18.0, 7.0)


def test_10_7_D18_on_official_during_play_is_a_free_kick_where_the_ball_was(match: EngineMatch) -> None:
    live(match, "home")
    s = foul(match, "away", player=2, spot=(18.0, 7.0), on_official=True)
    assert restart(s) == ("free_kick", "home", 18.0, 7.0)


def test_11_3_injury_during_play_free_kick_for_the_team_in_possession(match: EngineMatch) -> None:
    live(match, "home")
    s = match.post(Injury("away", 5, spot=(22.0, 10.0)))
    assert restart(s) == ("free_kick", "home", 22.0, 10.0)
    assert 5 not in s["teams"]["away"]["on_field"] and s["teams"]["away"]["short"] == 1


def test_10_4_no_direct_goal_from_an_end_line_ball(match: EngineMatch) -> None:
    live(match, "home")
    call(match, "ball_out_end", "away", spot=(41.0, 20.0))  # home's end-line ball at xL
    match.take()
    match.refused(Goal("home", player=1, direct=True), "10.4")
    s = match.post(Goal("home", player=1, direct=False))
    assert s["score"]["home"] == 1


@pytest.mark.parametrize(
    "setup_call",
    [
        Violation("ball_out_side", "away", spot=(30.0, 26.0)),  # side-line ball
        Foul("away", player=2, spot=(28.0, 12.5)),  # free kick
        Violation("player_in_area", "away", player=3, spot=(38.0, 12.5)),
    ],
    ids=["10_5_side_line_ball", "10_6_free_kick", "10_8_penalty"],
)
def test_restarts_that_may_score_directly(match: EngineMatch, setup_call: Event) -> None:
    live(match, "home")
    match.post(setup_call)
    match.take()
    assert match.post(Goal("home", player=1, direct=True))["score"]["home"] == 1


def test_5_2_a_goal_straight_from_the_kickoff_counts(match: EngineMatch) -> None:
    live(match, "home")
    assert match.post(Goal("home", player=1, direct=True))["score"]["home"] == 1


def test_10_8_penalty_taker_must_be_on_the_field(match: EngineMatch) -> None:
    live(match, "home")
    call(match, "player_in_area", "away", player=3, spot=(38.0, 12.5))
    match.refused(RestartTaken("home", player=8), "10.8")


def test_2_1_no_side_line_ball_on_a_field_without_side_lines() -> None:
    m = EngineMatch(demo_setup(field=Field(40, 45, False)))
    live(m, "home")
    m.refused(Violation("ball_out_side", "home", spot=(10.0, 46.0)), "2.1")
    m.refused(Foul("away", spot=(10.0, 46.0), where="beyond_side_line"), "2.1")


def test_6_2_D25_steal_gives_possession_not_yet_attacking_and_13_1_attack_marks_it(match: EngineMatch) -> None:
    live(match, "home")
    s = match.post(Steal("away", player=4))
    assert s["possession"] == "away" and s["attacking"] is False
    match.refused(Steal("away", player=4), "6.2")
    match.refused(Attack("home"), "13.1")
    s = match.post(Attack("away"))
    assert s["possession"] == "away" and s["attacking"] is True


def test_13_1_a_restart_gives_possession_in_attacking_state(match: EngineMatch) -> None:
    live(match, "home")
    match.post(Steal("away", player=4))
    s = call(match, "ball_grounded", "away", spot=(20.0, 20.0))
    assert s["possession"] == "home" and s["attacking"] is True


# -- Story tests the decisions promised (docs/decisions.toml; issue 21 found them missing) ---------------


def test_D4_a_block_that_puts_the_ball_out_or_down_gives_the_restart_to_the_shooting_team(match: EngineMatch) -> None:
    """D4: a block leaves the blocker as the last to touch the ball, so its call is the blocking team's
    ball out or ball grounded, and the shooting team restarts."""
    live(match, "home")  # home attacks and shoots; away blocks
    s = call(match, "ball_out_side", "away", spot=(30.0, -1.0))
    assert restart(s)[:2] == ("side_line", "home")
    match.take()
    s = call(match, "ball_grounded", "away", spot=(30.0, 6.0))
    assert restart(s) == ("free_kick", "home", 30.0, 6.0)


def test_D22_a_goals_scorer_may_be_left_out_but_a_named_scorer_is_on_the_scoring_teams_field(match: EngineMatch) -> None:
    """D22: assistants call goals and may not see the number; a scorer given must be on the field (7.1)."""
    live(match, "home")
    s = match.post(Goal("home"))
    assert s["score"]["home"] == 1
    match.take()  # away's kickoff
    match.refused(Goal("away", 9), "7.1")  # #9 is on away's bench
    assert match.post(Goal("away", 2))["score"]["away"] == 1
