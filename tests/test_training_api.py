"""Referee training over HTTP (API.md "Training and what-if", issue 24): a session from a finished match,
questions without their rulings, answers graded by the engine, the score sheet (JSON and CSV).

The match is officiated through the events API (``MatchDriver``); the session never changes it.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import ADMIN, MatchDriver, auth


def played(match: MatchDriver) -> MatchDriver:
    """A whole match: a grounded ball near away's area (10.8), a foul with a yellow card, a goal; 1-0."""
    match.kickoff("away", "x0")  # away attacks x0; home's free kicks near xL move out (10.8)
    match.take()
    match.post({"type": "violation", "kind": "ball_grounded", "team": "away", "spot": {"x": 35.0, "y": 12.5}})
    match.take()
    match.post({"type": "foul", "team": "away", "player": 2, "spot": {"x": 18.0, "y": 7.0}, "card": "yellow"})
    match.take()
    match.post({"type": "goal", "team": "home", "player": 1})
    match.run_out_half()
    match.post({"type": "period_start"})
    match.take()
    match.run_out_half()
    assert match.state()["phase"] == "finished"
    return match


def start(client: FlaskClient, match_id: str, rules: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"match": match_id} | ({"rules": rules} if rules is not None else {})
    r = client.post("/api/training", json=body, headers=auth(ADMIN))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def join(client: FlaskClient, s: dict[str, Any], name: str, **kw: Any) -> Any:
    """The trainee joins once (D220): their token."""
    return client.post(f"/api/training/{s['id']}/trainees", json={"code": s["code"], "name": name}, **kw)


def answer(client: FlaskClient, s: dict[str, Any], body: dict[str, Any], path: str = "answers", **kw: Any) -> Any:
    """``body`` posted as its trainee, who joins first if they have not (their token kept in ``s``)."""
    tokens = s.setdefault("tokens", {})
    if body["trainee"] not in tokens:
        r = join(client, s, body["trainee"])
        assert r.status_code == 201, r.get_json()
        tokens[body["trainee"]] = r.get_json()["token"]
    return client.post(f"/api/training/{s['id']}/{path}", json={**body, "token": tokens[body["trainee"]]}, **kw)


def test_issue24_a_session_from_a_finished_match_asks_each_ruling_call_without_its_ruling(
    client: FlaskClient, match: MatchDriver
) -> None:
    played(match)
    seq = match.state()["seq"]
    s = start(client, match.id)
    assert set(s) == {"id", "code"}
    qs = client.get(f"/api/training/{s['id']}/questions?code={s['code']}").get_json()
    assert [q["call"]["type"] for q in qs] == ["violation", "foul", "goal"]
    assert [q["n"] for q in qs] == [1, 2, 3]
    q = qs[0]
    assert set(q) >= {"n", "period", "at_ms", "call"} and set(q["call"]) == {"type", "kind", "team", "player", "spot", "where"}
    assert q["call"]["spot"] == {"x": 35.0, "y": 12.5} and "restart" not in q
    assert match.state()["seq"] == seq  # read-only on the match


def test_issue24_D185_answers_are_graded_with_the_3m_move_and_the_rule(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    s = start(client, match.id)
    wrong = answer(
        client,
        s,
        {
            "code": s["code"],
            "trainee": "Li",
            "n": 1,
            "restart": {"type": "free_kick", "team": "home", "spot": {"x": 35.0, "y": 12.5}},
        },
    )
    body = wrong.get_json()
    assert wrong.status_code == 200 and body["correct"] is False
    assert body["expected"]["spot"] == {"x": 33.5, "y": 12.5} and body["rule"] and body["message"]
    assert body["parts"]["at_call_spot"] is True and "10.8" in body["rules"]
    right = answer(
        client,
        s,
        {
            "code": s["code"],
            "trainee": "Wang",
            "n": 1,
            "restart": {"type": "free_kick", "team": "home", "spot": {"x": 33.2, "y": 12.9}},
        },
    )
    assert right.get_json()["correct"] is True
    carded = answer(
        client,
        s,
        {
            "code": s["code"],
            "trainee": "Li",
            "n": 2,
            "card": None,
            "restart": {"type": "free_kick", "team": "home", "spot": {"x": 18.0, "y": 7.0}},
        },
    )
    assert carded.get_json()["correct"] is False and carded.get_json()["expected"]["card"] == "yellow"
    sheet = client.get(f"/api/training/{s['id']}/sheet?code={s['code']}").get_json()
    li = next(t for t in sheet["trainees"] if t["name"] == "Li")
    assert (li["answered"], li["correct"]) == (2, 0) and li["by_rule"]["10.8"] == [0, 1] and li["by_rule"]["9.3"] == [0, 1]
    wang = next(t for t in sheet["trainees"] if t["name"] == "Wang")
    assert wang["by_rule"]["10.8"] == [1, 1]
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(f"/api/training/{s['id']}/sheet.csv?code={s['code']}").get_data(as_text=True).lstrip("\ufeff"))
        )
    )
    assert {"trainee": "Wang", "rule": "10.8", "correct": "1", "answered": "1"} in rows


def test_issue24_D185_the_first_answer_counts(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    s = start(client, match.id)
    body = {
        "code": s["code"],
        "trainee": "Li",
        "n": 3,
        "restart": {"type": "kickoff", "team": "home", "spot": {"x": 20, "y": 12.5}},
    }
    assert answer(client, s, body).get_json()["correct"] is False  # after home's goal, away kicks off (5.3)
    again = answer(client, s, {**body, "restart": {**body["restart"], "team": "away"}}).get_json()
    assert again["correct"] is True and again["first"] is False
    sheet = client.get(f"/api/training/{s['id']}/sheet?code={s['code']}").get_json()
    assert sheet["trainees"][0]["correct"] == 0


def test_issue24_only_calls_about_10_8(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    s = start(client, match.id, ["10.8"])
    qs = client.get(f"/api/training/{s['id']}/questions?code={s['code']}").get_json()
    assert [q["call"]["type"] for q in qs] == ["violation"]


def test_issue24_errors(client: FlaskClient, match: MatchDriver) -> None:
    r = client.post("/api/training", json={"match": match.id})
    assert r.status_code == 401
    r = client.post("/api/training", json={"match": match.id}, headers=auth(match.tokens["referee"]))
    assert r.status_code == 403
    assert client.post("/api/training", json={"match": "nope"}, headers=auth(ADMIN)).status_code == 404
    r = client.post("/api/training", json={"match": match.id}, headers=auth(ADMIN))
    assert r.status_code == 400 and "match" in r.get_json()["fields"]  # not over yet
    played(match)
    s = start(client, match.id)
    assert client.get(f"/api/training/{s['id']}/questions?code=WRONG1").status_code == 401
    assert client.get(f"/api/training/{s['id']}/questions").status_code == 401
    assert client.get(f"/api/training/nope/questions?code={s['code']}").status_code == 404
    bad = answer(
        client,
        s,
        {"code": s["code"], "trainee": "Li", "n": 1, "restart": {"type": "free_kick", "team": "nobody"}},
    )
    assert bad.status_code == 400 and "restart" in bad.get_json()["fields"]
    none = answer(
        client,
        s,
        {"code": s["code"], "trainee": "Li", "n": 99, "restart": {"type": "free_kick", "team": "home"}},
    )
    assert none.status_code == 404


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_issue24_the_explanation_is_in_the_trainees_language(client: FlaskClient, match: MatchDriver, lang: str) -> None:
    played(match)
    s = start(client, match.id)
    body = answer(
        client,
        s,
        {
            "code": s["code"],
            "trainee": "Li",
            "n": 3,
            "restart": {"type": "kickoff", "team": "away", "spot": {"x": 20, "y": 12.5}},
        },
        path=f"answers?lang={lang}",
    ).get_json()
    assert body["correct"] is True and body["rule_title"]
    has_chinese = any("\u4e00" <= ch <= "\u9fff" for ch in body["message"] + body["rule_title"])
    assert has_chinese if lang == "zh" else not any("\u4e00" <= ch <= "\u9fff" for ch in body["rule_title"])


def test_issue24_sessions_survive_a_restart(app: Any, client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    s = start(client, match.id)
    answer(
        client,
        s,
        {
            "code": s["code"],
            "trainee": "Li",
            "n": 3,
            "restart": {"type": "kickoff", "team": "away", "spot": {"x": 20, "y": 12.5}},
        },
    )
    from qalisball.training.service import TrainingService

    again = TrainingService(app.extensions["qalisball"])
    assert again.get(s["id"]).code == s["code"] and len(again.get(s["id"]).answers) == 1


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_issue24_the_trainers_and_the_trainees_pages_in_both_languages(
    client: FlaskClient, match: MatchDriver, lang: str
) -> None:
    played(match)
    trainer = client.get(f"/training?lang={lang}", headers=auth(ADMIN)).get_data(as_text=True)
    trainee = client.get(f"/training/join?code=ABC234&lang={lang}").get_data(as_text=True)
    assert match.id in trainer and "js/training/trainer.js" in trainer
    assert "ABC234" in trainee and "js/training/trainee.js" in trainee
    assert ("裁判培训" in trainer + trainee) == (lang == "zh")


def test_issue24_D187_a_fresh_install_has_a_finished_demo_friendly_to_train_on_and_the_demo_match_is_unchanged(
    app: Any, client: FlaskClient
) -> None:
    from qalisball.server.demo import demo_request, ensure_demo

    svc = app.extensions["qalisball"]
    demo = ensure_demo(svc)
    assert demo is not None and demo.log == [] and demo.setup.home.name == demo_request()["home"]["name"]  # as before
    over = [m for m in svc.matches.values() if m.state.phase == "finished"]
    assert len(over) == 1 and len(svc.matches) == 3  # and the 1.0 friendly to officiate (issue 22)
    friendly = client.get(f"/api/matches/{over[0].id}").get_json()
    assert friendly["score"] == {"home": 2, "away": 1} and friendly["winner"] == "home"
    s = start(client, over[0].id, ["10.8"])  # a trainer starts at once, on the 3 m move too
    qs = client.get(f"/api/training/{s['id']}/questions?code={s['code']}").get_json()
    assert [q["call"]["type"] for q in qs] == ["foul"] and qs[0]["call"]["spot"] == {"x": 38.5, "y": 12.5}
    assert ensure_demo(svc) is None and len(svc.matches) == 3  # only once


GROUNDED_NEAR_HOMES_AREA = [
    {"type": "coin_toss", "kickoff": "away", "home_end": "x0"},
    {"type": "period_start"},
    {"type": "restart_taken", "team": "away", "player": 1},
    {"type": "violation", "kind": "ball_grounded", "team": "away", "spot": {"x": 35.0, "y": 12.5}},
]


def test_issue24_D189_a_hand_written_exercise_is_stored_shared_as_json_and_answered_by_the_engine(client: FlaskClient) -> None:
    body = {"title": "Grounded near the area", "events": GROUNDED_NEAR_HOMES_AREA}
    assert client.post("/api/training/exercises", json=body).status_code == 401
    r = client.post("/api/training/exercises", json=body, headers=auth(ADMIN))
    made = r.get_json()
    assert r.status_code == 201, made
    assert made["expected"]["type"] == "free_kick" and made["expected"]["spot"] == {"x": 33.5, "y": 12.5}  # 10.8
    assert "10.8" in made["rules"] and made["question"]["call"]["kind"] == "ball_grounded"
    shared = client.get(f"/api/training/exercises/{made['id']}?download=1")
    assert shared.headers["Content-Disposition"].endswith(".json") and shared.get_json() == body  # shared as JSON …
    again = client.post("/api/training/exercises", json=shared.get_json(), headers=auth(ADMIN))  # … and stored again
    assert again.status_code == 201 and again.get_json()["id"] != made["id"]
    assert [x["title"] for x in client.get("/api/training/exercises").get_json()] == [body["title"]] * 2
    url = f"/api/training/exercises/{made['id']}/answers"
    wrong = client.post(url, json={"restart": {"type": "free_kick", "team": "home", "spot": {"x": 35.0, "y": 12.5}}}).get_json()
    assert wrong["correct"] is False and wrong["parts"]["at_call_spot"] is True
    right = client.post(url, json={"restart": {"type": "free_kick", "team": "home", "spot": {"x": 33.4, "y": 12.0}}}).get_json()
    assert right["correct"] is True and right["rule"] and right["message"]


def test_issue24_D189_an_exercise_the_engine_cannot_ask_is_refused_naming_the_call(client: FlaskClient) -> None:
    refused = GROUNDED_NEAR_HOMES_AREA[:2] + [{"type": "goal", "team": "away", "player": 1}]  # the ball is dead (7.1)
    r = client.post("/api/training/exercises", json={"events": refused}, headers=auth(ADMIN))
    assert r.status_code == 409 and r.get_json()["rule"] == "7.1" and r.get_json()["index"] == 2
    nothing = client.post("/api/training/exercises", json={"events": GROUNDED_NEAR_HOMES_AREA[:2]}, headers=auth(ADMIN))
    assert nothing.status_code == 400
    bad = client.post("/api/training/exercises", json={"events": [{"type": "goal"}]}, headers=auth(ADMIN))
    assert bad.status_code == 400 and any(k.startswith("events.0") for k in bad.get_json()["fields"])
    assert client.get("/api/training/exercises").get_json() == []


def test_issue24_D190_the_trainer_moves_everyone_following_to_the_next_call(client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    s = start(client, match.id)
    url = f"/api/training/{s['id']}/pace"
    assert client.get(f"{url}?code={s['code']}").get_json() == {"n": None}  # each at their own pace
    assert client.put(url, json={"n": 2}).status_code == 401  # the trainer's alone (organiser)
    assert client.put(url, json={"n": 2}, headers=auth(ADMIN)).get_json() == {"n": 2}
    assert client.get(f"{url}?code={s['code']}").get_json() == {"n": 2}
    assert client.get(f"{url}?code=WRONG1").status_code == 401
    assert client.put(url, json={"n": 99}, headers=auth(ADMIN)).status_code == 404
    assert client.put(url, json={"n": None}, headers=auth(ADMIN)).get_json() == {"n": None}


def test_issue24_D50_wrong_session_codes_are_throttled_per_address_like_tokens(
    client: FlaskClient, match: MatchDriver, clock: Any
) -> None:
    """A session's code is a secret as a token is: 6 characters of 32 would fall to guessing unthrottled."""
    played(match)
    s = start(client, match.id)
    guess = {"REMOTE_ADDR": "192.0.2.66"}
    for i in range(5):
        assert client.get(f"/api/training/join?code=WRNG{i:02d}", environ_base=guess).status_code == 401, i
        assert client.get(f"/api/training/{s['id']}/questions?code=WRNG{i:02d}", environ_base=guess).status_code == 401
    # Throttled: every code from that address, the right one too, in a body too, answers 429 before it is looked at.
    r = client.get(f"/api/training/join?code={s['code']}", environ_base=guess)
    assert r.status_code == 429 and r.get_json()["error"] == "too_many_requests" and int(r.headers["Retry-After"]) >= 1
    assert client.get(f"/api/training/{s['id']}/sheet.csv?code={s['code']}", environ_base=guess).status_code == 429
    body = {"code": s["code"], "trainee": "Li", "n": 1, "restart": {"type": "free_kick", "team": "home"}}
    assert answer(client, s, body, environ_base=guess).status_code == 429
    assert client.get(f"/api/training/{s['id']}/answers?code={s['code']}").get_json() == []  # nothing stored
    # Another address, and the exercises (no code), are not affected; the bucket drains.
    assert client.get(f"/api/training/join?code={s['code']}", environ_base={"REMOTE_ADDR": "192.0.2.7"}).status_code == 200
    assert client.get("/api/training/exercises", environ_base=guess).status_code == 200
    clock.advance(60_000)
    assert client.get(f"/api/training/join?code={s['code']}", environ_base=guess).status_code == 200


@pytest.mark.parametrize(
    "name", [" ", "\u3000", "\u200b", "\x00Li", "Li\u202e", "Li\nWang", "a\u200bb", "Li\u2060Hua", "\ufeffLi"]
)
def test_issue24_D151_issue33_item5_D222_a_trainees_name_is_text_as_people_write_it_nothing_invisible_inside(
    client: FlaskClient, match: MatchDriver, name: str
) -> None:
    played(match)
    s = start(client, match.id)
    r = join(client, s, name)
    assert r.status_code == 400 and "name" in r.get_json()["fields"]
    assert client.get("/api/training", headers=auth(ADMIN)).get_json()[0]["trainees"] == 0


def test_issue24_D151_an_exercises_title_and_event_types_are_read_strictly(client: FlaskClient) -> None:
    for title in ("\x00x", "a\u202eb", " "):
        r = client.post("/api/training/exercises", json={"title": title, "events": GROUNDED_NEAR_HOMES_AREA}, headers=auth(ADMIN))
        assert r.status_code == 400 and "title" in r.get_json()["fields"], title
    for kind in (["goal"], {"a": 1}, 7):
        r = client.post("/api/training/exercises", json={"events": [{"type": kind}]}, headers=auth(ADMIN))
        assert r.status_code == 400 and "events.0.type" in r.get_json()["fields"], kind
    assert client.get("/api/training/exercises").get_json() == []


# -- issue 33 item 5: trainees join once, answers carry their token, sessions end (D220, D221) ----------


def _answer_body(s: dict[str, Any], name: str, token: str | None = None, n: int = 3) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": s["code"],
        "trainee": name,
        "n": n,
        "restart": {"type": "kickoff", "team": "away", "spot": {"x": 20, "y": 12.5}},
    }
    return body if token is None else {**body, "token": token}


def test_issue33_item5_D220_a_trainee_joins_once_and_nobody_answers_as_someone_else(
    client: FlaskClient, match: MatchDriver
) -> None:
    played(match)
    s = start(client, match.id)
    url = f"/api/training/{s['id']}/answers"
    alice = join(client, s, "Alice")
    assert alice.status_code == 201 and set(alice.get_json()) >= {"trainee", "token"}
    alice_token = alice.get_json()["token"]
    for again in ("Alice", "alice", " ALICE ", "Ａｌｉｃｅ"):  # the same name, however typed
        r = join(client, s, again)
        assert r.status_code == 409 and r.get_json()["error"] == "conflict", again
    bob_token = join(client, s, "Bob").get_json()["token"]
    assert client.post(url, json=_answer_body(s, "Alice")).status_code == 401  # no token
    assert client.post(url, json=_answer_body(s, "Alice", "x" * 24)).status_code == 401  # no trainee's
    r = client.post(url, json=_answer_body(s, "Alice", bob_token))  # Bob answering as Alice
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    assert client.post(url, json=_answer_body(s, "Mallory", bob_token)).status_code == 403
    assert client.get(f"/api/training/{s['id']}/answers?code={s['code']}").get_json() == []  # nothing stored
    mine = client.post(url, json=_answer_body(s, "Alice", alice_token))
    assert mine.status_code == 200 and mine.get_json()["correct"] is True
    sheet = client.get(f"/api/training/{s['id']}/sheet?code={s['code']}").get_json()["trainees"]
    assert [(t["name"], t["correct"]) for t in sheet] == [("Alice", 1)]


def test_issue33_item5_D220_a_session_takes_at_most_200_trainees_and_joins_are_throttled_per_address(
    client: FlaskClient, match: MatchDriver, clock: Any
) -> None:
    from qalisball.training.service import JOINS, MAX_TRAINEES

    played(match)
    s = start(client, match.id)
    assert MAX_TRAINEES == 200 and JOINS == 60
    room = {"REMOTE_ADDR": "192.0.2.10"}  # a classroom behind one router
    for i in range(JOINS):
        assert join(client, s, f"Trainee {i}", environ_base=room).status_code == 201, i
    r = join(client, s, "One too many", environ_base=room)
    assert r.status_code == 429 and r.get_json()["error"] == "too_many_requests" and int(r.headers["Retry-After"]) >= 1
    clock.advance(1_000)  # one more a second
    assert join(client, s, "One too many", environ_base=room).status_code == 201
    for i in range(JOINS + 1, MAX_TRAINEES):
        assert join(client, s, f"Trainee {i}", environ_base={"REMOTE_ADDR": f"198.51.100.{i}"}).status_code == 201
    full = join(client, s, "Late", environ_base={"REMOTE_ADDR": "203.0.113.1"})
    assert full.status_code == 409 and "200" in full.get_json()["message"]
    assert client.get("/api/training", headers=auth(ADMIN)).get_json()[0]["trainees"] == MAX_TRAINEES


def test_issue33_item5_the_questions_and_the_sheet_are_computed_once_per_session_not_per_request(
    app: Any, client: FlaskClient, match: MatchDriver
) -> None:
    played(match)
    s = start(client, match.id)
    svc = app.extensions["qalisball_training"]
    for _ in range(3):
        client.get(f"/api/training/{s['id']}/questions?code={s['code']}")
        client.get(f"/api/training/{s['id']}/sheet?code={s['code']}")
        client.get(f"/api/training/{s['id']}/answers?code={s['code']}")
    answer(client, s, _answer_body(s, "Li"))
    answer(client, s, _answer_body(s, "Wang", n=1))
    sheet = client.get(f"/api/training/{s['id']}/sheet?code={s['code']}").get_json()["trainees"]
    assert svc.computed == 1  # one replay of the log for the whole session
    assert {t["name"] for t in sheet} == {"Li", "Wang"}  # and the kept sheet counted the new answers


def test_issue33_item5_the_trainers_page_polls_only_the_new_answers_at_most_500_at_a_time(
    client: FlaskClient, match: MatchDriver
) -> None:
    played(match)
    s = start(client, match.id)
    for name, n in (("Li", 1), ("Wang", 2), ("Li", 3)):
        answer(client, s, _answer_body(s, name, n=n))
    url = f"/api/training/{s['id']}/answers?code={s['code']}"
    assert [(a["trainee"], a["n"]) for a in client.get(url).get_json()] == [("Li", 1), ("Wang", 2), ("Li", 3)]
    assert [(a["trainee"], a["n"]) for a in client.get(url + "&since=2").get_json()] == [("Li", 3)]
    assert client.get(url + "&since=3").get_json() == []
    assert [a["n"] for a in client.get(url + "&since=1&limit=1").get_json()] == [2]
    for bad in ("-1", "x", "1e3", "501"):
        key = "limit" if bad == "501" else "since"
        r = client.get(url + f"&{key}={bad}")
        assert r.status_code == 400 and key in r.get_json()["fields"], bad


def test_issue33_item5_D221_a_closed_sessions_code_stops_working_and_the_trainer_still_reads_it(
    client: FlaskClient, match: MatchDriver
) -> None:
    played(match)
    old, s = start(client, match.id), start(client, match.id)
    answer(client, s, _answer_body(s, "Li"))
    assert client.post(f"/api/training/{s['id']}/close").status_code == 401  # the trainer's alone
    closed = client.post(f"/api/training/{s['id']}/close", headers=auth(ADMIN))
    assert closed.status_code == 200 and closed.get_json()["status"] == "closed"
    for r in (
        client.get(f"/api/training/join?code={s['code']}"),
        client.get(f"/api/training/{s['id']}/questions?code={s['code']}"),
        client.get(f"/api/training/{s['id']}/sheet?code={s['code']}"),
        join(client, s, "Wang"),
        answer(client, s, _answer_body(s, "Li", n=1)),
    ):
        assert r.status_code == 409 and r.get_json()["error"] == "conflict" and "closed" in r.get_json()["message"]
    sheet = client.get(f"/api/training/{s['id']}/sheet", headers=auth(ADMIN)).get_json()["trainees"]
    assert [t["name"] for t in sheet] == ["Li"]  # the trainer reads it still, without the code
    listed = client.get("/api/training", headers=auth(ADMIN)).get_json()
    assert [(x["id"], x["status"]) for x in listed] == [(old["id"], "open"), (s["id"], "closed")]  # running first
    assert client.get("/api/training").status_code == 401


def test_issue33_item5_D221_a_session_expires_24_hours_after_it_started(
    client: FlaskClient, match: MatchDriver, clock: Any
) -> None:
    played(match)
    s = start(client, match.id)
    clock.advance(24 * 3_600_000 - 1)
    assert client.get(f"/api/training/{s['id']}/questions?code={s['code']}").status_code == 200
    clock.advance(1)
    r = client.get(f"/api/training/{s['id']}/questions?code={s['code']}")
    assert r.status_code == 409 and "expired" in r.get_json()["message"]
    assert client.get("/api/training", headers=auth(ADMIN)).get_json()[0]["status"] == "expired"


# -- issue 33 item 11: no address forgotten while its bucket is full; a bound per session (D223) ----------


def test_issue33_item11_D223_10050_other_addresses_do_not_empty_one_addresss_bucket() -> None:
    from qalisball.web.hardening import THROTTLE_ADDRESSES, THROTTLE_BURST, Throttle

    throttle, now = Throttle(), 1_000_000
    for _ in range(THROTTLE_BURST):
        throttle.failed("127.0.0.20", now)
    assert throttle.wait_s("127.0.0.20", now) > 0
    for i in range(THROTTLE_ADDRESSES + 50):
        throttle.failed(f"10.{i // 65536}.{i // 256 % 256}.{i % 256}", now)
    assert throttle.wait_s("127.0.0.20", now) > 0  # still throttled
    assert len(throttle._level) <= THROTTLE_ADDRESSES + 1  # still bounded: the crowd beyond shares one bucket
    assert throttle.wait_s("172.16.0.1", now) > 0  # the 50 beyond filled it: a newcomer is throttled with them
    assert throttle.wait_s("10.0.0.1", now) == 0  # a remembered address with one failure is not
    later = now + 24 * 3_600_000  # every bucket drained: old addresses are forgotten for new ones
    throttle.failed("192.0.2.1", later)
    assert throttle.wait_s("192.0.2.1", later) == 0 and "192.0.2.1" in throttle._level


def test_issue33_item11_D223_wrong_codes_are_bounded_per_session_whatever_the_address(
    client: FlaskClient, match: MatchDriver, clock: Any
) -> None:
    from qalisball.training.service import CODE_GUESSES, SESSION_GUESSES

    played(match)
    s, other = start(client, match.id), start(client, match.id)
    url = f"/api/training/{s['id']}/questions?code="
    for i in range(SESSION_GUESSES):  # each from an address of its own: the per-address throttle never fills
        assert client.get(url + f"WRNG{i:02d}", environ_base={"REMOTE_ADDR": f"198.51.100.{i}"}).status_code == 401
    r = client.get(url + s["code"], environ_base={"REMOTE_ADDR": "203.0.113.9"})  # the right code, refused unread
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert client.get(f"/api/training/{other['id']}/questions?code={other['code']}").status_code == 200
    assert client.get(f"/api/training/{s['id']}/questions", headers=auth(ADMIN)).status_code == 200  # the trainer
    clock.advance(6_000)
    assert client.get(url + s["code"], environ_base={"REMOTE_ADDR": "203.0.113.9"}).status_code == 200
    for i in range(CODE_GUESSES):  # codes typed without a session: one bound for all
        r = client.get(f"/api/training/join?code=WR{i:04d}", environ_base={"REMOTE_ADDR": f"10.0.{i // 256}.{i % 256}"})
        assert r.status_code == 401
    assert client.get(f"/api/training/join?code={s['code']}", environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code == 429


# -- issue 33 items 9, 10: training records sealed in the records ledger (D224); verify says what failed --


def _trained(db: Any) -> dict[str, Any]:
    """A session on the demo's finished friendly, a trainee's wrong answer, an exercise; the app closed."""
    from qalisball.server.demo import ensure_demo

    from .test_integrity_records import _app, _close

    app = _app(db)
    c = app.test_client()
    ensure_demo(app.extensions["qalisball"])
    friendly = next(m for m in c.get("/api/matches").get_json() if m["phase"] == "finished")
    s = c.post("/api/training", json={"match": friendly["id"]}, headers=auth(INTEGRITY_ADMIN)).get_json()
    r = answer(c, s, {"code": s["code"], "trainee": "Li", "n": 1, "restart": {"type": "penalty", "team": "away"}})
    assert r.status_code == 200 and r.get_json()["correct"] is False
    x = c.post("/api/training/exercises", json={"events": GROUNDED_NEAR_HOMES_AREA}, headers=auth(INTEGRITY_ADMIN))
    assert x.status_code == 201
    _close(app)
    return s


INTEGRITY_ADMIN = "integrity-organiser-token-0123456"  # tests/test_integrity_records.py's


@pytest.mark.parametrize(
    ("change", "record"),
    [
        ("UPDATE training_answers SET correct = 1", "training_answers"),
        ("UPDATE training_sessions SET code = 'AAAAAA'", "training_sessions"),
        ("UPDATE training_trainees SET name = 'Wang'", "training_trainees"),
        ("DELETE FROM training_exercises", "training_exercises"),
        (
            "INSERT INTO training_sessions (id, code, match_id, rules, created_at) VALUES ('x', 'BBBBBB', 'm', '[]', '2027')",
            "training_sessions",
        ),
    ],
)
def test_issue33_item9_D224_item10_a_training_record_changed_in_sqlite_is_damaged_and_never_served(
    tmp_path: Any, change: str, record: str
) -> None:
    from .test_integrity_records import _app, _close, _sql, _verify

    db = tmp_path / "t.db"
    s = _trained(db)
    ok, out = _verify(db)
    assert ok, out
    _sql(db, change)
    ok, out = _verify(db)
    assert not ok and "DAMAGED  records" in out and f"the record {record} " in out, out
    # Item 10: the file is sound; what failed is the records, and the first line says so.
    assert re.search(r"quick_check ok, schema version (\d+)$", out.splitlines()[0]), out
    assert int(out.splitlines()[0].rsplit(" ", 1)[1]) >= 33 and "FAILED" not in out, out
    app = _app(db)
    c = app.test_client()
    assert c.get("/api/training/join?code=AAAAAA").status_code == 401  # a planted code opens nothing
    assert c.get("/api/training/join?code=BBBBBB").status_code == 401
    assert c.get(f"/api/training/join?code={s['code']}").status_code == 200  # the proven one still does
    sheet = c.get(f"/api/training/{s['id']}/sheet?code={s['code']}").get_json()["trainees"]
    assert [(t["name"], t["correct"], t["answered"]) for t in sheet] == [("Li", 0, 1)]  # as graded, never the forgery
    assert len(c.get("/api/training/exercises").get_json()) == 1
    _close(app)


def test_issue33_item5_D220_migration_33_keeps_the_names_that_answered_before_trainees_joined() -> None:
    """A database of migration 24 (answers under bare names): each name becomes a trainee without a token
    (its answers stand; nobody joins or answers under it again), sessions get ``closed_at``."""
    import sqlite_utils

    from qalisball.training.tables import migrate, migrate_trainees

    db = sqlite_utils.Database(memory=True)
    migrate(db)
    db["training_sessions"].insert({"id": "s1", "code": "ABCDEF", "match_id": "m", "rules": "[]", "created_at": "2027"})
    for name, n in (("Li Hua", 1), ("Li Hua", 2), ("Wang", 1)):
        db["training_answers"].insert(
            {"session_id": "s1", "trainee": name, "n": n, "answer": "{}", "correct": 1, "answered_at": "2027"}
        )
    migrate_trainees(db)
    trainees = sorted((r["name"], r["name_key"], r["token_hash"]) for r in db["training_trainees"].rows)
    assert trainees == [("Li Hua", "li hua", None), ("Wang", "wang", None)]
    assert "closed_at" in db["training_sessions"].columns_dict


def test_D293_verify_calls_the_training_records_of_a_database_at_version_24_unsealed_not_damaged(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database the version before wrote (schema version 24: training rows, never sealed), verified before
    the new version ever started on it: its training rows are not "added outside the server" (docs/deploy.md:
    an older database is sealed at the next start); once the server has started, they are sealed."""
    from qalisball.storage import migrations
    from qalisball.storage.store import Store

    from .test_integrity_records import _sql, _verify

    db = tmp_path / "old.db"
    for number in [n for n in migrations.MIGRATIONS if n > 24]:  # the version before: migrations up to 24
        monkeypatch.delitem(migrations.MIGRATIONS, number)
    Store(db).close()
    monkeypatch.undo()
    _sql(  # what that version wrote, unsealed: a session, a bare name's answer, an exercise
        db,
        "INSERT INTO training_sessions (id, code, match_id, rules, created_at) VALUES ('s1', 'ABCDEF', 'm', '[]', '2027')",
        "INSERT INTO training_answers VALUES ('s1', 'Li', 1, '{}', 0, '2027')",
        "INSERT INTO training_exercises (id, title, events, created_at) VALUES ('x1', 'E', '[]', '2027')",
    )
    ok, out = _verify(db)
    assert ok and "DAMAGED" not in out, out
    assert out.splitlines()[0].endswith("quick_check ok, schema version 24"), out
    note = next(line for line in out.splitlines() if line.startswith("NOTE     records"))
    assert "training_answers, training_exercises, training_sessions not sealed yet" in note, out
    assert "seals them as they are when it next starts" in note, out
    store = Store(db)  # the new version's first start: migration 33 seals them
    assert store.problem is None and store.schema_version == max(migrations.MIGRATIONS) and store.unsealed == []
    store.close()
    ok, out = _verify(db)
    assert ok and "NOTE" not in out and "OK       records" in out, out
    _sql(db, "UPDATE training_answers SET correct = 1")  # and from then on a change is caught
    ok, out = _verify(db)
    assert not ok and "the record training_answers " in out, out
