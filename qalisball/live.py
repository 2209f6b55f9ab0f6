"""Socket.IO: live state for scoreboards, consoles and phones (API.md "Live updates").

Clients send ``join`` (and ``leave``); officials' consoles also send ``status``. Nothing sent over
the socket changes a match — changes come through the HTTP API, which calls ``broadcast`` once the
event is committed. Consoles that join with their role token are listed in the device registry
(``devices.py``, API.md "Match day"); ``revoke_role`` tells them when their token stops working.

Each client's outgoing queue is bounded (D52): before a broadcast, a client of the room with more than
``MAX_QUEUED`` packets still waiting (it does not read, or reads too slowly) is disconnected, and its
connection shut so that the kernel frees its buffers at once. It reconnects and ``join`` answers it
with a fresh ``state``: a screen that fell behind jumps to the present instead of replaying the past.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

from flask import request
from flask_socketio import SocketIO, emit, join_room, leave_room

from .devices import DeviceRegistry, clean_device, clean_queued
from .service import MatchService, NotFound

MAX_QUEUED = 64  # packets waiting for one client (an event is two: ``event`` and ``state``)


class Live:
    def __init__(self, socketio: SocketIO, svc: MatchService, devices: DeviceRegistry | None = None) -> None:
        self.socketio = socketio
        self.svc = svc
        self.devices = devices if devices is not None else DeviceRegistry()
        self.dropped = 0  # clients disconnected for falling behind (for tests and benchmarks)
        socketio.on_event("join", self.on_join)
        socketio.on_event("leave", self.on_leave)
        socketio.on_event("status", self.on_status)
        socketio.on_event("disconnect", self.on_disconnect)

    def on_join(self, data: Any) -> None:
        """Sent by any client: ``{"match": id}``; answered at once with ``state``.

        An official's console adds ``"token"`` (its role token) and ``"device"`` (its label), and may
        add ``"queued"`` (its unsent calls): it is then listed among the match's devices. A token that
        is not valid for the match is answered with ``error`` ``unauthorized`` (a revoked token, for
        example); the client still gets the state, as a spectator would.
        """
        match_id = data.get("match") if isinstance(data, dict) else None
        try:
            m = self.svc.get(str(match_id))
        except NotFound:
            emit("error", {"error": "not_found", "message": f"no match {match_id}"})
            return
        token = data.get("token") if isinstance(data, dict) else None
        role = m.role_of(token) if isinstance(token, str) else None
        sid: str = request.sid  # type: ignore[attr-defined]
        if role is None:
            self.devices.leave(sid)
            if token:
                emit("error", {"error": "unauthorized", "message": "this token is not valid for this match"})
        else:
            assert isinstance(data, dict)
            device, queued = clean_device(data.get("device")), clean_queued(data.get("queued"))
            self.devices.join(sid, m.id, role, device, self.svc.clock(), queued)
        join_room(m.id)
        emit("state", self.svc.state(m))

    def on_leave(self, data: Any) -> None:
        if isinstance(data, dict) and data.get("match"):
            leave_room(str(data["match"]))
            self.devices.leave(request.sid)  # type: ignore[attr-defined]

    def on_status(self, data: Any) -> None:
        """Sent by a joined console: ``{"queued": n}`` (and optionally a new ``"device"`` label).

        Unanswered; a connection that did not join with a valid token is ignored.
        """
        if not isinstance(data, dict):
            return
        device = clean_device(data.get("device")) or None
        self.devices.status(request.sid, self.svc.clock(), clean_queued(data.get("queued")), device)  # type: ignore[attr-defined]

    def on_disconnect(self, reason: Any = None) -> None:
        self.devices.leave(request.sid)  # type: ignore[attr-defined]

    def revoke_role(self, match_id: str, role: str) -> int:
        """A role's token was replaced: tell its consoles (``token_revoked`` ``{"role"}``) and forget them.

        To be called once the new token is stored (``POST /api/matches/<id>/tokens/<role>``). The
        consoles stay in the room as spectators; they stop sending. Returns how many were told.
        """
        gone = self.devices.forget_role(match_id, role)
        for sid in gone:
            self.socketio.emit("token_revoked", {"role": role}, to=sid)
        return len(gone)

    def token_revoked(self, match_id: str, role: str) -> None:
        """A role's token was replaced (API.md "Match day"): consoles of that role stop using it.

        The consoles that joined with that role are told and forgotten (``revoke_role``); the room is
        told too, for a console that joined before its token was known to the registry.
        """
        self.revoke_role(match_id, role)
        self.socketio.emit("token_revoked", {"role": role}, to=match_id)

    def broadcast(self, match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        """After a committed event: the log entry, then the new state, to everyone in the room."""
        self.drop_laggards(match_id)
        self.socketio.emit("event", entry, to=match_id)
        self.socketio.emit("state", state, to=match_id)

    def drop_laggards(self, room: str) -> int:
        """Disconnect the clients of ``room`` (on this server) whose outgoing queue is over ``MAX_QUEUED``."""
        server = self.socketio.server
        eio = getattr(server, "eio", None)
        if server is None or eio is None:
            return 0
        dropped = 0
        for _sid, eio_sid in list(server.manager.get_participants("/", room)):
            client = eio.sockets.get(eio_sid)
            if client is None or client.closed or client.queue.qsize() <= MAX_QUEUED:
                continue
            environ = server.environ.get(eio_sid) or {}
            # abort: no goodbye packet into a queue nobody drains; wait=False: never wait for it to drain.
            client.close(wait=False, abort=True, reason=eio.reason.SERVER_DISCONNECT)
            eio.sockets.pop(eio_sid, None)
            connection = environ.get("qalisball.connection") if "wsgi.websocket" in environ else None
            if connection is not None:  # a websocket connection of its own: shut it, the blocked write fails now
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            dropped += 1
        self.dropped += dropped
        return dropped
