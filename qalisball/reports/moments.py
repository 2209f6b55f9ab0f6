"""The replay the report reads: each effective event with what the engine ruled on it, and snapshots.

``replay_moments`` runs the engine's one replay (``engine.replay_steps``: the effective log, every
correction's event in its place, SPEC D8 and M3) with one state changed in place, and keeps for each
event its rulings (``rules/rulings.py``: restarts awarded and why, errors forgiven, penalties converted,
sendings-off, …) and a small snapshot of the state on either side (cheaper than a whole state per
event, bench/README.md): the phase and game clock, the score, possession, who is on the field, fouls.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from qalisball.storage.store import LogEntry

from ..rules import engine
from ..rules.common import Team
from ..rules.events import Event
from ..rules.rulings import Ruling
from ..rules.state import Clock, MatchSetup, MatchState, initial_state

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class TeamSnapshot:
    on_field: tuple[int, ...]
    fouls: dict[int, int]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the report reads of a state, copied as the replay goes."""

    phase: str
    period: int
    possession: Team | None
    score: dict[Team, int]
    clock: Clock
    teams: dict[Team, TeamSnapshot]

    @classmethod
    def of(cls, s: MatchState) -> Snapshot:
        c = s.clock
        return cls(
            s.phase,
            s.period,
            s.possession,
            dict(s.score),
            Clock(c.length_ms, c.running, c.base_ms, c.anchor_ms),
            {t: TeamSnapshot(tuple(ts.on_field), dict(ts.fouls)) for t, ts in s.teams.items()},
        )


@dataclass(frozen=True, slots=True)
class Moment:
    """One effective event of the replay: its log row, the event, the engine's rulings, the states around it."""

    entry: LogEntry
    event: Event
    rulings: tuple[Ruling, ...]
    before: Snapshot
    after: Snapshot

    def ruled(self, kind: type[R]) -> R | None:
        """The first ruling of ``kind`` the engine made on this event, if any."""
        return next((r for r in self.rulings if isinstance(r, kind)), None)


def replay_moments(setup: MatchSetup, log: Iterable[LogEntry]) -> tuple[list[Moment], MatchState]:
    """Every effective event with its rulings and the states on either side of it, and the final state."""
    state = initial_state(setup)
    before = Snapshot.of(state)
    moments: list[Moment] = []
    for st in engine.replay_steps(setup, log, keep_states=False):
        state = st.after
        after = Snapshot.of(state)
        moments.append(Moment(st.entry, st.event, st.rulings, before, after))
        before = after
    return moments, state
