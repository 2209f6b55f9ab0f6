from tests.conftest import MatchDriver


def test_1_3_simple_match_through_the_api(match: MatchDriver) -> None:
    s = match.kickoff("home", "x0")
    assert s["phase"] == "first_half" and s["restart"]["type"] == "kickoff" and s["restart"]["team"] == "home"
    s = match.take()
    assert s["ball"] == "live"
    s = match.post({"type": "goal", "team": "home", "player": 1})["state"]
    assert s["score"] == {"home": 1, "away": 0}
    assert {k: s["restart"][k] for k in ("type", "team", "spot")} == {
        "type": "kickoff",
        "team": "away",
        "spot": {"x": 20.0, "y": 12.5},
    }
    s = match.run_out_half()
    assert s["phase"] == "halftime"
    s = match.post({"type": "period_start"})["state"]
    assert s["restart"]["team"] == "away" and s["ends"] == {"home": "xL", "away": "x0"}
    s = match.run_out_half()
    assert s["phase"] == "finished" and s["winner"] == "home"
