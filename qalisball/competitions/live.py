"""Socket.IO: a competition's live room ``competition:<id>`` (API.md "Competitions", live updates).

A competition page sends ``join_competition`` ``{"competition": id}`` and is answered at once with
``competition``; the service's changes (a match event, an organiser's write) are published to the room.
Joins are bounded per connection before this handler runs (D156, the live kernel's ``JoinGate``).
"""

from __future__ import annotations

from typing import Any

from flask_socketio import SocketIO, emit, join_room, leave_room

from qalisball.competitions.service import CompetitionService
from qalisball.live.fanout import Encoded
from qalisball.live.rooms import JoinGate, shown


def room(comp_id: str) -> str:
    return f"competition:{comp_id}"


def init_room(socketio: SocketIO, svc: CompetitionService, gate: JoinGate) -> None:
    """Publish the service's changes to each competition's room and answer its joins."""

    def publish(comp_id: str, kind: str, payload: dict[str, Any]) -> None:
        socketio.emit(kind, payload, to=room(comp_id))

    svc.listen(publish)

    def on_join(data: Any) -> None:
        """Sent by a competition page: ``{"competition": id}``; answered at once with ``competition``.

        Answered from the view cached per change (D155): a storm of joins never rebuilds the competition.
        """
        comp_id = data.get("competition") if isinstance(data, dict) else None
        c = svc.competitions.get(str(comp_id))
        if c is None:
            emit("error", {"error": "not_found", "message": f"no competition {shown(comp_id)}"})
            return
        join_room(room(c.id))
        emit("competition", Encoded(svc.cached_view(c).text, "competition"))

    def on_leave(data: Any) -> None:
        if isinstance(data, dict) and data.get("competition"):
            leave_room(room(str(data["competition"])))

    gate.guard("join_competition")
    gate.guard("leave_competition")
    socketio.on_event("join_competition", on_join)
    socketio.on_event("leave_competition", on_leave)
