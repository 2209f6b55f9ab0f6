"""The report's counts, one pass over the replay: one handler per event type and one per ruling kind.

The engine rules on every event (rules/rulings.py); the report counts its rulings — a restart awarded, an
error forgiven, a penalty converted, a sending-off — and the events as logged (a violation of its kind, a
foul, a note), as eventsourcing's projectors do: ``_on_event`` and ``_on_ruling`` dispatch on the class,
and nothing here works out again what the rules decided.
"""

from __future__ import annotations

from datetime import tzinfo
from functools import singledispatchmethod
from typing import Any

from qalisball.storage.store import LogEntry

from ..rules import rulings as ruled
from ..rules.common import TEAMS, Team, other_team
from ..rules.events import (
    Card,
    Confirm,
    Event,
    Foul,
    Note,
    PeriodEnd,
    PeriodStart,
    Reopen,
    ShotMissed,
    Sign,
    Substitution,
    Violation,
)
from ..rules.state import HALVES, MatchSetup, Restart
from .labels import VIOLATION_KINDS, misconduct_label
from .moments import Moment
from .paperwork import Paperwork
from .people import Roster, player_label
from .times import clock, game_time, iso, minute, minutes, phase_of
from .words import Detail, correction_note, describe, pair_dict, public_fields

FINAL_PHASES = ("finished", "abandoned")
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


def _empty_counts() -> dict[str, Any]:
    return {**{k: 0 for k in PLAYER_COUNTS}, "violations": {k: 0 for k in VIOLATION_KINDS}}


def _restart_dict(r: Restart | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"type": r.type, "team": r.team, "spot": {"x": r.spot.x, "y": r.spot.y}, "end": r.end}


class Tally(Paperwork):
    """Everything the report counts, built one replayed event (a ``Moment``) at a time."""

    def __init__(self, setup: MatchSetup, final: Roster, officials: dict[str, str], tz: tzinfo, log: list[LogEntry]) -> None:
        super().__init__(setup, final, officials, tz, log)
        self.people = final.people
        self.timeline: list[dict[str, Any]] = []
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
        self.kicks: list[dict[str, Any]] = []  # shootout kicks: seq and who took it then
        # The event being counted, its game time, and the words its rulings add to its timeline text.
        self.at: Moment | None = None
        self.period: int | None = None
        self.at_ms: int | None = None
        self.notes_of_item: list[Detail] = []

    # -- one event -------------------------------------------------------------------------------

    def step(self, m: Moment) -> None:
        e, before, after = m.entry, m.before, m.after
        self.at, self.notes_of_item = m, []
        self.period, self.at_ms = game_time(m)
        self._on_event(m.event)
        for r in m.rulings:
            self._on_ruling(r)
        # The timeline's words name players as they were numbered when the event happened.
        item = self._item(m, self.period, self.at_ms, ruled.restart_ruled(m.rulings), self.notes_of_item)
        if e.type == "roster":
            self._roster_change(m, self.period, self.at_ms)  # renumbers from here on: after the item's words
        if e.type in ("period_end", "abandon") and before.phase in HALVES:
            self._close_all(self.at_ms if self.at_ms is not None else before.clock.length_ms)
        if after.phase in FINAL_PHASES and before.phase not in FINAL_PHASES:
            self.ended_at = iso(e.received_ms, self.tz)
        self.timeline.append(item)
        self.by_timeline_seq[e.seq] = item

    # -- events as logged --------------------------------------------------------------------------

    @singledispatchmethod
    def _on_event(self, ev: Event) -> None:
        """Most events count only through their rulings (a goal, a restart taken, a shootout kick …)."""

    @_on_event.register
    def _period_start(self, ev: PeriodStart) -> None:
        m = self._moment
        if self.kicked_off_at is None:
            self.kicked_off_at = iso(m.entry.received_ms, self.tz)
        for t in TEAMS:
            for n in m.after.teams[t].on_field:
                i = self.roster.index(t, n)
                if i is not None:
                    self.open[(t, i)] = (m.after.period, 0)

    @_on_event.register
    def _period_end(self, ev: PeriodEnd) -> None:
        m = self._moment
        prev = self.halves[-1]["total"] if self.halves else {"home": 0, "away": 0}
        self.halves.append(
            {"period": m.before.period, "score": {t: m.after.score[t] - prev[t] for t in TEAMS}, "total": dict(m.after.score)}
        )

    @_on_event.register
    def _shot_missed(self, ev: ShotMissed) -> None:
        self._count(ev.team, ev.player, "shots_missed")

    @_on_event.register
    def _violation(self, ev: Violation) -> None:
        self._count(ev.team, ev.player, "violations_total")
        self._count_kind(ev.team, ev.player, ev.kind)
        self._mark("violation", ev.team, ev.player, label_key=ev.kind)

    @_on_event.register
    def _foul(self, ev: Foul) -> None:
        self._count(ev.team, ev.player, "fouls")
        self.teams[other_team(ev.team)]["fouls_suffered"] += 1
        self._mark("foul", ev.team, ev.player)
        if ev.card is not None:
            self._card(ev.team, ev.player, ev.card)

    @_on_event.register
    def _card_shown(self, ev: Card) -> None:
        self._card(ev.team, ev.player, ev.color)

    @_on_event.register
    def _substitution(self, ev: Substitution) -> None:
        self._lineup_change(ev.team, ev.in_, ev.out, "substitution")

    @_on_event.register
    def _note_written(self, ev: Note) -> None:
        self._note(self._moment, self.period, self.at_ms)

    @_on_event.register
    def _confirm(self, ev: Confirm) -> None:
        self.confirmations.append({"period": ev.period, **self._stamp(self._moment.entry)})

    @_on_event.register
    def _sign(self, ev: Sign) -> None:
        e = self._moment.entry
        f = e.fields
        self.signed.append({"as": f["as"], "name": f["name"], "image": f.get("signature") or None, **self._stamp(e)})

    @_on_event.register
    def _reopen(self, ev: Reopen) -> None:
        e = self._moment.entry
        self.reopened.append({"reason": e.fields.get("reason", ""), "cleared": self.signed, **self._stamp(e)})
        self.signed = []

    # -- the engine's rulings --------------------------------------------------------------------------

    @singledispatchmethod
    def _on_ruling(self, r: object) -> None:
        """Rulings the report does not count (a restart left standing, a 3 m move, a penalty missed)."""

    @_on_ruling.register
    def _goal(self, r: ruled.GoalCounted) -> None:
        self._count(r.team, r.player, "goals")
        e = self._moment.entry
        self.score_series.append(
            {
                "seq": e.seq,
                "period": self.period,
                "at_ms": self.at_ms,
                "team": r.team,
                "player": r.player,
                "score": dict(self._moment.after.score),
            }
        )

    @_on_ruling.register
    def _awarded(self, r: ruled.RestartAwarded) -> None:
        restart = r.restart
        if restart.type == "penalty" and not r.retake:
            self.teams[restart.team]["penalties_awarded"] += 1
            ev = self._moment.event
            offender = other_team(restart.team)
            if getattr(ev, "team", None) == offender:
                self._count(offender, getattr(ev, "player", None), "penalties_conceded")
        if restart.type == "free_kick":
            self.marks.append(
                {
                    "kind": "free_kick",
                    "seq": self._moment.entry.seq,
                    "team": restart.team,
                    "player": None,
                    "x": restart.spot.x,
                    "y": restart.spot.y,
                    "period": self.period,
                    "at_ms": self.at_ms,
                }
            )

    @_on_ruling.register
    def _forgiven(self, r: ruled.ErrorForgiven) -> None:
        self._count(r.team, r.player, "multi_attack_used")
        self.notes_of_item.append(("multi-attack opportunity used", "使用一次多次进攻机会"))

    @_on_ruling.register
    def _taken(self, r: ruled.RestartTaken) -> None:
        if r.restart.type == "penalty":
            self._count(r.restart.team, r.player, "penalties_taken")

    @_on_ruling.register
    def _converted(self, r: ruled.PenaltyConverted) -> None:
        self._count(r.team, r.taker, "penalties_converted")
        self.notes_of_item.insert(0, ("penalty converted", "罚球命中"))

    @_on_ruling.register
    def _cautioned(self, r: ruled.Cautioned) -> None:
        self._count(r.team, r.player, "yellow")

    @_on_ruling.register
    def _sent_off(self, r: ruled.SentOff) -> None:
        self._count(r.team, r.player, "red")  # a second yellow is a red (9.3): "red" counts every sending-off
        if r.from_field:
            self._lineup_change(r.team, None, r.player, "second_yellow" if r.second_yellow else "red_card")

    @_on_ruling.register
    def _injured(self, r: ruled.LeftInjured) -> None:
        self._lineup_change(r.team, None, r.player, "injury")

    @_on_ruling.register
    def _shootout_kick(self, r: ruled.ShootoutKickTaken) -> None:
        self._count(r.team, r.player, "shootout_kicks")
        self.kicks.append({"seq": self._moment.entry.seq, "index": self.roster.index(r.team, r.player)})
        if r.scored:
            self._count(r.team, r.player, "shootout_scored")
            self._count(r.team, r.player, "shootout_points", r.points)

    # -- counting ------------------------------------------------------------------------------

    @property
    def _moment(self) -> Moment:
        assert self.at is not None
        return self.at

    def _count(self, team: Team, player: int | None, key: str, by: int = 1) -> None:
        self.teams[team][key] += by
        i = self.roster.index(team, player)
        if i is not None:
            self.players[team][i][key] += by

    def _count_kind(self, team: Team, player: int | None, vk: str) -> None:
        self.teams[team]["violations"][vk] += 1
        i = self.roster.index(team, player)
        if i is not None:
            self.players[team][i]["violations"][vk] += 1

    def _card(self, team: Team, player: int | None, color: str) -> None:
        """A card shown (M7: with its reason), with what the engine ruled: a sending-off, a second yellow."""
        m = self._moment
        sent = m.ruled(ruled.SentOff)
        reason = m.entry.fields.get("reason") or None
        self.cards.append(
            {
                "seq": m.entry.seq,
                "type": m.entry.type,
                "team": team,
                "player": player,
                **self._player_refs(team, player),
                "color": color,
                "second_yellow": sent is not None and sent.second_yellow,
                "sent_off": sent is not None,
                "reason": None
                if reason is None
                else {
                    "code": reason.get("code"),
                    "label": pair_dict(misconduct_label(reason["code"])) if reason.get("code") else None,
                    "text": reason.get("text") or "",
                },
                "phase": phase_of(m),
                "period": self.period,
                "at_ms": self.at_ms,
                "clock": clock(self.at_ms),
                "by": m.entry.by,
                "official": self.officials.get(m.entry.by),
            }
        )

    def _mark(self, kind: str, team: Team, player: int | None, label_key: str | None = None) -> None:
        e = self._moment.entry
        spot = e.fields.get("spot")
        if not spot:
            return
        self.marks.append(
            {
                "kind": kind,
                "seq": e.seq,
                "team": team,
                "player": player,
                "x": float(spot["x"]),
                "y": float(spot["y"]),
                "period": self.period,
                "at_ms": self.at_ms,
                **({"violation": label_key} if label_key else {}),
            }
        )

    # -- line-ups and minutes --------------------------------------------------------------------

    def _lineup_change(self, t: Team, came: int | None, went: int | None, reason: str) -> None:
        """A player on (a substitution) or off (substituted, injured, sent off) at this event's game time."""
        m, period, at_ms = self._moment, self.period, self.at_ms
        if m.before.phase in HALVES and at_ms is not None:
            assert period is not None
            if went is not None and (i := self.roster.index(t, went)) is not None:
                self._close(t, i, at_ms)
            if came is not None and (i := self.roster.index(t, came)) is not None:
                self.open[(t, i)] = (period, at_ms)
        self.changes[t].append(
            {
                "seq": m.entry.seq,
                "phase": m.before.phase,
                "period": period,
                "at_ms": at_ms,
                "clock": clock(at_ms),
                "on": came,
                "off": went,
                "on_label": self.names.player(t, came) if came is not None else None,
                "off_label": self.names.player(t, went) if went is not None else None,
                "reason": reason,
            }
        )

    def _roster_change(self, st: Moment, period: int | None, at_ms: int | None) -> None:
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
                "phase": phase_of(st),
                "period": period,
                "at_ms": at_ms,
                "clock": clock(at_ms),
                "number": p.number,  # after the change
                "from_number": old_number if change == "renumbered" else None,
                "name": p.name,  # after the change
                "from_name": old_name if old_name is not None and old_name != p.name else None,
                "now": self.final.people[t][p.index].number,  # at the end of the log
                "by": e.by,
                "official": self.officials.get(e.by),
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
                    "minutes": minutes(self.played_ms(t, p.index)),
                    "played": clock(self.played_ms(t, p.index)),
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
            "minutes": minutes(ms),
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
        st: Moment,
        period: int | None,
        at_ms: int | None,
        restart: Restart | None,
        notes: list[Detail],
    ) -> dict[str, Any]:
        e, after = st.entry, st.after
        team = e.fields.get("team")
        player = e.fields.get("player")
        correction = self._correction_of(e)
        if correction is not None:
            notes = [*notes, correction_note(correction)]
        text = describe(st, self.names, notes)
        return {
            "seq": e.seq,
            "type": e.type,
            "by": e.by,
            "official": self.officials.get(e.by),
            "phase": phase_of(st),
            "period": period,
            "at_ms": at_ms,
            "clock": clock(at_ms),
            "minute": minute(at_ms, self.setup.rules.half_ms),
            "received_at": iso(e.received_ms, self.tz),
            "team": team,
            "player": player,
            **self._player_refs(team, player),
            "fields": public_fields(e),
            "text": text,
            "restart": _restart_dict(restart),
            "score": dict(after.score),
            "possession": after.possession,
            "multi_attack_used": st.ruled(ruled.ErrorForgiven) is not None,
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
