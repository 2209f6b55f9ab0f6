"""What every chapter's handlers share: the handler table (``_handle``), recording a ruling (``_rule``),
awarding a restart and why (10), possession and multiple attack opportunities (13.1), the words of phases.

Section numbers in comments are the rule book's.
"""

from __future__ import annotations

import dataclasses
from functools import singledispatch
from typing import Any

from . import field as geo
from .book import BOOK_2_0
from .catalogue import violation_label
from .common import Side, Team, other_team
from .errors import N_, InvalidEvent, RuleViolation
from .events import Event
from .rulings import KINDS, ErrorForgiven, FreeKickMoved, RestartAwarded, RestartStands, Ruling, to_json
from .rulings import RestartTaken as RestartTakenRuling
from .state import HALVES, MatchState, Restart, RestartType, Stoppage, Why

# The rule that governs taking each restart type in 2.0: cited when the wrong team or player takes it
# (each rule book's own table is its ``restart_rule``, book.py).
RESTART_RULE = BOOK_2_0.restart_rule


RESTART_WORDS: dict[RestartType, str] = {
    "kickoff": N_("kickoff"),
    "end_line": N_("end-line ball"),
    "side_line": N_("side-line ball"),
    "free_kick": N_("free kick"),
    "penalty": N_("penalty"),
    "corner": N_("corner"),  # 1.0 (V1-6)
    "short_corner": N_("short corner"),  # 1.0 (V1-6)
}


# D169: what a refusal because the ball is dead or in play asks to be logged first (the refusal's
# ``next_call``: a console call, or "stoppage" for any call that stops play). Each console turns it into
# a hint naming only what its role may log (the catalogue's ``who``), "ask the referee" otherwise.
NEXT_RESTART: dict[str, object] = {"next_call": "restart_taken"}


NEXT_END_LINE: dict[str, object] = {"next_call": "ball_out_end"}


NEXT_STOPPAGE: dict[str, object] = {"next_call": "stoppage"}


# A tapped spot may be a little off the area line on a tablet: an area entry within this distance
# of the area still counts (metres).
AREA_TAP_TOLERANCE = 0.5


def time_up(state: MatchState, now: int) -> bool:
    """A half's time is up (3.1): play is dead, no restart pending (10.2)."""
    return state.phase in HALVES and state.clock.elapsed(now) >= state.clock.length_ms


@singledispatch
def _handle(event: Event, s: MatchState, now: int) -> None:  # pragma: no cover - every type is registered
    raise TypeError(f"no rule for event type {event.type}")


class _Disagrees(Exception):
    """The engine running now rules a stored call otherwise than it was ruled (``_rule`` while following)."""


def _forgiven(s: MatchState, r: ErrorForgiven) -> None:
    """13.1 as ruled: the holder has ``r.left`` attack chances left."""
    ts = s.teams[r.team]
    if r.player is not None and s.setup.rules.multi_attack.mode == "players":
        ts.ma_players[r.player] = r.left
    else:
        ts.ma_team = r.left


def _require_half(s: MatchState, rule: str, what: str) -> None:
    if s.phase not in HALVES:
        raise RuleViolation(
            rule, N_("{what} can only happen during a half, not the {phase}"), {"what": what, "phase": _phase_words(s)}
        )


def _require_live(s: MatchState, rule: str, what: str) -> None:
    _require_half(s, rule, what)
    if s.ball != "live":
        if s.restart is None:
            raise RuleViolation(rule, N_("the ball is dead: {what} needs the ball in play"), {"what": what})
        raise RuleViolation(
            rule,
            N_("the ball is dead ({restarting}'s {restart} is pending): {what} needs the ball in play"),
            {"restarting": s.restart.team, "restart": RESTART_WORDS[s.restart.type], "what": what},
            NEXT_RESTART,
        )


def _need_spot(spot: tuple[float, float] | None, what: str) -> geo.Point:
    if spot is None:
        raise InvalidEvent({"spot": [f"{what} needs a spot"]})
    return geo.Point(*spot)


def _side_or_low(s: MatchState, spot: tuple[float, float] | None) -> Side:
    return geo.side_of(s.setup.field, geo.Point(*spot)) if spot is not None else "low"


def _free_kick(s: MatchState, team: Team, origin: geo.Point) -> Restart:
    """A free kick for ``team``, moved out by the 3 m rule from the other team's area (10.8); 1.0: by
    2 m from either area, the nearer one (V1-6, V1-D7: fields are at least 35 m long, so only one counts)."""
    book, f = s.setup.rules.book, s.setup.field
    guarded = geo.nearest_end(f, geo.clamp_to_field(f, origin)) if book.clear_both_areas else s.defended_end(other_team(team))
    spot = geo.free_kick_spot(f, origin, guarded, book.free_kick_clearance)
    moved = spot != geo.clamp_to_field(s.setup.field, origin)
    return Restart("free_kick", team, spot, origin=geo.clamp_to_field(s.setup.field, origin) if moved else None)


def _stop(s: MatchState, kind: Any = "normal") -> None:
    """The ball becomes dead: a new stoppage begins (10.2); a right carried from an injury stoppage is due now (M5)."""
    s.ball, s.restart_in_play, s.stoppage = "dead", None, Stoppage(kind=kind)
    for ts in s.teams.values():
        ts.replacements_due += ts.replacements_carried
        ts.replacements_carried = 0


def _rule(s: MatchState, ruling: Ruling) -> None:
    """Record a decision as the engine makes it (rulings.py): the replay's step carries it to the reports.

    Replaying a stored entry (``s.following``, issue 28) the decision is the one stored: the restart it
    carries (type, team, spot, why) and the attack chances left stand as they were ruled."""
    f = s.following
    if f is not None:
        i = len(s.rulings)
        if i >= len(f) or type(f[i]) is not type(ruling):
            raise _Disagrees(f"today's engine rules {KINDS[type(ruling)]} where {_kind_at(f, i)} was stored")
        if ruling != f[i] and s.overruled is None:
            s.overruled = _difference(ruling, f[i])
        ruling = f[i]
        if isinstance(ruling, RestartAwarded | RestartStands):
            s.restart = ruling.restart
        elif isinstance(ruling, ErrorForgiven):
            s.restart = ruling.restart
            _forgiven(s, ruling)
        elif isinstance(ruling, RestartTakenRuling):
            s.restart_in_play = ruling.restart
    s.rulings = (*s.rulings, ruling)


def _difference(decided: Ruling, stored: Ruling) -> str:
    """What today's engine would rule otherwise on a stored call, said for ``verify`` (issue 28)."""
    now, was = to_json(decided), to_json(stored)
    facts = ", ".join(f"{k} {now.get(k)!r} instead of {was.get(k)!r}" for k in now if now.get(k) != was.get(k))
    return f"today's engine would rule its {now['kind']} otherwise: {facts}"


def _kind_at(f: tuple[Ruling, ...], i: int) -> str:
    return KINDS[type(f[i])] if i < len(f) else "nothing"


def _awarded(s: MatchState, retake: bool = False) -> None:
    """The pending restart, with why it was given, is this event's ruling (and its 3 m move, 10.8)."""
    assert s.restart is not None
    _rule(s, RestartAwarded(s.restart, retake))
    r = s.restart  # as ruled: a stored entry's replay follows its stored restart (issue 28)
    assert r is not None
    if r.origin is not None:
        _rule(s, FreeKickMoved(r.team, r.origin, r.spot, s.setup.rules.book.retreat_rule))


def _give(s: MatchState, restart: Restart) -> None:
    _give_restart(s, restart.type, restart.team, restart.spot, restart.end)
    if restart.origin is not None and s.restart is not None:
        s.restart = dataclasses.replace(s.restart, origin=restart.origin)


def _explain(s: MatchState, rule: str, template: str, **params: object) -> None:
    """Say why the pending restart was given (spectators see it in their language, issue 13)."""
    if s.restart is not None:
        cited = s.setup.rules.book.cite(rule)  # a 1.0 match's restarts cite 1.0 (SPEC §11.12)
        s.restart = dataclasses.replace(s.restart, why=Why(cited, template, tuple(params.items())))


def _explain_call(s: MatchState, rule: str, kind: str, team: Team, player: int | None) -> None:
    what = violation_label(kind)
    if player is None:
        _explain(s, rule, N_("{what} by {team}"), what=what, team=team)
    else:
        _explain(s, rule, N_("{what} by {team} #{player}"), what=what, team=team, player=player)


def _explain_foul(s: MatchState, rule: str, team: Team, player: int | None) -> None:
    if player is None:
        _explain(s, rule, N_("foul by {team}"), team=team)
    else:
        _explain(s, rule, N_("foul by {team} #{player}"), team=team, player=player)


def _at_end(s: MatchState, kind: RestartType, team: Team, end: Any, side: Side) -> Restart:
    """A restart taken at ``end`` on ``side``: an end-line ball (10.4), or 1.0's corner at the field's corner
    (V1-D4) or short corner at the end-line restart line's midpoint (V1-D5)."""
    spot = {"corner": geo.corner_spot, "short_corner": geo.short_corner_spot}.get(kind, geo.end_line_restart_spot)
    return Restart(kind, team, spot(s.setup.field, end, side), end)


def _give_restart(s: MatchState, kind: RestartType, team: Team, spot: geo.Point, end: Any = None) -> None:
    """Award a restart: its team has the ball and is in attacking state (13.1 note, 2)."""
    _gain_possession(s, team)
    s.attacking = True
    s.restart = Restart(kind, team, spot, end)


def _gain_possession(s: MatchState, team: Team) -> None:
    """13.1: losing the ball loses the remaining opportunities; regaining it brings back the full K."""
    if s.possession == team:
        return
    s.possession = team
    ma = s.setup.rules.multi_attack
    for t in s.teams:
        ts = s.teams[t]
        now_numbered = {first: n for n, first in ts.first_numbers.items()}  # renumbered players (M2)
        ts.ma_players = {now_numbered.get(n, n): ma.k for n in ma.designated(t)}
        holds = (ma.mode == "teams" and t in ma.teams) or (
            ma.mode == "trailing" and s.score[t] < s.score[other_team(t)]  # decided now
        )
        ts.ma_team = ma.k if t == team and holds else None


def _forgive(s: MatchState, team: Team, player: int | None, spot: geo.Point | None, retake: Restart | None = None) -> bool:
    """Multiple attack opportunities (13.1): is this error by ``team`` forgiven? If so, restart its attack.

    Forgiven while the team has the ball in attacking state and the holder has more than one
    opportunity left: the attack restarts for the same team with ``retake`` when the error was in
    taking a restart, else with a free kick where the ball was last touched (``spot``, 3 m rule).
    """
    if s.possession != team or not s.attacking:
        return False
    ma = s.setup.rules.multi_attack
    ts = s.teams[team]
    if ma.mode == "players":
        if player is None or ts.ma_players.get(player, 0) <= 1:
            return False
        ts.ma_players[player] -= 1
        left = ts.ma_players[player]
    elif ts.ma_team is not None and ts.ma_team > 1:
        ts.ma_team -= 1
        left = ts.ma_team
    else:
        return False
    if retake is None:
        retake = _free_kick(s, team, geo.clamp_to_field(s.setup.field, _need_spot_point(spot)))
    in_play = s.ball == "live"
    if in_play:
        _stop(s)
    s.restart, s.attacking = retake, True
    _explain(s, "13.1", N_("{team}'s error is forgiven (one attack chance used): the attack starts again"), team=team)
    assert s.restart is not None
    _rule(s, ErrorForgiven(team, player, left, s.restart))
    if in_play:
        _awarded(s, retake=True)  # the ball was in play: the attack restarts (not a new award)
    else:
        _rule(s, RestartStands(s.restart, "13.1"))  # the restart being taken is taken again
    return True


def _need_spot_point(spot: geo.Point | None) -> geo.Point:
    if spot is None:
        raise InvalidEvent({"spot": ["a forgiven error restarts where the ball was last touched: send that spot"]})
    return spot


def _eligible_bench(s: MatchState, team: Team) -> list[int]:
    ts = s.teams[team]
    return [n for n in ts.roster if n not in ts.on_field and n not in ts.sent_off]


def _phase_words(s: MatchState) -> str:
    return {
        "scheduled": N_("time before the match"),
        "first_half": N_("first half"),
        "halftime": N_("half-time break"),
        "second_half": N_("second half"),
        "shootout": N_("penalty shootout"),
        "finished": N_("finished match"),
        "abandoned": N_("abandoned match"),
    }[s.phase]


def _mmss(ms: int) -> str:
    sec = max(0, ms) // 1000
    return f"{sec // 60}:{sec % 60:02d}"
