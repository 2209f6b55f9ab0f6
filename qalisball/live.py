"""Socket.IO: live state for scoreboards, consoles and phones (API.md "Live updates").

Clients send only ``join`` (and ``leave``); nothing sent over the socket changes a match — changes
come through the HTTP API, which calls ``broadcast`` once the event is committed. What a broadcast
sends, to whom and how it is encoded once for everyone is in ``fanout.py``.
"""

from __future__ import annotations

from typing import Any

from flask_socketio import SocketIO, emit, join_room, leave_room

from . import fanout
from .service import Match, MatchService, NotFound

# How long a state answered to a join may be reused (its clock fields are consistent with its
# `server_time_ms`, so screens still show the right time; only `time_up` may lag by this much).
FRESH_MS = 1000


class Live:
    def __init__(self, socketio: SocketIO, svc: MatchService) -> None:
        self.socketio = socketio
        self.svc = svc
        self.fanout = fanout.Fanout()
        # The public state answered to joins, kept up to FRESH_MS: a crowd joining at once (a reconnect
        # after a network drop) costs one `legal_calls` and one JSON encoding, not one per spectator.
        self._joined: dict[str, tuple[int, int, fanout.Encoded]] = {}
        socketio.on_event("join", self.on_join)
        socketio.on_event("leave", self.on_leave)

    def on_join(self, data: Any) -> None:
        """Sent by any client: ``{"match": id}``; answered at once with ``state``."""
        match_id = data.get("match") if isinstance(data, dict) else None
        try:
            m = self.svc.get(str(match_id))
        except NotFound:
            emit("error", {"error": "not_found", "message": f"no match {match_id}"})
            return
        self.enter(m, data)

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
        state = fanout.public_view(self.svc.state(m))
        encoded = fanout.Encoded(fanout.dumps(state), "public_state", m.id, int(state["seq"]))
        self._joined[m.id] = (int(state["seq"]), now, encoded)
        return encoded

    def on_leave(self, data: Any) -> None:
        if isinstance(data, dict) and data.get("match"):
            for o in (False, True):
                for u in (False, True):
                    leave_room(fanout.room(str(data["match"]), official=o, updates=u))

    def broadcast(self, match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        """After a committed event, to every audience of the match (fanout.py): each message encoded once."""
        for name, payload, to, everywhere in self.fanout.messages(match_id, entry, state):
            self.socketio.emit(name, payload, to=to, ignore_queue=not everywhere)
