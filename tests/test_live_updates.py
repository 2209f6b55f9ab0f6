"""Who gets what over Socket.IO (D90, D91; docs/api-extras.md "One message per change").

D90: spectators' states carry no ``legal`` (only the officials' consoles grey calls with it); a client that
joins with one of the match's tokens is an official and gets it. D91: a client that joins with
``"updates": true`` gets one ``update`` per change — the log entry and either the whole state or a patch
of the one before — instead of API.md's ``event`` + ``state``, which every other client still gets.
"""

from __future__ import annotations

import json
import pickle
import subprocess
from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIOTestClient
from socketio import packet as sio_packet

from qalisball import socketio
from qalisball.live.fanout import Encoded, PreEncodedPacket, apply_patch, diff, dumps
from tests.conftest import MatchDriver
from tests.test_live import public

ROOT = Path(__file__).resolve().parent.parent


def _received(sio: SocketIOTestClient) -> list[tuple[str, Any]]:
    return [(m["name"], m["args"][0] if m["args"] else None) for m in sio.get_received()]


def _join(app: Flask, data: dict[str, Any]) -> tuple[SocketIOTestClient, dict[str, Any]]:
    sio = socketio.test_client(app)
    sio.emit("join", data)
    got = _received(sio)
    # A token that is not the match's is told so (API.md "Match day", Devices) and joins as a spectator.
    errors = [m for name, m in got if name == "error"]
    assert all(e["error"] == "unauthorized" for e in errors) and (not errors or data.get("token")), got
    got = [(name, m) for name, m in got if name != "error"]
    assert [name for name, _ in got] == ["state"], got
    return sio, got[0][1]


def _play(match: MatchDriver) -> None:
    """A few changes of every size: the toss, a kickoff taken, a goal, its void, a clock correction."""
    match.kickoff()
    match.take()
    goal = match.post({"type": "goal", "team": "home", "player": 2})
    match.post({"type": "void", "target": goal["seq"]})
    match.post({"type": "clock", "action": "set", "elapsed_ms": 90_000}, role="scorer")


def test_D90_spectators_get_no_legal_officials_do(app: Flask, match: MatchDriver) -> None:
    spectator, s0 = _join(app, {"match": match.id})
    official, o0 = _join(app, {"match": match.id, "token": match.tokens["scorer"]})
    assert "legal" not in s0 and o0 == match.state() and "legal" in o0
    match.kickoff()
    got_s, got_o = _received(spectator), _received(official)
    assert [n for n, _ in got_s] == [n for n, _ in got_o] == ["event", "state"] * 2
    assert got_s[0][1] == got_o[0][1] == match.events()[0]
    assert got_s[3][1] == public(match.state()) and "legal" not in got_s[3][1]
    assert got_o[3][1] == match.state() and got_o[3][1]["legal"]["calls"]


def test_D90_a_token_of_another_match_or_none_joins_as_a_spectator(
    app: Flask, match: MatchDriver, client: Any, clock: Any
) -> None:
    other = MatchDriver(client, clock)
    for token in (other.tokens["referee"], "not-a-token", 42, None, ""):
        _, state = _join(app, {"match": match.id, "token": token})
        assert "legal" not in state, token


def test_D91_one_update_per_change_and_its_patch_rebuilds_the_state(app: Flask, match: MatchDriver) -> None:
    sio, state = _join(app, {"match": match.id, "updates": True})
    legacy, _ = _join(app, {"match": match.id})
    _play(match)
    got, heard = _received(sio), _received(legacy)
    assert [n for n, _ in got] == ["update"] * 6
    states = []
    for (_, u), entry in zip(got, [e for n, e in heard if n == "event"], strict=True):
        assert u["seq"] == entry["seq"] and u["event"] == entry  # as broadcast then (a voided goal is not yet voided)
        if "patch" in u:
            assert u["base"] == state["seq"] == u["seq"] - 1 and "state" not in u
            state = apply_patch(state, u["patch"])
        else:
            state = u["state"]
        assert "legal" not in state
        states.append(state)
    assert states[-1] == public(match.state())
    # The same states as API.md's clients got, one message instead of two.
    assert states == [s for n, s in heard if n == "state"]
    assert any("patch" in u for _, u in got), "small changes travel as patches"


def test_D91_a_patch_is_smaller_than_the_state(app: Flask, match: MatchDriver) -> None:
    match.kickoff()
    sio, _ = _join(app, {"match": match.id, "updates": 1})
    match.take()
    ((name, u),) = _received(sio)
    assert name == "update" and "patch" in u
    assert len(dumps(u["patch"])) < len(dumps(public(match.state()))) / 3


def test_D91_without_the_state_before_it_the_update_carries_the_whole_state(app: Flask, match: MatchDriver) -> None:
    sio, _ = _join(app, {"match": match.id, "updates": True})
    match.kickoff()  # the toss (seq 1: nothing was broadcast before it), then the half starts (a patch)
    app.extensions["qalisball_live"].fanout.forget(match.id)  # as after a restart of the server
    match.take()
    updates = [u for _, u in _received(sio)]
    assert [("state" in u, "patch" in u) for u in updates] == [(True, False), (False, True), (True, False)]
    assert updates[-1]["state"] == public(match.state())


def test_D91_officials_updates_carry_the_whole_state_with_legal(app: Flask, match: MatchDriver) -> None:
    sio, _ = _join(app, {"match": match.id, "updates": True, "token": match.tokens["referee"]})
    _play(match)
    got = _received(sio)
    assert [n for n, _ in got] == ["update"] * 6
    assert all("state" in u and "legal" in u["state"] for _, u in got)
    assert got[-1][1]["state"] == match.state()


def test_D91_joining_again_in_another_form_leaves_the_first(app: Flask, match: MatchDriver) -> None:
    sio, _ = _join(app, {"match": match.id})
    sio.emit("join", {"match": match.id, "updates": True})
    sio.get_received()
    match.kickoff()
    assert [n for n, _ in _received(sio)] == ["update"] * 2  # the toss and the start of the half
    sio.emit("leave", {"match": match.id})
    match.take()
    assert _received(sio) == []


def test_pre_encoded_packets_are_what_python_socketio_would_send() -> None:
    """The once-encoded JSON makes the same packet as python-socketio's own encoder, and survives Redis."""
    data = {"seq": 3, "teams": {"home": {"name": "人大 Renmin", "players": {"1": "李华"}}}, "possession": None}
    for namespace in ("/", "/other"):
        ours = PreEncodedPacket(sio_packet.EVENT, data=["state", Encoded(dumps(data))], namespace=namespace).encode()
        theirs = sio_packet.Packet(sio_packet.EVENT, data=["state", data], namespace=namespace).encode()
        assert sio_packet.Packet(encoded_packet=ours).data == sio_packet.Packet(encoded_packet=theirs).data == ["state", data]
    enc = pickle.loads(pickle.dumps(Encoded("{}", "state", "m1", 7)))
    assert (enc.text, enc.kind, enc.match_id, enc.seq) == ("{}", "state", "m1", 7)
    # Other packets (acks, connects, plain emits) are encoded as usual.
    assert PreEncodedPacket(sio_packet.EVENT, data=["x", {"a": 1}]).encode() == '2["x",{"a":1}]'


def test_patches_add_and_drop_keys_by_replacing_the_object_that_changed() -> None:
    old = {"seq": 1, "score": {"home": 0, "away": 0}, "teams": {"home": {"fouls": {"4": 1}, "players": {"1": "A", "2": "B"}}}}
    new = json.loads(json.dumps(old))
    new["seq"], new["score"]["home"] = 2, 1
    new["teams"]["home"]["fouls"]["7"] = 1  # a key added
    new["teams"]["home"]["players"] = {"1": "A", "12": "B"}  # renumbered: a key gone
    patch = list(diff(old, new))
    assert sorted(map(str, (p for p, _ in patch))) == sorted(
        map(str, [["seq"], ["score", "home"], ["teams", "home", "fouls"], ["teams", "home", "players"]])
    )
    assert apply_patch(old, patch) == new
    assert old["teams"]["home"]["players"] == {"1": "A", "2": "B"}, "the old state is left as it was"
    assert list(diff(new, new)) == []
    assert apply_patch(old, [[[], new]]) == new
    # A value that changes type only (1 → True) is still sent.
    assert list(diff({"a": 1}, {"a": True})) == [[["a"], True]]


def test_D91_the_pages_rebuild_the_same_states_from_the_patches(app: Flask, match: MatchDriver) -> None:
    """static/js/lib/patch.js (``patched``, run by Node) turns the updates into the states API.md's clients get."""
    sio, first = _join(app, {"match": match.id, "updates": True})
    legacy, _ = _join(app, {"match": match.id})
    _play(match)
    updates = [u for _, u in _received(sio)]
    expected = [s for n, s in _received(legacy) if n == "state"]
    script = """
import { readFileSync } from "node:fs";
const { patched } = await import(process.argv[1]);
const input = JSON.parse(readFileSync(0, "utf8"));
let s = input.first; const out = [];
for (const u of input.updates) { s = u.state || (s.seq === u.base ? patched(s, u.patch) : null); out.push(s); }
process.stdout.write(JSON.stringify(out));
"""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, (ROOT / "static" / "js" / "lib" / "patch.js").as_uri()],
        input=json.dumps({"first": first, "updates": updates}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout) == expected
