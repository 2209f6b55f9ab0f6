"""The app's services, reached by type: ``Slot``, one service under its key in ``app.extensions``.

``create_app`` (the composition root, ``server/factory.py``) and each feature's ``init_app`` install a
service once per app; handlers ask for it with a typed accessor instead of a string key that no import
shows (issue 21). Each feature declares the slots of its own services, typed by its own classes
(``match/slots.py``, ``competitions/slots.py``, ``venue/slots.py``…): this kernel names no feature, not
even for the type checker (issue 28 item 4, D320). ``MATCHES`` and ``COMPETITIONS`` stay here as keys only
(tests and benchmarks read them); their types are the features'.

What the web kernel itself asks of a feature is a protocol it owns, and the composition root hands it the
object that fulfils it (structurally: the feature need not import the protocol):

- ``Officials``: who holds a token (the organiser check, a link's token made a cookie) and what the
  integrity checks found (the notices every page shows): the match service fulfils it (``OFFICIALS``);
- ``Logos``: where a team's logo is served: the venue's service fulfils it, for match pages and reports;
- ``Throttling``: the wrong-token throttle (D50, ``hardening.Throttle``), which the live rooms use too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar, cast

from flask import Flask, current_app

from qalisball.storage.integrity import Damage

T = TypeVar("T")


class Logos(Protocol):
    """Where a team's logo is served (uploaded once per team name, issue 13), or None."""

    def logo_url(self, team: str) -> str | None: ...


class OfficiatedMatch(Protocol):
    """A match as the web kernel sees it: its id, and which of its roles a token is."""

    @property
    def id(self) -> str: ...

    def role_of(self, token: str | None) -> str | None: ...


class Officials(Protocol):
    """What the web kernel asks of the matches (``guards``, ``token_links``, ``hardening``), and nothing more."""

    @property
    def matches(self) -> Mapping[str, OfficiatedMatch]: ...

    @property
    def problem(self) -> Damage | None: ...

    @property
    def lost(self) -> Mapping[str, Damage]: ...

    def role_for_any_match(self, token: str) -> str | None: ...

    def damage(self, m: Any) -> Damage | None: ...


class Throttling(Protocol):
    """Wrong tokens (and other secrets) counted per client address (D50)."""

    def wait_s(self, address: str, now: int) -> int: ...

    def failed(self, address: str, now: int) -> None: ...


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


# The features' own services: keys only (each feature types them: match/slots.py, competitions/slots.py).
MATCHES: Slot[Any] = Slot("qalisball")
COMPETITIONS: Slot[Any] = Slot("qalisball_competitions")

# What this kernel asks of the features, handed by the composition root (server/factory.py).
OFFICIALS: Slot[Officials] = Slot("qalisball_officials")
LOGOS: Slot[Logos] = Slot("qalisball_logos")
THROTTLE: Slot[Throttling] = Slot("qalisball_throttle")


def officials() -> Officials:
    """What this app's matches answer the web kernel (the match service, handed by ``create_app``)."""
    return OFFICIALS()


def logos() -> Logos:
    return LOGOS()


def throttle() -> Throttling | None:
    """The wrong-token throttle (D50), when the app has one."""
    return THROTTLE.find()
