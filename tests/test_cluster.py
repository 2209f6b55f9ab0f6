"""The cluster (D92, docs/deploy.md): one writer, two spectator processes, Redis and HAProxy, as
``make run-cluster`` starts them (``python -m qalisball.server.cluster``).

Spectators connect through the proxy and end up on both spectator processes; every one gets every
``state``, in order (API.md's ``event`` + ``state``, or one ``update`` per change). Then one spectator
process is killed (SIGKILL) while the referee goes on: no acknowledged event is lost, and the clients it
served reconnect through the proxy and get a fresh state. No timing is asserted: waits only have
generous deadlines.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio

from qalisball.live.fanout import apply_patch
from qalisball.server.demo import demo_request
from tests.ports import free_block
from tests.waiting import wait_until

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "cluster-test-organiser-token-0123456789"


def _wait(what: str, ok: Callable[[], Any], timeout: float = 60) -> Any:
    return wait_until(ok, what, timeout, every=0.1)


class Cluster:
    def __init__(self, tmp: Path, **extra_env: str) -> None:
        for binary in ("redis-server", "haproxy"):
            if shutil.which(binary) is None and not os.path.exists(f"/usr/sbin/{binary}"):
                if os.environ.get("CI"):
                    pytest.fail(f"{binary} is missing: scripts/ensure-system-deps.sh installs it")
                pytest.skip(f"{binary} is not installed (make system-deps)")
        self.port = free_block(4)
        self.redis_port = free_block(1)
        self.dir = tmp / "cluster"
        env = {
            **os.environ,
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "QALISBALL_WORKERS": "2",
            "QALISBALL_MESSAGE_QUEUE": f"redis://127.0.0.1:{self.redis_port}/0",
            "QALISBALL_DB": str(tmp / "cluster.db"),
            "QALISBALL_CLUSTER_DIR": str(self.dir),
            "QALISBALL_ADMIN_TOKEN": ADMIN,
            **extra_env,
        }
        self.log = open(tmp / "cluster.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "qalisball.server.cluster"], cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.base = f"http://127.0.0.1:{self.port}"
        self.queue = env["QALISBALL_MESSAGE_QUEUE"]
        _wait("the cluster to start", lambda: self.proc.poll() is not None or (self.dir / "cluster.json").exists(), 120)
        if self.proc.poll() is not None:  # closed here, or the open log fails a later test as an unraisable warning
            self.log.close()
        assert self.proc.poll() is None, (tmp / "cluster.log").read_text()[-3000:]

    def redis_password(self) -> str | None:
        """The password the launcher gave its Redis this run (None: none, as before D143)."""
        conf = self.dir / "redis.conf"
        if not conf.exists():
            return None
        return next((ln.split()[1] for ln in conf.read_text().splitlines() if ln.startswith("requirepass ")), None)

    @property
    def child_env(self) -> dict[str, str]:
        """What a process started by hand beside the cluster needs to join it: its Redis and its key."""
        env = {"QALISBALL_MESSAGE_QUEUE": self.queue}
        if (password := self.redis_password()) is not None:
            env["QALISBALL_MESSAGE_QUEUE"] = self.queue.replace("redis://", f"redis://:{password}@", 1)
        if (self.dir / "cluster.key").exists():
            env["QALISBALL_CLUSTER_KEY"] = (self.dir / "cluster.key").read_text().strip()
        return env

    def status(self) -> dict[str, Any]:
        return dict(json.loads((self.dir / "cluster.json").read_text()))

    def spectator_processes(self) -> list[dict[str, Any]]:
        return [p for p in self.status()["processes"] if p["name"].startswith("spectators")]

    def clients_of(self, port: int) -> int:
        return int(requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()["clients"])

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()
    assert not any(Path("/proc", str(p["pid"])).exists() for p in c.status()["processes"] if p["pid"]), "children left running"


class Spectator:
    """A python-socketio client through the proxy; joins again on every (re)connection, as the pages do."""

    def __init__(self, base: str, match_id: str, updates: bool, transports: list[str]) -> None:
        self.match_id, self.updates = match_id, updates
        self.states: list[dict[str, Any]] = []  # every whole state, in the order received or rebuilt
        self.connects = 0
        self.gaps = 0
        self.lock = threading.Lock()
        self.sio = socketio.Client(reconnection_delay=0.2, reconnection_delay_max=1)
        self.sio.on("connect", self._connected)
        self.sio.on("state", self._state)
        self.sio.on("update", self._update)
        self.sio.connect(base, transports=transports, wait_timeout=30)

    def _connected(self) -> None:
        self.connects += 1
        self.sio.emit("join", {"match": self.match_id, "updates": self.updates})

    def _state(self, s: dict[str, Any]) -> None:
        with self.lock:
            self.states.append(s)

    def _update(self, u: dict[str, Any]) -> None:
        with self.lock:
            last = self.states[-1] if self.states else None
            if "state" in u:
                self.states.append(u["state"])
            elif last is not None and last["seq"] == u["base"]:
                self.states.append(apply_patch(last, u["patch"]))
            else:
                self.gaps += 1  # as the pages do: join again for the whole state
                self.sio.emit("join", {"match": self.match_id, "updates": True})

    @property
    def seq(self) -> int:
        return self.states[-1]["seq"] if self.states else -1

    def close(self) -> None:
        self.sio.disconnect()


def _events() -> Iterator[dict[str, Any]]:
    yield {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}
    yield {"type": "period_start"}
    team, other = "home", "away"
    while True:
        yield {"type": "restart_taken", "team": team, "player": 1}
        yield {"type": "goal", "team": team, "player": 1}
        team, other = other, team


def test_D92_spectators_on_both_processes_get_every_state_and_survive_a_killed_process(cluster: Cluster) -> None:
    r = requests.post(
        f"{cluster.base}/api/matches", json=demo_request(), headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10
    )
    assert r.status_code == 201, r.text
    match_id, token = r.json()["id"], r.json()["tokens"]["referee"]
    forms = [(False, ["websocket"]), (True, ["websocket"]), (False, ["polling", "websocket"]), (True, ["polling", "websocket"])]
    spectators = [Spectator(cluster.base, match_id, updates, transports) for updates, transports in forms * 2]
    try:
        _wait("every spectator's first state", lambda: all(s.seq == 0 for s in spectators))
        procs = cluster.spectator_processes()
        assert len(procs) == 2
        served = [cluster.clients_of(p["port"]) for p in procs]
        assert sum(served) == len(spectators) and min(served) >= 1, f"the proxy spread {served}"

        events = _events()
        acknowledged: list[int] = []
        answered: dict[int, dict[str, Any]] = {}  # seq -> the state the writer answered, as spectators get it

        def post(n: int) -> None:
            for _ in range(n):
                r = requests.post(
                    f"{cluster.base}/api/matches/{match_id}/events",
                    json=next(events),
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=10,
                )
                assert r.status_code == 201, r.text
                acknowledged.append(r.json()["seq"])
                answered[r.json()["seq"]] = {k: v for k, v in r.json()["state"].items() if k != "legal"}

        post(8)
        _wait("the 8 states everywhere", lambda: all(s.seq == 8 for s in spectators))
        for s in spectators:
            assert [st["seq"] for st in s.states] == list(range(0, 9)), "every state, in order"
            assert s.states[1:] == [answered[q] for q in range(1, 9)] and s.gaps == 0

        # Kill one spectator process while the referee goes on.
        victim = procs[0]
        os.kill(victim["pid"], signal.SIGKILL)
        post(6)
        _wait("every spectator back with the latest state", lambda: all(s.seq == acknowledged[-1] for s in spectators), 90)
        reconnected = [s for s in spectators if s.connects > 1]
        assert len(reconnected) == served[0], "the killed process's clients, and only they, reconnected"
        log = requests.get(f"{cluster.base}/api/matches/{match_id}/events", timeout=10).json()
        assert [e["seq"] for e in log] == acknowledged == list(range(1, 15)), "no acknowledged event lost"
        for s in spectators:
            if s.connects == 1:
                assert s.states[-1] == answered[14]
            else:  # answered by a join: the same match at a later time
                assert {**s.states[-1], "clock": None, "server_time_ms": None, "return_countdown_ms": None} == {
                    **answered[14],
                    "clock": None,
                    "server_time_ms": None,
                    "return_countdown_ms": None,
                }
            seqs = [st["seq"] for st in s.states]
            assert seqs == sorted(seqs), "never an older state after a newer one"
            if s.connects == 1:
                assert seqs == list(range(0, 15)), "the other process's clients missed nothing"
        # The supervisor started the killed process again.
        _wait("the killed process back", lambda: any(p["starts"] == 2 for p in cluster.spectator_processes()), 60)
    finally:
        for s in spectators:
            s.close()


def test_fastws_keeps_every_frame_in_order_for_a_reader_that_falls_behind(tmp_path: Path) -> None:
    """Under gevent, broadcasts are written straight to idle sockets and queued behind busy ones (fastws.py).

    A spectator that stops reading (a tiny receive buffer, then no reads) fills its socket: the server's
    non-blocking writes then write part of a frame, or nothing, and queue the rest. When it reads again it
    must find every message whole and in order, as a spectator that kept reading does — up to the moment
    the server drops it for falling too far behind (D52: more than 64 packets waiting); it then joins
    again and gets the present state, never a broken or reordered frame.
    """
    import websocket  # websocket-client

    EVENTS = 700  # Linux lets a socket's send buffer grow to 4 MB (tcp_wmem): fill it
    port = free_block(1)
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "QALISBALL_DB": str(tmp_path / "fast.db"),
        "QALISBALL_ADMIN_TOKEN": ADMIN,
        "QALISBALL_ASYNC_MODE": "gevent",
    }
    env.pop("QALISBALL_MESSAGE_QUEUE", None)
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([sys.executable, str(ROOT / "app.py")], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:

        def up() -> bool:
            try:
                return requests.get(f"{base}/api/matches", timeout=2).status_code == 200
            except requests.RequestException:
                return proc.poll() is not None

        _wait("the server", up, 60)
        assert proc.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
        r = requests.post(f"{base}/api/matches", json=demo_request(), headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
        match_id, token = r.json()["id"], r.json()["tokens"]["referee"]
        url = f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket"

        def join(ws: Any) -> None:
            assert ws.recv().startswith("0{")
            ws.send("40")
            assert ws.recv().startswith("40")
            # As an official: the whole state with `legal` in every update, ~7 KB a message.
            ws.send("42" + json.dumps(["join", {"match": match_id, "updates": True, "token": token}]))
            assert ws.recv().startswith('42["state"')

        slow = websocket.create_connection(url, timeout=30, sockopt=((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),))
        steady = websocket.create_connection(url, timeout=30)
        join(slow), join(steady)
        steady_got: list[int] = []
        stop = threading.Event()

        def read_steadily() -> None:
            while not stop.is_set() and len(steady_got) < EVENTS:
                msg = steady.recv()
                if msg.startswith('42["update"'):
                    steady_got.append(json.loads(msg[2:])[1]["seq"])
                elif msg == "2":
                    steady.send("3")

        reader = threading.Thread(target=read_steadily, daemon=True)
        reader.start()
        events = _events()
        for _ in range(EVENTS):  # ~5 MB for the slow reader, who reads nothing meanwhile: more than a socket holds
            r = requests.post(
                f"{base}/api/matches/{match_id}/events",
                json=next(events),
                headers={"Authorization": f"Bearer {token}"},
                timeout=10,
            )
            assert r.status_code == 201, r.text
        slow_got: list[int] = []
        dropped = False
        while len(slow_got) < EVENTS:
            try:
                msg = slow.recv()
            except (websocket.WebSocketConnectionClosedException, ConnectionError):
                dropped = True  # D52: fell too far behind
                break
            if not msg:
                dropped = True
                break
            if msg.startswith('42["update"'):
                update = json.loads(msg[2:])[1]  # whole: it parses
                assert update["state"]["seq"] == update["seq"] and "legal" in update["state"]
                slow_got.append(update["seq"])
            elif msg == "2":
                slow.send("3")
        reader.join(60)
        stop.set()
        assert steady_got == list(range(1, EVENTS + 1))
        assert slow_got == list(range(1, len(slow_got) + 1)), "whole frames, in order, none missing"
        if dropped:
            again = websocket.create_connection(url, timeout=30)
            assert again.recv().startswith("0{")
            again.send("40")
            assert again.recv().startswith("40")
            again.send("42" + json.dumps(["join", {"match": match_id, "updates": True, "token": token}]))
            fresh = again.recv()
            assert fresh.startswith('42["state"') and json.loads(fresh[2:])[1]["seq"] == EVENTS
            again.close()
        with contextlib.suppress(Exception):
            slow.close()
        slow.sock and slow.sock.close()  # type: ignore[func-returns-value]
        steady.close()
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


# ---------------------------------------------------------------------------------------------
# Issue 20: the cluster under a real crowd (D140, D141)


async def _until_all(events: list[asyncio.Event], tasks: list[asyncio.Task[None]]) -> None:
    """Until every one of ``events`` is set; the first of ``tasks`` (the spectators) to fail fails the wait.

    Woken by the events and the tasks themselves, never by polling on a real clock."""
    everyone: asyncio.Future[list[bool]] = asyncio.gather(*(e.wait() for e in events))
    pending: set[asyncio.Future[object]] = {everyone, *tasks}  # type: ignore[arg-type]
    while not everyone.done():
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for t in done:
            if t is not everyone and not t.cancelled() and t.exception() is not None:
                everyone.cancel()
                raise AssertionError(f"a spectator failed: {t.exception()!r}")


async def _raw_spectator(
    url: str,
    match_id: str,
    source: str,
    seqs: list[int],
    joined: asyncio.Event,
    last: int,
    done: asyncio.Event,
    arrived: asyncio.Event | None = None,
) -> None:
    """A bare Engine.IO/Socket.IO WebSocket client from ``source`` (a loopback address): every state's seq into ``seqs``."""
    import websockets.asyncio.client

    async with websockets.asyncio.client.connect(
        url, local_addr=(source, 0), proxy=None, open_timeout=120, ping_interval=None, max_size=None, compression=None
    ) as ws:
        assert str(await ws.recv()).startswith("0{")
        await ws.send("40")
        while not str(await ws.recv()).startswith("40"):
            pass
        await ws.send("42" + json.dumps(["join", {"match": match_id}]))
        while True:
            msg = str(await ws.recv())
            if msg == "2":
                await ws.send("3")
            elif msg.startswith('42["state"'):
                seqs.append(json.loads(msg[2:])[1]["seq"])
                joined.set()
                if seqs[-1] >= last:
                    if arrived is not None:
                        arrived.set()
                    await done.wait()  # stay connected until every spectator is counted
                    return


def _status_line(host: str, port: int, path: str, source: str = "127.0.0.1") -> bytes:
    with socket.create_connection((host, port), timeout=10, source_address=(source, 0)) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return s.recv(65536).split(b"\r\n", 1)[0]


def _raise_open_files(want: int) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))


def test_D140_D141_a_thousand_spectators_from_many_addresses_get_every_state_and_health_checks_are_never_refused(
    cluster: Cluster, tmp_path: Path
) -> None:
    """Issue 20 item 1: 1,000 spectators (20 on each of 50 client addresses, 127.0.0.x) through HAProxy get every
    state in order, though each spectator process serves ~500 connections that all come from the proxy's
    address; D52's cap still holds per client address, at the proxy (D140); and a process at its own cap
    answers its health check (D141)."""
    _raise_open_files(4096)
    spectators, addresses, events_posted = 1000, 50, 5
    r = requests.post(
        f"{cluster.base}/api/matches", json=demo_request(), headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10
    )
    assert r.status_code == 201, r.text
    match_id, token = r.json()["id"], r.json()["tokens"]["referee"]
    url = f"ws://127.0.0.1:{cluster.port}/socket.io/?EIO=4&transport=websocket"
    received: list[list[int]] = [[] for _ in range(spectators)]

    async def crowd() -> None:
        joined = [asyncio.Event() for _ in range(spectators)]
        arrived = [asyncio.Event() for _ in range(spectators)]
        done = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        for i in range(spectators):
            source = f"127.0.0.{10 + i % addresses}"
            tasks.append(
                asyncio.create_task(
                    _raw_spectator(url, match_id, source, received[i], joined[i], events_posted, done, arrived[i])
                )
            )
            if i % 50 == 49:  # a crowd arriving fifty at a time, each fifty once the last has its state: no SYN flood
                await _until_all(joined[i - 49 : i + 1], tasks)
        await _until_all(joined, tasks)  # every spectator's first state (or the first failure)
        # Both spectator processes carry the crowd, far past the old cap of 100 per address, and answer their checks.
        served = [cluster.clients_of(p["port"]) for p in cluster.spectator_processes()]
        assert sum(served) == spectators and min(served) > 100, served
        events = _events()
        for _ in range(events_posted):
            answer = await asyncio.to_thread(
                requests.post,
                f"{cluster.base}/api/matches/{match_id}/events",
                json=next(events),
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            )
            assert answer.status_code == 201, answer.text
        await _until_all(arrived, tasks)  # every spectator has the last state (or the first failure)
        done.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)

    # A loop of its own, in a thread of its own: in the whole suite Playwright's sync API (the browser
    # tests' session fixture) keeps an event loop running in this thread, where asyncio.run() refuses.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, asyncio.wait_for(crowd(), 400)).result()
    assert all(seqs == list(range(0, events_posted + 1)) for seqs in received), "every state, in order, to everyone"

    # D140: the cap still holds per client address, counted by the proxy on the client's own address.
    held = [
        socket.create_connection(("127.0.0.1", cluster.port), timeout=10, source_address=("127.0.0.250", 0)) for _ in range(100)
    ]
    try:
        _wait(
            "the proxy to refuse the address's 101st connection",
            lambda: _status_line("127.0.0.1", cluster.port, "/api/matches", source="127.0.0.250").startswith(b"HTTP/1.1 429"),
        )
        assert _status_line("127.0.0.1", cluster.port, "/api/matches", source="127.0.0.251") == b"HTTP/1.1 200 OK"
    finally:
        for s in held:
            s.close()
    _wait(
        "a freed address let in again",
        lambda: _status_line("127.0.0.1", cluster.port, "/api/matches", source="127.0.0.250") == b"HTTP/1.1 200 OK",
    )

    # D141: a spectator process at its own cap (here 5) refuses the next client but never its health check.
    port = free_block(1)
    writer = next(p for p in cluster.status()["processes"] if p["name"] == "writer")
    env = {
        **os.environ,
        **cluster.child_env,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "QALISBALL_ROLE": "spectators",
        "QALISBALL_WRITER_URL": f"http://127.0.0.1:{writer['port']}",
        "QALISBALL_MAX_CONNECTIONS_PER_ADDRESS": "5",
    }
    with open(tmp_path / "capped.log", "wb") as log:
        capped = subprocess.Popen([sys.executable, str(ROOT / "app.py")], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait("the capped spectator process", lambda: _answers(port))
        full = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(5)]
        try:
            _wait(
                "the process to refuse its 6th connection",
                lambda: _status_line("127.0.0.1", port, "/socket.io/?EIO=4&transport=polling").startswith(b"HTTP/1.1 429"),
            )
            assert _status_line("127.0.0.1", port, "/healthz") == b"HTTP/1.1 200 OK"
        finally:
            for s in full:
                s.close()
    finally:
        capped.terminate()
        capped.wait(10)


def _answers(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def test_D142_spectator_processes_advertise_the_pings_they_enforce(tmp_path: Path) -> None:
    """Issue 20 item 9: a spectator process advertised 25 s pings but closed sockets idle for 25 s (a raw client
    answering every ping was dropped at 50 s). With short intervals (1 s + 1 s: idle bound 1 + 1 + 5 = 7 s, D52)
    the open packet through the proxy advertises them, a client that answers every ping stays connected for
    four idle bounds, and a connection that says nothing is closed meanwhile."""
    import websocket  # websocket-client

    c = Cluster(tmp_path, QALISBALL_PING_INTERVAL="1", QALISBALL_PING_TIMEOUT="1")
    try:
        r = requests.post(f"{c.base}/api/matches", json=demo_request(), headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
        match_id = r.json()["id"]
        keeper = websocket.create_connection(f"ws://127.0.0.1:{c.port}/socket.io/?EIO=4&transport=websocket", timeout=30)
        opened = json.loads(keeper.recv()[1:])
        assert (opened["pingInterval"], opened["pingTimeout"]) == (1000, 1000), opened
        keeper.send("40")
        assert keeper.recv().startswith("40")
        idle = socket.create_connection(("127.0.0.1", c.spectator_processes()[0]["port"]), timeout=60)
        pings = 0
        while pings < 4 * 7:  # four idle bounds of 7 s, one ping a second
            msg = keeper.recv()
            if msg == "2":
                keeper.send("3")
                pings += 1
        idle.setblocking(False)  # closed by now, not later: recv answers at once either way
        with contextlib.suppress(BlockingIOError):
            assert idle.recv(1) == b""
            idle.close()
        assert idle.fileno() == -1, "a connection idle for longer than interval + timeout + 5 s is closed meanwhile"
        keeper.send("42" + json.dumps(["join", {"match": match_id}]))
        while not (msg := keeper.recv()).startswith('42["state"'):
            if msg == "2":
                keeper.send("3")
        assert json.loads(msg[2:])[1]["seq"] == 0, "the client that answered every ping is still served"
        keeper.close()
    finally:
        c.stop()


def _forged_state(match_id: str, genuine: dict[str, Any]) -> dict[str, Any]:
    """The state a hostile local process would like spectators to see: 99–0, seq 10⁹."""
    from qalisball.live.fanout import Encoded, QueueJSON, dumps

    forged = {**genuine, "seq": 10**9, "score": {"home": 99, "away": 0}}
    encoded = Encoded(dumps(forged), "public_state", match_id, 10**9)
    return {
        "method": "emit",
        "event": "state",
        "data": [QueueJSON.loads(QueueJSON.dumps(encoded))],
        "binary": False,
        "namespace": "/",
        "room": match_id,
        "skip_sid": None,
        "callback": None,
        "host_id": "forger",
    }


def test_D143_a_forged_publish_on_redis_reaches_no_spectator_and_no_join(cluster: Cluster) -> None:
    """Issue 20 item 7: a local process publishes a forged `state` (99–0, seq 10⁹) on the cluster's Redis channel:
    without the password Redis refuses it; with the password (a process that read it), unsigned, signed with
    another key, or a genuine message sent again, the spectator processes drop it: no spectator shows it and
    a new join is answered the genuine state."""
    import redis

    from qalisball.live.fanout import CHANNEL, QueueJSON

    r = requests.post(
        f"{cluster.base}/api/matches", json=demo_request(), headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10
    )
    match_id, token = r.json()["id"], r.json()["tokens"]["referee"]
    events = _events()

    def post() -> dict[str, Any]:
        answer = requests.post(
            f"{cluster.base}/api/matches/{match_id}/events",
            json=next(events),
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        return {k: v for k, v in answer.json()["state"].items() if k != "legal"}

    genuine = post()
    spectators = [Spectator(cluster.base, match_id, updates, ["websocket"]) for updates in (False, True, False, True)]
    try:
        _wait("every spectator's state", lambda: all(s.seq == genuine["seq"] for s in spectators))
        port = int(cluster.queue.rsplit(":", 1)[1].split("/")[0])
        forged = _forged_state(match_id, genuine)
        refused_without_password = False
        try:  # 1. no password: a local process that never read the cluster's files
            redis.Redis(port=port, socket_timeout=5).publish(CHANNEL, QueueJSON.dumps(forged))
        except (redis.AuthenticationError, redis.ResponseError):
            refused_without_password = True
        password = cluster.redis_password()
        if password is not None:  # 2. a process that has the password but not the key
            from qalisball.live.fanout import SignedQueueJSON

            with_password = redis.Redis(port=port, password=password, socket_timeout=5)
            listener = with_password.pubsub(ignore_subscribe_messages=True)
            listener.subscribe(CHANNEL)
            listener.get_message(timeout=5)  # the subscription's confirmation
            middle = post()
            _wait("the middle state everywhere", lambda: all(s.seq == middle["seq"] for s in spectators))
            captured = [m["data"] for m in iter(lambda: listener.get_message(timeout=1), None)]
            assert captured, "the writer's messages were heard on the channel"
            with_password.publish(CHANNEL, QueueJSON.dumps(forged))  # unsigned
            with_password.publish(CHANNEL, SignedQueueJSON("another key, not the cluster's one.....").dumps(forged))
            with_password.publish(CHANNEL, b"not even json")
            latest = post()
            _wait("the latest state everywhere", lambda: all(s.seq == latest["seq"] for s in spectators))
            for message in captured:  # the writer's own signed messages, sent again: an older state
                with_password.publish(CHANNEL, message)
        latest = post()  # after the forgeries on the same channel: once it is shown, they were handled
        _wait("the genuine state everywhere", lambda: all(s.seq == latest["seq"] for s in spectators))
        for s in spectators:
            assert all(st["seq"] < 10**9 and st["score"] != {"home": 99, "away": 0} for st in s.states), "a forgery was shown"
            seqs = [st["seq"] for st in s.states]
            assert seqs == sorted(seqs), f"an older state was shown again: {seqs}"
        late = Spectator(cluster.base, match_id, False, ["websocket"])
        spectators.append(late)
        _wait("the late spectator's state", lambda: late.states)
        assert late.states[0]["seq"] == latest["seq"], "a new join is answered the genuine state"
        assert refused_without_password, "Redis refuses a publish without the password"
    finally:
        for s in spectators:
            s.close()


class Listener:
    """A python-socketio client through the proxy that records every message it hears, by name."""

    def __init__(self, base: str, url_flags: str = "", auth: dict[str, str] | None = None) -> None:
        self.heard: list[tuple[str, Any]] = []
        self.lock = threading.Lock()
        self.sio = socketio.Client(reconnection=False)
        self.sio.on("*", lambda name, *args: self._heard(name, args))
        self.sio.connect(base + url_flags, transports=["websocket"], wait_timeout=30, auth=auth)

    def _heard(self, name: str, args: Any) -> None:
        with self.lock:
            self.heard.append((name, args[0] if args else None))

    def names(self) -> list[str]:
        with self.lock:
            return [n for n, _ in self.heard]

    def close(self) -> None:
        self.sio.disconnect()


def test_issue33_item7_venue_screens_and_competition_pages_get_their_live_updates_through_the_proxy(cluster: Cluster) -> None:
    organiser = {"Authorization": f"Bearer {ADMIN}"}
    matches = requests.get(f"{cluster.base}/api/matches", timeout=10).json()
    match_id = (matches["matches"] if isinstance(matches, dict) else matches)[0]["id"]
    comps = requests.get(f"{cluster.base}/api/competitions", timeout=10).json()
    comp_id = (comps["competitions"] if isinstance(comps, dict) else comps)[0]["id"]
    # As venue.js and competition.js connect: no flag, so to the spectator processes.
    screen, page = Listener(cluster.base), Listener(cluster.base)
    try:
        screen.sio.emit("join_screen", {"screen": "field-9"})
        page.sio.emit("join_competition", {"competition": comp_id})
        _wait("the screen's first answer", lambda: "screen" in screen.names())
        _wait("the competition's first answer", lambda: "competition" in page.names())
        assert screen.heard[0][1]["show"] == "blank"
        assert page.heard[0][1]["id"] == comp_id
        r = requests.put(
            f"{cluster.base}/api/screens/field-9", json={"show": "scoreboard", "match": match_id}, headers=organiser, timeout=10
        )
        assert r.status_code in (200, 201), r.text
        _wait("the screen's switch", lambda: screen.names().count("screen") == 2)
        assert screen.heard[-1][1]["src"] == f"/matches/{match_id}/scoreboard"
        fixture = requests.get(f"{cluster.base}/api/competitions/{comp_id}", timeout=10).json()["fixtures"][0]
        lineup = {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}}
        r = requests.post(
            f"{cluster.base}/api/competitions/{comp_id}/fixtures/{fixture['id']}/match",
            json=lineup,
            headers=organiser,
            timeout=30,
        )
        assert r.status_code in (200, 201), r.text
        _wait("the competition's change", lambda: len(page.names()) >= 2)
        served = [cluster.clients_of(p["port"]) for p in cluster.spectator_processes()]
        assert sum(served) == 2, f"both served by the spectator processes ({served}), none by the writer"
    finally:
        screen.close()
        page.close()


def test_issue33_item1_the_official_flag_reaches_the_writer_only_with_a_role(cluster: Cluster) -> None:
    organiser = {"Authorization": f"Bearer {ADMIN}"}
    made = requests.post(f"{cluster.base}/api/matches", json=demo_request(), headers=organiser, timeout=10).json()
    for flags in ("/?official=1", "/?writer=1&official=1"):
        with pytest.raises(socketio.exceptions.ConnectionError):
            Listener(cluster.base, flags)  # the writer refuses what proves no role
        with pytest.raises(socketio.exceptions.ConnectionError):
            Listener(cluster.base, flags, auth={"token": "not-a-token-of-any-match"})
    # `writer=1` alone is no route any more: the spectator processes serve it like any page.
    before = [cluster.clients_of(p["port"]) for p in cluster.spectator_processes()]
    anyone = Listener(cluster.base, "/?writer=1")
    console = Listener(cluster.base, "/?official=1", auth={"token": made["tokens"]["referee"]})
    try:
        after = [cluster.clients_of(p["port"]) for p in cluster.spectator_processes()]
        assert sum(after) == sum(before) + 1, "the flag-bearing anonymous client is a spectator process's"
        console.sio.emit("join", {"match": made["id"], "token": made["tokens"]["referee"]})
        _wait("the console's state", lambda: "state" in console.names())
        assert "legal" in console.heard[-1][1], "the console reached the writer and is an official"
    finally:
        anyone.close()
        console.close()
