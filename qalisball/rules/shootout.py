"""The penalty shootout (rule book chapter 12) as a small, pure state machine.

Rule 12.1: a level match goes to a shootout of four rounds by default (configurable); in each round
both teams shoot a 1-point shot from the penalty line and a 2-point shot from the two-point line, and
the higher final score wins.

Rule 12.2 (procedure): a coin toss picks the team that shoots first. Each round, in order: the first
team's 1-point shot, the second team's 1-point shot, the first team's 2-point shot, the second team's
2-point shot, all by that round's taker. The shootout ends at once when one team, even scoring every
shot it has left, would still be below the other team's current score. Level after the scheduled
rounds: extra rounds, one full round at a time, until a round ends untied.

Rule 12.2 (takers): each team names four takers in order; round r uses taker ((r - 1) mod 4) + 1, so
rounds 5-8 repeat the takers of rounds 1-4, and so on. Decision D5: a sent-off player may not be one of
them.

Nothing here does I/O. Values are immutable: :func:`kick` returns a new :class:`Shootout`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from qalisball.rules.common import TEAMS, Team, other_team
from qalisball.rules.errors import N_, RuleViolation

#: Rule 12.2: each team names exactly this many takers.
TAKERS_PER_TEAM = 4
#: Rule 12.1: scheduled rounds unless the match rules say otherwise.
DEFAULT_ROUNDS = 4
#: Kicks per round (rule 12.2): first 1 pt, second 1 pt, first 2 pts, second 2 pts.
KICKS_PER_ROUND = 4

_NO_ONE: Mapping[Team, Collection[int]] = MappingProxyType({})


@dataclass(frozen=True)
class Kick:
    """One shootout kick that was taken (rule 12.2)."""

    round: int
    team: Team
    points: int
    player: int
    scored: bool


@dataclass(frozen=True)
class NextKick:
    """The kick that is due next (rule 12.2)."""

    round: int
    team: Team
    points: int
    player: int


def _slot(shootout_first: Team, index: int) -> tuple[int, Team, int]:
    """(round, team, points) of the kick with 0-based ``index`` in the shootout (rule 12.2 order)."""
    rnd, position = divmod(index, KICKS_PER_ROUND)
    team = shootout_first if position % 2 == 0 else other_team(shootout_first)
    points = 1 if position < 2 else 2
    return rnd + 1, team, points


@dataclass(frozen=True)
class Shootout:
    """A shootout in progress or decided (rules 12.1, 12.2).

    ``takers`` holds, for each team, its four takers in order as ``((team, (n1, n2, n3, n4)), ...)``
    (a tuple of pairs keeps the value hashable); use :meth:`taker` or :meth:`takers_of` to read it.
    ``rounds`` is the number of scheduled rounds (rule 12.1, four by default). ``kicks`` are the
    kicks taken so far, in order. Build one with :func:`start`; advance it with :func:`kick`.
    """

    first: Team
    takers: tuple[tuple[Team, tuple[int, ...]], ...]
    rounds: int = DEFAULT_ROUNDS
    kicks: tuple[Kick, ...] = ()

    # -- takers -----------------------------------------------------------------------------

    def takers_of(self, team: Team) -> tuple[int, ...]:
        """The takers ``team`` named, in order (rule 12.2)."""
        for named_team, numbers in self.takers:
            if named_team == team:
                return numbers
        raise KeyError(team)

    def taker(self, team: Team, round: int) -> int:
        """The shirt number of ``team``'s taker in ``round`` (1-based).

        Rule 12.2: round r uses taker ((r - 1) mod 4) + 1, i.e. index (r - 1) % 4.
        """
        if round < 1:
            raise ValueError(f"rounds are numbered from 1, not {round}")
        numbers = self.takers_of(team)
        return numbers[(round - 1) % len(numbers)]

    # -- score and decision -----------------------------------------------------------------

    @property
    def score(self) -> dict[Team, int]:
        """Points of the scored kicks, per team."""
        totals: dict[Team, int] = {team: 0 for team in TEAMS}
        for k in self.kicks:
            if k.scored:
                totals[k.team] += k.points
        return totals

    def _remaining_points(self, team: Team) -> int:
        """Points ``team`` could still add by scoring every shot it has left (rule 12.2).

        Inside the scheduled rounds that is every remaining shot of the scheduled rounds; once in
        extra rounds, every remaining shot of the current extra round only (each extra round is
        played one at a time). With zero shots left this is 0, so a completed round that is not
        level decides the shootout.
        """
        taken = len(self.kicks)
        scheduled = self.rounds * KICKS_PER_ROUND
        if taken <= scheduled:
            end = scheduled
        else:
            end = -(-taken // KICKS_PER_ROUND) * KICKS_PER_ROUND  # end of the current round
        total = 0
        for index in range(taken, end):
            _, shooter, points = _slot(self.first, index)
            if shooter == team:
                total += points
        return total

    @property
    def winner(self) -> Team | None:
        """The winning team once decided, else None.

        Rule 12.2: decided as soon as the trailing team's score plus every point it could still
        score (of the scheduled rounds, or of the current extra round) is below the leader's
        current score. The leader's own remaining shots do not matter. A level score is never
        decided: after the scheduled rounds it goes on to another extra round.
        """
        totals = self.score
        if totals["home"] == totals["away"]:
            return None
        leader: Team = "home" if totals["home"] > totals["away"] else "away"
        trailing = other_team(leader)
        if totals[trailing] + self._remaining_points(trailing) < totals[leader]:
            return leader
        return None

    @property
    def decided(self) -> bool:
        """True once a winner is certain (rule 12.2 early end, or an extra round ending untied)."""
        return self.winner is not None

    def next_kick(self) -> NextKick | None:
        """The kick due next (rule 12.2 order and takers), or None once decided."""
        if self.decided:
            return None
        rnd, team, points = _slot(self.first, len(self.kicks))
        return NextKick(round=rnd, team=team, points=points, player=self.taker(team, rnd))

    @property
    def current_round(self) -> int:
        """The round of the next kick; of the last kick once decided; 1 before any kick."""
        if self.decided and self.kicks:
            return self.kicks[-1].round
        return len(self.kicks) // KICKS_PER_ROUND + 1

    # -- presentation -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The ``shootout`` object of the match state (API.md), plus ``takers`` and ``rounds``."""
        totals = self.score
        nxt = self.next_kick()
        return {
            "first": self.first,
            "round": self.current_round,
            "score": {"home": totals["home"], "away": totals["away"]},
            "kicks": [
                {
                    "round": k.round,
                    "team": k.team,
                    "points": k.points,
                    "player": k.player,
                    "scored": k.scored,
                }
                for k in self.kicks
            ],
            "next": (None if nxt is None else {"team": nxt.team, "points": nxt.points, "player": nxt.player}),
            "takers": {team: list(self.takers_of(team)) for team in TEAMS},
            "rounds": self.rounds,
        }


def start(
    first: Team,
    takers: Mapping[Team, Sequence[int]],
    rounds: int = DEFAULT_ROUNDS,
    ineligible: Mapping[Team, Collection[int]] = _NO_ONE,
) -> Shootout:
    """Begin a shootout (rules 12.1, 12.2; decision D5).

    ``first`` won the coin toss and shoots first (rule 12.2). ``takers`` gives each team's four
    distinct takers in order (rule 12.2); ``ineligible`` gives each team's sent-off players, none
    of whom may be a taker (D5). ``rounds`` is the number of scheduled rounds (rule 12.1). Whether
    the numbers are on the roster is checked by the caller.
    """
    if rounds < 1:
        raise ValueError(f"a shootout needs at least one scheduled round, not {rounds}")
    named: list[tuple[Team, tuple[int, ...]]] = []
    for team in TEAMS:
        numbers = tuple(takers.get(team, ()))
        if len(numbers) != TAKERS_PER_TEAM:
            raise RuleViolation(
                "12.2",
                N_("{team} must name exactly {count} shootout takers in order, not {named}"),
                {"team": team, "count": TAKERS_PER_TEAM, "named": len(numbers)},
            )
        repeated = sorted({n for n in numbers if numbers.count(n) > 1})
        if repeated:
            listed = ", ".join(f"#{n}" for n in repeated)
            raise RuleViolation(
                "12.2",
                N_("{team}'s four shootout takers must be four different players; {listed} is named more than once")
                if len(repeated) == 1
                else N_("{team}'s four shootout takers must be four different players; {listed} are named more than once"),
                {"team": team, "listed": listed},
            )
        barred = ineligible.get(team, ())
        for number in numbers:
            if number in barred:
                raise RuleViolation(
                    "D5",
                    N_("{team}'s #{player} was sent off and may not take a shootout kick; name another player"),
                    {"team": team, "player": number},
                )
        named.append((team, numbers))
    return Shootout(first=first, takers=tuple(named), rounds=rounds)


def kick(shootout: Shootout, team: Team, scored: bool) -> Shootout:
    """Record ``team``'s kick, scored or missed, and return the new shootout (rule 12.2).

    The taker and the points follow from the order of rule 12.2, so only the team is given; a kick
    by the team whose turn it is not, or any kick once the shootout is decided, is refused.
    """
    winner = shootout.winner
    if winner is not None:
        totals = shootout.score
        loser = other_team(winner)
        raise RuleViolation(
            "12.2",
            N_("the shootout is already decided: {winner} won {won}–{lost}"),
            {"winner": winner, "won": totals[winner], "lost": totals[loser]},
        )
    due = shootout.next_kick()
    assert due is not None  # not decided, so a kick is due
    if team != due.team:
        raise RuleViolation(
            "12.2",
            N_("it is {due}'s {points}-point shot (#{player}), not {team}'s"),
            {"due": due.team, "points": due.points, "player": due.player, "team": team},
        )
    taken = Kick(
        round=due.round,
        team=due.team,
        points=due.points,
        player=due.player,
        scored=scored,
    )
    return replace(shootout, kicks=shootout.kicks + (taken,))


def renumber(shootout: Shootout, team: Team, old: int, new: int) -> Shootout:
    """The same shootout with a taker renumbered (SPEC M2)."""
    from dataclasses import replace

    takers = tuple((t, tuple(new if (t == team and n == old) else n for n in numbers)) for t, numbers in shootout.takers)
    return replace(shootout, takers=takers)
