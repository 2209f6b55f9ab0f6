"""Discipline across a competition's matches: suspensions (SPEC C4) and officials standing aside (C5).

A suspension is served by the team's next fixtures in schedule order: a red card (a direct red or a
second yellow) suspends the player for the team's next ``red_matches`` fixtures; with yellow
accumulation, every ``yellow_accumulation``-th caution over the competition suspends him for
``yellow_matches`` more (D64). A fixture the team forfeits does not count as served (C4); one the
opponents forfeit does (D65). Two suspensions of one player are served one after the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import N_, RuleViolation

Standing = Literal["pending", "served", "forfeited"]


@dataclass(frozen=True)
class Discipline:
    red_matches: int = 1  # 0 turns red-card suspensions off
    yellow_accumulation: int | None = None  # every Nth yellow of the competition suspends; None: off
    yellow_matches: int = 1


@dataclass(frozen=True)
class Cards:
    """Cards of one player in one match, as suspensions count them."""

    yellow: int = 0  # cautions that count towards accumulation
    red: int = 0  # sendings-off: a direct red or a second yellow

    @staticmethod
    def from_counts(yellow: int, red: int) -> Cards:
        """From a report's counts, where a second yellow adds one to both ``yellow`` and ``red``.

        The two cautions that made a second-yellow sending-off are not counted again for accumulation
        (they already suspend him); a caution followed by a direct red still counts (D64).
        """
        if red and yellow >= 2:
            return Cards(yellow - 2, 1)
        return Cards(yellow, min(red, 1))


@dataclass(frozen=True)
class Appearance:
    """One fixture of a team, in schedule order: how it stands for suspensions, and the cards shown in it."""

    fixture: str
    standing: Standing  # pending (not over), served (played or won by forfeit), forfeited by this team
    cards: Mapping[int, Cards]


@dataclass(frozen=True)
class Suspension:
    team: str
    player: int
    reason: Literal["red", "yellow"]
    from_fixture: str  # where the card was shown
    matches: int
    covers: tuple[str, ...]  # the fixtures he misses, as far as the schedule knows them
    remaining: int

    def applies_to(self, fixture: str) -> bool:
        return fixture in self.covers


def suspensions(teams: Mapping[str, Sequence[Appearance]], rules: Discipline) -> list[Suspension]:
    """Every suspension of the competition so far, served or not, in team and schedule order (C4)."""
    out: list[Suspension] = []
    for team, fixtures in teams.items():
        yellows: dict[int, int] = {}
        free_from: dict[int, int] = {}  # a player's next suspension starts after this index
        for i, app in enumerate(fixtures):
            for player, cards in sorted(app.cards.items()):
                due: list[tuple[Literal["red", "yellow"], int]] = []
                if cards.red and rules.red_matches > 0:
                    due.append(("red", rules.red_matches))
                if rules.yellow_accumulation and cards.yellow:
                    before = yellows.get(player, 0)
                    yellows[player] = before + cards.yellow
                    crossed = yellows[player] // rules.yellow_accumulation - before // rules.yellow_accumulation
                    due.extend(("yellow", rules.yellow_matches) for _ in range(crossed) if rules.yellow_matches > 0)
                for reason, n in due:
                    start = max(i + 1, free_from.get(player, 0))
                    covers: list[str] = []
                    k = start
                    while k < len(fixtures) and len(covers) < n:
                        if fixtures[k].standing != "forfeited":  # C4: a forfeit does not serve
                            covers.append(fixtures[k].fixture)
                        k += 1
                    free_from[player] = k
                    served = sum(1 for f in fixtures[start:k] if f.fixture in covers and f.standing == "served")
                    out.append(Suspension(team, player, reason, app.fixture, n, tuple(covers), n - served))
    return out


def same_name(a: str, b: str) -> bool:
    """Two spellings of one name: case and spacing aside (as D72 compares team names)."""
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def kept_number(number: int, name: str, added_in_match: bool, roster: Mapping[int, str]) -> int | None:
    """D74: which player of the kept roster (by his number there now) a carded player of a match is.

    ``number`` is the first number he wore in the match (the kept roster's when the match was made) and
    ``name`` his name there. The one kept player of that name, wherever he is numbered now; else the
    number, if the kept roster still has it; a player added in the match (M2) whose name the kept roster
    does not have is nobody on it (None): his cards count, and suspend nobody else.
    """
    found = [n for n, other in roster.items() if same_name(other, name)]
    if len(found) == 1:
        return found[0]
    if added_in_match or number not in roster:
        return None
    return number


def check_lineup(
    team_name: str,
    fixture: str,
    numbers: Sequence[int],
    names: Mapping[int, str],
    active: Sequence[Suspension],
    matches: Mapping[str, str] | None = None,
) -> None:
    """C4: a lineup naming a player suspended for this fixture is refused, naming the match that caused it.

    ``matches`` words a fixture for the refusal ("Renmin – Tsinghua").
    """
    for s in active:
        if s.applies_to(fixture) and s.player in numbers:
            raise RuleViolation(
                "C4",
                N_(
                    "#{player} {name} of {team} is suspended for this match: {reason} card in fixture {from_fixture}, "
                    "{match} ({remaining} of {matches} matches still to serve)"
                ),
                {
                    "player": s.player,
                    "name": names.get(s.player, ""),
                    "team": team_name,
                    "reason": s.reason,
                    "from_fixture": s.from_fixture,
                    "match": (matches or {}).get(s.from_fixture, ""),
                    "remaining": s.remaining,
                    "matches": s.matches,
                },
            )


def unserved(fixture: str, numbers: Sequence[int], active: Sequence[Suspension]) -> list[Suspension]:
    """C4 after the fact (SPEC L4): the suspensions for ``fixture`` of players its match named anyway — a match a
    venue made from what it last fetched, before the card that suspends them reached the central."""
    return [s for s in active if s.applies_to(fixture) and s.player in numbers]


# ---------------------------------------------------------------------------------------------
# C5: officials stand aside from their own club's matches


@dataclass(frozen=True)
class Party:
    """An official or a team, as far as standing aside is concerned."""

    id: str
    name: str
    club: str | None


def club_key(text: str | None) -> str:
    """Clubs are compared ignoring case and spacing ("Renmin  Univ" is "renmin univ")."""
    return " ".join((text or "").split()).casefold()


def check_stand_aside(officials: Mapping[str, Party], teams: Sequence[Party]) -> None:
    """C5: an official of a playing team's club may not officiate its match.

    A team without a club is its own club (D62): an official whose club is the team's name stands aside too.
    """
    for role, o in officials.items():
        mine = club_key(o.club)
        if not mine:
            continue
        for t in teams:
            if mine == club_key(t.club or t.name):
                raise RuleViolation(
                    "C5",
                    N_("{official} belongs to {club}, the club of {team}, and stands aside from this match ({role})"),
                    {"official": o.name, "club": o.club or "", "team": t.name, "role": role},
                )


def check_busy(officials: Mapping[str, Party], elsewhere: Mapping[str, str]) -> None:
    """D66: one official cannot be on two fields at once. ``elsewhere`` maps official id → a fixture in the same slot."""
    for role, o in officials.items():
        if o.id in elsewhere:
            raise RuleViolation(
                "D66",
                N_("{official} already officiates fixture {fixture} at the same time ({role})"),
                {"official": o.name, "fixture": elsewhere[o.id], "role": role},
            )
