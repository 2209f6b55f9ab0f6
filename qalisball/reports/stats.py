"""The match report as data, from the event log alone (docs/reports.md describes every field).

``build_report`` replays the log through the rule engine one event at a time (``engine.replay_steps``:
the effective log, with every correction's event in its place, SPEC D8 and M3), so for every event it
knows the state before and after: the restart the event led to, who was on the field, who had the
ball, the game-clock time. Everything the report says is counted from those steps and from the log's
own rows (corrections, signatures' drawings); nothing is read from the in-memory match state. Pure
functions: no Flask, no I/O, time passed in.

The work is split in two so that a server can keep the expensive part (``build_core``: the replay and
every count, which depends only on the log) per match and seq, and redo only the cheap part that
depends on the time now (``finish``: the minutes of a half still being played, and "generated at").
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any

from qalisball.storage.store import LogEntry

from ..rules import engine
from ..rules.common import TEAMS, Team, other_team
from ..rules.state import HALVES, Clock, MatchSetup, MatchState, Restart, initial_state
from .labels import LABELS, VIOLATION_KINDS, end_words, misconduct_label, pair

SCHEMA = "qalisball-report/2"
FINAL_PHASES = ("finished", "abandoned")
# Events that can award a restart (SPEC §3): the timeline shows the restart each one led to.
AWARDING = frozenset({"period_start", "goal", "violation", "foul", "injury", "shot_missed"})
# Errors that multiple attack opportunities may forgive (SPEC §6).
ERRORS = frozenset({"violation", "foul", "shot_missed"})
# Signers of the score sheet (M6), in the order the sheet lists them.
SIGNERS = ("referee", "assistant1", "assistant2", "scorer", "home_captain", "away_captain")
# A note's text is shown whole in the referee's report; the timeline shows its beginning.
TIMELINE_NOTE_CHARS = 80

PLAYER_COUNTS = (
    "goals",
    "shots_missed",
    "violations_total",
    "fouls",
    "yellow",
    "red",
    "penalties_conceded",
    "penalties_taken",
    "penalties_converted",
    "multi_attack_used",
    "shootout_kicks",
    "shootout_scored",
    "shootout_points",
)
TEAM_COUNTS = (*PLAYER_COUNTS, "fouls_suffered", "penalties_awarded")

Pair = tuple[str, str]  # (English, Chinese)
# A detail of an event's text: a Pair, or (English, Chinese, both) when it carries typed words that
# the two-language text should show once.
Detail = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _TeamSnap:
    on_field: tuple[int, ...]
    sent_off: tuple[int, ...]
    second_yellow: tuple[int, ...]
    fouls: dict[int, int]


@dataclass(frozen=True, slots=True)
class _Snap:
    """What the report reads of a state, copied as the replay goes (cheaper than a whole state per event)."""

    phase: str
    period: int
    ball: str
    restart: Restart | None
    possession: Team | None
    score: dict[Team, int]
    shootout: Any
    clock: Clock
    teams: dict[Team, _TeamSnap]

    @classmethod
    def of(cls, s: MatchState) -> _Snap:
        c = s.clock
        return cls(
            s.phase,
            s.period,
            s.ball,
            s.restart,
            s.possession,
            dict(s.score),
            s.shootout,  # immutable
            Clock(c.length_ms, c.running, c.base_ms, c.anchor_ms),
            {
                t: _TeamSnap(tuple(ts.on_field), tuple(ts.sent_off), tuple(ts.second_yellow), dict(ts.fouls))
                for t, ts in s.teams.items()
            },
        )


@dataclass(frozen=True, slots=True)
class Step:
    """One effective event of the replay, with what the report reads of the states on either side."""

    entry: LogEntry
    event: Any
    before: _Snap
    after: _Snap


def replay_steps(setup: MatchSetup, log: Iterable[LogEntry]) -> tuple[list[Step], MatchState]:
    """Every effective event with the states on either side of it, and the final state.

    The engine's one replay (``engine.replay_steps``, the corrections in place), run in place: the
    report keeps a small snapshot per event rather than a copy of the whole state (bench/README.md).
    """
    state = initial_state(setup)
    before = _Snap.of(state)
    steps: list[Step] = []
    for st in engine.replay_steps(setup, log, keep_states=False):
        state = st.after
        after = _Snap.of(state)
        steps.append(Step(st.entry, st.event, before, after))
        before = after
    return steps, state


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
    steps, final_state = replay_steps(setup, log)
    ref_ms = log[0].received_ms if log else _ms_of(created_at)
    tz = match_zone(data.get("starts_at"), ref_ms)
    officials = dict(data.get("officials") or {})
    # Who is who at the end (M2: late players, renames, renumbers), then the same replay again, counting.
    final_roster = _Roster(setup)
    for st in steps:
        if st.entry.type == "roster":
            final_roster.apply(st.entry)
    b = _Builder(setup, final_roster, officials, tz, log)
    for step in steps:
        b.step(step)

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
            "date": _date(data.get("starts_at"), b.kicked_off_at, created_at, tz),
            "kicked_off_at": b.kicked_off_at,
            "ended_at": b.ended_at,
            "created_at": _iso_text(created_at, tz),
            "abandon_reason": final_state.abandon_reason,
            "generated_at": None,  # finish()
            "timezone": offset_text(tz, ref_ms),
            "field": {"length": setup.field.length, "width": setup.field.width, "side_lines": setup.field.side_lines},
            "rules": {
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
            "decided_by": None if winner is None else ("shootout" if shootout is not None else "regulation"),
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
    out["match"] = {**r["match"], "generated_at": _iso(now, core.tz)}
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
            played = {"played_ms": ms, "minutes": _minutes(ms), "played": _clock(ms)}
            lu_players[i] = {**entry, **played, "intervals": [*entry["intervals"], interval]}
            rows[i] = {**rows[i], "played_ms": ms, "minutes": _minutes(ms)}
        lineups[t] = {**lu, "players": lu_players}
        players[t] = rows
    out["lineups"] = lineups
    out["stats"] = {**r["stats"], "players": players}
    return out


# ----------------------------------------------------------------------------------------------
# Who is who (M2): players are people, whatever shirt number they wear


@dataclass
class _Person:
    index: int  # position in the team's list: setup players in order, then late players as added
    number: int  # the number now (at this point of the replay)
    name: str
    gender: str | None
    numbers: list[int]  # every number worn, in order
    added_seq: int | None = None  # a late player (M2): the roster event that added him
    starter: bool = False


class _Roster:
    """The rosters as a replay goes: shirt numbers → people, changed only by ``roster`` events (M2).

    Two rosters replayed over the same steps give every person the same index, so the final one
    (run once over the whole log first) names anyone an earlier event mentions by his number then.
    """

    def __init__(self, setup: MatchSetup) -> None:
        self.people: dict[Team, list[_Person]] = {}
        self.by_number: dict[Team, dict[int, _Person]] = {}
        for t in TEAMS:
            ts = setup.team(t)
            people = [
                _Person(i, p.number, p.name, p.gender, [p.number], starter=p.number in ts.starting)
                for i, p in enumerate(ts.players)
            ]
            self.people[t] = people
            self.by_number[t] = {p.number: p for p in people}

    def apply(self, e: LogEntry) -> _Person | None:
        """A ``roster`` event (as the engine accepted it); returns the person it added or changed."""
        f = e.fields
        t: Team = f["team"]
        add = f.get("add")
        if add:
            p = _Person(len(self.people[t]), int(add["number"]), str(add["name"]), add.get("gender"), [int(add["number"])], e.seq)
            self.people[t].append(p)
            self.by_number[t][p.number] = p
            return p
        found = self.by_number[t].get(int(f["player"])) if f.get("player") is not None else None
        if found is None:
            return None
        p = found
        if f.get("name") is not None:
            p.name = str(f["name"])
        new = f.get("number")
        if new is not None and new != p.number:
            del self.by_number[t][p.number]
            p.number = int(new)
            p.numbers.append(p.number)
            self.by_number[t][p.number] = p
        return p

    def index(self, t: Any, number: Any) -> int | None:
        if t not in TEAMS or number is None:
            return None
        p = self.by_number[t].get(number)
        return None if p is None else p.index


def roster_at(setup: MatchSetup, log: Iterable[LogEntry], seq: int) -> _Roster:
    """The rosters as they were just before log row ``seq`` (roster events are never amended or inserted)."""
    r = _Roster(setup)
    for e in log:
        if e.seq >= seq:
            break
        if e.type == "roster" and e.voided_by is None:
            r.apply(e)
    return r


class _Names:
    """How a report names a player an event names by the number he wore then (M2)."""

    def __init__(self, setup: MatchSetup, now: _Roster, final: _Roster) -> None:
        self.setup, self.now, self.final = setup, now, final

    def team(self, team: Any) -> str:
        return self.setup.team(team).name if team in TEAMS else str(team)

    def person(self, team: Any, number: Any) -> _Person | None:
        i = self.now.index(team, number)
        return None if i is None else self.final.people[team][i]

    def name(self, team: Any, number: Any) -> str | None:
        p = self.person(team, number)
        return None if p is None else p.name

    def number(self, team: Any, number: Any) -> str:
        """``#7``, or ``#7 (now #17)`` for a player renumbered later."""
        p = self.person(team, number)
        if p is None or p.number == number:
            return f"#{number}"
        return f"#{number} (now #{p.number})"

    def player(self, team: Any, number: Any) -> str:
        """``#7 Zhao Lei``: the number as logged, the name as it is at the end."""
        if number is None:
            return ""
        return f"{self.number(team, number)} {self.name(team, number) or ''}".rstrip()

    def who(self, team: Any, number: Any) -> str:
        if team not in TEAMS:
            return ""
        if number is None:
            return self.team(team)
        return f"{self.team(team)} {self.player(team, number)}"


def player_label(number: int, numbers: list[int]) -> str:
    """``#17``, or ``#17 (was #7)`` for a renumbered player (M2)."""
    earlier = [n for n in numbers if n != number]
    if not earlier:
        return f"#{number}"
    return f"#{number} (was " + ", ".join(f"#{n}" for n in earlier) + ")"


# ----------------------------------------------------------------------------------------------
# The builder: one pass over the steps


class _Builder:
    def __init__(self, setup: MatchSetup, final: _Roster, officials: dict[str, str], tz: tzinfo, log: list[LogEntry]) -> None:
        self.setup, self.officials, self.tz, self.log = setup, officials, tz, log
        self.by_seq = {e.seq: e for e in log}
        self.final = final
        self.roster = _Roster(setup)
        self.names = _Names(setup, self.roster, final)
        self.people = final.people
        self.timeline: list[dict[str, Any]] = []
        self.by_timeline_seq: dict[int, dict[str, Any]] = {}
        self.players: dict[Team, list[dict[str, Any]]] = {t: [_empty_counts() for _ in final.people[t]] for t in TEAMS}
        self.teams: dict[Team, dict[str, Any]] = {
            t: {**_empty_counts(), "fouls_suffered": 0, "penalties_awarded": 0} for t in TEAMS
        }
        # Minutes played: open intervals (team, index) -> (period, from_ms); closed ones per player.
        self.open: dict[tuple[Team, int], tuple[int, int]] = {}
        self.intervals: dict[tuple[Team, int], list[dict[str, Any]]] = {}
        self.changes: dict[Team, list[dict[str, Any]]] = {t: [] for t in TEAMS}
        self.roster_changes: dict[Team, list[dict[str, Any]]] = {t: [] for t in TEAMS}
        self.halves: list[dict[str, Any]] = []
        self.score_series: list[dict[str, Any]] = []
        self.marks: list[dict[str, Any]] = []
        self.kicked_off_at: str | None = None
        self.ended_at: str | None = None
        self.penalty: dict[str, Any] | None = None  # the penalty in play, for "converted"
        self.kicks: list[dict[str, Any]] = []  # shootout kicks: seq and who took it then
        self.notes: list[dict[str, Any]] = []
        self.cards: list[dict[str, Any]] = []
        self.confirmations: list[dict[str, Any]] = []
        self.signed: list[dict[str, Any]] = []  # the signatures since the last reopen
        self.reopened: list[dict[str, Any]] = []

    # -- the step ------------------------------------------------------------------------------

    def step(self, st: Step) -> None:
        e, ev, before, after = st.entry, st.event, st.before, st.after
        period, at_ms = _game_time(st)
        team: Team | None = getattr(ev, "team", None)
        player: int | None = getattr(ev, "player", None)
        restart = _new_restart(st)
        # A newly awarded restart, not the one already pending (a defender's foul leaves it as it was).
        awarded = restart is not None and (before.ball == "live" or before.restart != restart)
        ma_used = (
            e.type in ERRORS
            and team is not None
            and after.ball == "dead"
            and after.restart is not None
            and after.restart.team == team
        )
        notes: list[Detail] = []

        # Penalty converted: the next goal comes straight from it (docs/reports.md).
        if self.penalty is not None:
            pen = self.penalty
            if e.type == "goal":
                if team == pen["team"]:
                    self._count_index(pen["team"], pen["index"], "penalties_converted")
                    notes.append(("penalty converted", "罚球命中"))
                self.penalty = None
            elif after.ball != "live" or after.possession != pen["team"] or after.phase != before.phase:
                self.penalty = None

        kind = e.type
        if kind == "period_start":
            if self.kicked_off_at is None:
                self.kicked_off_at = _iso(e.received_ms, self.tz)
            for t in TEAMS:
                for n in after.teams[t].on_field:
                    i = self.roster.index(t, n)
                    if i is not None:
                        self.open[(t, i)] = (after.period, 0)
        elif kind == "goal":
            assert team is not None
            self._count(team, player, "goals")
            self.score_series.append(
                {"seq": e.seq, "period": period, "at_ms": at_ms, "team": team, "player": player, "score": dict(after.score)}
            )
        elif kind == "shot_missed":
            assert team is not None
            self._count(team, player, "shots_missed")
        elif kind == "violation":
            assert team is not None
            vk = e.fields["kind"]
            self._count(team, player, "violations_total")
            self._count_kind(team, player, vk)
            self._mark("violation", team, player, e, st, label_key=vk)
        elif kind == "foul":
            assert team is not None
            self._count(team, player, "fouls")
            self.teams[other_team(team)]["fouls_suffered"] += 1
            self._mark("foul", team, player, e, st)
            if e.fields.get("card"):
                self._card(st, team, player, e.fields["card"])
        elif kind == "card":
            assert team is not None
            self._card(st, team, player, e.fields["color"])
        elif kind == "restart_taken" and before.restart is not None and before.restart.type == "penalty":
            assert team is not None
            self._count(team, player, "penalties_taken")
            self.penalty = {"team": team, "index": self.roster.index(team, player), "seq": e.seq}
        elif kind == "shootout_kick" and after.shootout is not None and after.shootout.kicks:
            k = after.shootout.kicks[-1]
            self._count(k.team, k.player, "shootout_kicks")
            self.kicks.append({"seq": e.seq, "index": self.roster.index(k.team, k.player)})
            if k.scored:
                self._count(k.team, k.player, "shootout_scored")
                self._count(k.team, k.player, "shootout_points", k.points)
        elif kind == "note":
            self._note(st, period, at_ms)
        elif kind == "confirm":
            self.confirmations.append({"period": e.fields["period"], **self._stamp(e)})
        elif kind == "sign":
            f = e.fields
            self.signed.append({"as": f["as"], "name": f["name"], "image": f.get("signature") or None, **self._stamp(e)})
        elif kind == "reopen":
            self.reopened.append({"reason": e.fields.get("reason", ""), "cleared": self.signed, **self._stamp(e)})
            self.signed = []

        if ma_used:
            assert team is not None
            self._count(team, player, "multi_attack_used")
            notes.append(("multi-attack opportunity used", "使用一次多次进攻机会"))
        if awarded and restart is not None and restart.type == "penalty" and not ma_used:
            self.teams[restart.team]["penalties_awarded"] += 1
            offender = other_team(restart.team)
            if team == offender:
                self._count(offender, player, "penalties_conceded")
        if awarded and restart is not None and restart.type == "free_kick":
            self.marks.append(
                {
                    "kind": "free_kick",
                    "seq": e.seq,
                    "team": restart.team,
                    "player": None,
                    "x": restart.spot.x,
                    "y": restart.spot.y,
                    "period": period,
                    "at_ms": at_ms,
                }
            )

        # The timeline's words name players as they were numbered when the event happened.
        item = self._item(st, period, at_ms, restart, ma_used, notes)
        if kind == "roster":
            self._roster_change(st, period, at_ms)  # renumbers from here on: after the item's words
        else:
            self._lineup_changes(st, period, at_ms)
        if kind in ("period_end", "abandon") and before.phase in HALVES:
            self._close_all(at_ms if at_ms is not None else before.clock.length_ms)
        if kind == "period_end":
            prev = self.halves[-1]["total"] if self.halves else {"home": 0, "away": 0}
            self.halves.append(
                {
                    "period": before.period,
                    "score": {t: after.score[t] - prev[t] for t in TEAMS},
                    "total": dict(after.score),
                }
            )
        if after.phase in FINAL_PHASES and before.phase not in FINAL_PHASES:
            self.ended_at = _iso(e.received_ms, self.tz)

        self.timeline.append(item)
        self.by_timeline_seq[e.seq] = item

    # -- counting ------------------------------------------------------------------------------

    def _count(self, team: Team, player: int | None, key: str, by: int = 1) -> None:
        self.teams[team][key] += by
        i = self.roster.index(team, player)
        if i is not None:
            self.players[team][i][key] += by

    def _count_index(self, team: Team, i: int | None, key: str, by: int = 1) -> None:
        self.teams[team][key] += by
        if i is not None:
            self.players[team][i][key] += by

    def _count_kind(self, team: Team, player: int | None, vk: str) -> None:
        self.teams[team]["violations"][vk] += 1
        i = self.roster.index(team, player)
        if i is not None:
            self.players[team][i]["violations"][vk] += 1

    def _card(self, st: Step, team: Team, player: int | None, color: str) -> None:
        before, after = st.before, st.after
        if color == "yellow":
            self._count(team, player, "yellow")
        was, now = before.teams[team], after.teams[team]
        sent_off = player is not None and player in now.sent_off and player not in was.sent_off
        second = player is not None and player in now.second_yellow and player not in was.second_yellow
        # A second yellow is a red (9.3): "red" counts every sending-off.
        if sent_off:
            self._count(team, player, "red")
        reason = st.entry.fields.get("reason") or None
        period, at_ms = _game_time(st)
        self.cards.append(
            {
                "seq": st.entry.seq,
                "type": st.entry.type,
                "team": team,
                "player": player,
                **self._player_refs(team, player),
                "color": color,
                "second_yellow": second,
                "sent_off": sent_off,
                "reason": None
                if reason is None
                else {
                    "code": reason.get("code"),
                    "label": _pair_dict(misconduct_label(reason["code"])) if reason.get("code") else None,
                    "text": reason.get("text") or "",
                },
                "phase": _phase_of(st),
                "period": period,
                "at_ms": at_ms,
                "clock": _clock(at_ms),
                "by": st.entry.by,
                "official": self.officials.get(st.entry.by),
            }
        )

    def _player_refs(self, team: Any, number: Any) -> dict[str, Any]:
        """How a player an event names is known at the end: his number now and his name (M2)."""
        p = self.names.person(team, number)
        return {"player_now": None if p is None else p.number, "player_name": None if p is None else p.name}

    def _mark(self, kind: str, team: Team, player: int | None, e: LogEntry, st: Step, label_key: str | None = None) -> None:
        spot = e.fields.get("spot")
        if not spot:
            return
        period, at_ms = _game_time(st)
        self.marks.append(
            {
                "kind": kind,
                "seq": e.seq,
                "team": team,
                "player": player,
                "x": float(spot["x"]),
                "y": float(spot["y"]),
                "period": period,
                "at_ms": at_ms,
                **({"violation": label_key} if label_key else {}),
            }
        )

    def _stamp(self, e: LogEntry) -> dict[str, Any]:
        return {"seq": e.seq, "by": e.by, "official": self.officials.get(e.by), "at": _iso(e.received_ms, self.tz)}

    # -- the referee's report (M7) -----------------------------------------------------------------

    def _note(self, st: Step, period: int | None, at_ms: int | None) -> None:
        e = st.entry
        f = e.fields
        code = f.get("code")
        team, player = f.get("team"), f.get("player")
        self.notes.append(
            {
                "text": f.get("text", ""),
                "code": code,
                "code_label": _pair_dict(misconduct_label(code)) if code else None,
                "about_seq": f.get("about"),
                "team": team,
                "player": player,
                **self._player_refs(team, player),
                "about_player": self.names.who(team, player) if team in TEAMS else None,
                "phase": _phase_of(st),
                "period": period,
                "at_ms": at_ms,
                "clock": _clock(at_ms),
                **self._stamp(e),
            }
        )

    def referee_report(self) -> dict[str, Any]:
        """Notes (with what they are about) and the cards with their reasons (M7)."""
        notes = []
        for n in self.notes:
            about = None
            seq = n.pop("about_seq")
            if seq is not None:
                about = self._about(int(seq))
            notes.append({**n, "about": about})
        return {"notes": notes, "cards": self.cards}

    def _about(self, seq: int) -> dict[str, Any]:
        """The event a note is about: its words from the timeline, or from the log when it was voided or replaced."""
        item = self.by_timeline_seq.get(seq)
        if item is not None:
            return {"seq": seq, "type": item["type"], "text": item["text"], "clock": item["clock"], "status": "stands"}
        row = self.by_seq.get(seq)
        if row is None:
            return {"seq": seq, "type": None, "text": None, "clock": None, "status": "unknown"}
        by = self.by_seq.get(row.voided_by) if row.voided_by is not None else None
        status = "replaced" if by is not None and by.type == "amend" else "voided" if by is not None else "stands"
        text = _plain_text(row, self.setup, _Names(self.setup, roster_at(self.setup, self.log, row.seq), self.final))
        return {"seq": seq, "type": row.type, "text": text, "clock": _clock(row.at_ms), "status": status, "by_seq": row.voided_by}

    # -- the score sheet (M6) --------------------------------------------------------------------------

    def sheet(self, s: MatchState) -> dict[str, Any]:
        """Confirmations, the signatures that stand (names, roles, times, drawings) and reopenings."""
        # The state's signatures are the ones since the last reopen, each from its ``sign`` event.
        standing = {sig.as_ for sig in s.signatures}
        signatures = [sig for sig in self.signed if sig["as"] in standing]
        signatures.sort(key=lambda sig: SIGNERS.index(sig["as"]) if sig["as"] in SIGNERS else len(SIGNERS))
        return {
            "locked": s.locked,
            "confirmed": list(s.confirmed),
            "confirmations": self.confirmations,
            "signatures": signatures,
            "reopened": self.reopened,
        }

    # -- line-ups and minutes --------------------------------------------------------------------

    def _roster_change(self, st: Step, period: int | None, at_ms: int | None) -> None:
        e = st.entry
        f = e.fields
        t: Team = f["team"]
        old_number = f.get("player")
        before = self.roster.by_number[t].get(old_number) if old_number is not None else None
        old_name = before.name if before is not None else None
        p = self.roster.apply(e)
        if p is None:
            return
        if f.get("add"):
            change = "added"
        elif p.number != old_number:
            change = "renumbered"
        else:
            change = "renamed"
        self.roster_changes[t].append(
            {
                "seq": e.seq,
                "change": change,
                "phase": _phase_of(st),
                "period": period,
                "at_ms": at_ms,
                "clock": _clock(at_ms),
                "number": p.number,  # after the change
                "from_number": old_number if change == "renumbered" else None,
                "name": p.name,  # after the change
                "from_name": old_name if old_name is not None and old_name != p.name else None,
                "now": self.final.people[t][p.index].number,  # at the end of the log
                "by": e.by,
                "official": self.officials.get(e.by),
            }
        )

    def _lineup_changes(self, st: Step, period: int | None, at_ms: int | None) -> None:
        e, before, after = st.entry, st.before, st.after
        if e.type == "period_start":
            return
        in_half = before.phase in HALVES and at_ms is not None
        for t in TEAMS:
            was, now = before.teams[t].on_field, after.teams[t].on_field
            off = [n for n in was if n not in now]
            on = [n for n in now if n not in was]
            if not off and not on:
                continue
            reason = {"substitution": "substitution", "injury": "injury"}.get(e.type, "red_card")
            if reason == "red_card" and any(n in after.teams[t].second_yellow for n in off):
                reason = "second_yellow"
            if in_half:
                assert period is not None and at_ms is not None
                for n in off:
                    i = self.roster.index(t, n)
                    if i is not None:
                        self._close(t, i, at_ms)
                for n in on:
                    i = self.roster.index(t, n)
                    if i is not None:
                        self.open[(t, i)] = (period, at_ms)
            pairs: list[tuple[int | None, int | None]]
            if e.type == "substitution":
                pairs = [(int(e.fields["in"]), e.fields.get("out"))]
            else:
                pairs = [(None, n) for n in off]
            for came, went in pairs:
                self.changes[t].append(
                    {
                        "seq": e.seq,
                        "phase": before.phase,
                        "period": period,
                        "at_ms": at_ms,
                        "clock": _clock(at_ms),
                        "on": came,
                        "off": went,
                        "on_label": self.names.player(t, came) if came is not None else None,
                        "off_label": self.names.player(t, went) if went is not None else None,
                        "reason": reason,
                    }
                )

    def _close(self, t: Team, i: int, at_ms: int) -> None:
        opened = self.open.pop((t, i), None)
        if opened is None:
            return
        period, start = opened
        self.intervals.setdefault((t, i), []).append(
            {"period": period, "from_ms": start, "to_ms": at_ms, "ms": max(0, at_ms - start), "ongoing": False}
        )

    def _close_all(self, at_ms: int) -> None:
        for t, i in list(self.open):
            self._close(t, i, at_ms)

    def played_ms(self, t: Team, i: int) -> int:
        return sum(iv["ms"] for iv in self.intervals.get((t, i), []))

    def lineup(self, t: Team) -> dict[str, Any]:
        people = self.people[t]
        return {
            "starters": [p.number for p in people if p.starter],
            "substitutes": [p.number for p in people if not p.starter],
            "players": [
                {
                    "number": p.number,
                    "numbers": list(p.numbers),
                    "label": player_label(p.number, p.numbers),
                    "name": p.name,
                    "gender": p.gender,
                    "starter": p.starter,
                    "added_seq": p.added_seq,
                    "played_ms": self.played_ms(t, p.index),
                    "minutes": _minutes(self.played_ms(t, p.index)),
                    "played": _clock(self.played_ms(t, p.index)),
                    "intervals": self.intervals.get((t, p.index), []),
                }
                for p in people
            ],
            "changes": self.changes[t],
            "roster_changes": self.roster_changes[t],
        }

    # -- rows ------------------------------------------------------------------------------------

    def player_row(self, t: Team, i: int) -> dict[str, Any]:
        p = self.people[t][i]
        c = self.players[t][i]
        ms = self.played_ms(t, i)
        return {
            "team": t,
            "number": p.number,
            "numbers": list(p.numbers),
            "label": player_label(p.number, p.numbers),
            "name": p.name,
            "starter": p.starter,
            "played_ms": ms,
            "minutes": _minutes(ms),
            **{k: c[k] for k in PLAYER_COUNTS[:3]},
            "violations": dict(c["violations"]),
            **{k: c[k] for k in PLAYER_COUNTS[3:]},
            "fouls_suffered": None,  # the log names only the offender (docs/reports.md)
        }

    def team_row(self, t: Team) -> dict[str, Any]:
        c = self.teams[t]
        return {
            "team": t,
            "name": self.setup.team(t).name,
            **{k: c[k] for k in PLAYER_COUNTS[:3]},
            "violations": dict(c["violations"]),
            **{k: c[k] for k in PLAYER_COUNTS[3:]},
            "fouls_suffered": c["fouls_suffered"],
            "penalties_awarded": c["penalties_awarded"],
        }

    def shootout_sheet(self, so: Any) -> dict[str, Any]:
        kicks = []
        for n, k in enumerate(so.kicks):
            taken = self.kicks[n] if n < len(self.kicks) else {"seq": None, "index": None}
            p = self.people[k.team][taken["index"]] if taken["index"] is not None else None
            kicks.append(
                {
                    "seq": taken["seq"],
                    "round": k.round,
                    "team": k.team,
                    "points": k.points,
                    "player": k.player if p is None else p.number,
                    "name": "" if p is None else p.name,
                    "scored": k.scored,
                }
            )
        running = {"home": 0, "away": 0}
        for k in kicks:
            if k["scored"]:
                running[k["team"]] += k["points"]
            k["score"] = dict(running)
        return {
            "first": so.first,
            "rounds": so.rounds,
            "takers": {t: list(so.takers_of(t)) for t in TEAMS},
            "kicks": kicks,
            "score": dict(so.score),
            "winner": so.winner,
        }

    # -- timeline --------------------------------------------------------------------------------

    def _item(
        self,
        st: Step,
        period: int | None,
        at_ms: int | None,
        restart: Restart | None,
        ma_used: bool,
        notes: list[Detail],
    ) -> dict[str, Any]:
        e, after = st.entry, st.after
        team = e.fields.get("team")
        player = e.fields.get("player")
        correction = self._correction_of(e)
        if correction is not None:
            notes = [*notes, _correction_note(correction)]
        text = describe(st, self.names, notes)
        return {
            "seq": e.seq,
            "type": e.type,
            "by": e.by,
            "official": self.officials.get(e.by),
            "phase": _phase_of(st),
            "period": period,
            "at_ms": at_ms,
            "clock": _clock(at_ms),
            "minute": _minute(at_ms, self.setup.rules.half_ms),
            "received_at": _iso(e.received_ms, self.tz),
            "team": team,
            "player": player,
            **self._player_refs(team, player),
            "fields": _public_fields(e),
            "text": text,
            "restart": _restart_dict(restart),
            "score": dict(after.score),
            "possession": after.possession,
            "multi_attack_used": ma_used,
            "correction": correction,
        }

    def _correction_of(self, e: LogEntry) -> dict[str, Any] | None:
        """An event that stands by an ``amend`` or ``insert`` (M3): which, of what, and why."""
        row = self.by_seq.get(e.seq)
        if row is None or row.type not in ("amend", "insert"):
            return None
        f = row.fields
        if row.type == "amend":
            return {"kind": "amend", "of": f["target"], "reason": f.get("reason", "")}
        return {"kind": "insert", "after": f["after"], "reason": f.get("reason", "")}

    # -- audit -----------------------------------------------------------------------------------

    def audit(self) -> list[dict[str, Any]]:
        """Every correction (void, amend, insert) and every reopening, with its reason, in log order.

        A voided or replaced event is listed with what it was, who logged it, who corrected it, when
        and why (``seq`` is the corrected event's); an inserted event with what was added after what;
        a reopening with the signatures it cleared.
        """
        out: list[tuple[int, dict[str, Any]]] = []
        for e in self.log:
            if e.voided_by is not None:
                out.append((e.voided_by, self._corrected(e)))
            if e.type == "insert":
                body = e.fields["event"]
                names = _Names(self.setup, roster_at(self.setup, self.log, e.seq), self.final)
                inserted = _plain_text(_as_event(e, body), self.setup, names)
                out.append(
                    (
                        e.seq,
                        {
                            "kind": "insert",
                            "seq": e.seq,
                            "type": body.get("type"),
                            "fields": {k: v for k, v in body.items() if k != "type"},
                            "text": inserted,
                            "after": e.fields["after"],
                            "reason": e.fields.get("reason", ""),
                            "voided_by": e.voided_by,
                            **self._by(e),
                        },
                    )
                )
            if e.type == "reopen":
                r = next((x for x in self.reopened if x["seq"] == e.seq), None)
                out.append(
                    (
                        e.seq,
                        {
                            "kind": "reopen",
                            "seq": e.seq,
                            "type": "reopen",
                            "reason": e.fields.get("reason", ""),
                            "cleared": [] if r is None else [{k: v for k, v in s.items() if k != "image"} for s in r["cleared"]],
                            **self._by(e),
                        },
                    )
                )
        out.sort(key=lambda pair: pair[0])
        return [entry for _, entry in out]

    def _by(self, e: LogEntry) -> dict[str, Any]:
        return {
            "by": e.by,
            "official": self.officials.get(e.by),
            "at_ms": e.at_ms,
            "clock": _clock(e.at_ms),
            "received_at": _iso(e.received_ms, self.tz),
        }

    def _corrected(self, e: LogEntry) -> dict[str, Any]:
        corr = self.by_seq.get(e.voided_by)  # type: ignore[arg-type]
        kind = corr.type if corr is not None else "void"
        names = _Names(self.setup, roster_at(self.setup, self.log, e.seq), self.final)
        entry: dict[str, Any] = {
            "kind": kind,
            "seq": e.seq,
            "type": e.type,
            "fields": _public_fields(e),
            "text": _plain_text(e, self.setup, names),
            **self._by(e),
            "voided_by": e.voided_by,
            "voided_by_role": corr.by if corr else None,
            "voided_by_official": self.officials.get(corr.by) if corr else None,
            "voided_at": _iso(corr.received_ms, self.tz) if corr else None,
            "voided_at_ms": corr.at_ms if corr else None,
            "voided_clock": _clock(corr.at_ms) if corr else None,
            "reason": corr.fields.get("reason", "") if corr else "",
            "replacement": None,
        }
        if corr is not None and corr.type == "amend":
            body = corr.fields["event"]
            item = self.by_timeline_seq.get(corr.seq)
            entry["replacement"] = {
                "seq": corr.seq,
                "type": body.get("type"),
                "text": item["text"] if item is not None else _plain_text(_as_event(corr, body), self.setup, names),
            }
        return entry


def _as_event(row: LogEntry, body: Mapping[str, Any]) -> LogEntry:
    """A correction's row as the event it carries (for its words)."""
    from dataclasses import replace

    fields = {k: v for k, v in body.items() if k not in ("type", "at_ms")}
    return replace(row, type=body["type"], fields=fields, at_ms=body.get("at_ms", row.at_ms))


def _public_fields(e: LogEntry) -> dict[str, Any]:
    """An event's fields as the report shows them: a signature's drawing only in the score sheet."""
    if e.type == "sign" and e.fields.get("signature"):
        return {**e.fields, "signature": True}
    return e.fields


def _correction_note(c: Mapping[str, Any]) -> Detail:
    why = c.get("reason") or ""
    if c["kind"] == "amend":
        en, zh = f"corrected, replaces #{c['of']}", f"更正，取代第{c['of']}号事件"
    else:
        en, zh = f"added later, after #{c['after']}", f"补记，在第{c['after']}号事件之后"
    if not why:
        return (en, zh)
    return (f"{en}: {why}", f"{zh}：{why}", f"{en} / {zh}: {why}")


# ----------------------------------------------------------------------------------------------
# Event descriptions (both languages)

_CARD: dict[str, Pair] = {"yellow": ("Yellow card", "黄牌"), "red": ("Red card", "红牌")}
SECOND_YELLOW: Pair = ("second yellow → sent off", "第二张黄牌 → 罚下")
_SIGNER: dict[str, Pair] = {
    "referee": ("referee", "主裁判"),
    "assistant1": ("assistant referee 1", "助理裁判一"),
    "assistant2": ("assistant referee 2", "助理裁判二"),
    "scorer": ("scorer", "记分员"),
    "home_captain": ("home captain", "主队队长"),
    "away_captain": ("away captain", "客队队长"),
}


def signer_label(role: str) -> Pair:
    return _SIGNER.get(role, (role, role))


def compose(action: Pair, subject: str = "", details: Iterable[Detail] = ()) -> dict[str, str]:
    """An event's text: ``en`` and ``zh`` sentences, and ``both`` with the names written once.

    ``subject`` holds what needs no translation (team and player names, numbers, a typed reason).
    """
    details = list(details)
    subj = f" {subject}" if subject else ""
    en = f"{action[0]}:{subj}" if subject else action[0]
    zh = f"{action[1]}：{subject}" if subject else action[1]
    both = f"{action[0]} / {action[1]}:{subj}" if subject else f"{action[0]} / {action[1]}"
    if details:
        en += " (" + "; ".join(d[0] for d in details) + ")"
        zh += "（" + "；".join(d[1] for d in details) + "）"
        both += " (" + "; ".join(d[2] if len(d) > 2 else f"{d[0]} / {d[1]}" if d[0] != d[1] else d[0] for d in details) + ")"
    return {"en": en, "zh": zh, "both": both}


def describe(st: Step, names: _Names, notes: Iterable[Detail] = ()) -> dict[str, str]:
    """What an event says (``compose``), with the states around it for what it led to."""
    e, before, after = st.entry, st.before, st.after
    f = e.fields
    t = e.type
    who = names.who(f.get("team"), f.get("player"))
    details: list[Detail] = []
    tn = names.team

    if t == "coin_toss":
        action: Pair = ("Coin toss, kicks off", "掷硬币，开球方")
        subject = tn(f["kickoff"])
        end_en, end_zh = end_words(f["home_end"])
        details.append((f"{tn('home')} defends {end_en} in the first half", f"上半场{tn('home')}防守{end_zh}"))
    elif t == "period_start":
        en, zh = LABELS.get(after.phase, (after.phase, after.phase))
        action, subject = (f"{en} starts", f"{zh}开始"), ""
    elif t == "period_end":
        en, zh = LABELS.get(before.phase, (before.phase, before.phase))
        action, subject = (f"End of the {en.lower()}", f"{zh}结束"), f"{after.score['home']}–{after.score['away']}"
    elif t == "clock":
        action = {"pause": ("Clock paused", "计时暂停"), "resume": ("Clock resumed", "计时继续")}.get(
            f["action"], ("Clock set", "计时调整")
        )
        subject = _clock(f.get("elapsed_ms")) or "" if f["action"] == "set" else ""
    elif t == "restart_taken":
        r_en, r_zh = LABELS[before.restart.type] if before.restart is not None else ("restart", "发球")
        action, subject = (f"{r_en.capitalize()} taken", f"发{r_zh}"), who
    elif t == "goal":
        action, subject = ("Goal", "进球"), who
        if f.get("direct"):
            details.append(("direct from the restart", "发球直接得分"))
    elif t == "violation":
        k_en, k_zh = pair(f["kind"])
        action, subject = (f"Violation, {k_en}", f"违例（{k_zh}）"), who
    elif t == "foul":
        action, subject = ("Foul", "犯规"), who
        if f.get("on_official"):
            details.append(("on an official", "对裁判"))
        if f.get("where") == "beyond_end_line":
            details.append(("beyond the end line", "底线外"))
        elif f.get("where") == "beyond_side_line":
            details.append(("beyond the side line", "边线外"))
        if f.get("card"):
            c_en, c_zh = _CARD[f["card"]]
            details.append((f"{c_en.lower()} shown", f"出示{c_zh}"))
        details.extend(_sent_off_note(st))
        details.extend(_fouls_note(st))
        details.extend(_reason_note(f))
    elif t == "card":
        action, subject = _CARD[f["color"]], who
        details.extend(_sent_off_note(st))
        details.extend(_reason_note(f))
    elif t == "substitution":
        team = f["team"]
        inn, out = f["in"], f.get("out")
        on = f"↑ {names.player(team, inn)}"
        off = f"↓ {names.player(team, out)}" if out is not None else ""
        action, subject = ("Substitution", "换人"), f"{tn(team)} {on}" + (f" {off}" if off else "")
        if out is None:
            details.append(("replacement, nobody off", "补充上场"))
    elif t == "injury":
        action, subject = ("Injury, leaves the field", "受伤离场"), who
    elif t == "steal":
        action, subject = ("Steal", "抢断"), who
    elif t == "catch":
        caught = f.get("caught")
        action = ("Catch", "捕捉")
        subject = who + (f" → {names.player(other_team(f['team']), caught)}" if caught is not None else "")
    elif t == "attack":
        action, subject = ("Attacking state", "进入进攻状态"), tn(f["team"])
    elif t == "shot_missed":
        action, subject = ("Missed shot", "投射未中"), who
    elif t == "shootout_start":
        action, subject = ("Shootout, shoots first", "罚球大战，先罚"), tn(f["first"])
    elif t == "shootout_kick" and after.shootout is not None and after.shootout.kicks:
        k = after.shootout.kicks[-1]
        res = ("scored", "命中") if k.scored else ("missed", "未中")
        action = (
            f"Shootout round {k.round}, {k.points}-point kick {res[0]}",
            f"罚球大战第{k.round}轮{k.points}分球{res[1]}",
        )
        subject = names.who(k.team, k.player)
    elif t == "abandon":
        action, subject = ("Match abandoned", "比赛中止"), str(f.get("reason", ""))
    elif t in ("roster", "note", "confirm", "sign", "reopen"):
        action, subject, extra = _match_day_words(e, names)
        details.extend(extra)
    else:
        action, subject = (t, t), who
    return compose(action, subject, [*details, *notes])


def _match_day_words(e: LogEntry, names: _Names) -> tuple[Pair, str, list[Detail]]:
    """Roster changes, notes, confirmations, signatures, reopenings (SPEC §9)."""
    f = e.fields
    t = e.type
    if t == "roster":
        team = f["team"]
        add = f.get("add")
        if add:
            return ("Late player added", "补报球员"), f"{names.team(team)} #{add['number']} {add['name']}", []
        number, new = f.get("player"), f.get("number")
        if new is not None and new != number:
            subject = f"{names.team(team)} #{number} → #{new} {f.get('name') or ''}".rstrip()
            return ("Shirt number changed", "更改号码"), subject, []
        return ("Name corrected", "更正姓名"), f"{names.team(team)} #{number} → {f.get('name', '')}", []
    if t == "note":
        text = str(f.get("text", ""))
        short = text if len(text) <= TIMELINE_NOTE_CHARS else text[: TIMELINE_NOTE_CHARS - 1] + "…"
        extra: list[Detail] = []
        if f.get("about") is not None:
            extra.append((f"about #{f['about']}", f"关于第{f['about']}号事件"))
        if f.get("team") in TEAMS:
            who = names.who(f["team"], f.get("player"))
            extra.append((f"about {who}", f"关于{who}", f"about / 关于 {who}"))
        return ("Note", "备注"), short, extra
    if t == "confirm":
        p = f["period"]
        what: Pair = ("shootout", "罚球大战") if p == "shootout" else (f"half {p}", "上半场" if p == 1 else "下半场")
        return (f"Score confirmed, {what[0]}", f"确认比分：{what[1]}"), "", []
    if t == "sign":
        role = signer_label(f["as"])
        return (f"Signed by the {role[0]}", f"{role[1]}签字"), str(f["name"]), []
    return ("Score sheet reopened", "记分表重新开启"), str(f.get("reason", "")), []


def _sent_off_note(st: Step) -> list[Detail]:
    team, player = st.entry.fields.get("team"), st.entry.fields.get("player")
    if team not in TEAMS or player is None:
        return []
    if player in st.after.teams[team].sent_off and player not in st.before.teams[team].sent_off:
        if player in st.after.teams[team].second_yellow and player not in st.before.teams[team].second_yellow:
            return [SECOND_YELLOW]
        return [("sent off", "罚下")]
    return []


def _fouls_note(st: Step) -> list[Detail]:
    """M8: the player's fouls in this match so far, from the second on (9.3: repeated fouls)."""
    team, player = st.entry.fields.get("team"), st.entry.fields.get("player")
    if team not in TEAMS or player is None:
        return []
    n = st.after.teams[team].fouls.get(player, 0)
    return [(f"the player's foul no. {n}", f"本场第{n}次犯规")] if n >= 2 else []


def _reason_note(f: Mapping[str, Any]) -> list[Detail]:
    """A card's reason (M7): its code's label in each language, and the typed text once."""
    reason = f.get("reason")
    if not reason or (not reason.get("code") and not reason.get("text")):
        return []
    en, zh = misconduct_label(reason["code"]) if reason.get("code") else ("", "")
    text = reason.get("text") or ""
    code_both = f"{en} / {zh}" if en else ""
    return [
        (
            "reason: " + ": ".join(x for x in (en, text) if x),
            "原因：" + "：".join(x for x in (zh, text) if x),
            "reason / 原因: " + ": ".join(x for x in (code_both, text) if x),
        )
    ]


def _plain_text(e: LogEntry, setup: MatchSetup, names: _Names) -> dict[str, str]:
    """An event's text without the states around it (a voided or replaced event is not in the replay)."""
    f = e.fields
    who = names.who(f.get("team"), f.get("player"))
    actions: dict[str, Pair] = {
        "goal": ("Goal", "进球"),
        "foul": ("Foul", "犯规"),
        "injury": ("Injury", "受伤"),
        "steal": ("Steal", "抢断"),
        "catch": ("Catch", "捕捉"),
        "shot_missed": ("Missed shot", "投射未中"),
        "restart_taken": ("Restart taken", "发球"),
        "attack": ("Attacking state", "进入进攻状态"),
        "shootout_kick": ("Shootout kick", "罚球大战罚球"),
        "coin_toss": ("Coin toss", "掷硬币"),
        "period_start": ("Half starts", "半场开始"),
        "period_end": ("Half ends", "半场结束"),
        "clock": ("Clock", "计时"),
        "shootout_start": ("Shootout starts", "罚球大战开始"),
        "abandon": ("Match abandoned", "比赛中止"),
    }
    details: list[Detail] = []
    if e.type == "violation":
        k_en, k_zh = LABELS.get(f["kind"], (f["kind"], f["kind"]))
        action: Pair = (f"Violation, {k_en}", f"违例（{k_zh}）")
    elif e.type == "card":
        action = _CARD.get(f.get("color", ""), ("Card", "牌"))
        details.extend(_reason_note(f))
    elif e.type == "substitution":
        action = ("Substitution", "换人")
        team = f["team"]
        who = f"{setup.team(team).name} ↑ {names.player(team, f.get('in'))}" + (
            f" ↓ {names.player(team, f['out'])}" if f.get("out") is not None else ""
        )
    elif e.type in ("roster", "note", "confirm", "sign", "reopen"):
        action, who, details = _match_day_words(e, names)
    elif e.type in ("amend", "insert"):
        body = f["event"]
        inner = _plain_text(_as_event(e, body), setup, names)
        action = (
            ("Correction of #" + str(f["target"]), f"更正第{f['target']}号事件")
            if e.type == "amend"
            else (
                f"Added after #{f['after']}",
                f"补记于第{f['after']}号事件之后",
            )
        )
        return compose(action, inner["en"] if inner["en"] == inner["zh"] else inner["both"])
    else:
        action = actions.get(e.type, (e.type, e.type))
    if e.type == "foul" and f.get("card"):
        c_en, c_zh = _CARD[f["card"]]
        details.append((f"{c_en.lower()} shown", f"出示{c_zh}"))
    return compose(action, who, details)


# ----------------------------------------------------------------------------------------------
# Small helpers


def _pair_dict(pair: Pair) -> dict[str, str]:
    return {"en": pair[0], "zh": pair[1]}


def _empty_counts() -> dict[str, Any]:
    return {**{k: 0 for k in PLAYER_COUNTS}, "violations": {k: 0 for k in VIOLATION_KINDS}}


def _game_time(st: Step) -> tuple[int | None, int | None]:
    """(period, game-clock ms) of an event: during a half only; a half's start is at 0."""
    if st.entry.type == "period_start":
        return st.after.period, 0
    b = st.before
    if b.phase not in HALVES:
        return None, None
    at = st.entry.at_ms if st.entry.at_ms is not None else b.clock.elapsed(st.entry.received_ms)
    return b.period, max(0, min(at, b.clock.length_ms))


def _phase_of(st: Step) -> str:
    return st.after.phase if st.entry.type == "period_start" else st.before.phase


def _new_restart(st: Step) -> Restart | None:
    """The restart an event led to: a restart-awarding event that leaves one pending."""
    a = st.after
    if st.entry.type not in AWARDING or a.ball != "dead" or a.restart is None:
        return None
    return a.restart


def _restart_dict(r: Restart | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"type": r.type, "team": r.team, "spot": {"x": r.spot.x, "y": r.spot.y}, "end": r.end}


def _clock(ms: int | None) -> str | None:
    if ms is None:
        return None
    sec = max(0, ms) // 1000
    return f"{sec // 60}:{sec % 60:02d}"


def _minute(ms: int | None, half_ms: int) -> int | None:
    """The minute of the half an event happened in, counted from 1 ("in the 13th minute" for 12:xx)."""
    if ms is None:
        return None
    last = max(1, -(-half_ms // 60_000))
    return min(ms // 60_000 + 1, last)


def _minutes(ms: int) -> int:
    """Whole minutes played, rounded half up."""
    return (ms + 30_000) // 60_000


# ----------------------------------------------------------------------------------------------
# Times of day: in the match's time zone, never bare UTC


def match_zone(starts_at: Any, at_ms: int | None = None) -> tzinfo:
    """The match's time zone: the offset of its ``starts_at``, else the server's local zone.

    The local zone is fixed at the match's first event (or now), so that one report never shows
    two offsets across a change to summer time.
    """
    if isinstance(starts_at, str):
        try:
            dt = datetime.fromisoformat(starts_at)
        except ValueError:
            dt = None
        if dt is not None and dt.utcoffset() is not None:
            return timezone(dt.utcoffset() or timedelta(0))
    stamp = at_ms / 1000 if at_ms is not None else time.time()
    return timezone(timedelta(seconds=time.localtime(stamp).tm_gmtoff))


def _ms_of(value: str | None) -> int | None:
    try:
        dt = datetime.fromisoformat(value) if value else None
    except ValueError:
        return None
    return int(dt.timestamp() * 1000) if dt is not None and dt.tzinfo is not None else None


def _iso(ms: int, tz: tzinfo) -> str:
    return datetime.fromtimestamp(ms / 1000, tz).isoformat(timespec="seconds")


def _iso_text(value: str | None, tz: tzinfo) -> str | None:
    """An ISO time stored in UTC (``created_at``), shown in the match's zone."""
    if not value:
        return value
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return value
    if dt.tzinfo is None:
        return value
    return dt.astimezone(tz).isoformat(timespec="seconds")


def offset_text(tz: tzinfo, at_ms: int | None = None) -> str:
    moment = datetime.fromtimestamp(at_ms / 1000, tz) if at_ms is not None else None
    off = tz.utcoffset(moment) or timedelta(0)
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _date(starts_at: Any, kicked_off_at: str | None, created_at: str | None, tz: tzinfo) -> str | None:
    """The match date: the scheduled start, else the first kick-off, else the day it was created."""
    for value in (starts_at, kicked_off_at, created_at):
        if isinstance(value, str) and value:
            try:
                dt = datetime.fromisoformat(value)
            except ValueError:
                continue
            if dt.tzinfo is not None:
                dt = dt.astimezone(tz)
            return dt.date().isoformat()
    return None


def _multi_attack(setup: MatchSetup) -> dict[str, Any]:
    ma = setup.rules.multi_attack
    return {"mode": ma.mode, "k": ma.k, "teams": list(ma.teams), "players": {t: list(n) for t, n in ma.players}}
