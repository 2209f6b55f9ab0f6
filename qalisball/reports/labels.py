"""The report's words in English and Chinese, and how one label is shown for a language.

The report shows both languages side by side ("Goals / 进球") unless ``?lang=en`` or ``?lang=zh``
asks for one. Chinese terms follow the rule book 2.0 (rules/qalisball-v2.0.zh.txt).

A label is its English here and its Chinese in the one catalogue, translations/zh (msgctxt "report", or a
narrower "report: …" where the report words the same English two ways: "voided" is 撤销 as a kind of
correction, 已撤销 as an event's status); both are read through gettext, never from the .po file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from qalisball.web import i18n
from qalisball.web.i18n import Npc_

from ..rules import catalogue
from ..rules.catalogue import MISCONDUCT_CODES
from ..rules.state import BOOKS

LANGS = ("en", "zh")


class _Labels(Mapping[str, tuple[str, str]]):
    """Label keys to their (English, Chinese), the Chinese looked up in the catalogue when asked."""

    def __init__(self, words: dict[str, tuple[str, str]]) -> None:
        self._words = words  # key -> (message context, English msgid)

    def __getitem__(self, key: str) -> tuple[str, str]:
        context, english = self._words[key]
        return english, i18n.zh(english, context)

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __len__(self) -> int:
        return len(self._words)


LABELS: Mapping[str, tuple[str, str]] = _Labels(
    {
        # Headings
        "report": Npc_("report", "Match report"),
        "formats": Npc_("report", "Download"),
        "provisional": Npc_("report", "PROVISIONAL — the match is not over"),
        "provisional_in_play": Npc_("report", "PROVISIONAL — the match is not over"),
        "provisional_unsigned": Npc_("report", "PROVISIONAL — not yet signed by the referee"),
        "provisional_reopened": Npc_("report", "PROVISIONAL — reopened by the organiser, to be signed again"),
        "final": Npc_("report", "Final"),
        "status_provisional": Npc_("report", "provisional"),
        "status_final": Npc_("report", "final"),
        "notes": Npc_("report", "How the numbers are counted"),
        "result": Npc_("report", "Result"),
        "teams": Npc_("report", "Teams"),
        "venue": Npc_("report", "Venue"),
        "date": Npc_("report", "Date"),
        "kicked_off_at": Npc_("report", "Kick-off"),
        "officials": Npc_("report", "Officials"),
        "lineups": Npc_("report", "Line-ups"),
        "timeline": Npc_("report", "Timeline"),
        "player_stats": Npc_("report", "Player statistics"),
        "team_stats": Npc_("report", "Team statistics"),
        "shootout": Npc_("report", "Penalty shootout"),
        "audit": Npc_("report", "Audit: corrections"),
        "sheet": Npc_("report", "Score sheet"),
        "confirmations": Npc_("report", "Score confirmed"),
        "signatures": Npc_("report", "Signatures"),
        "signed_as": Npc_("report", "Signed as"),
        "signed_at": Npc_("report", "Signed at"),
        "signature": Npc_("report", "Signature"),
        "not_signed": Npc_("report", "not signed"),
        "locked": Npc_("report", "Locked: signed by the referee"),
        "reopened": Npc_("report", "Reopened"),
        "cleared_signatures": Npc_("report", "Signatures cleared"),
        "referee_report": Npc_("report", "Referee's report"),
        "report_notes": Npc_("report", "Notes"),
        "report_cards": Npc_("report", "Cards and their reasons"),
        "about": Npc_("report", "About"),
        "about_match": Npc_("report", "the match"),
        "note_by": Npc_("report", "Written by"),
        "card": Npc_("report", "Card"),
        "card_yellow": Npc_("report", "Yellow card"),
        "card_red": Npc_("report", "Red card"),
        "second_yellow": Npc_("report", "second yellow → sent off"),
        "sent_off": Npc_("report", "sent off"),
        "correction": Npc_("report", "Correction"),
        "kind_void": Npc_("report: kind of correction", "voided"),
        "kind_amend": Npc_("report: kind of correction", "replaced"),
        "kind_insert": Npc_("report", "added later"),
        "kind_reopen": Npc_("report", "reopened"),
        "replaced_by": Npc_("report", "Replaced by"),
        "inserted_after": Npc_("report", "Added after"),
        "status_stands": Npc_("report", "stands"),
        "status_voided": Npc_("report", "voided"),
        "status_replaced": Npc_("report", "replaced"),
        "roster_changes": Npc_("report", "Roster changes"),
        "roster_added": Npc_("report", "late player added"),
        "roster_renumbered": Npc_("report", "shirt number changed"),
        "roster_renamed": Npc_("report", "name corrected"),
        "period_1": Npc_("report", "first half"),
        "period_2": Npc_("report", "second half"),
        "period_shootout": Npc_("report", "shootout"),
        "timezone": Npc_("report", "Time zone"),
        "home_captain": Npc_("report", "Home captain"),
        "away_captain": Npc_("report", "Away captain"),
        "score_chart": Npc_("report", "Score over time"),
        "field_diagram": Npc_("report", "Where fouls, violations and free kicks happened"),
        "generated": Npc_("report", "Generated"),
        "log_seq": Npc_("report", "Event log up to"),
        "log_hash": Npc_("report", "Log hash (SHA-256 of the last event, chained)"),
        "damaged": Npc_("report", "The event log is damaged: this report shows it only as far as it is proven"),
        "status": Npc_("report", "Status"),
        "phase": Npc_("report", "Phase"),
        "abandoned_reason": Npc_("report: heading", "Abandoned"),
        "none": Npc_("report", "none"),
        # Result
        "regulation": Npc_("report", "Regulation time"),
        "shootout_score": Npc_("report", "Shootout"),
        "winner": Npc_("report", "Winner"),
        "half_score": Npc_("report", "Half"),
        "draw_pending": Npc_("report", "not decided yet"),
        "draw": Npc_("report", "draw"),  # V1-D2: "1–1 (draw)"
        "rule_set": Npc_("report", "Rule book"),  # SPEC §11.2
        # Roles
        "referee": Npc_("report", "Referee"),
        "assistant1": Npc_("report", "Assistant referee 1"),
        "assistant2": Npc_("report", "Assistant referee 2"),
        "scorer": Npc_("report", "Scorer / timekeeper"),
        "organiser": Npc_("report", "Organiser"),
        # Phases
        "scheduled": Npc_("report", "Before the match"),
        "first_half": Npc_("report", "First half"),
        "halftime": Npc_("report", "Half-time"),
        "second_half": Npc_("report", "Second half"),
        "finished": Npc_("report", "Finished"),
        "abandoned": Npc_("report", "Abandoned"),
        "H1": Npc_("report", "H1"),
        "H2": Npc_("report", "H2"),
        "HT": Npc_("report", "HT"),
        "SO": Npc_("report", "SO"),
        "PRE": Npc_("report", "pre"),
        "END": Npc_("report", "end"),
        # Line-ups
        "number": Npc_("report", "No."),
        "name": Npc_("report", "Name"),
        "team": Npc_("report", "Team"),
        "starters": Npc_("report", "Starters"),
        "substitutes": Npc_("report", "Substitutes"),
        "starter": Npc_("report", "Starter"),
        "changes": Npc_("report", "Changes"),
        "came_on": Npc_("report", "On"),
        "went_off": Npc_("report", "Off"),
        "why": Npc_("report", "Why"),
        "minutes": Npc_("report", "Minutes played"),
        "played": Npc_("report", "Time played"),
        "sub_reason_substitution": Npc_("report", "substitution"),
        "sub_reason_injury": Npc_("report", "injury"),
        "sub_reason_red_card": Npc_("report: why a player left", "sent off"),
        "sub_reason_second_yellow": Npc_("report", "second yellow → sent off"),
        "yes": Npc_("report", "yes"),
        # Timeline
        "seq": Npc_("report", "#"),
        "time": Npc_("report", "Time"),
        "event": Npc_("report", "Event"),
        "by": Npc_("report", "Logged by"),
        "restart_led_to": Npc_("report", "Restart"),
        "score": Npc_("report", "Score"),
        # Stats
        "goals": Npc_("report", "Goals"),
        "shots_missed": Npc_("report", "Missed shots"),
        "violations": Npc_("report", "Violations"),
        "violations_total": Npc_("report", "Violations"),
        "fouls": Npc_("report", "Fouls committed"),
        "fouls_suffered": Npc_("report", "Fouls suffered"),
        "yellow": Npc_("report", "Yellow cards"),
        "red": Npc_("report", "Red cards"),
        "penalties_awarded": Npc_("report", "Penalties awarded"),
        "penalties_conceded": Npc_("report", "Penalties conceded"),
        "penalties_taken": Npc_("report", "Penalties taken"),
        "penalties_converted": Npc_("report", "Penalties converted"),
        "multi_attack_used": Npc_("report", "Multi-attack opportunities used"),
        "shootout_kicks": Npc_("report", "Shootout kicks"),
        "shootout_scored": Npc_("report", "Shootout kicks scored"),
        "shootout_points": Npc_("report", "Shootout points"),
        "total": Npc_("report", "Total"),
        # Shootout sheet
        "round": Npc_("report", "Round"),
        "points": Npc_("report", "Points"),
        "taker": Npc_("report", "Taker"),
        "scored": Npc_("report", "Scored"),
        "missed": Npc_("report", "Missed"),
        "first_to_shoot": Npc_("report", "Shoots first"),
        "takers": Npc_("report", "Takers"),
        # Audit
        "voided_event": Npc_("report", "Voided event"),
        "voided_by": Npc_("report", "Voided by"),
        "voided_at": Npc_("report", "Voided at"),
        "reason": Npc_("report", "Reason"),
        "logged_at": Npc_("report", "Logged at"),
        # Charts
        "legend_foul": Npc_("report", "foul"),
        "legend_violation": Npc_("report", "violation"),
        "legend_free_kick": Npc_("report", "free kick"),
        "minute": Npc_("report", "minute"),
        # Restarts (10.1)
        "kickoff": Npc_("report", "kickoff"),
        "end_line": Npc_("report", "end-line ball"),
        "side_line": Npc_("report", "side-line ball"),
        "free_kick": Npc_("report", "free kick"),
        "penalty": Npc_("report", "penalty"),
        "corner": Npc_("report", "corner"),  # 1.0's set pieces (V1-6)
        "short_corner": Npc_("report", "short corner"),
        # Violation kinds (8)
        "ball_out_side": Npc_("report", "ball out over a side line"),
        "ball_out_end": Npc_("report", "ball out over an end line"),
        "ball_grounded": Npc_("report", "ball grounded"),
        "ball_in_area": Npc_("report", "ball in the area"),
        "player_in_area": Npc_("report", "player in the area"),
        "caught": Npc_("report", "caught-player violation"),
        "restart": Npc_("report", "restart violation"),
        # Teams
        "home": Npc_("report", "Home"),
        "away": Npc_("report", "Away"),
    }
)

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


def label(key: str, lang: str | None = None, rule_set: str = "2.0") -> str:
    """One label: both languages side by side, or the one ``lang`` asks for; a call in the words of the
    match's rule book (``rule_set``, V1-D16)."""
    en, zh = pair(key, rule_set)
    return pick(en, zh, lang)


def book_label(key: str, rule_set: str) -> str | None:
    """The label (an ``N_`` message id) a rule book gives a call in its own words, or None: 1.0 keeps
    2.0's call names and words some of them its own way (V1-D16: the touched carrier, V1-7)."""
    book = BOOKS.get(rule_set)  # type: ignore[call-overload]
    return book.labels.get(key) if book is not None else None


def pair(key: str, rule_set: str = "2.0") -> tuple[str, str]:
    """A label's English and Chinese: the rule book's wording of a call (V1-D16), else the report's own
    wording, else the event catalogue's label."""
    own = book_label(key, rule_set)
    if own is not None:
        return own, i18n.zh(own)
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


def misconduct_label(code: str) -> tuple[str, str]:
    """A card reason's code (M7) in English and Chinese, from the catalogue and its translation (the console's)."""
    variant = next((v for v in MISCONDUCT_CODES if v.name == code), None)
    if variant is None:
        return code, code
    return variant.label, i18n.zh(variant.label)
