"""Engine.IO's WebSocket transport under gevent without a writer greenlet, a queue or a ping timer per socket
(issue 15, issue 29 item 4; bench/README.md).

python-engineio (4.15, pinned) gives every WebSocket a writer greenlet waiting on a queue (with a timeout),
and every socket a greenlet sleeping until its next ping: three greenlets, their saved stacks, a queue and
two timers per spectator, who only ever receives. Here (``install``, gevent only) a WebSocket keeps its
reader (pywsgi's handler greenlet) and nothing else:

- every frame (broadcasts, pings, the answers to ``join``, the close packet) is written at once with a
  non-blocking ``send`` when nothing is waiting before it (``write``): no queue, no greenlet switch;
- only when a write would block (a full socket buffer, or part of a frame written) the rest of the frame,
  and every later one, joins a small queue of frames (``Frames``, a deque) and a drain greenlet, started
  then and gone once the queue is empty, writes them in order (blocking, under the connection's timeout);
  ``qsize()`` is what D52's laggard check counts, as before;
- pings come from one timer per server (``Pings``): the sockets wait in one list in the order they are due
  (they all wait ``PING_INTERVAL``), and one greenlet sends each its ping when it is due. What a client sees
  does not change: the same packets, in the same order, at the same times;
- a broadcast (``fan_out``, the messages of ``fanout.py``, ``Encoded``) builds its frame once per room and
  writes the same bytes to every socket;
- a client on HTTP long-polling (and a WebSocket during its upgrade) keeps Engine.IO's own queue and path.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import struct
import time
from typing import Any

import gevent
from engineio import packet as eio_packet
from engineio import socket as eio_socket
from gevent.event import Event

_installed = False
_log = logging.getLogger("qalisball.fastws")


def text_frame(payload: bytes) -> bytes:
    """An unmasked, final WebSocket text frame (RFC 6455 5.2), as a server sends it."""
    return _frame(0x81, payload)


def _frame(first: int, payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        return bytes((first, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", first, 126, n) + payload
    return struct.pack("!BBQ", first, 127, n) + payload


def frame_of(pkt: Any) -> bytes:
    """The WebSocket frame of an Engine.IO packet, as engineio's writer would send it (``ws.send(pkt.encode())``)."""
    encoded = pkt.encode()
    if isinstance(encoded, str):
        return _frame(0x81, encoded.encode("utf-8"))
    return _frame(0x82, bytes(encoded))  # a binary packet: a binary frame


class Frames:
    """A lean WebSocket's queue: frames (bytes) waiting behind a write that would have blocked; ``None``: close.

    Takes engineio's queue's place on the socket (``put``, ``qsize``, ``join``, what engineio and D52 use):
    a deque, and a drain greenlet only while there is something to write.
    """

    __slots__ = ("items", "sock", "drain")

    def __init__(self, sock: Any) -> None:
        self.items: list[bytes | None] = []  # 56 bytes empty (a deque is ~600): rarely more than a few
        self.sock = sock
        self.drain: Any = None

    def put(self, item: Any) -> None:
        self.items.append(item if item is None or isinstance(item, bytes) else frame_of(item))
        if self.drain is None:
            self.drain = gevent.spawn(_drain, self)

    def qsize(self) -> int:
        return len(self.items)

    def empty(self) -> bool:
        return not self.items

    def task_done(self) -> None:
        pass

    def join(self) -> None:
        drain = self.drain
        if drain is not None and drain is not gevent.getcurrent():
            drain.join()


def _drain(q: Frames) -> None:
    """Write what waits on a lean socket, in order, blocking (the connection's timeout bounds each write).

    ``q.drain`` is this greenlet until its very end (the WebSocket's close frame written too): the reader
    waits for it (``Frames.join``) before pywsgi closes the connection under it.
    """
    try:
        s = q.sock
        ws = s.qb_ws if s is not None else None
        if ws is None:  # the connection has ended
            q.items.clear()
            return
        closing = True
        try:
            while q.items:
                item = q.items.pop(0)
                if item is None:
                    break  # closing: what was before it is written
                s.qb_writing = True
                try:
                    ws.raw_write(item)
                finally:
                    s.qb_writing = False
            else:
                closing = False
        except Exception:  # noqa: BLE001, S110 - the connection is gone: engineio's writer stops the same way
            pass
        if closing:
            q.items.clear()
            s.qb_ws = None
            with contextlib.suppress(Exception):
                ws.close()
    finally:
        q.drain = None


def write(s: Any, frame: bytes) -> bool:
    """Write ``frame`` to the lean socket ``s`` now if nothing waits before it, else queue it; True: written whole."""
    q = s.queue
    if s.qb_writing or q.items or q.drain is not None:
        q.put(frame)  # behind what is already on its way
        return False
    raw = s.qb_raw
    try:
        sent = raw.send(frame)
    except BlockingIOError:
        sent = 0
    except OSError:
        return False  # the connection is gone: its reader will notice and close it
    if sent < len(frame):
        q.put(frame[sent:])  # the drain finishes the frame before anything else
        return False
    return True


class Pings:
    """One server's pings (engineio sends one ``PING_INTERVAL`` after connecting and after every pong).

    engineio starts a greenlet per socket that sleeps until then; here the sockets wait in one deque, in
    the order they are due (the interval is the same for all), and one greenlet sends them their pings.
    """

    __slots__ = ("server", "due", "wake", "task")

    def __init__(self, server: Any) -> None:
        self.server = server
        self.due: collections.deque[tuple[float, Any]] = collections.deque()
        self.wake = Event()
        self.task: Any = None

    def add(self, s: Any) -> None:
        self.due.append((time.monotonic() + self.server.ping_interval, s))
        if self.task is None:
            self.task = gevent.spawn(self._run)
        elif len(self.due) == 1:
            self.wake.set()

    def _run(self) -> None:
        due = self.due
        while True:
            if not due:
                self.wake.clear()
                self.wake.wait()
                continue
            at, s = due[0]
            delay = at - time.monotonic()
            if delay > 0:
                gevent.sleep(delay)
                continue
            due.popleft()
            try:
                if not s.closing and not s.closed:  # engineio's Socket._send_ping
                    s.last_ping = time.time()
                    s.send(eio_packet.Packet(eio_packet.PING))
            except Exception:  # noqa: BLE001 - one socket's failure stops nobody's pings
                _log.exception("ping")


def _pings(server: Any) -> Pings:
    pings = getattr(server, "qb_pings", None)
    if pings is None:
        pings = server.qb_pings = Pings(server)
    return pings


def install() -> None:
    """Replace engineio's WebSocket writer and per-socket ping greenlets with the lean path (gevent only)."""
    global _installed
    if _installed:
        return
    _installed = True
    original_handler = eio_socket.Socket._websocket_handler
    original_send = eio_socket.Socket.send
    eio_socket.Socket.qb_ws = None  # class defaults: a socket not (yet) on the lean path
    eio_socket.Socket.qb_raw = None
    eio_socket.Socket.qb_writing = False

    def send(self: Any, pkt: Any) -> None:
        if self.qb_ws is None:
            return original_send(self, pkt)  # long-polling, an upgrade under way: engineio's queue
        if self.check_ping_timeout():
            write(self, frame_of(pkt))
        return None

    def schedule_ping(self: Any) -> None:
        if self.last_ping:  # only once the previous ping was answered (engineio's rule)
            self.last_ping = None
            _pings(self.server).add(self)

    def websocket_handler(self: Any, ws: Any) -> Any:
        handler = getattr(getattr(ws, "_sock", None), "handler", None)
        raw_sock = getattr(getattr(handler, "socket", None), "_sock", None)  # the OS socket, non-blocking
        if raw_sock is None:
            return original_handler(self, ws)
        return _lean_handler(self, ws, raw_sock)

    eio_socket.Socket._websocket_handler = websocket_handler
    eio_socket.Socket.send = send
    eio_socket.Socket.schedule_ping = schedule_ping


def _lean_handler(self: Any, ws: Any, raw_sock: Any) -> list[Any]:
    """engineio's ``Socket._websocket_handler`` (4.15) without its writer greenlet (see the module's text)."""
    server = self.server

    for attr in ("_sock", "socket"):  # a socket timeout matching the ping interval and timeout, as engineio sets
        if hasattr(getattr(ws, attr, None), "settimeout"):
            getattr(ws, attr).settimeout(server.ping_interval + server.ping_timeout)
    upgrade = self.connected
    if upgrade:  # an upgrade from long-polling
        if not _upgrade(self, ws):
            return []
    else:
        self.connected = True
        self.upgraded = True
    _go_lean(self, ws, raw_sock, upgrade)
    server.logger.info("%s: Upgrade to websocket successful", self.sid)
    try:
        while True:
            try:
                p = _wait(server, ws)
            except Exception as e:  # noqa: BLE001
                if not self.closed:
                    server.logger.info('%s: Unexpected error "%s", closing connection', self.sid, str(e))
                break
            if p is None:  # connection closed by client
                break
            # Let the others run between two packets: frames already in the socket's buffer are read without
            # a switch, so a client sending thousands at once (the join_screen storm) would otherwise hold the
            # process until its buffer is empty, and an official's POST with it (bench/officials_under_load.py).
            gevent.sleep(0)
            try:
                self.receive(eio_packet.Packet(encoded_packet=p))
            except eio_socket.exceptions.UnknownPacketError:
                pass
            except eio_socket.exceptions.SocketIsClosedError:
                server.logger.info("Receive error -- socket is closed")
                break
            except Exception:  # noqa: BLE001
                server.logger.exception("Unknown receive error")
                break
        if self.qb_ws is not None:
            self.queue.put(None)  # the drain writes what waits, then closes the WebSocket
        self.queue.join()
    finally:
        self.qb_ws = None
        self.qb_raw = None
        self.queue.sock = None  # no cycle left for the collector to find
    self.close(wait=False, abort=True, reason=server.reason.TRANSPORT_CLOSE)
    return []


def _wait(server: Any, ws: Any) -> Any:
    data = ws.wait()
    if data and len(data) > server.max_http_buffer_size:
        raise ValueError("packet is too large")
    return data


def _upgrade(s: Any, ws: Any) -> bool:
    """engineio's upgrade from long-polling (the probe, then UPGRADE); False: it failed."""
    server = s.server
    s.upgrading = True  # packets sent meanwhile wait on engineio's queue
    pkt = _wait(server, ws)
    decoded = eio_packet.Packet(encoded_packet=pkt)
    if decoded.packet_type != eio_packet.PING or decoded.data != "probe":
        server.logger.info("%s: Failed websocket upgrade, no PING packet", s.sid)
        s.upgrading = False
        return False
    ws.send(eio_packet.Packet(eio_packet.PONG, data="probe").encode())
    s.queue.put(eio_packet.Packet(eio_packet.NOOP))  # end poll
    pkt = _wait(server, ws)
    decoded = eio_packet.Packet(encoded_packet=pkt)
    if decoded.packet_type != eio_packet.UPGRADE:
        s.upgraded = False
        server.logger.info("%s: Failed websocket upgrade, expected UPGRADE packet, received %s instead.", s.sid, pkt)
        s.upgrading = False
        return False
    s.upgraded = True
    s.upgrading = False
    return True


def _go_lean(s: Any, ws: Any, raw_sock: Any, upgrade: bool) -> None:
    """engineio's queue gives way to the lean one: what waits on it (the OPEN packet, what came during the
    upgrade) is written first, in order; a poll still waiting on it (a client that upgraded too early) gets a NOOP.

    A function of its own, so that the reader's frame (alive as long as the connection) keeps no reference
    to the old queue."""
    old = s.queue
    waiting = []
    while not old.empty():
        item = old.get_nowait()
        old.task_done()
        if item is not None and item.packet_type != eio_packet.NOOP:
            waiting.append(item)
    if upgrade:
        old.put(eio_packet.Packet(eio_packet.NOOP))
    s.queue = Frames(s)
    s.qb_raw = raw_sock
    s.qb_ws = ws
    for item in waiting:
        write(s, frame_of(item))
    if s.closed:
        s.queue.put(None)


def fan_out(manager: Any, event: str, payload: Any, namespace: str, room: str) -> int:
    """Send one ``Encoded`` message to the local participants of ``room``; the number written at once."""
    server = manager.server
    text = server.packet_class(2, namespace=namespace, data=[event, payload]).encode()  # "2[...]" once
    frame = text_frame(("4" + text).encode())
    polling = None
    sockets = server.eio.sockets
    direct = 0
    for _sid, eio_sid in manager.get_participants(namespace, room):
        s = sockets.get(eio_sid)
        if s is None or s.closed:
            continue
        if s.qb_ws is None:
            if polling is None:
                polling = eio_packet.Packet(eio_packet.MESSAGE, text)
            s.send(polling)  # long-polling, or a WebSocket not yet up: Engine.IO's own way
            continue
        if write(s, frame):
            direct += 1
    return direct
