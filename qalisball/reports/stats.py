"""The match report as data, from the event log alone (docs/reports.md describes every field).

``build_report`` replays the log through the rule engine one event at a time (``moments.replay_moments``,
the engine's own replay: the effective log, with every correction's event in its place, SPEC D8 and M3),
so for every event it has what the engine ruled on it (rules/rulings.py: the restart it led to and why,
an error forgiven, a penalty converted, a sending-off …) and the states before and after it (who was on
the field, who had the ball, the game-clock time). The report counts those rulings and the log's own rows
(``counting.Tally``: corrections, signatures' drawings); it never works a ruling out again, and reads
nothing from the in-memory match state. Pure functions: no Flask, no I/O, time passed in.

The work is split in two so that a server can keep the expensive part (``build_core``: the replay and
every count, which depends only on the log) per match and seq, and redo only the cheap part that
depends on the time now (``finish``: the minutes of a half still being played, and "generated at").

The parts: ``moments`` (the replay read), ``counting`` (the counts, a handler per event type and per
ruling kind), ``paperwork`` (referee's report, score sheet, audit), ``people`` (who is who, M2),
``words`` (each event's text in both languages), ``times`` (game time, times of day).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from qalisball.storage.store import LogEntry

from ..rules.common import TEAMS, Team
from ..rules.state import HALVES, Clock, MatchSetup
from .counting import FINAL_PHASES, PLAYER_COUNTS, TEAM_COUNTS, Tally
from .moments import replay_moments
from .people import Roster
from .times import clock, iso, iso_text, match_date, match_zone, minutes, ms_of, offset_text

SCHEMA = "qalisball-report/2"
__all__ = ["PLAYER_COUNTS", "SCHEMA", "TEAM_COUNTS", "Core", "build_core", "build_report", "finish"]


@dataclass
class Core:
    """A report without what depends on the time now: what a server keeps per (match, seq)."""

    report: dict[str, Any]
    tz: tzinfo
    # A half being played: its clock, and who is on the field since when ((team, index) → (period, ms)).
    clock: Clock | None = None
    open: dict[tuple[Team, int], tuple[int, int]] = field(default_factory=dict)

    @property
    def seq(self) -> int:
        return int(self.report["match"]["seq"])

    @property
    def live(self) -> bool:
        """Whether the report changes with the time now beyond "generated at" (a half being played)."""
        return self.clock is not None and bool(self.open)


def build_report(
    match_id: str,
    data: Mapping[str, Any],
    setup: MatchSetup,
    log: list[LogEntry],
    now: int,
    created_at: str | None = None,
) -> dict[str, Any]:
    """The whole report as JSON-ready data. ``now`` (server ms) closes the minutes of a half in play."""
    return finish(build_core(match_id, data, setup, log, created_at), now)


def build_core(
    match_id: str, data: Mapping[str, Any], setup: MatchSetup, log: list[LogEntry], created_at: str | None = None
) -> Core:
    """Replay the log and count everything: the report as of the log's last row, minus the time now."""
    moments, final_state = replay_moments(setup, log)
    ref_ms = log[0].received_ms if log else ms_of(created_at)
    tz = match_zone(data.get("starts_at"), ref_ms)
    officials = dict(data.get("officials") or {})
    # Who is who at the end (M2: late players, renames, renumbers), then the same replay again, counting.
    final_roster = Roster(setup)
    for m in moments:
        if m.entry.type == "roster":
            final_roster.apply(m.entry)
    b = Tally(setup, final_roster, officials, tz, log)
    for m in moments:
        b.step(m)

    signed = any(sig.as_ == "referee" for sig in final_state.signatures)
    status = "final" if signed else "provisional"
    if signed:
        why = None
    elif final_state.phase not in FINAL_PHASES:
        why = "in_play"
    elif b.reopened:
        why = "reopened"
    else:
        why = "unsigned"
    seq = log[-1].seq if log else 0
    shootout = final_state.shootout
    winner = final_state.winner
    report = {
        "schema": SCHEMA,
        "match": {
            "id": match_id,
            "seq": seq,
            "status": status,
            "provisional_because": why,
            "locked": final_state.locked,
            "phase": final_state.phase,
            "period": final_state.period,
            "venue": data.get("venue") or "",
            "starts_at": data.get("starts_at"),
            "date": match_date(data.get("starts_at"), b.kicked_off_at, created_at, tz),
            "kicked_off_at": b.kicked_off_at,
            "ended_at": b.ended_at,
            "created_at": iso_text(created_at, tz),
            "abandon_reason": final_state.abandon_reason,
            "generated_at": None,  # finish()
            "timezone": offset_text(tz, ref_ms),
            "field": {"length": setup.field.length, "width": setup.field.width, "side_lines": setup.field.side_lines},
            "rules": {
                # SPEC §11.2: the rule book the match was played under, named on the sheet.
                "rule_set": setup.rules.rule_set,
                "half_minutes": setup.rules.half_minutes,
                "halftime_minutes": setup.rules.halftime_minutes,
                "shootout_rounds": setup.rules.shootout_rounds,
                "starters": setup.starters,
                "multi_attack": _multi_attack(setup),
            },
            "coin_toss": None
            if final_state.toss_kickoff is None
            else {"kickoff": final_state.toss_kickoff, "home_end": final_state.home_end_first_half},
        },
        "officials": officials,
        "teams": {t: {"name": setup.team(t).name, "color": setup.team(t).color} for t in TEAMS},
        "result": {
            "score": dict(final_state.score),
            "halves": b.halves,
            "shootout": None if shootout is None else dict(shootout.score),
            "winner": winner,
            "winner_name": None if winner is None else setup.team(winner).name,
            # A 1.0 match level at full time is a draw (V1-D2): finished without a winner.
            "decided_by": ("draw" if final_state.phase == "finished" else None)
            if winner is None
            else ("shootout" if shootout is not None else "regulation"),
        },
        "lineups": {t: b.lineup(t) for t in TEAMS},
        "timeline": b.timeline,
        "stats": {
            "players": {t: [b.player_row(t, i) for i in range(len(b.people[t]))] for t in TEAMS},
            "teams": {t: b.team_row(t) for t in TEAMS},
        },
        "shootout": None if shootout is None else b.shootout_sheet(shootout),
        "sheet": b.sheet(final_state),
        "referee_report": b.referee_report(),
        "audit": b.audit(),
        "charts": {"score": b.score_series, "field_marks": b.marks},
    }
    playing = final_state.phase in HALVES
    return Core(
        report=report,
        tz=tz,
        clock=final_state.clock if playing else None,
        open=dict(b.open) if playing else {},
    )


def finish(core: Core, now: int) -> dict[str, Any]:
    """The report at server time ``now``: a new dict sharing what did not change with ``core``.

    While a half is being played, the players on the field have played up to the game clock now
    (an ``ongoing`` interval). ``core`` itself is never changed, so a server can keep it.
    """
    r = core.report
    out = dict(r)
    out["match"] = {**r["match"], "generated_at": iso(now, core.tz)}
    if not core.live:
        return out
    assert core.clock is not None
    at = max(0, min(core.clock.elapsed(now), core.clock.length_ms))
    ongoing = {
        key: {"period": p, "from_ms": start, "to_ms": at, "ms": max(0, at - start), "ongoing": True}
        for key, (p, start) in core.open.items()
    }
    lineups, players = {}, {}
    for t in TEAMS:
        lu = r["lineups"][t]
        lu_players = list(lu["players"])
        rows = list(r["stats"]["players"][t])
        for (team, i), interval in ongoing.items():
            if team != t:
                continue
            entry = lu_players[i]
            ms = entry["played_ms"] + interval["ms"]
            played = {"played_ms": ms, "minutes": minutes(ms), "played": clock(ms)}
            lu_players[i] = {**entry, **played, "intervals": [*entry["intervals"], interval]}
            rows[i] = {**rows[i], "played_ms": ms, "minutes": minutes(ms)}
        lineups[t] = {**lu, "players": lu_players}
        players[t] = rows
    out["lineups"] = lineups
    out["stats"] = {**r["stats"], "players": players}
    return out


def _multi_attack(setup: MatchSetup) -> dict[str, Any]:
    ma = setup.rules.multi_attack
    return {"mode": ma.mode, "k": ma.k, "teams": list(ma.teams), "players": {t: list(n) for t, n in ma.players}}
