"""The rule-set switch over HTTP (SPEC §11.2, API.md ``rules.rule_set``; issue 22).

``POST /api/matches`` takes ``"rules": {"rule_set": "1.0"}`` (default ``"2.0"``); the public state shows
it as ``rule_set``; it is fixed for the life of the match (stored with the match, used by every replay);
a match stored before rule sets existed is a 2.0 match. What a 1.0 match rules is tested at engine level
in tests/test_rules_v1.py; here, only that the API plays the match under the rule set it was created with.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball.match.schemas import MatchSchema
from qalisball.match.service import MatchService
from qalisball.server.demo import demo_request
from qalisball.storage.store import Store
from tests.conftest import ADMIN, FakeClock, MatchDriver, auth


def v1_request(**rules: Any) -> dict[str, Any]:
    body = demo_request()
    body["rules"] = {**body.get("rules", {}), "rule_set": "1.0", **rules}
    return body


def create(client: FlaskClient, body: dict[str, Any]) -> Any:
    return client.post("/api/matches", json=body, headers=auth(ADMIN))


def test_V1_11_2_the_default_rule_set_is_2_0(match: MatchDriver) -> None:
    assert match.state()["rule_set"] == "2.0"


def test_V1_11_2_a_match_created_with_rule_set_1_0_is_played_under_1_0(client: FlaskClient, clock: FakeClock) -> None:
    match = MatchDriver(client, clock, v1_request())
    assert match.state()["rule_set"] == "1.0"
    match.kickoff("home")
    match.take()
    answer = match.post({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 40.8, "y": 3}})
    s = answer["state"]
    assert s["restart"]["type"] == "corner" and s["restart"]["spot"] == {"x": 40.0, "y": 0.0}
    assert s["restart_end"] == "xL" and s["restart"]["why"]["rule"] == "V1-6"


def test_V1_D10_a_1_0_refusal_cites_1_0_over_http(client: FlaskClient, clock: FakeClock) -> None:
    match = MatchDriver(client, clock, v1_request())
    match.kickoff("home")
    body = match.refused({"type": "card", "team": "away", "player": 3, "color": "yellow"}, "V1-D10")
    assert "no cards" in body["message"]
    zh = client.post(
        f"/api/matches/{match.id}/events?lang=zh",
        json={"type": "card", "team": "away", "player": 3, "color": "yellow"},
        headers=auth(match.tokens["referee"]),
    ).get_json()
    assert zh["rule"] == "V1-D10" and "红黄牌" in zh["message"]


def test_V1_3_a_direct_kickoff_goal_is_refused_over_http(client: FlaskClient, clock: FakeClock) -> None:
    match = MatchDriver(client, clock, v1_request())
    match.kickoff("home")
    match.take()
    match.refused({"type": "goal", "team": "home", "player": 1, "direct": True}, "V1-3")


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        ({"field": {"length": 55, "width": 25}}, "field.length", "V1-1"),
        ({"field": {"length": 34, "width": 25}}, "field.length", "V1-1"),
        ({"field": {"length": 40, "width": 31}}, "field.width", "V1-1"),
        ({"field": {"length": 40, "width": 25, "side_lines": False}}, "field.side_lines", "V1-D3"),
        ({"rules": {"rule_set": "1.0", "multi_attack": {"mode": "trailing"}}}, "rules.multi_attack.mode", "V1-D15"),
    ],
)
def test_V1_1_V1_D3_V1_D15_what_1_0_does_not_allow_is_a_400(
    client: FlaskClient, change: dict[str, Any], field: str, rule: str
) -> None:
    body = v1_request()
    body.update(copy.deepcopy(change))
    r = create(client, body)
    assert r.status_code == 400, r.get_json()
    assert field in r.get_json()["fields"], r.get_json()
    assert f"({rule})" in r.get_json()["fields"][field][0], r.get_json()  # the refusal names its rule


def test_V1_1_the_same_fields_are_fine_for_2_0(client: FlaskClient) -> None:
    body = demo_request()
    body["field"] = {"length": 55, "width": 40, "side_lines": False}
    body["rules"] = {"multi_attack": {"mode": "trailing"}}
    assert create(client, body).status_code == 201


def test_V1_11_2_an_unknown_rule_set_is_a_400(client: FlaskClient) -> None:
    body = demo_request()
    body["rules"] = {"rule_set": "3.0"}
    r = create(client, body)
    assert r.status_code == 400 and "rule_set" in r.get_json()["fields"]["rules"]


def test_V1_D2_shootout_on_draw_is_for_1_0_only(client: FlaskClient, clock: FakeClock) -> None:
    body = demo_request()
    body["rules"] = {"shootout_on_draw": True}
    r = create(client, body)
    assert r.status_code == 400 and "rules.shootout_on_draw" in r.get_json()["fields"]
    assert "(V1-D2)" in r.get_json()["fields"]["rules.shootout_on_draw"][0]
    match = MatchDriver(client, clock, v1_request(shootout_on_draw=True, half_minutes=1))
    match.kickoff("home")
    match.run_out_half()
    match.post({"type": "period_start"})
    assert match.run_out_half()["phase"] == "shootout"


def test_V1_D2_a_level_1_0_match_is_a_draw_over_http(client: FlaskClient, clock: FakeClock) -> None:
    match = MatchDriver(client, clock, v1_request(half_minutes=1))
    match.kickoff("home")
    match.run_out_half()
    match.post({"type": "period_start"})
    s = match.run_out_half()
    assert s["phase"] == "finished" and s["winner"] is None and s["shootout"] is None


def test_V1_11_2_the_rule_set_is_fixed_for_the_life_of_the_match(app: Flask, client: FlaskClient, clock: FakeClock) -> None:
    """A server started again on the same database replays the match under its own rule set."""
    match = MatchDriver(client, clock, v1_request())
    match.kickoff("home")
    match.take()
    match.post({"type": "violation", "kind": "ball_in_area", "team": "home", "spot": {"x": 38, "y": 13}})
    store = Store(app.config["DATABASE"])
    try:
        svc = MatchService(store, clock=clock)
        state = svc.state(svc.matches[match.id])
        assert state["rule_set"] == "1.0" and state["restart"]["type"] == "short_corner"
    finally:
        store.close()


def test_V1_11_2_a_match_stored_without_a_rule_set_is_2_0(app: Flask, client: FlaskClient) -> None:
    """A match created before rule sets existed has no ``rule_set`` in its stored setup: it is a 2.0 match."""
    data = MatchSchema().load(demo_request())
    del data["rules"]["rule_set"], data["rules"]["shootout_on_draw"]
    m = app.extensions["qalisball"].create(data)
    assert "rule_set" not in m.data["rules"]
    assert client.get(f"/api/matches/{m.id}").get_json()["rule_set"] == "2.0"


def test_V1_1_V1_D2_V1_D3_V1_D15_what_a_rule_book_does_not_allow_is_said_in_the_requests_language(client: FlaskClient) -> None:
    """SPEC §11.2/§11.3's refusals went out in English to a Chinese page (issue 28 review): each is a message id
    with params now, worded in the request's language, its rule cited, with API.md's English in ``fields_en``."""
    body = v1_request(multi_attack={"mode": "trailing"})
    body["field"] = {"length": 55, "width": 31, "side_lines": False}
    chinese = client.post("/api/matches?lang=zh", json=body, headers=auth(ADMIN)).get_json()
    fields = chinese["fields"]
    assert fields["field.length"] == [fields["field.length"][0]] and "场地长度为" in fields["field.length"][0]
    assert "场地宽度" in fields["field.width"][0] and "边线" in fields["field.side_lines"][0]
    assert "多次进攻机会" in fields["rules.multi_attack.mode"][0] and "（规则 V1-D15）" in fields["rules.multi_attack.mode"][0]
    assert "（规则 V1-D3）" in fields["field.side_lines"][0]
    assert all(not any(c.isascii() and c.isalpha() and c not in "VD" for c in words[0]) for words in fields.values()), fields
    english = chinese["fields_en"]
    assert english["field.side_lines"] == ["rule book 1.0 restarts at the side lines: the field must have them (V1-D3)"]
    assert "(V1-1)" in english["field.length"][0]
    body = demo_request()
    body["rules"] = {"shootout_on_draw": True}
    chinese = client.post("/api/matches?lang=zh", json=body, headers=auth(ADMIN)).get_json()
    assert (
        "罚球大战" in chinese["fields"]["rules.shootout_on_draw"][0]
        and "（规则 V1-D2）" in chinese["fields"]["rules.shootout_on_draw"][0]
    )
