"""The venue organiser's league page (issue 31 item 4, L4): ``/league/fixtures``, the fixtures the central gave
this venue as last fetched (and when), each with a form to make its match from the rosters fetched (the form
posts ``POST /api/league/fixtures/<fid>/match``, ``static/js/league_fixtures.js``). Organiser only: without the
organiser's cookie the page shows the sign-in form and nothing else; at a server that is no venue it says so.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template
from flask_babel import lazy_gettext as _l

from qalisball.league.venue_fixtures import VenueFixtures
from qalisball.web import i18n
from qalisball.web.guards import organiser_page_data
from qalisball.web.services import Slot

bp = Blueprint("league_pages", __name__)
FIXTURES: Slot[VenueFixtures] = Slot("qalisball_league_fixtures")


@bp.get("/league/fixtures")
def fixtures_page() -> str:
    data = organiser_page_data()
    fixtures = FIXTURES.find()
    rows: list[dict[str, Any]] = fixtures.listing() if fixtures is not None and data["organiser"] else []
    return render_template(
        "league/fixtures.html",
        venue=fixtures is not None,
        fixtures=rows,
        fetched_at=fixtures.fetched_at if fixtures is not None else None,
        fetch_error=fixtures.fetch_error if fixtures is not None else None,
        organiser=data["organiser"],
        vocab=i18n.vocabulary(),
        reasons={"red": _l("red"), "yellow": _l("yellow")},
        page={"lang": i18n.current_language(), "strings": {k: str(v) for k, v in _JS.items()}, **data},
    )


_JS = {
    "made": _l("The match is made: open its officials' page for the QR codes."),
    "officials": _l("Officials' page"),
    "failed": _l("Not made:"),
}
