"""Issue 28 item 5, the cost of a rule book: docs/trial-rulebook-3.0.diff adds a rule book 3.0 (five shootout
rounds, no short corners) to a copy of the tree, touching at most 3 files of code. Applied, the copy offers
3.0 in the catalogue with five rounds and no short corner, its schema fills the five rounds in, its field
marks no short-corner spot, and the diff's own test (a level 3.0 match plays five scheduled rounds) passes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIFF = ROOT / "docs" / "trial-rulebook-3.0.diff"

PROBE = """
import json, sys
from qalisball.match.schemas import MatchSchema
from qalisball.rules.field import Field
from qalisball.server.demo import demo_request
from qalisball.server.factory import create_app
from qalisball.web.field_svg import field_svg

app = create_app({"TESTING": True, "DATABASE": sys.argv[1], "ADMIN_TOKEN": "trial"})
books = app.test_client().get("/api/catalogue").get_json()["rule_books"]
body = demo_request()
body["rules"] = {"rule_set": "3.0"}
print(json.dumps({
    "offered": list(books),
    "defaults": books.get("3.0", {}).get("defaults"),
    "restarts": books.get("3.0", {}).get("restarts"),
    "schema_rounds": MatchSchema().load(body)["rules"]["shootout_rounds"],
    "short_corner_spot": "short-corner-spot" in field_svg(Field(40, 25, True), rule_set="3.0"),
}))
"""


def _copy(dest: Path) -> None:
    """The tree as committed and changed here (git's files), without the virtualenv or instance data."""
    files = ["git", "ls-files", "-co", "--exclude-standard"]
    listed = subprocess.run(files, cwd=ROOT, check=True, capture_output=True, text=True)
    for name in listed.stdout.splitlines():
        src = ROOT / name
        if src.is_file() and not src.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def test_issue28_item5_a_rule_book_3_0_is_one_book_in_at_most_three_files_of_code(tmp_path: Path) -> None:
    text = DIFF.read_text()
    touched = [line.split(" b/")[-1] for line in text.splitlines() if line.startswith("diff --git ")]
    code = [p for p in touched if p.startswith(("qalisball/", "templates/", "static/"))]
    assert len(code) <= 3, code
    tree = tmp_path / "tree"
    _copy(tree)
    subprocess.run(["git", "apply", "--check", str(DIFF)], cwd=tree, check=True)
    subprocess.run(["git", "apply", str(DIFF)], cwd=tree, check=True)
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "trial.db")], cwd=tree, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["offered"] == ["2.0", "1.0", "3.0"]
    assert seen["defaults"]["shootout_rounds"] == 5 and seen["schema_rounds"] == 5
    assert "short_corner" not in seen["restarts"] and not seen["short_corner_spot"]
    own = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_trial_rulebook_3_0.py"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    assert own.returncode == 0, own.stdout + own.stderr
