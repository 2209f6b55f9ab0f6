"""A join storm on one socket against the referee's POST (issue 20.2, D155, D156): run by hand, prints numbers.

    .venv/bin/python bench/join_storm_bench.py                       # 20 teams, double round robin: 380 fixtures
    .venv/bin/python bench/join_storm_bench.py --root /path/to/another/tree   # the same against another version
    .venv/bin/python bench/join_storm_bench.py --joins 1000 --rounds 5 --posts 40

Starts ``app.py`` (gevent, as ``make run``) on a free port with a fresh database; creates ``--teams`` kept
teams and a double round robin of them (20 teams: 380 fixtures), makes the first fixture's match and
starts it. Then:

1. **quiet**: the referee POSTs ``--posts`` clock pauses and resumes over one kept-alive connection,
   nobody else connected; each POST's round trip;
2. **storm**: ``--rounds`` times, one anonymous websocket (in a process of its own, so that its reading
   never competes with the referee's requests for the GIL) connects, sends ``--joins``
   ``join_competition`` frames at once and reads whatever the server answers; the referee POSTs as soon
   as the frames are sent, then every 50 ms until the storm's socket has been quiet for 0.5 s (every
   frame dealt with); each POST's round trip.

Prints p50 / p99 / max of both and the storm's added p50 and max (the goal: < 50 ms added). Never collected
by pytest; numbers in bench/README.md.
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
import time
from pathlib import Path
from typing import Any

import requests
import websocket

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.competition_play import roster  # noqa: E402
from tests.ports import free_port  # noqa: E402

ADMIN = "bench-organiser-token-0123"
H = {"Authorization": f"Bearer {ADMIN}"}


def start_server(root: str, port: int, db: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "QALISBALL_ASYNC_MODE": "gevent",
        "PORT": str(port),
        "QALISBALL_DB": str(db),
        "QALISBALL_ADMIN_TOKEN": ADMIN,
        "QALISBALL_MAX_CONNECTIONS_PER_ADDRESS": "0",
    }
    log = open(db.with_suffix(".log"), "wb")  # noqa: SIM115 (kept open for the server's life)
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180  # a loaded machine starts slowly
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if requests.get(f"http://127.0.0.1:{port}/api/matches", timeout=2).ok:
                return proc
        except requests.RequestException:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start:\n" + db.with_suffix(".log").read_text(errors="replace")[-2000:])


def competition(base: str, teams: int) -> tuple[str, dict[str, Any]]:
    """A double round robin of ``teams`` kept teams; its first fixture's match made and started."""
    ids = [
        requests.post(
            f"{base}/api/teams", json={"name": f"Team {i}", "players": roster(f"T{i}", 10)}, headers=H, timeout=30
        ).json()["id"]
        for i in range(teams)
    ]
    fields = [{"name": f"Field {i + 1}"} for i in range(4)]
    body = {
        "name": "Storm Cup",
        "format": "double_round_robin",
        "teams": ids,
        "fields": fields,
        "starts_at": "2020-01-01T09:00:00+08:00",
    }
    comp = requests.post(f"{base}/api/competitions", json=body, headers=H, timeout=60).json()["id"]
    fixtures = requests.get(f"{base}/api/competitions/{comp}", timeout=60).json()["fixtures"]
    lineup = {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}}
    made = requests.post(
        f"{base}/api/competitions/{comp}/fixtures/{fixtures[0]['id']}/match", json=lineup, headers=H, timeout=60
    ).json()
    size = len(requests.get(f"{base}/api/competitions/{comp}", timeout=60).content)
    print(f"{len(fixtures)} fixtures; view {size / 1024:.0f} KiB")
    return comp, made


def storm(port: int, comp: str, joins: int, sent: Any, out: Any) -> None:
    """In its own process (its reading never competes with the referee's for the GIL): one websocket sends
    ``joins`` ``join_competition`` frames at once, then reads every answer until the server is quiet."""
    ws = websocket.create_connection(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", timeout=60)
    ws.recv()  # Engine.IO's open packet
    ws.send("40")
    frame = "42" + json.dumps(["join_competition", {"competition": comp}])
    for _ in range(joins):
        ws.send(frame)
    sent.set()
    answers = errors = 0
    ws.settimeout(0.5)
    last = time.monotonic() + 120  # the first answer may take long (before D155 each join rebuilt the view)
    # Done once no answer to a join came for 0.5 s (the referee's POSTs keep sending the room `fixture`).
    while time.monotonic() - last < 0.5:
        try:
            msg = ws.recv()
        except websocket.WebSocketTimeoutException:
            continue
        except websocket.WebSocketConnectionClosedException:  # the server dropped it (D52: it fell behind)
            break
        if msg == "2":
            ws.send("3")
        elif isinstance(msg, str) and msg.startswith('42["competition"'):  # (40 first: the connect's answer)
            answers, last = answers + 1, time.monotonic()
        elif isinstance(msg, str) and msg.startswith('42["error"'):
            errors, last = errors + 1, time.monotonic()
    ws.close()
    out.put((answers, errors))


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(ROOT), help="the tree whose app.py to run (to compare versions)")
    ap.add_argument("--teams", type=int, default=20)
    ap.add_argument("--joins", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--posts", type=int, default=40)
    args = ap.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(args.root, port, Path(tmp) / "storm.db")
        try:
            comp, made = competition(base, args.teams)
            session = requests.Session()
            auth = {"Authorization": f"Bearer {made['tokens']['referee']}"}
            events = f"{base}/api/matches/{made['id']}/events"
            for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
                assert session.post(events, json=body, headers=auth, timeout=60).status_code == 201
            n = 0

            def post() -> float:
                nonlocal n
                body = {"type": "clock", "action": "pause" if n % 2 == 0 else "resume"}
                n += 1
                t = time.perf_counter()
                r = session.post(events, json=body, headers=auth, timeout=120)
                assert r.status_code == 201, r.text
                return (time.perf_counter() - t) * 1000

            quiet = [post() for _ in range(args.posts)]
            stormy: list[float] = []
            first: list[float] = []
            answered = refused = 0
            for _ in range(args.rounds):
                sent, out = multiprocessing.Event(), multiprocessing.Queue()
                proc_storm = multiprocessing.Process(target=storm, args=(port, comp, args.joins, sent, out))
                proc_storm.start()
                sent.wait(60)
                first.append(post())
                stormy.append(first[-1])
                while proc_storm.is_alive():
                    time.sleep(0.05)
                    stormy.append(post())
                a, e = out.get(timeout=900)  # before D155: 1,000 answers of the whole view to read
                proc_storm.join()
                answered, refused = answered + a, refused + e
                time.sleep(0.3)
            print(f"tree {args.root}: {args.rounds} storms of {args.joins} join_competition frames on one socket")
            print(f"joins answered with the competition: {answered}; refused (error): {refused}; the rest dropped")
            print(f"{'':34} {'n':>4} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
            for name, xs in (
                ("referee's POST, quiet", quiet),
                ("referee's POST, during storms", stormy),
                ("the POST right after the frames", first),
            ):
                print(f"{name:34} {len(xs):4} {statistics.median(xs):8.1f} {pct(xs, 99):8.1f} {max(xs):8.1f}")
            print(
                f"added by the storm: p50 {statistics.median(stormy) - statistics.median(quiet):+.1f} ms, "
                f"max {max(stormy) - statistics.median(quiet):+.1f} ms (goal: < 50 ms)"
            )
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
