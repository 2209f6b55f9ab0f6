"""Results and standings (SPEC C3, C6, C7): computed from results, never typed in.

A fixture's result comes, in this order of precedence, from the arbitration committee's decision that
replaced it (C7, or the organiser's decision on an abandoned match, D63), a forfeit (C6), or the
finished match itself. Under rule book 2.0 there are no draws: a level match was decided by the
shootout (12), whose goals never count in the table. Under 1.0 a level match is a draw (V1-D2): no
winner, and each team gets ``Points.draw``.

The table ranks by points; teams level on points are ordered by the points of the matches among
exactly those teams (head-to-head, once, D60), then goal difference over all the group's matches, then
goals scored, then a drawing of lots the organiser recorded. Teams still level share their rank until
lots are drawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..errors import N_, RuleViolation

Status = Literal["scheduled", "live", "finished", "forfeit", "abandoned"]
Tiebreak = Literal["head_to_head", "goal_difference", "goals_for", "lots", "unresolved"]
_DEPTH: dict[Tiebreak | None, int] = {
    None: 0,
    "head_to_head": 1,
    "goal_difference": 2,
    "goals_for": 3,
    "lots": 4,
    "unresolved": 5,
}
IN_PLAY = ("first_half", "halftime", "second_half", "shootout")


@dataclass(frozen=True)
class Points:
    """Points for a result (C3). The regulations' 2 / 1 / 0 is win 2, shootout win 1, shootout loss 1, loss 0."""

    win: int = 3
    shootout_win: int = 2
    shootout_loss: int = 1
    loss: int = 0
    draw: int = 1  # V1-D2: a level 1.0 match (2.0 has none)


@dataclass(frozen=True)
class MatchOutcome:
    """What a match's event log says: its phase, regulation score, shootout score and winner (home/away)."""

    phase: str
    score: tuple[int, int]
    shootout: tuple[int, int] | None = None
    winner: Literal["home", "away"] | None = None


@dataclass(frozen=True)
class Decision:
    """A result decided instead of the match's (C7: an upheld protest; D63: an abandoned match)."""

    score: tuple[int, int]
    winner: str  # team id
    shootout: tuple[int, int] | None = None
    by: Literal["protest", "organiser"] = "protest"


@dataclass(frozen=True)
class Result:
    """A fixture's result as the table counts it. ``score`` is regulation (or forfeit) goals, home first."""

    fixture: str
    home: str
    away: str
    score: tuple[int, int]
    winner: str | None  # None: a draw (a level 1.0 match, V1-D2)
    shootout: tuple[int, int] | None = None
    forfeit_by: str | None = None
    decided_by: Literal["protest", "organiser"] | None = None

    @property
    def loser(self) -> str | None:
        if self.winner is None:
            return None
        return self.away if self.winner == self.home else self.home

    @property
    def drawn(self) -> bool:
        """A draw: a level 1.0 match that no shootout decided (V1-D2)."""
        return self.winner is None

    @property
    def by_shootout(self) -> bool:
        """Decided by the shootout: a level regulation score (never a forfeit, never a draw)."""
        return self.forfeit_by is None and not self.drawn and (self.shootout is not None or self.score[0] == self.score[1])

    def goals(self, team: str) -> tuple[int, int]:
        """(for, against) for ``team``."""
        return (self.score[0], self.score[1]) if team == self.home else (self.score[1], self.score[0])

    def points(self, team: str, p: Points) -> int:
        if self.forfeit_by is not None:
            return 0 if team == self.forfeit_by else p.win  # C6: the forfeiting team gets 0 points
        if self.drawn:
            return p.draw
        if team == self.winner:
            return p.shootout_win if self.by_shootout else p.win
        return p.shootout_loss if self.by_shootout else p.loss


def fixture_status(match_phase: str | None, forfeit_by: str | None, decided: Decision | None) -> Status:
    """A fixture's status (API.md), and ``abandoned`` for an abandoned match awaiting a decision (D63)."""
    if decided is not None:
        return "finished"
    if forfeit_by is not None:
        return "forfeit"
    if match_phase == "finished":
        return "finished"
    if match_phase == "abandoned":
        return "abandoned"
    if match_phase in IN_PLAY:
        return "live"
    return "scheduled"


def fixture_result(
    fixture: str,
    home: str | None,
    away: str | None,
    match: MatchOutcome | None,
    forfeit_by: str | None = None,
    decided: Decision | None = None,
    forfeit_score: int = 5,
) -> Result | None:
    """The result that counts for a fixture, or None while it has none (C3, C6, C7, D63)."""
    if home is None or away is None:
        return None
    if decided is not None:
        return Result(fixture, home, away, decided.score, decided.winner, decided.shootout, decided_by=decided.by)
    if forfeit_by is not None:
        winner = away if forfeit_by == home else home
        score = (0, forfeit_score) if forfeit_by == home else (forfeit_score, 0)
        return Result(fixture, home, away, score, winner, forfeit_by=forfeit_by)
    if match is None or match.phase != "finished":
        return None  # not over, or abandoned (D63): no result until a decision
    if match.winner is None:
        # A finished match without a winner is a level 1.0 match: a draw (V1-D2). 2.0 always has one.
        return Result(fixture, home, away, match.score, None) if match.score[0] == match.score[1] else None
    winner = home if match.winner == "home" else away
    return Result(fixture, home, away, match.score, winner, match.shootout)


def voided_teams(forfeits: Iterable[tuple[str, bool]], voids_all_results: bool) -> frozenset[str]:
    """C6: with ``voids_all_results``, every team whose forfeit stands leaves the standings with all its matches.

    ``forfeits``: each forfeited fixture's (forfeiting team, whether a decided result replaced the forfeit), in
    any stage (a knockout forfeit voids the team's group matches too). A decided result (C7, D63) is the result
    that counts instead of the forfeit (``fixture_result``): its team did not forfeit, and stays.
    """
    if not voids_all_results:
        return frozenset()
    return frozenset(team for team, decided in forfeits if not decided)


@dataclass(frozen=True)
class Lots:
    """A recorded drawing of lots: ``teams`` in the drawn order (best first)."""

    teams: tuple[str, ...]
    id: str = ""


@dataclass
class Row:
    team: str
    played: int = 0
    won: int = 0
    drawn: int = 0  # V1-D2
    shootout_won: int = 0
    shootout_lost: int = 0
    lost: int = 0
    goals_for: int = 0
    goals_against: int = 0
    points: int = 0
    rank: int = 0
    # What ordered this team against the teams level with it on points (None when none was).
    tiebreak: Tiebreak | None = None
    lots: str | None = None  # the drawing of lots that ordered it
    # Teams the chain (lots aside) leaves level share this: (points, head-to-head points, goal difference, goals).
    level: tuple[int, int, int, int] | None = None
    forfeits: list[str] = field(default_factory=list)  # fixtures this team forfeited
    decisions: list[str] = field(default_factory=list)  # fixtures whose result a decision replaced

    @property
    def goal_difference(self) -> int:
        return self.goals_for - self.goals_against


def table(
    teams: Sequence[str],
    results: Iterable[Result],
    points: Points = Points(),
    lots: Sequence[Lots] = (),
    voided: frozenset[str] = frozenset(),
) -> list[Row]:
    """The ranked table of ``teams`` (one group) from the results among them (C3).

    ``lots`` are in the order they were drawn: the latest drawing that names every team of a tie
    orders it. ``voided`` teams (C6) leave the table with all their matches.
    """
    rows = {t: Row(t) for t in teams if t not in voided}
    counted = [r for r in results if r.home in rows and r.away in rows]
    for r in counted:
        for t in (r.home, r.away):
            _count(rows[t], r, points)
    ordered = sorted(rows.values(), key=lambda x: -x.points)  # stable: teams in the order given
    out: list[Row] = []
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j].points == ordered[i].points:
            j += 1
        out.extend(_break_tie(ordered[i:j], counted, points, lots))
        i = j
    _rank(out)
    return out


def unresolved_ties(rows: Sequence[Row]) -> list[tuple[str, ...]]:
    """The sets of teams C3's chain leaves level and no drawing of lots has ordered yet."""
    return [t for t, drawn in _levels(rows) if not drawn]


def check_lots(teams: Sequence[str], results: Iterable[Result], p: Points, drawn: Sequence[str], pending: int) -> None:
    """A drawing of lots is recorded only for a tie C3 could not break, once the group is over (C3).

    ``pending`` is the number of the group's fixtures without a result. A tie already ordered by an
    earlier drawing may be drawn again (the latest drawing counts).
    """
    if pending:
        raise RuleViolation(
            "C3", N_("lots are drawn once the group is over: {pending} of its fixtures have no result yet"), {"pending": pending}
        )
    ties = [set(t) for t, _ in _levels(table(teams, results, p))]
    if set(drawn) not in ties:
        described = "; ".join(" = ".join(sorted(t)) for t in ties) or "-"
        raise RuleViolation(
            "C3",
            N_(
                "these teams are not level after points, head-to-head, goal difference and goals scored; "
                "ties needing lots: {ties}"
            ),
            {"ties": described},
        )


def _levels(rows: Sequence[Row]) -> list[tuple[tuple[str, ...], bool]]:
    """Each set of teams the chain leaves level, and whether lots have ordered it."""
    sets: dict[tuple[int, int, int, int], list[Row]] = {}
    for r in rows:
        if r.level is not None:
            sets.setdefault(r.level, []).append(r)
    return [(tuple(r.team for r in v), v[0].lots is not None) for v in sets.values() if len(v) > 1]


# ---------------------------------------------------------------------------------------------


def _count(row: Row, r: Result, p: Points) -> None:
    gf, ga = r.goals(row.team)
    row.played += 1
    row.goals_for += gf
    row.goals_against += ga
    row.points += r.points(row.team, p)
    if r.drawn:
        row.drawn += 1
    elif row.team == r.winner:
        if r.by_shootout:
            row.shootout_won += 1
        else:
            row.won += 1
    elif r.by_shootout:
        row.shootout_lost += 1
    else:
        row.lost += 1
    if r.forfeit_by == row.team:
        row.forfeits.append(r.fixture)
    if r.decided_by is not None:
        row.decisions.append(r.fixture)


def _break_tie(level: list[Row], results: list[Result], p: Points, lots: Sequence[Lots]) -> list[Row]:
    if len(level) == 1:
        return level
    tied = {r.team for r in level}
    h2h = {t: 0 for t in tied}
    for r in results:
        if r.home in tied and r.away in tied:
            for t in (r.home, r.away):
                h2h[t] += r.points(t, p)

    def key(row: Row) -> tuple[int, int, int]:
        return (h2h[row.team], row.goal_difference, row.goals_for)

    ordered = sorted(level, key=lambda r: tuple(-k for k in key(r)))
    out: list[Row] = []
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and key(ordered[j]) == key(ordered[i]):
            j += 1
        same = ordered[i:j]
        if len(same) > 1:
            for row in same:
                row.level = (row.points, *key(row))
            same = _by_lots(same, lots)
        out.extend(same)
        i = j
    # What separated each team from its neighbours: the deepest criterion needed on either side.
    for k, row in enumerate(out):
        for other in (out[k - 1] if k > 0 else None, out[k + 1] if k + 1 < len(out) else None):
            if other is None:
                continue
            crit = _criterion(row, other, key)
            if _DEPTH[crit] > _DEPTH[row.tiebreak]:
                row.tiebreak = crit
    return out


def _criterion(a: Row, b: Row, key: object) -> Tiebreak:
    ka, kb = key(a), key(b)  # type: ignore[operator]
    if ka[0] != kb[0]:
        return "head_to_head"
    if ka[1] != kb[1]:
        return "goal_difference"
    if ka[2] != kb[2]:
        return "goals_for"
    if a.lots is not None and a.lots == b.lots:
        return "lots"
    return "unresolved"


def _by_lots(same: list[Row], lots: Sequence[Lots]) -> list[Row]:
    teams = {r.team for r in same}
    for drawing in reversed(lots):  # the latest drawing that covers the whole tie
        if teams <= set(drawing.teams):
            for r in same:
                r.lots = drawing.id or "lots"
            return sorted(same, key=lambda r: drawing.teams.index(r.team))
    return same


def _rank(rows: list[Row]) -> None:
    """Positions 1, 2, …; teams level without lots share the best of their positions."""
    for i, row in enumerate(rows):
        prev = rows[i - 1] if i > 0 else None
        shared = prev is not None and row.level is not None and row.level == prev.level and row.lots is None
        row.rank = prev.rank if shared and prev is not None else i + 1
