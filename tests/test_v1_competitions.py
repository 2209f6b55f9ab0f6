"""A competition played under rule book 1.0 (SPEC §11.2, V1-D2; issue 22).

The competition chooses its rule set (``match.rules.rule_set``) and passes it to every fixture's match;
its fields must be 1.0 fields (V1-1, V1-D3); standings give a draw its points (``points.draw``); a
knockout fixture's match is created with ``shootout_on_draw: true`` so that a level knockout match
still gets a winner through §7's shootout, while a level group match stays a draw.
"""

from __future__ import annotations

from typing import Any

import pytest
import tinyhtml5
from flask import Flask
from flask.testing import FlaskClient

from tests.test_competitions import START, Api, _six

V1_RULES = {"rules": {"rule_set": "1.0"}}


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


def _cup(api: Api, teams: list[str], **extra: Any) -> dict[str, Any]:
    body = {
        "name": "1.0 Cup",
        "format": "groups_knockout",
        "teams": teams,
        "groups": 2,
        "advance": 1,
        "fields": [{"name": "F1", "length": 40, "width": 25}],
        "starts_at": START,
        "match": V1_RULES,
        **extra,
    }
    return api.competition(body)


def test_V1_11_2_a_competition_passes_its_rule_set_to_its_fixtures(api: Api, client: FlaskClient) -> None:
    ids, _ = _six(api)
    comp = _cup(api, ids[:4])["id"]
    group_game = api.view(comp)["fixtures"][0]
    made = api.match(comp, group_game["id"])
    state = client.get(f"/api/matches/{made['id']}").get_json()
    assert state["rule_set"] == "1.0"


def test_V1_1_V1_D3_V1_D15_a_1_0_competition_needs_1_0_fields_and_no_multi_attack(api: Api) -> None:
    ids, _ = _six(api)
    body = {
        "name": "Too big",
        "format": "round_robin",
        "teams": ids[:4],
        "fields": [{"name": "F1", "length": 40, "width": 25}, {"name": "F2", "length": 55, "width": 25}],
        "match": V1_RULES,
    }
    answer = api.refused("POST", "/api/competitions", body, 400, "invalid")
    assert "fields.1.length" in answer["fields"], answer
    body["fields"] = [{"name": "F1", "length": 40, "width": 25, "side_lines": False}]
    assert "fields.0.side_lines" in api.refused("POST", "/api/competitions", body, 400, "invalid")["fields"]
    body["fields"] = [{"name": "F1", "length": 40, "width": 25}]
    body["match"] = {"rules": {"rule_set": "1.0", "multi_attack": {"mode": "trailing"}}}
    assert "match.rules.multi_attack.mode" in api.refused("POST", "/api/competitions", body, 400, "invalid")["fields"]


def test_V1_D2_a_group_draw_counts_a_draw_and_a_knockout_draw_goes_to_the_shootout(api: Api, client: FlaskClient) -> None:
    ids, t = _six(api)
    comp = _cup(api, ids[:4], points={"win": 3, "draw": 1, "loss": 0})["id"]
    view = api.view(comp)
    a_game, b_game = view["fixtures"][0], view["fixtures"][1]
    drawn = api.play(api.match(comp, a_game["id"]), goals=["home"], second_half_goals=["away"])
    assert drawn["winner"] is None and drawn["shootout"] is None  # a 1–1 draw, no shootout (V1-D2)
    api.play(api.match(comp, b_game["id"]), goals=["home"])
    view = api.view(comp)
    assert view["fixtures"][0]["result"]["winner"] is None
    group_a = {r["team"]: r for r in view["standings"]["A"]}
    for team in (t["A"], t["D"]):
        row = group_a[team]
        assert (row["played"], row["drawn"], row["won"], row["lost"], row["points"]) == (1, 1, 0, 0, 1), row
        assert (row["shootout_won"], row["shootout_lost"]) == (0, 0)
    # The group of two is level after the draw: lots decide who goes through (C3), then the final.
    api.call("POST", f"/api/competitions/{comp}/lots", {"teams": [t["D"], t["A"]]}, 201)
    final = api.view(comp)["fixtures"][-1]
    assert (final["home"], final["away"]) == (t["D"], t["B"])
    made = api.match(comp, final["id"])
    assert client.get(f"/api/matches/{made['id']}").get_json()["rule_set"] == "1.0"
    done = api.play(made, goals=["home"], second_half_goals=["away"], shootout_winner="away")
    assert done["shootout"] is not None and done["winner"] == "away"  # shootout_on_draw (V1-D2)
    assert api.view(comp)["fixtures"][-1]["result"]["winner"] == t["B"]


def test_V1_D2_a_2_0_competition_is_unchanged_it_has_no_draws(api: Api) -> None:
    ids, _ = _six(api)
    body = {
        "name": "2.0 Cup",
        "format": "round_robin",
        "teams": ids[:2],
        "fields": [{"name": "F1"}],
        "starts_at": START,
    }
    comp = api.competition(body)["id"]
    fixture = api.view(comp)["fixtures"][0]
    done = api.play(api.match(comp, fixture["id"]), goals=["home"], second_half_goals=["away"], shootout_winner="home")
    assert done["shootout"] is not None
    row = api.view(comp)["standings"]["all"][0]
    assert row["drawn"] == 0 and row["shootout_won"] == 1 and row["points"] == 2


def test_V1_11_2_a_fresh_install_has_a_small_1_0_friendly_beside_the_2_0_demo(app: Flask, client: FlaskClient) -> None:
    from qalisball.server.demo import ensure_demo

    svc = app.extensions["qalisball"]
    demo = ensure_demo(svc)
    assert demo is not None and client.get(f"/api/matches/{demo.id}").get_json()["rule_set"] == "2.0"
    sets = [client.get(f"/api/matches/{m.id}").get_json()["rule_set"] for m in svc.matches.values()]
    assert sets.count("1.0") == 1 and sets.count("2.0") == 2


# -- the pages (issue 22: "a competition chooses its rule set", "standings give draws their points") ----------


def _tree(client: FlaskClient, url: str) -> Any:
    r = client.get(url)
    assert r.status_code == 200, url
    return tinyhtml5.parse(r.get_data(as_text=True), namespace_html_elements=False)


def _text(node: Any) -> str:
    return " ".join("".join(node.itertext()).split())


def test_V1_11_2_the_new_competition_form_offers_the_rule_book_and_the_points_for_a_draw(client: FlaskClient) -> None:
    for lang, book, one_zero, draw in (
        ("en", "Rule book", "1.0: a level match is a draw", "Draw"),
        ("zh", "规则版本", "1.0：打平即为平局", "平局"),
    ):
        form = _tree(client, f"/competitions?lang={lang}").find(".//form[@data-form='competition']")
        select = form.find(".//select[@name='rules.rule_set']")
        assert [o.get("value") for o in select.iter("option")] == ["2.0", "1.0"]  # 2.0 first: the default
        holder = next(n for n in form.iter("label") if select in list(n))
        assert book in _text(holder) and one_zero in _text(select), lang
        points = form.find(".//input[@name='points.draw']")
        assert points is not None and points.get("value") == "1"  # V1-D2's default (Points.draw)
        label = next(n for n in form.iter("label") if points in list(n.iter("input")))
        assert label.get("data-rule-set") == "1.0" and draw in _text(label), lang  # shown when 1.0 is chosen


def test_V1_D2_a_1_0_competitions_standings_show_the_draw_and_its_points(api: Api, client: FlaskClient) -> None:
    ids, t = _six(api)
    comp = _cup(api, ids[:4], points={"win": 3, "draw": 2, "loss": 0})["id"]
    drawn = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, drawn["id"]), goals=["home"], second_half_goals=["away"])
    for url in (f"/competitions/{comp}", f"/competitions/{comp}/standings"):
        en = _tree(client, f"{url}?lang=en")
        assert "Points: win 3, draw 2, loss 0" in _text(en), url
        assert "shootout win" not in _text(en)
        table = en.find(".//table[@data-group='A']")
        assert "D" in [_text(th) for th in table.iter("th")] and "SW" not in [_text(th) for th in table.iter("th")]
        row = table.find(f".//tr[@data-team='{t['A']}']")
        assert _text(row.find(".//td[@data-stat='drawn']")) == "1" and _text(row.find(".//td[@class='num pts']")) == "2"
        assert "积分：胜3分，平2分，负0分" in _text(_tree(client, f"{url}?lang=zh")), url


def test_V1_D2_a_2_0_competitions_standings_keep_the_shootout_columns_and_legend(api: Api, client: FlaskClient) -> None:
    ids, _ = _six(api)
    body = {"name": "2.0 Cup", "format": "round_robin", "teams": ids[:2], "fields": [{"name": "F1"}], "starts_at": START}
    comp = api.competition(body)["id"]
    page = _tree(client, f"/competitions/{comp}/standings?lang=en")
    assert "Points: win 3, shootout win 2, shootout loss 1, loss 0." in _text(page) and "draw" not in _text(page)
    assert "SW" in [_text(th) for th in page.iter("th")] and page.find(".//td[@data-stat='drawn']") is None


# -- the decisions issue 22 made where SPEC §11 is silent (docs/decisions.toml) ---------------------------


def test_D191_V1_D2_a_draw_is_worth_1_point_unless_the_competition_says_otherwise(api: Api) -> None:
    from qalisball.rules.competition.standings import Points

    assert Points().draw == 1  # the rule core's default, as the API's (PointsSchema)
    ids, _ = _six(api)
    body = {"name": "Draw Cup", "format": "round_robin", "teams": ids[:2], "fields": [{"name": "F1"}], "starts_at": START}
    comp = api.competition({**body, "match": V1_RULES})["id"]  # no points given
    fixture = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, fixture["id"]), goals=["home"], second_half_goals=["away"])
    rows = api.view(comp)["standings"]["all"]
    assert [(r["drawn"], r["points"]) for r in rows] == [(1, 1), (1, 1)]


def test_D192_V1_D2_a_1_0_competition_gives_shootout_on_draw_to_its_knockout_matches_only(api: Api, app: Flask) -> None:
    ids, _ = _six(api)
    # The competition may not set it itself: it would send a level group match to a shootout.
    for rule_set in ("1.0", "2.0"):
        body = {
            "name": "Own shootouts",
            "format": "knockout",
            "teams": ids[:2],
            "fields": [{"name": "F1"}],
            "match": {"rules": {"rule_set": rule_set, "shootout_on_draw": True}},
        }
        assert "match.rules.shootout_on_draw" in api.refused("POST", "/api/competitions", body, 400, "invalid")["fields"]
    comp = _cup(api, ids[:4])["id"]
    fixtures = api.view(comp)["fixtures"]
    group, final = fixtures[0], fixtures[-1]
    assert (group["stage"], final["stage"]) == ("group", "final")
    made = api.match(comp, group["id"])
    setups = app.extensions["qalisball"].matches
    assert setups[made["id"]].setup.rules.shootout_on_draw is False  # a level group match is a draw
    api.play(made, goals=["home"])
    api.play(api.match(comp, fixtures[1]["id"]), goals=["home"])
    final = api.view(comp)["fixtures"][-1]
    assert setups[api.match(comp, final["id"])["id"]].setup.rules.shootout_on_draw is True
