"""Issue 29 item 5: what spectators get costs no `legal` (D90): counted, never timed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import qalisball.rules.view as view
from qalisball.live import fanout

ADMIN = "spectator-costs-organiser-token"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every legal_calls the public state makes, counted."""
    calls: list[int] = []
    real = view.legal_calls

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(view, "legal_calls", counting)
    return calls


def _match(tmp_path: Path) -> tuple[Any, Any, str, dict[str, str]]:
    from qalisball import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "s.db"), "ADMIN_TOKEN": ADMIN})
    client = app.test_client()
    roster = [{"number": i, "name": f"P {i}"} for i in range(1, 11)]
    team = {"players": roster, "starting": list(range(1, 7))}
    body = {"home": {"name": "A", **team}, "away": {"name": "B", **team}, "starters": 6, "field": {"length": 40, "width": 25}}
    made = client.post("/api/matches", json=body, headers={"Authorization": f"Bearer {ADMIN}"}).get_json()
    ref = {"Authorization": f"Bearer {made['tokens']['referee']}"}
    for ev in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
        assert client.post(f"/api/matches/{made['id']}/events", json=ev, headers=ref).status_code == 201
    return app, client, made["id"], made["tokens"]


def test_issue29_item5_spectators_states_compute_no_legal_however_many_watch(tmp_path: Path, counted: list[int]) -> None:
    from qalisball import socketio

    app, client, mid, tokens = _match(tmp_path)
    ref = {"Authorization": f"Bearer {tokens['referee']}"}
    spectators = [socketio.test_client(app) for _ in range(5)]
    counted.clear()
    for s in spectators:
        s.emit("join", {"match": mid})
    assert counted == [], "a spectator's join computes no legal"
    got = [s.get_received() for s in spectators]
    assert all(g[0]["name"] == "state" and "legal" not in g[0]["args"][0] for g in got)
    answer = client.post(f"/api/matches/{mid}/events", json={"type": "restart_taken", "team": "home", "player": 1}, headers=ref)
    assert answer.status_code == 201 and "legal" in answer.get_json()["state"], "the referee's answer keeps its legal (API.md)"
    assert len(counted) == 1, "one legal_calls per POST, for the referee's answer: none for the spectators"
    for s in spectators:
        names = [(m["name"], "legal" in m["args"][0]) for m in s.get_received()]
        assert names == [("event", False), ("state", False)], "what API.md's spectators see is unchanged"


def test_issue29_item5_the_officials_state_is_encoded_only_for_officials_and_after_the_spectators(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qalisball import socketio

    app, client, mid, tokens = _match(tmp_path)
    ref = {"Authorization": f"Bearer {tokens['referee']}"}
    spectator = socketio.test_client(app)
    spectator.emit("join", {"match": mid})
    spectator.get_received()
    sent: list[tuple[str, str]] = []
    real_emit = socketio.emit

    def emit(name: str, payload: Any, to: str = "", **kw: Any) -> Any:
        sent.append((name, to))
        return real_emit(name, payload, to=to, **kw)

    monkeypatch.setattr(socketio, "emit", emit)
    post = {"type": "restart_taken", "team": "home", "player": 1}
    assert client.post(f"/api/matches/{mid}/events", json=post, headers=ref).status_code == 201
    assert [to for _, to in sent] == [mid, mid, fanout.room(mid, updates=True)], "nobody in the officials' rooms: not encoded"
    console = socketio.test_client(app)
    console.emit("join", {"match": mid, "token": tokens["referee"]})
    assert "legal" in console.get_received()[0]["args"][0]
    sent.clear()
    steal = {"type": "steal", "team": "away", "player": 2}
    assert client.post(f"/api/matches/{mid}/events", json=steal, headers=ref).status_code == 201
    rooms = [to for _, to in sent]
    assert rooms[:3] == [mid, mid, fanout.room(mid, updates=True)], "the spectators' messages go first"
    assert rooms[3:] == [
        fanout.room(mid, official=True),
        fanout.room(mid, official=True),
        fanout.room(mid, official=True, updates=True),
    ]
    states = [m for m in console.get_received() if m["name"] == "state"]
    assert len(states) == 1 and "legal" in states[0]["args"][0], "an official still gets legal"


def test_issue29_item4_a_connection_holds_a_1_kb_read_buffer_not_8_kb() -> None:
    """Each connection's read buffer lives as long as its websocket: 1 KB (READ_BUFFER), not pywsgi's 8 KB."""
    import socket
    import sys

    from qalisball.server import serving

    handler_class = serving.handler_class(30.0, 0)
    a, b = socket.socketpair()
    try:
        handler = handler_class(a, ("127.0.0.1", 1), None)
        assert sys.getsizeof(handler.rfile) < 2048, "pywsgi's default buffer is 8 KB"
        b.sendall(b"GET /x HTTP/1.1\r\nHost: h\r\n" + b"X-Long: " + b"y" * 3000 + b"\r\n\r\n")
        assert handler.rfile.readline() == b"GET /x HTTP/1.1\r\n"
        handler.rfile.readline()
        assert handler.rfile.readline().endswith(b"y" * 3000 + b"\r\n"), "a line longer than the buffer is read whole"
        handler.rfile.close()
    finally:
        a.close()
        b.close()
