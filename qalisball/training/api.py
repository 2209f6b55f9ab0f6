"""The training API (API.md "Training and what-if"): thin handlers over ``TrainingService``.

Starting, listing and closing sessions need the organiser token; the trainer (organiser) also reads any
session's answers and sheet without its code, closed ones too. A trainee holds the session's code
(``?code=`` or the body's ``code``) and, after joining once (``POST …/trainees``), a token of their own that
every answer carries (D220). Checks in API.md's order: 401/403, 404, 400, 409; a closed or expired session's
code is a 409 ``conflict`` (D221). Wrong codes are throttled per address (D50), per session and for the
codes typed without a session (D223); joins per address (D220): 429 with ``Retry-After``.
"""

from __future__ import annotations

import io
from typing import Any, NoReturn

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from flask_babel import gettext
from marshmallow import Schema, ValidationError

from qalisball.match import slots as match_slots
from qalisball.match.schemas import parse_event
from qalisball.match.service import NotFound
from qalisball.reports.render import csv_writer
from qalisball.rules.catalogue import CORRECTABLE
from qalisball.rules.field import Point
from qalisball.rules.state import MatchSetup
from qalisball.rules.training import Answer, Grade, Question, grade
from qalisball.training import schemas
from qalisball.training.service import (
    EXERCISE_SETUP,
    BadExercise,
    Closed,
    NotOver,
    NotYours,
    Session,
    Taken,
    TrainingService,
    WrongCode,
)
from qalisball.web import hardening, refusal_words, rulebook
from qalisball.web.errors import ApiError, answer_api_errors, invalid
from qalisball.web.field_svg import field_svg
from qalisball.web.guards import is_organiser, organiser_required, request_token
from qalisball.web.i18n import current_language
from qalisball.web.services import Slot
from qalisball.web.strict_json import read_json

bp = Blueprint("training_api", __name__, url_prefix="/api")
answer_api_errors(bp)
TRAINING: Slot[TrainingService] = Slot("qalisball_training")


def init_app(app: Flask) -> None:
    """Create the training service over the matches, serve its API and pages."""
    TRAINING.install(app, TrainingService(match_slots.MATCHES.of(app)))
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


@bp.errorhandler(Closed)
def _closed(exc: Closed) -> tuple[Response, int]:
    return jsonify({"error": "conflict", "message": str(exc)}), 409


@bp.errorhandler(Taken)
def _taken(exc: Taken) -> tuple[Response, int]:
    return jsonify({"error": "conflict", "message": str(exc)}), 409


@bp.errorhandler(NotYours)
def _not_yours(exc: NotYours) -> tuple[Response, int]:
    return jsonify({"error": "unauthorized" if exc.status == 401 else "forbidden", "message": str(exc)}), exc.status


def _now() -> int:
    return int(current_app.config["CLOCK"]())


def _too_many(wait: int, message: str) -> NoReturn:
    response = jsonify({"error": "too_many_requests", "message": message})
    response.status_code = 429
    response.headers["Retry-After"] = str(wait)
    raise hardening.Throttled(response)


def _session(session_id: str, code: str | None, trainer: bool = True) -> Session:
    """The session, for the holder of its code: 401 before 404 (a wrong code learns nothing). A code is
    throttled as a token is (D50): 429 while this address is, and a wrong one counts; and per session
    (D223): 429 once that session's bucket is full, whoever guesses. ``trainer``: the organiser's token
    opens any session without the code, closed ones too (to read its answers and sheet)."""
    svc = training()
    if trainer and is_organiser(request_token()):
        return svc.get(session_id)
    if code:
        hardening.secret_presented()
    s = svc.sessions.get(session_id)
    if s is None:
        if not code:
            raise WrongCode("the session's code is needed")
        raise NotFound(f"no training session {session_id}")
    wait = svc.session_guesses.wait_s(s.id, _now())
    if wait:
        _too_many(wait, f"too many wrong codes for this training session: try again in {wait} s")
    try:
        svc.check_code(s, code)
    except WrongCode:
        svc.session_guesses.failed(s.id, _now())
        raise
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


@bp.get("/training")
@organiser_required
def listing() -> Response:
    """Extra: the trainer's sessions, running first (issue 27 item 8: the trainer's page reopens one)."""
    return jsonify(training().listing())


@bp.post("/training/<session_id>/close")
@organiser_required
def close(session_id: str) -> Response:
    """Extra: the trainer ends a session (D221): its code opens nothing any more."""
    s = training().close(training().get(session_id))
    return jsonify({"id": s.id, "status": s.status(_now()), "closed_at": s.closed_at})


@bp.get("/training/join")
def join() -> Response:
    """Extra: the session a code opens (the trainee's page asks with the code typed), with what the
    trainee may answer in its rule book (``choices``: issue 33 item 12)."""
    code = request.args.get("code", "")
    if not code:
        raise WrongCode("the session's code is needed")
    hardening.secret_presented()  # D50: a code is guessed as a token is
    svc = training()
    wait = svc.code_guesses.wait_s("*", _now())
    if wait:  # D223: all the codes guessed without a session, from any number of addresses
        _too_many(wait, f"too many wrong training codes: try again in {wait} s")
    try:
        s = svc.by_code(code)
    except NotFound as exc:
        svc.code_guesses.failed("*", _now())
        raise WrongCode(str(exc)) from exc  # 401: a wrong code, counted by the throttle
    return jsonify({"id": s.id, "match": s.match_id, "rules": s.rules, "choices": svc.choices(s)})


@bp.get("/training/<session_id>/questions")
def questions(session_id: str) -> Response:
    s = _session(session_id, request.args.get("code"))
    return jsonify([q.public() for q in training().questions(s)])


@bp.get("/training/<session_id>/field.svg")
def field(session_id: str) -> Response:
    """Extra: the match's field as the console draws it (areas, centre, 1.0's set-piece spots: issue 27
    item 9), for the trainee's and the trainer's pages to mark the spots on."""
    s = _session(session_id, request.args.get("code"))
    setup = training().setup_of(s)
    svg = field_svg(setup.field, title=gettext("Field"), rule_set=setup.rules.rule_set)
    return Response(svg, mimetype="image/svg+xml")


@bp.post("/training/<session_id>/trainees")
def join_session(session_id: str) -> tuple[Response, int]:
    """A trainee joins once (D220): ``{"code", "name"}`` → ``201 {"trainee", "token"}``; the same name again
    (case and width folded) is a 409 ``conflict``, as is a full session; joins are throttled per address."""
    body = read_json(request)
    code = body.get("code") if isinstance(body, dict) else None
    s = _session(session_id, code if isinstance(code, str) else None, trainer=False)
    svc = training()
    address = request.remote_addr or "?"
    wait = svc.joins.wait_s(address, _now())
    if wait:
        _too_many(wait, f"too many trainees joined from this address: try again in {wait} s")
    data = _load(schemas.JoinSchema(), body)
    svc.joins.failed(address, _now())  # every join counts, a refused name too
    t, token = svc.join(s, data["name"].strip())
    return jsonify({"trainee": t.id, "token": token, "name": t.name}), 201


@bp.post("/training/<session_id>/answers")
def answer(session_id: str) -> Response:
    body = read_json(request)
    code = body.get("code") if isinstance(body, dict) else None
    s = _session(session_id, code if isinstance(code, str) else None, trainer=False)
    name = body.get("trainee") if isinstance(body, dict) else None
    t = training().trainee_of(s, body.get("token") if isinstance(body, dict) else None, name if isinstance(name, str) else None)
    data = _load(schemas.AnswerSchema(), body)
    restart = data["restart"]
    graded = training().answer(s, t.name, data["n"], restart, data.get("card"), "card" in data)
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
    """Extra: everyone's answers in the order they came, for the trainer's screen (live by polling):
    ``?since=<how many it has>`` for the new ones only, at most ``ANSWERS_PAGE`` (``?limit=``) a request."""
    s = _session(session_id, request.args.get("code"))
    since, limit = _count("since", 0, None), _count("limit", ANSWERS_PAGE, ANSWERS_PAGE)
    return jsonify(training().answers(s, since, limit))


ANSWERS_PAGE = 500  # the most answers one GET …/answers returns (issue 33 item 5): ask again ``since`` the last


def _count(name: str, default: int, most: int | None) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9 or (most is not None and int(raw) > most):
        raise invalid(name, f"a whole number from 0{'' if most is None else f' to {most}'}")
    return int(raw)


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
