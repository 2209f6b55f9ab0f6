"""Issue 28 item 2, "one road into the rules": ``engine.decide`` is the one entry point.

It checks the rosters a call names (400), stamps the call's game time (M1), answers the same call logged just
before (M4), decides corrections (D8, M3) and the call itself, and leaves the state and the log it is given
as they were: what it decided (the rulings, the state after, the marked log) is returned, folding is the
replay's (``replay.py``). The service, the what-if, ``legal`` and the console's hints take this road only;
``rules/engine.py`` is split by the rule book's chapters, no file of ``rules/`` over ~500 lines, and no
catch-all branch: a violation kind the engine has no rule for is an error, not a player in an area.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from qalisball.rules import engine
from qalisball.rules.catalogue import VIOLATION_KINDS
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.events import Goal, Violation
from qalisball.rules.rulings import GoalCounted, RestartAwarded
from tests.engine_driver import EngineMatch, Row

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "qalisball" / "rules"


def _live() -> EngineMatch:
    m = EngineMatch()
    m.kickoff()
    m.take()
    m.advance(60_000)
    return m


def test_issue28_item2_decide_returns_the_rulings_and_the_state_and_changes_nothing() -> None:
    m = _live()
    before = m.engine_state.copy()
    d = engine.decide(m.engine_state, Goal("home", 2), m.now)
    assert m.engine_state == before, "deciding is pure: the state given is unchanged"
    assert d.state.score == {"home": 1, "away": 0}
    assert d.rulings == d.state.rulings
    assert isinstance(d.rulings[0], GoalCounted) and isinstance(d.rulings[-1], RestartAwarded)
    assert d.state == engine.apply(m.engine_state, Goal("home", 2), m.now)


def test_issue28_item2_decide_checks_the_rosters_first() -> None:
    m = _live()
    with pytest.raises(InvalidEvent) as bad:
        engine.decide(m.engine_state, Goal("home", 99), m.now)
    assert "player" in bad.value.fields


def test_issue28_item2_M1_decide_stamps_the_calls_game_time() -> None:
    m = _live()
    assert engine.decide(m.engine_state, Goal("home"), m.now).at_ms == 60_000  # the clock's, none given
    assert engine.decide(m.engine_state, Goal("home"), m.now, 58_000).at_ms == 58_000  # as the tablet stamped it


def test_issue28_item2_M4_decide_answers_the_same_call_logged_just_before() -> None:
    m = _live()
    m.post(Goal("home", 2), by="assistant1")
    d = engine.decide(m.engine_state, Goal("home"), m.now + 2_000, log=m.log, by="referee")
    assert d.duplicate_of is not None and d.duplicate_of.seq == m.seq
    assert d.state is m.engine_state and d.rulings == ()  # nothing decided, nothing to store
    with pytest.raises(RuleViolation):
        engine.decide(m.engine_state, Goal("home"), m.now + 2_000)  # without the log: the rules refuse it (7.1)


def test_issue28_item2_D8_decide_decides_a_correction_and_marks_the_log() -> None:
    m = _live()
    m.post(Goal("home", 2))
    goal = m.seq
    log = list(m.log)
    void = Row(m.seq + 1, "void", {"target": goal, "reason": ""}, m.now, at_ms=engine.game_time(m.engine_state, m.now))
    expected_state, expected_log, expected_rulings = engine.correct_ruled(m.engine_state, m.log, void)
    from qalisball.rules.events import from_fields

    d = engine.decide(m.engine_state, from_fields("void", {"target": goal, "reason": ""}), m.now, log=m.log, by="referee")
    assert m.log == log, "the log given is unchanged"
    assert d.state.score == {"home": 0, "away": 0} and d.state == expected_state
    assert [e.voided_by for e in d.log] == [e.voided_by for e in expected_log]
    assert d.log[goal - 1].voided_by == goal + 1
    assert d.rulings == expected_rulings


def test_issue28_item2_M1_M3_decide_says_where_a_late_call_fits() -> None:
    m = _live()
    m.advance(10_000)
    m.post(Goal("home", 2), at_ms=69_000)
    m.take()
    with pytest.raises(RuleViolation) as late:
        engine.decide(m.engine_state, Violation("ball_out_side", "away", None, (20.0, 0.0)), m.now, 65_000, log=m.log)
    assert late.value.rule == "M1"
    assert late.value.details["fits_after"] == engine.insert_point(m.setup, m.log, 65_000)
    assert "late_call" not in late.value.details


def _calls(path: Path) -> set[str]:
    """The names of the engine's functions a module calls (``engine.apply(…)``, ``apply(…)`` imported from it)."""
    source = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source)
    except SystemError:
        # CPython 3.11's AST constructor keeps its recursion depth per interpreter, not per thread (gh-106905): a
        # module compiled at the same moment by a server thread another test left running breaks this parse. Once more.
        tree = ast.parse(source)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "engine":
                out.add(f.attr)
            elif isinstance(f, ast.Name):
                out.add(f.id)
    return out


def test_issue28_item2_the_callers_take_one_road_into_the_rules() -> None:
    """Outside the engine's own modules nothing pairs ``check_references`` with ``apply`` or corrects by itself."""
    own = {"engine.py", "dispatch.py", "replay.py", "correcting.py"}
    roads = {"apply", "correct", "correct_ruled"}
    paired: dict[str, set[str]] = {}
    for path in (ROOT / "qalisball").rglob("*.py"):
        if path.parent == RULES and path.name in own:
            continue
        used = _calls(path) & roads
        if used:
            paired[str(path.relative_to(ROOT))] = used
    assert not paired, paired
    callers = ("match/service.py", "rules/whatif.py", "rules/legal.py", "rules/console_hints.py")
    assert all("decide" in _calls(ROOT / "qalisball" / p) for p in callers)


def test_issue28_item2_no_module_of_the_rule_core_is_over_500_lines() -> None:
    long = {p.name: n for p in RULES.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long, long


def test_issue28_item2_a_violation_kind_without_its_rule_is_an_error_not_a_player_in_an_area() -> None:
    m = _live()
    in_area = (2.0, 12.5)  # inside the restricted area at x0: a player_in_area there is a penalty or end-line ball
    assert engine.decide(m.engine_state, Violation("player_in_area", "home", None, in_area), m.now).state.restart
    with pytest.raises(TypeError, match="no rule for violation kind 'kicked_away'"):
        engine.decide(m.engine_state, Violation("kicked_away", "home", None, in_area), m.now)  # type: ignore[arg-type]


def test_issue28_item2_every_violation_kind_of_the_catalogue_has_its_own_rule() -> None:
    from qalisball.rules import violations

    assert set(violations.RULED_KINDS) == {v.name for v in VIOLATION_KINDS} | {"restart"}
