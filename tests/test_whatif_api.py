"""The arbitration committee's what-if over HTTP (API.md "Training and what-if", issue 24, SPEC C7).

A copy of the match's log with changes (amends, voids, inserts, as posted to events), both outcomes, the
later events the changed log refuses, and for a competition's match the standings under each outcome.
The match's log, seq and state never change.
"""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.conftest import ADMIN, MatchDriver, auth
from tests.test_competitions import Api, _fixture_of, _league, _six


def test_issue24_C7_an_amended_goal_over_http_and_the_standings_under_each_outcome(client: FlaskClient) -> None:
    api = Api(client)
    ids, by = _six(api)
    comp = _league(api, ids)["id"]
    fixture = _fixture_of(api.view(comp), by["A"], by["B"])
    made = api.match(comp, fixture["id"])
    api.play(made, goals=["home", "home"])  # 2-0; away kicked off after the first goal
    mid = made["id"]
    events = client.get(f"/api/matches/{mid}/events").get_json()
    goal = next(e for e in events if e["type"] == "goal")
    kickoff = next(e for e in events if e["seq"] > goal["seq"] and e["type"] == "restart_taken")
    before = client.get(f"/api/matches/{mid}").get_json()
    change = {
        "type": "amend",
        "target": goal["seq"],
        "event": {"type": "shot_missed", "team": goal["team"], "player": goal["player"]},
        "reason": "protest",
    }
    r = client.post(f"/api/matches/{mid}/what-if", json={"changes": [change]}, headers=auth(ADMIN))
    body = r.get_json()
    assert r.status_code == 200, body
    assert body["actual"]["score"] == {"home": 2, "away": 0} and body["what_if"]["score"] == {"home": 1, "away": 0}
    assert body["actual"]["winner"] == body["what_if"]["winner"] == "home"
    assert any(
        x["seq"] == kickoff["seq"] and x["type"] == "restart_taken" and x["rule"] and x["message"] for x in body["refused"]
    )
    assert body["restart_after"]["actual"]["type"] == "kickoff" and body["restart_after"]["what_if"] is None

    def row(side: str, team: str) -> dict[str, object]:
        return next(x for x in body["standings"][side]["all"] if x["team"] == team)

    home = fixture["home"]
    assert (row("actual", home)["points"], row("actual", home)["goal_difference"]) == (3, 2)
    assert (row("what_if", home)["points"], row("what_if", home)["goal_difference"]) == (3, 1)
    after = client.get(f"/api/matches/{mid}").get_json()
    assert (after["seq"], after["score"]) == (before["seq"], before["score"])  # nothing stored
    assert client.get(f"/api/matches/{mid}/events").get_json() == events


def test_issue24_a_match_outside_a_competition_has_no_standings_and_the_referee_may_ask(
    client: FlaskClient, match: MatchDriver
) -> None:
    match.kickoff()
    match.take()
    foul = match.post({"type": "foul", "team": "away", "player": 2, "spot": {"x": 18.0, "y": 7.0}, "card": "yellow"})["seq"]
    match.take()
    r = client.post(
        f"/api/matches/{match.id}/what-if",
        json={"changes": [{"type": "void", "target": foul, "reason": "no foul"}]},
        headers=auth(match.tokens["referee"]),
    )
    body = r.get_json()
    assert r.status_code == 200 and "standings" not in body
    assert body["actual"]["teams"]["away"]["yellow"] == [2] and body["what_if"]["teams"]["away"]["yellow"] == []
    assert [x["type"] for x in body["refused"]] == ["restart_taken"]


def test_issue24_what_if_errors_in_apis_order(client: FlaskClient, match: MatchDriver) -> None:
    match.kickoff()
    match.take()
    goal = match.post({"type": "goal", "team": "home", "player": 1})["seq"]
    url = f"/api/matches/{match.id}/what-if"
    void = {"changes": [{"type": "void", "target": goal, "reason": ""}]}
    assert client.post(url, json=void).status_code == 401
    assert client.post(url, json=void, headers=auth(match.tokens["scorer"])).status_code == 403
    assert client.post("/api/matches/nope/what-if", json=void, headers=auth(ADMIN)).status_code == 404
    assert (
        client.post(url, json={"changes": [{"type": "void", "target": 99, "reason": ""}]}, headers=auth(ADMIN)).status_code == 404
    )
    bad = client.post(url, json={"changes": [{"type": "goal", "team": "home"}]}, headers=auth(ADMIN))
    assert bad.status_code == 400
    bad = client.post(url, json={"changes": [{"type": "amend", "target": goal, "event": {"type": "goal"}}]}, headers=auth(ADMIN))
    assert bad.status_code == 400 and any(k.startswith("changes.0.event") for k in bad.get_json()["fields"])
    # A change that is itself illegal answers 409 as the event would: home has the ball, a steal is away's.
    illegal = client.post(
        url,
        json={"changes": [{"type": "amend", "target": goal, "event": {"type": "steal", "team": "home"}, "reason": ""}]},
        headers=auth(ADMIN),
    )
    assert illegal.status_code == 409 and illegal.get_json()["rule"] == "6.2"
