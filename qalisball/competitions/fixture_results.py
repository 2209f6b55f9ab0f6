"""Fixtures and their results: a competition's schedule made (C2), a fixture's officials (C5, D66), its
match made from the kept rosters (C1, C4, D70, D73), and a forfeit declared (C6, D69).
The checks are the pure rules of ``rules/competition``; this module gathers their facts and stores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from marshmallow import ValidationError

from qalisball.competitions.book import CompetitionBook, Snapshot
from qalisball.competitions.player_records import PlayerRecords
from qalisball.competitions.records import Competition, Conflict, Fixture, Invalid, Team, new_id
from qalisball.competitions.store import utc_now
from qalisball.match.schemas import MatchSchema
from qalisball.rules.competition import discipline, moves, schedule
from qalisball.rules.competition import fixtures as fixture_rules
from qalisball.rules.competition.discipline import Party, Suspension
from qalisball.rules.competition.schedule import PlanError


class FixturesAndResults:
    """Competitions created with their schedule, and what happens to a fixture before its result.

    Given the book, the player records (a lineup is checked against the suspensions) and the live
    updates' ``changed`` (told after each write that changes a competition's view).
    """

    def __init__(self, book: CompetitionBook, players: PlayerRecords, changed: Callable[[Competition], None]) -> None:
        self.book, self.players, self.changed = book, players, changed

    # -- competitions (C2) -------------------------------------------------------------------------

    def create(self, data: dict[str, Any]) -> Competition:
        unknown = [t for t in data["teams"] if t not in self.book.own_teams()]
        if unknown:
            raise Invalid("unknown teams", {"teams": [f"no such team: {', '.join(unknown)}"]})
        fmt = data["format"]
        try:
            p = schedule.plan(fmt, data["teams"], len(data["fields"]), data["groups"], data["advance"], data["third_place"])
        except PlanError as exc:
            raise Invalid(exc.message, {exc.field: [exc.message]}) from exc
        config = {k: v for k, v in data.items() if k not in ("name", "format", "teams")}
        if fmt != "groups_knockout":
            config.pop("groups", None)
            config.pop("advance", None)
        if fmt not in ("knockout", "groups_knockout"):
            config.pop("third_place", None)
        start = datetime.fromisoformat(data["starts_at"]) if data["starts_at"] else None
        fixtures = [
            Fixture(
                str(x.number),
                x.number,
                x.round,
                x.group or None,
                x.stage,
                x.slot,
                x.field,
                (start + timedelta(minutes=x.slot * data["slot_minutes"])).isoformat() if start else None,
                x.home,
                x.away,
            )
            for x in p.fixtures
        ]
        c = Competition(
            new_id(),
            data["name"],
            fmt,
            config,
            list(data["teams"]),
            [[name, list(teams)] for name, teams in p.groups],
            [{"round": b.round, "team": b.team} for b in p.byes],
            datetime.now(UTC).isoformat(timespec="microseconds"),
            fixtures,
        )
        with self.book.lock:
            self.book.write(
                [("insert", "competitions", c.row()), *(("insert", "fixtures", f.row(c.id)) for f in fixtures)],
                (c.id, "competition_created", {"name": c.name, "format": fmt, "teams": c.teams}),
            )
            self.book.add_competition(c)
        return c

    # -- fixtures: officials (C5), the match (C1, C4), forfeits (C6) -------------------------------

    def set_officials(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        chosen = {role: oid for role, oid in data.items() if oid}
        unknown = {role: [f"no such official: {oid}"] for role, oid in chosen.items() if oid not in self.book.own_officials()}
        if unknown:
            raise Invalid("unknown officials", unknown)
        with self.book.lock:
            snap = self.book.snapshot(c)
            self._check_officials(c, f, chosen, snap)
            f.officials = chosen
            self.book.write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "officials": chosen})],
                (c.id, "officials", {"fixture": f.id, **chosen}),
            )
        self.changed(c)
        return f

    def _check_officials(self, c: Competition, f: Fixture, chosen: dict[str, str], snap: Snapshot) -> None:
        parties = {role: Party(o.id, o.name, o.club) for role, oid in chosen.items() if (o := self.book.officials.get(oid))}
        playing = [
            Party(t.id, t.name, t.club) for tid in snap.teams.get(f.id, (None, None)) if tid and (t := self.book.teams.get(tid))
        ]
        discipline.check_stand_aside(parties, playing)
        elsewhere: dict[str, str] = {}
        slot_ms = int(c.config["slot_minutes"]) * 60_000
        here = self.book.booking(c, f, snap)
        for other in c.fixtures:
            # D66 with D75: less than a slot apart (a moved fixture need not start on the same minute).
            same_time = moves.overlaps(here, self.book.booking(c, other, snap), slot_ms)
            if other.id != f.id and same_time and snap.status.get(other.id) not in ("finished", "forfeit"):
                for oid in other.officials.values():
                    elsewhere[oid] = other.id
        discipline.check_busy(parties, elsewhere)

    def create_match(self, c: Competition, f: Fixture, lineup: dict[str, Any]) -> Any:
        """Make the fixture's match (C1): rosters copied from the teams now, lineups checked for suspensions (C4)."""
        with self.book.lock:
            snap = self.book.snapshot(c)
            home, away = snap.teams[f.id]
            teams = {"home": self.book.teams.get(home or ""), "away": self.book.teams.get(away or "")}
            starters = c.config["match"]["starters"]
            errors: dict[str, list[str]] = {}
            for side, t in teams.items():
                if t is None:
                    continue
                roster = t.names()
                side_lineup = lineup[side]
                for key in ("starting", "players"):
                    unknown = [n for n in side_lineup.get(key) or [] if n not in roster]
                    if unknown:
                        errors[f"{side}.{key}"] = [f"not on {t.name}'s roster: {unknown}"]
                start = side_lineup["starting"]
                if len(start) != starters:
                    errors.setdefault(f"{side}.starting", []).append(f"must name exactly {starters} starters, not {len(start)}")
                if len(set(start)) != len(start):
                    errors.setdefault(f"{side}.starting", []).append("a starter is named twice")
                squad = side_lineup.get("players")
                if squad is not None and set(start) - set(squad):
                    errors.setdefault(f"{side}.players", []).append(
                        f"the starters {sorted(set(start) - set(squad))} are not in the squad"
                    )
            if errors:
                raise Invalid("the lineups do not fit the rosters", errors)
            current = self.book.outcome(f.match_id)
            if f.match_id is not None and current is not None and current.phase != "abandoned":
                raise Conflict(f"fixture {f.id} already has its match {f.match_id}")
            venue = self.book.venue_of(c.id, f.id)
            if venue is not None:  # L4 (D375): a league venue makes this fixture's match
                raise Conflict(f"fixture {f.id} is played at the league's venue {venue}: its match is made there")
            # Known here means kept: the match copies the teams' records (C1).
            known = replace(self.book.facts(f, snap), home=home if teams["home"] else None, away=away if teams["away"] else None)
            fixture_rules.check_match_can_be_made(known, f.home_source, f.away_source)
            active = self.players.suspensions(c, snap)
            labels = {x.id: " – ".join(self.book.name(tid) for tid in snap.teams.get(x.id, (None, None))) for x in c.fixtures}
            for side, t in teams.items():
                assert t is not None
                # The starters, and the squad when one is named (else suspended players are left off the copy).
                named = [*lineup[side]["starting"], *(lineup[side].get("players") or [])]
                discipline.check_lineup(t.name, f.id, named, t.names(), [s for s in active if s.team == t.id], labels)
            chosen = {role: oid for role, oid in f.officials.items() if oid in self.book.officials}
            self._check_officials(c, f, chosen, snap)
            request = self._match_request(c, f, teams, lineup, active)
            try:
                data = MatchSchema().load(request)
            except ValidationError as exc:
                raise Invalid("the match does not fit the schema", exc.normalized_messages()) from exc
            m = self.book.matches.create(data)
            previous = [*f.previous_matches, f.match_id] if f.match_id else list(f.previous_matches)
            self.book.write(
                [
                    (
                        "update",
                        "fixtures",
                        {
                            "competition_id": c.id,
                            "id": f.id,
                            "home": home,
                            "away": away,
                            "match_id": m.id,
                            "previous_matches": previous,
                        },
                    )
                ],
                (c.id, "match_created", {"fixture": f.id, "match": m.id, "lineup": lineup}),
            )
            f.home, f.away, f.match_id, f.previous_matches = home, away, m.id, previous
            self.book.match_made(m.id, c.id, f.id)
        self.changed(c)
        return m

    def _match_request(
        self, c: Competition, f: Fixture, teams: dict[str, Team | None], lineup: dict[str, Any], active: list[Suspension]
    ) -> dict[str, Any]:
        """The ``POST /api/matches`` body of a fixture: kept rosters (suspended players left out), field, rules, officials."""
        fields = c.config["fields"]
        fld = fields[f.field] if f.field < len(fields) else fields[0]
        out: dict[str, Any] = {
            "starters": c.config["match"]["starters"],
            "field": {"length": fld["length"], "width": fld["width"], "side_lines": fld["side_lines"]},
            "rules": self._fixture_rules(c, f),
            "venue": f"{c.name} · {fld['name']}"[:200],
            "starts_at": f.starts_at,
            "officials": {role: self.book.officials[oid].name for role, oid in f.officials.items() if oid in self.book.officials},
        }
        for side, t in teams.items():
            assert t is not None
            out_now = {s.player for s in active if s.team == t.id and s.applies_to(f.id)}
            squad = set(lineup[side].get("players") or t.names())
            players = [
                {"number": p["number"], "name": p["name"], "gender": p.get("gender")}
                for p in sorted(t.players, key=lambda p: p["number"])
                if p["number"] in squad and p["number"] not in out_now
            ]
            team: dict[str, Any] = {"name": t.name, "players": players, "starting": list(lineup[side]["starting"])}
            if t.color:
                team["color"] = t.color
            out[side] = team
        return out

    @staticmethod
    def _fixture_rules(c: Competition, f: Fixture) -> dict[str, Any]:
        """The competition's match rules for this fixture. A knockout fixture needs a winner (C2): under
        rule book 1.0, which has no shootout, its match is created with ``shootout_on_draw`` (V1-D2)."""
        rules = dict(c.config["match"]["rules"])
        if fixture_rules.shootout_on_draw(rules.get("rule_set", "2.0"), f.stage):
            rules["shootout_on_draw"] = True
        return rules

    def forfeit(self, c: Competition, f: Fixture, team: str, reason: str) -> Fixture:
        """C6: the team not ready ``after_minutes`` after the scheduled start forfeits."""
        if team not in c.teams:
            raise Invalid("not a team of this competition", {"team": [f"no team {team} in this competition"]})
        with self.book.lock:
            snap = self.book.snapshot(c)
            home, away = snap.teams[f.id]
            if home is not None and away is not None and team not in (home, away):
                name = self.book.teams[team].name
                raise Invalid("not a team of this fixture", {"team": [f"{name} does not play fixture {f.id}"]})
            starts_at = datetime.fromisoformat(f.starts_at) if f.starts_at else None
            after = c.config["forfeit"]["after_minutes"]
            fixture_rules.check_forfeit(self.book.facts(f, snap), starts_at, after, self.book.clock())
            record = {"team": team, "reason": reason, "at": utc_now()}
            self.book.write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "forfeit": record, "home": home, "away": away})],
                (c.id, "forfeit", {"fixture": f.id, **record}),
            )
            f.forfeit, f.home, f.away = record, home, away
        self.changed(c)
        return f
