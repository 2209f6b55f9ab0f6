"""Time to build each report format for a 2,000-event match (run by hand; prints numbers; not a test).

    .venv/bin/python bench/report_bench.py                 # 2,000 events, 3 runs per format
    .venv/bin/python bench/report_bench.py --events 500 --runs 5

A match of at least ``--events`` logged events is officiated through the HTTP API (Flask test client,
a temporary SQLite file, a hand-driven clock): kickoffs, restarts, steals, attacks, missed shots,
violations, fouls, goals, substitutions after goals, a card now and then and a void now and then, over
two halves (and a shootout if level). Then, for each format, the median and the slowest wall time and
the median CPU time (this process and its children: the machine is shared, CPU time is steadier) of
``--runs`` builds:

- ``data``: ``stats.build_report`` alone (the replay of the log through the engine and every count);
- ``json``, ``csv``, ``html``: the HTTP GET of ``/matches/<id>/report.json|.csv|`` (data + rendering);
- ``pdf (WeasyPrint)``: the HTTP GET of ``report.pdf`` with the PDF cache emptied first (the report is
  built, rendered to HTML, and WeasyPrint runs in a child process);
- ``pdf, final, cached``: the same GET again: a finished match's PDF comes from the cache.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qalisball import create_app  # noqa: E402
from qalisball.demo import demo_request  # noqa: E402
from qalisball.reports.stats import build_report  # noqa: E402

ADMIN = "bench-organiser-token-0123"  # at least 24 characters (D48)


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


class Officiate:
    """Posts a plausible stream of events, always legal, choosing each from the current state."""

    def __init__(self, client: Any, clock: Clock, events: int, seed: int = 7) -> None:
        self.client, self.clock, self.target = client, clock, events
        self.rng = random.Random(seed)
        r = client.post("/api/matches", json=demo_request(), headers={"Authorization": f"Bearer {ADMIN}"})
        assert r.status_code == 201, r.get_json()
        self.id = r.get_json()["id"]
        self.tokens = r.get_json()["tokens"]
        self.posted = 0
        self.state: dict[str, Any] = {}
        self.carded: set[tuple[str, int]] = set()

    def post(self, body: dict[str, Any], role: str = "referee") -> dict[str, Any]:
        r = self.client.post(
            f"/api/matches/{self.id}/events", json=body, headers={"Authorization": f"Bearer {self.tokens[role]}"}
        )
        data: dict[str, Any] = r.get_json()
        assert r.status_code == 201, (body, data)
        self.posted += 1
        self.state = data["state"]
        return self.state

    def tick(self, ms: int = 1_500) -> None:
        self.clock.now += ms

    def spot(self) -> dict[str, float]:
        # Away from the restricted areas and the lines: every call here is a plain free kick.
        return {"x": round(self.rng.uniform(12, 28), 1), "y": round(self.rng.uniform(3, 22), 1)}

    def take(self) -> None:
        s = self.state
        team = s["restart"]["team"]
        # A player who came on at this stoppage may not take its restart (11.2): the first slot of
        # on_field is never substituted here.
        player = s["teams"][team]["on_field"][0]
        self.post({"type": "restart_taken", "team": team, "player": player})

    def play_half(self, budget: int) -> None:
        self.post({"type": "period_start"})
        end = self.posted + budget
        while self.posted < end:
            self.tick()
            self.take()
            s = self.state
            holder = s["possession"]
            other = "away" if holder == "home" else "home"
            self.tick()
            self.post({"type": "steal", "team": other, "player": s["teams"][other]["on_field"][1]})
            self.tick()
            self.post({"type": "attack", "team": other})
            self.tick()
            self.post({"type": "shot_missed", "team": other, "player": self.state["teams"][other]["on_field"][2]})
            self.tick()
            roll = self.rng.random()
            if roll < 0.15:
                self.post({"type": "goal", "team": other, "player": self.state["teams"][other]["on_field"][2]}, "assistant1")
                if self.rng.random() < 0.5:  # after a goal both teams may substitute (11.2)
                    ts = self.state["teams"][holder]
                    if ts["bench"]:
                        self.post(
                            {"type": "substitution", "team": holder, "out": ts["on_field"][-1], "in": ts["bench"][0]}, "scorer"
                        )
            elif roll < 0.45:
                self.post({"type": "violation", "kind": "ball_grounded", "team": other, "player": 3, "spot": self.spot()})
            else:
                fouler = self.state["teams"][holder]["on_field"][3]
                body: dict[str, Any] = {"type": "foul", "team": holder, "player": fouler, "spot": self.spot()}
                if (holder, fouler) not in self.carded and self.rng.random() < 0.05:
                    body["card"] = "yellow"
                    self.carded.add((holder, fouler))
                self.post(body)
            if self.posted % 50 < 8 and self.state["ball"] == "dead":
                # A void of the last call (the referee overrules it), then the call again.
                last = self.posted
                self.post({"type": "void", "target": last, "reason": "bench: overruled / 改判"})
                if self.state["ball"] == "live":  # the call undone: make another one
                    team = self.state["possession"]
                    self.post({"type": "violation", "kind": "ball_grounded", "team": team, "player": 3, "spot": self.spot()})
        left = self.state["clock"]["length_ms"] - self.state["clock"]["elapsed_ms"]
        self.clock.now += max(0, left)
        self.post({"type": "period_end"})

    def play(self) -> None:
        self.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
        half = (self.target - 2) // 2
        self.play_half(half)
        self.play_half(self.target - self.posted - 1)
        if self.state["phase"] == "shootout":
            self.post({"type": "shootout_start", "first": "home", "takers": {"home": [1, 2, 3, 4], "away": [1, 2, 3, 4]}})
            turn = "home"
            while self.state["phase"] == "shootout":
                self.post({"type": "shootout_kick", "team": turn, "scored": turn == "home"})
                turn = "away" if turn == "home" else "home"


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the PDF is made in a child process)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Any, runs: int) -> tuple[float, float, float, Any]:
    """Median and worst wall time, median CPU time (this machine is shared: CPU time is steadier)."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        c0, t0 = _cpu(), time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    return statistics.median(walls), max(walls), statistics.median(cpus), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "DATABASE": str(Path(tmp) / "bench.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
        client = app.test_client()
        t0 = time.perf_counter()
        game = Officiate(client, clock, args.events)
        game.play()
        svc = app.extensions["qalisball"]
        m = svc.get(game.id)
        voided = sum(1 for e in m.log if e.voided_by is not None)
        print(
            f"match: {len(m.log)} events logged ({voided} voided, {voided} voids), phase {game.state['phase']}, "
            f"score {game.state['score']['home']}–{game.state['score']['away']}; officiated in {time.perf_counter() - t0:.1f} s"
        )

        def data() -> Any:
            return build_report(m.id, m.data, m.setup, m.log, now=clock(), created_at=m.created_at)

        def get(suffix: str) -> bytes:
            r = client.get(f"/matches/{game.id}/report{suffix}")
            assert r.status_code == 200, r.status_code
            return bytes(r.data)

        rows = [("data (build_report)", *timed(data, args.runs))]
        for name, suffix in (("json", ".json"), ("csv", ".csv"), ("html", "")):
            rows.append((name, *timed(lambda s=suffix: get(s), args.runs)))
        from qalisball.reports import _PDF_CACHE

        def pdf_uncached() -> bytes:
            _PDF_CACHE.clear()
            return get(".pdf")

        rows.append(("pdf (WeasyPrint)", *timed(pdf_uncached, args.runs)))
        rows.append(("pdf, final, cached", *timed(lambda: get(".pdf"), args.runs)))

        print(f"{'format':<22} {'wall median s':>13} {'wall max s':>10} {'cpu median s':>12} {'size':>10}")
        for name, med, worst, cpu, out in rows:
            size = len(out) if isinstance(out, bytes | str) else len(m.log)
            unit = "bytes" if isinstance(out, bytes | str) else "events"
            print(f"{name:<22} {med:13.3f} {worst:10.3f} {cpu:12.3f} {size:>10} {unit}")
        pdf = rows[-2][4]
        with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
            f.write(pdf)
            f.flush()
            info = subprocess.run(["pdfinfo", f.name], capture_output=True, text=True, check=False).stdout
        pages = next((ln.split()[-1] for ln in info.splitlines() if ln.startswith("Pages:")), "?")
        print(f"pdf pages: {pages}")


if __name__ == "__main__":
    main()
