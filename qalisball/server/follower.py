"""A spectator process of a cluster (docs/deploy.md "Several processes, several machines"; D92).

Socket.IO only, and no match in memory: it never applies an event, so no two processes can disagree
about a match. It relays the writer's broadcasts, which reach it through Redis (Flask-SocketIO's
``message_queue``) already encoded (fanout.py), and answers a ``join`` with the latest public state it
relayed — or, when it has none from the last ``FRESH_S``, the writer's own (``GET /api/matches/<id>``
over HTTP; one request per match and second at most, however many spectators join at once).

Officials' consoles are not served here: the proxy sends their connections (``?official=1``) to the
writer, which checks their token. A join with a token here is answered as a spectator's. The venue screens'
and the competitions' rooms are served here too (D244): their joins are answered with the latest message the
writer relayed to the room, or the writer's ``GET /api/screens/<name>`` / ``/api/competitions/<id>``.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from flask import Flask, jsonify, request
from flask_socketio import SocketIO, emit, join_room, leave_room
from flask_socketio import rooms as socket_rooms

from qalisball.live import fanout, rooms
from qalisball.live.fanout import Encoded, PreEncodedPacket
from qalisball.live.rooms import JoinGate
from qalisball.web.services import Slot

JOINS = ("join", "leave", "join_screen", "leave_screen", "join_competition", "leave_competition")
SCREEN_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")  # venue/schemas.py's NAME (a screen's name)
FRESH_S = 1.0  # a relayed state older than this is refreshed from the writer before a join is answered


class FollowingRedisManager(fanout.QueueManager):
    """The Redis manager of a spectator process: also hands every relayed public state to ``on_state``."""

    def __init__(self, url: str, on_state: Any, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.on_state = on_state

    on_room_message: Any = None  # (room, payload): the latest `screen` / `competition` of a room (D244)

    def _handle_emit(self, message: dict[str, Any]) -> None:
        data = message.get("data")
        if isinstance(data, list) and len(data) == 1 and isinstance(data[0], Encoded) and data[0].kind == "public_state":
            self.on_state(data[0])  # before relaying it: a join answered from now on is at least this new
        room = message.get("room")
        if self.on_room_message is not None and isinstance(data, list) and len(data) == 1 and isinstance(room, str):
            if (message.get("event"), room.split(":", 1)[0]) in (("screen", "screen"), ("competition", "competition")):
                self.on_room_message(room, data[0])
        super()._handle_emit(message)


class Follower:
    """Answers joins in a spectator process from the relayed states, or the writer's."""

    def __init__(self, socketio: SocketIO, writer_url: str) -> None:
        self.socketio = socketio
        self.writer_url = writer_url.rstrip("/")
        self.states: dict[str, tuple[Encoded, float]] = {}  # match -> (latest public state, monotonic time)
        self._locks: dict[str, threading.Lock] = {}
        self.clients = 0
        socketio.on_event("connect", self.on_connect)
        socketio.on_event("disconnect", self.on_disconnect)
        socketio.on_event("join", self.on_join)
        socketio.on_event("leave", self.on_leave)
        # The venue screens' and the competitions' rooms (D244): answered here as the writer answers them.
        self.latest: dict[str, tuple[Any, float]] = {}  # room -> (latest payload, monotonic time it came)
        socketio.on_event("join_screen", self.on_join_screen)
        socketio.on_event("leave_screen", self.on_leave_screen)
        socketio.on_event("join_competition", self.on_join_competition)
        socketio.on_event("leave_competition", self.on_leave_competition)

    def on_connect(self, auth: Any = None) -> None:
        self.clients += 1

    gate: JoinGate | None = None

    def on_disconnect(self, reason: Any = None) -> None:
        self.clients -= 1
        if self.gate is not None:
            self.gate.forget(request.sid)  # type: ignore[attr-defined]

    def relayed(self, state: Encoded) -> None:
        """A public state from the writer, on its way to this process's spectators."""
        held = self.states.get(state.match_id)
        if held is None or state.seq >= held[0].seq:
            self.states[state.match_id] = (state, time.monotonic())

    def current(self, match_id: str) -> Encoded | None:
        """The latest public state of the match (refreshed from the writer when stale); None: no such match."""
        held = self.states.get(match_id)
        if held is not None and time.monotonic() - held[1] < FRESH_S:
            return held[0]
        with self._locks.setdefault(match_id, threading.Lock()):  # one request for a crowd joining at once
            held = self.states.get(match_id)
            if held is not None and time.monotonic() - held[1] < FRESH_S:
                return held[0]
            fetched = self._fetch(match_id)
            if fetched is None:
                return held[0] if held is not None else None
            self.relayed(fetched)
            if self.states[match_id][0] is fetched:
                return fetched
            return self.states[match_id][0]  # a newer one arrived from Redis while we asked

    def _fetch(self, match_id: str) -> Encoded | None:
        url = f"{self.writer_url}/api/matches/{urllib.parse.quote(match_id, safe='')}"
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                state = fanout.public_view(json.loads(r.read()))
        except (urllib.error.URLError, OSError, ValueError):
            return None  # 404 (no such match) or the writer unreachable: keep what we have, if anything
        return Encoded(fanout.dumps(state), "public_state", match_id, int(state["seq"]))

    def on_join(self, data: Any) -> None:
        match_id = data.get("match") if isinstance(data, dict) else None
        state = self.current(match_id) if isinstance(match_id, str) and 0 < len(match_id) <= 64 else None
        if state is None:
            emit("error", {"error": "not_found", "message": f"no match {rooms.shown(match_id)}"})
            return
        updates = data.get("updates") is True or data.get("updates") == 1
        # No yield between choosing the state and entering the room: every later change reaches this client.
        leave_room(fanout.room(match_id, updates=not updates))
        join_room(fanout.room(match_id, updates=updates))
        # To this client only, and not through Redis (every other process would look for it in vain).
        self.socketio.server.emit("state", state, to=request.sid, ignore_queue=True)

    def on_leave(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("match"), str):
            for updates in (False, True):
                leave_room(fanout.room(data["match"], updates=updates))

    def room_message(self, room: str, payload: Any) -> None:
        """A ``screen`` or ``competition`` message from the writer, on its way to this process's clients."""
        self.latest[room] = (payload, time.monotonic())
        if len(self.latest) > 10_000:  # rooms nobody asked about lately are forgotten
            cutoff = time.monotonic() - FRESH_S
            self.latest = {r: v for r, v in self.latest.items() if v[1] >= cutoff}

    def _room_answer(self, room: str, path: str, absent: Any) -> Any:
        """What a join of ``room`` is answered: the latest relayed message when fresh, else the writer's
        (``GET path``; ``absent`` when it answers 404, None when it cannot be asked)."""
        held = self.latest.get(room)
        if held is not None and time.monotonic() - held[1] < FRESH_S:
            return held[0]
        asked = time.monotonic()
        with self._locks.setdefault(room, threading.Lock()):
            held = self.latest.get(room)
            if held is not None and held[1] >= asked - FRESH_S and time.monotonic() - held[1] < FRESH_S:
                return held[0]
            try:
                with urllib.request.urlopen(self.writer_url + path, timeout=5) as r:
                    text = r.read().decode()
            except urllib.error.HTTPError as exc:
                return absent if exc.code == 404 else None
            except (urllib.error.URLError, OSError, ValueError):
                return None
            held = self.latest.get(room)
            if held is not None and held[1] >= asked:  # a newer one came from Redis while we asked
                return held[0]
            return text

    def on_join_screen(self, data: Any) -> None:
        name = data.get("screen") if isinstance(data, dict) else None
        if not isinstance(name, str) or not SCREEN_NAME.match(name):
            emit("error", {"error": "not_found", "message": f"no screen {rooms.shown(name)}"})
            return
        blank = {"name": name, "show": "blank", "caption": "", "updated_at": None, "src": None, "image_url": None}
        got = self._room_answer(f"screen:{name}", f"/api/screens/{name}", blank)
        if got is None:
            emit("error", {"error": "unavailable", "message": "the server cannot be reached: try again"})
            return
        for joined in socket_rooms():
            if joined.startswith("screen:") and joined != f"screen:{name}":
                leave_room(joined)
        join_room(f"screen:{name}")
        emit("screen", json.loads(got) if isinstance(got, str) else got)

    def on_leave_screen(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("screen"), str):
            leave_room(f"screen:{data['screen']}")

    def on_join_competition(self, data: Any) -> None:
        comp_id = data.get("competition") if isinstance(data, dict) else None
        ok = isinstance(comp_id, str) and 0 < len(comp_id) <= 64 and comp_id.isascii() and comp_id.isalnum()
        path = f"/api/competitions/{urllib.parse.quote(comp_id, safe='')}" if ok and isinstance(comp_id, str) else ""
        got = self._room_answer(f"competition:{comp_id}", path, None) if ok else None
        if got is None:
            emit("error", {"error": "not_found", "message": f"no competition {rooms.shown(comp_id)}"})
            return
        join_room(f"competition:{comp_id}")
        emit("competition", Encoded(got, "competition") if isinstance(got, str) else got)

    def on_leave_competition(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("competition"), str):
            leave_room(f"competition:{data['competition']}")


FOLLOWER: Slot[Follower] = Slot("qalisball_follower")


def create_follower_app() -> Flask:
    """The Flask app of a spectator process (app.py with ``QALISBALL_ROLE=spectators``)."""
    from qalisball.server.factory import socketio

    url = os.environ.get("QALISBALL_MESSAGE_QUEUE")
    writer = os.environ.get("QALISBALL_WRITER_URL")
    if not url or not writer:
        raise SystemExit("a spectator process needs QALISBALL_MESSAGE_QUEUE (redis://…) and QALISBALL_WRITER_URL")
    app = Flask(__name__)
    # A spectator process serves only behind the cluster's proxy, so every connection has the proxy's address:
    # the per-address cap (D52) is the proxy's, on the client's own address (D140); 0 here unless set.
    app.config["MAX_CONNECTIONS_PER_ADDRESS"] = int(os.environ.get("QALISBALL_MAX_CONNECTIONS_PER_ADDRESS") or "0")
    # The pings advertised to clients and the idle bound app.py enforces come from the same two numbers
    # as the writer's (D52, D142): a client that answers every ping is never closed for being idle.
    app.config["PING_INTERVAL"] = float(os.environ.get("QALISBALL_PING_INTERVAL") or "10")
    app.config["PING_TIMEOUT"] = float(os.environ.get("QALISBALL_PING_TIMEOUT") or "10")
    holder: dict[str, Follower] = {}
    mode = os.environ.get("QALISBALL_ASYNC_MODE", "gevent")
    manager = FollowingRedisManager(url, on_state=lambda s: holder["f"].relayed(s) if "f" in holder else None)
    if mode == "gevent" and os.environ.get("QALISBALL_FASTWS", "1") != "0":
        from qalisball.live import fastws

        fastws.install()
        manager.fast = True
    socketio.init_app(
        app,
        async_mode=mode,
        client_manager=manager,
        serializer=PreEncodedPacket,
        cors_allowed_origins=[],
        ping_interval=app.config["PING_INTERVAL"],
        ping_timeout=app.config["PING_TIMEOUT"],
    )
    from qalisball.web.priority import HandshakeBudget

    # Engine.IO handshakes per client address (D243): the proxy's X-Forwarded-For names it.
    app.wsgi_app = HandshakeBudget(app.wsgi_app, hops=int(os.environ.get("QALISBALL_PROXY_HOPS") or "1"))  # type: ignore[method-assign]
    follower = holder["f"] = Follower(socketio, writer)
    manager.on_room_message = follower.room_message
    follower.gate = JoinGate(socketio, lambda: int(time.monotonic() * 1000))  # D156, D241: as the writer's
    follower.gate.events.update(JOINS)
    FOLLOWER.install(app, follower)

    @app.get("/healthz")
    def healthz() -> Any:
        """For the proxy's health checks (and the cluster test): this process and its clients."""
        return jsonify({"role": "spectators", "pid": os.getpid(), "clients": follower.clients, "matches": len(follower.states)})

    return app
