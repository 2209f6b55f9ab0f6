"""A venue's league fixtures (issue 31 item 4, SPEC L4, API.md "A league competition").

The venue's sender (``upstream.py``) fetches what the central gave this venue whenever it reaches it
(``GET /api/league/assigned``) and keeps it here (``league_fixtures``, migration 35), so that the organiser
makes a fixture's match without the internet, from the rosters and suspensions last fetched (C1, C4): the
lineups are checked against those (409 ``rule`` C4, ``discipline.check_lineup``), the suspended players left
off the match's roster as the central would, and a fixture gets one match here (409 ``conflict``, D376). The
sender then tells the central which match was made of which fixture (a claim), again until it answers; what it
answered (``accepted`` or ``refused``, why) is kept with the fixture.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from marshmallow import ValidationError

from qalisball.match.schemas import LineupSchema, MatchSchema
from qalisball.match.service import Match, MatchService
from qalisball.rules.competition import discipline
from qalisball.rules.competition.discipline import Suspension
from qalisball.rules.errors import RuleViolation
from qalisball.storage.store import Store

log = logging.getLogger(__name__)


class FixtureError(Exception):
    """A refusal: ``status``, ``error`` code, message, and ``fields`` (400) or ``rule`` (409 ``rule``)."""

    def __init__(self, status: int, error: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.extra = status, error, message, extra


class VenueFixtures:
    """The fixtures this venue was given, as last fetched; the matches made of them here; the claims to send."""

    def __init__(self, store: Store, matches: MatchService, clock: Callable[[], int]) -> None:
        self.store, self.matches, self.clock = store, matches, clock
        self._lock = threading.RLock()
        self.rows: dict[str, dict[str, Any]] = {}
        self.fetched_at: str | None = None  # the last fetch this run or before
        self.fetch_error: str | None = None

    def load(self) -> None:
        """Read the fixtures kept (at start-up, under the composition root's D42 guard)."""
        if "league_fixtures" in self.store.db.table_names():
            for r in self.store.db.query("SELECT * FROM league_fixtures ORDER BY id"):
                self.rows[r["id"]] = {**r, "data": json.loads(r["data"])}
                self.fetched_at = max(self.fetched_at or "", r["fetched_at"]) or None

    def forget(self) -> None:
        """Nothing read (the table could not be: D42)."""
        self.rows.clear()
        self.fetched_at = None

    # -- what the central sent ----------------------------------------------------------------------

    def fetched(self, answer: Any) -> int:
        """Keep what ``GET /api/league/assigned`` answered: every fixture it lists, as it lists it now. A fixture it no
        longer lists is dropped unless its match was made here (that one stays, with its claim)."""
        if not isinstance(answer, dict) or not isinstance(answer.get("fixtures"), list):
            raise ValueError("the central's answer is not a list of fixtures")
        fixtures = [x for x in answer["fixtures"] if isinstance(x, dict) and isinstance(x.get("id"), str)]
        at = self._now()
        with self._lock:

            def change() -> list[tuple[str, tuple[Any, ...]]]:
                listed = {x["id"] for x in fixtures}
                for fid, row in list(self.rows.items()):
                    if fid not in listed and row["match_id"] is None:
                        self.store.db.execute("DELETE FROM league_fixtures WHERE id = ?", [fid])
                for x in fixtures:
                    self.store.db.execute(
                        "INSERT INTO league_fixtures (id, data, fetched_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE "
                        "SET data = excluded.data, fetched_at = excluded.fetched_at",
                        [x["id"], json.dumps(x, ensure_ascii=False), at],
                    )
                return []

            self.store.write_records("league_fixtures_fetched", change)
            listed = {x["id"] for x in fixtures}
            for fid in [f for f, row in self.rows.items() if f not in listed and row["match_id"] is None]:
                del self.rows[fid]
            for x in fixtures:
                row = self.rows.setdefault(x["id"], {"id": x["id"], "match_id": None, "claim": None, "claim_error": None})
                row["data"], row["fetched_at"] = x, at
            self.fetched_at, self.fetch_error = at, None
        return len(fixtures)

    def listing(self) -> list[dict[str, Any]]:
        """``GET /api/league/fixtures``: each fixture as last fetched, with the match made of it here and its claim."""
        with self._lock:
            return [
                {
                    **row["data"],
                    "fetched_at": row["fetched_at"],
                    "venue_match": row["match_id"],
                    "claim": row["claim"],
                    "claim_error": row["claim_error"],
                }
                for row in sorted(self.rows.values(), key=lambda r: (r["data"].get("starts_at") or "", r["id"]))
            ]

    # -- the organiser makes the match (C1, C4) -----------------------------------------------------

    def make_match(self, fid: str, body: Any) -> Match:
        try:
            lineup: dict[str, Any] = LineupSchema().load(body)  # the competitions' line-ups, the one schema
        except ValidationError as exc:
            raise FixtureError(400, "invalid", "the lineup does not fit the schema", fields=exc.normalized_messages()) from exc
        with self._lock:
            row = self.rows.get(fid)
            if row is None:
                raise FixtureError(404, "not_found", f"no league fixture {fid} here (GET /api/league/fixtures)")
            x = row["data"]
            if row["match_id"] is not None or x.get("match") or x.get("claimed"):
                made = row["match_id"] or x.get("match") or x.get("claimed")
                raise FixtureError(409, "conflict", f"fixture {fid} already has its match {made}: a fixture has one match")
            teams = {side: x.get(side) for side in ("home", "away")}
            self._check_lineups(x, teams, lineup)
            if x.get("blocked"):
                raise FixtureError(409, "rule", x["blocked"]["message"], rule=x["blocked"]["rule"])
            active = [_suspension(s) for s in x.get("suspensions") or [] if s.get("on_roster", True)]
            for side, t in teams.items():
                assert t is not None
                named = [*lineup[side]["starting"], *(lineup[side].get("players") or [])]
                names = {p["number"]: p["name"] for p in t["players"]}
                try:
                    discipline.check_lineup(
                        t["name"], x["fixture"], named, names, [s for s in active if s.team == t["id"]], x.get("labels")
                    )
                except RuleViolation as exc:
                    raise FixtureError(409, "rule", exc.message, rule=exc.rule, violation=exc) from exc
            try:
                data = MatchSchema().load(self._request(x, teams, lineup, active))
            except ValidationError as exc:
                raise FixtureError(400, "invalid", "the match does not fit the schema", fields=exc.normalized_messages()) from exc
            m = self.matches.create(data)

            def change() -> list[tuple[str, tuple[Any, ...]]]:
                self.store.db.execute(
                    "UPDATE league_fixtures SET match_id = ?, claim = 'pending', claim_error = NULL WHERE id = ?", [m.id, fid]
                )
                return []

            self.store.write_records("league_fixture_match_made", change)
            row["match_id"], row["claim"], row["claim_error"] = m.id, "pending", None
        return m

    @staticmethod
    def _check_lineups(x: dict[str, Any], teams: dict[str, Any], lineup: dict[str, Any]) -> None:
        """The lineups against the rosters fetched, as the central checks them (C1)."""
        if teams["home"] is None or teams["away"] is None:
            blocked = x.get("blocked") or {"rule": "C2", "message": f"the teams of fixture {x.get('fixture')} are not known yet"}
            raise FixtureError(409, "rule", blocked["message"], rule=blocked["rule"])
        starters = x["settings"]["starters"]
        errors: dict[str, list[str]] = {}
        for side, t in teams.items():
            roster = {p["number"] for p in t["players"]}
            for key in ("starting", "players"):
                unknown = [n for n in lineup[side].get(key) or [] if n not in roster]
                if unknown:
                    errors[f"{side}.{key}"] = [f"not on {t['name']}'s roster: {unknown}"]
            start = lineup[side]["starting"]
            if len(start) != starters:
                errors.setdefault(f"{side}.starting", []).append(f"must name exactly {starters} starters, not {len(start)}")
            if len(set(start)) != len(start):
                errors.setdefault(f"{side}.starting", []).append("a starter is named twice")
            squad = lineup[side].get("players")
            if squad is not None and set(start) - set(squad):
                errors.setdefault(f"{side}.players", []).append(
                    f"the starters {sorted(set(start) - set(squad))} are not in the squad"
                )
        if errors:
            raise FixtureError(400, "invalid", "the lineups do not fit the rosters", fields=errors)

    @staticmethod
    def _request(x: dict[str, Any], teams: dict[str, Any], lineup: dict[str, Any], active: list[Suspension]) -> dict[str, Any]:
        """The ``POST /api/matches`` body the central would make of the fixture: suspended players left off."""
        s = x["settings"]
        field = s["field"]
        out: dict[str, Any] = {
            "starters": s["starters"],
            "field": {"length": field["length"], "width": field["width"], "side_lines": field["side_lines"]},
            "rules": s["rules"],
            "venue": s["venue"],
            "starts_at": x.get("starts_at"),
            "officials": dict(x.get("officials") or {}),
        }
        for side, t in teams.items():
            out_now = {a.player for a in active if a.team == t["id"] and a.applies_to(x["fixture"])}
            squad = set(lineup[side].get("players") or [p["number"] for p in t["players"]])
            players = [
                {"number": p["number"], "name": p["name"], "gender": p.get("gender")}
                for p in t["players"]
                if p["number"] in squad and p["number"] not in out_now
            ]
            team: dict[str, Any] = {"name": t["name"], "players": players, "starting": list(lineup[side]["starting"])}
            if t.get("color"):
                team["color"] = t["color"]
            out[side] = team
        return out

    # -- the claims the sender sends ----------------------------------------------------------------

    def claims(self) -> list[dict[str, str]]:
        with self._lock:
            return [{"fixture": r["id"], "match": r["match_id"]} for r in self.rows.values() if r["claim"] == "pending"]

    def answered(self, fid: str, accepted: bool, error: str | None) -> None:
        claim = "accepted" if accepted else "refused"
        with self._lock:
            row = self.rows.get(fid)
            if row is None or (row["claim"], row["claim_error"]) == (claim, error):
                return

            def change() -> list[tuple[str, tuple[Any, ...]]]:
                self.store.db.execute("UPDATE league_fixtures SET claim = ?, claim_error = ? WHERE id = ?", [claim, error, fid])
                return []

            self.store.write_records("league_fixture_claim_answered", change)
            row["claim"], row["claim_error"] = claim, error

    def _now(self) -> str:
        return datetime.fromtimestamp(self.clock() / 1000, UTC).isoformat(timespec="milliseconds")


def _suspension(s: dict[str, Any]) -> Suspension:
    return Suspension(
        str(s["team"]),
        int(s["player"]),
        s["reason"],
        str(s["from_fixture"]),
        int(s["matches"]),
        tuple(str(c) for c in s.get("covers") or []),
        int(s["remaining"]),
    )
