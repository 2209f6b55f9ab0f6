"""Issue 33 items 2, 3, 4 and 8: the public views computed once per change, the what-if's budget and kept
answers, a decision's what-if checked and computed once when it is stored (D250–D253).

Every test counts the computations (the replays, the reports, the renders) or checks the 429: never a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball.competitions import whatif_api, whatif_pages
from qalisball.rules import whatif
from qalisball.rules.errors import RuleViolation
from qalisball.server.demo import demo_request
from qalisball.web import services
from tests.conftest import ADMIN, MatchDriver, auth
from tests.test_competitions import Api, _fixture_of, _league, _six
from tests.test_whatif_api import _protested


class Counted:
    """A function wrapped to count its calls (the real one still runs), optionally held on an event."""

    def __init__(self, real: Callable[..., Any], hold: threading.Event | None = None) -> None:
        self.real, self.hold, self.calls = real, hold, 0
        self.entered = threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        self.entered.set()
        if self.hold is not None:
            assert self.hold.wait(30), "the test never released the what-if"
        return self.real(*args, **kwargs)


def _counted_what_if(monkeypatch: pytest.MonkeyPatch, hold: threading.Event | None = None) -> Counted:
    counted = Counted(whatif.what_if, hold)
    monkeypatch.setattr(whatif, "what_if", counted)
    return counted


def _foul_match(match: MatchDriver) -> int:
    match.kickoff()
    match.take()
    foul = match.post({"type": "foul", "team": "away", "player": 2, "spot": {"x": 18.0, "y": 7.0}, "card": "yellow"})["seq"]
    match.take()
    return int(foul)


# -- item 4: the what-if's kept answers and its budget ------------------------------------------------


def test_issue33_item4_D250_an_identical_what_if_is_answered_from_the_kept_answer_until_the_match_changes(
    client: FlaskClient, match: MatchDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    foul = _foul_match(match)
    counted = _counted_what_if(monkeypatch)
    url = f"/api/matches/{match.id}/what-if"
    question = {"changes": [{"type": "void", "target": foul, "reason": "no foul"}]}
    first = client.post(url, json=question, headers=auth(match.tokens["referee"]))
    assert first.status_code == 200
    again = client.post(url, json=question, headers=auth(match.tokens["referee"]))
    by_organiser = client.post(
        url, json={"changes": [{"reason": "no foul", "target": foul, "type": "void"}]}, headers=auth(ADMIN)
    )
    assert again.get_json() == first.get_json() == by_organiser.get_json()
    assert counted.calls == 1  # the same question (its keys in another order too) was replayed once
    other = client.post(url, json={"changes": [{"type": "void", "target": foul, "reason": "x"}]}, headers=auth(ADMIN))
    assert other.status_code == 200 and counted.calls == 2  # another question is computed
    match.post({"type": "shot_missed", "team": match.state()["possession"]})  # the match changed (a new seq)
    after = client.post(url, json=question, headers=auth(match.tokens["referee"]))
    assert after.status_code == 200 and counted.calls == 3
    assert after.get_json()["actual"]["seq"] == first.get_json()["actual"]["seq"] + 1


def test_issue33_item4_D250_one_what_if_at_a_time_per_caller_and_a_bound_over_all_a_429_past_it(
    app: Flask, match: MatchDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    foul = _foul_match(match)
    release = threading.Event()
    counted = _counted_what_if(monkeypatch, hold=release)
    url = f"/api/matches/{match.id}/what-if"
    referee = auth(match.tokens["referee"])

    def question(reason: str) -> dict[str, Any]:
        return {"changes": [{"type": "void", "target": foul, "reason": reason}]}

    answers: list[int] = []
    first = threading.Thread(
        target=lambda: answers.append(app.test_client().post(url, json=question("a"), headers=referee).status_code)
    )
    first.start()
    try:
        assert counted.entered.wait(30)
        busy = app.test_client().post(url, json=question("b"), headers=referee)  # the same caller, while his runs
        assert busy.status_code == 429 and busy.get_json()["error"] == "too_many_requests", busy.get_json()
        assert busy.headers["Retry-After"]
        counted.entered.clear()
        # Another caller is admitted (MAX_RUNNING is 2); a third while both run is refused.
        second = threading.Thread(
            target=lambda: answers.append(app.test_client().post(url, json=question("c"), headers=auth(ADMIN)).status_code)
        )
        second.start()
        assert counted.entered.wait(30)
        third = match.client.post("/api/matches", json=demo_request(), headers=auth(ADMIN)).get_json()
        other = app.test_client().post(
            f"/api/matches/{third['id']}/what-if",
            json={
                "changes": [{"type": "insert", "after": 0, "event": {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}}]
            },
            headers=auth(third["tokens"]["referee"]),
        )
        assert other.status_code == 429, other.get_json()
        assert counted.calls == 2  # the refused ones cost no replay
    finally:
        release.set()
        first.join(30)
    second.join(30)
    assert answers == [200, 200]
    again = app.test_client().post(url, json=question("b"), headers=referee)  # his first is over: admitted again
    assert again.status_code == 200 and counted.calls == 3


def test_issue33_item4_D250_under_gevent_the_replay_runs_off_the_loop_and_a_refusal_is_raised_in_the_request(
    capfd: pytest.CaptureFixture[str],
) -> None:
    book = whatif_api.Answers(off_loop=True)  # as the app makes it when ASYNC_MODE is gevent
    assert book.run(threading.get_ident) != threading.get_ident()  # another OS thread than the loop's

    def refused() -> None:
        raise RuleViolation("6.2", "{team} does not have the ball", {"team": "home"})

    with pytest.raises(RuleViolation):
        book.run(refused)
    assert "Traceback" not in capfd.readouterr().err  # an answer, not a failure printed by the pool


# -- items 3 and 8: a decision's what-if, checked and computed once when it is stored ------------------


def test_issue33_item3_D251_the_protest_report_prints_the_what_if_computed_once_when_the_decision_was_stored(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    api, comp, fixture, mid, goal, pid = _protested(client)
    seq = client.get(f"/api/matches/{mid}").get_json()["seq"]
    change = {"type": "amend", "target": goal["seq"], "event": {"type": "shot_missed", "team": "home"}, "reason": "protest"}
    counted = _counted_what_if(monkeypatch)
    renders = Counted(whatif_pages._columns)
    monkeypatch.setattr(whatif_pages, "_columns", renders)
    decision = {"upheld": False, "text": "the goal stands", "what_if": {"changes": [change], "seq": seq}}
    answer = api.call("POST", f"/api/competitions/{comp}/protests/{pid}/decision", decision, 200)
    assert counted.calls == 1  # computed when stored
    assert answer["decision"]["what_if"] == {"match": mid, "changes": [change], "seq": seq}  # the API carries the request
    for _ in range(3):
        for lang in ("en", "zh"):
            html = client.get(f"/competitions/{comp}/protests/{pid}/report?lang={lang}").get_data(as_text=True)
            assert 'id="columns"' in html and "2–0" in html and "1–0" in html and "5.3" in html, html
    assert counted.calls == 1  # six reports, no replay: they read what the decision keeps
    assert renders.calls == 2  # and its body rendered once per language (D253)
    # Kept with the decision in the database: a server started again on it still replays nothing.
    # (its records read again from the database, and no answer kept in memory).
    comps = services.COMPETITIONS.of(client.application)
    comps.competitions.clear()
    comps._parts.clear()
    comps._read()
    whatif_api.ANSWERS.install(client.application, whatif_api.Answers())
    html = client.get(f"/competitions/{comp}/protests/{pid}/report?lang=zh").get_data(as_text=True)
    assert 'id="columns"' in html and "1–0" in html and counted.calls == 1


@pytest.mark.parametrize(
    ("what_if", "field"),
    [
        ({"seq": 1_000_000_000}, "what_if.seq"),
        ({"seq": 0}, "what_if.seq"),
        ({"seq": 3, "target": 4}, "what_if.changes.0.target"),
    ],
)
def test_issue33_item8_D252_a_decisions_what_if_seq_and_targets_are_checked_as_the_what_if_checks_them(
    client: FlaskClient, what_if: dict[str, int], field: str
) -> None:
    api, comp, fixture, mid, goal, pid = _protested(client)
    change = {"type": "amend", "target": what_if.get("target", goal["seq"]), "event": {"type": "shot_missed", "team": "home"}}
    body = {"upheld": False, "text": "x", "what_if": {"changes": [change], "seq": what_if["seq"]}}
    r = client.post(f"/api/competitions/{comp}/protests/{pid}/decision", json=body, headers=auth(ADMIN))
    assert r.status_code == 400 and field in r.get_json()["fields"], r.get_json()
    assert next(p for p in api.view(comp)["protests"] if p["id"] == pid)["decision"] is None  # nothing stored


def test_issue33_item8_D252_a_decisions_change_illegal_at_its_place_is_a_409_rule_and_nothing_is_stored(
    client: FlaskClient,
) -> None:
    api, comp, fixture, mid, goal, pid = _protested(client)
    seq = client.get(f"/api/matches/{mid}").get_json()["seq"]
    steal = {"type": "amend", "target": goal["seq"], "event": {"type": "steal", "team": "home"}}  # home has the ball (6.2)
    body = {"upheld": False, "text": "x", "what_if": {"changes": [steal], "seq": seq}}
    r = client.post(f"/api/competitions/{comp}/protests/{pid}/decision", json=body, headers=auth(ADMIN))
    assert r.status_code == 409 and r.get_json()["error"] == "rule" and r.get_json()["rule"] == "6.2", r.get_json()
    assert next(p for p in api.view(comp)["protests"] if p["id"] == pid)["decision"] is None


# -- item 2: the public competition pages, computed once per change -----------------------------------


def _live_fixture(client: FlaskClient) -> tuple[Api, str, dict[str, Any], dict[str, Any]]:
    """A league whose first fixture's match is being played (a goal in its first half)."""
    api = Api(client)
    ids, by = _six(api)
    comp = _league(api, ids)["id"]
    fixture = _fixture_of(api.view(comp), by["A"], by["B"])
    made = api.match(comp, fixture["id"])
    referee = auth(made["tokens"]["referee"])
    url = f"/api/matches/{made['id']}/events"
    for event in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "period_start"}):
        assert client.post(url, json=event, headers=referee).status_code == 201
    take = {"type": "restart_taken", "team": "home", "player": 1}
    assert client.post(url, json=take, headers=referee).status_code == 201
    return api, comp, fixture, made


def test_issue33_item2_D253_the_public_competition_pages_are_rendered_once_per_change_for_every_reader(
    client: FlaskClient, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qalisball.competitions import pages
    from qalisball.reports import stats

    api, comp, fixture, made = _live_fixture(client)
    contexts = Counted(pages.context)
    monkeypatch.setattr(pages, "context", contexts)
    replays = Counted(stats.build_core)
    monkeypatch.setattr(stats, "build_core", replays)

    def read(n: int) -> set[str]:
        bodies = set()
        for _ in range(n):  # a herd: every open page fetching its part after one change
            r = client.get(f"/competitions/{comp}/part?lang=en")
            assert r.status_code == 200
            bodies.add(r.get_data(as_text=True))
        assert client.get(f"/competitions/{comp}?lang=en").status_code == 200
        return bodies

    first = read(50)
    assert len(first) == 1 and contexts.calls == 1  # 51 readers, one render
    assert replays.calls == 1  # the live match's report: its log replayed once for its seq
    assert client.get(f"/competitions/{comp}/screen/part?lang=en").status_code == 200
    assert client.get(f"/competitions/{comp}/screen/part?lang=zh").status_code == 200
    assert contexts.calls == 3 and replays.calls == 1  # another part, another language: one render each

    # A goal in the live match: a new seq. Its score reaches the pages by the `fixture` message; the part
    # is rendered again once it is PART_FRESH_MS old, once for everyone, and the report replayed once.
    goal = {"type": "goal", "team": "home", "player": 1}
    assert client.post(f"/api/matches/{made['id']}/events", json=goal, headers=auth(made["tokens"]["referee"])).status_code == 201
    read(10)
    assert contexts.calls == 3
    clock.advance(2_001)
    after_goal = read(50)
    assert contexts.calls == 4 and replays.calls == 2 and after_goal != first

    # An organiser's write (a protest filed): the next reader gets a new render at once, the others share it.
    api.call("POST", f"/api/competitions/{comp}/protests", {"fixture": fixture["id"], "team": fixture["away"], "text": "x"}, 201)
    read(50)
    assert contexts.calls == 5 and replays.calls == 2  # the match did not change: its report is kept
