"""Socket.IO: live state for scoreboards, consoles and phones (API.md "Live updates").

Clients send ``join`` (and ``leave``); officials' consoles also send ``status``. Nothing sent over
the socket changes a match — changes come through the HTTP API, which calls ``broadcast`` once the
event is committed. Consoles that join with their role token are listed in the device registry
(``devices.py``, API.md "Match day"); ``revoke_role`` tells them when their token stops working.

Each client's outgoing queue is bounded (D52): before a broadcast, a client of the room with more than
``MAX_QUEUED`` packets still waiting (it does not read, or reads too slowly) is disconnected, and its
connection shut so that the kernel frees its buffers at once. It reconnects and ``join`` answers it
with a fresh ``state``: a screen that fell behind jumps to the present instead of replaying the past.

What a broadcast sends, to whom and how it is encoded once for everyone is in ``fanout.py``.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

from flask import request
from flask_socketio import SocketIO, emit, join_room, leave_room

from . import credentials, fanout
from .devices import DeviceRegistry, clean_device, clean_queued
from .service import Match, MatchService, NotFound

# How long a state answered to a join may be reused (its clock fields are consistent with its
# `server_time_ms`, so screens still show the right time; only `time_up` may lag by this much).
FRESH_MS = 1000

MAX_QUEUED = 64  # packets waiting for one client (an event is two: ``event`` and ``state``)


class Live:
    def __init__(self, socketio: SocketIO, svc: MatchService, devices: DeviceRegistry | None = None) -> None:
        self.socketio = socketio
        self.svc = svc
        self.devices = devices if devices is not None else DeviceRegistry()
        self.dropped = 0  # clients disconnected for falling behind (for tests and benchmarks)
        self.fanout = fanout.Fanout()
        # The public state answered to joins, kept up to FRESH_MS: a crowd joining at once (a reconnect
        # after a network drop) costs one `legal_calls` and one JSON encoding, not one per spectator.
        self._joined: dict[str, tuple[int, int, fanout.Encoded]] = {}
        socketio.on_event("join", self.on_join)
        socketio.on_event("leave", self.on_leave)
        socketio.on_event("status", self.on_status)
        socketio.on_event("disconnect", self.on_disconnect)

    def on_join(self, data: Any) -> None:
        """Sent by any client: ``{"match": id}``; answered at once with ``state``.

        An official's console adds ``"token"`` (its role token) — or ``"csrf"``, the CSRF token of the
        role cookie its connection carries (D54) — and ``"device"`` (its label), and may
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
        token = joined_token(data)
        role = m.role_of(token) if token is not None else None
        sid: str = request.sid  # type: ignore[attr-defined]
        if role is None:
            self.devices.leave(sid)
            if token or (isinstance(data, dict) and data.get("csrf")):  # a revoked token, or a cookie gone
                emit("error", {"error": "unauthorized", "message": "this token is not valid for this match"})
        else:
            assert isinstance(data, dict)
            device, queued = clean_device(data.get("device")), clean_queued(data.get("queued"))
            self.devices.join(sid, m.id, role, device, self.svc.clock(), queued)
        self.enter(m, {**data, "token": token} if isinstance(data, dict) else {})

    def enter(self, m: Match, data: dict[str, Any]) -> None:
        """Put the client in its audience's room and answer the current state (``legal`` for officials only).

        ``token``: a match official's token puts the client with the officials (the state's ``legal``);
        ``updates``: one ``update`` message per change instead of ``event`` + ``state`` (fanout.py).
        """
        token = data.get("token")
        official = isinstance(token, str) and m.role_of(token) is not None
        updates = data.get("updates") is True or data.get("updates") == 1
        # One audience per client: a client that joins again in another form leaves the other rooms.
        for o in (False, True):
            for u in (False, True):
                if (o, u) != (official, updates):
                    leave_room(fanout.room(m.id, official=o, updates=u))
        join_room(fanout.room(m.id, official=official, updates=updates))
        emit("state", self.svc.state(m) if official else self.public_state(m))

    def public_state(self, m: Match) -> fanout.Encoded:
        """The spectators' state of ``m`` now, encoded (reused for FRESH_MS while the seq is the same)."""
        now = self.svc.clock()
        cached = self._joined.get(m.id)
        if cached is not None and cached[0] == m.seq and 0 <= now - cached[1] < FRESH_MS:
            return cached[2]
        state = self.svc.state(m, legal=False)  # a spectator's: no `legal` (D90)
        encoded = fanout.Encoded(fanout.dumps(state), "public_state", m.id, int(state["seq"]))
        self._joined[m.id] = (int(state["seq"]), now, encoded)
        return encoded

    def on_leave(self, data: Any) -> None:
        if isinstance(data, dict) and data.get("match"):
            for o in (False, True):
                for u in (False, True):
                    leave_room(fanout.room(str(data["match"]), official=o, updates=u))
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
        told = self.devices.forget_role(match_id, role)
        for sid in told:
            self.socketio.emit("token_revoked", {"role": role}, to=sid)
        for updates in (False, True):
            room = fanout.room(match_id, official=True, updates=updates)
            self.socketio.emit("token_revoked", {"role": role}, to=room, skip_sid=told or None)

    def broadcast(self, match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        """After a committed event, to every audience of the match (fanout.py): each message encoded once.

        Clients that fell behind are dropped first (D52): they rejoin to a fresh state.
        """
        for o in (False, True):
            for u in (False, True):
                self.drop_laggards(fanout.room(match_id, official=o, updates=u))
        for name, payload, to, everywhere in self.fanout.messages(match_id, entry, state):
            self.socketio.emit(name, payload, to=to, ignore_queue=not everywhere)

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
