"""Kept teams and officials (C1, D68, D72): created, renamed, imported from CSV and exported again."""

from __future__ import annotations

from typing import Any

from qalisball.competitions import csv_io as competition_csv
from qalisball.competitions.book import CompetitionBook
from qalisball.competitions.records import Invalid, Official, Team, new_id, sorted_players, team_row
from qalisball.competitions.store import utc_now
from qalisball.match.service import NotFound


class TeamsAndOfficials:
    """Kept teams (C1) and officials, shared by every competition: kept in the book."""

    def __init__(self, book: CompetitionBook) -> None:
        self.book = book

    # -- teams (C1) ------------------------------------------------------------------------------

    def team(self, team_id: str) -> Team:
        t = self.book.teams.get(team_id)
        if t is None:
            raise NotFound(f"no team {team_id}")
        return t

    def _name_taken(self, name: str, but: str | None = None) -> bool:
        key = name.strip().casefold()
        return any(t.name.strip().casefold() == key and t.id != but for t in self.book.own_teams().values())

    def create_team(self, data: dict[str, Any]) -> Team:
        with self.book.lock:
            if self._name_taken(data["name"]):
                raise Invalid(
                    "a team of that name exists", {"name": [f"a team named {data['name']!r} exists: change it with PATCH"]}
                )
            now = utc_now()
            t = Team(
                new_id(), data["name"], data["short"], data["color"], data["club"], sorted_players(data["players"]), now, now
            )
            self.book.write([("insert", "teams", team_row(t))], (None, "team_created", t.public()))
            self.book.put_team(t)
            return t

    def update_team(self, team_id: str, data: dict[str, Any]) -> Team:
        with self.book.lock:
            t = self.team(team_id)
            if "name" in data and self._name_taken(data["name"], but=t.id):
                raise Invalid("a team of that name exists", {"name": [f"another team is named {data['name']!r}"]})
            changed = Team(**{**t.__dict__, **{k: v for k, v in data.items() if k != "players"}})
            if "players" in data:
                changed.players = sorted_players(data["players"])
            changed.updated_at = utc_now()
            self.book.write([("update", "teams", team_row(changed))], (None, "team_updated", {"id": t.id, **data}))
            self.book.put_team(changed)
            return changed

    def import_csv(self, text: str) -> list[Team]:
        """C1: create or update teams by name from ``team,number,name,gender`` (header on line 1).

        A player with the same number is updated, new ones are added, none removed. Any bad line makes
        the whole import a 400 naming every bad line; nothing is stored then.
        """
        rows, errors = competition_csv.parse_teams(text)
        if errors:
            first = next(iter(errors))
            raise Invalid(f"{first}: {errors[first][0]}", errors)
        with self.book.lock:
            by_name = {t.name.strip().casefold(): t for t in self.book.own_teams().values()}
            changes: list[tuple[str, str, dict[str, Any]]] = []
            out: list[Team] = []
            now = utc_now()
            for name, players in rows.items():
                existing = by_name.get(name.strip().casefold())
                if existing is None:
                    t = Team(new_id(), name, None, None, None, sorted_players(players), now, now)
                    changes.append(("insert", "teams", team_row(t)))
                else:
                    merged = {p["number"]: p for p in existing.players}
                    merged.update({p["number"]: p for p in players})
                    t = Team(**{**existing.__dict__, "players": sorted_players(merged.values()), "updated_at": now})
                    changes.append(("update", "teams", team_row(t)))
                if len(t.players) > 60:
                    raise Invalid(
                        "too many players", {"players": [f"team {name!r} would have {len(t.players)} players: at most 60"]}
                    )
                out.append(t)
            self.book.write(changes, (None, "teams_imported", {"teams": [t.name for t in out]}))
            for t in out:
                self.book.put_team(t)
            return out

    def export_csv(self) -> str:
        """The kept teams as CSV (``team,number,name,gender``), UTF-8 with a byte-order mark as the match CSV."""
        return competition_csv.teams_csv(
            t.public() for t in sorted(self.book.own_teams().values(), key=lambda t: (t.created_at, t.id))
        )

    # -- officials -----------------------------------------------------------------------------------

    def create_official(self, data: dict[str, Any]) -> Official:
        with self.book.lock:
            o = Official(new_id(), data["name"], data["club"], utc_now())
            self.book.write([("insert", "officials", o.__dict__.copy())], (None, "official_created", o.public()))
            self.book.put_official(o)
            return o
