"""Rule-engine and HTTP benchmark (run by hand; prints numbers; never collected by pytest).

    .venv/bin/python bench/engine_bench.py [--events 2000] [--seed 7] [--repeat 5]

1. Generates a realistic, legal match of ``--events`` events: random events (kickoffs and other
   restarts, steals, attacks, violations, fouls, goals, substitutions, clock changes, ...) are tried
   one after another and only those the engine accepts are kept (seeded, so every run plays the same
   match). Game time advances between accepted events so that the two halves fill the match.
2. Times ``engine.decide`` over that match as the service calls it (with the log so far), by turns with the
   ``check_references`` + M4 + ``engine.apply`` pairing it replaced (issue 28 item 2); ``engine.apply``
   (events per second; ``apply`` copies the state every time, and the copy alone), ``engine.replay`` of
   the whole log as the store's rows (what a restart or a void costs), ``legal_calls`` per state (the
   consoles' states carry it, D90), and ``public_state`` + JSON.
3. Posts the same events one by one through the Flask test client (schema, auth, rules, SQLite commit
   with WAL + synchronous=FULL on a real disk, empty-room Socket.IO emit): p50 / p99 per event, and the
   commit alone (``Store.append``) as part of it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qalisball.match.schemas import MatchSchema  # noqa: E402
from qalisball.rules import corrections, engine  # noqa: E402
from qalisball.rules.errors import InvalidEvent, RuleViolation  # noqa: E402
from qalisball.rules.events import (  # noqa: E402
    Attack,
    Card,
    Catch,
    ClockChange,
    CoinToss,
    Event,
    Foul,
    Goal,
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
from qalisball.rules.legal import legal_calls  # noqa: E402
from qalisball.rules.setup import build_setup  # noqa: E402
from qalisball.rules.state import HALVES, MatchSetup, MatchState, initial_state  # noqa: E402
from qalisball.rules.view import public_state  # noqa: E402
from qalisball.server.demo import demo_request  # noqa: E402
from tests.engine_driver import Row  # noqa: E402

START_MS = 1_800_000_000_000
Entry = tuple[int, Event, int]  # (seq, event, server ms)


@dataclasses.dataclass(frozen=True)
class RuledRow(Row):
    """A row with the rulings the store keeps with it (issue 28)."""

    rulings: tuple[Any, ...] | None = None


def log_rows(entries: list[Entry]) -> list[Row]:
    """The generated match as the log would hold it (the rows the engine-level stories use)."""
    return [Row(seq, ev.type, ev.fields(), now) for seq, ev, now in entries]


# ------------------------------------------------------------------------------------------------
# A random but legal match


def _team(rng: random.Random) -> str:
    return rng.choice(("home", "away"))


def _player(rng: random.Random, s: MatchState, team: str) -> int:
    """Mostly a player on the field, sometimes anyone on the roster (then the engine may refuse)."""
    on = s.teams[team].on_field  # type: ignore[index]
    if on and rng.random() < 0.85:
        return rng.choice(on)
    return rng.choice(s.setup.team(team).numbers)  # type: ignore[arg-type]


def _spot(rng: random.Random, s: MatchState) -> tuple[float, float]:
    f = s.setup.field
    return (round(rng.uniform(0, f.length), 2), round(rng.uniform(0, f.width), 2))


# Proposal weights while the ball is in play, and while it is dead (a restart pending, half-time, ...).
LIVE_KINDS = (
    ("steal", 14),
    ("attack", 12),
    ("violation", 9),
    ("foul", 5),
    ("shot_missed", 5),
    ("catch", 3),
    ("goal", 1.2),
    ("restart_taken", 1),
    ("clock", 0.4),
    ("substitution", 0.3),
    ("card", 0.1),
)
DEAD_KINDS = (
    ("restart_taken", 20),
    ("substitution", 1.2),
    ("foul", 0.5),
    ("violation", 0.5),
    ("clock", 1),
    ("card", 0.2),
    ("coin_toss", 1),
    ("period_start", 1),
    ("period_end", 1),
    ("shootout_start", 1),
    ("shootout_kick", 3),
    ("steal", 1),
    ("goal", 0.3),
)


def _propose(rng: random.Random, s: MatchState, now: int) -> Event:
    """One random event. It is only a proposal: the engine decides whether it is legal now."""
    live = s.ball == "live" and s.phase in HALVES
    kinds = LIVE_KINDS if live else DEAD_KINDS
    kind = rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
    team = _team(rng)
    if kind == "restart_taken":
        if s.restart is not None and rng.random() < 0.7:
            team = s.restart.team
        return RestartTaken(team, _player(rng, s, team))  # type: ignore[arg-type]
    if kind == "steal":
        return Steal(team, _player(rng, s, team) if rng.random() < 0.6 else None)  # type: ignore[arg-type]
    if kind == "attack":
        return Attack(s.possession if s.possession and rng.random() < 0.8 else team)  # type: ignore[arg-type]
    if kind == "violation":
        vk = rng.choices(
            ["ball_out_side", "ball_out_end", "ball_grounded", "ball_in_area", "player_in_area", "caught", "restart"],
            weights=[4, 3, 3, 2, 1, 2, 1],
        )[0]
        if s.possession and rng.random() < 0.7:
            team = s.possession
        return Violation(vk, team, _player(rng, s, team), _spot(rng, s), rng.choice(("low", "high")))  # type: ignore[arg-type]
    if kind == "foul":
        where = rng.choices(["field", "beyond_end_line", "beyond_side_line"], weights=[8, 1, 1])[0]
        card = "yellow" if rng.random() < 0.03 else None
        return Foul(team, _player(rng, s, team), _spot(rng, s), where, False, card)  # type: ignore[arg-type]
    if kind == "shot_missed":
        return ShotMissed(s.possession or team, None, None)  # type: ignore[arg-type]
    if kind == "catch":
        return Catch(team, _player(rng, s, team), None)  # type: ignore[arg-type]
    if kind == "goal":
        return Goal(team, _player(rng, s, team) if rng.random() < 0.8 else None)  # type: ignore[arg-type]
    if kind == "substitution":
        ts = s.teams[team]  # type: ignore[index]
        bench = [n for n in s.setup.team(team).numbers if n not in ts.on_field and n not in ts.sent_off]  # type: ignore[arg-type]
        out = rng.choice(ts.on_field) if ts.on_field else None
        return Substitution(team, out, rng.choice(bench) if bench else 1)  # type: ignore[arg-type]
    if kind == "clock":
        action = rng.choice(("pause", "resume", "resume", "set"))
        if action == "set":
            elapsed = max(0, s.clock.elapsed(now) + rng.randint(-5000, 2000))
            return ClockChange("set", min(elapsed, s.clock.length_ms))
        return ClockChange(action)  # type: ignore[arg-type]
    if kind == "card":
        return Card(team, _player(rng, s, team), "yellow")  # type: ignore[arg-type]
    if kind == "coin_toss":
        return CoinToss(team, rng.choice(("x0", "xL")))  # type: ignore[arg-type]
    if kind == "period_start":
        return PeriodStart()
    if kind == "period_end":
        return PeriodEnd()
    if kind == "shootout_start":
        takers = tuple((t, tuple(rng.sample(s.setup.team(t).numbers, 4))) for t in ("home", "away"))  # type: ignore[arg-type]
        return ShootoutStart(team, takers)  # type: ignore[arg-type]
    return ShootoutKick(team, rng.random() < 0.7)  # type: ignore[arg-type]


def generate_match(n: int, seed: int) -> tuple[dict[str, Any], MatchSetup, list[Entry], int]:
    """A legal match of ``n`` events: (creation request, setup, entries, refused proposals)."""
    rng = random.Random(seed)
    request = demo_request()
    setup = build_setup(MatchSchema().load(request))
    s = initial_state(setup)
    now = START_MS
    entries: list[Entry] = []
    refused = 0
    # The accepted event count at which each half's time runs out: the halves share the match.
    half_end = {1: n // 2, 2: n - 1}
    while len(entries) < n:
        if refused > 200 * n:
            raise RuntimeError(f"stuck after {len(entries)} events in the {s.phase}")
        event = _final_whistle(s, now, half_end, len(entries)) or _propose(rng, s, now)
        try:
            s = engine.apply(s, event, now)
        except (RuleViolation, InvalidEvent):
            refused += 1
            continue
        entries.append((len(entries) + 1, event, now))
        now += _time_step(rng, s, now, half_end, len(entries))
    return request, setup, entries, refused


def _final_whistle(s: MatchState, now: int, half_end: dict[int, int], count: int) -> Event | None:
    """Once a half has had its share of events: the clock runs again if paused, then the half ends."""
    if s.phase not in HALVES or count < half_end[s.period]:
        return None
    return PeriodEnd() if engine.time_up(s, now) else ClockChange("resume")


def _time_step(rng: random.Random, s: MatchState, now: int, half_end: dict[int, int], count: int) -> int:
    """Server milliseconds until the next event: the half's time is spread over its events."""
    if s.phase == "halftime":
        return s.setup.rules.halftime_ms if s.halftime_started_at == now else rng.randint(5_000, 60_000)
    if s.phase not in HALVES:
        return rng.randint(1_000, 20_000)
    c = s.clock
    if not c.running:
        return rng.randint(1_000, 10_000)  # a paused clock: wall time passes, game time does not
    left_ms = c.length_ms - c.elapsed(now)
    left_events = half_end[s.period] - count
    if left_ms <= 0:
        return rng.randint(500, 5_000)
    if left_events <= 0:
        return left_ms  # the half's time runs out now
    mean = left_ms / (left_events + 1)
    return max(1, min(round(rng.expovariate(1 / mean)), left_ms - 1))


# ------------------------------------------------------------------------------------------------
# Timing helpers


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def _best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, float]:
    """(median, best) wall seconds of ``repeat`` runs of ``fn``."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def body_of(event: Event) -> dict[str, Any]:
    """The API request body of an event (None left out, except substitution's required ``out``)."""
    return {"type": event.type, **{k: v for k, v in event.fields().items() if v is not None or k == "out"}}


# ------------------------------------------------------------------------------------------------
# The three measurements


def bench_engine(setup: MatchSetup, entries: list[Entry], repeat: int) -> dict[str, tuple[float, float]]:
    def apply_all() -> MatchState:
        s = initial_state(setup)
        for _, ev, now in entries:
            s = engine.apply(s, ev, now)
        return s

    final = apply_all()
    rows = log_rows(entries)
    replayed = engine.replay(setup, rows)
    assert public_state(final, entries[-1][2], "m", len(entries)) == public_state(replayed, entries[-1][2], "m", len(entries)), (
        "replay(log) == state"
    )

    states = []
    s = initial_state(setup)
    for _, ev, now in entries:
        s = engine.apply(s, ev, now)
        states.append((s, now))

    def render_all() -> None:
        for i, (st, now) in enumerate(states, 1):
            json.dumps(public_state(st, now, "m", i), ensure_ascii=False)

    def spectators_all() -> None:  # what spectators get (D90): no legal
        for i, (st, now) in enumerate(states, 1):
            json.dumps(public_state(st, now, "m", i, legal=False), ensure_ascii=False)

    def legal_all() -> None:
        for st, now in states:
            legal_calls(st, now)

    def copy_all() -> None:
        for st, _ in states:
            st.copy()

    # Issue 28: the store's rows carry what was ruled on them; a start-up replay folds those (engine._fold).
    ruled_rows = [RuledRow(*dataclasses.astuple(r), rulings=st.rulings) for r, (st, _) in zip(rows, states, strict=True)]
    folded = engine.replay(setup, ruled_rows)
    assert public_state(folded, entries[-1][2], "m", len(entries)) == public_state(final, entries[-1][2], "m", len(entries))

    # Issue 28 item 2: the write path's road into the rules, as MatchService.submit takes it (the log so far
    # given: M4's duplicate check, then the call), against the pairing it replaced, by turns in this run.
    prefixes = [rows[:i] for i in range(len(rows))]

    def paired_all() -> None:
        s = initial_state(setup)
        for i, (_, ev, now) in enumerate(entries):
            engine.check_references(s, ev)
            at_ms = engine.game_time(s, now)
            corrections.duplicate_of(prefixes[i], "referee", ev.type, ev.fields(), at_ms)
            s = engine.apply(s, ev, now)

    def decide_all() -> None:
        s = initial_state(setup)
        for i, (_, ev, now) in enumerate(entries):
            s = engine.decide(s, ev, now, log=prefixes[i], by="referee").state

    roads: dict[str, list[float]] = {"paired": [], "decide": []}
    for _ in range(repeat):
        for name, fn in (("paired", paired_all), ("decide", decide_all)):
            t0 = time.perf_counter()
            fn()
            roads[name].append(time.perf_counter() - t0)

    return {
        "paired": (statistics.median(roads["paired"]), min(roads["paired"])),
        "decide": (statistics.median(roads["decide"]), min(roads["decide"])),
        "apply": _best_of(repeat, apply_all),
        "copy": _best_of(repeat, copy_all),
        "replay": _best_of(repeat, lambda: engine.replay(setup, rows)),
        "fold": _best_of(repeat, lambda: engine.replay(setup, ruled_rows)),
        "legal": _best_of(repeat, legal_all),
        "render": _best_of(repeat, render_all),
        "spectators": _best_of(repeat, spectators_all),
    }


SPECTATORS = 5  # Socket.IO test clients joined as API.md's spectators while the HTTP POSTs run


def bench_http(request: dict[str, Any], entries: list[Entry]) -> dict[str, Any]:
    from qalisball import create_app

    class Clock:
        now = START_MS

        def __call__(self) -> int:
            return self.now

    clock = Clock()
    with tempfile.TemporaryDirectory(prefix="qalisball-bench-") as tmp:
        app = create_app({"DATABASE": os.path.join(tmp, "bench.db"), "ADMIN_TOKEN": "bench-admin", "CLOCK": clock})
        svc = app.extensions["qalisball"]
        store = svc.store
        mode = store.db.execute("PRAGMA synchronous").fetchone()[0]
        commits: list[float] = []
        append = store.append

        def timed_append(entry: Any, *rest: Any, **named: Any) -> Any:
            t0 = time.perf_counter()
            stored = append(entry, *rest, **named)  # the entry as stored (with its place in the hash chain)
            commits.append(time.perf_counter() - t0)
            return stored

        store.append = timed_append  # type: ignore[method-assign]
        from qalisball import socketio
        from qalisball.rules import view

        legal_calls_made = [0]
        real_legal = view.legal_calls

        def counted_legal(*a: Any, **k: Any) -> Any:
            legal_calls_made[0] += 1
            return real_legal(*a, **k)

        view.legal_calls = counted_legal  # type: ignore[assignment]
        client = app.test_client()
        r = client.post("/api/matches", json=request, headers={"Authorization": "Bearer bench-admin"})
        assert r.status_code == 201, r.get_json()
        match_id, token = r.get_json()["id"], r.get_json()["tokens"]["referee"]
        headers = {"Authorization": f"Bearer {token}"}
        url = f"/api/matches/{match_id}/events"
        spectators = [socketio.test_client(app) for _ in range(SPECTATORS)]
        for sp in spectators:
            sp.emit("join", {"match": match_id})
        legal_calls_made[0] = 0
        bodies = [(body_of(ev), now) for _, ev, now in entries]
        posts: list[float] = []
        t_all = time.perf_counter()
        for body, now in bodies:
            clock.now = now
            t0 = time.perf_counter()
            r = client.post(url, json=body, headers=headers)
            posts.append(time.perf_counter() - t0)
            assert r.status_code == 201, (body, r.get_json())
            if len(posts) % 100 == 0:
                for sp in spectators:
                    sp.get_received()
        total = time.perf_counter() - t_all
        view.legal_calls = real_legal  # type: ignore[assignment]
        store.close()
    legal_per_post = legal_calls_made[0] / len(posts)
    return {"posts": posts, "commits": commits, "total": total, "synchronous": mode, "legal_per_post": legal_per_post}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=5, help="runs of each in-memory measurement (median shown)")
    ap.add_argument("--no-http", action="store_true", help="skip the HTTP POST measurement")
    args = ap.parse_args()

    t0 = time.perf_counter()
    request, setup, entries, refused = generate_match(args.events, args.seed)
    gen_s = time.perf_counter() - t0
    final = engine.replay(setup, log_rows(entries))
    kinds = Counter(ev.type for _, ev, _ in entries)
    game_min = (entries[-1][2] - entries[0][2]) / 60_000
    print(f"Match: {len(entries)} legal events (seed {args.seed}), {refused} random proposals refused ({gen_s:.1f} s)")
    print(f"  ends in phase {final.phase}, score {final.score['home']}-{final.score['away']}, {game_min:.0f} min of server time")
    print("  " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print()

    eng = bench_engine(setup, entries, args.repeat)
    n = len(entries)
    rows = [
        ("engine.apply (copy + rules), whole match", eng["apply"][0] * 1e3, "ms", f"{n / eng['apply'][0]:,.0f} events/s"),
        ("  per event", eng["apply"][0] / n * 1e6, "µs", f"best run {n / eng['apply'][1]:,.0f} events/s; goal >= 100,000/s"),
        ("  of which the state copy", eng["copy"][0] / n * 1e6, "µs", "MatchState.copy()"),
        ("the write path's road: engine.decide", eng["decide"][0] * 1e3, "ms", f"{n / eng['decide'][0]:,.0f} events/s"),
        ("  the pairing it replaced, same run", eng["paired"][0] * 1e3, "ms", f"{n / eng['paired'][0]:,.0f} events/s, by turns"),
        ("engine.replay of the whole log", eng["replay"][0] * 1e3, "ms", f"{n / eng['replay'][0]:,.0f} events/s; goal < 50 ms"),
        ("engine.replay folding stored rulings", eng["fold"][0] * 1e3, "ms", f"{n / eng['fold'][0]:,.0f} events/s (issue 28)"),
        ("legal_calls, per state", eng["legal"][0] / n * 1e6, "µs", "goal < 1,000 µs"),
        (
            "public_state + json.dumps, per event",
            eng["render"][0] / n * 1e6,
            "µs",
            "the officials' (and the answer's): includes legal_calls",
        ),
        ("  the spectators' (legal=False), per event", eng["spectators"][0] / n * 1e6, "µs", "what spectators get (D90)"),
    ]
    http = None if args.no_http else bench_http(request, entries)
    print(f"{'measurement':<44} {'value':>10}       notes")
    print("-" * 90)
    for name, value, unit, note in rows:
        print(f"{name:<44} {value:>10.1f} {unit:<5} {note}")
    if http is not None:
        posts = [x * 1e3 for x in http["posts"]]
        commits = [x * 1e3 for x in http["commits"]]
        sync = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(http["synchronous"], http["synchronous"])
        print(
            f"{'HTTP POST (test client), p50 / p99':<44} {_pct(posts, 50):>5.2f} / {_pct(posts, 99):<5.2f} ms  "
            f"max {max(posts):.1f} ms, {n / http['total']:,.0f} events/s"
        )
        print(
            f"{'  of which SQLite commit, p50 / p99':<44} {_pct(commits, 50):>5.2f} / {_pct(commits, 99):<5.2f} ms  "
            f"WAL, synchronous={sync}, max {max(commits):.1f} ms"
        )
        print(
            f"{'legal_calls per POST':<44} {http['legal_per_post']:>10.2f}       "
            f"with {SPECTATORS} spectators joined: the referee's answer's only, none for the spectators"
        )


if __name__ == "__main__":
    main()
