"""The last per-socket costs of a broadcast under gevent, removed (issue 15; bench/README.md).

python-socketio encodes a room's packet once, then for every socket puts it on that socket's queue, wakes
its writer greenlet, which takes it off, encodes it to UTF-8, builds a WebSocket frame around it and writes
it: a greenlet switch, a queue round trip, an encoding and a frame per spectator. The bare ``websockets``
floor builds the frame once and writes the same bytes to every socket. So does ``fan_out`` here, for the
messages of ``fanout.py`` (``Encoded``):

- the WebSocket frame is built once per room;
- to a WebSocket whose writer is idle (nothing queued, nothing being written) the frame is written at once
  with a non-blocking ``send``: no queue, no greenlet switch;
- otherwise (a write in progress, packets waiting, a full socket buffer, or only part of the frame
  written) the frame — or what is left of it — joins the socket's queue as raw bytes, after what is
  already there, and its writer writes it as it is: order is kept;
- a client still on HTTP long-polling gets the ordinary Engine.IO packet.

``install()`` wraps python-engineio's WebSocket handler (4.15, pinned) to know each socket's WebSocket and
whether its writer is writing. gevent only: the threading mode keeps python-socketio's own path.
"""

from __future__ import annotations

import struct
from typing import Any

from engineio import packet as eio_packet
from engineio import socket as eio_socket

_installed = False


class Raw(bytes):
    """Bytes the wrapped ``ws.send`` writes as they are (a whole frame, or the rest of one)."""


class RawPacket:
    """A queue item for engineio's writer: ``encode()`` gives ``Raw`` bytes (see ``install``)."""

    __slots__ = ("raw",)
    packet_type = eio_packet.MESSAGE
    data = "<raw websocket frame>"

    def __init__(self, raw: bytes) -> None:
        self.raw = Raw(raw)

    def encode(self, b64: bool = False) -> Raw:
        return self.raw


def text_frame(payload: bytes) -> bytes:
    """An unmasked, final WebSocket text frame (RFC 6455 5.2), as a server sends it."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + payload
    return struct.pack("!BBQ", 0x81, 127, n) + payload


def install() -> None:
    """Wrap engineio's WebSocket handler once: remember each socket's WebSocket and when it is writing."""
    global _installed
    if _installed:
        return
    _installed = True
    original = eio_socket.Socket._websocket_handler

    def websocket_handler(self: Any, ws: Any) -> Any:
        sock = getattr(getattr(ws, "_sock", None), "handler", None)
        raw_sock = getattr(getattr(sock, "socket", None), "_sock", None)  # the OS socket, non-blocking
        ws_send = ws.send
        raw_write = ws._sock.raw_write if raw_sock is not None else None

        def send(message: Any) -> Any:
            self.qb_writing = True
            try:
                if isinstance(message, Raw) and raw_write is not None:
                    return raw_write(message)  # a frame built once for the room (or its rest)
                return ws_send(message)
            finally:
                self.qb_writing = False

        ws.send = send
        self.qb_writing = False
        self.qb_raw = raw_sock
        try:
            return original(self, ws)
        finally:
            self.qb_raw = None

    eio_socket.Socket._websocket_handler = websocket_handler


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
        raw = getattr(s, "qb_raw", None)
        if raw is None or not s.upgraded or s.upgrading:
            if polling is None:
                polling = eio_packet.Packet(eio_packet.MESSAGE, text)
            s.send(polling)  # long-polling, or a WebSocket not yet up: Engine.IO's own way
            continue
        if s.qb_writing or s.queue.qsize():
            s.queue.put(RawPacket(frame))  # behind what is already on its way
            continue
        try:
            sent = raw.send(frame)
        except BlockingIOError:
            sent = 0
        except OSError:
            continue  # the connection is gone: its reader will notice and close it
        if sent < len(frame):
            s.queue.put(RawPacket(frame[sent:]))  # the writer finishes the frame before anything else
        else:
            direct += 1
    return direct
