"""The new-match form at ``/`` (organiser's cookie) offers the rule book (SPEC §11.2, API.md ``rules.rule_set``;
issue 27 item 2): next to the choice, what the book sets about the field and the team size, in the page's
language (the server's words from the book's data); the book's limits checked in the page; and a stand-alone
1.0 match created from it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ADMIN, TABLET, Devices, Server

pytestmark = pytest.mark.browser

SUMMARY_1_0 = {
    "en": [
        "Field: 35–50 m long, 20–30 m wide (V1-1)",
        "Side lines required",
        "(V1-D3)",
        "4–8 players a side on the field, as many as the field suits (V1-2)",
    ],
    "zh": [
        "场地：长 35–50 米，宽 20–30 米（V1-1）",
        "必须有边线",
        "（V1-D3）",
        "每队场上 4–8 名球员，人数视场地大小而定（V1-2）",
    ],
}
SUMMARY_2_0 = {"en": "Field: 30–60 m long, at least 20 m wide (2.1)", "zh": "场地：长 30–60 米，宽至少 20 米（2.1）"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_issue27_item2_V1_1_V1_2_the_new_match_form_explains_what_rule_book_1_0_changes_next_to_the_choice(
    devices: Devices, lang: str
) -> None:
    page = devices.open(f"/?token={ADMIN}&lang={lang}", viewport=TABLET)
    form = page.locator("form#create")
    choice = form.locator('select[name="rules.rule_set"]')
    expect(choice).to_have_value("2.0")  # the default (API.md)
    summary = form.locator("#rule-book-summary ul:visible")  # the chosen book's words
    expect(summary).to_contain_text(SUMMARY_2_0[lang])
    choice.select_option("1.0")
    for words in SUMMARY_1_0[lang]:
        expect(summary).to_contain_text(words)
    expect(summary).not_to_contain_text(SUMMARY_2_0[lang])
    # What 1.0 does not have cannot be set: side lines stay, no multiple attack, no shootout (V1-D3, V1-D15, V1-D2).
    expect(form.locator('input[name="field.side_lines"]')).to_be_checked()
    expect(form.locator('input[name="field.side_lines"]')).to_be_disabled()
    expect(form.locator('select[name="rules.multi_attack.mode"]')).to_be_disabled()
    expect(form.locator('input[name="rules.shootout_rounds"]')).to_be_disabled()
    choice.select_option("2.0")
    expect(form.locator('input[name="field.side_lines"]')).to_be_enabled()
    expect(summary).to_contain_text(SUMMARY_2_0[lang])


def test_issue27_item2_V1_1_a_stand_alone_1_0_match_is_created_from_the_form_within_1_0s_field(
    devices: Devices, server: Server
) -> None:
    page = devices.open(f"/?token={ADMIN}&lang=en", viewport=TABLET)
    form = page.locator("form#create")
    form.locator('input[name="home.name"]').fill("Form 1.0 Home")
    form.locator('textarea[name="home.players"]').fill("\n".join(f"{n} Home {n}" for n in range(1, 7)))
    form.locator('input[name="away.name"]').fill("Form 1.0 Away")
    form.locator('textarea[name="away.players"]').fill("\n".join(f"{n} Away {n}" for n in range(1, 7)))
    form.locator('select[name="rules.rule_set"]').select_option("1.0")
    form.locator('input[name="field.length"]').fill("55")  # 2.0 allows it, 1.0 does not (V1-1)
    form.locator('input[name="field.width"]').fill("32")
    form.locator('button[type="submit"]').click()
    expect(page.locator("#err-field-length")).to_have_text("Must be between 35 and 50")
    expect(page.locator("#err-field-width")).to_have_text("Must be between 20 and 30")
    form.locator('input[name="field.length"]').fill("45")
    form.locator('input[name="field.width"]').fill("28")
    form.locator('button[type="submit"]').click()
    expect(page).to_have_url(re.compile(r"/matches/\w+/officials$"))
    match_id = page.url.rsplit("/", 2)[-2]
    state = server.state(match_id)
    assert state["rule_set"] == "1.0"
    assert (state["field"]["length"], state["field"]["width"], state["field"]["side_lines"]) == (45, 28, True)


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "With side lines the field must be longer than it is wide (rule 2.1)"),
        ("zh", "有边线时，场地长度须大于宽度（规则 2.1）"),
    ],
)
def test_issue28_item6_D343_the_form_shows_the_servers_2_1_answer_on_a_square_field_not_its_own(
    devices: Devices, server: Server, lang: str, said: str
) -> None:
    """The field's shape (2.1) is the rule book's (rules/setup.py::field_refusals): the form sends the square
    field and shows the server's 400 next to the length, in the page's language; it never refused it itself."""
    page = devices.open(f"/?token={ADMIN}&lang={lang}", viewport=TABLET)
    form = page.locator("form#create")
    form.locator('input[name="home.name"]').fill("Square Home")
    form.locator('textarea[name="home.players"]').fill("\n".join(f"{n} Home {n}" for n in range(1, 7)))
    form.locator('input[name="away.name"]').fill("Square Away")
    form.locator('textarea[name="away.players"]').fill("\n".join(f"{n} Away {n}" for n in range(1, 7)))
    form.locator('input[name="field.length"]').fill("40")
    form.locator('input[name="field.width"]').fill("40")
    expect(form.locator('input[name="field.side_lines"]')).to_be_checked()
    with page.expect_response(lambda r: r.url.split("?")[0].endswith("/api/matches") and r.request.method == "POST") as answer:
        form.locator('button[type="submit"]').click()
    assert answer.value.status == 400
    assert answer.value.json()["fields"] == {"field": {"length": [said]}}
    expect(page.locator("#err-field-length")).to_have_text(said)
    expect(form.locator('input[name="field.length"]')).to_have_attribute("aria-invalid", "true")
