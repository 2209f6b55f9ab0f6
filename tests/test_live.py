"""Live updates over Socket.IO (API.md "Live updates"), with Flask-SocketIO's test client.

A client emits ``join`` with ``{"match": id}`` and receives ``state`` at once; after every accepted event
everyone in that match's room receives ``event`` (the log entry) and then ``state``. Spectators need no
token and nothing they send changes a match. Their state has no ``legal`` (D90): officials, who join with
their token, get it. Clients that opt in get one ``update`` per change, a patch of the state (D91,
docs/api-extras.md "One message per change"): tests/test_live_updates.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import SocketIOTestClient

from qalisball import socketio
from tests.conftest import ADMIN, FakeClock, MatchDriver, auth


def _received(sio: SocketIOTestClient) -> list[tuple[str, Any]]:
    return [(m["name"], m["args"][0] if m["args"] else None) for m in sio.get_received()]


def public(state: dict[str, Any]) -> dict[str, Any]:
    """The state as spectators get it over the socket: ``GET /api/matches/<id>`` without ``legal`` (D90)."""
    assert "legal" in state
    return {k: v for k, v in state.items() if k != "legal"}


def _joined(app: Flask, match_id: str) -> SocketIOTestClient:
    sio = socketio.test_client(app)
    assert sio.is_connected()
    sio.emit("join", {"match": match_id})
    return sio


def test_join_answers_state_at_once(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    sio = _joined(app, match.id)
    got = _received(sio)
    assert [name for name, _ in got] == ["state"]
    assert got[0][1] == public(match.state())
    assert got[0][1]["seq"] == 2 and got[0][1]["restart"]["type"] == "kickoff"


def test_join_without_a_token_sees_no_tokens(app: Flask, match: MatchDriver) -> None:
    sio = _joined(app, match.id)
    text = str(_received(sio))
    for token in match.tokens.values():
        assert token not in text


def test_event_then_state_to_everyone_in_the_room(app: Flask, match: MatchDriver) -> None:
    a, b = _joined(app, match.id), _joined(app, match.id)
    a.get_received(), b.get_received()
    answer = match.post({"type": "coin_toss", "kickoff": "away", "home_end": "xL"})
    entry = match.events()[-1]
    for sio in (a, b):
        got = _received(sio)
        assert [name for name, _ in got] == ["event", "state"], got
        assert got[0][1] == entry
        assert got[1][1] == public(answer["state"]) == public(match.state())


def test_every_accepted_event_is_broadcast_in_order(app: Flask, match: MatchDriver) -> None:
    sio = _joined(app, match.id)
    sio.get_received()
    match.kickoff()
    match.take()
    match.post({"type": "goal", "team": "home", "player": 2}, role="assistant1")
    got = _received(sio)
    assert [name for name, _ in got] == ["event", "state"] * 4
    events = [payload for name, payload in got if name == "event"]
    states = [payload for name, payload in got if name == "state"]
    assert events == match.events()
    assert [s["seq"] for s in states] == [1, 2, 3, 4]
    assert states[-1]["score"] == {"home": 1, "away": 0}


def test_void_is_broadcast_with_the_replayed_state(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    match.take()
    goal = match.post({"type": "goal", "team": "home", "player": 2})
    sio = _joined(app, match.id)
    sio.get_received()
    match.post({"type": "void", "target": goal["seq"]})
    got = _received(sio)
    assert [name for name, _ in got] == ["event", "state"]
    assert got[0][1]["type"] == "void" and got[0][1]["target"] == goal["seq"]
    assert got[1][1]["score"] == {"home": 0, "away": 0} and got[1][1]["ball"] == "live"


def test_another_matchs_room_hears_nothing(app: Flask, client: FlaskClient, clock: FakeClock) -> None:
    first, second = MatchDriver(client, clock), MatchDriver(client, clock)
    watching_first, watching_second = _joined(app, first.id), _joined(app, second.id)
    not_joined = socketio.test_client(app)
    for sio in (watching_first, watching_second, not_joined):
        sio.get_received()
    first.kickoff()
    assert [name for name, _ in _received(watching_first)] == ["event", "state"] * 2
    assert _received(watching_second) == []
    assert _received(not_joined) == []


def test_refusals_and_repeats_broadcast_nothing(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    sio = _joined(app, match.id)
    sio.get_received()
    match.refused({"type": "goal", "team": "home", "player": 1}, "7.1")
    match.post({"type": "goal", "team": "nobody"}, expect=400)
    match.post({"type": "restart_taken", "team": "home", "player": 1, "id": "k"})
    sio.get_received()
    match.post({"type": "restart_taken", "team": "home", "player": 1, "id": "k"}, expect=200)
    match.post({"type": "period_start", "expected_seq": 0}, expect=409)
    assert _received(sio) == []


@pytest.mark.parametrize("payload", [{"match": "nosuchmatch"}, {"match": None}, {}, {"match": ["x"]}, "nosuchmatch", None, 42])
def test_join_of_an_unknown_match_is_an_error(app: Flask, match: MatchDriver, payload: Any) -> None:
    sio = socketio.test_client(app)
    sio.emit("join", payload)
    got = _received(sio)
    assert [name for name, _ in got] == ["error"], got
    assert got[0][1]["error"] == "not_found" and got[0][1]["message"]
    assert sio.is_connected()
    # The failed join put it in no room.
    match.kickoff()
    assert _received(sio) == []


def test_leave_stops_updates(app: Flask, match: MatchDriver) -> None:
    sio = _joined(app, match.id)
    sio.get_received()
    sio.emit("leave", {"match": match.id})
    match.kickoff()
    assert _received(sio) == []


def test_a_spectator_can_change_nothing(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    match.take()
    sio = _joined(app, match.id)
    other = _joined(app, match.id)
    sio.get_received(), other.get_received()
    before = (match.state(), match.events())
    fake = {"type": "goal", "team": "away", "player": 1}
    for name, payload in [
        ("event", fake),
        ("event", {"match": match.id, **fake}),
        ("event", {"match": match.id, "token": match.tokens["referee"], "event": fake}),
        ("state", {**before[0], "score": {"home": 0, "away": 9}}),
        ("goal", {"match": match.id, "team": "away"}),
        ("submit", {"match": match.id, "type": "void", "target": 1}),
        ("void", {"match": match.id, "target": 1}),
        ("message", {"match": match.id, **fake}),
        ("join", {"match": match.id, **fake}),
    ]:
        sio.emit(name, payload)
    sio.send({"match": match.id, **fake})
    assert (match.state(), match.events()) == before
    # The other spectator heard nothing from it; the sender got only the state it asked for by joining.
    assert _received(other) == []
    assert [name for name, _ in _received(sio)] == ["state"]


def test_state_over_the_socket_keeps_the_clock_of_the_server(app: Flask, match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    clock.advance(65_000)
    sio = _joined(app, match.id)
    state = _received(sio)[0][1]
    assert state["clock"]["elapsed_ms"] == 65_000 and state["server_time_ms"] == clock.now


def test_D157_wrong_tokens_in_joins_are_throttled_as_pages_and_the_api_throttle_them(
    app: Flask, client: FlaskClient, match: MatchDriver, clock: FakeClock
) -> None:
    """D50's bucket per address: 10 wrong tokens, then one more every 6 s, whichever way they came."""
    for i in range(10):  # each from a new connection: the per-connection join bound (D156) is not what stops them
        guess = socketio.test_client(app, flask_test_client=client)  # the HTTP client's address (127.0.0.1)
        guess.emit("join", {"match": match.id, "token": f"guess-{i}", "device": "x"})
        assert [name for name, _ in _received(guess)] == ["error", "state"]
    referee = socketio.test_client(app, flask_test_client=client)
    referee.emit("join", {"match": match.id, "token": match.tokens["referee"], "device": "R"})
    got = _received(referee)
    # The right token is not looked at either: refused, and the client watches as a spectator would.
    assert [name for name, _ in got] == ["error", "state"] and got[0][1]["error"] == "too_many_requests"
    assert got[0][1]["retry_after"] == 6 and "legal" not in got[1][1]
    elsewhere = app.test_client()

    def listed() -> Any:  # the organiser, from another address
        return elsewhere.get(f"/api/matches/{match.id}/devices", headers=auth(ADMIN), environ_base={"REMOTE_ADDR": "192.0.2.7"})

    assert listed().get_json() == []
    # The joins' guesses count for the API of that address too, and the wait is the same.
    r = client.post(
        f"/api/matches/{match.id}/events", json={"type": "clock", "action": "pause"}, headers=auth(match.tokens["referee"])
    )
    assert r.status_code == 429 and r.headers["Retry-After"] == "6"
    clock.advance(6000)
    referee.emit("join", {"match": match.id, "token": match.tokens["referee"], "device": "R"})
    assert [name for name, _ in _received(referee)] == ["state"]  # drained by one: the right token works again
    assert [d["role"] for d in listed().get_json()] == ["referee"]
