"""Issue 33: no reader can take the officials' server away from the officials (D240–D245).

The mechanisms, never a time (bench/officials_under_load.py prints the referee's POST under each load):
the readers' bound and the writes' priority (root cause), the join budget of every room (item 1), one
line of log per request and /docs names too long for the file system (item 6), the handshakes and header
sizes per address (item 13).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

from qalisball.web.priority import ReaderGate


class HeldApp:
    """A WSGI app whose requests wait until the test lets each one go (by path)."""

    def __init__(self) -> None:
        self.entered: list[str] = []
        self.release: dict[str, threading.Event] = {}
        self.lock = threading.Lock()
        self.changed = threading.Condition()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ["PATH_INFO"]
        with self.changed:
            self.entered.append(path)
            self.changed.notify_all()
        self.release.setdefault(path, threading.Event()).wait(10)
        start_response("200 OK", [])
        return [b""]

    def wait_entered(self, n: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.entered) >= n, 10), self.entered


def _request(gate: ReaderGate, method: str, path: str) -> threading.Thread:
    t = threading.Thread(target=lambda: gate({"REQUEST_METHOD": method, "PATH_INFO": path}, lambda *a: None))
    t.start()
    return t


def _until(check: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(1000):
        if check():
            return
        done.wait(0.01)
    raise AssertionError("never happened")


def test_issue33_root_reads_are_bounded_and_none_starts_while_a_write_is_under_way() -> None:
    held = HeldApp()
    gate = ReaderGate(held, readers=2, clock=lambda: 0.0)  # a clock that never moves: patience never runs out
    for p in ("/r1", "/r2", "/r3"):
        held.release[p] = threading.Event()
    r1, r2 = _request(gate, "GET", "/r1"), _request(gate, "GET", "/r2")
    held.wait_entered(2)
    r3 = _request(gate, "GET", "/r3")
    _until(lambda: gate.waited == 1)
    assert sorted(held.entered) == ["/r1", "/r2"] and gate.reading == 2  # the third read waits for a place
    w = _request(gate, "POST", "/w")  # a write is never held
    held.wait_entered(3)
    assert held.entered[-1] == "/w" and gate.writing == 1
    held.release["/r1"].set()
    held.release["/r2"].set()
    r1.join(10), r2.join(10)
    _until(lambda: gate.reading == 0)
    assert "/r3" not in held.entered  # places free, but a write is under way: the read still waits
    held.release["/w"] = held.release.get("/w") or threading.Event()
    held.release["/w"].set()
    w.join(10)
    held.wait_entered(4)
    assert held.entered[-1] == "/r3"
    held.release["/r3"].set()
    r3.join(10)


def test_issue33_root_a_read_waits_for_writes_only_so_long() -> None:
    now = [0.0]
    held = HeldApp()
    gate = ReaderGate(held, readers=2, patience_s=1.0, clock=lambda: now[0])
    w = _request(gate, "POST", "/w")
    held.wait_entered(1)
    r = _request(gate, "GET", "/r")
    _until(lambda: gate.waited == 1)
    now[0] = 2.0  # the write still runs, but the read has waited long enough: a flood of writes never stops reads
    held.release["/r"] = threading.Event()
    held.release["/r"].set()
    r.join(10)
    assert "/r" in held.entered
    held.release["/w"].set()
    w.join(10)


def test_issue33_root_live_connections_and_health_checks_pass_the_gate(app: Flask) -> None:
    gate = app.wsgi_app
    assert isinstance(gate, ReaderGate) and gate.readers == app.config["READERS_AT_ONCE"] > 0
    held = HeldApp()
    inner = ReaderGate(held, readers=1, clock=lambda: 0.0)
    first = _request(inner, "GET", "/page")
    held.wait_entered(1)
    for path in ("/socket.io/", "/healthz"):
        held.release[path] = threading.Event()
        held.release[path].set()
        _request(inner, "GET", path).join(10)
        assert path in held.entered  # not held behind the page
    held.release["/page"].set()
    first.join(10)


def test_issue33_root_a_write_off_the_loop_shortens_the_switch_interval_while_it_runs() -> None:
    from qalisball.storage import store

    before = sys.getswitchinterval()
    with store.writes_first():
        assert sys.getswitchinterval() == min(store.WRITE_SWITCH_S, before) < 0.005
        with store.writes_first():
            pass
        assert sys.getswitchinterval() < 0.005  # a nested write keeps it short
    assert sys.getswitchinterval() == before


# ---------------------------------------------------------------------------------------------
# Item 1: every room's joins and leaves share the connection's budget (D156, D241); errors repeat a prefix


def test_issue33_item1_join_screen_and_leave_screen_share_the_join_budget(app: Flask, clock: Any) -> None:
    from qalisball import socketio
    from qalisball.live.rooms import JOIN_BURST, JOIN_EVERY_MS

    storm = socketio.test_client(app)
    for i in range(JOIN_BURST):
        storm.emit("join_screen", {"screen": f"s-{i}"})
    assert [m["name"] for m in storm.get_received()] == ["screen"] * JOIN_BURST
    for i in range(25):
        storm.emit("join_screen", {"screen": f"t-{i}"})
        storm.emit("leave_screen", {"screen": f"t-{i}"})
    got = storm.get_received()
    assert [m["name"] for m in got] == ["error"], "one refusal, the rest dropped unanswered"
    assert got[0]["args"][0]["error"] == "too_many_requests"
    storm.emit("join", {"match": "anything"})  # a match's join: the same budget
    assert storm.get_received() == []
    # leave_screen alone is a frame of the budget too: once drained, ten leaves use it up again.
    clock.advance(JOIN_BURST * JOIN_EVERY_MS)
    for _ in range(JOIN_BURST):
        storm.emit("leave_screen", {"screen": "s-0"})
    storm.emit("join_screen", {"screen": "s-0"})
    assert [m["args"][0]["error"] for m in storm.get_received()] == ["too_many_requests"]
    # Another connection is not slowed by it.
    other = socketio.test_client(app)
    other.emit("join_screen", {"screen": "field-1"})
    assert [m["name"] for m in other.get_received()] == ["screen"]


def test_issue33_item1_a_connection_that_storms_on_past_the_budget_is_closed(app: Flask) -> None:
    from qalisball import socketio
    from qalisball.live.rooms import DROP_AFTER, JOIN_BURST

    storm = socketio.test_client(app)
    for i in range(JOIN_BURST + DROP_AFTER + 1):
        storm.emit("join_screen", {"screen": f"s-{i}"})
    assert not storm.is_connected(), "a storm's frames would keep the loop reading: the connection is dropped"
    other = socketio.test_client(app)
    other.emit("join_screen", {"screen": "field-1"})
    assert [m["name"] for m in other.get_received()] == ["screen"]


def test_issue33_item1_D241_a_storms_tcp_connection_is_shut_so_what_it_already_sent_is_never_read(app: Flask) -> None:
    """Closing the Socket.IO session is not enough: the server went on reading the 50,000 frames already in the
    socket (the referee held 10.8 s in bench/officials_under_load.py's storm, 22 ms with the shutdown)."""
    import socket

    from qalisball import socketio
    from qalisball.live.rooms import DROP_AFTER, JOIN_BURST

    class Connection:
        shut: list[int] = []

        def shutdown(self, how: int) -> None:
            self.shut.append(how)

    storm = socketio.test_client(app)
    environ = socketio.server.environ[storm.eio_sid]
    environ["wsgi.websocket"], environ["qalisball.connection"] = object(), Connection()  # as serving.py keeps them
    for i in range(JOIN_BURST + DROP_AFTER + 1):
        storm.emit("join_screen", {"screen": f"s-{i}"})
    assert Connection.shut == [socket.SHUT_RDWR]


def test_issue33_item1_the_leaves_of_matches_and_competitions_count_too(app: Flask) -> None:
    from qalisball import socketio
    from qalisball.live.rooms import JOIN_BURST

    storm = socketio.test_client(app)
    for _ in range(JOIN_BURST // 2):
        storm.emit("leave", {"match": "m"})
        storm.emit("leave_competition", {"competition": "c"})
    storm.emit("join_screen", {"screen": "field-1"})
    assert [m["args"][0]["error"] for m in storm.get_received()] == ["too_many_requests"]


def test_issue33_item1_a_connection_watches_one_screen_a_storm_of_names_holds_no_rooms(app: Flask, clock: Any) -> None:
    from qalisball import socketio
    from qalisball.live.rooms import JOIN_EVERY_MS

    screen = socketio.test_client(app)
    for i in range(30):
        clock.advance(JOIN_EVERY_MS)
        screen.emit("join_screen", {"screen": f"name-{i}"})
    server = socketio.server
    sid = screen.eio_sid and server.manager.sid_from_eio_sid(screen.eio_sid, "/")
    held = [r for r in server.rooms(sid, namespace="/") if r.startswith("screen:")]
    assert held == ["screen:name-29"]


def test_issue33_item1_an_error_repeats_only_a_short_prefix_of_the_clients_input(app: Flask, clock: Any) -> None:
    from qalisball import socketio
    from qalisball.live.rooms import JOIN_EVERY_MS, SHOWN_CHARS

    sio = socketio.test_client(app)
    huge = "x" * 900_000
    for event, body in (
        ("join_screen", {"screen": huge}),
        ("join", {"match": huge}),
        ("join_competition", {"competition": huge}),
        ("join", {"match": [huge] * 3}),
    ):
        clock.advance(JOIN_EVERY_MS)
        sio.emit(event, body)
        [error] = sio.get_received()
        assert error["name"] == "error" and error["args"][0]["error"] == "not_found"
        assert len(error["args"][0]["message"]) <= SHOWN_CHARS + 20, error["args"][0]["message"][:80]


# ---------------------------------------------------------------------------------------------
# Item 6: a name too long for the file system is a 404; no request writes more than a line to the log


class Lines:
    """Every line the app's logger would write (a traceback's lines included)."""

    def __init__(self) -> None:
        import logging

        self.lines: list[str] = []
        outer = self

        class Handler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                outer.lines += self.format(record).splitlines()

        self.handler = Handler()
        self.handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))


def test_issue33_item6_a_docs_name_too_long_for_the_file_system_is_a_404_and_logs_nothing(app: Flask, tmp_path: Any) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>docs</p>")
    app.config["DOCS_SITE"] = str(site)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    log = Lines()
    app.logger.addHandler(log.handler)
    client = app.test_client()
    for name in ("a" * 256, "b" * 300 + "/index.html", "é" * 200):
        assert client.get(f"/docs/{name}").status_code == 404
    assert client.get("/docs/").status_code == 200
    assert log.lines == []


def test_issue33_item6_a_hundred_failing_requests_write_at_most_a_hundred_lines(app: Flask) -> None:
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/boom-for-the-test")
    def boom() -> str:
        raise RuntimeError("line one\n" + "x" * 20_000 + "\nline three")

    log = Lines()
    app.logger.addHandler(log.handler)
    client = app.test_client()
    for _ in range(100):
        assert client.get("/boom-for-the-test?" + "q" * 2000).status_code == 500
    assert 0 < len(log.lines) <= 100
    from qalisball.web.hardening import LOGGED_CHARS

    assert all(len(line) <= LOGGED_CHARS + 10 for line in log.lines)
    assert "RuntimeError" in log.lines[0]


# ---------------------------------------------------------------------------------------------
# Item 13: handshakes per address, header sizes


def test_issue33_item13_engineio_handshakes_are_capped_per_address(app: Flask) -> None:
    from qalisball.web.priority import HandshakeBudget

    now = [0.0]
    calls: list[str] = []

    def inner(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        calls.append(environ["QUERY_STRING"])
        start_response("200 OK", [])
        return [b""]

    budget = HandshakeBudget(inner, burst=5, every_s=1.0, clock=lambda: now[0])
    statuses: list[str] = []

    def hit(query: str, address: str = "10.0.0.1") -> None:
        env = {"PATH_INFO": "/socket.io/", "QUERY_STRING": query, "REMOTE_ADDR": address, "REQUEST_METHOD": "GET"}
        budget(env, lambda status, headers: statuses.append(status))

    for _ in range(8):
        hit("EIO=4&transport=polling")
    assert [s[:3] for s in statuses] == ["200"] * 5 + ["429"] * 3
    hit("EIO=4&transport=polling&sid=abc")  # an open session's requests are never counted
    hit("EIO=4&transport=polling", address="10.0.0.2")  # another address has its own bucket
    assert statuses[-2:] == ["200 OK", "200 OK"]
    now[0] = 1.0
    hit("EIO=4&transport=polling")
    assert statuses[-1] == "200 OK"  # one more a second
    # The app's own stack counts them, on the address the proxy forwarded when behind one.
    assert any(isinstance(m, HandshakeBudget) for m in _middlewares(app.wsgi_app))
    assert HandshakeBudget(inner, hops=1).address({"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "1.2.3.4"}) == "1.2.3.4"


def _middlewares(wsgi: Any) -> list[Any]:
    found = []
    while wsgi is not None and len(found) < 20:
        found.append(wsgi)
        wsgi = getattr(wsgi, "app", None)
    return found


def test_issue33_item13_engineio_handshakes_through_the_app_stop_at_the_burst(app: Flask) -> None:
    app.config["HANDSHAKE_BURST"] = 3
    from qalisball.web import priority

    gate = priority.install(app, 2)  # the factory's install, again, with a burst of 3
    client = app.test_client()
    codes = [client.get("/socket.io/?EIO=4&transport=polling").status_code for _ in range(6)]
    assert codes == [200, 200, 200, 429, 429, 429]
    assert isinstance(gate, priority.ReaderGate)


def test_issue33_item13_an_oversized_header_is_a_431_before_anything_reads_it(client: Any) -> None:
    from qalisball.web.hardening import MAX_HEADER_BYTES

    huge = ("en-GB;q=0.9," * 6000)[: 64 * 1024]
    assert client.get("/", headers={"Accept-Language": huge}).status_code == 431
    r = client.get("/api/matches", headers={"Accept-Language": huge})
    assert r.status_code == 431 and r.get_json()["error"] == "header_too_large"
    assert client.get("/", headers={"X-Anything": "a" * (MAX_HEADER_BYTES + 1)}).status_code == 431
    assert client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}).status_code == 200


# ---------------------------------------------------------------------------------------------
# The review of issue 33 (D290): which requests are the officials', and a body trickled in holds nothing


class TrickledBody:
    """A request body that arrives only when the test lets it (a client sending a byte now and then)."""

    def __init__(self, body: bytes) -> None:
        self.body, self.asked, self.sent = body, threading.Event(), threading.Event()

    def read(self, n: int = -1) -> bytes:
        self.asked.set()
        self.sent.wait(10)
        body, self.body = self.body, b""
        return body


def _environ(method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> dict[str, Any]:
    from werkzeug.test import EnvironBuilder

    environ: dict[str, Any] = EnvironBuilder(path=path, method=method, headers=headers or {}, data=body,
                                             content_type="application/json").get_environ()  # fmt: skip
    return environ


def _through(gate: Any, environ: dict[str, Any], out: list[str]) -> threading.Thread:
    def run() -> None:
        body = gate(environ, lambda status, headers, *a: out.append(status))
        b"".join(body)

    t = threading.Thread(target=run)
    t.start()
    return t


def test_issue33_review_D290_an_anonymous_write_trickling_its_body_holds_no_read(app: Flask) -> None:
    """Measured on loopback: one anonymous socket sending ``POST /api/training/x/trainees`` with
    ``Content-Length: 500`` and a byte now and then made every GET of the server wait the gate's whole
    patience (1,013-1,035 ms instead of 10-25), for as long as it kept sending."""
    gate = app.wsgi_app
    assert isinstance(gate, ReaderGate)
    body = b'{"code": "ABCDEF", "name": "x"}'
    slow = _environ("POST", "/api/training/nope/trainees", body)
    slow["wsgi.input"] = TrickledBody(body)
    statuses: list[str] = []
    t = _through(gate, slow, statuses)
    assert slow["wsgi.input"].asked.wait(10)
    assert gate.writing == 0 and gate.reading == 0, "a body still coming in holds nothing"
    r = _through(gate, _environ("GET", "/api/matches"), statuses)
    r.join(10)
    assert statuses == ["200 OK"] and gate.waited == 0  # the read never waited for it
    slow["wsgi.input"].sent.set()
    t.join(10)
    assert statuses[-1].startswith("404") and gate.writing == 0 == gate.reading  # the write answered as always


def test_issue33_review_D290_an_officials_write_counts_once_its_body_is_in(app: Flask) -> None:
    from tests.conftest import ADMIN

    held = HeldApp()
    gate = ReaderGate(held, readers=2, clock=lambda: 0.0, official=priority_officials(app))
    write = _environ("POST", "/w", b"{}", {"Authorization": f"Bearer {ADMIN}"})
    write["wsgi.input"] = TrickledBody(b"{}")
    statuses: list[str] = []
    t = _through(gate, write, statuses)
    assert write["wsgi.input"].asked.wait(10)
    assert gate.writing == 0  # its body still on the way: reads go on
    write["wsgi.input"].sent.set()
    held.wait_entered(1)
    assert gate.writing == 1  # now it runs: no read starts
    held.release["/w"].set()
    t.join(10)
    assert gate.writing == 0


def priority_officials(app: Flask) -> Callable[[dict[str, Any]], bool]:
    from qalisball.web import priority

    return priority.officials_of(app)


def test_issue33_review_D290_an_officials_read_never_waits_behind_the_crowds(app: Flask, clock: Any) -> None:
    from qalisball.web.credentials import role_cookie
    from tests.conftest import ADMIN, MatchDriver

    match = MatchDriver(app.test_client(), clock)
    assert app.wsgi_app.official is not None  # the app's own gate tells the officials' requests apart
    held = HeldApp()
    gate = ReaderGate(held, readers=2, clock=lambda: 0.0, official=app.wsgi_app.official)
    statuses: list[str] = []
    crowd = [_through(gate, _environ("GET", p), statuses) for p in ("/r1", "/r2")]
    held.wait_entered(2)
    waiting = _through(gate, _environ("GET", "/r3"), statuses)
    _until(lambda: gate.waited == 1)
    # The organiser's token, a referee's console (its role cookie: the page, its scripts, its GETs).
    cookie = f"{role_cookie(match.id, 'referee')}={match.tokens['referee']}"
    for path, headers in (("/o1", {"Authorization": f"Bearer {ADMIN}"}), ("/o2", {"Cookie": cookie})):
        held.release[path] = threading.Event()
        held.release[path].set()
        _through(gate, _environ("GET", path, headers=headers), statuses).join(10)
        assert path in held.entered, f"{path}: an official's read waited behind anonymous readers"
    # A made-up token is nobody's: it waits with the crowd, and so does a write without an official's token.
    fake = _through(gate, _environ("GET", "/f", headers={"Authorization": "Bearer " + "x" * 24}), statuses)
    anonymous_write = _through(gate, _environ("POST", "/a", b"{}"), statuses)
    _until(lambda: gate.waited == 3)
    assert "/f" not in held.entered and "/a" not in held.entered
    for p in ("/r1", "/r2", "/r3", "/f", "/a"):
        held.release.setdefault(p, threading.Event()).set()
    for t in [*crowd, waiting, fake, anonymous_write]:
        t.join(10)
    assert gate.reading == 0


def test_issue33_review_D291_a_write_holds_reads_for_the_patience_from_its_start_not_each_read_anew() -> None:
    """A write that waits (a locked database: 2 s of busy timeout, then 503) held every read that came
    meanwhile a whole patience of its own: tests/test_reliability.py's reads served while it waited fell to 1."""
    now = [0.0]
    held = HeldApp()
    gate = ReaderGate(held, readers=2, patience_s=1.0, clock=lambda: now[0])
    w = _request(gate, "POST", "/w")
    held.wait_entered(1)
    now[0] = 1.5  # the write has held reads for its patience: a read that comes now starts at once
    held.release["/r"] = threading.Event()
    held.release["/r"].set()
    _request(gate, "GET", "/r").join(10)
    assert held.entered == ["/w", "/r"] and gate.waited == 0
    held.release["/w"].set()
    w.join(10)


class CountingCondition(threading.Condition):
    """The gate's condition, counting how often a parked read is woken (each a greenlet switch on the loop)."""

    def __init__(self) -> None:
        super().__init__()
        self.woken = 0

    def wait(self, timeout: float | None = None) -> bool:
        got = super().wait(timeout)
        self.woken += 1
        return got

    def parked(self) -> int:
        with self:
            return len(self._waiters)  # type: ignore[attr-defined]


def test_D292_a_finished_read_wakes_one_parked_read_not_all_of_them() -> None:
    held = HeldApp()
    gate = ReaderGate(held, readers=1, clock=lambda: 0.0)
    gate.cond = cond = CountingCondition()
    paths = ["/r0", *(f"/p{i}" for i in range(10))]
    for p in paths:
        held.release[p] = threading.Event()
    threads = [_request(gate, "GET", "/r0")]
    held.wait_entered(1)
    threads += [_request(gate, "GET", p) for p in paths[1:]]
    _until(lambda: cond.parked() == 10)
    held.release["/r0"].set()
    held.wait_entered(2)
    _until(lambda: cond.parked() == 9)
    assert cond.woken == 1 and gate.reading == 1  # one place, one read woken (notify_all woke all 10)
    for p in paths:
        held.release[p].set()
    for t in threads:
        t.join(10)
    assert len(held.entered) == 11 and gate.reading == 0
    assert cond.woken <= 2 * 10  # each parked read woken about once in all (notify_all: 10 + 9 + ... + 1)


def test_D292_a_finished_write_wakes_as_many_parked_reads_as_there_are_free_places() -> None:
    held = HeldApp()
    gate = ReaderGate(held, readers=2, patience_s=1000.0, clock=lambda: 0.0)  # the write holds reads throughout
    gate.cond = cond = CountingCondition()
    paths = ["/r0", "/w", *(f"/p{i}" for i in range(10))]
    for p in paths:
        held.release[p] = threading.Event()
    threads = [_request(gate, "GET", "/r0")]
    held.wait_entered(1)
    threads.append(_request(gate, "POST", "/w"))
    held.wait_entered(2)
    threads += [_request(gate, "GET", p) for p in paths[2:]]
    _until(lambda: cond.parked() == 10)
    assert cond.woken == 0
    held.release["/w"].set()
    held.wait_entered(3)  # one place was free (/r0 still reads): one read let in
    _until(lambda: cond.parked() == 9)
    assert cond.woken == 1 and gate.reading == 2
    for p in paths:
        held.release[p].set()
    for t in threads:
        t.join(10)
    assert len(held.entered) == 12 and gate.reading == 0


def test_issue33_item13_D243_the_handshake_budget_follows_the_connection_cap_per_address(tmp_path: Any) -> None:
    """With no cap of connections per address (0: behind a proxy that caps, D140) no handshake is bounded
    either: 300 spectators of one address were refused past 100 while the connection cap let them in."""
    from qalisball.server.factory import create_app
    from qalisball.web.priority import HandshakeBudget

    def budgets(app: Any) -> list[Any]:
        found, layer = [], app.wsgi_app
        while layer is not None:
            if isinstance(layer, HandshakeBudget):
                found.append(layer)
            layer = getattr(layer, "app", None)
        return found

    capped = create_app({"TESTING": True, "DATABASE": str(tmp_path / "a.db"), "MAX_CONNECTIONS_PER_ADDRESS": 30})
    assert [b.burst for b in budgets(capped)] == [30]
    uncapped = create_app({"TESTING": True, "DATABASE": str(tmp_path / "b.db"), "MAX_CONNECTIONS_PER_ADDRESS": 0})
    assert budgets(uncapped) == []
