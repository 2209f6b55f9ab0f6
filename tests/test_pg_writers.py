"""Several server processes on one PostgreSQL database (issue 32 items 2 and 3, D396–D398): two real servers
(``python app.py``, gevent) on loopback and one throw-away PostgreSQL (tests/pg.py), each taking officials' calls for
the same match. No timing is asserted and nothing sleeps: every wait polls a real condition (tests/waiting.py);
where game time matters (M4) the calls carry their ``at_ms``, so the servers' real clocks decide nothing here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio

from qalisball.server.demo import demo_request
from tests.pg import sql
from tests.ports import free_port
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "pg-writers-organiser-token-0123456789"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Server:
    """``python app.py`` on a port of its own, on the test's PostgreSQL database."""

    def __init__(self, name: str, tmp: Path, url: str) -> None:
        self.name, self.url, self.log = name, url, tmp / f"{name}.log"
        self.acks = tmp / "acks"  # one machine: the servers share the app's acknowledgement journal (D392)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        env = {
            **os.environ,
            "QALISBALL_ASYNC_MODE": "gevent",
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "QALISBALL_DATABASE_URL": self.url,
            "QALISBALL_ACKS_DIR": str(self.acks),
            "QALISBALL_ADMIN_TOKEN": ADMIN,
        }
        env.pop("QALISBALL_MESSAGE_QUEUE", None)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        wait_until(self._up, f"the server {self.name} answers", timeout=90, every=0.1)
        assert self.proc.poll() is None, self.log.read_text()[-3000:]
        return self

    def _up(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            return True
        try:
            return requests.get(f"{self.base}/api/matches", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def post(self, match_id: str, token: str, body: dict[str, Any]) -> requests.Response:
        return requests.post(f"{self.base}/api/matches/{match_id}/events", json=body, headers=auth(token), timeout=30)

    def events(self, match_id: str) -> list[dict[str, Any]]:
        r = requests.get(f"{self.base}/api/matches/{match_id}/events", timeout=10)
        assert r.status_code == 200, r.text
        return list(r.json())

    def state(self, match_id: str) -> dict[str, Any]:
        r = requests.get(f"{self.base}/api/matches/{match_id}", timeout=10)
        assert r.status_code == 200, r.text
        return dict(r.json())


@pytest.fixture
def servers(tmp_path: Path, pg_url: str) -> Iterator[tuple[Server, Server]]:
    a = Server("a", tmp_path, pg_url).start()  # first: it migrates the empty database and makes the demo
    b = Server("b", tmp_path, pg_url).start()
    try:
        yield a, b
    finally:
        b.stop()
        a.stop()


def new_match(server: Server) -> tuple[str, dict[str, str]]:
    r = requests.post(f"{server.base}/api/matches", json=demo_request(), headers=auth(ADMIN), timeout=15)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["tokens"]


def kick_off(server: Server, match_id: str, tokens: dict[str, str]) -> dict[str, Any]:
    """Coin toss, first half, the kickoff taken: the ball is live."""
    for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
        r = server.post(match_id, tokens["referee"], body)
        assert r.status_code == 201, r.text
    state = r.json()["state"]
    team = state["restart"]["team"]
    r = server.post(
        match_id, tokens["referee"], {"type": "restart_taken", "team": team, "player": state["teams"][team]["on_field"][0]}
    )
    assert r.status_code == 201, r.text
    return dict(r.json()["state"])


def stored_seqs(url: str, match_id: str) -> list[int]:
    return [int(r[0]) for r in sql(url, "SELECT seq FROM events WHERE match_id = ? ORDER BY seq", [match_id])]


def notes(server: Server, match_id: str, token: str, n: int, tag: str, out: list[int], errors: list[str]) -> None:
    """``n`` notes (legal in any order, from any official) posted one after the other; the seqs answered."""
    for i in range(n):
        try:
            r = server.post(match_id, token, {"type": "note", "text": f"{tag} {i}"})
        except requests.RequestException as exc:
            errors.append(f"{tag} {i}: {exc}")
            return
        if r.status_code != 201:
            errors.append(f"{tag} {i}: {r.status_code} {r.text}")
            continue
        out.append(int(r.json()["seq"]))


def test_issue32_D396_two_servers_taking_calls_for_one_match_at_once_number_them_consecutively(
    servers: tuple[Server, Server], pg_url: str
) -> None:
    """D396: a match made at A is found at B (loaded on demand); four officials' tablets, two at each server, log at
    once: every answer's seq is different, the stored seqs are 1…N with no gap, both servers list the same log, and
    `verify` finds every chain sound."""
    a, b = servers
    match_id, tokens = new_match(a)
    assert b.state(match_id)["seq"] == 0  # made at A, found at B at once
    kick_off(b, match_id, tokens)
    answered: list[int] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=notes, args=(server, match_id, tokens[role], 15, f"{server.name}-{role}", answered, errors))
        for server, role in ((a, "referee"), (b, "assistant1"), (a, "scorer"), (b, "assistant2"))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert len(answered) == 60 and len(set(answered)) == 60, sorted(answered)
    seqs = stored_seqs(pg_url, match_id)
    assert seqs == list(range(1, 64)), seqs  # 3 calls to kick off, 60 notes: consecutive, no gap, no duplicate
    assert set(answered) == set(range(4, 64))
    wait_until(lambda: a.state(match_id)["seq"] == 63 and b.state(match_id)["seq"] == 63, "both copies at seq 63")
    assert a.events(match_id) == b.events(match_id)
    env = {**os.environ, "QALISBALL_DATABASE_URL": pg_url, "QALISBALL_ACKS_DIR": str(a.acks)}
    done = subprocess.run([sys.executable, "-m", "qalisball", "verify"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0 and f"OK       {match_id}" in done.stdout, done.stdout + done.stderr


def test_issue32_D396_idempotency_expected_seq_and_M4_hold_across_processes(servers: tuple[Server, Server]) -> None:
    """D396: a call's idempotency key sent again at the other server answers the first answer (200) and stores
    nothing, with another body it is a 409 conflict; an ``expected_seq`` that was current at B before A took a call
    is refused at B at once (B's copy is behind: it catches up before deciding); a second official's goal at B right
    after the first's at A is M4's duplicate (200 duplicate_of, nothing stored)."""
    a, b = servers
    match_id, tokens = new_match(a)
    kick_off(a, match_id, tokens)
    ref = tokens["referee"]
    first = a.post(match_id, ref, {"type": "note", "text": "once", "id": "key-1"})
    assert first.status_code == 201, first.text
    again = b.post(match_id, ref, {"type": "note", "text": "once", "id": "key-1"})
    assert again.status_code == 200 and again.json() == first.json(), again.text
    other = b.post(match_id, ref, {"type": "note", "text": "another", "id": "key-1"})
    assert other.status_code == 409 and other.json()["error"] == "conflict", other.text
    seq = int(first.json()["seq"])
    assert a.post(match_id, ref, {"type": "note", "text": "at A", "expected_seq": seq}).status_code == 201
    stale = b.post(match_id, ref, {"type": "note", "text": "at B", "expected_seq": seq})
    assert stale.status_code == 409 and stale.json()["error"] == "conflict", stale.text
    assert f"current seq {seq + 1}" in stale.json()["message"]
    goal = a.post(match_id, tokens["assistant1"], {"type": "goal", "team": "home", "player": 3})
    assert goal.status_code == 201, goal.text
    at_ms = a.events(match_id)[-1]["at_ms"]  # the same moment of game time: the servers' clocks decide nothing
    dup = b.post(match_id, tokens["assistant2"], {"type": "goal", "team": "home", "at_ms": at_ms})
    assert dup.status_code == 200, dup.text
    assert dup.json()["duplicate_of"] == goal.json()["seq"] and dup.json()["by"] == "assistant1"
    assert dup.json()["state"]["score"] == {"home": 1, "away": 0}
    assert [e["seq"] for e in b.events(match_id)] == list(range(1, int(goal.json()["seq"]) + 1))


def test_issue32_D397_a_spectator_of_server_a_sees_server_bs_calls_in_order(servers: tuple[Server, Server]) -> None:
    """D397: a spectator on A (Socket.IO) gets every state and log entry of the calls B takes, in order; a token
    issued again at A stops working at B."""
    a, b = servers
    match_id, tokens = new_match(a)
    states: list[int] = []
    entries: list[int] = []
    joined = threading.Event()
    sio = socketio.Client(reconnection=False)
    sio.on("state", lambda s: (states.append(int(s["seq"])), joined.set()))
    sio.on("event", lambda e: entries.append(int(e["seq"])))
    sio.connect(a.base, transports=["websocket"], wait_timeout=20)
    try:
        sio.emit("join", {"match": match_id})
        assert joined.wait(20), "no state on joining at A"
        kick_off(b, match_id, tokens)
        for i in range(10):
            r = b.post(match_id, tokens["scorer"], {"type": "clock", "action": "pause" if i % 2 == 0 else "resume"})
            assert r.status_code == 201, r.text
        wait_until(lambda: entries and entries[-1] == 13 and states[-1] == 13, "A's spectator at B's last call")
        assert entries == list(range(1, 14)), entries  # every call B took, once each, in order
        assert states[-1] == 13 and states == sorted(states), states
    finally:
        sio.disconnect()
    r = requests.post(f"{a.base}/api/matches/{match_id}/tokens/scorer", headers=auth(ADMIN), timeout=10)
    assert r.status_code == 200, r.text
    new = r.json()["token"]
    wait_until(
        lambda: b.post(match_id, tokens["scorer"], {"type": "note", "text": "old"}).status_code == 401,
        "the old token refused at B",
    )
    assert b.post(match_id, new, {"type": "note", "text": "new"}).status_code == 201


def test_issue32_D396_sigkill_of_one_server_while_it_writes_loses_nothing_acknowledged(
    servers: tuple[Server, Server], pg_url: str
) -> None:
    """D396: A is killed (SIGKILL) while its officials and B's log at once: every call either answered is stored,
    the seqs stay consecutive, and B goes on taking calls (A's transaction and lock went with its session)."""
    a, b = servers
    match_id, tokens = new_match(a)
    kick_off(a, match_id, tokens)
    at_a: list[int] = []
    at_b: list[int] = []
    errors_a: list[str] = []
    errors_b: list[str] = []
    writer_a = threading.Thread(target=notes, args=(a, match_id, tokens["referee"], 400, "a", at_a, errors_a))
    writer_b = threading.Thread(target=notes, args=(b, match_id, tokens["scorer"], 40, "b", at_b, errors_b))
    writer_a.start()
    writer_b.start()
    wait_until(lambda: len(at_a) >= 20, "A has answered 20 calls")
    assert a.proc is not None
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(30)
    a.proc = None
    writer_a.join(60)
    writer_b.join(120)
    assert not errors_b, errors_b  # B never failed a call, before or after A died
    assert len(at_b) == 40
    r = b.post(match_id, tokens["referee"], {"type": "note", "text": "after A died"})
    assert r.status_code == 201, r.text
    seqs = stored_seqs(pg_url, match_id)
    assert seqs == list(range(1, seqs[-1] + 1)), seqs
    assert set(at_a) | set(at_b) | {int(r.json()["seq"])} <= set(seqs)  # nothing acknowledged is lost
    assert [e["seq"] for e in b.events(match_id)] == seqs


def test_issue32_D396_a_stale_copy_catches_up_under_the_match_lock_before_deciding(pg_url: str) -> None:
    """D396, deterministic (no listener runs here): two match services on one database, as two processes' copies.
    B's copy never hears of A's calls, yet a key A answered is answered again by B, a stale ``expected_seq`` is
    refused, M4's duplicate is found, and B's own call gets the next seq: it caught up inside the lock first."""
    from qalisball.match.schemas import MatchSchema, parse_event
    from qalisball.match.service import Conflict, MatchService
    from qalisball.server import tables  # noqa: F401  (every feature's migrations)
    from qalisball.storage.store import Store

    from .conftest import FakeClock

    clock = FakeClock()
    one, two = Store(pg_url), Store(pg_url)
    try:
        a, b = MatchService(one, clock=clock), MatchService(two, clock=clock)
        made = a.create(MatchSchema().load(demo_request()))
        at_b = b.get(made.id)  # made by A: loaded on demand
        at_a = a.get(made.id)

        def call(svc: MatchService, m: Any, role: str, body: dict[str, Any]) -> Any:
            return svc.submit(m, role, body, parse_event(body))

        for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
            assert call(a, at_a, "referee", body).status == 201
        state = a.state(at_a)
        team = state["restart"]["team"]
        call(a, at_a, "referee", {"type": "restart_taken", "team": team, "player": state["teams"][team]["on_field"][0]})
        keyed = call(a, at_a, "referee", {"type": "note", "text": "once", "id": "k"})
        assert at_b.seq == 0  # B's copy is behind: nothing told it
        again = call(b, at_b, "referee", {"type": "note", "text": "once", "id": "k"})
        assert again.status == 200 and again.body == keyed.body and at_b.seq == 4
        clock.advance(1000)
        goal = call(a, at_a, "assistant1", {"type": "goal", "team": "home", "player": 3})
        with pytest.raises(Conflict):
            call(b, at_b, "referee", {"type": "note", "text": "stale", "expected_seq": 4})
        clock.advance(1000)
        dup = call(b, at_b, "assistant2", {"type": "goal", "team": "home"})
        assert dup.status == 200 and dup.body["duplicate_of"] == goal.body["seq"] == 5
        own = call(b, at_b, "scorer", {"type": "note", "text": "B's own"})
        assert own.status == 201 and own.body["seq"] == 6 and own.body["state"]["score"] == {"home": 1, "away": 0}
        assert stored_seqs(pg_url, made.id) == [1, 2, 3, 4, 5, 6]
    finally:
        one.close()
        two.close()


def test_issue32_D398_a_team_and_a_competition_made_at_a_are_served_by_b(servers: tuple[Server, Server]) -> None:
    """D398: the competitions are kept in step: a kept team and a competition made at A are listed and served by B
    (its records read again when A's journal rows arrive), and a fixture's match made at B is A's fixture's too."""
    a, b = servers
    teams = []
    for name in ("North", "South"):
        body = {"name": name, "players": [{"number": n, "name": f"{name} {n}"} for n in range(1, 9)]}
        r = requests.post(f"{a.base}/api/teams", json=body, headers=auth(ADMIN), timeout=10)
        assert r.status_code == 201, r.text
        teams.append(r.json()["id"])
    body = {"name": "Cup", "format": "round_robin", "teams": teams, "fields": [{"name": "F1", "length": 40, "width": 25}]}
    r = requests.post(f"{a.base}/api/competitions", json=body, headers=auth(ADMIN), timeout=10)
    assert r.status_code == 201, r.text
    comp_id, fixture = r.json()["id"], r.json()["fixtures"][0]["id"]
    wait_until(lambda: requests.get(f"{b.base}/api/competitions/{comp_id}", timeout=10).status_code == 200, "B serves it")
    assert {t["id"] for t in requests.get(f"{b.base}/api/teams", timeout=10).json()} >= set(teams)
    lineups = {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}}
    r = requests.post(
        f"{b.base}/api/competitions/{comp_id}/fixtures/{fixture}/match", json=lineups, headers=auth(ADMIN), timeout=10
    )
    assert r.status_code == 201, r.text
    match_id = r.json()["id"]

    def at_a() -> bool:
        view = requests.get(f"{a.base}/api/competitions/{comp_id}", timeout=10).json()
        return any(f["id"] == fixture and f["match"] == match_id for f in view["fixtures"])

    wait_until(at_a, "A's fixture names the match B made")
