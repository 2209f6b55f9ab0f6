"""Issue 29 item 1: the fan-out benchmark and ``make bench-compare`` are wired (mechanism only, never a timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def test_issue29_item1_make_bench_compare_parses_and_serves_both_checkouts_by_their_app_py() -> None:
    """``make bench-compare BASE=<ref>`` runs fanout_bench.py with that ref; the plan names both checkouts' app.py."""
    dry = run("make", "-n", "--no-print-directory", "bench-compare", "BASE=HEAD~1")
    assert dry.returncode == 0, dry.stderr
    assert '.venv/bin/python bench/fanout_bench.py --base "HEAD~1"' in dry.stdout
    sha = run("git", "rev-parse", "HEAD~1").stdout.strip()
    plan = run(sys.executable, "bench/fanout_bench.py", "--base", "HEAD~1", "--dry-run")
    assert plan.returncode == 0, plan.stderr
    base_dir = ROOT / "bench" / ".cache" / f"base-{sha[:12]}"
    assert f"project base {sha[:9]}: " in plan.stdout
    assert f"bench/gc_probe.py {base_dir / 'app.py'}" in plan.stdout, plan.stdout
    assert f"bench/gc_probe.py {ROOT / 'app.py'}" in plan.stdout
    assert "floor: bench/fanout_floor.py" in plan.stdout
    assert "bench/.cache/" in (ROOT / ".gitignore").read_text().splitlines()
    bad = run(sys.executable, "bench/fanout_bench.py", "--base", "no-such-ref-xyz", "--dry-run")
    assert bad.returncode != 0


def test_issue29_item1_the_floors_frame_is_the_size_it_is_given(tmp_path: Path) -> None:
    """The floor writes one frame of the project's state size: its padding gives exactly that length."""
    code = (
        "import json, sys; sys.path.insert(0, 'bench'); import fanout_floor as f; f.pad_to(1463);"
        "print(len(json.dumps({'seq': 10, 't0': 10**15, **f.BASE_STATE})))"
    )
    out = run(sys.executable, "-c", code)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == 1463


def test_issue29_item1_gc_probe_records_gen2_pauses_of_any_app_py(tmp_path: Path) -> None:
    """gc_probe.py runs a checkout's app.py as __main__ from its directory and writes each gen-2 pause."""
    app = tmp_path / "app.py"
    app.write_text("import gc, os\ngc.collect()\nprint(os.getcwd(), __name__)\n")
    probe = tmp_path / "gc.txt"
    env = {"QB_GC_PROBE": str(probe), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "gc_probe.py"), str(app)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(tmp_path), "__main__"]
    rows = [line.split() for line in probe.read_text().splitlines()]
    assert rows and all(r[1] == "2" and float(r[2]) >= 0 for r in rows), rows
