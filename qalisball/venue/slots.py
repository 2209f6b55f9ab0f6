"""The venue's services in an app, typed by their own classes, and what the venue asks of the competitions
(``Competitions``, a protocol it owns: the composition root hands it the competitions' service, issue 28
item 4, D321): the venue imports no other feature but the match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from qalisball.venue.service import ScreenService
from qalisball.web.services import Slot


class Competitions(Protocol):
    """What the venue's screens ask of the competitions: which there are (a screen may show one), and the
    kept teams (their names join the logos' list)."""

    @property
    def competitions(self) -> Mapping[str, Any]: ...

    @property
    def teams(self) -> Mapping[str, Any]: ...


SCREENS: Slot[ScreenService] = Slot("qalisball_screens")
COMPETITIONS: Slot[Competitions] = Slot("qalisball_venue_competitions")


def screen_service() -> ScreenService:
    return SCREENS()


def competitions() -> Competitions:
    return COMPETITIONS()
