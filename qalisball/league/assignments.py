"""A league competition at the central (issue 31 item 4, SPEC L4, API.md "A league competition").

The central's organiser gives a fixture of one of its competitions to a venue (``assign``); the venue fetches
what it was given (``assigned``: each fixture with both teams' rosters, the officials and the competition's
suspensions) whenever it is online, and makes the match there, offline if need be. When the venue's sender
next reaches the central it says which match it made of which fixture (``claim``); once the central holds
that match (its messages ingested, D371) the match is the fixture's (``Desk.link``): live, then finished, and
counted in the standings, the bracket and the suspensions as any other. A fixture has one match: a second
one, from any venue, is a 409 ``conflict`` (D376).

What the league asks of the competitions is ``Desk``, a protocol the composition root fills with the
competitions' ``LeagueDesk`` (D321): the features do not import each other.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from qalisball.league.central import Central, Venue
from qalisball.match.service import NotFound
from qalisball.storage.store import Store

log = logging.getLogger(__name__)


class Desk(Protocol):
    def match_of(self, comp_id: str, fid: str) -> str | None: ...

    def for_venue(self, comp_id: str, fid: str) -> dict[str, Any]: ...

    def link(self, comp_id: str, fid: str, match_id: str) -> str | None: ...

    def late_suspensions(self, comp_id: str, fid: str) -> list[dict[str, Any]]: ...


class AssignError(Exception):
    """A refusal: ``status`` (400, 403, 404, 409), ``error`` code, message, the field for a 400."""

    def __init__(self, status: int, error: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.field = status, error, message, field


@dataclass
class Assignment:
    competition_id: str
    fixture_id: str
    venue_id: str
    assigned_at: str
    match_id: str | None = None  # the match the venue said it made of it
    claimed_at: str | None = None
    fetched_at: str | None = None  # when the venue last fetched it

    @property
    def id(self) -> str:
        """The fixture's id at the venue: the competition's id and the fixture's (fixture ids are per competition)."""
        return f"{self.competition_id}-{self.fixture_id}"


class Assignments:
    """The central's fixtures given to venues, kept in ``league_assignments`` (migration 35) and in memory."""

    def __init__(self, store: Store, central: Central, desk: Desk | None) -> None:
        self.store, self.central, self.desk = store, central, desk
        self._lock = threading.RLock()
        self.by_fixture: dict[tuple[str, str], Assignment] = {}
        central.adopted.append(self.adopted)

    def forget(self) -> None:
        """Nothing read (the table could not be: D42)."""
        self.by_fixture.clear()

    def load(self) -> None:
        """Read the assignments (at start-up, under the composition root's D42 guard)."""
        if "league_assignments" in self.store.db.table_names():
            for r in self.store.db.query("SELECT * FROM league_assignments ORDER BY assigned_at"):
                a = Assignment(
                    r["competition_id"], r["fixture_id"], r["venue_id"], r["assigned_at"], r["match_id"], r["claimed_at"]
                )
                a.fetched_at = r["fetched_at"]
                self.by_fixture[(a.competition_id, a.fixture_id)] = a

    def _desk(self) -> Desk:
        if self.desk is None:
            raise AssignError(404, "not_found", "this server keeps no competitions")
        return self.desk

    def _now(self) -> str:
        return datetime.fromtimestamp(self.central.svc.clock() / 1000, UTC).isoformat(timespec="milliseconds")

    def venue_of(self, comp_id: str, fid: str) -> str | None:
        a = self.by_fixture.get((comp_id, fid))
        return None if a is None else a.venue_id

    # -- the organiser ------------------------------------------------------------------------------

    def assign(self, comp_id: str, fid: str, venue_id: Any) -> Assignment:
        """Give a fixture to a venue (or to another, while no match is made of it): D375."""
        desk = self._desk()
        try:
            current = desk.match_of(comp_id, fid)
        except NotFound as exc:
            raise AssignError(404, "not_found", str(exc)) from exc
        if not isinstance(venue_id, str) or venue_id not in self.central.venues:
            raise AssignError(400, "invalid", f"no venue {venue_id!r} at this central (GET /api/league/venues)", "venue")
        with self._lock:
            held = self.by_fixture.get((comp_id, fid))
            made = current or (held.match_id if held else None)
            if made is not None:
                raise AssignError(409, "conflict", f"fixture {fid} has its match {made}: it stays where it was made")
            a = Assignment(comp_id, fid, venue_id, self._now())

            def change() -> list[tuple[str, tuple[Any, ...]]]:
                self.store.db.execute(
                    "INSERT INTO league_assignments (competition_id, fixture_id, venue_id, assigned_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (competition_id, fixture_id) DO UPDATE SET venue_id = excluded.venue_id, "
                    "assigned_at = excluded.assigned_at, fetched_at = NULL",
                    [comp_id, fid, venue_id, a.assigned_at],
                )
                return [("league_assignments", (comp_id, fid))]

            self.store.write_records("league_fixture_assigned", change)
            self.by_fixture[(comp_id, fid)] = a
        return a

    def public(self, a: Assignment) -> dict[str, Any]:
        """An assignment as the central's organiser sees it, with what the venue may not have known (L4, C7)."""
        late = self.desk.late_suspensions(a.competition_id, a.fixture_id) if self.desk is not None else []
        return {
            "competition": a.competition_id,
            "fixture": a.fixture_id,
            "venue": a.venue_id,
            "assigned_at": a.assigned_at,
            "fetched_at": a.fetched_at,
            "match": a.match_id,
            "late_suspensions": late,
        }

    def of_competition(self, comp_id: str) -> list[Assignment]:
        return [a for (c, _), a in self.by_fixture.items() if c == comp_id]

    # -- the venue (its key) ------------------------------------------------------------------------

    def assigned(self, v: Venue) -> dict[str, Any]:
        """Every fixture given to ``v``, with what making its match needs (C1, C4), as of now."""
        desk = self._desk()
        at = self._now()
        out = []
        with self._lock:
            mine = [a for a in self.by_fixture.values() if a.venue_id == v.id]
            for a in mine:
                out.append({"id": a.id, **desk.for_venue(a.competition_id, a.fixture_id), "claimed": a.match_id})
                a.fetched_at = at
            if mine:
                self.store.write_records(
                    "league_fixtures_fetched",
                    _touch(self.store, [(a.competition_id, a.fixture_id) for a in mine], at),
                )
        return {"venue": v.id, "at": at, "fixtures": out}

    def claim(self, v: Venue, body: Any) -> dict[str, Any]:
        """The venue made ``match`` of ``fixture`` (its id at the venue): recorded, and counted once the match is
        held (now, or when its messages arrive). A fixture another venue has, or with another match: 409 (D376)."""
        if not isinstance(body, dict) or not isinstance(body.get("fixture"), str) or not isinstance(body.get("match"), str):
            raise AssignError(400, "invalid", 'a claim is {"fixture": "<its id at the venue>", "match": "<match id>"}', "fixture")
        fixture_id, match_id = body["fixture"], body["match"]
        with self._lock:
            a = next((x for x in self.by_fixture.values() if x.id == fixture_id), None)
            if a is None:
                raise AssignError(404, "not_found", f"no league fixture {fixture_id} at this central")
            if a.venue_id != v.id:
                raise AssignError(409, "conflict", f"fixture {fixture_id} is given to another venue ({a.venue_id})")
            owner = self.central.match_venue.get(match_id)
            if (owner is not None and owner != v.id) or (owner is None and match_id in self.central.svc.matches):
                raise AssignError(409, "conflict", f"match {match_id} is not this venue's")
            current = self._desk().match_of(a.competition_id, a.fixture_id)
            made = a.match_id or current
            if made is not None and made != match_id:
                raise AssignError(
                    409, "conflict", f"fixture {fixture_id} already has its match {made}: a fixture has one match (L4)"
                )
            if a.match_id is None:
                a.match_id, a.claimed_at = match_id, self._now()

                def change() -> list[tuple[str, tuple[Any, ...]]]:
                    self.store.db.execute(
                        "UPDATE league_assignments SET match_id = ?, claimed_at = ? WHERE competition_id = ? AND fixture_id = ?",
                        [match_id, a.claimed_at, a.competition_id, a.fixture_id],
                    )
                    return [("league_assignments", (a.competition_id, a.fixture_id))]

                self.store.write_records("league_fixture_claimed", change)
            if owner == v.id:
                self._link(a)
        return {"fixture": a.id, "match": match_id, "counted": current == match_id or owner == v.id}

    def adopted(self, match_id: str) -> None:
        """The central now holds a venue's match: the fixture it was claimed for counts it (L4)."""
        with self._lock:
            for a in self.by_fixture.values():
                if a.match_id == match_id and self.central.match_venue.get(match_id) == a.venue_id:
                    self._link(a)

    def _link(self, a: Assignment) -> None:
        assert a.match_id is not None
        self._desk().link(a.competition_id, a.fixture_id, a.match_id)


def _touch(store: Store, keys: list[tuple[str, str]], at: str) -> Any:
    def change() -> list[tuple[str, tuple[Any, ...]]]:
        for comp_id, fid in keys:
            store.db.execute(
                "UPDATE league_assignments SET fetched_at = ? WHERE competition_id = ? AND fixture_id = ?", [at, comp_id, fid]
            )
        return []

    return change
