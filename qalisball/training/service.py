"""The training service (issue 24): sessions started from a finished match, answers graded by the engine.

The questions are the engine's (``rules/training.py``) over the match's log, computed once per session and
kept (again only if the match's log grew: issue 33 item 5); the match is only read. A trainee joins once
with the session's code and a name and gets a token of their own, which every answer carries, so nobody
answers as someone else (D220). The first answer of a trainee to a question counts: the trainer's sheet
is what each trainee answered first, kept per session and counted again only when an answer arrives.

A session ends: the trainer closes it, or it expires ``SESSION_HOURS`` after it started (D221). Then its
code opens nothing (409 ``conflict`` "closed"); the trainer still reads its answers and sheet.
"""

from __future__ import annotations

import logging
import secrets
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
from qalisball.storage import tokens
from qalisball.storage.engine import DatabaseError
from qalisball.training.names import name_key
from qalisball.training.store import TrainingStore
from qalisball.web.hardening import Throttle

log = logging.getLogger(__name__)

# Codes are read off a screen and typed on a phone: no 0/O, 1/I.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
# A session starts from a match that is over (API.md "a finished match"); an abandoned one has calls too.
OVER = ("finished", "abandoned")
# D220: a session takes at most this many trainees (a class, or a whole referees' course, never a crowd).
MAX_TRAINEES = 200
# D221: a session the trainer did not close ends this long after it started (one evening's course, with margin).
SESSION_HOURS = 24
SESSION_MS = SESSION_HOURS * 3_600_000
# D223: besides each address's bucket (D50), wrong codes are bounded per session (guessed by any number of
# addresses: 20 at once, then one more every 6 s, 14,400 a day against 32^6 codes) and, for the codes
# typed without a session (``/api/training/join``), all together (100 at once, then one a second).
SESSION_GUESSES = 20
SESSION_GUESS_EVERY_MS = 6_000
CODE_GUESSES = 100
CODE_GUESS_EVERY_MS = 1_000
# D220: joins per address (a classroom behind one router joins together): 60 at once, then one a second.
JOINS = 60
JOIN_EVERY_MS = 1_000


class NotOver(Exception):
    """The match is not over yet: no training on a match being played."""


class WrongCode(Exception):
    """The code is not this session's."""


class Closed(Exception):
    """The session was closed by the trainer, or expired (D221): its code opens nothing any more."""


class Taken(Exception):
    """A trainee of this name has joined already, or the session is full (409 ``conflict``)."""


class NotYours(Exception):
    """A trainee's token (401: none or no trainee's; 403: another trainee's than the name given)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


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
class Trainee:
    id: str
    name: str
    token_hash: str | None  # None: a name that answered before trainees joined (migration 33); it answers no more
    joined_at: str


@dataclass
class Session:
    id: str
    code: str
    match_id: str
    rules: list[str]
    created_at: str
    closed_at: str | None = None
    answers: list[AnswerRecord] = field(default_factory=list)
    trainees: dict[str, Trainee] = field(default_factory=dict)  # by name_key
    # Kept, not recomputed per request (issue 33 item 5): the questions (for the match's seq they were
    # computed at) and the sheet (for the number of answers it counted).
    _questions: tuple[int, list[training.Question]] | None = None
    _sheet: tuple[int, list[dict[str, Any]]] | None = None

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "code": self.code, "match": self.match_id, "rules": self.rules, "created_at": self.created_at}

    def started_ms(self) -> int:
        return int(datetime.fromisoformat(self.created_at).timestamp() * 1000)

    def status(self, now_ms: int) -> str:
        """``open``, ``closed`` (by the trainer) or ``expired`` (D221)."""
        if self.closed_at is not None:
            return "closed"
        return "expired" if now_ms - self.started_ms() >= SESSION_MS else "open"


@dataclass(frozen=True)
class Graded:
    question: training.Question
    grade: training.Grade
    first: bool  # False: the trainee had answered this question already; the first answer stands


class TrainingService:
    def __init__(self, matches: MatchService) -> None:
        self.matches = matches
        self.clock = matches.clock
        self.computed = 0  # how many times questions were computed from a log (tests check they are kept)
        self.session_guesses = Throttle(SESSION_GUESSES, SESSION_GUESS_EVERY_MS)  # by session id (D223)
        self.code_guesses = Throttle(CODE_GUESSES, CODE_GUESS_EVERY_MS, size=1)  # one bucket: "*" (D223)
        self.joins = Throttle(JOINS, JOIN_EVERY_MS)  # by address (D220)
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
        except DatabaseError as exc:
            self.sessions, self.exercises = {}, {}
            log.error("the training sessions cannot be read: %s", exc)

    def _read(self) -> None:
        for r in self.db.rows("training_sessions", order_by="created_at, id"):
            self.sessions[r["id"]] = Session(
                r["id"], r["code"], r["match_id"], r["rules"] or [], r["created_at"], r.get("closed_at")
            )
        for r in self.db.rows("training_trainees", order_by="joined_at, id"):
            s = self.sessions.get(r["session_id"])
            if s is not None:
                s.trainees[r["name_key"]] = Trainee(r["id"], r["name"], r["token_hash"], r["joined_at"] or "")
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
            s = Session(secrets.token_urlsafe(8), code, match_id, list(rules), self._now())
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
        """The code is this session's (``WrongCode`` otherwise) and the session has not ended (``Closed``)."""
        if not code or not secrets.compare_digest(code.strip().upper(), s.code):
            raise WrongCode("the code is not this session's")
        if s.status(self.clock()) != "open":
            raise Closed(f"training session {s.id} is {s.status(self.clock())}: its code opens nothing any more")

    def by_code(self, code: str) -> Session:
        wanted = code.strip().upper()
        for s in self.sessions.values():
            if secrets.compare_digest(s.code, wanted):
                self.check_code(s, wanted)
                return s
        raise NotFound("no training session with this code")

    def listing(self) -> list[dict[str, Any]]:
        """The trainer's sessions, running first, the newest first in each (issue 27 item 8)."""
        now = self.clock()
        rows = [
            {
                **s.public(),
                "status": s.status(now),
                "closed_at": s.closed_at,
                "expires_at": _iso(s.started_ms() + SESSION_MS),
                "trainees": len(s.trainees),
                "answers": len(s.answers),
            }
            for s in self.sessions.values()
        ]
        rows.sort(key=lambda r: r["created_at"], reverse=True)
        rows.sort(key=lambda r: r["status"] != "open")
        return rows

    def close(self, s: Session) -> Session:
        """The trainer ends the session (D221): its code stops working; closing twice changes nothing."""
        with self._lock:
            if s.closed_at is None:
                at = self._now()
                self.db.update("training_sessions", {"id": s.id}, {"closed_at": at})
                s.closed_at = at
                self.pace.pop(s.id, None)
        return s

    # -- trainees (D220) ----------------------------------------------------------------------------

    def join(self, s: Session, name: str) -> tuple[Trainee, str]:
        """A trainee joins once: a token of their own (shown once; the database keeps its hash)."""
        key = name_key(name)
        with self._lock:
            if key in s.trainees:
                raise Taken(f"a trainee named {s.trainees[key].name} has joined this session already")
            if len(s.trainees) >= MAX_TRAINEES:
                raise Taken(f"this session is full: at most {MAX_TRAINEES} trainees (D220)")
            token = tokens.new_token()
            t = Trainee(secrets.token_urlsafe(8), name, tokens.hash_token(token), self._now())
            row = {
                "session_id": s.id,
                "id": t.id,
                "name": t.name,
                "name_key": key,
                "token_hash": t.token_hash,
                "joined_at": t.joined_at,
            }
            self.db.insert("training_trainees", row)
            s.trainees[key] = t
        return t, token

    def trainee_of(self, s: Session, token: Any, name: str | None) -> Trainee:
        """The trainee whose token this is, answering under their own name (``NotYours`` otherwise)."""
        if tokens.usable(token) is None:
            raise NotYours("an answer carries the trainee's token (POST …/trainees to join)", 401)
        wanted = tokens.hash_token(str(token))
        t = next(
            (t for t in s.trainees.values() if t.token_hash is not None and secrets.compare_digest(wanted, t.token_hash)), None
        )
        if t is None:
            raise NotYours("the token is no trainee's of this session", 401)
        if name is not None and name_key(name) != name_key(t.name):
            raise NotYours(f"this token is {t.name}'s: a trainee answers under their own name", 403)
        return t

    def questions(self, s: Session) -> list[training.Question]:
        """The session's questions, computed once and kept (again only if the match's log changed)."""
        m = self.matches.get(s.match_id)
        kept = s._questions
        if kept is not None and kept[0] == m.seq:
            return kept[1]
        qs = training.questions(m.setup, m.log, s.rules)
        self.computed += 1
        s._questions, s._sheet = (m.seq, qs), None
        return qs

    def choices(self, s: Session) -> dict[str, Any]:
        """What the trainee may answer under the match's rule book (issue 33 item 12)."""
        return training.answer_choices(self.setup_of(s))

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
                    trainee, n, {"restart": restart, "card": card} if card_given else {"restart": restart}, g.correct, self._now()
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
            x = Exercise(secrets.token_urlsafe(8), title, events, self._now())
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
        """API.md's sheet: per trainee, answered, correct and ``by_rule`` ``[correct, answered]``; kept until
        the next answer (issue 33 item 5)."""
        by_n = {q.n: q for q in self.questions(s)}
        kept = s._sheet
        if kept is not None and kept[0] == len(s.answers):
            return kept[1]
        sheet = training.score_sheet((a.trainee, by_n[a.n], a.correct) for a in s.answers if a.n in by_n)
        s._sheet = (len(s.answers), sheet)
        return sheet

    def answers(self, s: Session, since: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        """Answers ``since``+1 … (at most ``limit``), in the order they came, for the trainer's screen: it asks
        only for the ones it has not seen (issue 33 item 5)."""
        return [
            {"trainee": a.trainee, "n": a.n, "correct": a.correct, **a.answer, "at": a.answered_at}
            for a in s.answers[since : since + limit]
        ]

    def _now(self) -> str:
        return _iso(self.clock())


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
