"""A killed server loses nothing it answered (issue 2, item 2; SPEC D8).

These tests run ``make run``'s code path: ``app.py`` as a subprocess with gevent, a real port and a
SQLite file, officiated over HTTP with ``requests``. The process is killed with SIGKILL mid-match (once
while a burst of POSTs is in flight from several threads), started again on the same database, and
every answered event must be there with the same seq, and the state must be the replay of the log.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.ports import free_port
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "durability-organiser-token"
# Fields of the state that follow the server's wall clock, not the log.
TIME_FIELDS = ("server_time_ms", "return_countdown_ms", "legal")  # legal: "the half has 12:01 left"


class Server:
    """``python app.py`` on a free port and a given database file (or a PostgreSQL URL: issue 32)."""

    def __init__(self, db: Path | str, log: Path) -> None:
        self.db, self.log_path = db, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.base = ""

    def start(self) -> None:
        port = free_port()
        env = {
            **os.environ,
            "QALISBALL_ASYNC_MODE": "gevent",
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "QALISBALL_DB": str(self.db),
            "QALISBALL_ADMIN_TOKEN": ADMIN,
        }
        env.pop("QALISBALL_MESSAGE_QUEUE", None)
        env.pop("QALISBALL_DATABASE_URL", None)
        if str(self.db).startswith("postgresql://"):
            env["QALISBALL_DATABASE_URL"], env["QALISBALL_DB"] = str(self.db), str(self.log_path.parent / "unused.db")
        self.base = f"http://127.0.0.1:{port}"
        with self.log_path.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_until(self._answers_or_died, "app.py answers", timeout=60)
        except AssertionError:
            pass
        else:
            if self.proc.poll() is None:
                return
        self.stop()
        raise AssertionError(f"app.py did not come up within 60 s: {self.log_path.read_text()[-2000:]}")

    def _answers_or_died(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            return True  # it exited: no use waiting
        try:
            return requests.get(f"{self.base}/api/matches", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        assert self.proc.returncode == -signal.SIGKILL
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=30)
            self.proc = None


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "live.db", tmp_path / "server.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def any_server(db: str, tmp_path: Path) -> Iterator[Server]:
    """``server`` on each engine (the ``db`` fixture): SQLite's file, or a fresh PostgreSQL database."""
    srv = Server(db, tmp_path / "server.log")
    srv.start()
    yield srv
    srv.stop()


def _create(srv: Server) -> tuple[str, dict[str, str]]:
    from qalisball.server.demo import demo_request

    r = requests.post(f"{srv.base}/api/matches", json=demo_request(), headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
    assert r.status_code == 201, r.text
    body = r.json()
    return body["id"], body["tokens"]


def _post(session: requests.Session, srv: Server, match_id: str, token: str, body: dict[str, Any]) -> requests.Response:
    return session.post(
        f"{srv.base}/api/matches/{match_id}/events", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def _state(srv: Server, match_id: str) -> dict[str, Any]:
    r = requests.get(f"{srv.base}/api/matches/{match_id}", timeout=10)
    assert r.status_code == 200
    data: dict[str, Any] = r.json()
    return data


def _log(srv: Server, match_id: str) -> list[dict[str, Any]]:
    r = requests.get(f"{srv.base}/api/matches/{match_id}/events", timeout=10)
    assert r.status_code == 200
    data: list[dict[str, Any]] = r.json()
    return data


def _timeless(state: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in state.items() if k not in TIME_FIELDS}
    if state["clock"]["running"]:
        out["clock"] = {k: v for k, v in state["clock"].items() if k != "elapsed_ms"}
    return out


def _fields_of(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in ("type", "id", "at_ms", "expected_seq")}


def test_d8_kill_9_mid_match_loses_nothing_answered(any_server: Server) -> None:
    server = any_server  # on SQLite and on PostgreSQL (issue 32 item 4: kill -9 loses nothing acknowledged)
    match_id, tokens = _create(server)
    session = requests.Session()
    answered: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def post(body: dict[str, Any], role: str = "referee") -> dict[str, Any]:
        r = _post(session, server, match_id, tokens[role], body)
        assert r.status_code == 201, r.text
        answered.append((body, r.json()))
        return dict(r.json()["state"])

    post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    post({"type": "period_start"})
    post({"type": "restart_taken", "team": "home", "player": 1})
    post({"type": "goal", "team": "home", "player": 3}, role="assistant1")
    post({"type": "substitution", "team": "away", "out": 2, "in": 8}, role="scorer")
    post({"type": "restart_taken", "team": "away", "player": 1})
    post({"type": "violation", "kind": "ball_out_end", "team": "away", "player": 4, "spot": {"x": 41, "y": 3}}, role="assistant2")
    post({"type": "card", "team": "away", "player": 4, "color": "yellow"})
    post({"type": "restart_taken", "team": "home", "player": 5})
    post({"type": "goal", "team": "away", "player": 5})
    goal = answered[-1][1]["seq"]
    post({"type": "void", "target": goal, "reason": "player in the area"})
    post({"type": "clock", "action": "pause"}, role="scorer")
    before_state, before_log = _state(server, match_id), _log(server, match_id)
    assert before_state["score"] == {"home": 1, "away": 0} and before_state["ball"] == "live"
    listed = requests.get(f"{server.base}/api/matches", timeout=10).json()

    server.kill9()
    server.start()

    assert _log(server, match_id) == before_log
    assert [e["seq"] for e in before_log] == [answer["seq"] for _, answer in answered]
    after = _state(server, match_id)
    assert _timeless(after) == _timeless(before_state)
    assert after["clock"] == before_state["clock"]  # paused: the elapsed time is in the log too
    assert _timeless(after) == _timeless(answered[-1][1]["state"])
    # The demo match is made once: the restarted server finds the same matches.
    assert sorted(m["id"] for m in requests.get(f"{server.base}/api/matches", timeout=10).json()) == sorted(
        m["id"] for m in listed
    )
    # The match goes on from where it was.
    r = _post(session, server, match_id, tokens["referee"], {"type": "clock", "action": "resume"})
    assert r.status_code == 201 and r.json()["seq"] == len(before_log) + 1
    session.close()


def test_d8_kill_9_while_a_burst_of_posts_is_in_flight(server: Server) -> None:
    match_id, tokens = _create(server)
    setup = requests.Session()
    for body in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
        assert _post(setup, server, match_id, tokens["referee"], body).status_code == 201
    setup.close()

    lock = threading.Lock()
    answered: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # key -> (body, answer)
    in_flight: dict[str, dict[str, Any]] = {}  # key -> body sent but never answered
    refused: list[str] = []
    stop = threading.Event()

    def send(session: requests.Session, role: str, body: dict[str, Any]) -> dict[str, Any] | None:
        with lock:
            in_flight[body["id"]] = body
        try:
            r = _post(session, server, match_id, tokens[role], body)
        except requests.RequestException:
            return None  # the server died with this request in flight: it stays in ``in_flight``
        with lock:
            del in_flight[body["id"]]
            if r.status_code != 201:
                refused.append(f"{body} -> {r.status_code} {r.text}")
                return None
            answered[body["id"]] = (body, r.json())
        return dict(r.json())

    def play(name: str) -> None:
        """The game itself: take the kickoff, score, the other team kicks off, and so on."""
        session = requests.Session()
        team, n = "home", 0
        while not stop.is_set():
            n += 1
            if (
                send(session, "referee", {"type": "restart_taken", "team": team, "player": 1 + n % 6, "id": f"{name}-{n}-take"})
                is None
            ):
                break
            answer = send(session, "assistant1", {"type": "goal", "team": team, "player": 1 + n % 6, "id": f"{name}-{n}-goal"})
            if answer is None:
                break
            if n % 3 == 0:
                # The referee overrules the goal (a void marks its target in the same transaction), then it is scored again.
                if send(session, "referee", {"type": "void", "target": answer["seq"], "id": f"{name}-{n}-void"}) is None:
                    break
                answer = send(session, "assistant1", {"type": "goal", "team": team, "id": f"{name}-{n}-goal-again"})
                if answer is None:
                    break
            team = answer["state"]["restart"]["team"]
        session.close()

    def keep_time(name: str) -> None:
        """The scorer correcting the clock, over and over: always legal during a half."""
        session = requests.Session()
        n = 0
        while not stop.is_set():
            n += 1
            if (
                send(session, "scorer", {"type": "clock", "action": "set", "elapsed_ms": n * 1000 % 600_000, "id": f"{name}-{n}"})
                is None
            ):
                break
        session.close()

    threads = [threading.Thread(target=play, args=("play",))]
    threads += [threading.Thread(target=keep_time, args=(f"clock{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    try:
        wait_until(lambda: len(answered) >= 120, "120 calls answered", timeout=60, every=0.005)
    finally:
        server.kill9()
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert not refused, refused
    assert len(answered) >= 120

    server.start()  # recovers the write-ahead log as it was when the process died
    with sqlite3.connect(server.db) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    log = _log(server, match_id)
    state = _state(server, match_id)
    n = len(log)
    # Whole entries only, numbered 1..n without a gap.
    assert [e["seq"] for e in log] == list(range(1, n + 1))
    assert state["seq"] == n
    by_key = {e["id"]: e for e in log if e["id"] is not None}
    # Every answered event is there, with the seq it was answered with, exactly as sent.
    for key, (body, answer) in answered.items():
        entry = by_key.get(key)
        assert entry is not None, f"answered event {key} (seq {answer['seq']}) is lost"
        assert entry["seq"] == answer["seq"]
        assert entry["type"] == body["type"]
        assert {k: entry[k] for k in _fields_of(body)} == _fields_of(body)
    # Anything else in the log is a request that was in flight when the server died (committed, not answered).
    extra = set(by_key) - set(answered)
    assert extra <= set(in_flight), f"events nobody sent: {extra - set(in_flight)}"
    assert len(log) == 2 + len(answered) + len(extra)
    # The state is the replay of the log: the score is its goals, the restart follows the last goal.
    for e in log:
        if e["type"] == "void":
            assert log[e["target"] - 1]["voided_by"] == e["seq"], f"void {e['seq']} is stored without its mark"
        if e["voided_by"] is not None:
            assert log[e["voided_by"] - 1] == {**log[e["voided_by"] - 1], "type": "void", "target": e["seq"]}
    assert any(e["type"] == "void" for e in log)
    goals = [e for e in log if e["type"] == "goal" and e["voided_by"] is None]
    assert state["score"] == {t: sum(1 for g in goals if g["team"] == t) for t in ("home", "away")}
    assert state["phase"] == "first_half"
    # Sending the in-flight requests again: a committed one answers 200 with its seq; the rest are new.
    retry = requests.Session()
    latest: dict[int, dict[str, Any]] = {answer["seq"]: answer for _, answer in answered.values()}
    for key, body in sorted(in_flight.items(), key=lambda kv: by_key[kv[0]]["seq"] if kv[0] in by_key else 10**9):
        role = "scorer" if body["type"] == "clock" else "assistant1" if body["type"] == "goal" else "referee"
        r = _post(retry, server, match_id, tokens[role], body)
        if key in by_key:
            assert r.status_code == 200, r.text
            assert r.json()["seq"] == by_key[key]["seq"]
            latest[r.json()["seq"]] = r.json()
        else:
            assert r.status_code == 201, r.text
            assert r.json()["seq"] > n
    retry.close()
    # The state after the restart is the answer of the last event in the log.
    assert n in latest, "the last event of the log has an answer (given, or given again for its key)"
    expected = latest[n]["state"]
    assert _timeless(state) == _timeless(expected)
    assert state["restart"] == expected["restart"] and state["score"] == expected["score"] and state["ball"] == expected["ball"]


def test_d8_restart_with_the_clock_running(server: Server) -> None:
    """The clock keeps running across a crash: it is anchored in server time, which the log records."""
    match_id, tokens = _create(server)
    session = requests.Session()
    for body in ({"type": "coin_toss", "kickoff": "away", "home_end": "xL"}, {"type": "period_start"}):
        assert _post(session, server, match_id, tokens["referee"], body).status_code == 201
    r = _post(session, server, match_id, tokens["scorer"], {"type": "clock", "action": "set", "elapsed_ms": 600_000})
    assert r.status_code == 201
    before = _state(server, match_id)
    server.kill9()
    server.start()
    after = _state(server, match_id)
    assert _timeless(after) == _timeless(before)
    assert after["clock"]["running"] is True
    # The half's clock went on while the server was down, by exactly the server time that passed.
    assert after["clock"]["elapsed_ms"] - before["clock"]["elapsed_ms"] == after["server_time_ms"] - before["server_time_ms"]
    assert {k: after["restart"][k] for k in ("type", "team", "spot")} == {
        "type": "kickoff",
        "team": "away",
        "spot": {"x": 20.0, "y": 12.5},
    }
    session.close()
