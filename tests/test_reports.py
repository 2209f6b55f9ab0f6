"""Post-match reports (issue 7): a golden match officiated through the API, its numbers worked out by hand.

The golden match below is a full match: two halves, goals, fouls, cards (a second yellow), substitutions
(at a goal, at half-time, a replacement after an injury and one after a red card), an injury, two voids,
a late-logged call, multiple attack opportunities (away holds them, K = 2), a level score and a shootout.
Every expected number in this file was counted by hand from the script (the comments say where each
comes from); none is recomputed by the report code. Every format is checked against the same numbers.
"""

from __future__ import annotations

import base64
import csv
import io
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

import pytest
import tinyhtml5
from flask.testing import FlaskClient

from tests.conftest import FakeClock, MatchDriver

HOME_NAMES = {1: "李华", 2: "王芳", 3: "张伟", 4: "刘洋", 5: "陈静", 6: "杨帆", 7: "赵磊"}
AWAY_NAMES = {1: "Alex Chen", 2: "Bella Wu", 3: "Chris Li", 4: "Dana Zhou", 5: "Eli Sun", 6: "何菲", 7: "Gus Ma"}
HOME_TEAM = "北京红队 Beijing Red"
AWAY_TEAM = "Shanghai Blue 上海蓝队"
OFFICIALS = {"referee": "周正 Zhou Zheng", "assistant1": "Ann Lee", "assistant2": "钱明", "scorer": "Sam Wu"}

GOLDEN_REQUEST: dict[str, Any] = {
    "home": {
        "name": HOME_TEAM,
        "color": "#c62828",
        "players": [{"number": n, "name": name} for n, name in HOME_NAMES.items()],
        "starting": [1, 2, 3, 4, 5],
    },
    "away": {
        "name": AWAY_TEAM,
        "color": "#1565c0",
        "players": [{"number": n, "name": name} for n, name in AWAY_NAMES.items()],
        "starting": [1, 2, 3, 4, 5],
    },
    "starters": 5,
    "field": {"length": 40, "width": 25, "side_lines": True},
    "rules": {"shootout_rounds": 2, "multi_attack": {"mode": "teams", "k": 2, "teams": ["away"]}},
    "venue": "海淀三号场 Haidian Field 3",
    "starts_at": "2026-12-05T14:00:00+08:00",
    "officials": OFFICIALS,
}

VOID_1_REASON = "wrong player: it was #5 / 记错球员，应为5号"
DISSENT = "argued with the assistant / 与助理裁判争辩"
NOTE_TEXT = "Home #2 warned twice before his first caution / 主队2号第一张黄牌前已两次口头警告"
VOID_2_REASON = "attacker in the area before the bottle lay flat (7.2) / 瓶子倒地前进攻球员进入禁区"


def mmss(minutes: int, seconds: int = 0) -> int:
    return (minutes * 60 + seconds) * 1000


def _stored(data_url: str) -> str:
    """A signature as the server stores it: the same strokes, decoded and encoded again (D152)."""
    from qalisball.match.schemas import SIGNATURE_PREFIX, clean_signature

    png = clean_signature(base64.b64decode(data_url[len(SIGNATURE_PREFIX) :]))
    return SIGNATURE_PREFIX + base64.b64encode(png).decode()


def signature_png(width: int = 60, height: int = 20) -> str:
    """A drawn signature as the console sends it: a small PNG (a diagonal stroke) as a data URL."""
    rows = b"".join(b"\x00" + bytes(0 if abs(x * height // width - y) <= 1 else 255 for x in range(width)) for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# The golden match: (seq, game clock to move to first or None, event, role).
SCRIPT: list[tuple[int, int | None, dict[str, Any], str]] = [
    # (seq, game clock or None, event, role) — first half: home kicks off, home defends x0.
    (1, None, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, "referee"),
    (2, None, {"type": "period_start"}, "referee"),
    (3, mmss(0, 10), {"type": "restart_taken", "team": "home", "player": 1}, "referee"),
    (4, mmss(2), {"type": "goal", "team": "home", "player": 3}, "assistant1"),  # 1–0
    (5, mmss(2, 30), {"type": "restart_taken", "team": "away", "player": 1}, "referee"),
    # Foul by home #2 (yellow): free kick away at (10, 12), 6.5 m from home's area line: not moved.
    (6, mmss(5), {"type": "foul", "team": "home", "player": 2, "spot": {"x": 10, "y": 12}, "card": "yellow"}, "referee"),
    (7, mmss(5, 20), {"type": "restart_taken", "team": "away", "player": 2}, "referee"),
    (8, mmss(5, 40), {"type": "attack", "team": "away"}, "referee"),
    # Away holds 2 opportunities: its ball-grounded error is forgiven -> free kick away at (8, 5). MA used: away #3.
    (
        9,
        mmss(6),
        {"type": "violation", "kind": "ball_grounded", "team": "away", "player": 3, "spot": {"x": 8, "y": 5}},
        "referee",
    ),
    (10, mmss(6, 20), {"type": "restart_taken", "team": "away", "player": 4}, "referee"),
    # One opportunity left: the missed shot is statistics only, play goes on.
    (11, mmss(7), {"type": "shot_missed", "team": "away", "player": 4, "spot": {"x": 6, "y": 12}}, "assistant2"),
    # Not forgiven now: end-line ball for home at x0, low side.
    (
        12,
        mmss(7, 10),
        {"type": "violation", "kind": "ball_out_end", "team": "away", "player": 4, "spot": {"x": -1, "y": 11}},
        "assistant2",
    ),
    (13, mmss(7, 30), {"type": "restart_taken", "team": "home", "player": 4}, "referee"),
    (14, mmss(9), {"type": "steal", "team": "away", "player": 5}, "referee"),
    (15, mmss(9, 10), {"type": "attack", "team": "away"}, "referee"),
    (16, mmss(10), {"type": "goal", "team": "away", "player": 5}, "assistant2"),  # 1–1
    (17, mmss(10), {"type": "substitution", "team": "home", "out": 3, "in": 6}, "scorer"),
    (18, mmss(10, 30), {"type": "restart_taken", "team": "home", "player": 1}, "referee"),
    # Wrongly named #4; voided by the referee and logged again for #5 with the real time (D8).
    (
        19,
        mmss(12),
        {"type": "violation", "kind": "player_in_area", "team": "home", "player": 4, "spot": {"x": 2, "y": 12.5}},
        "assistant1",
    ),
    (20, mmss(12, 10), {"type": "void", "target": 19, "reason": VOID_1_REASON}, "referee"),
    (
        21,
        None,
        {
            "type": "violation",
            "kind": "player_in_area",
            "team": "home",
            "player": 5,
            "spot": {"x": 2, "y": 12.5},
            "at_ms": mmss(12),
        },
        "assistant1",
    ),
    (22, mmss(12, 30), {"type": "restart_taken", "team": "away", "player": 2}, "referee"),  # the penalty
    (23, mmss(12, 35), {"type": "goal", "team": "away", "player": 2, "direct": True}, "assistant2"),  # 1–2, converted
    (24, mmss(13), {"type": "restart_taken", "team": "home", "player": 2}, "referee"),
    # Injury in play: #4 leaves, free kick home where the ball was; no substitution now (11.3).
    (25, mmss(14), {"type": "injury", "team": "home", "player": 4, "spot": {"x": 15, "y": 10}}, "referee"),
    (26, mmss(14, 30), {"type": "restart_taken", "team": "home", "player": 5}, "referee"),
    (
        27,
        mmss(15),
        {"type": "violation", "kind": "ball_out_side", "team": "home", "player": 5, "spot": {"x": 20, "y": 26}},
        "assistant1",
    ),
    (28, mmss(15), {"type": "substitution", "team": "away", "out": 3, "in": 6}, "scorer"),
    (29, mmss(15), {"type": "substitution", "team": "home", "out": None, "in": 7}, "scorer"),  # home back to five
    (30, mmss(15, 20), {"type": "restart_taken", "team": "away", "player": 1}, "referee"),
    (31, mmss(16), {"type": "attack", "team": "away"}, "referee"),
    # Attacking foul by away #1, forgiven (fresh K = 2 since away regained the ball at seq 27). MA used: away #1.
    (32, mmss(17), {"type": "foul", "team": "away", "player": 1, "spot": {"x": 25, "y": 10}}, "referee"),
    (33, mmss(17, 20), {"type": "restart_taken", "team": "away", "player": 1}, "referee"),
    (34, mmss(18), {"type": "catch", "team": "home", "player": 2, "caught": 1}, "referee"),
    (
        35,
        mmss(18, 2),
        {"type": "violation", "kind": "caught", "team": "away", "player": 1, "spot": {"x": 22, "y": 14}},
        "referee",
    ),
    (36, mmss(18, 30), {"type": "restart_taken", "team": "home", "player": 2}, "referee"),
    (37, mmss(20), {"type": "shot_missed", "team": "home", "player": 1}, "referee"),
    (
        38,
        mmss(20, 5),
        {"type": "violation", "kind": "ball_out_end", "team": "home", "player": 1, "spot": {"x": 41, "y": 15}},
        "assistant2",
    ),
    (39, mmss(20, 30), {"type": "restart_taken", "team": "away", "player": 2}, "referee"),
    (40, mmss(30), {"type": "period_end"}, "referee"),  # half-time 1–2
    (41, None, {"type": "substitution", "team": "home", "out": 6, "in": 3}, "scorer"),
    # Second half: away kicks off, ends switched (home defends xL).
    (42, None, {"type": "period_start"}, "referee"),
    (43, mmss(0, 5), {"type": "restart_taken", "team": "away", "player": 1}, "referee"),
    # Second yellow for home #2: sent off at 3:00; replacement #6 on at once (11.2).
    (44, mmss(3), {"type": "foul", "team": "home", "player": 2, "spot": {"x": 30, "y": 12}, "card": "yellow"}, "referee"),
    (45, mmss(3), {"type": "substitution", "team": "home", "out": None, "in": 6}, "scorer"),
    (46, mmss(3, 20), {"type": "restart_taken", "team": "away", "player": 4}, "referee"),
    # Away #5 in his own area (x0 now): penalty for home.
    (
        47,
        mmss(5),
        {"type": "violation", "kind": "player_in_area", "team": "away", "player": 5, "spot": {"x": 1.5, "y": 12.5}},
        "assistant1",
    ),
    (48, mmss(5, 20), {"type": "restart_taken", "team": "home", "player": 1}, "referee"),  # the penalty
    (49, mmss(5, 30), {"type": "shot_missed", "team": "home", "player": 1}, "referee"),
    # Ball dead again with no goal: the penalty was not converted.
    (
        50,
        mmss(5, 35),
        {"type": "violation", "kind": "ball_in_area", "team": "home", "player": 1, "spot": {"x": 2, "y": 13}},
        "assistant1",
    ),
    (51, mmss(6), {"type": "restart_taken", "team": "away", "player": 2}, "referee"),
    (52, mmss(8), {"type": "goal", "team": "away", "player": 4}, "assistant2"),  # voided next
    (53, mmss(8, 10), {"type": "void", "target": 52, "reason": VOID_2_REASON}, "referee"),
    (
        54,
        None,
        {
            "type": "violation",
            "kind": "player_in_area",
            "team": "away",
            "player": 4,
            "spot": {"x": 38.5, "y": 12.5},
            "at_ms": mmss(8),
        },
        "assistant2",
    ),
    (55, mmss(8, 30), {"type": "restart_taken", "team": "home", "player": 3}, "referee"),
    (56, mmss(12), {"type": "goal", "team": "home", "player": 5}, "assistant1"),  # 2–2
    (57, mmss(12, 30), {"type": "restart_taken", "team": "away", "player": 5}, "referee"),
    (
        58,
        mmss(14),
        {"type": "violation", "kind": "ball_out_side", "team": "home", "player": 3, "spot": {"x": 20, "y": -1}},
        "assistant2",
    ),
    (
        59,
        mmss(14),
        {"type": "card", "team": "away", "player": 4, "color": "yellow", "reason": {"code": "dissent", "text": DISSENT}},
        "referee",
    ),
    (60, mmss(14, 20), {"type": "restart_taken", "team": "away", "player": 4}, "referee"),
    (61, mmss(16), {"type": "steal", "team": "home", "player": 1}, "referee"),
    (62, mmss(16, 5), {"type": "attack", "team": "home"}, "referee"),
    (63, mmss(18), {"type": "foul", "team": "away", "player": 1, "spot": {"x": 30, "y": 20}}, "referee"),
    (64, mmss(18, 20), {"type": "restart_taken", "team": "home", "player": 6}, "referee"),
    (65, mmss(22), {"type": "clock", "action": "pause"}, "scorer"),
    (66, None, {"type": "clock", "action": "resume"}, "scorer"),
    (67, mmss(30), {"type": "period_end"}, "referee"),  # 2–2: shootout
    (68, None, {"type": "shootout_start", "first": "away", "takers": {"home": [1, 3, 5, 7], "away": [1, 2, 4, 5]}}, "referee"),
    (69, None, {"type": "shootout_kick", "team": "away", "scored": True}, "referee"),  # R1 1 pt away #1: 0–1
    (70, None, {"type": "shootout_kick", "team": "home", "scored": True}, "referee"),  # R1 1 pt home #1: 1–1
    (71, None, {"type": "shootout_kick", "team": "away", "scored": False}, "referee"),  # R1 2 pt away #1
    (72, None, {"type": "shootout_kick", "team": "home", "scored": True}, "referee"),  # R1 2 pt home #1: 3–1
    (73, None, {"type": "shootout_kick", "team": "away", "scored": False}, "referee"),  # R2 1 pt away #2
    (74, None, {"type": "shootout_kick", "team": "home", "scored": True}, "referee"),  # R2 1 pt home #3: 4–1, decided
    # The score sheet (M6, M7): confirmed, a note about the first caution, signed; the referee's signature locks it.
    (75, None, {"type": "confirm", "period": 1}, "referee"),
    (76, None, {"type": "confirm", "period": 2}, "referee"),
    (77, None, {"type": "confirm", "period": "shootout"}, "referee"),
    (
        78,
        None,
        {"type": "note", "text": NOTE_TEXT, "about": 6, "team": "home", "player": 2, "code": "persistent_fouls"},
        "assistant1",
    ),
    (79, None, {"type": "sign", "as": "home_captain", "name": "李华"}, "referee"),
    (80, None, {"type": "sign", "as": "away_captain", "name": "Alex Chen"}, "referee"),
    (81, None, {"type": "sign", "as": "referee", "name": "周正 Zhou Zheng", "signature": "SIGNATURE"}, "referee"),
]
LAST_SEQ = 81


class Golden:
    """Plays the golden match step by step; ``upto`` stops after that seq (for provisional reports)."""

    def __init__(self, client: FlaskClient, clock: FakeClock) -> None:
        self.m = MatchDriver(client, clock, GOLDEN_REQUEST)
        self.client, self.clock = client, clock

    def at(self, ms: int) -> None:
        """Move the server clock so that the running game clock shows ``ms``."""
        elapsed = self.m.state()["clock"]["elapsed_ms"]
        assert ms >= elapsed, (ms, elapsed)
        self.clock.advance(ms - elapsed)

    def ev(self, seq: int, body: dict[str, Any], role: str = "referee") -> None:
        if body.get("signature") == "SIGNATURE":
            body = {**body, "signature": signature_png()}
        got = self.m.post(body, role)
        assert got["seq"] == seq, (seq, body, got)

    def play(self, start: int = 1, upto: int = 10_000) -> None:
        """Post the script's events ``start``..``upto`` (seq numbers), moving the clock before each."""
        for seq, when, body, role in SCRIPT:
            if seq < start or seq > upto:
                continue
            if seq == 66:
                self.clock.advance(60_000)  # a minute of real time with the clock stopped: no game time
            if when is not None:
                self.at(when)
            self.ev(seq, body, role)


# -- the numbers, by hand ------------------------------------------------------------------------

COUNTS = (
    "goals",
    "shots_missed",
    "violations_total",
    "fouls",
    "yellow",
    "red",
    "penalties_conceded",
    "penalties_taken",
    "penalties_converted",
    "multi_attack_used",
    "shootout_kicks",
    "shootout_scored",
    "shootout_points",
)


def row(minutes: int, played: str, **nonzero: int) -> dict[str, Any]:
    return {"minutes": minutes, "played": played, **{k: nonzero.get(k, 0) for k in COUNTS}}


# Minutes: game-clock time on the field per half (half = 30:00).
PLAYERS: dict[tuple[str, int], dict[str, Any]] = {
    # 30 + 30. Missed shots seq 37, 49; violations 38, 50; took the penalty 48 (not converted); kicks 70, 72 (1 + 2 pts).
    ("home", 1): row(
        60, "60:00", shots_missed=2, violations_total=2, penalties_taken=1, shootout_kicks=2, shootout_scored=2, shootout_points=3
    ),
    # 30 + 3 (sent off at 3:00 of the second half). Fouls 6, 44, both yellow: the second is a red.
    ("home", 2): row(33, "33:00", fouls=2, yellow=2, red=1),
    # 10 (off at 10:00) + 30 (on at half-time). Goal 4; violation 58; kick 74 (1 pt).
    ("home", 3): row(40, "40:00", goals=1, violations_total=1, shootout_kicks=1, shootout_scored=1, shootout_points=1),
    # Injured at 14:00. His voided call (seq 19) counts for nothing.
    ("home", 4): row(14, "14:00"),
    # 30 + 30. Goal 56; violations 21 (a penalty conceded) and 27.
    ("home", 5): row(60, "60:00", goals=1, violations_total=2, penalties_conceded=1),
    # 10:00–30:00 in the first half, 3:00–30:00 in the second: 20 + 27.
    ("home", 6): row(47, "47:00"),
    # 15:00–30:00, then the whole second half: 15 + 30.
    ("home", 7): row(45, "45:00"),
    # Fouls 32 (forgiven: MA used) and 63; violation 35; kicks 69 (scored, 1 pt), 71 (missed).
    ("away", 1): row(
        60, "60:00", fouls=2, violations_total=1, multi_attack_used=1, shootout_kicks=2, shootout_scored=1, shootout_points=1
    ),
    # Penalty 22 converted by goal 23; kick 73 missed.
    ("away", 2): row(60, "60:00", goals=1, penalties_taken=1, penalties_converted=1, shootout_kicks=1),
    # Off at 15:00. Violation 9, forgiven: MA used.
    ("away", 3): row(15, "15:00", violations_total=1, multi_attack_used=1),
    # Missed shot 11; violations 12, 54; yellow 59; the goal 52 was voided.
    ("away", 4): row(60, "60:00", shots_missed=1, violations_total=2, yellow=1),
    # Goal 16; violation 47 gave home a penalty.
    ("away", 5): row(60, "60:00", goals=1, violations_total=1, penalties_conceded=1),
    # On at 15:00 and the whole second half.
    ("away", 6): row(45, "45:00"),
    ("away", 7): row(0, "0:00"),
}
KINDS: dict[tuple[str, int], dict[str, int]] = {
    ("home", 1): {"ball_out_end": 1, "ball_in_area": 1},
    ("home", 3): {"ball_out_side": 1},
    ("home", 5): {"player_in_area": 1, "ball_out_side": 1},
    ("away", 1): {"caught": 1},
    ("away", 3): {"ball_grounded": 1},
    ("away", 4): {"ball_out_end": 1, "player_in_area": 1},
    ("away", 5): {"player_in_area": 1},
}
ALL_KINDS = ("ball_out_side", "ball_out_end", "ball_grounded", "ball_in_area", "player_in_area", "caught", "restart")
TEAMS: dict[str, dict[str, int]] = {
    "home": {
        "goals": 2,
        "shots_missed": 2,
        "violations_total": 5,
        "fouls": 2,
        "fouls_suffered": 2,  # away's fouls 32 and 63
        "yellow": 2,
        "red": 1,
        "penalties_awarded": 1,  # seq 47
        "penalties_conceded": 1,
        "penalties_taken": 1,
        "penalties_converted": 0,
        "multi_attack_used": 0,
        "shootout_kicks": 3,
        "shootout_scored": 3,
        "shootout_points": 4,
    },
    "away": {
        "goals": 2,
        "shots_missed": 1,
        "violations_total": 5,
        "fouls": 2,
        "fouls_suffered": 2,  # home's fouls 6 and 44
        "yellow": 1,
        "red": 0,
        "penalties_awarded": 1,  # seq 21
        "penalties_conceded": 1,
        "penalties_taken": 1,
        "penalties_converted": 1,
        "multi_attack_used": 2,
        "shootout_kicks": 3,
        "shootout_scored": 1,
        "shootout_points": 1,
    },
}
TEAM_KINDS = {
    "home": {"ball_out_side": 2, "ball_out_end": 1, "ball_in_area": 1, "player_in_area": 1},
    "away": {"ball_grounded": 1, "ball_out_end": 1, "player_in_area": 2, "caught": 1},
}
SHOOTOUT_KICKS = [  # (round, team, points, player, scored)
    (1, "away", 1, 1, True),
    (1, "home", 1, 1, True),
    (1, "away", 2, 1, False),
    (1, "home", 2, 1, True),
    (2, "away", 1, 2, False),
    (2, "home", 1, 3, True),
]


@pytest.fixture
def golden(client: FlaskClient, clock: FakeClock) -> Golden:
    g = Golden(client, clock)
    g.play()
    return g


def _get(client: FlaskClient, g: Any, suffix: str, **query: str) -> Any:
    r = client.get(f"/matches/{g.m.id}/report{suffix}", query_string=query)
    assert r.status_code == 200, r.data[:500]
    return r


# -- JSON ------------------------------------------------------------------------------------------


def test_golden_match_json_result_lineups_and_stats(client: FlaskClient, golden: Golden) -> None:
    r = _get(client, golden, ".json").get_json()
    m = r["match"]
    assert m["status"] == "final" and m["phase"] == "finished" and m["seq"] == LAST_SEQ and m["locked"]
    assert m["venue"] == "海淀三号场 Haidian Field 3" and m["date"] == "2026-12-05"
    assert r["officials"] == OFFICIALS
    assert r["teams"]["home"]["name"] == HOME_TEAM and r["teams"]["away"]["name"] == AWAY_TEAM
    res = r["result"]
    assert res["score"] == {"home": 2, "away": 2}
    assert res["shootout"] == {"home": 4, "away": 1}
    assert res["winner"] == "home" and res["winner_name"] == HOME_TEAM and res["decided_by"] == "shootout"
    assert [(h["period"], h["score"]) for h in res["halves"]] == [(1, {"home": 1, "away": 2}), (2, {"home": 1, "away": 0})]

    for team in ("home", "away"):
        lu = r["lineups"][team]
        assert lu["starters"] == [1, 2, 3, 4, 5] and lu["substitutes"] == [6, 7]
        for p in lu["players"]:
            want = PLAYERS[(team, p["number"])]
            assert (p["minutes"], p["played"]) == (want["minutes"], want["played"]), (team, p)
        for p in r["stats"]["players"][team]:
            want = PLAYERS[(team, p["number"])]
            got = {k: p[k] for k in COUNTS}
            assert got == {k: want[k] for k in COUNTS}, (team, p["number"])
            assert p["violations"] == {k: KINDS.get((team, p["number"]), {}).get(k, 0) for k in ALL_KINDS}
            assert p["fouls_suffered"] is None  # a foul names the offender only
        t = r["stats"]["teams"][team]
        assert {k: t[k] for k in TEAMS[team]} == TEAMS[team], team
        assert t["violations"] == {k: TEAM_KINDS[team].get(k, 0) for k in ALL_KINDS}

    # Who came on and off, when (half, game clock) and why.
    changes = [(c["seq"], c["period"], c["clock"], c["on"], c["off"], c["reason"]) for c in r["lineups"]["home"]["changes"]]
    assert changes == [
        (17, 1, "10:00", 6, 3, "substitution"),
        (25, 1, "14:00", None, 4, "injury"),
        (29, 1, "15:00", 7, None, "substitution"),
        (41, None, None, 3, 6, "substitution"),  # at half-time
        (44, 2, "3:00", None, 2, "second_yellow"),  # M8: shown as what it is
        (45, 2, "3:00", 6, None, "substitution"),
    ]
    assert [(c["seq"], c["on"], c["off"]) for c in r["lineups"]["away"]["changes"]] == [(28, 6, 3)]


def test_golden_match_json_timeline_shootout_audit_and_charts(client: FlaskClient, golden: Golden) -> None:
    r = _get(client, golden, ".json").get_json()
    tl = {item["seq"]: item for item in r["timeline"]}
    # 81 events: 2 voids and the 2 events they voided are not in the timeline.
    assert len(r["timeline"]) == 77 and not {19, 20, 52, 53} & set(tl)
    late = tl[21]  # logged at 12:10, happened at 12:00 (D8)
    assert (late["period"], late["at_ms"], late["clock"], late["minute"], late["by"]) == (1, 720_000, "12:00", 13, "assistant1")
    assert late["official"] == "Ann Lee"
    assert late["restart"] == {"type": "penalty", "team": "away", "spot": {"x": 4.5, "y": 12.5}, "end": "x0"}
    assert tl[23]["score"] == {"home": 1, "away": 2} and tl[23]["type"] == "goal"
    assert tl[9]["multi_attack_used"] and tl[9]["restart"]["type"] == "free_kick" and tl[9]["restart"]["team"] == "away"
    assert tl[32]["multi_attack_used"] and not tl[35]["multi_attack_used"]
    assert tl[12]["restart"] == {"type": "end_line", "team": "home", "spot": {"x": 0.0, "y": 8.0}, "end": "x0"}
    assert tl[54]["restart"] == {"type": "end_line", "team": "home", "spot": {"x": 40.0, "y": 8.0}, "end": "xL"}
    assert tl[44]["period"] == 2 and tl[44]["clock"] == "3:00" and tl[44]["minute"] == 4
    assert tl[59]["restart"] is None  # a card changes no restart
    assert tl[67]["phase"] == "second_half" and tl[68]["phase"] == "shootout"
    assert tl[56]["by"] == "assistant1" and tl[17]["by"] == "scorer" and tl[17]["official"] == "Sam Wu"

    so = r["shootout"]
    assert so["first"] == "away" and so["takers"] == {"home": [1, 3, 5, 7], "away": [1, 2, 4, 5]}
    assert [(k["round"], k["team"], k["points"], k["player"], k["scored"]) for k in so["kicks"]] == SHOOTOUT_KICKS
    assert [k["seq"] for k in so["kicks"]] == [69, 70, 71, 72, 73, 74]
    assert so["score"] == {"home": 4, "away": 1}

    audit = r["audit"]
    assert [(a["seq"], a["type"], a["by"], a["voided_by"], a["voided_by_role"], a["reason"]) for a in audit] == [
        (19, "violation", "assistant1", 20, "referee", VOID_1_REASON),
        (52, "goal", "assistant2", 53, "referee", VOID_2_REASON),
    ]
    assert audit[0]["official"] == "Ann Lee" and audit[0]["voided_by_official"] == "周正 Zhou Zheng"
    assert audit[1]["clock"] == "8:00" and audit[1]["voided_clock"] == "8:10"

    assert [(g["seq"], g["period"], g["at_ms"], g["score"]) for g in r["charts"]["score"]] == [
        (4, 1, 120_000, {"home": 1, "away": 0}),
        (16, 1, 600_000, {"home": 1, "away": 1}),
        (23, 1, 755_000, {"home": 1, "away": 2}),
        (56, 2, 720_000, {"home": 2, "away": 2}),
    ]
    marks = r["charts"]["field_marks"]
    assert sorted(m["seq"] for m in marks if m["kind"] == "foul") == [6, 32, 44, 63]
    assert sorted(m["seq"] for m in marks if m["kind"] == "violation") == [9, 12, 21, 27, 35, 38, 47, 50, 54, 58]
    free_kicks = sorted((m["seq"], m["team"], m["x"], m["y"]) for m in marks if m["kind"] == "free_kick")
    assert free_kicks == [
        (6, "away", 10.0, 12.0),
        (9, "away", 8.0, 5.0),
        (25, "home", 15.0, 10.0),
        (32, "away", 25.0, 10.0),
        (35, "home", 22.0, 14.0),
        (44, "away", 30.0, 12.0),
        (63, "home", 30.0, 20.0),
    ]


# -- HTML ------------------------------------------------------------------------------------------


def _html(client: FlaskClient, g: Any, **query: str) -> Element:
    r = _get(client, g, "", **query)
    assert r.mimetype == "text/html"
    root: Element = tinyhtml5.parse(r.get_data(as_text=True), namespace_html_elements=False)
    return root


def _by_id(root: Element, ident: str) -> Element:
    found = [e for e in root.iter() if e.get("id") == ident]
    assert len(found) == 1, ident
    return found[0]


def _local(tag: str) -> str:
    """An element's name without its namespace (SVG inside HTML is namespaced)."""
    return tag.rsplit("}", 1)[-1]


def _text(e: Element) -> str:
    return " ".join("".join(e.itertext()).split())


def _cell(section: Element, team: str, number: int | str, stat: str) -> str:
    rows = [e for e in section.iter("tr") if e.get("data-team") == team and e.get("data-number") == str(number)]
    cells = [c for r in rows for c in r.iter("td") if c.get("data-stat") == stat]
    assert len(cells) == 1, (team, number, stat, len(cells))
    return _text(cells[0])


def test_golden_match_html(client: FlaskClient, golden: Golden) -> None:
    root = _html(client, golden)
    body = root.find("body")
    assert body is not None and body.get("data-status") == "final"
    assert not [e for e in root.iter() if e.get("id") == "provisional"]
    result = _by_id(root, "result")
    scores = {e.get("data-team"): _text(e) for e in result.iter() if "score" in (e.get("class") or "").split()}
    assert scores == {"home": "2", "away": "2"}
    assert {e.get("data-shootout"): _text(e) for e in result.iter() if e.get("data-shootout")} == {"home": "4", "away": "1"}
    winner = [e for e in result.iter() if e.get("data-field") == "winner"][0]
    assert winner.get("data-team") == "home" and _text(winner) == HOME_TEAM
    assert "海淀三号场 Haidian Field 3" in _text(result) and "2026-12-05" in _text(result)
    for name in OFFICIALS.values():
        assert name in _text(result)

    lineups, players, team_stats = _by_id(root, "lineups"), _by_id(root, "player-stats"), _by_id(root, "team-stats")
    for (team, n), want in PLAYERS.items():
        assert _cell(lineups, team, n, "minutes") == str(want["minutes"])
        assert _cell(lineups, team, n, "played") == want["played"]
        for k in COUNTS:
            assert _cell(players, team, n, k) == str(want[k]), (team, n, k)
    names = {_text(e) for e in lineups.iter("td") if e.get("class") == "pname"}
    assert set(HOME_NAMES.values()) | set(AWAY_NAMES.values()) <= names
    for team, want in TEAMS.items():
        for k, v in want.items():
            cells = [c for c in team_stats.iter("td") if c.get("data-team") == team and c.get("data-stat") == k]
            assert [_text(c) for c in cells] == [str(v)], (team, k)
        for k in ALL_KINDS:
            cells = [c for c in team_stats.iter("td") if c.get("data-team") == team and c.get("data-stat") == f"violation-{k}"]
            assert [_text(c) for c in cells] == [str(TEAM_KINDS[team].get(k, 0))]
    for (team, n), kinds in KINDS.items():
        for k in ALL_KINDS:
            assert _cell(players, team, n, f"violation-{k}") == str(kinds.get(k, 0))

    timeline = _by_id(root, "timeline")
    rows = [e for e in timeline.iter("tr") if e.get("data-seq")]
    assert len(rows) == 77
    by_seq = {int(e.get("data-seq", 0)): e for e in rows}
    cells = [_text(c) for c in by_seq[21].iter("td")]
    # seq, half and game clock · minute, event, role (A1: assistant referee 1), restart it led to, score
    assert cells[0] == "21" and cells[1] == "H1 12:00 · 13′" and cells[3] == "A1" and cells[5] == "1–1"
    assert cells[2] == f"Violation, player in the area / 违例（球员进入禁区）: {HOME_TEAM} #5 陈静"
    assert cells[4] == f"penalty / 罚球 → {AWAY_TEAM} (4.5, 12.5)"

    shootout = _by_id(root, "shootout")
    kicks = [
        (
            int(e.get("data-round", 0)),
            e.get("data-team"),
            int(e.get("data-points", 0)),
            int(e.get("data-player", 0)),
            e.get("data-scored") == "yes",
        )
        for e in shootout.iter("tr")
        if e.get("data-round")
    ]
    assert kicks == SHOOTOUT_KICKS

    audit = _by_id(root, "audit")
    rows = [e for e in audit.iter("tr") if e.get("data-seq")]
    assert [(e.get("data-seq"), e.get("data-voided-by")) for e in rows] == [("19", "20"), ("52", "53")]
    reasons = {e.get("data-reason-for"): _text(e) for e in audit.iter("tr") if e.get("data-reason-for")}
    assert reasons == {"19": f"Reason / 原因: {VOID_1_REASON}", "52": f"Reason / 原因: {VOID_2_REASON}"}
    assert "周正 Zhou Zheng" in _text(rows[0]) and "Ann Lee" in _text(rows[0]) and "钱明" in _text(rows[1])

    # The two server-made pictures.
    chart = _by_id(root, "score-chart")
    goals = [e for e in chart.iter() if e.get("class") == "goal"]
    assert [(e.get("data-team"), e.get("data-seq")) for e in goals] == [
        ("home", "4"),
        ("home", "56"),
        ("away", "16"),
        ("away", "23"),
    ]
    field = _by_id(root, "field-diagram")
    svg = _by_id(field, "report-field")
    marks = [e for e in svg.iter() if e.get("class") == "mark"]
    assert len([e for e in marks if _local(e.tag) == "g"]) == 4  # fouls: crosses
    assert len([e for e in marks if _local(e.tag) == "rect"]) == 10  # violations: squares
    assert len([e for e in marks if _local(e.tag) == "circle"]) == 7  # free kicks: circles
    # Bilingual labels side by side.
    assert "Goals / 进球" in _text(players) and "Timeline / 比赛进程" in _text(root)


def test_report_languages_one_at_a_time(client: FlaskClient, golden: Golden) -> None:
    zh = _text(_html(client, golden, lang="zh"))
    en = _text(_html(client, golden, lang="en"))
    assert "进球" in zh and "Goals" not in zh and "比赛进程" in zh and "Timeline" not in zh
    assert "Goals" in en and "进球" not in en and "Timeline" in en
    # Names are data, not labels: they stay as typed in both.
    for text in (zh, en):
        assert "王芳" in text and "Bella Wu" in text and "何菲" in text
    head = _get(client, golden, ".csv", lang="zh").get_data().decode("utf-8-sig").splitlines()[0]
    assert "进球" in head and "Goals" not in head


# -- CSV -------------------------------------------------------------------------------------------

CSV_COLUMNS = {
    "minutes": "Minutes played / 出场分钟",
    "played": "Time played / 出场时间",
    "goals": "Goals / 进球",
    "shots_missed": "Missed shots / 投射未中",
    "violations_total": "Violations / 违例",
    "fouls": "Fouls committed / 犯规",
    "yellow": "Yellow cards / 黄牌",
    "red": "Red cards / 红牌",
    "penalties_conceded": "Penalties conceded / 送出罚球",
    "penalties_taken": "Penalties taken / 主罚罚球",
    "penalties_converted": "Penalties converted / 罚球命中",
    "multi_attack_used": "Multi-attack opportunities used / 使用多次进攻机会",
    "shootout_kicks": "Shootout kicks / 罚球大战出手",
    "shootout_scored": "Shootout kicks scored / 罚球大战命中",
    "shootout_points": "Shootout points / 罚球大战得分",
}


def test_golden_match_csv(client: FlaskClient, golden: Golden) -> None:
    r = _get(client, golden, ".csv")
    assert r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    raw = r.get_data()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 byte-order mark
    assert "王芳".encode() in raw  # Chinese as UTF-8, not escaped
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert len(rows) == 14  # one row per player, both rosters
    for line in rows:
        team = line["Side / 主/客"]
        n = int(line["No. / 号码"])
        want = PLAYERS[(team, n)]
        assert line["Name / 姓名"] == (HOME_NAMES if team == "home" else AWAY_NAMES)[n]
        assert line["Team / 球队"] == (HOME_TEAM if team == "home" else AWAY_TEAM)
        for key, column in CSV_COLUMNS.items():
            assert line[column] == str(want[key]), (team, n, column)
        for k in ALL_KINDS:
            col = [c for c in line if c.startswith("Violations / 违例: ") and c.split(": ", 1)[1].startswith(_kind_en(k))]
            assert len(col) == 1, k
            assert line[col[0]] == str(KINDS.get((team, n), {}).get(k, 0)), (team, n, k)
        assert "Fouls suffered / 被犯规" not in line  # unknown per player: the column is left out
        assert line["Status / 状态"] == "final / 正式"


def _kind_en(kind: str) -> str:
    return {
        "ball_out_side": "ball out over a side line",
        "ball_out_end": "ball out over an end line",
        "ball_grounded": "ball grounded",
        "ball_in_area": "ball in the area",
        "player_in_area": "player in the area",
        "caught": "caught-player violation",
        "restart": "restart violation",
    }[kind]


# -- PDF -------------------------------------------------------------------------------------------


def _pdftotext(data: bytes, tmp_path: Path) -> str:
    assert shutil.which("pdftotext"), "poppler-utils is required: scripts/ensure-system-deps.sh installs it"
    path = tmp_path / "report.pdf"
    path.write_bytes(data)
    out = subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", str(path), "-"], capture_output=True, check=True)
    return out.stdout.decode("utf-8")


def test_golden_match_pdf_has_text_chinese_names_and_the_numbers(client: FlaskClient, golden: Golden, tmp_path: Path) -> None:
    r = _get(client, golden, ".pdf")
    assert r.mimetype == "application/pdf" and r.data.startswith(b"%PDF-")
    text = _pdftotext(r.data, tmp_path)
    for name in [*HOME_NAMES.values(), *AWAY_NAMES.values(), HOME_TEAM, AWAY_TEAM, *OFFICIALS.values()]:
        assert name in text, name
    assert "临时" not in text and "PROVISIONAL" not in text
    lines = text.splitlines()

    def line_with(*parts: str) -> list[str]:
        return [ln for ln in lines if all(p in ln for p in parts)]

    # The result: 2–2, shootout 4–1, winner.
    assert re.search(r"\b2\s+–\s+2\b", text)
    assert re.search(r"Shootout / 罚球大战:\s*4–1", text)
    assert line_with("Winner / 胜方", HOME_TEAM)
    # Minutes in the line-ups and each player's row of statistics (No., name, minutes, then the counts).
    for (team, n), want in PLAYERS.items():
        name = (HOME_NAMES if team == "home" else AWAY_NAMES)[n]
        counts = " ".join(str(want[k]) for k in COUNTS)
        stats_row = re.compile(rf"^\s*{n}\s+{re.escape(name)}\s+{want['minutes']}\s+" + r"\s+".join(counts.split()) + r"\s*$")
        assert [ln for ln in lines if stats_row.match(ln)], (team, n, counts)
        assert re.search(rf"{re.escape(name)}\s+(✓\s+)?{want['minutes']}\s+{want['played']}", text), (team, n)
    # Team totals and the audit's reasons.
    assert re.search(r"Penalties converted / 罚球命中\s+0\s+1", text)
    assert re.search(r"Multi-attack opportunities used / 使用多次进攻机会\s+0\s+2", text)
    assert f"Reason / 原因: {VOID_1_REASON}" in text and f"Reason / 原因: {VOID_2_REASON}" in text


# -- provisional vs final ------------------------------------------------------------------------


def test_M6_report_is_provisional_during_the_match_and_final_once_signed(
    client: FlaskClient, clock: FakeClock, tmp_path: Path
) -> None:
    g = Golden(client, clock)
    g.play(upto=41)  # half-time, home's substitution made
    r = _get(client, g, ".json").get_json()
    assert r["match"]["status"] == "provisional" and r["match"]["phase"] == "halftime"
    assert r["match"]["provisional_because"] == "in_play"
    assert r["result"]["score"] == {"home": 1, "away": 2} and r["result"]["winner"] is None
    assert r["result"]["shootout"] is None and r["shootout"] is None
    minutes = {p["number"]: p["played"] for p in r["lineups"]["home"]["players"]}
    assert minutes == {1: "30:00", 2: "30:00", 3: "10:00", 4: "14:00", 5: "30:00", 6: "20:00", 7: "15:00"}
    root = _html(client, g)
    assert _by_id(root, "provisional") is not None and "临时" in _text(_by_id(root, "provisional"))
    body = root.find("body")
    assert body is not None and body.get("data-status") == "provisional"
    rows = list(csv.DictReader(io.StringIO(_get(client, g, ".csv").get_data().decode("utf-8-sig"))))
    assert {line["Status / 状态"] for line in rows} == {"provisional / 临时"}
    text = _pdftotext(_get(client, g, ".pdf").data, tmp_path)
    assert "临时" in text and "PROVISIONAL" in text

    # In play: minutes count up to the game clock now (second half, 3:20 after seq 46).
    g.play(42, upto=46)
    r = _get(client, g, ".json").get_json()
    assert r["match"]["status"] == "provisional" and r["match"]["phase"] == "second_half"
    six = next(p for p in r["lineups"]["home"]["players"] if p["number"] == 6)
    assert six["played_ms"] == mmss(20) + mmss(0, 20)  # 10:00–30:00, then 3:00–3:20 so far
    assert six["intervals"][-1]["ongoing"] is True

    g.play(47, upto=80)  # finished, confirmed, both captains signed: not yet the referee
    r = _get(client, g, ".json").get_json()
    assert r["match"]["status"] == "provisional" and r["match"]["provisional_because"] == "unsigned"
    g.play(81)
    r = _get(client, g, ".json").get_json()
    assert r["match"]["status"] == "final" and r["result"]["shootout"] == {"home": 4, "away": 1}


def test_M6_abandoned_match_report_is_provisional_until_the_referee_signs(match: MatchDriver, client: FlaskClient) -> None:
    match.kickoff()
    match.clock.advance(mmss(4))
    match.take()
    match.clock.advance(mmss(6))
    match.post({"type": "abandon", "reason": "thunderstorm / 雷暴"})
    r = client.get(f"/matches/{match.id}/report.json").get_json()
    assert r["match"]["status"] == "provisional" and r["match"]["provisional_because"] == "unsigned"
    match.post({"type": "sign", "as": "referee", "name": "Referee"})
    r = client.get(f"/matches/{match.id}/report.json").get_json()
    assert r["match"]["status"] == "final" and r["match"]["phase"] == "abandoned"
    assert r["match"]["abandon_reason"] == "thunderstorm / 雷暴"
    # The demo match: six starters each, every one on the field from 0:00 until the abandon at 10:00.
    played = {p["number"]: p["played"] for p in r["lineups"]["home"]["players"]}
    assert played == {
        1: "10:00",
        2: "10:00",
        3: "10:00",
        4: "10:00",
        5: "10:00",
        6: "10:00",
        7: "0:00",
        8: "0:00",
        9: "0:00",
        10: "0:00",
    }
    page = client.get(f"/matches/{match.id}/report").get_data(as_text=True)
    assert "thunderstorm / 雷暴" in page and 'data-status="final"' in page


def test_report_before_the_match_is_provisional_and_empty(match: MatchDriver, client: FlaskClient) -> None:
    r = client.get(f"/matches/{match.id}/report.json").get_json()
    assert r["match"]["status"] == "provisional" and r["match"]["phase"] == "scheduled" and r["match"]["seq"] == 0
    assert r["timeline"] == [] and r["audit"] == []
    assert all(p["played_ms"] == 0 for t in ("home", "away") for p in r["lineups"][t]["players"])
    assert client.get(f"/matches/{match.id}/report").status_code == 200
    assert client.get(f"/matches/{match.id}/report.csv").status_code == 200


def test_10_8_penalty_counted_once_when_a_defender_fouls_while_it_is_pending(match: MatchDriver, client: FlaskClient) -> None:
    match.kickoff("home", "x0")
    match.take()
    match.clock.advance(mmss(1))
    # Away (defending xL) enters its own area: penalty for home (8.5, D9).
    match.post({"type": "violation", "kind": "player_in_area", "team": "away", "player": 2, "spot": {"x": 39, "y": 12.5}})
    # A defender inside 2.5 m before it is taken (9.2): the penalty stays as it was.
    match.post({"type": "foul", "team": "away", "player": 3, "spot": {"x": 34, "y": 12.5}})
    assert match.state()["restart"]["type"] == "penalty"
    r = client.get(f"/matches/{match.id}/report.json").get_json()
    assert r["stats"]["teams"]["home"]["penalties_awarded"] == 1
    assert r["stats"]["teams"]["away"]["penalties_conceded"] == 1 and r["stats"]["teams"]["away"]["fouls"] == 1
    assert [m["kind"] for m in r["charts"]["field_marks"]] == ["violation", "foul"]  # no free kick
    foul = r["timeline"][-1]
    assert foul["restart"]["type"] == "penalty" and foul["restart"]["team"] == "home"  # it led to the same penalty


def test_10_8_penalty_not_converted_once_the_other_team_had_the_ball(match: MatchDriver, client: FlaskClient) -> None:
    match.kickoff("home", "x0")
    match.take()
    match.clock.advance(mmss(1))
    match.post({"type": "violation", "kind": "player_in_area", "team": "away", "player": 2, "spot": {"x": 39, "y": 12.5}})
    match.post({"type": "restart_taken", "team": "home", "player": 4})  # the penalty
    match.post({"type": "steal", "team": "away", "player": 5})
    match.post({"type": "steal", "team": "home", "player": 1})
    match.post({"type": "goal", "team": "home", "player": 1})  # not straight from the penalty
    match.take()  # away's kickoff
    match.post({"type": "violation", "kind": "player_in_area", "team": "away", "player": 2, "spot": {"x": 39, "y": 12.5}})
    match.post({"type": "restart_taken", "team": "home", "player": 4})  # the second penalty
    match.post({"type": "shot_missed", "team": "home", "player": 4})  # play goes on
    match.post({"type": "goal", "team": "home", "player": 6})  # straight from it
    r = client.get(f"/matches/{match.id}/report.json").get_json()
    home = r["stats"]["teams"]["home"]
    assert (home["penalties_awarded"], home["penalties_taken"], home["penalties_converted"], home["goals"]) == (2, 2, 1, 2)
    four = next(p for p in r["stats"]["players"]["home"] if p["number"] == 4)
    assert (four["penalties_taken"], four["penalties_converted"], four["goals"]) == (2, 1, 0)


def test_report_of_an_unknown_match_is_404(client: FlaskClient) -> None:
    for suffix in ("", ".json", ".csv", ".pdf"):
        r = client.get(f"/matches/nope/report{suffix}")
        assert r.status_code == 404, suffix


# -- the match day (SPEC §9): roster changes, corrections, notes, card reasons, the signed sheet -------

DANGEROUS = {"code": "dangerous_play", "text": "high foot / 高脚"}
AMEND_REASON = "the scorer was #5 / 进球者是5号"
INSERT_REASON = "missed shot not logged / 漏记投射未中"
VOID_REASON = "no steal: the ball was loose / 未构成抢断"
REOPEN_REASON = "wrong captain signed / 签字队长有误"
MATCH_NOTE = "Floodlight failed for two minutes at half-time / 中场时照明中断两分钟"
ABOUT_GOAL = "Assistant 2 first signalled #4 / 助理裁判二最初示意4号"


class MatchDay:
    """A demo match (人大 Renmin – Tsinghua 清华) officiated with every match-day event (SPEC §9).

    seq  1 coin toss, 2 first half, 3 kickoff taken by home #1, 4 away #2 steals,
    seq  5 foul by home #3 with a yellow (reason: dangerous play), free kick away,
    seq  6 home #3 renumbered #33 (M2), 7 free kick taken,
    seq  8 foul by #33, yellow again: second yellow → sent off; his 2nd foul (M8), free kick away,
    seq  9 a late player #12 "Late Lu 卢晚" added to home (M2), 10 he replaces #33 (11.2),
    seq 11 free kick taken, 12 goal logged for away #4 (0–1), 13 amended: the scorer was #5 (M3),
    seq 14 home's kickoff taken, 15 a missed shot by home #2 inserted after 14 (M3),
    seq 16 note about the goal 12, 17 note about #33 (persistent fouls), 18 steal by away #2,
    seq 19 the steal voided, 20 end of the first half (0–1), 21 second half, 22 kickoff taken,
    seq 23 end of the match (0–1), 24–25 halves confirmed, 26 note about the match (M7),
    seq 27 home captain signs, 28 referee signs (locks, M6), 29 reopened by the organiser,
    seq 30 home captain signs again, 31 referee signs again.
    """

    def __init__(self, client: FlaskClient, clock: FakeClock) -> None:
        self.m = MatchDriver(client, clock)
        self.client, self.clock = client, clock

    def ev(self, seq: int, body: dict[str, Any], role: str = "referee") -> dict[str, Any]:
        got = self.m.post(body, role)
        assert got["seq"] == seq, (seq, body, got)
        return got

    def organiser(self, seq: int, body: dict[str, Any]) -> None:
        from tests.conftest import ADMIN, auth

        r = self.client.post(f"/api/matches/{self.m.id}/events", json=body, headers=auth(ADMIN))
        assert r.status_code == 201 and r.get_json()["seq"] == seq, r.get_json()

    def play(self, start: int = 1, upto: int = 31) -> None:
        """Post the script's events ``start``..``upto`` (seq numbers)."""
        post: list[tuple[int, int, dict[str, Any], str]] = [  # (seq, ms to wait first, event, role)
            (1, 0, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, "referee"),
            (2, 0, {"type": "period_start"}, "referee"),
            (3, 20_000, {"type": "restart_taken", "team": "home", "player": 1}, "referee"),
            (4, 20_000, {"type": "steal", "team": "away", "player": 2}, "referee"),
            (
                5,
                20_000,
                {"type": "foul", "team": "home", "player": 3, "spot": {"x": 20, "y": 12}, "card": "yellow", "reason": DANGEROUS},
                "referee",
            ),
            (6, 20_000, {"type": "roster", "team": "home", "player": 3, "number": 33}, "scorer"),
            (7, 20_000, {"type": "restart_taken", "team": "away", "player": 2}, "referee"),
            (8, 20_000, {"type": "foul", "team": "home", "player": 33, "spot": {"x": 22, "y": 10}, "card": "yellow"}, "referee"),
            (9, 20_000, {"type": "roster", "team": "home", "add": {"number": 12, "name": "Late Lu 卢晚"}}, "scorer"),
            (10, 20_000, {"type": "substitution", "team": "home", "out": None, "in": 12}, "scorer"),
            (11, 20_000, {"type": "restart_taken", "team": "away", "player": 2}, "referee"),
            (12, 20_000, {"type": "goal", "team": "away", "player": 4}, "assistant2"),
            (
                13,
                20_000,
                {"type": "amend", "target": 12, "event": {"type": "goal", "team": "away", "player": 5}, "reason": AMEND_REASON},
                "referee",
            ),
            (14, 20_000, {"type": "restart_taken", "team": "home", "player": 1}, "referee"),
            (
                15,
                20_000,
                {
                    "type": "insert",
                    "after": 14,
                    "event": {"type": "shot_missed", "team": "home", "player": 2},
                    "reason": INSERT_REASON,
                },
                "referee",
            ),
            (16, 20_000, {"type": "note", "text": ABOUT_GOAL, "about": 12}, "assistant2"),
            (
                17,
                20_000,
                {
                    "type": "note",
                    "text": "Warned for fouls / 多次犯规警告",
                    "team": "home",
                    "player": 33,
                    "code": "persistent_fouls",
                },
                "referee",
            ),
            (18, 20_000, {"type": "steal", "team": "away", "player": 2}, "referee"),
            (19, 20_000, {"type": "void", "target": 18, "reason": VOID_REASON}, "referee"),
            (20, -1, {"type": "period_end"}, "referee"),  # -1: when the half's time is up
            (21, 0, {"type": "period_start"}, "referee"),
            (22, 5_000, {"type": "restart_taken", "team": "away", "player": 1}, "referee"),
            (23, -1, {"type": "period_end"}, "referee"),  # finished 0–1
            (24, 60_000, {"type": "confirm", "period": 1}, "referee"),
            (25, 60_000, {"type": "confirm", "period": 2}, "referee"),
            (26, 60_000, {"type": "note", "text": MATCH_NOTE}, "scorer"),
            (27, 60_000, {"type": "sign", "as": "away_captain", "name": "Alex Chen"}, "referee"),
            (28, 60_000, {"type": "sign", "as": "referee", "name": "Ref One 裁判一", "signature": signature_png()}, "referee"),
            (29, 3_600_000, {"type": "reopen", "reason": REOPEN_REASON}, "organiser"),
            (30, 60_000, {"type": "sign", "as": "home_captain", "name": "李华"}, "referee"),
            (
                31,
                60_000,
                {"type": "sign", "as": "referee", "name": "Ref One 裁判一", "signature": signature_png(80, 24)},
                "referee",
            ),
        ]
        for seq, wait, body, role in post:
            if not start <= seq <= upto:
                continue
            if wait < 0:
                clock = self.m.state()["clock"]
                wait = clock["length_ms"] - clock["elapsed_ms"]
            self.clock.advance(wait)
            if role == "organiser":
                self.organiser(seq, body)
            else:
                self.ev(seq, body, role)

    def json(self) -> dict[str, Any]:
        r = self.client.get(f"/matches/{self.m.id}/report.json")
        assert r.status_code == 200
        data: dict[str, Any] = r.get_json()
        return data


@pytest.fixture
def match_day(client: FlaskClient, clock: FakeClock) -> MatchDay:
    g = MatchDay(client, clock)
    g.play()
    return g


def _row(r: dict[str, Any], team: str, number: int) -> dict[str, Any]:
    rows = [p for p in r["stats"]["players"][team] if p["number"] == number]
    assert len(rows) == 1, (team, number, len(rows))
    return rows[0]


def test_M2_D80_renumbered_player_has_both_numbers_and_one_row_with_his_stats_merged(
    client: FlaskClient, match_day: MatchDay
) -> None:
    r = match_day.json()
    home = r["stats"]["players"]["home"]
    # One row per person: #3 became #33 at seq 6; his fouls as #3 (seq 5) and as #33 (seq 8) are one player's.
    assert [p["number"] for p in home] == [1, 2, 33, 4, 5, 6, 7, 8, 9, 10, 12]
    zw = _row(r, "home", 33)
    assert zw["numbers"] == [3, 33] and zw["label"] == "#33 (was #3)" and zw["name"] == "张伟"
    assert (zw["fouls"], zw["yellow"], zw["red"], zw["minutes"]) == (2, 2, 1, 2)  # on 0:00–2:00, sent off at seq 8
    # Earlier events keep the number they were logged with and show the new one.
    tl = {item["seq"]: item for item in r["timeline"]}
    assert tl[5]["player"] == 3 and tl[5]["player_now"] == 33 and "#3 (now #33) 张伟" in tl[5]["text"]["en"]
    assert tl[8]["player"] == 33 and "#33 张伟" in tl[8]["text"]["en"] and "now #" not in tl[8]["text"]["en"]
    assert tl[6]["text"]["en"] == "Shirt number changed: 人大 Renmin #3 → #33"
    # A late player (seq 9) has a row and minutes: on at 2:40 for nobody (seq 10), 27:20 + 30:00.
    late = _row(r, "home", 12)
    lineup = next(p for p in r["lineups"]["home"]["players"] if p["number"] == 12)
    assert late["name"] == "Late Lu 卢晚" and lineup["added_seq"] == 9 and lineup["played"] == "57:20" and not lineup["starter"]
    changes = [(c["seq"], c["change"], c["from_number"], c["number"]) for c in r["lineups"]["home"]["roster_changes"]]
    assert changes == [(6, "renumbered", 3, 33), (9, "added", None, 12)]
    # The page shows both numbers; the CSV has one row for him, under his number now.
    root = _html(client, match_day, lang="en")
    lineups = _by_id(root, "lineups")
    row = next(e for e in lineups.iter("tr") if e.get("data-team") == "home" and e.get("data-number") == "33")
    assert [_text(c) for c in row.iter("td")][:2] == ["33 (was #3)", "张伟"]
    rows = list(csv.DictReader(io.StringIO(_get(client, match_day, ".csv", lang="en").get_data().decode("utf-8-sig"))))
    numbers = [line["No."] for line in rows if line["Side"] == "home"]
    assert numbers == ["1", "2", "33", "4", "5", "6", "7", "8", "9", "10", "12"]
    assert next(line for line in rows if line["Side"] == "home" and line["No."] == "33")["Fouls committed"] == "2"


def test_M3_D81_corrections_stand_in_place_and_the_audit_lists_each_with_its_reason(
    client: FlaskClient, match_day: MatchDay
) -> None:
    r = match_day.json()
    seqs = [item["seq"] for item in r["timeline"]]
    # The amend (13) stands where the goal it replaced (12) was; the insert (15) right after 14;
    # the voided steal (18) and the void (19) are gone.
    assert seqs[:14] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15] and not {12, 18, 19} & set(seqs)
    tl = {item["seq"]: item for item in r["timeline"]}
    assert tl[13]["type"] == "goal" and tl[13]["player"] == 5 and tl[13]["score"] == {"home": 0, "away": 1}
    assert tl[13]["correction"] == {"kind": "amend", "of": 12, "reason": AMEND_REASON}
    assert f"corrected, replaces #12: {AMEND_REASON}" in tl[13]["text"]["en"]
    assert tl[15]["type"] == "shot_missed" and tl[15]["correction"] == {"kind": "insert", "after": 14, "reason": INSERT_REASON}
    # The statistics count the corrected events: the goal is #5's, the missed shot #2's.
    assert (_row(r, "away", 5)["goals"], _row(r, "away", 4)["goals"], _row(r, "home", 2)["shots_missed"]) == (1, 0, 1)
    assert r["charts"]["score"] == [
        {"seq": 13, "period": 1, "at_ms": 200_000, "team": "away", "player": 5, "score": {"home": 0, "away": 1}}
    ]
    audit = [(a["kind"], a["seq"], a["type"], a.get("voided_by"), a["reason"]) for a in r["audit"]]
    assert audit == [
        ("amend", 12, "goal", 13, AMEND_REASON),
        ("insert", 15, "shot_missed", None, INSERT_REASON),
        ("void", 18, "steal", 19, VOID_REASON),
        ("reopen", 29, "reopen", None, REOPEN_REASON),
    ]
    amend = r["audit"][0]
    assert amend["text"]["en"] == "Goal: Tsinghua 清华 #4 Dana Zhou" and amend["by"] == "assistant2"
    assert amend["replacement"]["seq"] == 13 and "#5 Eli Sun" in amend["replacement"]["text"]["en"]
    assert r["audit"][1]["after"] == 14 and r["audit"][1]["text"]["en"] == "Missed shot: 人大 Renmin #2 王芳"
    # The page lists them, each with its reason.
    root = _html(client, match_day)
    section = _by_id(root, "audit")
    kinds = [(e.get("data-kind"), e.get("data-seq")) for e in section.iter("tr") if e.get("data-kind")]
    assert kinds == [("amend", "12"), ("insert", "15"), ("void", "18"), ("reopen", "29")]
    reasons = {e.get("data-reason-for"): _text(e) for e in section.iter("tr") if e.get("data-reason-for")}
    assert reasons["12"].endswith(AMEND_REASON) and reasons["15"].endswith(INSERT_REASON) and reasons["18"].endswith(VOID_REASON)
    replaced = next(e for e in section.iter("tr") if e.get("data-seq") == "12")
    assert "Replaced by / 更正为 #13" in _text(replaced)


def test_M6_report_is_final_only_once_the_referee_has_signed_and_provisional_again_when_reopened(
    client: FlaskClient, clock: FakeClock, tmp_path: Path
) -> None:
    g = MatchDay(client, clock)
    g.play(upto=27)  # finished, confirmed, the away captain signed: not the referee
    m = g.json()["match"]
    assert (m["phase"], m["status"], m["provisional_because"], m["locked"]) == ("finished", "provisional", "unsigned", False)
    banner = _by_id(_html(client, g, lang="en"), "provisional")
    assert _text(banner) == "PROVISIONAL — not yet signed by the referee"
    rows = list(csv.DictReader(io.StringIO(_get(client, g, ".csv", lang="en").get_data().decode("utf-8-sig"))))
    assert {line["Status"] for line in rows} == {"provisional"}

    g.play(28, upto=28)
    g2 = g.json()
    assert (g2["match"]["status"], g2["match"]["locked"]) == ("final", True)

    g.play(29, upto=29)
    r = g.json()
    assert (r["match"]["status"], r["match"]["provisional_because"], r["match"]["locked"]) == ("provisional", "reopened", False)
    assert r["sheet"]["signatures"] == []  # cleared: the sheet is signed again …
    cleared = r["sheet"]["reopened"][0]["cleared"]
    assert [(c["as"], c["name"]) for c in cleared] == [
        ("away_captain", "Alex Chen"),
        ("referee", "Ref One 裁判一"),
    ]  # … the audit keeps them
    assert (
        _text(_by_id(_html(client, g, lang="en"), "provisional")) == "PROVISIONAL — reopened by the organiser, to be signed again"
    )

    g.play(30)
    r = g.json()
    assert r["match"]["status"] == "final" and r["match"]["provisional_because"] is None
    # The signatures that stand: role, name, time (the match's zone) and the drawing.
    sigs = [(s["as"], s["name"], s["seq"], s["image"] is not None) for s in r["sheet"]["signatures"]]
    assert sigs == [("referee", "Ref One 裁判一", 31, True), ("home_captain", "李华", 30, False)]
    assert r["sheet"]["signatures"][0]["at"] == _iso_utc(clock.now)
    assert [(c["period"], c["seq"]) for c in r["sheet"]["confirmations"]] == [(1, 24), (2, 25)]
    assert r["timeline"][-1]["fields"]["signature"] is True  # the drawing is in the sheet only

    root = _html(client, g, lang="en")
    sheet = _by_id(root, "sheet")
    signed = {e.get("data-as"): e for e in sheet.iter("tr") if e.get("data-as")}
    assert set(signed) == {"referee", "home_captain"}
    cells = [_text(c) for c in signed["referee"].iter("td")]
    assert cells[:3] == ["Referee", "Ref One 裁判一", _iso_utc(clock.now).replace("T", " ")]
    images = [e for e in signed["referee"].iter("img")]
    assert len(images) == 1 and images[0].get("src") == _stored(signature_png(80, 24))  # as re-encoded (D152)
    assert not list(signed["home_captain"].iter("img"))
    assert [e.get("data-period") for e in sheet.iter("li")] == ["1", "2"]

    pdf = _get(client, g, ".pdf", lang="en").data
    text = _pdftotext(pdf, tmp_path)
    assert "PROVISIONAL" not in text and "Ref One 裁判一" in text and "Signatures" in text
    path = tmp_path / "signed.pdf"
    path.write_bytes(pdf)
    listing = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, check=True, text=True).stdout
    assert [ln.split()[3:5] for ln in listing.splitlines()[2:]] == [["80", "24"]]  # the referee's drawing, drawn


def _iso_utc(ms: int) -> str:
    """A server time in the test machine's zone (the demo match has no ``starts_at``)."""
    from datetime import datetime

    return datetime.fromtimestamp(ms / 1000).astimezone().isoformat(timespec="seconds")


def test_M7_referees_report_prints_notes_with_what_they_are_about_and_card_reasons(
    client: FlaskClient, match_day: MatchDay
) -> None:
    rr = match_day.json()["referee_report"]
    notes = [(n["seq"], n["by"], n["text"], n["about"] and n["about"]["seq"], n["about_player"], n["code"]) for n in rr["notes"]]
    assert notes == [
        (16, "assistant2", ABOUT_GOAL, 12, None, None),
        (17, "referee", "Warned for fouls / 多次犯规警告", None, "人大 Renmin #33 张伟", "persistent_fouls"),
        (26, "scorer", MATCH_NOTE, None, None, None),
    ]
    about = rr["notes"][0]["about"]  # the goal as logged, since replaced by seq 13
    assert about["status"] == "replaced" and about["text"]["en"] == "Goal: Tsinghua 清华 #4 Dana Zhou"
    assert rr["notes"][1]["code_label"] == {"en": "Persistent fouls", "zh": "屡次犯规"}
    cards = [(c["seq"], c["player"], c["player_now"], c["color"], c["second_yellow"], c["sent_off"]) for c in rr["cards"]]
    assert cards == [(5, 3, 33, "yellow", False, False), (8, 33, 33, "yellow", True, True)]
    assert rr["cards"][0]["reason"] == {
        "code": "dangerous_play",
        "label": {"en": "Dangerous play", "zh": "危险动作"},
        "text": DANGEROUS["text"],
    }
    assert rr["cards"][1]["reason"] is None

    for lang, code, about_goal, about_match in (
        ("en", "Dangerous play", "About: #12 Goal: Tsinghua 清华 #4 Dana Zhou (replaced)", "About: the match"),
        ("zh", "危险动作", "关于: #12 进球：Tsinghua 清华 #4 Dana Zhou (已更正)", "关于: 本场比赛"),
    ):
        section = _by_id(_html(client, match_day, lang=lang), "referee-report")
        items = {e.get("data-seq"): _text(e) for e in section.iter("li")}
        assert about_goal in items["16"] and ABOUT_GOAL in items["16"]
        assert about_match in items["26"] and MATCH_NOTE in items["26"]
        reasons = {
            e.get("data-seq"): _text(c) for e in section.iter("tr") for c in e.iter("td") if c.get("data-field") == "reason"
        }
        assert reasons == {"5": f"{code}: {DANGEROUS['text']}", "8": "—"}


def test_M7_card_reason_in_the_golden_match(client: FlaskClient, golden: Golden) -> None:
    r = _get(client, golden, ".json").get_json()
    (card,) = [c for c in r["referee_report"]["cards"] if c["seq"] == 59]
    assert card["reason"]["label"] == {"en": "Dissent by word or action", "zh": "以言语或行动表示异议"}
    assert card["reason"]["text"] == DISSENT
    (note,) = r["referee_report"]["notes"]
    assert note["about"]["seq"] == 6 and note["about"]["status"] == "stands" and note["by"] == "assistant1"
    assert note["official"] == "Ann Lee" and note["code_label"]["zh"] == "屡次犯规"


def test_M8_second_yellow_reads_sent_off_and_fouls_per_player_match_the_state(client: FlaskClient, match_day: MatchDay) -> None:
    r = match_day.json()
    tl = {item["seq"]: item for item in r["timeline"]}
    assert "second yellow → sent off" in tl[8]["text"]["en"] and "第二张黄牌 → 罚下" in tl[8]["text"]["zh"]
    assert "the player's foul no. 2" in tl[8]["text"]["en"] and "foul no." not in tl[5]["text"]["en"]
    assert [(c["seq"], c["off"], c["reason"]) for c in r["lineups"]["home"]["changes"] if c["off"] is not None] == [
        (8, 33, "second_yellow")
    ]
    # Fouls per player: the report's count is the engine's (M8), the renumbered player's included.
    state = match_day.m.state()
    for team in ("home", "away"):
        fouls = {str(p["number"]): p["fouls"] for p in r["stats"]["players"][team] if p["fouls"]}
        assert fouls == state["teams"][team]["fouls"], team
    section = _by_id(_html(client, match_day, lang="en"), "referee-report")
    row = next(e for e in section.iter("tr") if e.get("data-seq") == "8")
    assert row.get("data-second-yellow") == "yes" and "second yellow → sent off" in _text(row)
    lineups = _by_id(_html(client, match_day, lang="zh"), "lineups")
    change = next(e for e in lineups.iter("tr") if e.get("data-seq") == "8")
    assert "第二张黄牌 → 罚下" in _text(change)


def test_D82_csv_rows_carry_match_id_date_teams_and_score_so_csvs_of_several_matches_merge(
    client: FlaskClient, golden: Golden, match_day: MatchDay
) -> None:
    merged: list[dict[str, str]] = []
    for g in (golden, match_day):
        merged += csv.DictReader(io.StringIO(_get(client, g, ".csv", lang="en").get_data().decode("utf-8-sig")))
    assert list(merged[0])[:7] == ["Match", "Date", "Home", "Away", "Score", "Shootout", "Side"]
    by_match: dict[str, set[tuple[str, ...]]] = {}
    for line in merged:
        by_match.setdefault(line["Match"], set()).add((line["Date"], line["Home"], line["Away"], line["Score"], line["Shootout"]))
    assert by_match == {
        golden.m.id: {("2026-12-05", HOME_TEAM, AWAY_TEAM, "2–2", "4–1")},
        match_day.m.id: {(_iso_utc(match_day.clock.now)[:10], "人大 Renmin", "Tsinghua 清华", "0–1", "")},
    }
    assert len(merged) == 14 + 21
    goals = {(line["Match"], line["Side"], line["No."]): line["Goals"] for line in merged if line["Goals"] != "0"}
    assert goals == {
        (golden.m.id, "home", "3"): "1",
        (golden.m.id, "home", "5"): "1",
        (golden.m.id, "away", "2"): "1",
        (golden.m.id, "away", "5"): "1",
        (match_day.m.id, "away", "5"): "1",
    }


def test_D83_report_times_are_in_the_match_zone_never_bare_utc(client: FlaskClient, golden: Golden) -> None:
    r = _get(client, golden, ".json").get_json()
    m = r["match"]
    stamps = [m["kicked_off_at"], m["ended_at"], m["generated_at"], m["created_at"]]
    stamps += [t["received_at"] for t in r["timeline"]]
    stamps += [s["at"] for s in r["sheet"]["signatures"]] + [a["received_at"] for a in r["audit"]]
    assert stamps and all(s.endswith("+08:00") for s in stamps), [s for s in stamps if not s.endswith("+08:00")]
    assert m["timezone"] == "UTC+08:00"
    page = _text(_by_id(_html(client, golden, lang="en"), "result"))
    assert "(UTC+08:00)" in page


def test_D83_without_starts_at_report_times_use_the_servers_local_zone(
    client: FlaskClient, match: MatchDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setenv("TZ", "America/Sao_Paulo")  # UTC−03:00, no summer time since 2019
    time.tzset()
    try:
        match.kickoff()
        r = client.get(f"/matches/{match.id}/report.json").get_json()
    finally:
        monkeypatch.undo()
        time.tzset()
    m = r["match"]
    assert m["starts_at"] is None and m["timezone"] == "UTC-03:00"
    assert m["kicked_off_at"].endswith("-03:00") and m["generated_at"].endswith("-03:00")
    assert all(t["received_at"].endswith("-03:00") for t in r["timeline"])


# -- the report kept per match and seq (issue 15) ------------------------------------------------


def test_report_is_kept_per_seq_and_rebuilt_after_every_new_row_a_correction_too(
    app: Any, client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff()
    match.take()
    match.post({"type": "steal", "team": "away", "player": 2})
    cache = app.extensions.get("qalisball_reports")
    builds = cache.builds if cache else 0
    first = client.get(f"/matches/{match.id}/report.json").get_json()
    client.get(f"/matches/{match.id}/report").get_data()
    client.get(f"/matches/{match.id}/report.csv").get_data()
    cache = app.extensions["qalisball_reports"]
    assert cache.builds == builds + 1  # one build for three formats
    steal = first["timeline"][-1]
    assert steal["player"] == 2
    match.post({"type": "amend", "target": steal["seq"], "event": {"type": "steal", "team": "away", "player": 3}, "reason": "#3"})
    again = client.get(f"/matches/{match.id}/report.json").get_json()
    assert cache.builds == builds + 2 and again["match"]["seq"] == first["match"]["seq"] + 1
    assert again["timeline"][-1]["player"] == 3 and again["audit"][0]["kind"] == "amend"


def test_kept_report_of_a_half_in_play_still_counts_minutes_up_to_now(app: Any, client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff()
    match.take()
    one = client.get(f"/matches/{match.id}/report.json").get_json()
    match.clock.advance(10_000)
    two = client.get(f"/matches/{match.id}/report.json").get_json()
    assert app.extensions["qalisball_reports"].builds == 1 and one["match"]["seq"] == two["match"]["seq"]
    p1, p2 = one["lineups"]["home"]["players"][0], two["lineups"]["home"]["players"][0]
    assert p2["played_ms"] == p1["played_ms"] + 10_000 and p2["intervals"][-1]["ongoing"] is True
    assert _row(two, "home", 1)["played_ms"] == p2["played_ms"]
    assert two["match"]["generated_at"] != one["match"]["generated_at"]


def test_pdf_worker_that_died_is_replaced(client: FlaskClient, match: MatchDriver, tmp_path: Path) -> None:
    from qalisball.reports import render

    match.kickoff()
    assert client.get(f"/matches/{match.id}/report.pdf").status_code == 200
    with render._idle_lock:
        workers = list(render._idle)
    assert workers, "the worker is kept for the next PDF"
    for w in workers:
        w.proc.kill()
        w.proc.wait()
    match.take()  # a new seq: not the kept PDF
    r = client.get(f"/matches/{match.id}/report.pdf")
    assert r.status_code == 200 and "人大 Renmin" in _pdftotext(r.data, tmp_path)


# ----------------------------------------------------------------------------------------------
# Issue 21: the report counts the engine's rulings (rules/rulings.py) instead of inferring them


def _engine_report(m: Any) -> dict[str, Any]:
    from qalisball.reports.stats import build_report

    return build_report("m", {"starts_at": "2026-12-05T14:00:00+08:00"}, m.setup, m.log, m.now)


def test_13_1_issue21_a_free_kick_retaken_after_a_forgiven_error_in_taking_it_is_one_circle_on_the_field() -> None:
    from qalisball.rules.events import Violation
    from qalisball.rules.state import MultiAttackRules
    from tests.calls import live
    from tests.engine_driver import EngineMatch, demo_setup

    m = EngineMatch(demo_setup(multi_attack=MultiAttackRules("teams", 3, ("home", "away"))))
    live(m, "home")
    m.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))  # a free kick for home, awarded
    m.post(Violation("restart", "home", player=2))  # forgiven: the same free kick is taken again
    r = _engine_report(m)
    assert [(k["seq"], k["team"]) for k in r["charts"]["field_marks"] if k["kind"] == "free_kick"] == [(4, "home")]
    assert r["stats"]["teams"]["home"]["multi_attack_used"] == 1


def test_D21_issue21_a_card_after_time_up_uses_no_multi_attack_opportunity() -> None:
    from qalisball.rules.events import Foul, Violation
    from qalisball.rules.state import MultiAttackRules
    from tests.calls import live
    from tests.engine_driver import EngineMatch, demo_setup

    m = EngineMatch(demo_setup(multi_attack=MultiAttackRules("teams", 3, ("home", "away"))))
    live(m, "home")
    m.post(Violation("ball_grounded", "away", spot=(20.0, 5.0)))  # home holds the free kick
    m.advance(m.setup.rules.half_ms)
    m.post(Foul("home", 2, card="yellow"))  # time up: only the card counts (D21)
    r = _engine_report(m)
    assert r["stats"]["teams"]["home"]["multi_attack_used"] == 0
    assert r["timeline"][-1]["multi_attack_used"] is False
    assert r["timeline"][-1]["restart"]["team"] == "home"  # the pending free kick stands
