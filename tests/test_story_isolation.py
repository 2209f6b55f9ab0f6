"""The rule story tests run on the rule core alone: no Flask, no SQLite, no marshmallow, no service (issue 10).

They officiate through tests/engine_driver.py, which calls ``qalisball.rules`` directly; what is about
HTTP stays in tests/test_api.py. These checks keep it so.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
STORIES = sorted(TESTS.glob("test_rules_*.py"))
# The story tests and the helpers they use.
STORY_FILES = [*STORIES, TESTS / "engine_driver.py", TESTS / "calls.py"]
# What a story module may import: the standard library's typing helpers, pytest, the rule core, the driver.
ALLOWED = (
    "__future__",
    "typing",
    "dataclasses",
    "collections",
    "pytest",
    "qalisball.rules",
    "tests.engine_driver",
    "tests.calls",
)
# What must not be loaded to run them: the web stack, the database, the schemas, the service.
FORBIDDEN = (
    "flask",
    "flask_socketio",
    "flask_babel",
    "werkzeug",
    "marshmallow",
    "sqlite3",
    "_sqlite3",
    "gevent",
    # Every package of qalisball/ but the rule core (issue 21's layout), with whatever lies inside it.
    "qalisball.match",
    "qalisball.competitions",
    "qalisball.venue",
    "qalisball.reports",
    "qalisball.training",
    "qalisball.storage",
    "qalisball.web",
    "qalisball.live",
    "qalisball.server",
)


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append("." * node.level + (node.module or ""))
    return names


def _allowed(name: str) -> bool:
    return any(name == a or name.startswith(a + ".") for a in ALLOWED)


def test_there_are_rule_story_files() -> None:
    assert len(STORIES) >= 4, STORIES


@pytest.mark.parametrize("path", STORY_FILES, ids=[p.name for p in STORY_FILES])
def test_story_files_import_only_the_rule_core_and_the_engine_driver(path: Path) -> None:
    bad = [name for name in _imports(path) if not _allowed(name)]
    assert not bad, f"{path.name} imports {bad}: rule stories call the engine (tests/engine_driver.py)"


def _in_a_fresh_interpreter(statement: str, bare_package: bool) -> dict[str, object]:
    """Run ``statement`` (which sets ``rc``) in a new Python; answer ``rc`` and the forbidden modules it loaded."""
    stub = (
        # qalisball/__init__.py is the Flask app factory: skip it, load the subpackages from their folder.
        f"import types; pkg = types.ModuleType('qalisball'); pkg.__path__ = [{str(ROOT / 'qalisball')!r}]; "
        "sys.modules['qalisball'] = pkg; "
        if bare_package
        else ""
    )
    code = (
        "import json, sys; "
        + stub
        + statement
        + f"; loaded = sorted(m for m in sys.modules if any(m == f or m.startswith(f + '.') for f in {FORBIDDEN!r})); "
        + "print('RESULT ' + json.dumps({'rc': int(rc), 'loaded': loaded}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, done.stdout + done.stderr
    result: dict[str, object] = json.loads(line.removeprefix("RESULT "))
    return result


def test_story_tests_pass_with_nothing_but_the_rule_core_loaded() -> None:
    files = ", ".join(repr(str(p)) for p in STORIES)
    run = f"import pytest; rc = pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:cov', {files}])"
    assert _in_a_fresh_interpreter(run, bare_package=True) == {"rc": 0, "loaded": []}


def test_importing_the_rule_core_loads_no_web_stack() -> None:
    imports = "import " + ", ".join(f"tests.{p.stem}" for p in STORIES) + "; rc = 0"
    assert _in_a_fresh_interpreter(imports, bare_package=False) == {"rc": 0, "loaded": []}
