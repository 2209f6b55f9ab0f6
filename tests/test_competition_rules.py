"""The competition's rule core (SPEC §10, C2–C7): schedules, results, standings, suspensions, standing aside.

Pure functions on plain data: no server, no database. The stories are named after the decision they prove.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qalisball.rules.competition import bracket, decisions, discipline, moves, schedule, standings
from qalisball.rules.competition import fixtures as fixture_rules
from qalisball.rules.competition.discipline import Appearance, Cards, Discipline, Party
from qalisball.rules.competition.fixtures import FixtureFacts
from qalisball.rules.competition.schedule import PlanError
from qalisball.rules.competition.standings import Decision, Lots, MatchOutcome, Points, Result
from qalisball.rules.errors import RuleViolation

TEAMS = [f"t{i}" for i in range(1, 17)]


def _r(fid: str, home: str, away: str, hg: int, ag: int, shootout: tuple[int, int] | None = None, **kw: object) -> Result:
    """A result; level scores need a shootout to name the winner."""
    if hg != ag:
        winner = home if hg > ag else away
    else:
        assert shootout is not None
        winner = home if shootout[0] > shootout[1] else away
    return Result(fid, home, away, (hg, ag), str(kw.pop("winner", winner)), shootout, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# C2: schedules


@settings(max_examples=120, deadline=None)
@given(n=st.integers(3, 16), fields=st.integers(1, 4), double=st.booleans())
def test_C2_round_robin_properties(n: int, fields: int, double: bool) -> None:
    """3–16 teams, 1–4 fields: every pair meets once (twice, home and away swapped, in a double round
    robin); nobody plays twice in a round or in a time slot; no field is booked twice in a slot."""
    teams = TEAMS[:n]
    p = schedule.plan("double_round_robin" if double else "round_robin", teams, fields)
    pairs = Counter(frozenset((f.home.team, f.away.team)) for f in p.fixtures)
    assert set(pairs) == {frozenset(c) for c in itertools.combinations(teams, 2)}
    assert set(pairs.values()) == {2 if double else 1}
    if double:
        ordered = Counter((f.home.team, f.away.team) for f in p.fixtures)
        assert set(ordered.values()) == {1}, "the second round robin swaps home and away"
    for key in ("round", "slot"):
        seen: Counter[tuple[int, str | None]] = Counter()
        for f in p.fixtures:
            seen.update([(getattr(f, key), f.home.team), (getattr(f, key), f.away.team)])
        assert max(seen.values()) == 1, f"a team plays twice in a {key}"
    booked = Counter((f.slot, f.field) for f in p.fixtures)
    assert max(booked.values()) == 1 and all(0 <= f.field < fields for f in p.fixtures)
    rounds = (n - 1 if n % 2 == 0 else n) * (2 if double else 1)
    assert max(f.round for f in p.fixtures) == rounds
    # A bye for an odd number of teams: one team a round, each team once per round robin.
    assert len(p.byes) == (rounds if n % 2 else 0)
    if n % 2:
        assert Counter(b.team for b in p.byes) == {t: 2 if double else 1 for t in teams}
        for b in p.byes:
            assert all(b.team not in (f.home.team, f.away.team) for f in p.fixtures if f.round == b.round)
    # Each team plays its rounds in order through the day.
    for t in teams:
        mine = [f for f in p.fixtures if t in (f.home.team, f.away.team)]
        assert [f.round for f in sorted(mine, key=lambda f: f.slot)] == sorted(f.round for f in mine)
    # Fields are kept busy (D71): as few slots as the fields allow (at most n // 2 matches can be played at once).
    assert max(f.slot for f in p.fixtures) + 1 == -(-len(p.fixtures) // min(fields, n // 2))


@given(n=st.integers(3, 16))
def test_C2_home_and_away_balanced_within_one(n: int) -> None:
    p = schedule.plan("round_robin", TEAMS[:n], 2)
    home = Counter(f.home.team for f in p.fixtures)
    away = Counter(f.away.team for f in p.fixtures)
    assert all(abs(home[t] - away[t]) <= 1 for t in TEAMS[:n])


def test_D71_six_teams_on_two_fields_fill_eight_slots() -> None:
    """15 matches on 2 fields need 8 slots: the packer uses the free field of a round for the next round."""
    p = schedule.plan("round_robin", TEAMS[:6], 2)
    assert max(f.slot for f in p.fixtures) == 7
    assert [f.number for f in p.fixtures] == list(range(1, 16))


def test_C2_groups_then_knockout_crossed_A1_B2_B1_A2() -> None:
    p = schedule.plan("groups_knockout", TEAMS[:8], 2, groups=2, advance=2)
    assert dict(p.groups) == {"A": ("t1", "t4", "t5", "t8"), "B": ("t2", "t3", "t6", "t7")}  # serpentine seeding
    group = [f for f in p.fixtures if f.stage == "group"]
    assert len(group) == 12 and {f.group for f in group} == {"A", "B"}
    ko = [f for f in p.fixtures if f.stage != "group"]
    assert [(f.stage, f.home.label(), f.away.label()) for f in ko] == [
        ("semi_final", "A1", "B2"),
        ("semi_final", "B1", "A2"),
        ("final", f"W{ko[0].number}", f"W{ko[1].number}"),
    ]
    last_group_slot = max(f.slot for f in group)
    assert all(f.slot > last_group_slot for f in ko), "the knockout starts after the group stage"
    assert ko[2].slot > max(ko[0].slot, ko[1].slot), "the final after both semi-finals"
    assert ko[0].round == ko[1].round == 4 and ko[2].round == 5


def test_C2_four_groups_group_winners_meet_late() -> None:
    p = schedule.plan("groups_knockout", TEAMS[:16], 4, groups=4, advance=2)
    qf = [(f.home.label(), f.away.label()) for f in p.fixtures if f.stage == "quarter_final"]
    assert sorted(qf) == sorted([("A1", "B2"), ("B1", "A2"), ("C1", "D2"), ("D1", "C2")])
    # A1 and B1 are in different halves of the bracket: they can meet only in the final.
    half = {label: i // 2 for i, pair in enumerate(qf) for label in pair}
    assert half["A1"] != half["B1"] and half["C1"] != half["D1"]


def test_C2_knockout_byes_for_the_top_seeds() -> None:
    p = schedule.plan("knockout", TEAMS[:5], 2)
    assert [b.team for b in p.byes] == ["t1", "t2", "t3"]
    first = [f for f in p.fixtures if f.round == 1]
    assert [(f.home.team, f.away.team) for f in first] == [("t4", "t5")]
    final = p.fixtures[-1]
    assert final.stage == "final"
    semis = [f for f in p.fixtures if f.stage == "semi_final"]
    assert {s.home.label() for s in semis} | {s.away.label() for s in semis} == {"t1", "W1", "t2", "t3"}
    # Seeds 1 and 2 in opposite halves.
    assert not any({"t1", "t2"} <= {s.home.label(), s.away.label()} for s in semis)


@given(n=st.integers(2, 16), fields=st.integers(1, 4))
def test_C2_knockout_properties(n: int, fields: int) -> None:
    """Every knockout has n - 1 matches, one final, and each team enters exactly once."""
    p = schedule.plan("knockout", TEAMS[:n], fields)
    assert len(p.fixtures) == n - 1
    assert [f.stage for f in p.fixtures].count("final") == 1
    entries = [s.team for f in p.fixtures for s in (f.home, f.away) if s.team]
    assert sorted(entries) == sorted(TEAMS[:n]), "each team is placed once (after its bye, in the second round)"
    byes = [b.team for b in p.byes]
    assert sorted(byes, key=TEAMS.index) == TEAMS[: len(byes)] and len(byes) < n, "the top seeds have the byes"
    assert max(Counter((f.slot, f.field) for f in p.fixtures).values()) == 1
    for f in p.fixtures:
        for s in (f.home, f.away):
            if s.winner_of is not None:
                before = p.fixtures[s.winner_of - 1]
                assert before.slot < f.slot, "a match is played after the ones it waits for"


@pytest.mark.parametrize(
    ("fmt", "n", "groups", "advance", "field"),
    [
        ("round_robin", 1, 2, 2, "teams"),
        ("groups_knockout", 8, 3, 2, "groups"),  # groups are crossed in pairs
        ("groups_knockout", 9, 2, 3, "advance"),  # 6 qualifiers: not a bracket
        ("groups_knockout", 6, 2, 4, "advance"),  # groups of 3 cannot send 4
        ("groups_knockout", 3, 2, 1, "groups"),  # a group of one
    ],
)
def test_C2_impossible_formats_are_refused_naming_the_field(fmt: str, n: int, groups: int, advance: int, field: str) -> None:
    with pytest.raises(PlanError) as exc:
        schedule.plan(fmt, TEAMS[:n], 1, groups=groups, advance=advance)  # type: ignore[arg-type]
    assert exc.value.field == field


def test_C2_knockout_fills_with_winners_shootout_winners_included() -> None:
    p = schedule.plan("groups_knockout", TEAMS[:8], 2, groups=2, advance=2)
    group = {"A": ["t5", "t1", "t8", "t4"], "B": ["t2", "t7", "t3", "t6"]}
    ranks = {g: {i + 1: t for i, t in enumerate(order)} for g, order in group.items()}
    sf1, sf2, final = (f for f in p.fixtures if f.stage != "group")
    outcomes = {
        sf1.number: MatchOutcome("finished", (2, 2), (5, 3), "home"),  # decided by the shootout
        sf2.number: MatchOutcome("finished", (1, 3), None, "away"),
    }

    def winner(f: schedule.Planned, teams: bracket.Teams) -> str | None:
        o = outcomes.get(f.number)
        r = standings.fixture_result(str(f.number), teams[0], teams[1], o)
        return r.winner if r else None

    filled = bracket.fill(p.fixtures, {}, ranks, winner)
    assert filled[sf1.number] == ("t5", "t7") and filled[sf2.number] == ("t2", "t1")
    assert filled[final.number] == ("t5", "t1")
    # Before the semi-finals finish the final is empty; before the groups are over, so are the semis.
    assert bracket.fill(p.fixtures, {}, ranks, lambda f, t: None)[final.number] == (None, None)
    assert bracket.fill(p.fixtures, {}, {}, lambda f, t: None)[sf1.number] == (None, None)


def test_D76_a_third_place_match_of_the_semi_finals_losers_is_played_before_the_final() -> None:
    p = schedule.plan("groups_knockout", TEAMS[:8], 2, groups=2, advance=2, third_place=True)
    sf1, sf2, third, final = (f for f in p.fixtures if f.stage != "group")
    assert (third.stage, final.stage) == ("third_place", "final") and third.number < final.number
    assert (third.home.loser_of, third.away.loser_of) == (sf1.number, sf2.number)
    assert third.home.label() == f"L{sf1.number}" and schedule.Source.from_dict(third.home.to_dict()) == third.home
    assert max(sf1.slot, sf2.slot) < third.slot < final.slot, "after the semi-finals, a slot before the final"
    without = [f for f in schedule.plan("groups_knockout", TEAMS[:8], 2, groups=2, advance=2).fixtures if f.stage == "final"]
    assert final.field == without[0].field == 0, "the final keeps the main field"
    group = {"A": ["t5", "t1", "t8", "t4"], "B": ["t2", "t7", "t3", "t6"]}
    ranks = {g: {i + 1: t for i, t in enumerate(order)} for g, order in group.items()}
    outcomes = {
        sf1.number: MatchOutcome("finished", (2, 2), (5, 3), "home"),  # t5 beat t7 in the shootout
        sf2.number: MatchOutcome("finished", (1, 3), None, "away"),  # t1 beat t2
    }

    def winner(f: schedule.Planned, teams: bracket.Teams) -> str | None:
        r = standings.fixture_result(str(f.number), teams[0], teams[1], outcomes.get(f.number))
        return r.winner if r else None

    filled = bracket.fill(p.fixtures, {}, ranks, winner)
    assert filled[third.number] == ("t7", "t2") and filled[final.number] == ("t5", "t1")
    assert bracket.fill(p.fixtures, {}, ranks, lambda f, t: None)[third.number] == (None, None)


@given(n=st.integers(2, 16), fields=st.integers(1, 4))
def test_D76_third_place_only_where_there_are_semi_finals(n: int, fields: int) -> None:
    p = schedule.plan("knockout", TEAMS[:n], fields, third_place=True)
    thirds = [f for f in p.fixtures if f.stage == "third_place"]
    assert len(thirds) == (1 if n >= 3 and len([f for f in p.fixtures if f.stage == "semi_final"]) == 2 else 0)
    assert len(p.fixtures) == n - 1 + len(thirds)
    assert max(Counter((f.slot, f.field) for f in p.fixtures).values()) == 1
    for f in p.fixtures:
        for s in (f.home, f.away):
            source = s.winner_of or s.loser_of
            if source is not None:
                assert p.fixtures[source - 1].slot < f.slot, "a match is played after the ones it waits for"
    assert not [f for f in schedule.plan("knockout", TEAMS[:n], fields).fixtures if f.stage == "third_place"]


def test_C2_group_rank_awaiting_lots_leaves_the_place_empty() -> None:
    rows = standings.table(["a", "b", "c"], [_r("1", "a", "b", 1, 0), _r("2", "b", "c", 1, 0), _r("3", "c", "a", 1, 0)])
    assert [r.rank for r in rows] == [1, 1, 1]
    assert bracket.known_ranks(rows, over=True) == {}
    assert bracket.known_ranks(rows, over=False) == {}


# ---------------------------------------------------------------------------------------------
# C3: standings


def test_C3_default_points_win_3_shootout_win_2_shootout_loss_1_loss_0() -> None:
    rows = standings.table(["a", "b", "c"], [_r("1", "a", "b", 3, 1), _r("2", "b", "c", 2, 2, (4, 3))])
    by = {r.team: r for r in rows}
    assert (by["a"].points, by["b"].points, by["c"].points) == (3, 2, 1)
    assert (by["b"].won, by["b"].shootout_won, by["b"].lost, by["c"].shootout_lost) == (0, 1, 1, 1)


def test_C3_regulations_2_1_0_by_giving_shootout_results_draw_points() -> None:
    p = Points(win=2, shootout_win=1, shootout_loss=1, loss=0)
    rows = standings.table(["a", "b"], [_r("1", "a", "b", 2, 2, (3, 1))], p)
    assert [(r.team, r.points) for r in rows] == [("a", 1), ("b", 1)]


def test_C3_shootout_goals_never_count_in_goal_difference() -> None:
    rows = standings.table(["a", "b"], [_r("1", "a", "b", 2, 2, (7, 5))])
    a = next(r for r in rows if r.team == "a")
    assert (a.goals_for, a.goals_against, a.goal_difference) == (2, 2, 0)


def test_C3_head_to_head_among_exactly_the_tied_teams() -> None:
    """a, b, c level on 6 points: among the three, b won both its matches and c beat a, so b, c, a —
    although a has by far the best goal difference; e and d are not part of the tie."""
    results = [
        _r("1", "b", "a", 1, 0),
        _r("2", "b", "c", 1, 0),
        _r("3", "c", "a", 1, 0),
        _r("4", "a", "d", 9, 0),
        _r("5", "a", "e", 2, 0),
        _r("6", "c", "d", 2, 0),
        _r("7", "d", "b", 1, 0),
        _r("8", "e", "b", 1, 0),
        _r("9", "e", "c", 1, 0),
        _r("10", "e", "d", 1, 0),
    ]
    rows = standings.table(["a", "b", "c", "d", "e"], results)
    assert [(r.team, r.points) for r in rows] == [("e", 9), ("b", 6), ("c", 6), ("a", 6), ("d", 3)]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]
    assert [r.tiebreak for r in rows] == [None, "head_to_head", "head_to_head", "head_to_head", None]


def test_D60_head_to_head_is_applied_once_to_the_whole_tie() -> None:
    """a, b, c level on points and on head-to-head points: goal difference over all the group's matches
    decides, not a second head-to-head between the two that remain level (D60)."""
    results = [
        _r("1", "a", "b", 1, 0),
        _r("2", "b", "c", 1, 0),
        _r("3", "c", "a", 1, 0),
        _r("4", "a", "d", 5, 0),
        _r("5", "b", "d", 3, 0),
        _r("6", "c", "d", 3, 0),
    ]
    rows = standings.table(["a", "b", "c", "d"], results)
    assert rows[0].team == "a" and rows[0].tiebreak == "goal_difference" and rows[3].team == "d"
    # b and c: same points, same head-to-head among the three, same goal difference (+3), same goals (4):
    # left level for lots, though b beat c.
    assert {rows[1].team, rows[2].team} == {"b", "c"} and rows[1].rank == rows[2].rank == 2
    assert standings.unresolved_ties(rows) == [(rows[1].team, rows[2].team)]


def test_C3_goals_scored_then_lots() -> None:
    results = [_r("1", "a", "c", 3, 1), _r("2", "b", "c", 2, 0), _r("3", "a", "b", 1, 1, (1, 2)), _r("4", "c", "x", 1, 0)]
    rows = standings.table(["a", "b", "c", "x"], results)
    # a: 3 + 1 = 4, b: 3 + 2 = 5. b first on points; no tie.
    assert [r.team for r in rows][:2] == ["b", "a"]
    # Level on everything: lots decide, and the row says so.
    results = [_r("1", "a", "c", 2, 1), _r("2", "b", "c", 2, 1), _r("3", "a", "b", 1, 1, (3, 2))]
    rows = standings.table(["a", "b", "c"], results, Points(shootout_win=1, shootout_loss=1))
    assert rows[0].rank == rows[1].rank == 1 and rows[0].tiebreak == "unresolved"
    rows = standings.table(["a", "b", "c"], results, Points(shootout_win=1, shootout_loss=1), [Lots(("b", "a"), "L1")])
    assert [(r.team, r.rank, r.tiebreak, r.lots) for r in rows[:2]] == [("b", 1, "lots", "L1"), ("a", 2, "lots", "L1")]
    # Goals scored separate teams level on goal difference.
    results = [_r("1", "a", "c", 3, 2), _r("2", "b", "c", 1, 0), _r("3", "a", "b", 1, 1, (3, 2))]
    rows = standings.table(["a", "b", "c"], results, Points(shootout_win=1, shootout_loss=1))
    assert [(r.team, r.tiebreak) for r in rows[:2]] == [("a", "goals_for"), ("b", "goals_for")]


def test_C3_the_latest_drawing_of_lots_counts() -> None:
    rows = standings.table(["a", "b"], [], lots=[Lots(("a", "b"), "1"), Lots(("b", "a"), "2")])
    assert [r.team for r in rows] == ["b", "a"] and rows[0].lots == "2"


def test_C3_lots_only_for_a_tie_the_chain_cannot_break_once_the_group_is_over() -> None:
    results = [_r("1", "a", "b", 1, 0), _r("2", "b", "c", 1, 0), _r("3", "c", "a", 1, 0)]
    standings.check_lots(["a", "b", "c"], results, Points(), ["c", "a", "b"], pending=0)
    with pytest.raises(RuleViolation) as exc:
        standings.check_lots(["a", "b", "c"], results, Points(), ["c", "a"], pending=0)
    assert exc.value.rule == "C3" and "a = b = c" in exc.value.message
    with pytest.raises(RuleViolation) as exc:
        standings.check_lots(["a", "b", "c"], results, Points(), ["c", "a", "b"], pending=1)
    assert exc.value.rule == "C3" and "over" in exc.value.message


# ---------------------------------------------------------------------------------------------
# C6, C7, D63: where a fixture's result comes from


def test_C6_forfeit_wins_by_the_forfeit_score_and_gives_zero_points() -> None:
    r = standings.fixture_result("9", "a", "b", None, forfeit_by="b", forfeit_score=5)
    assert r is not None and (r.score, r.winner, r.forfeit_by) == ((5, 0), "a", "b")
    rows = standings.table(["a", "b"], [r], Points(win=3, shootout_win=2, shootout_loss=1, loss=1))
    by = {x.team: x for x in rows}
    assert (by["a"].points, by["b"].points) == (3, 0), "a forfeit gets 0 even when a loss earns a point"
    assert (by["b"].played, by["b"].lost, by["b"].goals_against, by["b"].forfeits) == (1, 1, 5, ["9"])
    assert standings.fixture_status(None, "b", None) == "forfeit"


def test_C6_voids_all_results_of_a_forfeiting_team() -> None:
    results = [_r("1", "a", "b", 3, 0), _r("2", "b", "c", 2, 0), standings.fixture_result("3", "c", "a", None, forfeit_by="a")]
    counted = [r for r in results if r is not None]
    voided = standings.voided_teams([("a", False)], voids_all_results=True)
    assert voided == {"a"}
    rows = standings.table(["a", "b", "c"], counted, voided=voided)
    assert [(r.team, r.played, r.points) for r in rows] == [("b", 1, 3), ("c", 1, 0)]
    assert standings.voided_teams([("a", False)], voids_all_results=False) == frozenset()


def test_issue28_item7_C6_a_forfeit_a_decided_result_replaced_voids_nothing_and_any_stage_counts() -> None:
    """The one copy of C6's voiding, the service's (``book.snapshot``): from the forfeits, not the results, so that
    a knockout forfeit (its result not known when the group tables are made) voids the team too, and a forfeit a
    decided result replaced (C7, D63) voids nothing, as ``fixture_result`` counts the decision instead."""
    assert standings.voided_teams([("a", True)], voids_all_results=True) == frozenset()
    assert standings.voided_teams([("a", True), ("b", False), ("c", False)], voids_all_results=True) == {"b", "c"}


def test_C7_an_upheld_protest_replaces_the_match_result() -> None:
    played = MatchOutcome("finished", (3, 2), None, "home")
    assert standings.fixture_result("4", "a", "b", played).winner == "a"  # type: ignore[union-attr]
    decided = Decision((0, 5), "b", None, "protest")
    r = standings.fixture_result("4", "a", "b", played, decided=decided)
    assert r is not None and (r.score, r.winner, r.decided_by) == ((0, 5), "b", "protest")
    # ... and a forfeit too.
    r = standings.fixture_result("4", "a", "b", None, forfeit_by="b", decided=Decision((2, 2), "b", (3, 4)))
    assert r is not None and r.winner == "b" and r.by_shootout and r.forfeit_by is None
    rows = standings.table(["a", "b"], [r])
    assert {x.team: x.decisions for x in rows} == {"a": ["4"], "b": ["4"]}
    assert standings.fixture_status("finished", None, decided) == "finished"


def test_D63_an_abandoned_match_has_no_result_until_a_decision() -> None:
    abandoned = MatchOutcome("abandoned", (1, 0), None, None)
    assert standings.fixture_result("5", "a", "b", abandoned) is None
    assert standings.fixture_status("abandoned", None, None) == "abandoned"
    r = standings.fixture_result("5", "a", "b", abandoned, decided=Decision((1, 0), "a", None, "organiser"))
    assert r is not None and r.decided_by == "organiser"
    assert [standings.fixture_status(p, None, None) for p in ("scheduled", "first_half", "shootout", "finished")] == [
        "scheduled",
        "live",
        "live",
        "finished",
    ]
    assert standings.fixture_result("6", "a", None, MatchOutcome("finished", (1, 0), None, "home")) is None


# ---------------------------------------------------------------------------------------------
# C4: suspensions


def _apps(*items: tuple[str, str, dict[int, Cards]]) -> list[Appearance]:
    return [Appearance(f, s, c) for f, s, c in items]  # type: ignore[arg-type]


def test_C4_a_red_card_suspends_for_the_next_match_served_by_playing() -> None:
    apps = _apps(("1", "served", {7: Cards(0, 1)}), ("4", "pending", {}), ("9", "pending", {}))
    [s] = discipline.suspensions({"a": apps}, Discipline())
    assert (s.team, s.player, s.reason, s.from_fixture, s.covers, s.remaining) == ("a", 7, "red", "1", ("4",), 1)
    apps[1] = Appearance("4", "served", {})
    [s] = discipline.suspensions({"a": apps}, Discipline())
    assert s.remaining == 0 and not s.applies_to("9")


def test_C4_number_of_matches_configurable_and_zero_turns_it_off() -> None:
    apps = _apps(("1", "served", {7: Cards(0, 1)}), ("4", "served", {}), ("9", "pending", {}))
    [s] = discipline.suspensions({"a": apps}, Discipline(red_matches=2))
    assert s.covers == ("4", "9") and s.remaining == 1
    assert discipline.suspensions({"a": apps}, Discipline(red_matches=0)) == []


def test_C4_a_forfeited_match_does_not_count_as_served() -> None:
    apps = _apps(("1", "served", {7: Cards(0, 1)}), ("4", "forfeited", {}), ("9", "pending", {}))
    [s] = discipline.suspensions({"a": apps}, Discipline())
    assert s.covers == ("9",) and s.remaining == 1


def test_D65_a_match_won_by_the_opponents_forfeit_counts_as_served() -> None:
    apps = _apps(("1", "served", {7: Cards(0, 1)}), ("4", "served", {}))  # "served": played or won by forfeit
    [s] = discipline.suspensions({"a": apps}, Discipline())
    assert s.remaining == 0


def test_C4_yellow_accumulation_suspends_at_every_nth_caution() -> None:
    apps = _apps(
        ("1", "served", {5: Cards(1, 0)}),
        ("2", "served", {5: Cards(1, 0)}),
        ("3", "served", {}),
        ("4", "served", {5: Cards(2, 0)}),  # impossible in one match without a red; counts as two
        ("5", "pending", {}),
    )
    got = discipline.suspensions({"a": apps}, Discipline(yellow_accumulation=2))
    assert [(s.reason, s.from_fixture, s.covers) for s in got] == [("yellow", "2", ("3",)), ("yellow", "4", ("5",))]
    assert discipline.suspensions({"a": apps}, Discipline(yellow_accumulation=None)) == []


def test_D64_the_two_cautions_of_a_second_yellow_are_not_counted_again() -> None:
    assert Cards.from_counts(yellow=2, red=1) == Cards(0, 1)  # second yellow: a red, nothing to accumulate
    assert Cards.from_counts(yellow=1, red=1) == Cards(1, 1)  # a caution, then a direct red: the caution counts
    assert Cards.from_counts(yellow=1, red=0) == Cards(1, 0)


def test_C4_two_suspensions_are_served_one_after_the_other() -> None:
    apps = _apps(("1", "served", {5: Cards(1, 1)}), ("2", "pending", {}), ("3", "pending", {}), ("4", "pending", {}))
    got = discipline.suspensions({"a": apps}, Discipline(yellow_accumulation=1))
    assert [(s.reason, s.covers) for s in got] == [("red", ("2",)), ("yellow", ("3",))]


def test_C4_a_lineup_naming_a_suspended_player_is_refused_naming_the_cause() -> None:
    apps = _apps(("1", "served", {7: Cards(0, 1)}), ("4", "pending", {}))
    active = discipline.suspensions({"a": apps}, Discipline())
    discipline.check_lineup("Renmin", "4", [1, 2, 3], {7: "Li Hua"}, active)
    with pytest.raises(RuleViolation) as exc:
        discipline.check_lineup("Renmin", "4", [1, 7, 3], {7: "Li Hua"}, active)
    assert exc.value.rule == "C4"
    assert "#7 Li Hua" in exc.value.message and "fixture 1" in exc.value.message
    with pytest.raises(RuleViolation) as exc:
        discipline.check_lineup("Renmin", "4", [7], {7: "Li Hua"}, active, {"1": "Renmin – Tsinghua"})
    assert "red card in fixture 1, Renmin – Tsinghua (1 of 1 matches still to serve)" in exc.value.message


# ---------------------------------------------------------------------------------------------
# C5, D62, D66: officials


def test_C5_an_official_stands_aside_from_his_clubs_matches() -> None:
    renmin = Party("t1", "Renmin A", "Renmin University")
    tsinghua = Party("t2", "Tsinghua", "Tsinghua")
    ok = Party("o1", "Wang", "Peking University")
    discipline.check_stand_aside({"referee": ok}, [renmin, tsinghua])
    with pytest.raises(RuleViolation) as exc:
        discipline.check_stand_aside({"referee": ok, "scorer": Party("o2", "Zhao", " renmin  UNIVERSITY ")}, [renmin, tsinghua])
    assert exc.value.rule == "C5" and "Zhao" in exc.value.message and "Renmin A" in exc.value.message
    discipline.check_stand_aside({"referee": Party("o3", "Li", None)}, [renmin, tsinghua])


def test_D62_a_team_without_a_club_is_its_own_club() -> None:
    with pytest.raises(RuleViolation) as exc:
        discipline.check_stand_aside({"assistant1": Party("o1", "Wu", "BNU")}, [Party("t3", "BNU", None)])
    assert exc.value.rule == "C5"


def test_D66_an_official_cannot_be_on_two_fields_at_once() -> None:
    o = Party("o1", "Wang", None)
    discipline.check_busy({"referee": o}, {})
    with pytest.raises(RuleViolation) as exc:
        discipline.check_busy({"referee": o}, {"o1": "3"})
    assert exc.value.rule == "D66" and "fixture 3" in exc.value.message


def test_C2_a_made_match_whose_place_now_names_another_team_is_flagged() -> None:
    p = schedule.plan("knockout", TEAMS[:4], 1)
    sf1, sf2, final = p.fixtures
    fixed = {final.number: ("t1", "t2")}
    assert bracket.changed(p.fixtures, fixed, {}, {sf1.number: "t1", sf2.number: "t2"}) == {}
    assert bracket.changed(p.fixtures, fixed, {}, {sf1.number: "t4", sf2.number: "t2"}) == {final.number: ["home"]}
    assert bracket.changed(p.fixtures, fixed, {}, {}) == {}, "a place not yet known is no change"


# ---------------------------------------------------------------------------------------------
# D75: moving a fixture


def test_D75_a_moved_fixture_may_not_overlap_a_field_a_team_or_an_official_of_another() -> None:
    from qalisball.rules.competition.moves import Booking, check_move
    from qalisball.rules.errors import RuleViolation

    h = 3_600_000
    slot = 80 * 60_000
    names = {"a": "Renmin", "b": "Tsinghua", "c": "Peking", "d": "BNU", "o1": "Zhao"}
    others = [
        Booking(1, 0, 9 * h, 0, ("a", "b"), (("referee", "o1"),)),
        Booking(2, 0, 9 * h, 1, (), ()),  # a knockout place not known yet: clashes by field only
    ]

    def refusal(moved: Booking) -> tuple[str, str]:
        with pytest.raises(RuleViolation) as exc:
            check_move(moved, moved, others, slot, ["Field 1", "Field 2"], names)
        return exc.value.rule, exc.value.message

    assert refusal(Booking(3, 1, 10 * h, 0, ("c", "d"), ())) == ("D75", "Field 1 is taken at that time by fixture #1")
    assert refusal(Booking(3, 1, 10 * h, 1, ("c", "d"), ())) == ("D75", "Field 2 is taken at that time by fixture #2")
    assert refusal(Booking(3, 1, 10 * h, 2, ("c", "a"), ())) == ("D75", "Renmin plays fixture #1 at that time")
    rule, message = refusal(Booking(3, 1, 10 * h, 2, ("c", "d"), (("scorer", "o1"),)))
    assert rule == "D66" and message.startswith("Zhao already officiates fixture 1")
    later = Booking(3, 1, 9 * h + slot, 0, ("a", "b"), (("referee", "o1"),))
    check_move(later, later, others, slot, ["Field 1"], names)  # a slot later
    # A competition without times compares slots.
    timeless = [Booking(1, 0, None, 0, ("a", "b"), ())]
    with pytest.raises(RuleViolation):
        same = Booking(3, 0, None, 0, ("c", "d"), ())
        check_move(same, same, timeless, slot, ["Field 1"], names)
    next_slot = Booking(3, 1, None, 0, ("c", "d"), ())
    check_move(next_slot, next_slot, timeless, slot, ["Field 1"], names)


def test_D75_a_knockout_game_waits_for_its_sources_and_nothing_moves_ahead_of_a_made_game_of_its_team() -> None:
    from qalisball.rules.competition.moves import Booking, check_move
    from qalisball.rules.errors import RuleViolation

    h, slot = 3_600_000, 80 * 60_000
    semis = [Booking(1, 0, 9 * h, 0, ("a", "b"), ()), Booking(2, 0, 9 * h, 1, ("c", "d"), ())]
    final = Booking(3, 1, 9 * h + slot, 0, (), (), after=(1, 2))
    early = Booking(3, 1, 9 * h + slot // 2, 0, (), (), after=(1, 2))
    with pytest.raises(RuleViolation, match="fixture #3 waits for fixture #1"):
        check_move(final, early, semis, slot, ["Field 1", "Field 2"], {})
    late_semi = Booking(1, 0, 10 * h, 0, ("a", "b"), ())
    with pytest.raises(RuleViolation, match="fixture #3 waits for fixture #1"):
        check_move(semis[0], late_semi, [semis[1], final], slot, ["Field 1", "Field 2"], {})
    # A team's game whose match is made: another of its games may be postponed past it, not moved ahead.
    made = Booking(5, 2, 12 * h, 0, ("a", "e"), (), made=True)
    rained_off = Booking(4, 1, 10 * h, 0, ("a", "f"), ())
    check_move(rained_off, Booking(4, 1, 15 * h, 0, ("a", "f"), ()), [made], slot, ["Field 1"], {})
    later_game = Booking(6, 3, 14 * h, 0, ("a", "g"), ())
    with pytest.raises(RuleViolation, match="fixture #5 of the same team is already made"):
        check_move(later_game, Booking(6, 3, 10 * h, 0, ("a", "g"), ()), [made], slot, ["Field 1"], {})
    # A game that is over holds no field any more.
    played = Booking(7, 0, 9 * h, 0, ("x", "y"), (), made=True, over=True)
    check_move(rained_off, Booking(4, 1, 9 * h, 0, ("a", "f"), ()), [played], slot, ["Field 1"], {})


def test_D74_a_carded_player_is_found_on_the_kept_roster_by_name_then_number() -> None:
    roster = {17: "Li  Hua", 7: "Wang Fang", 3: "Chen Jing"}  # Li Hua wears 17 now; 7 went to someone else
    assert discipline.kept_number(7, "li hua", False, roster) == 17
    assert discipline.kept_number(3, "Chen Jin", False, roster) == 3  # his name corrected since: the number
    assert discipline.kept_number(8, "Zed Late", True, {**roster, 8: "A 8"}) is None  # a late player: nobody kept
    assert discipline.kept_number(9, "Gone", False, roster) is None  # his number is no one's now
    assert discipline.kept_number(7, "Li Hua", False, {17: "Li Hua", 18: "LI HUA", 7: "x"}) == 7  # two of that name


# ---------------------------------------------------------------------------------------------
# Issue 21: the service's checks as pure rules (C2, C6, C7, D63, D69, D75), refused with the API's words


def _facts(**kw: object) -> FixtureFacts:
    """Fixture "4" between two known teams, no match made, nothing settled; ``kw`` changes that."""
    base: dict[str, object] = {"id": "4", "home": "a", "away": "b", "phase": None, "forfeited": False, "decided": False}
    return FixtureFacts(**{**base, **kw})  # type: ignore[arg-type]


def _refused(check: Callable[[], None]) -> tuple[str, str]:
    with pytest.raises(RuleViolation) as exc:
        check()
    return exc.value.rule, exc.value.message


W1, W2 = schedule.Source(winner_of=1), schedule.Source(winner_of=2)


def test_C2_a_match_is_made_only_once_both_teams_of_the_fixture_are_known() -> None:
    fixture_rules.check_match_can_be_made(_facts(), W1, W2)
    assert _refused(lambda: fixture_rules.check_match_can_be_made(_facts(home=None), W1, W2)) == (
        "C2",
        "the teams of fixture 4 are not known yet (W1 v W2)",
    )


def test_C6_a_forfeited_fixture_has_no_match() -> None:
    assert _refused(lambda: fixture_rules.check_match_can_be_made(_facts(forfeited=True), W1, W2)) == (
        "C6",
        "fixture 4 was forfeited: it has no match",
    )


def test_C7_a_decided_fixture_gets_a_new_match_only_by_a_protest_decision_ordering_a_replay() -> None:
    # Decided beats forfeited: the decision replaced the forfeit's result (C7 over C6).
    assert _refused(lambda: fixture_rules.check_match_can_be_made(_facts(decided=True, forfeited=True), W1, W2)) == (
        "C7",
        "fixture 4 has a decided result: a replay is ordered by a protest decision",
    )


H = 3_600_000
NINE = datetime(2026, 12, 5, 9, 0, tzinfo=timezone(timedelta(hours=8)))  # 01:00 UTC
NINE_MS = int(NINE.timestamp() * 1000)


def test_C6_a_forfeit_is_declared_once_between_known_teams_before_kick_off() -> None:
    later = NINE_MS + H
    fixture_rules.check_forfeit(_facts(), NINE, 20, later)
    fixture_rules.check_forfeit(_facts(phase="scheduled"), NINE, 20, later)
    fixture_rules.check_forfeit(_facts(phase="abandoned"), NINE, 20, later)  # D63: the team at fault of an abandonment
    assert _refused(lambda: fixture_rules.check_forfeit(_facts(forfeited=True, decided=True), NINE, 20, later)) == (
        "C6",
        "fixture 4 was already forfeited",
    )
    assert _refused(lambda: fixture_rules.check_forfeit(_facts(decided=True), NINE, 20, later)) == (
        "C7",
        "fixture 4 has a decided result: change it by a protest decision",
    )
    assert _refused(lambda: fixture_rules.check_forfeit(_facts(away=None), NINE, 20, later)) == (
        "C6",
        "the teams of fixture 4 are not known yet",
    )
    for phase in ("first_half", "halftime", "second_half", "shootout", "finished"):
        assert _refused(lambda: fixture_rules.check_forfeit(_facts(phase=phase), NINE, 20, later)) == (  # noqa: B023
            "C6",
            f"the match of fixture 4 has begun ({phase}): a forfeit is declared before kick-off",
        )


def test_D69_a_forfeit_waits_for_after_minutes_past_the_scheduled_start_in_the_competitions_time() -> None:
    assert _refused(lambda: fixture_rules.check_forfeit(_facts(), NINE, 20, NINE_MS + 20 * 60_000 - 1)) == (
        "C6",
        "a team forfeits only when not ready 20 minutes after the scheduled start: not before 09:20",
    )
    fixture_rules.check_forfeit(_facts(), NINE, 20, NINE_MS + 20 * 60_000)
    assert _refused(lambda: fixture_rules.check_forfeit(_facts(), NINE, 7.5, NINE_MS))[1].endswith(
        "7.5 minutes after the scheduled start: not before 09:07"
    )
    # An abandoned match's fixture is forfeited at once; a fixture without a time any time before kick-off.
    fixture_rules.check_forfeit(_facts(phase="abandoned"), NINE, 20, NINE_MS)
    fixture_rules.check_forfeit(_facts(), None, 20, 0)


def test_D63_the_organiser_decides_only_an_abandoned_or_unrecorded_match_without_a_result() -> None:
    decisions.check_result_decidable(_facts())  # played without the app
    decisions.check_result_decidable(_facts(phase="abandoned"))
    for phase in ("scheduled", "first_half", "finished"):
        assert _refused(lambda: decisions.check_result_decidable(_facts(phase=phase))) == (  # noqa: B023
            "D63",
            f"the match of fixture 4 is {phase}: its result comes from its log, or from a protest decision (C7)",
        )
    for settled in ({"forfeited": True}, {"decided": True}):
        assert _refused(lambda: decisions.check_result_decidable(_facts(phase="abandoned", **settled))) == (  # noqa: B023
            "D63",
            "fixture 4 already has a result: change it by a protest decision (C7)",
        )


def test_C7_a_decided_result_needs_both_teams_and_a_winner_that_fits_its_score_and_shootout() -> None:
    assert _refused(lambda: decisions.decided_winner("a", None, (1, 0), None, None)) == (
        "C7",
        "the teams of this fixture are not known yet: no result can be decided",
    )
    assert decisions.decided_winner("a", "b", (0, 2), None, None) == "b"  # the team with more goals
    assert decisions.decided_winner("a", "b", (1, 1), "a", {"home": 3, "away": 2}) == "a"
    assert decisions.decided_winner("a", "b", (1, 1), None, None) is None  # level, no shootout: no winner (a league)
    for score, winner, shootout, detail in (
        ((1, 0), "c", None, "c does not play this fixture"),
        ((1, 0), "b", None, "the winner is the team with more goals"),
        ((1, 1), "a", {"home": 2, "away": 3}, "the winner is the team that won the shootout"),
    ):
        with pytest.raises(decisions.ResultError) as exc:
            decisions.decided_winner("a", "b", score, winner, shootout)
        assert exc.value.field == "result.winner" and exc.value.detail == detail


def test_C7_a_protest_is_decided_once() -> None:
    decisions.check_protest_open("p1", decided=False)
    assert _refused(lambda: decisions.check_protest_open("p1", decided=True)) == ("C7", "protest p1 was already decided")


def test_D75_a_fixture_moves_until_its_match_is_made_and_never_once_it_is_over() -> None:
    moves.check_movable(4, None, over=False)
    moves.check_movable(4, "abandoned", over=False)  # an abandoned match's fixture moves again
    for phase in ("scheduled", "first_half", "finished"):
        assert _refused(lambda: moves.check_movable(4, phase, over=False)) == (  # noqa: B023
            "D75",
            "fixture #4 has its match: a fixture moves only before its match is made",
        )
    assert _refused(lambda: moves.check_movable(4, "abandoned", over=True)) == (
        "D75",
        "fixture #4 is decided: it no longer moves",
    )
    assert _facts(phase="finished").over and _facts(forfeited=True).over and _facts(decided=True).over
    assert not _facts(phase="abandoned").over


def test_V1_D2_a_1_0_knockout_fixtures_match_goes_to_a_shootout_when_level_a_group_match_stays_a_draw() -> None:
    """C2 with V1-D2: a knockout fixture needs a winner; 1.0 has no shootout, so its knockout matches are
    created with ``shootout_on_draw``; its group matches, and every 2.0 match, are not."""
    assert fixture_rules.shootout_on_draw("1.0", "final")
    assert fixture_rules.shootout_on_draw("1.0", "third_place")
    assert not fixture_rules.shootout_on_draw("1.0", "group")
    assert not fixture_rules.shootout_on_draw("2.0", "final")
    assert not fixture_rules.shootout_on_draw("2.0", "group")
