"""What a report says about each event, in English and Chinese (``compose``: ``en``, ``zh`` and ``both``).

``describe`` words an event of the replay with what the engine ruled on it (the restart taken, the shootout
kick, a sending-off); ``plain_text`` words a log row without the replay (a voided or replaced event).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from qalisball.storage.store import LogEntry

from ..rules.common import TEAMS, other_team
from ..rules.rulings import RestartTaken, SentOff, ShootoutKickTaken
from ..rules.state import MatchSetup
from .labels import LABELS, book_label, end_words, misconduct_label, pair
from .moments import Moment
from .people import Names
from .times import clock

Pair = tuple[str, str]  # (English, Chinese)
# A detail of an event's text: a Pair, or (English, Chinese, both) when it carries typed words that
# the two-language text should show once.
Detail = tuple[str, ...]
# A note's text is shown whole in the referee's report; the timeline shows its beginning.
TIMELINE_NOTE_CHARS = 80

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


def describe(st: Moment, names: Names, notes: Iterable[Detail] = ()) -> dict[str, str]:
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
        subject = clock(f.get("elapsed_ms")) or "" if f["action"] == "set" else ""
    elif t == "restart_taken":
        taken = st.ruled(RestartTaken)
        r_en, r_zh = LABELS[taken.restart.type] if taken is not None else ("restart", "发球")
        action, subject = (f"{r_en.capitalize()} taken", f"发{r_zh}"), who
    elif t == "goal":
        action, subject = ("Goal", "进球"), who
        if f.get("direct"):
            details.append(("direct from the restart", "发球直接得分"))
    elif t == "violation":
        action, subject = violation_action(f["kind"], names.setup.rules.rule_set), who
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
        details.extend(reason_note(f))
    elif t == "card":
        action, subject = _CARD[f["color"]], who
        details.extend(_sent_off_note(st))
        details.extend(reason_note(f))
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
    elif t == "shootout_kick" and (k := st.ruled(ShootoutKickTaken)) is not None:
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


def violation_action(kind: str, rule_set: str) -> Pair:
    """A violation's words: "Violation, ball grounded" / "违例（球落地）"; a call its rule book names in its
    own words is that name alone (V1-D16: 1.0's "Touched: over 2 steps / pass not backwards", whose Chinese
    already says 违例, so that it is not said twice)."""
    if book_label(kind, rule_set) is not None:
        return pair(kind, rule_set)
    k_en, k_zh = pair(kind)
    return (f"Violation, {k_en}", f"违例（{k_zh}）")


def _match_day_words(e: LogEntry, names: Names) -> tuple[Pair, str, list[Detail]]:
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


def _sent_off_note(st: Moment) -> list[Detail]:
    """The engine sent the player off with this event: a second yellow reads as the sending-off it is (M8)."""
    sent = st.ruled(SentOff)
    if sent is None:
        return []
    return [SECOND_YELLOW if sent.second_yellow else ("sent off", "罚下")]


def _fouls_note(st: Moment) -> list[Detail]:
    """M8: the player's fouls in this match so far, from the second on (9.3: repeated fouls)."""
    team, player = st.entry.fields.get("team"), st.entry.fields.get("player")
    if team not in TEAMS or player is None:
        return []
    n = st.after.teams[team].fouls.get(player, 0)
    return [(f"the player's foul no. {n}", f"本场第{n}次犯规")] if n >= 2 else []


def reason_note(f: Mapping[str, Any]) -> list[Detail]:
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


def plain_text(e: LogEntry, setup: MatchSetup, names: Names) -> dict[str, str]:
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
        action: Pair = violation_action(f["kind"], setup.rules.rule_set)
    elif e.type == "card":
        action = _CARD.get(f.get("color", ""), ("Card", "牌"))
        details.extend(reason_note(f))
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
        inner = plain_text(as_event(e, body), setup, names)
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


def as_event(row: LogEntry, body: Mapping[str, Any]) -> LogEntry:
    """A correction's row as the event it carries (for its words)."""
    from dataclasses import replace

    fields = {k: v for k, v in body.items() if k not in ("type", "at_ms")}
    return replace(row, type=body["type"], fields=fields, at_ms=body.get("at_ms", row.at_ms))


def public_fields(e: LogEntry) -> dict[str, Any]:
    """An event's fields as the report shows them: a signature's drawing only in the score sheet."""
    if e.type == "sign" and e.fields.get("signature"):
        return {**e.fields, "signature": True}
    return e.fields


def correction_note(c: Mapping[str, Any]) -> Detail:
    why = c.get("reason") or ""
    if c["kind"] == "amend":
        en, zh = f"corrected, replaces #{c['of']}", f"更正，取代第{c['of']}号事件"
    else:
        en, zh = f"added later, after #{c['after']}", f"补记，在第{c['after']}号事件之后"
    if not why:
        return (en, zh)
    return (f"{en}: {why}", f"{zh}：{why}", f"{en} / {zh}: {why}")


def pair_dict(pair: Pair) -> dict[str, str]:
    return {"en": pair[0], "zh": pair[1]}
