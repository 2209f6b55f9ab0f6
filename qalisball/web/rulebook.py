"""The titles of the rule book's sections and of the product's decisions, marked for the catalogue.

A refusal names its rule by number (API.md, error ``rule``); the console shows the title beside it in
the official's language, so "11.1" reads "换人的基本原则" or "Substitutions: the basic principle".
Section titles are those of the Qalisball rule book 2.0 (rules/qalisball-v2.0.zh.txt); the book
numbers two sections 10.8 and two 12.2, and each number here carries both titles.

Rule book 1.0 (SPEC §11.1) has no section numbers: its paragraphs are "V1-1" … "V1-9" and the decisions
where it is silent "V1-D1" … "V1-D17"; their titles are here too, under msgctxt "rule book 1.0" (1.0's
"The field" is 比赛场地 where 2.0's is 球场). A match's refusal names a rule of its own rule set only, so
one table serves both.

Each title is its English here and its Chinese in translations/zh (msgctxt "rule book", so that
"Substitutions" here never takes the words of the same English elsewhere). The decisions' titles come
from docs/decisions.toml, rendered by scripts/render_decisions.py into ``decision_titles``: nothing reads
a document at run time.
"""

from __future__ import annotations

from qalisball.web.decision_titles import DECISION_TITLES
from qalisball.web.i18n import Np_, in_language

# The message context of every title of the rule book (scripts/render_decisions.py writes the decisions' with it).
RULE_BOOK = "rule book"
# The message context of rule book 1.0's titles (the same English may be other words in 1.0's book).
RULE_BOOK_1_0 = "rule book 1.0"

# The rule book 2.0's sections: number -> English title.
SECTIONS: dict[str, str] = {
    "1": Np_("rule book", "Definition of the game"),
    "1.1": Np_("rule book", "The match"),
    "1.2": Np_("rule book", "The ball"),
    "1.3": Np_("rule book", "Winning the match"),
    "2": Np_("rule book", "The field"),
    "2.1": Np_("rule book", "Field dimensions"),
    "2.2": Np_("rule book", "The bottle"),
    "2.3": Np_("rule book", "Field markings"),
    "3": Np_("rule book", "Duration of the match"),
    "3.1": Np_("rule book", "Regular time"),
    "3.2": Np_("rule book", "Time for the penalty shootout"),
    "4": Np_("rule book", "The officials"),
    "4.1": Np_("rule book", "The officiating team"),
    "4.2": Np_("rule book", "Duties and powers of the main referee"),
    "4.3": Np_("rule book", "Duties of the assistant referees"),
    "5": Np_("rule book", "Start of play"),
    "5.1": Np_("rule book", "How the match starts (coin toss)"),
    "5.2": Np_("rule book", "The kickoff"),
    "5.3": Np_("rule book", "Kicking off again"),
    "6": Np_("rule book", "Attack and defence"),
    "6.1": Np_("rule book", "Ways of attacking"),
    "6.2": Np_("rule book", "Ways of defending (catch, steal, block)"),
    "7": Np_("rule book", "Scoring"),
    "7.1": Np_("rule book", "How a goal is scored"),
    "7.2": Np_("rule book", "After a goal"),
    "8": Np_("rule book", "Violations"),
    "8.1": Np_("rule book", "Violations: definition"),
    "8.2": Np_("rule book", "Ball out of play"),
    "8.3": Np_("rule book", "Ball grounded"),
    "8.4": Np_("rule book", "Ball landing in the restricted area"),
    "8.5": Np_("rule book", "Player entering the restricted area"),
    "8.6": Np_("rule book", "Caught-player violation"),
    "8.7": Np_("rule book", "Restart violation"),
    "9": Np_("rule book", "Fouls"),
    "9.1": Np_("rule book", "Fouls: definition"),
    "9.2": Np_("rule book", "Kinds of foul"),
    "9.3": Np_("rule book", "Yellow and red cards"),
    "10": Np_("rule book", "Restarts"),
    "10.1": Np_("rule book", "Restarts: definition"),
    "10.2": Np_("rule book", "Dead ball"),
    "10.3": Np_("rule book", "Kickoff"),
    "10.4": Np_("rule book", "End-line ball"),
    "10.5": Np_("rule book", "Side-line ball"),
    "10.6": Np_("rule book", "Free kick"),
    "10.7": Np_("rule book", "Where a free kick originates"),
    "10.8": Np_("rule book", "Free-kick position; penalties"),
    "11": Np_("rule book", "Substitutions"),
    "11.1": Np_("rule book", "Substitutions: the basic principle"),
    "11.2": Np_("rule book", "Substitutions: special cases"),
    "11.3": Np_("rule book", "Substitution for injury"),
    "12": Np_("rule book", "Penalty shootout"),
    "12.1": Np_("rule book", "Penalty shootout: definition"),
    "12.2": Np_("rule book", "Shootout procedure; shootout takers"),
    "13": Np_("rule book", "Multiple attack opportunities"),
    "13.1": Np_("rule book", "Multiple attack opportunities: definition"),
    "13.2": Np_("rule book", "Using multiple attack opportunities"),
}

# SPEC §8's D1–D11 and docs/decisions.toml's decisions from D12 on. The screens' S1–S5 are not rules:
# no refusal cites them, so the console is not handed their titles.
DECISIONS: dict[str, str] = {d: title for d, title in DECISION_TITLES.items() if d.startswith("D")}

# SPEC §10's competition decisions, cited by the competitions' refusals ("C4").
COMPETITION: dict[str, str] = {
    "C1": Np_("rule book", "Teams are kept"),
    "C2": Np_("rule book", "Formats and schedules"),
    "C3": Np_("rule book", "Standings"),
    "C4": Np_("rule book", "Suspensions"),
    "C5": Np_("rule book", "Officials stand aside"),
    "C6": Np_("rule book", "Forfeits"),
    "C7": Np_("rule book", "Protests"),
}

# SPEC §9 (the match day).
MATCH_DAY: dict[str, str] = {
    "M1": Np_("rule book", "Late calls are judged when they happened"),
    "M2": Np_("rule book", "Roster changes: a late player, a name, a shirt number"),
    "M3": Np_("rule book", "Correcting the past: amend and insert"),
    "M4": Np_("rule book", "One call seen by two officials"),
    "M5": Np_("rule book", "A replacement right earned at an injury stoppage waits for the next dead ball"),
    "M6": Np_("rule book", "The score sheet is confirmed and signed; the referee's signature locks it"),
    "M7": Np_("rule book", "The referee's report: notes and card reasons"),
    "M8": Np_("rule book", "Judgement aids: fouls per player; a second yellow is a send-off"),
}

RULES: dict[str, str] = {**SECTIONS, **DECISIONS, **MATCH_DAY, **COMPETITION}

# Rule book 1.0 (SPEC §11.1, §11.11): the paragraphs and the decisions, the same English as the
# engine's ``rules/v1.py`` TITLES (tests/test_v1_words.py holds them equal).
V1: dict[str, str] = {
    "V1-1": Np_("rule book 1.0", "The field"),
    "V1-2": Np_("rule book 1.0", "Players"),
    "V1-3": Np_("rule book 1.0", "Kickoff"),
    "V1-4": Np_("rule book 1.0", "Scoring"),
    "V1-5": Np_("rule book 1.0", "The restricted area"),
    "V1-6": Np_("rule book 1.0", "Dead ball and set pieces"),
    "V1-7": Np_("rule book 1.0", "Carrying the ball, and stopping the carrier"),
    "V1-8": Np_("rule book 1.0", "Fouls"),
    "V1-9": Np_("rule book 1.0", "Special rule for mixed men's and women's matches"),
    "V1-D1": Np_("rule book 1.0", "Match organisation kept from 2.0"),
    "V1-D2": Np_("rule book 1.0", "No shootout: a level match is a draw"),
    "V1-D3": Np_("rule book 1.0", "Field markings from 2.0; side lines required"),
    "V1-D4": Np_("rule book 1.0", "Where a corner is taken"),
    "V1-D5": Np_("rule book 1.0", "The short corner's designated place"),
    "V1-D6": Np_("rule book 1.0", "Entering the opponents' area: their short corner"),
    "V1-D7": Np_("rule book 1.0", "Every free kick 2 m from either area's line"),
    "V1-D8": Np_("rule book 1.0", "Set-piece breaches"),
    "V1-D9": Np_("rule book 1.0", "A foul's set piece where it happened"),
    "V1-D10": Np_("rule book 1.0", "No cards"),
    "V1-D11": Np_("rule book 1.0", "Free substitutions at any dead ball"),
    "V1-D12": Np_("rule book 1.0", "Injury during play"),
    "V1-D13": Np_("rule book 1.0", "The penalty taker need not be named"),
    "V1-D14": Np_("rule book 1.0", "How the mixed-match rule is checked"),
    "V1-D15": Np_("rule book 1.0", "No multiple attack opportunities"),
    "V1-D16": Np_("rule book 1.0", "Call names kept from 2.0"),
    "V1-D17": Np_("rule book 1.0", "A goal: the pole hit or knocked down"),
}
# The titles a match of each rule book may cite beyond 2.0's (SPEC §11.12), by the book's id.
TITLES_OF_BOOK: dict[str, dict[str, str]] = {"1.0": V1}


def _context(rule: str) -> str:
    return RULE_BOOK_1_0 if rule in V1 else RULE_BOOK


def title(rule: str, language: str) -> str | None:
    """The title of section or decision ``rule`` in ``language`` ("zh" or "en"), or None if unknown."""
    if rule in V1:
        return in_language(language, V1[rule], RULE_BOOK_1_0)
    english = RULES.get(rule) or RULES.get(rule.split(".")[0] if rule[:1].isdigit() else rule)
    if english is None:
        return None
    return in_language(language, english, RULE_BOOK)


def titles(language: str, rule_set: str = "2.0") -> dict[str, str]:
    """Every rule number a match of ``rule_set`` may cite, with its title in ``language``: handed to the
    console's script. A 1.0 match also cites the unchanged decisions and M1–M8 (SPEC §11.12)."""
    known = {**RULES, **TITLES_OF_BOOK.get(rule_set, {})}
    return {rule: in_language(language, english, _context(rule)) for rule, english in known.items()}
