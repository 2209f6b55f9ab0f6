"""POST → last spectator latency over WebSocket (run by hand; prints numbers; never collected by pytest).

    .venv/bin/python bench/broadcast_bench.py            # N = 100, 1000 (+ 5000 for some); every server
    .venv/bin/python bench/broadcast_bench.py --quick    # N = 100 only
    .venv/bin/python bench/broadcast_bench.py --servers gevent,floor --ns 100,2000 --big 0 --posts 60

For each server and each N, N spectators join one match over WebSocket, then the referee POSTs
``--posts`` events (a kickoff taken, then a goal, alternately: the state changes every time). For
every POST we take the time from just before the request is written to the moment the LAST of the N
spectators has received the ``state`` or ``update`` with the new ``seq`` (p50 / p99 over the POSTs), and
the server's CPU time per event from ``/proc/<pid>/stat`` (whole process, all threads; all processes of
a cluster).

Servers, one after another in the same run (bench/README.md has the table):

- ``gevent``, ``gevent-api``, ``gevent-legal``: ``app.py`` as ``make run`` serves it; the spectators join
  with ``updates`` (one ``update`` per change), as API.md's clients (``event`` + ``state``), or with the
  referee's token (``event`` + ``state`` with ``legal``, what every spectator got before D90);
- ``threading``: ``app.py`` with ``QALISBALL_ASYNC_MODE=threading``;
- ``floor``: a bare asyncio ``websockets`` server (this file, ``--serve-floor``) doing the same work per
  POST with no framework: the same ``MatchService.submit`` (rules + SQLite commit, synchronous=FULL), the
  same messages (``qalisball.fanout``), each frame built once and written to every socket of its room;
- ``cluster``, ``cluster-direct``: ``python -m qalisball.server.cluster`` (writer, spectator processes, Redis,
  HAProxy), the spectators through the proxy or straight to the spectator processes.

The spectators are cheap: no python-socketio client, no thread per spectator. Each of ``--clients``
processes (2 by default) runs one asyncio loop with N / clients connections, each an
``asyncio.BufferedProtocol`` driving websockets' sans-I/O ``ClientProtocol`` (handshake, masking, all it
sends) and speaking Engine.IO v4 / Socket.IO v5 by hand: ``0{..}`` → ``40``, ``2`` → ``3``,
``42["join",..]``. Once in the room it splits the server's (unmasked) frames itself and looks only at
``42["state"`` and ``42["update"`` frames, reading their ``"seq"`` without parsing the JSON (``--ws-parser``: websockets'
parser on every frame instead). The receive time is ``time.perf_counter()`` (CLOCK_MONOTONIC, the same
clock in every process on this machine) when the bytes reach the protocol (``buffer_updated``). To
show that the clients are not the bottleneck each client process also reports how busy it was between
the first and the last ``state`` of a POST (its CPU time over that wall time); well below 100 % means
it was waiting for the server. bench/README.md has the measurements behind these choices.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import multiprocessing as mp
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ports import free_block, free_port  # noqa: E402

ADMIN = "bench-organiser-token-0123"  # at least 24 characters (D48)
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

# ================================================================================================
# Spectators (client processes)


class Hub:
    """One client process: its spectators, and per POST (seq) how many of them have the new state."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.spectators: list[Spectator] = []
        self.joined = 0
        self.pending: dict[int, list[float]] = {}  # seq -> [count, first_t, last_t, cpu_at_first]
        self.fast_path = True
        self.read_buffer = memoryview(bytearray(1 << 16))
        self.bytes = 0  # received by the spectators in the room (every frame, headers included)

    def received(self, seq: int, t: float) -> None:
        rec = self.pending.get(seq)
        if rec is None:
            rec = self.pending[seq] = [0, t, t, time.process_time()]
        rec[0] += 1
        rec[2] = t
        if rec[0] >= self.joined:
            del self.pending[seq]
            cpu = time.process_time() - rec[3]
            self.conn.send(("seq", seq, int(rec[0]), rec[1], rec[2], cpu))


class Spectator(asyncio.BufferedProtocol):
    """A WebSocket spectator speaking Engine.IO 4 / Socket.IO 5 over websockets' sans-I/O protocol.

    A ``BufferedProtocol``: the loop reads into one buffer shared by the process. (A plain
    ``asyncio.Protocol`` has every read allocate 256 KiB, ``sock.recv(max_size)``: an mmap and munmap
    per read, 16 µs here, which made the client slower than the floor server.)
    """

    def __init__(self, hub: Hub, uri: str, join: bytes, joined: asyncio.Future[None]) -> None:
        from websockets.client import ClientProtocol
        from websockets.uri import parse_uri

        self.hub, self.join, self.joined = hub, join, joined
        self.ws = ClientProtocol(parse_uri(uri))  # no extensions: no compression, like a plain client
        self.request = self.ws.connect()
        self.transport: asyncio.Transport | None = None
        self.in_room = False
        self.fast = False
        self.closing = False
        self.buf = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.ws.send_request(self.request)
        self._flush()

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.hub.read_buffer

    def buffer_updated(self, nbytes: int) -> None:
        t = time.perf_counter()
        data = bytes(self.hub.read_buffer[:nbytes])
        if self.fast:
            self.hub.bytes += nbytes
            self._fast_frames(data, t)
            return
        ws = self.ws
        ws.receive_data(data)
        for ev in ws.events_received():
            payload = getattr(ev, "data", None)
            if getattr(ev, "opcode", None) is _TEXT and payload is not None:
                self._packet(bytes(payload), t)
            elif hasattr(ev, "status_code") and ev.status_code != 101:
                self._fail(f"handshake answered {ev.status_code}")
        self._flush()
        if self.in_room and self.hub.fast_path:
            self.fast = True  # joined: from now on the receive side takes the short path below

    def _fast_frames(self, data: bytes, t: float) -> None:
        """Receive side once in the room: split the server's frames (never masked, RFC 6455 5.1) by hand.

        Only what the measurement needs: a ``state`` frame's seq, Engine.IO pings, WebSocket ping/close.
        Sending still goes through websockets' protocol (masking).
        """
        buf = self.buf + data if self.buf else data
        i, n = 0, len(buf)
        while n - i >= 2:
            b0, ln, h = buf[i], buf[i + 1] & 0x7F, 2
            if ln == 126:
                if n - i < 4:
                    break
                ln, h = (buf[i + 2] << 8) | buf[i + 3], 4
            elif ln == 127:
                if n - i < 10:
                    break
                ln, h = int.from_bytes(buf[i + 2 : i + 10], "big"), 10
            start = i + h
            end = start + ln
            if end > n:
                break
            op = b0 & 0x0F
            if op == 1 and b0 & 0x80:
                if buf.startswith(b'42["update",{"seq":', start):  # one message per change (fanout.py)
                    j = start + 19
                    self.hub.received(int(buf[j : buf.find(b",", j, end)]), t)
                elif buf.startswith(b'42["state"', start):
                    j = buf.find(b'"seq":', start + 10, end)
                    self.hub.received(int(buf[j + 6 : buf.find(b",", j, end)]), t)
                elif ln == 1 and buf[start] == 0x32:  # Engine.IO ping "2"
                    self.ws.send_text(b"3")
                    self._flush()
            elif op == 9:
                self.ws.send_pong(buf[start:end])
                self._flush()
            elif op == 8:
                self.close()
                return
            elif op != 1 or not b0 & 0x80:
                self.hub.conn.send(("lost", f"unexpected frame opcode {op}, fin {b0 >> 7}"))
            i = end
        self.buf = buf[i:] if i < n else b""

    def _packet(self, p: bytes, t: float) -> None:
        if p.startswith(b'42["update",{"seq":'):
            if self.in_room:
                self.hub.received(int(p[19 : p.find(b",", 19)]), t)
        elif p.startswith(b'42["state"'):
            i = p.find(b'"seq":', 10)
            seq = int(p[i + 6 : p.find(b",", i)])
            if self.in_room:
                self.hub.received(seq, t)
            else:
                self.in_room = True
                if not self.joined.done():
                    self.joined.set_result(None)
        elif p.startswith(b"42"):
            pass  # the "event" frame that precedes each state
        elif p == b"2":
            self._send(b"3")  # Engine.IO ping from the server
        elif p.startswith(b"0{"):
            self._send(b"40")  # Engine.IO open → Socket.IO connect to namespace "/"
        elif p.startswith(b"40"):
            self._send(self.join)
        elif p.startswith(b"44") or p.startswith(b'42["error"'):
            self._fail(p[:200].decode(errors="replace"))

    def _send(self, text: bytes) -> None:
        self.ws.send_text(text)

    def _flush(self) -> None:
        if self.transport is None:
            return
        for chunk in self.ws.data_to_send():
            if chunk:
                self.transport.write(chunk)

    def _fail(self, why: str) -> None:
        if not self.joined.done():
            self.joined.set_exception(RuntimeError(why))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(f"connection lost: {exc}")
        if self.in_room and not self.closing:
            self.hub.conn.send(("lost", str(exc)))

    def close(self) -> None:
        self.closing = True
        if self.transport is not None:
            self.transport.abort()


def _text_opcode() -> Any:
    from websockets.frames import Opcode

    return Opcode.TEXT


_TEXT = _text_opcode()


def client_main(conn: Connection) -> None:
    """A client process: connects spectators on command and reports every POST's state arrivals."""
    _raise_nofile()
    asyncio.run(_client(conn))


def _raise_nofile(soft: int | None = None) -> None:
    """Set the soft limit on open files (default: as high as the hard limit allows, up to 65536)."""
    import resource

    cur, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = soft if soft is not None else 65536
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if want != cur:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


async def _spectator(hub: Hub, uri: str, host: str, port: int, join: bytes, sem: asyncio.Semaphore) -> Spectator | str:
    """One spectator connected and in the match's room, or why not."""
    loop = asyncio.get_running_loop()
    async with sem:
        joined: asyncio.Future[None] = loop.create_future()
        spec = Spectator(hub, uri, join, joined)
        try:
            await loop.create_connection(lambda: spec, host, port)
            await asyncio.wait_for(joined, 60)
        except Exception as exc:  # noqa: BLE001 - reported to the orchestrator
            spec.close()
            return f"{type(exc).__name__}: {exc}"
        return spec


async def _client(conn: Connection) -> None:
    hub = Hub(conn)
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    loop.add_reader(conn.fileno(), lambda: queue.put_nowait(conn.recv()))
    while True:
        cmd = await queue.get()
        if cmd[0] == "connect":
            _, host, port, path, join, target, concurrency, hub.fast_path = cmd
            t0 = time.perf_counter()
            sem = asyncio.Semaphore(concurrency)
            uri = f"ws://{host}:{port}{path}"
            missing = target - len(hub.spectators)
            results = await asyncio.gather(*(_spectator(hub, uri, host, port, join, sem) for _ in range(missing)))
            errors = [r for r in results if isinstance(r, str)]
            hub.spectators += [r for r in results if isinstance(r, Spectator)]
            hub.joined = len(hub.spectators)
            conn.send(("ready", hub.joined, errors[:3], len(errors), time.perf_counter() - t0))
        elif cmd[0] == "cpu":
            conn.send(("cpu", time.process_time(), hub.bytes))
        elif cmd[0] == "reset":
            hub.pending.clear()
            conn.send(("reset",))
        elif cmd[0] == "close":
            for s in hub.spectators:
                s.close()
            hub.spectators, hub.joined = [], 0
            conn.send(("closed",))
        elif cmd[0] == "quit":
            break
    loop.remove_reader(conn.fileno())
    done.cancel()


# ================================================================================================
# The floor: a bare asyncio websockets server doing the same work per POST


def serve_floor(http_port: int, ws_port: int, db: str) -> None:
    asyncio.run(_floor(http_port, ws_port, db))


async def _floor(http_port: int, ws_port: int, db: str) -> None:
    from websockets.asyncio.server import serve
    from websockets.frames import Frame, Opcode

    sys.path.insert(0, str(ROOT))
    from qalisball.live import fanout
    from qalisball.match.schemas import MatchSchema, parse_event
    from qalisball.match.service import MatchService
    from qalisball.storage.store import Store

    svc = MatchService(Store(db))
    out = fanout.Fanout()  # the project's own messages (one update per change, patches, legal for officials only)
    rooms: dict[str, set[Any]] = {}

    def frame(text: str) -> bytes:
        return Frame(Opcode.TEXT, ("4" + text).encode()).serialize(mask=False, extensions=[])

    def handle(method: str, path: str, body: bytes) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        if method == "GET" and parts == ["api", "matches"]:
            return 200, [m.id for m in svc.matches.values()]
        if method == "POST" and parts == ["api", "matches"]:
            m = svc.create(MatchSchema().load(json.loads(body)))
            return 201, {"id": m.id, "tokens": m.tokens}
        if method == "POST" and len(parts) == 4 and parts[3] == "events":
            data = json.loads(body)
            m = svc.get(parts[2])
            try:
                answer = svc.submit(m, "referee", data, parse_event(data))
            except Exception as exc:  # noqa: BLE001 - the floor answers every refusal alike
                return 409, {"error": "rule", "message": str(exc)}
            if answer.entry is not None:
                # The same messages as the project's, each encoded once and written to every socket of its room.
                for name, enc, room, _ in out.messages(m.id, answer.entry.public(), answer.state):
                    sockets = rooms.get(room)
                    if sockets:
                        part = frame("2[" + json.dumps(name) + "," + enc.text + "]")
                        for ws in sockets:
                            ws.transport.write(part)
            return answer.status, answer.body
        return 404, {"error": "not_found"}

    async def http_conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                method, path, _ = head[0].split(" ", 2)
                headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                status, payload = handle(method, path, body)
                data = json.dumps(payload).encode()
                writer.write(
                    f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
                    + data
                )
        writer.close()

    async def ws_conn(ws: Any) -> None:
        sid = os.urandom(8).hex()
        await ws.send(f'0{{"sid":"{sid}","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}}')
        joined: set[Any] | None = None
        try:
            async for msg in ws:
                if msg == "40":
                    await ws.send(f'40{{"sid":"{sid}"}}')
                elif msg.startswith('42["join"'):
                    data = json.loads(msg[2:])[1]
                    m = svc.get(str(data["match"]))
                    official = m.role_of(data.get("token")) is not None
                    room = fanout.room(m.id, official=official, updates=bool(data.get("updates")))
                    joined = rooms.setdefault(room, set())
                    joined.add(ws)
                    state = svc.state(m) if official else fanout.public_view(svc.state(m))
                    await ws.send("42" + json.dumps(["state", state], separators=(",", ":"), ensure_ascii=False))
        finally:
            if joined is not None:
                joined.discard(ws)

    http_server = await asyncio.start_server(http_conn, "127.0.0.1", http_port, backlog=1024)
    async with serve(ws_conn, "127.0.0.1", ws_port, compression=None, ping_interval=None, backlog=1024):
        print("floor ready", flush=True)
        async with http_server:
            await http_server.serve_forever()


# ================================================================================================
# The orchestrator


@dataclass
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    http_port: int
    ws_port: int
    log: Path
    status: Path | None = None  # a cluster's cluster.json: the processes whose CPU and memory count
    ws_ports: list[int] = field(default_factory=list)  # cluster-direct: client process i joins ws_ports[i % len]

    @property
    def pids(self) -> list[int]:
        if self.status is None:
            return [self.proc.pid]
        procs = json.loads(self.status.read_text())["processes"]
        return [p["pid"] for p in procs if p["pid"]]


def _cpu(server: Server) -> float:
    return sum(_proc_cpu_s(pid) for pid in server.pids)


def _rss(server: Server) -> int:
    return sum(_proc_rss_kb(pid) for pid in server.pids)


@dataclass
class Row:
    server: str
    n: int
    lat_ms: list[float] = field(default_factory=list)  # POST sent → last spectator has the state
    first_ms: list[float] = field(default_factory=list)  # POST sent → first spectator
    post_ms: list[float] = field(default_factory=list)  # POST sent → HTTP answer read
    busy: list[float] = field(default_factory=list)  # client CPU / wall between its first and last state
    server_cpu_ms: float = 0.0  # per event
    client_cpu_ms: float = 0.0  # per event, all client processes together
    rss_kb_per_spectator: float | None = None
    bytes_per_spectator: float = 0.0  # per event, as received
    connect_s: float = 0.0
    timeouts: int = 0
    lost: int = 0
    error: str | None = None


def _proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime, every thread of the process


def _proc_rss_kb(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def start_server(name: str, tmp: Path, nofile: int | None = None, workers: int = 2) -> Server:
    kind = name.split("-")[0]
    port = free_block(workers + 2) if kind == "cluster" else free_port()
    log = tmp / f"{name}.log"
    db = str(tmp / f"{name}.db")
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "QALISBALL_DB": db, "QALISBALL_ADMIN_TOKEN": ADMIN}
    env["QALISBALL_MAX_CONNECTIONS_PER_ADDRESS"] = "0"  # every spectator comes from 127.0.0.1 here (D52)
    env.pop("QALISBALL_MESSAGE_QUEUE", None)
    status = None
    if kind == "floor":
        ws_port = free_port()
        cmd = [sys.executable, __file__, "--serve-floor", str(port), str(ws_port), db]
    elif kind == "cluster":
        # qalisball/server/cluster.py as `make run-cluster` starts it: writer, spectator processes, Redis, HAProxy.
        ws_port = port
        cluster_dir = tmp / f"{name}-cluster"
        status = cluster_dir / "cluster.json"
        env.update(
            QALISBALL_WORKERS=str(workers),
            QALISBALL_MESSAGE_QUEUE=f"redis://127.0.0.1:{free_port()}/0",
            QALISBALL_CLUSTER_DIR=str(cluster_dir),
            QALISBALL_ASYNC_MODE="gevent",
        )
        cmd = [sys.executable, "-m", "qalisball.server.cluster"]
    else:
        ws_port = port
        env["QALISBALL_ASYNC_MODE"] = kind
        cmd = [sys.executable, str(ROOT / "app.py")]
    with open(log, "wb") as out:
        limit = None if nofile is None else (lambda: _raise_nofile(nofile))
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, preexec_fn=limit)
    server = Server(name, proc, port, ws_port, log, status)
    if name == "cluster-direct":  # the spectator processes themselves, without HAProxy in the way
        server.ws_ports = [port + 2 + i for i in range(workers)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} server exited: {log.read_text()[-2000:]}")
        try:
            if status is not None and not status.exists():
                raise OSError("the cluster is starting")
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/api/matches")
            if c.getresponse().status == 200:
                c.close()
                return server
        except OSError:
            time.sleep(0.2)
    stop_server(server)
    raise RuntimeError(f"{name} server did not answer on port {port}")


def stop_server(server: Server) -> None:
    if server.proc.poll() is None:
        server.proc.send_signal(signal.SIGINT)
        try:
            server.proc.wait(30 if server.status else 5)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(5)


class Referee:
    """Posts events over one kept-alive HTTP connection (TCP_NODELAY on our side)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.connect()
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.token = ""

    def post(self, path: str, body: dict[str, Any], token: str) -> tuple[int, Any, float, float]:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        t0 = time.perf_counter()
        self.conn.request("POST", path, body=data, headers=headers)
        r = self.conn.getresponse()
        payload = json.loads(r.read())
        return r.status, payload, t0, time.perf_counter()

    def close(self) -> None:
        self.conn.close()


def join_message(server: str, match_id: str, token: str) -> bytes:
    """What the spectators send to join: ``-api``: as API.md (``event`` + ``state``, no ``legal``);
    ``-legal``: with the referee's token (``event`` + ``state`` with ``legal``: what every spectator got
    before D90); otherwise one ``update`` per change (D91), as the project's pages join."""
    data: dict[str, Any] = {"match": match_id}
    if server.endswith("-legal"):
        data["token"] = token
    elif not server.endswith("-api"):
        data["updates"] = True
    return b"42" + json.dumps(["join", data], separators=(",", ":")).encode()


def _match_events(state: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Kickoff taken, goal by the team that took it, kickoff for the other team, ... (5.3, 7.1)."""
    while True:
        team = state["restart"]["team"]
        player = state["teams"][team]["on_field"][0]
        state = yield {"type": "restart_taken", "team": team, "player": player}
        state = yield {"type": "goal", "team": team, "player": player}


@dataclass
class Baseline:
    """One server with no spectator: the referee's POST round trip (catches the TCP_NODELAY trap)."""

    server: str
    post_ms: list[float]
    per_s: float
    state_bytes: int


def run_server(
    name: str,
    ns: list[int],
    posts: int,
    clients: list[tuple[Any, Connection]],
    tmp: Path,
    opts: argparse.Namespace,
) -> tuple[Baseline, list[Row]]:
    rows: list[Row] = []
    server = start_server(name, tmp, opts.server_nofile, opts.workers)
    ref = Referee(server.http_port)
    try:
        status, created, _, _ = ref.post("/api/matches", _demo_request(), ADMIN)
        assert status == 201, created
        match_id, token = created["id"], created["tokens"]["referee"]
        path = f"/api/matches/{match_id}/events"
        join = join_message(name, match_id, token)
        for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
            status, answer, _, _ = ref.post(path, body, token)
            assert status == 201, answer
        # No spectator yet: clock corrections (accepted, stored, broadcast to an empty room).
        base_ms = []
        t_base = time.perf_counter()
        for i in range(opts.baseline):
            status, answer, t0, t1 = ref.post(path, {"type": "clock", "action": "set", "elapsed_ms": i % 60 * 1000}, token)
            assert status == 201, answer
            base_ms.append((t1 - t0) * 1e3)
        per_s = opts.baseline / (time.perf_counter() - t_base)
        state_bytes = len("42" + json.dumps(["state", answer["state"]], separators=(",", ":")))
        baseline = Baseline(name, base_ms, per_s, state_bytes)
        print(
            f"  {name:<10} N=0     POST {_pct(base_ms, 50):5.2f} / {_pct(base_ms, 99):5.2f} ms, {per_s:,.0f} POSTs/s;"
            f" state frame {state_bytes} bytes",
            flush=True,
        )
        gen = _match_events(answer["state"])
        body = next(gen)
        rss0 = _rss(server)
        for n in ns:
            row = Row(name, n)
            rows.append(row)
            # Connect the spectators still missing, shared between the client processes.
            share = [n // len(clients) + (1 if i < n % len(clients) else 0) for i in range(len(clients))]
            t0 = time.perf_counter()
            ws_path = "/socket.io/?EIO=4&transport=websocket"
            for i, ((_, conn), k) in enumerate(zip(clients, share, strict=True)):
                ws_port = server.ws_ports[i % len(server.ws_ports)] if server.ws_ports else server.ws_port
                conn.send(("connect", "127.0.0.1", ws_port, ws_path, join, k, 50, not opts.ws_parser))
            joined, errors = 0, []
            for _, conn in clients:
                msg = _expect(conn, "ready", 300)
                joined += msg[1]
                errors += msg[2]
            row.connect_s = time.perf_counter() - t0
            if joined < n:
                row.error = f"only {joined} of {n} spectators joined: {errors[:2]}"
                print(f"  {name} N={n}: {row.error}", flush=True)
                break
            time.sleep(1.0)  # let the joins settle
            row.rss_kb_per_spectator = (_rss(server) - rss0) / n
            for i in range(posts + 3):  # the first 3 POSTs warm up and are not counted
                if i == 3:
                    cpu0 = _cpu(server)
                    asked = [_ask(conn, "cpu") for _, conn in clients]
                    ccpu0, bytes0 = sum(a[1] for a in asked), sum(a[2] for a in asked)
                status, answer, t_send, t_answer = ref.post(path, body, token)
                if status != 201:
                    raise RuntimeError(f"{name}: {body} refused: {answer}")
                seq = answer["seq"]
                reports = []
                for _, conn in clients:
                    msg = _expect(conn, "seq", opts.timeout, seq=seq)
                    if msg is None:
                        reports = []
                        break
                    reports.append(msg)
                if i >= 3:
                    if not reports:
                        row.timeouts += 1
                    else:
                        row.lat_ms.append((max(r[4] for r in reports) - t_send) * 1e3)
                        row.first_ms.append((min(r[3] for r in reports) - t_send) * 1e3)
                        row.post_ms.append((t_answer - t_send) * 1e3)
                        row.busy += [r[5] / (r[4] - r[3]) for r in reports if r[4] - r[3] > 0.002]
                if not reports:
                    for _, conn in clients:
                        _ask(conn, "reset")
                body = gen.send(answer["state"])
                time.sleep(opts.gap)
            row.server_cpu_ms = (_cpu(server) - cpu0) / posts * 1e3
            asked = [_ask(conn, "cpu") for _, conn in clients]
            row.client_cpu_ms = (sum(a[1] for a in asked) - ccpu0) / posts * 1e3
            row.bytes_per_spectator = (sum(a[2] for a in asked) - bytes0) / posts / n
            print(f"  {_line(row)}", flush=True)
    finally:
        ref.close()
        for _, conn in clients:
            conn.send(("close",))
        for _, conn in clients:
            _expect(conn, "closed", 60)
        stop_server(server)
    return baseline, rows


def _expect(conn: Connection, kind: str, timeout: float, seq: int | None = None) -> Any:
    """The next message of ``kind`` from a client process (for "seq": that seq), or None on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not conn.poll(left):
            return None
        msg = conn.recv()
        if msg[0] == kind and (seq is None or msg[1] == seq):
            return msg
        if msg[0] == "lost":
            print(f"    a spectator lost its connection: {msg[1]}", flush=True)


def _ask(conn: Connection, kind: str) -> Any:
    conn.send((kind,))
    return _expect(conn, kind, 30)


def _demo_request() -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from qalisball.server.demo import demo_request

    return demo_request()


def _busy(r: Row) -> float:
    return statistics.median(r.busy) * 100 if r.busy else 0.0


def _line(r: Row) -> str:
    if not r.lat_ms:
        return f"{r.server:<10} N={r.n:<5} no measurement ({r.error or 'timeouts'})"
    return (
        f"{r.server:<10} N={r.n:<5} last {_pct(r.lat_ms, 50):6.1f} / {_pct(r.lat_ms, 99):6.1f} ms   "
        f"first {_pct(r.first_ms, 50):5.1f}   POST answer {_pct(r.post_ms, 50):5.1f} / {_pct(r.post_ms, 99):5.1f} ms   "
        f"server CPU {r.server_cpu_ms:6.1f} ms/event   clients {r.client_cpu_ms:5.1f} ms/event, busy {_busy(r):3.0f} %"
        + (f"   {r.timeouts} timeouts" if r.timeouts else "")
    )


LABELS = {
    "gevent": "app.py, Flask-SocketIO gevent: one `update` per change (what the pages do)",
    "gevent-api": "app.py, gevent: API.md's `event` + `state` (no `legal`)",
    "gevent-legal": "app.py, gevent: `event` + `state` with `legal` (every spectator before D90)",
    "threading": "app.py, Flask-SocketIO threading, one `update` per change",
    "floor": "bare asyncio `websockets` + MatchService, the same `update` bytes (the floor)",
    "cluster": "cluster: writer + 2 gevent spectator processes + Redis, through HAProxy, `update`",
    "cluster-direct": "the same cluster, spectators straight to the 2 spectator processes (no proxy)",
}


def _med(values: list[float]) -> float:
    return statistics.median(values)


def _cell(rows: list[Row], s: str, n: int) -> tuple[float, float] | None:
    rs = [r for r in rows if r.server == s and r.n == n and r.lat_ms]
    if not rs:
        return None
    return _med([_pct(r.lat_ms, 50) for r in rs]), _med([_pct(r.lat_ms, 99) for r in rs])


def _cpu_at(rows: list[Row], s: str, n: int) -> float | None:
    rs = [r for r in rows if r.server == s and r.n == n and r.lat_ms]
    return _med([r.server_cpu_ms * 1e3 for r in rs]) if rs else None  # µs per event


def _slope(rows: list[Row], s: str, ns: list[int]) -> float | None:
    """Server CPU µs per spectator per event: the slope between the smallest and the largest N."""
    lo, hi = _cpu_at(rows, s, ns[0]), _cpu_at(rows, s, ns[-1])
    if lo is None or hi is None:
        return None
    return (hi - lo) / (ns[-1] - ns[0]) if len(ns) > 1 else hi / ns[0]


def print_table(rows: list[Row], baselines: list[Baseline], ns: list[int], servers: list[str], rounds: int) -> None:
    """Markdown tables; with several rounds every number is the median of the rounds' values."""
    of = f" (medians of {rounds} rounds)" if rounds > 1 else ""
    all_ns = sorted({r.n for r in rows} | set(ns))
    print()
    print(f"POST → last spectator, p50 / p99 ms{of}")
    print()
    over = f"slope N={ns[0]}→{ns[-1]}" if len(ns) > 1 else f"at N={ns[0]}"
    cpu_head = f"server CPU µs / spectator / event ({over})"
    print("| server | " + " | ".join(f"N={n}" for n in all_ns) + f" | {cpu_head} | KB / spectator | bytes / spectator / event |")
    print("| --- " * (len(all_ns) + 4) + "|")
    for s in servers:
        cells, kb, sent = [], [], []
        for n in all_ns:
            c = _cell(rows, s, n)
            failed = [r for r in rows if r.server == s and r.n == n and not r.lat_ms]
            if c is None:
                cells.append(f"failed: {failed[0].error or 'timeouts'}" if failed else "—")
                continue
            cell = f"{c[0]:.1f} / {c[1]:.1f}"
            timeouts = sum(r.timeouts for r in rows if r.server == s and r.n == n)
            if timeouts or failed:
                cell += f" ({timeouts} timeouts, {len(failed)} failed rounds)"
            cells.append(cell)
            rs = [r for r in rows if r.server == s and r.n == n and r.lat_ms]
            kb += [r.rss_kb_per_spectator for r in rs if r.rss_kb_per_spectator is not None and n == ns[-1]]
            sent += [r.bytes_per_spectator for r in rs if n == ns[-1]]
        slope = _slope(rows, s, ns)
        cpu_cell = f"{slope:.1f}" if slope is not None else "—"
        kb_cell = f"{_med(kb):.0f}" if kb else "—"
        sent_cell = f"{_med(sent):.0f}" if sent else "—"
        print(f"| {LABELS[s]} | " + " | ".join(cells) + f" | {cpu_cell} | {kb_cell} | {sent_cell} |")
    print()
    print(f"Referee's POST round trip, p50 / p99 ms{of} (N=0: no spectator; then while the N spectators are served)")
    print()
    print("| server | N=0 | " + " | ".join(f"N={n}" for n in all_ns) + " |")
    print("| --- " * (len(all_ns) + 2) + "|")
    for s in servers:
        bs = [b for b in baselines if b.server == s]
        cells = [
            f"{_med([_pct(b.post_ms, 50) for b in bs]):.2f} / {_med([_pct(b.post_ms, 99) for b in bs]):.2f}"
            f" ({_med([b.per_s for b in bs]):,.0f}/s)"
            if bs
            else "—"
        ]
        for n in all_ns:
            rs = [r for r in rows if r.server == s and r.n == n and r.post_ms]
            cells.append(
                f"{_med([_pct(r.post_ms, 50) for r in rs]):.1f} / {_med([_pct(r.post_ms, 99) for r in rs]):.1f}" if rs else "—"
            )
        print(f"| {s} | " + " | ".join(cells) + " |")
    print()
    print("Server and client CPU per event (ms), and the client processes' busy share between a POST's first and last state")
    print()
    print("| server | " + " | ".join(f"N={n}" for n in all_ns) + " |")
    print("| --- " * (len(all_ns) + 1) + "|")
    for s in servers:
        cells = []
        for n in all_ns:
            rs = [r for r in rows if r.server == s and r.n == n and r.lat_ms]
            if not rs:
                cells.append("—")
                continue
            cells.append(
                f"server {_med([r.server_cpu_ms for r in rs]):.1f}, clients {_med([r.client_cpu_ms for r in rs]):.1f}"
                f" ({_med([_busy(r) for r in rs]):.0f} % busy)"
            )
        print(f"| {s} | " + " | ".join(cells) + " |")
    print_issue_table(rows, ns, servers, of)


def print_issue_table(rows: list[Row], ns: list[int], servers: list[str], of: str) -> None:
    """Issue 15's lines, each beside its floor in this same run."""
    print()
    print(f"Issue 15, side by side with the floor of this run{of}")
    print()
    print("| what | project | floor | ratio | goal |")
    print("| --- | --- | --- | --- | --- |")
    n = 1000 if 1000 in ns else ns[-1]
    floor = _cell(rows, "floor", n)
    for s in ("gevent", "gevent-api", "gevent-legal", "cluster", "cluster-direct"):
        c = _cell(rows, s, n)
        if s not in servers or c is None or floor is None:
            continue
        print(
            f"| POST → last of {n} spectators, p50 / p99 ms: {s} | {c[0]:.1f} / {c[1]:.1f} | {floor[0]:.1f} / {floor[1]:.1f} "
            f"| {c[0] / floor[0]:.2f}× / **{c[1] / floor[1]:.2f}×** | p99 ≤ 1.5× |"
        )
    fs = _slope(rows, "floor", ns)
    for s in ("gevent", "gevent-api", "gevent-legal", "cluster", "cluster-direct"):
        sl = _slope(rows, s, ns)
        if s in servers and sl is not None and fs is not None:
            print(f"| server CPU µs / spectator / event: {s} | **{sl:.1f}** | {fs:.1f} | {sl / fs:.2f}× | ≤ 30 µs |")
    big = sorted({r.n for r in rows} - set(ns))
    for b in big:
        fb = _cell(rows, "floor", b)
        for s in ("cluster", "cluster-direct", "gevent"):
            c = _cell(rows, s, b)
            if c is not None and fb is not None:
                print(
                    f"| {b} spectators, p50 / p99 ms: {s} | {c[0]:.1f} / {c[1]:.1f} | {fb[0]:.1f} / {fb[1]:.1f} "
                    f"| {c[0] / fb[0]:.2f}× / **{c[1] / fb[1]:.2f}×** | cluster p99 ≤ 2× |"
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="N = 100 only")
    ap.add_argument("--ns", default="100,1000", help="spectator counts, comma-separated")
    ap.add_argument("--servers", default="gevent,gevent-api,gevent-legal,floor,cluster,cluster-direct", help="which servers")
    ap.add_argument("--big", type=int, default=5000, help="one more N for --big-servers only (0: none)")
    ap.add_argument("--big-servers", default="gevent,floor,cluster,cluster-direct", help="servers also measured at --big")
    ap.add_argument("--workers", type=int, default=2, help="spectator processes of the cluster")
    ap.add_argument("--posts", type=int, default=40, help="measured POSTs per server and N (after 3 warm-up POSTs)")
    ap.add_argument("--rounds", type=int, default=1, help="repeat everything; tables show medians (server order rotates)")
    ap.add_argument("--baseline", type=int, default=200, help="POSTs with no spectator, per server")
    ap.add_argument("--clients", type=int, default=2, help="client processes sharing the spectators")
    ap.add_argument("--gap", type=float, default=0.05, help="seconds between the end of a POST's fan-out and the next POST")
    ap.add_argument("--timeout", type=float, default=30, help="seconds to wait for the last spectator of a POST")
    ap.add_argument("--db-dir", help="where the servers' SQLite files go (default: the temp dir; /dev/shm: no fsync cost)")
    ap.add_argument("--server-nofile", type=int, help="soft open-file limit for the servers (e.g. 1024, a usual default)")
    ap.add_argument(
        "--ws-parser",
        action="store_true",
        help="spectators parse every frame with websockets' protocol (slower client: shows its cost)",
    )
    ap.add_argument("--serve-floor", nargs=3, metavar=("HTTP_PORT", "WS_PORT", "DB"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_floor:
        serve_floor(int(args.serve_floor[0]), int(args.serve_floor[1]), args.serve_floor[2])
        return

    ns = [100] if args.quick else sorted(int(x) for x in args.ns.split(","))
    servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    big_servers = {s.strip() for s in args.big_servers.split(",") if s.strip()}
    if args.quick:
        args.big = 0
    unknown = set(servers) - set(LABELS)
    if unknown:
        ap.error(f"unknown servers {sorted(unknown)}: choose from {sorted(LABELS)}")
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; N = {ns}; "
        f"{args.posts} POSTs per point; {args.rounds} round(s); {args.clients} client processes",
        flush=True,
    )
    if os.getloadavg()[0] > 1.5:
        print("  (the machine is busy: latencies will be noisy; compare servers within this run only)", flush=True)
    ctx = mp.get_context("spawn")
    clients = []
    for _ in range(args.clients):
        parent, child = ctx.Pipe()
        p = ctx.Process(target=client_main, args=(child,), daemon=True)
        p.start()
        clients.append((p, parent))
    tmp = Path(tempfile.mkdtemp(prefix="qalisball-broadcast-", dir=args.db_dir))
    rows: list[Row] = []
    baselines: list[Baseline] = []
    t0 = time.perf_counter()
    try:
        for k in range(args.rounds):
            if args.rounds > 1:
                print(f"round {k + 1}", flush=True)
            for name in servers[k % len(servers) :] + servers[: k % len(servers)]:
                big = [args.big] if args.big and name in big_servers and args.big not in ns else []
                baseline, got = run_server(name, ns + big, args.posts, clients, tmp, args)
                baselines.append(baseline)
                rows += got
    finally:
        for p, conn in clients:
            with contextlib.suppress(OSError):
                conn.send(("quit",))
            p.join(5)
            if p.is_alive():
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print_table(rows, baselines, ns, servers, args.rounds)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n(total {time.perf_counter() - t0:.0f} s, load {load})")


if __name__ == "__main__":
    main()
