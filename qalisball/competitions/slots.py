"""The competitions' service in an app, typed by its own class (the web kernel knows its key only), and
what the competitions answer the other features through the composition root (issue 28 item 4, D321).
"""

from __future__ import annotations

from collections.abc import Callable

from qalisball.competitions.service import CompetitionService
from qalisball.web.services import COMPETITIONS as COMPETITIONS_KEY
from qalisball.web.services import Slot

COMPETITIONS: Slot[CompetitionService] = Slot(COMPETITIONS_KEY.key)

# The server that writes a competition when another one does (a league venue's own, held at its central, D379): its
# venue id, else None. ``GET /api/competitions`` names it as the competition's ``venue``; the root hands it (the league's).
Origin = Callable[[str], "str | None"]
ORIGIN: Slot[Origin] = Slot("qalisball_competition_origin")


def competition_service() -> CompetitionService:
    return COMPETITIONS()


def fixture_home(svc: CompetitionService) -> Callable[[str], tuple[str, str, str] | None]:
    """``(competition id, fixture id, competition name)`` of the fixture whose match (or an earlier match of
    it, replayed) ``match_id`` is, or None: where the match's officials' page goes back to (issue 19.7)."""

    def home(match_id: str) -> tuple[str, str, str] | None:
        for c in svc.competitions.values():
            for f in c.fixtures:
                if match_id == f.match_id or match_id in f.previous_matches:
                    return c.id, f.id, c.name
        return None

    return home
