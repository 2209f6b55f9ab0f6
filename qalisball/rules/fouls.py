"""Fouls and cards (9, 10.4–10.7)."""

from __future__ import annotations

from . import field as geo
from . import v1
from .common import Team, other_team
from .errors import N_, InvalidEvent, RuleViolation
from .events import Card, Foul
from .judging import (
    _at_end,
    _awarded,
    _explain_foul,
    _forgive,
    _free_kick,
    _give,
    _handle,
    _need_spot,
    _rule,
    _side_or_low,
    _stop,
    time_up,
)
from .rulings import Cautioned, RestartStands, SentOff
from .state import HALVES, MatchState, Restart
from .violations import _restart_for_opponents


@_handle.register
def _foul(ev: Foul, s: MatchState, now: int) -> None:
    book = s.setup.rules.book
    if ev.card is not None and not book.cards:
        raise v1.no_cards()
    if ev.card is not None and ev.player is None:
        raise InvalidEvent({"player": ["a foul with a card must name the player"]})
    red = ev.card == "red"
    playing = s.phase in HALVES and not time_up(s, now)  # after time up only the card counts (D21)
    if playing and s.ball == "live":
        _live_foul(ev, s, red)
    elif playing and s.restart is not None:
        r = s.restart
        if ev.team == r.team:
            # A foul by the team taking the restart (10.4, 10.5 special cases; D12).
            if red or not _forgive(s, ev.team, ev.player, None, retake=r):
                _give(s, _restart_for_opponents(s, r, _side_or_low(s, ev.spot)))
                cited = book.restart_rule[r.type] if r.type in book.restart_fouls_cite_restart else "D12"
                _explain_foul(s, cited, ev.team, ev.player)
                _awarded(s)
        else:
            _rule(s, RestartStands(r, "9.2"))  # a foul by the other team (a defender inside 2.5 m) leaves it as it is
    elif ev.card is None:
        raise RuleViolation(
            "9.1",
            N_("no play to restart now: a foul at this time can only be punished with a card")
            if book.cards
            else N_("no play to restart now: a foul at this time gives no set piece; record misconduct in a note"),
        )
    elif s.restart is not None and s.ball == "dead":
        _rule(s, RestartStands(s.restart, "D21"))  # after time up only the card counts: the restart stands
    if ev.player is not None:
        fouls = s.teams[ev.team].fouls
        fouls[ev.player] = fouls.get(ev.player, 0) + 1  # 9.3: repeated fouls are grounds for a caution (M8)
    if ev.card is not None and ev.player is not None:
        _show_card(s, ev.team, ev.player, ev.card)


def _live_foul(ev: Foul, s: MatchState, red: bool) -> None:
    spot = _need_spot(ev.spot, "a foul during play")
    f = s.setup.field
    winner = other_team(ev.team)
    by_attackers = ev.team == s.possession
    if ev.where != "field" and (by_attackers or ev.on_official) and s.setup.rules.book.attacking_foul_at_last_touch:
        raise RuleViolation(
            "10.7",
            N_(
                "a foul by the team with the ball, or on an official, restarts with a free kick where the "
                "ball was last touched: log it with where=field and that spot"
            ),
        )
    if ev.where == "beyond_side_line":
        if not f.side_lines:
            raise RuleViolation("2.1", N_("this field has no side lines: no side-line ball can be called"))
        outcome = Restart("side_line", winner, geo.side_line_spot(f, spot))  # 10.5
    elif ev.where == "beyond_end_line":
        outcome = _at_end(s, s.setup.rules.book.over_end_line, winner, geo.nearest_end(f, spot), geo.side_of(f, spot))
    else:
        outcome = _free_kick(s, winner, spot)  # 10.6, 10.7
    # An attacking foul may be forgiven (13.1), never one sent with a red card nor one on an official (D7).
    if by_attackers and not red and not ev.on_official and _forgive(s, ev.team, ev.player, spot):
        return
    _stop(s)
    _give(s, outcome)
    rule = {"side_line": "10.5", "end_line": "10.4"}.get(outcome.type, "10.7" if by_attackers or ev.on_official else "10.6")
    _explain_foul(s, rule, ev.team, ev.player)
    _awarded(s)


@_handle.register
def _card(ev: Card, s: MatchState, now: int) -> None:
    if not s.setup.rules.book.cards:
        raise v1.no_cards()
    _show_card(s, ev.team, ev.player, ev.color)


def _show_card(s: MatchState, team: Team, player: int, color: str) -> None:
    """9.3: a second yellow is a red; a red sends the player off for the rest of the match (D5)."""
    ts = s.teams[team]
    if player in ts.sent_off:
        raise RuleViolation("D5", N_("#{player} of {team} has already been sent off"), {"player": player, "team": team})
    if color == "yellow":
        _rule(s, Cautioned(team, player))
    if color == "yellow" and player not in ts.yellow:
        ts.yellow.append(player)
        return
    if color == "yellow":
        ts.yellow.append(player)  # kept twice: the record shows both yellows
        ts.second_yellow.append(player)  # shown everywhere as a send-off (M8)
    ts.sent_off.append(player)
    _rule(s, SentOff(team, player, second_yellow=color == "yellow", from_field=player in ts.on_field))
    if player in ts.injured:
        ts.injured.remove(player)
    if player in ts.on_field:
        ts.on_field.remove(player)
        ts.replacements_due += 1  # 11.2; a bench player's red gives no replacement (9.3)
