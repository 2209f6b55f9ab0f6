"""SPEC §4 (discipline) and §5 (substitutions, injuries), sentence by sentence, through the API (issue 4).

Demo match: six starters (1–6) a side, bench 7–10. Home kicks off and defends x0.
"""

from __future__ import annotations

from typing import Any

from tests.calls import live, spot
from tests.conftest import MatchDriver


def stoppage_for(match: MatchDriver, team: str) -> dict[str, Any]:
    """A live ball stopped by the other team's ball-grounded violation: ``team`` has a free kick."""
    other = "away" if team == "home" else "home"
    return match.post({"type": "violation", "kind": "ball_grounded", "team": other, "spot": spot(20.0, 5.0)})["state"]


def sub(match: MatchDriver, team: str, out: int | None, inn: int) -> dict[str, Any]:
    return match.post({"type": "substitution", "team": team, "out": out, "in": inn}, role="scorer")["state"]


# -- §4 Discipline -------------------------------------------------------------------------------


def test_9_3_yellow_card_is_recorded_and_changes_no_restart(match: MatchDriver) -> None:
    live(match)
    s = match.post({"type": "card", "team": "away", "player": 3, "color": "yellow"})["state"]
    assert s["teams"]["away"]["yellow"] == [3] and s["ball"] == "live" and 3 in s["teams"]["away"]["on_field"]


def test_9_3_D28_second_yellow_is_a_red(match: MatchDriver) -> None:
    live(match)
    match.post({"type": "card", "team": "away", "player": 3, "color": "yellow"})
    s = match.post({"type": "card", "team": "away", "player": 3, "color": "yellow"})["state"]
    assert s["teams"]["away"]["sent_off"] == [3] and 3 not in s["teams"]["away"]["on_field"]


def test_9_3_cards_in_any_phase_even_before_the_match(match: MatchDriver) -> None:
    s = match.post({"type": "card", "team": "home", "player": 9, "color": "yellow"})["state"]
    assert s["teams"]["home"]["yellow"] == [9]


def test_D5_red_card_sends_off_for_the_rest_of_the_match(match: MatchDriver) -> None:
    live(match)
    s = match.post({"type": "foul", "team": "away", "player": 2, "spot": spot(15, 8), "card": "red"})["state"]
    assert s["teams"]["away"]["sent_off"] == [2] and 2 not in s["teams"]["away"]["on_field"]
    assert s["restart"]["type"] == "free_kick" and s["restart"]["team"] == "home"
    match.refused({"type": "card", "team": "away", "player": 2, "color": "yellow"}, "D5")
    match.refused({"type": "substitution", "team": "away", "out": None, "in": 2}, "9.3", role="scorer")


def test_11_2_sent_off_players_team_may_replace_him_whatever_the_initiative(match: MatchDriver) -> None:
    live(match, "home")
    s = match.post({"type": "foul", "team": "away", "player": 2, "spot": spot(15, 8), "card": "red"})["state"]
    assert s["teams"]["away"]["replacements_due"] == 1 and len(s["teams"]["away"]["on_field"]) == 5
    # home has the restart (the initiative); away may still bring one player on for nobody.
    s = sub(match, "away", None, 7)
    assert len(s["teams"]["away"]["on_field"]) == 6 and s["teams"]["away"]["replacements_due"] == 0


def test_11_1_after_a_red_no_other_substitution_unless_the_restarting_team_has_substituted(match: MatchDriver) -> None:
    live(match, "home")
    match.post({"type": "foul", "team": "away", "player": 2, "spot": spot(15, 8), "card": "red"})
    body = match.refused({"type": "substitution", "team": "away", "out": 3, "in": 8}, "11.1", role="scorer")
    assert "after home has substituted" in body["message"]
    sub(match, "home", 1, 7)
    s = sub(match, "away", 3, 8)
    assert 8 in s["teams"]["away"]["on_field"]


def test_11_2_D15_replacement_lapses_once_play_restarts(match: MatchDriver) -> None:
    live(match, "home")
    match.post({"type": "foul", "team": "away", "player": 2, "spot": spot(15, 8), "card": "red"})
    match.take()
    assert match.state()["teams"]["away"]["replacements_due"] == 0
    # At the next stoppage away is short and restarts: it brings a player on by the initiative rule.
    match.post({"type": "violation", "kind": "ball_grounded", "team": "home", "spot": spot(25, 5)})
    s = sub(match, "away", None, 7)
    assert len(s["teams"]["away"]["on_field"]) == 6


def test_9_3_bench_players_red_gives_no_replacement(match: MatchDriver) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    s = match.post({"type": "card", "team": "away", "player": 9, "color": "red"})["state"]
    assert s["teams"]["away"]["sent_off"] == [9] and s["teams"]["away"]["replacements_due"] == 0
    assert 9 not in s["teams"]["away"]["bench"]
    match.refused({"type": "substitution", "team": "away", "out": None, "in": 7}, "11.1", role="scorer")


# -- §5 Substitutions ----------------------------------------------------------------------------


def test_11_1_substitutions_only_while_the_ball_is_dead(match: MatchDriver) -> None:
    live(match)
    match.refused({"type": "substitution", "team": "home", "out": 1, "in": 7}, "11.1", role="scorer")
    assert match.state()["teams"]["home"]["may_substitute"] is False


def test_11_1_the_restarting_team_has_the_initiative(match: MatchDriver) -> None:
    live(match, "home")
    s = stoppage_for(match, "away")
    assert s["teams"]["away"]["may_substitute"] is True and s["teams"]["home"]["may_substitute"] is False
    body = match.refused({"type": "substitution", "team": "home", "out": 1, "in": 7}, "11.1", role="scorer")
    assert body["message"].endswith("home may substitute after away has substituted at this stoppage")
    s = sub(match, "away", 1, 7)
    assert s["teams"]["home"]["may_substitute"] is True
    s = sub(match, "home", 1, 7)
    assert s["teams"]["home"]["on_field"][0] == 7


def test_11_2_both_teams_freely_after_a_goal(match: MatchDriver) -> None:
    live(match, "home")
    s = match.post({"type": "goal", "team": "home", "player": 1})["state"]
    assert s["teams"]["home"]["may_substitute"] and s["teams"]["away"]["may_substitute"]
    sub(match, "home", 2, 8)  # the scoring team, without the kickoff, goes first


def test_11_2_both_teams_freely_before_the_kickoff_and_at_half_time(match: MatchDriver) -> None:
    s = match.kickoff("home")
    assert s["teams"]["away"]["may_substitute"]
    sub(match, "away", 1, 7)
    match.run_out_half()
    sub(match, "home", 1, 7)
    sub(match, "away", 7, 1)  # D6: a substituted player may come back


def test_11_3_no_substitution_at_an_injury_stoppage_during_live_play(match: MatchDriver) -> None:
    live(match, "home")
    s = match.post({"type": "injury", "team": "away", "player": 4, "spot": spot(20, 10)})["state"]
    assert not s["teams"]["home"]["may_substitute"] and not s["teams"]["away"]["may_substitute"]
    assert s["teams"]["away"]["injured"] == [4] and 4 not in s["teams"]["away"]["on_field"]
    match.refused({"type": "substitution", "team": "home", "out": 1, "in": 7}, "11.3", role="scorer")
    match.refused({"type": "substitution", "team": "away", "out": None, "in": 7}, "11.3", role="scorer")


def test_11_3_D23_injured_team_plays_short_until_its_next_chance_to_substitute(match: MatchDriver) -> None:
    live(match, "home")
    match.post({"type": "injury", "team": "away", "player": 4, "spot": spot(20, 10)})
    match.take()
    s = match.post({"type": "violation", "kind": "ball_grounded", "team": "home", "spot": spot(25, 5)})["state"]
    assert s["teams"]["away"]["short"] == 1
    s = sub(match, "away", None, 4)  # back on, for nobody (D6: the injured player may return)
    assert s["teams"]["away"]["short"] == 0 and s["teams"]["away"]["injured"] == []


def test_11_3_injury_while_the_ball_is_dead_follows_the_initiative(match: MatchDriver) -> None:
    live(match, "home")
    stoppage_for(match, "home")  # home has the free kick
    s = match.post({"type": "injury", "team": "away", "player": 4})["state"]
    assert 4 not in s["teams"]["away"]["on_field"] and s["restart"]["team"] == "home"
    match.refused({"type": "substitution", "team": "away", "out": None, "in": 7}, "11.1", role="scorer")
    sub(match, "home", 6, 9)
    sub(match, "away", None, 7)


def test_11_2_a_player_who_came_on_may_not_take_this_restart(match: MatchDriver) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    sub(match, "home", 1, 7)
    match.refused({"type": "restart_taken", "team": "home", "player": 7}, "11.2")
    match.post({"type": "restart_taken", "team": "home", "player": 2})


def test_11_roster_checks(match: MatchDriver) -> None:
    match.kickoff("home")
    bad = match.post({"type": "substitution", "team": "home", "out": 1, "in": 42}, role="scorer", expect=400)
    assert bad["error"] == "invalid" and "in" in bad["fields"]
    match.refused({"type": "substitution", "team": "home", "out": 1, "in": 2}, "11.1", role="scorer")  # on field
    match.refused({"type": "substitution", "team": "home", "out": 8, "in": 7}, "11.1", role="scorer")  # not on field
    match.refused({"type": "substitution", "team": "home", "out": None, "in": 7}, "11.1", role="scorer")  # 7th player


def test_D6_substitutions_are_unlimited_and_rolling(match: MatchDriver) -> None:
    match.kickoff("home")
    for _ in range(5):
        sub(match, "home", 1, 7)
        s = sub(match, "home", 7, 1)
    assert s["teams"]["home"]["on_field"] == [1, 2, 3, 4, 5, 6]


def test_11_no_substitutions_once_the_match_is_in_the_shootout(match: MatchDriver) -> None:
    match.kickoff()
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    match.refused({"type": "substitution", "team": "home", "out": 1, "in": 7}, "11.1", role="scorer")


def test_D15_no_replacement_while_the_ball_is_live(match: MatchDriver) -> None:
    live(match, "home")
    match.post({"type": "card", "team": "away", "player": 2, "color": "red"})  # shown during play
    body = match.refused({"type": "substitution", "team": "away", "out": None, "in": 7}, "11.1", role="scorer")
    assert "ball is dead" in body["message"]
    stoppage_for(match, "home")  # the first dead ball: home restarts, away still replaces him
    sub(match, "away", None, 7)


def test_D15_a_replacement_by_the_restarting_team_counts_as_its_substitution(match: MatchDriver) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    match.post({"type": "card", "team": "home", "player": 2, "color": "red"})
    sub(match, "home", None, 7)
    assert match.state()["teams"]["away"]["may_substitute"] is True


def test_D29_injury_after_time_up_and_D21_foul_with_card_after_time_up(match: MatchDriver) -> None:
    live(match, "home")
    s = match.state()
    match.clock.advance(s["clock"]["length_ms"])
    s = match.post({"type": "foul", "team": "away", "player": 3, "card": "yellow"})["state"]
    assert s["teams"]["away"]["yellow"] == [3] and s["restart"] is None and s["time_up"]
    match.refused({"type": "foul", "team": "away", "player": 3, "spot": spot(10, 10)}, "9.1")
    s = match.post({"type": "injury", "team": "home", "player": 4})["state"]
    assert s["teams"]["home"]["injured"] == [4] and s["restart"] is None


def test_9_3_sent_off_player_takes_no_restart_and_the_message_says_who_may(match: MatchDriver) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    match.post({"type": "card", "team": "home", "player": 1, "color": "red"})
    body = match.refused({"type": "restart_taken", "team": "home", "player": 1}, "9.3")
    assert "on the field" in body["message"]
    body = match.refused({"type": "substitution", "team": "home", "out": 2, "in": 1}, "9.3", role="scorer")
    assert "#7" in body["message"]
