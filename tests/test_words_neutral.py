"""D172: words about a person never say "he" or "she" (issue 19 item 7: C5's refusal told a woman "he stands
aside"). A player, an official or a captain is named by the role ("the player", "the taker"), in English and
in Chinese (no 他/她), in every refusal, warning, label and report text — the class, not one string.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "translations" / "zh" / "LC_MESSAGES" / "messages.po"
ENGLISH = re.compile(r"\b(he|his|him|himself|she|her|hers|herself)\b", re.IGNORECASE)
CHINESE = re.compile(r"(?<!其)[他她]")  # 其他 is "other", not a pronoun
NAMES = {"Fay He"}  # the demo's players: He is a family name


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _strings() -> Iterator[tuple[str, str]]:
    """Every string constant of the app's code (not its docstrings: they speak to programmers), with where."""
    for path in sorted((ROOT / "qalisball").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node.value


def _template_lines() -> Iterator[tuple[str, str]]:
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = re.sub(r"\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)  # Jinja comments
        for n, line in enumerate(text.splitlines(), 1):
            yield f"{path.relative_to(ROOT)}:{n}", line


def test_D172_no_text_of_the_app_calls_a_person_he_or_she() -> None:
    """Refusals (N_), page words (_l), the rule book's titles, the report's bilingual labels, the templates."""
    bad = [
        (where, text)
        for where, text in [*_strings(), *_template_lines()]
        if text not in NAMES and (ENGLISH.search(text) or CHINESE.search(text))
    ]
    assert not bad, bad


def test_D172_no_chinese_translation_of_the_apps_words_uses_a_gendered_pronoun() -> None:
    """The zh catalogue's translation of every string the code uses (C5's refusal among them)."""
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    used = {text for _, text in _strings()}
    bad = [(m.id, m.string) for m in catalog if m.id in used and isinstance(m.string, str) and CHINESE.search(m.string)]
    assert not bad, bad
