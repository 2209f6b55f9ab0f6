"""Issue 23, done when: "``/api/catalogue`` is used by the console instead of its own copy".

The console's page embeds exactly ``GET /api/catalogue``'s answer (built by the same function,
``catalogue_api.catalogue_json``; embedded, not fetched, so that a console reopened offline has it, D171), and
its script builds from it its calls (labels, keys, who may make them, fields, spot), its match-day rights,
what Undo never offers, the misconduct and note codes, and the words of events, calls, roles, signers and
restarts (static/js/lib/catalogue.js, run here under Node). No second copy remains: the page data carries
none of them besides the catalogue, and no script spells a catalogue label.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_babel import gettext

from qalisball.match import pages
from qalisball.match.catalogue_api import catalogue_json
from qalisball.rules import catalogue
from qalisball.rules.state import BOOKS
from qalisball.server.demo import demo_request
from qalisball.web import i18n
from tests.conftest import FakeClock, MatchDriver
from tests.console_script import console_view
from tests.test_pages import get, page_data, text

ROOT = Path(__file__).resolve().parents[1]
ROLES = ("referee", "assistant1", "assistant2", "scorer")


def _match(client: FlaskClient, clock: FakeClock, rule_set: str) -> MatchDriver:
    body = demo_request()
    body["rules"] = {**body.get("rules", {}), "rule_set": rule_set}
    return MatchDriver(client, clock, body)


def _console(client: FlaskClient, match: MatchDriver, role: str, lang: str) -> dict[str, Any]:
    return page_data(text(get(client, f"/matches/{match.id}/referee?token={match.tokens[role]}", lang)))


@pytest.mark.parametrize("rule_set", ["2.0", "1.0"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_issue_23_the_consoles_catalogue_is_get_api_catalogue(
    client: FlaskClient, clock: FakeClock, rule_set: str, lang: str
) -> None:
    match = _match(client, clock, rule_set)
    answer = client.get("/api/catalogue", headers={"Accept-Language": lang}).get_json()
    for role in ROLES:
        page = _console(client, match, role, lang)
        assert page["catalogue"] == answer, role
        assert page["rule_set"] == rule_set and page["lang"] == lang


def _before(role: str, rule_set: str) -> dict[str, Any]:
    """What the page handed the script before (its own copy), computed here from the rule core's catalogue as
    it was computed then (``catalogue.console_calls``, ``may_log``, ``MISCONDUCT_CODES``, ``vocabulary``)."""
    book = BOOKS[rule_set]  # type: ignore[index]
    calls = [
        {
            "call": c["call"],
            "type": c["type"],
            "variant": c["variant"],
            "key": c["key"],
            "who": c["who"],
            "label": gettext(book.label(c["call"], c["label"])),
        }
        for c in catalogue.console_calls()
        if role in c["who"] and (book.cards or c["type"] != "card")
    ]
    vocabulary = i18n.vocabulary(rule_set)
    return {
        "calls": calls,
        "allowed": list(dict.fromkeys("clock" if c["type"] == "clock" else c["call"] for c in calls)),
        "keys": {c["call"]: c["key"] for c in calls if c["key"] and c["type"] != "clock"},
        "matchday": {t.type: catalogue.may_log(role, t.type) for t in catalogue.MATCH_DAY},
        "not_undoable": sorted(catalogue.NOT_UNDOABLE),
        "codes": [{"code": c.name, "label": gettext(c.label)} for c in catalogue.MISCONDUCT_CODES],
        "vocab": {k: vocabulary[k] for k in pages.CATALOGUE_WORDS},
    }


@pytest.mark.parametrize("rule_set", ["2.0", "1.0"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_issue_23_the_script_builds_from_it_what_the_page_used_to_copy(
    app: Flask, client: FlaskClient, clock: FakeClock, rule_set: str, lang: str
) -> None:
    match = _match(client, clock, rule_set)
    for role in ROLES:
        got = console_view(_console(client, match, role, lang))
        with app.test_request_context(f"/?lang={lang}"):
            want = _before(role, rule_set)
            buttons = pages.console_calls(role, rule_set)  # what the server renders the buttons from
        assert [{k: c[k] for k in want["calls"][0]} for c in got["calls"]] == want["calls"], role
        assert got["calls"] == buttons, role  # the script's calls and the page's buttons: one derivation
        for key in ("allowed", "keys", "matchday", "codes"):
            assert got[key] == want[key], (role, key)
        assert sorted(got["not_undoable"]) == want["not_undoable"]
        assert got["note_codes"] == [c for c in want["codes"] if c["code"] in catalogue_codes("note")]
        assert {k: got["vocab"][k] for k in pages.CATALOGUE_WORDS} == want["vocab"], role


def catalogue_codes(kind: str) -> list[str]:
    note = next(p for p in catalogue.BY_TYPE["note"].params if p.name == "code")
    return list(note.choices) if kind == "note" else [c.name for c in catalogue.MISCONDUCT_CODES]


def test_issue_23_no_second_copy_of_the_catalogue_in_the_page_or_the_scripts(
    app: Flask, client: FlaskClient, match: MatchDriver
) -> None:
    page = _console(client, match, "referee", "en")
    copies = {"calls", "allowed", "keys", "codes", "matchday"} & set(page)
    assert not copies, copies
    assert "not_types" not in page["undo"]
    assert not set(pages.CATALOGUE_WORDS) & set(page["vocab"]), set(page["vocab"])
    # No script reads a copy, and none spells a catalogue label (in either language) as a string of its own.
    with app.test_request_context():
        answer = catalogue_json()
    labels: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if set(node) == {"en", "zh"}:
                labels.update(node.values())
            else:
                for value in node.values():
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(answer)
    assert len(labels) > 100
    scripts = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in (ROOT / "static" / "js").rglob("*.js")}
    for name, source in scripts.items():
        assert not re.search(r"\b(?:D|data)\.(?:calls|codes|keys|allowed|matchday)\b", source), name
        spelled = [label for label in labels if re.search("[\"'`]" + re.escape(label) + "[\"'`]", source)]
        assert not spelled, (name, spelled)
