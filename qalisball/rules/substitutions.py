"""Substitutions and injuries (11)."""

from __future__ import annotations

from .common import Team
from .errors import N_, RuleViolation
from .events import Injury, Substitution
from .judging import (
    _awarded,
    _eligible_bench,
    _explain,
    _free_kick,
    _give,
    _handle,
    _need_spot,
    _phase_words,
    _rule,
    _stop,
    time_up,
)
from .rulings import LeftInjured, RestartStands
from .state import HALVES, MatchState


def substitution_refusal(state: MatchState, team: Team, now: int) -> RuleViolation | None:
    """Why an ordinary substitution (a player off, another on) for ``team`` is refused now, if it is.

    Only while the ball is dead (11.1); the initiative rule (11.1): at each stoppage the restarting
    team may substitute, the other only after it; after a goal, before a kickoff and at half-time
    both freely (11.2); never at an injury stoppage called during live play (11.3).
    """
    return _dead_ball_refusal(state, now) or _initiative_refusal(state, team, now)


def _dead_ball_refusal(state: MatchState, now: int) -> RuleViolation | None:
    if state.phase not in ("scheduled", "first_half", "halftime", "second_half"):
        return RuleViolation(
            "11.1",
            N_("no substitutions in the {phase}: they are made before the match, at half-time, or at a dead ball during a half"),
            {"phase": _phase_words(state)},
        )
    if state.phase in HALVES and state.ball == "live" and not time_up(state, now):
        return RuleViolation("11.1", N_("substitutions are made only while the ball is dead: wait for the next stoppage"))
    return None


def _initiative_refusal(state: MatchState, team: Team, now: int) -> RuleViolation | None:
    if not state.setup.rules.book.substitution_initiative:
        return None  # 1.0: either team at any dead ball, injury stoppages included (V1-D11, V1-D12)
    if state.phase in ("scheduled", "halftime") or time_up(state, now):
        return None  # both teams freely (11.2, D13)
    if state.stoppage.kind == "injury":
        return RuleViolation(
            "11.3",
            N_(
                "no substitutions at an injury stoppage called during live play; "
                "the injured player's team may bring a player on at its next chance to substitute"
            ),
        )
    restart = state.restart
    if state.stoppage.kind == "free" or restart is None:
        return None
    if team == restart.team or restart.team in state.stoppage.substituted:
        return None
    return RuleViolation(
        "11.1",
        N_(
            "{team} has no restart at this stoppage and {restarting} did not substitute: "
            "{team} may substitute after {restarting} has substituted at this stoppage"
        ),
        {"team": team, "restarting": restart.team},
    )


def may_substitute(state: MatchState, team: Team, now: int) -> bool:
    """True exactly when an ordinary substitution for ``team`` would be accepted now (SPEC §5.6)."""
    if substitution_refusal(state, team, now) is not None:
        return False
    ts = state.teams[team]
    return bool(ts.on_field) and bool(_eligible_bench(state, team))


@_handle.register
def _substitution(ev: Substitution, s: MatchState, now: int) -> None:
    ts = s.teams[ev.team]
    n = s.setup.starters
    roster_rule = s.setup.rules.book.roster_rule  # SPEC §5.5's checks (1.0: V1-2)
    refusal = _dead_ball_refusal(s, now)
    if refusal is not None:
        raise refusal
    bench = ", ".join(f"#{p}" for p in _eligible_bench(s, ev.team)) or "nobody"
    if ev.out is None:
        if len(ts.on_field) >= n:
            raise RuleViolation(
                roster_rule,
                N_("{team} already has {n} players on the field: name the player going off"),
                {"team": ev.team, "n": n},
            )
        refusal = _initiative_refusal(s, ev.team, now)
        # The replacement right (11.2, D15) — never at the injury stoppage itself (11.3), which
        # carries it to the next dead ball (M5).
        if ts.replacements_due > 0 and (refusal is None or refusal.rule == "11.1"):
            ts.replacements_due -= 1  # the sent-off player's replacement, whatever the initiative (11.2, D15)
        elif refusal is not None:
            raise refusal
    else:
        refusal = _initiative_refusal(s, ev.team, now)
        if refusal is not None:
            raise refusal
        if ev.out not in ts.on_field:
            on = ", ".join(f"#{p}" for p in ts.on_field)
            raise RuleViolation(
                roster_rule,
                N_("#{out} of {team} is not on the field: the player going off is one of {on}"),
                {"out": ev.out, "team": ev.team, "on": on},
            )
    if ev.in_ in ts.sent_off:
        raise RuleViolation(
            "9.3",
            N_("#{in} of {team} was sent off and may not come back (D5): bring on one of {bench}"),
            {"in": ev.in_, "team": ev.team, "bench": bench},
        )
    if ev.in_ in ts.on_field:
        raise RuleViolation(
            roster_rule,
            N_("#{in} of {team} is already on the field: bring on one of {bench}"),
            {"in": ev.in_, "team": ev.team, "bench": bench},
        )
    if ev.out is not None:
        ts.on_field[ts.on_field.index(ev.out)] = ev.in_
    else:
        ts.on_field.append(ev.in_)
    if ev.in_ in ts.injured:
        ts.injured.remove(ev.in_)
    s.stoppage.substituted.add(ev.team)
    s.stoppage.came_on.add((ev.team, ev.in_))


@_handle.register
def _injury(ev: Injury, s: MatchState, now: int) -> None:
    if s.phase not in ("scheduled", "first_half", "halftime", "second_half"):
        raise RuleViolation("11.3", N_("no injuries are logged in the {phase}"), {"phase": _phase_words(s)})
    ts = s.teams[ev.team]
    if ev.player not in ts.on_field:
        raise RuleViolation("11.3", N_("#{player} of {team} is not on the field"), {"player": ev.player, "team": ev.team})
    live = s.phase in HALVES and s.ball == "live" and not time_up(s, now)
    if live:
        spot = _need_spot(ev.spot, "an injury stoppage during play")
        holder = s.possession
        assert holder is not None
        _stop(s, "injury")
        # A free kick for the team that had the ball, where it was last touched (11.3, 10.6).
        _give(s, _free_kick(s, holder, spot))
        _explain(s, "11.3", N_("injury stoppage: {team} keeps the ball"), team=holder)
        _awarded(s)
    elif s.restart is not None and s.ball == "dead":
        _rule(s, RestartStands(s.restart, "11.3"))  # an injury at a dead ball changes no restart
    # The injured player always leaves the field (11.3).
    ts.on_field.remove(ev.player)
    ts.injured.append(ev.player)
    _rule(s, LeftInjured(ev.team, ev.player))
