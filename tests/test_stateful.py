"""Random matches through the HTTP API, checked against the invariants of the rule book (STYLE.md).

A Hypothesis ``RuleBasedStateMachine`` officiates one match per example with the Flask test client and a
hand-driven clock: coin toss, halves, the clock, restarts, goals, every kind of violation at random spots
(outside the field too), fouls, cards, substitutions, injuries, steals, catches, attacks, missed shots,
the shootout, voids of random earlier events, idempotency keys and ``expected_seq``. It accepts whatever
the API accepts; a refusal must be 409 ``rule`` naming a rule, or 400 ``invalid`` naming fields, and must
change nothing. After every step the invariants below are checked; the machine runs for several match
configurations (each multi-attack mode, a field without side lines).

Set ``QALISBALL_STATEFUL_EXAMPLES`` to run more examples, with fresh randomness, when hunting bugs.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from qalisball import create_app
from qalisball.match.service import MatchService
from qalisball.rules import engine
from qalisball.rules.legal import duplicate_windows
from qalisball.rules.view import public_state
from qalisball.server.demo import demo_request
from qalisball.storage.store import Store
from tests.conftest import ADMIN, FakeClock, auth

TEAMS = ("home", "away")
HALVES = ("first_half", "second_half")
META = ("seq", "type", "by", "at_ms", "received_at", "voided_by", "id")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
REFEREE = ["referee"]
ASSISTANTS = ["referee", "assistant1", "assistant2"]
ROLES: dict[str, list[str]] = {
    "coin_toss": REFEREE,
    "period_start": REFEREE,
    "period_end": REFEREE,
    "clock": ["referee", "scorer"],
    "restart_taken": REFEREE,
    "goal": ASSISTANTS,
    "foul": REFEREE,
    "card": REFEREE,
    "substitution": ["referee", "scorer"],
    "injury": REFEREE,
    "steal": REFEREE,
    "catch": REFEREE,
    "attack": REFEREE,
    "shot_missed": ASSISTANTS,
    "shootout_start": REFEREE,
    "shootout_kick": REFEREE,
    "abandon": REFEREE,
    "void": REFEREE,
}
KINDS = ["ball_out_side", "ball_out_end", "ball_grounded", "ball_in_area", "player_in_area", "caught", "restart"]
ASSISTANT_KINDS = {"ball_out_side", "ball_out_end", "ball_in_area", "player_in_area"}

RANDOMISE = "QALISBALL_STATEFUL_EXAMPLES" in os.environ
# Shrinking a failing match of ~45 HTTP steps can take Hypothesis minutes; the suite reports the unshrunk
# example unless QALISBALL_STATEFUL_SHRINK is set.
SHRINK = "QALISBALL_STATEFUL_SHRINK" in os.environ
EXAMPLES = int(os.environ.get("QALISBALL_STATEFUL_EXAMPLES", "10"))
STEPS = int(os.environ.get("QALISBALL_STATEFUL_STEPS", "45"))


# The store fsyncs every event (synchronous=FULL); on a RAM disk that costs nothing, and durability is
# test_durability.py's subject, not this file's.
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def _ms(received_at: str) -> int:
    return (datetime.fromisoformat(received_at) - EPOCH) // timedelta(milliseconds=1)


def _roster(n: int) -> list[int]:
    return list(range(1, n + 1))


class MatchMachine(RuleBasedStateMachine):
    """One match, officiated at random. Subclasses set ``REQUEST`` (the match creation body)."""

    REQUEST: dict[str, Any] = demo_request()

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.mkdtemp(prefix="qalisball-stateful-", dir=SCRATCH)
        self.db = os.path.join(self.tmp, "match.db")
        self.clock = FakeClock()
        self.app = create_app({"TESTING": True, "DATABASE": self.db, "ADMIN_TOKEN": ADMIN, "CLOCK": self.clock})
        self.client = self.app.test_client()
        r = self.client.post("/api/matches", json=self.REQUEST, headers=auth(ADMIN))
        assert r.status_code == 201, r.get_json()
        self.id: str = r.get_json()["id"]
        self.tokens: dict[str, str] = r.get_json()["tokens"]
        self.roster = {t: [p["number"] for p in self.REQUEST[t]["players"]] for t in TEAMS}
        self.field = self.REQUEST.get("field", {"length": 40, "width": 25})
        self.keys: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {}  # key -> (body, role, answer)
        self.counter = itertools.count(1)
        self.s: dict[str, Any] = self._get_state()
        self.voided_since_last_check = False
        self.previous_sent_off: dict[str, set[int]] = {t: set() for t in TEAMS}

    def teardown(self) -> None:
        self.app.extensions["qalisball"].store.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- plumbing --------------------------------------------------------------------------------

    def _get_state(self) -> dict[str, Any]:
        r = self.client.get(f"/api/matches/{self.id}")
        assert r.status_code == 200
        data: dict[str, Any] = r.get_json()
        return data

    def _get_log(self) -> list[dict[str, Any]]:
        r = self.client.get(f"/api/matches/{self.id}/events")
        assert r.status_code == 200
        data: list[dict[str, Any]] = r.get_json()
        return data

    def send(self, data: st.DataObject, body: dict[str, Any], role: str | None = None) -> tuple[int, dict[str, Any]]:
        """POST ``body`` (with a random role allowed to send it, sometimes a key or an at_ms) and check the answer."""
        if role is None:
            roles = (
                ASSISTANTS
                if body["type"] == "violation" and body.get("kind") in ASSISTANT_KINDS
                else ROLES.get(body["type"], REFEREE)
            )
            role = data.draw(st.sampled_from(roles), label="role")
        if data.draw(st.integers(0, 9), label="with key") < 3:
            body["id"] = f"key-{next(self.counter)}"
        if data.draw(st.integers(0, 9), label="with at_ms") == 0 and self.s["phase"] in HALVES:
            # A call logged a little late (SPEC M1): between the last call of the half and the clock now.
            clock, last = self.s["clock"]["elapsed_ms"], self.s["last_at_ms"]
            body["at_ms"] = data.draw(st.integers(min(last, clock), clock), label="at_ms")
        if data.draw(st.integers(0, 9), label="with expected_seq") == 0:
            body["expected_seq"] = self.s["seq"]
        return self._post(body, role)

    def _post(self, body: dict[str, Any], role: str) -> tuple[int, dict[str, Any]]:
        before, log_before = self._get_state(), self._get_log()
        r = self.client.post(f"/api/matches/{self.id}/events", json=body, headers=auth(self.tokens[role]))
        answer: dict[str, Any] = r.get_json()
        status = r.status_code
        after, log_after = self._get_state(), self._get_log()
        if status == 201:
            assert answer["seq"] == before["seq"] + 1 == after["seq"], (body, answer.get("seq"))
            assert answer["state"] == after, "the answer's state is the match's state"
            assert len(log_after) == len(log_before) + 1
            entry = log_after[-1]
            assert entry["seq"] == answer["seq"] and entry["type"] == body["type"] and entry["by"] == role
            assert entry["id"] == body.get("id") and entry["voided_by"] is None
            for name, value in body.items():
                if name not in ("type", "id", "at_ms", "expected_seq"):
                    assert entry[name] == value, (name, entry, body)
            if "at_ms" in body:
                assert entry["at_ms"] == body["at_ms"]
            elif before["phase"] in HALVES:
                assert entry["at_ms"] == before["clock"]["elapsed_ms"]
            if "id" in body:
                self.keys[body["id"]] = (body, role, answer)
            self._check_accepted(body, before, after)
            if body["type"] == "void":
                self.voided_since_last_check = True
        elif status == 200 and "duplicate_of" in answer:
            # M4: the same goal or ball-out just logged (by another official or the same role, D230): nothing stored.
            first = log_before[-1]
            assert answer["duplicate_of"] == first["seq"] and answer["by"] == first["by"], (body, answer)
            assert first["type"] == body["type"] and first.get("team") == body.get("team"), (body, first)
            assert after == before and log_after == log_before, "a duplicate changed the match"
        elif status == 200:
            # A repeated idempotency key with the same body: the first answer, nothing stored.
            assert "id" in body and body["id"] in self.keys and self.keys[body["id"]][0] == body, (body, answer)
            assert answer == self.keys[body["id"]][2]
            assert after == before and log_after == log_before, "a repeated key changed the match"
        else:
            assert status in (400, 404, 409), (status, body, answer)
            assert after == before and log_after == log_before, f"a {status} changed the match: {body}"
            assert isinstance(answer.get("message"), str) and answer["message"], answer
            if status == 400:
                assert answer["error"] == "invalid" and answer["fields"], answer
            elif status == 404:
                assert answer["error"] == "not_found" and body["type"] == "void", (body, answer)
            elif answer["error"] == "conflict":
                stale = "expected_seq" in body and body["expected_seq"] != before["seq"]
                reused = "id" in body and body["id"] in self.keys
                assert stale or reused, (body, answer)
            else:
                assert answer["error"] == "rule" and isinstance(answer["rule"], str) and answer["rule"], answer
        self.s = after
        return status, answer

    def _check_accepted(self, body: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> None:
        """What an accepted event says about the state before it."""
        kind = body["type"]
        team = body.get("team")
        if kind == "substitution":
            # 11: only while the ball is dead; SPEC §5.6: may_substitute is true exactly when an ordinary one is accepted.
            assert before["ball"] == "dead", ("substitution accepted with the ball live", before)
            assert body["in"] not in before["teams"][team]["sent_off"], "a sent-off player came back"
            if body["out"] is not None:
                assert before["teams"][team]["may_substitute"], (
                    "ordinary substitution accepted but may_substitute false",
                    before,
                )
            else:
                assert before["teams"][team]["short"] > 0, ("a player came on for nobody in a full team", before)
        if kind == "restart_taken":
            assert before["restart"] is not None and before["restart"]["team"] == team
            assert body["player"] in before["teams"][team]["on_field"]
            assert after["ball"] == "live" and after["restart"] is None
        if kind in ("goal", "steal", "catch", "attack", "shot_missed") or (kind == "violation" and body["kind"] != "restart"):
            # M1: a call stamped before time was up still counts after it (the ball shows dead then).
            late = before["time_up"] and "at_ms" in body and body["at_ms"] < before["clock"]["length_ms"]
            assert (before["ball"] == "live" or late) and before["phase"] in HALVES and (late or not before["time_up"]), (
                body,
                before,
            )
        if kind == "goal":
            assert after["score"][team] == before["score"][team] + 1
            # After time up no restart shows (10.2), even after a late goal (M1).
            if after["time_up"]:
                assert after["restart"] is None
            else:
                kicks_off = "away" if team == "home" else "home"
                assert after["restart"]["type"] == "kickoff" and after["restart"]["team"] == kicks_off
                assert after["restart"]["why"]["rule"] == "5.3"
        if kind == "period_end":
            assert before["time_up"] and before["phase"] in HALVES
        if kind == "period_start":
            assert before["phase"] in ("scheduled", "halftime")
            assert after["restart"]["type"] == "kickoff" and after["clock"]["elapsed_ms"] == 0

    # -- invariants ------------------------------------------------------------------------------

    @invariant()
    def log_and_state_agree(self) -> None:
        state, log = self._get_state(), self._get_log()
        n = len(log)
        # seq strictly increasing by 1.
        assert [e["seq"] for e in log] == list(range(1, n + 1))
        assert state["seq"] == n
        # The score is the count of non-voided goals per team.
        goals = [e for e in log if e["type"] == "goal" and e["voided_by"] is None]
        assert state["score"] == {t: sum(1 for g in goals if g["team"] == t) for t in TEAMS}
        # voided_by points at a void that targets the event.
        for e in log:
            if e["voided_by"] is not None:
                void = log[e["voided_by"] - 1]
                assert void["type"] == "void" and void["target"] == e["seq"]
            if e["type"] == "void":
                assert log[e["target"] - 1]["voided_by"] == e["seq"]

    @invariant()
    def replay_equals_state(self) -> None:
        state, log = self._get_state(), self._get_log()
        # 1. The public log alone replays into the state.
        setup = self.app.extensions["qalisball"].matches[self.id].setup
        entries = [
            SimpleNamespace(
                seq=e["seq"],
                type=e["type"],
                fields={k: v for k, v in e.items() if k not in META},
                received_ms=_ms(e["received_at"]),
                voided_by=e["voided_by"],
                at_ms=e["at_ms"],
                by=e["by"],
            )
            for e in log
        ]
        replayed = engine.replay(setup, entries)
        expected = public_state(replayed, self.clock.now, self.id, len(log))
        # M4, D167: the officials' `legal` names the call another official may still log as the same; the log says it too.
        expected["legal"]["duplicates"] = duplicate_windows(entries)
        assert expected == state
        # 2. A server started on the same database file finds the same state.
        store = Store(self.db)
        try:
            svc = MatchService(store, clock=self.clock)
            assert svc.state(svc.matches[self.id]) == state
            assert svc.log(svc.matches[self.id]) == log
        finally:
            store.close()

    @invariant()
    def players(self) -> None:
        s = self._get_state()
        n = s["starters"]
        for t in TEAMS:
            ts = s["teams"][t]
            on, off = ts["on_field"], set(ts["sent_off"])
            assert len(on) == len(set(on)) <= n, (t, on)
            assert not off & set(on), ("a sent-off player is on the field", t, ts)
            assert set(ts["bench"]) == set(self.roster[t]) - set(on) - off
            assert set(on) <= set(self.roster[t])
            assert ts["short"] == n - len(on)
            # Once sent off, always sent off, unless a void took the card back.
            if not self.voided_since_last_check:
                assert self.previous_sent_off[t] <= off, (t, self.previous_sent_off[t], off)
            self.previous_sent_off[t] = off
        self.voided_since_last_check = False

    @invariant()
    def restart_and_possession(self) -> None:
        s = self._get_state()
        restart = s["restart"]
        if s["ball"] == "live":
            assert restart is None and s["phase"] in HALVES and not s["time_up"]
        if s["phase"] in HALVES and s["ball"] == "dead" and not s["time_up"]:
            assert restart is not None, "during a half a dead ball has exactly one restart pending (SPEC §3)"
        if s["phase"] not in HALVES or s["time_up"]:
            assert restart is None and s["possession"] is None and s["ball"] == "dead"
        if restart is not None:
            assert s["possession"] == restart["team"] and s["attacking"] is True
        if s["possession"] is None:
            assert s["attacking"] is False
        countdown = s["return_countdown_ms"]
        if countdown is not None:
            # 7.2: the 30 s after a goal, until the kickoff is taken.
            assert 0 < countdown <= 30_000 and s["ball"] == "dead" and restart is not None and restart["type"] == "kickoff"
        rules = self.REQUEST.get("rules", {}).get("multi_attack", {})
        k, mode = rules.get("k", 2), rules.get("mode", "off")
        for t in TEAMS:
            ma = s["teams"][t]["multi_attack"]
            if s["possession"] != t or mode in ("off", "players") or (mode == "teams" and t not in rules["teams"]):
                assert ma["team"] is None, (mode, t, ma)
            assert ma["team"] is None or 1 <= ma["team"] <= k, ma
            assert all(1 <= c <= k for c in ma["players"].values()), ma
            designated = rules.get("players", {}).get(t, []) if mode == "players" else []
            assert sorted(int(n) for n in ma["players"]) == sorted(designated), (ma, designated)

    @invariant()
    def restart_spots(self) -> None:
        """Every restart spot is a field point of the right kind (SPEC §1, §3): spots sent from outside are projected."""
        s = self._get_state()
        r = s["restart"]
        if r is None:
            return
        length, width = s["field"]["length"], s["field"]["width"]
        x, y = r["spot"]["x"], r["spot"]["y"]
        assert 0 <= x <= length and 0 <= y <= width, r
        other = "away" if r["team"] == "home" else "home"
        if r["type"] == "kickoff":
            assert (x, y) == (length / 2, width / 2), r
        elif r["type"] == "end_line":
            assert x in (0, length) and abs(abs(y - width / 2) - 4.5) < 1e-6, r
        elif r["type"] == "side_line":
            assert s["field"]["side_lines"], "a side-line ball on a field without side lines (2.1)"
            assert y in (0, width), r
        elif r["type"] == "penalty":
            # At the area of the team that does not take it (8.5, 10.8).
            end_x = 0 if s["ends"][other] == "x0" else length
            assert (x, y) == (abs(end_x - 4.5), width / 2), (r, s["ends"])
        elif r["type"] == "free_kick":
            # The 3 m rule (10.8): at least 3 m outside the area line of the team that does not take it.
            end_x = 0 if s["ends"][other] == "x0" else length
            ey = min(max(y, width / 2 - 0.5), width / 2 + 0.5)
            assert math.hypot(x - end_x, y - ey) - 3.5 >= 3 - 0.002, (r, s["ends"])

    @invariant()
    def phases_and_result(self) -> None:
        s = self._get_state()
        assert s["period"] == {"scheduled": 0, "first_half": 1, "halftime": 1, "second_half": 2}.get(s["phase"], s["period"])
        if s["phase"] == "finished":
            assert s["winner"] in TEAMS
            if s["shootout"] is None:
                other = "away" if s["winner"] == "home" else "home"
                assert s["score"][s["winner"]] > s["score"][other]
        else:
            assert s["winner"] is None
        if s["phase"] == "shootout":
            assert s["score"]["home"] == s["score"]["away"]
        assert s["clock"]["elapsed_ms"] >= 0
        if s["phase"] in HALVES:
            assert s["clock"]["elapsed_ms"] <= s["clock"]["length_ms"]
            assert s["time_up"] == (s["clock"]["elapsed_ms"] >= s["clock"]["length_ms"])

    # -- drawing ---------------------------------------------------------------------------------

    def _team(self, data: st.DataObject, prefer: str | None = None) -> str:
        if prefer is not None and data.draw(st.integers(0, 3), label="prefer team") > 0:
            return prefer
        return data.draw(st.sampled_from(TEAMS), label="team")

    def _player(self, data: st.DataObject, team: str, pool: list[int] | None = None, optional: bool = False) -> int | None:
        choice = data.draw(st.integers(0, 19), label="player kind")
        if choice == 0:
            return 99  # not on the roster: 400
        if optional and choice == 1:
            return None
        if pool and choice > 4:
            return data.draw(st.sampled_from(pool), label="player")
        return data.draw(st.sampled_from(self.roster[team]), label="player")

    def _spot(self, data: st.DataObject) -> dict[str, float]:
        length, width = self.field.get("length", 40), self.field.get("width", 25)
        special = [
            (1.0, width / 2),  # in the x0 area
            (length - 1.0, width / 2),  # in the xL area
            (0.0, width / 2),  # on the end line's segment (D3)
            (length / 2, width / 2),  # centre, on the axis (D11)
            (4.0, width / 2 + 2),  # near an area line (3 m rule)
            (-1.5, 3.0),  # behind the x0 end line
            (length + 2.0, width - 1.0),  # behind the xL end line
            (length / 3, -2.0),  # beyond a side line
            (length / 3, width + 3.0),
        ]
        if data.draw(st.booleans(), label="special spot"):
            x, y = data.draw(st.sampled_from(special), label="spot")
        else:
            x = data.draw(st.floats(-8, length + 8, allow_nan=False), label="x")
            y = data.draw(st.floats(-8, width + 8, allow_nan=False), label="y")
        return {"x": round(x, 2), "y": round(y, 2)}

    def _on(self, team: str) -> list[int]:
        """The team's players on the field, or its roster when injuries have emptied the field."""
        on: list[int] = self.s["teams"][team]["on_field"]
        return on or self.roster[team]

    def _possessor(self) -> str | None:
        p: str | None = self.s["possession"]
        return p

    # -- rules: time and phases ------------------------------------------------------------------

    @rule(ms=st.one_of(st.sampled_from([0, 1, 999, 5_000, 30_000]), st.integers(0, 20_000), st.integers(0, 200_000)))
    def advance_clock(self, ms: int) -> None:
        self.clock.advance(ms)
        self.s = self._get_state()

    @rule(data=st.data())
    def coin_toss(self, data: st.DataObject) -> None:
        self.send(data, {"type": "coin_toss", "kickoff": self._team(data), "home_end": data.draw(st.sampled_from(["x0", "xL"]))})

    @rule(data=st.data())
    def period_start(self, data: st.DataObject) -> None:
        self.send(data, {"type": "period_start"})

    @rule(data=st.data(), run_out=st.booleans())
    def period_end(self, data: st.DataObject, run_out: bool) -> None:
        if run_out and self.s["phase"] in HALVES:
            self.clock.advance(self.s["clock"]["length_ms"] - self.s["clock"]["elapsed_ms"])
        self.send(data, {"type": "period_end"})

    @rule(data=st.data(), action=st.sampled_from(["pause", "resume", "set"]))
    def clock_change(self, data: st.DataObject, action: str) -> None:
        body: dict[str, Any] = {"type": "clock", "action": action}
        if action == "set":
            length = self.s["clock"]["length_ms"]
            body["elapsed_ms"] = data.draw(
                st.one_of(st.sampled_from([0, length - 1, length, length + 1]), st.integers(0, length))
            )
        self.send(data, body)

    @precondition(lambda self: self.s["seq"] > 15)
    @rule(data=st.data())
    def abandon(self, data: st.DataObject) -> None:
        if data.draw(st.integers(0, 19), label="really abandon") == 0:
            self.send(data, {"type": "abandon", "reason": "storm 雷雨"})

    # -- rules: a referee who keeps the match going (weighted by being listed several times) --------

    def _next_natural(self, data: st.DataObject) -> None:
        """The event a referee would most likely log now, so that random matches reach every phase."""
        s = self.s
        phase = s["phase"]
        if phase == "scheduled":
            if s["kickoff_team"] is None:
                self.coin_toss(data)
            else:
                self.send(data, {"type": "period_start"})
        elif phase == "halftime":
            self.send(data, {"type": "period_start"})
        elif phase in HALVES and s["time_up"]:
            self.send(data, {"type": "period_end"})
        elif phase in HALVES and s["restart"] is not None:
            team = s["restart"]["team"]
            self.send(data, {"type": "restart_taken", "team": team, "player": data.draw(st.sampled_from(self._on(team)))})
        elif phase in HALVES:
            team = s["possession"]
            other = "away" if team == "home" else "home"
            what = data.draw(
                st.sampled_from(["goal", "goal", "violation", "violation", "steal", "attack", "shot_missed", "foul", "clock"])
            )
            if what == "goal":
                self.send(data, {"type": "goal", "team": team, "player": data.draw(st.sampled_from(self._on(team)))})
            elif what == "violation":
                self.violation(data, data.draw(st.sampled_from(KINDS[:-1])))
            elif what == "foul":
                self.foul(data, "field", False, None)
            elif what == "steal":
                self.send(data, {"type": "steal", "team": other})
            elif what == "clock":
                self.clock.advance(data.draw(st.integers(0, 60_000), label="time passes"))
                self.s = self._get_state()
            else:
                self.send(data, {"type": what, "team": team})
        elif phase == "shootout" and s["shootout"] is None:
            takers = {t: data.draw(st.permutations(s["teams"][t]["on_field"] + s["teams"][t]["bench"]))[:4] for t in TEAMS}
            self.send(data, {"type": "shootout_start", "first": self._team(data), "takers": takers})
        elif phase == "shootout" and s["shootout"]["next"] is not None:
            self.send(data, {"type": "shootout_kick", "team": s["shootout"]["next"]["team"], "scored": data.draw(st.booleans())})

    @rule(data=st.data())
    def play_on(self, data: st.DataObject) -> None:
        self._next_natural(data)

    @rule(data=st.data())
    def play_on_2(self, data: st.DataObject) -> None:
        self._next_natural(data)

    @rule(data=st.data())
    def play_on_3(self, data: st.DataObject) -> None:
        self._next_natural(data)

    @rule(data=st.data())
    def play_on_4(self, data: st.DataObject) -> None:
        self._next_natural(data)

    # -- rules: play -----------------------------------------------------------------------------

    @rule(data=st.data())
    def restart_taken(self, data: st.DataObject) -> None:
        restart = self.s["restart"]
        team = self._team(data, restart["team"] if restart else None)
        player = self._player(data, team, self.s["teams"][team]["on_field"])
        self.send(data, {"type": "restart_taken", "team": team, "player": player})

    @rule(data=st.data(), direct=st.booleans())
    def goal(self, data: st.DataObject, direct: bool) -> None:
        team = self._team(data, self._possessor())
        body: dict[str, Any] = {
            "type": "goal",
            "team": team,
            "player": self._player(data, team, self.s["teams"][team]["on_field"], optional=True),
        }
        if direct:
            body["direct"] = True
        self.send(data, body)

    @rule(data=st.data(), kind=st.sampled_from(KINDS))
    def violation(self, data: st.DataObject, kind: str) -> None:
        team = self._team(data, self._possessor())
        body: dict[str, Any] = {"type": "violation", "kind": kind, "team": team}
        player = self._player(data, team, self.s["teams"][team]["on_field"], optional=True)
        if player is not None:
            body["player"] = player
        if kind != "restart" or data.draw(st.booleans(), label="restart spot"):
            if data.draw(st.integers(0, 19), label="no spot") > 0:
                body["spot"] = self._spot(data)
        if data.draw(st.booleans(), label="with side"):
            body["side"] = data.draw(st.sampled_from(["low", "high"]))
        self.send(data, body)

    @rule(
        data=st.data(),
        where=st.sampled_from(["field", "beyond_end_line", "beyond_side_line"]),
        on_official=st.booleans(),
        card=st.sampled_from([None, None, "yellow", "red"]),
    )
    def foul(self, data: st.DataObject, where: str, on_official: bool, card: str | None) -> None:
        team = self._team(data)
        body: dict[str, Any] = {"type": "foul", "team": team, "where": where, "on_official": on_official}
        player = self._player(data, team, self.s["teams"][team]["on_field"], optional=True)
        if player is not None:
            body["player"] = player
        if card is not None:
            body["card"] = card
        if data.draw(st.integers(0, 9), label="no spot") > 0:
            body["spot"] = self._spot(data)
        self.send(data, body)

    @rule(data=st.data(), color=st.sampled_from(["yellow", "yellow", "red"]))
    def card(self, data: st.DataObject, color: str) -> None:
        team = self._team(data)
        before = self.s
        player = self._player(data, team, before["teams"][team]["on_field"])
        status, answer = self.send(data, {"type": "card", "team": team, "player": player, "color": color})
        if player in self.roster[team] and player not in before["teams"][team]["sent_off"] and before["phase"] != "abandoned":
            # 9.3, SPEC §4: cards are accepted in any phase and any ball state.
            assert status in (200, 201), (status, answer, before["phase"])

    @rule(data=st.data())
    def substitution(self, data: st.DataObject) -> None:
        team = self._team(data, self.s["restart"]["team"] if self.s["restart"] else None)
        ts = self.s["teams"][team]
        out = None if data.draw(st.integers(0, 4), label="out null") == 0 else self._player(data, team, ts["on_field"])
        in_ = self._player(data, team, ts["bench"])
        status, answer = self.send(data, {"type": "substitution", "team": team, "out": out, "in": in_})
        ordinary = out is not None and out in ts["on_field"] and in_ in ts["bench"]
        if ordinary:
            # SPEC §5.6: may_substitute is true exactly when an ordinary substitution would be accepted now.
            assert (status == 201) == ts["may_substitute"], ("may_substitute disagrees with the answer", ts, status, answer)

    @rule(data=st.data())
    def injury(self, data: st.DataObject) -> None:
        team = self._team(data, self._possessor())
        body: dict[str, Any] = {
            "type": "injury",
            "team": team,
            "player": self._player(data, team, self.s["teams"][team]["on_field"]),
        }
        if data.draw(st.integers(0, 4), label="no spot") > 0:
            body["spot"] = self._spot(data)
        self.send(data, body)

    @rule(data=st.data(), kind=st.sampled_from(["steal", "catch", "attack", "shot_missed"]))
    def possession_event(self, data: st.DataObject, kind: str) -> None:
        possessor = self._possessor()
        other = None if possessor is None else ("away" if possessor == "home" else "home")
        team = self._team(data, other if kind in ("steal", "catch") else possessor)
        body: dict[str, Any] = {"type": kind, "team": team}
        if kind != "attack":
            player = self._player(data, team, self.s["teams"][team]["on_field"], optional=True)
            if player is not None:
                body["player"] = player
        if kind == "catch" and data.draw(st.booleans(), label="caught named"):
            opp = "away" if team == "home" else "home"
            body["caught"] = self._player(data, opp, self.s["teams"][opp]["on_field"])
        if kind == "shot_missed" and data.draw(st.booleans(), label="shot spot"):
            body["spot"] = self._spot(data)
        self.send(data, body)

    # -- rules: shootout -------------------------------------------------------------------------

    @rule(data=st.data(), first=st.sampled_from(TEAMS))
    def shootout_start(self, data: st.DataObject, first: str) -> None:
        takers = {}
        for t in TEAMS:
            pool = (
                self.roster[t]
                if data.draw(st.integers(0, 4), label="any takers") == 0
                else self.s["teams"][t]["bench"] + self.s["teams"][t]["on_field"]
            )
            pool = pool if len(pool) >= 4 else self.roster[t]
            takers[t] = data.draw(st.lists(st.sampled_from(pool), min_size=4, max_size=4, unique=True), label=f"takers {t}")
        self.send(data, {"type": "shootout_start", "first": first, "takers": takers})

    @precondition(lambda self: self.s["phase"] == "shootout")
    @rule(data=st.data(), scored=st.booleans())
    def shootout_kick(self, data: st.DataObject, scored: bool) -> None:
        nxt = (self.s["shootout"] or {}).get("next")
        team = self._team(data, nxt["team"] if nxt else None)
        self.send(data, {"type": "shootout_kick", "team": team, "scored": scored})

    # -- rules: corrections and the envelope -----------------------------------------------------

    @rule(data=st.data())
    def void(self, data: st.DataObject) -> None:
        target = data.draw(st.integers(1, self.s["seq"] + 1), label="target")
        log = self._get_log()
        status, answer = self.send(data, {"type": "void", "target": target, "reason": "overruled 改判"}, role="referee")
        if (
            status == 409
            and answer["error"] == "rule"
            and log[target - 1]["type"] != "void"
            and log[target - 1]["voided_by"] is None
        ):
            # D8: a void that would make a later event illegal is refused and names that event.
            named = [int(w) for w in re.findall(r"event (\d+)", answer["message"]) if int(w) != target]
            assert named and all(target < n <= len(log) for n in named), answer["message"]

    @precondition(lambda self: bool(self.keys))
    @rule(data=st.data())
    def repeat_a_key(self, data: st.DataObject) -> None:
        """Same key, same body: 200, the first answer, nothing stored — even if the event is illegal now."""
        key = data.draw(st.sampled_from(sorted(self.keys)), label="key")
        body, role, first = self.keys[key]
        status, answer = self._post(dict(body), role)
        assert status == 200, (status, answer)
        assert answer == first

    @precondition(lambda self: bool(self.keys))
    @rule(data=st.data())
    def reuse_a_key(self, data: st.DataObject) -> None:
        """Same key, another body, from the role that used it (keys are per role, D46): 409 conflict."""
        key = data.draw(st.sampled_from(sorted(self.keys)), label="key")
        body, role, _ = self.keys[key]
        other = {**body, "at_ms": (body.get("at_ms") or 0) + 1}
        status, answer = self._post(other, role)
        assert status == 409 and answer["error"] == "conflict", (status, answer)

    @precondition(lambda self: self.s["seq"] > 0)
    @rule(data=st.data())
    def stale_expected_seq(self, data: st.DataObject) -> None:
        stale = data.draw(st.integers(0, self.s["seq"] - 1), label="stale seq")
        status, answer = self._post({"type": "clock", "action": "pause", "expected_seq": stale}, "scorer")
        assert status == 409 and answer["error"] == "conflict", (status, answer)


def _machine(name: str, **changes: Any) -> type[MatchMachine]:
    request = {**demo_request(), "rules": {"half_minutes": 2, "halftime_minutes": 1}}
    for key, value in changes.items():
        request[key] = value
    return type(name, (MatchMachine,), {"REQUEST": request})


SETTINGS = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    derandomize=not RANDOMISE,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, *([Phase.shrink] if SHRINK else [])],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

MultiAttackOff = _machine("MultiAttackOff")
MultiAttackPlayers = _machine(
    "MultiAttackPlayers",
    rules={"half_minutes": 2, "multi_attack": {"mode": "players", "k": 2, "players": {"home": [1, 2], "away": [3]}}},
)
MultiAttackTeams = _machine(
    "MultiAttackTeams", rules={"half_minutes": 2, "multi_attack": {"mode": "teams", "k": 3, "teams": ["home"]}}
)
MultiAttackTrailing = _machine("MultiAttackTrailing", rules={"half_minutes": 2, "multi_attack": {"mode": "trailing"}})
NoSideLines = _machine(
    "NoSideLines",
    field={"length": 40, "width": 45, "side_lines": False},
    starters=4,
    home={"name": "Four 四", "players": [{"number": n, "name": f"H{n}"} for n in range(1, 7)], "starting": [1, 2, 3, 4]},
    away={"name": "Quattro", "players": [{"number": n, "name": f"A{n}"} for n in range(1, 8)], "starting": [4, 5, 6, 7]},
)

TestMultiAttackOff = MultiAttackOff.TestCase
TestMultiAttackPlayers = MultiAttackPlayers.TestCase
TestMultiAttackTeams = MultiAttackTeams.TestCase
TestMultiAttackTrailing = MultiAttackTrailing.TestCase
TestNoSideLines = NoSideLines.TestCase
for _case in (TestMultiAttackOff, TestMultiAttackPlayers, TestMultiAttackTeams, TestMultiAttackTrailing, TestNoSideLines):
    _case.settings = SETTINGS
del _case
