"""The rule core's ``MatchSetup`` from a validated match request (the schema's output, defaults filled in),
and what the rule book refuses of a new match's field (2.1), which the schema and the new-match form ask here."""

from __future__ import annotations

from typing import Any

from .book import Book
from .errors import N_, RuleViolation
from .field import Field
from .state import MatchSetup, MultiAttackRules, Player, RuleSet, TeamSetup


def build_setup(data: dict[str, Any]) -> MatchSetup:
    """The rule core's view of a validated match (``MatchSchema().load``'s output)."""

    def team(t: dict[str, Any]) -> TeamSetup:
        players = tuple(Player(p["number"], p["name"], p.get("gender")) for p in t["players"])
        return TeamSetup(t["name"], t["color"], players, tuple(t["starting"]))

    r = data["rules"]
    ma = r["multi_attack"]
    multi = MultiAttackRules(
        mode=ma["mode"],
        k=ma["k"],
        teams=tuple(ma["teams"]),
        players=tuple((t, tuple(ma["players"].get(t, ()))) for t in ("home", "away")),
    )
    f = data["field"]
    return MatchSetup(
        home=team(data["home"]),
        away=team(data["away"]),
        starters=data["starters"],
        field=Field(f["length"], f["width"], f["side_lines"]),
        rules=RuleSet(
            r["half_minutes"],
            r["halftime_minutes"],
            r["shootout_rounds"],
            multi,
            # SPEC §11.2: a match stored before rule sets existed is a 2.0 match.
            rule_set=r.get("rule_set", "2.0"),
            shootout_on_draw=r.get("shootout_on_draw", False),
        ),
    )


def field_refusals(book: Book, field: Field) -> dict[str, RuleViolation]:
    """What ``book`` refuses of a new match's ``field``'s shape, keyed by the setting each refusal concerns.

    2.1 (1.0: V1-1): with side lines the field is longer than it is wide. Each refusal cites the book's rule;
    its template (an ``N_`` message id) names the rule in its ``rule`` param, so the schema's 400 and the
    form that shows it say which rule refused (issue 28 item 6: the browser decides nothing).
    """
    refusals: dict[str, RuleViolation] = {}
    if book.longer_than_wide and field.side_lines and field.length <= field.width:
        rule = book.cite("2.1")
        refusals["length"] = RuleViolation(
            rule, N_("With side lines the field must be longer than it is wide (rule {rule})"), {"rule": rule}
        )
    return refusals
