"""The rule questions the call builder asks besides "may this be called now" (issue 21, item 2).

``legal_calls`` (legal.py) says which calls the engine allows; these say how a call is asked for, so
the console holds no rule of its own:

- ``spot_asked``: which calls want a tap on the field now — ``"required"`` when the engine refuses the
  call without a spot (a violation, a foul or an injury during play: the restart is given where it
  happened), ``"optional"`` when it is accepted without one but the ball is in play (where a missed
  shot was lets 13.1 forgive it; the reports draw it) — never for a restart violation, given at the
  restart's own spot (8.7). Asked of the engine itself, with the call's representative event and no spot.
- ``may_be_carded``: who may be shown a card (9.3: a player on the field or on the bench; D5: nobody
  sent off; none at all in a rule book without cards).
- ``disallowed_goal_call``: the call a disallowed goal is amended into (SPEC M3; 4.3, 7.2 note).

The shapes are documented in docs/api-extras.md ("What may be called now").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from . import engine
from .catalogue import CATALOGUE, EventType
from .common import TEAMS, Team
from .errors import InvalidEvent, RuleViolation
from .events import Event
from .state import HALVES, MatchState

SpotAsk = Literal["required", "optional"]

# SPEC M3: "a disallowed goal (4.3, 7.2 note) is an amend of the goal into the call that voids it": an
# attacker in the area before the bottle lay flat. 1.0 has no 7.2 note but disallows a goal the same way
# (SPEC §11), and the calls keep their names in every book (V1-D16).
DISALLOWED_GOAL_CALL = "player_in_area"
# A restart violation is about the restart being taken: the other team's restart is given at that
# restart's own spot (8.7), so where the breach happened is never asked.
AT_ITS_OWN_SPOT = frozenset({"restart"})


def in_play(state: MatchState, now: int) -> bool:
    """The ball is in play in a half whose time is not up: a call then stops play where it happened."""
    return state.phase in HALVES and state.ball == "live" and not engine.time_up(state, now)


def spot_asked(state: MatchState, now: int, allowed: Callable[[str, Team], bool]) -> dict[str, SpotAsk]:
    """Per console call with a spot field: whether the builder asks for a tap on the field now.

    ``allowed(call, team)``: ``legal``'s verdict; only an allowed call is tried (a refused one is not
    built). A call not in the answer is sent without a spot (the engine gives the restart's own).
    """
    playing = in_play(state, now)
    asked: dict[str, SpotAsk] = {}
    for call, make in spot_calls(state).items():
        for team in TEAMS:
            if not allowed(call, team):
                continue
            answer = _without_spot(state, now, make, team)
            if answer == "refused":
                continue
            if answer == "needs_spot":
                asked[call] = "required"
            elif playing and call not in AT_ITS_OWN_SPOT:
                asked[call] = "optional"
            break
    return asked


def may_be_carded(state: MatchState, team: Team) -> list[int]:
    """9.3: a card goes to a player on the field or on the bench; D5: never to one already sent off."""
    if not state.setup.rules.book.cards:
        return []
    ts = state.teams[team]
    return sorted(n for n in ts.roster if n not in ts.sent_off)


def disallowed_goal_call(state: MatchState) -> str:
    """The console call a goal is amended into when the referee disallows it (M3)."""
    return DISALLOWED_GOAL_CALL


def spot_calls(state: MatchState) -> dict[str, Callable[[Team], Event]]:
    """Each console call whose event has a spot, and its representative event for a team, without one."""
    out: dict[str, Callable[[Team], Event]] = {}
    for et in CATALOGUE:
        if not any(p.kind == "spot" for p in et.params):
            continue
        if not et.variants:
            out[et.type] = _maker(state, et, None)
        for v in et.variants:
            out[v.name] = _maker(state, et, v.name)
    return out


def _maker(state: MatchState, et: EventType, variant: str | None) -> Callable[[Team], Event]:
    def make(team: Team) -> Event:
        kwargs: dict[str, Any] = {"team": team}
        if et.variant_param and variant:
            kwargs[et.variant_param] = variant
        on_field = state.teams[team].on_field
        for p in et.params:
            if p.kind == "player" and p.required and on_field:
                kwargs[p.name] = on_field[0]  # a player the call may name (an injured player is on the field)
        return et.event(**kwargs)

    return make


def _without_spot(
    state: MatchState, now: int, make: Callable[[Team], Event], team: Team
) -> Literal["accepted", "needs_spot", "refused"]:
    try:
        event = make(team)
        engine.decide(state, event, now)
    except RuleViolation:
        return "refused"
    except InvalidEvent as exc:
        return "needs_spot" if "spot" in exc.fields else "refused"
    except TypeError:
        return "refused"  # a required field the representative event cannot fill (nobody on the field)
    return "accepted"
