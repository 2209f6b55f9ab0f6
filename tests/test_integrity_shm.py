"""The ``-shm`` file made immutable: the server answers 503 and lives (issue 20, item 9; D149).

SQLite maps ``<db>-shm`` into the server and writes to it on every read and write; after ``chattr +i``
the next such write was a SIGBUS that killed ``make run``'s server. As for a database file that cannot
be written, the server must answer 503 with the reason, keep serving what it holds, and carry on by
itself once the file is writable again. Runs ``app.py`` as ``make run`` does; ``chattr`` needs root
(CAP_LINUX_IMMUTABLE) and a filesystem with the immutable flag (ext4, xfs, btrfs), else it is skipped.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import requests

from .test_durability import ADMIN, Server, _create, _post, _state, server  # noqa: F401  (fixture)


def _chattr(flag: str, path: Path) -> bool:
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True, text=True, check=False)
    return done.returncode == 0


def test_D149_an_immutable_shm_file_answers_503_and_the_server_lives(server: Server) -> None:  # noqa: F811
    match_id, tokens = _create(server)
    session = requests.Session()
    assert _post(session, server, match_id, tokens["referee"], {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}).ok
    shm = Path(str(server.db) + "-shm")
    assert shm.exists(), "the server keeps the database open in WAL mode"
    if not _chattr("+i", shm):
        pytest.skip("chattr +i is not available here (needs root and ext4/xfs/btrfs)")
    try:
        for body in ({"type": "period_start"}, {"type": "period_start"}):  # each refused, none stored
            r = _post(session, server, match_id, tokens["referee"], body)
            assert r.status_code == 503, r.text
            assert r.json()["error"] == "unavailable" and "shared-memory file" in r.json()["message"]
            assert int(r.headers["Retry-After"]) > 0
        r = requests.post(
            f"{server.base}/api/teams",
            json={"name": "Gamma", "players": [{"number": 1, "name": "g"}]},
            headers={"Authorization": f"Bearer {ADMIN}"},
            timeout=10,
        )
        assert r.status_code == 503, r.text
        assert server.proc is not None and server.proc.poll() is None, "the server is alive"
        assert _state(server, match_id)["phase"] == "scheduled", "served from memory; nothing was stored"
        page = requests.get(f"{server.base}/matches/{match_id}/scoreboard", timeout=10)
        assert page.status_code == 200
    finally:
        assert _chattr("-i", shm)
    # Writable again: the next write goes through by itself.
    r = _post(session, server, match_id, tokens["referee"], {"type": "period_start"})
    assert r.status_code == 201, r.text
    assert server.proc is not None and server.proc.poll() is None
    session.close()
