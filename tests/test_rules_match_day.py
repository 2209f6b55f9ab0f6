"""SPEC §9, the match day (M1–M8), against the rule engine itself (issue 11).

Demo match: six starters (1–6) a side, bench 7–10, 30-minute halves. Home kicks off and defends x0.
The HTTP contract of the same decisions (dry_run, duplicates' answer, first_refused, the organiser's
reopen) is in tests/test_api_match_day.py.
"""

from __future__ import annotations

import dataclasses

import pytest

from qalisball.rules.errors import RuleViolation
from qalisball.rules.events import (
    Card,
    ClockChange,
    Confirm,
    Foul,
    Goal,
    Injury,
    NewPlayer,
    Note,
    PeriodEnd,
    PeriodStart,
    Reason,
    Reopen,
    RestartTaken,
    RosterChange,
    ShootoutKick,
    ShootoutStart,
    Sign,
    Substitution,
    Violation,
)
from tests.calls import live
from tests.engine_driver import EngineMatch

HALF = 30 * 60_000


@pytest.fixture
def match() -> EngineMatch:
    return EngineMatch()


def to_clock(match: EngineMatch, elapsed_ms: int) -> None:
    """Let the running clock reach ``elapsed_ms``."""
    match.advance(elapsed_ms - match.state()["clock"]["elapsed_ms"])


# -- M1: late calls are judged when they happened ------------------------------------------------------


def test_M1_a_goal_at_29_58_logged_at_30_01_counts(match: EngineMatch) -> None:
    live(match)
    to_clock(match, HALF + 1_000)  # 30:01: time is up (3.1)
    assert match.state()["time_up"]
    match.refused(Goal("home", 3), "3.1")  # without its time, judged at receipt: too late
    s = match.post(Goal("home", 3), at_ms=HALF - 2_000)  # stamped 29:58 by the tablet
    assert s["score"] == {"home": 1, "away": 0} and s["last_at_ms"] == HALF - 2_000
    assert match.post(PeriodEnd())["phase"] == "halftime"


def test_M1_a_call_stamped_later_than_the_clock_is_refused(match: EngineMatch) -> None:
    live(match)
    to_clock(match, 60_000)
    match.refused(Goal("home", 3), "M1", at_ms=65_000)


def test_M1_a_call_stamped_earlier_than_the_last_call_is_refused(match: EngineMatch) -> None:
    live(match)
    to_clock(match, 60_000)
    match.post(Violation("ball_grounded", "home", spot=(20.0, 5.0)), at_ms=59_000)
    match.take()
    match.refused(Goal("away", 3), "M1", at_ms=58_000)  # before the ball was grounded: insert it instead (M3)


def test_M1_a_clock_set_back_lets_later_calls_carry_the_value_set(match: EngineMatch) -> None:
    live(match)
    to_clock(match, 120_000)
    match.post(Violation("ball_grounded", "home", spot=(20.0, 5.0)))  # at 2:00
    match.post(ClockChange("set", 90_000))  # the clock ran 30 s too long
    match.take()
    match.refused(Goal("away", 3), "M1", at_ms=95_000)  # later than the clock (1:30)
    match.advance(2_000)
    s = match.post(Goal("away", 3), at_ms=91_000)
    assert s["score"]["away"] == 1


def test_M1_no_game_time_outside_a_half(match: EngineMatch) -> None:
    live(match)
    match.run_out_half()
    match.refused(Substitution("home", 1, 7), "M1", at_ms=10_000)


def test_M1_the_30_second_return_runs_from_the_late_goal(match: EngineMatch) -> None:
    live(match)
    to_clock(match, 100_000)
    s = match.post(Goal("home", 3), at_ms=90_000)  # scored 10 s ago
    assert 19_000 <= s["return_countdown_ms"] <= 20_000


# -- M2: roster changes --------------------------------------------------------------------------------


def test_M2_a_late_player_joins_the_bench_and_can_come_on(match: EngineMatch) -> None:
    live(match)
    s = match.post(RosterChange("home", add=NewPlayer(11, "迟到 Late")))
    assert s["teams"]["home"]["players"]["11"] == "迟到 Late" and 11 in s["teams"]["home"]["bench"]
    match.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))  # home's free kick: its initiative
    s = match.post(Substitution("home", 2, 11))
    assert 11 in s["teams"]["home"]["on_field"]


def test_M2_a_shirt_number_in_use_is_refused(match: EngineMatch) -> None:
    match.refused(RosterChange("home", add=NewPlayer(4, "Twin")), "M2")
    match.refused(RosterChange("home", player=3, number=4), "M2")


def test_M2_renumbering_follows_the_player_everywhere(match: EngineMatch) -> None:
    live(match)
    match.post(Card("home", 3, "yellow"))
    s = match.post(RosterChange("home", player=3, number=33, name="张伟 Zhang Wei"))
    home = s["teams"]["home"]
    assert 33 in home["on_field"] and 3 not in home["on_field"] and home["yellow"] == [33]
    assert home["players"]["33"] == "张伟 Zhang Wei" and "3" not in home["players"]
    assert home["renumbered"] == {"33": 3}
    s = match.post(Goal("home", 33))
    assert s["score"]["home"] == 1
    match.invalid(Goal("home", 3), "player")  # the old number is nobody's now


def test_M2_a_rename_keeps_the_number(match: EngineMatch) -> None:
    s = match.post(RosterChange("away", player=5, name="Eli Sun-Wu"))
    assert s["teams"]["away"]["players"]["5"] == "Eli Sun-Wu" and s["teams"]["away"]["renumbered"] == {}


# -- M3: correcting the past ---------------------------------------------------------------------------


def test_M3_amend_replaces_a_goal_by_the_call_that_voids_it(match: EngineMatch) -> None:
    """4.3, 7.2 note: the assistant signals the attacker in the area; the goal becomes that call."""
    live(match)
    goal = match.post(Goal("home", 3))["seq"]
    s = match.correct(
        "amend",
        {
            "target": goal,
            "event": {"type": "violation", "kind": "player_in_area", "team": "home", "player": 3, "spot": {"x": 38.5, "y": 12.5}},
            "reason": "player in the area",
        },
    )
    assert s["score"] == {"home": 0, "away": 0}
    assert s["restart"]["type"] == "end_line" and s["restart"]["team"] == "away"  # D1: the area's team


def test_M3_amend_corrects_the_scorer_in_place(match: EngineMatch) -> None:
    live(match)
    goal = match.post(Goal("home", 3))["seq"]
    match.take()
    s = match.correct("amend", {"target": goal, "event": {"type": "goal", "team": "home", "player": 4}, "reason": "#4 scored"})
    assert s["score"]["home"] == 1 and s["ball"] == "live"
    effective = [e for e in match.log if e.type == "amend"]
    assert effective and effective[0].fields["event"]["player"] == 4


def test_M3_insert_adds_a_missed_call_at_its_place(match: EngineMatch) -> None:
    live(match)
    to_clock(match, 60_000)
    grounded = match.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))["seq"]  # home's free kick
    to_clock(match, 90_000)
    # Before the free kick was taken, away's #2 got a yellow card that nobody logged.
    s = match.correct("insert", {"after": grounded, "event": {"type": "card", "team": "away", "player": 2, "color": "yellow"}})
    assert s["teams"]["away"]["yellow"] == [2] and s["restart"]["type"] == "free_kick"


def test_M3_insert_with_its_own_game_time(match: EngineMatch) -> None:
    live(match)  # seq 3: kickoff taken at 0:00
    to_clock(match, 50_000)
    match.post(Violation("ball_out_side", "away", spot=(20.0, -1.0)))  # seq 4 at 0:50
    to_clock(match, 80_000)
    s = match.correct(
        "insert", {"after": 3, "event": {"type": "card", "team": "away", "player": 2, "color": "yellow", "at_ms": 20_000}}
    )
    assert s["teams"]["away"]["yellow"] == [2] and s["restart"]["type"] == "side_line"
    # A goal missed at 0:20 would leave the ball dead for away's kickoff: the ball out at 0:50 is refused.
    refusal = match.correction_refused(
        "insert", {"after": 3, "event": {"type": "goal", "team": "home", "player": 2, "at_ms": 20_000}}
    )
    assert refusal.details["first_refused"] == 4


def test_M3_a_correction_that_breaks_a_later_event_names_it(match: EngineMatch) -> None:
    live(match)
    goal = match.post(Goal("home", 3))["seq"]
    taken = match.take()["seq"]  # away kicks off
    refusal = match.correction_refused("amend", {"target": goal, "event": {"type": "shot_missed", "team": "home", "player": 3}})
    # Without the goal no kickoff is pending: the restart taken would be refused.
    assert refusal.details["first_refused"] == taken


def test_M3_an_amend_that_is_itself_illegal_cites_its_own_rule(match: EngineMatch) -> None:
    live(match)
    goal = match.post(Goal("home", 3))["seq"]
    refusal = match.correction_refused(
        "amend", {"target": goal, "event": {"type": "steal", "team": "home"}}, rule="6.2"
    )  # home has the ball: a steal is by the other team
    assert refusal.rule == "6.2"


def test_M3_voiding_an_amend_brings_the_original_back(match: EngineMatch) -> None:
    live(match)
    goal = match.post(Goal("home", 3))["seq"]
    amend = match.correct(
        "amend",
        {
            "target": goal,
            "event": {"type": "violation", "kind": "player_in_area", "team": "home", "spot": {"x": 38.5, "y": 12.5}},
        },
    )["seq"]
    assert match.state()["score"]["home"] == 0
    assert match.void(amend)["score"]["home"] == 1


def test_M3_a_replaced_event_is_corrected_through_its_replacement(match: EngineMatch) -> None:
    live(match)
    goal = match.post(Goal("home", 3))["seq"]
    amend = match.correct("amend", {"target": goal, "event": {"type": "goal", "team": "home", "player": 4}})["seq"]
    refusal = match.correction_refused("void", {"target": goal})
    assert refusal.params["by"] == amend


# -- M5: the replacement right is not lost to 11.3 ----------------------------------------------------


def test_M5_a_red_card_at_an_injury_stoppage_is_replaced_at_the_next_dead_ball(match: EngineMatch) -> None:
    live(match)  # home has the ball
    match.post(Injury("away", 4, spot=(20.0, 12.5)))  # injury stoppage: no substitutions (11.3)
    s = match.post(Card("away", 2, "red"))  # shown at the injury stoppage
    assert s["teams"]["away"]["replacements_due"] == 1
    match.refused(Substitution("away", None, 7), "11.3")
    match.take()  # home's free kick taken: play on, the right waits
    s = match.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))  # home's free kick: home's initiative
    assert s["teams"]["away"]["replacements_due"] == 1
    s = match.post(Substitution("away", None, 7))  # away replaces now, whatever the initiative (M5)
    assert 7 in s["teams"]["away"]["on_field"] and s["teams"]["away"]["replacements_due"] == 0


def test_M5_the_carried_right_lapses_when_that_dead_ball_is_restarted(match: EngineMatch) -> None:
    live(match)
    match.post(Injury("away", 4, spot=(20.0, 12.5)))
    match.post(Card("away", 2, "red"))
    match.take()
    match.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))
    s = match.take()
    assert s["teams"]["away"]["replacements_due"] == 0


# -- M6: confirm, sign, lock, reopen -------------------------------------------------------------------


def finished(match: EngineMatch) -> None:
    live(match)
    match.post(Goal("home", 3))
    match.run_out_half()
    match.post(PeriodStart())
    match.run_out_half()


def test_M6_a_period_is_confirmed_once_it_has_ended(match: EngineMatch) -> None:
    live(match)
    match.refused(Confirm(1), "M6")
    match.run_out_half()
    assert match.post(Confirm(1))["confirmed"] == [1]
    match.refused(Confirm(1), "M6")
    match.refused(Confirm("shootout"), "M6")


def test_M6_signatures_once_finished_and_the_referee_locks_the_match(match: EngineMatch) -> None:
    live(match)
    match.refused(Sign("home_captain", "李华"), "M6")
    match.post(Goal("home", 3))
    match.run_out_half()
    match.post(PeriodStart())
    match.run_out_half()
    match.post(Sign("home_captain", "李华"))
    match.post(Sign("away_captain", "Alex Chen"))
    match.refused(Sign("home_captain", "李华"), "M6")  # signed once
    s = match.post(Sign("referee", "裁判 Referee"))
    assert s["locked"] and [x["as"] for x in s["signatures"]] == ["home_captain", "away_captain", "referee"]
    match.refused(Card("home", 3, "yellow"), "M6")
    match.refused(Note("late note"), "M6")
    match.correction_refused("void", {"target": 1}, rule="M6")
    s = match.post(Reopen("wrong scorer on the sheet"))
    assert not s["locked"] and s["signatures"] == []
    match.refused(Reopen("again"), "M6")


def test_M6_D132_the_sheet_is_corrected_forwards_never_undone(match: EngineMatch) -> None:
    """Issue 19.1: undoing the organiser's reopen locked the match again with the old signatures."""
    finished(match)
    confirm = match.seq + 1
    match.post(Confirm(2))
    sign = match.seq + 1
    match.post(Sign("referee", "裁判 Referee"))
    reopen = match.seq + 1
    s = match.post(Reopen("wrong scorer on the sheet"), by="organiser")
    assert not s["locked"]
    # Neither the referee's Undo nor an amend takes the reopen back: the match stays open, unsigned.
    refusal = match.correction_refused("void", {"target": reopen, "reason": "undo"}, rule="M6")
    assert refusal.params["type"] == "reopen"
    match.correction_refused("amend", {"target": reopen, "event": {"type": "note", "text": "x"}}, rule="M6")
    # Signatures and confirmations are the sheet too: the referee signs again instead.
    match.correction_refused("void", {"target": sign, "reason": "undo"}, rule="M6")
    match.correction_refused("void", {"target": confirm, "reason": "undo"}, rule="M6")
    assert not match.state()["locked"]
    assert match.post(Sign("referee", "裁判 Referee"))["locked"]


def test_M6_D132_only_the_organiser_undoes_the_organisers_events(match: EngineMatch) -> None:
    from qalisball.rules.corrections import check_correction

    finished(match)
    match.post(Sign("referee", "Referee"))
    match.post(Reopen("late card"), by="organiser")
    reopen = match.log[-1]
    match.post(Note("after the reopen"))
    for role in ("referee", "assistant1", "scorer"):
        with pytest.raises(RuleViolation) as refusal:
            check_correction(match.log, "void", {"target": reopen.seq}, role)
        assert refusal.value.rule == "M6"
    # An ordinary call of the organiser's (a note, say) is the organiser's to undo.
    organisers_note = dataclasses.replace(match.log[-1], by="organiser")
    with pytest.raises(RuleViolation) as refusal:
        check_correction([*match.log[:-1], organisers_note], "void", {"target": organisers_note.seq}, "referee")
    assert "only the organiser" in refusal.value.template
    check_correction([*match.log[:-1], organisers_note], "void", {"target": organisers_note.seq}, "organiser")


def test_M6_an_abandoned_match_is_signed_too(match: EngineMatch) -> None:
    from qalisball.rules.events import Abandon

    live(match)
    match.post(Abandon("thunderstorm 雷暴"))
    s = match.post(Sign("referee", "Referee"))
    assert s["locked"] and s["phase"] == "abandoned"


def test_M6_the_shootout_is_confirmed_once_decided(match: EngineMatch) -> None:
    live(match)
    match.run_out_half()
    match.post(PeriodStart())
    match.run_out_half()  # 0–0: shootout
    match.post(ShootoutStart("home", (("home", (1, 2, 3, 4)), ("away", (1, 2, 3, 4)))))
    match.refused(Confirm("shootout"), "M6")
    while match.state()["phase"] == "shootout":  # home scores everything, away nothing: early end (12.2)
        nxt = match.state()["shootout"]["next"]
        match.post(ShootoutKick(nxt["team"], nxt["team"] == "home"))
    assert match.state()["winner"] == "home"
    assert match.post(Confirm("shootout"))["confirmed"] == ["shootout"]


# -- M7: the referee's report ---------------------------------------------------------------------------


def test_M7_notes_and_card_reasons_change_nothing_in_play(match: EngineMatch) -> None:
    before = live(match)
    s = match.post(Note("crowd on the field 观众进场", team="home"))
    assert {k: s[k] for k in ("score", "ball", "possession")} == {k: before[k] for k in ("score", "ball", "possession")}
    s = match.post(Card("away", 2, "yellow", Reason("dissent", "argued the call")))
    assert s["teams"]["away"]["yellow"] == [2]
    assert match.log[-1].fields["reason"] == {"code": "dissent", "text": "argued the call"}


# -- M8: judgement aids ----------------------------------------------------------------------------------


def test_M8_fouls_per_player_are_counted(match: EngineMatch) -> None:
    live(match, "away")  # away has the ball
    match.post(Foul("home", 4, spot=(20.0, 10.0)))
    match.take()
    s = match.post(Foul("home", 4, spot=(22.0, 10.0)))
    assert s["teams"]["home"]["fouls"] == {"4": 2}


def test_M8_a_second_yellow_is_a_send_off_everywhere(match: EngineMatch) -> None:
    live(match)
    match.post(Card("away", 2, "yellow"))
    s = match.post(Card("away", 2, "yellow"))
    away = s["teams"]["away"]
    assert away["second_yellow"] == [2] and away["sent_off"] == [2] and 2 not in away["on_field"]


def test_D38_restart_taken_without_a_player_except_a_penalty(match: EngineMatch) -> None:
    """API.md: the taker is optional, except for a penalty (10.8)."""
    match.kickoff()
    assert match.post(RestartTaken("home"))["ball"] == "live"
    match.post(Violation("player_in_area", "away", spot=(38.5, 12.5)))  # away in its own area: home's penalty
    match.refused(RestartTaken("home"), "10.8")
    assert match.post(RestartTaken("home", 3))["ball"] == "live"


def test_D32_a_call_stamped_a_little_ahead_of_the_clock_is_taken_as_made_now(match: EngineMatch) -> None:
    live(match)
    to_clock(match, 60_000)
    s = match.post(Goal("home", 3), at_ms=60_400)  # the tablet's clock 0.4 s ahead of the server's
    assert s["score"]["home"] == 1 and s["last_at_ms"] == 60_000
    match.take()
    match.refused(Goal("away", 3), "M1", at_ms=60_600)  # 0.6 s ahead: later than the clock


def test_D33_ending_a_half_is_judged_when_received_whatever_its_stamp(match: EngineMatch) -> None:
    live(match)
    to_clock(match, HALF + 5_000)
    # Stamped before time was up, ending the half is still judged when it arrives: the half's time is up.
    s = match.post(PeriodEnd(), at_ms=HALF - 1_000)
    assert s["phase"] == "halftime"


# -- Story tests the decisions promised (docs/decisions.toml; issue 21 found them missing) ---------------


def test_D34_an_amend_is_judged_at_the_replaced_events_time_and_an_insert_right_after_its_event(match: EngineMatch) -> None:
    """D34 (M3): one log, one replay: a correction stands where the event it corrects happened."""
    live(match)
    to_clock(match, 50_000)
    goal = match.post(Goal("home", 3))["seq"]  # at 0:50
    match.take()
    to_clock(match, 120_000)
    match.correct("amend", {"target": goal, "event": {"type": "goal", "team": "home", "player": 4}, "reason": "#4"})
    assert match.log[-1].fields["event"].get("at_ms") is None  # judged at the goal's 0:50, not at 2:00
    s = match.state()
    assert s["score"]["home"] == 1 and s["ball"] == "live"
    # An amend or insert carries a call of the match, never a void; a void itself is not amended (D8).
    match.correction_refused("amend", {"target": goal, "event": {"type": "void", "target": 1}, "reason": "x"})
    void = match.void(match.seq)["seq"]
    match.correction_refused("amend", {"target": void, "event": {"type": "goal", "team": "home"}, "reason": "x"})


def test_D36_each_signs_once_the_referee_last_and_confirmations_survive_a_reopen(match: EngineMatch) -> None:
    """D36 (M6): the referee's signature locks the match, so the captains and assistants sign first; a
    reopen only of a locked match; a reopen keeps the confirmations and clears the signatures."""
    finished(match)
    match.refused(Reopen("not locked yet"), "M6")
    match.post(Confirm(1))
    match.post(Confirm(2))
    match.post(Sign("home_captain", "李华"))
    match.refused(Sign("home_captain", "李华"), "M6")  # once
    assert match.post(Sign("referee", "裁判 Referee"))["locked"]
    match.refused(Sign("assistant1", "助理 Assistant"), "M6")  # too late: the referee signs last
    s = match.post(Reopen("wrong scorer on the sheet"), by="organiser")
    assert s["confirmed"] == [1, 2] and s["signatures"] == [] and not s["locked"]


def test_D37_a_renumbered_player_carries_the_new_number_everywhere_but_in_earlier_log_entries(match: EngineMatch) -> None:
    """D37 (M2): the state renames the player at once (field, cards, fouls); the log keeps the number it was
    logged with, and ``renumbered`` maps the new number to the first."""
    live(match)
    match.post(Foul("home", player=3, spot=(20.0, 10.0), card="yellow"))
    foul_row = match.log[-1]
    s = match.post(RosterChange("home", player=3, number=33))
    home = s["teams"]["home"]
    assert 33 in home["on_field"] and home["yellow"] == [33] and home["renumbered"] == {"33": 3}
    assert "33" in home["fouls"] and "3" not in home["fouls"]
    assert foul_row.fields["player"] == 3 and match.log[-2] is foul_row


def test_M6_D132_the_console_is_told_whose_events_it_may_not_undo() -> None:
    from qalisball.rules.corrections import undo_barred_authors

    assert undo_barred_authors("referee") == ["organiser"]
    assert undo_barred_authors("scorer") == ["organiser"]
    assert undo_barred_authors("organiser") == []
