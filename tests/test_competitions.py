"""Competitions through the HTTP API (API.md "Competitions", SPEC §10 C1–C7).

Each story is named after the decision it proves. ``test_C3_whole_round_robin_…`` plays a 6-team round
robin through the events API — shootouts, a red card suspension, a forfeit and an upheld protest — and
checks the standings against numbers counted by hand.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball import create_app, socketio
from tests.competition_play import play, roster
from tests.conftest import ADMIN, FakeClock, auth

START = "2027-01-15T09:00:00+08:00"  # before the test clock's now (2027-01-15 08:00 UTC = 16:00 +08:00)


class Api:
    """The organiser's calls, each checked for its status; errors checked to change nothing."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def call(self, method: str, url: str, body: Any = None, expect: int = 200, token: str | None = ADMIN, **kw: Any) -> Any:
        headers = auth(token) if token else {}
        r = (
            self.client.open(url, method=method, json=body, headers=headers, **kw)
            if body is not None or method == "GET"
            else self.client.open(url, method=method, headers=headers, **kw)
        )
        data = r.get_json() if r.is_json else r.get_data(as_text=True)
        assert r.status_code == expect, (r.status_code, data)
        return data

    def refused(
        self,
        method: str,
        url: str,
        body: Any,
        status: int,
        error: str,
        rule: str | None = None,
        comp: str | None = None,
        token: str | None = ADMIN,
    ) -> dict[str, Any]:
        before = self.snapshot(comp)
        answer: dict[str, Any] = self.call(method, url, body, expect=status, token=token)
        assert answer["error"] == error, answer
        assert isinstance(answer["message"], str) and answer["message"]
        if rule is not None:
            assert answer["rule"] == rule, answer
        if error == "invalid":
            assert answer["fields"], answer
        assert self.snapshot(comp) == before, "an error changed something"
        return answer

    def snapshot(self, comp: str | None) -> Any:
        teams = self.call("GET", "/api/teams")
        officials = self.call("GET", "/api/officials")
        matches = self.call("GET", "/api/matches")
        view = self.call("GET", f"/api/competitions/{comp}") if comp else None
        if view:
            view.pop("server_time_ms")
            for f in view["fixtures"]:
                if f["live"]:
                    f["live"].pop("server_time_ms", None)
        return teams, officials, [m["id"] for m in matches], view

    def team(self, name: str, club: str | None = None, n: int = 8) -> str:
        return str(self.call("POST", "/api/teams", {"name": name, "club": club, "players": roster(name, n)}, 201)["id"])

    def official(self, name: str, club: str | None = None) -> str:
        return str(self.call("POST", "/api/officials", {"name": name, "club": club}, 201)["id"])

    def competition(self, body: dict[str, Any]) -> dict[str, Any]:
        made: dict[str, Any] = self.call("POST", "/api/competitions", body, 201)
        return made

    def view(self, comp: str) -> dict[str, Any]:
        data: dict[str, Any] = self.call("GET", f"/api/competitions/{comp}")
        return data

    def match(self, comp: str, fid: str, home: list[int] | None = None, away: list[int] | None = None) -> dict[str, Any]:
        body = {"home": {"starting": home or [1, 2, 3, 4, 5, 6]}, "away": {"starting": away or [1, 2, 3, 4, 5, 6]}}
        made: dict[str, Any] = self.call("POST", f"/api/competitions/{comp}/fixtures/{fid}/match", body, 201)
        return made

    def play(self, made: dict[str, Any], **kw: Any) -> dict[str, Any]:
        mid = made["id"]

        def post(token: str, event: dict[str, Any]) -> dict[str, Any]:
            r = self.client.post(f"/api/matches/{mid}/events", json=event, headers=auth(token))
            assert r.status_code == 201, r.get_json()
            data: dict[str, Any] = r.get_json()
            return data

        def state() -> dict[str, Any]:
            data: dict[str, Any] = self.client.get(f"/api/matches/{mid}").get_json()
            return data

        return play(post, state, made["tokens"], **kw)


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


def _six(api: Api) -> tuple[list[str], dict[str, str]]:
    names = ["A", "B", "C", "D", "E", "F"]
    ids = [api.team(n) for n in names]
    return ids, dict(zip(names, ids, strict=True))


def _league(api: Api, teams: list[str], **extra: Any) -> dict[str, Any]:
    body = {
        "name": "Capital Cup",
        "format": "round_robin",
        "teams": teams,
        "fields": [{"name": "Field 1", "length": 40, "width": 25}, {"name": "Field 2", "length": 40, "width": 25}],
        "starts_at": START,
        **extra,
    }
    return api.competition(body)


def _fixture_of(view: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    return next(f for f in view["fixtures"] if {f["home"], f["away"]} == {a, b})


# ---------------------------------------------------------------------------------------------
# C1: kept teams and officials


def test_C1_teams_are_kept_created_listed_read_and_patched(api: Api) -> None:
    made = api.call(
        "POST",
        "/api/teams",
        {"name": "人大 Renmin", "short": "RUC", "color": "#b71c1c", "club": "Renmin University", "players": roster("R", 3)},
        201,
    )
    tid = made["id"]
    assert api.call("GET", f"/api/teams/{tid}") == {
        "id": tid,
        "name": "人大 Renmin",
        "short": "RUC",
        "color": "#b71c1c",
        "club": "Renmin University",
        "players": [{"number": i, "name": f"R {i}", "gender": None} for i in (1, 2, 3)],
    }
    assert [t["id"] for t in api.call("GET", "/api/teams")] == [tid]
    patched = api.call("PATCH", f"/api/teams/{tid}", {"players": [{"number": 9, "name": "Li Hua", "gender": "f"}]})
    assert patched["players"] == [{"number": 9, "name": "Li Hua", "gender": "f"}] and patched["short"] == "RUC"
    assert api.call("PATCH", f"/api/teams/{tid}", {"club": None})["club"] is None


def test_C1_team_errors_change_nothing(api: Api) -> None:
    tid = api.team("Renmin")
    api.refused(
        "POST", "/api/teams", {"name": "Renmin", "players": []}, 400, "invalid"
    )  # names are unique (import matches by name)
    api.refused(
        "POST", "/api/teams", {"name": "X", "players": [{"number": 1, "name": "a"}, {"number": 1, "name": "b"}]}, 400, "invalid"
    )
    api.refused("POST", "/api/teams", {"name": "X", "color": "red"}, 400, "invalid")
    api.refused("POST", "/api/teams", {"name": "X"}, 401, "unauthorized", token=None)
    api.refused("PATCH", "/api/teams/nope", {"name": "Y"}, 404, "not_found")
    api.refused("PATCH", f"/api/teams/{tid}", {"name": ""}, 400, "invalid")
    api.call("GET", "/api/teams/nope", expect=404)


def test_C1_a_match_officials_token_is_forbidden_to_write(api: Api, client: FlaskClient) -> None:
    from qalisball.server.demo import demo_request

    tokens = api.call("POST", "/api/matches", demo_request(), 201)["tokens"]
    api.refused("POST", "/api/teams", {"name": "X"}, 403, "forbidden", token=tokens["referee"])
    api.refused("POST", "/api/competitions", {"name": "X"}, 403, "forbidden", token=tokens["scorer"])


def test_C1_csv_import_creates_and_updates_teams_by_name(api: Api, client: FlaskClient) -> None:
    tid = api.team("Renmin", n=2)
    text = 'team,number,name,gender\nRenmin,2,王芳,f\nRenmin,7,张伟,\nTsinghua,1,Alex Chen,m\nTsinghua,2,"Wu, Bella",f\nBNU,,,\n'
    r = client.post("/api/teams/import", data=text.encode(), content_type="text/csv", headers=auth(ADMIN))
    assert r.status_code == 200, r.get_json()
    got = {t["name"]: t for t in r.get_json()["teams"]}
    assert got["Renmin"]["id"] == tid
    assert [(p["number"], p["name"]) for p in got["Renmin"]["players"]] == [
        (1, "Renmin 1"),
        (2, "王芳"),
        (7, "张伟"),
    ]  # none removed
    assert [p["name"] for p in got["Tsinghua"]["players"]] == ["Alex Chen", "Wu, Bella"]
    assert got["BNU"]["players"] == []
    # The export has the same columns, a byte-order mark, and reads back to the same teams.
    r = client.get("/api/teams.csv")
    assert r.headers["Content-Type"].startswith("text/csv") and r.data.startswith("\ufeff".encode())
    body = r.data.decode("utf-8-sig")
    assert body.splitlines()[0] == "team,number,name,gender" and "\r\n" in body
    assert 'Tsinghua,2,"Wu, Bella",f' in body and "BNU,,," in body
    before = api.call("GET", "/api/teams")
    r = client.post("/api/teams/import", data=r.data, content_type="text/csv", headers=auth(ADMIN))
    assert r.status_code == 200 and api.call("GET", "/api/teams") == before


def test_C1_csv_import_names_every_bad_line_and_stores_nothing(api: Api, client: FlaskClient) -> None:
    api.team("Renmin", n=2)
    before = api.call("GET", "/api/teams")
    text = "team,number,name,gender\nRenmin,3,Li\nRenmin,x,Wang,\n,4,Zhang,\nRenmin,3,Again,\nTsinghua,5,,\n"
    r = client.post("/api/teams/import", data=text.encode(), content_type="text/csv", headers=auth(ADMIN))
    body = r.get_json()
    assert r.status_code == 400 and body["error"] == "invalid", body
    assert set(body["fields"]) == {"line 3", "line 4", "line 5", "line 6"}
    assert "number" in body["fields"]["line 3"][0] and "line 2" in body["fields"]["line 5"][0]
    assert body["message"].startswith("line 3")
    assert api.call("GET", "/api/teams") == before
    r = client.post("/api/teams/import", data=b"name,team\nx,y\n", content_type="text/csv", headers=auth(ADMIN))
    assert r.status_code == 400 and "line 1" in r.get_json()["fields"]
    r = client.post("/api/teams/import", data=b"team,number,name\n", content_type="application/json", headers=auth(ADMIN))
    assert r.status_code == 400
    r = client.post("/api/teams/import", data=b"team,number,name\n", content_type="text/csv")
    assert r.status_code == 401


def test_D68_csv_saved_by_a_chinese_spreadsheet_is_read_as_gb18030(api: Api, client: FlaskClient) -> None:
    text = "team,number,name,gender\n人大,1,李华,女\n"
    r = client.post("/api/teams/import", data=text.encode("gb18030"), content_type="text/csv", headers=auth(ADMIN))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["teams"][0]["players"][0] == {"number": 1, "name": "李华", "gender": "女"}


def test_C1_officials_with_their_club(api: Api) -> None:
    oid = api.official("王裁判", "Renmin University")
    assert api.call("GET", "/api/officials") == [{"id": oid, "name": "王裁判", "club": "Renmin University"}]
    api.refused("POST", "/api/officials", {"club": "x"}, 400, "invalid")


# ---------------------------------------------------------------------------------------------
# C2: competitions and their schedules


def test_C2_a_round_robin_is_scheduled_over_fields_and_time_slots(api: Api) -> None:
    ids, _ = _six(api)
    made = _league(api, ids, slot_minutes=90)
    assert len(made["fixtures"]) == 15 and made["byes"] == []
    view = api.view(made["id"])
    assert view["teams"] == ids and view["format"] == "round_robin"
    f = view["fixtures"][0]
    assert set(f) >= {
        "id",
        "round",
        "group",
        "stage",
        "field",
        "starts_at",
        "home",
        "away",
        "officials",
        "match",
        "status",
        "result",
        "protests",
    }
    assert (f["round"], f["stage"], f["group"], f["status"], f["result"], f["match"]) == (
        1,
        "group",
        None,
        "scheduled",
        None,
        None,
    )
    assert {x["field"] for x in view["fixtures"]} == {"Field 1", "Field 2"}
    booked = [(x["starts_at"], x["field"]) for x in view["fixtures"]]
    assert len(set(booked)) == 15, "no field is booked twice at one time"
    assert view["fixtures"][0]["starts_at"] == "2027-01-15T09:00:00+08:00" and "2027-01-15T10:30:00+08:00" in [
        x["starts_at"] for x in view["fixtures"]
    ]
    assert list(view["standings"]) == ["all"] and [r["points"] for r in view["standings"]["all"]] == [0] * 6


def test_C2_odd_teams_have_byes_which_are_not_fixtures(api: Api) -> None:
    ids = [api.team(n) for n in "ABCDE"]
    made = _league(api, ids)
    assert len(made["fixtures"]) == 10 and len(made["byes"]) == 5
    assert {b["team"] for b in made["byes"]} == set(ids)
    for b in made["byes"]:
        assert all(b["team"] not in (f["home"], f["away"]) for f in made["fixtures"] if f["round"] == b["round"])


def test_C2_competition_errors(api: Api) -> None:
    ids, _ = _six(api)
    ok = {"name": "Cup", "format": "round_robin", "teams": ids, "fields": [{"name": "F1"}]}
    api.refused("POST", "/api/competitions", {**ok, "teams": [*ids[:2], "nope"]}, 400, "invalid")
    api.refused("POST", "/api/competitions", {**ok, "teams": [ids[0], ids[0]]}, 400, "invalid")
    api.refused("POST", "/api/competitions", {**ok, "format": "swiss"}, 400, "invalid")
    api.refused("POST", "/api/competitions", {**ok, "fields": []}, 400, "invalid")
    bad = api.refused("POST", "/api/competitions", {**ok, "format": "groups_knockout", "groups": 3}, 400, "invalid")
    assert "groups" in bad["fields"]
    api.refused("POST", "/api/competitions", {k: v for k, v in ok.items() if k != "fields"}, 400, "invalid")
    api.refused("POST", "/api/competitions", ok, 401, "unauthorized", token=None)
    api.call("GET", "/api/competitions/nope", expect=404)


def test_C2_knockout_fixtures_fill_with_the_winners_shootout_winner_included(api: Api) -> None:
    ids, t = _six(api)
    comp = api.competition(
        {
            "name": "Cup",
            "format": "groups_knockout",
            "teams": ids[:4],
            "groups": 2,
            "advance": 1,
            "fields": [{"name": "F1"}],
            "starts_at": START,
        }
    )["id"]
    view = api.view(comp)
    groups = view["groups"]
    assert groups == {"A": [t["A"], t["D"]], "B": [t["B"], t["C"]]}
    final = view["fixtures"][-1]
    assert (final["stage"], final["home"], final["away"], final["home_from"], final["away_from"]) == (
        "final",
        None,
        None,
        "A1",
        "B1",
    )
    api.refused(
        "POST",
        f"/api/competitions/{comp}/fixtures/{final['id']}/match",
        {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}},
        409,
        "rule",
        "C2",
        comp,
    )
    a_match, b_match = view["fixtures"][0], view["fixtures"][1]
    api.play(api.match(comp, a_match["id"]), goals=["away"])  # D beats A
    assert api.view(comp)["fixtures"][-1]["home"] == t["D"]
    api.play(api.match(comp, b_match["id"]), goals=["home"], second_half_goals=["away"], shootout_winner="away")
    final = api.view(comp)["fixtures"][-1]
    assert (final["home"], final["away"]) == (t["D"], t["C"])
    made = api.match(comp, final["id"])
    api.play(made, goals=["home", "home"])
    view = api.view(comp)
    assert view["fixtures"][-1]["result"] == {
        "home": 2,
        "away": 0,
        "shootout": None,
        "winner": t["D"],
        "forfeit_by": None,
        "decided_by": None,
    }
    assert view["standings"]["B"][0]["team"] == t["C"] and view["standings"]["B"][0]["shootout_won"] == 1


# ---------------------------------------------------------------------------------------------
# Matches made from fixtures (C1), officials (C5)


def test_C1_a_match_from_a_fixture_copies_the_rosters_as_they_are(api: Api, client: FlaskClient) -> None:
    ids, t = _six(api)
    comp = _league(api, ids)["id"]
    ref = api.official("Wang", "Peking University")
    f = api.view(comp)["fixtures"][0]
    api.call("PUT", f"/api/competitions/{comp}/fixtures/{f['id']}/officials", {"referee": ref})
    made = api.match(comp, f["id"])
    assert set(made["tokens"]) == {"referee", "assistant1", "assistant2", "scorer"}
    state = api.call("GET", f"/api/matches/{made['id']}")
    home = next(x for x in ids if x == f["home"])
    assert state["teams"]["home"]["name"] == api.call("GET", f"/api/teams/{home}")["name"]
    assert state["teams"]["home"]["on_field"] == [1, 2, 3, 4, 5, 6] and state["teams"]["home"]["bench"] == [7, 8]
    report = api.call("GET", f"/matches/{made['id']}/report.json")
    assert report["officials"] == {"referee": "Wang"} and report["match"]["venue"] == "Capital Cup · Field 1"
    assert report["match"]["starts_at"] == f["starts_at"]
    # Later changes to the team do not rewrite the match (C1).
    api.call("PATCH", f"/api/teams/{home}", {"name": "Renamed", "players": roster("X", 6)})
    assert api.call("GET", f"/api/matches/{made['id']}")["teams"]["home"]["name"] != "Renamed"
    view = api.view(comp)
    assert view["fixtures"][0]["match"] == made["id"] and view["fixtures"][0]["status"] == "scheduled"
    # A second match for the same fixture is a conflict.
    api.refused(
        "POST",
        f"/api/competitions/{comp}/fixtures/{f['id']}/match",
        {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}},
        409,
        "conflict",
        comp=comp,
    )


def test_C1_lineup_errors_are_400_naming_the_field(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    url = f"/api/competitions/{comp}/fixtures/1/match"
    ok = {"starting": [1, 2, 3, 4, 5, 6]}
    assert (
        "away.starting"
        in api.refused("POST", url, {"home": ok, "away": {"starting": [1, 2, 3]}}, 400, "invalid", comp=comp)["fields"]
    )
    assert (
        "home.starting"
        in api.refused("POST", url, {"home": {"starting": [1, 2, 3, 4, 5, 99]}, "away": ok}, 400, "invalid", comp=comp)["fields"]
    )
    api.refused("POST", url, {"home": ok}, 400, "invalid", comp=comp)
    api.refused("POST", f"/api/competitions/{comp}/fixtures/99/match", {"home": ok, "away": ok}, 404, "not_found", comp=comp)
    api.refused("POST", url, {"home": ok, "away": ok}, 401, "unauthorized", comp=comp, token=None)


def test_C5_an_official_of_a_playing_teams_club_stands_aside(api: Api) -> None:
    a = api.team("Renmin A", club="Renmin University")
    b = api.team("Tsinghua", club="Tsinghua University")
    c = api.team("BNU")
    comp = _league(api, [a, b, c])["id"]
    zhao = api.official("Zhao", "renmin university")
    wu = api.official("Wu", "BNU")
    view = api.view(comp)
    ab = _fixture_of(view, a, b)
    url = f"/api/competitions/{comp}/fixtures/{ab['id']}/officials"
    answer = api.refused("PUT", url, {"referee": zhao}, 409, "rule", "C5", comp)
    assert "Zhao" in answer["message"] and "Renmin A" in answer["message"]
    api.call("PUT", url, {"referee": wu, "scorer": None})
    assert api.view(comp)["fixtures"][int(ab["id"]) - 1]["officials"] == {"referee": wu}
    bc = _fixture_of(view, b, c)
    api.refused(
        "PUT", f"/api/competitions/{comp}/fixtures/{bc['id']}/officials", {"assistant1": wu}, 409, "rule", "C5", comp
    )  # D62
    api.refused("PUT", url, {"referee": "nobody"}, 400, "invalid", comp=comp)
    api.refused("PUT", url, {"referee": wu, "scorer": wu}, 400, "invalid", comp=comp)


def test_D66_an_official_cannot_be_on_two_fields_at_once(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    o = api.official("Wang")
    first = api.view(comp)["fixtures"][:2]
    assert first[0]["starts_at"] == first[1]["starts_at"]
    api.call("PUT", f"/api/competitions/{comp}/fixtures/{first[0]['id']}/officials", {"referee": o})
    api.refused(
        "PUT", f"/api/competitions/{comp}/fixtures/{first[1]['id']}/officials", {"assistant2": o}, 409, "rule", "D66", comp
    )


# ---------------------------------------------------------------------------------------------
# C4, C6, C7, C3 stories


def test_C4_a_red_card_suspends_the_player_for_his_teams_next_match(api: Api) -> None:
    ids, t = _six(api)
    comp = _league(api, ids)["id"]
    view = api.view(comp)
    first = view["fixtures"][0]
    side = "home"
    carded = first[side]
    api.play(api.match(comp, first["id"]), goals=["home"], cards=[(side, 3, "red")])
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    nxt = next(f for f in api.view(comp)["fixtures"][1:] if carded in (f["home"], f["away"]))
    assert s == {
        "team": carded,
        "player": 3,
        "reason": "red",
        "from_fixture": first["id"],
        "remaining": 1,
        "name": "A 3",
        "matches": 1,
        "covers": [nxt["id"]],
        "on_roster": True,
    }
    where = "home" if nxt["home"] == carded else "away"
    lineup = {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}}
    answer = api.refused("POST", f"/api/competitions/{comp}/fixtures/{nxt['id']}/match", lineup, 409, "rule", "C4", comp)
    home_name, away_name = (api.call("GET", f"/api/teams/{first[s]}")["name"] for s in ("home", "away"))
    assert "#3" in answer["message"] and f"fixture {first['id']}, {home_name} – {away_name}" in answer["message"]
    lineup[where] = {"starting": [1, 2, 4, 5, 6, 7]}
    made = api.call("POST", f"/api/competitions/{comp}/fixtures/{nxt['id']}/match", lineup, 201)
    state = api.call("GET", f"/api/matches/{made['id']}")
    assert 3 not in state["teams"][where]["bench"], "a suspended player is left off the copied roster"
    api.play(made, goals=["away"])
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert s["remaining"] == 0


def test_D74_a_suspension_stays_with_the_person_through_renumberings(api: Api) -> None:
    """C4 with M2: a player red-carded as #3 and renumbered #13 in that match is still the kept roster's #3;
    when the organiser later gives him #33 in the kept roster, the suspension follows him there."""
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    first = api.view(comp)["fixtures"][0]
    made = api.match(comp, first["id"])
    api.play(made, goals=["home"], cards=[("home", 3, "red")])
    r = api.client.post(
        f"/api/matches/{made['id']}/events",
        json={"type": "roster", "team": "home", "player": 3, "number": 13},
        headers=auth(made["tokens"]["referee"]),
    )
    assert r.status_code == 201, r.get_json()
    carded = first["home"]
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert (s["player"], s["name"]) == (3, "A 3")  # not #13: the kept roster never had him so
    team = api.call("GET", f"/api/teams/{carded}")
    players = [{**p, "number": 33} if p["number"] == 3 else p for p in team["players"]]
    api.call("PATCH", f"/api/teams/{carded}", {"players": players})
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert (s["player"], s["name"]) == (33, "A 3")
    nxt = next(f for f in api.view(comp)["fixtures"][1:] if carded in (f["home"], f["away"]))
    where = "home" if nxt["home"] == carded else "away"
    lineup: dict[str, Any] = {"home": {"starting": [1, 2, 4, 5, 6, 7]}, "away": {"starting": [1, 2, 4, 5, 6, 7]}}
    lineup[where] = {"starting": [1, 2, 4, 5, 6, 33]}
    answer = api.refused("POST", f"/api/competitions/{comp}/fixtures/{nxt['id']}/match", lineup, 409, "rule", "C4", comp)
    assert "#33 A 3" in answer["message"]


def test_D74_a_late_players_red_card_bars_nobody_on_the_kept_roster(api: Api) -> None:
    """A player added in the match (M2) as #8, while the kept roster's #8 was left out of the squad, is sent
    off: he is suspended (listed, not on the kept roster) and the kept #8 may play the next match."""
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    first = api.view(comp)["fixtures"][0]
    squad = {"starting": [1, 2, 3, 4, 5, 6], "players": [1, 2, 3, 4, 5, 6, 7]}
    made = api.call("POST", f"/api/competitions/{comp}/fixtures/{first['id']}/match", {"home": squad, "away": squad}, 201)
    late = {"type": "roster", "team": "home", "add": {"number": 8, "name": "Zed Late"}}
    assert (
        api.client.post(f"/api/matches/{made['id']}/events", json=late, headers=auth(made["tokens"]["referee"])).status_code
        == 201
    )
    api.play(made, goals=["home"], cards=[("home", 8, "red")])
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert (s["player"], s["name"], s["on_roster"], s["remaining"]) == (8, "Zed Late", False, 1)
    carded = first["home"]
    nxt = next(f for f in api.view(comp)["fixtures"][1:] if carded in (f["home"], f["away"]))
    lineup = {"home": {"starting": [1, 2, 3, 4, 5, 8]}, "away": {"starting": [1, 2, 3, 4, 5, 8]}}
    api.call("POST", f"/api/competitions/{comp}/fixtures/{nxt['id']}/match", lineup, 201)  # the kept A 8 plays


def test_D74_yellow_cards_accumulate_on_the_person_when_the_kept_roster_swaps_numbers(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids, discipline={"yellow_accumulation": 2})["id"]
    fixtures = api.view(comp)["fixtures"]
    first = fixtures[0]
    carded = first["home"]
    api.play(api.match(comp, first["id"]), goals=["home"], cards=[("home", 3, "yellow")])  # A 3's first caution
    team = api.call("GET", f"/api/teams/{carded}")
    swapped = [{**p, "number": {3: 4, 4: 3}.get(p["number"], p["number"])} for p in team["players"]]
    api.call("PATCH", f"/api/teams/{carded}", {"players": swapped})  # A 3 wears 4 now, A 4 wears 3
    second = next(f for f in fixtures[1:] if carded in (f["home"], f["away"]))
    side = "home" if second["home"] == carded else "away"
    api.play(api.match(comp, second["id"]), goals=["home"], cards=[(side, 4, "yellow")])  # A 3 again, as #4
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert (s["player"], s["name"], s["reason"]) == (4, "A 3", "yellow")  # his second caution: suspended


def test_C4_a_suspended_player_named_in_the_squad_is_refused(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids, discipline={"red_suspension_matches": 2, "yellow_accumulation": 1})["id"]
    first = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, first["id"]), goals=["home"], cards=[("away", 8, "yellow")])
    carded = first["away"]
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert (s["reason"], s["player"], s["remaining"]) == ("yellow", 8, 1)
    nxt = next(f for f in api.view(comp)["fixtures"][1:] if carded in (f["home"], f["away"]))
    where = "home" if nxt["home"] == carded else "away"
    lineup: dict[str, Any] = {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}}
    lineup[where]["players"] = [1, 2, 3, 4, 5, 6, 8]
    api.refused("POST", f"/api/competitions/{comp}/fixtures/{nxt['id']}/match", lineup, 409, "rule", "C4", comp)


def test_C6_forfeit_after_the_wait_gives_the_forfeit_score(api: Api, clock: FakeClock) -> None:
    ids, t = _six(api)
    # The first slot starts at the test clock's now: the forfeit may be declared from 20 minutes later.
    comp = _league(api, ids, starts_at="2027-01-15T16:00:00+08:00", forfeit={"after_minutes": 20, "score": 5})["id"]
    f = api.view(comp)["fixtures"][0]
    url = f"/api/competitions/{comp}/fixtures/{f['id']}/forfeit"
    answer = api.refused("POST", url, {"team": f["away"], "reason": "not ready"}, 409, "rule", "C6", comp)
    assert "16:20" in answer["message"]
    api.refused("POST", url, {"team": "nope"}, 400, "invalid", comp=comp)
    other = next(x for x in ids if x not in (f["home"], f["away"]))
    api.refused("POST", url, {"team": other}, 400, "invalid", comp=comp)
    clock.advance(20 * 60_000)
    api.call("POST", url, {"team": f["away"], "reason": "not ready"})
    fx = api.view(comp)["fixtures"][0]
    assert fx["status"] == "forfeit"
    assert fx["result"] == {
        "home": 5,
        "away": 0,
        "shootout": None,
        "winner": f["home"],
        "forfeit_by": f["away"],
        "decided_by": None,
    }
    rows = {r["team"]: r for r in api.call("GET", f"/api/competitions/{comp}/standings")["all"]}
    assert (rows[f["home"]]["points"], rows[f["home"]]["won"], rows[f["home"]]["goals_for"]) == (3, 1, 5)
    assert (rows[f["away"]]["points"], rows[f["away"]]["lost"], rows[f["away"]]["played"]) == (0, 1, 1)
    assert "forfeited fixture 1" in rows[f["away"]]["note"]
    api.refused("POST", url, {"team": f["away"]}, 409, "rule", "C6", comp)
    api.refused(
        "POST",
        f"/api/competitions/{comp}/fixtures/{f['id']}/match",
        {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}},
        409,
        "rule",
        "C6",
        comp,
    )


def test_C6_a_match_under_way_cannot_be_forfeited(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    made = api.match(comp, f["id"])
    api.client.post(
        f"/api/matches/{made['id']}/events",
        json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        headers=auth(made["tokens"]["referee"]),
    )
    api.client.post(f"/api/matches/{made['id']}/events", json={"type": "period_start"}, headers=auth(made["tokens"]["referee"]))
    assert api.view(comp)["fixtures"][0]["status"] == "live"
    api.refused("POST", f"/api/competitions/{comp}/fixtures/{f['id']}/forfeit", {"team": f["away"]}, 409, "rule", "C6", comp)


def test_C6_voids_all_results_of_the_forfeiting_team(api: Api) -> None:
    ids, t = _six(api)
    comp = _league(api, ids[:3], forfeit={"voids_all_results": True})["id"]
    view = api.view(comp)
    ab = _fixture_of(view, t["A"], t["B"])
    api.play(api.match(comp, ab["id"]), goals=["home" if ab["home"] == t["A"] else "away"])
    assert {r["team"] for r in api.view(comp)["standings"]["all"] if r["played"]} == {t["A"], t["B"]}
    ac = _fixture_of(view, t["A"], t["C"])
    api.call("POST", f"/api/competitions/{comp}/fixtures/{ac['id']}/forfeit", {"team": t["A"], "reason": "withdrew"})
    rows = api.view(comp)["standings"]["all"]
    assert [r["team"] for r in rows] == [t["B"], t["C"]]
    assert all(r["played"] == 0 for r in rows), "A and all its matches left the standings"


def test_C7_protest_upheld_with_a_new_result_and_rejected(api: Api) -> None:
    ids, t = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, f["id"]), goals=["home", "home"])
    pid = api.call(
        "POST",
        f"/api/competitions/{comp}/protests",
        {"fixture": f["id"], "team": f["away"], "text": "#5 of the home team is not registered"},
        201,
    )["id"]
    other = api.call(
        "POST", f"/api/competitions/{comp}/protests", {"fixture": f["id"], "team": f["home"], "text": "the clock"}, 201
    )["id"]
    api.refused(
        "POST", f"/api/competitions/{comp}/protests", {"fixture": "99", "team": f["away"], "text": "x"}, 400, "invalid", comp=comp
    )
    api.refused(
        "POST",
        f"/api/competitions/{comp}/protests",
        {"fixture": f["id"], "team": next(x for x in ids if x not in (f["home"], f["away"])), "text": "x"},
        400,
        "invalid",
        comp=comp,
    )
    url = f"/api/competitions/{comp}/protests/{pid}/decision"
    api.refused("POST", url, {"upheld": False, "text": "no", "result": {"home": 0, "away": 5}}, 400, "invalid", comp=comp)
    api.refused(
        "POST",
        url,
        {"upheld": True, "text": "x", "result": {"home": 0, "away": 5, "winner": f["home"]}},
        400,
        "invalid",
        comp=comp,
    )
    api.refused(
        "POST", f"/api/competitions/{comp}/protests/nope/decision", {"upheld": False, "text": "no"}, 404, "not_found", comp=comp
    )
    api.call("POST", url, {"upheld": True, "text": "unregistered player: awarded 0–5", "result": {"home": 0, "away": 5}})
    api.call("POST", f"/api/competitions/{comp}/protests/{other}/decision", {"upheld": False, "text": "the clock was right"})
    api.refused("POST", url, {"upheld": False, "text": "again"}, 409, "rule", "C7", comp)
    fx = api.view(comp)["fixtures"][0]
    assert fx["status"] == "finished" and fx["result"]["winner"] == f["away"] and fx["result"]["decided_by"] == "protest"
    assert (fx["result"]["home"], fx["result"]["away"]) == (0, 5)
    assert [p["decision"]["upheld"] for p in fx["protests"]] == [True, False]
    assert api.call("GET", f"/api/matches/{fx['match']}")["score"] == {"home": 2, "away": 0}, "the match's own log is not changed"
    rows = {r["team"]: r for r in api.call("GET", f"/api/competitions/{comp}/standings")["all"]}
    assert rows[f["away"]]["points"] == 3 and "protest upheld: unregistered player" in rows[f["away"]]["note"]


def test_C7_protest_upheld_with_a_replay(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    first = api.match(comp, f["id"])
    api.play(first, goals=["home"])
    pid = api.call(
        "POST", f"/api/competitions/{comp}/protests", {"fixture": f["id"], "team": f["away"], "text": "wrong bottles"}, 201
    )["id"]
    api.call("POST", f"/api/competitions/{comp}/protests/{pid}/decision", {"upheld": True, "text": "replay", "replay": True})
    fx = api.view(comp)["fixtures"][0]
    assert (fx["status"], fx["match"], fx["result"], fx["previous_matches"]) == ("scheduled", None, None, [first["id"]])
    again = api.match(comp, f["id"])
    api.play(again, goals=["away"])
    assert api.view(comp)["fixtures"][0]["result"]["winner"] == f["away"]


def test_D63_an_abandoned_match_counts_only_once_the_organiser_decides(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    made = api.match(comp, f["id"])
    url = f"/api/competitions/{comp}/fixtures/{f['id']}/result"
    api.refused("POST", url, {"home": 1, "away": 0, "text": "stands"}, 409, "rule", "D63", comp)
    for event in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "abandon", "reason": "storm"}):
        api.client.post(f"/api/matches/{made['id']}/events", json=event, headers=auth(made["tokens"]["referee"]))
    fx = api.view(comp)["fixtures"][0]
    assert (fx["status"], fx["result"]) == ("abandoned", None)
    assert all(r["played"] == 0 for r in api.view(comp)["standings"]["all"])
    api.refused("POST", url, {"home": 1, "away": 1, "text": "x"}, 400, "invalid", comp=comp)  # a level score names its winner
    api.call("POST", url, {"home": 1, "away": 0, "text": "the score at the abandonment stands"})
    fx = api.view(comp)["fixtures"][0]
    assert fx["status"] == "finished" and fx["result"]["decided_by"] == "organiser"


def test_C3_lots_for_a_tie_the_chain_cannot_break(api: Api) -> None:
    ids, t = _six(api)
    comp = _league(api, ids[:3])["id"]
    view = api.view(comp)
    # A beats B, B beats C, C beats A, all 1–0: level on everything.
    for winner, loser in (("A", "B"), ("B", "C"), ("C", "A")):
        f = _fixture_of(api.view(comp), t[winner], t[loser])
        api.refused(
            "POST", f"/api/competitions/{comp}/lots", {"teams": [t["A"], t["B"], t["C"]]}, 409, "rule", "C3", comp
        )  # the group is not over
        api.play(api.match(comp, f["id"]), goals=["home" if f["home"] == t[winner] else "away"])
    rows = api.view(comp)["standings"]["all"]
    assert [r["rank"] for r in rows] == [1, 1, 1] and "lots is needed" in rows[0]["note"]
    assert api.view(comp)["unresolved_ties"] == {"all": [[t["A"], t["B"], t["C"]]]}
    api.refused("POST", f"/api/competitions/{comp}/lots", {"teams": [t["A"], t["B"]]}, 409, "rule", "C3", comp)
    api.refused("POST", f"/api/competitions/{comp}/lots", {"teams": [t["A"], ids[4]]}, 400, "invalid", comp=comp)
    api.call(
        "POST",
        f"/api/competitions/{comp}/lots",
        {"teams": [t["C"], t["A"], t["B"]], "text": "drawn by the captains at 18:00"},
        201,
    )
    rows = api.view(comp)["standings"]["all"]
    assert [(r["team"], r["rank"]) for r in rows] == [(t["C"], 1), (t["A"], 2), (t["B"], 3)]
    assert "drawing of lots (drawn by the captains at 18:00)" in rows[0]["note"] and view["id"] == comp


def test_C3_whole_round_robin_with_shootouts_a_suspension_a_forfeit_and_an_upheld_protest(api: Api, clock: FakeClock) -> None:
    """Six teams, fifteen fixtures through the events API; the table counted by hand:

    A 2–1 B · A 1–1 C (A wins the shootout) · A 3–0 D · A 0–1 E · F forfeits against A (5–0)
    B 2–0 C (C #3 sent off) · B 1–2 D · B 2–2 E (E on shootout) · B 3–1 F
    C 1–0 D · C 0–2 E · C 2–1 F · D 1–1 E (D on shootout) · D 0–1 F
    E 2–0 F, then F's protest upheld: awarded E 0–3 F.

    Points (3 / 2 / 1 / 0): A 3+2+3+0+3 = 11, E 3+2+3+1+0 = 9, B 0+3+0+1+3 = 7, C 1+0+3+0+3 = 7,
    F 0+0+0+3+3 = 6, D 0+3+0+2+0 = 5. B and C level: B beat C, so B third (head-to-head).
    """
    ids, t = _six(api)
    comp = _league(api, ids)["id"]
    name = {v: k for k, v in t.items()}
    plan = {
        ("A", "B"): (2, 1, None),
        ("A", "C"): (1, 1, "A"),
        ("A", "D"): (3, 0, None),
        ("A", "E"): (0, 1, None),
        ("B", "C"): (2, 0, None),
        ("B", "D"): (1, 2, None),
        ("B", "E"): (2, 2, "E"),
        ("B", "F"): (3, 1, None),
        ("C", "D"): (1, 0, None),
        ("C", "E"): (0, 2, None),
        ("C", "F"): (2, 1, None),
        ("D", "E"): (1, 1, "D"),
        ("D", "F"): (0, 1, None),
        ("E", "F"): (2, 0, None),
    }
    c_next: str | None = None
    bc_id: str | None = None
    for f in api.view(comp)["fixtures"]:
        pair = tuple(sorted((name[f["home"]], name[f["away"]])))
        if pair == ("A", "F"):
            continue
        g1, g2, so = plan[pair]  # type: ignore[index]
        home_first = name[f["home"]] == pair[0]
        hg, ag = (g1, g2) if home_first else (g2, g1)
        side = {pair[0]: "home" if home_first else "away", pair[1]: "away" if home_first else "home"}
        lineup = {"home": {"starting": [1, 2, 3, 4, 5, 6]}, "away": {"starting": [1, 2, 3, 4, 5, 6]}}
        if f["id"] == c_next:
            # C #3 was sent off in B–C: his team's next lineup may not name him (C4).
            where = side["C"]
            answer = api.refused("POST", f"/api/competitions/{comp}/fixtures/{f['id']}/match", lineup, 409, "rule", "C4", comp)
            assert f"fixture {bc_id}" in answer["message"]
            lineup[where] = {"starting": [1, 2, 4, 5, 6, 7]}
        made = api.call("POST", f"/api/competitions/{comp}/fixtures/{f['id']}/match", lineup, 201)
        cards = [(side["C"], 3, "red")] if pair == ("B", "C") else []
        api.play(made, goals=["home"] * hg + ["away"] * ag, shootout_winner=side[so] if so else None, cards=cards)
        if pair == ("B", "C"):
            bc_id = f["id"]
            c_next = next(
                x["id"] for x in api.view(comp)["fixtures"] if int(x["id"]) > int(f["id"]) and t["C"] in (x["home"], x["away"])
            )
    # F was not ready for its match with A: declared to forfeit (C6).
    af = _fixture_of(api.view(comp), t["A"], t["F"])
    clock.advance(24 * 3_600_000)
    api.call(
        "POST", f"/api/competitions/{comp}/fixtures/{af['id']}/forfeit", {"team": t["F"], "reason": "not ready at 20 minutes"}
    )
    # F's written protest about E–F, upheld: awarded 0–3 to F (C7).
    ef = _fixture_of(api.view(comp), t["E"], t["F"])
    pid = api.call(
        "POST",
        f"/api/competitions/{comp}/protests",
        {"fixture": ef["id"], "team": t["F"], "text": "E fielded an unregistered player"},
        201,
    )["id"]
    e_home = ef["home"] == t["E"]
    awarded = {"home": 0 if e_home else 3, "away": 3 if e_home else 0}
    api.call(
        "POST",
        f"/api/competitions/{comp}/protests/{pid}/decision",
        {"upheld": True, "text": "unregistered player", "result": awarded},
    )

    table = api.call("GET", f"/api/competitions/{comp}/standings")["all"]
    got = [
        (
            name[r["team"]],
            r["rank"],
            r["played"],
            r["won"],
            r["shootout_won"],
            r["shootout_lost"],
            r["lost"],
            r["goals_for"],
            r["goals_against"],
            r["goal_difference"],
            r["points"],
        )
        for r in table
    ]
    assert got == [
        ("A", 1, 5, 3, 1, 0, 1, 11, 3, 8, 11),
        ("E", 2, 5, 2, 1, 1, 1, 6, 6, 0, 9),
        ("B", 3, 5, 2, 0, 1, 2, 9, 7, 2, 7),
        ("C", 4, 5, 2, 0, 1, 2, 4, 6, -2, 7),
        ("F", 5, 5, 2, 0, 0, 3, 6, 10, -4, 6),
        ("D", 6, 5, 1, 1, 0, 3, 3, 7, -4, 5),
    ]
    notes = {name[r["team"]]: r["note"] for r in table}
    assert notes["B"] == notes["C"] == "ranked by head-to-head points"
    assert "forfeited fixture" in notes["F"] and "protest upheld: unregistered player" in notes["F"]
    assert "protest upheld" in notes["E"] and notes["A"] == "" and notes["D"] == ""
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert (name[s["team"]], s["player"], s["from_fixture"], s["remaining"]) == ("C", 3, bc_id, 0)
    # Statistics: every regulation goal of the played matches (shootout goals apart), the red card.
    stats = api.call("GET", f"/api/competitions/{comp}/stats")
    assert sum(r["goals"] for r in stats) == sum(g1 + g2 for g1, g2, _ in plan.values())
    assert sum(r["red"] for r in stats) == 1 and sum(r["shootout_goals"] for r in stats) > 0
    assert set(stats[0]) >= {"team", "number", "name", "matches", "minutes", "goals", "shootout_goals", "fouls", "yellow", "red"}
    c3 = next(r for r in stats if r["team"] == t["C"] and r["number"] == 3)
    assert c3["matches"] == 4 and c3["red"] == 1, "C #3 played C's other matches, not the one he was suspended for"
    # Exports: the same numbers as CSV with a byte-order mark.
    r = api.client.get(f"/api/competitions/{comp}/standings.csv")
    lines = r.data.decode("utf-8-sig").splitlines()
    assert r.data.startswith("\ufeff".encode()) and lines[0].startswith("group,rank,team,name,played")
    assert lines[1].split(",")[1:5] == ["1", t["A"], "A", "5"]
    r = api.client.get(f"/api/competitions/{comp}/stats.csv")
    assert (
        r.status_code == 200
        and r.data.startswith("\ufeff".encode())
        and "shootout_goals" in r.data.decode("utf-8-sig").splitlines()[0]
    )


# ---------------------------------------------------------------------------------------------
# Live updates, start-up


def test_competition_room_gets_live_scores_and_new_standings(app: Flask, api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    sio = socketio.test_client(app)
    sio.emit("join_competition", {"competition": comp})
    got = sio.get_received()
    assert [m["name"] for m in got] == ["competition"] and got[0]["args"][0]["id"] == comp
    f = api.view(comp)["fixtures"][0]
    made = api.match(comp, f["id"])
    assert [m["name"] for m in sio.get_received()] == ["competition"]
    api.play(made, goals=["home"])
    got = sio.get_received()
    names = [m["name"] for m in got]
    assert "fixture" in names and names[-1] == "competition"
    scores = [m["args"][0]["live"]["score"] for m in got if m["name"] == "fixture"]
    assert {"home": 1, "away": 0} in scores
    assert got[-1]["args"][0]["standings"]["all"][0]["points"] == 3
    sio.emit("join_competition", {"competition": "nope"})
    assert sio.get_received()[0]["name"] == "error"


def test_competitions_survive_a_restart(tmp_path: Any, clock: FakeClock) -> None:
    config = {"TESTING": True, "DATABASE": str(tmp_path / "c.db"), "ADMIN_TOKEN": ADMIN, "CLOCK": clock}
    app = create_app(config)
    api = Api(app.test_client())
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, f["id"]), goals=["away"])
    pid = api.call("POST", f"/api/competitions/{comp}/protests", {"fixture": f["id"], "team": f["home"], "text": "x"}, 201)["id"]
    api.call("POST", f"/api/competitions/{comp}/protests/{pid}/decision", {"upheld": False, "text": "no"})
    before = api.view(comp)
    app.extensions["qalisball"].store.close()
    again = create_app(config)
    after = Api(again.test_client()).view(comp)
    assert {k: v for k, v in after.items() if k != "server_time_ms"} == {k: v for k, v in before.items() if k != "server_time_ms"}
    again.extensions["qalisball"].store.close()


# ---------------------------------------------------------------------------------------------
# Refusals in the organiser's language


def test_C5_a_refusal_asked_in_chinese_is_explained_in_chinese(api: Api) -> None:
    a = api.team("人大 Renmin", club="人民大学")
    b = api.team("清华 Tsinghua")
    comp = _league(api, [a, b])["id"]
    zhao = api.official("赵裁判", "人民大学")
    r = api.client.put(f"/api/competitions/{comp}/fixtures/1/officials?lang=zh", json={"referee": zhao}, headers=auth(ADMIN))
    body = r.get_json()
    assert r.status_code == 409 and body["rule"] == "C5"
    assert body["message"] == "赵裁判属于人民大学，即人大 Renmin所属单位：须回避本场比赛（主裁判）"
    assert body["message_en"].startswith("赵裁判 belongs to 人民大学")


def test_every_competition_refusal_has_a_chinese_translation_keeping_its_placeholders() -> None:
    import re
    from pathlib import Path

    from babel.messages.pofile import read_po

    root = Path(__file__).resolve().parent.parent
    with (root / "translations" / "zh" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        zh = {m.id: m.string for m in read_po(f) if m.id and m.string}
    sources = [
        *sorted((root / "qalisball" / "rules" / "competition").glob("*.py")),
        root / "qalisball" / "competitions" / "service.py",
    ]
    templates = set()
    for path in sources:
        text = path.read_text()
        for call in re.findall(r"N_\(\s*((?:\"[^\"]*\"\s*)+)\)", text):
            templates.add("".join(re.findall(r"\"([^\"]*)\"", call)))
    assert len(templates) >= 15
    for t in sorted(templates):
        assert t in zh, f"no Chinese for {t!r}"
        assert sorted(re.findall(r"\{\w+\}", t)) == sorted(re.findall(r"\{\w+\}", zh[t])), t


# ---------------------------------------------------------------------------------------------
# Pages: rendered on the server (names, scores, standings) in both languages


def test_competition_pages_are_rendered_on_the_server_in_both_languages(api: Api) -> None:
    ids, t = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, f["id"]), goals=["home", "home", "away"])
    winner = api.call("GET", f"/api/teams/{f['home']}")["name"]
    for path in ("", "/part", "/screen", "/screen/part", "/admin", "/admin/part", "/standings"):
        en = api.client.get(f"/competitions/{comp}{path}?lang=en")
        zh = api.client.get(f"/competitions/{comp}{path}?lang=zh")
        assert en.status_code == zh.status_code == 200, path
        assert winner in en.get_data(as_text=True), path
    page = api.client.get(f"/competitions/{comp}?lang=zh").get_data(as_text=True)
    assert "积分榜" in page and "2–1" in page and "赛程" in page
    page = api.client.get(f"/competitions/{comp}?lang=en").get_data(as_text=True)
    assert "Standings" in page and "Top scorers" in page and 'data-fixture="1"' in page
    assert "<script>" not in page, "no inline scripts: data reaches scripts as JSON"
    assert api.client.get("/competitions/nope").status_code == 404
    assert api.client.get("/competitions").status_code == 200
    printable = api.client.get(f"/competitions/{comp}/standings?lang=en").get_data(as_text=True)
    assert "1 of 15 fixtures have a result." in printable


def test_the_organisers_page_carries_a_fixtures_forms_only_when_its_panel_is_open(api: Api) -> None:
    """A page of 240 fixtures carried 240 sets of forms (690 KiB): each panel's forms come when it opens,
    and a refresh after a write renders the open ones in place."""
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    page = api.client.get(f"/competitions/{comp}/admin?lang=en").get_data(as_text=True)
    assert 'data-form="lineup"' not in page and 'data-form="officials"' not in page
    assert page.count("data-lazy=") == len(api.view(comp)["fixtures"]) == 15
    one = api.client.get(f"/competitions/{comp}/admin/fixtures/2?lang=zh")
    html = one.get_data(as_text=True)
    assert one.status_code == 200 and html.count('data-form="lineup"') == 1 and "创建比赛" in html
    assert f"/api/competitions/{comp}/fixtures/2/match" in html
    part = api.client.get(f"/competitions/{comp}/admin/part?open=2,5,nope&lang=en").get_data(as_text=True)
    assert part.count('data-form="lineup"') == 2 and part.count("data-lazy=") == 13
    assert re.search(r'id="fx-2" open>', part) and re.search(r'id="fx-5" open>', part)
    assert api.client.get(f"/competitions/{comp}/admin/fixtures/99").status_code == 404


def test_D75_a_fixture_moves_to_a_free_time_and_field_and_the_schedule_follows(api: Api) -> None:
    """Rain on Field 1: the organiser moves a fixture. Clashes are refused naming the fixture they hit; the
    public grid and the fixture's own time follow the move; once its match is made it stays."""
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    fixtures = api.view(comp)["fixtures"]
    first, second, last = fixtures[0], fixtures[1], fixtures[-1]  # 09:00 Field 1, 09:00 Field 2, 18:20 Field 1
    assert (last["starts_at"], last["field"]) == ("2027-01-15T18:20:00+08:00", "Field 1")
    url = f"/api/competitions/{comp}/fixtures/{first['id']}"
    # The other field at the same time is taken by the second fixture.
    answer = api.refused("PATCH", url, {"field": "Field 2"}, 409, "rule", "D75", comp)
    assert f"Field 2 is taken at that time by fixture #{second['number']}" in answer["message"]
    # Field 2 is free in the last slot, but a team of the second fixture plays there (every team plays 5 times).
    shared = ({second["home"], second["away"]} & {last["home"], last["away"]}).pop()
    move = {"starts_at": "2027-01-15T18:20", "field": "Field 2"}
    answer = api.refused("PATCH", f"/api/competitions/{comp}/fixtures/{second['id']}", move, 409, "rule", "D75", comp)
    name = api.call("GET", f"/api/teams/{shared}")["name"]
    assert f"{name} plays fixture #{last['number']} at that time" in answer["message"]
    api.refused("PATCH", url, {"field": "Field 9"}, 400, "invalid", comp=comp)
    api.refused("PATCH", url, {}, 400, "invalid", comp=comp)
    api.refused("PATCH", url, {"starts_at": "tomorrow"}, 400, "invalid", comp=comp)
    api.refused("PATCH", url, {"field": "Field 2"}, 401, "unauthorized", comp=comp, token=None)
    # A slot after the last one, on Field 2, given without an offset: the competition's (+08:00).
    moved = api.call("PATCH", url, {"starts_at": "2027-01-15T19:40", "field": "Field 2"})
    assert moved == {"id": first["id"], "starts_at": "2027-01-15T19:40:00+08:00", "field": "Field 2"}
    again = api.view(comp)["fixtures"][0]
    assert (again["starts_at"], again["field"]) == ("2027-01-15T19:40:00+08:00", "Field 2")
    page = api.client.get(f"/competitions/{comp}?lang=en").get_data(as_text=True)
    assert page.index(f'data-fixture="{last["id"]}"') < page.index(f'data-fixture="{first["id"]}"')  # its row is now the last
    assert "19:40" in page
    # Once its match is made the fixture stays where it is.
    api.match(comp, first["id"])
    answer = api.refused("PATCH", url, {"starts_at": "2027-01-15T21:00"}, 409, "rule", "D75", comp)
    assert "moves only before its match is made" in answer["message"]


def test_D75_times_keep_the_competitions_zone_and_officials_cannot_overlap_a_moved_fixture(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    fixtures = api.view(comp)["fixtures"]
    first, last = fixtures[0], fixtures[-1]  # 09:00 Field 1; 18:20 Field 1
    url = f"/api/competitions/{comp}/fixtures/{first['id']}"
    # Given in UTC, kept in the competition's zone (+08:00): the pages print 19:40, not 11:40.
    moved = api.call("PATCH", url, {"starts_at": "2027-01-15T11:40:00+00:00", "field": "Field 2"})
    assert moved["starts_at"] == "2027-01-15T19:40:00+08:00"
    # D66 with D75: the same referee 20 minutes later on the other field is on two fields at once.
    wu = api.official("Wu")
    api.call("PUT", f"{url}/officials", {"referee": wu})
    api.call("PATCH", f"/api/competitions/{comp}/fixtures/{last['id']}", {"starts_at": "2027-01-15T20:00"})
    answer = api.refused(
        "PUT", f"/api/competitions/{comp}/fixtures/{last['id']}/officials", {"referee": wu}, 409, "rule", "D66", comp
    )
    assert "Wu" in answer["message"]
    # A competition without times keeps its slots: a fixture moves fields only.
    timeless = api.competition(
        {"name": "No clock", "format": "round_robin", "teams": ids[:4], "fields": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}
    )
    fx = api.view(timeless["id"])["fixtures"][0]
    turl = f"/api/competitions/{timeless['id']}/fixtures/{fx['id']}"
    api.refused("PATCH", turl, {"starts_at": "2027-01-15T10:00+08:00"}, 400, "invalid", comp=timeless["id"])
    assert api.call("PATCH", turl, {"field": "C"})["field"] == "C"


def test_D76_the_semi_finals_losers_play_for_third_place(api: Api) -> None:
    ids, _ = _six(api)
    body = {"name": "Cup", "format": "knockout", "teams": ids[:4], "fields": [{"name": "F1"}], "third_place": True}
    comp = api.competition(body)["id"]
    sf1, sf2, third, final = api.view(comp)["fixtures"]
    assert [f["stage"] for f in (sf1, sf2, third, final)] == ["semi_final", "semi_final", "third_place", "final"]
    assert (third["home_from"], third["away_from"]) == (f"L{sf1['number']}", f"L{sf2['number']}")
    assert third["slot"] < final["slot"]
    page = api.client.get(f"/competitions/{comp}?lang=en").get_data(as_text=True)
    assert "Third-place match" in page and f"Loser of #{sf1['number']}" in page
    printable = api.client.get(f"/competitions/{comp}/standings?lang=en").get_data(as_text=True)
    assert f"Final #{final['number']}" in printable and f"Third-place match #{third['number']}" in printable
    # D75 with D76: in a cup with times, the final is not moved before the third-place match is over.
    timed = api.competition({**body, "fields": [{"name": "F1"}, {"name": "F2"}], "starts_at": START})["id"]
    t_third, t_final = api.view(timed)["fixtures"][2:]
    move = {"starts_at": t_third["starts_at"], "field": "F2"}
    answer = api.refused("PATCH", f"/api/competitions/{timed}/fixtures/{t_final['id']}", move, 409, "rule", "D75", timed)
    assert f"fixture #{t_final['number']} waits for fixture #{t_third['number']}" in answer["message"]
    assert "季军赛" in api.client.get(f"/competitions/{comp}?lang=zh").get_data(as_text=True)
    api.play(api.match(comp, sf1["id"]), goals=["home"])
    api.play(api.match(comp, sf2["id"]), goals=["home"], second_half_goals=["away"], shootout_winner="away")
    third, final = api.view(comp)["fixtures"][2:]
    assert (third["home"], third["away"]) == (sf1["away"], sf2["home"])  # the losers, a shootout's included
    assert (final["home"], final["away"]) == (sf1["home"], sf2["away"])
    made = api.match(comp, third["id"])
    assert (
        api.call("GET", f"/api/matches/{made['id']}")["teams"]["home"]["name"]
        == api.call("GET", f"/api/teams/{sf1['away']}")["name"]
    )
    # Only a knockout keeps the option; a league's config has none.
    league = _league(api, ids, third_place=True)
    assert "third_place" not in api.call("GET", f"/api/competitions/{league['id']}")["config"]


def test_C2_the_bracket_is_drawn_with_its_places_until_they_fill(api: Api) -> None:
    ids, t = _six(api)
    comp = api.competition({"name": "Cup", "format": "knockout", "teams": ids[:4], "fields": [{"name": "F1"}]})["id"]
    page = api.client.get(f"/competitions/{comp}?lang=en").get_data(as_text=True)
    assert 'class="bracket"' in page and "Winner of #1" in page and "Semi-final" in page and "Final" in page
    page = api.client.get(f"/competitions/{comp}?lang=zh").get_data(as_text=True)
    assert "第1场胜者" in page and "半决赛" in page


def test_demo_competition_on_an_empty_database(app: Flask) -> None:
    from datetime import datetime, timedelta, timezone

    from qalisball.server.demo import ensure_demo_competition

    comps = app.extensions["qalisball_competitions"]
    now = datetime(2026, 12, 5, 8, 40, tzinfo=timezone(timedelta(hours=8)))
    c = ensure_demo_competition(comps, now)
    assert c is not None and c.format == "round_robin" and len(c.teams) == 6 and len(c.config["fields"]) == 2
    view = comps.view(c)
    assert len(view["fixtures"]) == 15 and view["fixtures"][0]["starts_at"] == "2026-12-05T09:00:00+08:00"
    assert len(comps.officials) == 4
    assert ensure_demo_competition(comps, now) is None, "only once"


def test_issue27_item11_the_demo_competition_has_a_finished_fixture_and_an_open_protest_against_it(app: Flask) -> None:
    """The protest -> what-if -> decision path (C7, D188) can be tried on a fresh install: the round robin's last
    fixture was played before the first slot (D75: on a field free then), 2-1, and the loser protests a goal."""
    from datetime import datetime, timedelta, timezone

    from qalisball.server.demo import ensure_demo_competition

    comps = app.extensions["qalisball_competitions"]
    now = datetime(2026, 12, 5, 8, 55, tzinfo=timezone(timedelta(hours=8)))
    c = ensure_demo_competition(comps, now)
    assert c is not None
    view = comps.view(c)
    played = [f for f in view["fixtures"] if f["status"] == "finished"]
    assert [f["number"] for f in played] == [15] and played[0]["result"]["home"] == 2 and played[0]["result"]["away"] == 1
    assert played[0]["starts_at"] == "2026-12-05T07:40:00+08:00"  # its slot ends as the first (09:00) starts
    assert [f["number"] for f in view["fixtures"] if f["status"] != "finished" and f["starts_at"] < "2026-12-05T09:00"] == []
    (protest,) = c.protests
    assert protest.fixture == played[0]["id"] and protest.team == c.fixture(protest.fixture).away and protest.decision is None
    assert "#6" in protest.text


# ---------------------------------------------------------------------------------------------
# Decisions where SPEC §10 is silent (docs/decisions.md D60–D79)


def test_D61_level_teams_share_their_rank_and_wait_for_lots_only_once_the_group_is_over(api: Api) -> None:
    ids, t = _six(api)
    comp = _league(api, ids[:3])["id"]
    rows = api.view(comp)["standings"]["all"]
    assert [r["rank"] for r in rows] == [1, 1, 1]
    assert all(r["note"] == "" and r["tiebreak"] is None for r in rows), "nothing to draw before the group is over"
    assert api.view(comp)["unresolved_ties"] == {"all": []} and api.view(comp)["groups_over"] == {"all": False}


def test_D67_cards_stand_when_a_result_is_replaced_but_the_goals_leave_the_statistics(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, f["id"]), goals=["home", "home"], cards=[("away", 4, "red")])
    pid = api.call(
        "POST", f"/api/competitions/{comp}/protests", {"fixture": f["id"], "team": f["away"], "text": "wrong field"}, 201
    )["id"]
    api.call("POST", f"/api/competitions/{comp}/protests/{pid}/decision", {"upheld": True, "text": "replay", "replay": True})
    [s] = api.call("GET", f"/api/competitions/{comp}/suspensions")
    assert (s["team"], s["player"], s["remaining"]) == (f["away"], 4, 1)
    assert f["id"] not in s["covers"], "he may play the replay of the match he was sent off in"
    assert sum(r["goals"] for r in api.call("GET", f"/api/competitions/{comp}/stats")) == 0


def test_D69_without_a_scheduled_time_a_forfeit_may_be_declared_before_kick_off(api: Api) -> None:
    ids, _ = _six(api)
    comp = api.competition({"name": "Cup", "format": "round_robin", "teams": ids[:2], "fields": [{"name": "F1"}]})["id"]
    f = api.view(comp)["fixtures"][0]
    assert f["starts_at"] is None
    api.call("POST", f"/api/competitions/{comp}/fixtures/{f['id']}/forfeit", {"team": f["home"], "reason": "withdrew"})
    assert api.view(comp)["fixtures"][0]["status"] == "forfeit"


def test_D70_a_suspended_player_is_left_off_the_roster_the_match_copies(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    first = api.view(comp)["fixtures"][0]
    api.play(api.match(comp, first["id"]), goals=["away"], cards=[("home", 8, "red")])  # #8 on the bench
    nxt = next(f for f in api.view(comp)["fixtures"][1:] if first["home"] in (f["home"], f["away"]))
    made = api.match(comp, nxt["id"])
    side = "home" if nxt["home"] == first["home"] else "away"
    state = api.call("GET", f"/api/matches/{made['id']}")
    assert state["teams"][side]["bench"] == [7], "#8 cannot come on as a substitute"
    r = api.client.post(
        f"/api/matches/{made['id']}/events",
        json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        headers=auth(made["tokens"]["referee"]),
    )
    assert r.status_code == 201
    r = api.client.post(
        f"/api/matches/{made['id']}/events",
        json={"type": "substitution", "team": side, "out": 1, "in": 8},
        headers=auth(made["tokens"]["referee"]),
    )
    assert r.status_code == 400, r.get_json()


def test_D72_team_names_are_unique_ignoring_case(api: Api) -> None:
    tid = api.team("Renmin")
    api.refused("POST", "/api/teams", {"name": "RENMIN "}, 400, "invalid")
    other = api.team("Tsinghua")
    api.refused("PATCH", f"/api/teams/{other}", {"name": "renmin"}, 400, "invalid")
    api.call("PATCH", f"/api/teams/{tid}", {"name": "renmin"})  # its own name, in other letters


def test_D73_a_fixture_gets_a_new_match_only_after_an_abandonment_or_a_replay(api: Api) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    f = api.view(comp)["fixtures"][0]
    first = api.match(comp, f["id"])
    for event in ({"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, {"type": "abandon", "reason": "floodlights"}):
        api.client.post(f"/api/matches/{first['id']}/events", json=event, headers=auth(first["tokens"]["referee"]))
    again = api.match(comp, f["id"])
    fx = api.view(comp)["fixtures"][0]
    assert (fx["match"], fx["previous_matches"], fx["status"]) == (again["id"], [first["id"]], "scheduled")
    api.play(again, goals=["home"])
    assert api.view(comp)["fixtures"][0]["result"]["winner"] == f["home"]


def test_C1_a_made_match_keeps_its_teams_when_the_bracket_changes_and_says_so(api: Api) -> None:
    ids, t = _six(api)
    comp = api.competition(
        {"name": "Cup", "format": "groups_knockout", "teams": ids[:4], "groups": 2, "advance": 1, "fields": [{"name": "F1"}]}
    )["id"]
    a_match, b_match, final = api.view(comp)["fixtures"]
    api.play(api.match(comp, a_match["id"]), goals=["away"])  # D wins group A
    api.play(api.match(comp, b_match["id"]), goals=["home"])  # B wins group B
    made = api.match(comp, final["id"])
    assert api.view(comp)["fixtures"][2]["bracket_changed"] == []
    # A protest about A–D is upheld: A wins group A after all. The final's match keeps D (C1), flagged.
    pid = api.call("POST", f"/api/competitions/{comp}/protests", {"fixture": a_match["id"], "team": t["A"], "text": "x"}, 201)[
        "id"
    ]
    api.call(
        "POST",
        f"/api/competitions/{comp}/protests/{pid}/decision",
        {"upheld": True, "text": "awarded", "result": {"home": 5, "away": 0}},
    )
    fx = api.view(comp)["fixtures"][2]
    assert (fx["home"], fx["match"], fx["bracket_changed"]) == (t["D"], made["id"], ["home"])
    assert "bracket changed" in api.client.get(f"/competitions/{comp}/admin?lang=en").get_data(as_text=True)


def test_a_failing_competition_update_never_refuses_a_match_event(app: Flask, api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    made = api.match(comp, "1")
    comps = app.extensions["qalisball_competitions"]

    def broken(*_: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(comps, "_live", broken)
    r = api.client.post(
        f"/api/matches/{made['id']}/events",
        json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
        headers=auth(made["tokens"]["referee"]),
    )
    assert r.status_code == 201, "the event is stored and answered; the screens miss one update"


# ---------------------------------------------------------------------------------------------
# D155, D156: joins answered from a view cached per change; joins bounded per connection


def _joined(app: Flask, comp: str) -> dict[str, Any]:
    """What a new page's ``join_competition`` is answered with."""
    sio = socketio.test_client(app)
    sio.emit("join_competition", {"competition": comp})
    [got] = sio.get_received()
    assert got["name"] == "competition"
    answer: dict[str, Any] = got["args"][0]
    sio.disconnect()
    return answer


def test_D155_joins_reuse_the_view_until_a_match_event_or_an_organiser_write_changes_it(
    app: Flask, api: Api, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    ids, t = _six(api)
    comp = _league(api, ids)["id"]
    f = _fixture_of(api.view(comp), t["A"], t["B"])
    made = api.match(comp, f["id"])
    svc = app.extensions["qalisball_competitions"]
    built: list[str] = []
    view = svc.view
    monkeypatch.setattr(svc, "view", lambda c: built.append(c.id) or view(c))
    for _ in range(5):
        first = _joined(app, comp)
    assert len(built) <= 1, "five joins, at most one build (the match's making built it already): nothing changed"
    # A goal: the next join's answer has it (the match's seq is part of the cache's key).
    tokens = made["tokens"]
    post = lambda e: api.call("POST", f"/api/matches/{made['id']}/events", e, 201, token=tokens["referee"])  # noqa: E731
    post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    post({"type": "period_start"})
    post({"type": "restart_taken", "team": "home", "player": 1})
    post({"type": "goal", "team": "home", "player": 3})
    live = next(x for x in _joined(app, comp)["fixtures"] if x["id"] == f["id"])["live"]
    assert live["score"] == {"home": 1, "away": 0} and first["fixtures"] != _joined(app, comp)["fixtures"]
    # The clock runs: the view is rebuilt at most once a second (D155), its clock consistent with its time.
    n = len(built)
    _joined(app, comp)
    assert len(built) == n
    clock.advance(1000)
    assert _joined(app, comp)["server_time_ms"] == clock() and len(built) == n + 1
    # An organiser's write (a team renamed, a fixture moved) shows in the next join too.
    api.call("PATCH", f"/api/teams/{t['C']}", {"name": "C renamed"})
    assert _joined(app, comp)["team_details"][t["C"]]["name"] == "C renamed"
    other = next(x for x in api.view(comp)["fixtures"] if x["match"] is None)
    api.call("PATCH", f"/api/competitions/{comp}/fixtures/{other['id']}", {"starts_at": "2027-02-01T09:00:00+08:00"})
    moved = next(x for x in _joined(app, comp)["fixtures"] if x["id"] == other["id"])
    assert moved["starts_at"] != other["starts_at"] and moved["starts_at"].startswith("2027-02-01T09:00")


def test_D156_a_connection_that_joins_too_often_is_refused_once_then_ignored(app: Flask, api: Api, clock: FakeClock) -> None:
    JOIN_BURST, JOIN_EVERY_MS = 10, 200  # D156: 10 joins at once, then one every 200 ms

    ids, _ = _six(api)
    comp = _league(api, ids)["id"]
    storm = socketio.test_client(app)
    for _ in range(JOIN_BURST):
        storm.emit("join_competition", {"competition": comp})
    assert [m["name"] for m in storm.get_received()] == ["competition"] * JOIN_BURST
    for _ in range(50):
        storm.emit("join_competition", {"competition": comp})
    got = storm.get_received()
    assert [m["name"] for m in got] == ["error"], "one refusal, the rest dropped unanswered"
    assert got[0]["args"][0]["error"] == "too_many_requests" and got[0]["args"][0]["retry_after_ms"] == JOIN_EVERY_MS
    # A match's join counts in the same budget: the same connection is refused there too.
    storm.emit("join", {"match": "anything"})
    assert storm.get_received() == []
    # Another connection is not slowed by it; the storming one may join again once its bucket drained.
    assert _joined(app, comp)["id"] == comp
    clock.advance(JOIN_EVERY_MS)
    storm.emit("join_competition", {"competition": comp})
    assert [m["name"] for m in storm.get_received()] == ["competition"]
    storm.emit("join_competition", {"competition": comp})
    assert [m["args"][0]["error"] for m in storm.get_received()] == ["too_many_requests"]  # a new storm is told again


# ---------------------------------------------------------------------------------------------
# D159: /competitions stays small however many teams are kept; rosters load on demand


def test_D159_the_competitions_page_stays_bounded_with_many_teams_and_each_roster_opens_on_demand(
    client: FlaskClient, api: Api
) -> None:
    # 120 teams of 40 players each (4,800 rows, one import), each name long enough to weigh.
    for half in (range(60), range(60, 120)):  # two imports: one body is at most 256 KB
        rows = ["team,number,name,gender"]
        rows += [f"Kept team {i:03},{n},Player {i:03}-{n:02} with a rather long name,f" for i in half for n in range(1, 41)]
        api.call("POST", "/api/teams/import", data="\n".join(rows).encode(), content_type="text/csv", expect=200)
    client.get(f"/competitions?token={ADMIN}")  # the organiser's cookie (D53)
    page = client.get("/competitions?lang=en")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and len(page.data) < 60_000, len(page.data)  # every roster on it: 335 KB
    assert html.count('class="team-card"') == 50 and "with a rather long name" not in html
    assert "Teams 1–50 of 120" in html and "Later teams" in html and "Earlier teams" not in html
    last = client.get("/competitions?teams=3&lang=zh").get_data(as_text=True)
    assert last.count('class="team-card"') == 20 and "第 101–120 支球队，共 120 支" in last
    assert "前面的球队" in last and "后面的球队" not in last
    # The three pages list every team once.
    pages = [client.get(f"/competitions?teams={n}").get_data(as_text=True) for n in (1, 2, 3)]
    listed = [name for p in pages for name in re.findall(r"<summary><strong>(Kept team \d+)</strong>", p)]
    assert sorted(listed) == [f"Kept team {i:03}" for i in range(120)]
    # A team's card opens its form with its roster; the organiser edits it as before (PATCH /api/teams/<id>).
    ids = re.findall(r'data-lazy="(/competitions/teams/[0-9a-f]+)"', html)
    assert len(ids) == 50
    form = client.get(ids[0] + "?lang=en").get_data(as_text=True)
    assert form.count("with a rather long name") == 40 and 'data-method="PATCH"' in form and "Save the team" in form
    team_id = ids[0].rsplit("/", 1)[1]
    api.call("PATCH", f"/api/teams/{team_id}", {"players": [{"number": 7, "name": "Late Addition"}]})
    assert "7 Late Addition" in client.get(ids[0]).get_data(as_text=True)
    assert client.get("/competitions/teams/nosuchteam").status_code == 404
    # The new competition's team checkboxes come with the form, when the organiser opens it.
    choices = client.get("/competitions/teams").get_data(as_text=True)
    assert choices.count('name="teams"') == 120
