"""CSV in and out for competitions (C1, API.md): teams' rosters, standings, statistics.

Exports are UTF-8 with a byte-order mark and CRLF line ends, written by the match CSV's own writer
(``reports.render.csv_writer``: spreadsheet programs then read Chinese names, and a name such as
``=1+2 FC`` is text, never a formula: D51, D150). Imports are read as UTF-8, else GB18030 (D68); every bad line is reported by its
number (the header is line 1) and nothing is imported then.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any

from qalisball.match.schemas import text_problem
from qalisball.reports.render import csv_writer

TEAM_COLUMNS = ["team", "number", "name", "gender"]
SHIRT_NUMBER = re.compile(r"[0-9]{1,3}")  # ASCII digits only: 0–999


class NotText(ValueError):
    """The upload is neither UTF-8 nor GB18030 text."""


def decode(raw: bytes) -> str:
    """UTF-8 (with or without a byte-order mark); else GB18030, which spreadsheets in China save by default (D68)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return raw.decode("gb18030")
        except UnicodeDecodeError as exc:
            raise NotText("the CSV is neither UTF-8 nor GB18030 text") from exc


def table(columns: list[str], rows: Iterable[dict[str, Any]]) -> str:
    """A CSV document: the header, then one line per row (missing values empty), with a byte-order mark.

    Every cell goes through the one CSV writer of the app, which escapes formulas (D51, D150)."""
    buf = io.StringIO()
    w = csv_writer(buf)
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if r.get(k) is None else r.get(k) for k in columns])
    return "\ufeff" + buf.getvalue()


def teams_csv(teams: Iterable[dict[str, Any]]) -> str:
    """Teams (as ``Team.public()``) one player a line; a team without players is one line without a player."""
    rows: list[dict[str, Any]] = []
    for t in teams:
        if not t["players"]:
            rows.append({"team": t["name"]})  # imported back as a team without its roster yet
        for p in sorted(t["players"], key=lambda p: p["number"]):
            rows.append({"team": t["name"], **p})
    return table(TEAM_COLUMNS, rows)


def _text(column: str, value: str, max_length: int, required: bool = False) -> list[str]:
    """A cell through the one text validator of every route (``schemas.text_problem``: D45, D151)."""
    if required and not value:
        return [f"{column}: empty"]
    problem = text_problem(value, blank=not required)
    if problem is not None:
        return [f"{column}: {problem}"]
    return [f"{column}: longer than {max_length} characters"] if len(value) > max_length else []


def parse_teams(text: str) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[str]]]:
    """Rows of ``team,number,name,gender`` by team name; errors keyed ``line N`` (the header is line 1).

    Rows whose team names differ only in case are one team, named as its first row spells it (D72, D153)."""
    errors: dict[str, list[str]] = {}
    teams: dict[str, list[dict[str, Any]]] = {}
    spelling: dict[str, str] = {}  # a team's name as D72 compares it -> its first spelling in the file (D153)
    seen: dict[tuple[str, int], int] = {}
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        header = next(reader)
    except StopIteration:
        return {}, {"line 1": ["empty: the first line is the header team,number,name,gender"]}
    columns = [h.strip().lower() for h in header]
    if columns[:3] != TEAM_COLUMNS[:3] or columns[3:] not in ([], ["gender"]):
        return {}, {"line 1": [f"the header must be team,number,name,gender, not {','.join(header)}"]}
    line = 1
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            problems: list[str] = []
            if len(row) > len(columns):
                problems.append(f"{len(row)} columns: the header has {len(columns)}")
            cells = [c.strip() for c in row] + [""] * (4 - len(row))
            team, number, name, gender = cells[:4]
            problems += _text("team", team, 80, required=True)
            team = spelling.setdefault(team.casefold(), team)  # "caset" after "CaseT" is CaseT (D153)
            if not number and not name:  # a team without its roster yet
                if not problems:
                    teams.setdefault(team, [])
                else:
                    errors[f"line {line}"] = problems
                continue
            n: int | None = None
            if not SHIRT_NUMBER.fullmatch(number):  # "²".isdigit() and "①".isdigit() are True, and int() fails
                problems.append(f"number: {number!r} is not a shirt number (0–999)")
            else:
                n = int(number)
            problems += _text("name", name, 80, required=True)
            problems += _text("gender", gender, 20)
            if n is not None and team:
                key = (team.casefold(), n)
                if key in seen:
                    problems.append(f"number: {team} #{n} is already on line {seen[key]}")
                else:
                    seen[key] = line
            if problems:
                errors[f"line {line}"] = problems
                continue
            teams.setdefault(team, []).append({"number": n, "name": name, "gender": gender or None})
    except csv.Error as exc:
        errors[f"line {line + 1}"] = [f"not CSV: {exc}"]
    return teams, errors
