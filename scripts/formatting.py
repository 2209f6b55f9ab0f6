"""What the generating scripts share: a generated module as ``ruff format`` writes it, so that `make lint`
and the tests that check the module is up to date agree (scripts/extract_engine_messages.py,
scripts/render_decisions.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ruff_formatted(source: str, path: Path) -> str:
    """``source`` as ``ruff format`` writes it for the file ``path`` (its settings are the project's)."""
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(path), "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout
