"""SPEC §4 (discipline) and §5 (substitutions, injuries), sentence by sentence, against the rule engine
(issues 4 and 10). Who may log a card or a substitution (the scorer) is the API's: tests/test_api.py.

Demo match: six starters (1–6) a side, bench 7–10. Home kicks off and defends x0.
"""

from __future__ import annotations

from typing import Any

import pytest

from qalisball.rules.common import Team, other_team
from qalisball.rules.events import Card, Foul, Goal, Injury, PeriodStart, RestartTaken, Substitution, Violation
from tests.calls import live
from tests.engine_driver import EngineMatch


@pytest.fixture
def match() -> EngineMatch:
    return EngineMatch()


def stoppage_for(match: EngineMatch, team: Team) -> dict[str, Any]:
    """A live ball stopped by the other team's ball-grounded violation: ``team`` has a free kick."""
    return match.post(Violation("ball_grounded", other_team(team), spot=(20.0, 5.0)))


def sub(match: EngineMatch, team: Team, out: int | None, inn: int) -> dict[str, Any]:
    return match.post(Substitution(team, out, inn))


# -- §4 Discipline -------------------------------------------------------------------------------


def test_9_3_yellow_card_is_recorded_and_changes_no_restart(match: EngineMatch) -> None:
    live(match)
    s = match.post(Card("away", 3, "yellow"))
    assert s["teams"]["away"]["yellow"] == [3] and s["ball"] == "live" and 3 in s["teams"]["away"]["on_field"]


def test_9_3_D28_second_yellow_is_a_red(match: EngineMatch) -> None:
    live(match)
    match.post(Card("away", 3, "yellow"))
    s = match.post(Card("away", 3, "yellow"))
    assert s["teams"]["away"]["sent_off"] == [3] and 3 not in s["teams"]["away"]["on_field"]


def test_9_3_cards_in_any_phase_even_before_the_match(match: EngineMatch) -> None:
    s = match.post(Card("home", 9, "yellow"))
    assert s["teams"]["home"]["yellow"] == [9]


def test_D5_red_card_sends_off_for_the_rest_of_the_match(match: EngineMatch) -> None:
    live(match)
    s = match.post(Foul("away", player=2, spot=(15, 8), card="red"))
    assert s["teams"]["away"]["sent_off"] == [2] and 2 not in s["teams"]["away"]["on_field"]
    assert s["restart"]["type"] == "free_kick" and s["restart"]["team"] == "home"
    match.refused(Card("away", 2, "yellow"), "D5")
    match.refused(Substitution("away", None, 2), "9.3")


def test_11_2_sent_off_players_team_may_replace_him_whatever_the_initiative(match: EngineMatch) -> None:
    live(match, "home")
    s = match.post(Foul("away", player=2, spot=(15, 8), card="red"))
    assert s["teams"]["away"]["replacements_due"] == 1 and len(s["teams"]["away"]["on_field"]) == 5
    # home has the restart (the initiative); away may still bring one player on for nobody.
    s = sub(match, "away", None, 7)
    assert len(s["teams"]["away"]["on_field"]) == 6 and s["teams"]["away"]["replacements_due"] == 0


def test_11_1_after_a_red_no_other_substitution_unless_the_restarting_team_has_substituted(match: EngineMatch) -> None:
    live(match, "home")
    match.post(Foul("away", player=2, spot=(15, 8), card="red"))
    refusal = match.refused(Substitution("away", 3, 8), "11.1")
    assert "after home has substituted" in refusal.message
    sub(match, "home", 1, 7)
    s = sub(match, "away", 3, 8)
    assert 8 in s["teams"]["away"]["on_field"]


def test_11_2_D15_replacement_lapses_once_play_restarts(match: EngineMatch) -> None:
    live(match, "home")
    match.post(Foul("away", player=2, spot=(15, 8), card="red"))
    match.take()
    assert match.state()["teams"]["away"]["replacements_due"] == 0
    # At the next stoppage away is short and restarts: it brings a player on by the initiative rule.
    match.post(Violation("ball_grounded", "home", spot=(25, 5)))
    s = sub(match, "away", None, 7)
    assert len(s["teams"]["away"]["on_field"]) == 6


def test_9_3_bench_players_red_gives_no_replacement(match: EngineMatch) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    s = match.post(Card("away", 9, "red"))
    assert s["teams"]["away"]["sent_off"] == [9] and s["teams"]["away"]["replacements_due"] == 0
    assert 9 not in s["teams"]["away"]["bench"]
    match.refused(Substitution("away", None, 7), "11.1")


# -- §5 Substitutions ----------------------------------------------------------------------------


def test_11_1_substitutions_only_while_the_ball_is_dead(match: EngineMatch) -> None:
    live(match)
    match.refused(Substitution("home", 1, 7), "11.1")
    assert match.state()["teams"]["home"]["may_substitute"] is False


def test_11_1_the_restarting_team_has_the_initiative(match: EngineMatch) -> None:
    live(match, "home")
    s = stoppage_for(match, "away")
    assert s["teams"]["away"]["may_substitute"] is True and s["teams"]["home"]["may_substitute"] is False
    refusal = match.refused(Substitution("home", 1, 7), "11.1")
    assert refusal.message.endswith("home may substitute after away has substituted at this stoppage")
    s = sub(match, "away", 1, 7)
    assert s["teams"]["home"]["may_substitute"] is True
    s = sub(match, "home", 1, 7)
    assert s["teams"]["home"]["on_field"][0] == 7


def test_11_2_both_teams_freely_after_a_goal(match: EngineMatch) -> None:
    live(match, "home")
    s = match.post(Goal("home", player=1))
    assert s["teams"]["home"]["may_substitute"] and s["teams"]["away"]["may_substitute"]
    sub(match, "home", 2, 8)  # the scoring team, without the kickoff, goes first


def test_11_2_both_teams_freely_before_the_kickoff_and_at_half_time(match: EngineMatch) -> None:
    s = match.kickoff("home")
    assert s["teams"]["away"]["may_substitute"]
    sub(match, "away", 1, 7)
    match.run_out_half()
    sub(match, "home", 1, 7)
    sub(match, "away", 7, 1)  # D6: a substituted player may come back


def test_11_3_no_substitution_at_an_injury_stoppage_during_live_play(match: EngineMatch) -> None:
    live(match, "home")
    s = match.post(Injury("away", 4, spot=(20, 10)))
    assert not s["teams"]["home"]["may_substitute"] and not s["teams"]["away"]["may_substitute"]
    assert s["teams"]["away"]["injured"] == [4] and 4 not in s["teams"]["away"]["on_field"]
    match.refused(Substitution("home", 1, 7), "11.3")
    match.refused(Substitution("away", None, 7), "11.3")


def test_11_3_D23_injured_team_plays_short_until_its_next_chance_to_substitute(match: EngineMatch) -> None:
    live(match, "home")
    match.post(Injury("away", 4, spot=(20, 10)))
    match.take()
    s = match.post(Violation("ball_grounded", "home", spot=(25, 5)))
    assert s["teams"]["away"]["short"] == 1
    s = sub(match, "away", None, 4)  # back on, for nobody (D6: the injured player may return)
    assert s["teams"]["away"]["short"] == 0 and s["teams"]["away"]["injured"] == []


def test_11_3_injury_while_the_ball_is_dead_follows_the_initiative(match: EngineMatch) -> None:
    live(match, "home")
    stoppage_for(match, "home")  # home has the free kick
    s = match.post(Injury("away", 4))
    assert 4 not in s["teams"]["away"]["on_field"] and s["restart"]["team"] == "home"
    match.refused(Substitution("away", None, 7), "11.1")
    sub(match, "home", 6, 9)
    sub(match, "away", None, 7)


def test_11_2_a_player_who_came_on_may_not_take_this_restart(match: EngineMatch) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    sub(match, "home", 1, 7)
    match.refused(RestartTaken("home", player=7), "11.2")
    match.post(RestartTaken("home", player=2))


def test_11_roster_checks(match: EngineMatch) -> None:
    match.kickoff("home")
    # Not on the roster: invalid, not a rule refusal (HTTP 400 naming the field: test_api's BAD_FIELDS).
    match.invalid(Substitution("home", 1, 42), "in")
    match.refused(Substitution("home", 1, 2), "11.1")  # on field
    match.refused(Substitution("home", 8, 7), "11.1")  # not on field
    match.refused(Substitution("home", None, 7), "11.1")  # 7th player


def test_D6_substitutions_are_unlimited_and_rolling(match: EngineMatch) -> None:
    match.kickoff("home")
    for _ in range(5):
        sub(match, "home", 1, 7)
        s = sub(match, "home", 7, 1)
    assert s["teams"]["home"]["on_field"] == [1, 2, 3, 4, 5, 6]


def test_11_no_substitutions_once_the_match_is_in_the_shootout(match: EngineMatch) -> None:
    match.kickoff()
    match.run_out_half()
    match.post(PeriodStart())
    match.run_out_half()
    match.refused(Substitution("home", 1, 7), "11.1")


def test_D15_no_replacement_while_the_ball_is_live(match: EngineMatch) -> None:
    live(match, "home")
    match.post(Card("away", 2, "red"))  # shown during play
    refusal = match.refused(Substitution("away", None, 7), "11.1")
    assert "ball is dead" in refusal.message
    stoppage_for(match, "home")  # the first dead ball: home restarts, away still replaces him
    sub(match, "away", None, 7)


def test_D15_a_replacement_by_the_restarting_team_counts_as_its_substitution(match: EngineMatch) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    match.post(Card("home", 2, "red"))
    sub(match, "home", None, 7)
    assert match.state()["teams"]["away"]["may_substitute"] is True


def test_D29_injury_after_time_up_and_D21_foul_with_card_after_time_up(match: EngineMatch) -> None:
    live(match, "home")
    s = match.state()
    match.advance(s["clock"]["length_ms"])
    s = match.post(Foul("away", player=3, card="yellow"))
    assert s["teams"]["away"]["yellow"] == [3] and s["restart"] is None and s["time_up"]
    match.refused(Foul("away", player=3, spot=(10, 10)), "9.1")
    s = match.post(Injury("home", 4))
    assert s["teams"]["home"]["injured"] == [4] and s["restart"] is None


def test_9_3_sent_off_player_takes_no_restart_and_the_message_says_who_may(match: EngineMatch) -> None:
    live(match, "home")
    stoppage_for(match, "home")
    match.post(Card("home", 1, "red"))
    refusal = match.refused(RestartTaken("home", player=1), "9.3")
    assert "on the field" in refusal.message
    refusal = match.refused(Substitution("home", 2, 1), "9.3")
    assert "#7" in refusal.message
