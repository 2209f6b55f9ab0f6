"""Socket.IO: the venue screens' live room ``screen:<name>`` (issue 13).

``/screens/<name>`` sends ``join_screen`` ``{"screen": name}`` and is answered at once with ``screen``;
each change the organiser makes is published to the room. A team's new logo is told to the live rooms
of its matches (``logos``), so that their scoreboards and line-ups draw it without a reload.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_socketio import SocketIO, emit, join_room, leave_room, rooms

from qalisball.live import fanout
from qalisball.live.rooms import JoinGate, shown
from qalisball.match.service import MatchService
from qalisball.venue.schemas import NAME
from qalisball.venue.service import ScreenService, describe, team_key


def room(name: str) -> str:
    return f"screen:{name}"


def init_room(app: Flask, socketio: SocketIO, svc: ScreenService, matches: MatchService, gate: JoinGate) -> None:
    """Publish each screen's changes to its room, tell the matches' rooms of new logos, answer joins.

    ``join_screen`` and ``leave_screen`` count in the connection's join budget (D156, D241), and a
    connection watches one screen: joining another leaves the one before, so a storm of names holds no rooms.
    """

    def publish(name: str, screen: dict[str, Any]) -> None:
        with app.test_request_context():  # the screen's address is built with url_for
            socketio.emit("screen", describe(screen), to=room(name))

    svc.listen(publish)

    def logos_changed(team: str) -> None:
        """Tell the live rooms of every match of ``team`` (``logos`` ``{"match", "team"}``): a scoreboard or
        line-ups page there draws itself again with the new logo (no reload by hand at the venue)."""
        key = team_key(team)
        for m in list(matches.matches.values()):
            if key in (team_key(m.setup.home.name), team_key(m.setup.away.name)):
                for official in (False, True):
                    for updates in (False, True):
                        socketio.emit(
                            "logos", {"match": m.id, "team": team}, to=fanout.room(m.id, official=official, updates=updates)
                        )

    svc.listen_logos(logos_changed)

    def on_join(data: Any) -> None:
        """Sent by ``/screens/<name>``: ``{"screen": name}``; answered at once with ``screen``."""
        name = data.get("screen") if isinstance(data, dict) else None
        if not isinstance(name, str) or not NAME.match(name):
            emit("error", {"error": "not_found", "message": f"no screen {shown(name)}"})
            return
        for joined in rooms():
            if joined.startswith("screen:") and joined != room(name):
                leave_room(joined)
        join_room(room(name))
        emit("screen", describe(svc.screen(name)))

    def on_leave(data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("screen"), str):
            leave_room(room(data["screen"]))

    gate.guard("join_screen")
    gate.guard("leave_screen")
    socketio.on_event("join_screen", on_join)
    socketio.on_event("leave_screen", on_leave)
