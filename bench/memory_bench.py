"""What one spectator's connection costs in memory, by library (issue 29 item 4; prints numbers, asserts nothing).

    .venv/bin/python bench/memory_bench.py              # 300 spectators
    .venv/bin/python bench/memory_bench.py --n 1000
    .venv/bin/python bench/memory_bench.py --rss        # RSS growth only, without tracemalloc (its records inflate RSS)

The server is started as fanout_bench.py starts it (app.py with the demo data, through gc_probe.py) with
``tracemalloc`` (QB_TRACEMALLOC: 12 frames per allocation, from the first SIGUSR1 on, so that start-up
runs at full speed). A match is kicked off, tracing started and a snapshot taken (SIGUSR1), N spectators
join as API.md's (bench/wsclient.c: ``40``, then ``join``) and, once every one has its state, a second
snapshot. The growth is divided by N and put on the library that made it:
the innermost frame of the allocation's traceback that is not the standard library (``engineio``,
``socketio``, ``gevent``, ``geventwebsocket``, ``qalisball``, …; "stdlib" when every frame is). RSS growth
per spectator (what fanout_bench.py reports) is printed beside it: the difference is memory that
tracemalloc does not see (the interpreter's free lists and arenas, greenlets' saved C stacks, the
allocator's fragmentation). Tracing slows the server; the numbers are bytes, not times.
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import sysconfig
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fanout_bench as fb  # noqa: E402  (the same server, swarm and accounting)

STDLIB = sysconfig.get_paths()["stdlib"]


def owner(tb: tracemalloc.Traceback) -> str:
    """The library that made an allocation: the innermost frame outside the standard library."""
    for frame in reversed(tb):  # tracemalloc lists the most recent call last when most_recent_first is False
        f = frame.filename
        if "site-packages/" in f:
            return f.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
        if "/qalisball/" in f:
            return "qalisball"
        if not f.startswith(STDLIB) and not f.startswith("<"):
            return os.path.basename(f)
    return "stdlib"


def snapshot(pid: int, where: str, n: int) -> tracemalloc.Snapshot:
    os.kill(pid, signal.SIGUSR1)
    path = os.path.join(where, f"snapshot-{n}")
    end = time.monotonic() + 120
    while not os.path.exists(path):
        if time.monotonic() > end:
            raise RuntimeError("no snapshot from the server")
        time.sleep(0.2)
    return tracemalloc.Snapshot.load(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--checkout", default=fb.ROOT)
    ap.add_argument("--rss", action="store_true", help="RSS growth only, the server untraced")
    a = ap.parse_args()
    snaps = tempfile.mkdtemp(prefix="qb-memory-")
    if not a.rss:
        os.environ["QB_TRACEMALLOC"] = snaps
    exe = fb.build_client()
    server = fb.Project("this", a.checkout)
    swarm = None
    try:
        server.start()
        assert server.proc is not None
        for _ in range(3):
            server.post()
        before = None if a.rss else snapshot(server.proc.pid, snaps, 0)
        rss0 = fb.rss_bytes(server.pids())
        swarm = fb.Swarm(exe, server.ws_port, server.path, a.n, True, server.join)
        connected, failed = swarm.wait_ready(120 + a.n * 0.2)
        if connected < a.n:
            raise RuntimeError(f"{connected} of {a.n} joined ({failed} failed)")
        time.sleep(1.0)
        after = None if a.rss else snapshot(server.proc.pid, snaps, 1)
        rss1 = fb.rss_bytes(server.pids())
    finally:
        if swarm is not None:
            swarm.close()
        server.stop()
    if before is None or after is None:
        per = (rss1 - rss0) / 1024 / a.n
        print(f"memory_bench: {a.n} spectators joined, the server untraced; RSS growth {per:.1f} KB per spectator")
        return
    by: collections.Counter[str] = collections.Counter()
    lines: collections.Counter[str] = collections.Counter()
    for d in after.compare_to(before, "traceback"):
        by[owner(d.traceback)] += d.size_diff
        inner = d.traceback[-1]
        where = inner.filename.split("site-packages/")[-1].replace(STDLIB + "/", "")
        lines[f"{owner(d.traceback)} <- {where}:{inner.lineno}"] += d.size_diff
    traced = sum(by.values())
    print(f"memory_bench: {a.n} spectators joined; KB per spectator")
    print(f"  RSS growth {(rss1 - rss0) / 1024 / a.n:8.1f}   (fanout_bench.py's figure; here with tracemalloc's own records)")
    print(f"  traced     {traced / 1024 / a.n:8.1f}   (Python allocations, by the library that made them:)")
    for lib, size in by.most_common():
        if abs(size) / a.n >= 64:
            print(f"    {lib:<24} {size / 1024 / a.n:8.2f}")
    print("  the largest allocation sites (innermost frame), KB per spectator:")
    for site, size in lines.most_common(14):
        print(f"    {size / 1024 / a.n:8.2f}  {site}")


if __name__ == "__main__":
    main()
