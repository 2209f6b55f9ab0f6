"""The shootout's calls (12): its start and each kick (``shootout.py`` is its state machine)."""

from __future__ import annotations

from . import shootout as so
from . import v1
from .errors import N_, RuleViolation
from .events import ShootoutKick, ShootoutStart
from .judging import _handle, _rule
from .rulings import ShootoutKickTaken
from .state import MatchState


@_handle.register
def _shootout_start(ev: ShootoutStart, s: MatchState, now: int) -> None:
    if not s.setup.rules.level_goes_to_shootout:
        raise v1.no_shootout()
    if s.phase != "shootout":
        raise RuleViolation("12.1", N_("a shootout follows a second half that ended level"))
    if s.shootout is not None:
        raise RuleViolation("12.2", N_("the shootout has already started"))
    ineligible = {t: tuple(s.teams[t].sent_off) for t in s.teams}
    takers = {t: ev.takers_of(t) for t in s.teams}
    s.shootout = so.start(ev.first, takers, s.setup.rules.shootout_rounds, ineligible)


@_handle.register
def _shootout_kick(ev: ShootoutKick, s: MatchState, now: int) -> None:
    if not s.setup.rules.level_goes_to_shootout:
        raise v1.no_shootout()
    if s.phase != "shootout" or s.shootout is None:
        raise RuleViolation("12.2", N_("no shootout is under way: record its toss and takers first"))
    nxt = s.shootout.next_kick()
    if nxt is not None and nxt.team == ev.team and ev.scored and nxt.player in s.teams[ev.team].sent_off:
        raise RuleViolation(
            "D5", N_("#{player} of {team} was sent off: the kick is recorded as missed"), {"player": nxt.player, "team": ev.team}
        )
    s.shootout = so.kick(s.shootout, ev.team, ev.scored)
    k = s.shootout.kicks[-1]
    _rule(s, ShootoutKickTaken(k.team, k.player, k.round, k.points, k.scored))
    if s.shootout.decided:
        s.phase, s.winner = "finished", s.shootout.winner
