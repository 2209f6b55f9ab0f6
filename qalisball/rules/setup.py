"""The rule core's ``MatchSetup`` from a validated match request (the schema's output, defaults filled in)."""

from __future__ import annotations

from typing import Any

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
