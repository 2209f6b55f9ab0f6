"""A correction that changed a goal, in the viewer's language (issue 19, D163): the words the phone's
timeline, the big screen and the overlays show. The facts are the rule core's (``rules.notices``);
only the wording is here, so every screen says the same thing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import lazy_gettext as _l

from qalisball.rules.notices import Notice
from qalisball.web import i18n

TITLES = {
    "disallowed": _l("Goal disallowed"),
    "corrected": _l("Goal corrected"),
    "cancelled": _l("Goal cancelled"),
    "given": _l("Goal given"),
}
# Placeholders are {name}: the same sentences are handed to scripts (common.js fmt()).
TEXT = _l("{title} — {detail}")
SCORER = _l("scorer {old} → {new}")
REASON = _l("Reason: {reason}")
# The console's Undo posts a void with this reason: to spectators, a goal logged in error.
UNDO_REASON = "undo"
LOGGED_IN_ERROR = _l("logged in error")


def call_label(call: Mapping[str, Any]) -> str:
    """The call that voided a goal, as the screens name it ("Player in area", "Foul")."""
    if call.get("type") == "violation" and call.get("kind") in i18n.VIOLATIONS:
        return str(i18n.VIOLATIONS[call["kind"]])
    return str(i18n.EVENTS.get(str(call.get("type")), call.get("type")))


def _player(team: str, number: int | None, roster: Mapping[str, Mapping[str, str]]) -> str:
    if number is None:
        return ""
    name = roster.get(team, {}).get(str(number), "")
    return f"#{number} {name}".strip()


def words(n: Notice, names: Mapping[Any, str], roster: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """``n``'s facts and its words: ``title``, ``detail``, ``text`` (both in one line), ``who`` (the goal's
    team and scorer), ``reason`` line; ``names`` are the teams' names, ``roster`` number → name per team."""
    detail = ""
    if n.kind == "disallowed" and n.call is not None:
        detail = str(i18n.SCREEN_JS["why_rule"]).format(reason=call_label(n.call), rule=n.rule)
    elif n.kind == "corrected":
        new_team = n.new_team or n.team
        old, new = (f"#{n.player}" if n.player is not None else "?"), (f"#{n.new_player}" if n.new_player is not None else "?")
        if new_team != n.team:
            old, new = f"{names[n.team]} {old}", f"{names[new_team]} {new}"
        detail = str(SCORER).format(old=old, new=new)
    else:
        detail = str(LOGGED_IN_ERROR) if n.reason == UNDO_REASON else n.reason
    title = str(TITLES[n.kind])
    shown_team = n.new_team if n.kind == "corrected" and n.new_team else n.team
    shown_player = n.new_player if n.kind == "corrected" else n.player
    return {
        **n.public(),
        "title": title,
        "detail": detail,
        "text": str(TEXT).format(title=title, detail=detail) if detail else title,
        "who": f"{names[shown_team]} {_player(shown_team, shown_player, roster)}".strip(),
        "reason_text": str(REASON).format(reason=n.reason) if n.reason and n.kind in ("disallowed", "corrected") else "",
    }
