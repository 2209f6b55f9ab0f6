"""Issue 28, item 1: decide, then evolve. The log stores what was ruled on every call (API.md "Events":
``rulings``), sealed with the row; a replay folds them and never decides a stored call again, so a later
engine changes no stored match, while new calls follow it. A correction is itself a decision, and a
database of the version before is migrated once, its calls decided by the migrating engine.

The "changed engine" is today's engine with 10.8's 3 m distance made 5 m (the geometry the engine calls,
patched between storing and re-opening the database), as a copy of the project with that change would be.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qalisball.rules import field as geo
from qalisball.storage import integrity
from tests.conftest import ADMIN, FakeClock, MatchDriver

_free_kick_spot = geo.free_kick_spot


def five_metres(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine of a copy whose 10.8 distance is 5 m, not 3 m (1.0's 2 m left as it is)."""

    def spot(f: Any, origin: Any, end: Any, clearance: float = geo.FREE_KICK_CLEARANCE) -> Any:
        return _free_kick_spot(f, origin, end, 5.0 if clearance == geo.FREE_KICK_CLEARANCE else clearance)

    monkeypatch.setattr(geo, "free_kick_spot", spot)


class Server:
    """The app on one database file, opened and closed as a server process would be."""

    def __init__(self, db: Path, clock: FakeClock) -> None:
        from qalisball import create_app

        self.app = create_app({"TESTING": True, "DATABASE": str(db), "ADMIN_TOKEN": ADMIN, "CLOCK": clock})
        self.client = self.app.test_client()

    def close(self) -> None:
        self.app.extensions["qalisball"].store.close()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "match.db"


def restart_spot(state: dict[str, Any]) -> tuple[str, str, float, float]:
    r = state["restart"]
    return r["type"], r["team"], r["spot"]["x"], r["spot"]["y"]


def reopen(srv: Server, db: Path, clock: FakeClock, was: MatchDriver) -> tuple[Server, MatchDriver]:
    """The server stopped and started again on the same database: the same match, its tokens kept."""
    srv.close()
    again = Server(db, clock)
    m = MatchDriver.__new__(MatchDriver)
    m.client, m.clock, m.id, m.tokens = again.client, clock, was.id, was.tokens
    return again, m


def open_match(db: Path, clock: FakeClock) -> tuple[Server, MatchDriver]:
    srv = Server(db, clock)
    return srv, MatchDriver(srv.client, clock)


def free_kick_near_aways_area(m: MatchDriver) -> int:
    """Home kicks off (home defends x0); a foul by away 1 m from its area (xL): home's free kick, moved out (10.8)."""
    m.kickoff("home", "x0")
    m.take()
    return int(m.post({"type": "foul", "team": "away", "player": 3, "spot": {"x": 36.0, "y": 12.5}})["seq"])


def test_issue28_item1_a_stored_free_kick_stays_where_it_was_ruled_when_the_engine_changes(
    db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv, m = open_match(db, clock)
    seq = free_kick_near_aways_area(m)
    assert restart_spot(m.state()) == ("free_kick", "home", 33.5, 12.5)  # 3 m out of the area (10.8)

    five_metres(monkeypatch)
    srv, m = reopen(srv, db, clock, m)
    # The stored match is as it was ruled: the pending free kick stays 3 m out, and so does its log entry.
    assert restart_spot(m.state()) == ("free_kick", "home", 33.5, 12.5)
    foul = next(e for e in m.events() if e["seq"] == seq)
    moved = next(r for r in foul["rulings"] if r["kind"] == "free_kick_moved")
    assert moved["spot"] == {"x": 33.5, "y": 12.5} and moved["origin"] == {"x": 36.0, "y": 12.5} and moved["rule"] == "10.8"
    report = m.client.get(f"/matches/{m.id}/report.json").get_json()
    assert "31.5" not in json.dumps(report)

    # New calls follow the new rule: the same foul after the kick is taken moves 5 m out.
    m.take()
    m.post({"type": "foul", "team": "away", "player": 3, "spot": {"x": 36.0, "y": 12.5}})
    assert restart_spot(m.state()) == ("free_kick", "home", 31.5, 12.5)
    srv.close()


def test_issue28_item1_rulings_on_every_log_entry_and_the_socket_event(db: Path, clock: FakeClock) -> None:
    srv, m = open_match(db, clock)
    free_kick_near_aways_area(m)
    events = m.events()
    assert all(isinstance(e["rulings"], list) for e in events)
    kinds = [[r["kind"] for r in e["rulings"]] for e in events]
    assert kinds == [[], ["restart_awarded"], ["restart_taken"], ["restart_awarded", "free_kick_moved"]]
    awarded = events[3]["rulings"][0]
    assert (awarded["type"], awarded["team"], awarded["spot"], awarded["rule"]) == (
        "free_kick",
        "home",
        {"x": 33.5, "y": 12.5},
        "10.6",
    )
    heard: list[dict[str, Any]] = []
    srv.app.extensions["qalisball"].subscribe(lambda match_id, entry, state: heard.append(entry))
    m.take()
    assert [r["kind"] for r in heard[-1]["rulings"]] == ["restart_taken"]  # the Socket.IO `event` message is this entry
    srv.close()


def test_issue28_item1_the_rulings_are_sealed_a_changed_ruling_is_damage(db: Path, clock: FakeClock) -> None:
    srv, m = open_match(db, clock)
    seq = free_kick_near_aways_area(m)
    srv.close()
    con = sqlite3.connect(db)
    stored = json.loads(con.execute("SELECT rulings FROM events WHERE match_id = ? AND seq = ?", [m.id, seq]).fetchone()[0])
    stored[0]["spot"] = {"x": 30.0, "y": 12.5}
    con.execute("UPDATE events SET rulings = ? WHERE match_id = ? AND seq = ?", [json.dumps(stored), m.id, seq])
    con.commit()
    con.close()
    srv = Server(db, clock)
    state = srv.client.get(f"/api/matches/{m.id}").get_json()
    assert "changed or damaged" in state.get("damaged", "") and state["seq"] == seq  # read-only, as a changed answer (D146)
    srv.close()


def test_issue28_item1_a_correction_decides_the_later_calls_again_and_stores_what_it_decided(
    db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv, m = open_match(db, clock)
    seq = free_kick_near_aways_area(m)
    five_metres(monkeypatch)
    srv, m = reopen(srv, db, clock, m)
    taken = next(e for e in m.events() if e["type"] == "restart_taken")
    on = m.state()["teams"]["home"]["on_field"]
    fix = {"type": "amend", "target": taken["seq"], "event": {"type": "restart_taken", "team": "home", "player": on[1]}}
    amend = m.post(fix)
    # The amend decided the foul after it again, by the engine running now (5 m), and stored that.
    assert restart_spot(m.state()) == ("free_kick", "home", 31.5, 12.5)
    row = next(e for e in m.events() if e["seq"] == amend["seq"])
    again = [r for r in row["rulings"] if r["kind"] == "ruled_again"]
    assert [a["seq"] for a in again] == [seq] and again[0]["rule"] == "D8"
    assert again[0]["rulings"][0]["spot"] == {"x": 31.5, "y": 12.5}

    monkeypatch.undo()  # back to 3 m: the correction's stored decision is folded, not decided again
    srv, m = reopen(srv, db, clock, m)
    assert restart_spot(m.state()) == ("free_kick", "home", 31.5, 12.5)
    srv.close()


def _as_before_issue_28(db: Path) -> None:
    """The database as the version before issue 28 left it: no ``rulings`` column, seals without rulings."""
    from qalisball.storage.store import _entry

    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    con.execute("ALTER TABLE events DROP COLUMN rulings")
    con.execute("DELETE FROM migrations WHERE version = 28")
    for match in con.execute("SELECT id, created_at, setup FROM matches").fetchall():
        seal = integrity.genesis_hash(match["id"], match["created_at"], json.loads(match["setup"]))
        for r in con.execute("SELECT * FROM events WHERE match_id = ? ORDER BY seq", [match["id"]]).fetchall():
            seal = integrity.seal_hash(seal, _entry(dict(r)))
            con.execute("UPDATE events SET seal = ? WHERE match_id = ? AND seq = ?", [seal, match["id"], r["seq"]])
    con.commit()
    con.close()


def test_issue28_item1_a_database_of_the_version_before_is_migrated_once_decided_by_the_migrating_engine(
    db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv, m = open_match(db, clock)
    seq = free_kick_near_aways_area(m)
    srv.close()
    _as_before_issue_28(db)

    five_metres(monkeypatch)  # the migrating version's engine rules the stored calls
    srv, m = reopen(srv, db, clock, m)
    assert restart_spot(m.state()) == ("free_kick", "home", 31.5, 12.5)
    foul = next(e for e in m.events() if e["seq"] == seq)
    assert foul["rulings"][0]["spot"] == {"x": 31.5, "y": 12.5}
    assert "damaged" not in m.state()  # stored and sealed, the heads acknowledged again

    monkeypatch.undo()  # migrated once: a later engine folds what the migration stored
    srv, m = reopen(srv, db, clock, m)
    assert restart_spot(m.state()) == ("free_kick", "home", 31.5, 12.5)
    assert "damaged" not in m.state()
    srv.close()


def test_issue28_item1_verify_notes_a_stored_call_todays_engine_would_rule_otherwise(
    db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qalisball.__main__ import check

    srv, m = open_match(db, clock)
    seq = free_kick_near_aways_area(m)
    srv.close()
    lines: list[str] = []
    assert check(str(db), out=lines.append)
    assert not any(line.startswith("NOTE") and m.id in line for line in lines)
    five_metres(monkeypatch)
    lines.clear()
    assert check(str(db), out=lines.append)  # sound: a disagreement is a note, never damage
    notes = [line for line in lines if line.startswith("NOTE") and m.id in line]
    assert len(notes) == 1 and f"event {seq} stands as it was ruled" in notes[0]


def test_issue28_item1_folding_the_stored_rulings_gives_the_state_the_engine_decided(client: Any, clock: FakeClock) -> None:
    """Decide, then evolve: for a whole match (goals, a penalty, cards, corrections) the state folded from the
    stored rulings is the state the engine decides from the same log."""
    from qalisball.rules import engine

    m = MatchDriver(client, clock)
    m.kickoff("home", "x0")
    m.take()
    m.post({"type": "goal", "team": "home", "player": 1})
    m.take()
    m.post({"type": "card", "team": "home", "player": 2, "color": "yellow"})
    m.post({"type": "foul", "team": "away", "player": 3, "spot": {"x": 36.0, "y": 12.5}})
    m.take()
    m.post({"type": "violation", "kind": "player_in_area", "team": "away", "player": 4, "spot": {"x": 38.0, "y": 12.5}})
    m.take()
    m.post({"type": "goal", "team": "home", "player": 1})
    goal = m.events()[-1]["seq"]
    m.post({"type": "void", "target": goal, "reason": "offside"})
    svc = client.application.extensions["qalisball"]
    stored = svc.get(m.id)
    folded = engine.replay(stored.setup, stored.log)
    decided = list(engine.replay_steps(stored.setup, stored.log, keep_states=False, decide_from=0))[-1].after
    assert folded == decided and folded.score == {"home": 1, "away": 0}
    assert all(e.rulings is not None for e in stored.log)


def test_issue28_item1_a_stored_call_todays_engine_refuses_keeps_the_match_whole(
    db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored call today's engine would refuse is folded from its rulings: the match is not cut nor read-only."""
    from qalisball.rules import engine

    srv, m = open_match(db, clock)
    m.kickoff("home", "x0")
    m.take()
    m.post({"type": "goal", "team": "home", "player": 1})
    srv.close()

    def refuse_goals(ev: Any, s: Any, now: int) -> None:
        raise engine.RuleViolation("7.1", "no goals today")

    goal = engine._handle.dispatch(engine.Goal)
    engine._handle.register(engine.Goal, refuse_goals)
    try:
        srv, m = reopen(srv, db, clock, m)
        state = m.state()
        assert "damaged" not in state and state["seq"] == 4 and state["score"] == {"home": 1, "away": 0}
        assert restart_spot(state)[:2] == ("kickoff", "away")
        assert m.state()["seq"] == 4
        lines: list[str] = []
        srv.close()
        from qalisball.__main__ import check

        assert check(str(db), out=lines.append)
        assert any("event 4 stands as it was ruled; today's engine would refuse it" in line for line in lines)
    finally:
        engine._handle.register(engine.Goal, goal)


def test_issue28_item1_rulings_column_is_written_with_the_row(db: Path, clock: FakeClock) -> None:
    srv, m = open_match(db, clock)
    m.kickoff("home", "x0")
    srv.close()
    con = sqlite3.connect(db)
    rows = con.execute("SELECT type, rulings FROM events WHERE match_id = ? ORDER BY seq", [m.id]).fetchall()
    con.close()
    assert [(t, [r["kind"] for r in json.loads(ru)]) for t, ru in rows] == [
        ("coin_toss", []),
        ("period_start", ["restart_awarded"]),
    ]


def test_issue28_item1_openapi_describes_the_rulings_of_every_log_entry(client: Any, clock: FakeClock) -> None:
    from openapi_schema_validator import OAS31Validator

    doc = client.get("/api/openapi.json").get_json()
    answer = doc["paths"]["/api/matches/{match_id}/events"]["get"]["responses"]["200"]["content"]["application/json"]
    schema = answer["schema"]
    assert "rulings" in schema["items"]["required"]
    kinds = set(schema["items"]["properties"]["rulings"]["items"]["properties"]["kind"]["enum"])
    assert {"restart_awarded", "free_kick_moved", "shootout_kick_taken", "ruled_again"} <= kinds
    m = MatchDriver(client, clock)
    free_kick_near_aways_area(m)
    assert not [e.message for e in OAS31Validator(schema).iter_errors(m.events())]


def test_issue28_item1_the_what_ifs_actual_match_is_the_match_as_ruled_not_decided_again(
    db: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committee's what-if (C7) sets its change beside the match as it was ruled: with an engine whose 10.8
    distance changed to 5 m, the actual free kick is still where the referee was told (3 m out), while the
    changed copy's calls are decided by today's engine."""
    from qalisball.rules.whatif import Change, what_if

    srv, m = open_match(db, clock)
    seq = free_kick_near_aways_area(m)
    five_metres(monkeypatch)
    srv, m = reopen(srv, db, clock, m)
    match = srv.app.extensions["qalisball"].matches[m.id]
    moved_further = {"type": "foul", "team": "away", "player": 4, "spot": {"x": 36.0, "y": 12.5}}
    w = what_if(match.setup, match.log, [Change("amend", {"target": seq, "event": moved_further})])
    assert w.actual.restart_after is not None and w.what_if.restart_after is not None
    assert (w.actual.restart_after.spot.x, w.actual.restart_after.spot.y) == (33.5, 12.5)  # as ruled
    assert w.actual.state.restart is not None and w.actual.state.restart.spot.x == 33.5
    assert w.what_if.restart_after.spot.x == 31.5  # the change, decided by the engine running now
    srv.close()
