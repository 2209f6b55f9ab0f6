"""A restart and why it was given: what the state holds and the rulings (``rulings.py``) name.

Apart from ``state.py`` (which re-exports both) so that the rulings need not import the state, which holds
the rulings: no import cycle inside the rule core (issue 28 item 4).
"""

from __future__ import annotations

from dataclasses import dataclass

from .book import RestartType
from .common import End, Team
from .field import Point


@dataclass(frozen=True)
class Why:
    """Why a restart was given, in the engine's words: a rule and an ``N_`` template with its params."""

    rule: str
    template: str
    params: tuple[tuple[str, object], ...] = ()

    @property
    def message(self) -> str:
        return self.template.format(**dict(self.params))


@dataclass(frozen=True)
class Restart:
    type: RestartType
    team: Team
    spot: Point
    end: End | None = None  # the end of an end-line ball or penalty
    why: Why | None = None  # the call that gave it (shown to spectators, issue 13)
    origin: Point | None = None  # where the call was made, when the 3 m rule moved the kick (10.8)
