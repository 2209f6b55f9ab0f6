"""Referee training over HTTP (API.md "Training and what-if", issue 24): a session from a finished match,
questions without their rulings, answers graded by the engine, the score sheet (JSON and CSV).

The match is officiated through the events API (``MatchDriver``); the session never changes it.
"""

from __future__ import annotations

import csv
import io
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
    url = f"/api/training/{s['id']}/answers"
    wrong = client.post(
        url,
        json={
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
    right = client.post(
        url,
        json={
            "code": s["code"],
            "trainee": "Wang",
            "n": 1,
            "restart": {"type": "free_kick", "team": "home", "spot": {"x": 33.2, "y": 12.9}},
        },
    )
    assert right.get_json()["correct"] is True
    carded = client.post(
        url,
        json={
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
    url = f"/api/training/{s['id']}/answers"
    answer = {
        "code": s["code"],
        "trainee": "Li",
        "n": 3,
        "restart": {"type": "kickoff", "team": "home", "spot": {"x": 20, "y": 12.5}},
    }
    assert client.post(url, json=answer).get_json()["correct"] is False  # after home's goal, away kicks off (5.3)
    again = client.post(url, json={**answer, "restart": {**answer["restart"], "team": "away"}}).get_json()
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
    bad = client.post(
        f"/api/training/{s['id']}/answers",
        json={"code": s["code"], "trainee": "Li", "n": 1, "restart": {"type": "free_kick", "team": "nobody"}},
    )
    assert bad.status_code == 400 and "restart" in bad.get_json()["fields"]
    none = client.post(
        f"/api/training/{s['id']}/answers",
        json={"code": s["code"], "trainee": "Li", "n": 99, "restart": {"type": "free_kick", "team": "home"}},
    )
    assert none.status_code == 404


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_issue24_the_explanation_is_in_the_trainees_language(client: FlaskClient, match: MatchDriver, lang: str) -> None:
    played(match)
    s = start(client, match.id)
    body = client.post(
        f"/api/training/{s['id']}/answers?lang={lang}",
        json={
            "code": s["code"],
            "trainee": "Li",
            "n": 3,
            "restart": {"type": "kickoff", "team": "away", "spot": {"x": 20, "y": 12.5}},
        },
    ).get_json()
    assert body["correct"] is True and body["rule_title"]
    has_chinese = any("\u4e00" <= ch <= "\u9fff" for ch in body["message"] + body["rule_title"])
    assert has_chinese if lang == "zh" else not any("\u4e00" <= ch <= "\u9fff" for ch in body["rule_title"])


def test_issue24_sessions_survive_a_restart(app: Any, client: FlaskClient, match: MatchDriver) -> None:
    played(match)
    s = start(client, match.id)
    client.post(
        f"/api/training/{s['id']}/answers",
        json={
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
    assert client.post(f"/api/training/{s['id']}/answers", json=body, environ_base=guess).status_code == 429
    assert client.get(f"/api/training/{s['id']}/answers?code={s['code']}").get_json() == []  # nothing stored
    # Another address, and the exercises (no code), are not affected; the bucket drains.
    assert client.get(f"/api/training/join?code={s['code']}", environ_base={"REMOTE_ADDR": "192.0.2.7"}).status_code == 200
    assert client.get("/api/training/exercises", environ_base=guess).status_code == 200
    clock.advance(60_000)
    assert client.get(f"/api/training/join?code={s['code']}", environ_base=guess).status_code == 200


@pytest.mark.parametrize("name", [" ", "\u3000", "\u200b", "\x00Li", "Li\u202e", "Li\nWang"])
def test_issue24_D151_a_trainees_name_is_text_as_people_write_it(client: FlaskClient, match: MatchDriver, name: str) -> None:
    played(match)
    s = start(client, match.id)
    body = {"code": s["code"], "trainee": name, "n": 1, "restart": {"type": "free_kick", "team": "home"}}
    r = client.post(f"/api/training/{s['id']}/answers", json=body)
    assert r.status_code == 400 and "trainee" in r.get_json()["fields"]
    assert client.get(f"/api/training/{s['id']}/answers?code={s['code']}").get_json() == []


def test_issue24_D151_an_exercises_title_and_event_types_are_read_strictly(client: FlaskClient) -> None:
    for title in ("\x00x", "a\u202eb", " "):
        r = client.post("/api/training/exercises", json={"title": title, "events": GROUNDED_NEAR_HOMES_AREA}, headers=auth(ADMIN))
        assert r.status_code == 400 and "title" in r.get_json()["fields"], title
    for kind in (["goal"], {"a": 1}, 7):
        r = client.post("/api/training/exercises", json={"events": [{"type": kind}]}, headers=auth(ADMIN))
        assert r.status_code == 400 and "events.0.type" in r.get_json()["fields"], kind
    assert client.get("/api/training/exercises").get_json() == []
