"""The report's words in English and Chinese, and how one label is shown for a language.

The report shows both languages side by side ("Goals / 进球") unless ``?lang=en`` or ``?lang=zh``
asks for one. Chinese terms follow the rule book 2.0 (rules/qalisball-v2.0.zh.txt).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from qalisball.web import i18n

from ..rules import catalogue
from ..rules.catalogue import MISCONDUCT_CODES

LANGS = ("en", "zh")
# The misconduct codes' Chinese labels live with every other translation (the console shows them too).
ZH_CATALOG = Path(__file__).resolve().parent.parent.parent / "translations" / "zh" / "LC_MESSAGES" / "messages.po"

LABELS: dict[str, tuple[str, str]] = {
    # Headings
    "report": ("Match report", "比赛报告"),
    "formats": ("Download", "下载"),
    "provisional": ("PROVISIONAL — the match is not over", "临时 — 比赛尚未结束"),
    "provisional_in_play": ("PROVISIONAL — the match is not over", "临时 — 比赛尚未结束"),
    "provisional_unsigned": ("PROVISIONAL — not yet signed by the referee", "临时 — 主裁判尚未签字"),
    "provisional_reopened": (
        "PROVISIONAL — reopened by the organiser, to be signed again",
        "临时 — 组织者已重新开启，须重新签字",
    ),
    "final": ("Final", "正式"),
    "status_provisional": ("provisional", "临时"),
    "status_final": ("final", "正式"),
    "notes": ("How the numbers are counted", "统计说明"),
    "result": ("Result", "比赛结果"),
    "teams": ("Teams", "球队"),
    "venue": ("Venue", "场地"),
    "date": ("Date", "日期"),
    "kicked_off_at": ("Kick-off", "开球时间"),
    "officials": ("Officials", "裁判员"),
    "lineups": ("Line-ups", "阵容"),
    "timeline": ("Timeline", "比赛进程"),
    "player_stats": ("Player statistics", "球员统计"),
    "team_stats": ("Team statistics", "球队统计"),
    "shootout": ("Penalty shootout", "罚球大战"),
    "audit": ("Audit: corrections", "审计：更正记录"),
    "sheet": ("Score sheet", "记分表"),
    "confirmations": ("Score confirmed", "比分确认"),
    "signatures": ("Signatures", "签字"),
    "signed_as": ("Signed as", "签字身份"),
    "signed_at": ("Signed at", "签字时间"),
    "signature": ("Signature", "签名"),
    "not_signed": ("not signed", "未签字"),
    "locked": ("Locked: signed by the referee", "已锁定：主裁判已签字"),
    "reopened": ("Reopened", "重新开启"),
    "cleared_signatures": ("Signatures cleared", "已清除的签字"),
    "referee_report": ("Referee's report", "裁判报告"),
    "report_notes": ("Notes", "备注"),
    "report_cards": ("Cards and their reasons", "出牌及原因"),
    "about": ("About", "关于"),
    "about_match": ("the match", "本场比赛"),
    "note_by": ("Written by", "记录人"),
    "card": ("Card", "牌"),
    "card_yellow": ("Yellow card", "黄牌"),
    "card_red": ("Red card", "红牌"),
    "second_yellow": ("second yellow → sent off", "第二张黄牌 → 罚下"),
    "sent_off": ("sent off", "罚下"),
    "correction": ("Correction", "更正"),
    "kind_void": ("voided", "撤销"),
    "kind_amend": ("replaced", "更正"),
    "kind_insert": ("added later", "补记"),
    "kind_reopen": ("reopened", "重新开启"),
    "replaced_by": ("Replaced by", "更正为"),
    "inserted_after": ("Added after", "补记于其后"),
    "status_stands": ("stands", "有效"),
    "status_voided": ("voided", "已撤销"),
    "status_replaced": ("replaced", "已更正"),
    "roster_changes": ("Roster changes", "名单变更"),
    "roster_added": ("late player added", "补报球员"),
    "roster_renumbered": ("shirt number changed", "更改号码"),
    "roster_renamed": ("name corrected", "更正姓名"),
    "period_1": ("first half", "上半场"),
    "period_2": ("second half", "下半场"),
    "period_shootout": ("shootout", "罚球大战"),
    "timezone": ("Time zone", "时区"),
    "home_captain": ("Home captain", "主队队长"),
    "away_captain": ("Away captain", "客队队长"),
    "score_chart": ("Score over time", "比分变化"),
    "field_diagram": ("Where fouls, violations and free kicks happened", "犯规、违例与任意球位置"),
    "generated": ("Generated", "生成时间"),
    "log_seq": ("Event log up to", "事件记录截至"),
    "log_hash": ("Log hash (SHA-256 of the last event, chained)", "记录哈希（最后一条事件的 SHA-256，链式）"),
    "damaged": (
        "The event log is damaged: this report shows it only as far as it is proven",
        "事件记录已损坏：本报告只显示可验证的部分",
    ),
    "status": ("Status", "状态"),
    "phase": ("Phase", "阶段"),
    "abandoned_reason": ("Abandoned", "比赛中止"),
    "none": ("none", "无"),
    # Result
    "regulation": ("Regulation time", "常规时间"),
    "shootout_score": ("Shootout", "罚球大战"),
    "winner": ("Winner", "胜方"),
    "half_score": ("Half", "半场"),
    "draw_pending": ("not decided yet", "尚未决出"),
    # Roles
    "referee": ("Referee", "主裁判"),
    "assistant1": ("Assistant referee 1", "助理裁判一"),
    "assistant2": ("Assistant referee 2", "助理裁判二"),
    "scorer": ("Scorer / timekeeper", "记分计时员"),
    "organiser": ("Organiser", "组织者"),
    # Phases
    "scheduled": ("Before the match", "赛前"),
    "first_half": ("First half", "上半场"),
    "halftime": ("Half-time", "中场休息"),
    "second_half": ("Second half", "下半场"),
    "finished": ("Finished", "已结束"),
    "abandoned": ("Abandoned", "已中止"),
    "H1": ("H1", "上半场"),
    "H2": ("H2", "下半场"),
    "HT": ("HT", "中场"),
    "SO": ("SO", "罚球大战"),
    "PRE": ("pre", "赛前"),
    "END": ("end", "赛后"),
    # Line-ups
    "number": ("No.", "号码"),
    "name": ("Name", "姓名"),
    "team": ("Team", "球队"),
    "starters": ("Starters", "首发"),
    "substitutes": ("Substitutes", "替补"),
    "starter": ("Starter", "首发"),
    "changes": ("Changes", "换人与离场"),
    "came_on": ("On", "上场"),
    "went_off": ("Off", "下场"),
    "why": ("Why", "原因"),
    "minutes": ("Minutes played", "出场分钟"),
    "played": ("Time played", "出场时间"),
    "sub_reason_substitution": ("substitution", "换人"),
    "sub_reason_injury": ("injury", "受伤"),
    "sub_reason_red_card": ("sent off", "红牌罚下"),
    "sub_reason_second_yellow": ("second yellow → sent off", "第二张黄牌 → 罚下"),
    "yes": ("yes", "是"),
    # Timeline
    "seq": ("#", "序号"),
    "time": ("Time", "时间"),
    "event": ("Event", "事件"),
    "by": ("Logged by", "记录人"),
    "restart_led_to": ("Restart", "发球"),
    "score": ("Score", "比分"),
    # Stats
    "goals": ("Goals", "进球"),
    "shots_missed": ("Missed shots", "投射未中"),
    "violations": ("Violations", "违例"),
    "violations_total": ("Violations", "违例"),
    "fouls": ("Fouls committed", "犯规"),
    "fouls_suffered": ("Fouls suffered", "被犯规"),
    "yellow": ("Yellow cards", "黄牌"),
    "red": ("Red cards", "红牌"),
    "penalties_awarded": ("Penalties awarded", "获得罚球"),
    "penalties_conceded": ("Penalties conceded", "送出罚球"),
    "penalties_taken": ("Penalties taken", "主罚罚球"),
    "penalties_converted": ("Penalties converted", "罚球命中"),
    "multi_attack_used": ("Multi-attack opportunities used", "使用多次进攻机会"),
    "shootout_kicks": ("Shootout kicks", "罚球大战出手"),
    "shootout_scored": ("Shootout kicks scored", "罚球大战命中"),
    "shootout_points": ("Shootout points", "罚球大战得分"),
    "total": ("Total", "合计"),
    # Shootout sheet
    "round": ("Round", "轮次"),
    "points": ("Points", "分值"),
    "taker": ("Taker", "罚球手"),
    "scored": ("Scored", "命中"),
    "missed": ("Missed", "未中"),
    "first_to_shoot": ("Shoots first", "先罚"),
    "takers": ("Takers", "罚球手"),
    # Audit
    "voided_event": ("Voided event", "被撤销事件"),
    "voided_by": ("Voided by", "撤销人"),
    "voided_at": ("Voided at", "撤销时间"),
    "reason": ("Reason", "原因"),
    "logged_at": ("Logged at", "记录时间"),
    # Charts
    "legend_foul": ("foul", "犯规"),
    "legend_violation": ("violation", "违例"),
    "legend_free_kick": ("free kick", "任意球"),
    "minute": ("minute", "分钟"),
    # Restarts (10.1)
    "kickoff": ("kickoff", "中圈开球"),
    "end_line": ("end-line ball", "底线球"),
    "side_line": ("side-line ball", "边线球"),
    "free_kick": ("free kick", "任意球"),
    "penalty": ("penalty", "罚球"),
    # Violation kinds (8)
    "ball_out_side": ("ball out over a side line", "球出边线"),
    "ball_out_end": ("ball out over an end line", "球出底线"),
    "ball_grounded": ("ball grounded", "球落地"),
    "ball_in_area": ("ball in the area", "球落在禁区内"),
    "player_in_area": ("player in the area", "球员进入禁区"),
    "caught": ("caught-player violation", "被捕违例"),
    "restart": ("restart violation", "发球违例"),
    # Teams
    "home": ("Home", "主队"),
    "away": ("Away", "客队"),
}

# Every violation kind of the event catalogue, in its order; a kind without a report wording above
# is labelled with the catalogue's label and its translation.
VIOLATION_KINDS = tuple(v.name for v in catalogue.VIOLATION_KINDS)


# The ends as the console words them (i18n's end_x0, end_xL, and their Chinese): never the field's "x0".
_ENDS = {"x0": "the left end", "xL": "the right end"}


def end_words(end: str) -> tuple[str, str]:
    """An end of the field (``x0``/``xL``) in English and Chinese, as the officials read it on the console."""
    en = _ENDS.get(end, end)
    return en, i18n.zh(en)


def metres(value: float) -> str:
    """A distance to 0.1 m, as a referee reads it (a tap is no more precise): 19.9563 → "20", 9.60769 → "9.6"."""
    return f"{round(float(value), 1) + 0.0:g}"  # + 0.0: -0.0 would print "-0"


def spot_words(spot: dict[str, Any]) -> str:
    """A spot on the field, metres along and across it, to 0.1 m: "(20, 9.6)"."""
    return f"({metres(spot['x'])}, {metres(spot['y'])})"


def label(key: str, lang: str | None = None) -> str:
    """One label: both languages side by side, or the one ``lang`` asks for."""
    en, zh = pair(key)
    return pick(en, zh, lang)


def pair(key: str) -> tuple[str, str]:
    """A label's English and Chinese: the report's own wording, else the event catalogue's label."""
    if key in LABELS:
        return LABELS[key]
    en = catalogue.violation_label(key)
    return en, i18n.zh(en)


def pick(en: str, zh: str, lang: str | None = None) -> str:
    if lang == "en":
        return en
    if lang == "zh":
        return zh
    return en if en == zh else f"{en} / {zh}"


def text(pair: dict[str, str], lang: str | None = None) -> str:
    """An event's ``{"en", "zh", "both"}`` text for ``lang`` (``both`` writes the names once)."""
    if lang in LANGS:
        return pair[lang]
    return pair.get("both") or pick(pair["en"], pair["zh"])


def both(key: str) -> dict[str, Any]:
    en, zh = pair(key)
    return {"en": en, "zh": zh}


@cache
def _zh_catalog() -> dict[str, str]:
    from babel.messages.pofile import read_po

    with ZH_CATALOG.open("rb") as f:
        catalog = read_po(f)
    return {str(m.id): str(m.string) for m in catalog if m.id and isinstance(m.id, str) and m.string}


def misconduct_label(code: str) -> tuple[str, str]:
    """A card reason's code (M7) in English and Chinese, from the catalogue and its translation."""
    variant = next((v for v in MISCONDUCT_CODES if v.name == code), None)
    if variant is None:
        return code, code
    return variant.label, _zh_catalog().get(variant.label, variant.label)
