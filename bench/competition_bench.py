"""How long a competition's derived views take (run by hand; prints numbers; not a test).

    .venv/bin/python bench/competition_bench.py                 # 16 teams, double round robin, 4 fields
    .venv/bin/python bench/competition_bench.py --teams 8 --format round_robin --runs 5

A competition is created through the HTTP API (Flask test client, a temporary SQLite file) and every
fixture is played through the events API (short matches: a few goals, a yellow card now and then, a
shootout when level). Then, for each view, the median and slowest wall time of ``--runs`` requests:

- ``view`` (``GET /api/competitions/<id>``): fixtures, results, standings, all derived from the logs now;
- ``standings``, ``suspensions`` and ``stats`` (the stats read each match's report data, cached by seq for
  finished matches: the first request builds them, ``stats (cold)`` is that first one);
- the public page, the big screen and the organiser's page (HTML), and one match event's live hook
  (``on_match_event`` on a finished match: the whole view is recomputed and published).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qalisball import create_app  # noqa: E402
from tests.competition_play import play, roster  # noqa: E402

ADMIN = "bench-organiser-token"
H = {"Authorization": f"Bearer {ADMIN}"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--teams", type=int, default=16)
    ap.add_argument("--fields", type=int, default=4)
    ap.add_argument("--format", default="double_round_robin")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "DATABASE": f"{tmp}/bench.db", "ADMIN_TOKEN": ADMIN})
        c = app.test_client()
        ids = [
            c.post("/api/teams", json={"name": f"Team {i}", "players": roster(f"T{i}", 10)}, headers=H).get_json()["id"]
            for i in range(args.teams)
        ]
        fields = [{"name": f"Field {i + 1}"} for i in range(args.fields)]
        body = {"name": "Bench", "format": args.format, "teams": ids, "fields": fields, "starts_at": "2020-01-01T09:00:00+08:00"}
        comp = c.post("/api/competitions", json=body, headers=H).get_json()["id"]
        fixtures = c.get(f"/api/competitions/{comp}").get_json()["fixtures"]
        t0 = time.perf_counter()
        events = 0
        for n, f in enumerate(fixtures):
            if f["home"] is None:
                fixtures = c.get(f"/api/competitions/{comp}").get_json()["fixtures"]
                f = fixtures[n]
            lineup = {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}}
            made = c.post(f"/api/competitions/{comp}/fixtures/{f['id']}/match", json=lineup, headers=H).get_json()
            mid = made["id"]

            def post(token: str, event: dict[str, Any], mid: str = mid) -> dict[str, Any]:
                nonlocal events
                events += 1
                r = c.post(f"/api/matches/{mid}/events", json=event, headers={"Authorization": f"Bearer {token}"})
                assert r.status_code == 201, r.get_json()
                data: dict[str, Any] = r.get_json()
                return data

            goals = ["home"] * (n % 3) + ["away"] * ((n * 7) % 3)
            cards = [("home", 9, "yellow")] if n % 4 == 0 else []
            play(
                post,
                lambda mid=mid: c.get(f"/api/matches/{mid}").get_json(),
                made["tokens"],
                goals=goals,
                shootout_winner="away",
                cards=cards,
            )
        played = time.perf_counter() - t0
        shape = f"{args.teams} teams, {args.format}, {args.fields} fields"
        print(f"{shape}: {len(fixtures)} fixtures, {events} events posted in {played:.1f} s")
        svc = app.extensions["qalisball_competitions"]
        cobj = svc.get(comp)
        timings: list[tuple[str, list[float]]] = []

        def measure(name: str, fn: Any, runs: int = args.runs) -> None:
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t) * 1000)
            timings.append((name, times))

        svc._reports.clear()
        measure("stats (cold)", lambda: c.get(f"/api/competitions/{comp}/stats"), runs=1)
        measure("view", lambda: c.get(f"/api/competitions/{comp}"))
        measure("standings", lambda: c.get(f"/api/competitions/{comp}/standings"))
        measure("suspensions", lambda: c.get(f"/api/competitions/{comp}/suspensions"))
        measure("stats", lambda: c.get(f"/api/competitions/{comp}/stats"))
        measure("public page", lambda: c.get(f"/competitions/{comp}"))
        measure("big screen", lambda: c.get(f"/competitions/{comp}/screen"))
        measure("organiser's page", lambda: c.get(f"/competitions/{comp}/admin"))
        measure("a fixture's forms (opened)", lambda: c.get(f"/competitions/{comp}/admin/fixtures/{fixtures[-1]['id']}"))
        last = cobj.fixtures[-1].match_id
        assert last is not None
        measure("live hook (finished match)", lambda: svc.on_match_event(last, {}, {}))
        size = len(c.get(f"/competitions/{comp}/admin").data)
        print(f"{'':28} {'median ms':>10} {'max ms':>10}")
        for name, times in timings:
            print(f"{name:28} {statistics.median(times):10.1f} {max(times):10.1f}")
        print(f"organiser's page: {size / 1024:.0f} KiB")
        app.extensions["qalisball"].store.close()


if __name__ == "__main__":
    main()
