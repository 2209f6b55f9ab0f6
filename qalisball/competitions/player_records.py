"""Players across a competition's matches: suspensions from their cards (C4, D64–D67, D74) and statistics."""

from __future__ import annotations

from typing import Any

from qalisball.competitions.book import CompetitionBook, Snapshot
from qalisball.competitions.records import Competition, schedule_order
from qalisball.rules.competition import discipline
from qalisball.rules.competition.discipline import Appearance, Cards, Suspension


class PlayerRecords:
    """Suspensions (C4) and player statistics, from the cards and rows of the fixtures' match reports.

    It owns each match's report core, kept by seq (D253)."""

    def __init__(self, book: CompetitionBook) -> None:
        self.book = book
        self.reports: dict[str, tuple[int, Any]] = {}  # each match's report core (reports.stats.Core), by seq

    # -- discipline (C4) and statistics ------------------------------------------------------------

    def suspensions(self, c: Competition, snap: Snapshot | None = None) -> list[Suspension]:
        """Every suspension (C4); one of a player not on the kept roster has a negative ``player`` (D74)."""
        return self._suspensions(c, snap)[0]

    def _suspensions(self, c: Competition, snap: Snapshot | None = None) -> tuple[list[Suspension], dict[int, tuple[str, int]]]:
        snap = snap or self.book.snapshot(c)
        order = sorted(c.fixtures, key=schedule_order)  # served in the order they are played (D65, D75)
        by_team: dict[str, list[Appearance]] = {t: [] for t in c.teams}
        # Players not on the kept roster (added in a match, M2): negative keys, never a kept shirt number.
        outside: dict[tuple[str, str], int] = {}
        names: dict[int, tuple[str, int]] = {}  # such a key → (name, number in his match)
        for f in order:
            for side, tid in zip(("home", "away"), snap.teams.get(f.id, (None, None)), strict=True):
                if tid is None or tid not in by_team:
                    continue
                forfeit_by = f.forfeit["team"] if f.forfeit and not f.decision else None
                if forfeit_by == tid:
                    standing = "forfeited"
                elif snap.results.get(f.id) is not None or snap.status[f.id] in ("finished", "abandoned", "forfeit"):
                    standing = "served"
                else:
                    standing = "pending"
                cards: dict[int, Cards] = {}
                roster = self.book.teams[tid].names() if tid in self.book.teams else {}
                for mid in [*f.previous_matches, f.match_id]:  # cards stand even when the result is replaced (D67)
                    for row in self._player_rows(mid, side):
                        got = Cards.from_counts(row["yellow"], row["red"])
                        if got.yellow or got.red:
                            # D74: who he is on the kept roster now, by the number he started the match
                            # with and his name; a late player not on it counts under a key of his own.
                            first = row["numbers"][0] if row.get("numbers") else row["number"]
                            key = discipline.kept_number(first, row["name"], row["added"], roster)
                            if key is None:
                                key = outside.setdefault((tid, " ".join(row["name"].split()).casefold()), -1 - len(outside))
                                names[key] = (row["name"], row["number"])
                            prev = cards.get(key, Cards())
                            cards[key] = Cards(prev.yellow + got.yellow, prev.red + got.red)
                by_team[tid].append(Appearance(f.id, standing, cards))  # type: ignore[arg-type]
        return discipline.suspensions(by_team, c.discipline), names

    def suspensions_json(self, c: Competition) -> list[dict[str, Any]]:
        out = []
        suspensions, outside = self._suspensions(c)
        for s in suspensions:
            t = self.book.teams.get(s.team)
            name, number = outside.get(s.player, ("", s.player))
            out.append(
                {
                    "team": s.team,
                    "player": number,
                    "reason": s.reason,
                    "from_fixture": s.from_fixture,
                    "remaining": s.remaining,
                    # Extras (docs/api-extras.md).
                    "name": name or (t.names().get(s.player, "") if t else ""),
                    "matches": s.matches,
                    "covers": list(s.covers),
                    "on_roster": s.player >= 0,  # D74: a late player not on the kept roster bars nobody there
                }
            )
        return out

    def _player_rows(self, match_id: str | None, side: str) -> list[dict[str, Any]]:
        report = self._report(match_id)
        if report is None:
            return []
        rows: list[dict[str, Any]] = report["stats"]["players"][side]
        lineup = {p["number"]: p for p in report["lineups"][side]["players"]}
        return [
            {
                **r,
                "appeared": bool(lineup.get(r["number"], {}).get("intervals")),
                "added": lineup.get(r["number"], {}).get("added_seq") is not None,  # a late player (M2)
            }
            for r in rows
        ]

    def _report(self, match_id: str | None) -> dict[str, Any] | None:
        """The match's report data (reports/stats.py): its log replayed once per seq (D253), finished or not.

        What depends on the time now (the minutes of a half being played) is added to the kept core on each
        call (``finish``), so a live match's report costs one replay per event, not one per reader.
        """
        if match_id is None or match_id not in self.book.matches.matches:
            return None
        from qalisball.reports.stats import build_core, finish

        m = self.book.matches.get(match_id)
        log = m.log
        seq = log[-1].seq if log else 0
        cached = self.reports.get(match_id)
        if cached is None or cached[0] != seq:
            cached = (seq, build_core(m.id, m.data, m.setup, log, created_at=m.created_at))
            self.reports[match_id] = cached
        return finish(cached[1], self.book.clock())

    def stats(self, c: Competition) -> list[dict[str, Any]]:
        """Player statistics over the competition's matches (those whose result counts, not replaced ones)."""
        snap = self.book.snapshot(c)
        rows: dict[tuple[str, int], dict[str, Any]] = {}
        for f in c.fixtures:
            for side, tid in zip(("home", "away"), snap.teams.get(f.id, (None, None)), strict=True):
                if tid is None:
                    continue
                for r in self._player_rows(f.match_id, side):
                    key = (tid, r["number"])
                    row = rows.setdefault(
                        key,
                        {
                            "team": tid,
                            "number": r["number"],
                            "name": r["name"],
                            "matches": 0,
                            "played_ms": 0,
                            "goals": 0,
                            "shootout_goals": 0,
                            "fouls": 0,
                            "yellow": 0,
                            "red": 0,
                        },
                    )
                    row["matches"] += 1 if r["appeared"] else 0
                    row["played_ms"] += r["played_ms"]
                    row["goals"] += r["goals"]
                    row["shootout_goals"] += r["shootout_scored"]
                    row["fouls"] += r["fouls"]
                    row["yellow"] += r["yellow"]
                    row["red"] += r["red"]
        for (tid, number), row in rows.items():
            t = self.book.teams.get(tid)
            row["name"] = (t.names().get(number) if t else None) or row["name"]
            row["team_name"] = t.name if t else tid
        out = [
            {
                "team": r["team"],
                "number": r["number"],
                "name": r["name"],
                "matches": r["matches"],
                "minutes": (r["played_ms"] + 30_000) // 60_000,
                "goals": r["goals"],
                "shootout_goals": r["shootout_goals"],
                "fouls": r["fouls"],
                "yellow": r["yellow"],
                "red": r["red"],
                "team_name": r["team_name"],
            }
            for r in rows.values()
        ]
        return sorted(out, key=lambda r: (-r["goals"], -r["shootout_goals"], r["team_name"], r["number"]))
