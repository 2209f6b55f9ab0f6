"""Playing a competition's matches through the events API, as the officials' tablets would (tests only).

Works with the Flask test client and with the real server (browser tests): the caller gives ``post``
(token, event -> answer) and ``state`` (-> public state). Halves end by setting the clock to time up,
so no test waits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Post = Callable[[str, dict[str, Any]], dict[str, Any]]
State = Callable[[], dict[str, Any]]


def play(
    post: Post,
    state: State,
    tokens: dict[str, str],
    goals: Sequence[str] = (),
    second_half_goals: Sequence[str] = (),
    shootout_winner: str | None = None,
    cards: Sequence[tuple[str, int, str]] = (),
) -> dict[str, Any]:
    """Play a whole match: ``goals`` (sides, in order) in the first half, cards shown in it, then time up;
    a level score goes to a shootout that ``shootout_winner`` wins (every kick of the winner scores,
    every kick of the loser misses). Returns the final state."""
    ref, scorer = tokens["referee"], tokens["scorer"]
    post(ref, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    for half, scoring in ((1, goals), (2, second_half_goals)):
        post(ref, {"type": "period_start"})
        for side in scoring:
            _take(post, state, ref)
            on = state()["teams"][side]["on_field"]
            post(ref, {"type": "goal", "team": side, "player": on[0]})
        if half == 1:
            for side, player, color in cards:
                post(ref, {"type": "card", "team": side, "player": player, "color": color})
        length = state()["clock"]["length_ms"]
        post(scorer, {"type": "clock", "action": "set", "elapsed_ms": length})
        post(ref, {"type": "period_end"})
    s = state()
    if s["phase"] == "shootout":
        assert shootout_winner is not None, "a level match needs a shootout winner"
        takers = {t: [n for n in s["teams"][t]["on_field"] if n not in s["teams"][t]["sent_off"]][:4] for t in ("home", "away")}
        post(ref, {"type": "shootout_start", "first": "home", "takers": takers})
        while (s := state())["phase"] == "shootout":
            nxt = s["shootout"]["next"]
            post(ref, {"type": "shootout_kick", "team": nxt["team"], "scored": nxt["team"] == shootout_winner})
    assert s["phase"] == "finished", s["phase"]
    return s


def _take(post: Post, state: State, ref: str) -> None:
    s = state()
    if s["restart"] is not None:
        team = s["restart"]["team"]
        post(ref, {"type": "restart_taken", "team": team, "player": s["teams"][team]["on_field"][0]})


def roster(prefix: str, n: int = 8) -> list[dict[str, Any]]:
    return [{"number": i, "name": f"{prefix} {i}"} for i in range(1, n + 1)]
