"""The organiser's decisions: a result for an abandoned or unrecorded match (D63), protests decided as the
arbitration committee (C7), and drawings of lots (C3, D61). The rules are ``rules/competition``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qalisball.competitions.book import CompetitionBook
from qalisball.competitions.records import LEAGUE, WHAT_IF_RECORD, Competition, Fixture, Invalid, LotsDrawn, Protest, new_id
from qalisball.competitions.store import utc_now
from qalisball.match.service import NotFound
from qalisball.rules.competition import decisions, standings


class ProtestsAndDecisions:
    """Results decided by the organiser (D63) or on a protest (C7), and drawings of lots (C3).

    Given the book and the live updates' ``changed``."""

    def __init__(self, book: CompetitionBook, changed: Callable[[Competition], None]) -> None:
        self.book, self.changed = book, changed

    def decide_result(self, c: Competition, f: Fixture, data: dict[str, Any]) -> Fixture:
        """D63: the organiser's result for a fixture whose match was abandoned, or was played without the app."""
        with self.book.lock:
            snap = self.book.snapshot(c)
            home, away = snap.teams[f.id]
            result = self._result_of(home, away, data)
            decisions.check_result_decidable(self.book.facts(f, snap))
            record = {**result, "by": "organiser", "protest": None, "text": data["text"], "at": utc_now()}
            self.book.write(
                [("update", "fixtures", {"competition_id": c.id, "id": f.id, "decision": record, "home": home, "away": away})],
                (c.id, "result", {"fixture": f.id, **record}),
            )
            f.decision, f.home, f.away = record, home, away
        self.changed(c)
        return f

    def _result_of(self, home: str | None, away: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """A decided result's JSON (400 on a winner that does not fit, 409 C7 while the teams are unknown)."""
        so = data.get("shootout")
        try:
            winner = decisions.decided_winner(home, away, (data["home"], data["away"]), data.get("winner"), so)
        except decisions.ResultError as exc:
            raise Invalid(exc.message, {exc.field: [exc.detail]}) from exc
        return {"home": data["home"], "away": data["away"], "winner": winner, "shootout": so}

    # -- protests (C7) and lots (C3) ---------------------------------------------------------------

    def file_protest(self, c: Competition, data: dict[str, Any]) -> Protest:
        try:
            f = c.fixture(data["fixture"])
        except NotFound as exc:
            raise Invalid("no such fixture", {"fixture": [str(exc)]}) from exc
        with self.book.lock:
            home, away = self.book.snapshot(c).teams[f.id]
            if data["team"] not in (home, away):
                raise Invalid("not a team of this fixture", {"team": [f"{data['team']} does not play fixture {f.id}"]})
            p = Protest(new_id(), f.id, data["team"], data["text"], utc_now())
            self.book.write(
                [
                    (
                        "insert",
                        "protests",
                        {
                            "id": p.id,
                            "competition_id": c.id,
                            "fixture_id": f.id,
                            "team": p.team,
                            "text": p.text,
                            "filed_at": p.filed_at,
                            "decision": None,
                        },
                    )
                ],
                (c.id, "protest", p.public()),
            )
            c.protests.append(p)
        self.changed(c)
        return p

    def decide_protest(self, c: Competition, protest_id: str, data: dict[str, Any]) -> Protest:
        """C7: rejected, or upheld with a new result or a replay; the match's own log is not changed."""
        p = next((x for x in c.protests if x.id == protest_id), None)
        if p is None:
            raise NotFound(f"no protest {protest_id} in competition {c.id}")
        with self.book.lock:
            f = c.fixture(p.fixture)
            home, away = self.book.snapshot(c).teams[f.id]
            result = self._result_of(home, away, data["result"]) if data.get("result") else None
            decisions.check_protest_open(p.id, p.decision is not None)
            decision = {
                "upheld": data["upheld"],
                "text": data["text"],
                "result": result,
                "replay": data["replay"],
                "at": utc_now(),
            }
            if data.get("what_if"):  # the what-if the committee looked at (issue 24, D188): its request only
                if f.match_id is None:
                    raise Invalid("no match to look at", {"what_if": ["this fixture has no match of the app"]})
                decision["what_if"] = {"match": f.match_id, **data["what_if"]}
                record = data.get("what_if_record")
                if record is not None and record.get("match") == f.match_id:
                    decision[WHAT_IF_RECORD] = record  # D251: what the report prints, computed once
            changes: list[tuple[str, str, dict[str, Any]]] = [("update", "protests", {"id": p.id, "decision": decision})]
            fixture_change: dict[str, Any] = {}
            if result is not None:
                fixture_change = {
                    "decision": {**result, "by": "protest", "protest": p.id, "text": data["text"], "at": decision["at"]}
                }
            elif data["replay"]:
                previous = [*f.previous_matches, f.match_id] if f.match_id else list(f.previous_matches)
                fixture_change = {"match_id": None, "previous_matches": previous, "forfeit": None, "decision": None}
            if fixture_change:
                changes.append(
                    ("update", "fixtures", {"competition_id": c.id, "id": f.id, "home": home, "away": away, **fixture_change})
                )
            logged = {k: v for k, v in decision.items() if k != WHAT_IF_RECORD}  # the request is the record (D188)
            self.book.write(changes, (c.id, "protest_decided", {"protest": p.id, **logged}))
            p.decision = decision
            if fixture_change:
                f.home, f.away = home, away
                for k, v in fixture_change.items():
                    setattr(f, k, v)
        self.changed(c)
        return p

    def record_lots(self, c: Competition, data: dict[str, Any]) -> LotsDrawn:
        drawn = data["teams"]
        unknown = [t for t in drawn if t not in c.teams]
        if unknown:
            raise Invalid("not teams of this competition", {"teams": [f"not in this competition: {', '.join(unknown)}"]})
        group = next(((name, members) for name, members in c.groups if set(drawn) <= set(members)), None)
        if group is None:
            raise Invalid("teams of different groups", {"teams": ["lots are drawn among teams of one group"]})
        with self.book.lock:
            snap = self.book.snapshot(c)
            name, members = group
            key = name or LEAGUE
            counted = [r for f in c.fixtures if f.stage == "group" and (f.group or "") == name and (r := snap.results.get(f.id))]
            standings.check_lots([t for t in members if t not in snap.voided], counted, c.points, drawn, snap.pending[key])
            x = LotsDrawn(new_id(), list(drawn), data["text"], utc_now())
            self.book.write(
                [
                    (
                        "insert",
                        "lots",
                        {"id": x.id, "competition_id": c.id, "teams": x.teams, "text": x.text, "drawn_at": x.drawn_at},
                    )
                ],
                (c.id, "lots", x.public()),
            )
            c.lots.append(x)
        self.changed(c)
        return x
