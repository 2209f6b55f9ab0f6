"""The live rooms' kernel (Socket.IO), shared by the features' rooms (match/live.py, competitions/live.py,
venue/live.py): joins bounded per connection (D156), laggards dropped (D52), tokens in joins throttled (D50).

Each feature's room handles its own events (``join`` for a match, ``join_competition``, ``join_screen``);
what they share is here, so that no feature's room imports another's.

Joins are bounded per connection (D156, ``JoinBudget``), before any handler runs: a storm of joins on
one socket is answered once with ``error`` ``too_many_requests`` and otherwise dropped. ``JoinGate``
applies the budget to the events the rooms name (``gate.guard("join")``).

Each client's outgoing queue is bounded (D52): before a broadcast, a client of the room with more than
``MAX_QUEUED`` packets still waiting (it does not read, or reads too slowly) is disconnected, and its
connection shut so that the kernel frees its buffers at once (``drop_laggards``). It reconnects and its
join answers it with a fresh state: a screen that fell behind jumps to the present instead of replaying the past.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import current_app, request
from flask_socketio import SocketIO

from qalisball.web import credentials, services

MAX_QUEUED = 64  # packets waiting for one client (an event is two: ``event`` and ``state``)

# Joins and leaves (``join``, ``join_competition``, ``join_screen`` and their ``leave…``) one connection may
# send at once, then one more every JOIN_EVERY_MS (D156, D241): a page joins once on connecting and again
# every 30 s; a console now and then more.
JOIN_BURST = 10
JOIN_EVERY_MS = 200


class JoinBudget:
    """Joins per Socket.IO connection: a leaky bucket per session id, times in server ms (D156)."""

    def __init__(self, burst: int = JOIN_BURST, every_ms: int = JOIN_EVERY_MS) -> None:
        self.burst, self.every_ms = burst, every_ms
        self._level: dict[str, tuple[float, int, bool]] = {}  # sid -> (joins in the bucket, at ms, refusal told)
        self._lock = threading.Lock()

    def take(self, sid: str, now: int) -> str:
        """``"ok"``: answer the join; ``"refuse"``: say why (the first of a storm); ``"drop"``: ignore it."""
        with self._lock:
            level, at, told = self._level.get(sid, (0.0, now, False))
            level = max(0.0, level - max(0, now - at) / self.every_ms)
            if level + 1 <= self.burst:
                self._level[sid] = (level + 1, now, False)
                return "ok"
            self._level[sid] = (level, now, True)
            return "drop" if told else "refuse"

    def wait_ms(self, sid: str, now: int) -> int:
        """How long until ``sid`` may join again."""
        with self._lock:
            level, at, _ = self._level.get(sid, (0.0, now, False))
        over = max(0.0, level - max(0, now - at) / self.every_ms) + 1 - self.burst
        return max(0, int(over * self.every_ms + 0.999))

    def forget(self, sid: str) -> None:
        with self._lock:
            self._level.pop(sid, None)


class JoinGate:
    """Applies each connection's join budget (D156) to its frames before any handler runs.

    python-socketio hands every event to ``Server._handle_event``, which starts a greenlet for it, where
    Flask-SocketIO builds a request context: ~0.2 ms a frame, so 1,000 frames refused there still held
    a POST for a second. Refused here, a frame costs a dict lookup in the socket's reader. The rooms
    name the events that count as joins (``guard``), and forget a connection when it goes (``forget``).
    """

    def __init__(self, socketio: SocketIO, clock: Callable[[], int], budget: JoinBudget | None = None) -> None:
        self.socketio, self.clock = socketio, clock
        self.budget = budget if budget is not None else JoinBudget()
        self.events: set[str] = set()
        self.dropped: dict[str, int] = {}  # sid -> frames dropped since its last admitted join
        self._install()

    def guard(self, event: str) -> None:
        """Count ``event`` as a join in every connection's budget."""
        self.events.add(event)

    def forget(self, sid: str) -> None:
        self.budget.forget(sid)
        self.dropped.pop(sid, None)

    def _install(self) -> None:
        server = self.socketio.server
        if server is None:
            return
        handle = server._handle_event

        def handle_event(eio_sid: str, namespace: str | None, id: Any, data: Any) -> Any:
            if isinstance(data, list) and data and data[0] in self.events:
                ns = namespace or "/"
                sid = server.manager.sid_from_eio_sid(eio_sid, ns)
                verdict = self.budget.take(str(sid), self.clock()) if sid is not None else "ok"
                if verdict == "refuse":
                    wait = self.budget.wait_ms(str(sid), self.clock())
                    message = (
                        f"too many joins on this connection: at most {self.budget.burst} at once, "
                        f"then {1000 // self.budget.every_ms} a second"
                    )
                    refusal = {"error": "too_many_requests", "message": message, "retry_after_ms": wait}
                    server.emit("error", refusal, to=sid, namespace=ns, ignore_queue=True)
                if verdict != "ok":
                    dropped = self.dropped.get(str(sid), 0) + 1
                    self.dropped[str(sid)] = dropped
                    if dropped > DROP_AFTER:  # a storm, not a page: its reading would keep the loop (D241)
                        self.dropped.pop(str(sid), None)
                        connection = tcp_connection(server, eio_sid)
                        server.disconnect(sid, namespace=ns, ignore_queue=True)
                        if connection is not None:  # and shut it: what the storm already sent is never read
                            with contextlib.suppress(OSError):
                                connection.shutdown(socket.SHUT_RDWR)
                    time.sleep(0)  # let the loop serve others between the frames it reads
                    return None
                self.dropped.pop(str(sid), None)
            return handle(eio_sid, namespace, id, data)

        server._handle_event = handle_event


DROP_AFTER = 100  # frames over the budget dropped in a row before the connection is closed (D241)
SHOWN_CHARS = 40  # how much of a client's input an error may repeat (D241)


def shown(value: Any) -> str:
    """A client's value as an error may repeat it: at most ``SHOWN_CHARS`` characters of it (D241)."""
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, int | float):
        text = repr(value)
    else:  # a list or an object: named, never written out (it may be megabytes)
        text = f"({type(value).__name__})"
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def drop_laggards(socketio: SocketIO, room: str) -> int:
    """Disconnect the clients of ``room`` (on this server) whose outgoing queue is over ``MAX_QUEUED`` (D52)."""
    server = socketio.server
    eio = getattr(server, "eio", None)
    if server is None or eio is None:
        return 0
    dropped = 0
    for _sid, eio_sid in list(server.manager.get_participants("/", room)):
        client = eio.sockets.get(eio_sid)
        if client is None or client.closed or client.queue.qsize() <= MAX_QUEUED:
            continue
        shut(server, eio_sid)
        dropped += 1
    return dropped


def shut(server: Any, eio_sid: str) -> None:
    """Close ``eio_sid`` at once and, for a websocket, shut its TCP connection: a blocked write fails now and
    nothing more it sent is read (D52's laggards, D241's storms)."""
    eio = getattr(server, "eio", None)
    client = eio.sockets.get(eio_sid) if eio is not None else None
    if client is None:
        return
    connection = tcp_connection(server, eio_sid)
    # abort: no goodbye packet into a queue nobody drains; wait=False: never wait for it to drain.
    client.close(wait=False, abort=True, reason=eio.reason.SERVER_DISCONNECT)
    eio.sockets.pop(eio_sid, None)
    if connection is not None:  # a websocket connection of its own
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_RDWR)


def throttled_s() -> int:
    """Seconds this connection's address must wait for its tokens to be looked at again (D50; 0: now)."""
    throttle = services.throttle()
    return 0 if throttle is None else int(throttle.wait_s(request.remote_addr or "?", current_app.config["CLOCK"]()))


def wrong_token() -> None:
    """A join's token was not valid: it counts against the address as a page's or the API's would (D50)."""
    throttle = services.throttle()
    if throttle is not None:
        throttle.failed(request.remote_addr or "?", current_app.config["CLOCK"]())


def joined_token(data: Any) -> str | None:
    """The role token a ``join`` names: its ``token``, or the cookie of the connection its ``csrf`` unlocks.

    The Socket.IO handshake is a request of the page's own origin, so it carries the tablet's HttpOnly
    role cookie (D53); the CSRF token picks which one and proves the join came from our page (D54).
    """
    if not isinstance(data, dict):
        return None
    token = data.get("token")
    if isinstance(token, str):
        return token
    csrf = data.get("csrf")
    return credentials.unlocked_cookie(csrf) if isinstance(csrf, str) and csrf.isascii() else None


def tcp_connection(server: Any, eio_sid: str) -> Any:
    """The TCP socket of a websocket connection (``serving`` keeps it in the environ), or None."""
    environ = server.environ.get(eio_sid) or {}
    return environ.get("qalisball.connection") if "wsgi.websocket" in environ else None
