"""A demo match and a demo competition, created on an empty database, so a newcomer can start at once."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from qalisball.competitions.schemas import CompetitionSchema
from qalisball.competitions.service import Competition, CompetitionService
from qalisball.match.schemas import MatchSchema, parse_event
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


def _team(name: str, color: str, names: list[str], starters: int = 6) -> dict[str, Any]:
    """A demo team: its players numbered from 1 in the order given, the first ``starters`` starting."""
    return {
        "name": name,
        "color": color,
        "players": [{"number": i + 1, "name": n} for i, n in enumerate(names)],
        "starting": list(range(1, starters + 1)),
    }


def demo_request() -> dict[str, Any]:
    return {
        "home": _team("人大 Renmin", "#b71c1c", HOME_PLAYERS),
        "away": _team("Tsinghua 清华", "#4a148c", AWAY_PLAYERS),
        "starters": 6,
        "field": {"length": 40, "width": 25, "side_lines": True},
        "venue": "Demo field 演示场地",
    }


def ensure_demo(svc: MatchService) -> Match | None:
    """Create the demo match (and the finished demo friendly) if there is no match at all; return the
    demo match (or None).

    Never on a database that lost matches or cannot be written: an empty list there is a loss to
    report, not a fresh installation (issue 14).
    """
    if svc.matches or svc.lost or svc.problem is not None:
        return None
    demo = svc.create(MatchSchema().load(demo_request()))
    ensure_demo_friendly(svc)  # a finished match to train referees on at once (issue 24)
    svc.create(MatchSchema().load(demo_v1_request()))  # a 1.0 match to officiate beside the 2.0 one (issue 22)
    return demo


def demo_v1_request() -> dict[str, Any]:
    """A small friendly under rule book 1.0 (SPEC §11): a 36 × 22 m field with side lines (V1-1, V1-D3),
    five a side, two 10-minute halves; a level score at the end is a draw (V1-D2)."""

    return {
        "home": _team("北航 Beihang", "#006064", HOME_PLAYERS[:7], 5),
        "away": _team("贸大 UIBE", "#e65100", AWAY_PLAYERS[:7], 5),
        "starters": 5,
        "field": {"length": 36, "width": 22, "side_lines": True},
        "rules": {"rule_set": "1.0", "half_minutes": 10, "halftime_minutes": 5},
        "venue": "Demo 1.0 friendly 演示 1.0 规则友谊赛",
    }


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
    c = comps.create(CompetitionSchema().load(demo_competition_request(ids, start)))
    ensure_demo_protest(comps, c, now)
    return c


# The finished fixture and its protest (issue 27 item 11): the protest -> what-if -> decision path on a fresh
# install. The round robin's last fixture, moved to the hour and a half before now (D75), played as the demo
# friendly is (2-1), and the losing team's protest against the winner's second goal, undecided.
PROTEST_TEXT = (
    "{home} 的第二个进球（下半场 12 分钟，#6）之前，#6 已进入禁区，进球不应有效。"
    " · {away} protest {home}'s second goal (second half, 12 min, #6): #6 was in the area before it."
)


def ensure_demo_protest(comps: CompetitionService, c: Competition, now: datetime) -> Any:
    """Play the demo competition's last fixture before ``now`` and file the away team's protest; return it."""
    fixture = c.fixtures[-1]
    # Its slot ends before the competition's first one starts (D75: no field is taken twice).
    slot = timedelta(minutes=int(c.config["slot_minutes"]))
    first = datetime.fromisoformat(c.config["starts_at"])
    played_from = min(now - timedelta(milliseconds=FRIENDLY_LENGTH_MS), first - slot).replace(second=0, microsecond=0)
    comps.reschedule(c, fixture, {"starts_at": played_from.isoformat(), "field": c.config["fields"][0]["name"]})
    lineup = {"starting": list(range(1, 7))}
    m = comps.create_match(c, fixture, {"home": lineup, "away": lineup})
    svc = comps.matches
    _play(svc, m, FRIENDLY_HALVES, svc.clock() - int((now - played_from).total_seconds() * 1000))
    home, away = (comps.teams[t].name for t in (fixture.home, fixture.away))  # type: ignore[index]
    return comps.file_protest(c, {"fixture": fixture.id, "team": fixture.away, "text": PROTEST_TEXT.format(home=home, away=away)})


# ---------------------------------------------------------------------------------------------
# The finished demo friendly (issue 24): a trainer starts a training session at once on a fresh install.

FRIENDLY_HOME = ["钱进", "孙立", "周航", "吴迪", "郑好", "冯远", "陈晨", "褚楚", "卫东", "蒋南"]
FRIENDLY_AWAY = [
    "Kai Wang",
    "Lena Zhu",
    "Max Hu",
    "Nina Guo",
    "Owen Luo",
    "Pia Song",
    "Quinn Tang",
    "Rita Yu",
    "Sam Xie",
    "Tina Qiu",
]
MINUTE = 60_000

# (ms of the match clock in the half, event): a friendly 北大 Peking 2–1 北师大 BNU, replayed at start-up.
# Home's end is x0, so home attacks x = 40: away's foul at (38.5, 12.5) is a free kick moved out of
# away's area by the 3 m rule (10.8); every restart type but the penalty appears once.
FRIENDLY_HALVES: tuple[tuple[tuple[int, dict[str, Any]], ...], ...] = (
    (
        (0, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}),
        (0, {"type": "period_start"}),
        (2_000, {"type": "restart_taken", "team": "home", "player": 1}),
        (40_000, {"type": "violation", "kind": "ball_out_side", "team": "away", "player": 3, "spot": {"x": 15.0, "y": 25.0}}),
        (55_000, {"type": "restart_taken", "team": "home", "player": 2}),
        (2 * MINUTE + 10_000, {"type": "violation", "kind": "ball_grounded", "team": "home", "spot": {"x": 30.0, "y": 5.0}}),
        (2 * MINUTE + 25_000, {"type": "restart_taken", "team": "away", "player": 4}),
        (5 * MINUTE + 30_000, {"type": "foul", "team": "away", "player": 4, "spot": {"x": 38.5, "y": 12.5}, "card": "yellow"}),
        (6 * MINUTE, {"type": "restart_taken", "team": "home", "player": 3}),
        (6 * MINUTE + 8_000, {"type": "goal", "team": "home", "player": 2}),
        (6 * MINUTE + 40_000, {"type": "restart_taken", "team": "away", "player": 1}),
        (9 * MINUTE, {"type": "violation", "kind": "ball_out_end", "team": "away", "player": 5, "spot": {"x": 40.0, "y": 8.0}}),
        (9 * MINUTE + 20_000, {"type": "restart_taken", "team": "home", "player": 5}),
        (14 * MINUTE, {"type": "foul", "team": "home", "player": 5, "spot": {"x": 12.0, "y": 20.0}}),
        (14 * MINUTE + 15_000, {"type": "restart_taken", "team": "away", "player": 2}),
        (18 * MINUTE, {"type": "goal", "team": "away", "player": 3}),
        (18 * MINUTE + 30_000, {"type": "restart_taken", "team": "home", "player": 1}),
        (30 * MINUTE, {"type": "period_end"}),
    ),
    (
        (0, {"type": "period_start"}),
        (2_000, {"type": "restart_taken", "team": "away", "player": 1}),
        (3 * MINUTE, {"type": "violation", "kind": "ball_out_side", "team": "home", "player": 6, "spot": {"x": 22.0, "y": 0.0}}),
        (3 * MINUTE + 15_000, {"type": "restart_taken", "team": "away", "player": 3}),
        (11 * MINUTE, {"type": "foul", "team": "away", "player": 6, "spot": {"x": 25.0, "y": 9.0}}),
        (11 * MINUTE + 20_000, {"type": "restart_taken", "team": "home", "player": 4}),
        (12 * MINUTE, {"type": "goal", "team": "home", "player": 6}),
        (12 * MINUTE + 30_000, {"type": "restart_taken", "team": "away", "player": 1}),
        (30 * MINUTE, {"type": "period_end"}),
    ),
)
HALFTIME_MS = 10 * MINUTE
FRIENDLY_LENGTH_MS = 2 * 30 * MINUTE + HALFTIME_MS


def demo_friendly_request() -> dict[str, Any]:
    return {
        "home": _team("北大 Peking", "#880e4f", FRIENDLY_HOME),
        "away": _team("北师大 BNU", "#0d47a1", FRIENDLY_AWAY),
        "starters": 6,
        "field": {"length": 40, "width": 25, "side_lines": True},
        "venue": "Demo friendly 演示友谊赛",
    }


def ensure_demo_friendly(svc: MatchService) -> Match:
    """Create the finished demo friendly, its calls replayed from ``FRIENDLY_HALVES``, as if played in the
    hour and ten minutes before now (every call through the service, as a tablet's would be).

    The service's clock is what the engine reads a call's time from; for the replay it is a scripted one,
    so the halves run their 30 minutes. Called at start-up only, before the server answers anyone.
    """
    m = svc.create(MatchSchema().load(demo_friendly_request()))
    _play(svc, m, FRIENDLY_HALVES)
    return m


def _play(
    svc: MatchService, m: Match, halves: tuple[tuple[tuple[int, dict[str, Any]], ...], ...], start: int | None = None
) -> None:
    """Log ``halves`` (30-minute halves, 10 minutes apart) on ``m`` as the referee, from ``start`` (the
    service's clock, ms; by default so that the match ends now)."""
    real_clock = svc.clock
    start = real_clock() - FRIENDLY_LENGTH_MS if start is None else start
    now = start
    svc.clock = lambda: now  # reads ``now`` as the loop moves it on
    try:
        for half in halves:
            for offset, body in half:
                now = start + offset
                svc.submit(m, "referee", body, parse_event(body))
            start += 30 * MINUTE + HALFTIME_MS
    finally:
        svc.clock = real_clock
