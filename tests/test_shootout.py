"""Penalty shootout (rule book chapter 12; SPEC section 7; decision D5).

The exhaustive tests compare the state machine with an independent brute-force oracle: for a prefix
of kicks it enumerates every way the remaining kicks could go (of the scheduled rounds, or of the
current extra round) and calls the shootout decided iff every completion ends with the same team
strictly ahead. The oracle knows only the kick order of rule 12.2, written out below as a table; it
calls nothing in ``qalisball.rules.shootout``.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qalisball.rules.common import Team
from qalisball.rules.errors import RuleViolation
from qalisball.rules.shootout import Kick, NextKick, Shootout, kick, start

HOME_TAKERS = (9, 7, 5, 3)
AWAY_TAKERS = (11, 8, 6, 4)
TAKERS: dict[Team, tuple[int, ...]] = {"home": HOME_TAKERS, "away": AWAY_TAKERS}

Side = Literal["first", "second"]

# Rule 12.2, one round: first team 1 point, second team 1 point, first team 2, second team 2.
ROUND_ORDER: tuple[tuple[Side, int], ...] = (
    ("first", 1),
    ("second", 1),
    ("first", 2),
    ("second", 2),
)


def other(team: Team) -> Team:
    return "away" if team == "home" else "home"


def team_of(side: Side, first: Team) -> Team:
    return first if side == "first" else other(first)


def play(shootout: Shootout, outcomes: str) -> Shootout:
    """Feed kicks in rule 12.2 order; ``outcomes`` is a string of 'x' (scored) and '.' (missed)."""
    for ch in outcomes:
        due = shootout.next_kick()
        assert due is not None, "tried to kick after the shootout was decided"
        shootout = kick(shootout, due.team, ch == "x")
    return shootout


# ---------------------------------------------------------------------------------------------
# The oracle
# ---------------------------------------------------------------------------------------------


@cache
def finals(index: int, end: int, first_score: int, second_score: int) -> frozenset[tuple[int, int]]:
    """Every possible (first, second) final score when kicks ``index``..``end - 1`` are still to go."""
    if index == end:
        return frozenset({(first_score, second_score)})
    side, points = ROUND_ORDER[index % 4]
    if side == "first":
        return finals(index + 1, end, first_score + points, second_score) | finals(index + 1, end, first_score, second_score)
    return finals(index + 1, end, first_score, second_score + points) | finals(index + 1, end, first_score, second_score)


@cache
def oracle(taken: int, rounds: int, first_score: int, second_score: int) -> Side | None:
    """After ``taken`` kicks: the side that wins however the rest goes, or None if not yet certain.

    The rest is every remaining kick of the scheduled rounds while inside them, else every remaining
    kick of the current extra round (rule 12.2: extra rounds are played one at a time).
    """
    scheduled = 4 * rounds
    end = scheduled if taken <= scheduled else 4 * -(-taken // 4)
    outcomes = {(f > s) - (f < s) for f, s in finals(taken, end, first_score, second_score)}
    if outcomes == {1}:
        return "first"
    if outcomes == {-1}:
        return "second"
    return None


def test_oracle_sanity() -> None:
    # Nothing decided before a kick; 7-0 in the third round of four is decided (away can make 6).
    assert oracle(0, 4, 0, 0) is None
    assert oracle(9, 4, 7, 0) == "first"
    assert oracle(8, 4, 6, 0) is None
    # A completed round that is not level is decided; a level one is not.
    assert oracle(4, 1, 1, 0) == "first"
    assert oracle(4, 1, 3, 3) is None


# ---------------------------------------------------------------------------------------------
# Story tests
# ---------------------------------------------------------------------------------------------


def test_12_2_order_first_team_one_point_then_second_then_two_points() -> None:
    so = start("away", TAKERS)
    seen: list[NextKick] = []
    for _ in range(8):
        due = so.next_kick()
        assert due is not None
        seen.append(due)
        so = kick(so, due.team, False)
    assert seen == [
        NextKick(1, "away", 1, 11),
        NextKick(1, "home", 1, 9),
        NextKick(1, "away", 2, 11),
        NextKick(1, "home", 2, 9),
        NextKick(2, "away", 1, 8),
        NextKick(2, "home", 1, 7),
        NextKick(2, "away", 2, 8),
        NextKick(2, "home", 2, 7),
    ]
    assert [(k.round, k.team, k.points, k.player, k.scored) for k in so.kicks[:4]] == [
        (1, "away", 1, 11, False),
        (1, "home", 1, 9, False),
        (1, "away", 2, 11, False),
        (1, "home", 2, 9, False),
    ]


def test_12_1_score_counts_points_of_scored_kicks() -> None:
    so = play(start("home", TAKERS), "x.xx")  # home 1 + 2, away 0 + 2
    assert so.score == {"home": 3, "away": 2}
    assert not so.decided
    assert so.current_round == 2


def test_12_2_early_end_when_trailing_cannot_catch_up() -> None:
    so = start("home", TAKERS)
    # Home scores everything, away misses everything. After two rounds: 6-0 and away has rounds 3
    # and 4 left, worth 6: it could still draw level, so it goes on.
    so = play(so, "x.x." * 2)
    assert so.score == {"home": 6, "away": 0}
    assert not so.decided
    # Home's 1-pointer in round 3 makes it 7-0; away's best is 6. Over, with home's shots unused.
    so = play(so, "x")
    assert so.decided
    assert so.winner == "home"
    assert so.next_kick() is None
    assert so.current_round == 3
    assert len(so.kicks) == 9


def test_12_2_trailing_team_that_can_still_draw_level_plays_on() -> None:
    # Rule 12.2 ends it when the trailing team's best is *below* the other's score, not equal.
    so = play(start("home", TAKERS, rounds=1), "x.x")  # home 3, away 0 with its 2-pointer left
    assert so.score == {"home": 3, "away": 0}
    assert so.decided  # 0 + 2 < 3
    so = play(start("home", TAKERS, rounds=1), "x..")  # home 1, away 0 + 2 left
    assert not so.decided
    so = play(start("home", TAKERS, rounds=1), "..x")  # home 2, away 0 + 2 left: could draw
    assert not so.decided


def test_12_2_second_team_wins_without_its_last_shot() -> None:
    # One round: home misses, away scores its 1-pointer, home misses its 2-pointer. Home has no shot
    # left and trails 0-1: away wins 1-0 without taking its 2-pointer.
    so = play(start("home", TAKERS, rounds=1), ".x.")
    assert so.winner == "away"
    assert so.score == {"home": 0, "away": 1}
    assert so.next_kick() is None
    assert so.current_round == 1


def test_12_2_leader_own_remaining_shots_do_not_matter() -> None:
    # Round 4 of 4: away (second) leads 4-3 after home's 2-pointer misses; home has nothing left.
    so = play(start("home", TAKERS), "xxxx" + "...." * 2 + ".x")
    assert so.score == {"home": 3, "away": 4}
    assert not so.decided  # home still has its 2-pointer in round 4
    so = play(so, ".")
    assert so.winner == "away"
    assert len(so.kicks) == 15


def test_12_1_level_after_scheduled_rounds_goes_to_extra_round() -> None:
    so = play(start("home", TAKERS), "xxxx" * 4)
    assert so.score == {"home": 12, "away": 12}
    assert not so.decided
    assert so.next_kick() == NextKick(5, "home", 1, 9)
    assert so.current_round == 5


def test_12_2_extra_round_that_ends_untied_decides() -> None:
    so = play(start("home", TAKERS), "...." * 4)
    so = play(so, "x..x")  # round 5: home 1, away 2
    assert so.winner == "away"
    assert so.current_round == 5


@pytest.mark.parametrize(
    ("outcomes", "winner", "kicks"),
    [
        (
            "x.x",
            "first",
            3,
        ),  # first leads 3-0 in the round; second's 2-pointer cannot help
        (
            ".x.",
            "second",
            3,
        ),  # second leads 1-0 and first has no shot left in the round
        ("x..x", "second", 4),
        (".xx.", "first", 4),
        ("xxx.", "first", 4),
        ("xx.x", "second", 4),
        ("x...", "first", 4),
        ("...x", "second", 4),
    ],
)
def test_12_2_early_end_inside_an_extra_round(outcomes: str, winner: Side, kicks: int) -> None:
    base = play(start("away", TAKERS, rounds=2), "xxxx" + "....")
    assert not base.decided
    so = play(base, outcomes)
    assert so.winner == team_of(winner, "away")
    assert len(so.kicks) - len(base.kicks) == kicks
    assert so.current_round == 3


@pytest.mark.parametrize("extra_before", [0, 1, 5])
def test_12_2_extra_round_early_end_matches_oracle_restricted_to_the_round(
    extra_before: int,
) -> None:
    """All 16 outcome patterns of an extra round, against the oracle limited to that round."""
    rounds = 2
    base = play(start("home", TAKERS, rounds=rounds), "x.x." + ".x.x" + "..xx" * extra_before)
    assert base.score["home"] == base.score["away"]
    assert not base.decided
    start_index = len(base.kicks)
    ends: dict[str, tuple[int, Side]] = {}
    for pattern in range(16):
        outcomes = "".join("x" if pattern >> (3 - i) & 1 else "." for i in range(4))
        so = base
        level = base.score["home"]
        f = s = level
        for i, ch in enumerate(outcomes):
            side, points = ROUND_ORDER[i]
            so = kick(so, team_of(side, "home"), ch == "x")
            if ch == "x":
                if side == "first":
                    f += points
                else:
                    s += points
            expected = oracle(start_index + i + 1, rounds, f, s)
            assert so.winner == (None if expected is None else team_of(expected, "home")), outcomes
            if expected is not None:
                ends[outcomes] = (i + 1, expected)
                break
        else:
            assert f == s
            next_round = rounds + extra_before + 2
            expected_taker = HOME_TAKERS[(next_round - 1) % 4]
            assert so.next_kick() == NextKick(next_round, "home", 1, expected_taker)
    # Exactly two patterns end after three kicks; the ten untied ones take four; four stay level.
    early = {o[:3]: v for o, v in ends.items() if v[0] == 3}
    assert early == {"x.x": (3, "first"), ".x.": (3, "second")}
    assert sum(1 for v in ends.values() if v[0] == 4) == 8
    assert len(ends) == 12


def test_12_2_extra_rounds_use_taker_of_round_r_minus_1_mod_4_plus_1() -> None:
    so = start("home", TAKERS)
    # Twelve level rounds (four scheduled, eight extra): every round 1-1 in 1-pointers.
    so = play(so, "xx.." * 12)
    assert not so.decided
    assert so.current_round == 13
    for k in so.kicks:
        expected = TAKERS[k.team][((k.round - 1) % 4 + 1) - 1]
        assert k.player == expected, k
    assert [k.player for k in so.kicks if k.team == "home" and k.points == 1] == [
        9, 7, 5, 3, 9, 7, 5, 3, 9, 7, 5, 3,
    ]  # fmt: skip
    assert so.taker("away", 13) == 11
    assert so.next_kick() == NextKick(13, "home", 1, 9)
    so = play(so, "x.x")  # round 13: home 3, away 0 with one 2-pointer left
    assert so.winner == "home"
    assert so.current_round == 13
    assert so.score == {"home": 15, "away": 12}
    assert [so.taker("home", r) for r in (1, 4, 5, 8, 9, 12, 13, 14, 17)] == [
        9, 3, 9, 3, 9, 3, 9, 7, 9,
    ]  # fmt: skip


def test_12_2_kick_out_of_turn_refused() -> None:
    so = play(start("home", TAKERS), "x")
    with pytest.raises(RuleViolation) as err:
        kick(so, "home", True)
    assert err.value.rule == "12.2"
    assert err.value.message == "it is away's 1-point shot (#11), not home's"
    so = play(so, "x")
    with pytest.raises(RuleViolation) as err:
        kick(so, "away", True)
    assert err.value.message == "it is home's 2-point shot (#9), not away's"
    assert len(so.kicks) == 2


def test_12_2_kick_after_decision_refused() -> None:
    so = play(start("home", TAKERS), "xxxx" + "x..." + "...." + "x...")
    assert so.score == {"home": 5, "away": 3}
    assert so.winner == "home"
    teams: tuple[Team, Team] = ("home", "away")
    for team in teams:
        with pytest.raises(RuleViolation) as err:
            kick(so, team, True)
        assert err.value.rule == "12.2"
        assert err.value.message == "the shootout is already decided: home won 5–3"
    so = play(start("home", TAKERS, rounds=1), ".x.")
    with pytest.raises(RuleViolation) as err:
        kick(so, "away", True)
    assert err.value.message == "the shootout is already decided: away won 1–0"


def test_12_2_each_team_names_exactly_four_takers() -> None:
    for bad in ((9, 7, 5), (9, 7, 5, 3, 1), ()):
        with pytest.raises(RuleViolation) as err:
            start("home", {"home": HOME_TAKERS, "away": bad})
        assert err.value.rule == "12.2"
        assert "away" in err.value.message
    with pytest.raises(RuleViolation) as err:
        start("home", {"home": HOME_TAKERS})
    assert err.value.rule == "12.2"


def test_12_2_duplicate_takers_refused() -> None:
    with pytest.raises(RuleViolation) as err:
        start("home", {"home": (9, 7, 9, 3), "away": AWAY_TAKERS})
    assert err.value.rule == "12.2"
    assert "#9" in err.value.message
    assert "home" in err.value.message


def test_D5_sent_off_player_cannot_be_taker() -> None:
    with pytest.raises(RuleViolation) as err:
        start("home", TAKERS, ineligible={"away": {8}})
    assert err.value.rule == "D5"
    assert "#8" in err.value.message
    assert "away" in err.value.message
    # A sent-off number only bars that team's player.
    so = start("home", TAKERS, ineligible={"home": [8], "away": [9, 1]})
    assert so.takers_of("home") == HOME_TAKERS


def test_to_dict_has_the_api_shape() -> None:
    so = start("home", TAKERS)
    assert so.to_dict() == {
        "first": "home",
        "round": 1,
        "score": {"home": 0, "away": 0},
        "kicks": [],
        "next": {"team": "home", "points": 1, "player": 9},
        "takers": {"home": [9, 7, 5, 3], "away": [11, 8, 6, 4]},
        "rounds": 4,
    }
    so = play(so, "xxx.x")
    d = so.to_dict()
    assert d["round"] == 2
    assert d["score"] == {"home": 4, "away": 1}
    assert d["kicks"][0] == {
        "round": 1,
        "team": "home",
        "points": 1,
        "player": 9,
        "scored": True,
    }
    assert d["kicks"][4] == {
        "round": 2,
        "team": "home",
        "points": 1,
        "player": 7,
        "scored": True,
    }
    assert d["next"] == {"team": "away", "points": 1, "player": 8}
    done = play(start("away", TAKERS, rounds=1), ".x.").to_dict()
    assert done["next"] is None
    assert done["round"] == 1
    assert done["score"] == {"home": 1, "away": 0}


def test_values_are_immutable() -> None:
    so = start("home", TAKERS)
    after = kick(so, "home", True)
    assert so.kicks == ()
    assert after.kicks == (Kick(1, "home", 1, 9, True),)
    assert hash(after) == hash(kick(start("home", TAKERS), "home", True))


# ---------------------------------------------------------------------------------------------
# Exhaustive and property tests against the oracle
# ---------------------------------------------------------------------------------------------


def run_exhaustive(rounds: int, first: Team, length: int = 16) -> dict[str, int]:
    """Feed each of the 2**length outcome sequences until decided; compare with the oracle.

    Machine states are shared between sequences with a common prefix (a dict keyed by prefix), so
    each distinct prefix is computed once; every sequence is still walked kick by kick.
    """
    # prefix -> (machine state after it, the machine's winner then)
    states: dict[tuple[bool, ...], tuple[Shootout, Team | None]] = {(): (start(first, TAKERS, rounds=rounds), None)}
    tally = {"first": 0, "second": 0, "undecided": 0}
    order = [(team_of(side, first), points, side) for side, points in ROUND_ORDER]
    for seq in range(2**length):
        outcomes = tuple(bool(seq >> (length - 1 - i) & 1) for i in range(length))
        f = s = 0
        so = states[()][0]
        for i in range(length):
            prefix = outcomes[: i + 1]
            team, points, side = order[i % 4]
            scored = outcomes[i]
            if scored:
                if side == "first":
                    f += points
                else:
                    s += points
            cached = states.get(prefix)
            if cached is None:
                after = kick(so, team, scored)
                cached = states[prefix] = (after, after.winner)
                assert after.decided == (cached[1] is not None)
            so, winner = cached
            expected = oracle(i + 1, rounds, f, s)
            if expected is None:
                assert winner is None, (rounds, first, prefix)
                continue
            assert winner == team_of(expected, first), (rounds, first, prefix)
            tally[expected] += 1
            break
        else:
            assert f == s, (rounds, first, outcomes)
            assert not so.decided
            assert so.next_kick() == NextKick(length // 4 + 1, first, 1, TAKERS[first][length // 4 % 4])
            tally["undecided"] += 1
    assert sum(tally.values()) == 2**length
    return tally


@pytest.mark.parametrize("first", ["home", "away"])
def test_12_2_exhaustive_four_rounds_all_65536_sequences(first: Team) -> None:
    # No timing assert (speed is measured in bench/, never in a test: the loaded CI machine took 25 s).
    tally = run_exhaustive(4, first)
    assert tally["undecided"] > 0 and tally["first"] > 0 and tally["second"] > 0


@pytest.mark.parametrize("rounds", [1, 2])
def test_12_2_exhaustive_short_shootouts_with_extra_rounds(rounds: int) -> None:
    # 16 kicks: the scheduled rounds, then extra rounds one at a time, up to 16 kicks in all.
    tally = run_exhaustive(rounds, "home")
    assert tally["undecided"] > 0


@settings(max_examples=300, deadline=None)
@given(
    rounds=st.integers(min_value=1, max_value=6),
    first=st.sampled_from(["home", "away"]),
    outcomes=st.lists(st.booleans(), min_size=0, max_size=80),
)
def test_12_2_long_random_shootouts_match_oracle(rounds: int, first: Team, outcomes: list[bool]) -> None:
    so = start(first, TAKERS, rounds=rounds)
    f = s = 0
    for i, scored in enumerate(outcomes):
        side, points = ROUND_ORDER[i % 4]
        team = team_of(side, first)
        so = kick(so, team, scored)
        k = so.kicks[-1]
        assert (k.round, k.team, k.points) == (i // 4 + 1, team, points)
        assert k.player == TAKERS[team][(k.round - 1) % 4]
        if scored:
            if side == "first":
                f += points
            else:
                s += points
        expected = oracle(i + 1, rounds, f, s)
        assert so.winner == (None if expected is None else team_of(expected, first))
        assert so.score == {first: f, other(first): s}
        if expected is not None:
            assert so.current_round == i // 4 + 1
            with pytest.raises(RuleViolation):
                kick(so, team, scored)
            break
