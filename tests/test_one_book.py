"""Issue 28 item 5: one Book per rule set, read everywhere.

What a rule set changes (its defaults, the restarts it gives, the field's marks, its own refusals, whether
a level match is a draw) is in its ``Book`` (qalisball/rules/book.py); the schema, the catalogue, the
create forms, the field, the engine, the report and the competition pages read it there. Each test here
registers a book that is not 2.0 or 1.0 (``BOOKS`` is the registry) and shows that the product offers
and follows it: nothing outside qalisball/rules/ tests a rule set's name.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tinyhtml5
from flask.testing import FlaskClient

from qalisball.match.schemas import MatchSchema
from qalisball.rules import v1
from qalisball.rules.book import BOOK_2_0, Book
from qalisball.rules.events import Violation
from qalisball.rules.field import Field
from qalisball.rules.state import BOOKS, RuleSet
from qalisball.server.demo import demo_request
from qalisball.web.field_svg import field_svg
from tests.calls import live
from tests.conftest import ADMIN, FakeClock, MatchDriver
from tests.engine_driver import EngineMatch, demo_setup
from tests.test_pages import get, page_data, text

ROOT = Path(__file__).resolve().parent.parent
# A trial book as a test registers it: 2.0's rules, a five-round shootout and 20-minute halves.
FIVE = dataclasses.replace(BOOK_2_0, id="9.5", shootout_rounds=5, half_minutes=20)  # type: ignore[arg-type]
# 1.0's rules under another name: its refusals, its marks and its draws must follow the values, not the id.
LIKE_1_0 = dataclasses.replace(v1.BOOK_1_0, id="9.1", set_piece_spots=("corner",))  # type: ignore[arg-type]


@pytest.fixture
def books() -> Iterator[dict[str, Book]]:
    saved = dict(BOOKS)
    BOOKS.update({FIVE.id: FIVE, LIKE_1_0.id: LIKE_1_0})  # type: ignore[dict-item]
    try:
        yield BOOKS  # type: ignore[misc]
    finally:
        BOOKS.clear()
        BOOKS.update(saved)


def _body(rule_set: str, **rules: Any) -> dict[str, Any]:
    body = demo_request()
    body["rules"] = {"rule_set": rule_set, **rules}
    return body


def test_issue28_item5_the_schema_takes_a_registered_books_defaults(books: Any) -> None:
    loaded = MatchSchema().load(_body("9.5"))
    assert (loaded["rules"]["shootout_rounds"], loaded["rules"]["half_minutes"]) == (5, 20)
    assert loaded["rules"]["halftime_minutes"] == BOOK_2_0.halftime_minutes
    assert MatchSchema().load(_body("9.5", shootout_rounds=3))["rules"]["shootout_rounds"] == 3  # the match's own
    assert MatchSchema().load(_body("2.0"))["rules"]["shootout_rounds"] == 4  # 12.1's default, unchanged


def test_issue28_item5_a_level_match_of_a_five_round_book_plays_five_scheduled_rounds(
    books: Any, client: FlaskClient, clock: FakeClock
) -> None:
    match = MatchDriver(client, clock, _body("9.5"))
    assert match.state()["clock"]["length_ms"] == 20 * 60_000
    match.kickoff()
    match.run_out_half()
    match.post({"type": "period_start"})
    match.run_out_half()
    takers = {t: match.state()["teams"][t]["on_field"][:4] for t in ("home", "away")}
    s = match.post({"type": "shootout_start", "first": "home", "takers": takers})["state"]
    assert s["shootout"]["rounds"] == 5


def test_issue28_item5_the_new_match_form_offers_a_registered_book_with_its_defaults(books: Any, client: FlaskClient) -> None:
    html = text(get(client, f"/?token={ADMIN}"))
    tree = tinyhtml5.parse(html, namespace_html_elements=False)
    select = tree.find(".//select[@name='rules.rule_set']")
    assert [o.get("value") for o in select.iter("option")] == list(books)
    # The form opens on the first book's defaults; index.js puts the chosen book's in (page data).
    assert tree.find(".//input[@name='rules.shootout_rounds']").get("value") == "4"
    assert page_data(html)["rule_books"]["9.5"]["defaults"] == {"half_minutes": 20, "halftime_minutes": 10, "shootout_rounds": 5}
    cat = client.get("/api/catalogue").get_json()["rule_books"]
    assert "A level match goes to the shootout: 5 rounds by default (3.2)" in [s["en"] for s in cat["9.5"]["summary"]]
    assert "short_corner" not in cat["9.5"]["restarts"] and "short_corner" in cat["9.1"]["restarts"]


def test_issue28_item5_the_field_marks_the_spots_its_book_names(books: Any) -> None:
    f = Field(40, 25, True)
    marked = field_svg(f, rule_set="9.1")
    assert "corner-spot" in marked and "short-corner-spot" not in marked  # the book marks corners only
    assert "short-corner-spot" in field_svg(f, rule_set="1.0") and "corner-spot" not in field_svg(f, rule_set="9.5")


def test_issue28_item5_V1_D8_a_books_own_refusal_follows_its_values_not_its_name(books: Any) -> None:
    match = EngineMatch(demo_setup(rules=RuleSet(rule_set="9.1")))  # type: ignore[arg-type]
    live(match)
    match.post(Violation("ball_out_end", "home", spot=(40.8, 3.0)))  # away's corner (V1-D4)
    refusal = match.refused(Violation("restart", "home"), "V1-D8")
    assert "2 m" in refusal.message


def test_issue28_item5_the_competition_form_and_standings_follow_the_books_draws(books: Any, client: FlaskClient) -> None:
    r = client.get("/competitions?lang=en")
    form = tinyhtml5.parse(r.get_data(as_text=True), namespace_html_elements=False).find(".//form[@data-form='competition']")
    options = {o.get("value"): " ".join("".join(o.itertext()).split()) for o in form.iter("option") if o.get("value") in books}
    assert options["9.5"] == "9.5: a level match goes to the shootout"
    assert options["9.1"] == "9.1: a level match is a draw, no cards"
    shown = {i.get("name"): lab.get("data-rule-set", "").split() for lab in form.iter("label") for i in lab.iter("input")}
    assert "9.1" in shown["points.draw"] and "9.5" not in shown["points.draw"]
    assert "9.5" in shown["points.shootout_win"] and "9.1" not in shown["points.shootout_win"]


# The one guard: a test of a rule set's name outside the rule core (a comparison with a version literal).
_COMPARISON = re.compile(r"""(==|!=|===|!==)\s*["']\d+\.\d+["']|["']\d+\.\d+["']\s*(==|!=|===|!==)""")


def test_issue28_item5_no_rule_set_name_is_tested_outside_the_rule_core() -> None:
    sources = [
        *ROOT.glob("templates/**/*.html"),
        *(p for p in ROOT.glob("static/js/**/*.js") if "vendor" not in p.parts),
        *(p for p in ROOT.glob("qalisball/**/*.py") if "rules" not in p.relative_to(ROOT / "qalisball").parts[:1]),
    ]
    lines = ((p, n, line) for p in sources for n, line in enumerate(p.read_text().splitlines(), 1))
    found = [f"{p.relative_to(ROOT)}:{n}" for p, n, line in lines if _COMPARISON.search(line)]
    assert found == []
    assert not re.search(r'data-rule-set="\d', (ROOT / "templates/competitions/competitions.html").read_text())
