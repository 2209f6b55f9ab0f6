"""The arbitration committee's what-if (issue 24, SPEC C7), engine level: a copy of the log with one call
changed (an amend, a void or an insert, as SPEC D8/M3 post them), both outcomes side by side.

Story tests against the rule core (``qalisball/rules/whatif.py``): the score, shootout and winner of each
outcome, the restart right after the changed call, the later events the changed log no longer allows
(left out and listed with their rules, never refusing the what-if), and the cards that suspensions count
(C4). The log the what-if starts from never changes.

Demo match, 40 × 25 m: home kicks off and defends x0; away's area is at xL.
"""

from __future__ import annotations

import pytest

from qalisball.rules.competition.discipline import Appearance, Discipline, suspensions
from qalisball.rules.errors import RuleViolation
from qalisball.rules.events import Card, Foul, Goal, Substitution
from qalisball.rules.whatif import Change, cards, what_if
from tests.calls import live
from tests.engine_driver import EngineMatch


def test_issue24_C7_an_amended_goal_changes_the_score_and_refuses_the_kickoff_that_followed() -> None:
    m = EngineMatch()
    live(m, "home")
    goal = m.post(Goal("home", 3))["seq"]
    kickoff = m.take()["seq"]  # away kicks off after the goal
    log = list(m.log)
    w = what_if(
        m.setup, m.log, [Change("amend", {"target": goal, "event": {"type": "shot_missed", "team": "home", "player": 3}})]
    )
    assert w.actual.state.score == {"home": 1, "away": 0} and w.what_if.state.score == {"home": 0, "away": 0}
    assert w.actual.refused == ()
    (refused,) = w.what_if.refused
    assert (refused.seq, refused.type) == (kickoff, "restart_taken") and refused.rule and refused.message
    assert w.actual.restart_after is not None and w.actual.restart_after.type == "kickoff"
    assert w.what_if.restart_after is None  # play went on after a missed shot
    assert m.log == log  # the match's log is untouched


def test_issue24_C7_an_amended_goal_into_player_in_area_gives_the_areas_team_an_end_line_ball() -> None:
    m = EngineMatch()
    live(m, "home")
    goal = m.post(Goal("home", 3))["seq"]
    event = {"type": "violation", "kind": "player_in_area", "team": "home", "player": 3, "spot": {"x": 38.5, "y": 12.5}}
    w = what_if(m.setup, m.log, [Change("amend", {"target": goal, "event": event})])
    r = w.what_if.restart_after
    assert r is not None and (r.type, r.team) == ("end_line", "away")  # D1


def test_issue24_C7_a_voided_foul_leaves_out_the_free_kick_and_its_card() -> None:
    m = EngineMatch()
    live(m, "home")
    foul = m.post(Foul("away", player=2, spot=(18.0, 7.0), card="yellow"))["seq"]
    taken = m.take()["seq"]
    m.post(Goal("home", 1))
    w = what_if(m.setup, m.log, [Change("void", {"target": foul, "reason": "no foul"})])
    assert [r.seq for r in w.what_if.refused] == [taken]  # no free kick to take: the ball was live
    assert w.what_if.state.score == w.actual.state.score == {"home": 1, "away": 0}  # the goal still counts
    assert w.actual.state.teams["away"].yellow == [2] and w.what_if.state.teams["away"].yellow == []
    assert w.actual.restart_after is not None and w.actual.restart_after.type == "free_kick"
    assert w.what_if.restart_after is None  # before the voided foul the ball was in play


def test_issue24_C4_a_late_inserted_card_sends_off_and_changes_the_suspension() -> None:
    m = EngineMatch()
    live(m, "home")
    first = m.post(Card("away", 2, "yellow"))["seq"]
    m.post(Goal("home", 1))
    m.post(Substitution("away", out=2, **{"in_": 7}))  # at the free stoppage after the goal
    w = what_if(
        m.setup,
        m.log,
        [Change("insert", {"after": first, "event": {"type": "card", "team": "away", "player": 2, "color": "yellow"}})],
    )
    assert 2 in w.what_if.state.teams["away"].sent_off and 2 not in w.actual.state.teams["away"].sent_off
    (sub,) = w.what_if.refused  # a player sent off cannot be substituted out: he has left
    assert sub.type == "substitution"
    rules = Discipline(red_matches=1)

    def suspended(state_cards: dict[int, object]) -> list[tuple[int, str]]:
        season = {"away": [Appearance("f1", "served", state_cards), Appearance("f2", "pending", {})]}  # type: ignore[dict-item]
        return [(s.player, s.covers[0]) for s in suspensions(season, rules)]

    assert suspended(cards(w.actual.state)["away"]) == []
    assert suspended(cards(w.what_if.state)["away"]) == [(2, "f2")]  # he misses the next fixture


def test_issue24_D8_a_change_that_is_itself_illegal_is_refused_with_its_own_rule() -> None:
    m = EngineMatch()
    live(m, "home")
    goal = m.post(Goal("home", 3))["seq"]
    with pytest.raises(RuleViolation) as refusal:
        what_if(m.setup, m.log, [Change("amend", {"target": goal, "event": {"type": "steal", "team": "home"}})])
    assert refusal.value.rule == "6.2"  # home has the ball: a steal is the other team's


def test_issue24_D8_a_void_cannot_be_voided_in_a_what_if_either() -> None:
    m = EngineMatch()
    live(m, "home")
    goal = m.post(Goal("home", 3))["seq"]
    m.void(goal)
    void = m.seq
    with pytest.raises(RuleViolation) as refusal:
        what_if(m.setup, m.log, [Change("void", {"target": void, "reason": ""})])
    assert refusal.value.rule == "D8"


def test_issue24_a_what_if_needs_a_seq_the_log_has() -> None:
    m = EngineMatch()
    live(m, "home")
    with pytest.raises(KeyError):
        what_if(m.setup, m.log, [Change("void", {"target": 99, "reason": ""})])
