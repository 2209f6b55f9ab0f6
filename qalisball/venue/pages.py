"""The venue screens' pages (issue 13): the organiser's ``/screens`` and a venue's ``/screens/<name>``.

A venue's big screen opens ``/screens/<name>`` once and is then driven from the organiser's page
``/screens``: it shows a match's scoreboard, a match's line-ups with its officials, a slide (an uploaded
logo or sponsor image, with a caption), a competition's screen, or nothing, and switches live over
Socket.IO (``live.py``). The routes join the blueprint ``screens`` the API shares (``blueprint.py``), whose endpoint
names the templates use.
"""

from __future__ import annotations

from flask import abort, render_template
from flask_babel import lazy_gettext as _l

from qalisball.match.slots import match_service
from qalisball.venue.blueprint import bp
from qalisball.venue.schemas import NAME, SHOWS
from qalisball.venue.service import describe, image_url
from qalisball.venue.slots import competitions, screen_service
from qalisball.web import i18n
from qalisball.web.guards import organiser_page_data


@bp.get("/screens")
def organiser_page() -> str:
    """The organiser's page: every screen with what it shows and a form to switch it; images, logos."""
    svc = screen_service()
    comps = competitions().competitions
    matches = [match_service().summary(m) for m in reversed(list(match_service().matches.values()))]
    teams = sorted({s["home"] for s in matches} | {s["away"] for s in matches} | {t.name for t in competitions().teams.values()})
    return render_template(
        "venue/screens.html",
        screens=[describe(s) for s in svc.screens.values()],
        shows={k: str(v) for k, v in SHOWS.items()},
        matches=matches,
        competitions=sorted(comps.values(), key=lambda c: c.created_at, reverse=True),
        images=list(svc.images.values()),
        logos=sorted(svc.logos.values(), key=lambda r: r["team"]),
        teams=teams,
        image_url=image_url,
        vocab=i18n.vocabulary(),
        page={"lang": i18n.current_language(), "strings": page_strings(), **organiser_page_data()},
    )


@bp.get("/screens/<name>")
def venue_screen(name: str) -> str:
    """A venue's screen: shows what the organiser chose for ``name`` and follows each new choice."""
    if not NAME.match(name):
        abort(404)
    screen = describe(screen_service().screen(name))
    return render_template(
        "venue/venue_screen.html",
        screen=screen,
        page={"screen": name, "current": screen, "lang": i18n.current_language(), "strings": page_strings()},
    )


_JS = {
    "saved": _l("Saved"),
    "failed": _l("Not accepted"),
    "token_needed": _l("Enter the organiser token to make changes"),
    "token_rejected": _l("The organiser token was not accepted"),
    "uploaded": _l("Uploaded"),
    "confirm_delete": _l("Delete {what}?"),
}


def page_strings() -> dict[str, str]:
    return {**i18n.js_strings(), **i18n.screen_strings(), **{k: str(v) for k, v in _JS.items()}}
