"""Small vocabulary shared by every rules module: teams, ends, sides."""

from __future__ import annotations

from typing import Literal

Team = Literal["home", "away"]
End = Literal["x0", "xL"]
Side = Literal["low", "high"]

TEAMS: tuple[Team, Team] = ("home", "away")


def other_team(team: Team) -> Team:
    return "away" if team == "home" else "home"


def other_end(end: End) -> End:
    return "xL" if end == "x0" else "x0"
