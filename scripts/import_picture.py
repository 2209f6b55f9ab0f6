"""The import picture of qalisball/: which part imports which, from the code's own imports (grimp).

    .venv/bin/python scripts/import_picture.py            # one line per part: what it imports
    .venv/bin/python scripts/import_picture.py --depth 2  # one level deeper (qalisball.match.api …)
    .venv/bin/python scripts/import_picture.py --run-time-only  # without the imports made for the type checker only

A part is a package or module directly under qalisball/ (``--depth 1``). Each line lists the parts it
imports, with the number of imports behind each arrow; the last lines count the arrows and the cycles
between parts (two parts that import each other), which the layer contracts of ``make lint`` forbid.
Imports under ``if TYPE_CHECKING:`` count, as ``.importlinter`` counts them (issue 28 item 4): a kernel
names no feature, not even for the type checker.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import grimp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def part(module: str, depth: int) -> str:
    return ".".join(module.split(".")[: depth + 1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--run-time-only", action="store_true", help="leave out the imports made for the type checker only")
    args = ap.parse_args()
    graph = grimp.build_graph("qalisball", cache_dir=None, exclude_type_checking_imports=args.run_time_only)
    arrows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    parts: set[str] = set()
    for module in graph.modules:
        src = part(module, args.depth)
        parts.add(src)
        for imported in graph.find_modules_directly_imported_by(module):
            dst = part(imported, args.depth)
            if dst != src and dst.startswith("qalisball"):
                arrows[src][dst] += len(graph.get_import_details(importer=module, imported=imported)) or 1
    for src in sorted(parts):
        targets = ", ".join(f"{d.removeprefix('qalisball.')} ({n})" for d, n in sorted(arrows[src].items()))
        print(f"{src.removeprefix('qalisball.') or 'qalisball'} -> {targets or '-'}")
    cycles = sorted({tuple(sorted((a, b))) for a in arrows for b in arrows[a] if a in arrows.get(b, {})})
    print(f"\n{len(parts)} parts, {sum(len(v) for v in arrows.values())} arrows, {len(cycles)} two-way pairs")
    for a, b in cycles:
        print(f"  {a.removeprefix('qalisball.')} <-> {b.removeprefix('qalisball.')}")


if __name__ == "__main__":
    main()
