"""What one referee's POST leaves behind for the collector (issue 29 item 2; prints numbers, asserts nothing).

    .venv/bin/python bench/alloc_bench.py              # 200 POSTs, 20 spectators joined
    .venv/bin/python bench/alloc_bench.py --posts 500 --types

The app as app.py builds it (the factory with its start-up freeze, D260, the demo data), one match
kicked off and --spectators Socket.IO test clients joined as API.md's (``event`` + ``state``), then
--posts POSTs through the Flask test client (a goal, then the conceding team's kickoff, alternately).
The automatic collector is off while measuring; per POST:

- **tracemalloc**: the bytes allocated at the peak of the POST above where it started (transient), and
  the bytes and blocks still held after it (retained: the log entry, the new state, …);
- **tracked objects allocated**: gc.get_count()[0] across the POST (container objects made minus those
  freed by their reference count: what the young generation has to look at);
- **cyclic garbage**: what ``gc.collect()`` after the POST finds unreachable: the only garbage the
  collector itself must reclaim (everything else goes by reference counting). ``--types`` prints the
  commonest types in it.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import statistics
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ADMIN = "bench-alloc-organiser-token-0123"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--posts", type=int, default=200)
    ap.add_argument("--spectators", type=int, default=20)
    ap.add_argument("--types", action="store_true", help="the commonest types in the cyclic garbage")
    a = ap.parse_args()

    from qalisball import create_app, socketio
    from qalisball.server.demo import ensure_demo, ensure_demo_competition

    tmp = tempfile.mkdtemp(prefix="qb-alloc-")
    app = create_app({"DATABASE": os.path.join(tmp, "a.db"), "ADMIN_TOKEN": ADMIN})
    if ensure_demo(app.extensions["qalisball"]) is not None:
        ensure_demo_competition(app.extensions["qalisball_competitions"])
    client = app.test_client()
    roster = [{"number": i, "name": f"P {i}"} for i in range(1, 11)]
    team = {"players": roster, "starting": list(range(1, 7))}
    body = {"home": {"name": "A", **team}, "away": {"name": "B", **team}, "starters": 6, "field": {"length": 40, "width": 25}}
    made = client.post("/api/matches", json=body, headers={"Authorization": f"Bearer {ADMIN}"}).get_json()
    url, ref = f"/api/matches/{made['id']}/events", {"Authorization": f"Bearer {made['tokens']['referee']}"}
    for ev in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
        assert client.post(url, json=ev, headers=ref).status_code == 201
    assert client.post(url, json={"type": "restart_taken", "team": "home", "player": 1}, headers=ref).status_code == 201
    spectators = [socketio.test_client(app) for _ in range(a.spectators)]
    for s in spectators:
        s.emit("join", {"match": made["id"]})
        s.get_received()

    kick = ["home"]

    def post(k: int) -> None:
        if k % 2 == 0:
            ev: dict[str, Any] = {"type": "goal", "team": kick[0], "player": 3}
        else:
            kick[0] = "away" if kick[0] == "home" else "home"
            ev = {"type": "restart_taken", "team": kick[0], "player": 2}
        r = client.post(url, json=ev, headers=ref)
        assert r.status_code == 201, r.get_json()
        for s in spectators:
            s.get_received()  # what a spectator got, taken off its queue (a real socket would have sent it)

    for k in range(20):  # warm-up: caches, first-use imports
        post(k)
    gc.collect()
    gc.disable()
    if a.types:
        gc.set_debug(gc.DEBUG_SAVEALL)
    tracemalloc.start()
    peaks, retained, blocks, tracked, garbage = [], [], [], [], []
    kinds: collections.Counter[str] = collections.Counter()
    for k in range(20, 20 + a.posts):
        gc.collect()
        gc.garbage.clear()
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        blocks0 = sys.getallocatedblocks()
        count0 = gc.get_count()[0]
        post(k)
        count1 = gc.get_count()[0]
        after, peak = tracemalloc.get_traced_memory()
        blocks1 = sys.getallocatedblocks()
        found = gc.collect()
        if a.types:
            kinds.update(type(o).__name__ for o in gc.garbage)
        peaks.append((peak - before) / 1024)
        retained.append((after - before) / 1024)
        blocks.append(blocks1 - blocks0)
        tracked.append(count1 - count0)
        garbage.append(found)
    tracemalloc.stop()
    gc.set_debug(0)
    gc.garbage.clear()
    gc.enable()

    def row(label: str, xs: list[float], unit: str) -> None:
        print(f"{label:<52} p50 {statistics.median(xs):>9.1f}  max {max(xs):>9.1f}  {unit}")

    print(f"alloc_bench: {a.posts} POSTs, {a.spectators} spectators joined, frozen {gc.get_freeze_count()} objects")
    row("tracemalloc: transient peak per POST", peaks, "KB")
    row("tracemalloc: retained after the POST", retained, "KB")
    row("memory blocks retained (sys.getallocatedblocks)", blocks, "blocks")
    row("tracked objects allocated, net (gc.get_count)", tracked, "objects")
    row("cyclic garbage per POST (gc.collect after it)", garbage, "objects")
    if a.types:
        per = {k: v / a.posts for k, v in kinds.most_common(15)}
        print("cyclic garbage per POST by type: " + ", ".join(f"{k} {v:.1f}" for k, v in per.items()))


if __name__ == "__main__":
    main()
