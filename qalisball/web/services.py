"""The app's services, reached by type: the one place that knows their keys in ``app.extensions``.

``create_app`` (and each feature's ``init_app``) installs a service once per app; handlers ask for it
with a typed accessor (``match_service()``, ``competition_service()``, ``screen_service()``, ``live()``…)
instead of a string key that no import shows (issue 21). The keys stay those of before, which tests
and benchmarks still read.

The features' types are named for the type checker only (``TYPE_CHECKING``): at run time this kernel
imports no feature, so the layer contract (``.importlinter``: kernels below features) holds.
Logos reach match pages and reports through ``Logos``, a protocol the venue's service fulfils, so that
no feature imports the venue's code for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, cast

from flask import Flask, current_app

if TYPE_CHECKING:
    from qalisball.competitions.service import CompetitionService
    from qalisball.match.devices import DeviceRegistry
    from qalisball.match.live import MatchRoom
    from qalisball.match.service import MatchService
    from qalisball.reports.pages import ReportCache
    from qalisball.server.follower import Follower
    from qalisball.venue.service import ScreenService
    from qalisball.web.hardening import Throttle

T = TypeVar("T")


class Logos(Protocol):
    """Where a team's logo is served (uploaded once per team name, issue 13), or None."""

    def logo_url(self, team: str) -> str | None: ...


class Slot(Generic[T]):
    """One service of an app, under its key in ``app.extensions``."""

    def __init__(self, key: str) -> None:
        self.key = key

    def install(self, app: Flask, value: T) -> T:
        app.extensions[self.key] = value
        return value

    def get_or_install(self, app: Flask, make: Callable[[], T]) -> T:
        """The service of ``app``, installed first when it has none (``dict.setdefault``: one wins a race)."""
        found = app.extensions.get(self.key)
        return cast(T, found if found is not None else app.extensions.setdefault(self.key, make()))

    def of(self, app: Flask) -> T:
        """The service of ``app`` (KeyError when the app was built without it)."""
        return cast(T, app.extensions[self.key])

    def find(self, app: Flask | None = None) -> T | None:
        """The service of ``app`` (default: this request's), or None when it was built without it."""
        return cast("T | None", (app or current_app).extensions.get(self.key))

    def __call__(self) -> T:
        """The service of the app handling this request."""
        return self.of(current_app)


MATCHES: Slot[MatchService] = Slot("qalisball")
DEVICES: Slot[DeviceRegistry] = Slot("qalisball_devices")
LIVE: Slot[MatchRoom] = Slot("qalisball_live")
COMPETITIONS: Slot[CompetitionService] = Slot("qalisball_competitions")
SCREENS: Slot[ScreenService] = Slot("qalisball_screens")
LOGOS: Slot[Logos] = Slot("qalisball_logos")
REPORTS: Slot[ReportCache] = Slot("qalisball_reports")
THROTTLE: Slot[Throttle] = Slot("qalisball_throttle")
FOLLOWER: Slot[Follower] = Slot("qalisball_follower")


def match_service() -> MatchService:
    """The match service of this app (created once in ``create_app``)."""
    return MATCHES()


def devices() -> DeviceRegistry:
    """The officials' consoles connected now (API.md "Match day")."""
    return DEVICES()


def live() -> MatchRoom:
    """The matches' live room (Socket.IO): joins, broadcasts, revoked tokens (D158)."""
    return LIVE()


def competition_service() -> CompetitionService:
    return COMPETITIONS()


def screen_service() -> ScreenService:
    return SCREENS()


def logos() -> Logos:
    return LOGOS()


def throttle() -> Throttle | None:
    """The wrong-token throttle (D50), when the app has one."""
    return THROTTLE.find()
