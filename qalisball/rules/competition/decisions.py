"""Decided results: the organiser's for an abandoned or unrecorded match (D63), and protests (C7).

Pure: the service gathers the fixture's facts and the request, and stores the decision only when these
checks pass. A rule refused is a ``RuleViolation`` (409 ``rule``); a decided result that does not fit its
own score is a ``ResultError`` (the service's 400 ``invalid``, naming the field).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import N_, RuleViolation
from .fixtures import FixtureFacts


class ResultError(ValueError):
    """A decided result whose winner does not fit its fixture, score or shootout (a 400 naming ``field``)."""

    def __init__(self, message: str, field: str, detail: str) -> None:
        super().__init__(message)
        self.message, self.field, self.detail = message, field, detail


def decided_winner(
    home: str | None, away: str | None, score: tuple[int, int], winner: str | None, shootout: Mapping[str, int] | None
) -> str | None:
    """The winner of a decided result (C7, D63): the team with more goals, else the shootout's, else as given.

    Refused (C7) while the fixture's teams are not known; a ``ResultError`` when the given winner does not
    play the fixture, or contradicts the score or the shootout.
    """
    if home is None or away is None:
        raise RuleViolation("C7", N_("the teams of this fixture are not known yet: no result can be decided"), {})
    if winner is not None and winner not in (home, away):
        raise ResultError("the winner does not play this fixture", "result.winner", f"{winner} does not play this fixture")
    if score[0] != score[1]:
        expected = home if score[0] > score[1] else away
        if winner is not None and winner != expected:
            raise ResultError("the winner does not fit the score", "result.winner", "the winner is the team with more goals")
        winner = expected
    if shootout and winner != (home if shootout["home"] > shootout["away"] else away):
        raise ResultError("the winner does not fit the shootout", "result.winner", "the winner is the team that won the shootout")
    return winner


def check_result_decidable(fx: FixtureFacts) -> None:
    """D63: the organiser decides a result only for a fixture whose match was abandoned or never made in the app,
    and that has no result yet (a forfeit, or an earlier decision): else only a protest decision changes it (C7)."""
    if fx.phase is not None and fx.phase != "abandoned":
        raise RuleViolation(
            "D63",
            N_("the match of fixture {fixture} is {phase}: its result comes from its log, or from a protest decision (C7)"),
            {"fixture": fx.id, "phase": fx.phase},
        )
    if fx.forfeited or fx.decided:
        raise RuleViolation(
            "D63", N_("fixture {fixture} already has a result: change it by a protest decision (C7)"), {"fixture": fx.id}
        )


def check_protest_open(protest: str, decided: bool) -> None:
    """C7: a protest is decided once."""
    if decided:
        raise RuleViolation("C7", N_("protest {protest} was already decided"), {"protest": protest})
