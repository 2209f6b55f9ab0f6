"""Matches brought to the states the screens must show, through the HTTP API (as the officials' tablets do).

Shared by the browser tests of the screens and by ``scripts/screenshots.py`` (docs/screens/).
"""

from __future__ import annotations

from typing import Any, Protocol

from qalisball.server.demo import demo_request

# Team names of the lengths the scoreboard must hold without overlap (issue 13).
NAMES = {
    "zh2": ("人大", "清华"),
    "zh20": ("中国人民大学附属中学第二分校立群球代表队", "清华大学附属中学国际部立群球俱乐部一队"),
    "latin30": ("Renmin University Qalisball Cl", "Tsinghua Univ. Bottle Ball Team"[:30]),
}


class Api(Protocol):
    def create_match(self, body: dict[str, Any]) -> dict[str, Any]: ...

    def post(self, match_id: str, token: str, event: dict[str, Any], expect: int = 201) -> dict[str, Any]: ...


def new_match(api: Api, home: str = "人大 Renmin", away: str = "Tsinghua 清华", **changes: Any) -> tuple[str, dict[str, str]]:
    body = demo_request()
    body["home"]["name"], body["away"]["name"] = home, away
    body["officials"] = {"referee": "王强", "assistant1": "陈丽", "assistant2": "Zhao Ming", "scorer": "孙燕"}
    body.update(changes)
    m = api.create_match(body)
    return m["id"], m["tokens"]


def kicked_off(api: Api, home: str = "人大 Renmin", away: str = "Tsinghua 清华", **changes: Any) -> tuple[str, dict[str, str]]:
    """The toss (home kicks off, defends x = 0) and the first half's kickoff taken: ball in play, home's."""
    match_id, tokens = new_match(api, home, away, **changes)
    ref = tokens["referee"]
    api.post(match_id, ref, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    api.post(match_id, ref, {"type": "period_start"})
    api.post(match_id, ref, {"type": "restart_taken", "team": "home", "player": 1})
    return match_id, tokens


def busy_paused_half(api: Api, home: str, away: str, goals: tuple[int, int] = (11, 10)) -> tuple[str, dict[str, str]]:
    """The widest first half: two-digit scores, cards on both sides, a free kick for home moved out of
    away's area by the 3 m rule (10.8) after a foul by away #4, and the clock paused by the scorer."""
    match_id, tokens = kicked_off(api, home, away)
    ref = tokens["referee"]
    wanted = {"home": goals[0], "away": goals[1]}
    scored = {"home": 0, "away": 0}
    team = "home"  # the team with the ball
    while scored != wanted or team != "home":
        other = "away" if team == "home" else "home"
        if scored[team] < wanted[team]:
            api.post(match_id, ref, {"type": "goal", "team": team, "player": 3})  # the other team kicks off
            scored[team] += 1
        else:  # this team has its goals: it loses the ball over the side line
            api.post(match_id, ref, {"type": "violation", "kind": "ball_out_side", "team": team, "spot": {"x": 20, "y": 0}})
        api.post(match_id, ref, {"type": "restart_taken", "team": other, "player": 2})
        team = other
    for t, n, color in (("home", 2, "yellow"), ("home", 5, "yellow"), ("away", 6, "yellow"), ("away", 7, "red")):
        api.post(match_id, ref, {"type": "card", "team": t, "player": n, "color": color})
    api.post(match_id, ref, {"type": "foul", "team": "away", "player": 4, "spot": {"x": 38.5, "y": 12.5}})
    api.post(match_id, tokens["scorer"], {"type": "clock", "action": "pause"})
    return match_id, tokens


def in_shootout(api: Api, home: str, away: str, kicks: int = 5) -> tuple[str, dict[str, str]]:
    """Both halves played to a draw, the shootout begun (away first) and ``kicks`` kicks taken."""
    match_id, tokens = kicked_off(api, home, away)
    ref, scorer = tokens["referee"], tokens["scorer"]
    api.post(match_id, scorer, {"type": "clock", "action": "set", "elapsed_ms": 30 * 60_000})
    api.post(match_id, ref, {"type": "period_end"})
    api.post(match_id, ref, {"type": "period_start"})
    api.post(match_id, scorer, {"type": "clock", "action": "set", "elapsed_ms": 30 * 60_000})
    api.post(match_id, ref, {"type": "period_end"})
    api.post(match_id, ref, {"type": "shootout_start", "first": "away", "takers": {"home": [1, 2, 3, 4], "away": [5, 6, 7, 8]}})
    for i in range(kicks):
        api.post(match_id, ref, {"type": "shootout_kick", "team": "away" if i % 2 == 0 else "home", "scored": i % 3 != 1})
    return match_id, tokens
