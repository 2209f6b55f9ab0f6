"""The officials' write under the crowd's loads (issue 33): run by hand, prints numbers.

    .venv/bin/python bench/officials_under_load.py                          # this tree, then the commit before D240
    .venv/bin/python bench/officials_under_load.py --before '' --seconds 8  # this tree only
    .venv/bin/python bench/officials_under_load.py --before main --roots /path/to/another/tree
    .venv/bin/python bench/officials_under_load.py --loads readers,screens

For each tree it starts ``app.py`` as ``make run`` starts it (gevent, a fresh database, so the demo match and
the demo competition are made) on a free loopback port, with the per-address connection cap off (every
load comes from 127.0.0.1, which is not what is measured). The referee of the demo match (its token
issued by the organiser) starts the half and then POSTs a clock pause or resume every 0.2 s over one
kept-alive connection, while each load runs for ``--seconds`` in processes of their own (their reading never
competes with the referee's requests for the GIL):

- ``quiet``: nothing else;
- ``readers``: 16 anonymous readers of a cheap JSON GET (``GET /api/matches/<id>``) back to back;
- ``screens``: the join_screen storm: 4 raw websockets, each sending 50,000 ``join_screen`` frames of
  distinct names at once, then reading whatever comes back;
- ``handshakes``: 4 clients opening Engine.IO polling handshakes back to back (never using them);
- ``languages``: 16 readers of the home page with a 64 KB ``Accept-Language``;
- ``docs``: 16 readers of ``/docs/<300 bytes>`` (a 500 with a 16 KB traceback each before issue 33).

Prints the referee's POST p50 / p99 / max (ms) per load and tree (goal: under 500 ms), and what the
loads got (requests answered, status codes). Never collected by pytest; numbers in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
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
import websocket

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ports import free_port  # noqa: E402

ADMIN = "bench-organiser-token-0123456789"
H = {"Authorization": f"Bearer {ADMIN}"}
BEFORE = "a64973a~1"  # the commit before D240 (issue 33's root cause)
LOADS = ("quiet", "readers", "screens", "handshakes", "languages", "docs")


def start_server(root: str, port: int, db: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PORT": str(port),
        "QALISBALL_DB": str(db),
        "QALISBALL_ADMIN_TOKEN": ADMIN,
        "QALISBALL_MAX_CONNECTIONS_PER_ADDRESS": "0",
    }
    env.pop("QALISBALL_ASYNC_MODE", None)  # app.py's default, as `make run`
    log = open(db.with_suffix(".log"), "wb")  # noqa: SIM115 (kept open for the server's life)
    py = str(Path(root) / ".venv" / "bin" / "python")
    proc = subprocess.Popen([py if os.path.exists(py) else sys.executable, "app.py"], cwd=root, env=env, stdout=log,
                            stderr=subprocess.STDOUT)  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if requests.get(f"http://127.0.0.1:{port}/api/matches", timeout=2).ok:
                return proc
        except requests.RequestException:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start:\n" + db.with_suffix(".log").read_text(errors="replace")[-2000:])


# ---- the loads, each in a process of its own ---------------------------------------------------------


def _readers(url: str, headers: dict[str, str], threads: int, stop: Any, out: Any) -> None:
    codes: Counter[int] = Counter()
    lock = threading.Lock()

    def run() -> None:
        s = requests.Session()
        while not stop.is_set():
            try:
                code = s.get(url, headers=headers, timeout=30).status_code
            except requests.RequestException:
                code = 0
            with lock:
                codes[code] += 1

    ts = [threading.Thread(target=run) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put(dict(codes))


def _screens(port: int, frames: int, k: int, stop: Any, out: Any) -> None:
    ws = websocket.create_connection(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", timeout=60)
    ws.recv()
    ws.send("40")
    answers: Counter[str] = Counter()
    try:
        for i in range(frames):
            ws.send("42" + json.dumps(["join_screen", {"screen": f"s{k}-{i}"}]))
            if stop.is_set():
                break
    except (websocket.WebSocketException, OSError):  # the server shut the storm's connection (D241)
        answers["shut while sending"] += 1
        out.put(dict(answers))
        return
    ws.settimeout(0.5)
    while not stop.is_set():
        try:
            msg = ws.recv()
        except websocket.WebSocketTimeoutException:
            continue
        except (websocket.WebSocketException, OSError):
            answers["closed"] += 1
            break
        if msg == "2":
            ws.send("3")
        elif isinstance(msg, str) and msg.startswith("42"):
            answers[msg[4 : msg.index('"', 4)]] += 1
    ws.close()
    out.put(dict(answers))


def _handshakes(port: int, threads: int, stop: Any, out: Any) -> None:
    codes: Counter[int] = Counter()
    lock = threading.Lock()

    def run() -> None:
        s = requests.Session()
        while not stop.is_set():
            try:
                code = s.get(f"http://127.0.0.1:{port}/socket.io/?EIO=4&transport=polling", timeout=30).status_code
            except requests.RequestException:
                code = 0
            with lock:
                codes[code] += 1

    ts = [threading.Thread(target=run) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put(dict(codes))


def start_load(name: str, port: int, match: str, stop: Any, out: Any) -> list[multiprocessing.Process]:
    base = f"http://127.0.0.1:{port}"
    if name == "readers":
        jobs = [(_readers, (f"{base}/api/matches/{match}", {}, 8, stop, out)) for _ in range(2)]
    elif name == "languages":
        lang = {"Accept-Language": ("en-GB;q=0.9," * 6000)[: 64 * 1024]}
        jobs = [(_readers, (f"{base}/", lang, 8, stop, out)) for _ in range(2)]
    elif name == "docs":
        jobs = [(_readers, (f"{base}/docs/{'a' * 300}", {}, 8, stop, out)) for _ in range(2)]
    elif name == "screens":
        jobs = [(_screens, (port, 50_000, k, stop, out)) for k in range(4)]
    elif name == "handshakes":
        jobs = [(_handshakes, (port, 2, stop, out)) for _ in range(2)]
    else:
        jobs = []
    procs = [multiprocessing.Process(target=fn, args=args) for fn, args in jobs]
    for p in procs:
        p.start()
    return procs


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_tree(root: str, loads: list[str], seconds: float) -> list[tuple[str, list[float], str]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    rows: list[tuple[str, list[float], str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(root, port, Path(tmp) / "load.db")
        try:
            matches = requests.get(f"{base}/api/matches", timeout=30).json()
            listed = matches["matches"] if isinstance(matches, dict) else matches
            match = next(m["id"] for m in listed if m.get("status") in (None, "scheduled", "not_started", "pending"))
            token = requests.post(f"{base}/api/matches/{match}/tokens/referee", headers=H, timeout=30).json()["token"]
            session = requests.Session()
            auth = {"Authorization": f"Bearer {token}"}
            events = f"{base}/api/matches/{match}/events"
            for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
                r = session.post(events, json=body, headers=auth, timeout=60)
                assert r.status_code == 201, r.text
            n = 0

            def post() -> float:
                nonlocal n
                body = {"type": "clock", "action": "pause" if n % 2 == 0 else "resume"}
                n += 1
                t = time.perf_counter()
                r = session.post(events, json=body, headers=auth, timeout=120)
                assert r.status_code == 201, r.text
                return (time.perf_counter() - t) * 1000

            for name in loads:
                stop, out = multiprocessing.Event(), multiprocessing.Queue()
                before = rss_mb(proc.pid)
                procs = start_load(name, port, match, stop, out)
                time.sleep(0.5)  # the load under way
                xs: list[float] = []
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    xs.append(post())
                    time.sleep(max(0.0, 0.2 - xs[-1] / 1000))
                stop.set()
                got: Counter[Any] = Counter()
                for _ in procs:
                    try:
                        got.update(out.get(timeout=120))
                    except Exception:  # noqa: BLE001 - a load that never reported
                        got["no report"] += 1
                for p in procs:
                    p.join(30)
                    if p.is_alive():
                        p.kill()
                mem = f"RSS {before:.0f}->{rss_mb(proc.pid):.0f} MB"
                rows.append((name, xs, f"{dict(got)} {mem}"))
                time.sleep(1.0)
        finally:
            proc.kill()
            proc.wait()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--roots", default=str(ROOT), help="the trees to run, comma-separated")
    ap.add_argument("--before", default=BEFORE, help="and this commit (git archive into a temporary folder; '': none)")
    ap.add_argument("--loads", default=",".join(LOADS))
    ap.add_argument("--seconds", type=float, default=6.0)
    args = ap.parse_args()
    loads = [x for x in args.loads.split(",") if x]
    roots = [r for r in args.roots.split(",") if r]
    with tempfile.TemporaryDirectory() as before:
        if args.before:
            archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", before], input=archive, check=True)
            roots.append(before)
        results = {root: run_tree(root, loads, args.seconds) for root in roots}
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores, shared: compare trees within this run)")
    print(f"{'tree':24} {'load':11} {'n':>4} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  what the load got")
    for root, rows in results.items():
        for name, xs, got in rows:
            tree = f"before ({args.before})" if args.before and root == roots[-1] else Path(root).resolve().name
            print(f"{tree:24} {name:11} {len(xs):4} {statistics.median(xs):8.1f} {pct(xs, 99):8.1f} {max(xs):8.1f}  {got}")


if __name__ == "__main__":
    main()
