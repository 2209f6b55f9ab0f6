"""Small helpers the rule story tests share: a live ball, the pending restart as a tuple."""

from __future__ import annotations

from typing import Any

from qalisball.rules.common import Team
from tests.engine_driver import EngineMatch


def live(match: EngineMatch, team: Team = "home") -> dict[str, Any]:
    """First half under way, ``team`` kicked off (home defends x0): the ball is live and ``team`` has it."""
    match.kickoff(team, "x0")
    return match.take()


def restart(state: dict[str, Any]) -> tuple[str, str, float, float]:
    """The pending restart as (type, team, x, y)."""
    r = state["restart"]
    return r["type"], r["team"], r["spot"]["x"], r["spot"]["y"]
