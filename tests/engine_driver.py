"""Officiate a match against the rule core itself: no server, no database, no schemas.

The rule story tests (tests/test_rules_*.py) use this driver. It does what the service does with a
well-formed event and nothing more: check the shirt numbers it names (``check_references``), then
``engine.apply`` at a hand-driven server time ``now``; a correction replays the log with it in place
(``engine.correct``). What the tests read is the public state of API.md (``view.public_state``), so
their assertions read as the API tests' do. Everything about HTTP (tokens, roles, 400 bodies,
idempotency, the stored log) is tested in tests/test_api.py.

Nothing here may import Flask, SQLite, marshmallow or the service (tests/test_story_isolation.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest

from qalisball.rules.common import End, Team
from qalisball.rules.engine import apply, check_references, correct, game_time
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.events import CoinToss, Event, PeriodEnd, PeriodStart, RestartTaken
from qalisball.rules.field import Field
from qalisball.rules.state import MatchSetup, MatchState, MultiAttackRules, Player, RuleSet, TeamSetup, initial_state
from qalisball.rules.view import public_state

START_MS = 1_800_000_000_000  # the same start as conftest's FakeClock


def demo_setup(
    field: Field | None = None, multi_attack: MultiAttackRules | None = None, rules: RuleSet | None = None
) -> MatchSetup:
    """The demo match of qalisball/server/demo.py as the rule core sees it: 40 × 25 m with side lines,
    shirts 1–10 a side, 1–6 starting, the default rule set (30-minute halves, 10-minute half-time,
    four shootout rounds, no multiple attack opportunities)."""

    def team(name: str, color: str) -> TeamSetup:
        players = tuple(Player(n, f"{name} {n}") for n in range(1, 11))
        return TeamSetup(name, color, players, (1, 2, 3, 4, 5, 6))

    if rules is None:
        rules = RuleSet()
    if multi_attack is not None:
        rules = dataclasses.replace(rules, multi_attack=multi_attack)
    return MatchSetup(
        home=team("Renmin", "#b71c1c"),
        away=team("Tsinghua", "#4a148c"),
        starters=6,
        field=field or Field(40, 25, True),
        rules=rules,
    )


@dataclass(frozen=True)
class Row:
    """One accepted event as the engine's replay reads it (``engine.Logged``)."""

    seq: int
    type: str
    fields: dict[str, Any]
    received_ms: int
    voided_by: int | None = None
    at_ms: int | None = None  # the game time it happened (M1); the service stores the clock's when none is given
    by: str = "referee"


class EngineMatch:
    """One match officiated by calling the engine directly; ``now`` is server ms, moved by hand."""

    def __init__(self, setup: MatchSetup | None = None) -> None:
        self.setup = setup or demo_setup()
        self.now = START_MS
        self.engine_state: MatchState = initial_state(self.setup)
        self.log: list[Row] = []

    @property
    def seq(self) -> int:
        return len(self.log)

    def advance(self, ms: int) -> None:
        self.now += ms

    def state(self) -> dict[str, Any]:
        """The public state of API.md at ``now``."""
        return public_state(self.engine_state, self.now, "m", self.seq)

    def post(self, event: Event, at_ms: int | None = None, by: str = "referee") -> dict[str, Any]:
        """Apply an event the rules allow; return the public state after it (the API's ``state``).

        ``at_ms`` is the game time it happened (M1), as a tablet stamps a call made a little late.
        """
        check_references(self.engine_state, event)  # a shirt number not on the roster: InvalidEvent (HTTP 400)
        stored_at = at_ms if at_ms is not None else game_time(self.engine_state, self.now)
        self.engine_state = apply(self.engine_state, event, self.now, at_ms)
        self.log.append(Row(self.seq + 1, event.type, event.fields(), self.now, at_ms=stored_at, by=by))
        return self.state()

    def correct(self, kind: str, fields: dict[str, Any], by: str = "referee") -> dict[str, Any]:
        """A correction (``void``, ``amend`` or ``insert``, SPEC D8 and M3): the state is the replay with it in place."""
        row = Row(self.seq + 1, kind, fields, self.now, at_ms=game_time(self.engine_state, self.now), by=by)
        self.engine_state, log = correct(self.engine_state, self.log, row)
        self.log = [*log, row]
        return self.state()

    def correction_refused(self, kind: str, fields: dict[str, Any], rule: str = "D8", by: str = "referee") -> RuleViolation:
        """A correction the rules refuse: nothing changes."""
        before, log = self.engine_state.copy(), list(self.log)
        with pytest.raises(RuleViolation) as refusal:
            self.correct(kind, fields, by)
        assert refusal.value.rule == rule, refusal.value
        assert self.engine_state == before and self.log == log
        return refusal.value

    def refused(self, event: Event, rule: str, at_ms: int | None = None) -> RuleViolation:
        """``event`` is refused naming ``rule``, and the match is exactly as it was."""
        before, seq = self.engine_state.copy(), self.seq
        with pytest.raises(RuleViolation) as refusal:
            self.post(event, at_ms)
        assert refusal.value.rule == rule, refusal.value
        assert self.engine_state == before and self.seq == seq, "a refusal changes nothing"
        return refusal.value

    def invalid(self, event: Event, field: str) -> InvalidEvent:
        """``event`` names something the match does not have (``field``), and nothing changes."""
        before, seq = self.engine_state.copy(), self.seq
        with pytest.raises(InvalidEvent) as bad:
            self.post(event)
        assert field in bad.value.fields, bad.value.fields
        assert self.engine_state == before and self.seq == seq
        return bad.value

    def void(self, target: int) -> dict[str, Any]:
        """Void event ``target`` (SPEC D8): the state is the replay of the log without it."""
        return self.correct("void", {"target": target, "reason": ""})

    def void_refused(self, target: int) -> RuleViolation:
        """Voiding ``target`` would make a later event illegal: refused citing D8, nothing changes."""
        return self.correction_refused("void", {"target": target, "reason": ""})

    # -- the steps most stories start with (the vocabulary of conftest's MatchDriver) ------------

    def kickoff(self, kickoff: Team = "home", home_end: End = "x0") -> dict[str, Any]:
        """Coin toss and first half started: the kickoff is pending."""
        self.post(CoinToss(kickoff, home_end))
        return self.post(PeriodStart())

    def take(self, player: int | None = None) -> dict[str, Any]:
        """The pending restart taken by its team (first on-field player unless named)."""
        restart = self.engine_state.restart
        assert restart is not None, "no restart is pending"
        if player is None:
            player = self.engine_state.teams[restart.team].on_field[0]
        return self.post(RestartTaken(restart.team, player))

    def run_out_half(self) -> dict[str, Any]:
        clock = self.state()["clock"]
        self.advance(clock["length_ms"] - clock["elapsed_ms"])
        return self.post(PeriodEnd())
