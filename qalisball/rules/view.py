"""The public state of API.md (``GET /api/matches/<id>``), derived from a ``MatchState`` at a time.

Everything time-dependent is computed here from ``now`` (server ms): the clock, the half's time
being up (the ball is then dead with no restart, 3.1, 10.2), and the 30-second return after a goal
(7.2). Field names are fixed by API.md; the extra ones are documented in docs/api-extras.md.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .common import TEAMS, Team
from .engine import may_substitute, time_up
from .legal import legal_calls
from .state import HALVES, MatchState, Restart


def public_state(s: MatchState, now: int, match_id: str, seq: int, legal: bool = True) -> dict[str, Any]:
    """API.md's state of a match at ``now``; ``legal=False`` leaves out ``legal`` (the officials' calls), which
    costs most of the time (every call tried by the engine, ~0.7 ms) and only consoles use."""
    up = time_up(s, now)
    restart = None if up else s.restart
    possession = None if up else s.possession
    ball = "dead" if up else s.ball
    state = {
        "id": match_id,
        "seq": seq,
        "rule_set": s.setup.rules.rule_set,  # SPEC §11.2: fixed for the life of the match
        "phase": s.phase,
        "period": s.period,
        "clock": _clock(s, now),
        "score": dict(s.score),
        "ball": ball,
        "possession": possession,
        "attacking": bool(possession is not None and s.attacking),
        "restart": None if restart is None else _restart(restart),
        "ends": s.ends(),
        "teams": {t: _team(s, t, now, possession) for t in TEAMS},
        "shootout": s.shootout.to_dict() if s.shootout is not None else None,
        "winner": s.winner,
        # API.md "Match day": the score sheet (M6).
        "locked": s.locked,
        "confirmed": list(s.confirmed),
        "signatures": [{"as": sig.as_, "name": sig.name, "at": _iso(sig.at_ms)} for sig in s.signatures],
        # Extras (docs/api-extras.md): what screens need beyond API.md's fields.
        "server_time_ms": now,
        "time_up": up,
        # M1: the game time of the last call of this half; a later call may not be stamped earlier.
        "last_at_ms": s.last_at_ms,
        "kickoff_team": s.toss_kickoff,
        "return_countdown_ms": _return_countdown(s, now),
        "abandon_reason": s.abandon_reason,
        "restart_end": None if restart is None else restart.end,
        "starters": s.setup.starters,
        "field": {
            "length": s.setup.field.length,
            "width": s.setup.field.width,
            "side_lines": s.setup.field.side_lines,
        },
    }
    if legal:
        # What each official may call now, from the engine itself (docs/api-extras.md).
        state["legal"] = legal_calls(s, now)
    return state


def _restart(r: Restart) -> dict[str, Any]:
    """API.md's restart, plus why it was given and where the call was made when the 3 m rule moved it."""
    why = None
    if r.why is not None:
        params = {k: v for k, v in r.why.params}
        why = {"rule": r.why.rule, "message": r.why.message, "template": r.why.template, "params": params}
    return {
        "type": r.type,
        "team": r.team,
        "spot": r.spot.as_dict(),
        "why": why,
        "origin": None if r.origin is None else r.origin.as_dict(),
    }


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")


def _clock(s: MatchState, now: int) -> dict[str, Any]:
    c = s.clock
    if s.phase in HALVES:
        return {
            "running": c.running and not time_up(s, now),
            "elapsed_ms": min(c.elapsed(now), c.length_ms),
            "length_ms": c.length_ms,
        }
    if s.phase == "halftime" and s.halftime_started_at is not None:
        # Half-time is shown as a countdown, not enforced (SPEC §2).
        return {
            "running": True,
            "elapsed_ms": max(0, now - s.halftime_started_at),
            "length_ms": s.setup.rules.halftime_ms,
        }
    return {"running": False, "elapsed_ms": c.elapsed(now), "length_ms": c.length_ms}


def _return_countdown(s: MatchState, now: int) -> int | None:
    kickoff_pending = s.ball == "dead" and s.restart is not None and s.restart.type == "kickoff"
    return_ms = s.setup.rules.book.return_after_goal_ms  # 1.0 has no 30-second return (V1-4, V1-D15)
    if return_ms is None or s.last_goal_at is None or s.phase not in HALVES or not kickoff_pending or time_up(s, now):
        return None  # only while the kickoff after the goal is pending (D30)
    left = return_ms - (now - s.last_goal_at)
    return left if left > 0 else None


def _team(s: MatchState, team: Team, now: int, possession: Team | None) -> dict[str, Any]:
    ts = s.teams[team]
    setup = s.setup.team(team)
    bench = [n for n in ts.roster if n not in ts.on_field and n not in ts.sent_off]
    return {
        "name": setup.name,
        "color": setup.color,
        "on_field": list(ts.on_field),
        "bench": bench,
        "sent_off": list(ts.sent_off),
        "yellow": sorted(set(ts.yellow)),
        "may_substitute": may_substitute(s, team, now),
        "multi_attack": {
            "team": ts.ma_team if possession == team else None,
            "players": {str(n): c for n, c in ts.ma_players.items()},
        },
        # Extras: injured players off the field, replacements owed after a red card (11.2),
        # players short of the team size.
        "injured": list(ts.injured),
        # The match day (SPEC §9): fouls per player (M8), second yellows shown as send-offs, the
        # roster as it is now (M2: late players, renames, renumbers: current number → first number).
        "fouls": {str(n): c for n, c in ts.fouls.items()},
        "second_yellow": list(ts.second_yellow),
        "players": {str(n): p.name for n, p in ts.roster.items()},
        "renumbered": {str(n): first for n, first in ts.first_numbers.items() if n != first},
        "replacements_due": ts.replacements_due,
        "short": max(0, s.setup.starters - len(ts.on_field)),
    }
