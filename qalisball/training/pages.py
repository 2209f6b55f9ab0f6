"""The training pages (issue 24): the trainer's (organiser) and the trainee's (the session's code)."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from qalisball.web import i18n, services
from qalisball.web.guards import organiser_page_data

bp = Blueprint("training_pages", __name__)


@bp.get("/training")
def trainer() -> str:
    """The trainer's page: start a session from a finished match, its code, everyone's answers, the sheet."""
    svc = services.match_service()
    over = [svc.summary(m) for m in svc.matches.values() if m.state is not None and m.state.phase in ("finished", "abandoned")]
    page = {"matches": over, "vocab": i18n.vocabulary(), **organiser_page_data()}
    return render_template("training/trainer.html", page=page)


@bp.get("/training/join")
def trainee() -> str:
    """The trainee's page: join with the code, answer each call on the field diagram."""
    page = {"code": request.args.get("code", ""), "vocab": i18n.vocabulary()}
    return render_template("training/trainee.html", page=page)
