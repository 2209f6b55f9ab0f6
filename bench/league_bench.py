"""The league on loopback (issue 31): a central and a venue as two ``app.py`` processes (gevent).

1. call → central spectator: the referee posts a call at the venue; a Socket.IO spectator of the central gets
   its state; ``--calls`` times, one at a time (p50, p99, max).
2. catch-up: the central stopped, the venue logs ``--backlog`` calls, the central started again: how long until
   the central holds them all (messages/s, from the moment the central answers again).

    .venv/bin/python bench/league_bench.py                 # ~1 min
    .venv/bin/python bench/league_bench.py --calls 300 --backlog 1000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
import socketio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_league_servers import ADMIN, Referee, Server, auth, upstream  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--backlog", type=int, default=500)
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        central = Server("central", Path(tmp)).start()
        r = requests.post(f"{central.base}/api/league/venues", json={"name": "bench"}, headers=auth(ADMIN), timeout=10)
        key = r.json()["key"]
        venue = Server("venue", Path(tmp), QALISBALL_UPSTREAM=central.base, QALISBALL_UPSTREAM_KEY=key).start()
        try:
            ref = Referee(venue)
            ref.start()
            arrived: dict[int, float] = {}
            got = threading.Condition()

            def on_state(s: dict) -> None:
                with got:
                    arrived.setdefault(int(s["seq"]), time.perf_counter())
                    got.notify_all()

            sio = socketio.Client(reconnection=False)
            sio.on("state", on_state)
            deadline = time.monotonic() + 60
            while requests.get(f"{central.base}/api/matches/{ref.id}", timeout=10).status_code != 200:
                if time.monotonic() > deadline:
                    raise SystemExit("the match never reached the central")
                time.sleep(0.05)
            sio.connect(central.base, transports=["websocket"], wait_timeout=20)
            sio.emit("join", {"match": ref.id})
            latencies = []
            for _ in range(args.calls):
                seq = ref.events()[-1]["seq"] + 1
                t0 = time.perf_counter()
                ref.calls(1)
                with got:
                    if not got.wait_for(lambda seq=seq: seq in arrived, 30):
                        raise SystemExit(f"call {seq} never reached the central's spectator")
                latencies.append((arrived[seq] - t0) * 1000)
            sio.disconnect()
            print(
                f"call → central spectator, {len(latencies)} calls: p50 {statistics.median(latencies):.1f} ms, "
                f"p99 {pct(latencies, 99):.1f} ms, max {max(latencies):.1f} ms"
            )

            central.stop()
            before = len(ref.events())
            ref.calls(args.backlog)
            pending = upstream(venue)["pending"]
            central.start()
            t0 = time.perf_counter()
            while upstream(venue)["pending"] > 0:
                time.sleep(0.01)
            took = time.perf_counter() - t0
            assert len(requests.get(f"{central.base}/api/matches/{ref.id}/events", timeout=30).json()) == before + args.backlog
            print(
                f"catch-up after an outage: {pending} messages pending, all acknowledged {took:.2f} s after the central "
                f"answered again: {pending / took:.0f} messages/s"
            )
        finally:
            venue.stop()
            central.stop()
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
