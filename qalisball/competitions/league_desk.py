"""What a league's central asks of its competitions (issue 31 item 4, SPEC L4, API.md "A league competition"):
a fixture given to a venue, what the venue needs to make its match offline (both teams' kept rosters, the
officials, the competition's suspensions, C1 and C4), and the venue's match counted as the fixture's once the
central holds it. The league (``qalisball/league``) gets this part through the composition root (D321): the
features do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from qalisball.competitions.book import CompetitionBook
from qalisball.competitions.fixture_results import FixturesAndResults
from qalisball.competitions.player_records import PlayerRecords
from qalisball.competitions.records import Competition, Fixture
from qalisball.rules.competition import discipline
from qalisball.rules.competition import fixtures as fixture_rules
from qalisball.rules.errors import RuleViolation


class LeagueDesk:
    """The competitions' side of a league competition, at the central."""

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
