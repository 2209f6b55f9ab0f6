"""What the console's offline forecast shows of a waiting call, as the engine rules it (issue 28 item 6, D340).

While calls wait in the console's queue the page shows a forecast (the console's forecast script). What a
card does to a player (9.3: a yellow cautions, a second yellow or a red sends off; none in a rule book
without cards) and where a half's start or end leads (3.1, 3.2, 12) are rules: the script holds none of
them. ``forecast_rules(setup)`` asks the engine once per match, by trial on representative states (as
``legal_calls`` does), and the console's page data carries the answer:

- ``cards``: the player's standing (``clean``, ``yellow``, ``sent_off``) → the card's colour → the
  standing after it, or ``None`` where the engine refuses the card (the forecast leaves it to be ruled).
- ``phases``: the phase → ``period_start`` or ``period_end`` → ``{"phase", "period", "clock"}`` after it
  (``clock``: the public state's ``running`` and ``length_ms``; ``ends_switch``: the ends change, shown
  once the server says so). ``phase`` is ``None`` where the engine's answer depends on what the forecast
  cannot know (the end of the second half: a level score goes to the shootout, 3.2): the page keeps the
  phase, stops the clock and leaves it to be ruled. A call not listed for a phase is refused there.
"""

from __future__ import annotations

from typing import Any, Literal

from . import engine
from .errors import InvalidEvent, RuleViolation
from .events import Card, CardColor, CoinToss, Event, PeriodEnd, PeriodStart
from .state import MatchSetup, MatchState, initial_state

Standing = Literal["clean", "yellow", "sent_off"]
STANDINGS: tuple[Standing, ...] = ("clean", "yellow", "sent_off")
COLORS: tuple[CardColor, ...] = ("yellow", "red")
START_MS = 0


def forecast_rules(setup: MatchSetup) -> dict[str, Any]:
    """The engine's answers the forecast reads (module docstring), for ``setup``'s rule book and lengths."""
    return {"cards": _cards(setup), "phases": _phases(setup)}


def _try(state: MatchState, event: Event, now: int) -> MatchState | None:
    try:
        return engine.decide(state, event, now).state  # the one road into the rules (issue 28 item 2)
    except (RuleViolation, InvalidEvent):
        return None


def _standing(state: MatchState, player: int) -> Standing:
    ts = state.teams["home"]
    return "sent_off" if player in ts.sent_off else "yellow" if player in ts.yellow else "clean"


def _cards(setup: MatchSetup) -> dict[str, dict[str, Standing | None]]:
    """Each standing's card outcomes, tried on a home player on the field in the first half."""
    playing = _first_half(setup)
    player = playing.teams["home"].on_field[0]
    table: dict[str, dict[str, Standing | None]] = {}
    for standing in STANDINGS:
        before = _with_standing(playing, player, standing)
        row: dict[str, Standing | None] = {}
        for color in COLORS:
            after = None if before is None else _try(before, Card("home", player, color), START_MS)
            row[color] = None if after is None else _standing(after, player)
        table[standing] = row
    return table


def _with_standing(state: MatchState, player: int, standing: Standing) -> MatchState | None:
    """``state`` with ``player`` brought to ``standing`` by the engine's own cards (None: no card can)."""
    if standing == "clean":
        return state
    for color in COLORS:
        after = _try(state, Card("home", player, color), START_MS)
        if after is not None and _standing(after, player) == standing:
            return after
    return None


def _first_half(setup: MatchSetup) -> MatchState:
    tossed = _try(initial_state(setup), CoinToss("home", "x0"), START_MS)
    assert tossed is not None
    started = _try(tossed, PeriodStart(), START_MS)
    assert started is not None
    return started


def _phases(setup: MatchSetup) -> dict[str, dict[str, dict[str, Any]]]:
    """A match's halves walked through by the engine: each phase's start or end and where it leads."""
    from .view import public_state  # view imports legal; this module is imported by pages only

    table: dict[str, dict[str, dict[str, Any]]] = {}
    state = _try(initial_state(setup), CoinToss("home", "x0"), START_MS)
    now = START_MS
    for _ in range(4):  # the first half, half-time, the second half, its end
        if state is None:
            break
        before = public_state(state, now, "", 0, legal=False)
        call, event = (
            ("period_end", PeriodEnd()) if state.phase in ("first_half", "second_half") else ("period_start", PeriodStart())
        )
        if call == "period_end":
            now += state.clock.length_ms  # the end of a half is called when its time is up (3.1)
        after = _try(state, event, now)
        if after is None:
            break
        view = public_state(after, now, "", 0, legal=False)
        phase: str | None = after.phase
        if call == "period_end":
            other = state.copy()
            other.score["home"] += 1  # the same end with the score not level
            decided = _try(other, event, now)
            if decided is None or decided.phase != after.phase:
                phase = None
        table.setdefault(state.phase, {})[call] = {
            "phase": phase,
            "period": after.period if phase is not None else None,
            "clock": {"running": view["clock"]["running"], "length_ms": view["clock"]["length_ms"]},
            "ends_switch": view["ends"] != before["ends"],
        }
        state = after
    return table
