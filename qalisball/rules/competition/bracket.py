"""Knockout fixtures fill themselves (SPEC C2): a place named "winner of fixture 13" or "A1" becomes a
team once that fixture has a winner (a shootout winner included) or that group is over.

A group's rank is known once every fixture of the group has a result and C3's chain (with any lots
drawn) separates that rank from the next: a tie still waiting for lots leaves the place empty.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .schedule import Planned, Source
from .standings import Row

Teams = tuple[str | None, str | None]


def known_ranks(rows: Sequence[Row], over: bool) -> dict[int, str]:
    """Rank → team for a group that is over; shared ranks (a tie awaiting lots) are left out."""
    if not over:
        return {}
    counts: dict[int, int] = {}
    for r in rows:
        counts[r.rank] = counts.get(r.rank, 0) + 1
    return {r.rank: r.team for r in rows if counts[r.rank] == 1}


def fill(
    fixtures: Sequence[Planned],
    fixed: Mapping[int, Teams],
    group_ranks: Mapping[str, Mapping[int, str]],
    winner: Callable[[Planned, Teams], str | None],
) -> dict[int, Teams]:
    """The teams of every fixture, in number order (a winner's fixture always comes before).

    ``fixed`` holds the teams of fixtures whose match exists (copied when it was made, C1: they no
    longer change); ``winner`` says who won a fixture with these teams, or None while nobody has.
    """
    winners: dict[int, str] = {}
    losers: dict[int, str] = {}
    out: dict[int, Teams] = {}
    for f in sorted(fixtures, key=lambda f: f.number):
        teams = fixed.get(f.number) or (_team(f.home, winners, group_ranks, losers), _team(f.away, winners, group_ranks, losers))
        out[f.number] = teams
        w = winner(f, teams)
        if w is not None:
            winners[f.number] = w
            lost = [t for t in teams if t is not None and t != w]
            if len(lost) == 1:
                losers[f.number] = lost[0]
    return out


def changed(
    fixtures: Sequence[Planned],
    fixed: Mapping[int, Teams],
    group_ranks: Mapping[str, Mapping[int, str]],
    winners: Mapping[int, str],
    losers: Mapping[int, str] | None = None,
) -> dict[int, list[str]]:
    """Fixtures whose match was made with a team its place no longer names (a result corrected or decided
    since): number -> the sides ("home", "away") that differ. The match keeps its teams (C1); the
    organiser decides (a protest decision, a replay)."""
    out: dict[int, list[str]] = {}
    for f in fixtures:
        teams = fixed.get(f.number)
        if not teams:
            continue
        for side, s, team in (("home", f.home, teams[0]), ("away", f.away, teams[1])):
            now = _team(s, winners, group_ranks, losers or {})
            if now is not None and team is not None and now != team:
                out.setdefault(f.number, []).append(side)
    return out


def _team(s: Source, winners: Mapping[int, str], ranks: Mapping[str, Mapping[int, str]], losers: Mapping[int, str]) -> str | None:
    if s.team is not None:
        return s.team
    if s.winner_of is not None:
        return winners.get(s.winner_of)
    if s.loser_of is not None:
        return losers.get(s.loser_of)
    if s.group is not None and s.rank is not None:
        return ranks.get(s.group, {}).get(s.rank)
    return None
