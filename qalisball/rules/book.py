"""A rule set as data: what the engine looks up where rule books 2.0 and 1.0 differ (SPEC §11).

A match is played under one rule set, fixed when it is created (``RuleSet.rule_set``); its ``Book`` is
the data the engine consults instead of branching on the version: the field's limits, which restart
each call gives, the free-kick retreat, which events exist, and how a refusal is cited. Rule book 2.0's
data is here; 1.0's is in ``v1.py``, with its own citations and the refusals 2.0 has no words for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from .errors import RuleViolation
from .field import FREE_KICK_CLEARANCE

RuleSetId = Literal["2.0", "1.0"]
RestartType = Literal["kickoff", "end_line", "side_line", "free_kick", "penalty", "corner", "short_corner"]
RESTART_TYPES: tuple[RestartType, ...] = get_args(RestartType)

_RESTART_RULE_2_0: dict[RestartType, str] = {
    "kickoff": "5.2",
    "end_line": "10.4",
    "side_line": "10.5",
    "free_kick": "10.6",
    "penalty": "10.8",
}


@dataclass(frozen=True)
class Book:
    """One rule book's values. Every field names the rule it comes from; 2.0's values are the defaults."""

    id: RuleSetId = "2.0"
    # The field [2.1; V1-1]: length and width bounds in metres (None: no upper bound), and whether a
    # field without side lines is allowed (2.0's amateur matches).
    length_m: tuple[float, float] = (30, 60)
    width_m: tuple[float, float | None] = (20, None)
    side_lines_required: bool = False
    side_lines_rule: str = "2.1"  # what says whether side lines are needed (1.0: V1-D3)
    # 2.1: a field with side lines is longer than it is wide (``setup.field_refusals`` refuses the rest).
    longer_than_wide: bool = True
    # Players on the field a side [D10, which took the 4 from 1.0; V1-2: "4-8, by the field's size"].
    starters: tuple[int, int] = (4, 8)
    team_size_rule: str = "D10"
    # The restart a ball over an end line (or a foul beyond it) gives, and the one a ball in an area,
    # an entry into the opponents' area and a penalty's breach give [10.4, D1, D2; V1-6, V1-D4–D8].
    over_end_line: RestartType = "end_line"
    into_area: RestartType = "end_line"
    # The rule that governs taking each restart: cited when the wrong team or player takes it.
    restart_rule: Mapping[RestartType, str] = field(default_factory=lambda: dict(_RESTART_RULE_2_0))
    # Restarts that are a pass only: a goal marked ``direct`` straight from one is refused (V1-3; 2.0's
    # kickoff may be shot, 5.2, and its end-line ball's own refusal cites 10.4).
    pass_only: tuple[RestartType, ...] = ()
    # The free-kick retreat [10.8; V1-6, V1-D7]: the distance kept from an area line, and whether it is
    # kept from both areas (1.0) or only the area of the team not taking the kick (2.0).
    free_kick_clearance: float = FREE_KICK_CLEARANCE
    clear_both_areas: bool = False
    retreat_rule: str = "10.8"  # the rule a moved free kick cites (1.0: V1-6's 2 m, SPEC §11.12)
    # Restarts whose pending-restart foul is cited by the restart's own rule (10.4, 10.5), else D12.
    restart_fouls_cite_restart: tuple[RestartType, ...] = ("end_line", "side_line")
    # A foul by the team with the ball restarts where the ball was last touched, never beyond a line (D18).
    attacking_foul_at_last_touch: bool = True
    return_after_goal_ms: int | None = 30_000  # 7.2
    shootout: bool = True  # a level match goes to the shootout [3.2, 12]
    # A new match's defaults (the schema's, the create form's): the halves' and half-time's minutes (3.1)
    # and the shootout's scheduled rounds (12.1), each of which the match may set otherwise.
    half_minutes: float = 30
    halftime_minutes: float = 10
    shootout_rounds: int = 4
    cards: bool = True  # 9.3
    # The restarts whose spots the field marks (1.0: the corner's and the short corner's, V1-D4, V1-D5).
    set_piece_spots: tuple[RestartType, ...] = ()
    # 11.1–11.3: the initiative, the incoming player's ban on taking the restart, no substitutions at an
    # injury stoppage, the red-card replacement.
    substitution_initiative: bool = True
    penalty_taker_required: bool = True  # 10.8
    mixed_contact_rule: bool = False  # V1-9
    # A restart violation called on the team not restarting: this book's own refusal of it (1.0: V1-D8),
    # else 8.7's (a defender too close commits a foul, 9.2).
    other_team_breach: Callable[[str], RuleViolation] | None = None
    multi_attack: bool = True  # 13
    roster_rule: str = "11.1"  # what the roster checks of a substitution cite (SPEC §5.5)
    # 2.0 citation → this book's (SPEC §11.12); a rule not listed is cited as it is.
    cites: Mapping[str, str] = field(default_factory=dict)
    # The calls keep their names in every book (V1-D16); a book words some differently: call (a variant's
    # or event type's name, catalogue.py) → its label here (an ``N_`` message id, translated in the catalogue).
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def restarts(self) -> tuple[RestartType, ...]:
        """The restarts this book gives, in the catalogue's order (a type no call of it gives is not here)."""
        given = {"kickoff", "side_line", "free_kick", "penalty", self.over_end_line, self.into_area}
        return tuple(r for r in RESTART_TYPES if r in given)

    def label(self, call: str, default: str) -> str:
        """The label of ``call`` in this book (V1-D16), ``default`` (the catalogue's) where it has none."""
        return self.labels.get(call, default)

    def cite(self, rule: str) -> str:
        return self.cites.get(rule, rule)

    def recite(self, refusal: RuleViolation) -> RuleViolation:
        """``refusal`` citing this book's rule (the engine raises 2.0 numbers; SPEC §11.12 maps them)."""
        cited = self.cite(refusal.rule)
        if cited != refusal.rule:
            refusal.rule = cited
            refusal.args = (f"{refusal.message} (rule {cited})",)
        return refusal


BOOK_2_0 = Book()
# The Book's values a new match may set otherwise (its ``rules``): the schema fills in the book's.
BOOK_DEFAULTS = ("half_minutes", "halftime_minutes", "shootout_rounds")
