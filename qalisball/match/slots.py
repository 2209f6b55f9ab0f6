"""The match service in an app, typed by its own class (the web kernel knows its key only).

``create_app`` installs it once per app; handlers of every feature ask for it with ``match_service()``
(issue 21); the consoles' registry and the live room have their slots beside their classes
(``devices.DEVICES``, ``live.LIVE``: other features never reach them). The
competitions' pages answer the officials' page where its "←" goes through ``FIXTURE_HOME``, a function
the composition root hands this feature (issue 28 item 4, D321): the match feature imports no other.
"""

from __future__ import annotations

from collections.abc import Callable

from qalisball.match.service import MatchService
from qalisball.web.services import MATCHES as MATCHES_KEY
from qalisball.web.services import Slot

MATCHES: Slot[MatchService] = Slot(MATCHES_KEY.key)

# ``(competition id, fixture id, competition name)`` of the fixture a match was made from (or replays), or None.
FixtureHome = Callable[[str], "tuple[str, str, str] | None"]
FIXTURE_HOME: Slot[FixtureHome] = Slot("qalisball_fixture_home")


def match_service() -> MatchService:
    """The match service of this app (created once in ``create_app``)."""
    return MATCHES()


# The server that writes a match when another one does (a league's venue, SPEC L1): its venue id, else None.
# ``GET /api/matches`` names it as the match's ``venue``; the composition root hands it (the league's).
Origin = Callable[[str], "str | None"]
ORIGIN: Slot[Origin] = Slot("qalisball_match_origin")
