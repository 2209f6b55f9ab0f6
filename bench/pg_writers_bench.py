"""Several server processes on one PostgreSQL database (issue 32 items 2–3, D396): calls per second for 20 matches
over 1, 2 and 4 processes, and a referee's POST p50 / p99 on SQLite vs PostgreSQL (one process each).

    .venv/bin/python bench/pg_writers_bench.py                         # ~2 min
    .venv/bin/python bench/pg_writers_bench.py --procs 1,2 --calls 30  # a subset

Starts a throw-away PostgreSQL (tests/pg.py) and, for each N, N ``app.py`` processes (gevent, as ``make run``) on a
fresh database of it. 20 matches are made and kicked off; then 20 client threads (one per match, as a referee's
tablet: a call, its answer, the next call) post ``--calls`` calls each (the kickoff taken, a goal, the other team's
kickoff taken, …). ``spread``: match i is officiated at process i mod N (each match mostly written by one process,
the others only follow it); ``mixed``: call k of every match goes to process k mod N (every call at a process
whose copy is one call behind: it catches up under the match's lock before deciding). Prints calls per second
over the whole run and the POST's p50 / p99. The client threads share one Python interpreter and the machine's
cores with the servers and PostgreSQL: a ceiling of this machine, not of the servers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from storage_bench import ADMIN, Client, _pct, _wait_ready  # noqa: E402
from storage_bench import run as referee_run  # noqa: E402

from tests.ports import free_port  # noqa: E402

MATCHES = 20


def start(url: str, tmp: Path, name: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "QALISBALL_ADMIN_TOKEN": ADMIN}
    env.update(QALISBALL_ASYNC_MODE="gevent", QALISBALL_DATABASE_URL=url, QALISBALL_ACKS_DIR=str(tmp / "acks"))
    env.pop("QALISBALL_MESSAGE_QUEUE", None)
    log = tmp / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    _wait_ready(port, proc, log)
    return proc, port


def drive(ports: list[int], calls: int, mode: str) -> tuple[float, list[float]]:
    """20 matches, one client thread each: calls per second over the run, and every POST's time (ms)."""
    from qalisball.server.demo import demo_request

    made: list[tuple[str, str, dict[str, Any]]] = []
    setup = Client(ports[0])
    for _ in range(MATCHES):
        status, created, _ = setup.post("/api/matches", demo_request(), ADMIN)
        assert status == 201, created
        path, token = f"/api/matches/{created['id']}/events", created["tokens"]["referee"]
        answer: Any = None
        for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
            status, answer, _ = setup.post(path, body, token)
            assert status == 201, answer
        made.append((path, token, answer["state"]))
    times: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def referee(i: int) -> None:
        path, token, state = made[i]
        clients = {p: Client(p) for p in ports}
        mine: list[float] = []
        team = ""
        for k in range(calls):
            port = ports[i % len(ports)] if mode == "spread" else ports[k % len(ports)]
            team = state["restart"]["team"] if k % 2 == 0 else team
            player = state["teams"][team]["on_field"][0]
            body = (
                {"type": "restart_taken", "team": team, "player": player}
                if k % 2 == 0
                else {"type": "goal", "team": team, "player": player}
            )
            status, answer, ms = clients[port].post(path, body, token)
            if status != 201:
                failures.append(f"{status} {answer}")
                return
            state = answer["state"]
            mine.append(ms)
        with lock:
            times.extend(mine)

    threads = [threading.Thread(target=referee, args=(i,)) for i in range(MATCHES)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if failures:
        raise RuntimeError(f"{len(failures)} calls failed: {failures[:3]}")
    return len(times) / wall, times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--procs", default="1,2,4")
    ap.add_argument("--calls", type=int, default=50, help="calls per match")
    ap.add_argument("--modes", default="spread,mixed")
    ap.add_argument("--posts", type=int, default=400, help="the referee's POSTs on each engine")
    args = ap.parse_args()
    from tests.pg import Cluster

    tmp = Path(tempfile.mkdtemp(prefix="pg-writers-bench-"))
    cluster = Cluster()
    try:
        load = os.getloadavg()[0]
        print(f"load average at start {load:.2f}; {os.cpu_count()} cores", flush=True)
        for engine in ("sqlite", "postgres"):
            locator = cluster.new_database() if engine == "postgres" else str(tmp / "referee.db")
            if engine == "postgres":
                os.environ["QALISBALL_ACKS_DIR"] = str(tmp / "acks")
            got = referee_run(ROOT, engine, locator, args.posts, tmp)
            print(
                f"referee POST, one process, {engine:<8}: p50 {_pct(got, 50):.2f} ms, p99 {_pct(got, 99):.2f} ms, "
                f"mean {statistics.mean(got):.2f} ms ({len(got)} posts)",
                flush=True,
            )
        for mode in args.modes.split(","):
            for n in (int(x) for x in args.procs.split(",")):
                url = cluster.new_database()
                procs: list[subprocess.Popen[bytes]] = []
                try:
                    first, port = start(url, tmp, f"{mode}-{n}-0")  # first: it migrates and makes the demo
                    procs.append(first)
                    ports = [port]
                    for j in range(1, n):
                        p, port = start(url, tmp, f"{mode}-{n}-{j}")
                        procs.append(p)
                        ports.append(port)
                    per_s, times = drive(ports, args.calls, mode)
                    print(
                        f"{mode:<6} {n} process{'es' if n > 1 else '  '}: {per_s:7.1f} calls/s for {MATCHES} matches "
                        f"({len(times)} calls), POST p50 {_pct(times, 50):.2f} ms, p99 {_pct(times, 99):.2f} ms",
                        flush=True,
                    )
                finally:
                    for p in procs:
                        p.terminate()
                    for p in procs:
                        try:
                            p.wait(15)
                        except subprocess.TimeoutExpired:
                            p.kill()
        print(f"load average at end {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
