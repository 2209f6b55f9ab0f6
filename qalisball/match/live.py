"""Socket.IO: the matches' live room, for scoreboards, consoles and phones (API.md "Live updates").

Clients send ``join`` (and ``leave``); officials' consoles also send ``status``. Nothing sent over
the socket changes a match — changes come through the HTTP API, which calls ``broadcast`` once the
event is committed. Consoles that join with their role token are listed in the device registry
(``devices.py``, API.md "Match day"); ``revoke_role`` tells them when their token stops working.

What every room shares — joins bounded per connection (D156), laggards dropped before a broadcast (D52),
tokens in joins throttled (D50, D157) — is the live kernel's (``qalisball/live/rooms.py``). What a
broadcast sends, to whom and how it is encoded once for everyone is in ``live/fanout.py``. A role's new
token (``reissue``, the one path of the officials' page and the API) demotes every connection that
joined with the old one (D158).
"""

from __future__ import annotations

import threading
from typing import Any

from flask import request
from flask_socketio import SocketIO, emit, join_room, leave_room
from socketio.exceptions import ConnectionRefusedError as Refused

from qalisball.live import fanout, rooms
from qalisball.live.rooms import JoinGate, joined_token, shown, throttled_s, wrong_token
from qalisball.match.devices import DeviceRegistry, clean_device, clean_queued
from qalisball.match.service import Match, MatchService, NotFound
from qalisball.web.services import Slot

# How long a state answered to a join may be reused (its clock fields are consistent with its
# `server_time_ms`, so screens still show the right time; only `time_up` may lag by this much).
FRESH_MS = 1000


class MatchRoom:
    """The live room of every match: joins, the officials' consoles, broadcasts, revoked tokens."""

    def __init__(self, socketio: SocketIO, svc: MatchService, gate: JoinGate, devices: DeviceRegistry | None = None) -> None:
        self.socketio = socketio
        self.svc = svc
        self.devices = devices if devices is not None else DeviceRegistry()
        self.dropped = 0  # clients disconnected for falling behind (for tests and benchmarks)
        self.fanout = fanout.Fanout()
        # The public state answered to joins, kept up to FRESH_MS: a crowd joining at once (a reconnect
        # after a network drop) costs one `legal_calls` and one JSON encoding, not one per spectator.
        self._joined: dict[str, tuple[int, int, fanout.Encoded]] = {}
        self.gate = gate
        gate.guard("join")  # joins and leaves bounded per connection before any handler (D156, D241)
        gate.guard("leave")
        # The role each connection joined each match's officials' rooms with (D158): revoking a role
        # finds every one of them, whether or not the device registry lists it.
        self._officials: dict[str, dict[str, str]] = {}  # sid -> match id -> role
        self._officials_lock = threading.Lock()
        socketio.on_event("connect", self.on_connect)
        socketio.on_event("join", self.on_join)
        socketio.on_event("leave", self.on_leave)
        socketio.on_event("status", self.on_status)
        socketio.on_event("disconnect", self.on_disconnect)

    def on_connect(self, auth: Any = None) -> None:
        """A connection that names itself an official's (``?official=1``: the cluster's proxy sends it to this
        process, D244) must prove it: its ``auth`` carries a role token, or the CSRF token of the role cookie
        the connection carries (D54). Otherwise it is refused, so the flag reaches nothing an anonymous
        client could not reach without it. Connections without the flag are anyone's, as always."""
        if "official" not in request.args:
            return None
        # The refusal says why (D296): the console then connects as anyone's and, if no role, says revoked.
        if throttled_s():  # D50, D157: no token is looked at while the address is throttled
            raise Refused("too_many_requests")
        token = joined_token(auth)
        if token is not None and any(m.role_of(token) is not None for m in list(self.svc.matches.values())):
            return None
        if token is not None:
            wrong_token()
        raise Refused("unauthorized")

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
            emit("error", {"error": "not_found", "message": f"no match {shown(match_id)}"})
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
        self.gate.forget(sid)
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
        joined = set(server.rooms(sid, namespace="/"))
        for updates in (False, True):
            official = fanout.room(match_id, official=True, updates=updates)
            if official in joined:
                server.leave_room(sid, official, namespace="/")
                server.enter_room(sid, fanout.room(match_id, updates=updates), namespace="/")

    def broadcast(self, match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        """After a committed event, to every audience of the match (fanout.py): each message encoded once.

        Clients that fell behind are dropped first (D52): they rejoin to a fresh state.
        """
        for o in (False, True):
            for u in (False, True):
                self.drop_laggards(fanout.room(match_id, official=o, updates=u))
        officials = self.has_officials(match_id)
        for name, payload, to, everywhere in self.fanout.messages(match_id, entry, state, officials):
            self.socketio.emit(name, payload, to=to, ignore_queue=not everywhere)

    def has_officials(self, match_id: str) -> bool:
        """Someone is in the match's officials' rooms on this server (their messages never leave it)."""
        server = self.socketio.server
        if server is None:
            return True
        rooms = server.manager.rooms.get("/", {})
        return any(rooms.get(fanout.room(match_id, official=True, updates=u)) for u in (False, True))

    def drop_laggards(self, room: str) -> int:
        """Disconnect the clients of ``room`` (on this server) that fell behind (D52, the live kernel)."""
        dropped = rooms.drop_laggards(self.socketio, room)
        self.dropped += dropped
        return dropped


LIVE: Slot[MatchRoom] = Slot("qalisball_live")


def live() -> MatchRoom:
    """The matches' live room (Socket.IO): joins, broadcasts, revoked tokens (D158)."""
    return LIVE()
