"""A demo match, created when the database has none, so a newcomer can officiate at once."""

from __future__ import annotations

from typing import Any

from .schemas import MatchSchema
from .service import Match, MatchService

HOME_PLAYERS = ["李华", "王芳", "张伟", "刘洋", "陈静", "杨帆", "赵磊", "周敏", "吴昊", "孙悦"]
AWAY_PLAYERS = [
    "Alex Chen",
    "Bella Wu",
    "Chris Li",
    "Dana Zhou",
    "Eli Sun",
    "Fay He",
    "Gus Ma",
    "Hana Lin",
    "Ivan Xu",
    "Jade Gao",
]


def demo_request() -> dict[str, Any]:
    def team(name: str, color: str, names: list[str]) -> dict[str, Any]:
        return {
            "name": name,
            "color": color,
            "players": [{"number": i + 1, "name": n} for i, n in enumerate(names)],
            "starting": [1, 2, 3, 4, 5, 6],
        }

    return {
        "home": team("人大 Renmin", "#b71c1c", HOME_PLAYERS),
        "away": team("Tsinghua 清华", "#4a148c", AWAY_PLAYERS),
        "starters": 6,
        "field": {"length": 40, "width": 25, "side_lines": True},
        "venue": "Demo field 演示场地",
    }


def ensure_demo(svc: MatchService) -> Match | None:
    """Create the demo match if there is no match at all; return it (or None).

    Never on a database that lost matches or cannot be written: an empty list there is a loss to
    report, not a fresh installation (issue 14).
    """
    if svc.matches or svc.lost or svc.problem is not None:
        return None
    return svc.create(MatchSchema().load(demo_request()))
