"""1,000 feed readers and the referee (issue 30): run by hand, prints numbers (bench/README.md).

    .venv/bin/python bench/feed_bench.py [--readers 1000] [--posts 40]

Starts ``app.py`` as ``make run`` does (gevent, a fresh database with the demo match) on a free loopback port,
the per-address caps off (every reader comes from 127.0.0.1). The referee POSTs a clock pause or resume
every 0.2 s over one kept-alive connection: first with no reader, then with ``--readers`` open
``GET /api/feed`` streams held by a process of their own (one selector over raw sockets). Prints the
referee's POST p50 / p99 (ms) without and with the readers, and the call → reader latency p50 / p99 (ms):
from the POST being sent to each reader receiving that event's message.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import selectors
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.officials_under_load import H, start_server  # noqa: E402
from tests.ports import free_port  # noqa: E402

SEQ = re.compile(rb'"seq":(\d+),"event"')


def _readers(port: int, n: int, ready: Any, stop: Any, out: Any) -> None:
    sel = selectors.DefaultSelector()
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /api/feed HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    ready.set()
    arrivals: dict[int, list[float]] = {}
    while not stop.is_set():
        for key, _ in sel.select(0.2):
            data = key.fileobj.recv(65536)  # type: ignore[union-attr]
            now = time.time()
            for m in SEQ.finditer(data):
                arrivals.setdefault(int(m.group(1)), []).append(now)
    out.put(arrivals)


def _referee(base: str, match: str, token: str, posts: int) -> tuple[list[float], dict[int, float]]:
    s = requests.Session()
    h = {"Authorization": f"Bearer {token}"}
    times, sent = [], {}
    for i in range(posts):
        action = "pause" if i % 2 == 0 else "resume"
        t0 = time.time()
        r = s.post(f"{base}/api/matches/{match}/events", json={"type": "clock", "action": action}, headers=h, timeout=30)
        times.append((time.time() - t0) * 1000)
        if r.status_code == 201:
            sent[r.json()["seq"]] = t0
        time.sleep(0.2)
    return times, sent


def _pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--readers", type=int, default=1000)
    ap.add_argument("--posts", type=int, default=40)
    a = ap.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        import os

        os.environ["QALISBALL_FEEDS_PER_ADDRESS"] = "0"
        proc = start_server(str(ROOT), port, Path(tmp) / "bench.db")
        base = f"http://127.0.0.1:{port}"
        try:
            match = requests.get(f"{base}/api/matches", timeout=10).json()[0]["id"]
            token = requests.post(f"{base}/api/matches/{match}/tokens/referee", headers=H, timeout=10).json()["token"]
            s = requests.Session()
            hh = {"Authorization": f"Bearer {token}"}
            s.post(
                f"{base}/api/matches/{match}/events", json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, headers=hh
            )
            s.post(f"{base}/api/matches/{match}/events", json={"type": "period_start"}, headers=hh)
            s.post(f"{base}/api/matches/{match}/events", json={"type": "restart_taken", "team": "home", "player": 1}, headers=hh)
            quiet, _ = _referee(base, match, token, a.posts)
            ready, stop, out = multiprocessing.Event(), multiprocessing.Event(), multiprocessing.Queue()
            p = multiprocessing.Process(target=_readers, args=(port, a.readers, ready, stop, out))
            p.start()
            ready.wait(120)
            time.sleep(2)
            loaded, sent = _referee(base, match, token, a.posts)
            time.sleep(2)
            stop.set()
            arrivals = out.get(timeout=60)
            p.join(30)
        finally:
            proc.terminate()
            proc.wait(30)
    lat = [(t - sent[seq]) * 1000 for seq, ts in arrivals.items() if seq in sent for t in ts]
    got = sum(len(ts) for seq, ts in arrivals.items() if seq in sent)
    print(f"referee POST, no reader:        p50 {statistics.median(quiet):6.1f} ms  p99 {_pct(quiet, 0.99):6.1f} ms")
    print(f"referee POST, {a.readers} readers:   p50 {statistics.median(loaded):6.1f} ms  p99 {_pct(loaded, 0.99):6.1f} ms")
    print(
        f"call -> reader ({got} of {a.readers * len(sent)} messages): p50 {_pct(lat, 0.5):6.1f} ms  p99 {_pct(lat, 0.99):6.1f} ms"
    )


if __name__ == "__main__":
    main()
