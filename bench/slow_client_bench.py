"""Clients that never read (issue 14, D52): what they cost the server and how soon they are dropped.

    .venv/bin/python bench/slow_client_bench.py                  # 20 clients, 300 events
    .venv/bin/python bench/slow_client_bench.py --clients 50 --events 500 --root /path/to/another/tree

Starts ``app.py`` (gevent, as ``make run``) on a free port; ``--clients`` websocket clients join the
demo match and never read a byte (they answer no ping either); the referee then logs ``--events`` clock
changes, each broadcast to everyone. Every 0.5 s it sums the kernel's unsent bytes (``tx_queue`` of
``/proc/net/tcp``) over the server's connections, and it notes when each silent client sees its
connection closed. Prints the peak, the bytes still held at the end, and the drop times. Never
collected by pytest; numbers in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
import websocket

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ports import free_port  # noqa: E402

ADMIN = "bench-organiser-token-0123"


def server_sockets(port: int) -> tuple[int, int]:
    """(unsent bytes in the kernel, established connections) of the server's end of connections on ``port``."""
    unsent = established = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) != port:
            continue
        unsent += int(fields[4].split(":")[0], 16)
        established += fields[3] == "01"
    return unsent, established


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--watch", type=float, default=150, help="seconds to watch after the last event")
    parser.add_argument("--root", default=str(ROOT), help="the tree whose app.py to run (to compare versions)")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "QALISBALL_ASYNC_MODE": "gevent",
            "PORT": str(port),
            "QALISBALL_DB": str(Path(tmp) / "b.db"),
            "QALISBALL_ADMIN_TOKEN": ADMIN,
            "QALISBALL_MAX_CONNECTIONS_PER_ADDRESS": "0",
        }
        proc = subprocess.Popen(
            [sys.executable, "app.py"], cwd=args.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if requests.get(base + "/api/matches", timeout=1).ok:
                        break
                except requests.ConnectionError:
                    time.sleep(0.1)
            created = requests.post(base + "/api/matches", json=_demo(), headers={"Authorization": f"Bearer {ADMIN}"}, timeout=5)
            match_id, tokens = created.json()["id"], created.json()["tokens"]
            url = f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket"
            silent = [websocket.create_connection(url, timeout=30) for _ in range(args.clients)]
            for ws in silent:
                ws.send("40")
                ws.send("42" + json.dumps(["join", {"match": match_id}]))
            session = requests.Session()
            auth = {"Authorization": f"Bearer {tokens['referee']}"}
            events = f"{base}/api/matches/{match_id}/events"
            session.post(events, json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, headers=auth, timeout=30)
            session.post(events, json={"type": "period_start"}, headers=auth, timeout=30)
            session.close()  # the referee's connection is gone: what remains on the port are the silent clients
            start, peak = time.monotonic(), 0
            for i in range(args.events):
                body = {"type": "clock", "action": "pause" if i % 2 == 0 else "resume"}
                requests.post(events, json=body, headers=auth, timeout=30)
                if i % 20 == 0:
                    peak = max(peak, server_sockets(port)[0])
            sent = time.monotonic()
            print(f"tree {args.root}: {args.clients} silent clients (no reads, no pongs)")
            print(f"{args.events} events in {sent - start:.1f} s")
            print("seconds after the last event | unsent bytes held by the kernel | connections still open")
            shown = -10.0
            while True:
                now = time.monotonic() - sent
                held, open_ = server_sockets(port)
                peak = max(peak, held)
                if now - shown >= 10 or (held == 0 and open_ == 0) or now > args.watch:
                    print(f"{now:6.1f} | {held / 1e6:6.2f} MB | {open_}")
                    shown = now
                if (held == 0 and open_ == 0) or now > args.watch:
                    break
                time.sleep(0.5)
            print(f"peak: {peak / 1e6:.2f} MB")
            for ws in silent:
                ws.close()
        finally:
            proc.kill()
            proc.wait()


def _demo() -> dict[str, object]:
    sys.path.insert(0, str(ROOT))
    from qalisball.server.demo import demo_request

    return demo_request()


if __name__ == "__main__":
    main()
