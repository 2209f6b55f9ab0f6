"""What the service shows (API.md's competition view, with docs/api-extras.md's extras), built once per
change (D155), and the live updates to screens when a fixture's match or a record changes. Three parts of
the service: ``CompetitionViews`` builds the JSON from the book, ``ViewCache`` keeps what was built per
change, ``LiveUpdates`` tells the listeners.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from qalisball.competitions.book import PART_FRESH_MS, VIEW_FRESH_MS, CachedPart, CachedView, CompetitionBook, Snapshot
from qalisball.competitions.records import LEAGUE, Competition, Fixture, LotsDrawn, as_decision
from qalisball.match.service import MatchService
from qalisball.rules.competition import standings
from qalisball.rules.competition.standings import MatchOutcome, Row

log = logging.getLogger(__name__)

# Listener of live changes: (competition id, kind "fixture" or "competition", payload).
Listener = Callable[[str, str, dict[str, Any]], None]


class ViewCache:
    """The competition views and the public pages' rendered parts, kept per change (D155, D253).

    Every write of the book drops them all (``drop``); a cached view is valid until then, for the seqs of
    its fixtures' matches. They are read and built under the book's lock, which every write holds around
    its in-memory change and its store write, so no half-made change is cached.
    """

    def __init__(self, lock: threading.RLock, clock: Callable[[], int], matches: MatchService) -> None:
        self.lock, self.clock, self.matches = lock, clock, matches
        self.views: dict[str, CachedView] = {}
        # The public pages' rendered parts (D253), by (competition id, part): dropped with the views by every
        # write, and a competition's by a change of its results (``LiveUpdates.changed``).
        self.parts: dict[tuple[str, str], CachedPart] = {}

    def drop(self) -> None:
        """A write: every view and part is out of date."""
        self.views.clear()
        self.parts.clear()

    def drop_parts(self, comp_id: str) -> None:
        with self.lock:
            for key in [k for k in self.parts if k[0] == comp_id]:
                del self.parts[key]

    def _key(self, c: Competition) -> tuple[int, ...]:
        return tuple(self._match_seq(f.match_id) for f in c.fixtures)

    def _match_seq(self, match_id: str | None) -> int:
        m = self.matches.matches.get(match_id) if match_id else None
        return -1 if m is None else m.seq

    def cached_view(self, c: Competition, build: Callable[[Competition], dict[str, Any]]) -> CachedView:
        """``build(c)`` (the view) once per change (D155): a match event (its seq) or any write of the service.

        A crowd of joins (or one connection's storm) then costs a lookup each, not a rebuild of every
        fixture's derived data; while a fixture's clock runs the view is rebuilt at most every VIEW_FRESH_MS.
        """
        with self.lock:
            key = self._key(c)
            now = self.clock()
            held = self.views.get(c.id)
            if held is not None and held.key == key and (not held.ticking or 0 <= now - held.at < VIEW_FRESH_MS):
                return held
            data = build(c)
            ticking = any(fx["live"] and fx["live"]["clock"].get("running") for fx in data["fixtures"])
            text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
            built = CachedView(key, now, ticking, data, text)
            self.views[c.id] = built
            return built

    def cached_part(self, c: Competition, name: str, render: Callable[[], str]) -> str:
        """A public page's part (``name`` says which, and its language), rendered once per change (D253).

        Kept until a write of the service or a change of the competition's results (``drop_parts``, whose
        ``competition`` message makes the pages fetch it again: they are then all answered from one
        render), and while only its fixtures' match seqs moved on, for PART_FRESH_MS. Rendered under
        the lock, as the view is, so no half-made write is kept.
        """
        with self.lock:
            key = self._key(c)
            now = self.clock()
            held = self.parts.get((c.id, name))
            if held is not None and (held.key == key or 0 <= now - held.at < PART_FRESH_MS):
                return held.html
            html = render()
            self.parts[(c.id, name)] = CachedPart(key, now, html)
            return html


class CompetitionViews:
    """The competition view (``GET /api/competitions/<id>``) and its standings, built from the book."""

    def __init__(self, book: CompetitionBook) -> None:
        self.book = book

    def view(self, c: Competition) -> dict[str, Any]:
        """``GET /api/competitions/<id>`` (API.md, with the extras of docs/api-extras.md)."""
        snap = self.book.snapshot(c)
        return {
            "id": c.id,
            "name": c.name,
            "format": c.format,
            "teams": list(c.teams),
            "fixtures": [self._fixture_json(c, f, snap) for f in c.fixtures],
            "standings": self._standings_json(c, snap),
            "byes": list(c.byes),
            # Extras (docs/api-extras.md).
            "groups": {name or LEAGUE: list(members) for name, members in c.groups},
            "config": c.config,
            "team_details": {t: self.book.team_brief(t) for t in c.teams},
            "official_details": {o.id: o.public() for o in self.book.officials_of(c)},
            "lots": [x.public() for x in c.lots],
            "protests": [p.public() for p in c.protests],
            # Ties C3 leaves to lots, once the group is over (before, more results may still break them).
            "unresolved_ties": {
                k: [list(t) for t in standings.unresolved_ties(rows)] if not snap.pending[k] else []
                for k, rows in snap.tables.items()
            },
            "groups_over": {k: not n for k, n in snap.pending.items()},
            "created_at": c.created_at,
            "server_time_ms": self.book.clock(),
        }

    def _fixture_json(self, c: Competition, f: Fixture, snap: Snapshot) -> dict[str, Any]:
        home, away = snap.teams.get(f.id, (None, None))
        r = snap.results.get(f.id)
        fields = c.config["fields"]
        return {
            "id": f.id,
            "round": f.round,
            "group": f.group,
            "stage": f.stage,
            "field": fields[f.field]["name"] if f.field < len(fields) else None,
            "starts_at": f.starts_at,
            "home": home,
            "away": away,
            "officials": dict(f.officials),
            "match": f.match_id,
            "status": snap.status[f.id],
            "result": None
            if r is None
            else {
                "home": r.score[0],
                "away": r.score[1],
                "shootout": None if r.shootout is None else {"home": r.shootout[0], "away": r.shootout[1]},
                "winner": r.winner,
                "forfeit_by": r.forfeit_by,
                "decided_by": r.decided_by,
            },
            "protests": [p.public() for p in c.protests if p.fixture == f.id],
            # Extras (docs/api-extras.md).
            "number": f.number,
            "slot": f.slot,
            "field_index": f.field,
            "home_from": f.home_source.label() if f.home_source.team is None else None,
            "away_from": f.away_source.label() if f.away_source.team is None else None,
            "forfeit": f.forfeit,
            "decision": f.decision,
            "previous_matches": list(f.previous_matches),
            "live": self.live(f.match_id),
            "bracket_changed": snap.changed.get(f.id, []),
        }

    def live(self, match_id: str | None) -> dict[str, Any] | None:
        """The match as screens show it next to its fixture: phase, score, clock (extras)."""
        if match_id is None or match_id not in self.book.matches.matches:
            return None
        s = self.book.matches.state(self.book.matches.get(match_id), legal=False)
        return {
            "phase": s["phase"],
            "period": s["period"],
            "score": s["score"],
            "shootout": s["shootout"]["score"] if s["shootout"] else None,
            "clock": s["clock"],
            "time_up": s.get("time_up", False),
            "server_time_ms": s.get("server_time_ms"),
            "seq": s["seq"],
        }

    def standings(self, c: Competition) -> dict[str, list[dict[str, Any]]]:
        return self._standings_json(c, self.book.snapshot(c))

    def standings_if(self, c: Competition, what_if: dict[str, MatchOutcome]) -> dict[str, list[dict[str, Any]]]:
        """The standings had these matches ended otherwise (issue 24's what-if: computed, never stored)."""
        return self._standings_json(c, self.book.snapshot(c, what_if))

    def _standings_json(self, c: Competition, snap: Snapshot) -> dict[str, list[dict[str, Any]]]:
        decided = {f.id: f.decision for f in c.fixtures if f.decision}
        lots = {x.id: x for x in c.lots}
        out: dict[str, list[dict[str, Any]]] = {}
        for key, rows in snap.tables.items():
            over = not snap.pending[key]
            out[key] = [
                {
                    "rank": r.rank,
                    "team": r.team,
                    "name": self.book.teams[r.team].name if r.team in self.book.teams else r.team,
                    "played": r.played,
                    "won": r.won,
                    "drawn": r.drawn,  # extra (docs/api-extras.md): level 1.0 matches (V1-D2)
                    "shootout_won": r.shootout_won,
                    "shootout_lost": r.shootout_lost,
                    "lost": r.lost,
                    "goals_for": r.goals_for,
                    "goals_against": r.goals_against,
                    "goal_difference": r.goal_difference,
                    "points": r.points,
                    "note": _note(r, decided, lots, over),
                    # Extras (docs/api-extras.md): the note's parts, for pages that word them.
                    "tiebreak": None if r.tiebreak == "unresolved" and not over else r.tiebreak,
                    "lots": r.lots,
                    "forfeits": list(r.forfeits),
                    "decisions": [
                        {"fixture": fid, "by": decided[fid].get("by"), "text": decided[fid].get("text", "")}
                        for fid in r.decisions
                    ],
                }
                for r in rows
            ]
        return out


class LiveUpdates:
    """The live updates (API.md "Competitions"): a fixture's live score on each of its match's events, the
    whole view when a result or a record changes. It owns the listeners and the status last published."""

    def __init__(self, book: CompetitionBook, cache: ViewCache, shown: CompetitionViews) -> None:
        self.book, self.cache, self.shown = book, cache, shown
        self.listeners: list[Listener] = []
        self.published: dict[tuple[str, str], str] = {}  # the status last published per (competition, fixture)

    def listen(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def on_match_event(self, match_id: str) -> None:
        """A match's event is committed: its fixture's live score, and the whole view when its status moves."""
        where = self.book.fixture_of(match_id)
        if where is None:
            return
        c = self.book.competitions.get(where[0])
        if c is None:
            return
        f = c.fixture(where[1])
        if f.match_id != match_id:
            return  # a replaced match: its events no longer count
        live = self.shown.live(match_id)
        self._emit(c.id, "fixture", {"competition": c.id, "fixture": f.id, "match": match_id, "live": live})
        outcome = self.book.outcome(match_id)
        key = (c.id, f.id)
        status = standings.fixture_status(
            outcome.phase if outcome else None, f.forfeit["team"] if f.forfeit else None, as_decision(f.decision)
        )
        if status != self.published.get(key) or status in ("finished", "abandoned"):
            self.published[key] = status
            self.changed(c)

    def changed(self, c: Competition) -> None:
        """``c``'s records or results changed (after the write): the pages fetch their parts again, rendered
        anew once (D253), and the listeners get the view, cached for the joins that follow."""
        self.cache.drop_parts(c.id)
        if self.listeners:
            self._emit(c.id, "competition", self.cache.cached_view(c, self.shown.view).data)

    def _emit(self, comp_id: str, kind: str, payload: dict[str, Any]) -> None:
        for listener in self.listeners:
            listener(comp_id, kind, payload)


def _note(r: Row, decided: dict[str, dict[str, Any]], lots: dict[str, LotsDrawn], over: bool) -> str:
    """The standings row's note (API.md ``note``): what broke a tie, forfeits, decisions, in English."""
    parts: list[str] = []
    words = {
        "head_to_head": "ranked by head-to-head points",
        "goal_difference": "ranked by goal difference",
        "goals_for": "ranked by goals scored",
        "unresolved": "level: a drawing of lots is needed",
    }
    if r.tiebreak == "lots" and r.lots in lots:
        text = lots[r.lots].text
        parts.append("ranked by a drawing of lots" + (f" ({text})" if text else ""))
    elif r.tiebreak in words and (over or r.tiebreak != "unresolved"):
        parts.append(words[r.tiebreak])
    for fid in r.forfeits:
        parts.append(f"forfeited fixture {fid}")
    for fid in r.decisions:
        d = decided.get(fid) or {}
        who = "protest upheld" if d.get("by") == "protest" else "result decided by the organiser"
        parts.append(f"fixture {fid}: {who}" + (f": {d['text']}" if d.get("text") else ""))
    return "; ".join(parts)
