"""Referee training (issue 24): the engine as teacher. Questions from a match's log, answers graded.

A question is a call of the match after which the engine ruled a restart (a ball out, a grounded ball,
a foul, an area entry, a goal, an injury …): the trainee sees the call as the referee logged it and names
the restart — its type, team and spot — and, for a foul, the card. The engine grades the answer against
its own ruling: the type and team must be the engine's, the spot within ``SPOT_TOLERANCE_M`` of the
engine's spot *after* the 3 m rule (10.8: a free kick called near an area is moved out; the call's own
spot is then wrong), and a foul's card the one the referee showed. In the shootout the question is who
kicks next and for how many points (12.2), or who won once it is decided.

Hand-written exercises are replayed the same way: a short event list whose last call is the question.
Nothing of the rules is written again here: every expected answer is a ruling the engine made.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .corrections import Row
from .engine import replay_steps
from .errors import N_
from .field import Point
from .rulings import Cautioned, FreeKickMoved, RestartAwarded, RestartStands, SentOff, ShootoutKickTaken
from .state import MatchSetup

# API.md "Training and what-if": the spot within 1 m of the engine's.
SPOT_TOLERANCE_M = 1.0
# The calls a trainee is asked about (API.md's "ruling events": an event after which a restart is pending).
CALLS = frozenset({"violation", "foul", "goal", "injury", "catch", "shot_missed", "card"})
SHOOTOUT_CALLS = frozenset({"shootout_start", "shootout_kick"})
# The question's ``call`` shows these fields of the logged event (never its ruling).
CALL_FIELDS = ("type", "kind", "team", "player", "spot", "where")
SHOOTOUT_RULE = "12.2"
CARD_RULE = "9.3"
CardColor = Literal["yellow", "red"]


@dataclass(frozen=True)
class Expected:
    """The engine's ruling a trainee must name: a restart (type, team, spot), or in the shootout the next
    kick (``type`` "shootout_kick", its team and ``points``) or the winner (``type`` "shootout_over")."""

    type: str
    team: str | None
    spot: Point | None = None
    points: int | None = None
    origin: Point | None = None  # where the call was, when the 3 m rule moved the free kick (10.8)
    card: CardColor | None = None  # a foul's card (None: no card due)
    sent_off: bool = False  # the card sent the player off (a second yellow, or a red)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "team": self.team,
            "spot": None if self.spot is None else self.spot.as_dict(),
        }
        if self.points is not None:
            out["points"] = self.points
        if self.origin is not None:
            out["origin"] = self.origin.as_dict()
        out["card"] = self.card
        out["sent_off"] = self.sent_off
        return out


@dataclass(frozen=True)
class Question:
    """One call of the match to rule on: ``n`` counts from 1 in the match's order."""

    n: int
    seq: int
    period: int
    at_ms: int | None
    call: Mapping[str, Any]
    expected: Expected
    rule: str  # the rule of the ruling (the restart's, or 12.2)
    template: str  # why, in the engine's words (an ``N_`` template) …
    params: Mapping[str, object]  # … and its parameters
    rules: tuple[str, ...]  # every rule the question is about: the ruling's, 10.8 when moved, 9.3 for a card
    score: Mapping[str, int]  # the score before the call, as the referee saw it
    is_foul: bool

    @property
    def message(self) -> str:
        return self.template.format(**self.params)

    def about(self, wanted: Iterable[str]) -> bool:
        """Whether the question cites one of ``wanted`` ("10.8"; "12" takes in 12.1 and 12.2)."""
        return any(r == w or r.startswith(w + ".") for w in wanted for r in self.rules)

    def public(self) -> dict[str, Any]:
        """API.md's question: the call as logged, without its ruling."""
        return {"n": self.n, "period": self.period, "at_ms": self.at_ms, "call": dict(self.call), "score": dict(self.score)}


@dataclass(frozen=True)
class Answer:
    """A trainee's answer: the restart named, and for a foul the card (``card_given`` False: not answered)."""

    type: str
    team: str | None
    spot: Point | None = None
    points: int | None = None
    card: CardColor | None = None
    card_given: bool = False


@dataclass(frozen=True)
class Grade:
    correct: bool
    type_ok: bool
    team_ok: bool
    spot_ok: bool
    card_ok: bool
    distance_m: float | None  # from the engine's spot
    at_origin: bool  # the answer is at the call's spot, which the 3 m rule moved (10.8)


def questions(setup: MatchSetup, log: Sequence[Row], rules: Sequence[str] = ()) -> list[Question]:
    """Every ruling call of ``log`` in order, numbered from 1; with ``rules``, only those about them."""
    out: list[Question] = []
    n = 0
    for step in replay_steps(setup, log):
        q = _question(setup, step.entry, step.event.fields(), step.before, step.after, step.rulings, n + 1)
        if q is None:
            continue
        n += 1
        if not rules or q.about(rules):
            out.append(q)
    return out


def exercise(setup: MatchSetup, events: Sequence[Mapping[str, Any]], start_ms: int = 0) -> Question:
    """A hand-written exercise: ``events`` (API event bodies, ``at_ms`` optional) replayed from the start;
    the question is the last one, "what now?". Raises ``ReplayError`` when an event is refused, and
    ``ValueError`` when the last event rules no restart."""
    rows = [
        _ExerciseRow(
            i + 1, e["type"], {k: v for k, v in e.items() if k not in ("type", "at_ms")}, start_ms + i * 1000, e.get("at_ms")
        )
        for i, e in enumerate(events)
    ]
    last: Question | None = None
    for step in replay_steps(setup, rows):
        if step.entry.seq == len(rows):
            last = _question(setup, step.entry, step.event.fields(), step.before, step.after, step.rulings, 1)
    if last is None:
        raise ValueError("the last event of an exercise must be a call after which the engine rules a restart")
    return last


@dataclass(frozen=True)
class _ExerciseRow:
    seq: int
    type: str
    fields: dict[str, Any]
    received_ms: int
    at_ms: int | None = None
    voided_by: int | None = None
    by: str = "referee"


def grade(q: Question, a: Answer) -> Grade:
    """The answer against the engine's ruling (API.md: type and team must match, the spot within 1 m)."""
    e = q.expected
    type_ok = a.type == e.type
    team_ok = a.team == e.team
    distance = None
    at_origin = False
    if e.spot is None:
        spot_ok = True  # the shootout's questions name no spot
    elif a.spot is None:
        spot_ok = False
    else:
        distance = math.dist((a.spot.x, a.spot.y), (e.spot.x, e.spot.y))
        spot_ok = distance <= SPOT_TOLERANCE_M
        if not spot_ok and e.origin is not None:
            at_origin = math.dist((a.spot.x, a.spot.y), (e.origin.x, e.origin.y)) <= SPOT_TOLERANCE_M
    if e.points is not None:
        type_ok = type_ok and a.points == e.points
    # A foul's card is graded when answered (the trainee's page always answers it; API.md's body may not).
    card_ok = not (q.is_foul and a.card_given) or a.card == e.card
    return Grade(type_ok and team_ok and spot_ok and card_ok, type_ok, team_ok, spot_ok, card_ok, distance, at_origin)


def _question(
    setup: MatchSetup, entry: Row, fields: dict[str, Any], before: Any, after: Any, rulings: tuple[Any, ...], n: int
) -> Question | None:
    book = setup.rules.book  # a 1.0 match cites 1.0 (SPEC §11.12): its 2 m move is V1-6, its shootout V1-D2
    if entry.type in SHOOTOUT_CALLS:
        return _shootout_question(entry, fields, before, after, rulings, n, book.cite(SHOOTOUT_RULE))
    if entry.type not in CALLS or after.restart is None:
        return None
    ruled = [r for r in rulings if isinstance(r, RestartAwarded | RestartStands)]
    if not ruled:
        return None
    r = after.restart
    why = r.why
    rule = why.rule if why is not None else ruled[-1].rule
    moved = next((m for m in rulings if isinstance(m, FreeKickMoved)), None)
    carded = any(isinstance(c, Cautioned | SentOff) for c in rulings)
    rules = [rule]
    move_rule, card_rule = book.retreat_rule, book.cite(CARD_RULE)
    if moved is not None and move_rule not in rules:
        rules.append(move_rule)
    if carded and card_rule not in rules:
        rules.append(card_rule)
    is_foul = entry.type == "foul"
    expected = Expected(
        r.type,
        r.team,
        r.spot,
        origin=moved.origin if moved is not None else None,
        card=fields.get("card") if is_foul else None,
        sent_off=any(isinstance(c, SentOff) for c in rulings),
    )
    return Question(
        n,
        entry.seq,
        before.period,
        entry.at_ms,
        _call(entry.type, fields),
        expected,
        rule,
        why.template if why is not None else "",
        dict(why.params) if why is not None else {},
        tuple(rules),
        dict(before.score),
        is_foul,
    )


def _shootout_question(
    entry: Row, fields: dict[str, Any], before: Any, after: Any, rulings: tuple[Any, ...], n: int, rule: str
) -> Question | None:
    so = after.shootout
    if so is None:
        return None
    nxt = so.next_kick()
    if nxt is not None:
        expected = Expected("shootout_kick", nxt.team, points=nxt.points)
        template, params = (
            N_("{team} kicks next, for {points} point(s), taker #{player}"),
            {"team": nxt.team, "points": nxt.points, "player": nxt.player},
        )
    else:
        expected = Expected("shootout_over", so.winner())
        template, params = N_("the shootout is decided: {team} wins"), {"team": so.winner()}
    kick = next((k for k in rulings if isinstance(k, ShootoutKickTaken)), None)
    call = _call(entry.type, fields)
    if kick is not None:
        call = {**call, "player": kick.player, "points": kick.points, "scored": kick.scored}
    return Question(
        n,
        entry.seq,
        before.period,
        entry.at_ms,
        call,
        expected,
        rule,
        template,
        params,
        (rule,),
        dict(before.score),
        False,
    )


def _call(event_type: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The call as the referee logged it: API.md's ``call`` fields (absent ones null), no card, no ruling."""
    out = {k: fields.get(k) for k in CALL_FIELDS}
    out["type"] = event_type
    return out


def score_sheet(graded: Iterable[tuple[str, Question, bool]]) -> list[dict[str, Any]]:
    """Per trainee (in the order first seen) and per rule: ``[correct, answered]`` (API.md's ``by_rule``)."""
    sheets: dict[str, dict[str, Any]] = {}
    for trainee, q, correct in graded:
        s = sheets.setdefault(trainee, {"name": trainee, "answered": 0, "correct": 0, "by_rule": {}})
        s["answered"] += 1
        s["correct"] += int(correct)
        for rule in q.rules:
            c = s["by_rule"].setdefault(rule, [0, 0])
            c[0] += int(correct)
            c[1] += 1
    return list(sheets.values())


# Every restart a rule book may give, in the order a trainee is offered them (book.py's ``RestartType``).
RESTART_ORDER = ("kickoff", "end_line", "side_line", "free_kick", "penalty", "corner", "short_corner")


def answer_choices(setup: MatchSetup) -> dict[str, Any]:
    """What a trainee may answer under the match's rule book (issue 33 item 12): its restarts (1.0's corner and
    short corner, V1-6; 2.0's end-line ball, 10.4), whether a foul's card is asked (9.3; 1.0 has none,
    V1-D10), and whether the match may go to a shootout (12; a 1.0 knockout's, V1-D2)."""
    book = setup.rules.book
    return {
        "restarts": [t for t in RESTART_ORDER if t in book.restart_rule],
        "cards": book.cards,
        "shootout": setup.rules.level_goes_to_shootout,
    }
