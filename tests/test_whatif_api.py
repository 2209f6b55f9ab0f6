"""The arbitration committee's what-if over HTTP (API.md "Training and what-if", issue 24, SPEC C7).

A copy of the match's log with changes (amends, voids, inserts, as posted to events), both outcomes, the
later events the changed log refuses, and for a competition's match the standings under each outcome.
The match's log, seq and state never change.
"""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.conftest import ADMIN, MatchDriver, auth
from tests.test_competitions import Api, _fixture_of, _league, _six


def test_issue24_C7_D186_an_amended_goal_over_http_and_the_standings_under_each_outcome(client: FlaskClient) -> None:
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


def _protested(client: FlaskClient) -> tuple[Api, str, dict[str, object], str, dict[str, object], str]:
    """A league fixture played 2-0 and a protest by the away team against home's first goal."""
    api = Api(client)
    ids, by = _six(api)
    comp = _league(api, ids)["id"]
    fixture = _fixture_of(api.view(comp), by["A"], by["B"])
    made = api.match(comp, fixture["id"])
    api.play(made, goals=["home", "home"])
    goal = next(e for e in client.get(f"/api/matches/{made['id']}/events").get_json() if e["type"] == "goal")
    pid = api.call(
        "POST", f"/api/competitions/{comp}/protests", {"fixture": fixture["id"], "team": fixture["away"], "text": "no goal"}, 201
    )["id"]
    return api, comp, fixture, made["id"], goal, pid


def test_issue24_D188_the_committees_decision_links_the_what_if_and_the_protest_report_prints_both_columns(
    client: FlaskClient,
) -> None:
    api, comp, fixture, mid, goal, pid = _protested(client)
    seq = client.get(f"/api/matches/{mid}").get_json()["seq"]
    change = {"type": "amend", "target": goal["seq"], "event": {"type": "shot_missed", "team": "home"}, "reason": "protest"}
    decision = {"upheld": False, "text": "the goal stands", "what_if": {"changes": [change], "seq": seq}}
    api.call("POST", f"/api/competitions/{comp}/protests/{pid}/decision", decision, 200)
    stored = next(p for f in api.view(comp)["fixtures"] for p in f["protests"] if p["id"] == pid)["decision"]
    assert stored["what_if"] == {"match": mid, "changes": [change], "seq": seq}
    for lang in ("en", "zh"):
        html = client.get(f"/competitions/{comp}/protests/{pid}/report?lang={lang}").get_data(as_text=True)
        assert 'id="columns"' in html and "2–0" in html and "1–0" in html, html  # as logged, and had the goal been a miss
        assert "5.3" in html  # the kickoff after the goal as logged (5.3); the what-if's restart is the miss's
    # The organiser's page: the protest's "What if…" link and its report (the fixture's panel, loaded when opened).
    panel = client.get(f"/competitions/{comp}/admin/fixtures/{fixture['id']}", headers=auth(ADMIN)).get_data(as_text=True)
    assert f"/matches/{mid}/what-if?competition={comp}&amp;protest={pid}" in panel
    assert f"/competitions/{comp}/protests/{pid}/report" in panel


def test_issue24_D188_a_decisions_what_if_is_read_as_a_what_if_request_is(client: FlaskClient) -> None:
    api, comp, fixture, mid, goal, pid = _protested(client)
    bad = {"upheld": False, "text": "x", "what_if": {"changes": [{"type": "goal", "team": "home"}], "seq": 1}}
    r = client.post(f"/api/competitions/{comp}/protests/{pid}/decision", json=bad, headers=auth(ADMIN))
    assert r.status_code == 400 and any("what_if" in k for k in r.get_json()["fields"]), r.get_json()
    amend = {"type": "amend", "target": goal["seq"], "event": {"type": "goal"}}  # no team: as the events endpoint refuses it
    r = client.post(
        f"/api/competitions/{comp}/protests/{pid}/decision",
        json={"upheld": False, "text": "x", "what_if": {"changes": [amend], "seq": 1}},
        headers=auth(ADMIN),
    )
    assert r.status_code == 400


def test_issue24_the_what_if_page_from_a_protest_and_from_the_officials_page(client: FlaskClient) -> None:
    api, comp, fixture, mid, goal, pid = _protested(client)
    page = client.get(f"/matches/{mid}/what-if?competition={comp}&protest={pid}&lang=zh", headers=auth(ADMIN))
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "js/whatif/whatif.js" in html and 'id="decision"' in html and "no goal" in html
    officials = client.get(f"/matches/{mid}/officials?token={ADMIN}", follow_redirects=True).get_data(as_text=True)
    assert f"/matches/{mid}/what-if" in officials
    assert client.get("/matches/nope/what-if").status_code == 404
