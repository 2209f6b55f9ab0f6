"""The console's offline forecast agrees with the server (issue 10, item 2).

While calls wait in the console's queue (offline), the page shows a forecast: the score, the clock, the
cards and who is on the field (static/js/console/forecast.js); restarts and possession are "to be ruled".
Here 200 random legal sequences of calls are made with the rule engine itself (seeded, so a failure
names its seed): a random stretch of a match is played, then a random run of further calls is "queued".
Node runs the forecast from the public state before the queue plus the queued bodies, as posted; the
engine applies the same bodies. Score, cards, the clock's running flag and the on-field lists must be
the same.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from marshmallow import ValidationError

from qalisball.match.schemas import MatchSchema, parse_event
from qalisball.rules import engine
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.forecast import forecast_rules
from qalisball.rules.setup import build_setup
from qalisball.rules.state import HALVES, MatchSetup, MatchState, initial_state
from qalisball.rules.view import public_state
from qalisball.server.demo import demo_request

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "tests" / "forecast_runner.mjs"
START_MS = 1_800_000_000_000
SEQUENCES = 200
TEAMS = ("home", "away")


def run_forecast(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The forecast of each case, computed by Node from the console's own module."""
    out = subprocess.run(["node", str(RUNNER)], input=json.dumps(cases), capture_output=True, text=True, check=True, timeout=120)
    result: list[dict[str, Any]] = json.loads(out.stdout)
    return result


# ---------------------------------------------------------------------------------------------
# Random legal calls, as the console posts them


def _on(s: MatchState, team: str) -> list[int]:
    return list(s.teams[team].on_field)  # type: ignore[index]


def _bench(s: MatchState, team: str) -> list[int]:
    ts = s.teams[team]  # type: ignore[index]
    return [n for n in s.setup.team(team).numbers if n not in ts.on_field and n not in ts.sent_off]  # type: ignore[arg-type]


def _someone(rng: random.Random, s: MatchState, team: str) -> int:
    on = _on(s, team)
    if on and rng.random() < 0.85:
        return rng.choice(on)
    return rng.choice(list(s.setup.team(team).numbers))  # type: ignore[arg-type]


def _spot(rng: random.Random, s: MatchState) -> dict[str, float]:
    f = s.setup.field
    return {"x": round(rng.uniform(-1, f.length + 1), 1), "y": round(rng.uniform(-1, f.width + 1), 1)}


def propose(rng: random.Random, s: MatchState, now: int) -> dict[str, Any]:
    """One random call; only a proposal: the engine decides whether it is legal now."""
    team = rng.choice(TEAMS)
    if s.possession is not None and rng.random() < 0.5:
        team = s.possession
    live = s.phase in HALVES and s.ball == "live" and not engine.time_up(s, now)
    weights = {
        "restart_taken": 1 if live else 12,
        "goal": 4 if live else 0.2,
        "violation": 6 if live else 0.5,
        "foul": 3,
        "card": 2,
        "substitution": 0.3 if live else 6,
        "injury": 1,
        "steal": 3 if live else 0.1,
        "attack": 2 if live else 0,
        "clock": 2,
        "end_of_half": 0.6,
        "period_end": 8 if engine.time_up(s, now) else 0.1,
        "period_start": 6 if s.phase in ("scheduled", "halftime") else 0,
        "coin_toss": 8 if s.phase == "scheduled" else 0,
    }
    kind = rng.choices(list(weights), weights=list(weights.values()))[0]
    if kind == "restart_taken":
        if s.restart is not None:
            team = s.restart.team
        return {"type": "restart_taken", "team": team, "player": _someone(rng, s, team) if rng.random() < 0.9 else None}
    if kind == "goal":
        return {"type": "goal", "team": team, "player": _someone(rng, s, team) if rng.random() < 0.8 else None}
    if kind == "violation":
        vk = rng.choice(["ball_out_side", "ball_out_end", "ball_grounded", "ball_in_area", "player_in_area", "caught", "restart"])
        body: dict[str, Any] = {"type": "violation", "kind": vk, "team": team, "player": _someone(rng, s, team)}
        if vk != "restart":
            body["spot"] = _spot(rng, s)
        return body
    if kind == "foul":
        card = rng.choices([None, "yellow", "red"], weights=[6, 3, 1])[0]
        body = {"type": "foul", "team": team, "player": _someone(rng, s, team), "spot": _spot(rng, s), "where": "field"}
        if card:
            body["card"] = card
        return body
    if kind == "card":
        color = rng.choices(["yellow", "red"], weights=[4, 1])[0]
        return {"type": "card", "team": team, "player": _someone(rng, s, team), "color": color}
    if kind == "substitution":
        on, bench = _on(s, team), _bench(s, team)
        out = rng.choice(on) if on and (len(on) >= s.setup.starters or rng.random() < 0.3) else None
        return {"type": "substitution", "team": team, "out": out, "in": rng.choice(bench) if bench else 1}
    if kind == "injury":
        return {"type": "injury", "team": team, "player": _someone(rng, s, team), "spot": _spot(rng, s)}
    if kind == "steal":
        return {"type": "steal", "team": team, "player": None}
    if kind == "attack":
        return {"type": "attack", "team": team}
    if kind == "clock":
        action = rng.choice(("pause", "resume", "set"))
        if action == "set":
            # Well before the end (the half's time is never run out by the seconds between calls) …
            return {"type": "clock", "action": "set", "elapsed_ms": rng.randrange(0, max(1, s.clock.length_ms - 300_000), 1000)}
        return {"type": "clock", "action": action}
    if kind == "end_of_half":
        # … or exactly at it, as the scorer does to end a half (3.1).
        return {"type": "clock", "action": "set", "elapsed_ms": s.clock.length_ms}
    if kind == "coin_toss":
        return {"type": "coin_toss", "kickoff": team, "home_end": rng.choice(("x0", "xL"))}
    return {"type": kind}


def accept(s: MatchState, body: dict[str, Any], now: int) -> MatchState | None:
    """The engine's answer to a posted body: the new state, or None when it is refused."""
    try:
        event = parse_event(dict(body)).event
        engine.check_references(s, event)
        return engine.apply(s, event, now)
    except (ValidationError, InvalidEvent, RuleViolation):
        return None


def legal_run(rng: random.Random, s: MatchState, now: int, n: int) -> tuple[MatchState, int, list[dict[str, Any]]]:
    """``n`` accepted calls from ``s`` (fewer if the match is over), a few seconds apart."""
    bodies: list[dict[str, Any]] = []
    tries = 0
    while len(bodies) < n and s.phase not in ("shootout", "finished", "abandoned") and tries < 400 * n:
        tries += 1
        body = propose(rng, s, now)
        new = accept(s, body, now)
        if new is None:
            continue
        s = new
        bodies.append(body)
        now += rng.randrange(0, 3000)
    return s, now, bodies


def sequence(seed: int, setup: MatchSetup) -> dict[str, Any]:
    """A played stretch of a match, then the calls that wait in the queue, and the server's state after them."""
    rng = random.Random(seed)
    queued: list[dict[str, Any]] = []
    while not queued:  # a stretch that ended the match leaves nothing to queue: play another
        s, now, _ = legal_run(rng, initial_state(setup), START_MS, rng.randrange(0, 70))
        before = public_state(s, now, "m", 1)
        after, end, queued = legal_run(rng, s, now, rng.randrange(1, 16))
    return {
        "seed": seed,
        "before": before,
        "queued": queued,
        "server": public_state(after, end, "m", 1 + len(queued)),
        "opts": {"now": end, "rules": forecast_rules(setup)},  # the page data's (D340)
    }


def compared(state: dict[str, Any]) -> dict[str, Any]:
    """What the forecast promises to get right."""
    return {
        "score": state["score"],
        "clock_running": state["clock"]["running"],
        **{
            f"{t}.{k}": sorted(state["teams"][t][k]) if k != "on_field" else state["teams"][t][k]
            for t in TEAMS
            for k in ("yellow", "sent_off", "on_field")
        },
    }


@pytest.fixture(scope="module")
def sequences() -> list[dict[str, Any]]:
    setup = build_setup(MatchSchema().load(demo_request()))
    return [sequence(seed, setup) for seed in range(SEQUENCES)]


def test_the_offline_forecast_equals_the_server_on_200_random_legal_sequences(sequences: list[dict[str, Any]]) -> None:
    forecasts = run_forecast([{"state": c["before"], "bodies": c["queued"], "opts": c["opts"]} for c in sequences])
    assert len(forecasts) == len(sequences)
    wrong = []
    for case, fc in zip(sequences, forecasts, strict=True):
        if compared(fc) != compared(case["server"]):
            want, got = compared(case["server"]), compared(fc)
            diff = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
            wrong.append(f"seed {case['seed']}: {diff} (server, forecast) after {case['queued']}")
        assert fc["ruling"] is True and fc["restart"] is None and fc["legal"] is None  # the rest is to be ruled
    assert not wrong, "\n".join(wrong[:5])


def test_the_random_queues_hold_every_call_the_forecast_counts(sequences: list[dict[str, Any]]) -> None:
    """Without this the test above could pass on queues that never score, book, substitute or stop the clock."""
    seen: Counter[str] = Counter()
    for case in sequences:
        for b in case["queued"]:
            key = b["type"]
            if b["type"] in ("clock", "card"):
                key += "." + (b.get("action") or b.get("color"))
            if b["type"] == "foul" and b.get("card"):
                key = "foul+card"
            if b["type"] == "substitution":
                key = "substitution" if b["out"] is not None else "bring_on"
            seen[key] += 1
        before, server = case["before"], case["server"]
        if any(
            set(server["teams"][t]["sent_off"]) - set(before["teams"][t]["yellow"]) - set(before["teams"][t]["sent_off"])
            for t in TEAMS
        ):
            seen["sent off"] += 1
        if any(
            b["yellow"] != s["yellow"] and set(b["yellow"]) & set(s["sent_off"])
            for b, s in zip(before["teams"].values(), server["teams"].values(), strict=True)
        ):
            seen["second yellow"] += 1
        if before["time_up"]:
            seen["queued after time up"] += 1
    for key in (
        "goal",
        "card.yellow",
        "card.red",
        "foul+card",
        "substitution",
        "bring_on",
        "injury",
        "clock.pause",
        "clock.resume",
        "clock.set",
        "period_start",
        "period_end",
        "coin_toss",
        "restart_taken",
        "violation",
        "sent off",
    ):
        assert seen[key] >= 3, (key, seen)
