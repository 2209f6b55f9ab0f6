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

Joins are bounded per connection (D156, ``JoinBudget``), before any handler runs: a storm of joins on
one socket is answered once with ``error`` ``too_many_requests`` and otherwise dropped. A join that carries a token counts in
the wrong-token throttle of pages and API (D50, D157). A role's new token (``reissue``, the one path of
the officials' page and the API) demotes every connection that joined with the old one (D158).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

from flask import current_app, request
from flask_socketio import SocketIO, emit, join_room, leave_room

from qalisball.live import fanout
from qalisball.match.devices import DeviceRegistry, clean_device, clean_queued
from qalisball.match.service import Match, MatchService, NotFound
from qalisball.web import credentials

# How long a state answered to a join may be reused (its clock fields are consistent with its
# `server_time_ms`, so screens still show the right time; only `time_up` may lag by this much).
FRESH_MS = 1000

MAX_QUEUED = 64  # packets waiting for one client (an event is two: ``event`` and ``state``)

# Joins (``join``, ``join_competition``) one connection may send at once, then one more every
# JOIN_EVERY_MS (D156): a page joins once on connecting and again every 30 s; a console now and then more.
JOIN_BURST = 10
JOIN_EVERY_MS = 200
JOIN_EVENTS = frozenset({"join", "join_competition"})


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
        self.joins = JoinBudget()
        # The role each connection joined each match's officials' rooms with (D158): revoking a role
        # finds every one of them, whether or not the device registry lists it.
        self._officials: dict[str, dict[str, str]] = {}  # sid -> match id -> role
        self._officials_lock = threading.Lock()
        self._bound_joins()
        socketio.on_event("join", self.on_join)
        socketio.on_event("leave", self.on_leave)
        socketio.on_event("status", self.on_status)
        socketio.on_event("disconnect", self.on_disconnect)

    def _bound_joins(self) -> None:
        """Apply each connection's join budget (D156) to its frames before any handler runs.

        python-socketio hands every event to ``Server._handle_event``, which starts a greenlet for it, where
        Flask-SocketIO builds a request context: ~0.2 ms a frame, so 1,000 frames refused there still held
        a POST for a second. Refused here, a frame costs a dict lookup in the socket's reader.
        """
        server = self.socketio.server
        if server is None:
            return
        handle = server._handle_event

        def handle_event(eio_sid: str, namespace: str | None, id: Any, data: Any) -> Any:
            if isinstance(data, list) and data and data[0] in JOIN_EVENTS:
                ns = namespace or "/"
                sid = server.manager.sid_from_eio_sid(eio_sid, ns)
                verdict = self.joins.take(str(sid), self.svc.clock()) if sid is not None else "ok"
                if verdict == "refuse":
                    wait = self.joins.wait_ms(str(sid), self.svc.clock())
                    message = (
                        f"too many joins on this connection: at most {JOIN_BURST} at once, then {1000 // JOIN_EVERY_MS} a second"
                    )
                    refusal = {"error": "too_many_requests", "message": message, "retry_after_ms": wait}
                    server.emit("error", refusal, to=sid, namespace=ns, ignore_queue=True)
                if verdict != "ok":
                    return None
            return handle(eio_sid, namespace, id, data)

        server._handle_event = handle_event

    def on_join(self, data: Any) -> None:
        """Sent by any client: ``{"match": id}``; answered at once with ``state``.

        An official's console adds ``"token"`` (its role token) — or ``"csrf"``, the CSRF token of the
        role cookie its connection carries (D54) — and ``"device"`` (its label), and may
        add ``"queued"`` (its unsent calls): it is then listed among the match's devices. A token that
        is not valid for the match is answered with ``error`` ``unauthorized`` (a revoked token, for
        example); the client still gets the state, as a spectator would.
        """
        match_id = data.get("match") if isinstance(data, dict) else None
        token = joined_token(data)
        wait = throttled_s() if token is not None else 0
        if wait:  # D157: refused before the token is looked at, as pages and API do (D50); watched as a spectator
            message = f"too many wrong tokens from this address: try again in {wait} s"
            emit("error", {"error": "too_many_requests", "message": message, "retry_after": wait})
            token, data = None, {k: v for k, v in data.items() if k not in ("token", "csrf")}
        try:
            m = self.svc.get(str(match_id))
        except NotFound:
            if token is not None:
                wrong_token()  # the API answers a token 401 before 404: a guess all the same
            emit("error", {"error": "not_found", "message": f"no match {match_id}"})
            return
        role = m.role_of(token) if token is not None else None
        sid: str = request.sid  # type: ignore[attr-defined]
        if role is None:
            self.devices.leave(sid)
            if token is not None:
                wrong_token()
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
        self._note_official(request.sid, m.id, m.role_of(token) if official else None)  # type: ignore[attr-defined]
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
            self._note_official(request.sid, str(data["match"]), None)  # type: ignore[attr-defined]

    def on_status(self, data: Any) -> None:
        """Sent by a joined console: ``{"queued": n}`` (and optionally a new ``"device"`` label).

        Unanswered; a connection that did not join with a valid token is ignored.
        """
        if not isinstance(data, dict):
            return
        device = clean_device(data.get("device")) or None
        self.devices.status(request.sid, self.svc.clock(), clean_queued(data.get("queued")), device)  # type: ignore[attr-defined]

    def on_disconnect(self, reason: Any = None) -> None:
        sid: str = request.sid  # type: ignore[attr-defined]
        self.devices.leave(sid)
        self.joins.forget(sid)
        with self._officials_lock:
            self._officials.pop(sid, None)

    def _note_official(self, sid: str, match_id: str, role: str | None) -> None:
        """Remember (or, with None, forget) that ``sid`` is in ``match_id``'s officials' rooms as ``role``."""
        with self._officials_lock:
            held = self._officials.setdefault(sid, {})
            if role is None:
                held.pop(match_id, None)
            else:
                held[match_id] = role
            if not held:
                del self._officials[sid]

    def reissue(self, m: Match, role: str) -> str:
        """A new token for ``role``, and the old one's connections revoked (D158); the new token.

        The one path of the officials' page's form and of ``POST /api/matches/<id>/tokens/<role>``.
        """
        token = self.svc.issue_token(m, role)
        self.revoke_role(m.id, role)
        return token

    def revoke_role(self, match_id: str, role: str) -> int:
        """A role's token was replaced: every connection that joined with it is told and demoted (D158).

        Each gets ``token_revoked`` ``{"role"}``, leaves the match's officials' rooms for the
        spectators' room of the same form (no more ``legal``; the tablet still shows the match, as
        docs/api-extras.md promises) and is forgotten by the device registry, so its ``status`` is
        ignored. Consoles of the other roles hear nothing. Returns how many were told.
        """
        listed = self.devices.forget_role(match_id, role)
        with self._officials_lock:
            joined = [sid for sid, held in self._officials.items() if held.get(match_id) == role]
            for sid in joined:
                del self._officials[sid][match_id]
                if not self._officials[sid]:
                    del self._officials[sid]
        gone = list(dict.fromkeys([*listed, *joined]))
        for sid in gone:
            self.socketio.emit("token_revoked", {"role": role}, to=sid)
            self._demote(sid, match_id)
        return len(gone)

    def _demote(self, sid: str, match_id: str) -> None:
        """Move ``sid`` from the match's officials' rooms to the spectators' room of the same form."""
        server = self.socketio.server
        if server is None:
            return
        rooms = set(server.rooms(sid, namespace="/"))
        for updates in (False, True):
            official = fanout.room(match_id, official=True, updates=updates)
            if official in rooms:
                server.leave_room(sid, official, namespace="/")
                server.enter_room(sid, fanout.room(match_id, updates=updates), namespace="/")

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


def throttled_s() -> int:
    """Seconds this connection's address must wait for its tokens to be looked at again (D50; 0: now)."""
    throttle = current_app.extensions.get("qalisball_throttle")
    return 0 if throttle is None else int(throttle.wait_s(request.remote_addr or "?", current_app.config["CLOCK"]()))


def wrong_token() -> None:
    """A join's token was not valid: it counts against the address as a page's or the API's would (D50)."""
    throttle = current_app.extensions.get("qalisball_throttle")
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
