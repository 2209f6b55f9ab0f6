"""How fast the reports are, against issue 15's targets and a baseline, in one run (prints numbers; not a test).

    .venv/bin/python bench/report_bench.py                  # 2,000- and 300-event matches, 3 runs each, baseline 03cbb9b
    .venv/bin/python bench/report_bench.py --baseline none  # this tree only
    .venv/bin/python bench/report_bench.py --runs 5 --rounds 2 --profile-pdf

Two matches are officiated through the HTTP API (Flask test client, a temporary SQLite file, a
hand-driven clock), seeded so that both trees get the same events: kickoffs, restarts, steals,
attacks, missed shots, violations, fouls, goals, substitutions after goals, a card now and then and
a void now and then, over two halves (and a shootout if level); then the referee signs the sheet
(where the tree knows ``sign``). For each figure the median and the slowest wall time of ``--runs``
requests, and the CPU time they took (this process and the PDF worker processes: the machine is
shared, CPU time is steadier):

- ``json`` / ``html`` of the 2,000-event match, *cold* (the kept report dropped first: the first
  request after a new event, which replays the log) and *kept* (the report kept for this seq);
- ``pdf`` of the 300- and the 2,000-event match, the PDF not kept (report built, HTML, WeasyPrint in
  the worker process, already started); ``pdf, first`` the same with the worker started for it;
  ``pdf, kept`` a PDF made before for this seq.

The *baseline* is another commit of this repository (default 03cbb9b, before issue 15's report work),
exported with ``git archive`` into a temporary directory and measured by this same file in a child
process, right after this tree, so both face the same load. ``--rounds 2`` measures both twice, the
second time baseline first. The load average is printed at the start and the end. ``--profile-pdf``
adds where WeasyPrint spends its time on the 2,000-event page (parse, style, layout, drawing, font
subsetting).
"""

from __future__ import annotations

import argparse
import json
import os
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
ADMIN = "bench-organiser-token-0123"  # at least 24 characters (D48)
DEFAULT_BASELINE = "03cbb9b"

# (figure, target in seconds or None, what issue 15 measured before)
FIGURES: list[tuple[str, float | None, str]] = [
    ("json 2000, cold", 0.300, "0.4 s"),
    ("json 2000, kept", 0.300, "0.4 s"),
    ("html 2000, cold", 0.300, "0.8 s"),
    ("html 2000, kept", 0.300, "0.8 s"),
    ("csv 2000, kept", None, ""),
    ("pdf 300", 1.5, "5.5 s"),
    ("pdf 300, first", 1.5, "5.5 s"),
    ("pdf 2000", 8.0, "29 s"),
    ("pdf 2000, kept", None, ""),
]


def _team(name: str, color: str, first: str) -> dict[str, Any]:
    players = [{"number": i, "name": f"{first}{i} Player {i}"} for i in range(1, 11)]
    return {"name": name, "color": color, "players": players, "starting": list(range(1, 7))}


# The match both trees officiate, spelled here rather than imported: the demo's module moved
# (qalisball.demo, then qalisball.server.demo), and the baseline must run whatever its layout.
MATCH: dict[str, Any] = {
    "home": _team("人大 Renmin", "#b71c1c", "张"),
    "away": _team("Tsinghua 清华", "#4a148c", "李"),
    "starters": 6,
    "field": {"length": 40, "width": 25, "side_lines": True},
    "venue": "Bench field",
}


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
        r = client.post("/api/matches", json=MATCH, headers={"Authorization": f"Bearer {ADMIN}"})
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
        # The sheet signed (SPEC M6), where this tree knows the event: the report is final.
        r = self.client.post(
            f"/api/matches/{self.id}/events",
            json={"type": "sign", "as": "referee", "name": "Bench Referee 裁判"},
            headers={"Authorization": f"Bearer {self.tokens['referee']}"},
        )
        self.posted += r.status_code == 201


# ----------------------------------------------------------------------------------------------
# Measuring one tree (run in a child process: ``--measure``)


def _proc_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _live_children() -> list[int]:
    pids: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return pids


def _cpu() -> dict[int, float]:
    """CPU seconds: this process and its finished children (key 0), and each live child (the PDF worker)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {0: me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime}
    for pid in _live_children():
        out[pid] = _proc_cpu(pid)
    return out


def _cpu_spent(before: dict[int, float], after: dict[int, float]) -> float:
    spent = after[0] - before[0]
    for pid, t in after.items():
        if pid:
            spent += t - before.get(pid, 0.0)
    # A worker that ended in between is in RUSAGE_CHILDREN now, counted whole: take back what it had.
    spent -= sum(t for pid, t in before.items() if pid and pid not in after)
    return spent


def timed(fn: Any, runs: int, before_each: Any = None) -> dict[str, Any]:
    walls, cpus, out = [], [], b""
    for _ in range(runs):
        if before_each is not None:
            before_each()
        c0, t0 = _cpu(), time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu_spent(c0, _cpu()))
    return {"wall": statistics.median(walls), "max": max(walls), "cpu": statistics.median(cpus), "size": len(out), "runs": runs}


def measure(events: int, small: int, runs: int) -> dict[str, Any]:
    from qalisball import create_app

    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "DATABASE": str(Path(tmp) / "bench.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
        client = app.test_client()
        t0 = time.perf_counter()
        big = Officiate(client, clock, events, seed=7)
        big.play()
        little = Officiate(client, clock, small, seed=8)
        little.play()
        officiated = time.perf_counter() - t0

        def clear() -> None:
            kept = app.extensions.get("qalisball_reports")
            if kept is not None:
                kept.clear()
            try:  # the baseline's PDF cache
                from qalisball.reports import _PDF_CACHE  # type: ignore[attr-defined]

                _PDF_CACHE.clear()
            except ImportError:
                pass

        def stop_workers() -> None:
            try:
                from qalisball.reports.render import close_workers  # type: ignore[attr-defined]
            except ImportError:
                return  # the baseline starts a process per PDF
            close_workers()

        def get(match: Officiate, suffix: str) -> bytes:
            r = client.get(f"/matches/{match.id}/report{suffix}")
            assert r.status_code == 200, (suffix, r.status_code)
            return bytes(r.data)

        res: dict[str, Any] = {}
        for fmt, suffix in (("json", ".json"), ("html", "")):
            res[f"{fmt} 2000, cold"] = timed(lambda s=suffix: get(big, s), runs, clear)
            get(big, suffix)
            res[f"{fmt} 2000, kept"] = timed(lambda s=suffix: get(big, s), runs)
        res["csv 2000, kept"] = timed(lambda: get(big, ".csv"), runs)
        get(little, ".pdf")  # a worker started (this tree), fonts loaded
        res["pdf 300"] = timed(lambda: get(little, ".pdf"), runs, clear)
        res["pdf 300, first"] = timed(lambda: get(little, ".pdf"), 1, lambda: (clear(), stop_workers()))
        res["pdf 2000"] = timed(lambda: get(big, ".pdf"), runs, clear)
        res["pdf 2000, kept"] = timed(lambda: get(big, ".pdf"), runs)
        pdf = get(big, ".pdf")
        with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
            f.write(pdf)
            f.flush()
            info = subprocess.run(["pdfinfo", f.name], capture_output=True, text=True, check=False).stdout
        pages = next((ln.split()[-1] for ln in info.splitlines() if ln.startswith("Pages:")), "?")
        svc = app.extensions["qalisball"]
        logged = {m: len(svc.get(o.id).log) for m, o in (("big", big), ("small", little))}
        stop_workers()
    return {"figures": res, "officiated_s": officiated, "events": logged, "pdf_pages": pages}


# ----------------------------------------------------------------------------------------------
# Where WeasyPrint spends its time (--profile-pdf)


def profile_pdf(events: int) -> None:
    """Phases of one WeasyPrint run on this tree's PDF page of a match, in a fresh process."""
    from qalisball import create_app

    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "DATABASE": str(Path(tmp) / "p.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
        client = app.test_client()
        match = Officiate(client, clock, events, seed=7)
        match.play()
        from qalisball.reports import render
        from qalisball.reports.pages import report_for

        with app.test_request_context("/"):
            page = render.html(report_for(match.id), None, for_pdf=True)
    code = r"""
import sys, time
t0 = time.process_time()
from weasyprint import HTML
from weasyprint.urls import URLFetcher
import weasyprint.pdf.fonts as fonts
t1 = time.process_time()
HTML(string="<p style='font-family: Noto Sans CJK SC'>x 中</p>").write_pdf()
t2 = time.process_time()
spent = [0.0]
clean = fonts.Font.clean
def timed_clean(self, *a, **k):
    t = time.process_time(); r = clean(self, *a, **k); spent[0] += time.process_time() - t; return r
fonts.Font.clean = timed_clean
page = sys.stdin.read()
t3 = time.process_time()
doc = HTML(string=page, url_fetcher=URLFetcher(allowed_protocols=("data",)), media_type="print")
t4 = time.process_time()
rendered = doc.render()
t5 = time.process_time()
rendered.write_pdf()
t6 = time.process_time()
print(f"  import WeasyPrint {t1 - t0:.2f} s, first tiny PDF (fonts loaded) {t2 - t1:.2f} s")
print(f"  parse the page {t4 - t3:.2f} s; style + layout {t5 - t4:.2f} s ({len(rendered.pages)} pages); "
      f"draw + write {t6 - t5:.2f} s, of which font subsetting {spent[0]:.3f} s")
"""
    print(f"WeasyPrint on this tree's PDF page of a {events}-event match ({len(page) // 1024} KB of HTML), CPU seconds:")
    subprocess.run([sys.executable, "-c", code], input=page.encode("utf-8"), check=True)


# ----------------------------------------------------------------------------------------------
# The run: this tree and the baseline, side by side


def _run_tree(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", str(tree), "--events", str(args.events)]
    cmd += ["--small", str(args.small), "--runs", str(args.runs)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tree)
    if done.returncode != 0:
        sys.exit(f"measuring {tree} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _export(rev: str, into: Path) -> Path:
    tree = into / f"baseline-{rev}"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def _fmt(fig: dict[str, Any] | None) -> str:
    if fig is None:
        return "—"
    return f"{fig['wall']:.3f} ({fig['max']:.3f}) cpu {fig['cpu']:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--small", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="a commit, or 'none'")
    ap.add_argument("--profile-pdf", action="store_true")
    ap.add_argument("--measure", metavar="TREE", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.measure:  # child: measure the tree we were started in
        sys.path.insert(0, args.measure)
        print(json.dumps(measure(args.events, args.small, args.runs)))
        return

    print(f"start: {time.strftime('%Y-%m-%d %H:%M:%S')}, {_load()}")
    results: dict[str, list[dict[str, Any]]] = {"this tree": [], "baseline": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = None if args.baseline == "none" else _export(args.baseline, Path(tmp))
        for rnd in range(args.rounds):
            order: list[tuple[str, Path]] = [("this tree", ROOT)] + ([("baseline", base)] if base else [])
            if rnd % 2:
                order.reverse()
            for name, tree in order:
                t0 = time.perf_counter()
                results[name].append(_run_tree(tree, args))
                print(f"  measured {name} in {time.perf_counter() - t0:.0f} s, {_load()}", flush=True)
    first = results["this tree"][0]
    print(
        f"matches: {first['events']['big']} and {first['events']['small']} events logged; "
        f"PDF of the big one: {first['pdf_pages']} pages"
    )
    print("wall s: median (slowest) of the runs, and CPU s (this process + PDF worker); targets from issue 15\n")
    head = f"{'figure':<16} {'this tree':<30} {'baseline ' + (args.baseline or ''):<30} {'target':>8}  {'issue 15 said':<14} met"
    print(head)
    for name, target, said in FIGURES:
        for rnd in range(args.rounds):
            now = results["this tree"][rnd]["figures"].get(name)
            was = results["baseline"][rnd]["figures"].get(name) if results["baseline"] else None
            met = "" if target is None or now is None else ("yes" if now["wall"] < target else "NO")
            tgt = f"< {target:g} s" if target is not None else ""
            label = name if rnd == 0 else f"  round {rnd + 1}"
            print(f"{label:<16} {_fmt(now):<30} {_fmt(was):<30} {tgt:>8}  {said:<14} {met}")
    sizes = {name: first["figures"][name]["size"] for name in ("json 2000, kept", "html 2000, kept", "pdf 300", "pdf 2000")}
    print("sizes (bytes): " + ", ".join(f"{k.split(',')[0]} {v}" for k, v in sizes.items()))
    print(f"end: {time.strftime('%H:%M:%S')}, {_load()}")
    if args.profile_pdf:
        sys.path.insert(0, str(ROOT))
        profile_pdf(args.events)


if __name__ == "__main__":
    main()
