"""A demo match and a demo competition, created on an empty database, so a newcomer can start at once."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from qalisball.competitions.schemas import CompetitionSchema
from qalisball.competitions.service import Competition, CompetitionService
from qalisball.match.schemas import MatchSchema
from qalisball.match.service import Match, MatchService

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


# ---------------------------------------------------------------------------------------------
# The demo competition (issue 12): six kept teams, two fields, a round robin starting at the next hour.

DEMO_TEAMS = [
    ("人大 Renmin", "RUC", "#b71c1c", "中国人民大学"),
    ("清华 Tsinghua", "THU", "#4a148c", "清华大学"),
    ("北大 Peking", "PKU", "#880e4f", "北京大学"),
    ("北师大 BNU", "BNU", "#0d47a1", "北京师范大学"),
    ("北航 Beihang", "BUAA", "#006064", "北京航空航天大学"),
    ("贸大 UIBE", "UIBE", "#e65100", "对外经济贸易大学"),
]
SURNAMES = "李王张刘陈杨赵黄周吴"
GIVEN = ["华", "芳", "伟", "洋", "静", "帆", "磊", "敏", "昊", "悦"]
DEMO_OFFICIALS = [("王强", "北京体育大学"), ("陈丽", "中国人民大学"), ("赵明", None), ("孙燕", "首都体育学院")]


def demo_competition_request(team_ids: list[str], starts_at: datetime) -> dict[str, Any]:
    return {
        "name": "Demo Cup 演示杯",
        "format": "round_robin",
        "teams": team_ids,
        "fields": [{"name": "Field 1 一号场", "length": 40, "width": 25}, {"name": "Field 2 二号场", "length": 40, "width": 25}],
        "starts_at": starts_at.isoformat(),
        "slot_minutes": 80,
    }


def ensure_demo_competition(comps: CompetitionService, now: datetime | None = None) -> Competition | None:
    """Create the demo competition when there is no team and no competition at all; return it (or None)."""
    if comps.competitions or comps.teams:
        return None
    ids = []
    for i, (name, short, color, club) in enumerate(DEMO_TEAMS):
        players = [
            {"number": n + 1, "name": SURNAMES[(n + 3 * i) % len(SURNAMES)] + GIVEN[(n * 7 + i) % len(GIVEN)], "gender": None}
            for n in range(10)
        ]
        ids.append(comps.create_team({"name": name, "short": short, "color": color, "club": club, "players": players}).id)
    for name, club in DEMO_OFFICIALS:
        comps.create_official({"name": name, "club": club})
    now = now or datetime.now().astimezone()
    start = (now + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
    return comps.create(CompetitionSchema().load(demo_competition_request(ids, start)))
