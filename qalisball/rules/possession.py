"""Possession during play (6, 13.1 note): steals, catches, attacks, missed shots."""

from __future__ import annotations

from . import field as geo
from . import v1
from .common import other_team
from .errors import N_, RuleViolation
from .events import Attack, Catch, ShotMissed, Steal
from .judging import _forgive, _gain_possession, _handle, _require_live
from .state import MatchState


@_handle.register
def _steal(ev: Steal, s: MatchState, now: int) -> None:
    _require_live(s, "6.2", N_("a steal"))
    if s.possession == ev.team:
        raise RuleViolation("6.2", N_("{team} already has the ball: a steal is by the other team"), {"team": ev.team})
    s.restart_in_play = None
    _gain_possession(s, ev.team)
    s.attacking = False  # not yet attacking (13.1 note): the referee marks it with "attack"


@_handle.register
def _catch(ev: Catch, s: MatchState, now: int) -> None:
    _require_live(s, "6.2", N_("a catch"))
    if s.possession == ev.team:
        raise RuleViolation("6.2", N_("{team} has the ball: a catch is made by the defending team"), {"team": ev.team})
    if s.setup.rules.book.mixed_contact_rule and ev.player is not None and ev.caught is not None:
        catcher, caught = s.teams[ev.team].roster.get(ev.player), s.teams[other_team(ev.team)].roster.get(ev.caught)
        refusal = v1.mixed_catch_refusal(catcher.gender if catcher else None, caught.gender if caught else None)
        if refusal is not None:
            raise refusal  # V1-9, V1-D14
    s.restart_in_play = None


@_handle.register
def _attack(ev: Attack, s: MatchState, now: int) -> None:
    _require_live(s, "13.1", N_("an attack"))
    if s.possession != ev.team:
        raise RuleViolation("13.1", N_("{team} does not have the ball"), {"team": ev.team})
    s.attacking = True
    s.restart_in_play = None


@_handle.register
def _shot_missed(ev: ShotMissed, s: MatchState, now: int) -> None:
    _require_live(s, "6.1", N_("a missed shot"))
    if s.possession != ev.team:
        raise RuleViolation("6.1", N_("{team} does not have the ball"), {"team": ev.team})
    # With a spot, a missed shot is an error only when it would be forgiven (SPEC §6); otherwise it
    # is statistics and play goes on.
    if ev.spot is None or not _forgive(s, ev.team, ev.player, geo.Point(*ev.spot)):
        s.restart_in_play = None
