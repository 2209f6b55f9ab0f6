"""Issue 23 item 5: the README as a newcomer reads it from a fresh clone.

- It starts with the two commands, then "officiate your first match in two minutes", linking the docs page
  that exists, and links into the docs.
- Its examples follow ``PORT``: no address hard-codes port 5000 (it is written ``${PORT:-5000}`` or ``<PORT>``).
- Every decision code it cites (D48, D53, …) links that decision's anchor in docs/decisions.md, and the
  anchor exists: a code alone says nothing to a newcomer.
- Its code map is one list and matches the tree: every module of ``qalisball/<package>/`` is named under its
  package, and every path the map names exists (issue 21: "the README's map is one list that matches the tree").
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DECISIONS = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")


def _sections() -> list[str]:
    return re.findall(r"^## (.+)$", README, flags=re.M)


def test_issue_23_readme_starts_with_the_two_commands_then_the_first_match() -> None:
    assert _sections()[0] == "Two commands"
    first = README.split("## Two commands", 1)[1]
    block_end = first.index("```", first.index("```") + 3)
    commands = first[:block_end]
    assert "make run" in commands and "make test" in commands
    # The very next paragraph: the two-minute match, linked to the docs page that exists.
    after = first[block_end + 3 :].lstrip().split("\n\n", 1)[0]
    assert after.startswith("**Officiate your first match in two minutes**"), after
    links = re.findall(r"\]\((docs/[^)#\s]+)", after)
    assert "docs/guide/first-match.md" in links
    for link in links:
        assert (ROOT / link).is_file(), link


def test_issue_23_readme_examples_follow_port() -> None:
    hard_coded = [m.start() for m in re.finditer(r":5000\b", README) if README[m.start() - 8 : m.start()] != "${PORT:-"]
    assert not hard_coded, [README[i - 40 : i + 10] for i in hard_coded]


def _without_code_spans(text: str) -> str:
    """Code spans name tests and files (``test_D40_…``), not decisions cited to the reader."""
    return re.sub(r"`[^`\n]*`", "", text)


def test_issue_23_every_decision_code_the_readme_cites_links_its_anchor() -> None:
    text = _without_code_spans(README)
    linked = re.compile(r"\[(D\d+(?:–D\d+|…)?)\]\(docs/decisions\.md#(D\d+)\)")
    for text_code, anchor in linked.findall(text):
        assert text_code.startswith(anchor), (text_code, anchor)
        assert f'<a id="{anchor}"></a>' in DECISIONS, anchor
    bare = re.findall(r"(?<![\w#\[])D\d+\b", linked.sub("", text))
    assert not bare, bare
    assert linked.search(text)


def _code_map() -> str:
    start = README.index("- **The code**")
    end = README.index("\n\n", start)
    return README[start:end]


def test_issue_21_the_readmes_code_map_is_one_list_that_matches_the_tree() -> None:
    code_map = _code_map()
    lines = code_map.splitlines()
    # One list: every line is an item or the continuation of one, nested by two spaces; no code block.
    assert "```" not in code_map
    stray = [line for line in lines if not re.match(r"^( {2})*(- |  )", line)]
    assert not stray, stray
    # Each package is one item of the list, named once, with its modules in the item.
    packages = sorted(p for p in (ROOT / "qalisball").iterdir() if p.is_dir() and (p / "__init__.py").exists())
    items = re.split(r"\n  - ", code_map)
    for package in packages:
        heads = [i for i in items if i.startswith(f"`qalisball/{package.name}/`")]
        assert len(heads) == 1, (package.name, len(heads))
        modules = {p.name for p in package.iterdir() if p.suffix == ".py" and p.name != "__init__.py"}
        modules |= {p.name + "/" for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
        named = set(re.findall(r"`([\w/]+(?:\.py|/))`", heads[0]))
        assert modules <= named, (package.name, sorted(modules - named))
    # Every path the map names exists.
    for path in re.findall(r"`((?:qalisball|static|templates|tests)/[\w/.]*)`", code_map):
        assert (ROOT / path).exists(), path
    for sub in re.findall(r"`((?:lib|console)/)`", code_map):
        assert (ROOT / "static" / "js" / sub).is_dir(), sub
    js_items = code_map[code_map.index("`static/js/`") :]
    for folder in ("lib", "console"):
        part = js_items[js_items.index(f"`{folder}/`") :]
        part = part[: part.index("\n    - ") if "\n    - " in part else len(part)]
        files = {p.name for p in (ROOT / "static" / "js" / folder).glob("*.js")}
        named = set(re.findall(r"`(\w+\.js)`", part))
        assert files == named, (folder, sorted(files ^ named))
