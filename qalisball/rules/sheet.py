"""The match day (SPEC §9): roster changes, notes, the score sheet and its lock (M2, M6, M7)."""

from __future__ import annotations

from . import shootout as so
from .common import Team
from .errors import N_, RuleViolation
from .events import Confirm, Note, Reopen, RosterChange, Sign
from .judging import _handle
from .rulings import PenaltyInPlay
from .state import MatchState, Player, Signature


def locked_refusal() -> RuleViolation:
    """M6: what every change of a signed (locked) match is answered, but the organiser's ``reopen``."""
    return RuleViolation(
        "M6", N_("the score sheet is signed and the match locked: the organiser must reopen it before any change")
    )


@_handle.register
def _roster(ev: RosterChange, s: MatchState, now: int) -> None:
    """M2: a late player joins the bench; a player's name or shirt number is corrected."""
    ts = s.teams[ev.team]
    if ev.add is not None:
        if ev.add.number in ts.roster:
            raise RuleViolation(
                "M2",
                N_("#{number} is already {name}'s number in {team}: choose a free number"),
                {"number": ev.add.number, "name": ts.roster[ev.add.number].name, "team": ev.team},
            )
        ts.roster[ev.add.number] = Player(ev.add.number, ev.add.name, ev.add.gender)
        return
    assert ev.player is not None  # check_references asks for it (400)
    old = ts.roster[ev.player]
    number = ev.number if ev.number is not None else ev.player
    if number != ev.player and number in ts.roster:
        raise RuleViolation(
            "M2",
            N_("#{number} is already {name}'s number in {team}: choose a free number"),
            {"number": number, "name": ts.roster[number].name, "team": ev.team},
        )
    player = Player(number, ev.name if ev.name is not None else old.name, old.gender)
    if number == ev.player:
        ts.roster[number] = player
        return
    _renumber(s, ev.team, ev.player, number)
    ts.roster = {(number if n == ev.player else n): (player if n == ev.player else p) for n, p in ts.roster.items()}


def _renumber(s: MatchState, team: Team, old: int, new: int) -> None:
    """From now on the player is named by ``new`` everywhere in the state (M2)."""
    ts = s.teams[team]

    def swap(numbers: list[int]) -> list[int]:
        return [new if n == old else n for n in numbers]

    ts.on_field, ts.sent_off, ts.yellow = swap(ts.on_field), swap(ts.sent_off), swap(ts.yellow)
    ts.injured, ts.second_yellow = swap(ts.injured), swap(ts.second_yellow)
    ts.fouls = {(new if n == old else n): c for n, c in ts.fouls.items()}
    ts.ma_players = {(new if n == old else n): c for n, c in ts.ma_players.items()}
    ts.first_numbers[new] = ts.first_numbers.pop(old, old)
    s.stoppage.came_on = {(t, new if (t == team and n == old) else n) for t, n in s.stoppage.came_on}
    if s.shootout is not None:
        s.shootout = so.renumber(s.shootout, team, old, new)
    pen = s.penalty_in_play
    if pen is not None and pen.team == team and pen.taker == old:
        s.penalty_in_play = PenaltyInPlay(team, new)


@_handle.register
def _note(ev: Note, s: MatchState, now: int) -> None:
    """M7: notes only go into the referee's report; the match is unchanged."""


@_handle.register
def _confirm(ev: Confirm, s: MatchState, now: int) -> None:
    """M6: the main referee confirms a period's score once it has ended."""
    if ev.period == "shootout":
        ended = s.shootout is not None and s.shootout.decided
    else:
        ended = isinstance(ev.period, int) and s.halves_ended >= ev.period
    if not ended:
        raise RuleViolation("M6", N_("period {period} has not ended: its score is confirmed after it"), {"period": ev.period})
    if ev.period in s.confirmed:
        raise RuleViolation("M6", N_("period {period} is already confirmed"), {"period": ev.period})
    s.confirmed.append(ev.period)


@_handle.register
def _sign(ev: Sign, s: MatchState, now: int) -> None:
    """M6: officials and both captains sign once the match is over; the main referee's signature locks it."""
    if s.phase not in ("finished", "abandoned"):
        raise RuleViolation("M6", N_("the score sheet is signed once the match is finished or abandoned"))
    if any(sig.as_ == ev.as_ for sig in s.signatures):
        raise RuleViolation("M6", N_("the {who} has already signed"), {"who": ev.as_})
    s.signatures.append(Signature(ev.as_, ev.name, now))
    if ev.as_ == "referee":
        s.locked = True


@_handle.register
def _reopen(ev: Reopen, s: MatchState, now: int) -> None:
    """M6: the organiser reopens a locked match; it must be signed again."""
    if not s.locked:
        raise RuleViolation("M6", N_("the match is not locked: there is nothing to reopen"))
    s.locked, s.signatures = False, []
