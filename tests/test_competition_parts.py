"""Issue 28 item 7: the competition service is a facade over parts, each owning its state (no mixins).

The parts are given what they share (the book of records with its lock, the view cache, the live updates'
``changed``) when the service is built; none reaches another's state but through its owner.
"""

from __future__ import annotations

from collections import deque

import pytest
from flask import Flask
from flask.testing import FlaskClient

from qalisball.competitions import (
    book,
    fixture_results,
    league_desk,
    player_records,
    protest_decisions,
    schedule_moves,
    teams_officials,
    views,
)
from qalisball.competitions.service import CompetitionService
from tests.test_competitions import Api, _fixture_of, _league, _six

PARTS = (
    book.CompetitionBook,
    views.ViewCache,
    views.CompetitionViews,
    views.LiveUpdates,
    player_records.PlayerRecords,
    teams_officials.TeamsAndOfficials,
    fixture_results.FixturesAndResults,
    protest_decisions.ProtestsAndDecisions,
    schedule_moves.ScheduleMoves,
    league_desk.LeagueDesk,  # what a league's central asks of its competitions (L4)
)


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


def test_issue28_item7_the_competition_service_is_a_facade_over_parts_not_a_diamond_of_mixins() -> None:
    assert CompetitionService.__mro__ == (CompetitionService, object), CompetitionService.__mro__
    for part in PARTS:
        assert part.__mro__ == (part, object), f"{part.__name__} inherits {part.__mro__[1:]}"


def test_issue28_item7_every_mutable_piece_of_the_service_has_one_owner(app: Flask, api: Api) -> None:
    """A dict, list or set held by two parts would be state set from several places: each has one owner."""
    ids, t = _six(api)
    comp = _league(api, ids[:4])["id"]
    made = api.match(comp, _fixture_of(api.view(comp), t["A"], t["B"])["id"])
    api.call("POST", f"/api/matches/{made['id']}/events", {"type": "coin_toss", "kickoff": "home", "home_end": "x0"}, 201,
             token=made["tokens"]["referee"])  # fmt: skip
    api.call("GET", f"/competitions/{comp}", expect=200)  # a cached part, a cached view, a report core
    api.call("GET", f"/api/competitions/{comp}/stats")
    svc = app.extensions["qalisball_competitions"]
    parts = list(vars(svc).values())
    assert all(isinstance(p, PARTS) for p in parts), "the facade keeps no state of its own, only its parts"
    assert {type(p) for p in parts} == set(PARTS), "one of each part"
    owners: dict[int, str] = {}
    for p in parts:
        for name, value in vars(p).items():
            if isinstance(value, dict | list | set | deque):
                held = f"{type(p).__name__}.{name}"
                assert id(value) not in owners, f"{held} is {owners.get(id(value))}: one piece of state, two owners"
                owners[id(value)] = held
    # The records, the caches and the live updates' state are each where one part keeps them.
    assert {"CompetitionBook.teams", "CompetitionBook.competitions", "ViewCache.views", "ViewCache.parts"} <= set(owners.values())
    assert {"LiveUpdates.listeners", "LiveUpdates.published", "PlayerRecords.reports"} <= set(owners.values())


def test_issue28_item7_D350_an_upheld_protests_result_on_a_forfeit_brings_the_team_back(api: Api) -> None:
    """C6's voiding is the one rule (``standings.voided_teams``): a forfeit a decided result replaced voids nothing."""
    ids, t = _six(api)
    comp = _league(api, ids[:3], forfeit={"voids_all_results": True})["id"]
    view = api.view(comp)
    ab = _fixture_of(view, t["A"], t["B"])
    api.play(api.match(comp, ab["id"]), goals=["home" if ab["home"] == t["A"] else "away"])
    ac = _fixture_of(view, t["A"], t["C"])
    api.call("POST", f"/api/competitions/{comp}/fixtures/{ac['id']}/forfeit", {"team": t["A"], "reason": "late"})
    assert [r["team"] for r in api.view(comp)["standings"]["all"]] == [t["B"], t["C"]], "A's forfeit voids A"
    pid = api.call(
        "POST", f"/api/competitions/{comp}/protests", {"fixture": ac["id"], "team": t["A"], "text": "the bus broke down"}, 201
    )["id"]
    score = {"home": 1, "away": 1, "winner": ac["home"], "shootout": {"home": 3, "away": 2}}
    decision = {"upheld": True, "text": "a replay was impossible: the level score stands", "result": score, "replay": False}
    api.call("POST", f"/api/competitions/{comp}/protests/{pid}/decision", decision)
    rows = {r["team"]: r for r in api.view(comp)["standings"]["all"]}
    assert set(rows) == {t["A"], t["B"], t["C"]}, "the decided result counts instead of the forfeit: A is back"
    assert rows[t["A"]]["played"] == 2 and rows[t["C"]]["played"] == 1
