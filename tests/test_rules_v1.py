"""Rule set 1.0 beside 2.0 (SPEC §11, issue 22), paragraph by paragraph and decision by decision,
against the rule engine. Each test is named after the 1.0 paragraph (V1-1 … V1-9) or decision
(V1-D1 … V1-D17) it proves; where 2.0 does something else, the same call is played in a 2.0 match too.

Demo match, 40 × 25 m, played under 1.0. Home kicks off and defends x0. Areas: within 3.5 m of the
1 m end-line segment y ∈ [12, 13]; penalty spots (4.5, 12.5) and (35.5, 12.5); corners (0, 0), (0, 25),
(40, 0), (40, 25); short-corner spots (0, 8), (0, 17), (40, 8), (40, 17) (SPEC §11.6).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from qalisball.rules import v1
from qalisball.rules.events import (
    Attack,
    Card,
    Catch,
    ClockChange,
    Foul,
    Goal,
    Injury,
    PeriodEnd,
    PeriodStart,
    RestartTaken,
    ShootoutKick,
    ShootoutStart,
    Substitution,
    Violation,
)
from qalisball.rules.legal import legal_calls
from qalisball.rules.state import RuleSet
from tests.calls import live, restart
from tests.engine_driver import EngineMatch, demo_setup

V1_0 = RuleSet(rule_set="1.0")


@pytest.fixture
def match() -> EngineMatch:
    return EngineMatch(demo_setup(rules=V1_0))


@pytest.fixture
def match_2_0() -> EngineMatch:
    return EngineMatch()


def call(match: EngineMatch, kind: str, team: str, **fields: Any) -> dict[str, Any]:
    return match.post(Violation(kind, team, **fields))  # type: ignore[arg-type]


def why(state: dict[str, Any]) -> str:
    return str(state["restart"]["why"]["rule"])


# -- §11.2 choosing the rule set ------------------------------------------------------------------


def test_V1_11_2_the_public_state_names_the_rule_set(match: EngineMatch, match_2_0: EngineMatch) -> None:
    assert match.state()["rule_set"] == "1.0"
    assert match_2_0.state()["rule_set"] == "2.0"
    assert RuleSet().rule_set == "2.0"  # a match stored without one is 2.0 (setup.py reads it so)


# -- V1-3 kickoff, V1-4 scoring -------------------------------------------------------------------


def test_V1_3_a_goal_straight_from_the_kickoff_is_refused_and_play_goes_on(match: EngineMatch) -> None:
    live(match)  # home's kickoff taken
    refusal = match.refused(Goal("home", 1, direct=True), "V1-3")
    assert "pass" in refusal.message
    s = match.state()
    assert s["ball"] == "live" and s["score"] == {"home": 0, "away": 0}


def test_V1_3_a_goal_after_the_kickoff_not_marked_direct_counts(match: EngineMatch) -> None:
    live(match)
    s = match.post(Goal("home", 1))
    assert s["score"]["home"] == 1


def test_5_2_a_2_0_kickoff_may_still_be_shot_straight_at_the_bottle(match_2_0: EngineMatch) -> None:
    live(match_2_0)
    assert match_2_0.post(Goal("home", 1, direct=True))["score"]["home"] == 1


def test_V1_3_V1_4_after_a_goal_the_conceding_team_kicks_off_with_no_30_second_return(match: EngineMatch) -> None:
    live(match)
    s = match.post(Goal("home", 2))
    assert restart(s) == ("kickoff", "away", 20.0, 12.5)
    assert s["return_countdown_ms"] is None  # 2.0 counts 30 s down here (7.2)
    assert why(s) == "V1-D1"  # 2.0 cites 5.3 (SPEC §11.12)


# -- V1-6 dead ball and set pieces ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spot", "corner"),
    [((40.8, 3.0), (40.0, 0.0)), ((41.0, 20.0), (40.0, 25.0)), ((-0.5, 12.5), (0.0, 0.0)), ((-1.0, 24.0), (0.0, 25.0))],
)
def test_V1_6_V1_D4_ball_out_over_an_end_line_gives_a_corner_at_that_ends_field_corner(
    match: EngineMatch, spot: tuple[float, float], corner: tuple[float, float]
) -> None:
    live(match)
    s = call(match, "ball_out_end", "home", spot=spot)
    assert restart(s) == ("corner", "away", *corner)
    assert s["restart_end"] == ("xL" if spot[0] > 20 else "x0")
    assert why(s) == "V1-6"


def test_V1_6_V1_D5_ball_landing_in_an_area_gives_a_short_corner_on_its_side(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_in_area", "home", spot=(38.0, 13.0))
    assert restart(s) == ("short_corner", "away", 40.0, 17.0)
    assert s["restart_end"] == "xL"


def test_V1_6_2_0_gives_an_end_line_ball_for_the_same_calls(match_2_0: EngineMatch) -> None:
    live(match_2_0)
    assert restart(call(match_2_0, "ball_out_end", "home", spot=(40.8, 3.0)))[0] == "end_line"


def test_V1_6_a_goal_straight_from_a_corner_or_a_short_corner_counts(match: EngineMatch) -> None:
    live(match)
    call(match, "ball_out_end", "home", spot=(40.8, 3.0))  # away's corner
    match.take()
    assert match.post(Goal("away", 1, direct=True))["score"]["away"] == 1
    match.take()  # home's kickoff
    call(match, "ball_in_area", "home", spot=(38.0, 13.0))  # away's short corner
    match.take()
    assert match.post(Goal("away", 1, direct=True))["score"]["away"] == 2


def test_V1_6_ball_grounded_in_an_area_is_refused_citing_V1_6(match: EngineMatch) -> None:
    live(match)
    match.refused(Violation("ball_grounded", "home", spot=(38.0, 12.5)), "V1-6")


def test_V1_6_ball_out_over_a_side_line_is_a_side_line_set_piece_at_the_nearest_point(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_out_side", "home", spot=(12.3, 26.1))
    assert restart(s) == ("side_line", "away", 12.3, 25.0)
    assert why(s) == "V1-6"


def test_V1_6_V1_D7_a_free_kick_retreats_2m_from_the_area_line(match: EngineMatch) -> None:
    live(match, "away")  # away attacks x0
    # The free kick is home's, 1.5 m from away's area line (xL): it moves out to 2 m (2.0: 3 m, 33.5).
    s = call(match, "ball_grounded", "away", spot=(35.0, 12.5))
    assert restart(s) == ("free_kick", "home", 34.5, 12.5)
    assert s["restart"]["origin"] == {"x": 35.0, "y": 12.5}


def test_V1_D7_the_retreat_is_from_either_area_the_kicking_teams_own_too(match: EngineMatch, match_2_0: EngineMatch) -> None:
    live(match)  # home attacks xL; away defends xL
    # Away's free kick near away's own area: 2.0 never moves it (10.8), 1.0 does (V1-D7).
    s = call(match, "ball_grounded", "home", spot=(36.0, 12.5))
    assert restart(s) == ("free_kick", "away", 34.5, 12.5)
    live(match_2_0)
    assert restart(call(match_2_0, "ball_grounded", "home", spot=(36.0, 12.5))) == ("free_kick", "away", 36.0, 12.5)


def test_V1_6_exactly_2m_from_the_area_line_does_not_move(match: EngineMatch) -> None:
    live(match)
    s = call(match, "ball_grounded", "home", spot=(34.5, 12.5))
    assert restart(s) == ("free_kick", "away", 34.5, 12.5) and s["restart"]["origin"] is None


def test_V1_6_only_the_team_given_the_set_piece_takes_it(match: EngineMatch) -> None:
    match.kickoff("home")
    match.refused(RestartTaken("away", 1), "V1-3")  # the kickoff
    match.take()
    call(match, "ball_out_end", "home", spot=(40.8, 3.0))
    match.refused(RestartTaken("home", 1), "V1-6")  # away's corner


# -- V1-5 the restricted area ----------------------------------------------------------------------


def test_V1_5_entering_ones_own_area_gives_a_penalty_whoever_had_the_ball(match: EngineMatch) -> None:
    live(match)  # home has the ball and defends x0
    s = call(match, "player_in_area", "home", player=3, spot=(2.0, 12.5))
    assert restart(s) == ("penalty", "away", 4.5, 12.5)
    assert s["restart_end"] == "x0" and why(s) == "V1-5"


def test_V1_5_V1_D6_entering_the_opponents_area_gives_them_a_short_corner(match: EngineMatch) -> None:
    live(match)  # home has the ball, away defends xL
    s = call(match, "player_in_area", "home", player=3, spot=(38.0, 10.0))
    assert restart(s) == ("short_corner", "away", 40.0, 8.0)
    assert why(s) == "V1-D6"  # 2.0 cites D1 and gives an end-line ball


def test_V1_5_a_player_in_area_call_outside_every_area_is_refused(match: EngineMatch) -> None:
    live(match)
    match.refused(Violation("player_in_area", "home", 3, (20.0, 12.5)), "V1-5")


# -- V1-7 carrying and stopping -------------------------------------------------------------------


def test_V1_7_a_touched_carrier_over_2_steps_gives_a_free_kick_where_he_was_touched(
    match: EngineMatch, match_2_0: EngineMatch
) -> None:
    live(match)  # home carries towards xL
    s = call(match, "caught", "home", player=4, spot=(6.0, 12.5))
    # 2.5 m from home's own area line: 1.0's 2 m keeps it; 2.0's 3 m rule moves it to 6.5.
    assert restart(s) == ("free_kick", "away", 6.0, 12.5) and why(s) == "V1-7"
    live(match_2_0)
    assert restart(call(match_2_0, "caught", "home", player=4, spot=(6.0, 12.5))) == ("free_kick", "away", 6.5, 12.5)


# -- V1-D8 set-piece breaches ---------------------------------------------------------------------


def test_V1_D8_a_breach_gives_the_other_team_the_same_set_piece_at_the_same_spot(match: EngineMatch) -> None:
    live(match)
    call(match, "ball_out_end", "home", spot=(40.8, 3.0))  # away's corner
    s = call(match, "restart", "away")
    assert restart(s) == ("corner", "home", 40.0, 0.0) and why(s) == "V1-D8"


def test_V1_D8_a_penalty_breach_becomes_a_short_corner_for_the_defending_team(match: EngineMatch) -> None:
    live(match)
    call(match, "player_in_area", "home", player=3, spot=(2.0, 12.5))  # away's penalty at x0
    s = call(match, "restart", "away", side="high")
    assert restart(s) == ("short_corner", "home", 0.0, 17.0) and why(s) == "V1-D8"


def test_V1_D8_a_breach_named_against_the_other_team_is_refused(match: EngineMatch) -> None:
    live(match)
    call(match, "ball_out_end", "home", spot=(40.8, 3.0))  # away's corner
    refusal = match.refused(Violation("restart", "home"), "V1-D8")
    assert "2 m" in refusal.message


def test_V1_D8_a_foul_by_the_restarting_team_at_its_pending_set_piece(match: EngineMatch) -> None:
    live(match)
    call(match, "ball_out_side", "home", spot=(12.3, 26.1))  # away's side-line set piece
    s = match.post(Foul("away", 2, (12.0, 24.0)))
    assert restart(s) == ("side_line", "home", 12.3, 25.0) and why(s) == "V1-D8"  # 2.0 cites 10.5


def test_V1_6_a_foul_by_the_other_team_at_a_pending_set_piece_leaves_it(match: EngineMatch) -> None:
    live(match)
    call(match, "ball_out_side", "home", spot=(12.3, 26.1))
    s = match.post(Foul("home", 2, (12.0, 24.0)))
    assert restart(s) == ("side_line", "away", 12.3, 25.0)


# -- V1-8 fouls, V1-D9, V1-D10 ----------------------------------------------------------------------


def test_V1_D9_a_foul_by_the_team_with_the_ball_beyond_the_end_line_gives_a_corner(
    match: EngineMatch, match_2_0: EngineMatch
) -> None:
    live(match)  # home has the ball
    s = match.post(Foul("home", 2, (40.5, 20.0), where="beyond_end_line"))
    assert restart(s) == ("corner", "away", 40.0, 25.0)
    live(match_2_0)  # 2.0 restarts where the ball was last touched (D18)
    match_2_0.refused(Foul("home", 2, (40.5, 20.0), where="beyond_end_line"), "10.7")


def test_V1_D9_a_foul_in_the_field_gives_a_free_kick_at_its_spot_with_the_2m_rule(match: EngineMatch) -> None:
    live(match)
    s = match.post(Foul("away", 2, (5.0, 12.5)))
    assert restart(s) == ("free_kick", "home", 5.5, 12.5)  # 1.5 m from home's own area line: moved to 2 m


def test_V1_D10_no_cards_in_a_1_0_match(match: EngineMatch) -> None:
    live(match)
    match.refused(Card("away", 3, "yellow"), "V1-D10")
    match.refused(Card("away", 3, "red"), "V1-D10")
    match.refused(Foul("away", 3, (20.0, 5.0), card="yellow"), "V1-D10")
    s = match.state()
    assert s["teams"]["away"]["yellow"] == [] and s["teams"]["away"]["sent_off"] == []


def test_V1_D10_no_cards_before_the_match_nor_after_it_either(match: EngineMatch) -> None:
    match.refused(Card("away", 3, "red"), "V1-D10")


def test_V1_8_a_foul_with_no_play_to_restart_is_refused(match: EngineMatch) -> None:
    refusal = match.refused(Foul("away", 3, (20.0, 5.0)), "V1-8")
    assert "card" not in refusal.message


# -- V1-D11 substitutions, V1-D12 injury ------------------------------------------------------------


def test_V1_D11_either_team_substitutes_at_any_dead_ball_and_the_incoming_player_may_take_the_restart(
    match: EngineMatch, match_2_0: EngineMatch
) -> None:
    live(match)
    call(match, "ball_out_side", "home", spot=(12.3, 26.1))  # away's set piece
    s = match.post(Substitution("home", 1, 7))  # the team without the restart first (2.0: refused, 11.1)
    assert s["teams"]["home"]["may_substitute"] and s["teams"]["away"]["may_substitute"]
    match.post(Substitution("away", 1, 7))
    assert match.post(RestartTaken("away", 7))["ball"] == "live"  # 2.0: refused, 11.2
    live(match_2_0)
    call(match_2_0, "ball_out_side", "home", spot=(12.3, 26.1))
    match_2_0.refused(Substitution("home", 1, 7), "11.1")


def test_V1_D11_no_substitution_while_the_ball_is_live(match: EngineMatch) -> None:
    live(match)
    match.refused(Substitution("home", 1, 7), "V1-D11")
    assert match.state()["teams"]["home"]["may_substitute"] is False


def test_V1_2_the_roster_checks_of_a_substitution_cite_V1_2(match: EngineMatch) -> None:
    match.refused(Substitution("home", 8, 9), "V1-2")  # #8 is on the bench, not on the field
    match.refused(Substitution("home", 1, 2), "V1-2")  # #2 is already on the field


def test_V1_D12_injury_during_play_a_free_kick_for_the_team_with_the_ball_and_substitutions_allowed(
    match: EngineMatch,
) -> None:
    live(match)  # home has the ball
    s = match.post(Injury("away", 3, (20.0, 10.0)))
    assert restart(s) == ("free_kick", "home", 20.0, 10.0) and why(s) == "V1-D12"
    assert s["teams"]["home"]["may_substitute"] and s["teams"]["away"]["may_substitute"]
    s = match.post(Substitution("away", None, 7))  # the injured player's team brings one on (2.0: refused, 11.3)
    assert s["teams"]["away"]["on_field"] == [1, 2, 4, 5, 6, 7]


# -- V1-D13 the penalty taker ------------------------------------------------------------------------


def test_V1_D13_a_penalty_taker_need_not_be_named_but_a_named_one_is_on_the_field(match: EngineMatch) -> None:
    live(match)
    s = call(match, "player_in_area", "home", player=3, spot=(2.0, 12.5))  # away's penalty
    assert s["legal"]["taker_required"] is False
    match.refused(RestartTaken("away", 9), "V1-5")  # #9 is on the bench
    assert match.post(RestartTaken("away"))["ball"] == "live"


# -- V1-9 mixed matches (V1-D14) ------------------------------------------------------------------


def mixed() -> EngineMatch:
    """Home's #1 is a man, away's #1 a woman (``女``), away's #2 a man; nobody else has a gender."""

    setup = demo_setup(rules=V1_0)

    def gendered(team: Any, genders: dict[int, str]) -> Any:
        players = tuple(dataclasses.replace(p, gender=genders.get(p.number)) for p in team.players)
        return dataclasses.replace(team, players=players)

    home = gendered(setup.home, {1: "M"})
    away = gendered(setup.away, {1: "女", 2: "male"})
    return EngineMatch(dataclasses.replace(setup, home=home, away=away))


def test_V1_9_a_male_player_may_not_catch_a_female_player() -> None:
    match = mixed()
    live(match, "away")  # away has the ball
    match.refused(Catch("home", 1, 1), "V1-9")


def test_V1_9_a_female_catcher_and_players_of_one_gender_or_none_are_not_checked() -> None:
    match = mixed()
    live(match, "home")
    assert match.post(Catch("away", 1, 1))["ball"] == "live"  # a woman touches a man
    match = mixed()
    live(match, "away")
    assert match.post(Catch("home", 1, 2))["ball"] == "live"  # a man touches a man
    assert match.post(Catch("home", 3, 1))["ball"] == "live"  # no gender on the roster: no check


def test_V1_9_a_2_0_match_has_no_mixed_contact_rule() -> None:
    match = mixed()
    match.setup = dataclasses.replace(match.setup, rules=RuleSet())
    match.engine_state.setup = match.setup
    live(match, "away")
    assert match.post(Catch("home", 1, 1))["ball"] == "live"


# -- V1-D1 organisation, V1-D2 the result ---------------------------------------------------------


def test_V1_D1_halves_and_the_clock_are_kept_and_cite_V1_D1(match: EngineMatch) -> None:
    live(match)
    match.refused(PeriodEnd(), "V1-D1")  # time is not up
    match.post(ClockChange("pause"))
    match.refused(ClockChange("pause"), "V1-D1")


def level_after_two_halves(match: EngineMatch) -> dict[str, Any]:
    live(match)
    match.run_out_half()
    match.post(PeriodStart())
    return match.run_out_half()


def test_V1_D2_a_level_match_is_a_draw(match: EngineMatch) -> None:
    s = level_after_two_halves(match)
    assert s["phase"] == "finished" and s["winner"] is None and s["shootout"] is None


def test_V1_D2_shootout_events_are_refused(match: EngineMatch) -> None:
    level_after_two_halves(match)
    match.refused(ShootoutStart("home", (("home", (1, 2, 3, 4)), ("away", (1, 2, 3, 4)))), "V1-D2")
    match.refused(ShootoutKick("home", True), "V1-D2")


def test_V1_D2_a_knockout_match_created_with_shootout_on_draw_goes_to_the_shootout() -> None:
    match = EngineMatch(demo_setup(rules=RuleSet(rule_set="1.0", shootout_on_draw=True)))
    assert level_after_two_halves(match)["phase"] == "shootout"
    s = match.post(ShootoutStart("home", (("home", (1, 2, 3, 4)), ("away", (1, 2, 3, 4)))))
    assert s["shootout"] is not None


# -- §11.12 citations -------------------------------------------------------------------------------


def _two_0_only(rule: str) -> bool:
    """A 2.0 section number, or a 2.0 decision that 1.0 cites by another name (SPEC §11.12)."""
    return rule[0].isdigit() or rule in v1.CITES or rule in ("10.4", "D18")


def _cited(match: EngineMatch) -> set[str]:
    """Every rule the officials' calls would be refused citing now."""
    return {r["rule"] for r in legal_calls(match.engine_state, match.now)["reasons"]}


def test_V1_11_12_no_refusal_in_a_1_0_match_cites_a_number_1_0_does_not_have(match: EngineMatch) -> None:
    seen = _cited(match)
    live(match)
    seen |= _cited(match)
    call(match, "player_in_area", "home", player=3, spot=(2.0, 12.5))
    seen |= _cited(match)
    match.take()
    match.run_out_half()
    seen |= _cited(match)
    assert not {r for r in seen if _two_0_only(r)}, seen
    assert {"V1-D10", "V1-D11", "V1-6", "V1-D1"} <= seen
    assert all(r in v1.TITLES or not r.startswith("V1-") for r in seen)


def test_V1_11_12_a_2_0_match_cites_2_0(match_2_0: EngineMatch) -> None:
    live(match_2_0)
    assert not {r for r in _cited(match_2_0) if r.startswith("V1-")}


def test_D195_the_citations_SPEC_11_12_leaves_out_12_and_13_1_and_11_3_have_1_0_names(match: EngineMatch) -> None:
    """The engine raises 2.0's numbers and the match's book names them (Book.cite): 12.1 and 12.2 are
    V1-D2's (no shootout), 13.1 V1-D15's (an attack is a statistic), 11.3 V1-D12's (injury); SPEC §11.12's
    table does not list them."""
    match.refused(Injury("home", 9), "V1-D12")  # on the bench: 11.3 in 2.0
    live(match)
    match.refused(Attack("away"), "V1-D15")  # the team without the ball: 13.1 in 2.0
    assert [v1.BOOK_1_0.cite(r) for r in ("12.1", "12.2", "13.1", "11.3")] == ["V1-D2", "V1-D2", "V1-D15", "V1-D12"]
    knockout = EngineMatch(demo_setup(rules=RuleSet(rule_set="1.0", shootout_on_draw=True)))
    live(knockout)
    knockout.refused(ShootoutStart("home", (("home", (1, 2, 3, 4)), ("away", (1, 2, 3, 4)))), "V1-D2")  # 12.1 in 2.0


def test_D195_a_2_0_match_cites_the_same_refusals_by_2_0s_numbers(match_2_0: EngineMatch) -> None:
    match_2_0.refused(Injury("home", 9), "11.3")
    live(match_2_0)
    match_2_0.refused(Attack("away"), "13.1")


# -- the paragraphs and decisions no story above names (issue 22's "Done when": one per V1 id) --------------


def test_V1_1_V1_D3_a_1_0_field_is_35_50_by_20_30_with_side_lines_and_2_0s_markings() -> None:
    from qalisball.rules.field import Field

    book = v1.BOOK_1_0
    assert (book.length_m, book.width_m, book.side_lines_required) == ((35, 50), (20, 30), True)
    # The smallest 1.0 field keeps 2.0's markings (V1-D3): the penalty spot 4.5 m out on the axis.
    match = EngineMatch(demo_setup(field=Field(35, 20, True), rules=V1_0))
    live(match)  # home defends x0
    assert restart(call(match, "player_in_area", "home", player=3, spot=(1.0, 10.0))) == ("penalty", "away", 4.5, 10.0)


@pytest.mark.parametrize(
    ("catcher", "caught", "refused"),
    [("MAN", "Woman", True), ("m", "W", True), ("男", "F", True), (" Male ", "female", True)]
    + [("m", "x", False), (None, "f", False), ("w", "m", False), ("m", "m", False)],
)
def test_V1_D14_the_gender_words_are_read_case_insensitively_anything_else_is_no_check(
    catcher: str | None, caught: str | None, refused: bool
) -> None:
    refusal = v1.mixed_catch_refusal(catcher, caught)
    assert (refusal is not None) == refused
    assert refusal is None or refusal.rule == "V1-9"


def test_V1_D15_no_multiple_attack_opportunities_an_attack_is_a_statistic_and_an_error_loses_the_ball(
    match: EngineMatch,
) -> None:
    assert v1.BOOK_1_0.multi_attack is False
    live(match)
    assert match.post(Attack("home"))["ball"] == "live"  # recorded, nothing forgiven later
    s = call(match, "ball_grounded", "home", spot=(20.0, 12.5))
    assert restart(s) == ("free_kick", "away", 20.0, 12.5)


def test_V1_D16_the_call_keeps_its_2_0_name_with_1_0s_label_and_is_no_foul(match: EngineMatch) -> None:
    assert v1.BOOK_1_0.label("caught", "Caught player") == "Touched: over 2 steps / pass not backwards"
    assert v1.BOOK_1_0.label("ball_grounded", "Ball grounded") == "Ball grounded"  # the others keep 2.0's
    live(match)
    s = call(match, "caught", "home", player=4, spot=(20.0, 12.5))
    assert s["teams"]["home"]["fouls"] == {}  # M8 counts foul events only
    s = match.take()
    s = match.post(Foul("away", 2, spot=(20.0, 12.5)))
    assert s["teams"]["away"]["fouls"] == {"2": 1}


def test_V1_D17_a_goal_is_the_same_event_for_a_pole_hit_or_knocked_down(match: EngineMatch) -> None:
    assert {f.name for f in dataclasses.fields(Goal)} == {"team", "player", "direct"}  # no new field
    live(match)
    assert match.post(Goal("home", 2))["score"] == {"home": 1, "away": 0}
