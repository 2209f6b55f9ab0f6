"""One writer per database (issue 20, item 8; D148).

A second server on the same ``QALISBALL_DB`` refuses to start and names the process that holds it, and
``restore`` refuses while a server holds the database, changing nothing. These run ``app.py`` as
``make run`` does (the durability tests' harness).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import requests

from tests.ports import free_port

from .test_durability import ADMIN, ROOT, Server, _create, _log, _post, server  # noqa: F401  (fixture)
from .test_reliability import _cli

PLAY = [
    ("referee", {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}),
    ("referee", {"type": "period_start"}),
    ("referee", {"type": "restart_taken", "team": "home", "player": 1}),
]
LATER = [
    ("assistant1", {"type": "goal", "team": "home", "player": 3}),
    ("referee", {"type": "restart_taken", "team": "away", "player": 1}),
    ("scorer", {"type": "clock", "action": "pause"}),
]


def test_D148_a_second_server_on_the_same_database_refuses_to_start_and_names_the_first(server: Server) -> None:  # noqa: F811
    match_id, tokens = _create(server)
    assert server.proc is not None
    env = {
        **os.environ,
        "QALISBALL_ASYNC_MODE": "gevent",
        "HOST": "127.0.0.1",
        "PORT": str(free_port()),
        "QALISBALL_DB": str(server.db),
        "QALISBALL_ADMIN_TOKEN": ADMIN,
    }
    env.pop("QALISBALL_MESSAGE_QUEUE", None)
    second = subprocess.run(
        [sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert second.returncode != 0, second.stdout
    assert f"already open by another server process (pid {server.proc.pid}" in second.stderr, second.stderr
    assert "app.py" in second.stderr, "the refusal says which program holds it"
    # The first server goes on writing as before.
    session = requests.Session()
    for role, body in PLAY:
        assert _post(session, server, match_id, tokens[role], body).status_code == 201
    session.close()


def test_D148_restore_while_a_server_holds_the_database_refuses_and_changes_nothing(server: Server, tmp_path: Path) -> None:  # noqa: F811
    match_id, tokens = _create(server)
    session = requests.Session()
    for role, body in PLAY:
        assert _post(session, server, match_id, tokens[role], body).status_code == 201
    assert _cli("backup", str(tmp_path / "backup.db"), "--db", str(server.db)).returncode == 0
    for role, body in LATER:  # three acknowledged writes after the backup
        assert _post(session, server, match_id, tokens[role], body).status_code == 201
    before = _log(server, match_id)
    assert server.proc is not None
    done = _cli("restore", str(tmp_path / "backup.db"), "--db", str(server.db))
    assert done.returncode != 0, done.stdout
    assert f"already open by another server process (pid {server.proc.pid}" in done.stdout and "Nothing restored" in done.stdout
    assert _log(server, match_id) == before
    # Nothing on disk changed either: a server started again on the files finds every acknowledged event.
    server.kill9()
    server.start()
    assert _log(server, match_id) == before and len(before) == len(PLAY) + len(LATER)
    assert "damaged" not in requests.get(f"{server.base}/api/matches/{match_id}", timeout=10).json()
    session.close()
