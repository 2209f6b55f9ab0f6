"""The expensive public views against another match's referee (issue 33 items 2–4, D250–D253): prints numbers.

    .venv/bin/python bench/public_views_bench.py                        # this tree, then f5666f7 ("before", git archive)
    .venv/bin/python bench/public_views_bench.py --before /path/to/tree --events 1500 --seconds 8
    .venv/bin/python bench/public_views_bench.py --before ''            # this tree only

For each tree, starts ``app.py`` as ``make run`` does (gevent, a fresh database: the demo match, the demo
friendly and the demo competition Demo Cup 演示杯), makes the demo competition's first fixture's match and
plays ``--events`` calls in it (a long live match: steals back and forth, a goal and its kickoff every
fifty), files a protest on it and records the committee's decision with a what-if. Another match's referee
(a match made for the bench) then POSTs a clock pause or resume every 0.2 s for ``--seconds`` while:

1. **quiet**: nobody else;
2. **competition page**: 16 anonymous readers GET ``/competitions/<id>`` back to back;
3. **herd**: every 0.5 s an organiser's write (a protest filed) and 50 fetches of ``/competitions/<id>/part``
   at once, as 50 open pages do on the ``competition`` message;
4. **protest report**: 16 readers GET ``/competitions/<id>/protests/<pid>/report``;
5. **what-if**: 16 clients POST ``/api/matches/<long match>/what-if`` with the long match's referee token,
   each its own question (a new reason each time), back to back.

Readers run in a process of their own (threads), so that they never compete with the referee's requests for
the client's GIL. Prints, per tree and load, the referee's POST p50 / p99 / max and what the readers got
(answers per status). Never collected by pytest; numbers in bench/README.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.join_storm_bench import ADMIN, start_server  # noqa: E402  (app.py as make run starts it)
from tests.ports import free_port  # noqa: E402

H = {"Authorization": f"Bearer {ADMIN}"}
READERS = 16
HERD = 50


def call(s: requests.Session, method: str, url: str, body: Any = None, headers: Any = None, ok: int = 200) -> Any:
    r = s.request(method, url, json=body, headers=headers or H, timeout=120)
    assert r.status_code == ok, (url, r.status_code, r.text[:500])
    return r.json()


def long_match(base: str, events: int) -> dict[str, Any]:
    """The demo competition's first fixture's match, live, with ``events`` calls; and a decided protest."""
    s = requests.Session()
    comp = call(s, "GET", f"{base}/api/competitions")[0]
    comp = call(s, "GET", f"{base}/api/competitions/{comp['id']}")
    f = comp["fixtures"][0]
    six = {"starting": [1, 2, 3, 4, 5, 6]}
    made = call(s, "POST", f"{base}/api/competitions/{comp['id']}/fixtures/{f['id']}/match", {"home": six, "away": six}, ok=201)
    ref = {"Authorization": f"Bearer {made['tokens']['referee']}"}
    url = f"{base}/api/matches/{made['id']}/events"
    call(s, "POST", url, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, ref, 201)
    call(s, "POST", url, {"type": "period_start"}, ref, 201)
    call(s, "POST", url, {"type": "restart_taken", "team": "home", "player": 1}, ref, 201)
    has, n, goal_seq, goal_team = "home", 3, None, "home"
    other = {"home": "away", "away": "home"}
    while n < events:
        if n % 50 == 0:  # a goal by the team with the ball, and the other's kickoff
            seq = call(s, "POST", url, {"type": "goal", "team": has, "player": 2}, ref, 201)["seq"]
            if goal_seq is None:
                goal_seq, goal_team = seq, has
            has = other[has]
            call(s, "POST", url, {"type": "restart_taken", "team": has, "player": 1}, ref, 201)
            n += 2
            continue
        has = other[has]
        call(s, "POST", url, {"type": "steal", "team": has, "player": 1 + n % 6}, ref, 201)
        n += 1
    seq = call(s, "GET", f"{base}/api/matches/{made['id']}")["seq"]
    protest = {"fixture": f["id"], "team": f["away"], "text": "no goal"}
    pid = call(s, "POST", f"{base}/api/competitions/{comp['id']}/protests", protest, ok=201)["id"]
    change = {"type": "amend", "target": goal_seq, "event": {"type": "shot_missed", "team": goal_team}, "reason": "protest"}
    decision = {"upheld": False, "text": "the goal stands", "what_if": {"changes": [change], "seq": seq}}
    call(s, "POST", f"{base}/api/competitions/{comp['id']}/protests/{pid}/decision", decision)
    ctx = {"comp": comp["id"], "fixture": f, "match": made["id"], "ref": ref, "goal": goal_seq, "goal_team": goal_team}
    return {**ctx, "pid": pid, "seq": seq}


def readers(base: str, load: str, ctx: dict[str, Any], stop: Any, out: Any) -> None:
    """``READERS`` threads (or the herd) hitting one view until ``stop`` is set; puts the statuses seen."""
    seen: Counter[int] = Counter()
    lock = threading.Lock()

    def note(status: int) -> None:
        with lock:
            seen[status] += 1

    def reader(i: int) -> None:
        s = requests.Session()
        n = 0
        while not stop.is_set():
            n += 1
            if load == "competition page":
                r = s.get(f"{base}/competitions/{ctx['comp']}", timeout=120)
            elif load == "protest report":
                r = s.get(f"{base}/competitions/{ctx['comp']}/protests/{ctx['pid']}/report", timeout=120)
            else:
                change = {"type": "amend", "target": ctx["goal"], "event": {"type": "shot_missed", "team": ctx["goal_team"]}}
                body = {"changes": [{**change, "reason": f"reader {i} question {n}"}]}
                r = s.post(f"{base}/api/matches/{ctx['match']}/what-if", json=body, headers=ctx["ref"], timeout=120)
                if r.status_code == 429:
                    time.sleep(float(r.headers.get("Retry-After", "1")))  # as a client told to wait
            note(r.status_code)

    def herd() -> None:
        s = requests.Session()
        while not stop.is_set():
            protest = {"fixture": ctx["fixture"]["id"], "team": ctx["fixture"]["away"], "text": "again"}
            s.post(f"{base}/api/competitions/{ctx['comp']}/protests", json=protest, headers=H, timeout=120)
            threads = [
                threading.Thread(
                    target=lambda: note(requests.get(f"{base}/competitions/{ctx['comp']}/part", timeout=120).status_code)
                )
                for _ in range(HERD)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            stop.wait(0.5)

    threads = (
        [threading.Thread(target=herd)]
        if load == "herd"
        else [threading.Thread(target=reader, args=(i,)) for i in range(READERS)]
    )
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(dict(seen))


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))]


def measure(root: str, args: argparse.Namespace) -> list[tuple[str, list[float], dict[int, int]]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(root, port, Path(tmp) / "views.db")
        try:
            t = time.perf_counter()
            ctx = long_match(base, args.events)
            print(f"  {root}: a live match of {ctx['seq']} events made in {time.perf_counter() - t:.0f} s", flush=True)
            s = requests.Session()
            other = call(s, "POST", f"{base}/api/matches", _demo(), ok=201)
            auth = {"Authorization": f"Bearer {other['tokens']['referee']}"}
            events = f"{base}/api/matches/{other['id']}/events"
            for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
                call(s, "POST", events, body, auth, 201)
            n = 0

            def post() -> float:
                nonlocal n
                body = {"type": "clock", "action": "pause" if n % 2 == 0 else "resume"}
                n += 1
                t0 = time.perf_counter()
                r = s.post(events, json=body, headers=auth, timeout=120)
                assert r.status_code == 201, r.text
                return (time.perf_counter() - t0) * 1000

            rows = []
            for load in ("quiet", "competition page", "herd", "protest report", "what-if"):
                stop, out = multiprocessing.Event(), multiprocessing.Queue()
                crowd = None
                if load != "quiet":
                    crowd = multiprocessing.Process(target=readers, args=(base, load, ctx, stop, out))
                    crowd.start()
                    time.sleep(1.0)  # the crowd at full speed
                xs: list[float] = []
                end = time.monotonic() + args.seconds
                while time.monotonic() < end:
                    xs.append(post())
                    time.sleep(0.2)
                stop.set()
                seen = out.get(timeout=600) if crowd is not None else {}
                if crowd is not None:
                    crowd.join()
                rows.append((load, xs, seen))
                print(f"  {load}: done", flush=True)
                time.sleep(0.5)
            return rows
        finally:
            proc.kill()
            proc.wait()


def _demo() -> dict[str, Any]:
    from qalisball.server.demo import demo_request

    return demo_request()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="f5666f7", help="the commit to compare with, git archive'd ('' for none)")
    ap.add_argument("--events", type=int, default=1500)
    ap.add_argument("--seconds", type=float, default=8.0)
    args = ap.parse_args()
    trees = [("after", str(ROOT))]
    if args.before:  # the commit before issue 33, unpacked beside this tree (the repository stands alone: no path outside it)
        before = tempfile.mkdtemp(prefix="qb-before-")
        archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", before], input=archive, check=True)
        trees.append((f"before {args.before}", before))
    results = {}
    for name, root in trees:
        print(f"{name}: {root}", flush=True)
        results[name] = measure(root, args)
    print(f"\nthe referee's POST (another match) every 0.2 s for {args.seconds:.0f} s, ms; readers' answers by status")
    print(f"{'tree':7} {'load':18} {'n':>4} {'p50':>8} {'p99':>8} {'max':>8}  readers")
    for name, rows in results.items():
        for load, xs, seen in rows:
            got = " ".join(f"{k}×{v}" for k, v in sorted(seen.items()))
            print(f"{name:7} {load:18} {len(xs):4} {statistics.median(xs):8.1f} {pct(xs, 99):8.1f} {max(xs):8.1f}  {got}")


if __name__ == "__main__":
    main()
