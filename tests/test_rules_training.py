"""Referee training (issue 24): the engine grades a trainee's ruling against its own, engine level.

Story tests against the rule core (``qalisball/rules/training.py``): a match is officiated with
``tests/engine_driver.py``, its log turned into questions (one per call after which the engine ruled a
restart), and answers graded: type and team must be the engine's, the spot within 1 m of the engine's
after the 3 m rule (10.8), a foul's card the one shown (9.3); in the shootout, the next kick (12.2).

Demo match, 40 × 25 m: home kicks off and defends x0; away's area is at xL, its penalty spot (35.5, 12.5).
"""

from __future__ import annotations

from typing import Any

import pytest

from qalisball.rules.events import Card, Foul, Goal, PeriodStart, ShootoutKick, ShootoutStart, Violation
from qalisball.rules.field import Point
from qalisball.rules.state import RuleSet
from qalisball.rules.training import Answer, Question, exercise, grade, questions, score_sheet
from tests.calls import live
from tests.engine_driver import EngineMatch, demo_setup


def only(m: EngineMatch, rules: tuple[str, ...] = ()) -> Question:
    (q,) = questions(m.setup, m.log, rules)
    return q


def answer(kind: str, team: str | None, x: float | None = None, y: float | None = None, **more: Any) -> Answer:
    return Answer(kind, team, None if x is None else Point(x, y if y is not None else 0.0), **more)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (Violation("ball_out_end", "home", spot=(40.8, 20.0)), ("end_line", "away", 40.0, 17.0, "8.2")),
        (Violation("ball_out_side", "home", player=2, spot=(12.3, 26.1)), ("side_line", "away", 12.3, 25.0, "8.2")),
        (Violation("ball_grounded", "home", spot=(22.0, 5.0)), ("free_kick", "away", 22.0, 5.0, "8.3")),
        (Violation("player_in_area", "away", player=4, spot=(38.0, 12.0)), ("penalty", "home", 35.5, 12.5, "8.5")),
        (Foul("away", player=2, spot=(18.0, 7.0)), ("free_kick", "home", 18.0, 7.0, "10.6")),
        (Goal("home", 2), ("kickoff", "away", 20.0, 12.5, "5.3")),
    ],
)
def test_issue24_every_restart_type_is_graded_against_the_engines_ruling(call: Any, expected: tuple[Any, ...]) -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(call)
    q = only(m)
    kind, team, x, y, rule = expected
    assert q.public()["call"]["type"] == call.type and "restart" not in q.public()  # the call, not its ruling
    assert (q.expected.type, q.expected.team, q.expected.spot) == (kind, team, Point(x, y))
    assert q.rule == rule or q.rule.startswith(rule + ".")
    assert q.message  # the engine's why, with its rule
    assert grade(q, answer(kind, team, x, y)).correct
    assert grade(q, answer(kind, team, x + 0.9, y)).correct  # within 1 m
    off = grade(q, answer(kind, team, x + 1.2, y))
    assert not off.correct and not off.spot_ok and off.type_ok and off.team_ok
    other = "home" if team == "away" else "away"
    assert not grade(q, answer(kind, other, x, y)).team_ok
    wrong_type = "penalty" if kind != "penalty" else "free_kick"
    assert not grade(q, answer(wrong_type, team, x, y)).correct


def test_issue24_10_8_the_3m_move_counts_the_calls_own_spot_is_wrong() -> None:
    m = EngineMatch()
    live(m, "away")  # away attacks x0; the free kick is home's near away's area at xL
    m.post(Violation("ball_grounded", "away", spot=(35.0, 12.5)))
    q = only(m)
    assert q.expected.spot == Point(33.5, 12.5) and q.expected.origin == Point(35.0, 12.5)
    assert "10.8" in q.rules
    assert grade(q, answer("free_kick", "home", 33.5, 12.5)).correct
    at_call = grade(q, answer("free_kick", "home", 35.0, 12.5))
    assert not at_call.correct and at_call.at_origin  # the trainee forgot the 3 m rule


def test_V1_6_a_1_0_matchs_2m_move_is_cited_V1_6_never_2_0s_10_8() -> None:
    """SPEC §11.1, §11.12: a 1.0 match never cites a 2.0 number; 10.8 (3 m) is V1-6 (2 m) there."""
    m = EngineMatch(demo_setup(rules=RuleSet(rule_set="1.0")))
    live(m, "home")
    m.post(Violation("ball_grounded", "home", spot=(5.0, 12.5)))  # 1.5 m from home's area line: moved to 2 m
    q = only(m)
    assert q.expected.spot == Point(5.5, 12.5) and q.expected.origin == Point(5.0, 12.5)
    assert q.rules == ("V1-6",)
    assert only(m, ("V1-6",)) == q and questions(m.setup, m.log, ["10.8"]) == []
    assert grade(q, answer("free_kick", "away", 5.5, 12.5)).correct


def test_V1_D2_a_1_0_knockouts_shootout_question_cites_V1_D2() -> None:
    m = EngineMatch(demo_setup(rules=RuleSet(rule_set="1.0", shootout_on_draw=True)))
    m.kickoff("home", "x0")
    m.run_out_half()
    m.advance(600_000)
    m.post(PeriodStart())
    m.run_out_half()  # 0-0 in a knockout: the borrowed shootout (V1-D2)
    m.post(ShootoutStart("home", (("home", (1, 2, 3, 4)), ("away", (1, 2, 3, 4)))))
    (q,) = questions(m.setup, m.log)
    assert q.rule == "V1-D2" and q.rules == ("V1-D2",)
    assert grade(q, Answer("shootout_kick", "home", points=1)).correct


def test_issue24_a_filter_keeps_only_the_calls_about_10_8() -> None:
    m = EngineMatch()
    live(m, "away")
    m.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))  # a free kick in the open: not about 10.8
    m.take()
    m.post(Violation("ball_grounded", "home", spot=(6.0, 12.5)))  # home grounds it near home's own area: moved
    assert len(questions(m.setup, m.log)) == 2
    (q,) = questions(m.setup, m.log, ["10.8"])
    assert q.n == 2 and q.expected.origin is not None


def test_issue24_9_3_a_fouls_card_is_graded_and_a_second_yellow_sends_off() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Card("away", 2, "yellow"))
    m.post(Foul("away", player=2, spot=(18.0, 7.0), card="yellow"))
    q = only(m)
    assert q.is_foul and q.expected.card == "yellow" and q.expected.sent_off and "9.3" in q.rules
    right = answer("free_kick", "home", 18.0, 7.0, card="yellow", card_given=True)
    assert grade(q, right).correct
    no_card = grade(q, answer("free_kick", "home", 18.0, 7.0, card=None, card_given=True))
    assert not no_card.correct and not no_card.card_ok and no_card.spot_ok
    # API.md's body has no card: the restart alone is graded then.
    assert grade(q, answer("free_kick", "home", 18.0, 7.0)).correct


def test_issue24_a_foul_without_a_card_expects_none() -> None:
    m = EngineMatch()
    live(m, "home")
    m.post(Foul("away", player=2, spot=(18.0, 7.0)))
    q = only(m)
    assert q.expected.card is None and "9.3" not in q.rules
    assert not grade(q, answer("free_kick", "home", 18.0, 7.0, card="red", card_given=True)).correct


def shootout_match() -> EngineMatch:
    m = EngineMatch()
    m.kickoff("home", "x0")
    m.run_out_half()
    m.advance(600_000)
    m.post(PeriodStart())  # the second half
    m.run_out_half()  # 0-0: the shootout (12.1)
    m.post(ShootoutStart("home", (("home", (1, 2, 3, 4)), ("away", (1, 2, 3, 4)))))
    return m


def test_issue24_12_2_only_the_shootout_asks_who_kicks_next_and_for_how_many_points() -> None:
    m = shootout_match()
    m.post(ShootoutKick("home", True))
    qs = questions(m.setup, m.log, ["12"])
    assert [q.n for q in qs] == [1, 2] and all(q.rules == ("12.2",) for q in qs)
    after_start, after_kick = qs
    assert (after_start.expected.type, after_start.expected.team, after_start.expected.points) == ("shootout_kick", "home", 1)
    assert (after_kick.expected.team, after_kick.expected.points) == ("away", 1)
    assert after_kick.call["scored"] is True
    assert grade(after_kick, Answer("shootout_kick", "away", points=1)).correct
    assert not grade(after_kick, Answer("shootout_kick", "away", points=2)).correct
    assert not grade(after_kick, Answer("shootout_kick", "home", points=1)).correct


def test_issue24_a_hand_written_exercise_is_answered_by_the_engine() -> None:
    m = EngineMatch()
    q = exercise(
        m.setup,
        [
            {"type": "coin_toss", "kickoff": "away", "home_end": "x0"},
            {"type": "period_start"},
            {"type": "restart_taken", "team": "away", "player": 1},
            {"type": "violation", "kind": "ball_grounded", "team": "away", "spot": {"x": 35.0, "y": 12.5}},
        ],
    )
    assert (q.expected.type, q.expected.team, q.expected.spot) == ("free_kick", "home", Point(33.5, 12.5))
    assert "10.8" in q.rules


def test_issue24_an_exercise_whose_last_call_rules_no_restart_is_refused() -> None:
    m = EngineMatch()
    with pytest.raises(ValueError):
        exercise(m.setup, [{"type": "coin_toss", "kickoff": "away", "home_end": "x0"}, {"type": "period_start"}])


def test_issue24_the_score_sheet_counts_per_trainee_and_per_rule() -> None:
    m = EngineMatch()
    live(m, "away")
    m.post(Violation("ball_grounded", "away", spot=(35.0, 12.5)))
    m.take()
    m.post(Violation("ball_out_end", "home", spot=(40.8, 20.0)))
    moved, out = questions(m.setup, m.log)
    sheet = score_sheet([("Li", moved, True), ("Li", out, False), ("Wang", moved, False)])
    li, wang = sheet
    assert (li["name"], li["answered"], li["correct"]) == ("Li", 2, 1)
    assert li["by_rule"]["10.8"] == [1, 1] and wang["by_rule"]["10.8"] == [0, 1]


def test_issue33_item12_V1_6_V1_D10_a_1_0_trainee_may_answer_corner_and_short_corner_and_no_card() -> None:
    from qalisball.rules.training import answer_choices

    v1 = answer_choices(demo_setup(rules=RuleSet(rule_set="1.0")))
    assert "corner" in v1["restarts"] and "short_corner" in v1["restarts"] and "end_line" not in v1["restarts"]
    assert v1["cards"] is False and v1["shootout"] is False  # V1-D10; a level 1.0 friendly is a draw (V1-D2)
    assert answer_choices(demo_setup(rules=RuleSet(rule_set="1.0", shootout_on_draw=True)))["shootout"] is True
    v2 = answer_choices(demo_setup())
    assert v2 == {"restarts": ["kickoff", "end_line", "side_line", "free_kick", "penalty"], "cards": True, "shootout": True}
    # Every restart the engine expects in a 1.0 match is one the trainee is offered (the corner it grades).
    m = EngineMatch(demo_setup(rules=RuleSet(rule_set="1.0")))
    live(m, "home")
    m.post(Violation("ball_out_end", "home", spot=(40.8, 3.0)))
    q = only(m)
    assert q.expected.type == "corner" and q.expected.type in v1["restarts"]
