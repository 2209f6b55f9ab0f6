"""Issue 23, item 3: GET /api/catalogue is the event catalogue (qalisball/rules/catalogue.py) for API clients:
types, variants, fields, who may log them, misconduct and note codes, restart types, rules, zh/en labels."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from qalisball.rules import catalogue
from qalisball.rules.book import RestartType
from qalisball.rules.engine import RESTART_RULE
from tests.conftest import MatchDriver
from tests.test_openapi import ROOT


@pytest.fixture
def cat(client: FlaskClient) -> dict[str, Any]:
    r = client.get("/api/catalogue")
    assert r.status_code == 200 and r.mimetype == "application/json"
    data: dict[str, Any] = r.get_json()
    return data


def _zh() -> dict[str, str]:
    """The Chinese of every message id without a context, read from the .po file itself (not through the app)."""
    with (ROOT / "translations" / "zh" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {str(m.id): str(m.string) for m in read_po(f, locale="zh") if m.id and m.string and not m.context}


def _check_label(label: dict[str, str], msgid: str, zh: dict[str, str]) -> None:
    assert label == {"zh": zh[msgid], "en": msgid}, (label, msgid)
    assert label["zh"] != label["en"], f"{msgid!r} has no Chinese"


def test_every_event_type_in_the_catalogues_order_with_its_fields_who_and_rule(cat: dict[str, Any]) -> None:
    entries = [*catalogue.CATALOGUE, *catalogue.MATCH_DAY]
    assert [e["type"] for e in cat["events"]] == [t.type for t in entries]
    for got, t in zip(cat["events"], entries, strict=True):
        assert got["rule"] == t.rule and got["who"] == sorted(t.who) and got["key"] == t.key
        assert got["undoable"] == t.undoable and got["timeline"] == t.timeline
        assert got["correctable"] == (t.type in catalogue.CORRECTABLE)
        assert [(f["name"], f["kind"], f["required"], f["nullable"], f["choices"]) for f in got["fields"]] == [
            (p.name, p.kind, p.required, p.nullable, list(p.choices)) for p in t.params
        ]
        assert got["variant_field"] == t.variant_param
        assert [v["name"] for v in got["variants"]] == [v.name for v in t.variants]


def test_variants_say_who_may_call_them_as_the_server_checks_it(cat: dict[str, Any]) -> None:
    """A ball out is the assistants' call too (8.2): each variant's who is exactly the roles may_log accepts."""
    checked = 0
    for event in cat["events"]:
        for v in event["variants"]:
            roles = [r for r in catalogue.ROLES if catalogue.may_log(r, event["type"], v["name"])]
            assert v["who"] == sorted(roles), (event["type"], v["name"])
            assert v["rule"]
            checked += 1
    assert checked == sum(len(t.variants) for t in catalogue.CATALOGUE)
    violation = next(e for e in cat["events"] if e["type"] == "violation")
    assert next(v for v in violation["variants"] if v["name"] == "ball_out_side")["rule"] == "8.2"


def test_labels_in_both_languages(cat: dict[str, Any]) -> None:
    zh = _zh()
    entries = {t.type: t for t in (*catalogue.CATALOGUE, *catalogue.MATCH_DAY)}
    for event in cat["events"]:
        t = entries[event["type"]]
        _check_label(event["label"], t.label, zh)
        for got, v in zip(event["variants"], t.variants, strict=True):
            _check_label(got["label"], v.label, zh)
    for code, v in zip(cat["misconduct_codes"], catalogue.MISCONDUCT_CODES, strict=True):
        assert code["code"] == v.name
        _check_label(code["label"], v.label, zh)
    assert cat["restarts"][0]["label"] == {"zh": zh["Kickoff"], "en": "Kickoff"}
    assert {r["role"]: r["label"]["zh"] for r in cat["roles"]}["referee"] == zh["Referee"]
    assert cat["languages"] == ["zh", "en"]


def test_the_same_labels_whatever_the_callers_language(client: FlaskClient) -> None:
    zh = client.get("/api/catalogue?lang=zh", headers={"Accept-Language": "zh-CN"}).get_json()
    en = client.get("/api/catalogue?lang=en").get_json()
    assert zh == en


def test_misconduct_and_note_codes_are_the_closed_lists_the_schemas_enforce(cat: dict[str, Any], match: MatchDriver) -> None:
    codes = [c["code"] for c in cat["misconduct_codes"]]
    assert codes == [v.name for v in catalogue.MISCONDUCT_CODES]
    note = next(p for p in catalogue.BY_TYPE["note"].params if p.name == "code")
    assert [c["code"] for c in cat["note_codes"]] == list(note.choices)
    # A listed code passes the schema; a client's own code is a 400 (issue 23: a closed list).
    match.post({"type": "note", "text": "asked twice to step back", "code": codes[1]}, role="scorer")
    refused = match.post({"type": "note", "text": "x", "code": "my_own_code"}, role="scorer", expect=400)
    assert "code" in refused["fields"]


def test_restart_types_with_the_rule_that_governs_taking_them(cat: dict[str, Any]) -> None:
    assert [(r["type"], r["rule"]) for r in cat["restarts"]] == [(t, RESTART_RULE.get(t)) for t in get_args(RestartType)]
    assert all(r["label"]["zh"] and r["label"]["en"] for r in cat["restarts"])


def test_roles_and_signers(cat: dict[str, Any]) -> None:
    assert [r["role"] for r in cat["roles"]] == [*catalogue.ROLES, "organiser"]
    assert [s["role"] for s in cat["signers"]] == list(catalogue.SIGNERS)


def test_issue27_item2_each_rule_books_limits_and_words_are_its_books_data(cat: dict[str, Any]) -> None:
    """SPEC §11.2–§11.4: what the new-match form applies and shows next to the rule book comes from the Book."""
    from qalisball.rules.state import BOOKS

    assert set(cat["rule_books"]) == set(BOOKS)
    for rule_set, book in BOOKS.items():
        entry = cat["rule_books"][rule_set]
        assert entry["limits"] == {
            "field": {
                "length": list(book.length_m),
                "width": list(book.width_m),
                "side_lines_required": book.side_lines_required,
            },
            "starters": list(book.starters),
            "multi_attack": book.multi_attack,
            "shootout": book.shootout,
            "cards": book.cards,
        }
        for sentence in entry["summary"]:
            assert sentence["zh"] != sentence["en"], f"{sentence['en']!r} has no Chinese"
            assert "{" not in sentence["en"] + sentence["zh"]
    one = [s["en"] for s in cat["rule_books"]["1.0"]["summary"]]
    assert one[:3] == [
        "Field: 35–50 m long, 20–30 m wide (V1-1)",
        "Side lines required: set pieces are taken on them (V1-D3)",
        "4–8 players a side on the field, as many as the field suits (V1-2)",
    ]


def test_issue27_item2_the_new_match_form_decides_no_rule_book_itself() -> None:
    """The browser decides no rule: the form's script and template never test a rule book's name."""
    for path in ("static/js/index.js", "templates/match/index.html"):
        source = (ROOT / path).read_text()
        assert not any(v in source for v in ('"1.0"', "'1.0'", '"2.0"', "'2.0'")), path
