"""The schedule of a competition (SPEC C2): who plays whom, in which round, on which field, in which slot.

- Round robins use the circle method (Berger tables): one team stays, the others turn, so that in
  every round each team plays at most once; an odd number of teams gets a bye each round ("1vs2 /
  1vs3 / … / 5vs6" is the same set of pairings, listed by team). A double round robin plays the same
  rounds again with home and away swapped.
- Groups then knockout: teams are dealt into groups in the order given (serpentine, so seeds spread),
  each group plays a round robin, and the best ``advance`` of each group meet crossed (A1–B2, B1–A2, …).
- Knockout: the teams in the order given are the seeds; a bracket of the next power of two, byes for
  the top seeds, seeds 1 and 2 in opposite halves.
- Time: fixtures are put into slots (one per field per slot), earliest first, keeping each team's
  order of rounds and never two matches of one team in a slot; a knockout round starts after the slot
  of the last match it depends on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Format = Literal["round_robin", "double_round_robin", "groups_knockout", "knockout"]
FORMATS: tuple[Format, ...] = ("round_robin", "double_round_robin", "groups_knockout", "knockout")
GROUP_NAMES = "ABCDEFGHIJKLMNOP"


class PlanError(ValueError):
    """A competition that cannot be scheduled as asked: ``field`` names the request field (a 400)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


@dataclass(frozen=True)
class Source:
    """Who takes a fixture's home or away place: a team known now, a fixture's winner or loser (the
    third-place match, D76), or a group's rank."""

    team: str | None = None
    winner_of: int | None = None  # a fixture's number
    group: str | None = None
    rank: int | None = None
    loser_of: int | None = None  # a fixture's number: its loser (a semi-final's, for third place)

    def to_dict(self) -> dict[str, Any]:
        if self.team is not None:
            return {"team": self.team}
        if self.winner_of is not None:
            return {"winner_of": self.winner_of}
        if self.loser_of is not None:
            return {"loser_of": self.loser_of}
        return {"group": self.group, "rank": self.rank}

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Source:
        return Source(d.get("team"), d.get("winner_of"), d.get("group"), d.get("rank"), d.get("loser_of"))

    def label(self) -> str:
        """How a bracket names an unknown team: "A1", "W7" (the winner of fixture 7), "L5" (its loser)."""
        if self.team is not None:
            return self.team
        if self.winner_of is not None:
            return f"W{self.winner_of}"
        if self.loser_of is not None:
            return f"L{self.loser_of}"
        return f"{self.group}{self.rank}"


@dataclass(frozen=True)
class Planned:
    """One fixture of the plan. ``number`` is 1-based and orders the fixtures; ``field`` indexes the fields."""

    number: int
    round: int
    group: str | None
    stage: str
    slot: int
    field: int
    home: Source
    away: Source


@dataclass(frozen=True)
class Bye:
    round: int
    team: str


@dataclass(frozen=True)
class Plan:
    fixtures: tuple[Planned, ...]
    byes: tuple[Bye, ...]
    groups: tuple[tuple[str, tuple[str, ...]], ...]  # (name, teams) in order; one group "" for a league


# ---------------------------------------------------------------------------------------------
# Entry point


def plan(fmt: Format, teams: Sequence[str], fields: int, groups: int = 2, advance: int = 2, third_place: bool = False) -> Plan:
    """The whole schedule of a competition. Raises ``PlanError`` for a format the teams cannot fill.

    ``third_place``: a knockout with semi-finals adds a match of their losers, played before the final (D76).
    """
    if fields < 1:
        raise PlanError("fields", "at least one field is needed")
    if len(set(teams)) != len(teams):
        raise PlanError("teams", "a team is listed twice")
    if len(teams) < 2:
        raise PlanError("teams", "at least two teams are needed")
    if fmt in ("round_robin", "double_round_robin"):
        rounds = circle_rounds(teams)
        if fmt == "double_round_robin":
            rounds = rounds + [([(a, h) for h, a in pairs], bye) for pairs, bye in rounds]
        games = [_Game(r + 1, None, "group", h, a) for r, (pairs, _) in enumerate(rounds) for h, a in pairs]
        byes = tuple(Bye(r + 1, bye) for r, (_, bye) in enumerate(rounds) if bye is not None)
        return _finish(games, [], byes, (("", tuple(teams)),), fields)
    if fmt == "knockout":
        games, knockout, ko_byes = _knockout_from_seeds([Source(team=t) for t in teams], first_round=1, third_place=third_place)
        return _finish(games, knockout, tuple(ko_byes), (), fields)
    if fmt == "groups_knockout":
        return _groups_knockout(teams, fields, groups, advance, third_place)
    raise PlanError("format", f"unknown format {fmt!r}")


def circle_rounds(teams: Sequence[str]) -> list[tuple[list[tuple[str, str]], str | None]]:
    """A single round robin by the circle method: each round's (home, away) pairs and its bye.

    The first team stays put and alternates home and away; in the other pairs the team in the first
    half of the circle is at home. Every team's home and away counts then differ by at most one.
    """
    circle: list[str | None] = [*teams, None] if len(teams) % 2 else list(teams)
    m = len(circle)
    rounds: list[tuple[list[tuple[str, str]], str | None]] = []
    for r in range(m - 1):
        pairs: list[tuple[str, str]] = []
        bye: str | None = None
        for i in range(m // 2):
            a, b = circle[i], circle[m - 1 - i]
            if a is None or b is None:
                bye = b if a is None else a
                continue
            if i == 0 and r % 2 == 1:
                a, b = b, a
            pairs.append((a, b))
        rounds.append((pairs, bye))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds


def seeding_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a power-of-two ``size``: 1 and 2 meet only in the final.

    >>> seeding_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def stage_name(teams_in_round: int) -> str:
    return {2: "final", 4: "semi_final", 8: "quarter_final"}.get(teams_in_round, f"round_of_{teams_in_round}")


def split_groups(teams: Sequence[str], groups: int) -> list[list[str]]:
    """Deal the teams into groups in serpentine order (A B B A A B …): seeds 1 and 2 in different groups."""
    out: list[list[str]] = [[] for _ in range(groups)]
    for i, t in enumerate(teams):
        row, col = divmod(i, groups)
        out[col if row % 2 == 0 else groups - 1 - col].append(t)
    return out


# ---------------------------------------------------------------------------------------------
# Formats


@dataclass
class _Game:
    round: int
    group: str | None
    stage: str
    home: Source | str
    away: Source | str
    after: tuple[int, ...] = ()  # indexes of the games whose results it needs

    def source(self, which: str) -> Source:
        s = self.home if which == "home" else self.away
        return s if isinstance(s, Source) else Source(team=s)


def _groups_knockout(teams: Sequence[str], fields: int, groups: int, advance: int, third_place: bool = False) -> Plan:
    if groups < 1 or groups > len(GROUP_NAMES):
        raise PlanError("groups", f"between 1 and {len(GROUP_NAMES)} groups")
    if len(teams) < 2 * groups:
        raise PlanError("groups", f"{len(teams)} teams cannot make {groups} groups of at least two")
    if groups > 1 and groups % 2:
        raise PlanError("groups", "groups are crossed in pairs (A1–B2, B1–A2): give 1 or an even number of groups")
    split = split_groups(teams, groups)
    smallest = min(len(g) for g in split)
    if advance < 1 or advance > smallest:
        raise PlanError("advance", f"between 1 and {smallest} teams of each group can go through")
    qualifiers = groups * advance
    if qualifiers < 2 or qualifiers & (qualifiers - 1):
        raise PlanError("advance", f"{groups} groups × {advance} = {qualifiers} qualifiers: the knockout needs 2, 4, 8 or 16")
    names = GROUP_NAMES[:groups]
    games: list[_Game] = []
    byes: list[Bye] = []
    per_group = [circle_rounds(g) for g in split]
    last_round = max(len(r) for r in per_group)
    for r in range(last_round):
        for name, rounds in zip(names, per_group, strict=True):
            if r < len(rounds):
                pairs, bye = rounds[r]
                games.extend(_Game(r + 1, name, "group", h, a) for h, a in pairs)
                if bye is not None:
                    byes.append(Bye(r + 1, bye))
    first = [_Game(0, None, "", *pair) for pair in _crossings(names, advance)]
    knockout = _knockout_rounds(first, first_round=last_round + 1, third_place=third_place)
    return _finish(games, knockout, tuple(byes), tuple((n, tuple(g)) for n, g in zip(names, split, strict=True)), fields)


def _crossings(names: str, advance: int) -> list[tuple[Source, Source]]:
    """The knockout's first matches, crossed between paired groups, in bracket order."""
    if len(names) == 1:  # one group: 1 v K, 2 v K-1, …
        g = names[0]
        seeded = [(Source(group=g, rank=i), Source(group=g, rank=advance + 1 - i)) for i in range(1, advance // 2 + 1)]
    else:
        pairs = [(names[i], names[i + 1]) for i in range(0, len(names), 2)]
        seeded = []
        if advance == 1:
            seeded = [(Source(group=x, rank=1), Source(group=y, rank=1)) for x, y in pairs]
        for i in range(1, advance // 2 + 1):
            j = advance + 1 - i
            seeded += [(Source(group=x, rank=i), Source(group=y, rank=j)) for x, y in pairs]
            seeded += [(Source(group=y, rank=i), Source(group=x, rank=j)) for x, y in pairs]
    return [seeded[s - 1] for s in seeding_order(len(seeded))]


def _knockout_from_seeds(
    entrants: list[Source], first_round: int, third_place: bool = False
) -> tuple[list[_Game], list[_Game], list[Bye]]:
    """A seeded bracket: first-round games (byes for the top seeds), as knockout games."""
    size = 1
    while size < len(entrants):
        size *= 2
    order = seeding_order(size)
    first: list[_Game | Source] = []
    byes: list[Bye] = []
    for i in range(0, size, 2):
        a, b = order[i], order[i + 1]
        if b > len(entrants):  # the top seed of the pair has a bye (a < b always)
            first.append(entrants[a - 1])
            byes.append(Bye(first_round, entrants[a - 1].team or ""))
        else:
            first.append(_Game(0, None, "", entrants[a - 1], entrants[b - 1]))
    return [], _knockout_rounds(first, first_round, third_place), byes


def _knockout_rounds(first: Sequence[_Game | Source], first_round: int, third_place: bool = False) -> list[_Game]:
    """All knockout games from the first round's games (or bye entrants), in bracket order.

    Games are numbered later by ``_finish``: here winners refer to earlier games by their index in
    the returned list (``Source.winner_of`` holds that index until then).
    """
    out: list[_Game] = []
    current: list[Source] = []
    teams_in_round = 2 * len(first)
    for item in first:
        if isinstance(item, Source):
            current.append(item)
        else:
            item.round, item.stage = first_round, stage_name(teams_in_round)
            out.append(item)
            current.append(Source(winner_of=len(out) - 1))
    rnd = first_round if any(isinstance(x, _Game) for x in first) else first_round - 1
    while len(current) > 1:
        rnd += 1
        teams_in_round = len(current)
        nxt: list[Source] = []
        for i in range(0, len(current), 2):
            a, b = current[i], current[i + 1]
            after = tuple(s.winner_of for s in (a, b) if s.winner_of is not None)
            if third_place and teams_in_round == 2 and a.winner_of is not None and b.winner_of is not None:
                # D76: the semi-finals' losers, in the final's round, numbered (and played) before it.
                out.append(_Game(rnd, None, "third_place", Source(loser_of=a.winner_of), Source(loser_of=b.winner_of), after))
            out.append(_Game(rnd, None, stage_name(teams_in_round), a, b, after))
            nxt.append(Source(winner_of=len(out) - 1))
        current = nxt
    return out


# ---------------------------------------------------------------------------------------------
# Fields and time slots


def _finish(group_games: list[_Game], knockout: list[_Game], byes: tuple[Bye, ...], groups: Any, fields: int) -> Plan:
    """Number the games and put them into (slot, field): round-robin games packed, knockout by round."""
    placed = pack(
        [(g.source("home").team or "", g.source("away").team or "") for g in group_games],
        fields,
    )
    fixtures: list[Planned] = []
    for g, (slot, field) in zip(group_games, placed, strict=True):
        fixtures.append(Planned(len(fixtures) + 1, g.round, g.group, g.stage, slot, field, g.source("home"), g.source("away")))
    next_slot = max((s for s, _ in placed), default=-1) + 1
    base = len(fixtures)  # knockout game i becomes fixture number base + i + 1
    slot_of: dict[int, int] = {}
    by_round: dict[int, list[int]] = {}
    for i, g in enumerate(knockout):
        by_round.setdefault(g.round, []).append(i)
    for rnd in sorted(by_round):
        # A round starts after every game it needs, and after the group stage.
        start = max([next_slot, *(slot_of[j] + 1 for i in by_round[rnd] for j in knockout[i].after)])
        third = [i for i in by_round[rnd] if knockout[i].stage == "third_place"]  # D76: a slot before the final
        for k, i in enumerate(by_round[rnd]):
            slot_of[i] = start if i in third else start + len(third) + (k - len(third)) // fields
            field = k % fields if i in third else (k - len(third)) % fields  # the final keeps the main field
            g = knockout[i]
            home, away = (_renumber(g.source(w), base) for w in ("home", "away"))
            fixtures.append(Planned(base + i + 1, g.round, None, g.stage, slot_of[i], field, home, away))
        next_slot = max(slot_of[i] for i in by_round[rnd]) + 1
    fixtures.sort(key=lambda f: f.number)
    return Plan(tuple(fixtures), byes, groups)


def _renumber(s: Source, base: int) -> Source:
    if s.winner_of is not None:
        return Source(winner_of=base + s.winner_of + 1)
    if s.loser_of is not None:
        return Source(loser_of=base + s.loser_of + 1)
    return s


def pack(games: Sequence[tuple[str, str]], fields: int) -> list[tuple[int, int]]:
    """(slot, field) for each game, in order: at most ``fields`` games a slot, no team twice in a slot.

    Slots are filled earliest first. A game may move ahead of games listed before it only when neither
    of its teams has an earlier game still waiting, so every team plays its games in the listed order
    (its rounds in order) and a free field is used by a later round's game whenever that is possible.
    """
    waiting = list(range(len(games)))
    out: list[tuple[int, int]] = [(0, 0)] * len(games)
    slot = 0
    while waiting:
        busy: set[str] = set()  # teams playing in this slot or with an earlier game still waiting
        taken: list[int] = []
        for i in waiting:
            if len(taken) == fields:
                break
            home, away = games[i]
            if home not in busy and away not in busy:
                out[i] = (slot, len(taken))
                taken.append(i)
            busy.update((home, away))
        waiting = [i for i in waiting if i not in taken]
        slot += 1
    return out
