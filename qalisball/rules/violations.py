"""Violations (8): SPEC §3's call table."""

from __future__ import annotations

from . import field as geo
from .catalogue import violation_rule, violation_words
from .common import Side, other_team
from .errors import N_, RuleViolation
from .events import Violation
from .judging import (
    AREA_TAP_TOLERANCE,
    _at_end,
    _awarded,
    _explain_call,
    _forgive,
    _free_kick,
    _give,
    _handle,
    _need_spot,
    _require_half,
    _require_live,
    _stop,
)
from .state import MatchState, Restart

# Every violation kind the engine rules, each in its own branch below: the catalogue's kinds
# (tests/test_decide.py holds the two equal). A kind without its rule is an error, never another kind's ruling.
RULED_KINDS = frozenset({"ball_out_side", "ball_out_end", "ball_in_area", "ball_grounded", "caught", "player_in_area", "restart"})


def _no_rule(kind: str) -> TypeError:
    return TypeError(f"no rule for violation kind {kind!r}: rule it in rules/violations.py")


@_handle.register
def _violation(ev: Violation, s: MatchState, now: int) -> None:
    if ev.kind not in RULED_KINDS:
        raise _no_rule(ev.kind)
    _require_half(s, "8.1", N_("a violation"))
    if ev.kind == "restart":
        _restart_violation(ev, s)
        return
    _require_live(s, "8.1", violation_words(ev.kind))
    spot = _need_spot(ev.spot, f"a {ev.kind} violation")
    f = s.setup.field
    winner = other_team(ev.team)
    if ev.kind == "ball_out_side":
        if not f.side_lines:
            raise RuleViolation("2.1", N_("this field has no side lines: no side-line ball can be called"))
        outcome = Restart("side_line", winner, geo.side_line_spot(f, spot))  # 8.2, 10.5
    elif ev.kind in ("ball_out_end", "ball_in_area"):
        # 8.2 / 8.4, 10.4: end-line ball at that end, behind the restart line on the event's side;
        # 1.0: a corner, or a short corner for a ball in an area (V1-6, V1-D4, V1-D5).
        book = s.setup.rules.book
        kind = book.over_end_line if ev.kind == "ball_out_end" else book.into_area
        outcome = _at_end(s, kind, winner, geo.nearest_end(f, spot), geo.side_of(f, spot))
    elif ev.kind == "ball_grounded":
        if geo.area_at(f, spot) is not None:
            raise RuleViolation("8.4", N_("the ball landed in a restricted area: call ball_in_area"))
        outcome = _free_kick(s, winner, spot)  # 8.3, 10.7
    elif ev.kind == "caught":
        outcome = _free_kick(s, winner, spot)  # 6.2, 8.6, 10.7
    elif ev.kind == "player_in_area":  # 8.5
        area = geo.area_at(f, spot, AREA_TAP_TOLERANCE)
        if area is None:
            raise RuleViolation("8.5", N_("the spot is not in a restricted area: tap where the player entered it"))
        if area == s.defended_end(ev.team):
            # His own area: a penalty for the other team, whoever had the ball (8.5, D9).
            outcome = Restart("penalty", winner, geo.penalty_spot(f, area), area)
        else:
            # The opponents' area: end-line ball for the area's team at that end (D1); 1.0: a short corner (V1-D6).
            outcome = _at_end(s, s.setup.rules.book.into_area, winner, area, geo.side_of(f, spot))
        _stop(s)
        _give(s, outcome)  # never forgiven by multiple attack opportunities (D7)
        _explain_call(s, "8.5" if outcome.type == "penalty" else "D1", ev.kind, ev.team, ev.player)
        _awarded(s)
        return
    else:
        raise _no_rule(ev.kind)
    if ev.kind in ("ball_out_end", "ball_in_area") and s.possession == ev.team and outcome.end == s.defended_end(winner):
        # 13.1 note, 4: the ball over the opponents' end line or into their area shows the team
        # was attacking.
        s.attacking = True
    if not _forgive(s, ev.team, ev.player, spot):
        _stop(s)
        _give(s, outcome)
        _explain_call(s, violation_rule(ev.kind), ev.kind, ev.team, ev.player)
        _awarded(s)


def _restart_violation(ev: Violation, s: MatchState) -> None:
    """8.7: the same restart at the same spot for the other team; a penalty becomes an end-line ball (D2)."""
    pending = s.ball == "dead" and s.restart is not None
    r = s.restart if pending else s.restart_in_play
    if r is None:
        raise RuleViolation("8.7", N_("no restart is being taken: a restart violation needs one"))
    if r.team != ev.team and (breach := s.setup.rules.book.other_team_breach) is not None:
        raise breach(r.team)  # the book's own refusal (1.0: V1-D8)
    if r.team != ev.team:
        raise RuleViolation(
            "8.7",
            N_("the restart is {restarting}'s; a defender inside 2.5 m is a foul (9.2), not a restart violation"),
            {"restarting": r.team},
        )
    if _forgive(s, ev.team, ev.player, None, retake=r):
        return
    if not pending:
        _stop(s)
    _give(s, _restart_for_opponents(s, r, ev.side))
    _explain_call(s, "D2" if r.type == "penalty" else "8.7", "restart", ev.team, ev.player)
    _awarded(s)


def _restart_for_opponents(s: MatchState, r: Restart, side: Side) -> Restart:
    """The restart ``r`` handed to the other team (8.7, 10.4, 10.5 special cases; D2; 1.0: V1-D8)."""
    winner = other_team(r.team)
    if r.type == "penalty":
        assert r.end is not None
        return _at_end(s, s.setup.rules.book.into_area, winner, r.end, side)
    if r.type == "free_kick":
        return _free_kick(s, winner, r.spot)
    return Restart(r.type, winner, r.spot, r.end)
