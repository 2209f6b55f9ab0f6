"""The journal's readers (issue 28 item 3, issue 29 item 3, D300): every reader follows the journal after the commit,
outside the write lock, from its own cursor, in order; a slow or failing reader delays neither a write nor the
other readers; one that falls behind or restarts catches up from its cursor.

The server's readers run each in its own thread here as under gevent in production (``JOURNAL_READERS`` =
``background``); the tests wait on conditions (``wait_until``, an ``Event``), never for a length of time.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball import create_app, socketio
from qalisball.storage import journal as journal_mod
from qalisball.storage.journal import Journal, Row
from qalisball.storage.store import Store
from tests.conftest import ADMIN, FakeClock, MatchDriver
from tests.waiting import wait_until


@pytest.fixture
def app(db: str, clock: FakeClock) -> Iterator[Flask]:
    """The app on each engine's database (issue 32; conftest's ``app`` is SQLite's)."""
    app = create_app({"TESTING": True, "DATABASE": db, "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
    yield app
    app.extensions["qalisball"].store.close()


@pytest.fixture
def background(db: str, clock: FakeClock) -> Iterator[Flask]:
    config = {"TESTING": True, "DATABASE": db, "ADMIN_TOKEN": ADMIN, "CLOCK": clock}
    app = create_app({**config, "JOURNAL_READERS": "background"})
    yield app
    app.extensions["qalisball"].store.close()


def journal_of(app: Flask) -> Journal:
    journal = app.extensions["qalisball"].store.journal
    assert journal is not None
    return journal


class Heard:
    """A reader's rows, as it got them."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def __call__(self, row: Row) -> None:
        self.rows.append(row)

    def seqs(self, match_id: str) -> list[int]:
        return [int(r.data()["seq"]) for r in self.rows if r.kind == "match" and r.subject == match_id]


class Socket:
    """A spectator's Flask-SocketIO test client, keeping what it received."""

    def __init__(self, app: Flask, match_id: str) -> None:
        self.sio = socketio.test_client(app)
        self.sio.emit("join", {"match": match_id})
        self.got: list[tuple[str, Any]] = []

    def received(self) -> list[tuple[str, Any]]:
        self.got += [(m["name"], m["args"][0] if m["args"] else None) for m in self.sio.get_received()]
        return self.got


def test_issue28_item3_issue29_item3_D300_a_blocked_reader_delays_neither_the_referees_201_nor_other_writes_nor_other_readers(
    background: Flask, clock: FakeClock
) -> None:
    client = background.test_client()
    a, b = MatchDriver(client, clock), MatchDriver(client, clock)
    journal = journal_of(background)
    release, entered = threading.Event(), threading.Event()

    def blocked(row: Row) -> None:
        if row.kind == "match":
            entered.set()
            release.wait()  # the test's own hand holds it: as a reader stuck on a slow socket or a network call

    slow = journal.follow("blocked", blocked)
    heard = Heard()
    journal.follow("heard", heard)
    spectator = Socket(background, a.id)
    a.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    wait_until(entered.is_set, "the blocked reader holds the first event")
    # While it is held: the same match's next call and another match's call are answered 201 ...
    second = a.post({"type": "period_start"})
    b.post({"type": "coin_toss", "kickoff": "away", "home_end": "xL"})
    assert second["seq"] == 2 and not release.is_set()
    # ... and the other readers get every row: the Socket.IO fan-out (API.md's event + state) and another reader.
    wait_until(lambda: heard.seqs(a.id) == [1, 2] and heard.seqs(b.id) == [1], "the other reader has the three events")

    def socket_has_both() -> bool:
        return [(name, (arg or {}).get("seq")) for name, arg in spectator.received()][-4:] == [
            ("event", 1),
            ("state", 1),
            ("event", 2),
            ("state", 2),
        ]

    wait_until(socket_has_both, "the spectator has event + state of both calls, in order")
    assert slow.cursor < journal.head and not journal.settled()  # still held on the first row
    release.set()
    wait_until(journal.settled, "the blocked reader catches up")
    assert slow.cursor == journal.head


def test_issue28_item3_D300_a_raising_reader_is_logged_and_goes_on_the_others_unharmed(
    background: Flask, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    m = MatchDriver(background.test_client(), clock)
    journal = journal_of(background)
    got: list[int] = []

    def fails_on_the_first(row: Row) -> None:
        seq = int(row.data()["seq"])
        if seq == 1:
            raise RuntimeError("this reader breaks on the coin toss")
        got.append(seq)

    failing = journal.follow("failing", fails_on_the_first)
    heard = Heard()
    journal.follow("heard", heard)
    spectator = Socket(background, m.id)
    with caplog.at_level(logging.ERROR, logger="qalisball.storage.journal"):
        m.kickoff()
        wait_until(lambda: journal.settled(), "every reader past both events")
    assert got == [2] and failing.failures == 1 and heard.seqs(m.id) == [1, 2]
    logged = [r for r in caplog.records if "journal reader failing failed on cursor" in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None
    wait_until(lambda: [n for n, _ in spectator.received()] == ["state", "event", "state", "event", "state"], "the spectator")


def test_issue28_item3_D300_the_broadcast_runs_outside_the_services_write_lock(app: Flask, match: MatchDriver) -> None:
    """In the tests' threading mode the readers run in the request's thread, right after the lock is let go."""
    svc = app.extensions["qalisball"]
    free: list[bool] = []

    def publisher(match_id: str, entry: dict[str, Any], state: dict[str, Any]) -> None:
        def probe() -> None:  # another thread, as another match's POST: may it take the write lock now?
            took = svc._lock.acquire(blocking=False)
            free.append(took)
            if took:
                svc._lock.release()

        t = threading.Thread(target=probe)
        t.start()
        t.join()

    svc.subscribe(publisher)
    match.kickoff()
    assert free == [True, True]


def test_issue28_item3_D300_background_spectators_get_event_then_state_in_order(background: Flask, clock: FakeClock) -> None:
    m = MatchDriver(background.test_client(), clock)
    spectator = Socket(background, m.id)
    m.kickoff()
    m.take()
    for _ in range(3):
        clock.advance(1000)
        m.post({"type": "clock", "action": "pause"})
        m.post({"type": "clock", "action": "resume"})
    n = m.state()["seq"]
    assert n == 9
    expected = [("state", 0)] + [(name, seq) for seq in range(1, n + 1) for name in ("event", "state")]
    wait_until(lambda: [(name, arg["seq"]) for name, arg in spectator.received()] == expected, "every change in order")
    events = {arg["seq"]: arg for name, arg in spectator.received() if name == "event"}
    assert [events[e["seq"]] for e in m.events()] == m.events()  # the log's entries as GET .../events lists them


def test_issue28_item3_D300_a_reader_that_restarts_catches_up_from_its_cursor(db: str, clock: FakeClock) -> None:
    config = {"TESTING": True, "DATABASE": db, "ADMIN_TOKEN": ADMIN, "CLOCK": clock}
    app = create_app(config)
    m = MatchDriver(app.test_client(), clock)
    m.kickoff()
    m.take()
    first = Heard()
    journal_of(app).follow("mine", first, from_cursor=0)
    journal_of(app).drain()
    cursor = first.rows[1].cursor  # it stopped after two rows: the server stops
    app.extensions["qalisball"].store.close()
    again = create_app(config)
    later = Heard()
    reader = journal_of(again).follow("mine", later, from_cursor=cursor)
    journal_of(again).drain()  # from the database: the new process's memory holds none of them
    assert [r.cursor for r in later.rows] == [r.cursor for r in first.rows[2:]] and later.seqs(m.id) == [3]
    assert reader.cursor == journal_of(again).head and later.rows[0].local is None
    assert later.rows[0].data()["event"] == m.events()[2]
    again.extensions["qalisball"].store.close()


def test_issue28_item3_D300_rows_handed_over_out_of_order_reach_readers_once_and_in_order(db: str) -> None:
    """Two writers commit 1 then 2 and hand 2 over first (a match's event and a competition's change at once)."""
    store = Store(db)
    journal = store.journal
    assert journal is not None
    heard = Heard()
    journal.follow("heard", heard)
    rows = []
    for n in (1, 2):
        with store._transaction():
            rows.append(journal_mod.write(store.db, ("competition", f"c{n}", {"competition": f"c{n}", "change": "x"})))
    journal.committed(rows[1])
    journal.drain()
    journal.committed(rows[0])
    journal.drain()
    assert [(r.cursor, r.subject) for r in heard.rows] == [(1, "c1"), (2, "c2")]
    assert [json.loads(r.body)["competition"] for r in journal.after(0)] == ["c1", "c2"]
    store.close()


def test_issue28_item3_D300_the_readers_are_wired_in_the_composition_root(app: Flask, client: FlaskClient) -> None:
    names = [r.name for r in journal_of(app).readers]
    assert names == ["socketio", "competitions"]
