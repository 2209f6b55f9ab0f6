"""The layout of qalisball/ (issue 21): a package per feature on a small kernel, and the contracts that keep it.

- ``lint-imports`` (import-linter, ``.importlinter``) keeps its contracts: the rule core imports nothing of
  the rest; features do not import each other's web modules (api, pages, live); server > features >
  kernels (web, live, storage) > rules, none importing upwards. ``make lint`` runs it too.
- No module sits directly in ``qalisball/`` but ``__init__.py`` and ``__main__.py``.
- Storage imports no feature: features add their migrations to ``storage/migrations.py``.
- The web layer has one road into the rules, the service: a late call's ``fits_after`` (M1 with M3)
  is the match service's answer, not the API's own replay.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.conftest import FakeClock, MatchDriver

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "qalisball"


def test_issue_21_import_contracts_are_kept() -> None:
    """CI runs import-linter's contracts: a broken one names the import that breaks it."""
    lint_imports = Path(sys.executable).with_name("lint-imports")
    assert lint_imports.exists(), "import-linter is in requirements-dev.txt"
    done = subprocess.run([str(lint_imports)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    contracts = (ROOT / ".importlinter").read_text(encoding="utf-8").count("[importlinter:contract:")
    assert f"Contracts: {contracts} kept, 0 broken." in done.stdout


def test_issue_21_no_module_sits_outside_a_feature_or_kernel_package() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == [], f"{loose}: put each module in its feature (match, competitions, venue, reports) or kernel"
    # Every package has its place in the layer contract (a new feature too), so that lint-imports checks it.
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    layers = (ROOT / ".importlinter").read_text(encoding="utf-8").split("layers =\n", 1)[1].split("\n\n", 1)[0]
    placed = set(re.findall(r"\b[a-z_]+\b", layers))
    assert packages - placed == set(), "add each package of qalisball/ to a layer of .importlinter"


def test_issue_21_every_feature_table_is_a_registered_migration() -> None:
    """Storage imports no feature; the features' tables join its migrations, and a number is one feature's."""
    from qalisball.server import tables  # noqa: F401  (the composition root registers every feature's tables)
    from qalisball.storage import migrations, store

    registered = migrations.features()
    assert (registered["matches"], registered["competitions"], registered["venue"]) == ([1, 2, 20], [3], [5])
    assert store.MIGRATIONS is migrations.MIGRATIONS and {1, 2, 3, 5, 20} <= set(store.MIGRATIONS)
    assert {"matches", "teams", "fixtures", "screens", "team_logos"} <= set(store.SEALED)
    with pytest.raises(migrations.MigrationClash):
        migrations.register("elsewhere", {3: lambda db: None})
    assert migrations.REGISTERED[3].feature == "competitions"


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_issue_21_the_match_api_reaches_the_rules_only_through_the_service() -> None:
    assert "qalisball.rules.engine" not in _imported_modules(PACKAGE / "match" / "api.py")


def test_issue_21_M1_M3_the_service_says_where_a_late_call_fits(app: Flask, client: Any, clock: FakeClock) -> None:
    """The service itself answers ``fits_after`` with the M1 refusal of a call stamped before the last one."""
    from qalisball.match.schemas import parse_event
    from qalisball.rules.errors import RuleViolation
    from qalisball.web import services

    match = MatchDriver(client, clock)
    match.kickoff("home", "x0")
    match.take()
    clock.advance(60_000)
    paused = match.post({"type": "clock", "action": "pause"}, role="scorer")["seq"]  # at 1:00
    svc = services.MATCHES.of(app)
    m = svc.get(match.id)
    body = {"type": "goal", "team": "home", "player": 3, "at_ms": 30_000}
    with app.test_request_context(), pytest.raises(RuleViolation) as refused:
        svc.submit(m, "assistant1", body, parse_event(body))
    assert refused.value.rule == "M1"
    assert "late_call" not in refused.value.details and 0 < refused.value.details["fits_after"] < paused


# -- issue 28 item 4: feature-blind kernels, declared wiring, no cycles ---------------------------------------

KERNELS = ("qalisball.web", "qalisball.live", "qalisball.storage")
ABOVE_KERNELS = tuple(f"qalisball.{p}" for p in ("match", "competitions", "venue", "reports", "training", "feed", "server"))


def _graph_with_type_only_imports() -> Any:
    import grimp

    return grimp.build_graph("qalisball", cache_dir=None, exclude_type_checking_imports=False)


def test_issue28_item4_D320_the_kernels_name_no_feature_not_even_for_types() -> None:
    """web/, live/ and storage/ import no feature module (nor the root), counting ``if TYPE_CHECKING:`` imports;
    and the contracts count them too (no ``exclude_type_checking_imports``), with a contract that says so."""
    graph = _graph_with_type_only_imports()
    named = sorted(
        (module, imported)
        for module in graph.modules
        if module.startswith(KERNELS)
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.startswith(ABOVE_KERNELS)
    )
    assert named == [], f"a kernel names a feature: {named} (give it a protocol the kernel owns instead)"
    contracts = (ROOT / ".importlinter").read_text(encoding="utf-8")
    assert "exclude_type_checking_imports" not in contracts
    assert "type = acyclic_siblings" in contracts and "[importlinter:contract:kernels]" in contracts


def test_issue28_item4_no_import_cycles_between_any_siblings() -> None:
    """No two parts of qalisball import each other, nor two modules of one package, directly or around a loop
    (the what-if's API and pages, the venue's API and pages, the rule core's state and rulings were three)."""
    graph = _graph_with_type_only_imports()
    packages = sorted({m for m in graph.modules if graph.find_children(m)})
    cycles = {p: sorted(graph.nominate_cycle_breakers(p)) for p in packages}
    assert {p: c for p, c in cycles.items() if c} == {}


def test_issue28_item4_D320_the_organiser_check_asks_what_the_root_handed_it(app: Flask, client: Any) -> None:
    """The web kernel's guards ask the object ``create_app`` handed them (``services.OFFICIALS``, a protocol the
    kernel owns), never the match feature itself: handed another, they answer by it."""
    from qalisball.web import services

    assert services.OFFICIALS.of(app) is app.extensions["qalisball"]  # the match service, handed by the root
    body = {"home": {"name": "A"}, "away": {"name": "B"}}
    assert client.post("/api/matches", json=body, headers={"Authorization": "Bearer someone"}).status_code == 401

    class OneScorer:
        """Another object that answers what the kernel asks (``services.Officials``), structurally."""

        matches: dict[str, Any] = {}
        problem = None
        lost: dict[str, Any] = {}

        def role_for_any_match(self, token: str) -> str | None:
            return "scorer" if token == "someone" else None

        def damage(self, m: Any) -> None:
            return None

    services.OFFICIALS.install(app, OneScorer())
    refused = client.post("/api/matches", json=body, headers={"Authorization": "Bearer someone"})
    assert refused.status_code == 403 and "official" in refused.get_json()["message"]
