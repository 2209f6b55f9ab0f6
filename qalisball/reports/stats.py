"""The match report as data, from the event log alone (docs/reports.md describes every field).

``build_report`` replays the non-voided events through the rule engine one at a time, so for every
event it knows the state before and after: the restart the event led to, who was on the field, who
had the ball, the game-clock time. Everything the report says is counted from those steps; nothing
is read from the in-memory match state. Pure functions: no Flask, no I/O, time passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from ..rules import engine
from ..rules.common import TEAMS, Team, other_team
from ..rules.state import HALVES, MatchSetup, MatchState, Restart, initial_state
from ..store import LogEntry
from .labels import LABELS, VIOLATION_KINDS, pair

SCHEMA = "qalisball-report/1"
FINAL_PHASES = ("finished", "abandoned")
# Events that can award a restart (SPEC §3): the timeline shows the restart each one led to.
AWARDING = frozenset({"period_start", "goal", "violation", "foul", "injury", "shot_missed"})
# Errors that multiple attack opportunities may forgive (SPEC §6).
ERRORS = frozenset({"violation", "foul", "shot_missed"})

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


def replay_steps(setup: MatchSetup, log: Iterable[LogEntry]) -> list[Step]:
    """Every effective event with the states on either side of it (the engine's one replay)."""
    return list(engine.replay_steps(setup, log))


Step = engine.Step[LogEntry]


def build_report(
    match_id: str,
    data: Mapping[str, Any],
    setup: MatchSetup,
    log: list[LogEntry],
    now: int,
    created_at: str | None = None,
) -> dict[str, Any]:
    """The whole report as JSON-ready data. ``now`` (server ms) closes the minutes of a half in play."""
    steps = replay_steps(setup, log)
    final_state = steps[-1].after if steps else initial_state(setup)
    tz = _zone(data.get("starts_at"))
    officials = dict(data.get("officials") or {})
    names = {t: {p.number: p.name for p in setup.team(t).players} for t in TEAMS}
    b = _Builder(setup, names, officials, tz)
    for step in steps:
        b.step(step)
    b.close_open_intervals(final_state, now)

    status = "final" if final_state.phase in FINAL_PHASES else "provisional"
    seq = log[-1].seq if log else 0
    shootout = final_state.shootout
    winner = final_state.winner
    return {
        "schema": SCHEMA,
        "match": {
            "id": match_id,
            "seq": seq,
            "status": status,
            "phase": final_state.phase,
            "period": final_state.period,
            "venue": data.get("venue") or "",
            "starts_at": data.get("starts_at"),
            "date": _date(data.get("starts_at"), b.kicked_off_at, created_at, tz),
            "kicked_off_at": b.kicked_off_at,
            "ended_at": b.ended_at,
            "created_at": created_at,
            "abandon_reason": final_state.abandon_reason,
            "generated_at": _iso(now, tz),
            "timezone": _offset_text(tz),
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
            "players": {t: [b.player_row(t, p.number) for p in setup.team(t).players] for t in TEAMS},
            "teams": {t: b.team_row(t) for t in TEAMS},
        },
        "shootout": None if shootout is None else b.shootout_sheet(shootout),
        "audit": _audit(log, names, setup, officials, tz),
        "charts": {"score": b.score_series, "field_marks": b.marks},
    }


# ----------------------------------------------------------------------------------------------
# The builder: one pass over the steps


class _Builder:
    def __init__(self, setup: MatchSetup, names: dict[Team, dict[int, str]], officials: dict[str, str], tz: Any) -> None:
        self.setup, self.names, self.officials, self.tz = setup, names, officials, tz
        self.timeline: list[dict[str, Any]] = []
        self.players: dict[Team, dict[int, dict[str, Any]]] = {
            t: {p.number: _empty_counts() for p in setup.team(t).players} for t in TEAMS
        }
        self.teams: dict[Team, dict[str, Any]] = {
            t: {**_empty_counts(), "fouls_suffered": 0, "penalties_awarded": 0} for t in TEAMS
        }
        # Minutes played: open intervals (team, number) -> (period, from_ms); closed ones per player.
        self.open: dict[tuple[Team, int], tuple[int, int]] = {}
        self.intervals: dict[tuple[Team, int], list[dict[str, Any]]] = {}
        self.changes: dict[Team, list[dict[str, Any]]] = {t: [] for t in TEAMS}
        self.halves: list[dict[str, Any]] = []
        self.score_series: list[dict[str, Any]] = []
        self.marks: list[dict[str, Any]] = []
        self.kicked_off_at: str | None = None
        self.ended_at: str | None = None
        self.penalty: dict[str, Any] | None = None  # the penalty in play, for "converted"
        self.shootout_seqs: list[int] = []

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
        notes: list[tuple[str, str]] = []

        # Penalty converted: the next goal comes straight from it (docs/reports.md).
        if self.penalty is not None:
            pen = self.penalty
            if e.type == "goal":
                if team == pen["team"]:
                    self._count(pen["team"], pen["player"], "penalties_converted")
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
                    self.open[(t, n)] = (after.period, 0)
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
                self._card(team, player, e.fields["card"], before, after)
        elif kind == "card":
            assert team is not None
            self._card(team, player, e.fields["color"], before, after)
        elif kind == "restart_taken" and before.restart is not None and before.restart.type == "penalty":
            assert team is not None
            self._count(team, player, "penalties_taken")
            self.penalty = {"team": team, "player": player, "seq": e.seq}
        elif kind == "shootout_kick" and after.shootout is not None and after.shootout.kicks:
            k = after.shootout.kicks[-1]
            self._count(k.team, k.player, "shootout_kicks")
            self.shootout_seqs.append(e.seq)
            if k.scored:
                self._count(k.team, k.player, "shootout_scored")
                self._count(k.team, k.player, "shootout_points", k.points)

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

        self.timeline.append(self._item(st, period, at_ms, restart, ma_used, notes))

    # -- counting ------------------------------------------------------------------------------

    def _count(self, team: Team, player: int | None, key: str, by: int = 1) -> None:
        self.teams[team][key] += by
        if player is not None and player in self.players[team]:
            self.players[team][player][key] += by

    def _count_kind(self, team: Team, player: int | None, vk: str) -> None:
        self.teams[team]["violations"][vk] += 1
        if player is not None and player in self.players[team]:
            self.players[team][player]["violations"][vk] += 1

    def _card(self, team: Team, player: int | None, color: str, before: MatchState, after: MatchState) -> None:
        if color == "yellow":
            self._count(team, player, "yellow")
        # A second yellow is a red (9.3): "red" counts every sending-off.
        if player is not None and player in after.teams[team].sent_off and player not in before.teams[team].sent_off:
            self._count(team, player, "red")

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

    # -- line-ups and minutes --------------------------------------------------------------------

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
            if in_half:
                assert period is not None and at_ms is not None
                for n in off:
                    self._close(t, n, at_ms)
                for n in on:
                    self.open[(t, n)] = (period, at_ms)
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
                        "reason": reason,
                    }
                )

    def _close(self, t: Team, n: int, at_ms: int) -> None:
        opened = self.open.pop((t, n), None)
        if opened is None:
            return
        period, start = opened
        self.intervals.setdefault((t, n), []).append(
            {"period": period, "from_ms": start, "to_ms": at_ms, "ms": max(0, at_ms - start), "ongoing": False}
        )

    def _close_all(self, at_ms: int) -> None:
        for t, n in list(self.open):
            self._close(t, n, at_ms)

    def close_open_intervals(self, s: MatchState, now: int) -> None:
        """A half still in play: count the minutes up to the game clock now (provisional report)."""
        if s.phase not in HALVES:
            return
        at = max(0, min(s.clock.elapsed(now), s.clock.length_ms))
        for key in list(self.open):
            period, start = self.open.pop(key)
            self.intervals.setdefault(key, []).append(
                {"period": period, "from_ms": start, "to_ms": at, "ms": max(0, at - start), "ongoing": True}
            )

    def played_ms(self, t: Team, n: int) -> int:
        return sum(i["ms"] for i in self.intervals.get((t, n), []))

    def lineup(self, t: Team) -> dict[str, Any]:
        ts = self.setup.team(t)
        starters = list(ts.starting)
        return {
            "starters": starters,
            "substitutes": [p.number for p in ts.players if p.number not in starters],
            "players": [
                {
                    "number": p.number,
                    "name": p.name,
                    "gender": p.gender,
                    "starter": p.number in starters,
                    "played_ms": self.played_ms(t, p.number),
                    "minutes": _minutes(self.played_ms(t, p.number)),
                    "played": _clock(self.played_ms(t, p.number)),
                    "intervals": self.intervals.get((t, p.number), []),
                }
                for p in ts.players
            ],
            "changes": self.changes[t],
        }

    # -- rows ------------------------------------------------------------------------------------

    def player_row(self, t: Team, n: int) -> dict[str, Any]:
        c = self.players[t][n]
        ms = self.played_ms(t, n)
        return {
            "team": t,
            "number": n,
            "name": self.names[t][n],
            "starter": n in self.setup.team(t).starting,
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
        for i, k in enumerate(so.kicks):
            kicks.append(
                {
                    "seq": self.shootout_seqs[i] if i < len(self.shootout_seqs) else None,
                    "round": k.round,
                    "team": k.team,
                    "points": k.points,
                    "player": k.player,
                    "name": self.names[k.team].get(k.player, ""),
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
        notes: list[tuple[str, str]],
    ) -> dict[str, Any]:
        e, after = st.entry, st.after
        team = e.fields.get("team")
        player = e.fields.get("player")
        text = describe(st, self.setup, self.names, notes)
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
            "player_name": self.names[team].get(player) if team in TEAMS and player is not None else None,
            "fields": e.fields,
            "text": text,
            "restart": _restart_dict(restart),
            "score": dict(after.score),
            "possession": after.possession,
            "multi_attack_used": ma_used,
        }


# ----------------------------------------------------------------------------------------------
# Event descriptions (both languages)

Pair = tuple[str, str]  # (English, Chinese)
_CARD: dict[str, Pair] = {"yellow": ("Yellow card", "黄牌"), "red": ("Red card", "红牌")}


def compose(action: Pair, subject: str = "", details: Iterable[Pair] = ()) -> dict[str, str]:
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
        both += " (" + "; ".join(f"{d[0]} / {d[1]}" for d in details) + ")"
    return {"en": en, "zh": zh, "both": both}


def _who(setup: MatchSetup, names: dict[Team, dict[int, str]], team: Any, number: Any) -> str:
    if team not in TEAMS:
        return ""
    tname = setup.team(team).name
    if number is None:
        return tname
    return f"{tname} #{number} {names[team].get(number, '')}".rstrip()


def describe(st: Step, setup: MatchSetup, names: dict[Team, dict[int, str]], notes: Iterable[Pair] = ()) -> dict[str, str]:
    """What an event says (``compose``), with the states around it for what it led to."""
    e, before, after = st.entry, st.before, st.after
    f = e.fields
    t = e.type
    who = _who(setup, names, f.get("team"), f.get("player"))
    details: list[Pair] = []

    def tn(team: Any) -> str:
        return setup.team(team).name if team in TEAMS else str(team)

    if t == "coin_toss":
        action: Pair = ("Coin toss, kicks off", "掷硬币，开球方")
        subject = tn(f["kickoff"])
        details.append(
            (f"{tn('home')} defends end {f['home_end']} in the first half", f"上半场{tn('home')}防守{f['home_end']}端")
        )
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
    elif t == "card":
        action, subject = _CARD[f["color"]], who
        details.extend(_sent_off_note(st))
    elif t == "substitution":
        team = f["team"]
        inn, out = f["in"], f.get("out")
        on = f"↑ #{inn} {names[team].get(inn, '')}".rstrip()
        off = f"↓ #{out} {names[team].get(out, '')}".rstrip() if out is not None else ""
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
        subject = who + (f" → #{caught} {names[other_team(f['team'])].get(caught, '')}".rstrip() if caught is not None else "")
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
        subject = _who(setup, names, k.team, k.player)
    elif t == "abandon":
        action, subject = ("Match abandoned", "比赛中止"), str(f.get("reason", ""))
    else:
        action, subject = (t, t), who
    return compose(action, subject, [*details, *notes])


def _sent_off_note(st: Step) -> list[Pair]:
    team, player = st.entry.fields.get("team"), st.entry.fields.get("player")
    if team not in TEAMS or player is None:
        return []
    if player in st.after.teams[team].sent_off and player not in st.before.teams[team].sent_off:
        if st.after.teams[team].yellow.count(player) >= 2 and st.before.teams[team].yellow.count(player) == 1:
            return [("second yellow: sent off", "第二张黄牌：罚下")]
        return [("sent off", "罚下")]
    return []


# ----------------------------------------------------------------------------------------------
# Audit


def _audit(
    log: list[LogEntry], names: dict[Team, dict[int, str]], setup: MatchSetup, officials: dict[str, str], tz: Any
) -> list[dict[str, Any]]:
    """Every voided event: what it was, who logged it, who voided it, when and why."""
    by_seq = {e.seq: e for e in log}
    out = []
    for e in log:
        if e.voided_by is None:
            continue
        void = by_seq.get(e.voided_by)
        out.append(
            {
                "seq": e.seq,
                "type": e.type,
                "fields": e.fields,
                "text": _plain_text(e, setup, names),
                "by": e.by,
                "official": officials.get(e.by),
                "at_ms": e.at_ms,
                "clock": _clock(e.at_ms),
                "received_at": _iso(e.received_ms, tz),
                "voided_by": e.voided_by,
                "voided_by_role": void.by if void else None,
                "voided_by_official": officials.get(void.by) if void else None,
                "voided_at": _iso(void.received_ms, tz) if void else None,
                "voided_at_ms": void.at_ms if void else None,
                "voided_clock": _clock(void.at_ms) if void else None,
                "reason": void.fields.get("reason", "") if void else "",
            }
        )
    return out


def _plain_text(e: LogEntry, setup: MatchSetup, names: dict[Team, dict[int, str]]) -> dict[str, str]:
    """A voided event's text without the states around it (it is not in the replay)."""
    f = e.fields
    who = _who(setup, names, f.get("team"), f.get("player"))
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
    if e.type == "violation":
        k_en, k_zh = LABELS.get(f["kind"], (f["kind"], f["kind"]))
        action: Pair = (f"Violation, {k_en}", f"违例（{k_zh}）")
    elif e.type == "card":
        action = _CARD.get(f.get("color", ""), ("Card", "牌"))
    elif e.type == "substitution":
        action = ("Substitution", "换人")
        team = f["team"]
        who = f"{setup.team(team).name} ↑ #{f.get('in')}" + (f" ↓ #{f['out']}" if f.get("out") is not None else "")
    else:
        action = actions.get(e.type, (e.type, e.type))
    return compose(action, who)


# ----------------------------------------------------------------------------------------------
# Small helpers


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


def _zone(starts_at: Any) -> Any:
    """The match's own UTC offset (from ``starts_at``), else UTC: times are shown in it."""
    if isinstance(starts_at, str):
        try:
            dt = datetime.fromisoformat(starts_at)
        except ValueError:
            return UTC
        if dt.utcoffset() is not None:
            return timezone(dt.utcoffset() or timedelta(0))
    return UTC


def _iso(ms: int, tz: Any) -> str:
    return datetime.fromtimestamp(ms / 1000, tz).isoformat(timespec="seconds")


def _offset_text(tz: Any) -> str:
    off = tz.utcoffset(None) or timedelta(0)
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _date(starts_at: Any, kicked_off_at: str | None, created_at: str | None, tz: Any) -> str | None:
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
