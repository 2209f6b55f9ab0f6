"""Rule book 1.0 (SPEC §11; docs/rules/qalisball-v1.0.zh.txt) as data, and the refusals only 1.0 has.

The 1.0 book has no section numbers: its nine headed paragraphs are cited ``V1-1`` … ``V1-9`` and the
product's decisions where it is silent ``V1-D1`` … ``V1-D17`` (SPEC §11.1, §11.11). The engine raises
2.0 numbers; ``BOOK_1_0.cites`` is SPEC §11.12's table that turns them into 1.0's, so a 1.0 match never
cites a rule 1.0 does not have. What 1.0 does differently is mostly values in ``BOOK_1_0``; the few
refusals 2.0 has no counterpart for are the functions below.
"""

from __future__ import annotations

from .book import Book
from .errors import N_, RuleViolation

# SPEC §11.1: the nine paragraphs, numbered in the order they appear, with their English titles. The
# Chinese headings are the catalogue's (qalisball/web/rulebook.py, msgctxt "rule book 1.0"), as 2.0's are.
PARAGRAPHS: dict[str, str] = {
    "V1-1": "The field",  # 比赛场地
    "V1-2": "Players",  # 球员
    "V1-3": "Kickoff",  # 开球
    "V1-4": "Scoring",  # 得分
    "V1-5": "The restricted area",  # 禁区
    "V1-6": "Dead ball and set pieces",  # 死球与定位球
    "V1-7": "Carrying the ball, and stopping the carrier",  # 带球行进与阻止
    "V1-8": "Fouls",  # 犯规
    "V1-9": "Special rule for mixed men's and women's matches",  # 男女混合比赛特别规则
}
# SPEC §11.11: the decisions where the 1.0 book is silent.
DECISIONS: dict[str, str] = {
    "V1-D1": "Match organisation kept from 2.0",
    "V1-D2": "No shootout: a level match is a draw",
    "V1-D3": "Field markings from 2.0; side lines required",
    "V1-D4": "Where a corner is taken",
    "V1-D5": "The short corner's designated place",
    "V1-D6": "Entering the opponents' area: their short corner",
    "V1-D7": "Every free kick 2 m from either area's line",
    "V1-D8": "Set-piece breaches",
    "V1-D9": "A foul's set piece where it happened",
    "V1-D10": "No cards",
    "V1-D11": "Free substitutions at any dead ball",
    "V1-D12": "Injury during play",
    "V1-D13": "The penalty taker need not be named",
    "V1-D14": "How the mixed-match rule is checked",
    "V1-D15": "No multiple attack opportunities",
    "V1-D16": "Call names kept from 2.0",
    "V1-D17": "A goal: the pole hit or knocked down",
}
TITLES: dict[str, str] = {**PARAGRAPHS, **DECISIONS}

_FIELD, _PLAYERS, _KICKOFF, _SCORING, _AREA, _SET_PIECES, _CARRYING, _FOULS, _MIXED = PARAGRAPHS
_ORGANISATION, _NO_SHOOTOUT = "V1-D1", "V1-D2"
_BREACH, _NO_CARDS, _SUBSTITUTIONS, _INJURY, _NO_MULTI_ATTACK = "V1-D8", "V1-D10", "V1-D11", "V1-D12", "V1-D15"

# SPEC §11.12: what a 1.0 match cites where the engine cites a 2.0 number. 10.4 and D18 are never
# cited (1.0 has no end-line ball, and a foul's set piece is where it happened, V1-D9). 10.8 is the
# penalty's rule here (V1-5): the 2 m retreat is a restart's spot, never a refusal.
CITES: dict[str, str] = {
    "2.1": _FIELD,
    **dict.fromkeys(("3.1", "4.2", "5.1", "5.3"), _ORGANISATION),
    "5.2": _KICKOFF,
    **dict.fromkeys(("6.1", "6.2", "8.6"), _CARRYING),
    "7.1": _SCORING,
    **dict.fromkeys(("8.1", "8.2", "8.3", "8.4", "10.1", "10.5", "10.6", "10.7", "D4", "D20"), _SET_PIECES),
    **dict.fromkeys(("8.5", "10.8", "D9"), _AREA),
    **dict.fromkeys(("8.7", "D2", "D12", "D16"), _BREACH),
    "D1": "V1-D6",
    **dict.fromkeys(("9.1", "D21"), _FOULS),
    **dict.fromkeys(("9.3", "D5", "D14", "D15", "D28"), _NO_CARDS),
    **dict.fromkeys(("11.1", "11.2", "D13"), _SUBSTITUTIONS),
    "11.3": _INJURY,
    **dict.fromkeys(("12.1", "12.2"), _NO_SHOOTOUT),
    "13.1": _NO_MULTI_ATTACK,
}

BOOK_1_0 = Book(
    id="1.0",
    length_m=(35, 50),  # V1-1
    width_m=(20, 30),  # V1-1
    side_lines_required=True,  # V1-D3
    side_lines_rule="V1-D3",
    team_size_rule=_PLAYERS,  # V1-2: 4–8 players on the field, by the field's size
    over_end_line="corner",  # V1-6, V1-D4
    set_piece_spots=("corner", "short_corner"),
    into_area="short_corner",  # V1-6, V1-D5, V1-D6, V1-D8
    restart_rule={
        "kickoff": _KICKOFF,
        "side_line": _SET_PIECES,
        "free_kick": _SET_PIECES,
        "corner": _SET_PIECES,
        "short_corner": _SET_PIECES,
        "penalty": _AREA,
    },
    pass_only=("kickoff",),  # V1-3; every other set piece may score directly (V1-6)
    free_kick_clearance=2.0,  # V1-6
    clear_both_areas=True,  # V1-D7
    retreat_rule=_SET_PIECES,  # SPEC §11.12: 10.8 (3 m) -> V1-6 (2 m); CITES' 10.8 is the penalty's (V1-5)
    restart_fouls_cite_restart=(),  # a foul by the restarting team is a set-piece breach (V1-D8)
    attacking_foul_at_last_touch=False,  # V1-D9
    return_after_goal_ms=None,  # V1-4: no 30-second return (V1-D15)
    shootout=False,  # V1-D2
    cards=False,  # V1-D10
    substitution_initiative=False,  # V1-D11, V1-D12
    penalty_taker_required=False,  # V1-D13
    mixed_contact_rule=True,  # V1-9, V1-D14
    other_team_breach=lambda restarting: breach_by_other_team(restarting),  # V1-D8
    multi_attack=False,  # V1-D15
    roster_rule=_PLAYERS,  # SPEC §11.9: the roster checks of §5.5 cite V1-2
    cites=CITES,
    # V1-D16: the calls of 2.0 with 1.0's words. A touched carrier stops within 2 steps and may then only
    # pass backwards (V1-7); 1.0 has no 3 s limit.
    labels={"caught": N_("Touched: over 2 steps / pass not backwards")},
)

# V1-D14: the roster's gender words (case-insensitive); anything else, or none, means no check.
FEMALE = frozenset({"f", "female", "w", "woman", "女"})
MALE = frozenset({"m", "male", "man", "男"})


def _gender(word: str | None) -> str | None:
    word = (word or "").strip().lower()
    return "f" if word in FEMALE else "m" if word in MALE else None


def mixed_catch_refusal(catcher_gender: str | None, caught_gender: str | None) -> RuleViolation | None:
    """V1-9, V1-D14: a male player may not touch a female player; a female player may touch anyone."""
    if _gender(catcher_gender) != "m" or _gender(caught_gender) != "f":
        return None
    return RuleViolation(
        _MIXED,
        N_("a male player may not touch a female player in a mixed match: log the contact as a foul by the male player's team"),
    )


def kickoff_is_a_pass() -> RuleViolation:
    """V1-3: "开球方式为传球": a goal straight from the kickoff does not count; play goes on."""
    return RuleViolation(_KICKOFF, N_("the kickoff is a pass: a goal straight from the kickoff does not count"))


def no_cards() -> RuleViolation:
    """V1-D10: 1.0 has no cards and no sending-off; misconduct is recorded in a note (M7)."""
    return RuleViolation(_NO_CARDS, N_("rule book 1.0 has no cards: record the misconduct in a note"))


def no_shootout() -> RuleViolation:
    """V1-D2: a level 1.0 match is a draw, unless it was created with ``shootout_on_draw`` (a knockout's)."""
    return RuleViolation(_NO_SHOOTOUT, N_("rule book 1.0 has no shootout: a level match is a draw"))


def breach_by_other_team(restarting: str) -> RuleViolation:
    """V1-D8: only the restarting team breaches its set piece; a defender within 2 m is a foul (V1-6)."""
    return RuleViolation(
        _BREACH,
        N_("the set piece is {restarting}'s; a defender within 2 m is a foul, not a set-piece breach"),
        {"restarting": restarting},
    )
