"""Who is who in a report (SPEC M2): players are people, whatever shirt number they wear.

A replay's roster follows the ``roster`` events (late players, renames, renumbers); the report counts a
player's events for the person, and names him by the number he wore then and his name at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from qalisball.storage.store import LogEntry

from ..rules.common import TEAMS, Team
from ..rules.state import MatchSetup


@dataclass
class Person:
    index: int  # position in the team's list: setup players in order, then late players as added
    number: int  # the number now (at this point of the replay)
    name: str
    gender: str | None
    numbers: list[int]  # every number worn, in order
    added_seq: int | None = None  # a late player (M2): the roster event that added him
    starter: bool = False


class Roster:
    """The rosters as a replay goes: shirt numbers → people, changed only by ``roster`` events (M2).

    Two rosters replayed over the same steps give every person the same index, so the final one
    (run once over the whole log first) names anyone an earlier event mentions by his number then.
    """

    def __init__(self, setup: MatchSetup) -> None:
        self.people: dict[Team, list[Person]] = {}
        self.by_number: dict[Team, dict[int, Person]] = {}
        for t in TEAMS:
            ts = setup.team(t)
            people = [
                Person(i, p.number, p.name, p.gender, [p.number], starter=p.number in ts.starting)
                for i, p in enumerate(ts.players)
            ]
            self.people[t] = people
            self.by_number[t] = {p.number: p for p in people}

    def apply(self, e: LogEntry) -> Person | None:
        """A ``roster`` event (as the engine accepted it); returns the person it added or changed."""
        f = e.fields
        t: Team = f["team"]
        add = f.get("add")
        if add:
            p = Person(len(self.people[t]), int(add["number"]), str(add["name"]), add.get("gender"), [int(add["number"])], e.seq)
            self.people[t].append(p)
            self.by_number[t][p.number] = p
            return p
        found = self.by_number[t].get(int(f["player"])) if f.get("player") is not None else None
        if found is None:
            return None
        p = found
        if f.get("name") is not None:
            p.name = str(f["name"])
        new = f.get("number")
        if new is not None and new != p.number:
            del self.by_number[t][p.number]
            p.number = int(new)
            p.numbers.append(p.number)
            self.by_number[t][p.number] = p
        return p

    def index(self, t: Any, number: Any) -> int | None:
        if t not in TEAMS or number is None:
            return None
        p = self.by_number[t].get(number)
        return None if p is None else p.index


def roster_at(setup: MatchSetup, log: Iterable[LogEntry], seq: int) -> Roster:
    """The rosters as they were just before log row ``seq`` (roster events are never amended or inserted)."""
    r = Roster(setup)
    for e in log:
        if e.seq >= seq:
            break
        if e.type == "roster" and e.voided_by is None:
            r.apply(e)
    return r


class Names:
    """How a report names a player an event names by the number he wore then (M2)."""

    def __init__(self, setup: MatchSetup, now: Roster, final: Roster) -> None:
        self.setup, self.now, self.final = setup, now, final

    def team(self, team: Any) -> str:
        return self.setup.team(team).name if team in TEAMS else str(team)

    def person(self, team: Any, number: Any) -> Person | None:
        i = self.now.index(team, number)
        return None if i is None else self.final.people[team][i]

    def name(self, team: Any, number: Any) -> str | None:
        p = self.person(team, number)
        return None if p is None else p.name

    def number(self, team: Any, number: Any) -> str:
        """``#7``, or ``#7 (now #17)`` for a player renumbered later."""
        p = self.person(team, number)
        if p is None or p.number == number:
            return f"#{number}"
        return f"#{number} (now #{p.number})"

    def player(self, team: Any, number: Any) -> str:
        """``#7 Zhao Lei``: the number as logged, the name as it is at the end."""
        if number is None:
            return ""
        return f"{self.number(team, number)} {self.name(team, number) or ''}".rstrip()

    def who(self, team: Any, number: Any) -> str:
        if team not in TEAMS:
            return ""
        if number is None:
            return self.team(team)
        return f"{self.team(team)} {self.player(team, number)}"


def player_label(number: int, numbers: list[int]) -> str:
    """``#17``, or ``#17 (was #7)`` for a renumbered player (M2)."""
    earlier = [n for n in numbers if n != number]
    if not earlier:
        return f"#{number}"
    return f"#{number} (was " + ", ".join(f"#{n}" for n in earlier) + ")"
