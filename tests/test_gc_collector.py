"""Issue 29 item 2 (D260): the collector kept off the write path — the freeze, the thresholds, the gen-2 log.

Mechanism only: what is frozen and when, never how long a pause took.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from qalisball.server import collector
from tests.test_durability import Server

ADMIN = "collector-organiser-token-0123"


@pytest.fixture
def clean_gc() -> Iterator[None]:
    """Each test starts and ends with the process's collector as Python leaves it."""
    before = gc.get_threshold()
    collector.uninstall()
    yield
    collector.uninstall()
    gc.set_threshold(*before)


def test_issue29_item2_D260_the_app_factory_freezes_what_start_up_loaded(tmp_path: Path, clean_gc: None) -> None:
    from qalisball import create_app

    assert gc.get_freeze_count() == 0
    app = create_app({"DATABASE": str(tmp_path / "f.db"), "ADMIN_TOKEN": ADMIN})
    assert app.config["GC_FREEZE"] is True
    assert gc.get_freeze_count() > 10_000, "the matches, competitions and the app are out of the collector"
    assert gc.get_threshold() == collector.THRESHOLDS
    assert collector._callback in gc.callbacks


def test_issue29_item2_D260_tests_apps_are_not_frozen(tmp_path: Path, clean_gc: None) -> None:
    from qalisball import create_app

    create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.db"), "ADMIN_TOKEN": ADMIN})
    assert gc.get_freeze_count() == 0


def test_issue29_item2_D260_survivors_of_a_young_collection_are_frozen_so_no_full_collection_walks_them(clean_gc: None) -> None:
    collector.install({})
    collector.settle("test")
    frozen = gc.get_freeze_count()
    kept = [[i] for i in range(5_000)]  # long-lived: still referenced after the collection
    gc.collect(1)
    assert gc.get_freeze_count() >= frozen + 5_000
    assert not any(o is kept for o in gc.get_objects(2)), "generation 2 holds none of them"


def test_issue29_item2_D260_QALISBALL_GC_LOG_prints_each_gen2_pause(capsys: pytest.CaptureFixture[str], clean_gc: None) -> None:
    collector.install({"QALISBALL_GC_LOG": "1"})
    gc.collect()
    gc.collect(0)  # a young collection is not logged
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("gc: ")]
    assert len(lines) == 1 and re.fullmatch(
        r"gc: gen-2 collection [\d.]+ ms, collected \d+, uncollectable \d+, \d+ frozen", lines[0]
    )
    assert len(collector.recent_pauses()) == 1


def test_issue29_item2_D260_nothing_logged_without_the_variable(capsys: pytest.CaptureFixture[str], clean_gc: None) -> None:
    collector.install({})
    gc.collect()
    assert "gc: " not in capsys.readouterr().err


def test_issue29_item2_D260_tidy_reclaims_frozen_garbage_only_while_no_match_is_live(clean_gc: None) -> None:
    collector.install({})
    collector.settle("test")

    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    nodes = [Node() for _ in range(max(20_000, gc.get_freeze_count()))]
    gc.collect(1)  # they survive a young collection: frozen
    grown = gc.get_freeze_count()
    del nodes  # now cyclic garbage inside the frozen heap
    assert collector.tidy(lambda: False) is False, "a match is live: no long pause"
    assert gc.get_freeze_count() >= grown - 1  # only the list itself went (by its refcount)
    assert collector.tidy(lambda: True) is True
    assert gc.get_freeze_count() < grown - 19_000, "the garbage was collected, the rest frozen again"
    assert collector.tidy(lambda: True) is False, "nothing grew since"


def test_issue29_item2_D260_app_py_freezes_after_start_up_and_after_the_demo_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make run``'s path: app.py on an empty database logs both freezes with QALISBALL_GC_LOG=1."""
    monkeypatch.setenv("QALISBALL_GC_LOG", "1")
    log = tmp_path / "server.log"
    server = Server(tmp_path / "a.db", log)
    server.start()
    try:
        text = log.read_text()
    finally:
        server.stop()
    start = re.search(r"gc: start-up: collected and froze in [\d.]+ ms, (\d+) frozen", text)
    demo = re.search(r"gc: demo data: collected and froze in [\d.]+ ms, (\d+) frozen", text)
    assert start and demo, text[-2000:]
    assert int(demo.group(1)) > int(start.group(1)) > 10_000


def test_issue29_item2_the_officials_legal_leaves_no_cyclic_garbage(tmp_path: Path) -> None:
    """legal_calls tries every call; its refusals keep no traceback (frames, state copies): nothing for the collector."""
    from qalisball import create_app
    from qalisball.rules.legal import legal_calls

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "g.db"), "ADMIN_TOKEN": ADMIN})
    client = app.test_client()
    roster = [{"number": i, "name": f"P {i}"} for i in range(1, 11)]
    team = {"players": roster, "starting": list(range(1, 7))}
    body = {"home": {"name": "A", **team}, "away": {"name": "B", **team}, "starters": 6, "field": {"length": 40, "width": 25}}
    made = client.post("/api/matches", json=body, headers={"Authorization": f"Bearer {ADMIN}"}).get_json()
    ref = {"Authorization": f"Bearer {made['tokens']['referee']}"}
    for ev in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
        assert client.post(f"/api/matches/{made['id']}/events", json=ev, headers=ref).status_code == 201
    m = app.extensions["qalisball"].get(made["id"])
    gc.collect()
    gc.disable()
    try:
        legal = legal_calls(m.state, app.config["CLOCK"]())
        assert legal["reasons"], "some calls are refused now (the ball is dead before the kickoff)"
        garbage = gc.collect()
    finally:
        gc.enable()
    assert garbage < 20, f"{garbage} objects of cyclic garbage from one legal_calls"
