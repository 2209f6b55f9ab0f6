"""SPEC §6 (multiple attack opportunities) and §7 (penalty shootout) against the rule engine (issues 5
and 10). How a match's multiple-attack rules are sent and validated at creation is tested in
tests/test_api.py; here they are the rule core's ``MultiAttackRules``.

Demo match, 40 × 25 m: home kicks off, defends x0 and attacks towards xL.
"""

from __future__ import annotations

from typing import Any

import pytest

from qalisball.rules.common import Team
from qalisball.rules.events import (
    Attack,
    Card,
    Foul,
    Goal,
    PeriodStart,
    ShootoutKick,
    ShootoutStart,
    ShotMissed,
    Steal,
    Violation,
)
from qalisball.rules.state import MultiAttackMode, MultiAttackRules
from tests.calls import live, restart
from tests.engine_driver import EngineMatch, demo_setup


@pytest.fixture
def match() -> EngineMatch:
    return EngineMatch()


def make(
    mode: MultiAttackMode, k: int, teams: tuple[Team, ...] = (), players: dict[Team, tuple[int, ...]] | None = None
) -> EngineMatch:
    players = players or {}
    multi = MultiAttackRules(mode, k, teams, tuple((t, players.get(t, ())) for t in ("home", "away")))
    return EngineMatch(demo_setup(multi_attack=multi))


def grounded(m: EngineMatch, team: Team, x: float = 20.0, y: float = 5.0, player: int | None = None) -> dict[str, Any]:
    return m.post(Violation("ball_grounded", team, player=player, spot=(x, y)))


@pytest.fixture
def teams_match() -> EngineMatch:
    return make("teams", k=2, teams=("home",))


def test_13_1_D17_teams_mode_first_error_restarts_the_attack_with_a_free_kick(teams_match: EngineMatch) -> None:
    s = live(teams_match, "home")
    assert s["teams"]["home"]["multi_attack"]["team"] == 2
    s = teams_match.post(Violation("ball_out_side", "home", spot=(22.0, 24.0)))
    # Forgiven: a free kick for home where the ball was last touched; one opportunity used.
    assert restart(s) == ("free_kick", "home", 22.0, 24.0) and s["possession"] == "home"
    assert s["teams"]["home"]["multi_attack"]["team"] == 1


def test_13_1_the_kth_error_gives_the_ball_away_as_usual(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    grounded(teams_match, "home", 20, 5)
    teams_match.take()
    s = grounded(teams_match, "home", 24, 6)
    assert restart(s) == ("free_kick", "away", 24.0, 6.0)
    assert s["teams"]["home"]["multi_attack"]["team"] is None  # only shown while home has the ball


def test_13_1_holding_team_only(teams_match: EngineMatch) -> None:
    live(teams_match, "away")
    s = grounded(teams_match, "away", 20, 5)
    assert restart(s) == ("free_kick", "home", 20.0, 5.0)
    assert s["teams"]["away"]["multi_attack"]["team"] is None


def test_13_1_free_kick_after_a_forgiven_error_obeys_the_3m_rule(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    s = teams_match.post(Violation("ball_in_area", "home", spot=(35.0, 12.5)))
    assert restart(s) == ("free_kick", "home", 33.5, 12.5)


def test_13_1_losing_the_ball_loses_the_opportunities_regaining_it_attacking_restores_them(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    grounded(teams_match, "home")
    teams_match.take()
    assert teams_match.state()["teams"]["home"]["multi_attack"]["team"] == 1
    teams_match.post(Steal("away", player=2))
    teams_match.post(Steal("home", player=2))
    s = teams_match.state()
    assert s["attacking"] is False
    # Not yet attacking after a steal: an error is not forgiven (13.1 note).
    s = grounded(teams_match, "home", 18, 5)
    assert restart(s)[1] == "away"
    teams_match.take()
    teams_match.post(Steal("home", player=3))
    s = teams_match.post(Attack("home"))
    assert s["teams"]["home"]["multi_attack"]["team"] == 2
    assert restart(grounded(teams_match, "home", 18, 5))[1] == "home"


def test_13_1_restart_violation_is_forgiven_with_a_retake(teams_match: EngineMatch) -> None:
    live(teams_match, "away")
    teams_match.post(Violation("ball_out_end", "away", spot=(-1.0, 3.0)))
    s = teams_match.post(Violation("restart", "home"))
    assert restart(s) == ("end_line", "home", 0.0, 8.0) and s["teams"]["home"]["multi_attack"]["team"] == 1


def test_13_1_attacking_foul_is_forgiven(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    s = teams_match.post(Foul("home", player=3, spot=(25.0, 10.0)))
    assert restart(s) == ("free_kick", "home", 25.0, 10.0)


def test_D7_entering_an_area_is_never_forgiven(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    s = teams_match.post(Violation("player_in_area", "home", player=3, spot=(38.0, 10.0)))
    assert restart(s) == ("end_line", "away", 40.0, 8.0)


def test_D7_a_foul_sent_with_a_red_card_is_never_forgiven(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    s = teams_match.post(Foul("home", player=3, spot=(25.0, 10.0), card="red"))
    assert restart(s) == ("free_kick", "away", 25.0, 10.0)


def test_13_1_missed_shot_with_a_spot_is_a_forgiven_error(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    s = teams_match.post(ShotMissed("home", player=2, spot=(28.0, 12.0)))
    assert restart(s) == ("free_kick", "home", 28.0, 12.0) and s["teams"]["home"]["multi_attack"]["team"] == 1
    teams_match.take()
    # With one opportunity left, the missed shot is statistics: play goes on (SPEC §6).
    s = teams_match.post(ShotMissed("home", player=2, spot=(28.0, 12.0)))
    assert s["ball"] == "live" and s["teams"]["home"]["multi_attack"]["team"] == 1


def test_13_1_missed_shot_without_a_spot_is_statistics(teams_match: EngineMatch) -> None:
    live(teams_match, "home")
    s = teams_match.post(ShotMissed("home", player=2))
    assert s["ball"] == "live" and s["teams"]["home"]["multi_attack"]["team"] == 2


def test_13_players_mode_each_designated_player_has_his_own_k() -> None:
    m = make("players", k=2, players={"home": (3, 4)})
    s = live(m, "home")
    assert s["teams"]["home"]["multi_attack"] == {"team": None, "players": {"3": 2, "4": 2}}
    s = grounded(m, "home", 20, 5, player=3)
    assert restart(s)[1] == "home" and s["teams"]["home"]["multi_attack"]["players"] == {"3": 1, "4": 2}
    m.take()
    s = grounded(m, "home", 20, 5, player=4)
    assert restart(s)[1] == "home" and s["teams"]["home"]["multi_attack"]["players"] == {"3": 1, "4": 1}
    m.take()
    s = grounded(m, "home", 20, 5, player=3)  # his K-th error
    assert restart(s)[1] == "away"


def test_13_players_mode_only_the_designated_player_himself() -> None:
    m = make("players", k=2, players={"home": (3,)})
    live(m, "home")
    assert restart(grounded(m, "home", 20, 5, player=5))[1] == "away"


def test_13_teams_mode_k3_gives_two_forgiven_errors() -> None:
    m = make("teams", k=3, teams=("home", "away"))
    live(m, "home")
    for left in (2, 1):
        s = grounded(m, "home")
        assert restart(s)[1] == "home" and s["teams"]["home"]["multi_attack"]["team"] == left
        m.take()
    assert restart(grounded(m, "home"))[1] == "away"
    assert m.state()["teams"]["away"]["multi_attack"]["team"] == 3


def test_13_2_trailing_mode_the_team_behind_when_it_gains_possession() -> None:
    m = make("trailing", k=2)
    s = live(m, "home")
    assert s["teams"]["home"]["multi_attack"]["team"] is None  # level: nobody is behind
    s = m.post(Goal("home", player=1))
    assert s["teams"]["away"]["multi_attack"]["team"] == 2  # away is behind and kicks off
    m.take()
    assert restart(grounded(m, "away"))[1] == "away"


def test_13_counts_are_shown_only_while_the_team_has_the_ball(teams_match: EngineMatch) -> None:
    s = live(teams_match, "away")
    assert s["teams"]["home"]["multi_attack"] == {"team": None, "players": {}}


# -- §7 Penalty shootout ------------------------------------------------------------------------


def level_match(m: EngineMatch) -> None:
    m.kickoff("home")
    m.run_out_half()
    m.post(PeriodStart())
    m.run_out_half()


def start(first: Team, home: tuple[int, ...] = (1, 2, 3, 4), away: tuple[int, ...] = (5, 6, 7, 8)) -> ShootoutStart:
    return ShootoutStart(first, (("home", home), ("away", away)))


def test_12_2_shootout_start_records_the_toss_and_takers(match: EngineMatch) -> None:
    level_match(match)
    s = match.post(start("away"))
    assert s["shootout"]["next"] == {"team": "away", "points": 1, "player": 5}
    assert s["shootout"]["score"] == {"home": 0, "away": 0} and s["shootout"]["round"] == 1


def test_12_1_shootout_only_after_a_level_second_half(match: EngineMatch) -> None:
    match.kickoff()
    match.refused(start("home"), "12.1")


def test_12_2_takers_distinct_and_D5_not_sent_off(match: EngineMatch) -> None:
    level_match(match)
    match.refused(start("home", home=(1, 1, 2, 3)), "12.2")
    # Two takers instead of four: the API answers 400 (test_api's BAD_FIELDS); the engine refuses too.
    match.refused(start("home", home=(1, 3)), "12.2")
    match.post(Card("home", 2, "red"))
    match.refused(start("home"), "D5")


def test_12_2_order_and_early_end_in_a_match(match: EngineMatch) -> None:
    level_match(match)
    match.post(start("home"))
    match.refused(ShootoutKick("away", True), "12.2")
    # Two rounds: home scores everything, away nothing → 6–0; away could still make 3 + 3 = 6 (level).
    for _ in range(2):
        for team, scored in (("home", True), ("away", False), ("home", True), ("away", False)):
            s = match.post(ShootoutKick(team, scored))  # type: ignore[arg-type]
    assert s["phase"] == "shootout" and s["shootout"]["next"] == {"team": "home", "points": 1, "player": 3}
    # Home's 1-point shot of round 3 → 7–0: away's best, 0 + 6, is below 7: decided at once.
    s = match.post(ShootoutKick("home", True))
    assert s["phase"] == "finished" and s["winner"] == "home"
    assert s["score"] == {"home": 0, "away": 0} and s["shootout"]["score"] == {"home": 7, "away": 0}
    assert s["shootout"]["round"] == 3
    assert s["shootout"]["next"] is None
    match.refused(ShootoutKick("home", True), "12.2")


def test_12_2_extra_rounds_rotate_the_takers(match: EngineMatch) -> None:
    level_match(match)
    match.post(start("home"))
    for _ in range(5 * 4):  # five level rounds: everybody misses
        s = match.state()["shootout"]["next"]
        match.post(ShootoutKick(s["team"], False))
    s = match.state()["shootout"]
    assert s["round"] == 6 and s["next"] == {"team": "home", "points": 1, "player": 2}


def test_D5_D14_a_taker_sent_off_during_the_shootout_has_his_kick_recorded_as_missed(match: EngineMatch) -> None:
    level_match(match)
    match.post(start("home"))
    match.post(Card("home", 1, "red"))
    match.refused(ShootoutKick("home", True), "D5")
    s = match.post(ShootoutKick("home", False))
    assert s["shootout"]["kicks"][0]["scored"] is False


def test_13_1_note_4_ball_over_the_opponents_end_line_shows_the_team_was_attacking(teams_match: EngineMatch) -> None:
    live(teams_match, "away")
    teams_match.post(Steal("home", player=2))  # home has it, not yet attacking
    s = teams_match.post(Violation("ball_out_end", "home", spot=(30.0, 20.0)))
    # Forgiven: a free kick for home where the ball was last touched, one opportunity used.
    assert restart(s) == ("free_kick", "home", 30.0, 20.0) and s["teams"]["home"]["multi_attack"]["team"] == 1


# -- Story tests the decisions promised (docs/decisions.toml; issue 21 found them missing) ---------------


def test_D19_a_foul_on_an_official_is_never_forgiven(teams_match: EngineMatch) -> None:
    """D19: a foul on an official is not part of play: multiple attack opportunities never forgive it."""
    live(teams_match, "home")
    s = teams_match.post(Foul("home", player=3, spot=(25.0, 10.0), on_official=True))
    assert restart(s) == ("free_kick", "away", 25.0, 10.0)
    assert s["teams"]["home"]["multi_attack"]["team"] is None  # nothing used: the error was not forgiven
    # The same foul on a player is forgiven (test_13_1_attacking_foul_is_forgiven): the difference is the official.
    again = make("teams", k=2, teams=("home",))
    live(again, "home")
    s = again.post(Foul("home", player=3, spot=(25.0, 10.0)))
    assert restart(s) == ("free_kick", "home", 25.0, 10.0)


def test_D31_the_ball_over_the_opponents_end_line_or_into_their_area_is_an_attack_forgiven() -> None:
    """D31: 13.1's attacking state is inferred when the team with the ball sends it over the opponents' end
    line or into their area, so a holder of opportunities is forgiven that error (home attacks towards xL)."""
    m = make("teams", k=3, teams=("home",))
    live(m, "home")
    s = m.post(Violation("ball_out_end", "home", spot=(39.0, 20.0)))
    assert restart(s)[:2] == ("free_kick", "home") and s["teams"]["home"]["multi_attack"]["team"] == 2
    m.take()
    s = m.post(Violation("ball_in_area", "home", spot=(38.5, 12.5)))
    assert restart(s)[:2] == ("free_kick", "home") and s["teams"]["home"]["multi_attack"]["team"] == 1
