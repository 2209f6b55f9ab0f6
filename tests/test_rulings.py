"""The engine answers every rule question (issue 21): each event's rulings, recorded where the engine decides.

Story tests against the rule core (``tests/engine_driver.py``): after each event, ``state.rulings`` says
what the engine ruled on it (``qalisball/rules/rulings.py``), and the replay's steps carry the same
rulings (``engine.replay_steps``), which is what the reports count instead of inferring them.

Demo match, 40 × 25 m: home kicks off and defends x0; away's area is at xL, its penalty spot (35.5, 12.5).
"""

from __future__ import annotations

from qalisball.rules import engine
from qalisball.rules.events import (
    Attack,
    Card,
    Foul,
    Goal,
    Injury,
    PeriodStart,
    ShootoutKick,
    ShootoutStart,
    ShotMissed,
    Steal,
    Substitution,
    Violation,
)
from qalisball.rules.events import RestartTaken as TakeRestart
from qalisball.rules.field import Point
from qalisball.rules.rulings import (
    Cautioned,
    ErrorForgiven,
    FreeKickMoved,
    GoalCounted,
    LeftInjured,
    PenaltyConverted,
    PenaltyMissed,
    RestartAwarded,
    RestartStands,
    RestartTaken,
    Ruling,
    SentOff,
    ShootoutKickTaken,
    restart_ruled,
)
from qalisball.rules.state import MultiAttackRules
from tests.calls import live
from tests.engine_driver import EngineMatch, demo_setup


def ruled(m: EngineMatch) -> tuple[Ruling, ...]:
    return m.engine_state.rulings


def awarded(m: EngineMatch) -> tuple[str, str, float, float, str, bool]:
    """The restart the last event awarded: (type, team, x, y, rule, retake)."""
    (r,) = [x for x in ruled(m) if isinstance(x, RestartAwarded)]
    return r.restart.type, r.restart.team, r.restart.spot.x, r.restart.spot.y, r.rule, r.retake


def teams_mode(k: int = 2) -> EngineMatch:
    return EngineMatch(demo_setup(multi_attack=MultiAttackRules("teams", k, ("home", "away"))))


def penalty_for_home(m: EngineMatch) -> None:
    live(m, "home")
    m.post(Violation("player_in_area", "away", player=4, spot=(38.0, 12.0)))


def test_5_1_the_half_begins_with_a_kickoff_awarded_naming_the_rule() -> None:
    m = EngineMatch()
    m.kickoff("home", "x0")
    assert awarded(m) == ("kickoff", "home", 20.0, 12.5, "5.1", False)
    (r,) = ruled(m)
    assert isinstance(r, RestartAwarded) and r.restart.why is not None
    assert r.restart.why.message == "the half begins: home kicks off"


def test_7_1_5_3_a_goal_is_counted_and_the_kickoff_goes_to_the_other_team() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Goal("home", 2))
    assert ruled(m)[0] == GoalCounted("home", 2, direct=False)
    assert awarded(m) == ("kickoff", "away", 20.0, 12.5, "5.3", False)


def test_8_5_D9_a_penalty_awarded_names_the_rule_and_the_offender() -> None:
    m = EngineMatch()
    penalty_for_home(m)
    assert awarded(m) == ("penalty", "home", 35.5, 12.5, "8.5", False)
    (r,) = ruled(m)
    assert isinstance(r, RestartAwarded) and r.restart.why is not None
    assert dict(r.restart.why.params)["player"] == 4


def test_10_8_penalty_converted_is_a_ruling() -> None:
    m = EngineMatch()
    penalty_for_home(m)
    pending = m.engine_state.restart
    m.take(1)
    assert ruled(m) == (RestartTaken(pending, 1),)  # type: ignore[arg-type]
    m.post(Attack("home"))  # play goes on: still straight from the penalty
    m.post(Goal("home", 2))
    assert PenaltyConverted("home", taker=1, scorer=2) in ruled(m)


def test_10_8_penalty_missed_when_the_other_team_wins_the_ball() -> None:
    m = EngineMatch()
    penalty_for_home(m)
    m.take(1)
    m.post(Steal("away", 3))
    assert ruled(m) == (PenaltyMissed("home", taker=1),)
    m.post(Goal("away", 3))
    assert not any(isinstance(r, PenaltyConverted | PenaltyMissed) for r in ruled(m))  # that penalty is over


def test_10_8_a_missed_shot_play_goes_on_after_does_not_end_the_penalty() -> None:
    m = EngineMatch()
    penalty_for_home(m)
    m.take(1)
    m.post(ShotMissed("home", 1))
    assert ruled(m) == ()
    m.post(Goal("home", 1))
    assert PenaltyConverted("home", taker=1, scorer=1) in ruled(m)


def test_10_8_the_3_m_move_of_a_free_kick_is_a_ruling() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Foul("away", 3, (36.0, 12.5)))
    assert awarded(m) == ("free_kick", "home", 33.5, 12.5, "10.6", False)
    assert FreeKickMoved("home", origin=Point(36.0, 12.5), spot=Point(33.5, 12.5)) in ruled(m)


def test_13_1_an_error_forgiven_uses_an_opportunity_and_restarts_the_attack() -> None:
    m = teams_mode(k=3)
    live(m, "home")
    m.post(Violation("ball_grounded", "home", player=2, spot=(20.0, 5.0)))
    forgiven, restart = ruled(m)
    assert isinstance(forgiven, ErrorForgiven) and (forgiven.team, forgiven.player, forgiven.left) == ("home", 2, 2)
    assert awarded(m) == ("free_kick", "home", 20.0, 5.0, "13.1", True)  # a retake, not a new award
    assert restart == RestartAwarded(forgiven.restart, retake=True)


def test_13_1_a_forgiven_error_in_taking_a_restart_leaves_that_restart_standing() -> None:
    m = teams_mode()
    live(m, "home")
    m.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))  # free kick for home
    m.post(Violation("restart", "home", player=2))
    forgiven, stands = ruled(m)
    assert isinstance(forgiven, ErrorForgiven) and forgiven.left == 1
    assert isinstance(stands, RestartStands) and stands.rule == "13.1"
    assert (stands.restart.type, stands.restart.team) == ("free_kick", "home")


def test_13_1_D7_player_in_area_is_never_forgiven() -> None:
    m = teams_mode()
    live(m, "home")
    m.post(Violation("player_in_area", "home", player=2, spot=(38.0, 12.0)))  # away's area: D1
    assert not any(isinstance(r, ErrorForgiven) for r in ruled(m))
    assert awarded(m)[:2] == ("end_line", "away") and awarded(m)[4] == "D1"


def test_9_2_a_defenders_foul_at_a_restart_leaves_it_standing() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Violation("ball_grounded", "home", spot=(20.0, 5.0)))  # free kick for away
    pending = m.engine_state.restart
    m.post(Foul("home", 3))
    assert ruled(m) == (RestartStands(pending, "9.2"),)  # type: ignore[arg-type]
    assert restart_ruled(ruled(m)) == pending


def test_9_3_second_yellow_is_a_sending_off_ruling() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Card("away", 3, "yellow"))
    assert ruled(m) == (Cautioned("away", 3),)
    m.post(Card("away", 3, "yellow"))
    assert ruled(m) == (Cautioned("away", 3), SentOff("away", 3, second_yellow=True, from_field=True))


def test_9_3_D5_a_red_card_to_a_bench_player_sends_him_off_from_the_bench() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Card("home", 9, "red"))
    assert ruled(m) == (SentOff("home", 9, second_yellow=False, from_field=False),)


def test_9_1_a_foul_with_a_red_card_awards_the_restart_and_sends_off() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Foul("away", 3, (20.0, 5.0), card="red"))
    assert awarded(m)[:2] == ("free_kick", "home")
    assert SentOff("away", 3, second_yellow=False, from_field=True) in ruled(m)


def test_11_3_an_injury_during_play_gives_a_free_kick_and_the_player_leaves() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Injury("away", 3, (20.0, 5.0)))
    assert awarded(m) == ("free_kick", "home", 20.0, 5.0, "11.3", False)
    assert ruled(m)[-1] == LeftInjured("away", 3)


def test_11_3_an_injury_at_a_dead_ball_leaves_the_restart_standing() -> None:
    m = EngineMatch()
    m.kickoff("home", "x0")
    pending = m.engine_state.restart
    m.post(Injury("away", 3))
    assert ruled(m) == (RestartStands(pending, "11.3"), LeftInjured("away", 3))  # type: ignore[arg-type]


def test_D21_a_card_for_a_foul_after_time_up_leaves_the_pending_restart_standing() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Violation("ball_grounded", "home", spot=(20.0, 5.0)))
    pending = m.engine_state.restart
    m.advance(m.setup.rules.half_ms)
    m.post(Foul("away", 3, card="yellow"))
    assert ruled(m) == (RestartStands(pending, "D21"), Cautioned("away", 3))  # type: ignore[arg-type]


def test_12_2_a_shootout_kick_is_a_ruling_with_its_taker_round_and_points() -> None:
    m = EngineMatch()
    m.kickoff("home", "x0")
    m.run_out_half()
    m.post(PeriodStart())
    m.run_out_half()
    m.post(ShootoutStart("home", (("home", (1, 2, 3, 4)), ("away", (5, 6, 1, 2)))))
    m.post(ShootoutKick("home", True))
    assert ruled(m) == (ShootoutKickTaken("home", 1, round=1, points=1, scored=True),)


def test_events_the_rules_decide_nothing_about_carry_no_ruling() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Steal("away", 3))
    assert ruled(m) == ()
    m.post(Violation("ball_grounded", "home", spot=(20.0, 5.0)))  # play stops
    m.post(Substitution("away", 4, 8))
    assert ruled(m) == ()


def test_D8_the_replay_steps_carry_the_rulings_the_engine_made_live() -> None:
    m = teams_mode()
    live(m, "home")
    events = [
        Violation("ball_grounded", "home", player=2, spot=(20.0, 5.0)),
        Violation("restart", "home", player=2),
        Foul("away", 3, card="yellow"),
        TakeRestart("away", 3),
        Goal("away", 3),
    ]
    live_rulings: list[tuple[Ruling, ...]] = []
    for ev in events:
        m.post(ev)
        live_rulings.append(m.engine_state.rulings)
    steps = list(engine.replay_steps(m.setup, m.log))
    assert [st.rulings for st in steps[-len(events) :]] == live_rulings
    assert all(live_rulings)
    # The same whether the replay keeps every state or changes one in place (the reports' way).
    fast = list(engine.replay_steps(m.setup, m.log, keep_states=False))
    assert [st.rulings for st in fast] == [st.rulings for st in steps]
