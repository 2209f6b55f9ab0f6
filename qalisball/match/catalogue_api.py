"""``GET /api/catalogue`` (issue 23): the event catalogue for API clients, in Chinese and English at once.

The same catalogue the console's call list, the schemas and the permission check are built from
(``qalisball/rules/catalogue.py``): every event type and variant with its fields, who may log it and its
rule; the misconduct and note codes (a closed list: a client sending its own code gets 400); the restart
types with the rule that governs taking them. Each label is given as ``{"en", "zh"}`` so a client needs
neither gettext nor a second request; a label's English is its message id.

The console's page embeds this very answer (``catalogue_json``) and builds its calls, keys, rights, codes and
labels from it (static/js/lib/catalogue.js): a console opened offline needs no request, and keeps no copy.
For it each call also says whether the schema refuses it without a spot (``spot``), and each rule book what
it words differently or leaves out (``rule_books``: V1-D10, V1-D16).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Literal, get_args

from flask import Blueprint, Response, jsonify
from flask_babel import force_locale, gettext
from flask_babel.speaklater import LazyString
from marshmallow import ValidationError

from qalisball.match.schemas import parse_event
from qalisball.rules import catalogue
from qalisball.rules.book import BOOK_DEFAULTS, Book, RestartType
from qalisball.rules.catalogue import EventType, Param, Variant
from qalisball.rules.engine import RESTART_RULE, RESTART_WORDS
from qalisball.rules.errors import N_
from qalisball.rules.state import BOOKS
from qalisball.web import i18n

bp = Blueprint("catalogue_api", __name__, url_prefix="/api")


def labels(msgid: str | LazyString) -> dict[str, str]:
    """One message (an ``N_`` id, or one of ``i18n``'s lazy words) in both languages, from Flask-Babel's
    catalogues as every page reads them."""
    out = {}
    for language in i18n.LANGUAGES:
        with force_locale(language):
            out[language] = str(msgid) if isinstance(msgid, LazyString) else str(gettext(msgid))
    return out


def _field(p: Param) -> dict[str, Any]:
    return {
        "name": p.name,
        "kind": p.kind,
        "required": p.required,
        "nullable": p.nullable,
        "choices": list(p.choices),
        "default": p.default,
        **({"max_length": p.max_length} if p.max_length else {}),
    }


Spot = Literal["required", "optional", "none"]


@functools.cache
def spot(event_type: str, variant: str | None) -> Spot:
    """Whether a call carries a spot, and whether the schema refuses it without one: "required", "optional"
    (the engine may still ask for one now: ``legal.spot``) or "none". The schema is asked, not copied."""
    entry = catalogue.BY_TYPE[event_type]
    if not any(p.kind == "spot" for p in entry.params):
        return "none"
    dummy = {"team": "home", "player": 1, "bool": False, "ms": 0, "text": "x", "seq": 1}
    body: dict[str, Any] = {"type": entry.type}
    if entry.variant_param:
        body[entry.variant_param] = variant
    for p in entry.params:
        if p.required and p.name not in body:
            body[p.name] = p.choices[0] if p.choices else dummy.get(p.kind)
    try:
        parse_event(body)
    except ValidationError as err:
        refused = "spot" in (err.messages if isinstance(err.messages, dict) else {})
        return "required" if refused else "optional"
    return "optional"


def _variant(t: EventType, v: Variant) -> dict[str, Any]:
    return {
        "name": v.name,
        "label": labels(v.label),
        "rule": v.rule or t.rule,
        # A variant may widen its type's "who" (an assistant calls a ball out): the union, as may_log reads it.
        "who": sorted(t.who | (v.who or frozenset())),
        "key": v.key,
        "spot": spot(t.type, v.name),
    }


def _event(t: EventType, group: str) -> dict[str, Any]:
    return {
        "type": t.type,
        "group": group,  # "call": the console's calls; "match_day": rosters, corrections, notes, the score sheet
        "label": labels(t.label),
        "rule": t.rule,
        "who": sorted(t.who),
        "key": t.key,
        "timeline": t.timeline,
        "timeline_if": t.timeline_if,
        "undoable": t.undoable,
        "correctable": t.type in catalogue.CORRECTABLE,  # may be carried by an amend or an insert (M3)
        "fields": [_field(p) for p in t.params],
        "variant_field": t.variant_param,
        "variants": [_variant(t, v) for v in t.variants],
        # A call without variants says it here; a type with variants says it per variant.
        "spot": None if t.variants else spot(t.type, None),
    }


def _codes(names: Iterable[str]) -> list[dict[str, Any]]:
    by_name = {v.name: v for v in catalogue.MISCONDUCT_CODES}
    return [{"code": name, "label": labels(by_name[name].label)} for name in names]


def _restart(r: str) -> dict[str, Any]:
    """A restart type: the screens' word for it (else the engine's), and the rule that governs taking it in the
    default rule book (none for a type only another book has)."""
    word = i18n.RESTARTS.get(r) or RESTART_WORDS[r]  # type: ignore[index]
    return {"type": r, "label": labels(word), "rule": RESTART_RULE.get(r)}  # type: ignore[call-overload]


# A card's fields on a foul (M7): a rule book without cards (V1-D10) asks for neither.
_CARD_FIELDS = ("card", "reason")


def _rule_book(rule_set: str) -> dict[str, Any]:
    """What a rule book words differently (V1-D16: a call keeps its name, its label changes) and leaves out
    (V1-D10: no card, and no card on a foul) of the catalogue, which is rule book 2.0's; and what it allows a
    match's settings (``limits``) and changes about the match, in words (``summary``), for the new-match form
    (SPEC §11.2–§11.4, issue 27 item 2)."""
    book = BOOKS[rule_set]  # type: ignore[index]
    return {
        "labels": {call: labels(label) for call, label in book.labels.items()},
        "without_types": [] if book.cards else ["card"],
        "without_fields": [] if book.cards else list(_CARD_FIELDS),
        "limits": limits(book),
        # A new match's settings where the request leaves them out (the schema fills in the same values).
        "defaults": {name: getattr(book, name) for name in BOOK_DEFAULTS},
        "restarts": list(book.restarts),  # the restarts its calls give (1.0's corner and short corner)
        "field_marks": list(book.set_piece_spots),  # the restarts whose spots its field marks (V1-D4, V1-D5)
        "summary": [sentence(msgid, **values) for msgid, values in _summary(book)],
    }


def limits(book: Book) -> dict[str, Any]:
    """The settings a match under ``book`` may have (SPEC §11.3, §11.4; the schema refuses the rest, 400)."""
    return {
        "field": {"length": list(book.length_m), "width": list(book.width_m), "side_lines_required": book.side_lines_required},
        "starters": list(book.starters),
        "multi_attack": book.multi_attack,
        "shootout": book.shootout,
        "cards": book.cards,
    }


def _m(x: float) -> str:
    return f"{x:g}"


def _summary(book: Book) -> list[tuple[str, dict[str, str]]]:
    """What ``book`` says about the field, the team size and the result, each sentence with its rule: the
    book's values, never a test of its name."""
    (low, high), (wlow, whigh) = book.length_m, book.width_m
    field = {"length_low": _m(low), "length_high": _m(high), "width_low": _m(wlow), "rule": book.cite("2.1")}
    out: list[tuple[str, dict[str, str]]] = [
        (N_("Field: {length_low}–{length_high} m long, at least {width_low} m wide ({rule})"), field)
        if whigh is None
        else (
            N_("Field: {length_low}–{length_high} m long, {width_low}–{width_high} m wide ({rule})"),
            {**field, "width_high": _m(whigh)},
        ),
        (
            N_("Side lines required: set pieces are taken on them ({rule})")
            if book.side_lines_required
            else N_("Side lines optional: an amateur field may have none ({rule})"),
            {"rule": book.side_lines_rule},
        ),
        (
            N_("{low}–{high} players a side on the field, as many as the field suits ({rule})"),
            {"low": str(book.starters[0]), "high": str(book.starters[1]), "rule": book.team_size_rule},
        ),
        (
            N_("Substitutions on the team's initiative ({rule})")
            if book.substitution_initiative
            else N_("Substitutes come on at any dead ball ({rule})"),
            {"rule": book.cite("11.1")},
        ),
        (
            (
                N_("A level match goes to the shootout: {rounds} rounds by default ({rule})"),
                {"rounds": str(book.shootout_rounds), "rule": book.cite("3.2")},
            )
            if book.shootout
            else (N_("No shootout: a level match is a draw ({rule})"), {"rule": book.cite("12.1")})
        ),
        (N_("Yellow and red cards ({rule})") if book.cards else N_("No cards ({rule})"), {"rule": book.cite("9.3")}),
        (
            N_("Multiple attack opportunities may be given ({rule})")
            if book.multi_attack
            else N_("No multiple attack opportunities ({rule})"),
            {"rule": book.cite("13.1")},
        ),
    ]
    return out


def sentence(msgid: str, **values: str) -> dict[str, str]:
    """One ``N_`` sentence with its values in both languages."""
    return {language: text.format(**values) for language, text in labels(msgid).items()}


def rule_books_json() -> dict[str, Any]:
    """Every rule book's part of the catalogue (the new-match form embeds it: its limits and words)."""
    return {rule_set: _rule_book(rule_set) for rule_set in BOOKS}


def catalogue_json() -> dict[str, Any]:
    """The whole catalogue as ``GET /api/catalogue`` answers it (needs an app context for the translations)."""
    note_code = next(p for p in catalogue.BY_TYPE["note"].params if p.name == "code")
    return {
        "languages": list(i18n.LANGUAGES),
        "roles": [{"role": r, "label": labels(i18n.AUTHORS[r])} for r in (*catalogue.ROLES, "organiser")],
        "signers": [{"role": s, "label": labels(i18n.SIGNERS[s])} for s in catalogue.SIGNERS],
        "events": [
            *(_event(t, "call") for t in catalogue.CATALOGUE),
            *(_event(t, "match_day") for t in catalogue.MATCH_DAY),
        ],
        # A card's (and a foul's) reason code (M7) …
        "misconduct_codes": _codes(v.name for v in catalogue.MISCONDUCT_CODES),
        # … and a note's code: the note field's own choices, so the list follows the schema if they ever part.
        "note_codes": _codes(note_code.choices),
        "restarts": [_restart(r) for r in get_args(RestartType)],
        "rule_books": rule_books_json(),
    }


@bp.get("/catalogue")
def get_catalogue() -> Response:
    return jsonify(catalogue_json())
