"""``legal_calls``: what may be called now, from the engine itself (issue 10, item 1).

The console greys a call exactly when ``legal`` says the engine refuses it, and shows the engine's
reason. These tests hold ``legal`` against the engine on states of random legal matches.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from qalisball.rules import engine
from qalisball.rules.common import TEAMS
from qalisball.rules.console_hints import spot_calls
from qalisball.rules.corrections import duplicate_of
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.events import Card, ClockChange, Event, Goal, RestartTaken, Substitution, Violation
from qalisball.rules.legal import duplicate_windows, for_role, legal_calls
from qalisball.rules.state import MatchState, RuleSet
from qalisball.rules.view import public_state

from .engine_driver import EngineMatch, demo_setup
from .random_match import random_match

SEEDS = range(12)


def _accepted(s: MatchState, event: Event, now: int) -> bool:
    try:
        engine.check_references(s, event)
        engine.apply(s, event, now)
    except (RuleViolation, InvalidEvent):
        return False
    return True


def _states() -> list[tuple[MatchState, int]]:
    return [(p.after, p.now) for seed in SEEDS for p in random_match(seed, steps=150)]


STATES = _states()


def _value(legal: dict[str, Any], call: str, team: str | None = None) -> bool | int:
    v = legal["calls"][call]
    return v[team] if team is not None else v


def test_legal_lists_every_console_call_with_a_verdict_and_its_reason() -> None:
    from qalisball.rules.catalogue import console_calls

    s, now = STATES[40]
    legal = legal_calls(s, now)
    names = {c["call"] for c in console_calls()}
    assert names <= set(legal["calls"]), names - set(legal["calls"])
    for value in legal["calls"].values():
        for v in value.values() if isinstance(value, dict) else [value]:
            assert v is True or (isinstance(v, int) and 0 <= v < len(legal["reasons"]))
    for reason in legal["reasons"]:
        assert reason["rule"] and reason["message"] == reason["template"].format(**reason["params"])


def test_11_1_may_substitute_agrees_with_legal_substitution() -> None:
    for s, now in STATES:
        legal = legal_calls(s, now)
        for t in TEAMS:
            assert engine.may_substitute(s, t, now) == (legal["calls"]["substitution"][t] is True)


def test_a_greyed_call_is_refused_for_every_player_and_spot() -> None:
    """Never grey a call the engine would accept with some other player or spot."""
    spots = [(x, y) for x, y in itertools.product((-1.0, 0.5, 2.0, 10.0, 20.0, 38.0, 41.0), (-1.0, 5.0, 12.5, 26.0))]
    for s, now in STATES[::3]:
        legal = legal_calls(s, now)
        for t in TEAMS:
            roster = s.setup.team(t).numbers
            players: list[int | None] = [None, *roster]
            if legal["calls"]["goal"][t] is not True:
                assert not any(_accepted(s, Goal(t, p), now) for p in players)
            if legal["calls"]["restart_taken"][t] is not True:
                assert not any(_accepted(s, RestartTaken(t, p), now) for p in players)
            for color in ("yellow", "red"):
                if legal["calls"][color][t] is not True:
                    assert not any(_accepted(s, Card(t, p, color), now) for p in roster)  # type: ignore[arg-type]
            for kind in ("ball_out_side", "ball_out_end", "ball_grounded", "ball_in_area", "player_in_area", "caught"):
                if legal["calls"][kind][t] is not True:
                    assert not any(_accepted(s, Violation(kind, t, None, spot), now) for spot in spots), (kind, t)
            if legal["calls"]["substitution"][t] is not True:
                on, bench = s.teams[t].on_field, [n for n in roster if n not in s.teams[t].on_field]
                assert not any(_accepted(s, Substitution(t, o, i), now) for o in on for i in bench)


def test_11_2_came_on_lists_who_came_on_at_this_stoppage_and_may_not_take_the_restart() -> None:
    seen = 0
    for s, now in STATES:
        legal = legal_calls(s, now)
        for t in TEAMS:
            for n in legal["came_on"][t]:
                seen += 1
                assert s.ball == "dead" and not _accepted(s, RestartTaken(t, n), now)
    assert seen > 0, "the random matches should contain substitutions at a stoppage"


def test_10_8_a_penalty_needs_its_taker_named() -> None:
    penalties = [(s, now) for s, now in STATES if s.restart is not None and s.restart.type == "penalty" and s.ball == "dead"]
    assert penalties
    for s, now in penalties:
        assert legal_calls(s, now)["taker_required"] is True
        assert s.restart is not None
        with pytest.raises(RuleViolation) as refused:
            engine.apply(s, RestartTaken(s.restart.team, None), now)
        assert refused.value.rule == "10.8"


def test_the_public_state_carries_legal() -> None:
    s, now = STATES[10]
    assert public_state(s, now, "m", 11)["legal"] == legal_calls(s, now)


def _mutables(obj: Any, path: str = "state") -> list[tuple[str, Any]]:
    """Every mutable object reachable from a state, skipping the shared, frozen setup."""
    out: list[tuple[str, Any]] = []
    if isinstance(obj, list | dict | set):
        out.append((path, obj))
        items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
        for k, v in items:
            out += _mutables(v, f"{path}[{k!r}]")
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if not obj.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            out.append((path, obj))
        for f in dataclasses.fields(obj):
            if f.name != "setup":
                out += _mutables(getattr(obj, f.name), f"{path}.{f.name}")
    return out


def test_a_state_copy_shares_no_mutable_object_with_its_original() -> None:
    for s, _ in STATES[::50]:
        clone = s.copy()
        originals = {id(o) for _, o in _mutables(s)}
        shared = [p for p, o in _mutables(clone) if id(o) in originals]
        assert not shared, shared
        assert clone == s


# -- M4 per role (issue 19, item 4): the other officials may still log the goal just logged ---------


def _legal_for(m: EngineMatch, role: str) -> dict[str, Any]:
    """What ``role``'s console is offered now: the shared ``legal``, M4's open call, resolved for the role."""
    legal = {**legal_calls(m.engine_state, m.now), "duplicates": duplicate_windows(m.log)}
    return for_role(legal, role, engine.game_time(m.engine_state, m.now))


def _goal_2_s_ago(by: str = "referee") -> EngineMatch:
    m = EngineMatch()
    m.kickoff()
    m.take()
    m.advance(5_000)
    m.post(Goal("home", 3), by=by)
    m.advance(2_000)
    return m


def test_M4_D167_goal_stays_offered_to_the_other_officials_who_may_log_it() -> None:
    m = _goal_2_s_ago("referee")
    for role in ("assistant1", "assistant2"):
        legal = _legal_for(m, role)
        assert legal["calls"]["goal"]["home"] is True, role
        assert legal["calls"]["goal"]["away"] is not True  # the other team's goal is no duplicate: 7.1
        assert legal["calls"]["restart_taken"]["away"] is True  # nothing else changes
    # The referee who logged it is not offered it again (D230 answers his second tablet), nor the scorer, who logs none.
    assert _legal_for(m, "referee")["calls"]["goal"]["home"] is not True
    assert _legal_for(m, "scorer")["calls"]["goal"]["home"] is not True
    # What is offered is what the service answers as a duplicate (M4).
    at = engine.game_time(m.engine_state, m.now)
    assert duplicate_of(m.log, "assistant1", "goal", {"team": "home"}, at) is m.log[-1]
    # An assistant's goal offers it to the referee the same way.
    n = _goal_2_s_ago("assistant1")
    assert _legal_for(n, "referee")["calls"]["goal"]["home"] is True
    assert _legal_for(n, "assistant1")["calls"]["goal"]["home"] is not True


def test_issue27_item4_M4_D230_the_same_roles_second_goal_is_the_duplicate_not_a_7_1_refusal() -> None:
    """Two tablets on one role (or one tapped twice): with nothing logged in between, a second goal of the same
    team cannot be a new goal (SPEC M4). It is the first one's duplicate, the same as from another official."""
    m = _goal_2_s_ago("referee")
    at = engine.game_time(m.engine_state, m.now)
    assert duplicate_of(m.log, "referee", "goal", {"team": "home"}, at) is m.log[-1]
    assert duplicate_of(m.log, "referee", "goal", {"team": "home", "player": 3}, at) is m.log[-1]
    # Not another team's goal, another scorer, or once the window closed: those stay the engine's to judge (7.1).
    assert duplicate_of(m.log, "referee", "goal", {"team": "away"}, at) is None
    assert duplicate_of(m.log, "referee", "goal", {"team": "home", "player": 4}, at) is None
    assert duplicate_of(m.log, "referee", "goal", {"team": "home"}, at + 8_001) is None
    # A ball out seen twice by the same assistant, the same way.
    n = EngineMatch()
    n.kickoff()
    n.take()
    out = Violation("ball_out_side", "home", None, (20.0, -1.0))
    n.post(out, by="assistant1")
    at = engine.game_time(n.engine_state, n.now)
    assert duplicate_of(n.log, "assistant1", "violation", {**out.fields(), "spot": (21.0, -1.0)}, at) is n.log[-1]
    # Its own console is not offered the goal again (the state already shows it): the answer covers the race.
    assert _legal_for(m, "referee")["calls"]["goal"]["home"] is not True


def test_M4_D167_the_window_closes_after_10_s_of_game_time_or_at_the_next_call() -> None:
    m = _goal_2_s_ago()
    window = duplicate_windows(m.log)
    assert [(w["call"], w["team"], w["by"], w["seq"]) for w in window] == [("goal", "home", "referee", m.seq)]
    m.advance(8_000)  # 10 s after the goal: still open
    assert _legal_for(m, "assistant1")["calls"]["goal"]["home"] is True
    m.advance(1)
    assert _legal_for(m, "assistant1")["calls"]["goal"]["home"] is not True
    n = _goal_2_s_ago()
    n.take()  # the kickoff: play goes on, the goal is no longer the last call
    assert duplicate_windows(n.log) == []
    assert _legal_for(n, "assistant1")["calls"] == legal_calls(n.engine_state, n.now)["calls"]  # the engine's alone


def test_M4_D167_a_paused_clock_holds_the_window_open() -> None:
    """The referee stops the clock at the goal: the pause is not a call between (D167) and game time stands."""
    m = _goal_2_s_ago()
    m.post(ClockChange("pause"))
    m.advance(60_000)
    legal = _legal_for(m, "assistant2")
    assert legal["calls"]["goal"]["home"] is True
    at = engine.game_time(m.engine_state, m.now)
    assert duplicate_of(m.log, "assistant2", "goal", {"team": "home", "player": 3}, at) is not None
    m.post(ClockChange("resume"))
    m.advance(8_000)
    assert _legal_for(m, "assistant2")["calls"]["goal"]["home"] is True
    m.advance(1)
    assert _legal_for(m, "assistant2")["calls"]["goal"]["home"] is not True


def test_M4_D167_a_ball_out_stays_offered_to_the_other_assistant() -> None:
    m = EngineMatch()
    m.kickoff()
    m.take()
    m.post(Violation("ball_out_side", "home", None, (20.0, -1.0)), by="assistant1")
    assert _legal_for(m, "assistant2")["calls"]["ball_out_side"]["home"] is True
    assert _legal_for(m, "assistant2")["calls"]["ball_out_end"]["home"] is not True
    assert _legal_for(m, "scorer")["calls"]["ball_out_side"]["home"] is not True


def test_D169_refusals_because_the_ball_is_dead_or_live_name_the_call_to_log_first() -> None:
    """The console's hint comes from the engine (``next_call``), not from the English text."""
    m = _goal_2_s_ago()
    reasons = {r["rule"]: r for r in _legal_for(m, "referee")["reasons"]}
    assert reasons["7.1"]["next_call"] == "restart_taken"  # a goal while the kickoff is pending
    m.take()
    legal = legal_calls(m.engine_state, m.now)
    refusal = legal["reasons"][legal["calls"]["restart_taken"]["home"]]
    assert refusal["rule"] == "10.1" and refusal["next_call"] == "stoppage"


def test_D39_legal_judges_a_representative_event_so_an_allowed_call_may_still_be_refused_for_a_player() -> None:
    """D39: the console greys a call before the player is chosen, so ``legal`` asks the engine with a
    representative event (no scorer for a goal); the engine still refuses a particular player when posted."""
    m = EngineMatch()
    m.kickoff("home", "x0")
    m.take()
    legal = legal_calls(m.engine_state, m.now)
    assert legal["calls"]["goal"]["home"] is True
    m.refused(Goal("home", 9), "7.1")  # allowed as a call, refused for a player on the bench
    assert m.post(Goal("home", 3))["score"]["home"] == 1


# -- How a call is asked for (issue 21, item 2): the engine answers, the call builder holds no rule -----


def _refused_without_spot(s: MatchState, event: Event, now: int) -> bool:
    try:
        engine.check_references(s, event)
        engine.apply(s, event, now)
    except InvalidEvent as bad:
        return "spot" in bad.fields
    except RuleViolation:
        return False
    return False


def test_legal_spot_required_exactly_when_the_engine_refuses_an_allowed_call_without_a_spot() -> None:
    """``legal.spot``: "required" where the engine refuses the call without a spot for a team it allows,
    and such a call is never left out (the console would send it without one and be refused)."""
    required = 0
    for s, now in STATES[::2]:
        legal = legal_calls(s, now)
        for call, make in spot_calls(s).items():
            allowed = [t for t in TEAMS if legal["calls"][call][t] is True]
            needs = any(_refused_without_spot(s, make(t), now) for t in allowed if s.teams[t].on_field or call != "injury")
            required += needs
            assert (legal["spot"].get(call) == "required") == needs, (call, legal["spot"])
    assert required > 0


def test_9_1_10_6_a_foul_during_play_is_placed_at_a_dead_ball_it_is_not() -> None:
    """During play a foul gives a free kick where it happened (10.6): the spot is required. At a pending
    restart the restart stays where it is (9.2, D12): no tap is asked."""
    m = EngineMatch()
    m.kickoff()
    assert "foul" not in legal_calls(m.engine_state, m.now)["spot"]  # the kickoff is pending
    m.take()
    spot = legal_calls(m.engine_state, m.now)["spot"]
    assert spot["foul"] == "required" and spot["injury"] == "required" and spot["ball_out_side"] == "required"


def test_13_1_a_missed_shot_during_play_offers_its_spot_and_8_7_a_restart_violation_never_asks() -> None:
    """A missed shot is accepted without a spot, but where it was lets 13.1 forgive it: the spot is
    offered ("optional") while the ball is in play. A restart violation gives the other team the same
    restart at its own spot (8.7): never asked."""
    m = EngineMatch()
    m.kickoff()
    m.take()
    spot = legal_calls(m.engine_state, m.now)["spot"]
    assert spot["shot_missed"] == "optional"
    assert legal_calls(m.engine_state, m.now)["calls"]["restart"]["home"] is True  # just taken: a breach may be called
    assert "restart" not in spot


def test_3_1_D21_after_time_up_no_call_asks_for_a_spot() -> None:
    """Time up (3.1): play is over, a foul only counts for its card (D21); nothing is placed on the field."""
    m = EngineMatch()
    m.kickoff()
    m.take()
    m.advance(m.state()["clock"]["length_ms"])
    spot = legal_calls(m.engine_state, m.now)["spot"]
    assert "foul" not in spot and "shot_missed" not in spot and "injury" not in spot


def test_9_3_D5_may_be_carded_is_everyone_the_engine_shows_a_card_to() -> None:
    """9.3: a card goes to a player on the field or on the bench; D5: never to one sent off. Held against
    the engine on random matches: a listed player is accepted, any other on the roster is refused."""
    checked = 0
    for s, now in STATES[::5]:
        legal = legal_calls(s, now)
        for t in TEAMS:
            if legal["calls"]["yellow"][t] is not True:
                continue
            for n in s.teams[t].roster:
                checked += 1
                assert _accepted(s, Card(t, n, "yellow"), now) == (n in legal["may_be_carded"][t]), (t, n)
    assert checked > 0


def test_9_3_a_substitute_may_be_carded_D5_a_sent_off_player_not() -> None:
    m = EngineMatch()
    m.kickoff()
    m.post(Card("home", 2, "red"))
    may = legal_calls(m.engine_state, m.now)["may_be_carded"]
    assert 9 in may["home"] and 9 not in m.engine_state.teams["home"].on_field  # on the bench
    assert 2 not in may["home"]
    assert may["away"] == list(range(1, 11))


def test_V1_no_cards_in_rule_book_1_0_nobody_may_be_carded() -> None:
    m = EngineMatch(demo_setup(rules=RuleSet(rule_set="1.0")))
    m.kickoff()
    assert legal_calls(m.engine_state, m.now)["may_be_carded"] == {"home": [], "away": []}


def test_M3_7_2_note_a_goal_is_disallowed_by_amending_it_into_the_call_legal_names() -> None:
    """SPEC M3: a disallowed goal (4.3, 7.2 note) is an amend of the goal into the call that voids it; the
    console asks ``legal.disallowed_goal`` which call that is, and the amend takes the goal away."""
    m = EngineMatch()
    m.kickoff("home", "x0")
    m.take()
    m.post(Goal("home", 3))
    goal = m.seq
    call = legal_calls(m.engine_state, m.now)["disallowed_goal"]
    assert call == "player_in_area"
    # A home attacker in away's area (away defends the right end, xL, in the first half).
    state = m.correct(
        "amend",
        {
            "target": goal,
            "event": {"type": "violation", "kind": call, "team": "home", "player": 3, "spot": {"x": 38.0, "y": 12.5}},
        },
    )
    assert state["score"]["home"] == 0
    assert state["restart"]["team"] == "away"
