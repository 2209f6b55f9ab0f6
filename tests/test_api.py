"""The HTTP API's error table, its check order and its bookkeeping (API.md "Conventions", "Events").

Every status of the error table is provoked here, and every error is checked to change nothing. The
order API.md fixes is 401/403, 404, 400, 409 ``conflict``, 409 ``rule``: the first failing check answers.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from qalisball.server.demo import demo_request
from tests.conftest import ADMIN, FakeClock, MatchDriver, auth

# ----------------------------------------------------------------------------------------------
# Helpers


def _snapshot(match: MatchDriver) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return match.state(), match.events()


def _raw(match: MatchDriver, body: Any, token: str | None = None, *, data: str | None = None) -> Any:
    headers = auth(token) if token else {}
    url = f"/api/matches/{match.id}/events"
    if data is not None:
        return match.client.post(url, data=data, content_type="application/json", headers=headers)
    return match.client.post(url, json=body, headers=headers)


def _error(r: Any, status: int, error: str) -> dict[str, Any]:
    body: dict[str, Any] = r.get_json()
    assert r.status_code == status, (r.status_code, body)
    assert body["error"] == error, body
    assert isinstance(body["message"], str) and body["message"], body
    if error == "invalid":
        assert isinstance(body["fields"], dict) and body["fields"], body
    if error == "rule":
        assert isinstance(body["rule"], str) and body["rule"], body
    return body


def _refused(match: MatchDriver, body: Any, status: int, error: str, role: str | None = "referee", **kw: Any) -> dict[str, Any]:
    """Send ``body``, expect the error, and check that nothing changed (API.md: errors never change anything)."""
    before = _snapshot(match)
    token = match.tokens.get(role, role) if role is not None else None
    answer = _error(_raw(match, body, token, **kw), status, error)
    assert _snapshot(match) == before, "an error changed the match"
    return answer


def _live(match: MatchDriver) -> dict[str, Any]:
    """Coin toss, first half, kickoff taken: the ball is live, home has it."""
    match.kickoff("home", "x0")
    return match.take()


def _team(numbers: list[int], starting: list[int], name: str = "T") -> dict[str, Any]:
    return {"name": name, "players": [{"number": n, "name": f"P{n}"} for n in numbers], "starting": starting}


def _create(client: FlaskClient, body: Any, token: str | None = ADMIN) -> Any:
    return client.post("/api/matches", json=body, headers=auth(token) if token else {})


def _created(client: FlaskClient, body: Any) -> str:
    r = _create(client, body)
    assert r.status_code == 201, r.get_json()
    answer = r.get_json()
    assert set(answer["tokens"]) == {"referee", "assistant1", "assistant2", "scorer"}
    match_id: str = answer["id"]
    return match_id


def _invalid_creation(client: FlaskClient, body: Any) -> dict[str, Any]:
    before = client.get("/api/matches").get_json()
    answer = _error(_create(client, body), 400, "invalid")
    assert client.get("/api/matches").get_json() == before, "a refused creation stored a match"
    return answer


# ----------------------------------------------------------------------------------------------
# 401 / 403: tokens and the "who" column


def test_401_without_a_token(match: MatchDriver) -> None:
    _refused(match, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, 401, "unauthorized", role=None)


def test_401_with_a_wrong_token(match: MatchDriver) -> None:
    _refused(match, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, 401, "unauthorized", role="nonsense")


def test_401_with_a_malformed_authorization_header(match: MatchDriver) -> None:
    before = _snapshot(match)
    for header in (match.tokens["referee"], f"Basic {match.tokens['referee']}", "Bearer ", "Bearer"):
        r = match.client.post(
            f"/api/matches/{match.id}/events",
            json={"type": "coin_toss", "kickoff": "home", "home_end": "x0"},
            headers={"Authorization": header},
        )
        _error(r, 401, "unauthorized")
    assert _snapshot(match) == before


def test_401_with_another_matchs_token(client: FlaskClient, clock: FakeClock) -> None:
    first, second = MatchDriver(client, clock), MatchDriver(client, clock)
    for role in first.tokens:
        _refused(second, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, 401, "unauthorized", role=first.tokens[role])
    assert first.state()["seq"] == 0


def test_403_organiser_token_does_not_officiate(match: MatchDriver) -> None:
    _refused(match, {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, 403, "forbidden", role=ADMIN)


@pytest.mark.parametrize("role", ["assistant1", "assistant2"])
def test_403_assistant_may_not_log_a_foul(match: MatchDriver, role: str) -> None:
    _live(match)
    foul = {"type": "foul", "team": "home", "player": 2, "spot": {"x": 20, "y": 10}}
    _refused(match, foul, 403, "forbidden", role=role)
    match.post(foul)  # the referee may


@pytest.mark.parametrize("role", ["assistant1", "assistant2"])
@pytest.mark.parametrize("kind", ["ball_out_side", "ball_out_end", "ball_in_area", "player_in_area"])
def test_4_3_assistants_call_ball_out_and_area_violations(match: MatchDriver, role: str, kind: str) -> None:
    _live(match)
    spot = {"ball_out_side": {"x": 20, "y": -1}, "ball_out_end": {"x": 41, "y": 5}}.get(kind, {"x": 1, "y": 12.5})
    body = match.post({"type": "violation", "kind": kind, "team": "home", "player": 2, "spot": spot}, role=role)
    assert body["state"]["ball"] == "dead"
    assert match.events()[-1]["by"] == role


@pytest.mark.parametrize("role", ["assistant1", "assistant2", "scorer"])
@pytest.mark.parametrize("kind", ["caught", "ball_grounded", "restart"])
def test_403_only_the_referee_calls_other_violations(match: MatchDriver, role: str, kind: str) -> None:
    _live(match)
    _refused(
        match, {"type": "violation", "kind": kind, "team": "home", "player": 2, "spot": {"x": 20, "y": 5}}, 403, "forbidden", role
    )


def test_403_scorer_may_not_log_ball_out(match: MatchDriver) -> None:
    _live(match)
    body = {"type": "violation", "kind": "ball_out_end", "team": "home", "player": 2, "spot": {"x": 41, "y": 5}}
    _refused(match, body, 403, "forbidden", "scorer")


def test_scorer_keeps_the_clock_and_substitutions(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    match.post({"type": "clock", "action": "pause"}, role="scorer")
    clock.advance(5000)
    match.post({"type": "clock", "action": "resume"}, role="scorer")
    s = match.post({"type": "clock", "action": "set", "elapsed_ms": 60_000}, role="scorer")["state"]
    assert s["clock"]["elapsed_ms"] == 60_000 and s["clock"]["running"] is True
    s = match.post({"type": "substitution", "team": "home", "out": 1, "in": 7}, role="scorer")["state"]
    assert 7 in s["teams"]["home"]["on_field"] and 1 not in s["teams"]["home"]["on_field"]
    assert [e["by"] for e in match.events()][-4:] == ["scorer"] * 4


# (type, body, roles allowed) from API.md's "who" column.
WHO_TABLE: list[tuple[str, dict[str, Any], set[str]]] = [
    ("coin_toss", {"kickoff": "home", "home_end": "x0"}, {"referee"}),
    ("period_start", {}, {"referee"}),
    ("period_end", {}, {"referee"}),
    ("clock", {"action": "pause"}, {"referee", "scorer"}),
    ("restart_taken", {"team": "home", "player": 1}, {"referee"}),
    ("goal", {"team": "home", "player": 1}, {"referee", "assistant1", "assistant2"}),
    ("foul", {"team": "home", "player": 1, "spot": {"x": 5, "y": 5}}, {"referee"}),
    ("card", {"team": "home", "player": 1, "color": "yellow"}, {"referee"}),
    ("substitution", {"team": "home", "out": 1, "in": 7}, {"referee", "scorer"}),
    ("injury", {"team": "home", "player": 1}, {"referee"}),
    ("steal", {"team": "home", "player": 1}, {"referee"}),
    ("catch", {"team": "home", "player": 1, "caught": 1}, {"referee"}),
    ("attack", {"team": "home"}, {"referee"}),
    ("shot_missed", {"team": "home", "player": 1}, {"referee", "assistant1", "assistant2"}),
    ("shootout_start", {"first": "home", "takers": {"home": [1, 2, 3, 4], "away": [1, 2, 3, 4]}}, {"referee"}),
    ("shootout_kick", {"team": "home", "scored": True}, {"referee"}),
    ("abandon", {"reason": "storm"}, {"referee"}),
    ("void", {"target": 1}, {"referee"}),
]


@pytest.mark.parametrize(("kind", "fields", "allowed"), WHO_TABLE, ids=[w[0] for w in WHO_TABLE])
def test_403_who_column(match: MatchDriver, kind: str, fields: dict[str, Any], allowed: set[str]) -> None:
    """Every role outside the "who" column gets 403; the roles inside get past authorisation."""
    for role in ("referee", "assistant1", "assistant2", "scorer"):
        body = {"type": kind, **fields}
        if role in allowed:
            r = _raw(match, body, match.tokens[role])
            assert r.status_code not in (401, 403), (role, r.get_json())
        else:
            _refused(match, body, 403, "forbidden", role)


# ----------------------------------------------------------------------------------------------
# 404


def test_404_unknown_match(client: FlaskClient) -> None:
    _error(client.get("/api/matches/nosuchmatch"), 404, "not_found")
    _error(client.get("/api/matches/nosuchmatch/events"), 404, "not_found")


def test_401_before_404_posting_to_an_unknown_match(client: FlaskClient, match: MatchDriver) -> None:
    """401/403 come before 404: no token of that match can exist, so the token is not valid for it."""
    r = client.post("/api/matches/nosuchmatch/events", json={"type": "period_start"}, headers=auth(match.tokens["referee"]))
    _error(r, 401, "unauthorized")
    _error(client.post("/api/matches/nosuchmatch/events", json={"type": "period_start"}), 401, "unauthorized")


def test_404_void_of_an_unknown_seq(match: MatchDriver) -> None:
    match.kickoff()
    answer = _refused(match, {"type": "void", "target": 99, "reason": "typo"}, 404, "not_found")
    assert "99" in answer["message"]


def test_404_before_409_conflict_void_of_unknown_seq_with_stale_expected_seq(match: MatchDriver) -> None:
    """API.md order: 404 comes before 409 conflict."""
    match.kickoff()
    _refused(match, {"type": "void", "target": 99, "expected_seq": 0}, 404, "not_found")


def test_403_before_400(match: MatchDriver) -> None:
    """A forbidden role is told so even when its body is also malformed."""
    _refused(match, {"type": "foul", "team": "nobody", "spot": "here", "bogus": 1}, 403, "forbidden", "assistant1")


def test_401_before_400(match: MatchDriver) -> None:
    _refused(match, {"type": "nonsense"}, 401, "unauthorized", role=None)
    _refused(match, None, 401, "unauthorized", role=None, data="{not json")


# ----------------------------------------------------------------------------------------------
# 400 invalid: bad JSON, unknown types, unknown fields, wrong types, bad spots and teams


@pytest.mark.parametrize("data", ["{not json", "", "[1, 2", '{"type": "goal",}', "nul"])
def test_400_bad_json(match: MatchDriver, data: str) -> None:
    _refused(match, None, 400, "invalid", data=data)


@pytest.mark.parametrize("body", [[], [{"type": "period_start"}], "period_start", 17, None])
def test_400_body_not_an_object(match: MatchDriver, body: Any) -> None:
    import json

    _refused(match, None, 400, "invalid", data=json.dumps(body))


def test_400_body_without_content_type(match: MatchDriver) -> None:
    before = _snapshot(match)
    r = match.client.post(
        f"/api/matches/{match.id}/events", data='{"type": "period_start"}', headers=auth(match.tokens["referee"])
    )
    _error(r, 400, "invalid")
    assert _snapshot(match) == before


@pytest.mark.parametrize("kind", ["kick", "GOAL", "", None, 7, ["goal"], {"goal": 1}, "__class__"])
def test_400_unknown_event_type(match: MatchDriver, kind: Any) -> None:
    answer = _refused(match, {"type": kind, "team": "home"}, 400, "invalid")
    assert "type" in answer["fields"]


def test_403_assistant_violation_kind_of_the_wrong_type(match: MatchDriver) -> None:
    """A ``kind`` that is a list is no assistant's call: 403 (the role check comes first), never a 500."""
    _live(match)
    _refused(match, {"type": "violation", "kind": ["ball_out_end"], "team": "home"}, 403, "forbidden", "assistant1")
    _refused(match, {"type": "violation", "kind": {"ball_out_end": 1}, "team": "home"}, 403, "forbidden", "assistant2")


def test_400_at_ms_too_large_for_the_log(match: MatchDriver) -> None:
    """A game-clock time no half can reach, too large for SQLite's INTEGER: 400 naming at_ms, not a 500."""
    _live(match)
    answer = _refused(match, {"type": "goal", "team": "home", "player": 1, "at_ms": 2**70}, 400, "invalid")
    assert "at_ms" in answer["fields"]


def test_400_missing_event_type(match: MatchDriver) -> None:
    answer = _refused(match, {"team": "home"}, 400, "invalid")
    assert "type" in answer["fields"]


def test_400_unknown_field(match: MatchDriver) -> None:
    _live(match)
    answer = _refused(match, {"type": "goal", "team": "home", "player": 1, "minute": 12}, 400, "invalid")
    assert answer["fields"] == {"minute": answer["fields"]["minute"]}


def test_400_field_of_another_event_type(match: MatchDriver) -> None:
    answer = _refused(match, {"type": "coin_toss", "kickoff": "home", "home_end": "x0", "team": "home"}, 400, "invalid")
    assert "team" in answer["fields"]


BAD_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"type": "coin_toss", "kickoff": "home", "home_end": "north"}, "home_end"),
    ({"type": "coin_toss", "kickoff": "visitors", "home_end": "x0"}, "kickoff"),
    ({"type": "coin_toss", "home_end": "x0"}, "kickoff"),
    ({"type": "goal", "team": "Home", "player": 1}, "team"),
    ({"type": "goal", "team": 1, "player": 1}, "team"),
    ({"type": "goal", "team": None, "player": 1}, "team"),
    ({"type": "goal", "player": 1}, "team"),
    ({"type": "goal", "team": "home", "player": "1"}, "player"),
    ({"type": "goal", "team": "home", "player": 1.5}, "player"),
    ({"type": "goal", "team": "home", "player": -3}, "player"),
    ({"type": "goal", "team": "home", "player": 99}, "player"),  # not on the roster
    ({"type": "goal", "team": "home", "player": 1, "direct": "perhaps"}, "direct"),
    ({"type": "goal", "team": "home", "player": 1, "at_ms": -5}, "at_ms"),
    ({"type": "goal", "team": "home", "player": 1, "at_ms": "soon"}, "at_ms"),
    ({"type": "goal", "team": "home", "player": 1, "expected_seq": "3"}, "expected_seq"),
    ({"type": "goal", "team": "home", "player": 1, "id": 12}, "id"),
    ({"type": "goal", "team": "home", "player": 1, "id": ""}, "id"),
    ({"type": "clock", "action": "stop"}, "action"),
    ({"type": "clock", "action": "set"}, "elapsed_ms"),
    ({"type": "clock", "action": "set", "elapsed_ms": -1}, "elapsed_ms"),
    ({"type": "clock", "action": "set", "elapsed_ms": 99_000_000}, "elapsed_ms"),  # past the half's length
    ({"type": "violation", "kind": "offside", "team": "home", "player": 1, "spot": {"x": 1, "y": 1}}, "kind"),
    ({"type": "violation", "kind": "restart", "team": "home", "side": "middle"}, "side"),
    ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 1}}, "spot"),
    ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": "a", "y": 1}}, "spot"),
    ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": [1, 2]}, "spot"),
    ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": "centre"}, "spot"),
    ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 1, "y": 2, "z": 3}}, "spot"),
    ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": 1e9, "y": 2}}, "spot"),
    ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": True, "y": 2}}, "spot"),
    ({"type": "violation", "kind": "ball_out_end", "team": "hme", "spot": {"x": 41, "y": 2}}, "team"),
    ({"type": "foul", "team": "away", "player": 2, "spot": {"x": 5, "y": 5}, "where": "outside"}, "where"),
    ({"type": "foul", "team": "away", "player": 2, "spot": {"x": 5, "y": 5}, "card": "green"}, "card"),
    ({"type": "foul", "team": "away", "player": 2, "spot": {"x": 5, "y": 5}, "on_official": "maybe"}, "on_official"),
    ({"type": "card", "team": "away", "player": 2, "color": "blue"}, "color"),
    ({"type": "card", "team": "away", "color": "red"}, "player"),
    ({"type": "substitution", "team": "home", "in": 7}, "out"),
    ({"type": "substitution", "team": "home", "out": 1}, "in"),
    ({"type": "substitution", "team": "home", "out": 1, "in": 77}, "in"),
    ({"type": "substitution", "team": "home", "out": 55, "in": 7}, "out"),
    ({"type": "catch", "team": "away", "player": 2, "caught": 42}, "caught"),
    ({"type": "shootout_start", "first": "home", "takers": {"home": [1, 2, 3], "away": [1, 2, 3, 4]}}, "takers"),
    ({"type": "shootout_start", "first": "home", "takers": {"home": [1, 2, 3, 4]}}, "takers"),
    ({"type": "shootout_start", "first": "home", "takers": {"home": [1, 2, 3, 44], "away": [1, 2, 3, 4]}}, "takers.home"),
    ({"type": "shootout_kick", "team": "home"}, "scored"),
    ({"type": "abandon"}, "reason"),
    ({"type": "abandon", "reason": ""}, "reason"),
    ({"type": "void"}, "target"),
    ({"type": "void", "target": 0}, "target"),
    ({"type": "void", "target": "1"}, "target"),
]


@pytest.mark.parametrize(("body", "field"), BAD_FIELDS, ids=[f"{b['type']}-{f}-{i}" for i, (b, f) in enumerate(BAD_FIELDS)])
def test_400_bad_field_values_name_the_field(match: MatchDriver, body: dict[str, Any], field: str) -> None:
    _live(match)  # a state in which most of these events would be legal if well-formed
    answer = _refused(match, body, 400, "invalid")
    assert field in answer["fields"], answer


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": "41", "y": "3"}}, "spot"),
        ({"type": "goal", "team": "home", "player": 1, "direct": "yes"}, "direct"),
        ({"type": "goal", "team": "home", "player": 1, "direct": 1}, "direct"),
        ({"type": "foul", "team": "away", "player": 2, "spot": {"x": 5, "y": 5}, "on_official": "false"}, "on_official"),
    ],
)
def test_400_numbers_and_booleans_sent_as_strings(match: MatchDriver, body: dict[str, Any], field: str) -> None:
    """Wrong JSON types are 400, as they are for shirt numbers (strict integers): "41" is not a number of metres,
    "yes" is not a boolean. (schemas.py's Float and Boolean fields accept them.)"""
    _live(match)
    answer = _refused(match, body, 400, "invalid")
    assert field in answer["fields"]


def test_400_nan_spot(match: MatchDriver) -> None:
    _live(match)
    data = '{"type": "violation", "kind": "ball_out_end", "team": "home", "spot": {"x": NaN, "y": 2}}'
    answer = _refused(match, None, 400, "invalid", data=data)
    assert "NaN is not a JSON number" in answer["fields"]["_schema"][0]  # strict JSON (D44): refused as it is read


def test_spots_outside_the_field_are_accepted_and_projected(match: MatchDriver) -> None:
    """API.md: a spot may lie outside the field (a ball out); the engine projects it."""
    _live(match)
    s = match.post({"type": "violation", "kind": "ball_out_side", "team": "home", "player": 2, "spot": {"x": 55, "y": -7}})[
        "state"
    ]
    assert {k: s["restart"][k] for k in ("type", "team", "spot")} == {
        "type": "side_line",
        "team": "away",
        "spot": {"x": 40.0, "y": 0.0},
    }


# ----------------------------------------------------------------------------------------------
# The order of 400 and the two 409s


def test_400_before_409_conflict_for_a_schema_error(match: MatchDriver) -> None:
    match.kickoff()
    _refused(match, {"type": "goal", "team": "nobody", "expected_seq": 0}, 400, "invalid")


def test_400_before_409_conflict_for_an_unknown_player(match: MatchDriver) -> None:
    """API.md order: 400 (a shirt number not on the roster) comes before 409 conflict (stale expected_seq)."""
    _live(match)
    _refused(match, {"type": "goal", "team": "home", "player": 99, "expected_seq": 0}, 400, "invalid")


def test_400_before_409_conflict_for_a_reused_key_with_an_unknown_player(match: MatchDriver) -> None:
    """API.md order: a malformed body is 400 even when its idempotency key was used for another event."""
    _live(match)
    match.post({"type": "goal", "team": "home", "player": 1, "id": "k1"})
    _refused(match, {"type": "goal", "team": "home", "player": 99, "id": "k1"}, 400, "invalid")


def test_400_before_409_conflict_for_a_reused_key_with_a_bad_field(match: MatchDriver) -> None:
    _live(match)
    match.post({"type": "goal", "team": "home", "player": 1, "id": "k1"})
    _refused(match, {"type": "goal", "team": "home", "player": 1, "direct": "perhaps", "id": "k1"}, 400, "invalid")


def test_400_before_409_conflict_for_a_clock_set_past_the_half(match: MatchDriver) -> None:
    """elapsed_ms beyond the half's length is 400 (it names a time the half does not have), whatever expected_seq says."""
    match.kickoff()
    answer = _refused(match, {"type": "clock", "action": "set", "elapsed_ms": 31 * 60_000, "expected_seq": 0}, 400, "invalid")
    assert "elapsed_ms" in answer["fields"]


def test_400_before_409_conflict_for_a_violation_without_its_spot(match: MatchDriver) -> None:
    _live(match)
    answer = _refused(match, {"type": "violation", "kind": "ball_grounded", "team": "home", "expected_seq": 0}, 400, "invalid")
    assert "spot" in answer["fields"]


@pytest.mark.parametrize("kind", ["ball_out_side", "ball_out_end", "ball_grounded", "ball_in_area", "player_in_area", "caught"])
def test_400_before_409_rule_for_a_violation_without_its_spot(match: MatchDriver, kind: str) -> None:
    """Every violation but a restart violation needs its spot in any state: a missing spot is 400, before the
    rule check (here: the ball is dead, so the call itself would be 409 citing 8.1)."""
    match.kickoff()
    answer = _refused(match, {"type": "violation", "kind": kind, "team": "home"}, 400, "invalid")
    assert "spot" in answer["fields"]


def test_409_conflict_before_409_rule(match: MatchDriver) -> None:
    match.kickoff()
    # A goal while the kickoff is pending is against 7.1, but the stale expected_seq answers first.
    answer = _refused(match, {"type": "goal", "team": "home", "player": 1, "expected_seq": 1}, 409, "conflict")
    assert "rule" not in answer
    _refused(match, {"type": "goal", "team": "home", "player": 1, "expected_seq": 2}, 409, "rule")


# ----------------------------------------------------------------------------------------------
# 409 rule


def test_409_rule_names_the_rule(match: MatchDriver) -> None:
    answer = _refused(match, {"type": "period_start"}, 409, "rule")
    assert answer["rule"] == "5.1"
    match.kickoff()
    answer = _refused(match, {"type": "period_end"}, 409, "rule")
    assert answer["rule"] == "3.1"


# ----------------------------------------------------------------------------------------------
# Idempotency keys and expected_seq


def test_idempotency_same_key_same_body_answers_the_first_answer(match: MatchDriver, clock: FakeClock) -> None:
    match.kickoff()
    body = {"type": "restart_taken", "team": "home", "player": 3, "id": "tablet-1-0001"}
    first = match.post(body)
    assert first["_status"] == 201
    log = match.events()
    clock.advance(7_000)
    again = match.post(body, expect=200)
    assert {k: v for k, v in again.items() if k != "_status"} == {k: v for k, v in first.items() if k != "_status"}
    assert match.events() == log, "a repeated key stores nothing"
    assert match.state()["seq"] == first["seq"]


def test_idempotency_repeat_answers_200_after_the_event_became_illegal(match: MatchDriver) -> None:
    """API.md: the repeat answers 200 at the conflict step, even if the event would no longer be legal."""
    match.kickoff()
    body = {"type": "restart_taken", "team": "home", "player": 3, "id": "k-take"}
    first = match.post(body)
    match.post({"type": "goal", "team": "home", "player": 3})  # now away's kickoff is pending
    log = match.events()
    again = match.post(body, expect=200)
    assert again["seq"] == first["seq"] and again["state"] == first["state"]
    assert match.events() == log
    # Without the key the same event is refused now.
    match.refused({"type": "restart_taken", "team": "home", "player": 3}, "5.2")


def test_idempotency_same_key_different_body_is_409_conflict(match: MatchDriver) -> None:
    match.kickoff()
    match.post({"type": "restart_taken", "team": "home", "player": 3, "id": "k"})
    answer = _refused(match, {"type": "restart_taken", "team": "home", "player": 4, "id": "k"}, 409, "conflict")
    assert "rule" not in answer
    # The same key for a different event type conflicts too (another role has keys of its own: D46,
    # tests/test_security.py).
    _refused(match, {"type": "coin_toss", "kickoff": "home", "home_end": "x0", "id": "k"}, 409, "conflict")


def test_idempotency_key_order_of_fields_does_not_matter(match: MatchDriver) -> None:
    match.kickoff()
    first = match.post({"type": "restart_taken", "team": "home", "player": 3, "id": "k"})
    log = match.events()
    again = match.post({"id": "k", "player": 3, "team": "home", "type": "restart_taken"}, expect=200)
    assert again["seq"] == first["seq"]
    assert match.events() == log


def test_idempotency_keys_are_per_match(client: FlaskClient, clock: FakeClock) -> None:
    a, b = MatchDriver(client, clock), MatchDriver(client, clock)
    body = {"type": "coin_toss", "kickoff": "home", "home_end": "x0", "id": "same-key"}
    assert a.post(body)["_status"] == 201
    assert b.post(body)["_status"] == 201
    assert b.events()[0]["id"] == "same-key"


def test_idempotency_key_of_a_refused_event_is_not_used_up(match: MatchDriver) -> None:
    match.kickoff()
    body = {"type": "goal", "team": "home", "player": 1, "id": "g1"}
    _refused(match, body, 409, "rule")
    match.take()
    assert match.post(body)["_status"] == 201


def test_expected_seq_current_is_accepted_stale_is_409_conflict(match: MatchDriver) -> None:
    r = match.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0", "expected_seq": 0})
    assert r["seq"] == 1
    answer = _refused(match, {"type": "period_start", "expected_seq": 0}, 409, "conflict")
    assert answer.get("seq", 1) == 1
    _refused(match, {"type": "period_start", "expected_seq": 5}, 409, "conflict")
    assert match.post({"type": "period_start", "expected_seq": 1})["seq"] == 2


def test_expected_seq_with_a_repeated_key_answers_the_first_answer(match: MatchDriver) -> None:
    """The repeat is answered at the conflict step, before expected_seq is compared with the new seq."""
    body = {"type": "coin_toss", "kickoff": "home", "home_end": "x0", "expected_seq": 0, "id": "toss"}
    first = match.post(body)
    again = match.post(body, expect=200)
    assert again["seq"] == first["seq"] == 1


# ----------------------------------------------------------------------------------------------
# The event log


def test_event_log_shape(match: MatchDriver, clock: FakeClock) -> None:
    match.post({"type": "coin_toss", "kickoff": "away", "home_end": "xL"})
    match.post({"type": "period_start"})
    clock.advance(12_345)
    match.post({"type": "restart_taken", "team": "away", "player": 2, "id": "abc"})
    clock.advance(3_000)
    match.post({"type": "goal", "team": "away", "player": 2, "at_ms": 14_000}, role="assistant2")  # logged 1.3 s late (M1)
    log = match.events()
    assert [e["seq"] for e in log] == [1, 2, 3, 4]
    assert [e["type"] for e in log] == ["coin_toss", "period_start", "restart_taken", "goal"]
    meta = {"seq", "type", "by", "at_ms", "received_at", "voided_by"}
    for e in log:
        assert meta <= set(e), e
        assert e["voided_by"] is None
        datetime.fromisoformat(e["received_at"])
    assert log[0]["kickoff"] == "away" and log[0]["home_end"] == "xL" and log[0]["by"] == "referee"
    assert log[0]["at_ms"] is None  # before the match no game clock runs
    assert log[2]["team"] == "away" and log[2]["player"] == 2 and log[2]["at_ms"] == 12_345
    assert log[2]["id"] == "abc"
    assert log[3]["by"] == "assistant2" and log[3]["at_ms"] == 14_000 and log[3]["direct"] is False
    t0 = datetime.fromisoformat(log[1]["received_at"])
    t2 = datetime.fromisoformat(log[2]["received_at"])
    assert (t2 - t0).total_seconds() == pytest.approx(12.345)
    # The envelope is not part of an event's fields.
    assert "expected_seq" not in log[2]


def test_event_log_is_public(match: MatchDriver) -> None:
    match.kickoff()
    r = match.client.get(f"/api/matches/{match.id}/events")
    assert r.status_code == 200 and len(r.get_json()) == 2


# ----------------------------------------------------------------------------------------------
# Void


@pytest.mark.parametrize("role", ["assistant1", "assistant2", "scorer"])
def test_4_2_only_the_main_referee_voids(match: MatchDriver, role: str) -> None:
    _live(match)
    match.post({"type": "goal", "team": "home", "player": 1}, role="assistant1")
    _refused(match, {"type": "void", "target": 4}, 403, "forbidden", role)


def test_4_2_void_marks_voided_by_and_replays(match: MatchDriver) -> None:
    _live(match)
    goal = match.post({"type": "goal", "team": "home", "player": 1}, role="assistant1")
    assert goal["state"]["score"] == {"home": 1, "away": 0}
    s = match.post({"type": "void", "target": goal["seq"], "reason": "attacker in the area (7.2 note)"})
    assert s["seq"] == goal["seq"] + 1
    assert s["state"]["score"] == {"home": 0, "away": 0}
    assert s["state"]["ball"] == "live" and s["state"]["restart"] is None
    log = match.events()
    assert log[goal["seq"] - 1]["voided_by"] == s["seq"]
    assert log[-1]["type"] == "void" and log[-1]["target"] == goal["seq"] and log[-1]["voided_by"] is None
    assert log[-1]["reason"].startswith("attacker")
    assert match.state() == s["state"]


def test_d8_void_that_would_make_a_later_event_illegal_is_refused_naming_it(match: MatchDriver) -> None:
    match.kickoff()  # 1 coin_toss, 2 period_start
    match.take()  # 3 restart_taken
    match.post({"type": "goal", "team": "home", "player": 1})  # 4 goal: legal only with the ball live
    answer = _refused(match, {"type": "void", "target": 3}, 409, "rule")
    assert "event 4" in answer["message"], answer["message"]
    assert "goal" in answer["message"]
    assert "rule 7.1" in answer["message"]  # the rule the later event would break
    assert answer["rule"] == "D8" and answer["first_refused"] == 4  # API.md "Match day"


def test_d8_void_of_a_void_and_double_void_are_refused(match: MatchDriver) -> None:
    _live(match)
    match.post({"type": "goal", "team": "home", "player": 1})  # 4
    match.post({"type": "void", "target": 4})  # 5
    # SPEC D8: a void is not voided, and an event is voided once (rules/corrections.py).
    assert _refused(match, {"type": "void", "target": 5}, 409, "rule")["rule"] == "D8"
    assert _refused(match, {"type": "void", "target": 4}, 409, "rule")["rule"] == "D8"


def test_void_of_the_coin_toss_before_the_match(match: MatchDriver) -> None:
    match.post({"type": "coin_toss", "kickoff": "home", "home_end": "x0"})
    s = match.post({"type": "void", "target": 1})["state"]
    assert s["kickoff_team"] is None and s["ends"] is None
    match.post({"type": "coin_toss", "kickoff": "away", "home_end": "xL"})
    assert match.post({"type": "period_start"})["state"]["restart"]["team"] == "away"


# ----------------------------------------------------------------------------------------------
# Match creation


def test_create_requires_the_organiser_token(client: FlaskClient, match: MatchDriver) -> None:
    before = client.get("/api/matches").get_json()
    _error(_create(client, demo_request(), token=None), 401, "unauthorized")
    _error(_create(client, demo_request(), token="guess"), 401, "unauthorized")
    assert client.get("/api/matches").get_json() == before


def test_create_answers_201_with_id_and_tokens(client: FlaskClient) -> None:
    r = _create(client, demo_request())
    assert r.status_code == 201
    body = r.get_json()
    assert len(set(body["tokens"].values())) == 4, "each role has its own token"
    s = client.get(f"/api/matches/{body['id']}").get_json()
    assert s["id"] == body["id"] and s["seq"] == 0 and s["phase"] == "scheduled"
    assert s["score"] == {"home": 0, "away": 0} and s["winner"] is None and s["restart"] is None
    assert s["teams"]["home"]["on_field"] == [1, 2, 3, 4, 5, 6]
    assert s["teams"]["home"]["bench"] == [7, 8, 9, 10]


def test_create_the_same_match_twice_never_409(client: FlaskClient) -> None:
    a, b = _created(client, demo_request()), _created(client, demo_request())
    assert a != b


@pytest.mark.parametrize("data", ["{nope", "", "[]", "null", "42"])
def test_create_400_bad_json(client: FlaskClient, data: str) -> None:
    before = client.get("/api/matches").get_json()
    r = client.post("/api/matches", data=data, content_type="application/json", headers=auth(ADMIN))
    _error(r, 400, "invalid")
    assert client.get("/api/matches").get_json() == before


def test_create_400_shirt_numbers_unique(client: FlaskClient) -> None:
    body = demo_request()
    body["home"]["players"][7]["number"] = 3
    answer = _invalid_creation(client, body)
    assert "home" in answer["fields"]


def test_create_shirt_numbers_may_repeat_across_teams(client: FlaskClient) -> None:
    _created(client, demo_request())  # both demo teams wear 1–10


@pytest.mark.parametrize("n", [3, 9, 0, -1])
def test_d10_create_400_starters_out_of_range(client: FlaskClient, n: int) -> None:
    players = list(range(1, 13))
    body = {"home": _team(players, players[: max(n, 0)]), "away": _team(players, players[: max(n, 0)]), "starters": n}
    answer = _invalid_creation(client, body)
    assert "starters" in answer["fields"]


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_d10_create_4_to_8_starters(client: FlaskClient, n: int) -> None:
    players = list(range(1, 11))
    match_id = _created(client, {"home": _team(players, players[:n]), "away": _team(players, players[-n:]), "starters": n})
    s = client.get(f"/api/matches/{match_id}").get_json()
    assert s["teams"]["away"]["on_field"] == players[-n:]


@pytest.mark.parametrize("starting", [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 5], [1, 2, 3, 4, 5, 99]])
def test_create_400_exactly_starters_in_each_starting(client: FlaskClient, starting: list[int]) -> None:
    body = demo_request()
    body["away"]["starting"] = starting
    answer = _invalid_creation(client, body)
    assert any("away" in k for k in answer["fields"]), answer


@pytest.mark.parametrize(
    "field",
    [
        {"length": 29.9, "width": 20},
        {"length": 60.5, "width": 25},
        {"length": 40, "width": 19.9},
        {"length": 40, "width": 40},  # with side lines the length must exceed the width
        {"length": 40, "width": 45},
        {"length": 40, "width": 45, "side_lines": True},
        {"length": "forty", "width": 25},
        {"length": 40, "width": 25, "side_lines": "perhaps"},
        {"length": 40, "width": 25, "goals": 2},
    ],
)
def test_2_1_create_400_field_size(client: FlaskClient, field: dict[str, Any]) -> None:
    body = {**demo_request(), "field": field}
    answer = _invalid_creation(client, body)
    assert "field" in answer["fields"], answer


@pytest.mark.parametrize("field", [{"length": "40"}, {"width": "25"}, {"side_lines": "no"}, {"side_lines": 0}])
def test_2_1_create_400_field_values_of_the_wrong_type(client: FlaskClient, field: dict[str, Any]) -> None:
    """A length sent as a string or side_lines as "no" is the wrong JSON type: 400 (schemas.py accepts them)."""
    answer = _invalid_creation(client, {**demo_request(), "field": field})
    assert "field" in answer["fields"], answer


@pytest.mark.parametrize(
    ("field", "shown"),
    [
        ({"length": 30, "width": 20}, {"length": 30, "width": 20, "side_lines": True}),
        ({"length": 60, "width": 59.5}, {"length": 60, "width": 59.5, "side_lines": True}),
        ({"length": 40, "width": 45, "side_lines": False}, {"length": 40, "width": 45, "side_lines": False}),
        ({"length": 40, "width": 40, "side_lines": False}, {"length": 40, "width": 40, "side_lines": False}),
        ({"length": 50}, {"length": 50, "width": 25, "side_lines": True}),
        ({"side_lines": False}, {"length": 40, "width": 25, "side_lines": False}),
        ({}, {"length": 40, "width": 25, "side_lines": True}),
    ],
)
def test_2_1_create_field_sizes_and_defaults_key_by_key(
    client: FlaskClient, field: dict[str, Any], shown: dict[str, Any]
) -> None:
    match_id = _created(client, {**demo_request(), "field": field})
    assert client.get(f"/api/matches/{match_id}").get_json()["field"] == shown


def test_create_defaults(client: FlaskClient, clock: FakeClock) -> None:
    body = demo_request()
    del body["field"], body["venue"], body["home"]["color"], body["away"]["color"]
    driver = MatchDriver(client, clock, body)
    s = driver.state()
    assert s["field"] == {"length": 40, "width": 25, "side_lines": True}
    assert s["clock"]["length_ms"] == 30 * 60_000
    assert s["teams"]["home"]["color"] and s["teams"]["away"]["color"]
    assert s["teams"]["home"]["multi_attack"] == {"team": None, "players": {}}


def test_create_partial_rules_take_defaults_key_by_key(client: FlaskClient, clock: FakeClock) -> None:
    """API.md: "rules": {"shootout_rounds": 2} keeps every other rule at its default."""
    driver = MatchDriver(client, clock, {**demo_request(), "rules": {"shootout_rounds": 2}})
    s = driver.kickoff()
    assert s["clock"]["length_ms"] == 30 * 60_000  # half_minutes default
    assert s["teams"]["home"]["multi_attack"]["team"] is None  # multi_attack default: off
    driver.run_out_half()
    assert driver.state()["clock"]["length_ms"] == 10 * 60_000  # halftime_minutes default

    driver = MatchDriver(client, clock, {**demo_request(), "rules": {"half_minutes": 20}})
    assert driver.kickoff()["clock"]["length_ms"] == 20 * 60_000
    assert driver.run_out_half()["clock"]["length_ms"] == 10 * 60_000


def test_create_partial_multi_attack_takes_defaults_key_by_key(client: FlaskClient, clock: FakeClock) -> None:
    driver = MatchDriver(client, clock, {**demo_request(), "rules": {"multi_attack": {"mode": "teams", "teams": ["home"]}}})
    s = driver.kickoff("home")
    assert s["teams"]["home"]["multi_attack"]["team"] == 2  # k defaults to 2
    assert driver.state()["clock"]["length_ms"] == 30 * 60_000
    driver = MatchDriver(
        client, clock, {**demo_request(), "rules": {"multi_attack": {"mode": "players", "players": {"away": [4]}}}}
    )
    s = driver.state()
    assert s["teams"]["away"]["multi_attack"]["players"] == {"4": 2}
    assert s["teams"]["home"]["multi_attack"]["players"] == {}


def test_create_shootout_rounds_partial(client: FlaskClient, clock: FakeClock) -> None:
    """shootout_rounds given alone: one scheduled round decides a 1-0 shootout after its 4 kicks."""
    driver = MatchDriver(client, clock, {**demo_request(), "rules": {"shootout_rounds": 1, "half_minutes": 1}})
    driver.kickoff()
    driver.run_out_half()
    driver.post({"type": "period_start"})
    assert driver.run_out_half()["phase"] == "shootout"
    driver.post({"type": "shootout_start", "first": "home", "takers": {"home": [1, 2, 3, 4], "away": [1, 2, 3, 4]}})
    for team, scored in (("home", True), ("away", False), ("home", False), ("away", False)):
        s = driver.post({"type": "shootout_kick", "team": team, "scored": scored})["state"]
    assert s["phase"] == "finished" and s["winner"] == "home"


@pytest.mark.parametrize(
    "multi_attack",
    [
        {"mode": "teams", "teams": ["home"], "k": 1},
        {"mode": "teams", "teams": ["home"], "k": 0},
        {"mode": "teams", "teams": ["visitors"]},
        {"mode": "teams", "teams": []},
        {"mode": "players", "players": {"home": [99]}},
        {"mode": "players", "players": {"visitors": [1]}},
        {"mode": "players", "players": {}},
        {"mode": "sometimes"},
        {"mode": "teams", "teams": ["home"], "k": "2"},
        {"mode": "off", "extra": True},
    ],
)
def test_13_create_400_multi_attack(client: FlaskClient, multi_attack: dict[str, Any]) -> None:
    answer = _invalid_creation(client, {**demo_request(), "rules": {"multi_attack": multi_attack}})
    assert "rules" in answer["fields"] or any(k.startswith("rules") for k in answer["fields"]), answer


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b.pop("home"),
        lambda b: b.pop("starters"),
        lambda b: b["home"].pop("players"),
        lambda b: b["home"].pop("name"),
        lambda b: b["home"].update(name=""),
        lambda b: b["home"].update(color="red"),
        lambda b: b["home"].update(players=[]),
        lambda b: b["home"]["players"][0].update(number="1"),
        lambda b: b["home"]["players"][0].update(number=-1),
        lambda b: b["home"]["players"][0].pop("name"),
        lambda b: b.update(starters="6"),
        lambda b: b.update(starts_at="tomorrow"),
        lambda b: b.update(rules={"half_minutes": 0}),
        lambda b: b.update(rules={"shootout_rounds": 0}),
        lambda b: b.update(rules={"overtime": True}),
        lambda b: b.update(referee="Ma Long"),
    ],
)
def test_create_400_never_409(client: FlaskClient, change: Any) -> None:
    body = copy.deepcopy(demo_request())
    change(body)
    _invalid_creation(client, body)


def test_create_stores_chinese_names(client: FlaskClient) -> None:
    match_id = _created(client, demo_request())
    s = client.get(f"/api/matches/{match_id}").get_json()
    assert s["teams"]["home"]["name"] == "人大 Renmin"


def test_7_2_return_countdown_only_while_the_kickoff_is_pending(client: FlaskClient, clock: FakeClock) -> None:
    """The 30 s return after a goal (7.2) counts down to the kickoff; once the half's time is up no kickoff is
    pending (10.2), so the public state shows no countdown either."""
    driver = MatchDriver(client, clock, {**demo_request(), "rules": {"half_minutes": 1}})
    driver.kickoff()
    driver.take()
    clock.advance(50_000)
    s = driver.post({"type": "goal", "team": "home", "player": 1})["state"]
    assert s["return_countdown_ms"] == 30_000
    clock.advance(15_000)
    s = driver.state()
    assert s["time_up"] and s["restart"] is None
    assert s["return_countdown_ms"] is None, s["return_countdown_ms"]


# ----------------------------------------------------------------------------------------------
# GET /api/matches


def test_list_matches(client: FlaskClient, clock: FakeClock) -> None:
    assert client.get("/api/matches").get_json() == []
    a = MatchDriver(client, clock)
    b = MatchDriver(client, clock, {**demo_request(), "venue": "Field 2"})
    b.kickoff()
    b.take()
    b.post({"type": "goal", "team": "home", "player": 2})
    listed = client.get("/api/matches").get_json()
    assert [m["id"] for m in listed] == [a.id, b.id]
    by_id = {m["id"]: m for m in listed}
    assert by_id[a.id]["phase"] == "scheduled" and by_id[a.id]["score"] == {"home": 0, "away": 0}
    assert by_id[b.id]["phase"] == "first_half" and by_id[b.id]["score"] == {"home": 1, "away": 0}
    assert by_id[b.id]["venue"] == "Field 2"
    assert by_id[b.id]["home"] == "人大 Renmin" and by_id[b.id]["away"] == "Tsinghua 清华"
    assert "tokens" not in by_id[a.id] and a.tokens["referee"] not in str(listed), "the list never shows tokens"


def test_public_state_never_shows_tokens(match: MatchDriver) -> None:
    match.kickoff()
    text = str(match.state()) + str(match.events())
    for token in match.tokens.values():
        assert token not in text


# ----------------------------------------------------------------------------------------------
# Errors change nothing, and are always JSON


def test_every_kind_of_error_changes_nothing(match: MatchDriver) -> None:
    _live(match)
    match.post({"type": "goal", "team": "home", "player": 1, "id": "g"})
    cases: list[tuple[Any, int, str, str | None]] = [
        ({"type": "period_start"}, 401, "unauthorized", None),
        ({"type": "foul", "team": "home", "spot": {"x": 1, "y": 1}}, 403, "forbidden", "scorer"),
        ({"type": "void", "target": 50}, 404, "not_found", "referee"),
        ({"type": "goal", "team": "home", "player": 77}, 400, "invalid", "referee"),
        ({"type": "goal", "team": "away", "player": 1, "id": "g"}, 409, "conflict", "referee"),
        ({"type": "goal", "team": "away", "player": 1, "expected_seq": 2}, 409, "conflict", "referee"),
        ({"type": "goal", "team": "away", "player": 1}, 409, "rule", "referee"),
    ]
    for body, status, error, role in cases:
        _refused(match, body, status, error, role)


def test_unknown_api_route_is_json_404(client: FlaskClient) -> None:
    """API.md: errors always have a JSON body with ``error`` and ``message`` (api.py maps 404 for this, but
    a path no route matches never reaches the blueprint's handler)."""
    r = client.get("/api/nothing-here")
    assert r.status_code == 404
    assert r.is_json, r.get_data(as_text=True)[:80]
    assert r.get_json()["error"] == "not_found"


def test_wrong_method_is_json(client: FlaskClient, match: MatchDriver) -> None:
    """api.py maps 405 to ``method_not_allowed``, but routing errors never reach the blueprint's handler."""
    r = client.delete(f"/api/matches/{match.id}")
    assert r.status_code == 405
    assert r.is_json, r.get_data(as_text=True)[:80]
    assert r.get_json()["error"] == "method_not_allowed"
