"""Socket.IO: live state for scoreboards, consoles and phones (API.md "Live updates").

Clients send only ``join`` (and ``leave``); nothing sent over the socket changes a match — changes
come through the HTTP API, which calls ``broadcast`` once the event is committed.
"""

from __future__ import annotations

from typing import Any

from flask_socketio import SocketIO, emit, join_room, leave_room

from .service import MatchService, NotFound


class Live:
    def __init__(self, socketio: SocketIO, svc: MatchService) -> None:
        self.socketio = socketio
        self.svc = svc
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
        join_room(m.id)
        emit("state", self.svc.state(m))

    def on_leave(self, data: Any) -> None:
        if isinstance(data, dict) and data.get("match"):
            leave_room(str(data["match"]))

    def token_revoked(self, match_id: str, role: str) -> None:
        """A role's token was replaced (API.md "Match day"): consoles of that role stop using it."""
        self.socketio.emit("token_revoked", {"role": role}, to=match_id)

    def broadcast(self, match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        """After a committed event: the log entry, then the new state, to everyone in the room."""
        self.socketio.emit("event", entry, to=match_id)
        self.socketio.emit("state", state, to=match_id)
