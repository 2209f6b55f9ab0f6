"""Random legal matches at the engine level: seeded, fast, no server (tests and benchmarks share it).

``random_match(seed)`` plays a match by proposing plausible calls (every event type, random teams,
players and spots) and keeping those the engine accepts, with the clock moving on between calls.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from qalisball.rules import engine
from qalisball.rules.catalogue import VIOLATION_KINDS
from qalisball.rules.common import TEAMS, Team
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.events import (
    Attack,
    Card,
    Catch,
    ClockChange,
    CoinToss,
    Event,
    Foul,
    Goal,
    Injury,
    PeriodEnd,
    PeriodStart,
    RestartTaken,
    ShootoutKick,
    ShootoutStart,
    ShotMissed,
    Steal,
    Substitution,
    Violation,
)
from qalisball.rules.setup import build_setup
from qalisball.rules.state import MatchSetup, MatchState, initial_state
from qalisball.server.demo import demo_request

START_MS = 1_800_000_000_000


def demo_setup(**rules: object) -> MatchSetup:
    """The demo match's setup, with the defaults the API would fill in (no marshmallow needed)."""
    request = demo_request()
    request["field"] = {"length": 40, "width": 25, "side_lines": True}
    request["rules"] = {
        "half_minutes": 30,
        "halftime_minutes": 10,
        "shootout_rounds": 4,
        "multi_attack": {"mode": "off", "k": 2, "teams": [], "players": {}},
        **rules,
    }
    return build_setup(request)


@dataclass(frozen=True)
class Played:
    event: Event
    now: int
    before: MatchState
    after: MatchState


def _candidates(s: MatchState, rng: random.Random) -> list[Event]:
    f = s.setup.field
    team: Team = rng.choice(TEAMS)
    ts = s.teams[team]
    roster = list(s.setup.team(team).numbers)
    player = rng.choice(ts.on_field) if ts.on_field and rng.random() < 0.9 else rng.choice(roster)
    spot = (round(rng.uniform(-1, f.length + 1), 2), round(rng.uniform(-1, f.width + 1), 2))
    kind = rng.choice(VIOLATION_KINDS).name
    if kind in ("ball_in_area", "player_in_area") and rng.random() < 0.7:
        depth = rng.uniform(0.2, 3.0)  # inside a restricted area (SPEC §1)
        spot = (depth if rng.random() < 0.5 else f.length - depth, round(f.width / 2 + rng.uniform(-2, 2), 2))
    bench = [n for n in roster if n not in ts.on_field]
    out: list[Event] = [
        RestartTaken(team, player if rng.random() < 0.7 else None),
        RestartTaken(team, player if rng.random() < 0.7 else None),
        Goal(team, player if rng.random() < 0.8 else None, rng.random() < 0.1),
        Violation(kind, team, player, None if kind == "restart" else spot, rng.choice(("low", "high"))),
        Violation(kind, team, player, None if kind == "restart" else spot),
        Foul(
            team,
            player,
            spot,
            rng.choice(("field", "field", "beyond_end_line", "beyond_side_line")),
            rng.random() < 0.05,
            rng.choice((None, None, None, None, "yellow", "red")),
        ),
        Steal(team, player),
        Catch(team, player),
        Attack(team),
        ShotMissed(team, player, spot if rng.random() < 0.5 else None),
        Card(team, player, rng.choice(("yellow", "yellow", "red"))),
        Injury(team, player, spot),
        ClockChange(rng.choice(("pause", "resume"))),
    ]
    if bench:
        out.append(Substitution(team, rng.choice([None, *ts.on_field]) if ts.on_field else None, rng.choice(bench)))
    if s.phase == "scheduled":
        out += [CoinToss(team, rng.choice(("x0", "xL"))), PeriodStart()]
    if s.phase == "halftime":
        out.append(PeriodStart())
    if s.phase == "shootout" and s.shootout is None:
        takers = tuple((t, tuple(rng.sample(list(s.setup.team(t).numbers), 4))) for t in TEAMS)
        out.append(ShootoutStart(team, takers))
    if s.shootout is not None:
        out.append(ShootoutKick(team, rng.random() < 0.6))
    return out


def random_match(seed: int, steps: int = 200, setup: MatchSetup | None = None) -> Iterator[Played]:
    """Up to ``steps`` accepted events of a random match; the clock runs on by 0–40 s between calls."""
    rng = random.Random(seed)
    s = initial_state(setup or demo_setup())
    now = START_MS
    half_ms = s.setup.rules.half_ms
    accepted = 0
    tries = 0
    while accepted < steps and tries < steps * 40 and s.phase not in ("finished", "abandoned"):
        tries += 1
        if engine.time_up(s, now):
            event: Event = PeriodEnd()
        elif s.phase in ("first_half", "second_half") and rng.random() < 0.01:
            event = ClockChange("set", min(half_ms, s.clock.elapsed(now) + rng.randint(0, half_ms // 3)))
        else:
            event = rng.choice(_candidates(s, rng))
        try:
            engine.check_references(s, event)
            after = engine.apply(s, event, now)
        except (RuleViolation, InvalidEvent):
            continue
        yield Played(event, now, s, after)
        s = after
        accepted += 1
        now += rng.randint(0, 40_000)
