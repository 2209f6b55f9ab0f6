"""Decisions as data (issue 21, "words and decisions as data"): docs/decisions.toml is the one source of the
decisions; docs/decisions.md, the rule book's decision titles (qalisball/web/decision_titles.py) and their
Chinese (translations/zh) are rendered from it by scripts/render_decisions.py, and every decision names a
story test and a place in the code that exist. Nothing reads a document or source text at run time.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from qalisball.web import rulebook

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str) -> ModuleType:
    """A script of scripts/ as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


render = _script("render_decisions")
NAMESPACES, DECISIONS = render.load()


def test_issue21_docs_decisions_md_the_titles_and_their_chinese_are_rendered_from_decisions_toml() -> None:
    stale = [str(p.relative_to(ROOT)) for p in render.out_of_date()]
    assert not stale, f"run `make decisions` (python scripts/render_decisions.py): out of date: {stale}"


def test_issue21_each_decision_once_in_a_namespace_with_titles_in_both_languages() -> None:
    ids = [d.id for d in DECISIONS]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert all(re.fullmatch(r"[DS]\d+", i) for i in ids), ids
    namespaces = {n.id for n in NAMESPACES}
    assert {d.namespace for d in DECISIONS} <= namespaces
    for d in DECISIONS:
        assert d.title_en and re.search(r"[\u4e00-\u9fff]", d.title_zh), d.id
        assert d.text.strip(), d.id


def test_issue21_the_doc_has_an_index_and_an_anchor_for_every_decision_filed_under_its_namespace() -> None:
    doc = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    index, _, body = doc.partition("\n## <a id=")
    for d in DECISIONS:
        assert f"[{d.id}](#{d.id})" in index, d.id
        assert doc.count(f'<a id="{d.id}"></a>') == 1, d.id
    # A row sits under the heading of its own namespace (the old doc filed D80–D92 under "Reliability").
    sections = re.split(r'^## <a id="(\w+)"></a>', "## <a id=" + body, flags=re.M)[1:]
    filed = {
        d_id: namespace
        for namespace, text in zip(sections[::2], sections[1::2], strict=True)
        for d_id in re.findall(r'<a id="([DS]\d+)">', text)
    }
    assert filed == {d.id: d.namespace for d in DECISIONS}


def _test_names() -> dict[str, set[str]]:
    return {
        p.relative_to(ROOT).as_posix(): set(re.findall(r"^\s*(?:async )?def (test_\w+)", p.read_text(encoding="utf-8"), re.M))
        for p in (ROOT / "tests").rglob("test_*.py")
    }


def test_issue21_every_decision_names_a_story_test_that_exists() -> None:
    tests = _test_names()
    untested = [d.id for d in DECISIONS if not d.tests]
    assert not untested, f"decisions without a test: {untested}"
    missing = []
    for d in DECISIONS:
        for test in d.tests:
            path, _, name = test.partition("::")
            if path not in tests or (name and name not in tests[path]):
                missing.append(f"{d.id}: {test}")
    assert not missing, missing


def _defines(path: Path, name: str) -> bool:
    """Whether ``path`` defines ``name``: a function, class or constant in Python (``Class.method``: both),
    the name itself in a script, stylesheet or template; ``NEXT_`` stands for every ``NEXT_…``."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return name in text
    for part in name.split("."):
        if not re.search(rf"^\s*(?:async def|def|class)\s+{re.escape(part)}\b|^\s*{re.escape(part)}\w*\s*[:=]", text, re.M):
            return False
    return True


def test_issue21_every_decision_names_a_place_in_the_code_that_exists() -> None:
    nowhere = [d.id for d in DECISIONS if not d.where]
    assert not nowhere, f"decisions without a place: {nowhere}"
    missing = []
    for d in DECISIONS:
        for place in d.where:
            path, _, name = place.partition("::")
            if not (ROOT / path).is_file() or (name and not _defines(ROOT / path, name)):
                missing.append(f"{d.id}: {place}")
    assert not missing, missing


def test_issue21_D27_points_at_the_function_that_refuses_a_void_of_a_void() -> None:
    (d27,) = [d for d in DECISIONS if d.id == "D27"]
    assert "qalisball/rules/corrections.py::check_correction" in d27.where
    assert not any("service._void" in place for place in d27.where)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_issue21_the_rule_books_decision_titles_are_the_tomls_through_the_catalogue(app: Any, language: str) -> None:
    with app.app_context():
        for d in (d for d in DECISIONS if d.id.startswith("D")):  # the screens' S1–S5 are no rules: never cited
            assert rulebook.title(d.id, language) == (d.title_zh if language == "zh" else d.title_en), d.id


def test_issue21_nothing_in_the_app_reads_docs_or_source_text() -> None:
    """`grep -rn "ast.parse\\|decisions.md\\|messages.po" qalisball/` finds nothing: words come from the compiled
    catalogue and generated modules, so rewording a document never changes what a screen shows."""
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in (ROOT / "qalisball").rglob("*.py")
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"ast\.parse|decisions\.md|messages\.po", line)
    ]
    assert not found, found
