"""The training pages (issue 24): the trainer's (organiser) and the trainee's (the session's code)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request
from flask_babel import gettext as _

from qalisball.match import slots as match_slots
from qalisball.web import i18n
from qalisball.web.guards import organiser_page_data

bp = Blueprint("training_pages", __name__)


def _strings() -> dict[str, Any]:
    """The words the training scripts put together (issue 27 items 8, 9), in the page's language."""
    return {
        "wrong_type": _("The restart was wrong: it is a %(what)s.", what="{what}"),
        "wrong_team": _("The team was wrong: it is %(team)s's.", team="{team}"),
        "wrong_spot": _("The spot was wrong: %(m)s m from the right one.", m="{m}"),
        "wrong_spot_call": _("The spot was wrong: the restart is moved away from the call's spot (%(rule)s).", rule="{rule}"),
        "no_spot": _("The spot was missing: tap the field."),
        "wrong_card": _("The card was wrong: %(card)s.", card="{card}"),
        "no_card": _("No card"),
        "all_right": _("Right: the restart, the team and the spot."),
        "expected_spot": _("The right spot"),
        "your_spot": _("Your spot"),
        "name_taken": _("Someone has joined with this name already: choose another."),
        "session_over": _("This training session has ended."),
        "joined_as": _("Joined as %(name)s", name="{name}"),
        "leave": _("Leave"),
        "open": _("running"),
        "closed": _("closed"),
        "expired": _("expired"),
        "trainees": _("%(n)s trainees", n="{n}"),
    }


@bp.get("/training")
def trainer() -> str:
    """The trainer's page: start a session from a finished match, its code, everyone's answers, the sheet;
    the sessions started before, running first, to reopen one (issue 27 item 8)."""
    svc = match_slots.match_service()
    over = [svc.summary(m) for m in svc.matches.values() if m.state is not None and m.state.phase in ("finished", "abandoned")]
    page = {"matches": over, "vocab": i18n.vocabulary(), "strings": _strings(), **organiser_page_data()}
    return render_template("training/trainer.html", page=page)


@bp.get("/training/join")
def trainee() -> str:
    """The trainee's page: join with the code, answer each call on the field diagram. Once joined, the device
    keeps the trainee (local storage: issue 27 item 8) and the address drops the code."""
    page = {"code": request.args.get("code", ""), "vocab": i18n.vocabulary(), "strings": _strings()}
    return render_template("training/trainee.html", page=page)
