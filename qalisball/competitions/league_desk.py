"""What a league's central asks of its competitions (issue 31 item 4, SPEC L4, API.md "A league competition"):
a fixture given to a venue, what the venue needs to make its match offline (both teams' kept rosters, the
officials, the competition's suspensions, C1 and C4), and the venue's match counted as the fixture's once the
central holds it. The league (``qalisball/league``) gets this part through the composition root (D321): the
features do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from qalisball.competitions.book import (
    CompetitionBook,
    competition_of_row,
    fixture_of_row,
    lots_of_row,
    official_of_row,
    protest_of_row,
    team_of_row,
)
from qalisball.competitions.fixture_results import FixturesAndResults
from qalisball.competitions.player_records import PlayerRecords
from qalisball.competitions.records import Competition, Fixture, Official, Team, team_row
from qalisball.rules.competition import discipline
from qalisball.rules.competition import fixtures as fixture_rules
from qalisball.rules.errors import RuleViolation


@dataclass(frozen=True)
class CompetitionCopy:
    """A venue's competition as it sent it (D379): the records, checked; held read-only at the central."""

    competition: Competition
    teams: list[Team]
    officials: list[Official]
    records: dict[str, Any]  # as sent: what the central stores, and reads again at its restart

    def names(self) -> dict[str, set[str]]:
        """Every id the copy writes at the central, by kind: a venue key writes only its own (L1)."""
        c = self.competition
        return {
            "competition": {c.id},
            "team": {t.id for t in self.teams},
            "official": {o.id for o in self.officials},
            "match": {m for f in c.fixtures for m in [*f.previous_matches, f.match_id] if m},
        }


class LeagueDesk:
    """The competitions' side of a league competition, at the central; and of a venue's own competitions, held
    read-only at its central (issue 31 item 2, D379)."""

    def __init__(
        self,
        book: CompetitionBook,
        players: PlayerRecords,
        fixtures: FixturesAndResults,
        changed: Callable[[Competition], None],
    ) -> None:
        self.book, self.players, self.fixtures, self.changed = book, players, fixtures, changed

    def fixture(self, comp_id: str, fid: str) -> tuple[Competition, Fixture]:
        """The competition and its fixture (``NotFound``, a 404, for either unknown)."""
        c = self.book.get(comp_id)
        return c, c.fixture(fid)

    def match_of(self, comp_id: str, fid: str) -> str | None:
        """The match the fixture has at the central (made there, or a venue's counted), or None."""
        return self.fixture(comp_id, fid)[1].match_id

    def for_venue(self, comp_id: str, fid: str) -> dict[str, Any]:
        """What a venue needs to make the fixture's match without the central (C1, C4): the match's settings as
        ``create_match`` would make them, both teams' kept rosters, the officials, every suspension of the two
        teams, and why the match cannot be made yet (``blocked``: the teams not known, a forfeit, a decision)."""
        with self.book.lock:
            c, f = self.fixture(comp_id, fid)
            snap = self.book.snapshot(c)
            home, away = snap.teams.get(f.id, (None, None))
            fields = c.config["fields"]
            fld = fields[f.field] if f.field < len(fields) else fields[0]
            blocked = None
            try:
                known = replace(
                    self.book.facts(f, snap),
                    home=home if home in self.book.teams else None,
                    away=away if away in self.book.teams else None,
                )
                fixture_rules.check_match_can_be_made(known, f.home_source, f.away_source)
            except RuleViolation as exc:
                blocked = {"rule": exc.rule, "message": exc.message}
            playing = {t for t in (home, away) if t}
            suspensions = [s for s in self.players.suspensions_json(c) if s["team"] in playing]
            labels = {
                x.id: " – ".join(self.book.name(tid) for tid in snap.teams.get(x.id, (None, None)))
                for x in c.fixtures
                if any(s["from_fixture"] == x.id for s in suspensions)
            }
            return {
                "competition": {"id": c.id, "name": c.name},
                "fixture": f.id,
                "number": f.number,
                "stage": f.stage,
                "group": f.group,
                "round": f.round,
                "starts_at": f.starts_at,
                "status": snap.status.get(f.id),
                "match": f.match_id,
                "blocked": blocked,
                "settings": {
                    "starters": c.config["match"]["starters"],
                    "field": {
                        "name": fld["name"],
                        "length": fld["length"],
                        "width": fld["width"],
                        "side_lines": fld["side_lines"],
                    },
                    "rules": self.fixtures._fixture_rules(c, f),
                    "venue": f"{c.name} · {fld['name']}"[:200],
                },
                "home": self._team(home),
                "away": self._team(away),
                "officials": {
                    role: self.book.officials[oid].name for role, oid in f.officials.items() if oid in self.book.officials
                },
                "suspensions": suspensions,
                "labels": labels,
            }

    def _team(self, team_id: str | None) -> dict[str, Any] | None:
        t = self.book.teams.get(team_id or "")
        if t is None:
            return None
        players = [{"number": p["number"], "name": p["name"], "gender": p.get("gender")} for p in t.players]
        return {**(self.book.team_brief(t.id) or {}), "players": sorted(players, key=lambda p: p["number"])}

    def link(self, comp_id: str, fid: str, match_id: str) -> str | None:
        """Count a venue's match (held here) as the fixture's (L4): its events are the fixture's from now on, in the
        standings, the bracket and the suspensions. The fixture's other match, when it has one (nothing changed)."""
        with self.book.lock:
            c, f = self.fixture(comp_id, fid)
            if f.match_id == match_id:
                return None
            if f.match_id is not None:
                return f.match_id
            snap = self.book.snapshot(c)
            home, away = snap.teams.get(f.id, (None, None))
            self.book.write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "home": home, "away": away, "match_id": match_id})],
                (c.id, "match_created", {"fixture": f.id, "match": match_id, "venue_match": True}),
            )
            f.home, f.away, f.match_id = home, away, match_id
            self.book.match_made(match_id, c.id, f.id)
        self.changed(c)
        return None

    def late_suspensions(self, comp_id: str, fid: str) -> list[dict[str, Any]]:
        """Suspensions for this fixture of players its venue's match names (L4 with C7): the central learnt of
        them after the venue fetched (a card in another venue's match that had not arrived). Shown next to the
        fixture; the result stands until the organiser decides."""
        with self.book.lock:
            c, f = self.fixture(comp_id, fid)
            if f.match_id is None or f.match_id not in self.book.matches.matches:
                return []
            snap = self.book.snapshot(c)
            setup = self.book.matches.get(f.match_id).data
            active = self.players.suspensions(c, snap)
            out = []
            for side, tid in zip(("home", "away"), snap.teams.get(f.id, (None, None)), strict=True):
                t = self.book.teams.get(tid or "")
                if t is None:
                    continue
                named = [int(p["number"]) for p in setup[side]["players"]]
                for s in discipline.unserved(f.id, named, [s for s in active if s.team == t.id]):
                    out.append(
                        {
                            "team": t.id,
                            "team_name": t.name,
                            "player": s.player,
                            "name": t.names().get(s.player, ""),
                            "reason": s.reason,
                            "from_fixture": s.from_fixture,
                        }
                    )
            return out

    def marks(self, c: Competition) -> dict[str, dict[str, Any]]:
        """The organiser's page: per fixture given to a league venue, the venue and the late suspensions (D378)."""
        out = {}
        for f in c.fixtures:
            venue = self.book.venue_of(c.id, f.id)
            if venue is not None:
                out[f.id] = {"venue": venue, "late": self.late_suspensions(c.id, f.id)}
        return out

    # -- a venue's own competitions at its central (issue 31 item 2, SPEC L1, D379) ------------------------------

    def records(self, comp_id: str) -> dict[str, Any] | None:
        """At a venue: the competition's records as stored now, with the kept teams and officials it names: what the
        sender attaches to the competition's journal messages, so that the central holds what the venue holds."""
        with self.book.lock:
            c = self.book.competitions.get(comp_id)
            if c is None:
                return None
            team_ids = [*c.teams, *(t for f in c.fixtures for t in (f.home, f.away) if t and t not in c.teams)]
            official_ids = {o for f in c.fixtures for o in f.officials.values()}
            return {
                "competition": c.row(),
                "fixtures": [f.row(c.id) for f in c.fixtures],
                "moves": {f.id: f.moves for f in c.fixtures if f.moves},
                "protests": [
                    {
                        "id": p.id,
                        "competition_id": c.id,
                        "fixture_id": p.fixture,
                        "team": p.team,
                        "text": p.text,
                        "filed_at": p.filed_at,
                        "decision": p.decision,
                    }
                    for p in c.protests
                ],
                "lots": [
                    {"id": x.id, "competition_id": c.id, "teams": x.teams, "text": x.text, "drawn_at": x.drawn_at} for x in c.lots
                ],
                "teams": [team_row(self.book.teams[t]) for t in dict.fromkeys(team_ids) if t in self.book.teams],
                "officials": [dict(o.__dict__) for o in self.book.officials.values() if o.id in official_ids],
            }

    def read_copy(self, comp_id: str, records: Any) -> CompetitionCopy:
        """A venue's competition as it sent it, checked whole before anything is stored (``ValueError``: it is not
        one). Read with the store's own readers, so that the copy is the records the venue stored."""
        try:
            if not isinstance(records, dict):
                raise TypeError("the records are an object")
            c = competition_of_row(_row(records["competition"], ("config",), ("teams", "groups", "byes")))
            if c.id != comp_id or not _ids(c.teams) or not isinstance(c.name, str):
                raise ValueError("the competition is not the message's subject, or has no teams")
            moves = records.get("moves") or {}
            for r in _rows(records, "fixtures"):
                if r.get("competition_id") != c.id or not isinstance(r.get("id"), str):
                    raise ValueError("a fixture of another competition")
                f = fixture_of_row(r)
                if not all(isinstance(m, str) for m in [*f.previous_matches, *([f.match_id] if f.match_id else [])]):
                    raise ValueError(f"fixture {f.id}: a match id is text")
                f.moves = int(moves.get(f.id, 0))
                c.fixtures.append(f)
            for r in _rows(records, "protests"):
                c.protests.append(protest_of_row(r))
            for r in _rows(records, "lots"):
                c.lots.append(lots_of_row(r))
            teams = [team_of_row(_row(r, (), ("players",))) for r in _rows(records, "teams")]
            for t in teams:
                if (
                    not isinstance(t.id, str)
                    or not isinstance(t.name, str)
                    or not all(
                        isinstance(p, dict) and isinstance(p.get("number"), int) and isinstance(p.get("name"), str)
                        for p in t.players
                    )
                ):
                    raise ValueError(f"team {t.id!r} is not a kept team")
            officials = [official_of_row(r) for r in _rows(records, "officials")]
            if not all(isinstance(o.id, str) and isinstance(o.name, str) for o in officials):
                raise ValueError("an official is not one")
            self.book.snapshot(c)  # what every view of it derives: a copy that cannot be shown is refused here
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise ValueError(f"competition {comp_id}'s records are not a competition's ({exc})") from exc
        return CompetitionCopy(c, teams, officials, records)

    def holds(self, kind: str, record_id: str) -> bool:
        """Whether this server holds a competition, team or official of that id (its own or a venue's copy)."""
        held = {"competition": self.book.competitions, "team": self.book.teams, "official": self.book.officials}
        return record_id in held.get(kind, {})

    def competition_of_match(self, match_id: str) -> str | None:
        """The competition one of whose fixtures names ``match_id`` (its match, or one it replaced), or None."""
        where = self.book.fixture_of(match_id)
        return None if where is None else where[0]

    def hold(self, copy: CompetitionCopy) -> None:
        """Hold the copy (stored by the league first): listed, shown, followed live and reported as this server's own
        competitions are; every write to it is the league's 403 (L1)."""
        with self.book.lock:
            self.book.hold_copy(copy.competition, copy.teams, copy.officials)
        self.changed(copy.competition)


def _rows(records: dict[str, Any], name: str) -> list[dict[str, Any]]:
    rows = records.get(name) or []
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise TypeError(f"{name} is a list of rows")
    return rows


def _row(r: Any, objects: tuple[str, ...], lists: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(r, dict):
        raise TypeError("a row is an object")
    for k in objects:
        if not isinstance(r.get(k), dict):
            raise TypeError(f"{k} is an object")
    for k in lists:
        if not isinstance(r.get(k) or [], list):
            raise TypeError(f"{k} is a list")
    return r


def _ids(values: Any) -> bool:
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)
