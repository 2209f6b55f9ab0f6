"""The training service (issue 24): sessions started from a finished match, answers graded by the engine.

The questions are the engine's (``rules/training.py``) over the match's log as it is when asked; the
match is only read. A trainee is known by the session's code and a name, never a token. The first answer
of a trainee to a question counts: the trainer's sheet is what each trainee answered first.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from qalisball.match.schemas import MatchSchema
from qalisball.match.service import MatchService, NotFound
from qalisball.rules import training
from qalisball.rules.engine import ReplayError
from qalisball.rules.field import Point
from qalisball.rules.setup import build_setup
from qalisball.rules.state import MatchSetup
from qalisball.training.store import TrainingStore

log = logging.getLogger(__name__)

# Codes are read off a screen and typed on a phone: no 0/O, 1/I.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
# A session starts from a match that is over (API.md "a finished match"); an abandoned one has calls too.
OVER = ("finished", "abandoned")


class NotOver(Exception):
    """The match is not over yet: no training on a match being played."""


class WrongCode(Exception):
    """The code is not this session's."""


class BadExercise(Exception):
    """A hand-written exercise the engine cannot ask: a call refused (with its rule), or a last call after
    which no restart is ruled."""

    def __init__(self, message: str, rule: str | None = None, index: int | None = None) -> None:
        super().__init__(message)
        self.rule, self.index = rule, index


def _exercise_team(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "color": "#000000",
        "players": [{"number": n, "name": f"#{n}", "gender": None} for n in range(1, 11)],
        "starting": [1, 2, 3, 4, 5, 6],
    }


# Every exercise is played on the standard field (40 x 25 m with side lines), six a side, players 1-10:
# what the trainee sees (the field diagram, the numbers) is the same for every exercise (D189).
EXERCISE_SETUP: MatchSetup = build_setup(
    MatchSchema().load(
        {
            "home": _exercise_team("home"),
            "away": _exercise_team("away"),
            "starters": 6,
            "field": {"length": 40, "width": 25, "side_lines": True},
        }
    )
)


@dataclass
class Exercise:
    """A hand-written exercise (issue 24): a short event list; its question is "what now?" after the last."""

    id: str
    title: str
    events: list[dict[str, Any]]
    created_at: str

    def shared(self) -> dict[str, Any]:
        """The JSON an exercise is shared as: posting it to ``/api/training/exercises`` stores it again."""
        return {"title": self.title, "events": self.events}


@dataclass
class AnswerRecord:
    trainee: str
    n: int
    answer: dict[str, Any]
    correct: bool
    answered_at: str


@dataclass
class Session:
    id: str
    code: str
    match_id: str
    rules: list[str]
    created_at: str
    answers: list[AnswerRecord] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "code": self.code, "match": self.match_id, "rules": self.rules, "created_at": self.created_at}


@dataclass(frozen=True)
class Graded:
    question: training.Question
    grade: training.Grade
    first: bool  # False: the trainee had answered this question already; the first answer stands


class TrainingService:
    def __init__(self, matches: MatchService) -> None:
        self.matches = matches
        self.db = TrainingStore(matches.store)
        self.sessions: dict[str, Session] = {}
        self.exercises: dict[str, Exercise] = {}
        # The trainer's pace (D190): the question every trainee following it is on, per session. Kept in
        # memory only: after a restart trainees go at their own pace until the trainer moves on again.
        self.pace: dict[str, int] = {}
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        """Read the sessions and exercises; a damaged database (D42) leaves them empty rather than stop the
        server (the match service already says the database cannot be read, on every screen)."""
        try:
            self._read()
        except sqlite3.DatabaseError as exc:
            self.sessions, self.exercises = {}, {}
            log.error("the training sessions cannot be read: %s", exc)

    def _read(self) -> None:
        for r in self.db.rows("training_sessions", order_by="created_at, id"):
            self.sessions[r["id"]] = Session(r["id"], r["code"], r["match_id"], r["rules"] or [], r["created_at"])
        for r in self.db.rows("training_exercises", order_by="created_at, id"):
            self.exercises[r["id"]] = Exercise(r["id"], r["title"] or "", r["events"], r["created_at"])
        for r in self.db.rows("training_answers", order_by="answered_at, rowid"):
            s = self.sessions.get(r["session_id"])
            if s is not None:
                s.answers.append(AnswerRecord(r["trainee"], r["n"], r["answer"], bool(r["correct"]), r["answered_at"]))

    # -- sessions ----------------------------------------------------------------------------------

    def start(self, match_id: str, rules: list[str]) -> Session:
        m = self.matches.get(match_id)  # NotFound: 404
        if m.state is None or m.state.phase not in OVER:
            raise NotOver(f"match {match_id} is not over: a training session replays a finished match")
        with self._lock:
            codes = {s.code for s in self.sessions.values()}
            code = _new_code()
            while code in codes:
                code = _new_code()
            s = Session(secrets.token_urlsafe(8), code, match_id, list(rules), _now())
            row = {"id": s.id, "code": s.code, "match_id": s.match_id, "rules": s.rules, "created_at": s.created_at}
            self.db.insert("training_sessions", row)
            self.sessions[s.id] = s
        return s

    def get(self, session_id: str) -> Session:
        s = self.sessions.get(session_id)
        if s is None:
            raise NotFound(f"no training session {session_id}")
        return s

    def check_code(self, s: Session, code: str | None) -> None:
        if not code or not secrets.compare_digest(code.strip().upper(), s.code):
            raise WrongCode("the code is not this session's")

    def by_code(self, code: str) -> Session:
        wanted = code.strip().upper()
        for s in self.sessions.values():
            if secrets.compare_digest(s.code, wanted):
                return s
        raise NotFound("no training session with this code")

    def questions(self, s: Session) -> list[training.Question]:
        m = self.matches.get(s.match_id)
        return training.questions(m.setup, m.log, s.rules)

    def setup_of(self, s: Session) -> Any:
        return self.matches.get(s.match_id).setup

    # -- answers -----------------------------------------------------------------------------------

    def answer(
        self, s: Session, trainee: str, n: int, restart: dict[str, Any], card: Any = None, card_given: bool = False
    ) -> Graded:
        q = next((q for q in self.questions(s) if q.n == n), None)
        if q is None:
            raise NotFound(f"no question {n} in training session {s.id}")
        spot = restart.get("spot")
        given = training.Answer(
            restart.get("type", ""),
            restart.get("team"),
            None if spot is None else Point(float(spot["x"]), float(spot["y"])),
            restart.get("points"),
            card,
            card_given,
        )
        g = training.grade(q, given)
        with self._lock:
            first = not any(a.trainee == trainee and a.n == n for a in s.answers)
            if first:
                record = AnswerRecord(
                    trainee, n, {"restart": restart, "card": card} if card_given else {"restart": restart}, g.correct, _now()
                )
                self.db.insert(
                    "training_answers",
                    {
                        "session_id": s.id,
                        "trainee": trainee,
                        "n": n,
                        "answer": record.answer,
                        "correct": int(g.correct),
                        "answered_at": record.answered_at,
                    },
                )
                s.answers.append(record)
        return Graded(q, g, first)

    # -- the trainer's pace (D190) -------------------------------------------------------------------

    def set_pace(self, s: Session, n: int | None) -> int | None:
        """Move everyone following the trainer to question ``n`` (None: everyone at their own pace)."""
        if n is not None and not any(q.n == n for q in self.questions(s)):
            raise NotFound(f"no question {n} in training session {s.id}")
        with self._lock:
            if n is None:
                self.pace.pop(s.id, None)
            else:
                self.pace[s.id] = n
        return n

    # -- hand-written exercises -------------------------------------------------------------------

    def add_exercise(self, title: str, events: list[dict[str, Any]]) -> tuple[Exercise, training.Question]:
        """Store an exercise once the engine can ask it (its question is returned, with the engine's answer)."""
        q = self.ask(events)
        with self._lock:
            x = Exercise(secrets.token_urlsafe(8), title, events, _now())
            self.db.insert("training_exercises", {"id": x.id, "title": x.title, "events": x.events, "created_at": x.created_at})
            self.exercises[x.id] = x
        return x, q

    def exercise(self, exercise_id: str) -> Exercise:
        x = self.exercises.get(exercise_id)
        if x is None:
            raise NotFound(f"no exercise {exercise_id}")
        return x

    @staticmethod
    def ask(events: list[dict[str, Any]]) -> training.Question:
        """The exercise's question and the engine's answer; ``BadExercise`` when the engine cannot ask it."""
        try:
            return training.exercise(EXERCISE_SETUP, events)
        except ReplayError as exc:
            raise BadExercise(str(exc.cause), exc.rule, exc.seq - 1) from exc
        except ValueError as exc:
            raise BadExercise(str(exc)) from exc

    def sheet(self, s: Session) -> list[dict[str, Any]]:
        """API.md's sheet: per trainee, answered, correct and ``by_rule`` ``[correct, answered]``."""
        by_n = {q.n: q for q in self.questions(s)}
        return training.score_sheet((a.trainee, by_n[a.n], a.correct) for a in s.answers if a.n in by_n)

    def answers(self, s: Session) -> list[dict[str, Any]]:
        """Everyone's answers, per question, for the trainer's screen."""
        return [{"trainee": a.trainee, "n": a.n, "correct": a.correct, **a.answer, "at": a.answered_at} for a in s.answers]


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
