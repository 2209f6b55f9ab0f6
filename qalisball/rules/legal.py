"""What an official may call now: ``legal_calls(state, now)`` (python-chess's ``generate_legal_moves``).

Every answer comes from the engine itself: each call is tried with ``engine.decide`` on a
representative event (a player on the field, a spot where the call makes sense) and the engine's
own refusal, if any, is the answer. So no screen re-derives a rule: the console greys a button and
shows this refusal; the server still judges the exact event when it is posted (a particular player
or spot can be refused where the representative one was not).

The answer's shape is documented in docs/api-extras.md ("What may be called now").

``legal`` is the same for every official (one state is sent to all consoles). What differs by role is
M4's window (D167): for 10 s of game time after a goal or a ball out, the other officials may log the
same call and are answered "already logged by …". ``duplicate_windows(log)`` says which call is open,
and ``for_role(legal, role, game_ms)`` is the verdicts one role's console shows (the console's script
does the same).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import console_hints, corrections, engine
from . import field as geo
from .catalogue import CARD_COLORS, VIOLATION_KINDS, may_log
from .common import TEAMS, Team
from .errors import N_, InvalidEvent, RuleViolation
from .events import (
    Abandon,
    Attack,
    Card,
    CardColor,
    Catch,
    ClockChange,
    CoinToss,
    Event,
    Foul,
    Goal,
    Injury,
    Note,
    PeriodEnd,
    PeriodStart,
    RestartTaken,
    ShootoutKick,
    ShootoutStart,
    ShotMissed,
    Steal,
    Substitution,
    Violation,
)
from .state import MatchState

Verdict = RuleViolation | None  # None: allowed


def legal_calls(state: MatchState, now: int) -> dict[str, Any]:
    """Every console call's verdict now, in the compact form of docs/api-extras.md."""
    reasons: list[dict[str, Any]] = []
    index: dict[tuple[str, str], int] = {}
    book = state.setup.rules.book

    def verdict(event: Event | RuleViolation) -> bool | int:
        # A refusal made here (not by the engine) cites the match's rule book too (SPEC §11.12).
        refusal = book.recite(event) if isinstance(event, RuleViolation) else _try(state, event, now)
        if refusal is None:
            return True
        key = (refusal.rule, refusal.message)
        if key not in index:
            index[key] = len(reasons)
            reasons.append(
                {
                    "rule": refusal.rule,
                    "message": refusal.message,
                    "template": refusal.template,
                    "params": _jsonable(refusal.params),
                    # D169: what the refusal asks to be logged first, if anything (the console's hint).
                    **({"next_call": refusal.details["next_call"]} if "next_call" in refusal.details else {}),
                }
            )
        return index[key]

    def per_team(make: Callable[[Team], Event | RuleViolation]) -> dict[str, bool | int]:
        return {t: verdict(make(t)) for t in TEAMS}

    calls: dict[str, Any] = {
        "restart_taken": per_team(lambda t: RestartTaken(t, _taker(state, t))),
        "goal": per_team(lambda t: Goal(t)),
    }
    for kind in VIOLATION_KINDS:
        calls[kind.name] = per_team(_violation_maker(state, kind.name))
    centre = geo.centre_spot(state.setup.field)
    calls["foul"] = per_team(lambda t: Foul(t, None, (centre.x, centre.y)))
    for color in CARD_COLORS:
        calls[color.name] = per_team(_card_maker(state, _color(color.name)))
    calls["steal"] = per_team(lambda t: Steal(t))
    calls["catch"] = per_team(lambda t: Catch(t))
    calls["attack"] = per_team(lambda t: Attack(t))
    calls["shot_missed"] = per_team(lambda t: ShotMissed(t))
    calls["injury"] = per_team(lambda t: _on_field_player(state, t, lambda p: Injury(t, p, (centre.x, centre.y))))
    calls["substitution"] = per_team(lambda t: _substitution(state, t, ordinary=True))
    calls["bring_on"] = per_team(lambda t: _substitution(state, t, ordinary=False))
    calls["coin_toss"] = verdict(CoinToss("home", "x0"))
    calls["period_start"] = verdict(PeriodStart())
    calls["period_end"] = verdict(PeriodEnd())
    calls["pause"] = verdict(ClockChange("pause"))
    calls["resume"] = verdict(ClockChange("resume"))
    calls["set"] = verdict(ClockChange("set", 0))
    calls["shootout_start"] = verdict(_shootout_start(state))
    calls["shootout_kick"] = per_team(lambda t: ShootoutKick(t, False))
    calls["abandon"] = verdict(Abandon("-"))
    # The service judges a void's target against the log (D8, M6); a locked match takes none (M6).
    calls["void"] = verdict(engine.locked_refusal()) if state.locked else True
    calls["note"] = verdict(Note("-"))
    # 11.2: who may not take this stoppage's restart, having come on at it (none in 1.0, V1-D11: D342).
    barred = state.ball == "dead" and book.substitution_initiative
    came_on = {t: sorted(n for team, n in state.stoppage.came_on if team == t) if barred else [] for t in TEAMS}
    restart = state.restart
    taker_required = restart is not None and restart.type == "penalty" and book.penalty_taker_required  # V1-D13

    def allowed(call: str, team: Team) -> bool:
        return calls[call][team] is True

    return {
        "reasons": reasons,
        "calls": calls,
        "buttons": _buttons(calls),
        "came_on": came_on,
        "taker_required": taker_required,
        # D342: whether the console asks who takes a team's restart: a penalty's taker (10.8), or one who
        # may not take it is on the field (11.2).
        "taker_asked": {t: taker_required or bool(came_on[t]) for t in TEAMS},
        # How each call is asked for (console_hints.py): the builder holds no rule of its own (issue 21).
        "spot": console_hints.spot_asked(state, now, allowed),
        "may_be_carded": {t: console_hints.may_be_carded(state, t) for t in TEAMS},
        "disallowed_goal": console_hints.disallowed_goal_call(state),
    }


def _buttons(calls: Mapping[str, Any]) -> dict[str, dict[str, bool | int]]:
    """The verdict of each console call that stands for several of ``calls`` (issue 28 item 6, D341).

    The console's one substitution call is an ordinary substitution or a player brought on for nobody
    (after a red card or an injury, 11.2, 11.3): allowed when either is, else the ordinary one's refusal.
    """
    plain, bring_on = calls["substitution"], calls["bring_on"]
    return {"substitution": {t: True if bring_on[t] is True else plain[t] for t in TEAMS}}


def duplicate_windows(log: Iterable[corrections.Row]) -> list[dict[str, Any]]:
    """M4, D167: the call just logged that the other officials may still log, answered as its duplicate.

    ``[{"call", "type", "team", "by", "seq", "until_ms"}]`` (empty or one): the last call, when
    ``corrections.duplicate_of`` would take the same call from any official (D230) as a duplicate of it;
    open until ``until_ms`` of game time (the call's ``at_ms`` + 10 s). The game clock stands while
    paused, so the window does too; anything logged after the call closes it.
    """
    rows = list(log)
    last = corrections.last_call(rows)
    # Whoever logs the same call now (D230: any role): is it a duplicate?
    if last is None or corrections.duplicate_of(rows, "", last.type, last.fields, last.at_ms) is not last:
        return []
    until = None if last.at_ms is None else last.at_ms + corrections.DUPLICATE_WINDOW_MS
    call = str(last.fields["kind"]) if last.type == "violation" else last.type
    return [{"call": call, "type": last.type, "team": last.fields["team"], "by": last.by, "seq": last.seq, "until_ms": until}]


def for_role(legal: Mapping[str, Any], role: str, game_ms: int | None) -> dict[str, Any]:
    """``legal`` as ``role``'s console reads it at game time ``game_ms``: M4's open call offered (D167).

    A call just logged by another official stays offered to each official who may log it (the
    catalogue's ``who``) while its window is open: the server answers it "already logged by …".
    """
    calls = {k: dict(v) if isinstance(v, dict) else v for k, v in legal["calls"].items()}
    for w in legal.get("duplicates", []):
        open_now = w["until_ms"] is None or (game_ms is not None and game_ms <= w["until_ms"])
        if w["by"] != role and open_now and may_log(role, w["type"], w["call"]) and w["call"] in calls:
            calls[w["call"]][w["team"]] = True
    return {**legal, "calls": calls}


def _violation_maker(state: MatchState, kind: str) -> Callable[[Team], Event]:
    def make(team: Team) -> Event:
        return Violation(kind, team, None, _violation_spot(state, kind, team))

    return make


def _card_maker(state: MatchState, color: CardColor) -> Callable[[Team], Event | RuleViolation]:
    def make(team: Team) -> Event | RuleViolation:
        return _with_player(state, team, lambda p: Card(team, p, color))

    return make


def _color(name: str) -> CardColor:
    return "red" if name == "red" else "yellow"


def _try(state: MatchState, event: Event, now: int) -> Verdict:
    try:
        engine.decide(state, event, now)
    except RuleViolation as refusal:
        # Without its traceback: its frames (the trial's state copy, legal_calls' own) would make every
        # refused trial ~60 objects of cyclic garbage for the collector (issue 29 item 2, bench/alloc_bench.py).
        return refusal.with_traceback(None)
    except InvalidEvent:
        return None  # a representative detail the real call will name (400 if it is wrong): not a rule
    return None


def _taker(state: MatchState, team: Team) -> int | None:
    """No taker, except for a penalty (10.8): then one who may take it, if any."""
    r = state.restart
    if r is None or r.type != "penalty":
        return None
    came_on = {n for t, n in state.stoppage.came_on if t == team}
    eligible = [n for n in state.teams[team].on_field if n not in came_on]
    if eligible:
        return eligible[0]
    return state.teams[team].on_field[0] if state.teams[team].on_field else None


def _violation_spot(state: MatchState, kind: str, team: Team) -> tuple[float, float] | None:
    """Where each call is typically made: out over a line, in an area, in the field."""
    f = state.setup.field
    if kind == "restart":
        return None
    if kind == "ball_out_side":
        return (f.length / 2, -1.0)
    if kind == "ball_out_end":
        return (-1.0, f.width / 2 - 2)
    if kind in ("ball_in_area", "player_in_area"):
        end = state.defended_end(team) if state.home_end_first_half is not None else "x0"
        inside = geo.penalty_spot(f, end)
        # Halfway between the end line and the penalty spot: inside the area (SPEC §1).
        return ((inside.x + geo.end_x(f, end)) / 2, inside.y)
    centre = geo.centre_spot(f)
    return (centre.x, centre.y)


def _with_player(state: MatchState, team: Team, make: Callable[[int], Event]) -> Event | RuleViolation:
    """A card: for a player on the field, else on the bench (9.3); refused when nobody can be shown one."""
    ts = state.teams[team]
    candidates = ts.on_field or [n for n in ts.roster if n not in ts.sent_off]
    if not candidates:
        return RuleViolation("D5", N_("every player of {team} has been sent off"), {"team": team})
    return make(candidates[0])


def _on_field_player(state: MatchState, team: Team, make: Callable[[int], Event]) -> Event | RuleViolation:
    ts = state.teams[team]
    if not ts.on_field:
        return RuleViolation("11.3", N_("{team} has no player on the field"), {"team": team})
    return make(ts.on_field[0])


def _substitution(state: MatchState, team: Team, ordinary: bool) -> Event | RuleViolation:
    """An ordinary substitution (a player off, another on) or a player brought on for nobody (11.2, 11.3)."""
    ts = state.teams[team]
    bench = [n for n in ts.roster if n not in ts.on_field and n not in ts.sent_off]
    if not bench:
        rule = state.setup.rules.book.roster_rule
        return RuleViolation(rule, N_("{team} has nobody on the bench who may come on"), {"team": team})
    if ordinary:
        if not ts.on_field:
            return RuleViolation("11.1", N_("{team} has no player on the field"), {"team": team})
        return Substitution(team, ts.on_field[0], bench[0])
    return Substitution(team, None, bench[0])


def _shootout_start(state: MatchState) -> Event:
    """As many takers per team as ``shootout.start`` asks (12.2), from the players not sent off (D5)."""
    from .shootout import TAKERS_PER_TEAM  # (here, so legal.py's imports stay as they were: issue 28 item 5)

    takers = tuple(
        (t, tuple(n for n in state.teams[t].roster if n not in state.teams[t].sent_off)[:TAKERS_PER_TEAM]) for t in TEAMS
    )
    return ShootoutStart("home", takers)


def _jsonable(params: dict[str, object]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in params.items():
        out[k] = v if isinstance(v, str | int | float | bool) or v is None else str(v)
    return out
