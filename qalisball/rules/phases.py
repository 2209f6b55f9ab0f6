"""Phases, coin toss, clock (3.1, 5.1, 5.3) and abandoning a match (4.2)."""

from __future__ import annotations

from . import field as geo
from .common import other_team
from .errors import N_, RuleViolation
from .events import Abandon, ClockChange, CoinToss, PeriodEnd, PeriodStart
from .judging import _awarded, _explain, _give_restart, _handle, _mmss, _phase_words, _stop, time_up
from .state import HALVES, MatchState


@_handle.register
def _coin_toss(ev: CoinToss, s: MatchState, now: int) -> None:
    if s.phase != "scheduled":
        raise RuleViolation("5.1", N_("the coin toss happens before the match starts"))
    if s.toss_kickoff is not None:
        raise RuleViolation("5.1", N_("the coin has already been tossed: void that toss to redo it"))
    s.toss_kickoff, s.home_end_first_half = ev.kickoff, ev.home_end


@_handle.register
def _period_start(ev: PeriodStart, s: MatchState, now: int) -> None:
    if s.phase == "scheduled":
        if s.toss_kickoff is None:
            raise RuleViolation("5.1", N_("toss the coin first: it decides who kicks off and the ends"))
        s.phase, s.period, kicker = "first_half", 1, s.toss_kickoff
    elif s.phase == "halftime":
        assert s.toss_kickoff is not None
        # The second half: ends switched (3.1), kicked off by the other team (5.3).
        s.phase, s.period, kicker = "second_half", 2, other_team(s.toss_kickoff)
    else:
        raise RuleViolation("3.1", N_("a half cannot start during the {phase}"), {"phase": _phase_words(s)})
    s.clock.start(now, s.setup.rules.half_ms)
    s.halftime_started_at = None
    _stop(s, "free")  # before the kickoff both teams may substitute (11.2)
    _give_restart(s, "kickoff", kicker, geo.centre_spot(s.setup.field))
    _explain(s, "5.1" if s.period == 1 else "5.3", N_("the half begins: {team} kicks off"), team=kicker)
    _awarded(s)


@_handle.register
def _period_end(ev: PeriodEnd, s: MatchState, now: int) -> None:
    if s.phase not in HALVES:
        raise RuleViolation("3.1", N_("no half is being played (the {phase})"), {"phase": _phase_words(s)})
    if not time_up(s, now):
        left = s.clock.length_ms - s.clock.elapsed(now)
        raise RuleViolation(
            "3.1",
            N_("the half has {left} left: it ends when its time is up (set the clock if it is wrong)"),
            {"left": _mmss(left)},
        )
    s.clock.pause(now)
    _stop(s, "free")
    s.restart, s.possession, s.attacking = None, None, False
    for t in s.teams:
        s.teams[t].ma_team = None
    s.halves_ended += 1
    if s.phase == "first_half":
        s.phase, s.halftime_started_at = "halftime", now
    elif s.score["home"] == s.score["away"]:
        # Level after two halves: penalty shootout (3.2, 12); in 1.0 a draw, winner null (V1-D2).
        s.phase = "shootout" if s.setup.rules.level_goes_to_shootout else "finished"
    else:
        s.phase = "finished"
        s.winner = "home" if s.score["home"] > s.score["away"] else "away"  # 1.3


@_handle.register
def _clock(ev: ClockChange, s: MatchState, now: int) -> None:
    if s.phase not in HALVES:
        raise RuleViolation("3.1", N_("the game clock runs only during a half, not the {phase}"), {"phase": _phase_words(s)})
    c = s.clock
    if ev.action == "pause":
        if not c.running:
            raise RuleViolation("3.1", N_("the clock is already paused"))
        c.pause(now)
    elif ev.action == "resume":
        if c.running:
            raise RuleViolation("3.1", N_("the clock is already running"))
        if c.elapsed(now) >= c.length_ms:
            raise RuleViolation("3.1", N_("the half's time is up: set the clock back before resuming it"))
        c.resume(now)
    else:
        assert ev.elapsed_ms is not None  # the schema requires it for "set"
        c.set(now, min(ev.elapsed_ms, c.length_ms))  # check_references refuses longer (400)


@_handle.register
def _abandon(ev: Abandon, s: MatchState, now: int) -> None:
    if s.phase in HALVES:
        s.clock.pause(now)
    s.phase, s.abandon_reason, s.ball, s.restart, s.possession = "abandoned", ev.reason, "dead", None, None
    s.winner = None  # an abandoned match has no result, even one abandoned after its end (SPEC §2)
