"""POST -> last spectator: the project as users run it, against the bare-websockets floor, in one run (issue 29).

    .venv/bin/python bench/fanout_bench.py                    # this checkout vs the floor, N = 300, 2 rounds
    .venv/bin/python bench/fanout_bench.py --n 1000 --rounds 3   # issue 29's configuration (~6 min)
    make bench-compare BASE=<ref>                             # + <ref> checked out under bench/.cache, by turns
    .venv/bin/python bench/fanout_bench.py --base <ref> --dry-run   # resolve, print the plan, start nothing

What one run does (each round every target once, the order rotated each round, every server fresh):

project  a checkout's ``app.py`` started as ``make run`` starts it (``python app.py`` from the checkout's own
         directory, HOST/PORT/QALISBALL_DB in a fresh temp directory/QALISBALL_ADMIN_TOKEN): on its empty
         database it creates the demo match, the demo competition and the finished demo friendly. Through
         bench/gc_probe.py, which only adds a collector callback, so any commit's layout runs (an old tree
         without qalisball.server starts by its app.py as well). A match is created through the API and
         kicked off (coin toss, period start, kickoff taken).
floor    bench/fanout_floor.py: asyncio ``websockets``, parses the POST, writes one frame of the size of the
         project's ``state`` frame (measured by the spectators in the first project run) to every socket,
         answers; stores nothing.

For each server:
 1. --warmup + --baseline POSTs with nobody watching: the server's CPU per POST on its own.
 2. N spectators (bench/wsclient.c, one epoll process, built with gcc into bench/.cache) connect. Project:
    Engine.IO v4 / Socket.IO v5 over WebSocket, ``40``, then ``42["join",{"match":id}]`` (API.md's
    spectator: ``event`` + ``state``); a spectator counts once the join's ``state`` arrived. Floor: plain
    WebSocket. Server RSS before and 1 s after -> KB per spectator.
 3. --warmup + --events POSTs over one kept-alive HTTP connection (TCP_NODELAY): a ``goal``, then the
    conceding team's kickoff ``restart_taken``, alternately. Each spectator timestamps the frame carrying
    the new ``seq`` (CLOCK_MONOTONIC when epoll says it is readable); latency = the LAST spectator's
    arrival - the time right before the request was written. The next POST goes --gap s after every
    spectator has it.
 4. server CPU (utime + stime of its process tree) over the measured POSTs; gen-2 collections inside the
    measured window (gc_probe's file: their count and longest pause).
 5. delivery: every spectator got every state once, in order.

The medians over rounds are printed per target, with each project's ratio to the floor of the same run.
1,000 spectators take ~2 min per project run on 2 shared cores, so the default is 300 (--n 1000 for
issue 29's goals). Loopback only.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import resource
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join(HERE, ".cache")
SIO_PATH = "/socket.io/?EIO=4&transport=websocket"
ADMIN = "bench-fanout-admin-token-0123456789"
CLK = os.sysconf("SC_CLK_TCK")
PAGE = resource.getpagesize()


class Stop(Exception):
    pass


def on_term(signum: int, frame: Any) -> None:
    raise Stop(f"signal {signum}")


# ---------------------------------------------------------------- process accounting (/proc)


def descendants(root: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def cpu_s(pids: list[int]) -> float:
    t = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            t += int(parts[11]) + int(parts[12])
        except (OSError, IndexError, ValueError):
            pass
    return t / CLK


def rss_bytes(pids: list[int]) -> int:
    t = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/statm") as f:
                t += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return t


def tail(path: str, chars: int) -> str:
    """The last ``chars`` characters of a file (0: all of it); "" when it cannot be read."""
    try:
        with open(path, errors="replace") as f:
            return f.read()[-chars:] if chars else f.read()
    except OSError:
        return ""


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def pct(xs: list[float], p: float) -> float:
    """Linear interpolation (numpy's default): with 40 POSTs p99 is 0.39 x the second-worst + 0.61 x the worst."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100.0
    f = int(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def med(xs: list[Any]) -> float:
    xs = [x for x in xs if x is not None and x == x]
    return statistics.median(xs) if xs else float("nan")


def free_port(pair: bool = False) -> int:
    """A free loopback port (with ``pair``, P+1 free too: the floor's HTTP side)."""
    for _ in range(50):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        s.close()
        if not pair:
            return p
        if p >= 65535:
            continue
        t = socket.socket()
        try:
            t.bind(("127.0.0.1", p + 1))
            return p
        except OSError:
            continue
        finally:
            t.close()
    raise RuntimeError("no free port")


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, e.read()[:300]


# ---------------------------------------------------------------- checkouts


def git(*args: str, cwd: str = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def base_checkout(ref: str, create: bool = True) -> tuple[str, str]:
    """(directory, commit) of ``ref`` checked out in a detached git worktree under bench/.cache (gitignored)."""
    sha = git("rev-parse", "--verify", ref + "^{commit}")
    path = os.path.join(CACHE, "base-" + sha[:12])
    if create and not os.path.exists(os.path.join(path, "app.py")):
        os.makedirs(CACHE, exist_ok=True)
        if os.path.exists(path):
            shutil.rmtree(path)
            git("worktree", "prune")
        git("worktree", "add", "--detach", path, sha)
    return path, sha


# ---------------------------------------------------------------- the spectator swarm (wsclient.c)


def build_client() -> str:
    src = os.path.join(HERE, "wsclient.c")
    os.makedirs(CACHE, exist_ok=True)
    exe = os.path.join(CACHE, "wsclient")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        tmp = f"{exe}.{os.getpid()}"
        subprocess.run(["gcc", "-O2", "-o", tmp, src], check=True)
        os.replace(tmp, exe)
    return exe


class Swarm:
    """N spectators in one wsclient process; its line protocol on stdout (see wsclient.c)."""

    def __init__(self, exe: str, port: int, path: str, n: int, sio: bool, join: str | None = None) -> None:
        args = [exe, str(port), path, str(n), "1" if sio else "0", "32"]
        if join:
            args.append(join)
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert self.p.stdout is not None and self.p.stdin is not None
        self.pid = self.p.pid
        self.fd = self.p.stdout.fileno()
        self.buf = b""
        self.lines: list[list[str]] = []
        self.done: set[int] = set()

    def _fill(self, timeout: float) -> None:
        r, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not r:
            return
        d = os.read(self.fd, 1 << 20)
        if not d:
            raise RuntimeError(f"wsclient exited (rc {self.p.poll()})")
        self.buf += d
        *lines, self.buf = self.buf.split(b"\n")
        for ln in lines:
            f = ln.decode().split()
            if f and f[0] == "DONE":
                self.done.add(int(f[1]))
            elif f:
                self.lines.append(f)

    def wait_ready(self, timeout: float) -> tuple[int, int]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for f in self.lines:
                if f[0] == "READY":
                    self.lines.remove(f)
                    return int(f[1]), int(f[2])
            self._fill(end - time.monotonic())
        raise RuntimeError(f"spectators not connected after {timeout:.0f} s")

    def wait_done(self, seq: int, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while seq not in self.done:
            left = end - time.monotonic()
            if left <= 0:
                return False
            self._fill(left)
        return True

    def results(self, timeout: float = 60) -> tuple[dict[int, tuple[int, ...]], dict[str, int] | None]:
        assert self.p.stdin is not None
        self.p.stdin.write(b"STOP\n")
        end = time.monotonic() + timeout
        out: dict[int, tuple[int, ...]] = {}
        z = None
        keys = ["frames", "min_len", "max_len", "sum_len", "dup", "out_of_order", "skipped", "alive", "dropped_after_ready"]
        while time.monotonic() < end:
            while self.lines:
                f = self.lines.pop(0)
                if f[0] == "R":
                    out[int(f[1])] = tuple(int(x) for x in f[2:6])
                elif f[0] == "Z":
                    z = dict(zip(keys, (int(x) for x in f[1:]), strict=False))
                elif f[0] == "END":
                    return out, z
            self._fill(end - time.monotonic())
        raise RuntimeError("no results from wsclient")

    def close(self) -> None:
        if self.p.poll() is None:
            try:
                assert self.p.stdin is not None
                self.p.stdin.write(b"STOP\n")
            except OSError:
                pass
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(5)


# ---------------------------------------------------------------- servers under test


class Project:
    sio = True
    path = SIO_PATH

    def __init__(self, name: str, checkout: str) -> None:
        self.name, self.checkout = name, checkout
        self.kick_by = "home"  # the team that took the last kickoff scores next
        self.k = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="qb-bench-fanout-")
        self.log = os.path.join(self.dir, "server.log")
        self.gc_file = os.path.join(self.dir, "gc.txt")
        self.port = self.ws_port = free_port()
        env = dict(
            os.environ,
            HOST="127.0.0.1",
            PORT=str(self.port),
            QALISBALL_DB=os.path.join(self.dir, "qalisball.db"),
            QALISBALL_ADMIN_TOKEN=ADMIN,
            QALISBALL_MAX_CONNECTIONS_PER_ADDRESS="0",  # every spectator comes from 127.0.0.1 (README)
            QB_GC_PROBE=self.gc_file,
            FLASK_DEBUG="0",
        )
        cmd = [sys.executable, os.path.join(HERE, "gc_probe.py"), os.path.join(self.checkout, "app.py")]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                cmd,
                cwd=self.checkout,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.base = f"http://127.0.0.1:{self.port}"
        end = time.monotonic() + 120
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited: " + tail(self.log, 1500))
            try:
                urllib.request.urlopen(self.base + "/api/matches", timeout=2)
                break
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError("server did not answer") from None
                time.sleep(0.2)
        roster = [{"number": i, "name": f"P {i}"} for i in range(1, 11)]
        body = {
            "home": {"name": "Renmin", "players": roster, "starting": list(range(1, 7))},
            "away": {"name": "Tsinghua", "players": roster, "starting": list(range(1, 7))},
            "starters": 6,
            "field": {"length": 40, "width": 25, "side_lines": True},
        }
        st, js = call(self.base, "POST", "/api/matches", body, ADMIN)
        if st != 201:
            raise RuntimeError(f"creating the match: {st} {js}")
        self.match, self.ref = js["id"], js["tokens"]["referee"]
        for ev in (
            {"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
            {"type": "period_start"},
            {"type": "restart_taken", "team": "home", "player": 1},
        ):
            st, js = call(self.base, "POST", f"/api/matches/{self.match}/events", ev, self.ref)
            if st != 201:
                raise RuntimeError(f"{ev}: {st} {js}")
        self.last_seq = js["seq"]
        self.join = "42" + json.dumps(["join", {"match": self.match}], separators=(",", ":"))
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        self.conn.connect()
        assert self.conn.sock is not None
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.hdrs = {"Content-Type": "application/json", "Authorization": "Bearer " + self.ref}
        self.url = f"/api/matches/{self.match}/events"

    def pids(self) -> list[int]:
        assert self.proc is not None
        return descendants(self.proc.pid)

    def post(self) -> tuple[int, int, int]:
        """-> (t0_ns, round trip ns, seq)"""
        if self.k % 2 == 0:
            b = {"type": "goal", "team": self.kick_by, "player": 3}
        else:  # the conceding team kicks off (5.3)
            self.kick_by = "away" if self.kick_by == "home" else "home"
            b = {"type": "restart_taken", "team": self.kick_by, "player": 2}
        self.k += 1
        body = json.dumps(b).encode()
        t0 = time.monotonic_ns()
        self.conn.request("POST", self.url, body=body, headers=self.hdrs)
        r = self.conn.getresponse()
        data = r.read()
        rtt = time.monotonic_ns() - t0
        if r.status != 201:
            raise RuntimeError(f"POST {body!r} -> {r.status} {data[:300]!r}")
        seq = json.loads(data)["seq"]
        if seq != self.last_seq + 1:
            raise RuntimeError(f"POST answered seq {seq} after {self.last_seq}")
        self.last_seq = seq
        return t0, rtt, seq

    def gen2(self, start_ns: int, end_ns: int) -> list[float]:
        """The gen-2 pauses (ms) the probe saw between two CLOCK_MONOTONIC times."""
        rows = [line.split() for line in tail(self.gc_file, 0).splitlines()]
        return [float(r[2]) for r in rows if len(r) == 3 and start_ns <= int(r[0]) <= end_ns]

    def log_issues(self) -> str:
        text = tail(self.log, 0)
        bad = [ln for ln in text.splitlines() if any(w in ln for w in ("Traceback", "Error", "Too many open files", "WARNING"))]
        return f"{len(bad)} suspicious log lines, e.g. {' | '.join(bad[:3])[:400]}" if bad else ""

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        if self.proc is not None and self.proc.poll() is None:
            pids = self.pids()
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
            for p in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(p, signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)


class Floor:
    name = "floor"
    sio = False
    path = "/"
    join = None

    def __init__(self, state_bytes: int) -> None:
        self.state_bytes = state_bytes
        self.seq = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.ws_port = free_port(pair=True)
        self.dir = tempfile.mkdtemp(prefix="qb-bench-floor-")
        self.log = os.path.join(self.dir, "floor.log")
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, os.path.join(HERE, "fanout_floor.py"), str(self.ws_port), str(self.state_bytes)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        end = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("floor exited: " + tail(self.log, 800))
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.ws_port + 1, timeout=2)
                c.request("GET", "/ping")
                if c.getresponse().status == 200:
                    c.close()
                    break
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError("floor did not answer") from None
                time.sleep(0.1)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.ws_port + 1, timeout=30)
        self.conn.connect()
        assert self.conn.sock is not None
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def pids(self) -> list[int]:
        assert self.proc is not None
        return descendants(self.proc.pid)

    def post(self) -> tuple[int, int, int]:
        self.seq += 1
        t0 = time.monotonic_ns()
        self.conn.request(
            "POST", "/event", body=json.dumps({"seq": self.seq, "t0": t0}).encode(), headers={"Content-Type": "application/json"}
        )
        r = self.conn.getresponse()
        data = r.read()
        rtt = time.monotonic_ns() - t0
        if r.status != 200:
            raise RuntimeError(f"floor POST -> {r.status} {data[:200]!r}")
        return t0, rtt, self.seq

    def gen2(self, start_ns: int, end_ns: int) -> list[float]:
        return []

    def log_issues(self) -> str:
        text = tail(self.log, 0).strip()
        return ("floor log: " + text[-300:]) if text else ""

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------- one measured run


def run_one(target: Project | Floor, n: int, a: argparse.Namespace, exe: str) -> dict[str, Any]:
    res: dict[str, Any] = dict(target=target.name, n=n, load_start=loadavg())
    swarm = None
    t_run = time.monotonic()
    try:
        target.start()
        pids = target.pids()
        for _ in range(a.warmup):
            target.post()
            time.sleep(a.gap)
        c0 = cpu_s(pids)
        base_rtt = []
        for _ in range(a.baseline):
            _, rtt, _ = target.post()
            base_rtt.append(rtt / 1e6)
            time.sleep(0.01)
        res["cpu0_ms_per_post"] = (cpu_s(pids) - c0) * 1000 / max(a.baseline, 1)
        res["rtt0_p50_ms"] = pct(base_rtt, 50)
        pids = target.pids()
        rss0 = rss_bytes(pids)
        t_c = time.monotonic()
        swarm = Swarm(exe, target.ws_port, target.path, n, target.sio, target.join)
        connected, failed = swarm.wait_ready(60 + n * 0.06)
        res["connect_s"] = time.monotonic() - t_c
        if connected < n:
            raise RuntimeError(f"only {connected} of {n} spectators joined ({failed} failed)")
        time.sleep(1.0)
        pids = target.pids()
        res["kb_per_spectator"] = (rss_bytes(pids) - rss0) / 1024 / n
        t0s, rtts, measured, timeouts = {}, {}, [], []
        c1 = t1 = 0.0
        w0 = 0
        for i in range(a.warmup + a.events):
            if i == a.warmup:
                c1, t1, w0 = cpu_s(pids), time.monotonic(), time.monotonic_ns()
            t0, rtt, seq = target.post()
            t0s[seq], rtts[seq] = t0, rtt
            if i >= a.warmup:
                measured.append(seq)
            if not swarm.wait_done(seq, a.timeout):
                timeouts.append(seq)
            time.sleep(a.gap)
        w1 = time.monotonic_ns()
        cpu = cpu_s(pids) - c1
        res["measure_wall_s"] = time.monotonic() - t1
        res["cpu_ms_per_event"] = cpu * 1000 / a.events
        res["cpu_net_us_per_spect_event"] = (cpu * 1000 / a.events - res["cpu0_ms_per_post"]) * 1000 / n
        pauses = target.gen2(w0, w1)
        res["gen2_pauses_ms"] = [round(p, 1) for p in pauses]
        res["gen2_count"] = len(pauses)
        res["gen2_max_ms"] = max(pauses) if pauses else 0.0
        res["log"] = target.log_issues()
        per, z = swarm.results()
        res["z"] = z
        last, first, rtt_ms = [], [], []
        for seq in measured:
            cnt, mx, _md, mn = per.get(seq, (0, 0, 0, 0))
            off = t0s[seq] if target.sio else 0  # the floor's frames carry t0: already relative
            if cnt < connected:
                continue
            last.append((mx - off) / 1e6)
            first.append((mn - off) / 1e6)
            rtt_ms.append(rtts[seq] / 1e6)
        res["p50_ms"], res["p99_ms"] = pct(last, 50), pct(last, 99)
        res["max_ms"] = max(last) if last else float("nan")
        res["first_p50_ms"] = pct(first, 50)
        res["rtt_p50_ms"], res["rtt_p99_ms"] = pct(rtt_ms, 50), pct(rtt_ms, 99)
        res["timeouts"] = timeouts
        if z:
            res["state_frame_bytes"] = z["sum_len"] / max(z["frames"], 1)
        res["ok"] = (
            len(last) == a.events and not any(z.get(k) for k in ("dup", "out_of_order", "skipped", "dropped_after_ready"))
            if z
            else False
        )
        if len(last) != a.events:
            res["error"] = f"{a.events - len(last)} of {a.events} POSTs not delivered to every spectator"
        elif not res["ok"]:
            res["error"] = f"delivery: {z}"
    except Stop:
        raise
    except Exception as e:
        res["ok"] = False
        res["error"] = f"{type(e).__name__}: {str(e)[:500]}"
    finally:
        if swarm is not None:
            swarm.close()
        if "log" not in res:
            res["log"] = target.log_issues()
        target.stop()
        res["load_end"] = loadavg()
        res["run_s"] = time.monotonic() - t_run
    return res


def fmt(x: Any, nd: int = 1) -> str:
    if x is None or (isinstance(x, float) and x != x):
        return "nan"
    return f"{x:.{nd}f}"


ROWS = [
    ("POST -> last spectator p50, ms", "p50_ms", 1),
    ("POST -> last spectator p99, ms", "p99_ms", 1),
    ("POST -> last spectator max, ms", "max_ms", 1),
    ("POST -> first spectator p50, ms", "first_p50_ms", 1),
    ("referee's POST round trip p50, ms", "rtt_p50_ms", 1),
    ("referee's POST round trip p99, ms", "rtt_p99_ms", 1),
    ("POST round trip, nobody watching, p50 ms", "rtt0_p50_ms", 2),
    ("server CPU per event, ms", "cpu_ms_per_event", 2),
    ("server CPU per POST, nobody watching, ms", "cpu0_ms_per_post", 2),
    ("server CPU / spectator / event, us (net)", "cpu_net_us_per_spect_event", 1),
    ("server RSS / spectator, KB", "kb_per_spectator", 1),
    ("gen-2 collections while measured", "gen2_count", 0),
    ("longest gen-2 pause while measured, ms", "gen2_max_ms", 1),
    ("connect + join of all N, s", "connect_s", 1),
]


def plan(a: argparse.Namespace) -> list[tuple[str, str]]:
    """The project checkouts to measure: (label, directory)."""
    targets = [("this", ROOT)]
    if a.base:
        path, sha = base_checkout(a.base, create=not a.dry_run)
        targets.append((f"base {sha[:9]}", path))
    for d in a.checkout:
        targets.append((os.path.basename(os.path.abspath(d)), os.path.abspath(d)))
    return targets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=300, help="spectators (issue 29's goals: 1000)")
    ap.add_argument("--events", type=int, default=40, help="measured POSTs per run")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--baseline", type=int, default=20, help="POSTs with nobody watching (fixed CPU cost)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--gap", type=float, default=0.05, help="s between delivery and the next POST")
    ap.add_argument("--timeout", type=float, default=10.0, help="s to wait for one POST to reach all")
    ap.add_argument("--base", default="", help="a git ref: also measure it, checked out under bench/.cache")
    ap.add_argument("--checkout", action="append", default=[], help="another checkout's directory (repeatable)")
    ap.add_argument("--dry-run", action="store_true", help="resolve the checkouts, print the plan, start nothing")
    ap.add_argument("--json", default="", help="append each run as a JSON line to this file")
    a = ap.parse_args()

    targets = plan(a)
    for label, path in targets:
        if not os.path.exists(os.path.join(path, "app.py")) and not a.dry_run:
            sys.exit(f"{label}: no app.py in {path}")
    print(
        f"fanout_bench: N={a.n}, {a.events} measured POSTs (+{a.warmup} warm-up, {a.baseline} nobody watching), {a.rounds} rounds"
    )
    for label, path in targets:
        print(f"  project {label}: {sys.executable} bench/gc_probe.py {os.path.join(path, 'app.py')}")
    print("  floor: bench/fanout_floor.py (asyncio websockets, one frame of the project's state size)")
    if a.dry_run:
        return 0

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    exe = build_client()
    print(f"load {loadavg()}; {time.strftime('%Y-%m-%d %H:%M:%S')}", flush=True)
    names = [label for label, _ in targets] + ["floor"]
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in names}
    state_bytes = 0
    t_all = time.monotonic()
    try:
        for r in range(a.rounds):
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                if name == "floor" and not state_bytes:  # round 1 starts with a project: its state frame sizes the floor's
                    print("floor skipped: no state frame measured yet")
                    continue
                target: Project | Floor = Floor(state_bytes) if name == "floor" else Project(name, dict(targets)[name])
                res = run_one(target, a.n, a, exe)
                res["round"] = r + 1
                runs[name].append(res)
                if name != "floor" and not state_bytes:
                    state_bytes = int(round(res.get("state_frame_bytes") or 0))
                if a.json:
                    with open(a.json, "a") as f:
                        f.write(json.dumps(res) + "\n")
                _print_run(r, res)
    except Stop as e:
        print(f"interrupted ({e}): reporting what was measured")

    def col(name: str, key: str) -> float:
        return med([x.get(key) for x in runs[name] if x.get("ok")])

    print()
    print(f"medians over rounds, N={a.n}, state frame {state_bytes} B; load now {loadavg()}; {time.monotonic() - t_all:.0f} s")
    projects = [x for x in names if x != "floor"]
    head = f"{'':<44}" + "".join(f"{x:>16}" for x in names) + "".join(f"{' ' + x + ' / floor':>24}" for x in projects)
    print(head)
    for label, key, nd in ROWS:
        f = col("floor", key)
        line = f"{label:<44}" + "".join(f"{fmt(col(x, key), nd):>16}" for x in names)
        for x in projects:
            p = col(x, key)
            line += f"{fmt(p / f if f == f and p == p and f else float('nan'), 2):>24}"
        print(line)
    pauses = {x: sorted((p for run in runs[x] for p in run.get("gen2_pauses_ms", [])), reverse=True) for x in projects}
    for x in projects:
        print(f"gen-2 pauses while measured, {x}: {pauses[x][:12] or 'none'}")
    failed = [f"{x['target']} round {x.get('round')}: {x.get('error')}" for k in names for x in runs[k] if not x.get("ok")]
    print("delivery: " + ("; ".join(failed) if failed else "every spectator got every state once, in order, in every run"))
    fp = col("floor", "p99_ms")
    print(
        f"fanout N={a.n}: "
        + ", ".join(
            f"{x} p99 {fmt(col(x, 'p99_ms'))} ms ({fmt(col(x, 'p99_ms') / fp if fp == fp and fp else float('nan'), 2)}x floor)"
            for x in projects
        )
        + f", floor p99 {fmt(fp)} ms (goal <= 1.2x)",
        flush=True,
    )
    return 1 if failed else 0


def _print_run(r: int, res: dict[str, Any]) -> None:
    z = res.get("z") or {}
    g = res.get
    print(
        f"round {r + 1} {res['target']:<16} {'ok ' if g('ok') else 'FAIL'} p50 {fmt(g('p50_ms'))} p99 {fmt(g('p99_ms'))} "
        f"max {fmt(g('max_ms'))} ms | first {fmt(g('first_p50_ms'))} | POST rtt {fmt(g('rtt_p50_ms'))}/{fmt(g('rtt_p99_ms'))} "
        f"| cpu {fmt(g('cpu_ms_per_event'), 2)} ms/event (nobody {fmt(g('cpu0_ms_per_post'), 2)}) "
        f"| KB/spect {fmt(g('kb_per_spectator'))} | gen2 {g('gen2_pauses_ms', [])} | frames {z.get('frames')} "
        f"| load {res['load_start']} -> {res['load_end']}",
        flush=True,
    )
    if g("error"):
        print("   error: " + res["error"])
    if g("log"):
        print("   " + res["log"])


if __name__ == "__main__":
    sys.exit(main())
