"""Restarts taken and goals (5.2, 7, 10)."""

from __future__ import annotations

from . import field as geo
from . import v1
from .common import other_team
from .errors import N_, RuleViolation
from .events import Goal, RestartTaken
from .judging import (
    NEXT_END_LINE,
    NEXT_STOPPAGE,
    RESTART_WORDS,
    _awarded,
    _explain,
    _give_restart,
    _handle,
    _require_half,
    _require_live,
    _rule,
    _stop,
)
from .rulings import GoalCounted, PenaltyConverted, PenaltyInPlay, PenaltyMissed
from .rulings import RestartTaken as RestartTakenRuling
from .state import MatchState, Restart


@_handle.register
def _restart_taken(ev: RestartTaken, s: MatchState, now: int) -> None:
    _require_half(s, "10.1", N_("a restart"))
    r = s.restart
    if s.ball == "live" or r is None:
        raise RuleViolation("10.1", N_("no restart is pending: the ball is in play"), details=NEXT_STOPPAGE)
    book = s.setup.rules.book
    rule, what = book.restart_rule[r.type], RESTART_WORDS[r.type]
    if ev.team != r.team:
        raise RuleViolation(
            rule, N_("the {what} is {restarting}'s, not {team}'s"), {"what": what, "restarting": r.team, "team": ev.team}
        )
    ts = s.teams[ev.team]
    if ev.player is None:
        if r.type == "penalty" and book.penalty_taker_required:  # 1.0 names none (V1-D13)
            raise RuleViolation(
                "10.8", N_("name the penalty taker: rule 10.8 has the taker chosen among the players on the field")
            )
        _take_restart(s, r, None)
        return
    if ev.player in ts.sent_off:
        raise RuleViolation(
            "9.3",
            N_("#{player} of {team} was sent off and takes no restart: choose a player on the field"),
            {"player": ev.player, "team": ev.team},
        )
    if ev.player not in ts.on_field:
        raise RuleViolation(
            rule,
            N_("#{player} of {team} is not on the field and cannot take the {what}"),
            {"player": ev.player, "team": ev.team, "what": what},
        )
    if (ev.team, ev.player) in s.stoppage.came_on and book.substitution_initiative:  # 1.0 has no 11.2 (V1-D11)
        raise RuleViolation(
            "11.2",
            N_("#{player} came on at this stoppage and may not take its {what}: choose another player"),
            {"player": ev.player, "what": what},
        )
    _take_restart(s, r, ev.player)


def _take_restart(s: MatchState, r: Restart, player: int | None) -> None:
    s.ball, s.restart, s.restart_in_play = "live", None, r
    _rule(s, RestartTakenRuling(r, player))
    if r.type == "penalty":
        s.penalty_in_play = PenaltyInPlay(r.team, player)  # converted or missed later (10.8)
    s.last_goal_at = None  # the 30 s return (7.2) ends with the kickoff
    # A replacement for a sent-off player is made at that dead ball (11.2); it lapses once play
    # restarts (a team still short may then bring a player on at its next chance, SPEC §5.3) —
    # unless 11.3 forbade it at this injury stoppage: then it waits for the next dead ball (M5).
    injury = s.stoppage.kind == "injury"
    for t in s.teams:
        ts = s.teams[t]
        ts.replacements_carried = ts.replacements_due if injury else 0
        ts.replacements_due = 0


@_handle.register
def _goal(ev: Goal, s: MatchState, now: int) -> None:
    _require_live(s, "7.1", N_("a goal"))
    if ev.player is not None and ev.player not in s.teams[ev.team].on_field:
        raise RuleViolation("7.1", N_("#{player} of {team} is not on the field"), {"player": ev.player, "team": ev.team})
    if ev.direct and s.restart_in_play is not None and s.restart_in_play.type == "end_line":
        raise RuleViolation(
            "10.4", N_("a bottle knocked down straight from an end-line ball does not count"), details=NEXT_END_LINE
        )
    if ev.direct and s.restart_in_play is not None and s.restart_in_play.type in s.setup.rules.book.pass_only:
        raise v1.kickoff_is_a_pass()  # V1-3: the kickoff is a pass; the ball stays live
    s.score[ev.team] += 1
    _rule(s, GoalCounted(ev.team, ev.player, ev.direct))
    pen = s.penalty_in_play
    if pen is not None:
        # Straight from the penalty: its team scores before the ball is dead or the other team has it (10.8).
        s.penalty_in_play = None
        _rule(s, PenaltyConverted(pen.team, pen.taker, ev.player) if pen.team == ev.team else PenaltyMissed(pen.team, pen.taker))
    s.last_goal_at = now
    _stop(s, "free")  # after a goal both teams may substitute (11.2)
    # The team that conceded kicks off (5.3).
    _give_restart(s, "kickoff", other_team(ev.team), geo.centre_spot(s.setup.field))
    _explain(s, "5.3", N_("goal by {team}: the other team kicks off"), team=ev.team)
    _awarded(s)
