"""The training API (API.md "Training and what-if"): thin handlers over ``TrainingService``.

Starting a session needs the organiser token; everything else the session's code (``?code=`` or the
body's ``code``), never a token. Checks in API.md's order: 401/403, 404, 400, 409.
"""

from __future__ import annotations

import io
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from marshmallow import Schema, ValidationError

from qalisball.match.schemas import parse_event
from qalisball.match.service import NotFound
from qalisball.reports.render import csv_writer
from qalisball.rules.catalogue import CORRECTABLE
from qalisball.rules.field import Point
from qalisball.rules.state import MatchSetup
from qalisball.rules.training import Answer, Grade, Question, grade
from qalisball.training import schemas
from qalisball.training.service import EXERCISE_SETUP, BadExercise, NotOver, Session, TrainingService, WrongCode
from qalisball.web import hardening, refusal_words, rulebook, services
from qalisball.web.errors import ApiError, answer_api_errors
from qalisball.web.guards import organiser_required
from qalisball.web.i18n import current_language
from qalisball.web.services import Slot
from qalisball.web.strict_json import read_json

bp = Blueprint("training_api", __name__, url_prefix="/api")
answer_api_errors(bp)
TRAINING: Slot[TrainingService] = Slot("qalisball_training")


def init_app(app: Flask) -> None:
    """Create the training service over the matches, serve its API and pages."""
    TRAINING.install(app, TrainingService(services.MATCHES.of(app)))
    app.register_blueprint(bp)
    from qalisball.training import pages

    app.register_blueprint(pages.bp)


def training() -> TrainingService:
    return TRAINING()


@bp.errorhandler(NotFound)
def _not_found(exc: NotFound) -> tuple[Response, int]:
    return jsonify({"error": "not_found", "message": str(exc)}), 404


@bp.errorhandler(WrongCode)
def _wrong_code(exc: WrongCode) -> tuple[Response, int]:
    return jsonify({"error": "unauthorized", "message": str(exc)}), 401


def _load(schema: Schema, body: Any) -> dict[str, Any]:
    try:
        data: dict[str, Any] = schema.load(body)
    except ValidationError as exc:
        raise ApiError(400, "invalid", "the body does not fit the schema", fields=exc.normalized_messages()) from exc
    return data


def _session(session_id: str, code: str | None) -> Session:
    """The session, for the holder of its code: 401 before 404 (a wrong code learns nothing). A code is
    throttled as a token is (D50): 429 while this address is, and a wrong one counts."""
    if code:
        hardening.secret_presented()
    svc = training()
    s = svc.sessions.get(session_id)
    if s is None:
        if not code:
            raise WrongCode("the session's code is needed")
        raise NotFound(f"no training session {session_id}")
    svc.check_code(s, code)
    return s


@bp.post("/training")
@organiser_required
def start() -> tuple[Response, int]:
    data = _load(schemas.StartSchema(), read_json(request))
    try:
        s = training().start(data["match"], data["rules"])
    except NotOver as exc:
        raise ApiError(400, "invalid", str(exc), fields={"match": [str(exc)]}) from exc
    return jsonify({"id": s.id, "code": s.code}), 201


@bp.get("/training/join")
def join() -> Response:
    """Extra: the session a code opens (the trainee's page asks with the code typed)."""
    code = request.args.get("code", "")
    if not code:
        raise WrongCode("the session's code is needed")
    hardening.secret_presented()  # D50: a code is guessed as a token is
    try:
        s = training().by_code(code)
    except NotFound as exc:
        raise WrongCode(str(exc)) from exc  # 401: a wrong code, counted by the throttle
    return jsonify({"id": s.id, "match": s.match_id, "rules": s.rules})


@bp.get("/training/<session_id>/questions")
def questions(session_id: str) -> Response:
    s = _session(session_id, request.args.get("code"))
    return jsonify([q.public() for q in training().questions(s)])


@bp.post("/training/<session_id>/answers")
def answer(session_id: str) -> Response:
    body = read_json(request)
    code = body.get("code") if isinstance(body, dict) else None
    s = _session(session_id, code if isinstance(code, str) else None)
    data = _load(schemas.AnswerSchema(), body)
    restart = data["restart"]
    graded = training().answer(s, data["trainee"].strip(), data["n"], restart, data.get("card"), "card" in data)
    q, g = graded.question, graded.grade
    setup = training().setup_of(s)
    return jsonify(
        {
            "correct": g.correct,
            "expected": q.expected.as_dict(),
            "rule": q.rule,
            "message": words(q, setup),
            # Extras (docs/api-extras.md): the rule's title, what was right, the other rules the call is about.
            "rule_title": rulebook.title(q.rule, current_language()),
            "rules": list(q.rules),
            "parts": _parts(g),
            "first": graded.first,
        }
    )


@bp.get("/training/<session_id>/sheet")
def sheet(session_id: str) -> Response:
    s = _session(session_id, request.args.get("code"))
    return jsonify({"trainees": training().sheet(s)})


@bp.get("/training/<session_id>/sheet.csv")
def sheet_csv(session_id: str) -> Response:
    """The sheet, one row per trainee and rule (and one per trainee for all rules, ``rule`` empty)."""
    s = _session(session_id, request.args.get("code"))
    out = io.StringIO()
    out.write("\ufeff")  # for spreadsheet programs, as every export of the app
    w = csv_writer(out)  # the app's one CSV writer: a trainee named "=1+2" is text, never a formula (D51, D150)
    w.writerow(["trainee", "rule", "correct", "answered"])
    for t in training().sheet(s):
        w.writerow([t["name"], "", t["correct"], t["answered"]])
        for rule, (right, answered) in sorted(t["by_rule"].items()):
            w.writerow([t["name"], rule, right, answered])
    return Response(
        out.getvalue(), mimetype="text/csv", headers={"Content-Disposition": f"attachment; filename=training-{s.id}.csv"}
    )


@bp.get("/training/<session_id>/answers")
def answers(session_id: str) -> Response:
    """Extra: everyone's answers, for the trainer's screen (per question, live by polling)."""
    s = _session(session_id, request.args.get("code"))
    return jsonify(training().answers(s))


# -- the trainer's pace (D190) ----------------------------------------------------------------------


@bp.get("/training/<session_id>/pace")
def pace(session_id: str) -> Response:
    """Extra: the question the trainer has moved everyone to (null: each trainee at their own pace)."""
    s = _session(session_id, request.args.get("code"))
    return jsonify({"n": training().pace.get(s.id)})


@bp.put("/training/<session_id>/pace")
@organiser_required
def move_pace(session_id: str) -> Response:
    """Extra: the trainer moves everyone following to question ``n`` (organiser token)."""
    s = training().get(session_id)
    data = _load(schemas.PaceSchema(), read_json(request))
    return jsonify({"n": training().set_pace(s, data["n"])})


# -- hand-written exercises (D189) ------------------------------------------------------------------


@bp.post("/training/exercises")
@organiser_required
def add_exercise() -> tuple[Response, int]:
    """Extra: store an exercise (its shared JSON); answered with the engine's own answer to it."""
    data = _load(schemas.ExerciseSchema(), read_json(request))
    events = [_exercise_event(i, e) for i, e in enumerate(data["events"])]
    x, q = training().add_exercise(data["title"].strip(), events)
    return jsonify({"id": x.id, **x.shared(), **_verdict(q, None)}), 201


@bp.get("/training/exercises")
def list_exercises() -> Response:
    """Extra: every stored exercise, as shared (teaching material: anyone may read it)."""
    return jsonify([{"id": x.id, "created_at": x.created_at, **x.shared()} for x in training().exercises.values()])


@bp.get("/training/exercises/<exercise_id>")
def get_exercise(exercise_id: str) -> Response:
    """Extra: one exercise's shared JSON and its question (``?download=1``: as a file to pass on)."""
    x = training().exercise(exercise_id)
    if request.args.get("download"):
        return Response(
            jsonify(x.shared()).get_data(),
            mimetype="application/json",
            headers={"Content-Disposition": f"attachment; filename=exercise-{x.id}.json"},
        )
    q = training().ask(x.events)
    return jsonify({"id": x.id, **x.shared(), "question": q.public()})


@bp.post("/training/exercises/<exercise_id>/answers")
def answer_exercise(exercise_id: str) -> Response:
    """Extra: an answer to an exercise, graded by the engine (nothing stored: anyone may try)."""
    x = training().exercise(exercise_id)
    data = _load(schemas.ExerciseAnswerSchema(), read_json(request))
    q = training().ask(x.events)
    restart = data["restart"]
    spot = restart.get("spot")
    given = Answer(
        restart["type"],
        restart.get("team"),
        None if spot is None else Point(float(spot["x"]), float(spot["y"])),
        restart.get("points"),
        data.get("card"),
        "card" in data,
    )
    g = grade(q, given)
    return jsonify({"correct": g.correct, **_verdict(q, g)})


def _exercise_event(i: int, body: dict[str, Any]) -> dict[str, Any]:
    """One event of an exercise, read exactly as a match's events endpoint reads it (400 naming it)."""
    if not isinstance(body.get("type"), str) or body["type"] not in CORRECTABLE:
        raise ApiError(400, "invalid", "an exercise is made of calls", fields={f"events.{i}.type": ["a call of the catalogue"]})
    try:
        parse_event(body)
    except ValidationError as exc:
        messages = exc.normalized_messages()
        fields = {f"events.{i}.{k}": v for k, v in messages.items()} if isinstance(messages, dict) else {f"events.{i}": messages}
        raise ApiError(400, "invalid", "an event of the exercise does not fit the schema", fields=fields) from exc
    return dict(body)


def _verdict(q: Question, g: Grade | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "question": q.public(),
        "expected": q.expected.as_dict(),
        "rule": q.rule,
        "rule_title": rulebook.title(q.rule, current_language()),
        "rules": list(q.rules),
        "message": words(q, EXERCISE_SETUP),
    }
    if g is not None:
        out["parts"] = _parts(g)
    return out


@bp.errorhandler(BadExercise)
def _bad_exercise(exc: BadExercise) -> tuple[Response, int]:
    """A refused call is a 409 ``rule`` naming it (``index``); a last call that rules nothing a 400."""
    if exc.rule is not None:
        return jsonify({"error": "rule", "rule": exc.rule, "message": str(exc), "index": exc.index}), 409
    return jsonify({"error": "invalid", "message": str(exc), "fields": {"events": [str(exc)]}}), 400


def words(q: Question, setup: MatchSetup) -> str:
    """Why the engine ruled so, in the trainee's language, teams by their names."""
    if not q.template:
        return ""
    return refusal_words.render(q.template, q.params, setup)


def _parts(g: Grade) -> dict[str, Any]:
    return {
        "type": g.type_ok,
        "team": g.team_ok,
        "spot": g.spot_ok,
        "card": g.card_ok,
        "distance_m": None if g.distance_m is None else round(g.distance_m, 2),
        "at_call_spot": g.at_origin,  # 10.8: the answer is where the call was, before the 3 m move
    }
