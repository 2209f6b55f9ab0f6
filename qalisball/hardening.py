"""The web layer's defences (issue 14): integrity notices on every screen, security headers, throttling.

- ``integrity_notices``: a template global; ``base.html`` shows its lines at the top of every page, so
  a damaged match (or database) says so on the console, the scoreboard, the phone page and the lists.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_babel import gettext

from .integrity import Damage
from .web import service


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(integrity_notices=integrity_notices)


def _words(damage: Damage) -> str:
    """A damage's reason in the page's language (its template is translated like a rule refusal)."""
    return str(gettext(damage.template)).format(**damage.params)


def integrity_notices(m: Any = None) -> list[str]:
    """What a page must say about the integrity of what it shows: the match's damage, or the database's."""
    svc = service()
    if m is not None:
        damage = svc.damage(m)
        if damage is None:
            return []
        return [
            gettext(
                "Read-only: this match’s event log cannot be trusted (%(reason)s). It is shown as far as it is proven.",
                reason=_words(damage),
            )
        ]
    notices = []
    if svc.problem is not None:
        notices.append(gettext("Read-only: %(reason)s.", reason=_words(svc.problem)))
    for damage in svc.lost.values():
        notices.append(gettext("A match was lost: %(reason)s.", reason=_words(damage)))
    return notices
