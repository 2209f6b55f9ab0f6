"""Issue 28 item 6: the browser decides nothing; the console reads the engine's answers.

- D340: the offline forecast's cards (9.3) and half transitions (3.1, 3.2) are the engine's answers
  (qalisball/rules/forecast.py), which the page data carries; forecast.js looks them up.
- D341: the substitution button's verdict (a replacement for nobody is a substitution too, 11.2) is the
  engine's (`legal.buttons`), not legal.js's merge of two verdicts.
- D343: a new match's field shape (2.1) is the rule book's (rules/setup.py::field_refusals); the form
  shows the server's 400 instead of checking it.
- D344: which log entries no longer count is the rules' answer (corrections.struck), the log's `struck`.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

from qalisball.match.schemas import MatchSchema
from qalisball.rules import engine
from qalisball.rules.events import (
    Card,
    ClockChange,
    CoinToss,
    Event,
    Foul,
    PeriodEnd,
    PeriodStart,
    RestartTaken,
    Steal,
    Substitution,
    Violation,
)
from qalisball.rules.forecast import forecast_rules
from qalisball.rules.legal import legal_calls
from qalisball.rules.setup import build_setup
from qalisball.rules.state import MatchSetup, MatchState, initial_state
from qalisball.rules.view import public_state
from qalisball.server.demo import demo_request

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "tests" / "forecast_runner.mjs"


def setup_of(rule_set: str = "2.0") -> MatchSetup:
    body = demo_request()
    body["rules"] = {**body.get("rules", {}), "rule_set": rule_set}
    return build_setup(MatchSchema().load(body))


def play(s: MatchState, events: list[Event], now: int = 0) -> MatchState:
    for ev in events:
        engine.check_references(s, ev)
        s = engine.apply(s, ev, now)
    return s


def node_forecast(state: dict[str, Any], bodies: list[dict[str, Any]], opts: dict[str, Any]) -> dict[str, Any]:
    cases = [{"state": state, "bodies": bodies, "opts": opts}]
    out = subprocess.run(["node", str(RUNNER)], input=json.dumps(cases), capture_output=True, text=True, check=True, timeout=60)
    result: dict[str, Any] = json.loads(out.stdout)[0]
    return result


def test_issue28_item6_D340_the_engine_answers_what_a_card_does_for_each_standing() -> None:
    assert forecast_rules(setup_of("2.0"))["cards"] == {
        "clean": {"yellow": "yellow", "red": "sent_off"},
        "yellow": {"yellow": "sent_off", "red": "sent_off"},  # 9.3: a second yellow is a red
        "sent_off": {"yellow": None, "red": None},  # D5: refused
    }
    # V1-D10: rule book 1.0 has no cards: every card is refused, the forecast shows none.
    assert all(v is None for row in forecast_rules(setup_of("1.0"))["cards"].values() for v in row.values())


def test_issue28_item6_D340_the_engine_answers_where_a_halfs_start_and_end_lead() -> None:
    setup = setup_of("2.0")
    phases = forecast_rules(setup)["phases"]
    assert phases["scheduled"]["period_start"] == {
        "phase": "first_half",
        "period": 1,
        "clock": {"running": True, "length_ms": setup.rules.half_ms},
        "ends_switch": False,
    }
    assert phases["first_half"]["period_end"]["phase"] == "halftime"
    assert phases["first_half"]["period_end"]["clock"] == {"running": True, "length_ms": setup.rules.halftime_ms}
    assert phases["halftime"]["period_start"]["phase"] == "second_half"
    assert phases["halftime"]["period_start"]["ends_switch"] is True  # 3.1
    # 3.2: a level score goes to the shootout, another ends the match: the forecast cannot know, to be ruled.
    assert phases["second_half"]["period_end"]["phase"] is None
    assert phases["second_half"]["period_end"]["clock"]["running"] is False
    assert "period_end" not in phases["scheduled"] and "period_start" not in phases["first_half"]
    # V1-D2: in 1.0 the second half's end is the end of the match, whatever the score.
    assert forecast_rules(setup_of("1.0"))["phases"]["second_half"]["period_end"]["phase"] == "finished"


def _second_half_time_up(setup: MatchSetup) -> tuple[MatchState, int]:
    half = setup.rules.half_ms
    s = play(initial_state(setup), [CoinToss("home", "x0"), PeriodStart(), RestartTaken("home", 1)])
    s = play(s, [PeriodEnd()], half)
    s = play(s, [PeriodStart()], half + 60_000)
    s = play(s, [ClockChange("set", s.clock.length_ms)], half + 120_000)
    return s, half + 120_000


def test_issue28_item6_D340_the_forecast_of_a_1_0_match_shows_no_card_and_its_end_as_the_engine_rules() -> None:
    """The old script forecast a yellow (its own 9.3) and kept the second half (its own guess) in 1.0."""
    setup = setup_of("1.0")
    s, now = _second_half_time_up(setup)
    before = public_state(s, now, "m", 1)
    bodies = [{"type": "card", "team": "home", "player": 2, "color": "yellow"}, {"type": "period_end"}]
    fc = node_forecast(before, bodies, {"now": now, "rules": forecast_rules(setup)})
    after = public_state(play(s, [PeriodEnd()], now), now, "m", 2)
    assert fc["teams"]["home"]["yellow"] == after["teams"]["home"]["yellow"] == []
    assert fc["phase"] == after["phase"] == "finished"
    assert fc["clock"]["running"] is False


def test_issue28_item6_D340_the_forecast_follows_the_engines_card_answer_not_a_rule_of_its_own() -> None:
    """A rule book whose first yellow sends off (served as the engine's answer): the forecast shows it so."""
    setup = setup_of("2.0")
    s = play(initial_state(setup), [CoinToss("home", "x0"), PeriodStart(), RestartTaken("home", 1)])
    rules = forecast_rules(setup)
    rules["cards"]["clean"]["yellow"] = "sent_off"
    fc = node_forecast(
        public_state(s, 0, "m", 1), [{"type": "card", "team": "away", "player": 3, "color": "yellow"}], {"now": 0, "rules": rules}
    )
    assert fc["teams"]["away"]["sent_off"] == [3] and 3 not in fc["teams"]["away"]["on_field"]
    # And the engine's own answer, applied to the same state, agrees with the forecast of the real table.
    fc = node_forecast(
        public_state(s, 0, "m", 1),
        [{"type": "card", "team": "away", "player": 3, "color": "yellow"}],
        {"now": 0, "rules": forecast_rules(setup)},
    )
    server = public_state(play(s, [Card("away", 3, "yellow")]), 0, "m", 2)
    assert fc["teams"]["away"]["yellow"] == server["teams"]["away"]["yellow"] == [3]


def _away_red_at_live_play() -> tuple[MatchState, int]:
    """Away's #2 sent off for a foul in play: home restarts and has the initiative (11.1); away owes a replacement."""
    setup = setup_of("2.0")
    s = play(initial_state(setup), [CoinToss("home", "x0"), PeriodStart(), RestartTaken("home", 1), Steal("away", None)])
    return play(s, [Foul("away", 2, (27.5, 20.7), card="red")], 1000), 1000


def test_issue28_item6_D341_the_engine_gives_the_substitution_buttons_verdict_a_replacement_for_nobody_included() -> None:
    s, now = _away_red_at_live_play()
    legal = legal_calls(s, now)
    refused = legal["calls"]["substitution"]["away"]
    assert refused is not True  # 11.1: an ordinary substitution waits for home's
    assert "home did not substitute" in legal["reasons"][refused]["message"]
    assert legal["calls"]["bring_on"]["away"] is True  # 11.2: the red card's replacement
    assert legal["buttons"]["substitution"] == {"home": True, "away": True}
    # Neither allowed: the button is refused with the ordinary substitution's reason.
    s2 = play(s, [Substitution("away", None, 9)], now)
    legal2 = legal_calls(s2, now)
    assert legal2["calls"]["bring_on"]["away"] is not True
    assert legal2["buttons"]["substitution"]["away"] == legal2["calls"]["substitution"]["away"]


def _home_substituted_at_a_stoppage(rule_set: str) -> MatchState:
    setup = setup_of(rule_set)
    s = play(initial_state(setup), [CoinToss("home", "x0"), PeriodStart(), RestartTaken("home", 1)])
    side = (setup.field.length / 2, -1.0)
    return play(s, [Violation("ball_out_side", "away", None, side), Substitution("home", 2, 7)], 1000)


def test_issue28_item6_D342_the_engine_says_when_the_restarts_taker_is_asked() -> None:
    s = _home_substituted_at_a_stoppage("2.0")
    legal = legal_calls(s, 1000)
    assert legal["came_on"]["home"] == [7]  # 11.2: #7 may not take home's restart
    assert legal["taker_asked"] == {"home": True, "away": False}
    # V1-D11: 1.0 has no such ban: nobody is barred, no taker is asked.
    legal = legal_calls(_home_substituted_at_a_stoppage("1.0"), 1000)
    assert legal["came_on"] == {"home": [], "away": []}
    assert legal["taker_asked"] == {"home": False, "away": False}


# ---- D343: the new-match form's 2.1 check (the field longer than wide with side lines) is the rule book's ----


def test_issue28_item6_D343_the_rule_book_refuses_a_field_no_longer_than_wide_citing_its_rule() -> None:
    from qalisball.rules.book import BOOK_2_0
    from qalisball.rules.field import Field
    from qalisball.rules.setup import field_refusals
    from qalisball.rules.v1 import BOOK_1_0

    refused = field_refusals(BOOK_2_0, Field(40, 40, True))
    assert list(refused) == ["length"]
    assert (refused["length"].rule, refused["length"].params) == ("2.1", {"rule": "2.1"})
    assert refused["length"].message == "With side lines the field must be longer than it is wide (rule 2.1)"
    assert field_refusals(BOOK_2_0, Field(40, 39.5, True)) == {}
    assert field_refusals(BOOK_2_0, Field(40, 45, False)) == {}  # an amateur field without side lines (2.1)
    assert field_refusals(BOOK_1_0, Field(30, 30, True))["length"].rule == "V1-1"  # 1.0 cites its own (SPEC §11.12)
    square = dataclasses.replace(BOOK_2_0, id="9.2", longer_than_wide=False)
    assert field_refusals(square, Field(40, 40, True)) == {}  # a book's own field rule, not one of the schema's


def test_issue28_item6_D343_the_server_refuses_a_square_field_by_the_rule_book_in_both_languages(client: Any) -> None:
    from qalisball.rules.book import BOOK_2_0
    from qalisball.rules.state import BOOKS
    from tests.conftest import ADMIN, auth

    body = demo_request()
    body["field"] = {"length": 40, "width": 40, "side_lines": True}
    words = {
        "en": "With side lines the field must be longer than it is wide (rule 2.1)",
        "zh": "有边线时，场地长度须大于宽度（规则 2.1）",
    }
    for lang, said in words.items():
        r = client.post(f"/api/matches?lang={lang}", json=body, headers=auth(ADMIN))
        assert r.status_code == 400, r.get_json()
        assert r.get_json()["fields"] == {"field": {"length": [said]}}
    # A registered book whose field may be square: the same request is a match (the schema asks the book).
    square = dataclasses.replace(BOOK_2_0, id="9.2", longer_than_wide=False)
    saved = dict(BOOKS)
    BOOKS[square.id] = square  # type: ignore[index]
    try:
        r = client.post("/api/matches", json={**body, "rules": {"rule_set": "9.2"}}, headers=auth(ADMIN))
        assert r.status_code == 201, r.get_json()
        assert client.get(f"/api/matches/{r.get_json()['id']}").get_json()["field"]["width"] == 40
    finally:
        BOOKS.clear()
        BOOKS.update(saved)


# ---- D344: which log entries no longer count is the rules' answer (corrections.struck), not entries.js's ----


def test_issue28_item6_D344_the_log_marks_what_no_longer_counts_an_amend_of_an_amend_undone_included(
    client: Any, clock: Any
) -> None:
    from tests.conftest import MatchDriver

    match = MatchDriver(client, clock)
    match.kickoff("home", "x0")
    match.take()
    goal = match.post({"type": "goal", "team": "home", "player": 3}, role="assistant1")["seq"]
    first = match.post({"type": "amend", "target": goal, "event": {"type": "goal", "team": "home", "player": 5}})["seq"]
    second = match.post({"type": "amend", "target": first, "event": {"type": "goal", "team": "home", "player": 4}})["seq"]
    undo = match.post({"type": "void", "target": second, "reason": "undo"})["seq"]
    log = {e["seq"]: e for e in match.events()}
    # The second amend undone, the first stands again: the goal stays replaced by it (D8, M3) — where
    # entries.js's own walk of voided_by said the goal counted again.
    assert {seq: log[seq]["struck"] for seq in (goal, first, second, undo)} == {
        goal: True,
        first: False,
        second: True,
        undo: False,
    }
    assert not any(e["struck"] for seq, e in log.items() if seq < goal)
    assert match.state()["score"] == {"home": 1, "away": 0}
