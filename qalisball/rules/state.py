"""The state of a match: what the engine replays the event log into.

``MatchSetup`` is fixed at creation (rosters, field, rule set); ``MatchState`` changes with every
event. The engine treats a state as a value: ``engine.apply`` copies it, changes the copy and returns
it, so a refused event leaves the caller's state untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

from .book import BOOK_2_0, Book, RuleSetId
from .book import RestartType as RestartType  # the rule books' restart types (book.py), re-exported
from .common import TEAMS, End, Team
from .field import Field
from .restart_values import Restart as Restart  # a restart and why it was given (restart_values.py), re-exported
from .restart_values import Why as Why
from .shootout import Shootout
from .v1 import BOOK_1_0

if TYPE_CHECKING:
    from .rulings import PenaltyInPlay, Ruling

Phase = Literal["scheduled", "first_half", "halftime", "second_half", "shootout", "finished", "abandoned"]
MultiAttackMode = Literal["off", "players", "teams", "trailing"]
# What kind of stoppage the current dead ball is, for the substitution rules of SPEC §5:
# "free": both teams may substitute (after a goal, before a kickoff of a half, at half-time, 11.2);
# "normal": the restarting team has the initiative (11.1);
# "injury": an injury stoppage called during live play, no substitutions (11.3).
StoppageKind = Literal["free", "normal", "injury"]

HALVES: tuple[Phase, Phase] = ("first_half", "second_half")


@dataclass(frozen=True)
class Player:
    number: int
    name: str
    gender: str | None = None


@dataclass(frozen=True)
class TeamSetup:
    name: str
    color: str
    players: tuple[Player, ...]
    starting: tuple[int, ...]

    def player(self, number: int) -> Player | None:
        for p in self.players:
            if p.number == number:
                return p
        return None

    @property
    def numbers(self) -> tuple[int, ...]:
        return tuple(p.number for p in self.players)


@dataclass(frozen=True)
class MultiAttackRules:
    """Chapter 13: who holds multiple attack opportunities, and how many (K)."""

    mode: MultiAttackMode = "off"
    k: int = 2
    teams: tuple[Team, ...] = ()
    players: tuple[tuple[Team, tuple[int, ...]], ...] = (("home", ()), ("away", ()))

    def designated(self, team: Team) -> tuple[int, ...]:
        return dict(self.players).get(team, ()) if self.mode == "players" else ()


BOOKS: dict[RuleSetId, Book] = {"2.0": BOOK_2_0, "1.0": BOOK_1_0}


@dataclass(frozen=True)
class RuleSet:
    """The configurable values of the rule book, in one place (3.1, 12.1, 13), and which book it is.

    ``rule_set`` is fixed when the match is created (SPEC §11.2); a match stored without it is 2.0.
    ``shootout_on_draw`` lets a level 1.0 match go on to the shootout (a knockout fixture's, V1-D2).
    """

    half_minutes: float = BOOK_2_0.half_minutes
    halftime_minutes: float = BOOK_2_0.halftime_minutes
    shootout_rounds: int = BOOK_2_0.shootout_rounds
    multi_attack: MultiAttackRules = MultiAttackRules()
    rule_set: RuleSetId = "2.0"
    shootout_on_draw: bool = False

    @property
    def book(self) -> Book:
        """The rule book's data the engine looks up (book.py, v1.py)."""
        return BOOKS[self.rule_set]

    @property
    def level_goes_to_shootout(self) -> bool:
        """A match level after two halves: the shootout (3.2, 12), or in 1.0 a draw (V1-D2)."""
        return self.book.shootout or self.shootout_on_draw

    @property
    def half_ms(self) -> int:
        return round(self.half_minutes * 60_000)

    @property
    def halftime_ms(self) -> int:
        return round(self.halftime_minutes * 60_000)


@dataclass(frozen=True)
class MatchSetup:
    home: TeamSetup
    away: TeamSetup
    starters: int
    field: Field
    rules: RuleSet = RuleSet()

    def team(self, team: Team) -> TeamSetup:
        return self.home if team == "home" else self.away


@dataclass
class Clock:
    """The server-owned game clock. Time is always passed in (``now``, server ms); never read here."""

    length_ms: int
    running: bool = False
    base_ms: int = 0  # elapsed game time when ``anchor_ms`` was taken
    anchor_ms: int = 0  # server time of the last start, resume or set

    def elapsed(self, now: int) -> int:
        if not self.running:
            return self.base_ms
        return self.base_ms + max(0, now - self.anchor_ms)

    def start(self, now: int, length_ms: int) -> None:
        self.length_ms, self.running, self.base_ms, self.anchor_ms = length_ms, True, 0, now

    def pause(self, now: int) -> None:
        self.base_ms, self.running, self.anchor_ms = min(self.elapsed(now), self.length_ms), False, now

    def resume(self, now: int) -> None:
        self.running, self.anchor_ms = True, now

    def set(self, now: int, elapsed_ms: int) -> None:
        self.base_ms, self.anchor_ms = elapsed_ms, now


@dataclass(frozen=True)
class Signature:
    """One signature on the score sheet (M6); the drawn image stays in the log."""

    as_: str
    name: str
    at_ms: int  # server time


@dataclass
class Stoppage:
    """What has happened at the current dead ball, for the substitution rules (SPEC §5)."""

    kind: StoppageKind = "free"
    substituted: set[Team] = field(default_factory=set)
    came_on: set[tuple[Team, int]] = field(default_factory=set)

    def copy(self) -> Stoppage:
        return Stoppage(self.kind, set(self.substituted), set(self.came_on))


@dataclass
class TeamState:
    on_field: list[int]
    # The roster as it is now (M2: late players, renames, renumbers): shirt number → player.
    roster: dict[int, Player] = field(default_factory=dict)
    # Renumbered players (M2): current number → the number the player had at the start.
    first_numbers: dict[int, int] = field(default_factory=dict)
    sent_off: list[int] = field(default_factory=list)
    yellow: list[int] = field(default_factory=list)
    injured: list[int] = field(default_factory=list)  # left the field injured, not yet back
    # Replacement rights from red cards to players on the field (11.2): one player on for nobody
    # at a dead ball, whatever the initiative.
    replacements_due: int = 0
    # M5: a replacement right earned at an injury stoppage (11.3 forbids it there) waits for the
    # next dead ball; it lapses when that dead ball's restart is taken.
    replacements_carried: int = 0
    fouls: dict[int, int] = field(default_factory=dict)  # fouls per player in this match (M8, 9.3)
    second_yellow: list[int] = field(default_factory=list)  # sent off by a second yellow (M8)
    # Multiple attack opportunities (13.1): the team's remaining count while it has the ball (or
    # None when it holds none), and each designated player's remaining count.
    ma_team: int | None = None
    ma_players: dict[int, int] = field(default_factory=dict)

    def copy(self) -> TeamState:
        d = self.__dict__
        clone = object.__new__(TeamState)
        # One dict built at once: the cheapest copy CPython offers (legal_calls copies states ~45 times).
        clone.__dict__ = {
            **d,
            "on_field": d["on_field"][:],
            "sent_off": d["sent_off"][:],
            "yellow": d["yellow"][:],
            "injured": d["injured"][:],
            "second_yellow": d["second_yellow"][:],
            "roster": d["roster"].copy(),  # Player is frozen: sharing the values is safe
            "first_numbers": d["first_numbers"].copy(),
            "fouls": d["fouls"].copy(),
            "ma_players": d["ma_players"].copy(),
        }
        return clone

    @property
    def numbers(self) -> tuple[int, ...]:
        return tuple(self.roster)


@dataclass
class MatchState:
    setup: MatchSetup
    teams: dict[Team, TeamState]
    clock: Clock
    phase: Phase = "scheduled"
    period: int = 0
    score: dict[Team, int] = field(default_factory=lambda: {"home": 0, "away": 0})
    ball: Literal["live", "dead"] = "dead"
    possession: Team | None = None
    attacking: bool = False
    restart: Restart | None = None
    # The restart that last put the ball in play, while nothing else has happened since: a goal
    # marked ``direct`` is straight from it (10.4) and a restart violation may still be called.
    restart_in_play: Restart | None = None
    stoppage: Stoppage = field(default_factory=Stoppage)
    toss_kickoff: Team | None = None
    home_end_first_half: End | None = None
    last_goal_at: int | None = None  # server ms, for the 30 s return countdown (7.2)
    halftime_started_at: int | None = None
    shootout: Shootout | None = None
    winner: Team | None = None
    abandon_reason: str | None = None
    # M1: the game time of the last accepted event of this half (a later call may not be earlier).
    last_at_ms: int = 0
    halves_ended: int = 0
    # M6: the score sheet.
    confirmed: list[int | str] = field(default_factory=list)
    signatures: list[Signature] = field(default_factory=list)
    locked: bool = False
    # A penalty taken whose attack goes on: a goal by its team converts it (10.8, rulings.py).
    penalty_in_play: PenaltyInPlay | None = None
    # What the engine ruled on the last event applied, in order (rulings.py): the replay's steps carry
    # them. About that event, not the match: two states alike but for them are the same match.
    rulings: tuple[Ruling, ...] = field(default=(), compare=False)
    # A replay of a stored entry follows what was ruled when it was stored (issue 28): the decisions at
    # each ruling are the stored ones (engine._rule); None while the engine decides a call.
    following: tuple[Ruling, ...] | None = field(default=None, compare=False)
    overruled: str | None = field(default=None, compare=False)  # how the engine would have ruled otherwise

    def copy(self) -> MatchState:
        """A copy that shares everything immutable (setup, restarts, the shootout) and copies the rest.

        About 10× cheaper than ``deepcopy``: ``legal_calls`` and ``dry_run`` copy a state many times.
        Every mutable field must be copied here (``tests/test_rules_foundation.py`` checks that a
        copy shares no mutable object with its original).
        """
        d = self.__dict__
        clone = object.__new__(MatchState)
        clone.__dict__ = {
            **d,
            "teams": {t: ts.copy() for t, ts in d["teams"].items()},
            "clock": _blank(Clock, d["clock"]),
            "score": d["score"].copy(),
            "stoppage": d["stoppage"].copy(),
            "confirmed": d["confirmed"][:],
            "signatures": d["signatures"][:],  # Signature is frozen
        }
        return clone

    def ends(self) -> dict[Team, End] | None:
        from .field import defended_end

        if self.home_end_first_half is None:
            return None
        period = 2 if self.period >= 2 else 1
        return {t: defended_end(self.home_end_first_half, period, t) for t in TEAMS}

    def defended_end(self, team: Team) -> End:
        ends = self.ends()
        assert ends is not None, "ends are known once the coin is tossed"
        return ends[team]


T = TypeVar("T")


def _blank(cls: type[T], original: T) -> T:
    """A shallow copy without ``copy.copy``'s reduce protocol (several times faster for a dataclass)."""
    clone = object.__new__(cls)
    clone.__dict__.update(original.__dict__)
    return clone


def initial_state(setup: MatchSetup) -> MatchState:
    teams = {
        t: TeamState(on_field=list(setup.team(t).starting), roster={p.number: p for p in setup.team(t).players}) for t in TEAMS
    }
    k = setup.rules.multi_attack.k
    for t in TEAMS:
        teams[t].ma_players = {n: k for n in setup.rules.multi_attack.designated(t)}
    return MatchState(setup=setup, teams=teams, clock=Clock(length_ms=setup.rules.half_ms))
