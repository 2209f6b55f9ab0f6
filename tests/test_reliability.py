"""Storage that fails safe and says so (issue 14): a locked database answers 503, never hangs the server.

These run ``app.py`` (gevent, a real port and SQLite file) as ``make run`` does, reusing the
durability tests' server harness.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import requests

from qalisball.store import Store

from .test_durability import Server, _create, _post, _state, server  # noqa: F401  (fixture)


def _hold_write_lock(db: Path, release: threading.Event, held: threading.Event) -> None:
    """Another program (a backup, a sqlite3 shell) holds SQLite's write lock until ``release``."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    held.set()
    release.wait(30)
    conn.execute("ROLLBACK")
    conn.close()


def test_locked_database_answers_503_serves_reads_and_recovers(server: Server) -> None:  # noqa: F811
    match_id, tokens = _create(server)
    session = requests.Session()
    assert _post(session, server, match_id, tokens["referee"], {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}).ok
    release, held = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(server.db, release, held))
    holder.start()
    try:
        assert held.wait(10)
        results: list[requests.Response] = []
        start, ref = {"type": "period_start"}, tokens["referee"]
        writer = threading.Thread(target=lambda: results.append(_post(requests.Session(), server, match_id, ref, start)))
        writer.start()
        time.sleep(0.3)  # the write is now waiting on SQLite
        # Reads keep answering while the write waits (the write runs off the event loop).
        slowest = 0.0
        for _ in range(5):
            t0 = time.monotonic()
            assert requests.get(f"{server.base}/api/matches/{match_id}", timeout=10).status_code == 200
            slowest = max(slowest, time.monotonic() - t0)
        writer.join(30)
        assert results and results[0].status_code == 503, results[0].text if results else "no answer"
        body = results[0].json()
        assert body["error"] == "unavailable" and "busy" in body["message"]
        assert int(results[0].headers["Retry-After"]) > 0
        assert _state(server, match_id)["phase"] == "scheduled", "nothing was stored"
        # Several more writes while locked: each answers 503 (none hangs).
        for _ in range(3):
            assert _post(session, server, match_id, tokens["referee"], {"type": "period_start"}).status_code == 503
    finally:
        release.set()
        holder.join(30)
    # Once the lock is released, writes resume by themselves.
    r = _post(session, server, match_id, tokens["referee"], {"type": "period_start"})
    assert r.status_code == 201, r.text
    assert _state(server, match_id)["phase"] == "first_half"
    r = requests.post(
        f"{server.base}/api/matches",
        json={
            "home": {"name": "A", "players": [{"number": n, "name": f"a{n}"} for n in range(1, 5)], "starting": [1, 2, 3, 4]},
            "away": {"name": "B", "players": [{"number": n, "name": f"b{n}"} for n in range(1, 5)], "starting": [1, 2, 3, 4]},
            "starters": 4,
        },
        headers={"Authorization": "Bearer durability-organiser-token"},
        timeout=10,
    )
    assert r.status_code == 201, "creating a match works again"
    # Not a speed assert: a read blocked behind the write would take the whole busy wait (2 s);
    # bench/ measures the real figure.
    assert slowest < 1.5, f"a read waited {slowest:.2f} s behind a write"


def test_store_releases_its_lock_when_begin_fails(tmp_path: Path) -> None:
    """The defect itself: BEGIN IMMEDIATE raising must not leave the store's lock taken."""
    db = tmp_path / "x.db"
    store = Store(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    from qalisball.store import StorageError

    for _ in range(2):
        try:
            store.add_match("m1", {"a": 1}, {}, "2026-01-01T00:00:00")
        except StorageError as exc:
            assert exc.status == 503
        else:
            raise AssertionError("a locked database must refuse the write")
    other.execute("ROLLBACK")
    # Taken from another thread: a leaked RLock would block here for ever.
    done = threading.Event()
    threading.Thread(target=lambda: (store.add_match("m2", {"a": 1}, {}, "t"), done.set())).start()
    assert done.wait(10), "the store's lock was never released"
    assert [m["id"] for m in store.matches()] == ["m2"]
    store.close()
