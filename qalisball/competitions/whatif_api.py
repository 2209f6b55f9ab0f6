"""The arbitration committee's what-if over HTTP (API.md "Training and what-if", issue 24, SPEC C7).

``POST /api/matches/<id>/what-if`` replays a copy of the match's log with the changes posted (amends,
voids, inserts, validated exactly as the events endpoint validates them) and answers both outcomes, the
later events the changed log refuses, and, for a match of a competition, the standings under each
outcome. Nothing is stored: the match's log, seq and state never change (``rules/whatif.py`` is pure).
It lives with the competitions because the committee is theirs and the standings are theirs.

Its cost is bounded (issue 33 item 4, D250): one what-if computing per caller (its token) and
``MAX_RUNNING`` over every caller, a 429 past that; an identical question (the same match, at the same
seq, with the same changes, in the same language) is answered from the answer kept for it
(``Answers``, at most ``KEPT_ANSWERS``), so only a new question costs a replay. A decision's what-if
(D188) is checked as the what-if itself is (item 8, D252) and answered once, when the decision is
stored (``decision_record``, item 3, D251): the protest report reads that record.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from flask_babel import force_locale
from marshmallow import ValidationError

from qalisball.competitions import slots as competition_slots
from qalisball.match import slots as match_slots
from qalisball.match.schemas import parse_event
from qalisball.match.service import Match
from qalisball.rules import whatif
from qalisball.rules.competition.standings import MatchOutcome
from qalisball.rules.errors import InvalidEvent, RuleViolation
from qalisball.rules.state import MatchSetup, MatchState, Restart
from qalisball.rules.view import public_state
from qalisball.web import refusal_words
from qalisball.web.errors import ApiError, answer_api_errors, api_error_answer
from qalisball.web.guards import is_organiser, request_token
from qalisball.web.i18n import LANGUAGES, current_language
from qalisball.web.services import Slot
from qalisball.web.strict_json import read_json

bp = Blueprint("whatif_api", __name__, url_prefix="/api")
answer_api_errors(bp)
MAX_CHANGES = 20
MAX_RUNNING = 2  # what-ifs computing at once, over every caller (each caller: one at a time)
KEPT_ANSWERS = 64  # answers kept for identical questions, the least recently asked dropped first
RETRY_AFTER_S = 1
T = TypeVar("T")


class Busy(ApiError):
    """Past the what-if's budget (D250): 429 with ``Retry-After``."""


def busy_answer(exc: Busy) -> tuple[Response, int]:
    response, status = api_error_answer(exc)
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response, status


class Answers:
    """The what-if's budget and the answers it keeps (D250): one per app.

    ``slot(caller)`` admits one computation per caller and ``MAX_RUNNING`` in all (else a 429);
    ``get``/``put`` keep answers by question; ``computed`` counts the replays actually run.
    """

    def __init__(self, max_running: int = MAX_RUNNING, kept: int = KEPT_ANSWERS, off_loop: bool = False) -> None:
        self.max_running, self.kept = max_running, kept
        self._lock = threading.Lock()
        self._running: dict[str, int] = {}
        self._answers: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self.computed = 0
        self._pool: Any = None
        if off_loop:  # under gevent: the replays on OS threads of their own, the loop free meanwhile
            from gevent.threadpool import ThreadPool

            self._pool = ThreadPool(max_running)

    def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` (pure: no request context), on the pool when there is one: under gevent the loop goes
        on answering the officials while a replay runs, and concurrent questions meet the budget."""
        if self._pool is None:
            return fn()

        def caught() -> tuple[bool, Any]:  # a refusal is an answer, not a pool failure the hub would print
            try:
                return True, fn()
            except Exception as exc:  # raised again below, in the request
                return False, exc

        ok, value = self._pool.apply(caught)
        if not ok:
            raise value
        return cast(T, value)

    @contextmanager
    def slot(self, caller: str) -> Iterator[None]:
        with self._lock:
            busy = caller in self._running or sum(self._running.values()) >= self.max_running
            if not busy:
                self._running[caller] = 1
                self.computed += 1
        if busy:
            raise Busy(
                429,
                "too_many_requests",
                "a what-if is being computed for this caller (or too many at once): try again in a moment",
            )
        try:
            yield
        finally:
            with self._lock:
                self._running.pop(caller, None)

    def get(self, key: tuple[Any, ...]) -> Any:
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
            return found

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        with self._lock:
            self._answers[key] = value
            self._answers.move_to_end(key)
            while len(self._answers) > self.kept:
                self._answers.popitem(last=False)


ANSWERS: Slot[Answers] = Slot("qalisball.whatif_answers")
bp.register_error_handler(Busy, busy_answer)


def answers() -> Answers:
    """This app's what-if budget and kept answers."""
    app = current_app
    return ANSWERS.get_or_install(app, lambda: Answers(off_loop=app.config.get("ASYNC_MODE") == "gevent"))


def init_app(app: Flask) -> None:
    """The what-if API. Its pages (``whatif_pages.py``: the what-if page, the protest report) use this module's
    decision record, one way: ``create_app`` registers them (D322), so no import runs back from here."""
    app.register_blueprint(bp)


@bp.post("/matches/<match_id>/what-if")
def what_if(match_id: str) -> Response:
    svc = match_slots.match_service()
    token = request_token()
    m = svc.matches.get(match_id)
    organiser = is_organiser(token)
    role = m.role_of(token) if m is not None else None
    if not organiser and role is None:
        raise ApiError(401, "unauthorized", "no token, or a token that is not valid for this match")
    if not organiser and role != "referee":
        raise ApiError(403, "forbidden", f"the {role} may not open a what-if: the referee or the organiser may")
    if m is None:
        raise ApiError(404, "not_found", f"no match {match_id}")
    changes = _changes(read_json(request))
    seqs = {e.seq for e in m.log}
    for c in changes:
        if c.place not in seqs and not (c.kind == "insert" and c.place == 0):
            raise ApiError(404, "not_found", f"no event {c.place} in match {m.id}")
    question, language = _question(changes), current_language()
    book = answers()
    body = book.get(("answer", m.id, m.seq, question, language))
    if body is None:
        with book.slot(token or ""):  # 429 past the budget (D250)
            try:
                replayed = book.run(lambda: _replay(m, changes))
                body = _answer(m, changes, replayed=replayed)
            except InvalidEvent as exc:
                raise ApiError(400, "invalid", str(exc), fields=exc.fields) from exc
            except RuleViolation as exc:
                raise _rule_error(exc, m.setup) from exc
        book.put(("answer", m.id, body["actual"]["seq"], question, language), body)  # the seq replayed
    standings = _standings(m, body["_changed"])
    out = {k: v for k, v in body.items() if k != "_changed"}
    if standings is not None:
        out["standings"] = standings
    return jsonify(out)


def compare(m: Match, changes: list[whatif.Change], upto: int | None = None) -> dict[str, Any]:
    """API.md's answer: both outcomes of ``m``'s log (its first ``upto`` events: the log the committee
    looked at, D188) and of the log with ``changes``. Raises as ``whatif.what_if`` does."""
    body = _answer(m, changes, upto)
    standings = _standings(m, body.pop("_changed"))
    if standings is not None:
        body["standings"] = standings
    return body


def _replay(m: Match, changes: list[whatif.Change], upto: int | None = None) -> tuple[whatif.WhatIf[Any], int]:
    log = m.log if upto is None else _prefix(m.log, upto)
    return whatif.what_if(m.setup, log, changes, by="referee"), (log[-1].seq if log else 0)


def _answer(
    m: Match, changes: list[whatif.Change], upto: int | None = None, replayed: tuple[whatif.WhatIf[Any], int] | None = None
) -> dict[str, Any]:
    """Both outcomes and the refusals in the caller's words; ``_changed``: the changed state (standings)."""
    w, seq = replayed or _replay(m, changes, upto)
    now = match_slots.match_service().clock()
    body: dict[str, Any] = {
        "actual": public_state(w.actual.state, now, m.id, seq, legal=False),
        "what_if": public_state(w.what_if.state, now, m.id, seq, legal=False),
        "refused": [
            {"seq": r.seq, "type": r.type, "rule": r.rule, "message": _words(r.template, dict(r.params), m.setup)}
            for r in w.what_if.refused
        ],
        # Extras (docs/api-extras.md): the restart that stood right after the changed call, each way.
        "restart_after": {"actual": _restart(w.actual.restart_after), "what_if": _restart(w.what_if.restart_after)},
        "_changed": w.what_if.state,
    }
    return body


def _question(changes: list[whatif.Change]) -> str:
    """The changes as one string, the same for the same question however its JSON was spaced or ordered."""
    return json.dumps([[c.kind, c.fields] for c in changes], sort_keys=True, separators=(",", ":"), default=str)


# -- a decision's what-if (D188): checked as the what-if is, answered once, kept with the decision -------


def decision_record(m: Match | None, link: dict[str, Any], caller: str = "") -> dict[str, Any]:
    """What the protest report prints of a decision's what-if (D251), computed once: both outcomes'
    score, shootout, winner, the restart after the changed call, and the later calls refused with their
    rules and messages in every language.

    Checked first as the what-if itself checks its request (D252): ``seq`` one of the match's (1 to its
    seq now), each change about an event among the first ``seq`` (400 naming the field), and each change
    legal at its place (409 ``rule``), so that the report replays the log the committee looked at.
    """
    if m is None:
        raise ApiError(400, "invalid", "no match to look at", fields={"what_if": ["this fixture has no match of the app"]})
    seq = link["seq"]
    if not 1 <= seq <= m.seq:
        message = f"the match's seq when the committee looked: 1 to {m.seq}"
        raise ApiError(400, "invalid", message, fields={"what_if.seq": [message]})
    try:
        changes = parse_changes(link["changes"])
    except ApiError as exc:
        fields = {f"what_if.{k}": v for k, v in (exc.extra.get("fields") or {}).items()}
        raise ApiError(400, "invalid", exc.message, fields=fields) from exc
    for i, c in enumerate(changes):
        if not 1 <= c.place <= seq and not (c.kind == "insert" and c.place == 0):
            name = "after" if c.kind == "insert" else "target"
            message = f"no event {c.place} among the first {seq} of match {m.id}"
            raise ApiError(400, "invalid", message, fields={f"what_if.changes.{i}.{name}": [message]})
    key = ("record", m.id, seq, _question(changes))
    book = answers()
    record = book.get(key)
    if record is not None:
        return dict(record)
    with book.slot(caller):
        try:
            w, _ = book.run(lambda: _replay(m, changes, upto=seq))
        except InvalidEvent as exc:
            fields = {f"what_if.{k}": v for k, v in (exc.fields or {}).items()} or {"what_if.changes": [str(exc)]}
            raise ApiError(400, "invalid", str(exc), fields=fields) from exc
        except RuleViolation as exc:
            raise _rule_error(exc, m.setup) from exc
    record = {
        "match": m.id,
        "seq": seq,
        "actual": _outcome(w.actual.state),
        "what_if": _outcome(w.what_if.state),
        "restart_after": {"actual": _restart(w.actual.restart_after), "what_if": _restart(w.what_if.restart_after)},
        "refused": [
            {"seq": r.seq, "type": r.type, "rule": r.rule, "message": _in_every_language(r.template, dict(r.params), m.setup)}
            for r in w.what_if.refused
        ],
    }
    book.put(key, record)
    return dict(record)


def _outcome(s: MatchState) -> dict[str, Any]:
    so = s.shootout
    return {
        "score": dict(s.score),
        "shootout": None if so is None else {"score": dict(so.score)},
        "winner": s.winner,
    }


def _in_every_language(template: str, params: dict[str, object], setup: MatchSetup) -> dict[str, str]:
    out = {}
    for language in LANGUAGES:
        with force_locale(language):
            out[language] = _words(template, params, setup)
    return out


def parse_changes(raw: Any) -> list[whatif.Change]:
    """A stored what-if request's changes (a decision's link, D188), read as the API reads them."""
    return _changes({"changes": raw})


def _prefix(log: list[Any], n: int) -> list[Any]:
    """The first ``n`` events, without the marks of voids that are not among them (as a report at seq n)."""
    return [
        dataclasses.replace(e, voided_by=None) if e.voided_by is not None and e.voided_by > n else e for e in log if e.seq <= n
    ]


def _changes(body: Any) -> list[whatif.Change]:
    if not isinstance(body, dict) or not isinstance(body.get("changes"), list) or not body["changes"]:
        raise ApiError(
            400, "invalid", "changes: a list of amend, void or insert bodies", fields={"changes": ["a non-empty list"]}
        )
    if len(body["changes"]) > MAX_CHANGES:
        raise ApiError(400, "invalid", f"at most {MAX_CHANGES} changes", fields={"changes": [f"at most {MAX_CHANGES}"]})
    out: list[whatif.Change] = []
    for i, raw in enumerate(body["changes"]):
        if not isinstance(raw, dict) or raw.get("type") not in whatif.CHANGE_KINDS:
            raise ApiError(
                400,
                "invalid",
                "a change is an amend, a void or an insert",
                fields={f"changes.{i}.type": ["amend, void or insert"]},
            )
        try:
            parsed = parse_event(raw)  # exactly as posted to events (400 with the same fields)
        except ValidationError as exc:
            messages = exc.normalized_messages()
            fields = (
                {f"changes.{i}.{k}": v for k, v in messages.items()} if isinstance(messages, dict) else {f"changes.{i}": messages}
            )
            raise ApiError(400, "invalid", "a change does not fit the schema", fields=fields) from exc
        out.append(whatif.Change(parsed.type, parsed.event.fields()))  # type: ignore[arg-type]
    return out


def _standings(m: Match, changed: MatchState) -> dict[str, Any] | None:
    comps = competition_slots.COMPETITIONS.find()
    place = comps.fixture_of(m.id) if comps is not None else None
    if comps is None or place is None:
        return None
    c = comps.get(place[0])
    so = changed.shootout
    outcome = MatchOutcome(
        changed.phase,
        (changed.score["home"], changed.score["away"]),
        (so.score["home"], so.score["away"]) if so is not None else None,
        changed.winner,
    )
    return {"actual": comps.standings(c), "what_if": comps.standings_if(c, {m.id: outcome})}


def _restart(r: Restart | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"type": r.type, "team": r.team, "spot": r.spot.as_dict(), "rule": r.why.rule if r.why else None}


def _rule_error(exc: RuleViolation, setup: MatchSetup) -> ApiError:
    """409 ``rule`` as the events endpoint answers it: the message in the caller's language."""
    message = _words(exc.template, exc.params, setup)
    if current_language() == "en":
        return ApiError(409, "rule", message, rule=exc.rule, **exc.details)
    return ApiError(409, "rule", message, rule=exc.rule, message_en=exc.message, **exc.details)


def _words(template: str, params: dict[str, object], setup: MatchSetup) -> str:
    return refusal_words.render(template, params, setup)
