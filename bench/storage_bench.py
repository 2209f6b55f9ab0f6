"""A referee's POST on each storage engine (issue 32): p50 / p99 of the round trip, as ``make run`` serves it.

    .venv/bin/python bench/storage_bench.py                       # SQLite, then PostgreSQL (a throw-away cluster)
    .venv/bin/python bench/storage_bench.py --engines sqlite --posts 600 --root /tmp/before   # another tree's code

Starts ``app.py`` (gevent, as ``make run``) on a free port with a fresh database (a SQLite file, or a fresh
database of a throw-away PostgreSQL started as tests/pg.py does), creates a match, tosses, starts the half, then
posts ``--posts`` referee calls over one kept-alive connection: the kickoff taken, a goal by its team, the kickoff
for the other team, … (the state changes every time). Prints p50 / p99 / max in ms and calls per second.
``--root``: the source tree whose ``app.py`` is served (to measure the code before a change on the same machine).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ports import free_port  # noqa: E402

ADMIN = "bench-storage-organiser-token-0123456789"


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Client:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.connect()
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def post(self, path: str, body: dict[str, Any], token: str) -> tuple[int, Any, float]:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        t0 = time.perf_counter()
        self.conn.request("POST", path, body=json.dumps(body).encode(), headers=headers)
        r = self.conn.getresponse()
        payload = json.loads(r.read())
        return r.status, payload, (time.perf_counter() - t0) * 1e3


def _wait_ready(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server ended: {log.read_text(errors='replace')[-2000:]}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/api/matches")
            if c.getresponse().status < 500:
                return
        except OSError:
            pass
        time.sleep(0.1)  # polling a real condition (the port answers) with a deadline
    raise RuntimeError("the server did not answer within 90 s")


def run(root: Path, engine: str, locator: str, posts: int, tmp: Path) -> list[float]:
    from qalisball.server.demo import demo_request

    port = free_port()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "QALISBALL_ADMIN_TOKEN": ADMIN}
    env["QALISBALL_ASYNC_MODE"] = "gevent"
    env.pop("QALISBALL_DATABASE_URL", None)
    env.pop("QALISBALL_MESSAGE_QUEUE", None)
    if engine == "postgres":
        env["QALISBALL_DATABASE_URL"] = locator
        env["QALISBALL_DB"] = str(tmp / "unused.db")
    else:
        env["QALISBALL_DB"] = locator
    log = tmp / f"server-{engine}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, str(root / "app.py")], cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_ready(port, proc, log)
        c = Client(port)
        status, created, _ = c.post("/api/matches", demo_request(), ADMIN)
        assert status == 201, created
        path, token = f"/api/matches/{created['id']}/events", created["tokens"]["referee"]
        answer: Any = None
        for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
            status, answer, _ = c.post(path, body, token)
            assert status == 201, answer
        state, times, team = answer["state"], [], ""
        for i in range(posts):
            team = state["restart"]["team"] if i % 2 == 0 else team
            player = state["teams"][team]["on_field"][0]
            body = (
                {"type": "restart_taken", "team": team, "player": player}
                if i % 2 == 0
                else {"type": "goal", "team": team, "player": player}
            )
            status, answer, ms = c.post(path, body, token)
            assert status == 201, answer
            state = answer["state"]
            times.append(ms)
        return times
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engines", default="sqlite,postgres")
    ap.add_argument("--posts", type=int, default=400)
    ap.add_argument("--root", type=Path, default=ROOT)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="storage-bench-"))
    cluster = None
    try:
        for engine in args.engines.split(","):
            if engine == "postgres":
                from tests.pg import Cluster

                cluster = cluster or Cluster()
                locator = cluster.new_database()
            else:
                locator = str(tmp / "bench.db")
            try:
                times = run(args.root, engine, locator, args.posts, tmp)
            finally:
                if engine == "postgres":
                    from qalisball.storage.integrity import acks_path

                    acks = acks_path(locator)  # the app's journal of that throw-away database (D392)
                    if acks is not None:
                        acks.unlink(missing_ok=True)
            per_s = len(times) / (sum(times) / 1e3)
            print(
                f"{engine:<9} {args.root}: referee POST p50 {_pct(times, 50):.2f} ms, p99 {_pct(times, 99):.2f} ms, "
                f"max {max(times):.2f} ms, mean {statistics.mean(times):.2f} ms ({per_s:,.0f} calls/s), {len(times)} posts",
                flush=True,
            )
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
